"""The qwen profile over real stdio with the official MCP SDK: its seven
tools and their annotations, encodings kept byte for byte, notebooks written by Jupyter's own
writer edited one cell at a time and validated with nbformat, the edit correction cascade, and
the exact texts of glob, grep_search, list_directory and read_file.

The notebook scenarios need the `nbformat` package (tests/e2e/requirements.txt)."""

import json
import shutil
from pathlib import Path

import pytest

from conftest import REPO, make, serve
from imagegen import png

pytestmark = pytest.mark.anyio

QWEN = ("--profile", "qwen")
FIXTURES = REPO / "crates" / "core" / "tests" / "fixtures" / "qwen"


def qwen(root: Path, config: Path | None = None):
    return serve(root, config, QWEN)


def failed(res) -> str:
    assert res.is_error, f"expected an error, got: {res.text[:300]!r}"
    return res.text


async def test_seven_tools_with_annotations_where_qwen_code_asks_confirmation(ws):
    async with qwen(ws) as c:
        tools = await c.tools()
    assert list(tools) == [
        "list_directory", "read_file", "notebook_edit", "write_file", "glob", "grep_search", "edit",
    ]
    for name, tool in tools.items():
        confirm = name in {"notebook_edit", "write_file", "edit"}
        assert tool.annotations.read_only_hint is (not confirm), name
        if confirm:
            assert tool.annotations.destructive_hint is True, name


@pytest.mark.parametrize(
    "case", json.loads((FIXTURES / "encoding" / "cases.json").read_text(encoding="utf-8")),
    ids=lambda case: case["file"],
)
async def test_encodings_bom_and_endings_are_kept_byte_for_byte(ws, case):
    name = case["file"]
    shutil.copyfile(FIXTURES / "encoding" / name, ws / name)
    path = str(ws / name)
    async with qwen(ws) as c:
        text = (await c.call("read_file", {"path": path})).ok()
        # Text decoded from another encoding than UTF-8 starts with one note naming it.
        note, _, body = text.partition("\n")
        if name.startswith(("gbk", "shift_jis", "latin1", "utf16le")):
            assert note.startswith("[File decoded from ") and note.endswith(".]"), text
            text = body
        assert text == case["text"]
        if case["tool"] == "edit":
            res = await c.call("edit", {"file_path": path, "old_string": case["old"], "new_string": case["new"]})
            assert res.ok().startswith(f"Successfully modified file: {path} (1 replacements).")
        else:
            res = await c.call("write_file", {"file_path": path, "content": case["content"]})
            assert res.ok() == f"Successfully overwrote file: {path}."
    assert (ws / name).read_bytes() == (FIXTURES / "encoding" / case["expected"]).read_bytes()


def jupyter_spans(text: str) -> list[tuple[int, int]]:
    """Character ranges of the cells of a notebook written by Jupyter (indent 1)."""
    opens = [i + 1 for i in range(len(text)) if text.startswith("\n  {\n", i)]
    closes = [i + 4 for i in range(len(text)) if text.startswith("\n  }", i)]
    return list(zip(opens, closes))


