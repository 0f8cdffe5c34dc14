"""Ctrl-C on a real `podium run` process: the agents stop, the application the run launched is closed,
the record and the summary are saved, and the exit code is 130."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import psutil
import pytest

from tests.cli.conftest import read_json
from tests.cli.scripts import app, assign, host, sub, write_script

REPO = Path(__file__).parents[2]


def _sleeper(tmp_path: Path) -> str:
    """A private copy of `sleep` under a unique name: the desktop application the run launches."""
    name = f"sleeper-{uuid.uuid4().hex[:6]}"
    shutil.copy(shutil.which("sleep") or "/bin/sleep", tmp_path / name)
    return name


def _processes(name: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        cmdline = proc.info["cmdline"] or []
        if cmdline and os.path.basename(cmdline[0]) == name:
            found.append(proc)
    return found


def _wait_for(predicate, what: str, timeout: float = 30.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def _start(tmp_path: Path, home: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PODIUM_HOME": str(home), "PYTHONPATH": str(REPO / "src")}
    env.pop("DISPLAY", None)
    return subprocess.Popen([sys.executable, "-m", "podium.cli", "run", *args], cwd=tmp_path / "project",
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "project").mkdir()
    (tmp_path / "work").mkdir()
    return tmp_path


def _cli(home: Path, project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PODIUM_HOME": str(home), "PYTHONPATH": str(REPO / "src")}
    return subprocess.run([sys.executable, "-m", "podium.cli", *args], cwd=project / "project", env=env,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(("sig", "presses", "code"), [(signal.SIGINT, 1, 130), (signal.SIGINT, 2, 130),
                                                     (signal.SIGTERM, 1, 143)])
def test_ctrl_c_stops_cleanly(project: Path, sig: signal.Signals, presses: int, code: int) -> None:
    tmp_path, home = project, project / "home"
    sleeper = _sleeper(tmp_path)
    (tmp_path / "project" / "podium.toml").write_text(f"""
[apps]
enabled = ["files"]

[apps.desktop.sleeper]
command = ["{tmp_path / sleeper}", "600"]
process = "{sleeper}"
startup_timeout = 20
""")
    # The sleeper's AppAgent launches it (DATA_COLLECTION of step 1), then its model never answers (step 2).
    plan = assign(sub("1", "Keep the sleeper busy", "sleeper", tools=["status"]))
    script = write_script(tmp_path / "hang.json", [plan],
                          {"sleeper": [app("CONTINUE", ("status", {})), {"$hang": True}]})
    summary_file = tmp_path / "summary.json"
    process = _start(tmp_path, home, "Keep the sleeper busy", "--workdir", str(tmp_path / "work"),
                     "--model", f"scripted:{script}", "--batch", "--json-out", str(summary_file))
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(process.stdout.readline, "")), daemon=True)
    reader.start()
    try:
        _wait_for(lambda: any("step 2 on app-sleeper" in line for line in lines) or process.poll() is not None,
                  "the sleeper to be launched and its AppAgent's model to be asked")
        assert process.poll() is None, process.communicate()
        assert _processes(sleeper)
        for _ in range(presses):
            process.send_signal(sig)
        process.wait(timeout=60)
        reader.join(timeout=10)
        out, err = "".join(lines), process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
        for leftover in _processes(sleeper):
            leftover.kill()

    assert process.returncode == code, err
    assert "Traceback" not in err
    assert not _processes(sleeper), "the application the run launched is still running"
    assert "INTERRUPTED" in out

    summary = read_json(summary_file)
    assert summary["interrupted"] and summary["exit_code"] == code and not summary["ok"]
    assert summary["stopped_programs"] == ["sleeper"]
    assert summary["recorded"]

    shown = _cli(home, tmp_path, "show", summary["session"], "--json")
    assert shown.returncode == 0, shown.stderr
    assert '"record": "stopped"' in shown.stdout  # the session was closed, not left running
    assert "Keep the sleeper busy" in shown.stdout
    listed = _cli(home, tmp_path, "sessions")
    assert summary["session"] in listed.stdout


def test_ctrl_c_while_a_question_waits_for_the_person(project: Path) -> None:
    tmp_path, home = project, project / "home"
    script = write_script(tmp_path / "ask.json", [host("PENDING", "", Questions=["Which sheet?"]), host("FINISH")])
    env = {**os.environ, "PODIUM_HOME": str(home), "PYTHONPATH": str(REPO / "src")}
    process = subprocess.Popen([sys.executable, "-m", "podium.cli", "run", "Chart it", "-w", str(tmp_path / "work"),
                                "-m", f"scripted:{script}", "--json-out", str(tmp_path / "summary.json")],
                               cwd=tmp_path / "project", env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(process.stdout.readline, "")), daemon=True)
    reader.start()
    try:
        _wait_for(lambda: any("Which sheet?" in line for line in lines) or process.poll() is not None,
                  "the question to be asked")
        process.send_signal(signal.SIGINT)  # nobody answers; stdin stays open
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, process.stderr.read()
    summary = read_json(tmp_path / "summary.json")
    assert summary["interrupted"] and summary["recorded"] and summary["reason_kind"] == "cancelled"
