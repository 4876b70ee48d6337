"""read_file under the two read modes: offset / limit, paging footers, whole-file reads,
errors, and the 256 KiB byte ceiling (gg's read modes and whole-file reads)."""

import re

import pytest

from conftest import make, numbered, read_cap_config, serve, split_footer

pytestmark = pytest.mark.anyio


def lines_text(a: int, b: int) -> str:
    return numbered(b - a + 1, start=a)


def assert_window(text: str, a: int, b: int, n: int, cont: bool, body: str | None = None):
    got_body, footer = split_footer(text)
    if cont:
        assert footer == f"[showing lines {a}-{b} of {n}; continue with offset: {b + 1}]", text[-200:]
    else:
        assert footer == f"[showing lines {a}-{b} of {n}]", text[-200:]
    assert got_body == (body if body is not None else lines_text(a, b))


# ---- default-cap -----------------------------------------------------------------------------


async def test_default_cap_2000_without_config(ws):
    make(ws, {"big.txt": numbered(2500)})
    async with serve(ws) as c:
        r = await c.call("read_file", {"path": "big.txt"})
        assert_window(r.ok(), 1, 2000, 2500, cont=True)


async def test_default_cap_window_from_configured_line_cap(ws, tmp_path):
    make(ws, {"f.txt": numbered(1200)})
    async with serve(ws, read_cap_config(tmp_path, "default-cap", 250)) as c:
        r = await c.call("read_file", {"path": "f.txt"})
        assert_window(r.ok(), 1, 250, 1200, cont=True)


async def test_spec_example_footer_251_500_of_1200(ws, tmp_path):
    make(ws, {"f.txt": numbered(1200)})
    async with serve(ws, read_cap_config(tmp_path, "default-cap", 250)) as c:
        r = await c.call("read_file", {"path": "f.txt", "offset": 251})
        text = r.ok()
        assert text.rstrip("\n").endswith("\n[showing lines 251-500 of 1200; continue with offset: 501]")
        assert_window(text, 251, 500, 1200, cont=True)


async def test_paging_to_the_end_says_lines_without_continuation(ws, tmp_path):
    make(ws, {"f.txt": numbered(1200)})
    async with serve(ws, read_cap_config(tmp_path, "default-cap", 250)) as c:
        r = await c.call("read_file", {"path": "f.txt", "offset": 1001})
        assert_window(r.ok(), 1001, 1200, 1200, cont=False)


async def test_following_continuations_reassembles_the_file(ws, tmp_path):
    content = numbered(1200)
    make(ws, {"f.txt": content})
    async with serve(ws, read_cap_config(tmp_path, "default-cap", 250)) as c:
        offset, parts = 1, []
        for _ in range(10):
            r = await c.call("read_file", {"path": "f.txt", "offset": offset})
            body, footer = split_footer(r.ok())
            parts.append(body)
            m = re.search(r"continue with offset: (\d+)\]$", footer or "")
            if not m:
                break
            offset = int(m.group(1))
        assert "".join(parts) == content


async def test_limit_above_cap_is_honoured_verbatim(ws, tmp_path):
    make(ws, {"f.txt": numbered(1200)})
    async with serve(ws, read_cap_config(tmp_path, "default-cap", 250)) as c:
        r = await c.call("read_file", {"path": "f.txt", "limit": 600})
        assert_window(r.ok(), 1, 600, 1200, cont=True)


async def test_limit_below_cap_is_honoured_verbatim(ws, tmp_path):
    make(ws, {"f.txt": numbered(1200)})
    async with serve(ws, read_cap_config(tmp_path, "default-cap", 250)) as c:
        r = await c.call("read_file", {"path": "f.txt", "offset": 7, "limit": 10})
        assert_window(r.ok(), 7, 16, 1200, cont=True)


async def test_limit_with_offset_running_to_the_end(ws, tmp_path):
    make(ws, {"f.txt": numbered(1200)})
    async with serve(ws, read_cap_config(tmp_path, "default-cap", 250)) as c:
        r = await c.call("read_file", {"path": "f.txt", "offset": 1100, "limit": 5000})
        assert_window(r.ok(), 1100, 1200, 1200, cont=False)


