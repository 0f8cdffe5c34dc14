"""bench/gui.py at a tiny size: it runs end to end and reports both measures against their baselines."""

from __future__ import annotations

from pathlib import Path

from bench import gui


def test_the_gui_benchmark_runs(tmp_path: Path, capsys) -> None:
    result = gui.main(["--runs", "2", "--launches", "1", "--json-out", str(tmp_path / "gui.json")])
    assert result["runs"] == 2 and result["controls"] > 10 and result["nodes"] > result["controls"]
    for measure in ("observe", "act", "launch"):
        row = result[measure]
        assert row["podium"]["median_ms"] > 0 and row["baseline"]["median_ms"] > 0 and row["ratio"] > 0
    assert result["launch"]["proxy"]["median_ms"] > 0
    out = capsys.readouterr().out
    assert "observe" in out and "act" in out and "x  (baseline:" in out and "cost per launch" in out
    assert (tmp_path / "gui.json").read_text().startswith("{")
