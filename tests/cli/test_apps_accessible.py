"""`podium apps` lists the applications on the accessibility bus and their windows (a real mousepad
under Xvfb with the accessibility bus)."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.conftest import Invoke
from tests.desktop_session import desktop_session


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    with desktop_session(tmp_path_factory.mktemp("desktop")) as env:
        yield env


@pytest.fixture
def mousepad(session: dict[str, str], tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    (tmp_path / "shopping.txt").write_text("bread\n")
    process = subprocess.Popen(["mousepad", str(tmp_path / "shopping.txt")], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, env=session | {"PATH": "/usr/bin:/bin"})
    yield process
    process.terminate()
    process.wait(timeout=10)


def test_accessible_applications_and_their_windows_are_listed(cli: Invoke, mousepad: subprocess.Popen[bytes],
                                                              tmp_path: Path) -> None:
    (tmp_path / "project" / "podium.toml").write_text(
        '[apps]\nenabled = ["files"]\n\n[apps.desktop.editor]\ncommand = ["mousepad"]\naccessible = true\n')
    deadline = time.monotonic() + 30
    while True:
        out = cli("apps").stdout
        if "shopping.txt - Mousepad" in out or time.monotonic() > deadline:
            break
        time.sleep(0.3)
    assert "│ editor " in out and "desktop (accessible)" in out and "observe" in out and "press_keys" in out
    assert "Accessible applications (AT-SPI)" in out
    row = next(line for line in out.splitlines() if "shopping.txt - Mousepad" in line)
    assert "mousepad" in row and f"{mousepad.pid}" in row and "gtk" in row.lower() and "(frame" in row


def test_without_a_session_bus_the_reason_is_given(cli: Invoke, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
    monkeypatch.delenv("AT_SPI_BUS_ADDRESS", raising=False)
    (tmp_path / "project" / "podium.toml").write_text(
        '[apps]\nenabled = ["files"]\n\n[apps.desktop.editor]\ncommand = ["mousepad"]\naccessible = true\n')
    out = cli("apps").stdout
    assert "Accessible applications are not listed: no D-Bus session bus" in out and "dbus-run-session" in out
