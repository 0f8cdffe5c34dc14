"""bench/tracing.py at a tiny size: the benchmark still runs the example untraced and traced, end to end."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).parents[2] / "bench" / "tracing.py"


def test_the_tracing_benchmark_runs_at_a_tiny_size() -> None:
    done = subprocess.run([sys.executable, str(BENCH), "--runs", "1", "--rounds", "1"], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    spans = re.search(r"(\d+) spans a traced run", done.stdout)
    assert spans is not None and int(spans.group(1)) > 20, done.stdout
    ratios = re.findall(r"^(untraced|traced, .+?)\s+[\d.]+\s+[\d.]+\s+([\d.]+)x\s+([\d.]+)x$", done.stdout, re.M)
    assert [name for name, _, _ in ratios] == ["untraced", "traced, no text (in memory)",
                                               "traced, with text (JSON lines file)"], done.stdout
    assert ratios[0][1:] == ("1.00", "1.00")
