"""Acting on one accessible object: its default action, its text or value, an item of it, its menus.

Each function does one AT-SPI operation and checks what the application reports back (the text read
after it was set, the item selected after the selection), so a call that the toolkit ignored fails
instead of claiming success. A toolkit that runs a modal dialog inside the action (GTK's
`gtk_dialog_run`) answers only when the dialog closes: such an action counts as done once it was
delivered, and the result says the application is busy.
"""

from __future__ import annotations

import asyncio
import json
import re
import unicodedata
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from podium.apps.accessible.bus import AtspiBus, AtspiCallFailed, Ref
from podium.apps.accessible.roles import LABELS, MENUS, Role, State, states_of
from podium.apps.tooling import ToolError

ACTION_TIMEOUT = 2.0
MAX_SEARCH = 800  # objects looked at when an item is searched for by name


@dataclass(frozen=True, slots=True)
class Found:
    ref: Ref
    role: Role
    name: str
    parent: Ref | None
    index: int  # in its parent


def normalize(name: str) -> str:
    """What two names share to be the same: case, spacing, a trailing ellipsis and compatibility forms aside
    ("Save As…" is "save as..." is "SAVE AS")."""
    text = unicodedata.normalize("NFKC", name).casefold().replace("_", "")
    text = re.sub(r"\s+", " ", text).strip()
    return re.sub(r"(\.\.\.|…)$", "", text).strip()


async def default_action(bus: AtspiBus, ref: Ref) -> dict[str, object]:
    """Do the object's first action (AT-SPI's default: a button's click, a check box's toggle)."""
    try:
        count = int(await bus.get(ref, "Action", "NActions"))
    except AtspiCallFailed as exc:
        if exc.gone:
            raise
        raise ToolError("it has no action to do; use set_text for text, select for an item of a list") from None
    if count < 1:
        raise ToolError("it has no action to do; use set_text for text, select for an item of a list")
    (name,) = await bus.call(ref, "Action", "GetName", "i", (0,))
    try:
        (done,) = await bus.call(ref, "Action", "DoAction", "i", (0,), timeout=ACTION_TIMEOUT)
    except AtspiCallFailed as exc:
        if exc.error_name.endswith("NoReply"):
            return {"action": str(name), "busy": "the application has not answered yet (a dialog may have "
                                                 "opened): observe to see it"}
        raise
    if not done:
        raise ToolError(f"the application refused its {name!r} action (is it disabled?)")
    return {"action": str(name)}


async def set_text(bus: AtspiBus, ref: Ref, text: str) -> str:
    """Replace an editable text's content; the text it holds afterwards."""
    try:
        (done,) = await bus.call(ref, "EditableText", "SetTextContents", "s", (text,))
    except AtspiCallFailed as exc:
        if exc.gone:
            raise
        raise ToolError("its text cannot be edited (not an editable text field)") from None
    count = int(await bus.get(ref, "Text", "CharacterCount"))
    (now,) = await bus.call(ref, "Text", "GetText", "ii", (0, count))
    if not done and now != text:
        raise ToolError("the application refused the text (is the field read-only or disabled?)")
    return str(now)


async def set_value(bus: AtspiBus, ref: Ref, value: float) -> float:
    """Set a slider's or spin button's value within its bounds; the value it holds afterwards."""
    low = float(await bus.get(ref, "Value", "MinimumValue"))
    high = float(await bus.get(ref, "Value", "MaximumValue"))
    if not low <= value <= high:
        raise ToolError(f"{value:g} is outside its range {low:g} to {high:g}")
    await bus.set(ref, "Value", "CurrentValue", "d", float(value))
    return float(await bus.get(ref, "Value", "CurrentValue"))


async def find_item(bus: AtspiBus, root: Ref, name: str, *, depth: int = 4) -> tuple[Found | None, list[str]]:
    """The first object under `root` (breadth first, shown or not) named `name`, or whose labels say it;
    with the names seen, for an error that lists them."""
    wanted = normalize(name)
    seen: list[str] = []
    level: list[tuple[Ref, Ref | None, int]] = [(root, None, 0)]
    looked = 0
    for _ in range(depth + 1):
        if not level or looked > MAX_SEARCH:
            break
        infos = await asyncio.gather(*(_item_info(bus, ref) for ref, _, _ in level))
        following: list[tuple[Ref, Ref | None, int]] = []
        for (ref, parent, index), info in zip(level, infos, strict=True):
            looked += 1
            if info is None:
                continue
            role, own, children = info
            label = own or await _label_text(bus, children, role)
            if parent is not None and label:
                seen.append(label)
                if normalize(label) == wanted:
                    return Found(ref, role, label, parent, index), seen
            following += [(child, ref, i) for i, child in enumerate(children)]
        level = following[: MAX_SEARCH]
    return None, seen


