"""The control list: what the model is shown of a window, numbered, and what a number refers to.

UFO²'s AppAgent is shown the window's controls as a numbered list and answers with a number. Here a
number names one accessible object for the whole session: the first observation numbers what it
lists 1, 2, 3...; a control seen again keeps its number, a new one (a dialog that opened) gets the next
unused one. A number never changes meaning, so an action on a number from an older observation either
reaches the same control or, when that control is gone, fails saying so and what it was.

The list is bounded (`max_controls`): the window the person works in first (a modal dialog, else the
active window), then the others, each in reading order.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from podium.apps.accessible.bus import Ref
from podium.apps.accessible.roles import (
    CHOOSERS,
    CONFIRMING,
    CONTAINERS,
    DIALOGS,
    ITEMS,
    LABELS,
    TEXT_ROLES,
    Role,
    State,
)
from podium.apps.accessible.tree import Node, Snapshot, listed
from podium.apps.base import DOCUMENTS, OPEN_DIALOG

MAX_CONTROLS = 60
MAX_ITEMS = 8  # items of one list, table or tree listed; `select` reaches the others by name
ROW = 10  # pixels: controls whose centres are this close vertically are on one row
MAX_NAME = 80  # characters of a control's name shown
MAX_VALUE = 200  # characters of a control's text shown in the list (read_text gives all of it)
# States worth telling the model, in this order; "disabled" is said when a control is not sensitive.
SHOWN_STATES = (State.FOCUSED, State.CHECKED, State.SELECTED, State.EXPANDED, State.COLLAPSED, State.EDITABLE,
                State.READ_ONLY, State.IS_DEFAULT, State.MODAL, State.REQUIRED, State.INVALID_ENTRY)


@dataclass(frozen=True, slots=True)
class Control:
    """One numbered control of an observation."""

    id: int
    node: Node
    window: str  # the title of the window it is in
    name: str = ""  # its name, or for a nameless item the text of the labels inside it

    def row(self) -> dict[str, Any]:
        """What the model is shown of it."""
        node = self.node
        row: dict[str, Any] = {"id": self.id, "role": node.role.label}
        if self.name.strip():
            row["name"] = _cut(self.name.strip(), MAX_NAME)
        states = [s.label for s in SHOWN_STATES if s in node.states]
        if not node.enabled:
            states.append("disabled")
        if states:
            row["states"] = states
        value = self.value
        if value is not None:
            row["value"] = value
        return row

    @property
    def value(self) -> str | None:
        node = self.node
        if node.text is not None and (node.text != self.name or "EditableText" in node.interfaces):
            text = _cut(node.text, MAX_VALUE)
            return text + (f" [{node.text_length} characters]" if node.text_length > MAX_VALUE else "")
        if node.value is not None:
            return f"{node.value:g}"
        return None

    def line(self) -> str:
        """The row as one line, what the model reads: `12: push button 'Save' [is_default] = value`."""
        row = self.row()
        text = f"{self.id}: {row['role']}"
        if "name" in row:
            text += f" {row['name']!r}"
        if "states" in row:
            text += f" [{', '.join(row['states'])}]"
        if "value" in row:
            text += f" = {row['value']!r}"
        return text

    def describe(self) -> str:
        """For messages: `12 (push button 'Save' in 'Save As')`."""
        name = f" {self.name.strip()[:MAX_NAME]!r}" if self.name.strip() else ""
        return f"{self.id} ({self.node.role.label}{name} in {self.window!r})"


@dataclass(frozen=True, slots=True)
class Observation:
    """One look at the application: its windows, the numbered controls shown, and how many were left out."""

    generation: int
    snapshot: Snapshot
    controls: tuple[Control, ...]
    focus: str  # title of the window the list starts with
    omitted: int = 0

    def to_content(self) -> dict[str, Any]:
        windows = []
        for index in self.snapshot.windows:
            node = self.snapshot.nodes[index]
            entry: dict[str, Any] = {"title": node.name, "role": node.role.label}
            if State.ACTIVE in node.states:
                entry["active"] = True
            if State.MODAL in node.states or node.role in CONFIRMING:
                entry["modal"] = True
            windows.append(entry)
        content: dict[str, Any] = {"application": self.snapshot.name, "observation": self.generation,
                                   "windows": windows, "controls": [c.line() for c in self.controls]}
        if self.omitted:
            content["omitted"] = (f"{self.omitted} more controls not listed; observe with `window` set to "
                                  "another window's title to list its controls")
        dialog = self.dialog()
        if dialog is not None:
            content[OPEN_DIALOG] = dialog
        if documents := self.documents():
            content[DOCUMENTS] = documents
        return content

    def documents(self) -> dict[str, str]:
        """A digest of each listed document's text (an editable text of many lines), by its number."""
        return {str(c.id): hashlib.sha1(f"{c.node.text_length}:{c.node.text}".encode()).hexdigest()[:16]
                for c in self.controls if State.MULTI_LINE in c.node.states and State.EDITABLE in c.node.states
                and "EditableText" in c.node.interfaces}

    def dialog(self) -> dict[str, Any] | None:
        """The first listed control's window when it is a dialog (modal, or a dialog's, an alert's or a file
        chooser's role) with an enabled button: its title, its enabled buttons (number -> name), and its enabled
        default button's number where one is marked."""
        nodes = self.snapshot.nodes
        first = next((c for c in self.controls if c.node.window is not None), None)
        if first is None:
            return None
        index = first.node.window
        window = nodes[index]  # type: ignore[index]
        if State.MODAL not in window.states and window.role not in DIALOGS:
            return None
        buttons = [c for c in self.controls if c.node.window == index and c.node.role is Role.PUSH_BUTTON
                   and c.node.enabled]
        if not buttons:
            return None  # no button to end it with (settings that apply at once): nothing to confirm
        # its buttons by number, so that what ends it is named where a FINISH leaves it open
        found: dict[str, Any] = {"window": window.name, "buttons": {str(c.id): c.node.name for c in buttons}}
        button = next((c for c in self.controls if c.node.window == index and State.IS_DEFAULT in c.node.states
                       and c.node.enabled and c.node.shown), None)
        if button is not None:
            found["button"] = button.id
        return found


