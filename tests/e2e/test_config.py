"""Capabilities switched off one by one, agents' allowlists, and the configuration refusal that
names every bad value at once (gg's capabilities table and read modes)."""

import subprocess

import pytest
from conftest import ALL_TOOLS, FSGATE_BIN, make, run_serve_expect_refusal, serve, write_config

try:  # the SDK's protocol-error class (its name differs between SDK versions)
    from mcp.shared.exceptions import MCPError as ProtocolError
except ImportError:  # pragma: no cover
    from mcp.shared.exceptions import McpError as ProtocolError

pytestmark = pytest.mark.anyio

GOOD_READ = """
[capabilities.read-file]
enabled = true
implementation = "default-cap"
params = { lineCap = 250 }
"""


async def assert_refused(c, tool, args):
    """A call to a tool that is not offered: an isError result or an MCP error both count."""
    try:
        r = await c.call(tool, args)
    except ProtocolError:
        return
    assert r.is_error, f"{tool} was not refused: {r.text!r}"


async def test_fresh_configuration_enables_all_five_capabilities(ws, tmp_path):
    async with serve(ws, write_config(tmp_path, "")) as c:
        assert set(await c.tools()) == ALL_TOOLS
    async with serve(ws, write_config(tmp_path, GOOD_READ, "good.toml")) as c:
        assert set(await c.tools()) == ALL_TOOLS


async def test_disabled_write_file_is_absent_and_refused(ws, tmp_path):
    cfg = write_config(tmp_path, GOOD_READ + "\n[capabilities.write-file]\nenabled = false\n")
    async with serve(ws, cfg) as c:
        assert set(await c.tools()) == ALL_TOOLS - {"write_file"}
        await assert_refused(c, "write_file", {"path": "x.txt", "content": "x"})
        make(ws, {"f.txt": "a\n"})
        (await c.call("edit_file", {"path": "f.txt", "old_string": "a", "new_string": "b"})).ok()
    assert not (ws / "x.txt").exists()


@pytest.mark.parametrize(
    "cap,gone",
    [
        ("edit-file", {"edit_file"}),
        ("list-dir", {"list_dir", "tree"}),
        ("search", {"search"}),
    ],
)
async def test_each_capability_switches_off_alone(ws, tmp_path, cap, gone):
    make(ws, {"f.txt": "a\n"})
    cfg = write_config(tmp_path, f"[capabilities.{cap}]\nenabled = false\n")
    async with serve(ws, cfg) as c:
        assert set(await c.tools()) == ALL_TOOLS - gone
        for tool in gone:
            args = {"query": "a"} if tool == "search" else {"path": "f.txt", "old_string": "a", "new_string": "b"} if tool == "edit_file" else {}
            await assert_refused(c, tool, args)
    assert (ws / "f.txt").read_text() == "a\n"


async def test_disabled_read_file(ws, tmp_path):
    make(ws, {"f.txt": "a\n"})
    cfg = write_config(tmp_path, GOOD_READ.replace("enabled = true", "enabled = false"))
    async with serve(ws, cfg) as c:
        assert set(await c.tools()) == ALL_TOOLS - {"read_file"}
        await assert_refused(c, "read_file", {"path": "f.txt"})


async def test_agent_allowlist_offers_only_its_tools(ws, tmp_path):
    make(ws, {"f.txt": "hit\n"})
    cfg = write_config(tmp_path, GOOD_READ + '\n[agents.reviewer]\nallow = ["read_file", "tree", "search"]\n')
    async with serve(ws, cfg, ["--agent", "reviewer"]) as c:
        assert set(await c.tools()) == {"read_file", "tree", "search"}
        assert (await c.call("read_file", {"path": "f.txt"})).ok() == "hit\n"
        assert "f.txt" in (await c.call("tree", {})).ok()
        assert "f.txt:1:hit" in (await c.call("search", {"query": "hit"})).ok()
        await assert_refused(c, "write_file", {"path": "g.txt", "content": "x"})
        await assert_refused(c, "edit_file", {"path": "f.txt", "old_string": "hit", "new_string": "x"})
        await assert_refused(c, "list_dir", {})
    assert not (ws / "g.txt").exists()
    assert (ws / "f.txt").read_text() == "hit\n"
    async with serve(ws, cfg) as c:  # without --agent, everything
        assert set(await c.tools()) == ALL_TOOLS


async def test_allowlist_cannot_give_a_disabled_capabilitys_call(ws, tmp_path):
    cfg = write_config(
        tmp_path,
        GOOD_READ
        + "\n[capabilities.write-file]\nenabled = false\n"
        + '\n[agents.writer]\nallow = ["read_file", "write_file", "list_dir"]\n',
    )
    async with serve(ws, cfg, ["--agent", "writer"]) as c:
        assert set(await c.tools()) == {"read_file", "list_dir"}
        await assert_refused(c, "write_file", {"path": "x.txt", "content": "x"})
    assert not (ws / "x.txt").exists()


async def test_allowlist_picks_single_calls_of_a_capability(ws, tmp_path):
    cfg = write_config(tmp_path, '[agents.lister]\nallow = ["list_dir"]\n')
    async with serve(ws, cfg, ["--agent", "lister"]) as c:
        assert set(await c.tools()) == {"list_dir"}
        await assert_refused(c, "tree", {})


# ---- refusals --------------------------------------------------------------------------------