@pytest.mark.parametrize("limit", [1200, 1201, 99999])
async def test_limit_covering_the_file_is_the_file_byte_for_byte(ws, tmp_path, limit):
    content = numbered(1200)
    make(ws, {"f.txt": content})
    async with serve(ws, read_cap_config(tmp_path, "default-cap", 250)) as c:
        r = await c.call("read_file", {"path": "f.txt", "limit": limit})
        assert r.ok() == content
        r = await c.call("read_file", {"path": "f.txt", "offset": 1, "limit": limit})
        assert r.ok() == content


async def test_file_of_exactly_cap_lines_reads_whole(ws, tmp_path):
    content = numbered(250)
    make(ws, {"f.txt": content, "g.txt": numbered(251)})
    async with serve(ws, read_cap_config(tmp_path, "default-cap", 250)) as c:
        assert (await c.call("read_file", {"path": "f.txt"})).ok() == content
        assert_window((await c.call("read_file", {"path": "g.txt"})).ok(), 1, 250, 251, cont=True)


async def test_line_cap_of_one(ws, tmp_path):
    make(ws, {"f.txt": "alpha\nbeta\n"})
    async with serve(ws, read_cap_config(tmp_path, "default-cap", 1)) as c:
        r = await c.call("read_file", {"path": "f.txt"})
        assert_window(r.ok(), 1, 1, 2, cont=True, body="alpha\n")


# ---- unlimited -------------------------------------------------------------------------------


async def test_unlimited_returns_whole_file_byte_for_byte(ws, tmp_path):
    content = numbered(3000)
    make(ws, {"f.txt": content})
    async with serve(ws, read_cap_config(tmp_path, "unlimited", 250)) as c:
        assert (await c.call("read_file", {"path": "f.txt"})).ok() == content


async def test_unlimited_from_offset_runs_to_end_with_showing_note(ws, tmp_path):
    make(ws, {"f.txt": numbered(1200)})
    async with serve(ws, read_cap_config(tmp_path, "unlimited", 250)) as c:
        r = await c.call("read_file", {"path": "f.txt", "offset": 5})
        assert_window(r.ok(), 5, 1200, 1200, cont=False)


async def test_unlimited_honours_limit_with_continuation(ws, tmp_path):
    make(ws, {"f.txt": numbered(1200)})
    async with serve(ws, read_cap_config(tmp_path, "unlimited", 250)) as c:
        r = await c.call("read_file", {"path": "f.txt", "limit": 3})
        assert_window(r.ok(), 1, 3, 1200, cont=True)
        r = await c.call("read_file", {"path": "f.txt", "offset": 600, "limit": 300})
        assert_window(r.ok(), 600, 899, 1200, cont=True)


async def test_short_file_reads_identically_under_both_modes(ws, tmp_path):
    content = "# Title\n\n\tindented\ttabs  \ntrailing spaces   \nünïcödé ✓\n"
    make(ws, {"s.md": content})
    outs = []
    for mode in ("default-cap", "unlimited"):
        async with serve(ws, read_cap_config(tmp_path, mode, 250)) as c:
            outs.append((await c.call("read_file", {"path": "s.md"})).ok())
    assert outs[0] == outs[1] == content


async def test_long_file_differs_between_arms_only_by_the_cap(ws, tmp_path):
    content = numbered(300)
    make(ws, {"f.txt": content})
    async with serve(ws, read_cap_config(tmp_path, "default-cap", 250)) as c:
        capped = (await c.call("read_file", {"path": "f.txt"})).ok()
        full = (await c.call("read_file", {"path": "f.txt", "limit": 300})).ok()
    async with serve(ws, read_cap_config(tmp_path, "unlimited", 250)) as c:
        unlimited = (await c.call("read_file", {"path": "f.txt"})).ok()
    assert full == unlimited == content
    assert_window(capped, 1, 250, 300, cont=True)


# ---- line accounting -------------------------------------------------------------------------


