"""The coder profile over MCP: `fsgate serve --profile coder --root DIR` offers the nine
coder functions, and every structuredContent it answers validates against the worker's response
schema for that function (coder_response_schemas.json: the API reference's response schemas
stripped of description/title/examples). Whole-call failures are `{"code": "C2xx", "message"}`.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conftest import make, serve, write_config

HERE = Path(__file__).resolve().parent
SCHEMAS: dict[str, Any] = json.loads((HERE / "coder_response_schemas.json").read_text(encoding="utf-8"))

CODER_TOOLS = {
    "info",
    "read-file",
    "search",
    "update-file",
    "create-file",
    "delete-file",
    "move",
    "list-folder",
    "tree",
}
CODER = ("--profile", "coder")

WIRE_ERROR = {
    "type": "object",
    "properties": {
        "code": {"type": "string", "pattern": "^C2[0-9][0-9]$"},
        "message": {"type": "string", "minLength": 1},
    },
    "required": ["code", "message"],
    "additionalProperties": False,
}

anyio = pytest.mark.anyio


def strip(o: Any) -> Any:
    """The schema without its prose: description, title and examples dropped everywhere."""
    if isinstance(o, dict):
        return {k: strip(v) for k, v in o.items() if k not in ("description", "title", "examples")}
    if isinstance(o, list):
        return [strip(x) for x in o]
    return o


def closed(schema: Any) -> Any:
    """The schema with every object closed (no field beyond its `properties`)."""
    s = copy.deepcopy(schema)

    def walk(o: Any) -> None:
        if isinstance(o, dict):
            if isinstance(o.get("properties"), dict):
                o.setdefault("additionalProperties", False)
            for v in o.values():
                walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)

    walk(s)
    return s


def check(tool: str, res) -> dict:
    """Validates a call's structuredContent: the worker's schema on success (also with every object
    closed to extra fields), the wire error shape on failure. The text block carries the same
    JSON. Returns the structured content."""
    sc = res.raw.structured_content
    assert sc is not None, f"{tool} returned no structuredContent: {res.text[:300]!r}"
    if res.is_error:
        jsonschema.validate(sc, WIRE_ERROR)
    else:
        jsonschema.Draft7Validator(SCHEMAS[tool]).validate(sc)
        jsonschema.Draft7Validator(closed(SCHEMAS[tool])).validate(sc)
        for entry in sc.get("results") or []:
            failed = entry.get("success") is False
            assert failed == (entry.get("error") is not None), f"{tool}: success/error disagree: {entry}"
            if failed:
                jsonschema.validate(entry["error"], WIRE_ERROR)
    assert json.loads(res.text) == sc, f"{tool}: the text block is not the structured JSON"
    return sc


async def call(c, tool: str, args: dict) -> dict:
    return check(tool, await c.call(tool, args))


@pytest.fixture
def cfg(tmp_path: Path) -> Path:
    """The coder YAML of these scenarios: the worker's shipped non-accessible globs."""
    return write_config(
        tmp_path,
        'non_accessible_globs:\n  - "**/.env"\n  - "**/.env.*"\n  - "**/*.pem"\n  - "**/*.key"\n'
        '  - "**/secrets/**"\n',
        "coder.yaml",
    )


def layout(ws: Path) -> None:
    make(
        ws,
        {
            "a.txt": "alpha\nneedle here\ngamma\n",
            "sub/b.txt": "beta\n",
            "sub/c.txt": "needle too\n",
            "empty": None,
            ".env": "SECRET=1\n",
        },
    )


# ---------------------------------------------------------------------------------------------
# The fixture itself


def test_the_schema_fixture_has_one_schema_per_function_and_no_prose():
    assert set(SCHEMAS) == CODER_TOOLS
    text = json.dumps(SCHEMAS)
    for key in ('"description"', '"title"', '"examples"'):
        assert key not in text
    for name, schema in SCHEMAS.items():
        jsonschema.Draft7Validator.check_schema(schema)
        assert schema["type"] == "object", name


# ---------------------------------------------------------------------------------------------
# Tools


@anyio
async def test_lists_the_nine_coder_tools_with_object_schemas(ws):
    async with serve(ws, extra=CODER) as c:
        tools = await c.tools()
        assert set(tools) == CODER_TOOLS
        for name, t in tools.items():
            assert t.description and t.description.strip(), name
            assert t.input_schema.get("type") == "object", name
            assert t.output_schema is not None, f"{name} advertises no outputSchema"


