"""A minimal MCP client over stdio (standard library only): initialize, tools/list, tools/call.

Messages are newline-delimited JSON-RPC 2.0, as the stdio transport specifies. Notifications
and requests the server sends (logging, progress, roots/list) are answered or skipped.
"""

import json
import os
import select
import subprocess
import time

PROTOCOL = "2025-06-18"


class McpError(Exception):
    pass


class Client:
    def __init__(self, argv, cwd=None, env=None, timeout=60.0):
        self.timeout = timeout
        self.proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.next_id = 1
        self.buffer = b""
        self.stderr = b""
        info = self.request(
            "initialize",
            {
                "protocolVersion": PROTOCOL,
                "capabilities": {},
                "clientInfo": {"name": "fsgate-bench-tokens", "version": "1"},
            },
        )
        self.server_info = info.get("serverInfo", {})
        self.notify("notifications/initialized", {})

    def _send(self, message):
        data = json.dumps(message, separators=(",", ":")).encode() + b"\n"
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def notify(self, method, params):
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def _read_message(self, deadline):
        out, err = self.proc.stdout.fileno(), self.proc.stderr.fileno()
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise McpError(f"no answer within {self.timeout} s; stderr: {self.stderr[-2000:]!r}")
            ready, _, _ = select.select([out, err], [], [], left)
            if err in ready:
                chunk = os.read(err, 65536)
                self.stderr += chunk
            if out in ready:
                chunk = os.read(out, 1 << 20)
                if not chunk:
                    raise McpError(f"the server closed its output; stderr: {self.stderr[-2000:]!r}")
                self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        line = line.strip()
        if not line:
            return None
        return json.loads(line)

    def request(self, method, params):
        rid = self.next_id
        self.next_id += 1
        self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        deadline = time.monotonic() + self.timeout
        while True:
            msg = self._read_message(deadline)
            if msg is None:
                continue
            if "method" in msg:
                if "id" in msg:  # a request from the server: answer it
                    if msg["method"] == "roots/list":
                        self._send({"jsonrpc": "2.0", "id": msg["id"], "result": {"roots": []}})
                    else:
                        self._send({"jsonrpc": "2.0", "id": msg["id"],
                                    "error": {"code": -32601, "message": "not supported"}})
                continue
            if msg.get("id") != rid:
                continue
            if "error" in msg:
                raise McpError(f"{method}: {msg['error']}")
            return msg["result"]

    def list_tools(self):
        tools = []
        cursor = None
        while True:
            params = {"cursor": cursor} if cursor else {}
            result = self.request("tools/list", params)
            tools.extend(result.get("tools", []))
            cursor = result.get("nextCursor")
            if not cursor:
                return tools

    def call(self, name, arguments):
        """Calls a tool; returns (the text blocks joined, isError, the raw result)."""
        result = self.request("tools/call", {"name": name, "arguments": arguments})
        texts = [b.get("text", "") for b in result.get("content", []) if b.get("type") == "text"]
        others = [b for b in result.get("content", []) if b.get("type") != "text"]
        if others:
            raise McpError(f"{name}: unexpected non-text content {others!r:.200}")
        return "\n".join(texts), bool(result.get("isError")), result

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except OSError:
                pass