BAD_CONFIGS = {
    "absent-lineCap": (
        '[capabilities.read-file]\nenabled = true\nimplementation = "default-cap"\n',
        ["lineCap"],
    ),
    "absent-lineCap-unlimited": (
        '[capabilities.read-file]\nenabled = true\nimplementation = "unlimited"\n',
        ["lineCap"],
    ),
    "empty-params": (
        '[capabilities.read-file]\nenabled = true\nimplementation = "default-cap"\nparams = {}\n',
        ["lineCap"],
    ),
    "lineCap-zero": (
        '[capabilities.read-file]\nenabled = true\nimplementation = "default-cap"\nparams = { lineCap = 0 }\n',
        ["lineCap", "0"],
    ),
    "lineCap-abc": (
        '[capabilities.read-file]\nenabled = true\nimplementation = "default-cap"\nparams = { lineCap = "abc" }\n',
        ["lineCap", "abc"],
    ),
    "lineCap-negative": (
        '[capabilities.read-file]\nenabled = true\nimplementation = "unlimited"\nparams = { lineCap = -5 }\n',
        ["lineCap", "-5"],
    ),
    "lineCap-fraction": (
        '[capabilities.read-file]\nenabled = true\nimplementation = "default-cap"\nparams = { lineCap = 2.5 }\n',
        ["lineCap", "2.5"],
    ),
    "lineCap-bool": (
        '[capabilities.read-file]\nenabled = true\nimplementation = "default-cap"\nparams = { lineCap = true }\n',
        ["lineCap", "true"],
    ),
    "implementation-capped": (
        '[capabilities.read-file]\nenabled = true\nimplementation = "capped"\nparams = { lineCap = 250 }\n',
        ["capped", "unlimited", "default-cap"],
    ),
    "unknown-capability": (
        GOOD_READ + "\n[capabilities.serach]\nenabled = true\n",
        ["serach"],
    ),
    "unknown-top-key": (
        'colour = "blue"\n' + GOOD_READ,
        ["colour"],
    ),
    "unknown-capability-key": (
        GOOD_READ + "\n[capabilities.search]\nenabeld = true\n",
        ["enabeld"],
    ),
    "unknown-param": (
        '[capabilities.read-file]\nenabled = true\nimplementation = "default-cap"\nparams = { lineCap = 250, lineCapp = 3 }\n',
        ["lineCapp"],
    ),
    "not-toml": ("[capabilities.read-file\nenabled = \n", []),
    "vision-not-bool": ('[model]\nvision = "no"\n', ["vision"]),
    "enabled-not-bool": ('[capabilities.search]\nenabled = "yes"\n', ["enabled"]),
    "allow-unknown-tool": ('[agents.bot]\nallow = ["read_file", "reed_file"]\n', ["reed_file"]),
}


def check_refused(proc: subprocess.CompletedProcess, needles: list[str]):
    assert proc.returncode != 0, f"serve started with a bad configuration: {proc.stderr!r}"
    for n in needles:
        assert n in proc.stderr, f"stderr does not name {n!r}: {proc.stderr!r}"


@pytest.mark.parametrize("name", list(BAD_CONFIGS))
def test_bad_configuration_refuses_the_launch(ws, tmp_path, name):
    text, needles = BAD_CONFIGS[name]
    cfg = write_config(tmp_path, text, f"{name}.toml")
    check_refused(run_serve_expect_refusal(ws, cfg), needles)


def test_refusal_names_every_bad_value_at_once(ws, tmp_path):
    cfg = write_config(
        tmp_path,
        """
colour = "blue"
[capabilities.read-file]
enabled = true
implementation = "capped"
params = { lineCap = 0 }
[capabilities.serach]
enabled = true
[capabilities.write-file]
enabeld = false
""",
    )
    proc = run_serve_expect_refusal(ws, cfg)
    check_refused(proc, ["colour", "capped", "unlimited", "default-cap", "lineCap", "serach", "enabeld"])


def test_refusal_names_both_lineCap_and_implementation(ws, tmp_path):
    cfg = write_config(
        tmp_path,
        '[capabilities.read-file]\nenabled = true\nimplementation = "paged"\nparams = { lineCap = "abc" }\n',
    )
    check_refused(run_serve_expect_refusal(ws, cfg), ["paged", "abc", "unlimited", "default-cap"])


def test_missing_configuration_file_refuses_the_launch(ws, tmp_path):
    proc = run_serve_expect_refusal(ws, tmp_path / "does-not-exist.toml")
    assert proc.returncode != 0
    assert "does-not-exist.toml" in proc.stderr


def test_good_configuration_starts(ws, tmp_path):
    # with stdin at EOF a started server just ends; it must not complain about the config
    cfg = write_config(tmp_path, GOOD_READ)
    proc = run_serve_expect_refusal(ws, cfg)
    assert "lineCap" not in proc.stderr


def check_config(path) -> subprocess.CompletedProcess:
    return subprocess.run([FSGATE_BIN, "check-config", str(path)], capture_output=True, text=True, timeout=30)


def test_check_config_accepts_a_good_file(tmp_path):
    cfg = write_config(
        tmp_path,
        GOOD_READ
        + "\n[capabilities.write-file]\nenabled = false\n"
        + '\n[agents.reviewer]\nallow = ["read_file", "tree", "search"]\n'
        + "\n[model]\nvision = false\n",
    )
    proc = check_config(cfg)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("name", ["absent-lineCap", "lineCap-zero", "lineCap-abc", "implementation-capped", "unknown-capability", "unknown-top-key"])
def test_check_config_exits_2_naming_the_problem(tmp_path, name):
    text, needles = BAD_CONFIGS[name]
    proc = check_config(write_config(tmp_path, text, f"{name}.toml"))
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    out = proc.stdout + proc.stderr
    for n in needles:
        assert n in out, out
