"""`podium run` in a process of its own, killed with SIGKILL mid-run (no clean-up of any kind runs)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from podium.journal import SessionStatus

REPO = Path(__file__).parents[2]


def kill_during_first_app_step(home: Path, work: Path, script: Path, request: str) -> str:
    """A `podium run` in its own process, killed with SIGKILL while its AppAgent's first step is in flight
    (in the current folder: its podium.toml names the journal)."""
    env = {**os.environ, "PODIUM_HOME": str(home), "PYTHONPATH": str(REPO / "src")}
    process = subprocess.Popen([sys.executable, "-m", "podium.cli", "run", request, "-w", str(work),
                                "-m", f"scripted:{script}", "--batch"], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    started = threading.Event()

    def watch() -> None:
        for line in iter(process.stdout.readline, ""):  # type: ignore[union-attr]
            if "step 1 on app-files" in line:
                started.set()

    threading.Thread(target=watch, daemon=True).start()
    try:
        assert started.wait(60), "the run did not reach its first AppAgent step"
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    from podium.cli.config import load_config
    from podium.cli.journal_store import open_journal

    store = open_journal(load_config())
    [record] = [r for r in store.sessions() if r.status is SessionStatus.RUNNING]
    store.close()
    return record.name