async def test_trailing_newline_is_not_a_phantom_line(ws):
    make(ws, {"f.txt": "a\nb\nc\n"})
    async with serve(ws) as c:
        r = await c.call("read_file", {"path": "f.txt", "offset": 2})
        assert_window(r.ok(), 2, 3, 3, cont=False, body="b\nc\n")
        r = await c.call("read_file", {"path": "f.txt", "limit": 1})
        assert_window(r.ok(), 1, 1, 3, cont=True, body="a\n")
        err = (await c.call("read_file", {"path": "f.txt", "offset": 4})).err()
        assert re.search(r"\b3\b", err), err


async def test_file_without_final_newline(ws):
    make(ws, {"f.txt": "a\nb\nc"})
    async with serve(ws) as c:
        assert (await c.call("read_file", {"path": "f.txt"})).ok() == "a\nb\nc"
        text = (await c.call("read_file", {"path": "f.txt", "offset": 3})).ok()
        # the footer is a line of its own, after the last (unterminated) line
        assert text.rstrip("\n") == "c\n[showing lines 3-3 of 3]", text
        text = (await c.call("read_file", {"path": "f.txt", "offset": 2, "limit": 1})).ok()
        assert_window(text, 2, 2, 3, cont=True, body="b\n")


async def test_crlf_file_byte_for_byte_and_windowed(ws):
    content = "one\r\ntwo\r\nthree\r\nfour\r\n"
    make(ws, {"w.txt": content.encode()})
    async with serve(ws) as c:
        assert (await c.call("read_file", {"path": "w.txt"})).ok() == content
        text = (await c.call("read_file", {"path": "w.txt", "offset": 2, "limit": 2})).ok()
        body, footer = split_footer(text)
        assert footer == "[showing lines 2-3 of 4; continue with offset: 4]"
        assert body.replace("\r\n", "\n") == "two\nthree\n"


async def test_empty_file_reads_as_empty(ws):
    make(ws, {"e.txt": b""})
    async with serve(ws) as c:
        r = await c.call("read_file", {"path": "e.txt"})
        assert r.ok() == ""


async def test_single_line_file_reads_whole(ws):
    make(ws, {"one.txt": "only\n"})
    async with serve(ws) as c:
        assert (await c.call("read_file", {"path": "one.txt"})).ok() == "only\n"


async def test_last_line_by_offset(ws):
    make(ws, {"f.txt": numbered(10)})
    async with serve(ws) as c:
        r = await c.call("read_file", {"path": "f.txt", "offset": 10})
        assert_window(r.ok(), 10, 10, 10, cont=False)


async def test_unicode_content_byte_for_byte(ws):
    content = "日本語\nemoji 😀 ok\nçà\n\u00a0nbsp\n"
    make(ws, {"u.txt": content})
    async with serve(ws) as c:
        assert (await c.call("read_file", {"path": "u.txt"})).ok() == content


# ---- errors ----------------------------------------------------------------------------------


async def test_offset_past_end_is_an_error_naming_the_length(ws):
    make(ws, {"f.txt": numbered(37)})
    async with serve(ws) as c:
        err = (await c.call("read_file", {"path": "f.txt", "offset": 100})).err()
        assert re.search(r"\b37\b", err), err


async def test_offset_past_end_under_unlimited(ws, tmp_path):
    make(ws, {"f.txt": numbered(5)})
    async with serve(ws, read_cap_config(tmp_path, "unlimited", 100)) as c:
        err = (await c.call("read_file", {"path": "f.txt", "offset": 6})).err()
        assert re.search(r"\b5\b", err), err


async def test_offset_zero_is_refused(ws):
    make(ws, {"f.txt": numbered(5)})
    async with serve(ws) as c:
        (await c.call("read_file", {"path": "f.txt", "offset": 0})).err("invalid-argument")


async def test_missing_file_is_not_found(ws):
    async with serve(ws) as c:
        (await c.call("read_file", {"path": "nope.txt"})).err("not-found")
        (await c.call("read_file", {"path": "no/such/dir/f.txt"})).err("not-found")


async def test_reading_a_directory_is_an_error(ws):
    make(ws, {"d": None})
    async with serve(ws) as c:
        (await c.call("read_file", {"path": "d"})).err()


async def test_missing_path_argument_is_invalid_argument(ws):
    async with serve(ws) as c:
        (await c.call("read_file", {})).err("invalid-argument")