async def test_a_notebook_written_by_jupyter_is_edited_one_cell_at_a_time(ws):
    nbformat = pytest.importorskip("nbformat")
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

    nb = new_notebook(metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                                "language_info": {"name": "python"}})
    nb.cells = [
        new_markdown_cell("# Report\n\nÜbersicht ✓"),
        new_code_cell("x = 1\nx", execution_count=1,
                      outputs=[new_output("execute_result", data={"text/plain": "1"}, execution_count=1)]),
        new_code_cell("print('tail')", execution_count=2,
                      outputs=[new_output("stream", name="stdout", text="tail\n")]),
    ]
    path = ws / "report.ipynb"
    nbformat.write(nb, str(path))
    before = path.read_text(encoding="utf-8")
    ids = [cell["id"] for cell in nb.cells]
    async with qwen(ws) as c:
        refused = await c.call("notebook_edit", {"notebook_path": str(path), "cell_id": ids[1], "new_source": "y"})
        assert "has not been read in this session" in failed(refused)
        view = (await c.call("read_file", {"path": str(path)})).ok()
        assert view.startswith("Jupyter Notebook (python, 3 cells)\n\n--- Markdown Cell " + ids[0])
        assert f"--- Code Cell {ids[1]} [1] ---\n```python\nx = 1\nx\n```\nOutput:\n1" in view
        out = (await c.call("notebook_edit", {"notebook_path": str(path), "cell_id": ids[1],
                                               "new_source": "x = 2\nprint(x)"})).ok()
        assert out.startswith(f"Updated code cell {ids[1]} in {path}. Its outputs and execution_count were cleared.")
        assert out.endswith("Updated source:\n```python\nx = 2\nprint(x)\n```")
    after = path.read_text(encoding="utf-8")
    spans = jupyter_spans(before)
    # Only the edited cell's text changed, and Jupyter writes exactly the same file.
    assert after[: spans[1][0]] == before[: spans[1][0]]
    assert after.endswith(before[spans[1][1]:])
    edited = nbformat.read(str(path), as_version=4)
    nbformat.validate(edited)
    assert edited.cells[1].source == "x = 2\nprint(x)"
    assert edited.cells[1].outputs == [] and edited.cells[1].execution_count is None
    assert nbformat.writes(edited) + "\n" == after

    async with qwen(ws) as c:
        await c.call("read_file", {"path": str(path)})
        (await c.call("notebook_edit", {"notebook_path": str(path), "edit_mode": "insert", "cell_id": ids[0],
                                         "cell_type": "markdown", "new_source": "## Inserted"})).ok()
        (await c.call("notebook_edit", {"notebook_path": str(path), "edit_mode": "delete", "cell_id": ids[2]})).ok()
    final = nbformat.read(str(path), as_version=4)
    nbformat.validate(final)
    assert [cell.cell_type for cell in final.cells] == ["markdown", "markdown", "code"]
    assert final.cells[1].source == "## Inserted"
    assert nbformat.writes(final) + "\n" == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("name,cell_id", [
    ("jupyter.ipynb", "answer"), ("jupyter_v44.ipynb", "cell-2"),
    ("windows_crlf_bom.ipynb", "answer"), ("compact_ascii.ipynb", "answer"),
])
async def test_notebook_fixtures_replace_gives_the_expected_bytes_and_validates(ws, name, cell_id):
    nbformat = pytest.importorskip("nbformat")
    shutil.copyfile(FIXTURES / "notebook" / name, ws / name)
    path = str(ws / name)
    async with qwen(ws) as c:
        (await c.call("read_file", {"path": path})).ok()
        (await c.call("notebook_edit", {"notebook_path": path, "cell_id": cell_id,
                                         "new_source": "result = 40 + 2\nprint(result)"})).ok()
    data = (ws / name).read_bytes()
    assert data == (FIXTURES / "notebook" / f"{name}.expected").read_bytes()
    nbformat.validate(nbformat.reads(data.decode("utf-8-sig"), as_version=4))


async def test_write_file_and_edit_refuse_notebooks(ws):
    shutil.copyfile(FIXTURES / "notebook" / "jupyter.ipynb", ws / "n.ipynb")
    path = str(ws / "n.ipynb")
    async with qwen(ws) as c:
        assert "Use notebook_edit" in failed(await c.call("write_file", {"file_path": path, "content": "{}"}))
        assert "Use notebook_edit" in failed(await c.call("edit", {"file_path": path, "old_string": "a", "new_string": "b"}))
        err = failed(await c.call("read_file", {"path": path, "offset": 0, "limit": 5}))
        assert err.startswith("offset and limit are not supported for Jupyter notebooks (.ipynb)")


async def test_edit_corrections_are_deterministic_reported_and_unique(ws):
    make(ws, {"a.py": "class A:\n    def f(self):\n        return 1   \n", "b.txt": "x = 1\n  x = 1\n"})
    async with qwen(ws) as c:
        out = (await c.call("edit", {"file_path": str(ws / "a.py"), "old_string": "def f(self):\n    return 1\n",
                                     "new_string": "def f(self):\n    return 2\n"})).ok()
        assert out == (f"Successfully modified file: {ws / 'a.py'} (1 replacements). Correction applied: old_string "
                       "matched after ignoring indentation; new_string was re-indented to the file's indentation.")
        err = failed(await c.call("edit", {"file_path": str(ws / "b.txt"), "old_string": "\tx = 1\n",
                                           "new_string": "y\n", "replace_all": True}))
        assert err.startswith("Failed to edit because the text matches multiple locations")
        err = failed(await c.call("edit", {"file_path": str(ws / "b.txt"), "old_string": "zzz", "new_string": "y"}))
        assert err.startswith(f"Failed to edit, 0 occurrences found for old_string in {ws / 'b.txt'}. No edits made.")
    assert (ws / "a.py").read_text() == "class A:\n    def f(self):\n        return 2\n"
    assert (ws / "b.txt").read_text() == "x = 1\n  x = 1\n"


