"""The runner with the real `podium run` (python -m podium.cli) and the seed example's scripted model:
the flags the runner passes, the summary it reads, the checker on real output. No model is called."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from bench.tasks import run

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_SCRIPT = ROOT / "examples" / "quarterly" / "scripted.json"


def test_the_real_command_line_on_a_scripted_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PODIUM_HOME", str(tmp_path / "home"))  # no user config or journal touched
    monkeypatch.chdir(tmp_path)
    podium = shlex.join([sys.executable, "-m", "podium.cli"])
    out = tmp_path / "report.json"
    assert run.main(["--model", f"scripted:{EXAMPLE_SCRIPT}", "--podium", podium, "--only", "seed_bar_chart",
                     "--json-out", str(out), "--timeout", "120"]) == 0
    result = {r["task"]: r for r in json.loads(out.read_text())["tasks"]}["seed_bar_chart"]
    assert result["passed"], (result["reason"], result["log_tail"])
    assert result["status"] == "FINISH" and result["model_calls"] and result["tokens"] and result["session"]
