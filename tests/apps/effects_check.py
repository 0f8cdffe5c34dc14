"""A call's declared effects against what it really did to the workspace's files.

`call_checked` asks the application for the effects a call declares, runs the call, and asserts that the
paths changed on disk are exactly the paths declared, each with the right kind of change: CREATE for a
file that was not there, DELETE for one that is gone, and ADD / EDIT / REPLACE for one whose bytes
changed; a call that fails, or finds its work done, changes nothing and declares nothing.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from podium.apps.base import Change, ToolResult


def snapshot(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in root.rglob("*") if p.is_file()}


async def call_checked(app: Any, root: Path, tool: str, arguments: dict[str, Any]) -> ToolResult:
    declared = app.effects(tool, arguments)
    assert declared is not None, f"{tool} declares no effects"
    # approval follows the effects: needed exactly when one may lose what a file held
    assert app.is_sensitive(tool, arguments) == any(e.change.destructive for e in declared), tool
    before = snapshot(root)
    result = await app.call(tool, arguments)
    after = snapshot(root)
    changed = {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
    if not result.ok or (isinstance(result.content, dict) and result.content.get("unchanged")):
        assert changed == set(), f"{tool} changed {changed} although it {result.error or 'found its work done'}"
        assert declared == (), f"{tool} declared {declared} for a call that changed nothing"
        return result
    assert {e.path for e in declared} == changed, f"{tool} declared {declared} but changed {changed}"
    for e in declared:
        if e.path not in before:
            assert e.change is Change.CREATE, f"{tool}: {e.path} was created, declared {e.change}"
        elif e.path not in after:
            assert e.change is Change.DELETE, f"{tool}: {e.path} was deleted, declared {e.change}"
        else:
            assert e.change in (Change.ADD, Change.EDIT, Change.REPLACE), f"{tool}: {e.path} declared {e.change}"
    return result


def kinds(app: Any, tool: str, arguments: dict[str, Any]) -> list[Change]:
    """The kinds of change a call declares, in order."""
    return [e.change for e in app.effects(tool, arguments)]
