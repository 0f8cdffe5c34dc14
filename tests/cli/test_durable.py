"""Durable, visible runs from the command line: `podium sessions` (interrupted runs, --json), `resume`,
`replay`, `undo`, `report`, a run's first lines and its honest result line, and journals that cannot be
read. Real processes (a run killed with SIGKILL), real files, the real SQLite journal."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from podium.journal import SqliteStore
from tests.cli.conftest import Invoke, read_json
from tests.cli.processes import kill_during_first_app_step
from tests.cli.scripts import app, assign, host, sub, write_script
from tests.journal.recording import make_quarterly, recorded_run, seed_run

REPO = Path(__file__).parents[2]


def notes_script(tmp_path: Path, name: str = "notes.json", content: str = "hello") -> Path:
    return write_script(tmp_path / name, [
        assign(sub("1", "Write the notes", "files", writes=["notes.txt"], tools=["write_file"])),
        host("FINISH", "notes written"),
    ], {"files": [app("CONTINUE", ("write_file", {"path": "notes.txt", "content": content, "overwrite": True})),
                  app("FINISH", result="notes.txt written")]}, usage=[100, 10])


def test_a_killed_run_is_interrupted_and_resumes_to_its_end(cli: Invoke, home: Path, work: Path,
                                                          tmp_path: Path) -> None:
    plan = assign(sub("1", "Write the notes", "files", writes=["notes.txt"], tools=["write_file"]))
    hang = write_script(tmp_path / "hang.json", [plan],
                        {"files": [{"$hang": True}]})
    name = kill_during_first_app_step(home, work, hang, "Write hello into notes.txt")

    listed = cli("sessions")
    assert listed.exit_code == 0, listed.output
    [line] = [line for line in listed.stdout.splitlines() if name in line and "│" in line]
    assert "interrupted" in line
    assert f"podium resume {name}" in listed.stdout
    [row] = json.loads(cli("sessions", "--json").stdout)
    assert row["session"] == name and row["record"] == "interrupted" and row["resume"] == f"podium resume {name}"
    assert f"podium resume {name} continues it" in cli("show", "last").stdout

    # A fresh model picks up where the record ends: the step in flight is sent again, then the planner's next.
    rest = write_script(tmp_path / "rest.json", [host("FINISH", "notes written")], {"files": [
        app("CONTINUE", ("write_file", {"path": "notes.txt", "content": "hello"})),
        app("FINISH", result="notes.txt written")]})
    summary_file = tmp_path / "resumed.json"
    resumed = cli("resume", name[:-3], "-m", f"scripted:{rest}", "--batch", "--json-out", str(summary_file))
    assert resumed.exit_code == 0, resumed.output
    out = resumed.stdout
    assert f"resuming run {name}: Write hello into notes.txt" in out
    assert "in flight when its process died (sent again):" in out
    assert "subtask 1 step 1 on app-files: Write hello into notes.txt" in out  # one subtask: the request
    assert f"workspace: {work}" in out and "FINISH  notes written" in out
    assert (work / "notes.txt").read_text() == "hello"
    summary = read_json(summary_file)
    assert summary["session"] == name and summary["status"] == "FINISH"
    [after] = json.loads(cli("sessions", "--json").stdout)
    assert after["record"] == "stopped" and after["status"] == "FINISH" and after["resume"] is None

    again = cli("resume", name)
    assert again.exit_code == 1 and "ended (stopped); there is nothing to resume" in again.stderr


def test_a_run_still_running_is_not_resumed(cli: Invoke, home: Path) -> None:
    from podium.journal import Journal

    store = SqliteStore(home / "journal.db")
    Journal(store).opened("live-run", "HostStrategy")  # this process: alive
    store.close()
    assert json.loads(cli("sessions", "--json").stdout)[0]["record"] == "running"
    result = cli("resume", "live")
    assert result.exit_code == 1 and f"is still running (pid {os.getpid()})" in result.stderr


def test_sessions_json_is_newest_first(cli: Invoke, work: Path, tmp_path: Path) -> None:
    assert json.loads(cli("sessions", "--json").stdout) == []
    for request in ("First notes", "Second notes"):
        script = notes_script(tmp_path, f"{request}.json", request)  # each run changes the notes
        assert cli("run", request, "-w", str(work), "-m", f"scripted:{script}", "--batch", "--yes").exit_code == 0
    rows = json.loads(cli("sessions", "--json").stdout)
    assert [r["request"] for r in rows] == ["Second notes", "First notes"]
    assert all(r["status"] == "FINISH" and r["record"] == "stopped" and r["pid"] for r in rows)
    assert rows[0]["started_at"] >= rows[1]["started_at"]


def test_a_run_says_where_it_works_and_where_its_report_is(cli: Invoke, work: Path, tmp_path: Path,
                                                          home: Path) -> None:
    result = cli("run", "Write hello into notes.txt", "-w", str(work), "-m", f"scripted:{notes_script(tmp_path)}",
                 "--batch")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == f"workspace: {work}  (--workdir {work})"
    assert lines[1] == f"model: scripted:{notes_script(tmp_path)}"
    assert lines[2].startswith("applications: ") and "files" in lines[2]
    assert lines[3].startswith("sandbox: ")  # what confines the programs the applications start
    [report] = [line for line in lines if line.startswith("report: ")]
    page = Path(report.removeprefix("report: "))
    assert page.parent == home / "reports" and page.is_file()
    assert "Write hello into notes.txt" in page.read_text(encoding="utf-8")

    written = cli("report", "last", "-o", str(tmp_path / "out" / "r.html"))
    assert written.exit_code == 0 and (tmp_path / "out" / "r.html").is_file()


def test_the_result_line_of_a_failed_run_names_what_failed(cli: Invoke, work: Path, tmp_path: Path) -> None:
    """The planner's last comment claims what never happened; the headline says what did."""
    script = write_script(tmp_path / "fail.json", [
        assign(sub("1", "Rewrite notes.txt", "files", writes=["notes.txt"], tools=["write_file"])),
        host("FAIL", "FAIL notes.txt rewritten"),
    ], {"files": [app("FAIL", comment="the folder is read-only", result="cannot write notes.txt")]})
    result = cli("run", "Rewrite notes.txt", "-w", str(work), "-m", f"scripted:{script}", "--batch")
    assert result.exit_code == 1
    out = result.stdout
    [head] = [line for line in out.splitlines() if line.startswith("FAIL  ")]
    assert "subtask 1 [files] FAIL" in head and "rewritten" not in head
    assert "the HostAgent's last comment: FAIL notes.txt rewritten" in out


