"""The stale-write rule and concurrent edits, through the official Python SDK (issue 17, items
1-3): a person changes a file between the model's read and its write, over stdio, and the write
is refused naming the change; over streamable HTTP each session keeps its own record of what it
read; and four coder sessions editing one shared file and files of their own through
update-file, all at once, lose nothing and see no conflict."""

import anyio
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from conftest import serve
from test_http import http_server

pytestmark = pytest.mark.anyio


def program() -> str:
    lines = [f"  step({i});" for i in range(1, 21)]
    lines[12] = "  if (ready) {"
    return "\n".join(lines) + "\n"


async def test_a_person_s_change_between_read_and_write_is_never_discarded(ws):
    (ws / "app.js").write_text(program())
    async with serve(ws) as c:
        (await c.call("read_file", {"path": "app.js"})).ok()
        changed = program().replace("  step(5);", "  step(5); // fixed")
        (ws / "app.js").write_text(changed)
        text = (await c.call("write_file", {"path": "app.js", "content": "x\n"})).err("conflict")
        assert "-  step(5);\n+  step(5); // fixed" in text, text
        assert "Read it again with read_file" in text
        assert (ws / "app.js").read_text() == changed
        (await c.call("read_file", {"path": "app.js"})).ok()
        (await c.call("write_file", {"path": "app.js", "content": "x\n"})).ok()
        assert (ws / "app.js").read_text() == "x\n"


async def test_coder_line_numbers_from_an_old_read_never_overwrite_new_text(ws):
    (ws / "app.js").write_text(program())
    async with serve(ws, extra=("--profile", "coder")) as c:
        (await c.call("read-file", {"path": "app.js", "numbered": True})).ok()
        (ws / "app.js").write_text("// header\n" + program())
        op = {"op": "update_lines", "from_line": 13, "to_line": 13, "content": "  if (done) {"}
        res = await c.call("update-file", {"files": [{"path": "app.js", "ops": [op]}]})
        entry = res.raw.structured_content["results"][0]
        assert entry["success"] is False and entry["error"]["code"] == "C210", entry
        assert "13→  step(12);" in entry["error"]["message"], entry
        assert (ws / "app.js").read_text() == "// header\n" + program()


async def session_call(url: str, steps):
    """Runs `steps(call)` in one MCP session over HTTP; `call(tool, args)` returns the result."""
    async with httpx2.AsyncClient(timeout=60) as client:
        async with streamable_http_client(url, http_client=client) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                return await steps(lambda tool, args: session.call_tool(tool, args))


async def test_each_http_session_keeps_its_own_record_of_what_it_read(ws):
    (ws / "a.txt").write_text("first\n")
    with http_server(ws, "--jail", "roots") as url:
        read = anyio.Event()
        written = anyio.Event()
        outcome = {}

        async def reader(call):
            assert not (await call("read_file", {"path": "a.txt"})).is_error
            read.set()
            await written.wait()
            res = await call("write_file", {"path": "a.txt", "content": "third\n"})
            outcome["reader"] = (res.is_error, res.content[0].text)

        async def writer(call):
            await read.wait()
            res = await call("write_file", {"path": "a.txt", "content": "second\n"})
            outcome["writer"] = (res.is_error, res.content[0].text)
            written.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(session_call, url, reader)
            tg.start_soon(session_call, url, writer)
        assert outcome["writer"][0] is False, outcome
        failed, text = outcome["reader"]
        assert failed and text.startswith("conflict: a.txt changed on disk"), text
        assert (ws / "a.txt").read_text() == "second\n"


async def test_four_coder_sessions_editing_over_http_lose_nothing_and_see_no_conflict(ws):
    sessions, each = 4, 15
    (ws / "shared.txt").write_text("".join(f"line {i} old\n" for i in range(sessions * each)))
    for s in range(sessions):
        (ws / f"private{s}.txt").write_text("".join(f"mine {i} old\n" for i in range(each)))
    failures = []
    with http_server(ws, "--profile", "coder") as url:

        def agent(s):
            async def steps(call):
                for e in range(each):
                    i = s * each + e
                    files = [
                        {"path": "shared.txt", "ops": [{"op": "replace", "pattern": f"(?m)^line {i} old$",
                                                        "replacement": f"line {i} new", "expect_matches": 1}]},
                        {"path": f"private{s}.txt", "ops": [{"op": "replace", "pattern": f"(?m)^mine {e} old$",
                                                             "replacement": f"mine {e} new", "expect_matches": 1}]},
                    ]
                    res = await call("update-file", {"files": files})
                    assert not res.is_error
                    for entry in res.structured_content["results"]:
                        if not entry["success"]:
                            failures.append(entry["error"])
            return steps

        async with anyio.create_task_group() as tg:
            for s in range(sessions):
                tg.start_soon(session_call, url, agent(s))
    assert failures == []
    shared = (ws / "shared.txt").read_text()
    assert shared == "".join(f"line {i} new\n" for i in range(sessions * each))
    for s in range(sessions):
        assert " old" not in (ws / f"private{s}.txt").read_text()
