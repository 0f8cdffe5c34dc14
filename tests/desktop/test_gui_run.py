"""A scripted run through a real GUI program: the HostAgent plans one subtask on an accessible mousepad,
whose AppAgent (scripted) reads the control list in its prompt, types the text, saves it through the File
menu and the file chooser under Xvfb, and the run closes the program it launched."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from podium.apps.registry import build_applications
from podium.backends.scripted import ScriptedBackend
from podium.desktop import run_request
from tests.desktop.scripting import app, assign, host, step_of, sub, subtask_of, verifying
from tests.desktop_session import desktop_session

REQUEST = "Type 'Pick up the parcel' into the editor and save it as todo.txt"


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    with desktop_session(tmp_path_factory.mktemp("desktop")) as env:
        yield env


def planner(prompt: str) -> str:
    if verifying(prompt):
        return host("FINISH", "todo.txt is saved")
    # what a GUI save writes is the file it saves: the file chooser's name, which the request gives
    return assign(sub("1", REQUEST, "editor", writes=["todo.txt"],
                      tools=["observe", "set_text", "menu", "wait_for", "click"]))


def control(prompt: str, pattern: str) -> int:
    """The number of the last control line in the prompt that matches (the newest observation's)."""
    found = re.findall(r'"(\d+): ' + pattern, prompt)
    assert found, f"no control {pattern!r} in the prompt"
    return int(found[-1])


def editor_agent(prompt: str) -> str:
    step = step_of(prompt)
    if step == 1:
        return app("CONTINUE", ("observe", {}))
    if step == 2:
        text = control(prompt, r"text \[[^\]]*editable")
        return app("CONTINUE", ("set_text", {"control": text, "text": "Pick up the parcel\n"}),
                   ("menu", {"path": ["File", "Save As..."]}), ("wait_for", {"title": "Save As"}),
                   ("observe", {"window": "Save As"}))
    if step == 3:
        name = control(prompt, r"text \[[^\]]*editable[^\]]*\] = ''")
        # (the desktop does not run a call that already succeeded with the same arguments in the subtask, so
        # this second look names the dialog differently)
        return app("CONTINUE", ("set_text", {"control": name, "text": "todo.txt"}), ("observe", {"window": "save"}))
    if step == 4:
        return app("CONTINUE", ("click", {"control": control(prompt, r"push button 'Save' \[is_default\]")}),
                   ("wait_for", {"title": "Save As", "gone": True}))
    return app("FINISH", result="todo.txt saved")


async def test_a_scripted_run_types_and_saves_a_file_through_mousepad(session: dict[str, str],
                                                                     tmp_path: Path) -> None:
    apps = build_applications({"workspace": str(tmp_path), "enabled": ["files"], "desktop": {
        "editor": {"command": ["mousepad"], "accessible": True, "description": "a text editor",
                   "workspace": "write", "startup_timeout": 60}}})
    try:
        result = await run_request(REQUEST, list(apps.values()), ScriptedBackend(planner),
                                   app_models={"editor": ScriptedBackend(editor_agent)})
        assert result.ok, result.reason
        assert (tmp_path / "todo.txt").read_text() == "Pick up the parcel\n"
        trajectory = result.to_dict()["blackboard"]["trajectories"]
        called = {call for step in trajectory if step["agent"] == "app-editor"
                  for call in re.findall(r"(\w+)\(", step["action"] or "")}
        assert {"observe", "set_text", "menu", "wait_for", "click"} <= set(called), called
    finally:
        assert await apps.aclose() == ["editor"]  # the run launched it; it is closed at the end
    assert not await apps["editor"].is_running()


async def test_a_dialog_that_closed_itself_is_not_started_again_in_the_run(session: dict[str, str],
                                                                          tmp_path: Path) -> None:
    """Confirmed, a zenity list prints its answer and exits; the agent's next step does not start the
    dialog again (its shell would truncate the answer) and offers no tool of it, and the subtasks on it after
    that one find it closed (two of them: one alone waiting for the first would be part of its work,
    podium.desktop.host.amend)."""
    command = "zenity --list --title Fruit --column Fruit Apple Banana Cherry > fruit.txt"
    apps = build_applications({"workspace": str(tmp_path), "enabled": ["files"], "desktop": {
        "dialog": {"command": ["sh", "-c", f"cd {tmp_path} && {{ {command}; }}"], "process": "zenity",
                   "window": "zenity", "accessible": True, "workspace": "write", "startup_timeout": 60}}})

    def plan(prompt: str) -> str:
        if verifying(prompt):
            return host("FINISH", "Banana chosen")
        return assign(sub("1", "Choose Banana", "dialog", tools=["click"]),
                      sub("2", "Check the choice", "dialog", "1", tools=["observe"]),
                      sub("3", "Check the answer", "dialog", "1", tools=["observe"]))

    def dialog(prompt: str) -> str:
        if subtask_of(prompt) in ("2", "3"):
            assert "not running" in prompt  # its observation: the dialog closed itself
            return app("FINISH", result="the dialog is closed: confirmed")
        if step_of(prompt) == 1:
            return app("CONTINUE", ("click", {"control": control(prompt, r"table cell 'Banana'")}))
        if step_of(prompt) == 2:
            return app("CONTINUE", ("click", {"control": control(prompt, r"push button 'OK'")}))
        # its click ended the program: no tool of it can act any more, and it is told so
        assert "## Your program has ended\nIt exited with status 0" in prompt
        return app("FINISH", result="Banana")

    try:
        result = await run_request("Choose Banana in the fruit dialog and confirm", list(apps.values()),
                                   ScriptedBackend(plan), app_models={"dialog": ScriptedBackend(dialog)})
        assert result.ok, result.reason
        assert (tmp_path / "fruit.txt").read_text() == "Banana\n"
        assert not await apps["dialog"].is_running()
    finally:
        await apps.aclose()