# ---- the 256 KiB byte ceiling ----------------------------------------------------------------

KIB256 = 256 * 1024


def long_lines(n: int, width: int) -> str:
    return "".join(f"{i:07d}" + "x" * (width - 8) + "\n" for i in range(1, n + 1))


def check_ceiling(text: str, content: str, start_line: int = 1):
    """The result holds at most 256 KiB of the file, a prefix of what was asked for, and ends by
    saying it was cut and where to continue."""
    body, _ = split_footer(text)
    lines = text.rstrip("\n").split("\n")
    note = lines[-1]
    assert len(text.encode()) <= KIB256 + 1024, len(text.encode())
    assert re.search(r"256\s*KiB|262,?144|byte|ceiling|truncat|cut", note, re.I), note
    m = re.search(r"continue with offset: (\d+)", note)
    assert m, note
    file_lines = content.splitlines(keepends=True)
    nxt = int(m.group(1))
    shown = "".join(file_lines[start_line - 1 : nxt - 1])
    # everything shown is a prefix of the file from the start line, made of whole lines
    assert text.startswith(shown), "continuation does not follow the lines shown"
    assert len(shown.encode()) <= KIB256
    assert len(shown.encode()) > KIB256 - 2048, "cut far before the ceiling"
    return nxt


async def test_byte_ceiling_cuts_unlimited_read_and_says_where_to_continue(ws, tmp_path):
    content = long_lines(1000, 1024)  # 1000 KiB
    make(ws, {"wide.txt": content})
    async with serve(ws, read_cap_config(tmp_path, "unlimited", 2000)) as c:
        text = (await c.call("read_file", {"path": "wide.txt"})).ok()
        nxt = check_ceiling(text, content)
        text2 = (await c.call("read_file", {"path": "wide.txt", "offset": nxt})).ok()
        check_ceiling(text2, content, start_line=nxt)


async def test_byte_ceiling_cuts_default_cap_and_explicit_limit(ws):
    content = long_lines(1000, 1024)
    make(ws, {"wide.txt": content})
    async with serve(ws) as c:
        check_ceiling((await c.call("read_file", {"path": "wide.txt"})).ok(), content)
        check_ceiling((await c.call("read_file", {"path": "wide.txt", "limit": 900})).ok(), content)
        text = (await c.call("read_file", {"path": "wide.txt", "offset": 500, "limit": 400})).ok()
        check_ceiling(text, content, start_line=500)


async def test_byte_ceiling_on_one_enormous_line_says_so(ws):
    make(ws, {"one.txt": "y" * (1024 * 1024) + "\n"})
    async with serve(ws) as c:
        text = (await c.call("read_file", {"path": "one.txt"})).ok()
        assert len(text.encode()) <= KIB256 + 1024
        assert text.startswith("y" * 1000)
        tail = text[-400:]
        assert re.search(r"256\s*KiB|262,?144|byte|ceiling|truncat|cut", tail, re.I), tail


async def test_file_just_under_ceiling_reads_whole(ws, tmp_path):
    line = "z" * 1023 + "\n"
    content = line * 255 + "end\n"  # 255 KiB + 4 bytes
    make(ws, {"f.txt": content})
    async with serve(ws, read_cap_config(tmp_path, "unlimited", 2000)) as c:
        assert (await c.call("read_file", {"path": "f.txt"})).ok() == content


async def test_byte_ceiling_never_splits_a_character(ws):
    make(ws, {"euro.txt": "€" * 400_000 + "\n"})  # 3-byte characters, 1.2 MB on one line
    async with serve(ws) as c:
        text = (await c.call("read_file", {"path": "euro.txt"})).ok()
    first = text.split("\n", 1)[0]
    assert set(first) == {"€"}, "the cut line holds only whole characters"
    assert len(first.encode()) <= KIB256
    assert len(text.encode()) <= KIB256 + 1024


async def test_offset_past_end_of_an_empty_file(ws):
    make(ws, {"e.txt": b""})
    async with serve(ws) as c:
        err = (await c.call("read_file", {"path": "e.txt", "offset": 2})).err()
        assert re.search(r"\b0\b|empty", err), err
