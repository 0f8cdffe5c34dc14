"""Application lifecycle with real processes; windows and screenshots under a real Xvfb display."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from podium.apps import display
from podium.apps.desktop_apps import DesktopApplication
from podium.apps.lifecycle import DesktopAppConfig, Lifecycle, find_processes, running_processes
from podium.apps.sandbox import Access
from podium.apps.workspace import Workspace
from podium.errors import ConfigError, StartFailed
from tests import xserver


@pytest.fixture
def program_dir(tmp_path: Path) -> Path:
    """A folder holding copies of `sleep` and `false` under names no other process on the machine has."""
    folder = tmp_path / "bin"
    folder.mkdir()
    return folder


def unique_program(folder: Path, original: str) -> str:
    name = f"podium-{original}-{uuid.uuid4().hex[:8]}"
    shutil.copy(shutil.which(original), folder / name)
    return name


@pytest.fixture
def no_display(monkeypatch) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)


async def test_launch_registers_and_stops_only_what_it_launched(program_dir: Path, no_display) -> None:
    sleeper = unique_program(program_dir, "sleep")
    config = DesktopAppConfig("sleeper", (sleeper, "60"), search_path=(str(program_dir),))
    lifecycle = Lifecycle()
    assert not lifecycle.is_running(config)
    entry = await lifecycle.ensure_running(config)
    assert entry is not None and psutil.pid_exists(entry.pid)
    # the program runs sandboxed, in the process group launched (bwrap leads it)
    [found] = find_processes(sleeper)
    assert os.getpgid(found.pid) == entry.pid
    assert lifecycle.is_running(config) and [e.config.name for e in lifecycle.launched()] == ["sleeper"]
    assert await lifecycle.ensure_running(config) is None  # already running: not launched twice
    assert len(find_processes(sleeper)) == 1
    assert await lifecycle.stop_launched(grace=5) == ["sleeper"]
    assert not psutil.pid_exists(entry.pid) or psutil.Process(entry.pid).status() == psutil.STATUS_ZOMBIE
    assert lifecycle.launched() == []


async def test_a_program_already_running_is_not_launched_nor_stopped(program_dir: Path, no_display) -> None:
    sleeper = unique_program(program_dir, "sleep")
    theirs = subprocess.Popen([str(program_dir / sleeper), "60"])
    try:
        lifecycle = Lifecycle()
        config = DesktopAppConfig("sleeper", (sleeper, "60"), search_path=(str(program_dir),))
        assert await lifecycle.ensure_running(config) is None
        assert await lifecycle.stop_launched() == []
        assert theirs.poll() is None
    finally:
        theirs.kill()
        theirs.wait()


async def test_a_program_that_exits_at_once_fails_to_launch(program_dir: Path, no_display) -> None:
    quitter = unique_program(program_dir, "false")
    lifecycle = Lifecycle()
    with pytest.raises(StartFailed, match="exited with status 1"):
        await lifecycle.launch(DesktopAppConfig("quitter", (quitter,), search_path=(str(program_dir),)))
    assert lifecycle.launched() == []


async def test_unknown_or_relative_programs_are_refused(no_display) -> None:
    with pytest.raises(StartFailed, match="not installed"):
        await Lifecycle().launch(DesktopAppConfig("ghost", ("podium-no-such-program",)))
    with pytest.raises(ConfigError, match="bare program name"):
        await Lifecycle().launch(DesktopAppConfig("tricky", ("./sleep", "1")))
    with pytest.raises(ConfigError, match="command"):
        DesktopAppConfig("empty", ())


async def test_what_appears_at_a_protected_path_after_a_writing_program_ended_is_not_its_doing(
        tmp_path: Path, no_display) -> None:
    """A program allowed to write the workspace is checked after each call for a protected path it created
    (tests/security/probes_bypass.py tries that); once it has ended and been checked, a podium.toml made
    afterwards (by the person, by an approved tool) is left where it is, and the calls do not fail for it."""
    root = tmp_path / "work"
    root.mkdir()
    config = DesktopAppConfig("quick", ("sh", "-c", "sleep 0.5"), process=f"podium-quick-{uuid.uuid4().hex[:8]}",
                              workspace_access=Access.WRITE)
    lifecycle = Lifecycle()
    app = DesktopApplication(config, lifecycle, Workspace.at(root))
    await app.launch()
    for _ in range(100):
        if lifecycle.exit_status(config) is not None:
            break
        await asyncio.sleep(0.1)
    assert lifecycle.exit_status(config) == 0
    assert (await app.call("status", {})).ok  # it made nothing
    (root / "podium.toml").write_text("[apps]\n")
    assert (await app.call("status", {})).ok and (root / "podium.toml").read_text() == "[apps]\n"
    await lifecycle.stop_launched()
    assert lifecycle.undo_created("quick") == [] and (root / "podium.toml").exists()


def test_processes_are_listed() -> None:
    me = os.getpid()
    assert any(p.pid == me for p in running_processes())


def test_no_display_is_a_value_not_an_error(tmp_path: Path, no_display) -> None:
    shot = display.screenshot(tmp_path / "shot.png")
    assert shot == display.ScreenshotSkipped("no display: $DISPLAY is not set")
    assert display.list_windows() == [] and not (tmp_path / "shot.png").exists()


# -- under a real X server ------------------------------------------------------------------------
@pytest.fixture
def xvfb(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    with xserver.xvfb("800x600x24") as name:
        monkeypatch.setenv("DISPLAY", name)
        yield name


def xmessage_config(tag: str, **options) -> DesktopAppConfig:
    return DesktopAppConfig(
        "message",
        ("xmessage", "-name", tag, *options.pop("args", ("hello",))),
        window=tag,
        startup_timeout=20,
        **options,
    )


async def test_desktop_app_under_xvfb(xvfb: str, tmp_path: Path) -> None:
    tag = f"podium-{uuid.uuid4().hex[:8]}"
    lifecycle = Lifecycle()
    app = DesktopApplication(xmessage_config(tag), lifecycle)
    assert not await app.is_running()
    await app.launch()
    assert await app.is_running()
    [entry] = lifecycle.launched()
    assert entry.window is not None and tag in entry.window.wm_class
    assert any(tag in w.wm_class for w in display.list_windows())
    status = (await app.call("status", {})).content
    assert status["running"] and status["launched_by_this_session"] and status["windows"]

    shot = display.screenshot(tmp_path / "desk.png")
    assert isinstance(shot, display.Screenshot) and (shot.width, shot.height) == (800, 600)
    assert shot.path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    assert app.is_sensitive("close", {}) and not app.is_sensitive("status", {})
    assert (await app.call("close", {})).ok
    assert not any(tag in w.wm_class for w in display.list_windows())
    assert not psutil.pid_exists(entry.pid) or psutil.Process(entry.pid).status() == psutil.STATUS_ZOMBIE
    assert "not launched by this session" in (await app.call("close", {})).error


async def test_open_a_workspace_file_under_xvfb(xvfb: str, root: Path) -> None:
    tag = f"podium-{uuid.uuid4().hex[:8]}"
    lifecycle = Lifecycle()
    config = xmessage_config(tag, args=("-file",), opens_files=True)
    app = DesktopApplication(config, lifecycle, Workspace.at(root))
    opened = await app.call("open_file", {"path": "notes.txt"})
    assert opened.ok, opened.error
    assert tag in " ".join(psutil.Process(opened.content["pid"]).cmdline()) or opened.content["window"] is not None
    assert psutil.Process(opened.content["pid"]).cmdline()[-1] == str(root / "notes.txt")
    assert "outside the workspace" in (await app.call("open_file", {"path": "../outside/secret.txt"})).error
    assert await lifecycle.stop_launched() == ["message"]


async def test_a_window_that_never_shows_fails_the_launch(xvfb: str, program_dir: Path) -> None:
    sleeper = unique_program(program_dir, "sleep")
    config = DesktopAppConfig(
        "windowless", (sleeper, "60"), window="never-there", startup_timeout=1, search_path=(str(program_dir),)
    )
    lifecycle = Lifecycle()
    with pytest.raises(StartFailed, match="showed no window within 1 s"):
        await lifecycle.launch(config)
    assert find_processes(sleeper) == [] and lifecycle.launched() == []
