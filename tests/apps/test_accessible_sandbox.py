"""GUI programs in the sandbox: what they reach of the desktop (their X display, the session bus and the
accessibility bus, each through a filter) and what they still cannot reach. A real mousepad is inspected
from outside (/proc/PID/root is its view of the filesystem), and a probe run exactly as a desktop program
tries, from inside, what a hostile one would: files outside the workspace, the network, other D-Bus services,
other applications on the accessibility bus."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from podium.apps import desktop_bus
from podium.apps.accessible.app import AccessibleApplication
from podium.apps.accessible.bus import accessibility_address
from podium.apps.desktop_bus import ACCESSIBILITY_RULES, BusAccess, application_ids
from podium.apps.lifecycle import DesktopAppConfig, Lifecycle
from podium.apps.registry import build_applications
from podium.errors import ConfigError, StartFailed
from tests.desktop_session import desktop_session

PROBE = Path(__file__).with_name("gui_probe.py")


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    with desktop_session(tmp_path_factory.mktemp("desktop")) as env:
        yield env


def socket_path(address: str) -> str:
    """The filesystem socket of a D-Bus address ('unix:path=/x,guid=...')."""
    for part in address.split(",") + address.split(":", 1)[1:]:
        if part.startswith("path="):
            return part.removeprefix("path=").split(",")[0]
    raise AssertionError(f"not a path address: {address}")


# -- the filter, as arguments ----------------------------------------------------------------------


def test_the_proxy_gets_only_the_names_and_buses_given(tmp_path: Path) -> None:
    access = BusAccess(own=("org.example.Editor",), talk=("org.example.Helper.*",), accessibility=True)
    arguments = access.proxy_arguments("unix:path=/run/user/1/bus", "unix:abstract=/tmp/a11y", tmp_path)
    session_part = arguments[:arguments.index("unix:abstract=/tmp/a11y")]
    assert session_part == ["unix:path=/run/user/1/bus", str(tmp_path / "bus"), "--filter",
                            "--own=org.example.Editor", "--talk=org.example.Helper.*"]
    a11y_part = arguments[len(session_part):]
    assert a11y_part[:4] == ["unix:abstract=/tmp/a11y", str(tmp_path / "at-spi-bus"), "--filter", "--sloppy-names"]
    assert a11y_part[4:] == list(ACCESSIBILITY_RULES)
    # every accessibility rule names the registry: a program may call nothing else there
    assert all(rule.split("=", 2)[1] == "org.a11y.atspi.Registry" for rule in ACCESSIBILITY_RULES)
    assert BusAccess().proxy_arguments("unix:path=/b", "unix:path=/a", tmp_path) == [
        "unix:path=/b", str(tmp_path / "bus"), "--filter"]  # no accessibility bus unless observed
    assert BusAccess(session=False).proxy_arguments(None, None, tmp_path) == []


@pytest.mark.parametrize("name", ["org", "org..x", "1org.x", "org.x;rm", "*", "org.*.x", ""])
def test_a_name_that_is_not_a_dbus_name_is_refused(name: str) -> None:
    with pytest.raises(ConfigError, match="not D-Bus names"):
        BusAccess(own=(name,))


def test_the_configuration_names_the_program_and_the_option(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="desktop application 'editor': not D-Bus names"):
        build_applications({"workspace": str(tmp_path), "enabled": [], "desktop": {
            "editor": {"command": ["mousepad"], "own_names": ["not a name"]}}})


def test_application_ids_come_from_the_desktop_entries_that_run_the_program(tmp_path: Path) -> None:
    folder = tmp_path / "applications"
    folder.mkdir()
    (folder / "org.example.Editor.desktop").write_text("[Desktop Entry]\nName=Editor\nExec=/usr/bin/editor %U\n")
    (folder / "org.example.Other.desktop").write_text("[Desktop Entry]\nExec=other\n")
    (folder / "editor.desktop").write_text("[Desktop Entry]\nExec=editor\n")  # not a D-Bus name
    (folder / "org.example.Broken.desktop").write_text("no section at all, Exec=editor\n")
    assert application_ids("editor", [str(tmp_path)]) == ("org.example.Editor",)
    assert application_ids("nothing", [str(tmp_path), str(tmp_path / "absent")]) == ()
    config = build_applications({"workspace": str(tmp_path), "enabled": [], "desktop": {
        "editor": {"command": ["mousepad"]}, "bare": {"command": ["mousepad"], "own_names": []}}})
    assert config["editor"].config.bus.own == application_ids("mousepad")
    assert config["bare"].config.bus.own == () and not config["bare"].config.bus.accessibility
    # the run's header says what each one reaches
    assert "editor sees its X display and the session bus through a filter (owning" in config.sandbox_status()
    assert "bare sees its X display and the session bus through a filter (owning no name)" in config.sandbox_status()


def test_the_session_bus_of_a_systemd_user_session_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    assert desktop_bus.session_address() is None
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind(str(tmp_path / "bus"))
        assert desktop_bus.session_address() == f"unix:path={tmp_path / 'bus'}"


# -- launching: the proxy's life, a failed launch ---------------------------------------------------


async def test_a_program_that_fails_to_start_is_reported_with_what_it_said(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    config = DesktopAppConfig("failing", ("sh", "-c", "echo 'Failed to register: no bus' >&2; exit 3"))
    lifecycle = Lifecycle()
    with pytest.raises(StartFailed, match=r"exited with status 3 before it was up; it said: Failed to register"):
        await lifecycle.launch(config)
    assert lifecycle.launched() == []


async def test_without_the_proxy_a_program_that_needs_a_bus_is_refused(session: dict[str, str], tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(desktop_bus, "SEARCH", (str(tmp_path),))  # where no xdg-dbus-proxy is
    config = DesktopAppConfig("sleeper", ("sleep", "60"))
    with pytest.raises(StartFailed, match=r"sleeper: refused: .* xdg-dbus-proxy is not installed; install"):
        await Lifecycle().launch(config)


@pytest.fixture
async def mousepad(session: dict[str, str], tmp_path: Path) -> AsyncIterator[AccessibleApplication]:
    apps = build_applications({"workspace": str(tmp_path), "enabled": ["files"], "desktop": {
        "editor": {"command": ["mousepad"], "accessible": True, "workspace": "write", "startup_timeout": 60}}})
    editor = apps["editor"]
    assert isinstance(editor, AccessibleApplication)
    try:
        await editor.launch()
        yield editor
    finally:
        await apps.aclose()


async def test_a_gui_program_sees_its_display_and_the_filtered_buses_and_nothing_else(
        mousepad: AccessibleApplication, session: dict[str, str], tmp_path: Path) -> None:
    [entry] = mousepad.lifecycle.launched()
    assert entry.bus is not None and entry.folder is not None
    [pid] = [p for p in entry.pids() if Path(f"/proc/{p}/exe").resolve().name == "mousepad"]
    view = Path(f"/proc/{pid}/root")  # the filesystem as the program sees it
    display_number = session["DISPLAY"].lstrip(":")
    assert sorted(os.listdir(view / "tmp/.X11-unix")) == [f"X{display_number}"]  # its display's socket only
    # and the display's authority file, where the display has one (xvfb-run makes one; a bare Xvfb none)
    authority = os.environ.get("XAUTHORITY") or os.path.expanduser("~/.Xauthority")
    assert sorted(os.listdir(view / "run/podium")) == ["Xauthority"] * os.path.isfile(authority) + ["at-spi-bus", "bus"]
    assert sorted(os.listdir(view / "run")) == ["podium"]
    real_session = socket_path(session["DBUS_SESSION_BUS_ADDRESS"])
    real_a11y = socket_path(await accessibility_address())
    assert os.path.exists(real_session) and os.path.exists(real_a11y)
    assert not (view / real_session.lstrip("/")).exists() and not (view / real_a11y.lstrip("/")).exists()
    assert not (view / entry.folder.relative_to("/")).exists()  # the proxy's own folder is not there
    assert os.readlink(f"/proc/{pid}/ns/net") != os.readlink("/proc/self/ns/net")
    environ = dict(item.split("=", 1) for item in Path(f"/proc/{pid}/environ").read_text().split("\0") if "=" in item)
    assert environ["DBUS_SESSION_BUS_ADDRESS"] == "unix:path=/run/podium/bus"
    assert environ["AT_SPI_BUS_ADDRESS"] == "unix:path=/run/podium/at-spi-bus"
    assert "XDG_RUNTIME_DIR" not in environ and environ["HOME"] == "/tmp"
    # on the accessibility bus its connection is the proxy's, and that is how podium finds it
    assert (await mousepad.bus()).loop is asyncio.get_running_loop()
    assert await (await mousepad.bus()).pid((await mousepad.application())[0]) == entry.bus.pid
    # it works through the filter: its windows are observed and a control acted on
    seen = await mousepad.call("observe", {})
    assert seen.ok and any("menu 'File'" in line for line in seen.content["controls"])
    proxy, folder = entry.bus.process, entry.folder
    await mousepad.lifecycle.stop_launched()
    await asyncio.wait_for(proxy.wait(), 10)  # the proxy ends with its sandbox
    assert not folder.exists()


# -- a hostile program, from inside --------------------------------------------------------------


class Recorder:
    """A D-Bus peer that records every method call it receives (and answers it)."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, message: Any) -> Any:
        from dbus_fast import Message, MessageType

        if message.message_type != MessageType.METHOD_CALL or message.member in ("Ping", "GetMachineId"):
            return None
        self.calls.append(f"{message.interface}.{message.member}")
        return Message.new_method_return(message, "s", ["the secret"])


