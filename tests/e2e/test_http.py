"""MCP over streamable HTTP (`fsgate serve --http`), driven by the official Python SDK: tools
listed and called over HTTP, sessions side by side, the bearer token (401 without it), Origin
checks for browsers, and the refusal to serve a non-loopback address without a token."""

import os
import re
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path

import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

pytestmark = pytest.mark.anyio

BIN = os.environ.get("FSGATE_BIN", str(Path(__file__).resolve().parents[2] / "target/release/fsgate"))
LISTENING = re.compile(r"listening on (http://\S+)")


@contextmanager
def http_server(root: Path, *extra: str, env: dict | None = None):
    proc = subprocess.Popen(
        [BIN, "serve", "--root", str(root), "--http", "127.0.0.1:0", *extra],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    try:
        deadline = time.time() + 10
        url = None
        while time.time() < deadline and url is None:
            line = proc.stderr.readline()
            if not line:
                break
            m = LISTENING.search(line)
            if m:
                url = m.group(1)
        assert url, f"the server did not say where it listens (exit {proc.poll()})"
        yield url
    finally:
        proc.kill()
        proc.wait()


async def call_read(url: str, headers: dict | None = None) -> str:
    async with httpx2.AsyncClient(headers=headers or {}) as client:
        async with streamable_http_client(url, http_client=client) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                tools = await session.list_tools()
                assert "read_file" in [t.name for t in tools.tools]
                res = await session.call_tool("read_file", {"path": "a.txt"})
                assert not res.is_error
                return res.content[0].text


async def test_tools_are_listed_and_called_over_http_in_parallel_sessions(ws):
    (ws / "a.txt").write_text("over http\n")
    with http_server(ws) as url:
        assert url.endswith("/mcp")
        import anyio

        results = []

        async def one():
            results.append(await call_read(url))

        async with anyio.create_task_group() as tg:
            for _ in range(4):
                tg.start_soon(one)
        assert results == ["over http\n"] * 4


async def test_a_token_is_required_when_set_and_compared_whole(ws, tmp_path):
    (ws / "a.txt").write_text("secret\n")
    token_file = tmp_path / "token"
    token_file.write_text("s3cret-token\n")
    with http_server(ws, "--token-file", str(token_file)) as url:
        async with httpx2.AsyncClient() as raw:
            body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
            accept = {"Accept": "application/json, text/event-stream"}
            assert (await raw.post(url, json=body, headers=accept)).status_code == 401
            wrong = {**accept, "Authorization": "Bearer s3cret-tokem"}
            assert (await raw.post(url, json=body, headers=wrong)).status_code == 401
        assert await call_read(url, {"Authorization": "Bearer s3cret-token"}) == "secret\n"
    with http_server(ws, env={"FSGATE_TOKEN": "from-env"}) as url:
        async with httpx2.AsyncClient() as raw:
            resp = await raw.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
            assert resp.status_code == 401
        assert await call_read(url, {"Authorization": "Bearer from-env"}) == "secret\n"


async def test_a_foreign_browser_origin_is_refused(ws):
    (ws / "a.txt").write_text("x\n")
    with http_server(ws) as url:
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
        }
        headers = {"Accept": "application/json, text/event-stream", "Origin": "http://evil.example"}
        async with httpx2.AsyncClient() as raw:
            resp = await raw.post(url, json=init, headers=headers)
            assert resp.status_code == 403, resp.status_code
            local = {**headers, "Origin": "http://localhost:3000"}
            assert (await raw.post(url, json=init, headers=local)).status_code == 200


def test_a_non_loopback_address_needs_a_token(ws):
    env = {k: v for k, v in os.environ.items() if k != "FSGATE_TOKEN"}
    out = subprocess.run(
        [BIN, "serve", "--root", str(ws), "--http", "0.0.0.0:0"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=10, env=env,
    )
    assert out.returncode == 2
    assert "bearer token is required" in out.stderr
