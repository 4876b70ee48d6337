"""The sgpt profile over MCP: unified diffs from `git diff` and `diff -u` of real edits,
their line numbers scrambled, applied with the `diff` tool and compared with GNU patch's result;
search/replace patches; shell commands that time out, flood output, fail and are cancelled; a
lore search; a sub-agent stand-in; the auto/review annotations."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest

from conftest import make, serve, write_config

pytestmark = pytest.mark.anyio

SGPT = ("--profile", "sgpt")

STAND_IN = """\
import os, sys
prompt = sys.stdin.read()
print("stand-in answer")
print("model=" + os.environ.get("FSGATE_AGENT_MODEL", ""))
print("tools=" + os.environ.get("FSGATE_AGENT_TOOLS", ""))
print("args=" + " ".join(sys.argv[1:]))
print("prompt:")
print(prompt, end="")
"""


def config(tmp_path: Path, extra: str = "") -> Path:
    stand_in = tmp_path / "stand_in.py"
    stand_in.write_text(STAND_IN)
    return write_config(
        tmp_path,
        f"""
[exec_shell]
timeout_secs = 1
output_cap_chars = 3000
[lore]
libraries = ["lore"]
[agent]
command = [{json.dumps(sys.executable)}, {json.dumps(str(stand_in))}]
model_args = ["--model", "{{model}}"]
timeout_secs = 20
{extra}
""",
        "sgpt.toml",
    )


def structured(result) -> dict:
    data = result.raw.structured_content
    assert data is not None, f"no structured content: {result.text!r}"
    assert json.loads(result.text) == data, "the text block is the structured JSON"
    return data


def scramble(diff: str) -> str:
    """Every @@ line's numbers replaced by wrong ones (the optional section heading kept)."""
    return re.sub(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@", "@@ -777,2 +1,99 @@", diff, flags=re.M)


def strip_numbers(diff: str) -> str:
    return re.sub(r"^@@[^\n]*?@@", "@@", diff, flags=re.M)


def gnu_patch(original: bytes, diff: str, tmp: Path) -> bytes:
    """GNU patch's result of applying `diff` (with its true numbers) to `original`."""
    work = tmp / "patchwork"
    if work.exists():
        shutil.rmtree(work)
    work.mkdir()
    target = work / "target"
    target.write_bytes(original)
    subprocess.run(
        ["patch", "--quiet", "--binary", str(target)],
        input=diff.encode(),
        check=True,
        cwd=work,
    )
    return target.read_bytes()


SOURCE = "".join(
    f"def function_{i}(x):\n    value = x * {i}\n    return value + {i}\n\n" for i in range(1, 16)
)


def edit(text: str) -> str:
    """Real edits spread over the file: a change, an insertion, a deletion, a change at the end."""
    text = text.replace("    value = x * 2\n", "    value = x ** 2\n")
    text = text.replace("def function_6(x):\n", "def function_6(x):\n    # squared in place\n")
    text = text.replace("    return value + 9\n", "")
    text = text.replace("    return value + 15\n", "    return value - 15  # last\n")
    return text


def git_diff(tmp: Path, name: str, old: bytes, new: bytes) -> str:
    repo = tmp / "repo"
    if repo.exists():
        shutil.rmtree(repo)
    (repo / Path(name).parent).mkdir(parents=True, exist_ok=True)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "core.autocrlf=false"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / name).write_bytes(old)
    subprocess.run([*git, "add", "."], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "base"], cwd=repo, check=True)
    (repo / name).write_bytes(new)
    return subprocess.run([*git, "diff"], cwd=repo, check=True, capture_output=True).stdout.decode()


def diff_u(tmp: Path, old: bytes, new: bytes, old_name: str, new_name: str) -> str:
    scratch = tmp / "scratch"
    scratch.mkdir(exist_ok=True)
    (scratch / old_name).write_bytes(old)
    (scratch / new_name).write_bytes(new)
    out = subprocess.run(["diff", "-u", old_name, new_name], cwd=scratch, capture_output=True)
    assert out.returncode == 1, out.stderr
    return out.stdout.decode()


# ---- the tool list -----------------------------------------------------------------------------


async def test_auto_tools_are_read_only_and_review_tools_destructive(ws, tmp_path):
    async with serve(ws, config(tmp_path), SGPT) as c:
        tools = await c.tools()
    assert set(tools) == {"read_files", "search_lores", "exec_shell", "diff", "replace", "agent"}
    for name, tool in tools.items():
        auto = name in {"read_files", "search_lores"}
        assert tool.annotations.read_only_hint is auto, name
        if not auto:
            assert tool.annotations.destructive_hint is True, name
        assert tool.output_schema is not None, name


async def test_without_an_agent_command_or_a_lore_library_those_tools_are_not_listed(ws):
    async with serve(ws, None, SGPT) as c:
        tools = await c.tools()
    assert "agent" not in tools and "search_lores" not in tools and "exec_shell" in tools


# ---- diff against GNU patch --------------------------------------------------------------------


