"""Shared machinery for the end-to-end scenarios of the gg profile.

Every scenario starts the real release binary as `fsgate serve --root DIR [--config FILE] ...`,
talks to it over stdio through the official Python MCP SDK, and checks what a model would see.
The binary comes from $FSGATE_BIN (default: target/release/fsgate of this repository).
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

REPO = Path(__file__).resolve().parents[2]
FSGATE_BIN = os.environ.get("FSGATE_BIN", str(REPO / "target" / "release" / "fsgate"))

# A hung server fails its scenario instead of hanging the suite.
CALL_TIMEOUT = float(os.environ.get("FSGATE_E2E_CALL_TIMEOUT", "60"))

ALL_TOOLS = {"read_file", "write_file", "edit_file", "list_dir", "tree", "search"}

# Every failed call's text starts with its kind and a colon: `not-found: ...`.
KIND_RE = re.compile(r"^([a-z][a-z0-9]*(?:-[a-z0-9]+)*): \S")


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: the 1 GB memory scenario")


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture(scope="session", autouse=True)
def _binary_exists():
    if not Path(FSGATE_BIN).is_file():
        pytest.exit(
            f"fsgate binary not found at {FSGATE_BIN}; build it with "
            "`cargo build --release -p fsgate` or set FSGATE_BIN",
            returncode=4,
        )


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """The workspace root of one scenario (a fresh directory)."""
    root = tmp_path / "ws"
    root.mkdir()
    return root


def make(root: Path, files: dict[str, str | bytes | None]) -> None:
    """Creates files under root: str is written as UTF-8 (newlines untranslated), bytes as is,
    None makes an empty directory."""
    for rel, content in files.items():
        p = root / rel
        if content is None:
            p.mkdir(parents=True, exist_ok=True)
            continue
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            content = content.encode("utf-8")
        p.write_bytes(content)


def write_config(tmp_path: Path, text: str, name: str = "fsgate.toml") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def read_cap_config(tmp_path: Path, mode: str, line_cap: int = 2000, name: str | None = None) -> Path:
    return write_config(
        tmp_path,
        f"""
[capabilities.read-file]
enabled = true
implementation = "{mode}"
params = {{ lineCap = {line_cap} }}
""",
        name or f"read-{mode}-{line_cap}.toml",
    )


@dataclass
class Result:
    raw: Any
    is_error: bool
    texts: list[str] = field(default_factory=list)
    images: list[Any] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n".join(self.texts)

    @property
    def kind(self) -> str | None:
        m = KIND_RE.match(self.text)
        return m.group(1) if m else None

    def ok(self) -> str:
        assert not self.is_error, f"expected success, got error: {self.text!r}"
        return self.text

    def err(self, kind: str | None = None) -> str:
        assert self.is_error, f"expected an error result, got success: {self.text[:500]!r}"
        assert KIND_RE.match(self.text), f"error text does not start with `kind: `: {self.text!r}"
        if kind is not None:
            assert self.text.startswith(kind + ": "), f"expected `{kind}: ...`, got {self.text!r}"
        return self.text


class Client:
    def __init__(self, session: ClientSession, root: Path, init: Any):
        self.session = session
        self.root = root
        self.init = init

    async def call(self, name: str, args: dict | None = None) -> Result:
        raw = await self.session.call_tool(name, args or {})
        res = Result(raw=raw, is_error=bool(raw.is_error))
        for c in raw.content:
            if c.type == "text":
                res.texts.append(c.text)
            elif c.type == "image":
                res.images.append(c)
        return res

    async def tools(self) -> dict[str, Any]:
        listed = await self.session.list_tools()
        return {t.name: t for t in listed.tools}

    def pid(self) -> int:
        return find_server_pid(self.root)


def find_server_pid(root: Path) -> int:
    """The pid of the fsgate process serving `root`: a descendant of this test process whose
    command line is the fsgate binary with `serve --root <root>` (the root is unique per test)."""
    me = os.getpid()
    want_root = str(root)
    candidates = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        if not argv or "serve" not in argv:
            continue
        if os.path.basename(argv[0]) != os.path.basename(FSGATE_BIN):
            continue
        if want_root not in argv:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        candidates.append((int(entry), ppid))
    direct = [pid for pid, ppid in candidates if ppid == me]
    if direct:
        return direct[0]
    assert candidates, f"no fsgate server process found for root {root}"
    return candidates[0][0]


def serve_argv(root: Path, config: Path | None = None, extra: tuple[str, ...] | list[str] = ()) -> list[str]:
    args = ["serve", "--root", str(root)]
    if config is not None:
        args += ["--config", str(config)]
    return args + list(extra)


@asynccontextmanager
async def serve(root: Path, config: Path | None = None, extra: tuple[str, ...] | list[str] = ()):
    """Starts `fsgate serve --root root [--config config] extra...` and yields an initialised
    Client."""
    # cwd is deliberately not the root: relative paths must resolve against --root.
    params = StdioServerParameters(command=FSGATE_BIN, args=serve_argv(root, config, extra), cwd=str(root.parent))
    failure: BaseException | None = None
    with tempfile.TemporaryFile("w+") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=CALL_TIMEOUT) as session:
                init = await session.initialize()
                try:
                    yield Client(session, root, init)
                except Exception as e:  # re-raised below, outside the SDK's task groups,
                    failure = e  # so a failed assertion reads as itself
    if failure is not None:
        raise failure


def run_serve_expect_refusal(root: Path, config: Path | None, extra: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    """Runs `fsgate serve` with stdin at EOF; a refused launch exits non-zero on its own."""
    return subprocess.run(
        [FSGATE_BIN, *serve_argv(root, config, extra)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
    )


def numbered(n: int, start: int = 1, fmt: str = "line {}") -> str:
    """n lines `line 1\\n` ... each ending with a newline."""
    return "".join(fmt.format(i) + "\n" for i in range(start, start + n))


def split_footer(text: str) -> tuple[str, str | None]:
    """Splits a read result into (body, footer line) where the footer is a final
    `[showing ...]` line; the body keeps its own line endings."""
    t = text[:-1] if text.endswith("\n") else text
    idx = t.rfind("\n")
    last = t[idx + 1 :]
    if last.startswith("[showing lines") and last.endswith("]"):
        return t[: idx + 1], last
    return text, None
