"""`podium sessions` and `podium show`: the journal's records of runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from podium.journal import SessionStatus, SqliteStore
from tests.cli.conftest import Invoke, read_json
from tests.cli.processes import kill_during_first_app_step
from tests.cli.scripts import app, assign, host, sub, write_script

REPO = Path(__file__).parents[2]


def chart_script(tmp_path: Path) -> Path:
    return write_script(tmp_path / "notes.json", [
        assign(sub("1", "Write the notes", "files", writes=["notes.txt"], tools=["write_file"])),
        host("FINISH", "notes written"),
    ], {"files": [app("CONTINUE", ("write_file", {"path": "notes.txt", "content": "hello"})),
                  app("FINISH", result="notes.txt written")]}, usage=[100, 10])


def run_once(cli: Invoke, work: Path, script: Path, request: str, tmp_path: Path) -> dict:
    out = tmp_path / f"summary-{len(list(tmp_path.glob('summary-*.json')))}.json"
    result = cli("run", request, "-w", str(work), "-m", f"scripted:{script}", "--batch", "--json-out", str(out))
    assert result.exit_code in (0, 1), result.output
    return read_json(out)


def test_no_sessions_yet(cli: Invoke, home: Path) -> None:
    result = cli("sessions")
    assert result.exit_code == 0
    assert "No sessions recorded yet" in result.stdout and str(home / "journal.db") in result.stdout


def test_sessions_lists_runs_newest_first(cli: Invoke, work: Path, tmp_path: Path) -> None:
    first = run_once(cli, work, chart_script(tmp_path), "Write notes.txt", tmp_path)
    failing = write_script(tmp_path / "fail.json", [host("FAIL", "cannot")])
    second = run_once(cli, work, failing, "Do the impossible", tmp_path)
    result = cli("sessions")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    [newest] = [n for n, line in enumerate(lines) if second["session"] in line]
    [older] = [n for n, line in enumerate(lines) if first["session"] in line]
    assert newest < older
    assert "Do the impossible" in lines[newest] and "FAIL" in lines[newest]
    assert "Write notes.txt" in lines[older] and "FINISH" in lines[older]
    assert "1 older session(s) not shown" in cli("sessions", "--limit", "1").stdout


def test_show_a_session(cli: Invoke, work: Path, tmp_path: Path) -> None:
    summary = run_once(cli, work, chart_script(tmp_path), "Write notes.txt", tmp_path)
    result = cli("show", summary["session"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Request Write notes.txt" in out and "Result FINISH  notes written" in out
    assert "Subtask graph" in out and "Write the notes" in out
    assert "Trajectory" in out and "write_file" in out and "app-files" in out
    assert "model calls 4" in out and "tokens 400 in / 40 out" in out
    assert "Rules fired none" in out  # a scripted model declares no rules profile
    # a unique prefix and "last" name the same session
    assert cli("show", summary["session"][:-2]).stdout == out
    assert cli("show", "last").stdout == out


def test_show_as_json(cli: Invoke, work: Path, tmp_path: Path) -> None:
    summary = run_once(cli, work, chart_script(tmp_path), "Write notes.txt", tmp_path)
    record = json.loads(cli("show", summary["session"], "--json").stdout)
    assert record["session"] == summary["session"] and record["record"] == "stopped"
    assert record["result"]["status"] == "FINISH"
    assert [s["id"] for s in record["subtasks"]] == ["1"]
    assert record["blackboard"]["requests"] == ["Write notes.txt"]
    assert any(t["agent"] == "app-files" for t in record["trajectory"])
    assert record["summary"]["model_calls"] == 4
    assert record["rules_fired"] == {}


def test_rules_fired_are_counted_per_step_most_first() -> None:
    from podium.cli.records import rules_fired

    steps = [{"rules": ["sample-after-no-progress"]}, {"rules": []}, {},
             {"rules": ["failed-call-not-rerun", "sample-after-no-progress"]}]
    assert rules_fired(steps) == {"sample-after-no-progress": 2, "failed-call-not-rerun": 1}


def test_show_questions_answered(cli: Invoke, work: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "ask.json", [host("PENDING", "", Questions=["Which year?"]), host("FINISH")])
    cli("run", "Chart the year", "-w", str(work), "-m", f"scripted:{script}", input="2024\n")
    out = cli("show", "last").stdout
    assert "Questions" in out and "Which year?" in out and "2024" in out and "person" in out


@pytest.mark.parametrize(("ident", "message"), [("nope", "no session 'nope'"), ("run-", "matches 2 sessions")])
def test_show_unknown_or_ambiguous_sessions(cli: Invoke, work: Path, tmp_path: Path, ident: str,
                                            message: str) -> None:
    run_once(cli, work, chart_script(tmp_path), "one", tmp_path)
    run_once(cli, work, chart_script(tmp_path), "two", tmp_path)
    result = cli("show", ident)
    assert result.exit_code == 2 and message in result.stderr


def test_the_journal_path_from_the_config(cli: Invoke, work: Path, tmp_path: Path, home: Path) -> None:
    (tmp_path / "project" / "podium.toml").write_text('[journal]\npath = "records/podium.db"\n')
    summary = run_once(cli, work, chart_script(tmp_path), "Write notes.txt", tmp_path)
    assert summary["journal"] == str(tmp_path / "project" / "records" / "podium.db")
    assert (tmp_path / "project" / "records" / "podium.db").is_file() and not (home / "journal.db").exists()
    assert summary["session"] in cli("sessions").stdout


def test_a_run_killed_outright_still_shows_its_subtask_graph(cli: Invoke, work: Path, tmp_path: Path,
                                                             home: Path) -> None:
    """No clean-up ran (SIGKILL): the record is left 'running' without artifacts; `show` reads the
    progress the host forwarded, from the journal's entries."""
    plan = assign(sub("1", "Wait forever", "files", reads=["."], tools=["list_files"]))
    script = write_script(tmp_path / "hang.json", [plan],
                          {"files": [{"$hang": True}]})
    name = kill_during_first_app_step(home, work, script, "Wait forever")
    [record] = SqliteStore(home / "journal.db").sessions()
    assert record.name == name and record.status is SessionStatus.RUNNING
    result = cli("show", record.name)
    assert result.exit_code == 0, result.output
    assert "The run did not end in this record" in result.stdout
    assert "Wait forever" in result.stdout and "CONTINUE" in result.stdout
