"""Soak: 8 concurrent MCP sessions (4 over stdio, each its own `fsgate serve`; 4 over streamable
HTTP to one `fsgate serve --http 127.0.0.1:0`) make a given number of mixed gg calls in total —
reads, whole-file writes, edits, list_dir, tree, search, and calls that must fail (a missing
file, an edit whose text is absent). Every answer is checked against what the session knows it
wrote; any error other than the expected one fails the run. The servers' resident memory is
sampled while it runs, and must not grow: after the first 10% of the samples (warm-up), the
median of the last 10% may exceed the median of the first 10% by at most 25% plus 8 MiB.
Latencies (p50, p99, max) are reported per tool and overall.

    target/e2e-venv/bin/python tests/soak/soak.py --calls 100000      # the full soak (manual)
    target/e2e-venv/bin/python tests/soak/soak.py --calls 2000        # the suite's short run

It needs the official MCP Python SDK (`mcp`, in target/e2e-venv after ./scripts/test) and the
release binary ($FSGATE_BIN, default target/release/fsgate). Exit status 0 when every check
held; the figures are printed, and written as JSON with --json FILE.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path

import anyio
import httpx2
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

REPO = Path(__file__).resolve().parents[2]
BIN = os.environ.get("FSGATE_BIN", str(REPO / "target" / "release" / "fsgate"))
LISTENING = re.compile(r"listening on (http://\S+)")
CALL_TIMEOUT = 60.0
FILES = 8  # files each session keeps in its own folder


class Failure(Exception):
    pass


class Stats:
    def __init__(self) -> None:
        self.latencies: dict[str, list[float]] = {}
        self.expected_errors = 0
        self.done = 0
        self.budget = 0

    def take(self) -> bool:
        if self.done >= self.budget:
            return False
        self.done += 1
        return True

    def record(self, tool: str, seconds: float) -> None:
        self.latencies.setdefault(tool, []).append(seconds)


def text_of(result) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


class Session:
    """One MCP session working in its own folder, knowing what each of its files holds."""

    def __init__(self, name: str, client: ClientSession, root: Path, stats: Stats, seed: int):
        self.name = name
        self.client = client
        self.folder = name
        (root / name).mkdir()
        self.files: dict[str, str] = {}
        self.stats = stats
        self.rng = random.Random(seed)
        self.generation = 0

    async def call(self, tool: str, args: dict, expect_error: str | None = None) -> str:
        started = time.perf_counter()
        result = await self.client.call_tool(tool, args)
        self.stats.record(tool, time.perf_counter() - started)
        text = text_of(result)
        if expect_error is None:
            if result.is_error:
                raise Failure(f"{self.name}: {tool} {args} failed: {text[:300]}")
        else:
            if not result.is_error or not text.startswith(expect_error):
                raise Failure(
                    f"{self.name}: {tool} {args} should fail with {expect_error!r}: {text[:300]}"
                )
            self.stats.expected_errors += 1
        return text

    def content(self) -> str:
        self.generation += 1
        lines = self.rng.randint(1, 60)
        body = "".join(
            f"{self.name} line {i} gen {self.generation} {self.rng.random():.6f}\n"
            for i in range(lines)
        )
        return body + f"token-{self.name}-{self.generation}\n"

    async def step(self) -> None:
        rng = self.rng
        path = f"{self.folder}/f{rng.randrange(FILES)}.txt"
        known = self.files.get(path)
        roll = rng.random()
        if known is None or roll < 0.15:
            body = self.content()
            await self.call("write_file", {"path": path, "content": body})
            self.files[path] = body
        elif roll < 0.40:
            text = await self.call("read_file", {"path": path})
            if text != known:
                raise Failure(f"{self.name}: read_file {path} returned other content than written")
        elif roll < 0.55:
            token = known.rstrip("\n").rsplit("\n", 1)[-1]
            self.generation += 1
            new = f"token-{self.name}-{self.generation}"
            await self.call("edit_file", {"path": path, "old_string": token, "new_string": new})
            self.files[path] = known[: known.rindex(token)] + new + "\n"
        elif roll < 0.65:
            text = await self.call("list_dir", {"path": self.folder})
            for name in self.files:
                if name.rsplit("/", 1)[1] not in text:
                    raise Failure(f"{self.name}: list_dir misses {name}: {text[:300]}")
        elif roll < 0.72:
            await self.call("tree", {"path": self.folder, "depth": 2})
        elif roll < 0.85:
            token = known.rstrip("\n").rsplit("\n", 1)[-1]
            text = await self.call("search", {"query": token, "path": self.folder})
            if f"{path.rsplit('/', 1)[1]}:" not in text:
                raise Failure(f"{self.name}: search for {token} missed {path}: {text[:300]}")
        elif roll < 0.93:
            await self.call(
                "read_file", {"path": f"{self.folder}/missing-{rng.randrange(10**6)}.txt"},
                expect_error="not-found:",
            )
        else:
            await self.call(
                "edit_file",
                {"path": path, "old_string": "text that is never there", "new_string": "x"},
                expect_error="no-match:",
            )

    async def run(self) -> None:
        while self.stats.take():
            await self.step()


def rss_kib(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def our_fsgate_children() -> list[int]:
    """The fsgate processes this process started (the stdio servers)."""
    me = os.getpid()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
        if ppid != me:
            continue
        try:
            exe = os.readlink(f"/proc/{entry}/exe")
        except OSError:
            continue
        if exe == os.path.realpath(BIN):
            found.append(int(entry))
    return found


def percentile(sorted_values: list[float], p: float) -> float:
    if not sorted_values:
        return 0.0
    k = min(len(sorted_values) - 1, max(0, round(p / 100 * (len(sorted_values) - 1))))
    return sorted_values[k]


def memory_verdict(samples: list[int]) -> tuple[bool, float, float]:
    """(held, first MiB, last MiB): the median of the last 10% against the first 10% after the
    first 10% (warm-up)."""
    if len(samples) < 20:
        return True, 0.0, 0.0
    tenth = max(1, len(samples) // 10)
    warm = samples[tenth:]
    first = statistics.median(warm[:tenth]) / 1024
    last = statistics.median(warm[-tenth:]) / 1024
    return last <= first * 1.25 + 8, first, last


async def soak(args) -> dict:
    stats = Stats()
    stats.budget = args.calls
    samples: dict[str, list[int]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ws"
        root.mkdir()
        logs = Path(tmp) / "logs"
        logs.mkdir()
        http_log = open(logs / "http.log", "w+")
        http = subprocess.Popen(
            [BIN, "serve", "--root", str(root), "--http", "127.0.0.1:0"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=http_log,
        )
        try:
            url = None
            deadline = time.time() + 15
            while url is None and time.time() < deadline:
                m = LISTENING.search((logs / "http.log").read_text())
                url = m.group(1) if m else None
                if url is None:
                    await anyio.sleep(0.05)
            if url is None:
                raise Failure("the HTTP server did not say where it listens")
            async with AsyncExitStack() as stack:
                sessions: list[Session] = []
                for i in range(args.stdio):
                    errlog = stack.enter_context(open(logs / f"stdio{i}.log", "w+"))
                    params = StdioServerParameters(command=BIN, args=["serve", "--root", str(root)])
                    read, write = await stack.enter_async_context(stdio_client(params, errlog=errlog))
                    client = await stack.enter_async_context(
                        ClientSession(read, write, read_timeout_seconds=CALL_TIMEOUT)
                    )
                    await client.initialize()
                    sessions.append(Session(f"stdio{i}", client, root, stats, args.seed + i))
                for i in range(args.http):
                    hc = await stack.enter_async_context(httpx2.AsyncClient(timeout=CALL_TIMEOUT))
                    streams = await stack.enter_async_context(streamable_http_client(url, http_client=hc))
                    client = await stack.enter_async_context(
                        ClientSession(streams[0], streams[1], read_timeout_seconds=CALL_TIMEOUT)
                    )
                    await client.initialize()
                    sessions.append(Session(f"http{i}", client, root, stats, args.seed + 100 + i))
                stdio_pids = [p for p in our_fsgate_children() if p != http.pid]
                if len(stdio_pids) != args.stdio:
                    raise Failure(f"found {len(stdio_pids)} stdio servers to sample, not {args.stdio}")
                pids = {f"stdio-server-{k}": pid for k, pid in enumerate(stdio_pids)}
                pids["http-server"] = http.pid
                for name in pids:
                    samples[name] = []

                finished = anyio.Event()

                async def sampler():
                    while not finished.is_set():
                        for name, pid in pids.items():
                            kib = rss_kib(pid)
                            if kib is not None:
                                samples[name].append(kib)
                        with anyio.move_on_after(args.sample_every):
                            await finished.wait()

                started = time.perf_counter()
                failure: list[BaseException] = []

                async def guarded(session: Session):
                    try:
                        await session.run()
                    except BaseException as e:  # noqa: BLE001 - reported below
                        failure.append(e)
                        stats.budget = stats.done  # stop the others

                async with anyio.create_task_group() as tg:
                    tg.start_soon(sampler)
                    async with anyio.create_task_group() as workers:
                        for s in sessions:
                            workers.start_soon(guarded, s)
                    finished.set()
                elapsed = time.perf_counter() - started
                if failure:
                    raise failure[0]
        finally:
            http.kill()
            http.wait()
            http_log.close()

    every = sorted(x for v in stats.latencies.values() for x in v)
    report = {
        "calls": stats.done,
        "sessions": {"stdio": args.stdio, "http": args.http},
        "seconds": round(elapsed, 1),
        "calls_per_second": round(stats.done / elapsed, 1),
        "expected_errors": stats.expected_errors,
        "latency_ms": {
            "all": {
                "p50": round(percentile(every, 50) * 1000, 2),
                "p99": round(percentile(every, 99) * 1000, 2),
                "max": round(every[-1] * 1000, 2),
            },
            **{
                tool: {
                    "calls": len(v),
                    "p50": round(percentile(sorted(v), 50) * 1000, 2),
                    "p99": round(percentile(sorted(v), 99) * 1000, 2),
                }
                for tool, v in sorted(stats.latencies.items())
            },
        },
        "rss_mib": {},
    }
    grew = []
    for name, values in samples.items():
        held, first, last = memory_verdict(values)
        report["rss_mib"][name] = {
            "samples": len(values),
            "first": round(first, 1),
            "last": round(last, 1),
            "peak": round(max(values, default=0) / 1024, 1),
        }
        if not held:
            grew.append(f"{name}: {first:.1f} MiB -> {last:.1f} MiB")
    if grew:
        raise Failure("resident memory grew: " + "; ".join(grew) + f"\n{json.dumps(report, indent=1)}")
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--stdio", type=int, default=4)
    parser.add_argument("--http", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sample-every", type=float, default=0.25, help="seconds between RSS samples")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    try:
        report = anyio.run(soak, args)
    except Failure as e:
        print(f"soak FAILED: {e}", file=sys.stderr)
        return 1
    print(json.dumps(report, indent=1))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
