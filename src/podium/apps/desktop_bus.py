"""The D-Bus a sandboxed desktop program reaches: the person's session bus and the accessibility bus, each
through a filtering proxy (xdg-dbus-proxy, the one Flatpak runs in front of every app), never the buses
themselves.

Why a proxy and not the buses' sockets: the session bus is the desktop's command line. On it a program can
ask the systemd user manager to start any command outside every sandbox (StartTransientUnit), read the
keyring's passwords (org.freedesktop.secrets), or rewrite the settings that say what a shortcut runs
(dconf). The accessibility bus is another: every program on it can read and drive every other program's
windows (their text, their buttons). A socket bound into the sandbox would hand all of that over. The proxy
listens on a socket of its own, which is the only one bound in, and passes on only:
- on the session bus, the names the configuration lets the program own (its application id: a GTK or Qt
  program that registers itself, as GApplication does, stops when it cannot) and talk to (none unless
  configured); every other service is invisible (NameHasNoOwner), and calls to it are dropped;
- on the accessibility bus (for programs driven through their windows), exactly Flatpak's rules: the calls a
  toolkit makes to put its tree on the bus (the registry's Embed/Unembed, the events it listens for, the key
  listeners it reports to) and the broadcasts about those listeners. Calls *into* the program, podium
  reading and acting on its controls, are not filtered (a proxy filters only what its client sends and the
  broadcasts it receives), so the program is observed while it cannot observe or call anything else.
The program's own unique names stay visible (--sloppy-names) so that replies reach it.

What keeps the buses' real sockets out of reach: a bus listening on a path (/run/user/1000/bus) is not in
the sandbox's filesystem (nothing of /run or /tmp is bound), and one listening on an abstract socket
(unix:abstract=..., an older dbus-launch's and at-spi's default) is scoped to the network namespace, which
every sandbox unshares. That is why the boundary relies on the network namespace, and why a program given
the network (`network = true`) shares the host's abstract sockets too: give it only to programs trusted with
the session. The X root window still names the accessibility bus (AT_SPI_BUS), but its socket is unreachable
for the same two reasons.

One proxy process serves both buses of one launch; it is ready when it writes a byte on the pipe given to
it (--fd) and ends when the other end closes: bwrap holds that end (--sync-fd) for as long as the sandbox
runs, so the proxy lives exactly as long as the program, however it ends.
"""

from __future__ import annotations

import asyncio
import configparser
import contextlib
import os
import re
import shlex
import shutil
import signal
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from podium.errors import ConfigError, StartFailed

SEARCH = ("/usr/local/bin", "/usr/bin", "/bin")
INSTALL = "install xdg-dbus-proxy (Debian/Ubuntu: apt-get install xdg-dbus-proxy; Fedora: dnf install xdg-dbus-proxy)"
INSIDE = "/run/podium"  # where the proxy's sockets are inside the sandbox
SESSION_INSIDE = f"{INSIDE}/bus"
ACCESSIBILITY_INSIDE = f"{INSIDE}/at-spi-bus"
READY_TIMEOUT = 10.0
# A well-known D-Bus name, or a pattern of them ("org.example.App.*" is the name and those below it).
NAME = re.compile(r"^[A-Za-z_-][A-Za-z0-9_-]*(\.[A-Za-z_-][A-Za-z0-9_-]*)+(\.\*)?$")

_REGISTRY = "org.a11y.atspi.Registry"
_DEC = "org.a11y.atspi.DeviceEventController"
# What a toolkit needs to put its accessible tree on the accessibility bus: Flatpak's rules, as they are.
ACCESSIBILITY_RULES = (
    f"--broadcast={_REGISTRY}=org.a11y.atspi.Registry.EventListenerRegistered@/org/a11y/atspi/registry",
    f"--broadcast={_REGISTRY}=org.a11y.atspi.Registry.EventListenerDeregistered@/org/a11y/atspi/registry",
    f"--call={_REGISTRY}=org.a11y.atspi.Socket.Embed@/org/a11y/atspi/accessible/root",
    f"--call={_REGISTRY}=org.a11y.atspi.Socket.Unembed@/org/a11y/atspi/accessible/root",
    f"--call={_REGISTRY}=org.a11y.atspi.Registry.GetRegisteredEvents@/org/a11y/atspi/registry",
    *(f"--call={_REGISTRY}={_DEC}.{method}@/org/a11y/atspi/registry/deviceeventcontroller"
      for method in ("GetKeystrokeListeners", "GetDeviceEventListeners", "NotifyListenersSync",
                     "NotifyListenersAsync")),
)