@pytest.mark.parametrize("numbers", ["scrambled", "stripped"])
async def test_git_diff_of_real_edits_matches_patch(ws, tmp_path, numbers):
    old = SOURCE.encode()
    new = edit(SOURCE).encode()
    diff = git_diff(tmp_path, "src/app.py", old, new)
    assert diff.count("\n@@") >= 3, diff
    expected = gnu_patch(old, diff, tmp_path)
    assert expected == new
    sent = scramble(diff) if numbers == "scrambled" else strip_numbers(diff)
    make(ws, {"src/app.py": old})
    async with serve(ws, config(tmp_path), SGPT) as c:
        result = structured((await c.call("diff", {"path": "src/app.py", "diff": sent})))
    assert (ws / "src/app.py").read_bytes() == expected
    assert result["path"] == "src/app.py"
    assert result["hunks_applied"] == diff.count("\n@@")
    assert "+    # squared in place" in result["diff"]


async def test_diff_u_of_scratch_copies_matches_patch_with_crlf_and_no_final_newline(ws, tmp_path):
    cases = {
        "crlf.txt": (
            SOURCE.replace("\n", "\r\n").encode(),
            edit(SOURCE).replace("\n", "\r\n").encode(),
        ),
        "tail.txt": (SOURCE.rstrip("\n").encode(), (edit(SOURCE) + "appended").encode()),
    }
    async with serve(ws, config(tmp_path), SGPT) as c:
        for name, (old, new) in cases.items():
            diff = diff_u(tmp_path, old, new, "before.txt", "after.txt")
            expected = gnu_patch(old, diff, tmp_path)
            assert expected == new
            make(ws, {name: old})
            r = await c.call("diff", {"path": name, "diff": scramble(diff)})
            assert not r.is_error, r.text
            assert (ws / name).read_bytes() == expected, name


async def test_a_failing_hunk_writes_nothing_and_names_the_hunk(ws, tmp_path):
    old = SOURCE.encode()
    diff = git_diff(tmp_path, "app.py", old, edit(SOURCE).encode())
    broken = diff.replace("\n     value = x * 6\n", "\n     value = x * six\n")
    assert broken != diff
    make(ws, {"app.py": old})
    async with serve(ws, config(tmp_path), SGPT) as c:
        r = await c.call("diff", {"path": "app.py", "diff": scramble(broken)})
        text = r.err("no-match")
    assert re.search(r"hunk \d of \d", text), text
    assert "value = x * six" in text and "closest region" in text
    assert text.endswith("Nothing was written.")
    assert (ws / "app.py").read_bytes() == old


async def test_an_ambiguous_hunk_is_refused(ws, tmp_path):
    make(ws, {"f.txt": "x\nsame\ny\nsame\nz\n"})
    async with serve(ws, config(tmp_path), SGPT) as c:
        text = (await c.call("diff", {"path": "f.txt", "diff": "@@\n-same\n+other\n"})).err("not-unique")
    assert "lines 2, 4" in text
    assert (ws / "f.txt").read_text() == "x\nsame\ny\nsame\nz\n"


async def test_headers_naming_another_file_are_refused(ws, tmp_path):
    make(ws, {"a.py": "v = 1\n", "b.py": "v = 1\n"})
    diff = "--- a/b.py\n+++ b/b.py\n@@ -1 +1 @@\n-v = 1\n+v = 2\n"
    async with serve(ws, config(tmp_path), SGPT) as c:
        text = (await c.call("diff", {"path": "a.py", "diff": diff})).err("invalid-argument")
    assert "b.py" in text
    assert (ws / "a.py").read_text() == "v = 1\n"
    assert (ws / "b.py").read_text() == "v = 1\n"


async def test_replace_applies_patches_in_order_or_nothing(ws, tmp_path):
    make(ws, {"r.txt": "alpha\r\nbeta\r\nbeta\r\n"})
    async with serve(ws, config(tmp_path), SGPT) as c:
        ok = structured(
            await c.call(
                "replace",
                {
                    "path": "r.txt",
                    "patches": [
                        {"search": "alpha\n", "replace": "ALPHA\n"},
                        {"search": "beta", "replace": "gamma", "replace_all": True},
                    ],
                },
            )
        )
        assert ok["patches_applied"] == 2
        assert (ws / "r.txt").read_bytes() == b"ALPHA\r\ngamma\r\ngamma\r\n"
        text = (
            await c.call(
                "replace",
                {"path": "r.txt", "patches": [{"search": "ALPHA", "replace": "a"}, {"search": "gamma", "replace": "g"}]},
            )
        ).err("not-unique")
    assert text.startswith("not-unique: patches[1]")
    assert (ws / "r.txt").read_bytes() == b"ALPHA\r\ngamma\r\ngamma\r\n"


async def test_read_files_returns_one_entry_per_path(ws, tmp_path):
    make(ws, {"a.txt": "A\n", "b.txt": "B\r\n"})
    async with serve(ws, config(tmp_path), SGPT) as c:
        data = structured(await c.call("read_files", {"paths": ["b.txt", "nope.txt", "a.txt"]}))
    files = data["files"]
    assert [f["path"] for f in files] == ["b.txt", "nope.txt", "a.txt"]
    assert files[0]["content"] == "B\r\n" and files[2]["content"] == "A\n"
    assert files[1]["error"].startswith("not-found:")


