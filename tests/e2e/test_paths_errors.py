"""Paths (relative to the working directory, absolute as themselves, `..` left to the kernel,
the empty path refused) and the error shape: every failed call is a tool result with isError
true whose text starts with its kind and a colon (gg's path rules)."""

import pytest

from conftest import make, serve

pytestmark = pytest.mark.anyio


async def test_relative_paths_resolve_against_the_root(ws):
    make(ws, {"dir/f.txt": "in root\n"})
    async with serve(ws) as c:
        assert (await c.call("read_file", {"path": "dir/f.txt"})).ok() == "in root\n"
        assert (await c.call("read_file", {"path": "./dir/f.txt"})).ok() == "in root\n"
        (await c.call("write_file", {"path": "made.txt", "content": "m\n"})).ok()
    assert (ws / "made.txt").read_text() == "m\n"
    assert not (ws.parent / "made.txt").exists()


async def test_absolute_paths_reach_outside_the_root(ws, tmp_path):
    outside = tmp_path / "outside"
    make(outside, {"o.txt": "outside\n"})
    async with serve(ws) as c:
        assert (await c.call("read_file", {"path": str(outside / "o.txt")})).ok() == "outside\n"
        (await c.call("write_file", {"path": str(outside / "new/w.txt"), "content": "w\n"})).ok()
        assert "o.txt" in (await c.call("list_dir", {"path": str(outside)})).ok()
        (await c.call("edit_file", {"path": str(outside / "o.txt"), "old_string": "outside", "new_string": "edited"})).ok()
    assert (outside / "new/w.txt").read_text() == "w\n"
    assert (outside / "o.txt").read_text() == "edited\n"


async def test_dot_dot_is_ordinary(ws, tmp_path):
    make(tmp_path, {"sibling/s.txt": "sibling\n"})
    make(ws, {"a/b.txt": "b\n"})
    async with serve(ws) as c:
        assert (await c.call("read_file", {"path": "../sibling/s.txt"})).ok() == "sibling\n"
        assert (await c.call("read_file", {"path": "a/../a/b.txt"})).ok() == "b\n"
        (await c.call("write_file", {"path": "../sibling/t.txt", "content": "t\n"})).ok()
    assert (tmp_path / "sibling/t.txt").read_text() == "t\n"


async def test_tmp_paths_are_readable(ws, tmp_path):
    # gg's shell offloads output under /tmp and tells the agent to read it there
    p = tmp_path / "gg-shell-out.txt"
    p.write_text("offloaded output\n")
    async with serve(ws) as c:
        assert (await c.call("read_file", {"path": str(p)})).ok() == "offloaded output\n"


@pytest.mark.parametrize(
    "tool,args",
    [
        ("read_file", {"path": ""}),
        ("write_file", {"path": "", "content": "x"}),
        ("edit_file", {"path": "", "old_string": "a", "new_string": "b"}),
        ("list_dir", {"path": ""}),
        ("tree", {"path": ""}),
        ("search", {"query": "x", "path": ""}),
    ],
)
async def test_empty_path_is_refused(ws, tool, args):
    make(ws, {"f.txt": "x\n"})
    async with serve(ws) as c:
        (await c.call(tool, args)).err("invalid-argument")
    assert sorted(p.name for p in ws.iterdir()) == ["f.txt"]


FAILING_CALLS = [
    ("read_file", {"path": "missing.txt"}, "not-found"),
    ("read_file", {"path": "f.txt", "offset": 99}, None),
    ("read_file", {"path": "f.txt", "offset": 0}, "invalid-argument"),
    ("read_file", {"path": "f.txt", "offset": "abc"}, "invalid-argument"),
    ("read_file", {"path": "f.txt", "limit": -1}, "invalid-argument"),
    ("read_file", {"path": 5}, "invalid-argument"),
    ("read_file", {"path": "d"}, None),
    ("write_file", {"path": "d", "content": "x"}, None),
    ("write_file", {"path": "x.txt", "content": 3}, "invalid-argument"),
    ("write_file", {"path": "f.txt/under_a_file.txt", "content": "x"}, None),
    ("read_file", {"path": "f.txt/under_a_file.txt"}, None),
    ("edit_file", {"path": "f.txt", "old_string": "zzz", "new_string": "y"}, None),
    ("edit_file", {"path": "f.txt", "old_string": "dup", "new_string": "y"}, None),
    ("edit_file", {"path": "missing.txt", "old_string": "a", "new_string": "b"}, "not-found"),
    ("list_dir", {"path": "missing"}, "not-found"),
    ("list_dir", {"path": "f.txt"}, None),
    ("tree", {"path": "missing"}, "not-found"),
    ("tree", {"path": "f.txt"}, "invalid-argument"),
    ("tree", {"depth": 0}, "invalid-argument"),
    ("tree", {"depth": "deep"}, "invalid-argument"),
    ("search", {"query": ""}, "invalid-argument"),
    ("search", {"query": "(unclosed"}, "invalid-argument"),
    ("search", {"query": "x", "path": "missing"}, "not-found"),
    ("search", {"query": "x", "limit": "many"}, "invalid-argument"),
]


@pytest.mark.parametrize("tool,args,kind", FAILING_CALLS, ids=[f"{t}-{i}" for i, (t, _, _) in enumerate(FAILING_CALLS)])
async def test_every_failed_call_is_an_is_error_result_starting_with_its_kind(ws, tool, args, kind):
    make(ws, {"f.txt": "dup\ndup\n", "d/inner.txt": "i\n"})
    async with serve(ws) as c:
        r = await c.call(tool, args)
        r.err(kind)
        assert not r.images
    assert (ws / "f.txt").read_text() == "dup\ndup\n"


async def test_server_keeps_serving_after_errors(ws):
    make(ws, {"f.txt": "ok\n"})
    async with serve(ws) as c:
        for _ in range(3):
            (await c.call("read_file", {"path": "nope"})).err("not-found")
            (await c.call("tree", {"depth": 0})).err("invalid-argument")
        assert (await c.call("read_file", {"path": "f.txt"})).ok() == "ok\n"
