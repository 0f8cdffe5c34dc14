"""A bounded snapshot of one application's accessibility tree: its windows and the objects shown in them.

The walk goes level by level with every call of a level in flight at once (one round trip per level,
not per object), follows only what is shown (a closed menu's items, a hidden tab's page are skipped),
and stops at `max_nodes` objects and `max_children` children per object (a table of a million cells is
not read). Objects that vanish while it runs are left out: a tree changes under a reader.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterable
from dataclasses import dataclass, field
from typing import Any

from podium.apps.accessible.bus import AtspiBus, AtspiCallFailed, Ref
from podium.apps.accessible.roles import CONTROLS, READABLE, WINDOWS, Role, State, states_of

MAX_NODES = 3000
MAX_CHILDREN = 300
MAX_DEPTH = 60
MAX_TEXT = 4000  # characters of a control's text kept in a snapshot (read_text reads more)


@dataclass(frozen=True, slots=True)
class Node:
    """One accessible object as it was when the snapshot was taken."""

    ref: Ref
    role: Role
    name: str
    states: frozenset[State]
    interfaces: frozenset[str]  # short names: "Action", "Text", "EditableText", "Value", "Selection", ...
    parent: int | None  # index of the parent in the snapshot's nodes
    window: int | None  # index of the top-level window it is in
    order: int = 0  # position in reading order (depth first)
    description: str = ""
    bounds: tuple[int, int, int, int] | None = None  # x, y, width, height on the screen
    text: str | None = None  # what a Text control holds (up to MAX_TEXT characters)
    text_length: int = 0
    value: float | None = None  # a Value control's current value
    children: tuple[int, ...] = ()

    @property
    def enabled(self) -> bool:
        return State.SENSITIVE in self.states or State.ENABLED in self.states

    @property
    def shown(self) -> bool:
        return State.SHOWING in self.states


@dataclass(frozen=True, slots=True)
class Snapshot:
    """An application's tree: `nodes[0]` is the application; `windows` index its top-level windows."""

    app: Ref
    name: str
    pid: int | None
    nodes: tuple[Node, ...]
    windows: tuple[int, ...]
    truncated: bool = False
    notes: tuple[str, ...] = field(default_factory=tuple)

    def window_of(self, node: Node) -> Node | None:
        return None if node.window is None else self.nodes[node.window]


Basics = tuple[int, list[int], str, list[str], list[tuple[str, str]]]  # role, state words, name, interfaces, children


@dataclass(slots=True)
class _Raw:
    ref: Ref
    basics: Basics
    parent: int | None
    window: int | None
    depth: int


async def _safe(coroutine: Awaitable[Any], default: Any) -> Any:
    try:
        return await coroutine
    except AtspiCallFailed:
        return default


async def _basics(bus: AtspiBus, ref: Ref) -> Basics | None:
    """(role, state words, name, interfaces, children) of one object; None if it is gone."""
    try:
        role, states, name, interfaces, children = await asyncio.gather(
            bus.call(ref, "Accessible", "GetRole"), bus.call(ref, "Accessible", "GetState"),
            bus.get(ref, "Accessible", "Name"), bus.call(ref, "Accessible", "GetInterfaces"),
            bus.call(ref, "Accessible", "GetChildren"))
    except AtspiCallFailed:
        return None
    return int(role[0]), list(states[0]), str(name or ""), list(interfaces[0]), list(children[0])


def _short(interfaces: Iterable[str]) -> frozenset[str]:
    return frozenset(i.rsplit(".", 1)[-1] for i in interfaces)


def listed(role: Role, name: str, interfaces: frozenset[str]) -> bool:
    """Whether an object is a control the model may act on or read (detail is fetched for these)."""
    if role in CONTROLS:
        return True
    if role in READABLE:
        return bool(name.strip()) or "Text" in interfaces
    return bool(name.strip()) and bool(interfaces & {"Action", "EditableText", "Value", "Selection"})


