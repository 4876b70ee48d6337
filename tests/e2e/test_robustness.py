"""Things a checker throws at any server: concurrent calls, awkward bytes, huge lines."""

import re

import anyio
import pytest

from conftest import make, numbered, serve, split_footer

pytestmark = pytest.mark.anyio


async def test_concurrent_calls_each_get_their_own_answer(ws):
    for i in range(20):
        make(ws, {f"f{i:02d}.txt": numbered(i + 1, fmt=f"file{i} line {{}}")})
    results = {}
    async with serve(ws) as c:

        async def one(i):
            results[i] = await c.call("read_file", {"path": f"f{i:02d}.txt"})

        async with anyio.create_task_group() as tg:
            for i in range(20):
                tg.start_soon(one, i)
            tg.start_soon(lambda: c.call("tree", {}))
            tg.start_soon(lambda: c.call("search", {"query": "line 3"}))
    for i in range(20):
        assert results[i].ok() == numbered(i + 1, fmt=f"file{i} line {{}}")


async def test_non_utf8_file_does_not_break_the_server(ws):
    make(ws, {"latin1.txt": "caf\xe9\nna\xefve\n".encode("latin-1"), "ok.txt": "fine\n"})
    async with serve(ws) as c:
        r = await c.call("read_file", {"path": "latin1.txt"})
        if r.is_error:
            r.err()
        else:
            assert r.text.startswith("caf")
        r = await c.call("search", {"query": "na"})
        assert not r.is_error or r.kind
        assert (await c.call("read_file", {"path": "ok.txt"})).ok() == "fine\n"


async def test_search_match_past_the_200th_char_is_listed_cut(ws):
    line = "x" * 300 + "needle" + "y" * 94  # 400 chars
    make(ws, {"w.txt": line + "\n"})
    async with serve(ws) as c:
        text = (await c.call("search", {"query": "needle"})).ok()
    assert text.rstrip("\n") == "w.txt:1:" + "x" * 200 + " (200 more chars...)"


async def test_search_on_a_huge_single_line(ws):
    line = "needle" + "z" * 99_994  # 100,000 chars
    make(ws, {"h.txt": line + "\n"})
    async with serve(ws) as c:
        text = (await c.call("search", {"query": "needle"})).ok()
    assert text.rstrip("\n") == "h.txt:1:" + line[:200] + " (99800 more chars...)"


async def test_read_window_of_a_file_with_blank_lines(ws):
    content = "a\n\n\nb\n\n"
    make(ws, {"b.txt": content})
    async with serve(ws) as c:
        assert (await c.call("read_file", {"path": "b.txt"})).ok() == content
        body, footer = split_footer((await c.call("read_file", {"path": "b.txt", "offset": 2, "limit": 3})).ok())
        assert footer == "[showing lines 2-4 of 5; continue with offset: 5]"
        assert body == "\n\nb\n"
        body, footer = split_footer((await c.call("read_file", {"path": "b.txt", "offset": 5})).ok())
        assert footer == "[showing lines 5-5 of 5]"
        assert body == "\n"


async def test_search_line_numbers_with_crlf_and_blank_lines(ws):
    make(ws, {"c.txt": b"\r\n\r\nhit\r\n\r\nhit\r\n"})
    async with serve(ws) as c:
        text = (await c.call("search", {"query": "hit"})).ok()
    assert re.findall(r"^c\.txt:(\d+):hit$", text, re.M) == ["3", "5"]
