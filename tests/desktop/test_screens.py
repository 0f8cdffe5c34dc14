"""Screenshots in DATA_COLLECTION reach the blackboard; no display means none, and no failure."""

from __future__ import annotations

from pathlib import Path

from podium.apps.display import Screenshot, ScreenshotSkipped
from podium.backends.scripted import ScriptedBackend
from podium.desktop import run_request
from podium.desktop.shell.screens import FolderScreenshots
from tests.desktop.memapps import Notes
from tests.desktop.scripting import app, assign, host, sub, verifying


def planner(prompt: str) -> str:
    return host("FINISH", "noted") if verifying(prompt) else assign(
        sub("1", "Write the todo note", "notes", writes=["todo.txt"], tools=["write_note"]))


def writer(prompt: str) -> str:
    return app("FINISH", ("write_note", {"title": "todo.txt", "text": "x"}), result="ok")


async def test_each_step_records_its_screenshot(tmp_path: Path) -> None:
    def take(path: Path) -> Screenshot:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"\x89PNG")
        return Screenshot(path, 1, 1)

    shots = FolderScreenshots(tmp_path / "shots", take)
    result = await run_request("Write the todo note", [Notes()], ScriptedBackend(planner),
                               app_models={"notes": ScriptedBackend(writer)}, screenshots=shots)
    assert result.ok
    recorded = result.blackboard["screenshots"]
    assert [s["agent"] for s in recorded] == ["host", "app-notes", "host"]
    assert all(Path(s["path"]).exists() and Path(s["path"]).parent == tmp_path / "shots" for s in recorded)


async def test_no_display_no_screenshot_and_the_run_goes_on(tmp_path: Path) -> None:
    shots = FolderScreenshots(tmp_path, lambda path: ScreenshotSkipped("no display: $DISPLAY is not set"))
    result = await run_request("Write the todo note", [Notes()], ScriptedBackend(planner),
                               app_models={"notes": ScriptedBackend(writer)}, screenshots=shots)
    assert result.ok and result.blackboard["screenshots"] == []
    assert shots.skipped == "no display: $DISPLAY is not set"
