"""Build a session's applications from a plain configuration mapping (what podium.toml holds).

    {
      "workspace": "examples/quarterly",          # relative to `base`; default "."
      "enabled": ["files", "documents", "spreadsheets", "shell"],   # the built-ins (default: all four)
      "protected": ["records/journal.db"],        # more paths whose change always needs approval
      "shell": {"allow": ["wc"], "read_only": ["wc"], "interpreters": [], "defaults": true,
                "timeout": 30, "max_output": 64000, "search_path": ["/usr/bin", "/bin"],
                "confine_paths": true, "sandbox": "on", "network": false, "cpu_seconds": 60,
                "memory_mb": 2048, "file_size_mb": 1024, "processes": 64, "disk_mb": 2048,
                "shared_memory_mb": 1024, "read_paths": []},
      "mcp": {"weather": {"command": "weather-mcp", "args": ["--stdio"], "env": {"KEY": "$WEATHER_KEY"},
                          "untrusted": true, "network": true},
              "remote": {"url": "http://127.0.0.1:8000/mcp", "read_only_tools": ["lookup"]}},
      "desktop": {"calc": {"command": ["localc"], "process": "soffice.bin", "window": "LibreOffice Calc",
                           "file_types": [".xlsx", ".ods"], "opens_files": true, "startup_timeout": 60,
                           "sandbox": "on", "workspace": "write", "read_paths": ["/opt/libreoffice"]},
                  "editor": {"command": ["mousepad"], "accessible": true, "max_controls": 60,
                             "workspace": "write", "own_names": ["org.xfce.mousepad"], "talk_names": []}},
    }

A desktop program with `accessible = true` is driven through its windows' accessibility tree
(accessible.app.AccessibleApplication); without, it is only launched, listed and closed. In its sandbox
a desktop program reaches its X display and the session bus through a filter (desktop_bus.py) where it
may own `own_names` (default: the ids of the desktop entries that run its program, its application id)
and call `talk_names` (default: none); an accessible one also reaches the accessibility bus, filtered to
putting its own tree there.

`Applications` is the session's set: a read-only mapping name -> Application, plus `start()` (connect
the MCP servers), `aclose()` (close them and stop every desktop program this session launched) and
`sandbox_status()` (one line: what confines the programs they start, for a run's header).

`build_applications(..., protect=[...])` names podium's own files (the configuration file read, the
journal's database): with the workspace's podium.toml they are protected (Workspace.protected).
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from podium.apps import desktop_bus, display
from podium.apps.base import Application
from podium.apps.desktop_apps import DesktopApplication
from podium.apps.desktop_bus import BusAccess, application_ids
from podium.apps.documents import DocumentsApplication
from podium.apps.files import FilesApplication
from podium.apps.lifecycle import DESKTOP_SANDBOX, DesktopAppConfig, Lifecycle
from podium.apps.mcp_servers import McpApplication, server_config
from podium.apps.sandbox import Access, Limits, Sandbox
from podium.apps.shell import ShellApplication
from podium.apps.shell_policy import DEFAULT_ALLOW, DEFAULT_READ_ONLY, SAFE_PATH, ShellPolicy
from podium.apps.spreadsheets import SpreadsheetsApplication
from podium.apps.tooling import ToolError
from podium.apps.workspace import Workspace
from podium.errors import ConfigError, StartFailed

BUILTINS = ("files", "documents", "spreadsheets", "shell")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ShellOptions(_Strict):
    allow: list[str] = Field(default_factory=list)
    read_only: list[str] = Field(default_factory=list)
    interpreters: list[str] = Field(default_factory=list)
    defaults: bool = True
    timeout: float = 30.0
    max_output: int = 64_000
    search_path: list[str] = Field(default_factory=lambda: list(SAFE_PATH))
    confine_paths: bool = True
    # The sandbox every command runs in ("off": unconfined, said in every run's header).
    sandbox: Literal["on", "off"] = "on"
    network: bool = False
    cpu_seconds: int | None = Field(60, gt=0)
    memory_mb: int | None = Field(2048, gt=0)
    file_size_mb: int | None = Field(1024, gt=0)
    processes: int | None = Field(64, gt=0)
    disk_mb: int | None = Field(2048, gt=0)
    shared_memory_mb: int | None = Field(1024, gt=0)
    read_paths: list[str] = Field(default_factory=list)

    def confinement(self) -> Sandbox:
        mb = 1 << 20
        limits = Limits(cpu_seconds=self.cpu_seconds,
                        memory_bytes=None if self.memory_mb is None else self.memory_mb * mb,
                        file_size_bytes=None if self.file_size_mb is None else self.file_size_mb * mb,
                        processes=self.processes, disk_bytes=None if self.disk_mb is None else self.disk_mb * mb,
                        shared_bytes=None if self.shared_memory_mb is None else self.shared_memory_mb * mb)
        return Sandbox(enabled=self.sandbox == "on", network=self.network, limits=limits,
                       read_paths=tuple(self.read_paths))

    def policy(self) -> ShellPolicy:
        allow = frozenset(self.allow) | frozenset(self.interpreters)
        read_only = frozenset(self.read_only)
        if self.defaults:
            allow, read_only = allow | DEFAULT_ALLOW, read_only | DEFAULT_READ_ONLY
        return ShellPolicy(
            allow=allow,
            read_only=read_only,
            interpreters=frozenset(self.interpreters),
            search_path=tuple(self.search_path),
            timeout=self.timeout,
            max_output=self.max_output,
            confine_paths=self.confine_paths,
        )


class DesktopOptions(_Strict):
    command: list[str] | str
    process: str | None = None
    window: str | None = None
    startup_timeout: float = 30.0
    description: str = ""
    file_types: list[str] = Field(default_factory=list)
    aliases: list[str] = Field(default_factory=list)
    opens_files: bool = False
    search_path: list[str] = Field(default_factory=lambda: list(SAFE_PATH))
    sandbox: Literal["on", "off"] = "on"
    workspace: Literal["none", "read", "write"] = "read"
    network: bool = False
    read_paths: list[str] = Field(default_factory=list)
    accessible: bool = False  # drive its windows through the accessibility tree
    max_controls: int = Field(60, ge=5, le=500)  # controls an observation lists
    # D-Bus names it may own / call on the session bus, in its sandbox (None: its desktop entries' ids)
    own_names: list[str] | None = None
    talk_names: list[str] = Field(default_factory=list)

    def config(self, name: str) -> DesktopAppConfig:
        command = shlex.split(self.command) if isinstance(self.command, str) else self.command
        if not command:
            raise ConfigError(f"desktop application {name!r}: command must be a non-empty list of strings")
        sandbox = Sandbox(enabled=self.sandbox == "on", network=self.network, limits=DESKTOP_SANDBOX.limits,
                          read_paths=tuple(self.read_paths), display=True, die_with_parent=False)
        own = self.own_names if self.own_names is not None else application_ids(
            self.process or os.path.basename(command[0]))
        try:
            bus = BusAccess(own=tuple(own), talk=tuple(self.talk_names), accessibility=self.accessible)
        except ConfigError as exc:
            raise ConfigError(f"desktop application {name!r}: {exc}") from None
        return DesktopAppConfig(
            name,
            tuple(command),
            self.process,
            self.window,
            self.startup_timeout,
            self.description,
            tuple(self.file_types),
            tuple(self.aliases),
            self.opens_files,
            tuple(self.search_path),
            sandbox,
            Access(self.workspace),
            bus,
        )


class AppsOptions(_Strict):
    workspace: str = "."
    enabled: list[str] = Field(default_factory=lambda: list(BUILTINS))
    protected: list[str] = Field(default_factory=list)
    shell: ShellOptions = Field(default_factory=ShellOptions)
    mcp: dict[str, dict[str, Any]] = Field(default_factory=dict)
    desktop: dict[str, DesktopOptions] = Field(default_factory=dict)


class Applications(Mapping[str, Application]):
    """The applications of one session, by name; own their connections and launched programs."""

    def __init__(self, workspace: Workspace, apps: list[Application], lifecycle: Lifecycle) -> None:
        self.workspace = workspace
        self.lifecycle = lifecycle
        self._apps = {app.name: app for app in apps}

    def __getitem__(self, name: str) -> Application:
        return self._apps[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._apps)

    def __len__(self) -> int:
        return len(self._apps)

    async def start(self) -> None:
        """Connect every MCP server (their tools are needed to plan); on a failure, close what started."""
        for app in self._apps.values():
            if isinstance(app, McpApplication):
                try:
                    await app.launch()
                except StartFailed:
                    await self.aclose()
                    raise

    async def aclose(self) -> list[str]:
        """Close the MCP connections and stop what this session launched; the programs stopped."""
        for app in self._apps.values():
            if isinstance(app, McpApplication):
                await app.aclose()
        return await self.lifecycle.stop_launched()

    async def __aenter__(self) -> Applications:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def sandbox_status(self) -> str:
        """One line for a run's header: what confines the programs these applications start (the shell's
        commands, desktop programs, untrusted MCP servers), and which run unconfined by the configuration."""
        sandboxes: list[tuple[str, Sandbox]] = []
        for name, app in self._apps.items():
            found = app.sandbox if isinstance(app, ShellApplication) else app.config.sandbox if isinstance(
                app, DesktopApplication | McpApplication) else None
            if found is not None:
                sandboxes.append((name, found))
        if not sandboxes:
            return "sandbox: no application here starts programs"
        off = [name for name, sandbox in sandboxes if not sandbox.enabled]
        on = [sandbox for _, sandbox in sandboxes if sandbox.enabled]
        line = on[0].describe() if on else sandboxes[0][1].describe()
        shown = [app for app in self._apps.values()
                 if isinstance(app, DesktopApplication) and app.config.sandbox.enabled]
        for app in shown:
            line += f"; {app.name} sees its X display and {app.config.bus.describe()}"
        if shown and any(app.config.bus.session or app.config.bus.accessibility for app in shown) \
                and not desktop_bus.installed():
            line += f" (refused while xdg-dbus-proxy is not installed: {desktop_bus.INSTALL})"
        if on and off:
            line += f"; OFF for {', '.join(off)} (sandbox = \"off\" in the configuration)"
        return line

    async def running(self) -> dict[str, bool]:
        return {name: bool(await app.is_running()) for name, app in self._apps.items()}

    def screenshot(self, path: Path) -> display.Screenshot | display.ScreenshotSkipped:
        """A desktop screenshot for DATA_COLLECTION, or why there is none (no display is normal)."""
        return display.screenshot(path)

    def windows(self) -> list[display.Window]:
        return display.list_windows()


def _desktop(name: str, table: DesktopOptions, lifecycle: Lifecycle, workspace: Workspace,
             others: list[Application]) -> Application:
    if not table.accessible:
        return DesktopApplication(table.config(name), lifecycle, workspace)
    from podium.apps.accessible.app import AccessibleApplication

    # For each file type it opens, the applications that work on such files directly (the hybrid advice).
    alternatives = {ext: [a.name for a in others if ext.lower() in getattr(a, "file_types", ())]
                    for ext in table.file_types}
    return AccessibleApplication(table.config(name), lifecycle, workspace, max_controls=table.max_controls,
                                 alternatives=alternatives)


def build_applications(config: Mapping[str, Any] | None = None, *, base: str | os.PathLike[str] = ".",
                       protect: Iterable[str | os.PathLike[str]] = ()) -> Applications:
    """The applications a configuration describes; ConfigError says what is wrong and where. `protect`:
    podium's own files (the configuration read, the journal's database), protected with their SQLite
    companions (-wal, -shm, -journal) wherever they lie."""
    try:
        options = AppsOptions.model_validate(dict(config or {}))
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'apps'}: {e['msg']}" for e in exc.errors())
        raise ConfigError(f"invalid applications configuration: {problems}") from exc
    unknown = sorted(set(options.enabled) - set(BUILTINS))
    if unknown:
        raise ConfigError(f"unknown built-in application(s) {unknown}; the built-ins are {list(BUILTINS)}")
    root = Path(base) / options.workspace
    owned = [Path(path) for path in protect]
    protected = [*(root / path for path in options.protected), *owned,
                 *(Path(f"{path}{suffix}") for path in owned for suffix in ("-wal", "-shm", "-journal"))]
    try:
        workspace = Workspace.at(root, protected)
    except ToolError as exc:
        raise ConfigError(f"workspace: {exc}") from exc
    lifecycle = Lifecycle()
    # A file of a type a built-in application writes (.docx, .xlsx) is written by it alone: files refuses to
    # put text into one, naming that application (or saying it is not enabled).
    owned = {suffix: name if name in options.enabled else None
             for name, typed in (("documents", DocumentsApplication), ("spreadsheets", SpreadsheetsApplication))
             for suffix in typed.file_types}
    factories = {
        "files": lambda: FilesApplication(workspace, owned),
        "documents": lambda: DocumentsApplication(workspace),
        "spreadsheets": lambda: SpreadsheetsApplication(workspace),
        "shell": lambda: ShellApplication(workspace, options.shell.policy(), options.shell.confinement()),
    }
    apps: list[Application] = [factories[name]() for name in dict.fromkeys(options.enabled)]
    apps += [McpApplication(server_config(name, table), workspace) for name, table in options.mcp.items()]
    apps += [_desktop(name, table, lifecycle, workspace, apps) for name, table in options.desktop.items()]
    seen: set[str] = set()
    for app in apps:
        if app.name in seen:
            raise ConfigError(f"two applications are named {app.name!r}; names must be unique")
        seen.add(app.name)
    return Applications(workspace, apps, lifecycle)
