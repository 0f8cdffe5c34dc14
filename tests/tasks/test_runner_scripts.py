"""The runner's scripted replays: `--record-scripts DIR` writes each task's run as DIR/<task>.json through the
real `podium script`; `--scripts DIR` plays each task from its script with no compensation rules, in the
configuration the task would have run with, and lists the tasks that have none instead of failing them."""

from __future__ import annotations

import json
import shlex
import sys
import tomllib
from pathlib import Path

import pytest
from bench.tasks import run
from bench.tasks.runner import scripted_config
from bench.tasks.suite import gui

from podium.cli.config import load_config
from podium.cli.script import load_script

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_SCRIPT = ROOT / "examples" / "quarterly" / "scripted.json"
PODIUM = shlex.join([sys.executable, "-m", "podium.cli"])
FAKE = shlex.join([sys.executable, str(Path(__file__).with_name("fake_podium.py"))])


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PODIUM_HOME", str(tmp_path / "home"))  # no user config or journal touched
    monkeypatch.chdir(tmp_path)
    return tmp_path / "home"


def suite(tmp_path: Path, name: str, *args: str) -> dict:
    out = tmp_path / f"{name}.json"
    assert run.main([*args, "--json-out", str(out), "--timeout", "120"]) == 0
    return json.loads(out.read_text())


def test_record_then_play_the_scripts(home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scripts = tmp_path / "scripts"
    recorded = suite(tmp_path, "recorded", "--model", f"scripted:{EXAMPLE_SCRIPT}", "--podium", PODIUM,
                     "--only", "seed_bar_chart", "--record-scripts", str(scripts))
    (result,) = recorded["tasks"]
    assert result["passed"] and result["script"] == str(scripts / "seed_bar_chart.json"), result
    assert recorded["record_scripts"] == str(scripts)
    script = load_script(scripts / "seed_bar_chart.json")
    assert result["session"] in json.loads((scripts / "seed_bar_chart.json").read_text())["note"]
    assert [a["Status"] for a in script.planner] == ["ASSIGN", "FINISH"]
    assert f"script: {scripts / 'seed_bar_chart.json'}" in capsys.readouterr().out

    played = suite(tmp_path, "played", "--scripts", str(scripts), "--podium", PODIUM,
                   "--only", "seed_bar_chart", "doc_table_to_sheet")
    assert [r["task"] for r in played["tasks"]] == ["seed_bar_chart"]
    assert played["unscripted"] == ["doc_table_to_sheet"] and played["scripts"] == str(scripts.resolve())
    assert played["totals"]["passed"] == played["totals"]["tasks"] == 1
    (replayed,) = played["tasks"]
    assert replayed["status"] == "FINISH" and replayed["model_calls"] == result["model_calls"]
    assert replayed["script"] == str(scripts.resolve() / "seed_bar_chart.json")
    shown = capsys.readouterr().out
    assert "no script in" in shown and "left out: doc_table_to_sheet" in shown
    assert "passed 1 of 1 tasks (100%)" in shown


def test_a_run_without_a_record_writes_no_script(home: Path, tmp_path: Path) -> None:
    report = suite(tmp_path, "crashed", "--model", "fake:crash", "--podium", FAKE, "--only", "sum_column",
                   "--record-scripts", str(tmp_path / "scripts"))
    (result,) = report["tasks"]
    assert result["script"] is None and result["script_error"] == "the run left no record to write a script from"
    assert not (tmp_path / "scripts" / "sum_column.json").exists()


def test_a_task_with_its_own_configuration_keeps_it_with_no_rules(tmp_path: Path) -> None:
    task = next(t for t in gui.TASKS if t.name == "gui_type_and_save")
    work = tmp_path / "work"
    work.mkdir()
    task.build(work)
    merged = scripted_config(work / "podium.toml", tmp_path / "podium-scripted.toml")
    own = tomllib.loads((work / "podium.toml").read_text())
    data = tomllib.loads(merged.read_text())
    assert data == {**own, "host": {"rules": "none"}}
    config = load_config(merged)
    assert config.host.rules == "none" and "editor" in config.application_names()


def test_relative_paths_of_the_configuration_stay_where_they_were(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    base = project / "podium.toml"
    base.write_text('[host]\nrules = "small-local"\ndefault_answer = "no idea"\n\n[journal]\npath = "runs/journal.db"'
                    '\n\n[limits]\nmax_steps = 40\n')
    merged = scripted_config(base, tmp_path / "merged.toml")
    config = load_config(merged)
    assert config.journal_path() == project / "runs" / "journal.db"
    assert (config.host.rules, config.host.default_answer, config.limits.max_steps) == ("none", "no idea", 40)
    assert load_config(scripted_config(None, tmp_path / "defaults.toml")).host.rules == "none"


@pytest.mark.parametrize(("args", "message"), [
    (["--scripts", "{scripts}", "--model", "local"], "--scripts plays each task's script: leave out --model"),
    (["--scripts", "{missing}"], "no such folder"),
])
def test_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    (tmp_path / "scripts").mkdir()
    filled = [a.format(scripts=tmp_path / "scripts", missing=tmp_path / "missing") for a in args]
    with pytest.raises(SystemExit) as exited:
        run.main(filled)
    assert exited.value.code == 2 and message in capsys.readouterr().err


def test_a_folder_with_no_script_of_the_tasks_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "scripts").mkdir()
    assert run.main(["--scripts", str(tmp_path / "scripts"), "--only", "sum_column"]) == 2
    assert "holds no script of the tasks selected" in capsys.readouterr().out
