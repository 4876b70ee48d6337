"""The client configuration snippets of README.md's "Connect a client" section, tried for real:
each block marked `<!-- client-snippet: NAME -->` is parsed the way its client reads it, the
placeholders `/path/to/fsgate` and `/path/to/workspace` are replaced by the binary under test and
a fresh workspace, and exactly the command and arguments it names are launched and driven with the
official Python MCP SDK (stdio, or streamable HTTP for the HTTP pair)."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import tempfile
import time
import tomllib
from pathlib import Path

import httpx2
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from conftest import ALL_TOOLS, CALL_TIMEOUT, FSGATE_BIN, REPO

pytestmark = pytest.mark.anyio

README = REPO / "README.md"
BIN_PLACEHOLDER = "/path/to/fsgate"
ROOT_PLACEHOLDER = "/path/to/workspace"
SNIPPET = re.compile(r"<!-- client-snippet: ([a-z0-9-]+) -->\n```([a-z]+)\n(.*?)\n```", re.S)

# Every snippet the README promises, with the fence language each is read as.
STDIO_SNIPPETS = {
    "claude-code-json": "json",
    "claude-code-cli": "sh",
    "codex-toml": "toml",
    "gemini-qwen-json": "json",
    "generic-json": "json",
}
HTTP_SNIPPETS = {"http-serve": "sh", "claude-code-http-json": "json"}


def snippets() -> dict[str, tuple[str, str]]:
    """name -> (fence language, body) for every marked block of the README."""
    found: dict[str, tuple[str, str]] = {}
    for name, lang, body in SNIPPET.findall(README.read_text(encoding="utf-8")):
        assert name not in found, f"snippet {name} appears twice in README.md"
        found[name] = (lang, body)
    return found


def test_the_readme_has_every_client_snippet():
    found = snippets()
    assert {n: lang for n, (lang, _) in found.items()} == {**STDIO_SNIPPETS, **HTTP_SNIPPETS}
    section = README.read_text(encoding="utf-8").split("## Connect a client", 1)
    assert len(section) == 2, "README.md has no `## Connect a client` section"
    for name in found:
        assert f"client-snippet: {name} " in section[1], f"{name} is outside the section"


def launch_spec(name: str, lang: str, body: str) -> tuple[str, list[str], dict[str, str] | None]:
    """(command, args, env) as the snippet's client reads them."""
    if lang == "json":
        server = json.loads(body)["mcpServers"]["fsgate"]
        assert server.get("type", "stdio") == "stdio", f"{name}: not a stdio server"
        return server["command"], server.get("args", []), server.get("env")
    if lang == "toml":
        server = tomllib.loads(body)["mcp_servers"]["fsgate"]
        return server["command"], server.get("args", []), server.get("env")
    # `claude mcp add [options] NAME -- COMMAND [ARGS...]`
    words = shlex.split(body)
    assert words[:3] == ["claude", "mcp", "add"], f"{name}: {body}"
    dashes = words.index("--")
    assert words[dashes - 1] == "fsgate", f"{name}: the server is not named fsgate: {body}"
    return words[dashes + 1], words[dashes + 2 :], None


def substitute(value: str, root: Path) -> str:
    return value.replace(BIN_PLACEHOLDER, FSGATE_BIN).replace(ROOT_PLACEHOLDER, str(root))


async def exercise(session: ClientSession, root: Path) -> None:
    """The tools are the default profile's, and a write and a read land in the workspace."""
    await session.initialize()
    listed = await session.list_tools()
    assert {t.name for t in listed.tools} == ALL_TOOLS
    wrote = await session.call_tool("write_file", {"path": "from-snippet.txt", "content": "hi\n"})
    assert not wrote.is_error, wrote.content
    assert (root / "from-snippet.txt").read_text() == "hi\n"
    read = await session.call_tool("read_file", {"path": "hello.txt"})
    assert not read.is_error and read.content[0].text == "hello from the workspace\n"


@pytest.mark.parametrize("name", sorted(STDIO_SNIPPETS))
async def test_a_stdio_snippet_launches_a_working_server(name, tmp_path):
    lang, body = snippets()[name]
    command, args, env = launch_spec(name, lang, body)
    assert command == BIN_PLACEHOLDER, f"{name}: the command is {command!r}"
    assert ROOT_PLACEHOLDER in args, f"{name}: the workspace is not in {args}"
    root = tmp_path / "workspace"
    root.mkdir()
    (root / "hello.txt").write_text("hello from the workspace\n")
    # Clients start servers from folders of their own: not the workspace.
    elsewhere = tmp_path / "client-cwd"
    elsewhere.mkdir()
    params = StdioServerParameters(
        command=substitute(command, root),
        args=[substitute(a, root) for a in args],
        env=env,
        cwd=str(elsewhere),
    )
    with tempfile.TemporaryFile("w+") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=CALL_TIMEOUT) as session:
                await exercise(session, root)


async def test_the_http_snippets_serve_and_connect(tmp_path):
    found = snippets()
    root = tmp_path / "workspace"
    root.mkdir()
    (root / "hello.txt").write_text("hello from the workspace\n")

    # The server command: `FSGATE_TOKEN=... /path/to/fsgate serve --http ADDR:PORT ...`.
    words = shlex.split(found["http-serve"][1])
    assignments = [w for w in words if re.fullmatch(r"[A-Z_]+=.*", w)]
    argv = words[len(assignments) :]
    env = dict(a.split("=", 1) for a in assignments)
    assert argv[0] == BIN_PLACEHOLDER and "FSGATE_TOKEN" in env, words
    http_at = argv.index("--http")
    documented_addr = argv[http_at + 1]
    argv[http_at + 1] = "127.0.0.1:0"  # a free port, not the documented one
    argv = [substitute(a, root) for a in argv]

    # The client entry: its URL must be the documented address's /mcp endpoint.
    client = json.loads(found["claude-code-http-json"][1])["mcpServers"]["fsgate"]
    assert client["type"] == "http" and client["url"] == f"http://{documented_addr}/mcp", client

    proc = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **env},
        cwd=str(tmp_path),
    )
    try:
        url = None
        deadline = time.time() + 15
        while url is None and time.time() < deadline:
            line = proc.stderr.readline()
            if not line:
                break
            m = re.search(r"listening on (http://\S+)", line)
            url = m.group(1) if m else None
        assert url, f"the server did not say where it listens (exit {proc.poll()})"
        # What the client sends: its headers, ${VAR} expanded from the environment it runs in.
        headers = {
            k: re.sub(r"\$\{(\w+)\}", lambda m: env[m.group(1)], v) for k, v in client["headers"].items()
        }
        async with httpx2.AsyncClient(headers=headers) as http:
            async with streamable_http_client(url, http_client=http) as streams:
                async with ClientSession(streams[0], streams[1], read_timeout_seconds=CALL_TIMEOUT) as session:
                    await exercise(session, root)
        # Without the header the same endpoint is closed.
        async with httpx2.AsyncClient() as http:
            refused = await http.post(url, json={}, headers={"Accept": "application/json, text/event-stream"})
            assert refused.status_code == 401
    finally:
        proc.kill()
        proc.wait()
