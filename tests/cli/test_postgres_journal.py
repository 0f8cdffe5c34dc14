"""A journal a team shares: podium.toml names a PostgreSQL server (the password from the environment),
and run, sessions, show, report, replay, undo and resume work against it as against a SQLite file. The
real server of tests/journal/conftest.py."""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from pathlib import Path

import psycopg
import pytest

from podium.journal.postgres import PostgresStore
from tests.cli.conftest import Invoke
from tests.cli.scripts import app, assign, host, sub, write_script
from tests.cli.test_durable import kill_during_first_app_step, notes_script
from tests.journal.conftest import postgres_dsn  # noqa: F401  (the server, started once per test run)
from tests.journal.recording import recorded_run


@pytest.fixture
def team_url(postgres_dsn: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:  # noqa: F811
    """A database of its own, named in the project's podium.toml without its password."""
    name = f"team_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(postgres_dsn, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")  # type: ignore[arg-type]
    url = postgres_dsn.rsplit("/", 1)[0] + "/" + name
    (tmp_path / "project" / "podium.toml").write_text(
        f'[journal]\nurl = "{url}"\npassword_env = "PODIUM_TEST_JOURNAL_PASSWORD"\n')
    monkeypatch.setenv("PODIUM_TEST_JOURNAL_PASSWORD", "not-needed-with-trust-auth")
    return url


def test_every_command_works_against_postgres(cli: Invoke, team_url: str, work: Path, tmp_path: Path,
                                              home: Path) -> None:
    run = cli("run", "Write hello into notes.txt", "-w", str(work), "-m", f"scripted:{notes_script(tmp_path)}",
              "--batch")
    assert run.exit_code == 0, run.output
    assert f"in {team_url}" in run.stdout and not (home / "journal.db").exists()
    [row] = json.loads(cli("sessions", "--json").stdout)
    assert row["status"] == "FINISH" and row["request"] == "Write hello into notes.txt"
    assert row["session"] in cli("sessions").stdout
    shown = cli("show", "last")
    assert shown.exit_code == 0 and "Result FINISH  notes written" in shown.stdout
    report = cli("report", "last", "-o", str(tmp_path / "r.html"))
    assert report.exit_code == 0 and "Write hello into notes.txt" in (tmp_path / "r.html").read_text()
    replayed = cli("replay", "last")
    # every decision re-derived from PostgreSQL's record; only the final reply's clock reading may differ
    # (test_replay_of_an_unchanged_run_finds_no_divergence)
    last = re.match(r"divergence at entry (\d+) of (\d+) \(ResponseInput from host\)", replayed.stdout)
    assert replayed.stdout.startswith("no divergence") or (last and last[1] == last[2]), replayed.stdout

    # the change log in PostgreSQL: a run written the way the executor writes it, then undone from the CLI
    store = PostgresStore(team_url)
    plan = assign(sub("1", "Replace the notes", "files", writes=["notes.txt"], tools=["write_file"]))
    script = write_script(tmp_path / "more.json", [plan,
                                                   host("FINISH", "done")],
                          {"files": [app("CONTINUE", ("write_file", {"path": "notes.txt", "content": "bye",
                                                                     "overwrite": True})),
                                     app("FINISH", result="written")]})
    asyncio.run(recorded_run(store, work, script, "Replace notes.txt with bye", "replace-notes", ("files",),
                             auto_approve=True))
    store.close()
    assert (work / "notes.txt").read_text() == "bye"
    undone = cli("undo", "replace")
    assert undone.exit_code == 0, undone.output
    assert "notes.txt: restored" in undone.stdout and (work / "notes.txt").read_text() == "hello"


def test_a_killed_run_resumes_from_postgres(cli: Invoke, team_url: str, work: Path, tmp_path: Path,
                                            home: Path) -> None:
    plan = assign(sub("1", "Write the notes", "files", writes=["notes.txt"], tools=["write_file"]))
    hang = write_script(tmp_path / "hang.json", [plan],
                        {"files": [{"$hang": True}]})
    name = kill_during_first_app_step(home, work, hang, "Write hello into notes.txt")
    assert json.loads(cli("sessions", "--json").stdout)[0]["record"] == "interrupted"
    rest = write_script(tmp_path / "rest.json", [host("FINISH", "notes written")], {"files": [
        app("CONTINUE", ("write_file", {"path": "notes.txt", "content": "hello"})),
        app("FINISH", result="notes.txt written")]})
    resumed = cli("resume", "last", "-m", f"scripted:{rest}", "--batch")
    assert resumed.exit_code == 0, resumed.output
    assert f"resuming run {name}" in resumed.stdout and (work / "notes.txt").read_text() == "hello"


def test_a_missing_password_variable_is_a_usage_error(cli: Invoke, team_url: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PODIUM_TEST_JOURNAL_PASSWORD")
    result = cli("sessions")
    assert result.exit_code == 2
    assert "[journal] password_env" in result.stderr and "PODIUM_TEST_JOURNAL_PASSWORD is not set" in result.stderr


def test_an_unreachable_server_is_one_line(cli: Invoke, tmp_path: Path) -> None:
    (tmp_path / "project" / "podium.toml").write_text('[journal]\nurl = "postgresql://team@127.0.0.1:1/runs"\n')
    result = cli("sessions")
    assert result.exit_code == 1
    assert result.stderr.startswith("error: the journal postgresql://team@127.0.0.1:1/runs cannot be reached")
    assert len(result.stderr.strip().splitlines()) == 1
