from __future__ import annotations

from pathlib import Path

import pytest

from podium.apps.documents import DocumentsApplication
from podium.apps.spreadsheets import SpreadsheetsApplication
from podium.apps.workspace import Workspace


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A workspace root with a secret file right next to it (outside), to try to reach."""
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("top secret")
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("hello\n")
    (work / "sub").mkdir()
    (work / "sub" / "inner.txt").write_text("inner\n")
    return work


@pytest.fixture
def workspace(root: Path) -> Workspace:
    return Workspace.at(root)


@pytest.fixture
def sheets(workspace: Workspace) -> SpreadsheetsApplication:
    return SpreadsheetsApplication(workspace)


@pytest.fixture
def documents(workspace: Workspace) -> DocumentsApplication:
    return DocumentsApplication(workspace)
