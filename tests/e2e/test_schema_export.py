"""`fsgate schema --format mcp|openai|anthropic|gemini`: the active tool set of every profile in
each model API's tool-definition shape, loaded by that API's official SDK types (google-genai's
models validate strictly; the OpenAI and Anthropic parameter types are checked with pydantic)."""

import json
import os
import subprocess
from pathlib import Path

import pytest
from anthropic.types import ToolParam
from google.genai import types as genai
from openai.types.chat import ChatCompletionToolParam
from pydantic import TypeAdapter

BIN = os.environ.get("FSGATE_BIN", str(Path(__file__).resolve().parents[2] / "target/release/fsgate"))
PROFILES = ["gg", "coder", "qwen", "picoclaw", "sgpt", "native"]


def schema(root: Path, fmt: str, profile: str, *extra: str):
    out = subprocess.run(
        [BIN, "schema", "--profile", profile, "--root", str(root), "--format", fmt, *extra],
        capture_output=True, text=True, timeout=30,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.mark.parametrize("profile", PROFILES)
def test_every_format_loads_in_its_sdk(ws, profile):
    names = [t["name"] for t in schema(ws, "mcp", profile)]
    assert names
    openai = schema(ws, "openai", profile)
    TypeAdapter(list[ChatCompletionToolParam]).validate_python(openai)
    assert [t["function"]["name"] for t in openai] == names
    anthropic = schema(ws, "anthropic", profile)
    TypeAdapter(list[ToolParam]).validate_python(anthropic)
    assert [t["name"] for t in anthropic] == names
    gemini = genai.Tool.model_validate(schema(ws, "gemini", profile))
    assert [f.name for f in gemini.function_declarations] == names


def test_exports_follow_capabilities_and_agents(ws, tmp_path):
    config = tmp_path / "gg.toml"
    config.write_text('[capabilities.search]\nenabled = false\n[agents.reader]\nallow = ["read_file", "tree"]\n')
    names = [t["function"]["name"] for t in schema(ws, "openai", "gg", "--config", str(config))]
    assert names == ["read_file", "write_file", "edit_file", "list_dir", "tree"]
    reader = schema(ws, "anthropic", "gg", "--config", str(config), "--agent", "reader")
    assert [t["name"] for t in reader] == ["read_file", "tree"]
