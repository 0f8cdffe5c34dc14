"""A smoke run of bench/ray.py at a tiny size: the benchmark runs, measures both sides, loses nothing."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="the `ray` extra is part of podium[test]")

ROOT = Path(__file__).resolve().parents[2]


def test_the_ray_benchmark_runs_at_a_tiny_size() -> None:
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    run = subprocess.run(
        [sys.executable, "bench/ray.py", "--calls", "10", "--agents", "2", "--session-agents", "6", "--tells", "60",
         "--per-actor", "3"], cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
    assert run.returncode == 0, run.stderr[-2000:]
    rows = [line for line in run.stdout.splitlines() if line.startswith("| ") and "---" not in line]
    assert [row.split(" | ")[0] for row in rows] == [
        "| measure", "| tell->reply round trip (best of 7 x 10 calls)", "| start 2 agents, one actor each (best of 2)",
        "| 60 tells to 6 agents (2 actor processes)"]
    for row in rows[1:]:
        assert re.search(r"\| \d+\.\d\dx \|", row), row  # podium and bare Ray measured, and their ratio
    assert "0 lost" in rows[3] and "none lost: ok" in rows[3]
