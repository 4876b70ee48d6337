"""The tool-calling system prompt (the MCP server's instructions): it states the cap only under
default-cap, with this run's own lineCap interpolated, and, for a model that cannot see images,
says up front in its Reading Files section that reading images is unsupported, on a run that
offers read_file (gg's whole-file reads and its rule for models that cannot see images)."""

import re

import pytest

from conftest import read_cap_config, serve, write_config

pytestmark = pytest.mark.anyio

IMAGES_UNSUPPORTED = re.compile(r"(reading )?images? (is |are )?(not supported|unsupported)|cannot (see|read|view) images", re.I)


def reading_section(instructions: str) -> str:
    m = re.search(r"(?ms)^#+\s*Reading Files\s*$(.*?)(?=^#+\s|\Z)", instructions)
    return m.group(1) if m else ""


async def instructions_for(ws, config=None, extra=()):
    async with serve(ws, config, extra) as c:
        return c.init.instructions or ""


async def test_default_cap_prompt_states_this_runs_line_cap(ws, tmp_path):
    text = await instructions_for(ws, read_cap_config(tmp_path, "default-cap", 250))
    section = reading_section(text)
    assert section, text
    assert re.search(r"\b250\b", section), section


async def test_default_prompt_states_2000(ws):
    text = await instructions_for(ws)
    assert re.search(r"\b2,?000\b", reading_section(text)), text


async def test_unlimited_prompt_states_no_cap(ws, tmp_path):
    text = await instructions_for(ws, read_cap_config(tmp_path, "unlimited", 250))
    assert "250" not in text
    assert not re.search(r"at most \d+ lines", text), text


async def test_no_vision_prompt_says_reading_images_is_unsupported(ws):
    text = await instructions_for(ws, extra=["--no-vision"])
    assert IMAGES_UNSUPPORTED.search(reading_section(text)), text


async def test_vision_false_config_prompt_says_reading_images_is_unsupported(ws, tmp_path):
    text = await instructions_for(ws, write_config(tmp_path, "[model]\nvision = false\n"))
    assert IMAGES_UNSUPPORTED.search(reading_section(text)), text


async def test_vision_prompt_does_not_say_unsupported(ws):
    text = await instructions_for(ws)
    assert not IMAGES_UNSUPPORTED.search(text), text


async def test_no_image_line_on_a_run_without_read_file(ws, tmp_path):
    cfg = write_config(tmp_path, "[capabilities.read-file]\nenabled = false\n[model]\nvision = false\n")
    text = await instructions_for(ws, cfg)
    assert not IMAGES_UNSUPPORTED.search(text), text
    cfg = write_config(tmp_path, '[agents.s]\nallow = ["search"]\n[model]\nvision = false\n', "agent.toml")
    text = await instructions_for(ws, cfg, ["--agent", "s"])
    assert not IMAGES_UNSUPPORTED.search(text), text
