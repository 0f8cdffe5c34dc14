"""Approval by effect, not by tool name: whether a call needs the person's yes follows from the paths it
would change (its `Effect`s, found before it runs, after links are followed) and from nothing else but an
application's own few actions (closing a program).

A call needs approval when it
- changes a protected path (podium's configuration, the journal's files, a folder holding one, anything
  outside the workspace), whatever the change: renaming podium.toml away, renaming another file into its
  place, writing through a link that points at it;
- or may lose what an existing path holds: an EDIT, a REPLACE or a DELETE of a path that exists. The source
  of a move or a rename is a MOVE: its content goes on at the new path, so nothing is lost.
A call whose effects are not known (None) needs approval unless its tool only reads.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from podium.apps.base import Change, Effect
from podium.apps.tooling import Effects, ToolError, ToolSpec
from podium.apps.workspace import Workspace


def needs_approval(effects: Iterable[Effect], workspace: Workspace) -> bool:
    for effect in effects:
        path = workspace.at_path(effect)
        if workspace.is_protected(path):
            return True
        if effect.change.destructive and os.path.lexists(path):
            return True
    return False


def whole_file(workspace: Workspace, path: Path, overwrite: bool) -> tuple[Effect, ...]:
    """The effect of writing a whole file at `path`: a CREATE where there is none, a REPLACE of one that is
    there (with overwrite; without it the call is refused and has none)."""
    if path.exists():
        return (workspace.effect(path, Change.REPLACE),) if overwrite else ()
    return (workspace.effect(path, Change.CREATE),)


def sensitive(spec: ToolSpec, args: Any, workspace: Workspace) -> bool:
    """Whether a VALID call of `spec` needs approval, from its effects (see the module docstring)."""
    if spec.read_only:
        return False
    if spec.effects is None:
        return True
    try:
        found = tuple(spec.effects(args))
    except Exception:  # an effects function failing on odd input: not known, so asked (never waved through)
        return True
    return needs_approval(found, workspace)


def declared(effects: Callable[[Any], Iterable[Effect] | None]) -> Effects:
    """An effects function made safe to ask: a call it finds refused (ToolError, OSError: the call will fail
    the same way and change nothing) has no effects."""

    @functools.wraps(effects)
    def asked(args: Any) -> Iterable[Effect]:
        try:
            return tuple(effects(args) or ())
        except (ToolError, OSError):
            return ()

    return asked
