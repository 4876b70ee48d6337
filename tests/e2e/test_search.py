"""search: a Rust regex per line, `path:line:text` in path then line order, limits, long-line
cuts, NUL files skipped, and ignore files honoured (gg's search)."""

import re
import shutil

import pytest

from conftest import make, serve
from workspaces import VISIBLE, make_ignore_workspace

pytestmark = pytest.mark.anyio

MATCH_RE = re.compile(r"^(.+?):(\d+):(.*)$")


def matches(text: str) -> list[tuple[str, int, str]]:
    out = []
    for line in text.split("\n"):
        m = MATCH_RE.match(line)
        if m:
            out.append((m.group(1), int(m.group(2)), m.group(3)))
    return out


def norm(path: str) -> str:
    return path[2:] if path.startswith("./") else path


async def search(c, **args):
    return await c.call("search", args)


# ---- results and their format ----------------------------------------------------------------


async def test_match_lines_are_path_line_text(ws):
    make(ws, {"src/a.rs": "fn main() {\n    let x = 1;\n}\nfn update() {}\n"})
    async with serve(ws) as c:
        text = (await search(c, query=r"fn\s+\w+")).ok()
    assert [l for l in text.rstrip("\n").split("\n")] == ["src/a.rs:1:fn main() {", "src/a.rs:4:fn update() {}"]


async def test_results_in_path_order_then_line_order(ws):
    make(ws, {
        "b.txt": "hit b1\nmiss\nhit b3\n",
        "a/z.txt": "hit az\n",
        "c.txt": "hit c1\n",
        "B.txt": "hit B1\n",
        "a/m/q.txt": "x\nhit amq2\n",
    })
    async with serve(ws) as c:
        got = matches((await search(c, query="hit")).ok())
    assert [(norm(p), n) for p, n, _ in got] == [
        ("B.txt", 1), ("a/m/q.txt", 2), ("a/z.txt", 1), ("b.txt", 1), ("b.txt", 3), ("c.txt", 1),
    ]


async def test_line_text_is_without_its_ending(ws):
    make(ws, {"crlf.txt": b"alpha hit\r\nbeta\r\n", "lf.txt": "gamma hit\n", "nofinal.txt": "delta hit"})
    async with serve(ws) as c:
        got = matches((await search(c, query="hit")).ok())
    assert [(norm(p), n, t) for p, n, t in got] == [
        ("crlf.txt", 1, "alpha hit"), ("lf.txt", 1, "gamma hit"), ("nofinal.txt", 1, "delta hit"),
    ]


async def test_regex_features(ws):
    make(ws, {"t.txt": "TODO one\nfoo\nbar\ntodo two\nbaz\n"})
    async with serve(ws) as c:
        assert [n for _, n, _ in matches((await search(c, query="foo|bar")).ok())] == [2, 3]
        assert [n for _, n, _ in matches((await search(c, query="(?i)todo")).ok())] == [1, 4]
        assert [n for _, n, _ in matches((await search(c, query=r"^ba\w")).ok())] == [3, 5]
        assert [n for _, n, _ in matches((await search(c, query=r"t\w+\s+t")).ok())] == [4]


async def test_dollar_anchors_the_end_of_each_line(ws):
    # "tried against each line on its own": `$` is the end of the line, without its ending
    make(ws, {"t.txt": "TODO one\nfoo\nbar\ntodo two\nbaz\n"})
    async with serve(ws) as c:
        assert [n for _, n, _ in matches((await search(c, query="^ba[rz]$")).ok())] == [3, 5]
        assert [n for _, n, _ in matches((await search(c, query="two$")).ok())] == [4]
        assert [n for _, n, _ in matches((await search(c, query="^foo$")).ok())] == [2]