MENU_ENTRIES = 1001  # the first number of a closed menu's item


class ControlIds:
    """Numbers given to accessible objects; one number per object for the life of the application."""

    def __init__(self) -> None:
        self._by_ref: dict[Ref, int] = {}
        self._by_id: dict[int, tuple[Ref, Role, str]] = {}
        self._entries = 0  # menu entries numbered so far
        self.generation = 0
        self.latest: Observation | None = None

    def number(self, node: Node) -> int:
        return self.number_of(node.ref, node.role, node.name)

    def number_of(self, ref: Ref, role: Role, name: str, *, entry: bool = False) -> int:
        """The object's number; `entry`: an item of a closed menu, numbered from MENU_ENTRIES on, so that
        listing the menus leaves the numbers of the controls shown as they would be without them."""
        found = self._by_ref.get(ref)
        if found is not None and self._by_id[found][1] is role:
            return found
        # an object path reused for another object gets a new number
        if entry:
            number = MENU_ENTRIES + self._entries
            self._entries += 1
        else:
            number = len(self._by_id) - self._entries + 1
        self._by_ref[ref] = number
        self._by_id[number] = (ref, role, name)
        return number

    def lookup(self, number: int) -> tuple[Ref, Role, str] | None:
        """(object, role, name when numbered) for a number given out; None for one never given."""
        return self._by_id.get(number)

    def observe(self, snapshot: Snapshot, *, max_controls: int = MAX_CONTROLS,
                window: str | None = None) -> Observation:
        """Number the shown controls of `snapshot` (of the window whose title contains `window`, if given)."""
        self.generation += 1
        order = _window_order(snapshot, window)
        chosen: list[tuple[Node, str]] = []
        total = 0
        for window_index in order:
            for node, name in _controls_in(snapshot, window_index):
                total += 1
                if len(chosen) < max_controls:
                    chosen.append((node, name))
        controls = tuple(Control(self.number(node), node, _title(snapshot, node), name) for node, name in chosen)
        focus = snapshot.nodes[order[0]].name if order else ""
        self.latest = Observation(self.generation, snapshot, controls, focus, total - len(chosen))
        return self.latest


def _title(snapshot: Snapshot, node: Node) -> str:
    window = snapshot.window_of(node)
    return window.name if window is not None else snapshot.name