class BusUnavailable(StartFailed):
    """A program was to reach a bus through the proxy and the proxy cannot be started; nothing was run."""


@dataclass(frozen=True, slots=True)
class BusAccess:
    """What one desktop program reaches of the person's D-Bus, inside its sandbox."""

    session: bool = True  # the session bus, filtered
    own: tuple[str, ...] = ()  # names it may own there (and talk to)
    talk: tuple[str, ...] = ()  # names it may call there
    accessibility: bool = False  # the accessibility bus, filtered to what a toolkit needs to be observed

    def __post_init__(self) -> None:
        bad = [name for name in (*self.own, *self.talk) if not NAME.match(name) or len(name) > 255]
        if bad:
            raise ConfigError(f"not D-Bus names: {bad}; write well-known names such as 'org.example.App' "
                              "(a trailing '.*' takes the names below it too)")

    def proxy_arguments(self, session: str | None, accessibility: str | None, folder: Path) -> list[str]:
        """xdg-dbus-proxy's arguments for the buses found (their addresses; None: not there or not given),
        each listening in `folder`."""
        arguments: list[str] = []
        if session is not None and self.session:
            arguments += [session, str(folder / "bus"), "--filter", *(f"--own={name}" for name in self.own),
                          *(f"--talk={name}" for name in self.talk)]
        if accessibility is not None and self.accessibility:
            arguments += [accessibility, str(folder / "at-spi-bus"), "--filter", "--sloppy-names",
                          *ACCESSIBILITY_RULES]
        return arguments

    def describe(self) -> str:
        parts = []
        if self.session:
            owned = f"owning {', '.join(self.own)}" if self.own else "owning no name"
            parts.append(f"the session bus through a filter ({owned}"
                         + (f", talking to {', '.join(self.talk)})" if self.talk else ")"))
        if self.accessibility:
            parts.append("the accessibility bus through a filter (its own tree only)")
        return " and ".join(parts) or "no D-Bus"


def installed() -> str | None:
    """The proxy's path, or None when it is not installed."""
    return shutil.which("xdg-dbus-proxy", path=os.pathsep.join(SEARCH))


def session_address() -> str | None:
    """The session bus's address, as a D-Bus client finds it: $DBUS_SESSION_BUS_ADDRESS, else the socket
    $XDG_RUNTIME_DIR/bus of a systemd user session; None when there is none."""
    if os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        return os.environ["DBUS_SESSION_BUS_ADDRESS"]
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        with contextlib.suppress(OSError):
            found = os.stat(Path(runtime) / "bus")
            if stat.S_ISSOCK(found.st_mode) and found.st_uid == os.getuid():
                return f"unix:path={Path(runtime) / 'bus'}"
    return None


def application_ids(program: str, data_dirs: Iterable[str] | None = None) -> tuple[str, ...]:
    """The application ids of `program`: the ids of the desktop entries that run it (their Exec's program)
    and are D-Bus names. The freedesktop.org convention makes an application's desktop entry id its
    well-known name on the session bus (org.xfce.mousepad.desktop: org.xfce.mousepad), which is the name a
    GApplication registers."""
    dirs = list(data_dirs) if data_dirs is not None else [
        *(os.environ.get("XDG_DATA_DIRS") or "/usr/local/share:/usr/share").split(":")]
    found: list[str] = []
    for folder in dirs:
        applications = Path(folder) / "applications"
        with contextlib.suppress(OSError):
            for entry in sorted(applications.glob("*.desktop")):
                ident = entry.name.removesuffix(".desktop")
                if NAME.match(ident) and not ident.endswith(".*") and _runs(entry, program):
                    found.append(ident)
    return tuple(dict.fromkeys(found))


