"""Application lifecycle: what is running, launching a configured desktop application, stopping it.

A desktop application is launched only from its configured command (a person's allow-list: an agent
picks an application by name, never a command line), in its own process group, and the launch
waits until it is up: its process alive (or, for launchers that hand over and exit, a process of
its group or of its configured process name) and, when a display can be asked, one of its windows
shown. Everything launched is registered; `stop_launched()` stops exactly those process groups and
nothing else (a process that was already running before is never touched).

A program is launched in its sandbox (sandbox.Sandbox, unless its configuration turns it off): the
workspace read-only by default (`workspace = "write"` lets it save there), its display, no network,
a scrubbed environment and a private home, and of the person's D-Bus only what its `BusAccess` says,
through a filtering proxy started for the launch (desktop_bus.py). The sandbox keeps the program in the
process group that is launched, so a stop's SIGTERM reaches it and it can close cleanly. Each launch has a
private folder (the proxy's sockets, the program's error output) removed when the program is stopped; a
program that fails to come up is reported with the last lines it wrote to its error output.

A sandbox shows only the protected paths that exist read-only (workspace.absent_protected says why): for a
program that may write the workspace, those absent at its launch are noted, and what it created there is
moved aside (`undo_created`) after each call of its application and once it is stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import signal
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from podium.apps import desktop_bus, display
from podium.apps.desktop_bus import BusAccess, BusProxy
from podium.apps.sandbox import SAFE_PATH, Access, Limits, Sandbox, SandboxUnavailable
from podium.apps.workspace import Absent, Workspace, absent_protected, remove_created
from podium.errors import ConfigError, StartFailed

# A desktop program runs as long as the person uses it: no CPU-time or address-space limit (an office
# suite reserves gigabytes it never touches), a bound on what it writes and how many processes it runs.
DESKTOP_SANDBOX = Sandbox(limits=Limits(cpu_seconds=None, memory_bytes=None, processes=512, open_files=8192),
                          display=True, die_with_parent=False)

# The session bus, filtered: no name of its own, nobody to call (the configuration names them).
DESKTOP_BUS = BusAccess()

POLL = 0.1
SETTLE = 0.3
TAIL_LINES = 5  # of a program's error output, in the error of a launch that failed


@dataclass(frozen=True, slots=True)
class ProcessInfo:
    pid: int
    name: str
    cmdline: tuple[str, ...]
    create_time: float


@dataclass(frozen=True, slots=True)
class DesktopAppConfig:
    name: str
    command: tuple[str, ...]
    process: str | None = None  # the process name that shows it runs; default: the command's program
    window: str | None = None  # regular expression on window title or class; default: the program name
    startup_timeout: float = 30.0
    description: str = ""
    file_types: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    opens_files: bool = False  # the command takes a file to open as its last argument
    search_path: tuple[str, ...] = SAFE_PATH
    sandbox: Sandbox = DESKTOP_SANDBOX
    workspace_access: Access = Access.READ  # what it may do with the workspace, inside its sandbox
    bus: BusAccess = DESKTOP_BUS  # what it reaches of the person's D-Bus, inside its sandbox

    def __post_init__(self) -> None:
        if not self.command or not all(isinstance(a, str) and a for a in self.command):
            raise ConfigError(f"desktop application {self.name!r}: command must be a non-empty list of strings")
        if self.startup_timeout <= 0:
            raise ConfigError(f"desktop application {self.name!r}: startup_timeout must be positive")
        if self.window is not None:
            try:
                re.compile(self.window)
            except re.error as exc:
                raise ConfigError(f"desktop application {self.name!r}: window {self.window!r}: {exc}") from exc

    @property
    def program(self) -> str:
        return os.path.basename(self.command[0])

    def executable(self) -> str:
        """The program to run: an absolute path as configured, or a bare name found on the safe PATH."""
        first = self.command[0]
        if os.path.isabs(first):
            if not os.access(first, os.X_OK):
                raise StartFailed(f"{self.name}: {first} is not an executable file")
            return first
        if "/" in first:
            raise ConfigError(f"desktop application {self.name!r}: give a bare program name or an absolute path")
        found = shutil.which(first, path=os.pathsep.join(self.search_path))
        if found is None:
            raise StartFailed(f"{self.name}: {first!r} is not installed in {':'.join(self.search_path)}")
        return found

    def matches_window(self, window: display.Window, pids: set[int]) -> bool:
        if window.pid is not None and window.pid in pids:
            return True
        pattern = self.window or re.escape(self.process or self.program)
        return re.search(pattern, f"{window.title}\n{window.wm_class}", re.IGNORECASE) is not None


@dataclass(slots=True)
class Launched:
    config: DesktopAppConfig
    process: asyncio.subprocess.Process
    create_time: float
    window: display.Window | None = None
    extra_args: tuple[str, ...] = field(default_factory=tuple)
    folder: Path | None = None  # private to this launch: the bus proxy's sockets, the error output
    bus: BusProxy | None = None
    workspace: Workspace | None = None
    # The protected paths absent when it was launched, if it may write the workspace (workspace.absent_protected)
    absent: Absent = field(default_factory=dict)

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def sandboxed(self) -> bool:
        return self.config.sandbox.enabled

    def pids(self) -> set[int]:
        """The processes that speak for it: its process group, and its bus proxy (whose connections the buses
        see as the program's)."""
        return {self.pid, *group_members(self.pid), *((self.bus.pid,) if self.bus is not None else ())}

    def owns(self) -> Callable[[display.Window], bool]:
        """Which X windows are this launch's: those carrying one of its pids as its processes see them and
        matching its window pattern (a sandboxed program's pids are its pid namespace's: small numbers every
        sandbox reuses, which alone would not tell two sandboxes' windows apart)."""
        pids = self.window_pids()
        return lambda window: window.pid in pids and self.config.matches_window(window, set())

    def window_pids(self) -> set[int]:
        """The pids its X windows carry (_NET_WM_PID): each of its processes' pid in its own pid namespace."""
        found = set()
        for pid in (self.pid, *group_members(self.pid)):
            with contextlib.suppress(OSError), open(f"/proc/{pid}/status") as status:
                line = next((line for line in status if line.startswith("NSpid:")), "")
                if line.split()[1:]:
                    found.add(int(line.split()[-1]))
        return found

    def error_tail(self) -> str:
        """The last lines of what it wrote to its error output ('' if nothing)."""
        if self.folder is None:
            return ""
        try:
            with open(self.folder / "stderr", "rb") as output:
                output.seek(max(0, output.seek(0, os.SEEK_END) - 4096))
                lines = output.read().decode(errors="replace").strip().splitlines()
        except OSError:
            return ""
        return " | ".join(line.strip()[:300] for line in lines[-TAIL_LINES:] if line.strip())


def running_processes() -> list[ProcessInfo]:
    out = []
    for proc in psutil.process_iter(["pid", "name", "cmdline", "create_time"]):
        info = proc.info
        out.append(ProcessInfo(info["pid"], info["name"] or "", tuple(info["cmdline"] or ()), info["create_time"] or 0))
    return out


def find_processes(name: str) -> list[ProcessInfo]:
    """Processes whose name, or whose program's file name, is `name`."""
    return [p for p in running_processes() if p.name == name or (p.cmdline and os.path.basename(p.cmdline[0]) == name)]


def group_members(pgid: int) -> list[int]:
    members = []
    for proc in psutil.process_iter(["pid", "status"]):
        with contextlib.suppress(ProcessLookupError, PermissionError, psutil.Error):
            if os.getpgid(proc.pid) == pgid and proc.info["status"] != psutil.STATUS_ZOMBIE:
                members.append(proc.pid)
    return members


class Lifecycle:
    """Launches configured desktop applications and remembers exactly what this session launched."""

    def __init__(self) -> None:
        self._launched: list[Launched] = []
        # What was moved aside when a launch was stopped, by application, until `undo_created` reports it
        self._refused: dict[str, list[str]] = {}

    def launched(self) -> list[Launched]:
        return [entry for entry in self._launched if entry.process.returncode is None or group_members(entry.pid)]

    def exit_status(self, config: DesktopAppConfig) -> int | None:
        """The exit status of this session's latest launch of it, once its process and every process of its
        group have ended; None while it runs, or if this session never launched it."""
        entry = next((e for e in reversed(self._launched) if e.config.name == config.name), None)
        if entry is None or entry.process.returncode is None or group_members(entry.pid):
            return None
        return entry.process.returncode

    def is_running(self, config: DesktopAppConfig) -> bool:
        """Its window is shown (when a window pattern is configured and a display can be asked), else
        a process of its name runs, or this session launched it and it has not ended."""
        if any(entry.config.name == config.name for entry in self.launched()):
            return True
        processes = find_processes(config.process or config.program)
        if config.window is not None and display.window_listing_available():
            pids = {p.pid for p in processes}
            return any(config.matches_window(window, pids) for window in display.list_windows())
        return bool(processes)

    async def ensure_running(self, config: DesktopAppConfig, workspace: Workspace | None = None, *,
                             accessibility: str | None = None) -> Launched | None:
        """Launch `config` unless it already runs; None when it was already running."""
        if await asyncio.to_thread(self.is_running, config):
            return None
        return await self.launch(config, workspace=workspace, accessibility=accessibility)

    async def launch(self, config: DesktopAppConfig, extra_args: Sequence[str] = (),
                     workspace: Workspace | None = None, *, accessibility: str | None = None) -> Launched:
        """Start `config` (in its sandbox, with the workspace and the buses as its configuration says;
        `accessibility`: the accessibility bus's address, for a program that is to be observed through it)
        and wait until it is up."""
        executable = config.executable()
        folder = Path(tempfile.mkdtemp(prefix="podium-launch-", dir=_runtime_dir()))
        bus: BusProxy | None = None
        # Taken before it starts: what is absent now and there later, it made (or the person did meanwhile: the
        # path is moved aside, not deleted, and the error names it).
        writes = config.sandbox.enabled and config.workspace_access is Access.WRITE
        absent = absent_protected(workspace) if writes and workspace is not None else {}
        try:
            argv, env, bus = await self._command(config, executable, extra_args, workspace, folder, accessibility)
            started = time.time()
            with open(folder / "stderr", "ab") as errors:
                process = await asyncio.create_subprocess_exec(
                    *argv,
                    executable=argv[0] if config.sandbox.enabled else executable,
                    env=env,
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=asyncio.subprocess.DEVNULL,
                    stderr=errors,
                    pass_fds=() if bus is None or bus.sync_fd is None else (bus.sync_fd,),
                    start_new_session=True,  # its own group, to stop all of it
                )
        except OSError as exc:
            await _discard(bus, folder)
            raise StartFailed(f"{config.name}: cannot start {executable}: {exc}") from exc
        except BaseException:
            await _discard(bus, folder)
            raise
        finally:
            if bus is not None:
                bus.handed_over()
        entry = Launched(config, process, started, extra_args=tuple(extra_args), folder=folder, bus=bus,
                         workspace=workspace, absent=absent)
        self._launched.append(entry)
        try:
            entry.window = await self._wait_until_up(entry)
        except BaseException:
            await self._stop(entry, grace=2.0)
            self._launched.remove(entry)
            raise
        return entry

    async def _command(self, config: DesktopAppConfig, executable: str, extra_args: Sequence[str],
                       workspace: Workspace | None, folder: Path, accessibility: str | None
                       ) -> tuple[list[str], dict[str, str] | None, BusProxy | None]:
        """The argv and environment that start `config`, and the bus proxy started for it."""
        if not config.sandbox.enabled:
            return [config.command[0], *config.command[1:], *extra_args], None, None
        try:
            config.sandbox.check()
        except SandboxUnavailable as exc:
            raise StartFailed(f"{config.name}: {exc}") from None
        try:
            bus = await desktop_bus.start(config.bus, folder, accessibility)
        except StartFailed as exc:
            raise StartFailed(f"{config.name}: {exc}") from None
        access = config.workspace_access if workspace is not None else Access.NONE
        try:
            argv = config.sandbox.wrap(
                [executable, *config.command[1:], *extra_args], access=access,
                workspace=workspace.root if workspace is not None else None,
                protected=workspace.protected_paths() if workspace is not None else (),
                search_path=config.search_path, programs=(executable,),
                sockets=bus.sockets if bus is not None else (), sync_fd=bus.sync_fd if bus is not None else None)
        except SandboxUnavailable as exc:
            await _discard(bus, None)
            raise StartFailed(f"{config.name}: {exc}") from None
        env = config.sandbox.environment(config.search_path, home=os.environ.get("HOME", "/"),
                                         extra=bus.environment if bus is not None else None)
        return argv, env, bus

    async def _wait_until_up(self, entry: Launched) -> display.Window | None:
        config = entry.config
        deadline = time.monotonic() + config.startup_timeout
        # Without a window to wait for, up means still running a moment after the start: a program that
        # exits at once (a wrong argument, a sandbox it cannot start in) fails the launch.
        settled = time.monotonic() + SETTLE
        want_window = await asyncio.to_thread(display.window_listing_available)
        while True:
            members = set(await asyncio.to_thread(group_members, entry.pid))
            named = {
                p.pid
                for p in await asyncio.to_thread(find_processes, config.process or config.program)
                if p.create_time >= entry.create_time - 1
            }
            alive = bool(members or named)
            if not alive and entry.process.returncode is not None:
                raise StartFailed(f"{config.name}: {config.program} exited with status {entry.process.returncode} "
                                  f"before it was up{_said(entry)}")
            if alive and not want_window and time.monotonic() >= settled:
                return None
            if alive:
                for window in await asyncio.to_thread(display.list_windows):
                    if config.matches_window(window, members | named):
                        return window
            if time.monotonic() > deadline:
                what = "showed no window" if alive else "did not start"
                raise StartFailed(f"{config.name}: {what} within {config.startup_timeout:g} s{_said(entry)}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(entry.process.wait()), POLL)

    async def stop_launched(self, grace: float = 5.0) -> list[str]:
        """Stop every process group this session launched (and only those); the names stopped."""
        stopped = []
        for entry in list(reversed(self._launched)):
            await self._stop(entry, grace)
            stopped.append(entry.config.name)
        self._launched.clear()
        return stopped

    async def stop(self, name: str, grace: float = 5.0) -> bool:
        entries = [e for e in self._launched if e.config.name == name]
        for entry in entries:
            await self._stop(entry, grace)
            self._launched.remove(entry)
        return bool(entries)

    async def _stop(self, entry: Launched, grace: float) -> None:
        try:
            await self._stop_group(entry, grace)
        finally:
            # its processes have ended: what it made at an absent protected path goes aside, reported by the
            # call that stopped it (its application's close) or the next one
            moved = self._undo(entry)
            if moved:
                self._refused.setdefault(entry.config.name, []).extend(moved)
            await _discard(entry.bus, entry.folder)

    def undo_created(self, name: str) -> list[str]:
        """Move aside what this session's launches of the application `name` created at a protected path that
        was absent when each was launched (workspace.remove_created), and say what was moved: now, or when one
        of them was stopped since the last time this was asked. Its application asks after each of its calls."""
        moved = self._refused.pop(name, [])
        for entry in list(self._launched):  # (asked from a thread: a copy)
            if entry.config.name == name:
                moved += self._undo(entry)
        return moved

    def _undo(self, entry: Launched) -> list[str]:
        if not entry.absent or entry.workspace is None:
            return []
        ended = entry.process.returncode is not None and not group_members(entry.pid)
        try:
            moved = remove_created(entry.workspace, entry.absent)
        except OSError as exc:  # left there: the call fails all the same, saying so
            moved = [f"a protected path, which could not be moved aside ({exc})"]
        if ended:
            entry.absent = {}  # nothing of it runs any more: what appears there later is not its doing
        return moved

    async def _stop_group(self, entry: Launched, grace: float) -> None:
        pgid = entry.pid
        # With the leader gone, its pid can name a newer group only once every member is gone.
        if entry.process.returncode is not None and not group_members(pgid):
            return
        _signal_group(pgid, signal.SIGTERM)
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(entry.process.wait()), POLL)
            if entry.process.returncode is not None and not await asyncio.to_thread(group_members, pgid):
                return
        _signal_group(pgid, signal.SIGKILL)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(entry.process.wait(), grace)


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _runtime_dir() -> str | None:
    """Where a launch's private folder goes: the person's runtime folder when there is one of theirs and a
    socket's path in it stays within the 107 bytes a Unix socket's address holds; else the temporary folder."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if not runtime or len(runtime.encode()) > 64 or not os.path.isdir(runtime):
        return None
    return runtime if os.stat(runtime).st_uid == os.getuid() else None


async def _discard(bus: BusProxy | None, folder: Path | None) -> None:
    if bus is not None:
        await bus.aclose()
    if folder is not None:
        await asyncio.to_thread(shutil.rmtree, folder, True)


def _said(entry: Launched) -> str:
    """What the program wrote to its error output, and what its sandbox let it reach of the session bus
    (a program that registers a name it may not own stops: the name goes in `own_names`)."""
    tail = entry.error_tail()
    said = f"; it said: {tail}" if tail else ""
    if entry.bus is not None and any(inside == desktop_bus.SESSION_INSIDE for _, inside in entry.bus.sockets):
        owned = ", ".join(entry.config.bus.own) or "no name"
        said += f" (in its sandbox it may own {owned} on the session bus: a name it registers goes in own_names)"
    return said