def _window_order(snapshot: Snapshot, wanted: str | None) -> list[int]:
    """Windows to list: the one named (`wanted`), else a modal or confirming one first, then the active one,
    then the others; only windows that are shown."""
    shown = [i for i in snapshot.windows if State.SHOWING in snapshot.nodes[i].states]
    if wanted is not None:
        key = wanted.casefold().strip()
        return [i for i in shown if key in snapshot.nodes[i].name.casefold()]

    def rank(index: int) -> tuple[int, int]:
        node = snapshot.nodes[index]
        if State.MODAL in node.states or node.role in CONFIRMING:
            return (0, -index)  # the newest dialog first
        return (1 if State.ACTIVE in node.states else 2, -index)

    return sorted(shown, key=rank)


def _controls_in(snapshot: Snapshot, window: int) -> Iterable[tuple[Node, str]]:
    """(control, name) of one window in reading order: a nameless control takes the names of the labels
    inside it (GTK's list rows, tabs and buttons hold their text in a child label), which are then not
    listed again; a list, table or tree shows its first MAX_ITEMS items."""
    nodes = snapshot.nodes
    candidates = [i for i, n in enumerate(nodes) if n.window == window and n.shown and n.parent not in (None, 0)
                  and listed(n.role, n.name, n.interfaces) and _on_screen(n)]
    names: dict[int, str] = {}
    absorbed: set[int] = set()
    for index in candidates:  # tree order: a control's labels are found before anything else lists them
        node = nodes[index]
        names[index] = node.name
        if not node.name.strip() and node.role not in TEXT_ROLES and node.role not in CHOOSERS:
            labels = [i for i in _descendants(snapshot, index, 5) if nodes[i].role in LABELS and nodes[i].name.strip()]
            absorbed.update(labels)
            names[index] = " ".join(nodes[i].name.strip() for i in labels)
    per_container: dict[int, int] = {}
    for index in _by_position(snapshot, [i for i in candidates if i not in absorbed]):
        node = nodes[index]
        if not names[index] and node.text is None and node.role in ITEMS:
            continue  # an empty cell (an icon's column) says nothing
        container = _container(snapshot, index)
        if container is not None and node.role in ITEMS:
            per_container[container] = per_container.get(container, 0) + 1
            if per_container[container] > MAX_ITEMS:
                continue
        yield node, names[index]


def _by_position(snapshot: Snapshot, indexes: list[int]) -> list[int]:
    """Reading order on the screen: rows top to bottom (controls whose centres are within ROW pixels of the
    row's first share it, as a form's label and its field do), left to right in a row; controls without
    bounds keep their place in the tree's order after those with."""
    nodes = snapshot.nodes
    placed = sorted((i for i in indexes if nodes[i].bounds), key=lambda i: (_centre(nodes[i])[1], nodes[i].order))
    rows: list[list[int]] = []
    for index in placed:
        if rows and _centre(nodes[index])[1] - _centre(nodes[rows[-1][0]])[1] <= ROW:
            rows[-1].append(index)
        else:
            rows.append([index])
    ordered = [i for row in rows for i in sorted(row, key=lambda i: (_centre(nodes[i])[0], nodes[i].order))]
    return ordered + sorted((i for i in indexes if not nodes[i].bounds), key=lambda i: nodes[i].order)


def _centre(node: Node) -> tuple[float, float]:
    assert node.bounds is not None
    x, y, width, height = node.bounds
    return x + width / 2, y + height / 2


def _descendants(snapshot: Snapshot, index: int, depth: int) -> list[int]:
    found: list[int] = []
    level = list(snapshot.nodes[index].children)
    for _ in range(depth):
        found += level
        level = [c for i in level for c in snapshot.nodes[i].children]
    return found


def _container(snapshot: Snapshot, index: int) -> int | None:
    """The nearest list, table or tree holding a node."""
    parent = snapshot.nodes[index].parent
    while parent is not None:
        if snapshot.nodes[parent].role in CONTAINERS:
            return parent
        parent = snapshot.nodes[parent].parent
    return None


def _on_screen(node: Node) -> bool:
    """A control with bounds must have some area (a toolkit says SHOWING of a 0x0 or -1 placeholder)."""
    if node.bounds is None:
        return True
    _, _, width, height = node.bounds
    return width > 0 and height > 0


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def number_ranges(numbers: list[int]) -> str:
    """1-4, 7, 9-10."""
    runs: list[list[int]] = []
    for n in sorted(set(numbers)):
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ", ".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs)