async def test_a_hostile_gui_program_reaches_nothing_beyond_its_display_and_filtered_buses(
        session: dict[str, str], tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    from dbus_fast.aio import MessageBus

    workspace = tmp_path / "work"
    workspace.mkdir()
    outside = tmp_path_factory.mktemp("outside")
    (outside / "kept.txt").write_text("unchanged\n")
    shutil.copy(PROBE, workspace / "probe.py")
    # what the probe will try to reach: a service on the session bus, a peer on the accessibility bus, a
    # TCP server on the loopback, an abstract socket
    secret, peer = Recorder(), Recorder()
    on_session = await MessageBus().connect()
    await on_session.request_name("org.podium.Secret")
    on_session.add_message_handler(secret)
    on_a11y = await MessageBus(bus_address=await accessibility_address()).connect()
    on_a11y.add_message_handler(peer)
    accepted: list[str] = []
    server = await asyncio.start_server(lambda r, w: accepted.append("tcp") or w.close(), "127.0.0.1", 0)
    abstract = f"podium-probe-{uuid.uuid4().hex}"
    listening = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listening.bind("\0" + abstract)
    listening.listen()
    tmp_name = f"/tmp/podium-probe-{uuid.uuid4().hex}"
    (workspace / "probe.json").write_text(json.dumps({
        "outside": str(outside / "new.txt"), "tmp_name": tmp_name, "port": server.sockets[0].getsockname()[1],
        "abstract": abstract, "session_socket": socket_path(session["DBUS_SESSION_BUS_ADDRESS"]),
        "a11y_socket": socket_path(await accessibility_address()), "test_pid": os.getpid(),
        "secret": "org.podium.Secret", "own": "org.podium.Probe", "a11y_peer": on_a11y.unique_name}))
    apps = build_applications({"workspace": str(workspace), "enabled": ["files"], "desktop": {"probe": {
        "command": [sys.executable, str(workspace / "probe.py")], "process": "zenity", "window": "probe done",
        "accessible": True, "workspace": "write", "own_names": ["org.podium.Probe"], "startup_timeout": 90}}})
    probe = apps["probe"]
    assert isinstance(probe, AccessibleApplication)
    try:
        await probe.launch()  # it ran its attempts, then became a zenity window, accessible through its proxy
        seen = await probe.call("observe", {})
        assert seen.ok and [w["title"] for w in seen.content["windows"]] == ["probe done"], seen
    finally:
        await apps.aclose()
        server.close()
        listening.close()
        on_session.disconnect()
        on_a11y.disconnect()
    report = {entry["what"]: entry for entry in json.loads((workspace / "report.json").read_text())}

    def reached(what: str) -> bool:
        return report[what]["ok"]

    # what it is given works (so the failures below are the boundary, not a broken probe)
    for given in ("write in the workspace", "write to its private /tmp", "session: connect", "session: list names",
                  "session: own its own name", "accessibility: connect", "accessibility: the events listened for"):
        assert reached(given), report[given]
    assert (workspace / "inside.txt").exists() and not os.path.exists(tmp_name)
    assert "org.podium.Secret" not in report["session: list names"]["detail"]
    assert "/run/podium/bus" in report["the bus variables"]["detail"]
    # and nothing else
    for denied in ("write outside the workspace", "write into the system", "see the real session bus",
                   "see the real accessibility bus", "tcp to the host's loopback", "tcp to the internet",
                   "an abstract socket of the host", "signal the test's process",
                   "session: call the secret service", "session: own another name", "session: start a service",
                   "session: ask for the accessibility bus", "accessibility: list the applications",
                   "accessibility: call another application"):
        assert not reached(denied), report[denied]
    assert sorted(p.name for p in outside.iterdir()) == ["kept.txt"]
    assert (outside / "kept.txt").read_text() == "unchanged\n"
    assert accepted == [] and secret.calls == [] and peer.calls == []


async def test_a_program_refused_its_name_on_the_session_bus_says_what_to_configure(
        session: dict[str, str], tmp_path: Path) -> None:
    apps = build_applications({"workspace": str(tmp_path), "enabled": [], "desktop": {"editor": {
        "command": ["mousepad"], "accessible": True, "own_names": [], "startup_timeout": 30}}})
    with pytest.raises(StartFailed, match=r"exited with status 1 before it was up; it said: .*Failed to register.*"
                                          r"it may own no name on the session bus: a name it registers goes in "
                                          r"own_names"):
        await apps["editor"].launch()
    assert apps.lifecycle.launched() == []
