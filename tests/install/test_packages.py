"""The packages a user installs fsgate from, installed as a user would and driven as an MCP client
drives them: the Python wheel (`pip install`, and `uvx fsgate` as the README's snippet runs it)
and the npm packages (`npx -y fsgate` from the packed tarballs, through the JS launcher).

They test the Linux x86_64 artefacts `scripts/release --local` writes to target/dist-local (or
$FSGATE_DIST): the executable of `cargo build --release` packed as the release packs it. Nothing
is fetched from a registry: pip installs with --no-index, npm and uv run offline with fresh
caches, so only the packed files can answer.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
import zipfile
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

REPO = Path(__file__).resolve().parents[2]
DIST = Path(os.environ.get("FSGATE_DIST", REPO / "target" / "dist-local"))
README = REPO / "README.md"
TOOLS = {"read_file", "write_file", "edit_file", "list_dir", "tree", "search"}
ROOT_PLACEHOLDER = "/path/to/workspace"
SNIPPET = re.compile(r"<!-- install-snippet: ([a-z0-9-]+) -->\n```([a-z]+)\n(.*?)\n```", re.S)
TIMEOUT = 120

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend():
    return "asyncio"


def version() -> str:
    manifest = tomllib.loads((REPO / "Cargo.toml").read_text(encoding="utf-8"))
    return manifest["workspace"]["package"]["version"]


def one(pattern: str) -> Path:
    found = sorted(DIST.glob(pattern))
    assert len(found) == 1, (
        f"expected one {pattern} in {DIST}, found {[p.name for p in found]}; "
        "run `scripts/release --local` first"
    )
    return found[0]


def run(argv: list[str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT, **kwargs)


def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "workspace"
    root.mkdir()
    (root / "hello.txt").write_text("hello from the workspace\n")
    return root


async def handshake(command: str, args: list[str], root: Path, cwd: Path, env: dict[str, str] | None = None):
    """initialize, tools/list, a write and a read, over stdio with the official MCP SDK."""
    params = StdioServerParameters(command=command, args=args, cwd=str(cwd), env=env)
    with tempfile.TemporaryFile("w+") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                assert init.server_info.name == "fsgate", init.server_info
                assert init.server_info.version == version(), init.server_info
                listed = await session.list_tools()
                assert {t.name for t in listed.tools} == TOOLS
                wrote = await session.call_tool("write_file", {"path": "installed.txt", "content": "yes\n"})
                assert not wrote.is_error, wrote.content
                read_back = await session.call_tool("read_file", {"path": "hello.txt"})
                assert not read_back.is_error, read_back.content
                assert read_back.content[0].text == "hello from the workspace\n"
    assert (root / "installed.txt").read_text() == "yes\n"


def install_snippet(name: str) -> tuple[str, list[str]]:
    """The command and arguments of the README's `<!-- install-snippet: NAME -->` block."""
    found = {n: (lang, body) for n, lang, body in SNIPPET.findall(README.read_text(encoding="utf-8"))}
    assert name in found, f"README.md has no install-snippet {name}; it has {sorted(found)}"
    lang, body = found[name]
    assert lang == "json", f"{name}: a {lang} block"
    server = json.loads(body)["mcpServers"]["fsgate"]
    assert ROOT_PLACEHOLDER in server["args"], server
    return server["command"], server["args"]


def with_root(args: list[str], root: Path) -> list[str]:
    return [a.replace(ROOT_PLACEHOLDER, str(root)) for a in args]


# --- the wheel ---------------------------------------------------------------------------------


def test_the_wheel_holds_the_executable_and_the_licences():
    wheel = one("wheels/fsgate-*.whl")
    assert wheel.name.startswith(f"fsgate-{version()}-py3-none-"), wheel.name
    assert wheel.name.endswith("_x86_64.whl"), wheel.name
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        script = f"fsgate-{version()}.data/scripts/fsgate"
        assert script in names, names
        assert (z.getinfo(script).external_attr >> 16) & 0o111, "the executable is not executable"
        licences = {Path(n).name for n in names if "/licenses/" in n}
        assert {"LICENSE-MIT", "LICENSE-APACHE"} <= licences, names
        metadata = z.read(f"fsgate-{version()}.dist-info/METADATA").decode()
    assert "License-Expression: MIT OR Apache-2.0" in metadata, metadata[:800]


