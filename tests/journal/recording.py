"""Runs recorded with a change log written the way the desktop's executor will write it: right before a
changing tool call, a copy of every path the call's `effects` name; right after it, the change.

`RecordingApp` wraps a real application; `seed_run` runs the seed's example (scripted models, the real
documents and spreadsheets applications) with it and returns the run's name.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from podium.apps.base import ToolResult
from podium.apps.registry import build_applications
from podium.cli.script import load_script
from podium.desktop import HostSession, batch
from podium.journal import Journal

ROOT = Path(__file__).resolve().parents[2]
QUARTERLY = ROOT / "examples" / "quarterly"
SEED_REQUEST = "Extract the table from report.docx and create a bar chart of it in budget.xlsx"


class RecordingApp:
    """An application whose changing calls are logged in the journal's change log."""

    def __init__(self, app: Any, journal: Journal, session: str, workspace: Path) -> None:
        self._app = app
        self._journal = journal
        self._session = session
        self._workspace = workspace

    def __getattr__(self, name: str) -> Any:
        return getattr(self._app, name)

    def _paths(self, tool: str, arguments: Mapping[str, Any]) -> list[str]:
        """The paths the call may change: its effects, or (for a tool that does not declare them yet) the
        path-like arguments of a changing tool."""
        effects = self._app.effects(tool, arguments)
        if effects is None:
            read_only = {t.name for t in self._app.tools() if t.read_only}
            if tool in read_only:
                return []
            return [str(v) for k, v in arguments.items()
                    if k in ("path", "target", "destination") and isinstance(v, str) and "*" not in v]
        return [e.path for e in effects if e.path != "." and not e.path.startswith("/")]

    async def call(self, tool: str, arguments: Mapping[str, Any]) -> ToolResult:
        paths = self._paths(tool, arguments)
        before = {p: self._journal.save_file(self._session, self._workspace / p) for p in paths}
        result = await self._app.call(tool, arguments)
        for p in paths:
            after = self._journal.save_file(self._session, self._workspace / p)
            if after != before[p]:
                self._journal.record_change(self._session, self._workspace, p, before[p], after)
        return result


def make_quarterly(folder: Path) -> Path:
    spec = importlib.util.spec_from_file_location("make_files", QUARTERLY / "make_files.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    module.make_files(folder)
    return folder


async def recorded_run(store: Any, workspace: Path, script: Path, request: str, name: str,
                       enabled: tuple[str, ...] = ("documents", "spreadsheets"), screenshots: Any = None,
                       **host: Any) -> Any:
    """One request on the real applications with scripted models, recorded with its change log, and its
    artifacts saved as `podium run` saves them."""
    journal = Journal(store)
    apps = build_applications({"workspace": str(workspace), "enabled": list(enabled)})
    wrapped = [RecordingApp(app, journal, name, workspace) for app in apps.values()]
    models = load_script(script)
    async with apps, await HostSession.start(
            wrapped, models.backend("planner"), app_models={a: models.backend("app", a) for a in apps},
            config=batch(**host), name=name, recorder=journal, screenshots=screenshots) as session:
        result = await session.run(request)
    data = result.to_dict()
    for key, value in {"request": request, "result": data, "subtasks": data["subtasks"],
                       "blackboard": data["blackboard"], "trajectory": data["blackboard"]["trajectories"],
                       "run": {"request": request, "workspace": str(workspace),
                               "apps": {"enabled": list(enabled)}}}.items():
        store.put(name, key, value)
    return result


async def seed_run(store: Any, workspace: Path, name: str = "seed", **options: Any) -> Any:
    """The seed's example in `workspace` (its files made there first unless report.docx is there already)."""
    if not (workspace / "report.docx").exists():
        make_quarterly(workspace)
    return await recorded_run(store, workspace, QUARTERLY / "scripted.json", SEED_REQUEST, name, **options)
