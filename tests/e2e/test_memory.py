"""A 1 GB file read by its last window: the content and footer are right, and the server's peak
resident memory (VmHWM) stays under 64 MB, because a window streams the file rather than
loading it. Size from $FSGATE_E2E_BIG_MB (default 1024)."""

import os
import re
import shutil
import subprocess

import pytest

from conftest import serve, split_footer

pytestmark = pytest.mark.anyio

PEAK_LIMIT_KB = 64 * 1024


def lines_for_bytes(target: int) -> tuple[int, int]:
    """The N for which the lines `1\\n` .. `N\\n` first reach target bytes, and their size."""
    n, size, digits = 0, 0, 1
    while True:
        band = 9 * 10 ** (digits - 1)  # numbers with this many digits
        per = digits + 1
        if size + band * per >= target:
            extra = -(-(target - size) // per)
            return n + extra, size + extra * per
        n += band
        size += band * per
        digits += 1


def write_numbered(path, n: int) -> None:
    if shutil.which("seq"):
        with open(path, "wb") as f:
            subprocess.run(["seq", "1", str(n)], stdout=f, check=True)
        return
    chunk = 1_000_000
    with open(path, "w", buffering=16 * 1024 * 1024) as f:
        for a in range(1, n + 1, chunk):
            f.write("\n".join(map(str, range(a, min(a + chunk, n + 1)))))
            f.write("\n")


def vm_hwm_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        m = re.search(r"^VmHWM:\s+(\d+)\s+kB", f.read(), re.M)
    assert m, "no VmHWM in /proc status"
    return int(m.group(1))


def expected_lines(a: int, b: int) -> str:
    return "".join(f"{i}\n" for i in range(a, b + 1))


@pytest.fixture
def big_file(tmp_path):
    mb = int(os.environ.get("FSGATE_E2E_BIG_MB", "1024"))
    n, size = lines_for_bytes(mb * 1024 * 1024)
    ws = tmp_path / "ws"
    ws.mkdir()
    path = ws / "big.txt"
    try:
        write_numbered(path, n)
        assert path.stat().st_size == size
        yield ws, path, n
    finally:
        path.unlink(missing_ok=True)


async def test_last_window_of_a_huge_file_in_bounded_memory(big_file):
    ws, path, n = big_file
    async with serve(ws) as c:
        pid = c.pid()
        first = (await c.call("read_file", {"path": "big.txt"})).ok()
        body, footer = split_footer(first)
        assert footer == f"[showing lines 1-2000 of {n}; continue with offset: 2001]"
        assert body == expected_lines(1, 2000)
        total = int(re.search(r" of (\d+);", footer).group(1))

        start = total - 99
        last = (await c.call("read_file", {"path": "big.txt", "offset": start})).ok()
        body, footer = split_footer(last)
        assert footer == f"[showing lines {start}-{total} of {total}]"
        assert body == expected_lines(start, total)

        mid = total // 2
        window = (await c.call("read_file", {"path": "big.txt", "offset": mid, "limit": 10})).ok()
        body, footer = split_footer(window)
        assert footer == f"[showing lines {mid}-{mid + 9} of {total}; continue with offset: {mid + 10}]"
        assert body == expected_lines(mid, mid + 9)

        err = (await c.call("read_file", {"path": "big.txt", "offset": total + 1})).err()
        assert str(total) in err or f"{total:,}" in err

        hits = (await c.call("search", {"query": f"^{total}$|^{total - 1}\\b", "path": "big.txt", "limit": 5})).ok()
        assert f"big.txt:{total - 1}:{total - 1}" in hits.split("\n")

        peak = vm_hwm_kb(pid)
        print(f"fsgate pid {pid} VmHWM {peak} kB")
        assert peak < PEAK_LIMIT_KB, f"server peak memory {peak} kB >= 64 MB"