async def _item_info(bus: AtspiBus, ref: Ref) -> tuple[Role, str, list[Ref]] | None:
    try:
        role, name, children = await asyncio.gather(
            bus.call(ref, "Accessible", "GetRole"), bus.get(ref, "Accessible", "Name"),
            bus.call(ref, "Accessible", "GetChildren"))
    except AtspiCallFailed:
        return None
    return Role.of(int(role[0])), str(name or "").strip(), [(str(n), str(p)) for n, p in children[0]]


async def _label_text(bus: AtspiBus, children: list[Ref], role: Role) -> str:
    """A nameless item's text: its child labels' names (GTK list rows), or a table cell's own text."""
    if role in LABELS or not children or len(children) > 4:
        return ""
    infos = await asyncio.gather(*(_item_info(bus, child) for child in children))
    return " ".join(i[1] for i in infos if i is not None and i[0] in LABELS and i[1])


async def select(bus: AtspiBus, item: Found) -> dict[str, object]:
    """Select an item: a menu's item is activated; a list's, table's or tab list's is selected through its
    container (AT-SPI Selection), else by its own default action."""
    if item.role in MENUS or item.parent is None:
        return await default_action(bus, item.ref)
    try:
        (done,) = await bus.call(item.parent, "Selection", "SelectChild", "i", (item.index,))
    except AtspiCallFailed as exc:
        if exc.gone:
            raise
        return await default_action(bus, item.ref)
    if not done:
        return await default_action(bus, item.ref)
    states = states_of((await bus.call(item.ref, "Accessible", "GetState"))[0])
    # whether the item holds the selection now; a dialog is confirmed by its own button, not by a selection
    return {"selected": item.name, "is_selected": State.SELECTED in states}


async def children_named(bus: AtspiBus, ref: Ref) -> list[tuple[Ref, Role, str]]:
    info = await _item_info(bus, ref)
    if info is None:
        return []
    infos = await asyncio.gather(*(_item_info(bus, child) for child in info[2]))
    return [(child, i[0], i[1]) for child, i in zip(info[2], infos, strict=True) if i is not None]


Activate = Callable[[Ref], Awaitable[dict[str, object]]]


async def menu_path(bus: AtspiBus, bar: Ref, path: list[str], activate: Activate) -> dict[str, object]:
    """Follow menu names from a menu bar, opening each menu with `activate` (a click), and activate the
    last item. An entry is taken once it is shown (a menu's items are shown when it opens)."""
    current = bar
    walked: list[str] = []
    for position, name in enumerate(path):
        entries = await children_named(bus, current)
        match = next((ref for ref, _, n in entries if normalize(n) == normalize(name)), None)
        if match is None:
            names = [n for _, role, n in entries if n and role is not Role.SEPARATOR]
            where = " > ".join(walked) or "the menu bar"
            # the entries asked for further on, where the menus hold them: the path that reaches them
            wanted = {normalize(n): n for n in path[position:]}
            found = [[menu, n] for menu, items in await menu_entries(bus, bar) for _, _, n in items
                     if normalize(n) in wanted and [menu, n] != path]
            there = f"; {found[0][1]!r} is in the menu {found[0][0]!r}: its path is {json.dumps(found[0])}" \
                if len(found) == 1 else ""
            raise ToolError(f"no menu entry {name!r} in {where}; it has: {names}{there}")
        if walked:
            await _until_shown(bus, match)
        walked.append(name)
        current = match
        result = await activate(current)
        if position == len(path) - 1:
            return {"menu": " > ".join(walked), **result}
    raise ToolError("give the menu path as a list of names, from the menu bar to the item")


MAX_MENU_ENTRIES = 80  # entries a menu listing names, over all menus

MenuEntry = tuple[Ref, Role, str]


async def menu_entries(bus: AtspiBus, bar: Ref) -> list[tuple[str, list[MenuEntry]]]:
    """Each menu of a menu bar with its entries (a closed menu's are there, only not shown), separators and
    nameless entries left out, at most MAX_MENU_ENTRIES in all."""
    menus = [(ref, name) for ref, role, name in await children_named(bus, bar) if name and role is not Role.SEPARATOR]
    entries = await asyncio.gather(*(children_named(bus, ref) for ref, _ in menus))
    found, left = [], MAX_MENU_ENTRIES
    for (_, menu), items in zip(menus, entries, strict=True):
        named = [item for item in items if item[2] and item[1] is not Role.SEPARATOR][:max(left, 0)]
        found.append((menu, named))
        left -= len(named)
    return found


async def _until_shown(bus: AtspiBus, ref: Ref, timeout: float = 2.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < deadline:
        (words,) = await bus.call(ref, "Accessible", "GetState")
        if State.SHOWING in states_of(words):
            return
        await asyncio.sleep(0.05)


async def extents(bus: AtspiBus, ref: Ref) -> tuple[int, int, int, int] | None:
    """Where the object is on the screen now (None if it has no Component or no area)."""
    try:
        ((x, y, width, height),) = await bus.call(ref, "Component", "GetExtents", "u", (0,))
    except AtspiCallFailed as exc:
        if exc.gone:
            raise
        return None
    return (int(x), int(y), int(width), int(height)) if width > 0 and height > 0 else None
