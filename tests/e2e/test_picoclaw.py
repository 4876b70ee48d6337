"""The picoclaw profile over real stdio with the official MCP SDK: its six
tools and their annotations, write_file's actions and structured results, V4A patches answered
with unified diffs, line-mode reads configured in PicoClaw's JSON, paged searches, credential
redaction, the environment switches and the refusal of a bad configuration."""

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import FSGATE_BIN, make, run_serve_expect_refusal, serve, write_config

pytestmark = pytest.mark.anyio

PICO = ("--profile", "picoclaw")
GITHUB_TOKEN = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"


def pico(root: Path, config: Path | None = None):
    return serve(root, config, PICO)


def body(text: str) -> list[str]:
    """The result lines of a search, after its header."""
    return text.split("\n\n", 1)[1].splitlines() if "\n\n" in text else []


async def test_six_tools_with_read_only_annotations(ws):
    async with pico(ws) as c:
        tools = await c.tools()
    assert list(tools) == ["read_file", "write_file", "edit_file", "append_file", "list_dir", "search_files"]
    for name, tool in tools.items():
        assert tool.annotations.read_only_hint is (name in {"read_file", "list_dir", "search_files"}), name
    assert set(tools["read_file"].input_schema["properties"]) == {"path", "offset", "length"}
    assert tools["search_files"].input_schema["required"] == ["pattern"]


async def test_write_file_actions_and_the_file_exists_payload(ws):
    async with pico(ws) as c:
        res = await c.call("write_file", {"path": "notes/a.txt", "content": "one\n"})
        created = json.loads(res.ok())
        assert created == {
            "success": True,
            "action": "created",
            "resolved_path": str((ws / "notes/a.txt").resolve()),
            "bytes_written": 4,
            "verified": True,
        }
        assert res.raw.structured_content == created
        same = json.loads((await c.call("write_file", {"path": "notes/a.txt", "content": "one\n"})).ok())
        assert (same["action"], same["bytes_written"], same["verified"]) == ("unchanged", 0, True)
        more = json.loads((await c.call("write_file", {"path": "notes/a.txt", "content": "one\ntwo\n"})).ok())
        assert (more["action"], more["bytes_written"]) == ("appended", 4)
        refused = await c.call("write_file", {"path": "notes/a.txt", "content": "other\n"})
        assert refused.is_error
        line, structured = refused.text.split("\nstructured: ")
        assert line.startswith("file already exists: notes/a.txt")
        payload = json.loads(structured)
        assert payload["error"] == "file_exists"
        assert payload["path"] == "notes/a.txt"
        assert payload["recommended_action"] == "edit_file"
        assert payload["recommended_action"] in payload["available_actions"]
        assert (payload["existing_bytes"], payload["new_bytes"], payload["overwrite_required"]) == (8, 6, True)
        assert (ws / "notes/a.txt").read_text() == "one\ntwo\n"
        over = json.loads(
            (await c.call("write_file", {"path": "notes/a.txt", "content": "other\n", "overwrite": True})).ok()
        )
        assert (over["action"], over["verified"]) == ("overwritten", True)
        bad = json.loads((await c.call("write_file", {"path": "x.json", "content": "{\"a\": }"})).ok())
        assert bad["syntax"] == "error" and bad["syntax_error"].startswith("invalid JSON")
        jsonc = json.loads((await c.call("write_file", {"path": "tsconfig.json", "content": "{// c\n}"})).ok())
        assert "syntax" not in jsonc
    assert (ws / "notes/a.txt").read_text() == "other\n"


async def test_edit_file_with_a_v4a_patch_returns_a_unified_diff(ws):
    make(ws, {"internal/server.go": "package server\n\nfunc Start(cfg Config) error {\n\treturn oldServer(cfg)\n}\n"})
    patch = (
        "*** Begin Patch\n*** Update File: internal/server.go\n@@ func Start(\n func Start(cfg Config) error {\n"
        "-\treturn oldServer(cfg)\n+\treturn newServer(cfg)\n }\n*** End Patch"
    )
    async with pico(ws) as c:
        res = await c.call("edit_file", {"path": "internal/server.go", "patch": patch})
        assert res.ok() == (
            "File edited: internal/server.go (applied 1 hunk).\n"
            "--- a/internal/server.go\n+++ b/internal/server.go\n@@ -1,5 +1,5 @@\n package server\n \n"
            " func Start(cfg Config) error {\n-\treturn oldServer(cfg)\n+\treturn newServer(cfg)\n }\n"
        )
        multi = await c.call(
            "edit_file",
            {"path": "internal/server.go", "patch": "*** Begin Patch\n*** Add File: x.go\n+package x\n*** End Patch"},
        )
        assert multi.is_error and "edit_file edits exactly one existing file" in multi.text
    assert "newServer" in (ws / "internal/server.go").read_text()
    assert not (ws / "x.go").exists()


