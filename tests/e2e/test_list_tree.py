"""list_dir and tree: entries in path order, directories suffixed /, the exact tree rendering,
the depth bound, the 1,000-line / 16 KiB bound, and ignore files (gg's tree)."""

import shutil

import pytest

from conftest import make, serve
from workspaces import make_ignore_workspace

pytestmark = pytest.mark.anyio

SPEC_EXAMPLE = """README.md
engine/
  game.js
  input.js
  render/ (4 entries not shown)
src/
  main.js
  systems/ (7 entries not shown)"""


def spec_example_ws(root):
    files = {"README.md": "# readme\n", "engine/game.js": "", "engine/input.js": "", "src/main.js": ""}
    for n in "abcd":
        files[f"engine/render/{n}.js"] = ""
    for i in range(7):
        files[f"src/systems/s{i}.js"] = ""
    make(root, files)


def lines_of(text: str) -> list[str]:
    return text.rstrip("\n").split("\n")


# ---- list_dir --------------------------------------------------------------------------------


async def test_list_dir_entries_in_path_order_with_dirs_suffixed(ws):
    make(ws, {"b.txt": "", "a/x": "", "c/y": "", "Zeta.md": "", ".hidden": "", "a.txt": ""})
    async with serve(ws) as c:
        text = (await c.call("list_dir", {})).ok()
    got = [l for l in lines_of(text) if l.strip()]
    expected = sorted(["b.txt", "a/", "c/", "Zeta.md", ".hidden", "a.txt"], key=lambda s: s.rstrip("/").encode())
    assert [l.strip() for l in got] == expected


async def test_list_dir_of_a_subdirectory_and_dot(ws):
    make(ws, {"d/one.txt": "", "d/two/three.txt": ""})
    async with serve(ws) as c:
        text = (await c.call("list_dir", {"path": "d"})).ok()
        assert [l.strip() for l in lines_of(text)] == ["one.txt", "two/"]
        text = (await c.call("list_dir", {"path": "."})).ok()
        assert [l.strip() for l in lines_of(text)] == ["d/"]
        text = (await c.call("list_dir", {"path": str(ws / "d" / "two")})).ok()
        assert [l.strip() for l in lines_of(text)] == ["three.txt"]


async def test_list_dir_missing_is_not_found(ws):
    async with serve(ws) as c:
        (await c.call("list_dir", {"path": "missing"})).err("not-found")


async def test_list_dir_on_a_file_is_an_error(ws):
    make(ws, {"f.txt": "x\n"})
    async with serve(ws) as c:
        (await c.call("list_dir", {"path": "f.txt"})).err()


async def test_list_dir_reaches_an_ignored_directory_by_path(ws):
    make_ignore_workspace(ws, repo=True)
    async with serve(ws) as c:
        text = (await c.call("list_dir", {"path": "node_modules"})).ok()
        assert [l.strip() for l in lines_of(text)] == ["pkg/"]


# ---- tree: rendering -------------------------------------------------------------------------


async def test_tree_renders_the_spec_example_exactly(ws):
    spec_example_ws(ws)
    async with serve(ws) as c:
        text = (await c.call("tree", {})).ok()
    assert text.rstrip("\n") == SPEC_EXAMPLE


async def test_tree_default_depth_is_2(ws):
    spec_example_ws(ws)
    async with serve(ws) as c:
        default = (await c.call("tree", {})).ok()
        two = (await c.call("tree", {"depth": 2})).ok()
    assert default == two


async def test_tree_depth_1_is_the_roots_own_entries(ws):
    spec_example_ws(ws)
    async with serve(ws) as c:
        text = (await c.call("tree", {"depth": 1})).ok()
    assert text.rstrip("\n") == "README.md\nengine/ (3 entries not shown)\nsrc/ (2 entries not shown)"


async def test_tree_depth_3_enters_everything(ws):
    spec_example_ws(ws)
    async with serve(ws) as c:
        text = (await c.call("tree", {"depth": 3})).ok()
    expected = ["README.md", "engine/", "  game.js", "  input.js", "  render/"]
    expected += [f"    {n}.js" for n in "abcd"]
    expected += ["src/", "  main.js", "  systems/"] + [f"    s{i}.js" for i in range(7)]
    assert lines_of(text) == expected


async def test_tree_rooted_at_a_path_leaves_the_root_unnamed(ws):
    spec_example_ws(ws)
    async with serve(ws) as c:
        text = (await c.call("tree", {"path": "engine"})).ok()
        assert lines_of(text) == ["game.js", "input.js", "render/"] + [f"  {n}.js" for n in "abcd"]
        text = (await c.call("tree", {"path": str(ws / "src"), "depth": 1})).ok()
        assert lines_of(text) == ["main.js", "systems/ (7 entries not shown)"]


async def test_tree_path_order_interleaves_files_and_directories(ws):
    make(ws, {"b.txt": "", "a/x.txt": "", "c/y.txt": "", "B.md": "", "a.txt": ""})
    async with serve(ws) as c:
        text = (await c.call("tree", {})).ok()
    assert lines_of(text) == ["B.md", "a/", "  x.txt", "a.txt", "b.txt", "c/", "  y.txt"]


async def test_tree_of_an_empty_root(ws):
    make(ws, {"empty": None})
    async with serve(ws) as c:
        assert (await c.call("tree", {"path": "empty"})).ok().strip() == "(empty directory)"
    shutil.rmtree(ws / "empty")
    async with serve(ws) as c:
        assert (await c.call("tree", {})).ok().strip() == "(empty directory)"