async def test_query_is_tried_against_each_line_on_its_own(ws):
    make(ws, {"t.txt": "foo\nbar\n"})
    async with serve(ws) as c:
        r = await search(c, query=r"foo\nbar")
        assert not r.is_error or r.kind == "invalid-argument"
        if not r.is_error:
            assert matches(r.text) == []
        assert matches((await search(c, query="^bar")).ok()) == [("t.txt", 2, "bar")]


async def test_no_matches_is_not_an_error(ws):
    make(ws, {"t.txt": "nothing here\n"})
    async with serve(ws) as c:
        r = await search(c, query="absent_word_xyz")
        r.ok()
        assert matches(r.text) == []


# ---- arguments -------------------------------------------------------------------------------


@pytest.mark.parametrize("query", ["", "   ", "\t\n"])
async def test_blank_query_is_invalid_argument(ws, query):
    make(ws, {"t.txt": "x\n"})
    async with serve(ws) as c:
        (await search(c, query=query)).err("invalid-argument")


@pytest.mark.parametrize("query", ["(", "[a-", "a{2,1}", "(?P<x"])
async def test_invalid_pattern_is_invalid_argument(ws, query):
    make(ws, {"t.txt": "x\n"})
    async with serve(ws) as c:
        (await search(c, query=query)).err("invalid-argument")


async def test_missing_query_is_invalid_argument(ws):
    async with serve(ws) as c:
        (await c.call("search", {})).err("invalid-argument")


async def test_path_roots_the_search_at_a_directory(ws):
    make(ws, {"a/x.txt": "hit\n", "b/y.txt": "hit\n", "b/c/z.txt": "hit\n"})
    async with serve(ws) as c:
        got = matches((await search(c, query="hit", path="b")).ok())
    assert [norm(p) for p, _, _ in got] in (["b/c/z.txt", "b/y.txt"], ["c/z.txt", "y.txt"])


async def test_path_roots_the_search_at_one_file(ws):
    make(ws, {"a/x.txt": "hit 1\nno\nhit 3\n", "a/y.txt": "hit\n"})
    async with serve(ws) as c:
        got = matches((await search(c, query="hit", path="a/x.txt")).ok())
    assert [(p.rsplit("/", 1)[-1], n) for p, n, _ in got] == [("x.txt", 1), ("x.txt", 3)]


async def test_absolute_path_argument(ws):
    make(ws, {"a/x.txt": "hit\n", "b/y.txt": "hit\n"})
    async with serve(ws) as c:
        got = matches((await search(c, query="hit", path=str(ws / "a"))).ok())
    assert len(got) == 1 and got[0][0].endswith("a/x.txt")


async def test_missing_path_is_not_found(ws):
    async with serve(ws) as c:
        (await search(c, query="x", path="nowhere")).err("not-found")
        (await search(c, query="x", path="nowhere/file.txt")).err("not-found")


# ---- limits ----------------------------------------------------------------------------------


def many_hits(n: int) -> str:
    return "".join(f"hit {i}\n" for i in range(1, n + 1))


async def test_limit_defaults_to_50(ws):
    make(ws, {"h.txt": many_hits(120)})
    async with serve(ws) as c:
        got = matches((await search(c, query="hit")).ok())
    assert [n for _, n, _ in got] == list(range(1, 51))


async def test_limit_is_honoured(ws):
    make(ws, {"h.txt": many_hits(120)})
    async with serve(ws) as c:
        assert [n for _, n, _ in matches((await search(c, query="hit", limit=7)).ok())] == list(range(1, 8))
        assert [n for _, n, _ in matches((await search(c, query="hit", limit=120)).ok())] == list(range(1, 121))


async def test_limit_above_200_is_answered_with_the_first_200(ws):
    make(ws, {"h1.txt": many_hits(150), "h2.txt": many_hits(150)})
    async with serve(ws) as c:
        r = await search(c, query="hit", limit=1000)
        got = matches(r.ok())
    assert len(got) == 200
    assert [(norm(p), n) for p, n, _ in got] == [("h1.txt", i) for i in range(1, 151)] + [("h2.txt", i) for i in range(1, 51)]


