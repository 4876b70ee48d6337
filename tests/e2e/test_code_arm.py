"""gg's code arm over MCP, through the official SDK: `serve --arm code` offers one tool,
run_code; a program's gg.files calls answer as the tool arm's calls do, its views come back as
text blocks headed by path and window (pictures as image blocks), the result ends with the
window's estimated cost, and the sandbox's bounds end a run with an error naming the bound."""

import base64
import json
import re

import pytest

from conftest import make, read_cap_config, serve, write_config

pytestmark = pytest.mark.anyio

PNG_1x1 = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def returned(text: str):
    m = re.search(r"(?s)\[returned\]\n(.*?)(?:\n\[view \d+:|\n\[this run put|\Z)", text)
    assert m, text
    try:
        return json.loads(m.group(1))
    except json.JSONDecodeError:
        return m.group(1)


async def test_run_code_is_the_one_tool_and_the_prompt_never_states_the_line_cap(ws, tmp_path):
    make(ws, {"src/main.rs": "fn main() {}\n", "README.md": "hi\n"})
    config = read_cap_config(tmp_path, "default-cap", 250)
    async with serve(ws, config, ["--arm", "code"]) as c:
        assert set(await c.tools()) == {"run_code"}
        instructions = c.init.instructions or ""
        assert "## Views" in instructions
        assert "README.md\nsrc/\n  main.rs" in instructions
        assert not re.search(r"\b250\b", instructions), instructions


async def test_a_program_reads_files_and_shows_only_what_it_opens(ws):
    make(ws, {f"docs/{i}.md": f"# doc {i}\n{'needle' if i in (3, 7) else 'hay'}\n" for i in range(12)})
    code = """
      const hits = [];
      for (const e of gg.files.listDir("docs")) {
        if (gg.files.readFile(e.path).includes("needle")) hits.push(e.path);
      }
      for (const p of hits) gg.views.openFile(p);
      return hits;
    """
    async with serve(ws, None, ["--arm", "code"]) as c:
        out = await c.call("run_code", {"code": code})
        text = out.ok()
    async with serve(ws) as tools:
        three = (await tools.call("read_file", {"path": "docs/3.md"})).ok()
    assert returned(text) == ["docs/3.md", "docs/7.md"]
    assert f"[view 1: docs/3.md, lines 1-2 of 2; about " in text
    assert "]\n" + three in text
    assert "docs/0.md" not in text.split("[view 1:")[1]
    assert re.search(r"\[this run put about [\d,]+ tokens into the window: 2 views", text), text


async def test_a_picture_is_a_descriptor_to_the_program_and_an_image_in_a_view(ws):
    make(ws, {"m.png": PNG_1x1})
    async with serve(ws, None, ["--arm", "code"]) as c:
        out = await c.call("run_code", {"code": "return gg.files.readFile('m.png')"})
        d = returned(out.ok())
        assert d["shown"] is False and d["format"] == "PNG" and d["width"] == 1
        assert "gg.views.openFile" in d["reason"]
        assert not out.images
        out = await c.call("run_code", {"code": "gg.views.openFile('m.png')"})
        assert len(out.images) == 1 and out.images[0].mime_type == "image/png"


async def test_errors_are_thrown_with_their_kind_and_fail_the_run_uncaught(ws):
    async with serve(ws, None, ["--arm", "code"]) as c:
        out = await c.call("run_code", {"code": "try { gg.files.readFile('nope') } catch (e) { return e.kind }"})
        assert returned(out.ok()) == "not-found"
        out = await c.call("run_code", {"code": "gg.files.readFile('nope')"})
        assert out.err("not-found").startswith("not-found: nope does not exist")


async def test_the_sandbox_bounds_end_a_run_and_the_server_serves_on(ws, tmp_path):
    config = write_config(tmp_path, "[code]\ncpu_limit_ms = 300\nmemory_limit_mib = 16\noutput_limit_kib = 2\n")
    async with serve(ws, config, ["--arm", "code"]) as c:
        for code, bound in [
            ("while (true) {}", "cpu_limit_ms"),
            ("const a = []; for (;;) a.push('x'.repeat(1e5) + a.length)", "memory_limit_mib"),
            ("function f() { return f() + 1 } f()", "stack_limit_kib"),
            ("for (;;) console.log('flood')", "output_limit_kib"),
        ]:
            out = await c.call("run_code", {"code": code})
            assert bound in out.err("limit"), (code, out.text)
        for code in ["return typeof fetch + typeof Date + typeof setTimeout + typeof require"]:
            out = await c.call("run_code", {"code": code})
            assert returned(out.ok()) == "undefinedundefinedundefinedundefined"
