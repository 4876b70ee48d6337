"""write_file (create or overwrite a whole file, parents created) and edit_file (exactly one
occurrence; absent and several are distinct failures; nothing else in the file changes)."""

import re

import pytest

from conftest import make, serve

pytestmark = pytest.mark.anyio


# ---- write_file ------------------------------------------------------------------------------


async def test_write_creates_a_file_with_exact_content(ws):
    content = "first\nsecond\r\n\ttabbed  \nünï 😀\nno final newline"
    async with serve(ws) as c:
        (await c.call("write_file", {"path": "new.txt", "content": content})).ok()
    assert (ws / "new.txt").read_bytes() == content.encode()


async def test_write_creates_missing_parent_directories(ws):
    async with serve(ws) as c:
        (await c.call("write_file", {"path": "a/b/c/deep.txt", "content": "deep\n"})).ok()
    assert (ws / "a/b/c/deep.txt").read_text() == "deep\n"


async def test_write_overwrites_a_whole_existing_file(ws):
    make(ws, {"f.txt": "old content that is longer than the new one\n" * 20})
    async with serve(ws) as c:
        (await c.call("write_file", {"path": "f.txt", "content": "new\n"})).ok()
    assert (ws / "f.txt").read_bytes() == b"new\n"


async def test_write_empty_content(ws):
    make(ws, {"f.txt": "something\n"})
    async with serve(ws) as c:
        (await c.call("write_file", {"path": "f.txt", "content": ""})).ok()
        (await c.call("write_file", {"path": "g.txt", "content": ""})).ok()
    assert (ws / "f.txt").read_bytes() == b""
    assert (ws / "g.txt").read_bytes() == b""


async def test_write_then_read_round_trips(ws):
    content = "".join(f"row {i}\n" for i in range(1, 101))
    async with serve(ws) as c:
        (await c.call("write_file", {"path": "r/t.txt", "content": content})).ok()
        assert (await c.call("read_file", {"path": "r/t.txt"})).ok() == content


async def test_write_onto_a_directory_is_an_error(ws):
    make(ws, {"d/inner.txt": "keep\n"})
    async with serve(ws) as c:
        (await c.call("write_file", {"path": "d", "content": "x"})).err()
    assert (ws / "d/inner.txt").read_text() == "keep\n"


async def test_write_missing_content_is_invalid_argument(ws):
    async with serve(ws) as c:
        (await c.call("write_file", {"path": "f.txt"})).err("invalid-argument")
    assert not (ws / "f.txt").exists()


# ---- edit_file -------------------------------------------------------------------------------


async def edit(c, path, old, new):
    return await c.call("edit_file", {"path": path, "old_string": old, "new_string": new})


async def test_edit_replaces_the_one_occurrence(ws):
    make(ws, {"src/app.py": "def main():\n    print('hello')\n    return 0\n"})
    async with serve(ws) as c:
        (await edit(c, "src/app.py", "print('hello')", "print('goodbye')")).ok()
    assert (ws / "src/app.py").read_text() == "def main():\n    print('goodbye')\n    return 0\n"


async def test_edit_multiline_old_string(ws):
    make(ws, {"f.txt": "a\nb\nc\nd\n"})
    async with serve(ws) as c:
        (await edit(c, "f.txt", "b\nc\n", "B\nX\nC\n")).ok()
    assert (ws / "f.txt").read_text() == "a\nB\nX\nC\nd\n"


async def test_edit_to_empty_deletes_the_text(ws):
    make(ws, {"f.txt": "keep\ndrop me\nkeep too\n"})
    async with serve(ws) as c:
        (await edit(c, "f.txt", "drop me\n", "")).ok()
    assert (ws / "f.txt").read_text() == "keep\nkeep too\n"


async def test_edit_absent_text_is_an_error_saying_to_re_read(ws):
    original = b"alpha\nbeta\ngamma\n"
    make(ws, {"f.txt": original})
    async with serve(ws) as c:
        err = (await edit(c, "f.txt", "delta", "DELTA")).err()
        assert re.search(r"re-?read|read it again|read_file", err, re.I), err
    assert (ws / "f.txt").read_bytes() == original