async def test_limit_spanning_files_keeps_order(ws):
    make(ws, {f"f{i:02d}.txt": "hit\nhit\n" for i in range(40)})
    async with serve(ws) as c:
        got = matches((await search(c, query="hit")).ok())
    assert len(got) == 50
    assert [(norm(p), n) for p, n, _ in got] == [(f"f{i:02d}.txt", n) for i in range(25) for n in (1, 2)]


# ---- long lines and binary files -------------------------------------------------------------


async def test_long_line_cut_at_200_chars_and_annotated(ws):
    line = "hit" + "".join(chr(ord("a") + i % 26) for i in range(297))  # 300 chars
    make(ws, {"long.txt": "short hit\n" + line + "\n"})
    async with serve(ws) as c:
        text = (await search(c, query="hit")).ok()
    lines = text.rstrip("\n").split("\n")
    assert lines[0] == "long.txt:1:short hit"
    assert lines[1] == "long.txt:2:" + line[:200] + " (100 more chars...)"


async def test_line_of_exactly_200_chars_is_not_cut(ws):
    line = "hit" + "x" * 197
    make(ws, {"l.txt": line + "\n"})
    async with serve(ws) as c:
        text = (await search(c, query="hit")).ok()
    assert text.rstrip("\n") == "l.txt:1:" + line


async def test_long_line_cut_counts_characters_not_bytes(ws):
    line = "hit" + "é" * 247  # 250 characters, 497 bytes
    make(ws, {"u.txt": line + "\n"})
    async with serve(ws) as c:
        text = (await search(c, query="hit")).ok()
    assert text.rstrip("\n") == "u.txt:1:" + line[:200] + " (50 more chars...)"


async def test_files_with_a_nul_byte_are_skipped(ws):
    make(ws, {"bin.dat": b"hit in binary\x00\x01\x02\nhit again\n", "text.txt": "hit in text\n"})
    async with serve(ws) as c:
        got = matches((await search(c, query="hit")).ok())
    assert [norm(p) for p, _, _ in got] == ["text.txt"]


async def test_nul_byte_late_in_a_file_still_skips_it(ws):
    make(ws, {"late.bin": ("hit\n" * 5000).encode() + b"\x00tail\n", "t.txt": "hit\n"})
    async with serve(ws) as c:
        got = matches((await search(c, query="hit", limit=200)).ok())
    assert [norm(p) for p, _, _ in got] == ["t.txt"]


# ---- ignore files ----------------------------------------------------------------------------


async def needle_paths(c, **extra):
    got = matches((await search(c, query="NEEDLE", limit=200, **extra)).ok())
    return sorted({norm(p) for p, _, _ in got})


async def test_search_honours_ignore_files_in_a_repository(ws):
    make_ignore_workspace(ws, repo=True)
    async with serve(ws) as c:
        assert await needle_paths(c) == sorted(VISIBLE)


async def test_search_honours_ignore_files_in_a_git_init_repository(ws):
    if not shutil.which("git"):
        pytest.skip("git not installed")
    make_ignore_workspace(ws, repo=True, git_init=True)
    async with serve(ws) as c:
        assert await needle_paths(c) == sorted(VISIBLE)


async def test_search_honours_ignore_files_without_a_git_directory(ws):
    make_ignore_workspace(ws, repo=False)
    async with serve(ws) as c:
        assert await needle_paths(c) == sorted(VISIBLE + ["secret.txt"])


async def test_git_directory_is_never_searched(ws):
    make_ignore_workspace(ws, repo=True)
    async with serve(ws) as c:
        got = matches((await search(c, query="NEEDLE|refs|core", limit=200)).ok())
        assert not [p for p, _, _ in got if ".git/" in p]
        got = matches((await search(c, query="NEEDLE", path=".")).ok())
        assert not [p for p, _, _ in got if ".git/" in p]