async def test_tree_depth_above_10_is_answered_at_10(ws):
    make(ws, {"/".join(f"d{i}" for i in range(1, 14)) + "/leaf.txt": ""})
    async with serve(ws) as c:
        ten = (await c.call("tree", {"depth": 10})).ok()
        r = await c.call("tree", {"depth": 50})
        assert r.ok() == ten
        assert (await c.call("tree", {"depth": 11})).ok() == ten
    lines = lines_of(ten)
    assert len(lines) == 10
    for i, line in enumerate(lines[:9]):
        assert line == "  " * i + f"d{i + 1}/"
    assert lines[9] == "  " * 9 + "d10/ (1 entry not shown)" or lines[9].startswith("  " * 9 + "d10/ (1 ")


# ---- tree: errors ----------------------------------------------------------------------------


async def test_tree_depth_zero_is_invalid_argument(ws):
    make(ws, {"a.txt": ""})
    async with serve(ws) as c:
        (await c.call("tree", {"depth": 0})).err("invalid-argument")


async def test_tree_missing_path_is_not_found(ws):
    async with serve(ws) as c:
        (await c.call("tree", {"path": "no/such/dir"})).err("not-found")


async def test_tree_of_a_file_is_invalid_argument(ws):
    make(ws, {"f.txt": "x\n"})
    async with serve(ws) as c:
        (await c.call("tree", {"path": "f.txt"})).err("invalid-argument")


# ---- tree: bounds ----------------------------------------------------------------------------


async def test_tree_cut_at_1000_lines_with_a_closing_line(ws):
    names = [f"file{i:05d}.txt" for i in range(1500)]
    make(ws, {n: "" for n in names})
    async with serve(ws) as c:
        text = (await c.call("tree", {"depth": 1})).ok()
    lines = lines_of(text)
    assert len(lines) <= 1000
    assert len(text.encode()) <= 16 * 1024
    body, last = lines[:-1], lines[-1]
    assert last not in names, "a cut tree must end with a line saying so"
    assert body == names[: len(body)]
    assert len(body) >= 900


async def test_tree_cut_at_16_kib_with_a_closing_line(ws):
    names = [f"{i:04d}_" + "n" * 150 + ".txt" for i in range(300)]  # ~47 KiB of names
    make(ws, {n: "" for n in names})
    async with serve(ws) as c:
        text = (await c.call("tree", {"depth": 1})).ok()
    assert len(text.encode()) <= 16 * 1024
    lines = lines_of(text)
    body, last = lines[:-1], lines[-1]
    assert last not in names, "a cut tree must end with a line saying so"
    assert body == names[: len(body)], "every line but the last is a whole entry, in order"
    assert len("\n".join(lines).encode()) > 16 * 1024 - 600


async def test_tree_small_enough_is_not_cut(ws):
    names = [f"f{i:03d}" for i in range(999)]
    make(ws, {n: "" for n in names})
    async with serve(ws) as c:
        text = (await c.call("tree", {"depth": 1})).ok()
    assert lines_of(text) == names


# ---- tree: ignore files ----------------------------------------------------------------------

EXPECTED_IGNORED_TREE_REPO = [
    ".config/",
    "  settings.json",
    ".env",
    ".gitignore",
    ".ignore",
    "keep.log",
    "src/",
    "  main.js",
    "sub/",
    "  .gitignore",
    "  build/",
    "    kept.js",
    "  code.js",
]


async def test_tree_honours_ignore_files_in_a_repository(ws):
    make_ignore_workspace(ws, repo=True)
    async with serve(ws) as c:
        text = (await c.call("tree", {"depth": 3})).ok()
    assert lines_of(text) == EXPECTED_IGNORED_TREE_REPO


async def test_tree_honours_ignore_files_without_a_git_directory(ws):
    make_ignore_workspace(ws, repo=False)
    async with serve(ws) as c:
        text = (await c.call("tree", {"depth": 3})).ok()
    expected = list(EXPECTED_IGNORED_TREE_REPO)
    expected.insert(expected.index("src/"), "secret.txt")  # no .git/info/exclude without .git
    assert lines_of(text) == expected


async def test_tree_rooted_in_a_subdirectory_still_honours_root_ignores(ws):
    make_ignore_workspace(ws, repo=True)
    make(ws, {"sub/x.log": "", "sub/keep.log": ""})
    async with serve(ws) as c:
        text = (await c.call("tree", {"path": "sub"})).ok()
    assert lines_of(text) == [".gitignore", "build/", "  kept.js", "code.js", "keep.log"]


async def test_tree_counts_every_entry_of_a_big_directory_at_the_bound(ws):
    make(ws, {f"big/f{i}": "" for i in range(3000)})
    make(ws, {"big/sub/x": "", "big/.hidden": ""})
    async with serve(ws) as c:
        text = (await c.call("tree", {"depth": 1})).ok()
    assert text.rstrip("\n") == "big/ (3002 entries not shown)"


async def test_tree_with_unicode_names(ws):
    make(ws, {"ünï/文件.txt": "", "ünï/ß.md": "", "a.txt": ""})
    async with serve(ws) as c:
        text = (await c.call("tree", {})).ok()
    expected = ["a.txt", "ünï/"] + ["  " + n for n in sorted(["文件.txt", "ß.md"], key=str.encode)]
    assert lines_of(text) == expected


async def test_tree_shows_empty_subdirectory_inside_the_bound(ws):
    make(ws, {"a/empty": None, "a/f.txt": ""})
    async with serve(ws) as c:
        text = (await c.call("tree", {"depth": 3})).ok()
    assert lines_of(text) == ["a/", "  empty/", "  f.txt"]
