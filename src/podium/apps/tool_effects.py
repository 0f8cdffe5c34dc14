"""The effects a tool declares (podium.apps.base.Effect), named the one way: the path relative to the
workspace root after links are followed, and CREATE for a path that does not exist yet.

Whether a call needs the person's approval follows from them (`destructive`): a call that only
creates or adds keeps everything the files held.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from podium.apps.base import Change, Effect
from podium.apps.tooling import ToolError, ToolSpec
from podium.apps.workspace import Workspace


def effect(workspace: Workspace, path: str, change: Change) -> Effect:
    """The effect of `change` on `path`: CREATE instead when nothing is there yet."""
    real = Path(os.path.realpath(workspace.resolve(path)))
    if not real.exists():
        change = Change.CREATE
    inside = real == workspace.root or real.is_relative_to(workspace.root)
    return Effect(workspace.relative(real) if inside else str(real), change)


def declared(find: Callable[[Any], Iterable[Effect]]) -> Callable[[Any], tuple[Effect, ...]]:
    """`find` as a ToolSpec's effects: a call that will be refused (its path or input is wrong) changes
    nothing, so it declares nothing."""
    def effects(args: Any) -> tuple[Effect, ...]:
        try:
            return tuple(find(args))
        except (ToolError, OSError):
            return ()
    return effects


def destructive(effects: Iterable[Effect] | None) -> bool:
    """Whether any of the effects may lose what a file held (None: not known, so it may)."""
    return effects is None or any(e.change.destructive for e in effects)


def sensitive(spec: ToolSpec, args: Any) -> bool:
    """Whether a valid call needs the person's approval, judged by the effects its tool declares: yes when
    one may lose what a file held, or when they cannot be found (a failure here must not let a change
    through unasked)."""
    if spec.effects is None:
        return not spec.read_only
    try:
        return destructive(spec.effects(args))
    except Exception:
        return True
