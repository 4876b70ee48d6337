"""gg read_file of large files over MCP: what counting the lines behind the footer costs follows
the window and read-file's count budget (countBudgetBytes / countBudgetMs), not the file. A sparse
file's holes are skipped, a count past its budget answers `of at least N` and later reads converge
on the exact total, and a long count sends progress and stops when the call is cancelled."""

import re
import time

import anyio
import pytest

from conftest import serve, split_footer, write_config

pytestmark = pytest.mark.anyio


def budget_config(tmp_path, **params):
    shown = ", ".join(f"{k} = {v}" for k, v in {"lineCap": 100, **params}.items())
    return write_config(tmp_path, f"[capabilities.read-file]\nparams = {{ {shown} }}\n",
                        name="budget.toml")


def line(n: int) -> bytes:
    return b"line %010d\n" % n


def write_dense(path, mib: int) -> int:
    """`mib` MiB of 16-byte numbered lines; returns their count."""
    n = (mib << 20) // 16
    block = 65536
    with open(path, "wb") as f:
        for a in range(1, n + 1, block):
            f.write(b"".join(line(i) for i in range(a, min(a + block, n + 1))))
    return n


def at_least(footer: str):
    m = re.search(r" of at least (\d+);", footer)
    return int(m.group(1)) if m else None


def settle():
    """Past the time the line index waits for a file to settle before it keeps its count."""
    time.sleep(0.25)


async def test_a_10_gib_sparse_file_is_read_at_once_on_a_one_second_budget(ws, tmp_path):
    path = ws / "sparse.txt"
    size, step = 10 << 30, 4 << 20
    lines = 1000
    with open(path, "wb") as f:
        f.write(b"".join(line(i) for i in range(1, lines + 1)))
        at = step
        while at < size - step:
            f.seek(at)
            f.write(b"\nfar out\n")
            lines += 2
            at += step
        f.seek(size - 6)
        f.write(b"\nlast\n")
        lines += 2
    settle()
    try:
        async with serve(ws, budget_config(tmp_path, countBudgetMs=1000)) as c:
            t0 = time.monotonic()
            text = (await c.call("read_file", {"path": "sparse.txt", "limit": 10})).ok()
            first = time.monotonic() - t0
            body, footer = split_footer(text)
            assert body == b"".join(line(i) for i in range(1, 11)).decode()
            # Exact where the filesystem reports holes; else the count stopped after a second.
            n = at_least(footer)
            if n is None:
                assert footer == f"[showing lines 1-10 of {lines}; continue with offset: 11]"
            else:
                assert footer == f"[showing lines 1-10 of at least {n}; continue with offset: 11]"
                assert 11 <= n <= lines
            assert first < 5, f"the first window took {first:.2f} s"
            t0 = time.monotonic()
            text = (await c.call("read_file", {"path": "sparse.txt", "offset": 991, "limit": 5})).ok()
            later = time.monotonic() - t0
            body, footer = split_footer(text)
            assert body == b"".join(line(i) for i in range(991, 996)).decode()
            assert footer.startswith("[showing lines 991-995 of ") and footer.endswith("; continue with offset: 996]")
            assert later < 2, f"a later window took {later:.2f} s"
    finally:
        path.unlink(missing_ok=True)


async def test_a_count_past_its_budget_says_at_least_and_later_reads_converge(ws, tmp_path):
    n = write_dense(ws / "big.txt", 16)
    settle()
    async with serve(ws, budget_config(tmp_path, countBudgetBytes=2 << 20)) as c:
        known, reads = 0, 0
        while True:
            offset = 1 + reads * 100
            text = (await c.call("read_file", {"path": "big.txt", "offset": offset, "limit": 1})).ok()
            reads += 1
            body, footer = split_footer(text)
            assert body == line(offset).decode()
            m = at_least(footer)
            if m is None:
                assert footer == f"[showing lines {offset}-{offset} of {n}; continue with offset: {offset + 1}]"
                break
            assert footer == f"[showing lines {offset}-{offset} of at least {m}; continue with offset: {offset + 1}]"
            assert m > known, f"read {reads} counted nothing more"
            known = m
            assert reads < 40
        assert reads >= 8, f"16 MiB on a 2 MiB budget took {reads} reads"


async def test_a_long_count_reports_progress_and_stops_when_cancelled(ws, tmp_path):
    n = write_dense(ws / "big.txt", 512)
    settle()
    try:
        async with serve(ws) as c:
            reports = []
            cancelled = anyio.Event()

            async def on_progress(progress, total, message):
                reports.append((progress, total, message))
                cancelled.set()

            with anyio.CancelScope() as scope:
                async with anyio.create_task_group() as tg:
                    async def read():
                        await c.session.call_tool("read_file", {"path": "big.txt"},
                                                  progress_callback=on_progress)
                    tg.start_soon(read)
                    with anyio.fail_after(60):
                        await cancelled.wait()
                    scope.cancel()
            assert reports, "no notifications/progress during the count"
            size = 512 << 20
            for (done, total, message) in reports:
                assert total == size and 0 < done <= size
                assert message.endswith(" bytes counted"), message
            # The server answers the next call, and the count goes on from where it stopped.
            text = (await c.call("read_file", {"path": "big.txt", "limit": 2})).ok()
            assert split_footer(text)[1] == f"[showing lines 1-2 of {n}; continue with offset: 3]"
    finally:
        (ws / "big.txt").unlink(missing_ok=True)
