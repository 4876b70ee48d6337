"""The native profile over MCP, driven as a model drives it: versions from reads sent back with
edits, a file changed behind the session's back, a multi-file patch that fails midway, a dry
run, and undo of a patch, a move and a delete."""

from __future__ import annotations

import re

import pytest

from conftest import make, serve

pytestmark = pytest.mark.anyio

NATIVE = ("--profile", "native")
VERSION = re.compile(r"\bv[0-9a-f]{12}\b")


async def test_native_offers_its_tools_with_annotations(ws):
    async with serve(ws, None, NATIVE) as c:
        tools = await c.tools()
    assert list(tools) == [
        "read_file", "edit", "apply_patch", "write_file", "search", "glob", "tree",
        "list_dir", "move", "delete", "undo", "info",
    ]
    for name in ("read_file", "search", "glob", "tree", "list_dir", "info"):
        assert tools[name].annotations.read_only_hint is True, name
    for name in ("edit", "apply_patch", "write_file", "move", "delete", "undo"):
        assert tools[name].annotations.destructive_hint is True, name


async def test_versions_guard_edits_and_a_change_behind_the_session_is_shown(ws):
    make(ws, {"a.py": "def f():\n    return 1\n\ndef g():\n    return 2\n"})
    async with serve(ws, None, NATIVE) as c:
        read = (await c.call("read_file", {"path": "a.py"})).ok()
        v1 = VERSION.search(read).group(0)
        out = (await c.call("edit", {"path": "a.py", "expected_version": v1,
                                      "edits": [{"old_text": "return 1", "new_text": "return 10"}]})).ok()
        v2 = VERSION.findall(out)[1]
        # The returned version is the next edit's.
        (await c.call("edit", {"path": "a.py", "expected_version": v2,
                                "edits": [{"old_text": "return 2", "new_text": "return 20"}]})).ok()
        # Another writer changes g's line; an edit of it made from v2 is stale.
        (ws / "a.py").write_text("def f():\n    return 10\n\ndef g():\n    return 99\n")
        err = (await c.call("edit", {"path": "a.py", "expected_version": v2,
                                      "edits": [{"old_text": "return 20", "new_text": "return 21"}]})).err("stale")
        assert "+    return 99" in err
    assert (ws / "a.py").read_text() == "def f():\n    return 10\n\ndef g():\n    return 99\n"


async def test_a_patch_that_fails_midway_changes_nothing_and_a_dry_run_shows_it(ws):
    make(ws, {"a.txt": "1\n", "b.txt": "2\n", "c.txt": "3\n"})
    patch = ("*** Begin Patch\n*** Update File: a.txt\n@@\n-1\n+one\n"
             "*** Update File: b.txt\n@@\n-nope\n+two\n"
             "*** Update File: c.txt\n@@\n-3\n+three\n*** End Patch\n")
    async with serve(ws, None, NATIVE) as c:
        (await c.call("apply_patch", {"patch": patch})).err("no-match")
        good = patch.replace("-nope", "-2")
        dry = (await c.call("apply_patch", {"patch": good, "dry_run": True})).ok()
        assert dry.startswith("dry run: 3 files would change")
        assert (ws / "a.txt").read_text() == "1\n"
        (await c.call("apply_patch", {"patch": good})).ok()
    assert [(ws / n).read_text() for n in ("a.txt", "b.txt", "c.txt")] == ["one\n", "two\n", "three\n"]
