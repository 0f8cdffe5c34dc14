"""`podium apps`: the configured applications, their tools, and what runs (processes; windows under X)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from podium.apps import display
from tests import xserver
from tests.cli.conftest import Invoke

MCP_SERVER = Path(__file__).parent / "mcp_weather_server.py"


def test_the_built_in_applications(cli: Invoke) -> None:
    result = cli("apps")
    assert result.exit_code == 0, result.output
    out = result.stdout
    for name in ("files", "documents", "spreadsheets", "shell"):
        assert f"│ {name} " in out
    assert "read_table" in out and "add_chart" in out and "delete" in out
    assert "shell runs only:" in out and " wc" in out
    assert "No display ($DISPLAY is not set): windows are not listed." in out


def test_a_running_desktop_application_is_listed_with_its_process(cli: Invoke, tmp_path: Path) -> None:
    name = f"viewer-{uuid.uuid4().hex[:6]}"
    program = tmp_path / name
    shutil.copy(shutil.which("sleep") or "/bin/sleep", program)
    (tmp_path / "project" / "podium.toml").write_text(
        f'[apps]\nenabled = ["files"]\n\n[apps.desktop.viewer]\ncommand = ["{program}", "60"]\n'
        f'process = "{name}"\ndescription = "an image viewer"\n')
    assert "None of the desktop applications runs." in cli("apps").stdout
    process = subprocess.Popen([str(program), "60"])
    try:
        out = cli("apps").stdout
    finally:
        process.kill()
        process.wait()
    assert "│ viewer " in out and "desktop" in out and "an image viewer" in out
    assert str(process.pid) in out and "Running desktop applications" in out


def test_mcp_servers_are_listed_and_connected_on_request(cli: Invoke, tmp_path: Path) -> None:
    (tmp_path / "project" / "podium.toml").write_text(
        f'[apps]\nenabled = ["files"]\n\n[apps.mcp.weather]\ncommand = "{sys.executable}"\nargs = ["{MCP_SERVER}"]\n')
    out = cli("apps").stdout
    assert "│ weather " in out and "connects at run (--connect)" in out
    connected = cli("apps", "--connect")
    assert connected.exit_code == 0, connected.output
    assert "forecast, warn" in connected.stdout


@pytest.fixture
def xvfb(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    with xserver.xvfb() as name:
        monkeypatch.setenv("DISPLAY", name)
        yield name


def show_window(tag: str) -> subprocess.Popen[bytes]:
    """An xmessage window of that class, once it is mapped. On a machine saturated by other work xmessage
    took over 15 s to map, and once gave up at start ("can't open display") on a server that had just
    accepted a connection: it is started again then, at most three times, its last error kept."""
    errors: list[str] = []
    for _ in range(3):
        window = subprocess.Popen(["xmessage", "-name", tag, "hello"], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while not any(tag in w.wm_class for w in display.list_windows()):
            if window.poll() is not None:
                errors.append(f"exit {window.returncode}: {window.communicate()[1].decode(errors='replace')}")
                break
            assert time.monotonic() < deadline, "xmessage showed no window within 60 s"
            time.sleep(0.1)
        else:
            return window
    raise AssertionError(f"xmessage exited before showing a window: {errors}")


def test_windows_are_listed_when_there_is_a_display(cli: Invoke, xvfb: str) -> None:
    tag = f"podium-{uuid.uuid4().hex[:8]}"
    window = show_window(tag)
    try:
        result = cli("apps")
    finally:
        window.kill()
        window.wait()
    assert result.exit_code == 0, result.output
    assert f"Windows on {xvfb}" in result.stdout and tag in result.stdout