# ---- exec_shell --------------------------------------------------------------------------------


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def wait_gone(pid: int) -> bool:
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


async def test_a_command_that_times_out_is_killed_with_its_children(ws, tmp_path):
    async with serve(ws, config(tmp_path), SGPT) as c:
        started = time.monotonic()
        r = await c.call("exec_shell", {"command": "echo begun; sleep 60 & echo $! > child.pid; sleep 60"})
        elapsed = time.monotonic() - started
    assert r.is_error
    data = structured(r)
    assert data["exit_code"] is None
    assert data["output"] == "begun\n"
    assert "timed out after 1 s" in data["error"]
    assert elapsed < 10
    assert wait_gone(int((ws / "child.pid").read_text()))


async def test_a_flood_of_output_gives_head_tail_and_the_saved_file(ws, tmp_path):
    async with serve(ws, config(tmp_path), SGPT) as c:
        data = structured(await c.call("exec_shell", {"command": "seq 1 200000"}))
        assert data["exit_code"] == 0
        out = data["output"]
        assert len(out) <= 3000
        assert out.startswith("1\n2\n3\n") and out.endswith("199999\n200000\n")
        path = data["output_file"]
        assert path in out
        full = "".join(f"{i}\n" for i in range(1, 200001))
        assert (ws / path).read_text() == full
        head = structured(await c.call("read_files", {"paths": [path]}))["files"][0]
        assert head["content"].startswith("1\n2\n")


async def test_a_failing_command_reports_its_exit_code_and_output(ws, tmp_path):
    async with serve(ws, config(tmp_path), SGPT) as c:
        r = await c.call("exec_shell", {"command": "echo about to fail; echo oops >&2; exit 7"})
        data = structured(r)
        assert r.is_error
        assert data["exit_code"] == 7
        assert data["output"] == "about to fail\noops\n"
        assert "exited with code 7" in data["error"]
        ok = structured(await c.call("exec_shell", {"command": "pwd", "working_directory": "."}))
        assert ok == {"exit_code": 0, "output": f"{ws.resolve()}\n"}
        (await c.call("exec_shell", {"command": "pwd", "working_directory": "/"})).err("outside-root")


async def test_cancelling_the_request_kills_the_command(ws, tmp_path):
    cfg = config(tmp_path, "").read_text().replace("timeout_secs = 1\n", "timeout_secs = 60\n", 1)
    cfg_path = write_config(tmp_path, cfg, "long.toml")
    async with serve(ws, cfg_path, SGPT) as c:
        with anyio.move_on_after(1.0):
            await c.call("exec_shell", {"command": "sleep 60 & echo $! > child.pid; wait"})
        # The server is still usable, and the command is gone.
        data = structured(await c.call("exec_shell", {"command": "echo still here"}))
        assert data["output"] == "still here\n"
    assert wait_gone(int((ws / "child.pid").read_text()))


# ---- search_lores and agent -------------------------------------------------------------------


async def test_a_lore_search_ranks_title_hits_first(ws, tmp_path):
    make(
        ws,
        {
            "lore/content.md": "---\ntitle: Release checklist\n---\nTag, then deploy, deploy again.\n",
            "lore/title.md": "---\ntitle: Deploy guide\ndescription: Shipping\nlabels: [ops]\n---\nSteps.\n",
            "lore/label.md": "---\ntitle: Runbook\nlabels: [deploy, ops]\n---\nNothing here.\n",
            "lore/none.md": "---\ntitle: Unrelated\n---\nCats.\n",
        },
    )
    async with serve(ws, config(tmp_path), SGPT) as c:
        data = structured(await c.call("search_lores", {"query": "DEPLOY"}))
        lores = data["lores"]
        assert [l["title"] for l in lores] == ["Deploy guide", "Runbook", "Release checklist"]
        assert lores[0]["path"] == "lore/title.md" and lores[0]["description"] == "Shipping"
        assert lores[2]["snippets"] == [{"line": 4, "text": "Tag, then deploy, deploy again."}]
        top = structured(await c.call("search_lores", {"query": "deploy", "top_n": 1}))
        assert len(top["lores"]) == 1 and top["total_matches"] == 3
        (await c.call("search_lores", {"query": "(bad"})).err("invalid-argument")


async def test_a_sub_agent_stand_in_gets_query_files_model_and_tools(ws, tmp_path):
    make(ws, {"spec.md": "the spec\n"})
    async with serve(ws, config(tmp_path), SGPT) as c:
        data = structured(
            await c.call(
                "agent",
                {"query": "Summarise.", "files": ["spec.md"], "tools": ["read_files"], "model": "m-2", "title": "T"},
            )
        )
    answer = data["answer"]
    assert answer.startswith("stand-in answer\nmodel=m-2\ntools=read_files\nargs=--model m-2\nprompt:\nSummarise.")
    assert '<file path="spec.md">\nthe spec\n</file>' in answer
    assert data["title"] == "T"
