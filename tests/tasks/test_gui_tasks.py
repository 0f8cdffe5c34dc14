"""Each GUI task's folder, with the podium.toml it brings, starts its real program under Xvfb with the
accessibility bus, and the program shows the controls its request needs."""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from bench.tasks.suite import gui

from podium.apps.accessible.app import AccessibleApplication
from podium.apps.registry import build_applications
from tests.desktop_session import desktop_session

NEEDS = {  # a control line each task's request needs, as the control list shows it
    "gui_type_and_save": "menu 'File'", "gui_append_line": "menu 'File'", "gui_change_setting": "menu 'Edit'",
    "gui_fill_form": "label 'Email'", "gui_pick_from_list": "table cell 'Banana'", "gui_set_volume": "slider = '20'",
}


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    with desktop_session(tmp_path_factory.mktemp("desktop")) as env:
        yield env


@pytest.mark.parametrize("task", gui.TASKS, ids=[t.name for t in gui.TASKS])
async def test_a_gui_task_starts_its_program_with_what_the_request_needs(task, session: dict[str, str],
                                                                         tmp_path: Path) -> None:
    task.build(tmp_path)
    config = tomllib.loads((tmp_path / "podium.toml").read_text())
    apps = build_applications({**config["apps"], "workspace": str(tmp_path)})
    (app,) = [a for a in apps.values() if isinstance(a, AccessibleApplication)]
    try:
        await app.launch()
        seen = await app.call("observe", {})
        assert seen.ok, seen.error
        assert any(NEEDS[task.name] in line for line in seen.content["controls"]), seen.content["controls"]
    finally:
        assert await apps.aclose() == [app.name]