async def test_edit_several_occurrences_names_count_and_lines(ws):
    original = b"x\nfoo\ny\nfoo\nz\nfoo\n"
    make(ws, {"f.txt": original})
    async with serve(ws) as c:
        err = (await edit(c, "f.txt", "foo", "bar")).err()
        assert re.search(r"\b3\b", err), err
        for line in ("2", "4", "6"):
            assert re.search(rf"\b{line}\b", err), err
    assert (ws / "f.txt").read_bytes() == original


async def test_absent_and_several_are_distinct_failures(ws):
    make(ws, {"f.txt": "foo\nfoo\n"})
    async with serve(ws) as c:
        absent = (await edit(c, "f.txt", "nope", "x")).err()
        several = (await edit(c, "f.txt", "foo", "x")).err()
    assert absent.split(":")[0] != several.split(":")[0] or absent != several
    assert not re.search(r"\b2 times\b", absent)
    assert re.search(r"\b2\b", several)


async def test_whitespace_difference_is_not_a_match(ws):
    original = b"def f():\n    return 1\n"
    make(ws, {"f.py": original})
    async with serve(ws) as c:
        (await edit(c, "f.py", "  return 1", "  return 2")).ok()  # a substring: matches once
        err = (await edit(c, "f.py", "\treturn 2", "x")).err()
        assert err
    assert (ws / "f.py").read_bytes() == b"def f():\n    return 2\n"


async def test_edit_keeps_crlf_line_endings(ws):
    make(ws, {"w.txt": b"one\r\ntwo\r\nthree\r\n"})
    async with serve(ws) as c:
        (await edit(c, "w.txt", "two", "TWO")).ok()
    assert (ws / "w.txt").read_bytes() == b"one\r\nTWO\r\nthree\r\n"


async def test_edit_keeps_every_other_byte(ws):
    original = "\ufeffheader\r\nmixed\nendings\r\n\ttab\t \nnbsp\u00a0here\nlast line without newline".encode()
    make(ws, {"m.txt": original})
    async with serve(ws) as c:
        (await edit(c, "m.txt", "mixed", "MIXED")).ok()
    assert (ws / "m.txt").read_bytes() == original.replace(b"mixed", b"MIXED")


async def test_edit_missing_file_is_not_found(ws):
    async with serve(ws) as c:
        (await edit(c, "ghost.txt", "a", "b")).err("not-found")
    assert not (ws / "ghost.txt").exists()


async def test_failed_edits_leave_file_unchanged_and_a_later_edit_works(ws):
    original = b"a = 1\nb = 2\na = 1\n"
    make(ws, {"f.txt": original})
    async with serve(ws) as c:
        (await edit(c, "f.txt", "a = 1", "a = 9")).err()
        (await edit(c, "f.txt", "c = 3", "c = 9")).err()
        assert (ws / "f.txt").read_bytes() == original
        (await edit(c, "f.txt", "b = 2\na = 1", "b = 2\na = 9")).ok()
    assert (ws / "f.txt").read_bytes() == b"a = 1\nb = 2\na = 9\n"


async def test_edit_then_read_shows_the_change(ws):
    make(ws, {"f.txt": "hello world\n"})
    async with serve(ws) as c:
        (await edit(c, "f.txt", "world", "there")).ok()
        assert (await c.call("read_file", {"path": "f.txt"})).ok() == "hello there\n"


async def test_edit_across_crlf_lines_keeps_crlf(ws):
    make(ws, {"w.txt": b"one\r\ntwo\r\nthree\r\nfour\r\n"})
    async with serve(ws) as c:
        (await edit(c, "w.txt", "two\r\nthree", "2\r\n3")).ok()
    assert (ws / "w.txt").read_bytes() == b"one\r\n2\r\n3\r\nfour\r\n"


async def test_overlapping_occurrences_are_not_unique(ws):
    original = b"aaa\n"
    make(ws, {"o.txt": original})
    async with serve(ws) as c:
        (await edit(c, "o.txt", "aa", "b")).err()
    assert (ws / "o.txt").read_bytes() == original
