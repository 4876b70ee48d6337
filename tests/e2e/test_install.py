"""`cargo install --path crates/cli`, as the README tells a user to run it, installs a working
`fsgate`: its version is the workspace's, and it lists and calls the default profile's tools.

The install shares this repository's target folder, so after the release build of `scripts/test`
it relinks nothing and takes seconds (a cold install compiles everything: several minutes on two
cores). Set FSGATE_INSTALL_TEST=0 to leave it out.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tomllib

import pytest

from conftest import ALL_TOOLS, REPO

CARGO = shutil.which("cargo")

pytestmark = [
    pytest.mark.skipif(CARGO is None, reason="cargo is not on the PATH"),
    pytest.mark.skipif(os.environ.get("FSGATE_INSTALL_TEST") == "0", reason="FSGATE_INSTALL_TEST=0"),
]


def workspace_version() -> str:
    manifest = tomllib.loads((REPO / "Cargo.toml").read_text(encoding="utf-8"))
    return manifest["workspace"]["package"]["version"]


def test_cargo_install_gives_a_working_fsgate(tmp_path):
    root = tmp_path / "install-root"
    env = {**os.environ, "CARGO_TARGET_DIR": os.environ.get("CARGO_TARGET_DIR", str(REPO / "target"))}
    install = subprocess.run(
        [CARGO, "install", "--path", str(REPO / "crates" / "cli"), "--root", str(root), "--locked", "--offline"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert install.returncode == 0, install.stderr[-4000:]
    fsgate = root / "bin" / "fsgate"
    assert fsgate.is_file(), sorted(p.name for p in root.rglob("*"))

    version = subprocess.run([fsgate, "--version"], capture_output=True, text=True, timeout=30)
    assert version.returncode == 0, version.stderr
    assert version.stdout.strip() == f"fsgate {workspace_version()}"

    schema = subprocess.run([fsgate, "schema"], capture_output=True, text=True, timeout=30)
    assert schema.returncode == 0, schema.stderr
    assert {tool["name"] for tool in json.loads(schema.stdout)} == ALL_TOOLS

    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "hello.txt").write_text("installed\n")
    call = subprocess.run(
        [fsgate, "call", "read_file", '{"path": "hello.txt"}', "--root", str(ws)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert call.returncode == 0, call.stderr
    assert call.stdout == "installed\n"