def inline(schema: Any, root: Any | None = None, stack: tuple[str, ...] = ()) -> Any:
    """The schema with local $refs inlined (a recursive one left as a marker naming it), single
    `allOf` wrappers unwrapped and `definitions` dropped: its structure, whatever the names."""
    root = schema if root is None else root
    if isinstance(schema, list):
        return [inline(x, root, stack) for x in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/definitions/")
        if name in stack:
            return {"$recursive": name}
        return inline(root["definitions"][name], root, (*stack, name))
    if list(schema) == ["allOf"] and len(schema["allOf"]) == 1:
        return inline(schema["allOf"][0], root, stack)
    return {k: inline(v, root, stack) for k, v in schema.items() if k != "definitions"}


def test_inline_resolves_refs_and_recursion():
    s = {
        "definitions": {"N": {"type": "object", "properties": {"c": {"items": {"$ref": "#/definitions/N"}}}}},
        "properties": {"root": {"allOf": [{"$ref": "#/definitions/N"}]}},
    }
    assert inline(s) == {
        "properties": {"root": {"type": "object", "properties": {"c": {"items": {"$recursive": "N"}}}}}
    }


@anyio
async def test_advertised_output_schemas_are_the_spec_response_schemas(ws):
    """Each tool's advertised outputSchema, without prose, is structurally the worker's response
    schema (definition names and `allOf` wrappers aside)."""
    async with serve(ws, extra=CODER) as c:
        tools = await c.tools()
        for name, t in tools.items():
            assert inline(strip(t.output_schema)) == inline(SCHEMAS[name]), name


# ---------------------------------------------------------------------------------------------
# The finished functions


@anyio
async def test_info(ws, cfg):
    async with serve(ws, cfg, extra=CODER) as c:
        info = await call(c, "info", {})
        assert info["base_paths"] == [str(ws.resolve())]
        assert info["primary_root"] == info["base_paths"][0]
        assert info["tree_per_folder_limit"] == 50
        assert info["max_output_bytes"] == 131072


@anyio
async def test_create_file(ws, cfg):
    layout(ws)
    async with serve(ws, cfg, extra=CODER) as c:
        sc = await call(
            c,
            "create-file",
            {
                "files": [
                    {"path": "notes.md", "content": "# notes\n- one\n- two\n"},
                    {"path": "a.txt", "content": "x"},
                    {"path": "x/y/z.txt", "content": "deep", "mode": "0600"},
                    {"path": "../escape.txt", "content": "x"},
                    {"path": "bad.txt", "content": "x", "mode": "rwx"},
                ]
            },
        )
        r = sc["results"]
        assert r[0]["success"] and r[0]["path"] == str(ws.resolve() / "notes.md")
        assert r[0]["bytes_written"] == len("# notes\n- one\n- two\n")
        assert r[1]["error"]["code"] == "C217"
        assert r[2]["success"] and (ws / "x/y/z.txt").stat().st_mode & 0o777 == 0o600
        assert r[3]["error"]["code"] == "C215"
        assert r[4]["error"]["code"] == "C210"
        assert (ws / "a.txt").read_text() == "alpha\nneedle here\ngamma\n"
        assert not (ws.parent / "escape.txt").exists()
        # A whole-call failure: bad input.
        res = await c.call("create-file", {"files": "notes.md"})
        assert res.is_error
        assert check("create-file", res)["code"] == "C210"


@anyio
async def test_create_file_failures_after_resolution_carry_the_canonical_path(ws, cfg):
    layout(ws)
    async with serve(ws, cfg, extra=CODER) as c:
        sc = await call(c, "create-file", {"files": [{"path": "./a.txt", "content": "x"}]})
        assert sc["results"][0]["error"]["code"] == "C217"
        assert sc["results"][0]["path"] == str(ws.resolve() / "a.txt")


@anyio
async def test_update_file(ws, cfg):
    layout(ws)
    async with serve(ws, cfg, extra=CODER) as c:
        sc = await call(
            c,
            "update-file",
            {
                "files": [
                    {
                        "path": "a.txt",
                        "ops": [
                            {"op": "insert", "at_line": 2, "content": "draft"},
                            {"op": "update_lines", "from_line": 3, "to_line": 3, "content": "GAMMA"},
                            {"op": "replace", "pattern": "alp(ha)", "replacement": "ALP$1", "expect_matches": 1},
                        ],
                    },
                    {"path": "sub/b.txt", "ops": [{"op": "remove", "from_line": 1, "to_line": 5}]},
                    {"path": "missing.txt", "ops": [{"op": "insert", "at_line": 1, "content": "x"}]},
                    {"path": ".env", "ops": [{"op": "insert", "at_line": 1, "content": "x"}]},
                ]
            },
        )
        r = sc["results"]
        assert r[0]["success"] and r[0]["applied"] == 3 and r[0]["echoes"]
        assert (ws / "a.txt").read_text() == "ALPha\ndraft\nneedle here\nGAMMA\n"
        assert r[1]["error"]["code"] == "C210"
        assert (ws / "sub/b.txt").read_text() == "beta\n"
        assert r[2]["error"]["code"] == "C211"
        assert r[3]["error"]["code"] == "C211"
        assert (ws / ".env").read_text() == "SECRET=1\n"


@anyio
async def test_delete_file(ws, cfg):
    layout(ws)
    async with serve(ws, cfg, extra=CODER) as c:
        sc = await call(
            c,
            "delete-file",
            {"paths": ["a.txt", "missing.txt", "sub", "empty", ".", "../x", ".env"]},
        )
        r = sc["results"]
        assert r[0]["success"] and r[0]["removed"] and r[0]["path"] == str(ws.resolve() / "a.txt")
        assert r[1]["success"] and r[1]["removed"] is False
        assert r[2]["error"]["code"] == "C210"
        assert r[3]["success"] and r[3]["removed"]
        assert r[4]["error"]["code"] == "C210"
        assert r[5]["error"]["code"] == "C215"
        assert r[6]["error"]["code"] == "C211"
        assert (ws / "sub/b.txt").exists() and (ws / ".env").exists()
        sc = await call(c, "delete-file", {"paths": ["sub"], "recursive": True})
        assert sc["results"][0]["removed"] and not (ws / "sub").exists()
        res = await c.call("delete-file", {"paths": ["x"], "base_dir": str(ws.parent)})
        assert res.is_error
        assert check("delete-file", res)["code"] == "C215"


@anyio
async def test_move(ws, tmp_path, cfg):
    layout(ws)
    other = tmp_path / "other"
    other.mkdir()
    async with serve(ws, cfg, extra=(*CODER, "--root", str(other))) as c:
        sc = await call(
            c,
            "move",
            {
                "files": [
                    {"from": "a.txt", "to": "renamed/a.txt"},
                    {"from": "sub/b.txt", "to": "sub/c.txt"},
                    {"from": "sub/b.txt", "to": "sub"},
                    {"from": "sub/b.txt", "to": "sub/b.txt"},
                    {"from": "sub/b.txt", "to": str(other / "b.txt")},
                    {"from": "sub", "to": str(other / "sub")},
                    {"from": ".", "to": "x"},
                    {"from": "nope.txt", "to": "x.txt"},
                ]
            },
        )
        r = sc["results"]
        assert r[0]["success"] and r[0]["moved"] and r[0]["to"] == str(ws.resolve() / "renamed/a.txt")
        assert r[1]["error"]["code"] == "C217"
        assert r[2]["error"]["code"] == "C210" and "sub/b.txt" in r[2]["error"]["message"]
        assert r[3]["success"] and r[3]["moved"] is False
        assert r[4]["success"] and r[4]["moved"] and (other / "b.txt").read_text() == "beta\n"
        assert r[5]["error"]["code"] == "C210"
        assert r[6]["error"]["code"] == "C210"
        assert r[7]["error"]["code"] == "C211"
        assert not (ws / "sub/b.txt").exists()


# ---------------------------------------------------------------------------------------------
# The functions being built: each answers in the worker's shape.


@anyio
async def test_read_file(ws, cfg):
    layout(ws)
    async with serve(ws, cfg, extra=CODER) as c:
        full = await call(c, "read-file", {"path": "a.txt"})
        assert full["content"] == "alpha\nneedle here\ngamma\n"
        assert full["path"] == str(ws.resolve() / "a.txt")
        await call(c, "read-file", {"path": "a.txt", "stat": True})
        await call(c, "read-file", {"path": "a.txt", "line_from": 2, "line_to": 2, "numbered": True})
        batch = await call(c, "read-file", {"paths": ["a.txt", {"path": "sub/b.txt", "stat": True}, "missing.txt", ".env"]})
        codes = [(e.get("error") or {}).get("code") for e in batch["results"]]
        assert codes == [None, None, "C211", "C211"]


@anyio
async def test_search(ws, cfg):
    layout(ws)
    async with serve(ws, cfg, extra=CODER) as c:
        sc = await call(c, "search", {"query": "needle", "context_lines_before": 1})
        assert {m["path"] for m in sc["content_matches"]} == {str(ws.resolve() / "a.txt"), str(ws.resolve() / "sub/c.txt")}
        await call(c, "search", {"query": "b\\.txt$", "regex": True, "search_content": False})


@anyio
async def test_list_folder(ws, cfg):
    layout(ws)
    async with serve(ws, cfg, extra=CODER) as c:
        sc = await call(c, "list-folder", {})
        names = [e["name"] for e in sc["entries"]]
        assert names == sorted(names) and {"a.txt", "sub", ".env"} <= set(names)
        assert sc["path"] == str(ws.resolve())
        await call(c, "list-folder", {"path": "sub", "page_size": 1, "page": 2})


@anyio
async def test_tree(ws, cfg):
    layout(ws)
    async with serve(ws, cfg, extra=CODER) as c:
        sc = await call(c, "tree", {})
        assert sc["path"] == str(ws.resolve())
        await call(c, "tree", {"max_depth": 1, "per_folder_limit": 1})
