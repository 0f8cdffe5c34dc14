"""The task suite played from its scripts (bench/tasks/scripts/<task>.json: the model answers of a recorded run
on the embedded model, as the host took them, `podium script`) with no compensation rules, the way a person
would: `podium run --batch --model scripted:...` on a fresh copy of the task's files. Each task's checker
passes; `podium undo` then puts the workspace back byte for byte (what the run created is gone); `podium
replay` of the run derives every decision again with no divergence. A copy of the journal with one tool
result altered replays to a divergence at that very entry. GUI tasks run on a private desktop (Xvfb and the
accessibility bus), as tests/tasks/test_gui_tasks.py runs them. No model is called."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bench.tasks.runner import scripted_config
from bench.tasks.suite import TASKS
from bench.tasks.task import Category, EndState, RunInfo, Task
from click.testing import Result
from typer.testing import CliRunner

from podium.cli import app
from podium.cli.script import load_script
from podium.journal import SqliteStore
from tests.desktop_session import desktop_session

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "bench" / "tasks" / "scripts"
SCRIPTED = [t for t in TASKS if (SCRIPTS / f"{t.name}.json").is_file()]
ON_FILES = [t for t in SCRIPTED if t.category is not Category.GUI]
ON_A_DESKTOP = [t for t in SCRIPTED if t.category is Category.GUI]
ALTERED_TASK = "doc_table_to_sheet"  # a table read from a document and written to a workbook


def podium(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The journal in a folder of the test's own; nothing of the machine's settings read."""
    monkeypatch.setenv("PODIUM_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.chdir(tmp_path)
    return tmp_path / "home"


def workspace_bytes(folder: Path) -> dict[str, bytes | None]:
    """Every entry under `folder`, hidden ones too: a file's bytes, None for a folder."""
    found: dict[str, bytes | None] = {}
    for top, dirs, files in os.walk(folder):
        for name in dirs:
            found[(Path(top) / name).relative_to(folder).as_posix() + "/"] = None
        for name in files:
            path = Path(top) / name
            found[path.relative_to(folder).as_posix()] = path.read_bytes()
    return found


@pytest.fixture
def folder() -> Iterator[Path]:
    """A task's folder where the runner makes it (bench/tasks/runner.py): a program's windows show its path
    (a file dialog's path bar), so a GUI script's control numbers hold where they were recorded."""
    root = Path(tempfile.mkdtemp(prefix="podium-task-"))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def play(task: Task, root: Path, tmp_path: Path) -> tuple[str, Path]:
    """The task's script played on a fresh copy of its files: its checker passes, replay finds no divergence,
    undo puts every file back. (The run, its workspace.)"""
    work = root / "work"
    work.mkdir()
    task.build(work)
    original = workspace_bytes(work)
    before = {k: v for k, v in original.items() if v is not None and not any(p.startswith(".") for p in k.split("/"))}
    own = work / "podium.toml"
    config = scripted_config(own if own.is_file() else None, tmp_path / "podium-scripted.toml")
    summary = tmp_path / "summary.json"
    ran = podium("run", task.request, "--workdir", str(work), "--model", f"scripted:{SCRIPTS / task.name}.json",
                 "--batch", "--config", str(config), "--json-out", str(summary), *(["--yes"] if task.approves else []))
    assert summary.is_file(), ran.output
    data = json.loads(summary.read_text())
    run = RunInfo.from_summary(data)
    verdict = task.evaluate(EndState(work, before, run))
    assert verdict.passed, f"{verdict.reason}\n{ran.output[-3000:]}"
    assert run.status != "ERROR", f"the script does not carry its run to its end\n{ran.output[-3000:]}"
    session = str(data["session"])

    replayed = podium("replay", session)
    assert replayed.exit_code == 0 and replayed.stdout.startswith("no divergence: "), replayed.output

    undone = podium("undo", session)
    assert undone.exit_code == 0, undone.output
    after = workspace_bytes(work)
    differ = sorted(k for k in set(after) | set(original) if k not in after or k not in original
                    or after[k] != original[k])
    if task.category is Category.GUI:
        # undo knows the changes of tool calls, not the files a desktop program wrote itself (README, undo)
        logged = {c.path for c in SqliteStore(Path(os.environ["PODIUM_HOME"]) / "journal.db").changes(session)}
        differ = [k for k in differ if k.rstrip("/") in logged]
    assert not differ, f"not as before the run after undo: {differ}\n{undone.output}"
    return session, work


def test_every_script_is_a_task_s_and_says_where_it_came_from() -> None:
    names = {t.name for t in TASKS}
    for path in sorted(SCRIPTS.glob("*.json")):
        assert path.stem in names, f"{path.name} is no task's script"
        script = load_script(path)
        assert script.planner, f"{path.name} has no planner answer"
        note = json.loads(path.read_text())["note"]
        assert note.startswith(("Exported by `podium script` from run", "Written by hand")), note


@pytest.mark.parametrize("task", ON_FILES, ids=[t.name for t in ON_FILES])
def test_a_scripted_task_passes_undoes_and_replays(task: Task, home: Path, folder: Path, tmp_path: Path) -> None:
    play(task, folder, tmp_path)


@pytest.fixture(scope="module")
def desktop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    with desktop_session(tmp_path_factory.mktemp("desktop")) as env:
        yield env


@pytest.mark.parametrize("task", ON_A_DESKTOP, ids=[t.name for t in ON_A_DESKTOP])
def test_a_scripted_gui_task_passes_undoes_and_replays(task: Task, desktop: dict[str, str], home: Path,
                                                       folder: Path, tmp_path: Path) -> None:
    play(task, folder, tmp_path)


def altered(text: str, old: str, new: str) -> str:
    """An entry's input (codec JSON) with `old` replaced by `new` in the report its response carries."""
    entry = json.loads(text)
    response = entry["response"]
    report = response["text"]
    assert old in report
    response["text"] = report.replace(old, new)
    for event in response["events"]["$tuple"]:
        if event["data"].get("text") == report:
            event["data"]["text"] = response["text"]
    return json.dumps(entry)


def first_read(db: sqlite3.Connection, session: str) -> tuple[int, str, str]:
    """The first tool result that read a table, by a call or by a step's look at its files: (entry, its input,
    a cell's text)."""
    for seq, text in db.execute("SELECT seq, input FROM entries WHERE session = ? ORDER BY seq", (session,)):
        entry = json.loads(text)
        if entry.get("$") != "ResponseInput" or not entry["agent"].startswith("app-"):
            continue
        report = json.loads(entry["response"]["text"])
        for result in (*report.get("observed", []), *report.get("results", [])):
            if result["ok"] and result["read_only"] and (cell := _a_cell(result["content"])) is not None:
                return seq, text, cell
    raise AssertionError(f"run {session} read no table")


def _a_cell(content: Any) -> str | None:
    if isinstance(content, dict):
        if isinstance(content.get("rows"), list) and len(content["rows"]) > 1:
            row = content["rows"][1]
            return next((str(v) for v in row if isinstance(v, str) and len(v) > 1), None)
        return next((c for v in content.values() if (c := _a_cell(v)) is not None), None)
    if isinstance(content, list):
        return next((c for v in content if (c := _a_cell(v)) is not None), None)
    return None


def test_a_tool_result_altered_in_a_copy_of_the_journal_is_the_divergence(home: Path, folder: Path,
                                                                           tmp_path: Path) -> None:
    (task,) = [t for t in SCRIPTED if t.name == ALTERED_TASK]
    session, _ = play(task, folder, tmp_path)
    copy = tmp_path / "copy" / "journal.db"
    copy.parent.mkdir()
    shutil.copy(home / "journal.db", copy)
    with sqlite3.connect(copy) as db:
        seq, text, cell = first_read(db, session)
        forged = f"{cell} (forged)"
        db.execute("UPDATE entries SET input = ? WHERE session = ? AND seq = ?",
                   (altered(text, json.dumps(cell)[1:-1], json.dumps(forged)[1:-1]), session, seq))
        total = db.execute("SELECT COUNT(*) FROM entries WHERE session = ?", (session,)).fetchone()[0]
    config = tmp_path / "copy" / "podium.toml"
    config.write_text(f'[journal]\npath = "{copy}"\n')
    result = podium("replay", session, "--config", str(config))
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"divergence at entry {seq} of {total} (ResponseInput from app-"), result.stdout
    assert any(line.startswith("+") and "(forged)" in line for line in lines), result.stdout
    assert podium("replay", session).stdout.startswith("no divergence: ")  # the journal itself is untouched
