"""Application lifecycle: what is running, launching a configured desktop application, stopping it.

A desktop application is launched only from its configured command (a person's allow-list: an agent
picks an application by name, never a command line), in its own process group, and the launch
waits until it is up: its process alive (or, for launchers that hand over and exit, a process of
its group or of its configured process name) and, when a display can be asked, one of its windows
shown. Everything launched is registered; `stop_launched()` stops exactly those process groups and
nothing else (a process that was already running before is never touched).

A program is launched in its sandbox (sandbox.Sandbox, unless its configuration turns it off): the
workspace read-only by default (`workspace = "write"` lets it save there), its display, no network,
a scrubbed environment and a private home. The sandbox keeps the program in the process group that
is launched, so a stop's SIGTERM reaches it and it can close cleanly.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import signal
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import psutil

from podium.apps import display
from podium.apps.sandbox import SAFE_PATH, Access, Limits, Sandbox, SandboxUnavailable
from podium.apps.workspace import Workspace
from podium.errors import ConfigError, StartFailed

# A desktop program runs as long as the person uses it: no CPU-time or address-space limit (an office
# suite reserves gigabytes it never touches), a bound on what it writes and how many processes it runs.
DESKTOP_SANDBOX = Sandbox(limits=Limits(cpu_seconds=None, memory_bytes=None, processes=512, open_files=8192),
                          display=True, die_with_parent=False)

POLL = 0.1
SETTLE = 0.3


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
        pattern = self.window or re.escape(self.program)
        return re.search(pattern, f"{window.title}\n{window.wm_class}", re.IGNORECASE) is not None


@dataclass(slots=True)
class Launched:
    config: DesktopAppConfig
    process: asyncio.subprocess.Process
    create_time: float
    window: display.Window | None = None
    extra_args: tuple[str, ...] = field(default_factory=tuple)

    @property
    def pid(self) -> int:
        return self.process.pid


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

    def launched(self) -> list[Launched]:
        return [entry for entry in self._launched if entry.process.returncode is None or group_members(entry.pid)]

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

    async def ensure_running(self, config: DesktopAppConfig, workspace: Workspace | None = None) -> Launched | None:
        """Launch `config` unless it already runs; None when it was already running."""
        if await asyncio.to_thread(self.is_running, config):
            return None
        return await self.launch(config, workspace=workspace)

    async def launch(self, config: DesktopAppConfig, extra_args: Sequence[str] = (),
                     workspace: Workspace | None = None) -> Launched:
        """Start `config` (in its sandbox, with the workspace as its configuration says) and wait until it is up."""
        executable = config.executable()
        argv, env = [config.command[0], *config.command[1:], *extra_args], None
        if config.sandbox.enabled:
            access = config.workspace_access if workspace is not None else Access.NONE
            try:
                argv = config.sandbox.wrap(
                    [executable, *config.command[1:], *extra_args], access=access,
                    workspace=workspace.root if workspace is not None else None,
                    protected=workspace.protected_paths() if workspace is not None else (),
                    search_path=config.search_path, programs=(executable,))
            except SandboxUnavailable as exc:
                raise StartFailed(f"{config.name}: {exc}") from None
            env = config.sandbox.environment(config.search_path, home=os.environ.get("HOME", "/"))
            executable = argv[0]
        started = time.time()
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                executable=executable,
                env=env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
                start_new_session=True,  # its own group, to stop all of it
            )
        except OSError as exc:
            raise StartFailed(f"{config.name}: cannot start {executable}: {exc}") from exc
        entry = Launched(config, process, started, extra_args=tuple(extra_args))
        self._launched.append(entry)
        try:
            entry.window = await self._wait_until_up(entry)
        except BaseException:
            await self._stop(entry, grace=2.0)
            self._launched.remove(entry)
            raise
        return entry

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
                raise StartFailed(
                    f"{config.name}: {config.program} exited with status {entry.process.returncode} before it was up"
                )
            if alive and not want_window and time.monotonic() >= settled:
                return None
            if alive:
                for window in await asyncio.to_thread(display.list_windows):
                    if config.matches_window(window, members | named):
                        return window
            if time.monotonic() > deadline:
                what = "showed no window" if alive else "did not start"
                raise StartFailed(f"{config.name}: {what} within {config.startup_timeout:g} s")
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
