"""A configured desktop program (a LibreOffice component, a text editor...) as an Application.

Its tools tell its state and open a workspace file in it; `launch()` starts it through the shared
Lifecycle when it is not running and waits until it is up, in its sandbox. Closing it is sensitive (the
application's own sensitive action), and only ever closes what this session launched. Opening a file
changes nothing while the program sees the workspace read-only; a program allowed to write there (or run
without a sandbox) may change the file it opened: an EDIT, so that asks for approval. A sandboxed program
allowed to write there may still not create a protected path that was absent when it was launched: after
each call (its close included), what it made there is moved aside and the call fails saying so.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from pydantic import Field

from podium.apps import approval, display
from podium.apps.approval import declared
from podium.apps.base import Change, Effect, ToolResult
from podium.apps.lifecycle import DesktopAppConfig, Lifecycle, find_processes
from podium.apps.sandbox import Access
from podium.apps.tooling import EXISTING, NOT_FILE_TYPES, Args, ToolApplication, ToolError, ToolSpec
from podium.apps.workspace import Workspace, created_refusal


class NoArgs(Args):
    pass


class OpenArgs(Args):
    # a file that exists, of any type (NOT_FILE_TYPES empty): the grammar offers only those, so a model cannot
    # "open" the file it is to save (a new one is made by the program's save as)
    path: str = Field(description="file to open, relative to the workspace root",
                      json_schema_extra={EXISTING: True, NOT_FILE_TYPES: []})


class DesktopApplication(ToolApplication):
    def __init__(self, config: DesktopAppConfig, lifecycle: Lifecycle, workspace: Workspace | None = None) -> None:
        self.config = config
        self.lifecycle = lifecycle
        self.workspace = workspace
        self.name = config.name
        self.description = config.description or f"desktop application {config.name} ({' '.join(config.command)})"
        self.file_types = config.file_types
        self.aliases = config.aliases
        super().__init__()

    def _specs(self) -> list[ToolSpec]:
        specs = [
            ToolSpec(
                "status", "Whether it runs, its processes and windows.", NoArgs, self._status, True, blocking=False
            ),
            # it changes the program, not a file it names (unsaved work may be lost: it is sensitive)
            ToolSpec("close", "Close it (only if this session launched it).", NoArgs, self._close, blocking=False,
                     effects=lambda args: (), names_its_writes=False),
        ]
        if self.config.opens_files and self.workspace is not None:
            specs.append(ToolSpec("open_file", "Open a workspace file in it.", OpenArgs, self._open, blocking=False,
                                  effects=declared(self._open_effects)))
        return specs

    def _sensitive(self, tool: str, args: Any) -> bool:
        if tool == "close":
            return True  # it may lose what the person has not saved in it
        if self.workspace is None:
            return not self._by_name[tool].read_only
        return approval.sensitive(self._by_name[tool], args, self.workspace)

    def _open_effects(self, args: OpenArgs) -> tuple[Effect, ...]:
        assert self.workspace is not None
        path = self.workspace.physical(args.path)
        if not path.is_file():
            return ()  # refused
        writes = not self.config.sandbox.enabled or self.config.workspace_access is Access.WRITE
        return (self.workspace.effect(path, Change.EDIT),) if writes else ()

    async def call(self, tool: str, arguments: Mapping[str, Any]) -> ToolResult:
        """The call, then what its program (running, ended, or stopped by it) created at a protected path absent
        when it was launched moved aside: whichever tool ran, the program may have written meanwhile."""
        result = await super().call(tool, arguments)
        moved = await asyncio.to_thread(self.lifecycle.undo_created, self.name)
        if not moved:
            return result
        error = created_refusal(self.name, moved, "program")
        return ToolResult(result.content, f"{error}; {result.error}" if result.error else error, result.instead)

    async def is_running(self) -> bool:
        return await asyncio.to_thread(self.lifecycle.is_running, self.config)

    async def launch(self) -> None:
        await self.lifecycle.ensure_running(self.config, self.workspace, accessibility=await self.accessibility())

    async def accessibility(self) -> str | None:
        """The accessibility bus's address its launches are given: none, unless it is observed through it."""
        return None

    async def _status(self, args: NoArgs) -> Mapping[str, Any]:
        processes = await asyncio.to_thread(find_processes, self.config.process or self.config.program)
        pids = {p.pid for p in processes}
        windows = [w for w in await asyncio.to_thread(display.list_windows) if self.config.matches_window(w, pids)]
        return {
            "running": bool(processes),
            "pids": sorted(pids),
            "windows": [{"id": w.id, "title": w.title} for w in windows],
            "launched_by_this_session": any(e.config.name == self.name for e in self.lifecycle.launched()),
        }

    async def _open(self, args: OpenArgs) -> Mapping[str, Any]:
        assert self.workspace is not None
        path = self.workspace.resolve(args.path)
        if not path.is_file():
            raise ToolError(f"{args.path!r} is not a file in the workspace")
        entry = await self.lifecycle.launch(self.config, extra_args=(str(path),), workspace=self.workspace,
                                            accessibility=await self.accessibility())
        return {"opened": args.path, "pid": entry.pid, "window": entry.window.title if entry.window else None}

    async def _close(self, args: NoArgs) -> Mapping[str, Any]:
        if not await self.lifecycle.stop(self.name):
            raise ToolError(f"{self.name} was not launched by this session; it is left as it is")
        return {"closed": self.name}
