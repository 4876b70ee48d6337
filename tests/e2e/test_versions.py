"""`--versions` over MCP: the five specified profiles end reads and writes with the file's
version, take `expected_version` on their writes, and refuse a write over a file changed since
that version with what changed; without the flag their schemas have no such argument."""

from __future__ import annotations

import re

import pytest

from conftest import make, serve

pytestmark = pytest.mark.anyio

VERSION = re.compile(r"^version: .*?a\.txt (v[0-9a-f]{12})$", re.M)


async def test_gg_versions_chain_edits_and_a_change_behind_the_session_is_stale(ws):
    make(ws, {"a.txt": "one\ntwo\n"})
    async with serve(ws, None, ("--versions",)) as c:
        tools = await c.tools()
        assert "expected_version" in tools["edit_file"].input_schema["properties"]
        v1 = VERSION.findall((await c.call("read_file", {"path": "a.txt"})).ok())[-1]
        out = (await c.call("edit_file", {"path": "a.txt", "old_string": "two",
                                          "new_string": "2", "expected_version": v1})).ok()
        v2 = VERSION.findall(out)[-1]
        assert v2 != v1
        (await c.call("edit_file", {"path": "a.txt", "old_string": "one",
                                    "new_string": "1", "expected_version": v2})).ok()
        (ws / "a.txt").write_text("changed\n")
        err = (await c.call("write_file", {"path": "a.txt", "content": "x\n",
                                           "expected_version": v2})).err("stale")
        assert "+changed" in err
    assert (ws / "a.txt").read_text() == "changed\n"


async def test_without_the_flag_no_profile_offers_expected_version(ws):
    for profile in ("gg", "coder", "qwen", "picoclaw", "sgpt"):
        async with serve(ws, None, ("--profile", profile)) as c:
            tools = await c.tools()
        assert all("expected_version" not in str(t.input_schema) for t in tools.values()), profile