async def test_dotfiles_are_searched(ws):
    make(ws, {".env": "TOKEN=hit\n", ".config/app.toml": "hit = 1\n", ".hidden/deep/.x": "hit\n"})
    async with serve(ws) as c:
        assert await needle_paths_q(c, "hit") == [".config/app.toml", ".env", ".hidden/deep/.x"]


async def needle_paths_q(c, q):
    got = matches((await search(c, query=q)).ok())
    return sorted({norm(p) for p, _, _ in got})


async def test_search_rooted_in_a_subdirectory_honours_root_and_nested_ignores(ws):
    make_ignore_workspace(ws, repo=True)
    make(ws, {"sub/trace.log": "NEEDLE log in sub\n"})
    async with serve(ws) as c:
        assert await needle_paths(c, path="sub") in (
            ["sub/build/kept.js", "sub/code.js"],
            ["build/kept.js", "code.js"],
        )


async def test_nested_negation_reincludes(ws):
    make(ws, {
        ".gitignore": "*.gen\n",
        "pkg/.gitignore": "!special.gen\n",
        "pkg/special.gen": "NEEDLE special\n",
        "pkg/other.gen": "NEEDLE other\n",
        "top.gen": "NEEDLE top\n",
    })
    async with serve(ws) as c:
        assert await needle_paths(c) == ["pkg/special.gen"]


async def test_ignored_file_is_still_reachable_by_the_other_tools(ws):
    make_ignore_workspace(ws, repo=True)
    async with serve(ws) as c:
        assert (await c.call("read_file", {"path": "node_modules/pkg/index.js"})).ok() == "NEEDLE in node_modules\n"
        assert (await c.call("read_file", {"path": "secret.txt"})).ok() == "NEEDLE excluded by info/exclude\n"
        (await c.call("edit_file", {"path": "app.log", "old_string": "log", "new_string": "LOG"})).ok()
        (await c.call("write_file", {"path": "build/new.js", "content": "x\n"})).ok()
        assert (await c.call("list_dir", {"path": "node_modules/pkg"})).ok().strip() == "index.js"
    assert (ws / "app.log").read_text() == "NEEDLE in a LOG\n"


async def test_dollar_anchors_before_a_crlf_ending(ws):
    make(ws, {"w.txt": b"alpha hit\r\nbeta\r\n"})
    async with serve(ws) as c:
        assert matches((await search(c, query="hit$")).ok()) == [("w.txt", 1, "alpha hit")]


@pytest.mark.parametrize("query", ["(?=foo)", r"(a)\1", "(?<!x)y"])
async def test_non_rust_regex_syntax_is_invalid_argument(ws, query):
    make(ws, {"t.txt": "foo\n"})
    async with serve(ws) as c:
        (await search(c, query=query)).err("invalid-argument")


async def test_rust_regex_classes(ws):
    make(ws, {"t.txt": "αβγ greek\nword here\nswordfish\n42 items\n"})
    async with serve(ws) as c:
        assert [n for _, n, _ in matches((await search(c, query=r"\p{Greek}+")).ok())] == [1]
        assert [n for _, n, _ in matches((await search(c, query=r"\bword\b")).ok())] == [2]
        assert [n for _, n, _ in matches((await search(c, query=r"^\d+\s")).ok())] == [4]


async def test_nul_byte_megabytes_into_a_file_still_skips_it(ws):
    make(ws, {"late.bin": b"hit\n" * 500_000 + b"\x00tail\n", "z.txt": "hit\n"})
    async with serve(ws) as c:
        got = matches((await search(c, query="hit", limit=5)).ok())
    assert [norm(p) for p, _, _ in got] == ["z.txt"]


async def test_search_unicode_paths_and_text(ws):
    make(ws, {"ünï/文件.txt": "naïve hit ✓\n"})
    async with serve(ws) as c:
        text = (await search(c, query="hit")).ok()
    assert text.rstrip("\n") == "ünï/文件.txt:1:naïve hit ✓"