async def snapshot(bus: AtspiBus, app: Ref, *, max_nodes: int = MAX_NODES, max_children: int = MAX_CHILDREN,
                   windows_only: bool = False) -> Snapshot:
    """The application's tree as it is now (only its windows when `windows_only`)."""
    root = await _basics(bus, app)
    if root is None:
        raise AtspiCallFailed(f"the application at {app[0]} is gone", "org.freedesktop.DBus.Error.ServiceUnknown")
    pid = await bus.pid(app[0])
    raw = [_Raw(app, root, None, None, 0)]
    level = [0]
    truncated = False
    notes: list[str] = []
    while level:
        wanted: list[tuple[Ref, int]] = []
        for index in level:
            entry = raw[index]
            _, states, _, _, children = entry.basics
            if index and State.SHOWING not in states_of(states):
                continue  # what is not shown is not walked: a closed menu's items, a hidden page
            if entry.depth >= MAX_DEPTH or (windows_only and index):
                continue
            if len(children) > max_children:
                truncated = True
                notes.append(f"{len(children)} children of one object; the first {max_children} are read")
            wanted += [((str(n), str(p)), index) for n, p in children[:max_children]]
        room = max_nodes - len(raw)
        if len(wanted) > room:
            truncated, wanted = True, wanted[:max(room, 0)]
        found = await asyncio.gather(*(_basics(bus, ref) for ref, _ in wanted))
        level = []
        for (ref, parent), basics in zip(wanted, found, strict=True):
            if basics is None:
                continue  # gone while we looked
            # the application's children are its windows
            window = len(raw) if parent == 0 else raw[parent].window
            raw.append(_Raw(ref, basics, parent, window, raw[parent].depth + 1))
            level.append(len(raw) - 1)
    details = await asyncio.gather(*(_details(bus, e) for e in raw))
    children: dict[int, list[int]] = {}
    for index, entry in enumerate(raw):
        if entry.parent is not None:
            children.setdefault(entry.parent, []).append(index)
    order = _reading_order(children)
    nodes = []
    for index, (entry, extra) in enumerate(zip(raw, details, strict=True)):
        role, states, name, interfaces, _ = entry.basics
        nodes.append(Node(entry.ref, Role.of(role), name, states_of(states), _short(interfaces), entry.parent,
                          entry.window, order.get(index, index), children=tuple(children.get(index, ())), **extra))
    windows = tuple(i for i in children.get(0, ()) if nodes[i].role in WINDOWS or nodes[i].shown)
    return Snapshot(app, nodes[0].name, pid, tuple(nodes), windows, truncated, tuple(dict.fromkeys(notes)))


def _reading_order(children: dict[int, list[int]]) -> dict[int, int]:
    order: dict[int, int] = {}
    stack = [0]
    while stack:
        index = stack.pop()
        order[index] = len(order)
        stack.extend(reversed(children.get(index, ())))
    return order


async def _details(bus: AtspiBus, entry: _Raw) -> dict[str, Any]:
    """Bounds, text and value of an object the model may be shown; nothing for the others."""
    role, states, name, interfaces, _ = entry.basics
    short = _short(interfaces)
    ref = entry.ref
    if entry.parent is None:
        return {}
    shown = State.SHOWING in states_of(states)
    is_window = entry.parent == 0
    if not (is_window or (shown and listed(Role.of(role), name, short))):
        return {}
    calls: dict[str, Awaitable[Any]] = {}
    if "Component" in short:
        calls["bounds"] = _safe(bus.call(ref, "Component", "GetExtents", "u", (0,)), None)
    if "Text" in short:
        calls["text"] = _text(bus, ref, MAX_TEXT)
    if "Value" in short:
        calls["value"] = _safe(bus.get(ref, "Value", "CurrentValue"), None)
    calls["description"] = _safe(bus.get(ref, "Accessible", "Description"), "")
    values = dict(zip(calls, await asyncio.gather(*calls.values()), strict=True))
    out: dict[str, Any] = {"description": str(values.get("description") or "")}
    if values.get("bounds"):
        x, y, w, h = (int(v) for v in values["bounds"][0])
        out["bounds"] = (x, y, w, h)
    if "text" in values and values["text"] is not None:
        out["text"], out["text_length"] = values["text"]
    if values.get("value") is not None:
        out["value"] = float(values["value"])
    return out


async def _text(bus: AtspiBus, ref: Ref, limit: int) -> tuple[str, int] | None:
    """(the first `limit` characters of a Text object, its length)."""
    try:
        count = int(await bus.get(ref, "Text", "CharacterCount"))
        (text,) = await bus.call(ref, "Text", "GetText", "ii", (0, min(count, limit)))
    except AtspiCallFailed:
        return None
    return str(text), count


async def read_text(bus: AtspiBus, ref: Ref, limit: int) -> tuple[str, int]:
    found = await _text(bus, ref, limit)
    if found is None:
        raise AtspiCallFailed(f"cannot read the text of {ref[1]}", "org.freedesktop.DBus.Error.UnknownObject")
    return found
