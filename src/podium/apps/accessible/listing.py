"""The accessible applications running on this desktop and their windows (for `podium apps`)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from podium.apps.accessible.bus import AccessibilityUnavailable, AtspiBus, AtspiCallFailed
from podium.apps.accessible.roles import State
from podium.apps.accessible.tree import snapshot


@dataclass(frozen=True, slots=True)
class AccessibleWindow:
    title: str
    role: str
    active: bool


@dataclass(frozen=True, slots=True)
class AccessibleApp:
    name: str
    pid: int | None  # of its connection: a sandboxed program's is its bus proxy's (desktop_bus.py)
    toolkit: str
    windows: tuple[AccessibleWindow, ...]


async def running_applications() -> list[AccessibleApp] | str:
    """Every application on the accessibility bus with its shown windows, or why they cannot be listed."""
    try:
        bus = await AtspiBus.connect()
    except AccessibilityUnavailable as exc:
        return str(exc)
    try:
        found = await asyncio.gather(*(_one(bus, root) for root in await bus.applications()))
    except AtspiCallFailed as exc:
        return f"the accessibility registry did not answer: {exc}"
    finally:
        bus.close()
    return [app for app in found if app is not None]


async def _one(bus: AtspiBus, root: tuple[str, str]) -> AccessibleApp | None:
    try:
        snap = await snapshot(bus, root, windows_only=True)
        toolkit = str(await bus.get(root, "Application", "ToolkitName"))
    except AtspiCallFailed:
        return None  # it ended while we looked
    windows = tuple(AccessibleWindow(snap.nodes[i].name, snap.nodes[i].role.label, State.ACTIVE in snap.nodes[i].states)
                    for i in snap.windows if snap.nodes[i].shown)
    return AccessibleApp(snap.name, snap.pid, toolkit, windows)
