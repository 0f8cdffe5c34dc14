"""The effect of a call on one path a tool names, for the tools that add to, edit and make files: the path
after links are followed (podium.apps.workspace.Workspace.effect), and CREATE where nothing is there yet.
Whether a call needs approval follows from its effects (podium.apps.approval)."""

from __future__ import annotations

from podium.apps.approval import declared
from podium.apps.base import Change, Effect
from podium.apps.workspace import Workspace

__all__ = ["declared", "effect"]


def effect(workspace: Workspace, path: str, change: Change) -> Effect:
    """The effect of `change` on `path`: CREATE instead when nothing is there yet."""
    real = workspace.physical(path)
    return workspace.effect(real, change if real.exists() else Change.CREATE)
