"""What a person sees while a request runs: the live view on a terminal, one line per change in a log."""

from __future__ import annotations

import io
import os
import pty
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

from rich.console import Console

from podium.cli.view import LineView, LiveView, make_view
from podium.desktop import Progress, SubtaskProgress
from tests.cli.scripts import app, assign, host, sub, write_script

REPO = Path(__file__).parents[2]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def snapshot(**changes: object) -> Progress:
    fields: dict[str, object] = {
        "token": "t1", "host_state": "ASSIGN", "current": "subtask 2 step 1 on app-spreadsheets",
        "subtasks": (SubtaskProgress("1", "Extract the table", "documents", "FINISH", (), 2),
                     SubtaskProgress("2", "Chart it in budget.xlsx", "spreadsheets", "CONTINUE", ("1",), 1)),
        "steps": 4, "input_tokens": 1200, "output_tokens": 340, "cost": 0.0123}
    fields.update(changes)
    return Progress(**fields)  # type: ignore[arg-type]


def test_the_live_view_shows_the_graph_the_step_tokens_and_cost() -> None:
    console = Console(file=io.StringIO(), force_terminal=True, width=120)
    view = LiveView(console, "Chart the table", "run-x")
    view.progress(snapshot())
    console.print(view._render())
    text = ANSI.sub("", console.file.getvalue())  # type: ignore[attr-defined]
    assert "run-x" in text and "Chart the table" in text
    assert "HostAgent ASSIGN  subtask 2 step 1 on app-spreadsheets" in text
    assert re.search(r"1\s+documents\s+FINISH\s+2\s+-\s+Extract the table", text)
    assert re.search(r"2\s+spreadsheets\s+CONTINUE\s+1\s+1\s+Chart it in budget.xlsx", text)
    assert "steps 4 · tokens 1,200 in / 340 out · cost $0.0123" in text
    view.progress(snapshot(token=None, host_state="FINISH", subtasks=()))  # the idle snapshot after the run
    assert view.latest is not None and view.latest.subtasks  # the last picture of the run stays


def test_a_log_gets_one_line_per_change() -> None:
    console = Console(file=io.StringIO(), width=60)
    view = LineView(console, "Chart the table", "run-x")
    for event in (snapshot(), snapshot(), snapshot(steps=5, current="planner thinking")):
        view.progress(event)
    lines = console.file.getvalue().splitlines()  # type: ignore[attr-defined]
    assert lines[0] == "  subtask 1 [documents] FINISH: Extract the table"
    assert lines[1] == "  subtask 2 [spreadsheets] after 1 CONTINUE: Chart it in budget.xlsx"
    assert lines[2].startswith("[  4] ASSIGN: subtask 2 step 1 on app-spreadsheets  (steps 4")
    assert lines[3].startswith("[  5] ASSIGN: planner thinking")
    assert len(lines) == 4  # an unchanged snapshot prints nothing; long lines are not wrapped


def test_the_view_follows_the_terminal() -> None:
    assert isinstance(make_view(Console(file=io.StringIO(), force_terminal=True), "r", "s"), LiveView)
    assert isinstance(make_view(Console(file=io.StringIO()), "r", "s"), LineView)


def test_a_run_on_a_terminal_asks_and_shows_live_progress(tmp_path: Path) -> None:
    """The real command on a pseudo-terminal: the live view, then the approval typed at the prompt."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "old.txt").write_text("x")
    script = write_script(tmp_path / "s.json", [assign(sub("1", "Delete old.txt", "files", writes=["old.txt"],
                                                                   tools=["delete"])), host("FINISH", "gone")],
                          {"files": [app("CONTINUE", ("delete", {"path": "old.txt"})), app("FINISH")]},
                          usage=[500, 50])
    main, secondary = pty.openpty()
    env = {**os.environ, "PODIUM_HOME": str(tmp_path / "home"), "PYTHONPATH": str(REPO / "src"),
           "COLUMNS": "120", "LINES": "40", "TERM": "xterm"}
    process = subprocess.Popen([sys.executable, "-m", "podium.cli", "run", "Delete old.txt", "-w", str(work),
                                "-m", f"scripted:{script}"], stdin=secondary, stdout=secondary, stderr=secondary,
                               env=env, close_fds=True)
    os.close(secondary)
    screen: list[str] = []

    def read() -> None:
        while True:
            try:
                data = os.read(main, 4096)
            except OSError:
                return
            if not data:
                return
            screen.append(data.decode(errors="replace"))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 60
        while "approve? [y/N]>" not in "".join(screen):
            assert process.poll() is None and time.monotonic() < deadline, "".join(screen)
            time.sleep(0.05)
        os.write(main, b"y\n")
        assert process.wait(timeout=60) == 0, "".join(screen)
    finally:
        if process.poll() is None:
            process.kill()
        reader.join(timeout=5)
        os.close(main)
    text = ANSI.sub("", "".join(screen))
    assert "HostAgent" in text and "waiting for you: c1" in text  # the live view, while it waited
    assert "tokens 1,000 in / 100 out" in text
    assert "approved" in text and "FINISH  gone" in text
    assert not (work / "old.txt").exists()
