"""The embedded model's benchmarks run end to end at a tiny size on the small test model: what they print
is what the README's tables are made of."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def bench(script: str, *args: str, timeout: float = 420) -> str:
    env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}
    out = subprocess.run([sys.executable, str(ROOT / "bench" / script), *args], capture_output=True, text=True,
                         timeout=timeout, cwd=ROOT, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def test_seed_local_reports_reads_cache_writes_and_time_against_its_baseline(small_model):
    out = bench("seed_local.py", "--model", f"local:{small_model}", "--runs", "1", "--max-steps", "2", "--compare",
                "--warm")
    ahead = re.search(r"podium warm: [\d,]+ tokens read in [\d.]+ s \(.*\): (.*)", out)
    assert ahead and re.fullmatch(r"host (kept|held) \([\d,]+ tokens\), app-documents (kept|held) .*, "
                                  r"app-spreadsheets (kept|held) \([\d,]+ tokens\)", ahead.group(1)), out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if re.match(r"(podium|baseline)\s+1 ", line)}
    assert set(rows) == {"podium", "baseline"}, out
    for config, row in rows.items():
        calls, read, cached, written = (int(x) for x in row[4:8])
        read_s, write_s, podium_s, seconds = (float(x) for x in row[8:12])
        assert calls >= 1 and read > 0 and written > 0 and 0 <= cached <= read, (config, row)
        assert read_s > 0 and write_s > 0 and 0 <= podium_s <= seconds, (config, row)
    assert re.search(r"podium: \d of 1 runs passed; .* tokens read \(\d+% from cache\)", out)
    assert re.search(r"baseline / podium: end to end x[\d.]+, reading x[\d.]+, writing x[\d.]+", out)


def test_models_reports_decoding_with_and_without_prompt_lookup(small_model):
    out = bench("models.py", "--only", "small", "--plans", "1", "--copy-rows", "2", "--free-tokens", "16")
    assert "| small |" in out
    lookup = {m.group(1): m.group(0) for m in re.finditer(r"\| small \| (copy|free) \|[^\n]*", out)}
    assert set(lookup) == {"copy", "free"}, out
    for line in lookup.values():
        plain, guessed = (float(x) for x in re.findall(r"\| ([\d.]+) ", line)[:2])
        assert plain > 0 and guessed > 0, line
