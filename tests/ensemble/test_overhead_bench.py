"""A smoke run of bench/overhead.py at a tiny size: it measures podium and the bare asyncio baseline in
the same run (wall and CPU time) and prints their ratio, and the memory of idle agents."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_overhead_benchmark_runs_at_a_tiny_size() -> None:
    run = subprocess.run([sys.executable, "bench/overhead.py", "-n", "50", "--agents", "200"], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    for head in ("| tell->reply round trip", "| the same, CPU time per call"):
        trip = next(line for line in run.stdout.splitlines() if line.startswith(head))
        assert re.search(r"\| [\d.]+ µs \| bare asyncio 2-queue [\d.]+ µs \| [\d.]+x \|", trip), trip
    memory = next(line for line in run.stdout.splitlines() if line.startswith("| memory per idle agent"))
    assert re.search(r"\(200 in one session\) \| [\d.]+ KB \|", memory), memory
