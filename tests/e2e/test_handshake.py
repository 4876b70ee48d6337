"""initialize and tools/list: the six gg tools, their input schemas, and what read_file's
schema says about leaving limit out under each read mode."""

import re

import pytest

from conftest import ALL_TOOLS, read_cap_config, serve

pytestmark = pytest.mark.anyio


async def test_initialize_reports_protocol_and_tools_capability(ws):
    async with serve(ws) as c:
        assert c.init.protocol_version
        assert c.init.server_info.name
        assert c.init.capabilities.tools is not None


async def test_tools_list_has_exactly_the_six_tools(ws):
    async with serve(ws) as c:
        tools = await c.tools()
        assert set(tools) == ALL_TOOLS


async def test_every_tool_has_a_description_and_object_schema(ws):
    async with serve(ws) as c:
        tools = await c.tools()
        for name, t in tools.items():
            assert t.description and t.description.strip(), name
            assert t.input_schema.get("type") == "object", name
            assert isinstance(t.input_schema.get("properties"), dict), name


async def test_input_schemas_name_the_arguments(ws):
    async with serve(ws) as c:
        tools = await c.tools()
        props = {n: set(t.input_schema["properties"]) for n, t in tools.items()}
        req = {n: set(t.input_schema.get("required", [])) for n, t in tools.items()}
        assert {"path", "offset", "limit"} <= props["read_file"]
        assert req["read_file"] == {"path"}
        assert {"path", "content"} <= props["write_file"]
        assert {"path"} <= props["edit_file"]
        assert len(props["edit_file"]) >= 3
        assert "path" in props["list_dir"]
        assert {"path", "depth"} <= props["tree"]
        assert {"query", "path", "limit"} <= props["search"]
        assert req["search"] == {"query"}
        assert not req["tree"] and not req["list_dir"]
        for arg in ("offset", "limit"):
            assert tools["read_file"].input_schema["properties"][arg].get("type") == "integer"


async def test_limit_description_states_default_cap_2000(ws):
    async with serve(ws) as c:
        tools = await c.tools()
        desc = tools["read_file"].input_schema["properties"]["limit"].get("description", "")
        assert re.search(r"\b2,?000\b", desc), desc


async def test_limit_description_states_configured_line_cap(ws, tmp_path):
    cfg = read_cap_config(tmp_path, "default-cap", 250)
    async with serve(ws, cfg) as c:
        tools = await c.tools()
        desc = tools["read_file"].input_schema["properties"]["limit"].get("description", "")
        assert re.search(r"\b250\b", desc), desc
        assert "2000" not in desc


async def test_limit_description_under_unlimited_says_end_of_file_and_no_cap(ws, tmp_path):
    cfg = read_cap_config(tmp_path, "unlimited", 250)
    async with serve(ws, cfg) as c:
        tools = await c.tools()
        schema = tools["read_file"].input_schema
        assert {"offset", "limit"} <= set(schema["properties"])
        desc = schema["properties"]["limit"].get("description", "")
        assert re.search(r"\bend\b", desc, re.I), desc
        assert "250" not in desc, desc


async def test_schema_offers_offset_and_limit_under_both_modes(ws, tmp_path):
    for mode in ("default-cap", "unlimited"):
        cfg = read_cap_config(tmp_path, mode, 100)
        async with serve(ws, cfg) as c:
            schema = (await c.tools())["read_file"].input_schema
            assert {"offset", "limit"} <= set(schema["properties"]), mode