async def test_listing_searching_and_reading_texts(ws):
    make(ws, {".gitignore": "dist/\n", ".qwenignore": "private.txt\n", "src/app.ts": "const Answer = 42;\n",
              "src/lib/util.ts": "export const answer = 1;\n", "dist/app.js": "answer\n",
              "private.txt": "answer\n"})
    async with qwen(ws) as c:
        listing = (await c.call("list_directory", {"path": str(ws)})).ok()
        assert listing == f"Directory listing for {ws}:\n[DIR] src\n.gitignore\n.qwenignore\n\n(1 git-ignored, 1 qwen-ignored)"
        found = (await c.call("glob", {"pattern": "**/*.ts"})).ok()
        assert found.startswith(f"Found 2 file(s) matching \"**/*.ts\" within {ws}, sorted by modification time (newest first):\n---\n")
        assert str(ws / "src" / "lib" / "util.ts") in found and "dist" not in found
        # grep_search reads .gitignore as ripgrep does: inside a git repository only.
        make(ws, {".git/HEAD": "ref: refs/heads/main\n"})
        grep = (await c.call("grep_search", {"pattern": "ANSWER"})).ok()
        assert grep == ("Found 2 matches for pattern \"ANSWER\" in path \".\":\n---\n"
                        "src/app.ts:1:const Answer = 42;\nsrc/lib/util.ts:1:export const answer = 1;\n---\n\n[0 lines truncated] ...")
        big = "".join(f"row {i}\n" for i in range(2100))
        make(ws, {"big.txt": big})
        text = (await c.call("read_file", {"path": str(ws / "big.txt")})).ok()
        assert text.startswith("[File content truncated: showing lines 1-2000 of 2100 total lines")
        assert (await c.call("read_file", {"path": str(ws / "big.txt"), "offset": 2099, "limit": 5})).ok().endswith("\nrow 2099\n")
        make(ws, {"blob.bin": b"\x00\x01\x02"})
        assert (await c.call("read_file", {"path": str(ws / "blob.bin")})).ok() == f"Cannot display content of binary file: {ws / 'blob.bin'}"


async def test_images_arrive_as_image_content_and_settings_turn_vision_off(ws, tmp_path):
    data = png(2, 3)
    make(ws, {"p.png": data})
    async with qwen(ws) as c:
        res = await c.call("read_file", {"path": str(ws / "p.png")})
        assert not res.is_error and len(res.images) == 1 and res.images[0].mime_type == "image/png"
    settings = tmp_path / "settings.json"
    settings.write_text('{"model": {"modalities": {"image": false}}, "general": {"defaultFileEncoding": "utf-8-bom"}}')
    async with qwen(ws, settings) as c:
        err = failed(await c.call("read_file", {"path": str(ws / "p.png")}))
        assert err.startswith('[Unsupported image file: "p.png". This model does not support image input.')
        (await c.call("write_file", {"file_path": str(ws / "new.txt"), "content": "x\n"})).ok()
    assert (ws / "new.txt").read_bytes() == b"\xef\xbb\xbfx\n"


async def test_a_pdf_is_an_embedded_resource_when_the_model_reads_them(ws, tmp_path):
    make(ws, {"doc.pdf": b"%PDF-1.4\n%%EOF\n"})
    settings = tmp_path / "settings.json"
    settings.write_text('{"model": {"modalities": {"pdf": true}}}')
    async with qwen(ws, settings) as c:
        res = await c.call("read_file", {"path": str(ws / "doc.pdf")})
        assert not res.is_error
        blocks = [b for b in res.raw.content if b.type == "resource"]
        assert len(blocks) == 1, res.raw.content
        resource = blocks[0].resource
        assert resource.mime_type == "application/pdf"
        assert str(resource.uri).endswith("/doc.pdf")
        import base64
        assert base64.b64decode(resource.blob) == b"%PDF-1.4\n%%EOF\n"
    async with qwen(ws) as c:
        res = await c.call("read_file", {"path": str(ws / "doc.pdf")})
        assert not [b for b in res.raw.content if b.type == "resource"], "PDFs are off by default"