async def test_line_mode_from_picoclaws_json_configuration(ws, tmp_path):
    config = write_config(tmp_path, json.dumps({"tools": {"read_file": {"mode": "lines", "max_lines": 2}}}), "config.json")
    make(ws, {"f.txt": "a\nb\nc\n"})
    async with pico(ws, config) as c:
        tools = await c.tools()
        assert set(tools["read_file"].input_schema["properties"]) == {"path", "start_line", "max_lines"}
        text = (await c.call("read_file", {"path": "f.txt"})).ok()
        assert text.startswith("[file: f.txt | read: lines 1-2 (1-indexed)")
        assert text.endswith("\n\n1|a\n2|b\n")
        refused = await c.call("read_file", {"path": "f.txt", "offset": 3})
        assert refused.is_error and "use start_line" in refused.text


async def test_search_pages_have_no_duplicates_or_gaps(ws):
    make(ws, {f"src/f{i}.txt": "".join(f"match {i}-{j}\nother\n" for j in range(9)) for i in range(4)})
    async with pico(ws) as c:
        whole = body((await c.call("search_files", {"pattern": "^match", "limit": 200})).ok())
        assert len(whole) == 36
        seen, offset = [], 0
        while True:
            text = (await c.call("search_files", {"pattern": "^match", "limit": 5, "offset": offset})).ok()
            seen += body(text)
            if "offset=" not in text:
                break
            offset += 5
    assert seen == whole


async def test_secrets_are_filtered_in_reads_and_searches(ws):
    make(ws, {".env": f"GITHUB_TOKEN={GITHUB_TOKEN}\nDEBUG=1\n"})
    async with pico(ws) as c:
        text = (await c.call("read_file", {"path": ".env"})).ok()
        assert GITHUB_TOKEN not in text and "GITHUB_TOKEN=[FILTERED]" in text
        found = (await c.call("search_files", {"pattern": "DEBUG", "context": 1})).ok()
        assert body(found) == [".env-1-GITHUB_TOKEN=[FILTERED]", ".env:2:DEBUG=1"]


async def test_append_file_and_list_dir(ws):
    make(ws, {".ssh/id_rsa": "key", "src/a.txt": "x"})
    async with pico(ws) as c:
        (await c.call("append_file", {"path": "logs/today.log", "content": "one\n"})).ok()
        (await c.call("append_file", {"path": "logs/today.log", "content": "two\n"})).ok()
        assert (await c.call("list_dir", {"path": "."})).ok() == "DIR:  logs\nDIR:  src\n"
    assert (ws / "logs/today.log").read_text() == "one\ntwo\n"


def test_environment_switches_apply_with_a_configuration_file(ws, tmp_path):
    config = write_config(tmp_path, "{}", "config.json")
    env = dict(os.environ, PICOCLAW_TOOLS_SEARCH_FILES_ENABLED="false", PICOCLAW_TOOLS_APPEND_FILE_ENABLED="0")
    out = subprocess.run(
        [FSGATE_BIN, "schema", *PICO, "--root", str(ws), "--config", str(config)],
        env=env, capture_output=True, text=True, timeout=30, check=True,
    )
    names = [t["name"] for t in json.loads(out.stdout)]
    assert names == ["read_file", "write_file", "edit_file", "list_dir"]


def test_a_bad_configuration_is_refused_naming_every_problem(ws, tmp_path):
    config = write_config(
        tmp_path,
        json.dumps({"tools": {"read_file": {"mode": "pages"}, "allow_read_paths": ["(unclosed"]}}),
        "config.json",
    )
    done = run_serve_expect_refusal(ws, config, PICO)
    assert done.returncode == 2
    assert "2 problems" in done.stderr
    assert "tools.read_file.mode" in done.stderr and "tools.allow_read_paths" in done.stderr