def _runs(entry: Path, program: str) -> bool:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(entry.read_text(encoding="utf-8", errors="replace")[:65536])
        command = shlex.split(parser.get("Desktop Entry", "Exec", fallback=""))
    except (configparser.Error, ValueError, OSError):
        return False
    return bool(command) and os.path.basename(command[0]) == program


@dataclass(slots=True)
class BusProxy:
    """A running proxy for one launch: the sockets to bind into its sandbox and the variables naming them."""

    process: asyncio.subprocess.Process
    sockets: tuple[tuple[str, str], ...]  # (outside, inside)
    environment: Mapping[str, str]
    sync_fd: int | None  # the pipe's end bwrap keeps open (--sync-fd) while the sandbox runs
    access: BusAccess = field(default_factory=BusAccess)

    @property
    def pid(self) -> int:
        """The process whose connections the buses see for the program (GetConnectionUnixProcessID)."""
        return self.process.pid

    def handed_over(self) -> None:
        """bwrap holds the sync pipe now (or failed to start): podium's end is closed, so the proxy ends with
        the sandbox."""
        if self.sync_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.sync_fd)
            self.sync_fd = None

    async def aclose(self, grace: float = 2.0) -> None:
        """Wait for the proxy to end (it does once its sandbox has), and end it past `grace`."""
        self.handed_over()
        if self.process.returncode is None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.process.wait(), grace)
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.send_signal(signal.SIGTERM)
            await self.process.wait()


async def start(access: BusAccess, folder: Path, accessibility: str | None = None) -> BusProxy | None:
    """Start the proxy for the buses `access` gives and that exist (`accessibility`: the accessibility
    bus's address, found by the caller), listening in `folder` (private to this launch); None when the
    program gets no bus at all. Raises BusUnavailable when a bus is to be given and cannot be."""
    session = session_address() if access.session else None
    arguments = access.proxy_arguments(session, accessibility if access.accessibility else None, folder)
    if not arguments:
        return None
    program = installed()
    if program is None:
        raise BusUnavailable(f"refused: a desktop program reaches the session's D-Bus only through a filter, and "
                             f"xdg-dbus-proxy is not installed; {INSTALL}")
    ready_read, ready_write = os.pipe()
    log = folder / "bus-proxy.log"
    try:
        with open(log, "ab") as errors:
            process = await asyncio.create_subprocess_exec(
                program, f"--fd={ready_write}", *arguments, pass_fds=(ready_write,), stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL, stderr=errors, start_new_session=True)  # not ended by Ctrl-C
    except OSError as exc:
        os.close(ready_read)
        raise BusUnavailable(f"cannot start {program}: {exc}") from exc
    finally:
        os.close(ready_write)
    sockets = []
    environment = {}
    if session is not None and access.session:
        sockets.append((str(folder / "bus"), SESSION_INSIDE))
        environment["DBUS_SESSION_BUS_ADDRESS"] = f"unix:path={SESSION_INSIDE}"
    if accessibility is not None and access.accessibility:
        sockets.append((str(folder / "at-spi-bus"), ACCESSIBILITY_INSIDE))
        environment["AT_SPI_BUS_ADDRESS"] = f"unix:path={ACCESSIBILITY_INSIDE}"
    proxy = BusProxy(process, tuple(sockets), environment, ready_read, access)
    try:
        # One byte once it listens on every socket; nothing (end of file) if it exited first.
        ready = await asyncio.wait_for(asyncio.to_thread(os.read, ready_read, 1), READY_TIMEOUT)
    except TimeoutError:
        ready = b""
    if not ready:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await proxy.aclose()
        said = log.read_text(errors="replace").strip().splitlines()[-3:] if log.exists() else []
        raise BusUnavailable(f"xdg-dbus-proxy did not start ({'; '.join(said) or f'status {process.returncode}'}); "
                             f"the buses: {session or '-'}, {accessibility or '-'}")
    return proxy
