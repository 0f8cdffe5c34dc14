from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from typer.testing import CliRunner

from podium.cli import app

Invoke = Callable[..., Result]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """PODIUM_HOME (user config and journal) in a temporary folder, and a project folder as the current one:
    nothing of the machine's own settings or records is read or written."""
    home = tmp_path / "home"
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.setenv("PODIUM_HOME", str(home))
    monkeypatch.setenv("COLUMNS", "200")  # tables are not wrapped mid-word in the assertions' way
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.chdir(project)
    return home


@pytest.fixture
def cli(home: Path) -> Invoke:
    def invoke(*args: str, input: str | None = None) -> Result:
        return CliRunner().invoke(app, list(args), input=input)

    return invoke


@pytest.fixture
def work(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


def read_json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))