def test_a_limit_heads_the_result_line(cli: Invoke, work: Path, tmp_path: Path) -> None:
    (tmp_path / "project" / "podium.toml").write_text("[limits]\nmax_steps = 2\n")
    plan = assign(sub("1", "Write the notes", "files", writes=["notes.txt"], tools=["write_file"]))
    script = write_script(tmp_path / "long.json", [plan],
                          {"files": [app("CONTINUE", ("list_files", {"path": "."}))] * 5})
    result = cli("run", "Write notes", "-w", str(work), "-m", f"scripted:{script}", "--batch")
    assert result.exit_code == 1
    [head] = [line for line in result.stdout.splitlines() if line.startswith("FAIL  ")]
    assert "limit" in head and "max_steps" in head


def test_the_judges_verdict_is_printed_and_stored(cli: Invoke, work: Path, tmp_path: Path) -> None:
    (tmp_path / "project" / "podium.toml").write_text("[host]\nevaluate = true\n")
    script = json.loads(notes_script(tmp_path).read_text())
    script["judge"] = [{"complete": "no", "reason": "notes.txt says hello, not the minutes", "sub_scores": {}}]
    path = tmp_path / "judged.json"
    path.write_text(json.dumps(script))
    out_file = tmp_path / "summary.json"
    result = cli("run", "Write the minutes into notes.txt", "-w", str(work), "-m", f"scripted:{path}", "--batch",
                 "--json-out", str(out_file))
    assert "judge complete: no · notes.txt says hello, not the minutes" in result.stdout
    assert read_json(out_file)["evaluation"]["complete"] == "no"
    shown = json.loads(cli("show", "last", "--json").stdout)
    assert shown["result"]["evaluation"]["reason"] == "notes.txt says hello, not the minutes"