async def test_pip_install_gives_a_working_fsgate_command(tmp_path):
    wheel = one("wheels/fsgate-*.whl")
    venv = tmp_path / "venv"
    made = run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    assert made.returncode == 0, made.stderr
    # The venv has no pip of its own: this interpreter's pip installs into it, from the wheel alone.
    installed = run(
        [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--no-index",
         "--no-deps", str(wheel)],
        env={**os.environ, "PIP_FIND_LINKS": ""},
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    fsgate = venv / "bin" / "fsgate"
    assert fsgate.is_file(), sorted(p.name for p in (venv / "bin").iterdir())

    shown = run([str(fsgate), "--version"])
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip() == f"fsgate {version()}"

    root = workspace(tmp_path)
    await handshake(str(fsgate), ["serve", "--root", str(root), "--jail", "roots"], root, cwd=tmp_path)


@pytest.fixture(scope="session")
def uv() -> Path:
    """uv from PyPI (pinned), in a venv of its own under target/: what `uvx` is."""
    venv = REPO / "target" / "uv-venv"
    exe = venv / "bin" / "uv"
    if not exe.is_file():
        made = run([sys.executable, "-m", "venv", str(venv)])
        assert made.returncode == 0, made.stderr
        got = subprocess.run(
            [str(venv / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check", "uv==0.13.8"],
            capture_output=True, text=True, timeout=600,
        )
        assert got.returncode == 0, got.stderr
    return exe


async def test_the_readme_uvx_snippet_serves_from_the_wheel(tmp_path, uv):
    """`uvx fsgate serve ...` as the README writes it, offline, the wheel's folder its only index."""
    wheel = one("wheels/fsgate-*.whl")
    command, args = install_snippet("uvx-json")
    assert command == "uvx", command
    root = workspace(tmp_path)
    env = {
        **os.environ,
        "PATH": f"{uv.parent}{os.pathsep}{os.environ['PATH']}",
        "UV_OFFLINE": "1",
        "UV_NO_INDEX": "1",
        "UV_FIND_LINKS": str(wheel.parent),
        "UV_CACHE_DIR": str(tmp_path / "uv-cache"),
        "UV_TOOL_DIR": str(tmp_path / "uv-tools"),
        "UV_PYTHON_DOWNLOADS": "never",
    }
    shown = run([shutil.which("uvx", path=env["PATH"]), "fsgate", "--version"], env=env, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip() == f"fsgate {version()}"
    await handshake(shutil.which(command, path=env["PATH"]), with_root(args, root), root, cwd=tmp_path, env=env)


# --- the npm packages --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def npm_project(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """A fresh folder with the packed fsgate and @fsgate/linux-x64 installed into it, offline from
    an empty cache (so only the tarballs can answer), and the environment npm runs in there."""
    main = one(f"npm/fsgate-{version()}.tgz")
    platform = one(f"npm/fsgate-linux-x64-{version()}.tgz")
    tmp_path = tmp_path_factory.mktemp("npm")
    project = tmp_path / "project"
    project.mkdir()
    env = {
        **os.environ,
        "npm_config_cache": str(tmp_path / "npm-cache"),
        "npm_config_offline": "true",
        "npm_config_audit": "false",
        "npm_config_fund": "false",
        "npm_config_update_notifier": "false",
    }
    installed = run(["npm", "install", "--no-save", str(platform), str(main)], cwd=project, env=env)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return project, env


def test_the_npm_packages_select_their_platform():
    main = one(f"npm/fsgate-{version()}.tgz")
    platform = one(f"npm/fsgate-linux-x64-{version()}.tgz")
    listing = run(["tar", "-tvzf", str(platform)])
    assert listing.returncode == 0, listing.stderr
    binary = [line for line in listing.stdout.splitlines() if line.endswith("package/bin/fsgate")]
    assert binary and binary[0].startswith("-rwx"), listing.stdout
    manifest = json.loads(run(["tar", "-xzOf", str(platform), "package/package.json"]).stdout)
    assert (manifest["name"], manifest["os"], manifest["cpu"]) == ("@fsgate/linux-x64", ["linux"], ["x64"])
    launcher = json.loads(run(["tar", "-xzOf", str(main), "package/package.json"]).stdout)
    assert launcher["bin"] == {"fsgate": "bin/fsgate.js"}
    assert launcher["optionalDependencies"] == {
        f"@fsgate/{p}": version() for p in ("linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64")
    }


async def test_npx_runs_the_packed_fsgate(tmp_path, npm_project):
    project, env = npm_project
    shown = run(["npx", "-y", "fsgate", "--version"], cwd=project, env=env)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip() == f"fsgate {version()}"

    command, args = install_snippet("npx-json")
    assert command == "npx", command
    root = workspace(tmp_path)
    await handshake(shutil.which("npx"), with_root(args, root), root, cwd=project, env=env)


def test_the_launcher_passes_on_exit_codes_and_output(tmp_path, npm_project):
    project, env = npm_project
    root = workspace(tmp_path)
    launcher = project / "node_modules" / ".bin" / "fsgate"
    ok = run([str(launcher), "call", "read_file", '{"path": "hello.txt"}', "--root", str(root)], env=env)
    assert (ok.returncode, ok.stdout) == (0, "hello from the workspace\n"), ok.stderr
    # A tool error is exit 1, a usage error exit 2, as from fsgate itself.
    missing = run([str(launcher), "call", "read_file", '{"path": "nope.txt"}', "--root", str(root)], env=env)
    assert missing.returncode == 1 and missing.stdout.startswith("not-found: "), (missing.returncode, missing.stdout)
    usage = run([str(launcher), "no-such-command"], env=env)
    assert usage.returncode == 2, (usage.returncode, usage.stderr)


def test_the_launcher_passes_a_stop_signal_on_and_ends_with_it(tmp_path, npm_project):
    project, env = npm_project
    root = workspace(tmp_path)
    launcher = project / "node_modules" / ".bin" / "fsgate"
    proc = subprocess.Popen(
        [str(launcher), "serve", "--root", str(root), "--jail", "roots"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
    )
    try:
        # The launcher's child is fsgate, serving: wait until it exists.
        children: list[int] = []
        deadline = time.time() + 30
        while not children and time.time() < deadline:
            children = [
                int(c)
                for task in Path(f"/proc/{proc.pid}/task").iterdir()
                for c in (task / "children").read_text().split()
            ]
            time.sleep(0.05)
        assert len(children) == 1, children
        child = children[0]
        assert Path(f"/proc/{child}/exe").resolve().name == "fsgate"
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
        assert proc.returncode == -signal.SIGTERM, (proc.returncode, proc.stderr.read())
        # fsgate itself got the signal and is gone (not left behind, orphaned).
        deadline = time.time() + 10
        while Path(f"/proc/{child}").exists() and time.time() < deadline:
            time.sleep(0.05)
        assert not Path(f"/proc/{child}").exists(), f"fsgate ({child}) outlived its launcher"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_the_launcher_names_a_missing_platform_package(tmp_path):
    """An install without optional dependencies has no executable: the launcher says which
    package is missing and how to install it, and exits 2."""
    main = one(f"npm/fsgate-{version()}.tgz")
    project = tmp_path / "project"
    project.mkdir()
    env = {**os.environ, "npm_config_cache": str(tmp_path / "npm-cache"), "npm_config_offline": "true"}
    installed = run(["npm", "install", "--no-save", "--omit=optional", str(main)], cwd=project, env=env)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    ran = run([str(project / "node_modules" / ".bin" / "fsgate"), "--version"], env=env)
    assert ran.returncode == 2, (ran.returncode, ran.stdout)
    assert ran.stderr.startswith("fsgate: not-installed: the package @fsgate/linux-x64"), ran.stderr
    assert "npm install @fsgate/linux-x64" in ran.stderr, ran.stderr
