"""bench/makespan.py at a tiny size: the benchmark still runs end to end on the real host and session."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).parents[2] / "bench" / "makespan.py"


def test_makespan_runs_at_a_tiny_size() -> None:
    done = subprocess.run([sys.executable, str(BENCH), "--graphs", "1", "--subtasks", "3", "--step", "0.005",
                           "--planner", "0.005"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "makespan / lower bound: median" in done.stdout and done.stdout.count("speed-up over one at a time") == 2