def test_replay_finds_an_altered_tool_result(cli: Invoke, home: Path, tmp_path: Path) -> None:
    store = SqliteStore(home / "journal.db")
    asyncio.run(seed_run(store, tmp_path / "quarterly"))
    store.close()
    with SqliteStore(home / "journal.db")._db as db:  # the read_table result: Q1's revenue 1200 -> 9999
        seq, text = next((seq, text) for seq, text in db.execute("SELECT seq, input FROM entries ORDER BY seq")
                         if '\\"function\\":\\"read_table\\"' in text and '\\"kind\\":\\"execute\\"' in text)
        db.execute("UPDATE entries SET input = ? WHERE seq = ?", (text.replace('\\"1200\\"', '\\"9999\\"'), seq))
    result = cli("replay", "seed")
    assert result.exit_code == 1
    first = result.stdout.splitlines()[0]
    # the first decision made with the altered result: the next step of its AppAgent, handed the rows it read
    total = len(SqliteStore(home / "journal.db").entries("seed"))
    assert first == f"divergence at entry {seq} of {total} (ResponseInput from app-documents):"
    removed = [line for line in result.stdout.splitlines() if line.startswith("-") and not line.startswith("---")]
    added = [line for line in result.stdout.splitlines() if line.startswith("+") and not line.startswith("+++")]
    assert any('"1200"' in line for line in removed) and any('"9999"' in line for line in added)


def test_replay_of_an_unchanged_run_finds_no_divergence(cli: Invoke, home: Path, tmp_path: Path) -> None:
    store = SqliteStore(home / "journal.db")
    asyncio.run(seed_run(store, tmp_path / "quarterly"))
    total = len(store.entries("seed"))
    store.close()
    result = cli("replay", "last")
    assert result.exit_code == 0 and result.stdout.startswith(f"no divergence: {total} entries of run seed"), \
        result.stdout


def test_undo_restores_the_workspace_and_refuses_later_edits(cli: Invoke, home: Path, tmp_path: Path) -> None:
    workspace = make_quarterly(tmp_path / "quarterly")
    original = {p.name: p.read_bytes() for p in workspace.iterdir()}
    store = SqliteStore(home / "journal.db")
    asyncio.run(seed_run(store, workspace))
    plan = assign(sub("1", "Write the notes", "files", writes=["notes.txt"], tools=["write_file"]))
    notes = write_script(tmp_path / "more.json", [plan,
                                                  host("FINISH", "done")],
                         {"files": [app("CONTINUE", ("write_file", {"path": "notes.txt", "content": "hello"})),
                                    app("FINISH", result="written")]})
    asyncio.run(recorded_run(store, workspace, notes, "Write hello into notes.txt", "notes-run", ("files",)))
    store.close()
    assert (workspace / "notes.txt").read_text() == "hello"

    undone = cli("undo", "last")  # the newest: the notes run, which created notes.txt
    assert undone.exit_code == 0, undone.output
    assert "notes.txt: removed (the run created it)" in undone.stdout and not (workspace / "notes.txt").exists()

    (workspace / "budget.xlsx").write_bytes(b"edited by the person")
    refused = cli("undo", "seed")
    assert refused.exit_code == 1
    assert "1 file(s) changed since run seed by someone else" in refused.stdout and "budget.xlsx" in refused.stdout
    assert (workspace / "budget.xlsx").read_bytes() == b"edited by the person"
    forced = cli("undo", "seed", "--force")
    assert forced.exit_code == 0, forced.output
    after = {p.name: p.read_bytes() for p in workspace.iterdir()}
    assert sorted(after) == sorted(original), forced.stdout
    assert after == original, forced.stdout
    assert "nothing to undo" in cli("undo", "seed").stdout


@pytest.mark.parametrize("damage", ["random bytes", "truncated"])
def test_a_damaged_journal_is_one_line_and_a_run_goes_on_unrecorded(cli: Invoke, home: Path, work: Path,
                                                                   tmp_path: Path, damage: str) -> None:
    store = SqliteStore(home / "journal.db")
    asyncio.run(seed_run(store, tmp_path / "quarterly"))
    store.close()
    raw = (home / "journal.db").read_bytes()
    (home / "journal.db").write_bytes(os.urandom(len(raw)) if damage == "random bytes" else raw[:len(raw) // 4])
    for extra in ("journal.db-wal", "journal.db-shm"):
        (home / extra).unlink(missing_ok=True)
    for command in (["sessions"], ["show", "last"], ["report", "last"], ["undo", "last"]):
        result = cli(*command)
        assert result.exit_code == 1, (command, result.output)
        assert result.stderr.startswith(f"error: the journal {home / 'journal.db'} is damaged"), result.stderr
        assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.output
    run = cli("run", "Write hello into notes.txt", "-w", str(work), "-m", f"scripted:{notes_script(tmp_path)}",
              "--batch")
    assert run.exit_code == 0, run.output
    assert "is damaged" in run.stderr and "this run goes on without being recorded" in run.stderr
    assert "this run was not recorded" in run.stdout and (work / "notes.txt").read_text() == "hello"
