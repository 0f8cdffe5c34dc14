"""What an accessible application's call would do, decided before it runs from the latest observation's
typed facts (roles, states, the text of a file chooser's name field) and the workspace's files: the
effects it declares and whether it needs the person's approval (see app.py's docstring for the rules).
"""

from __future__ import annotations

from pathlib import Path

from podium.apps.accessible import keys
from podium.apps.accessible.bus import Ref
from podium.apps.accessible.controls import ControlIds
from podium.apps.accessible.roles import CONFIRMING, TEXT_ROLES, Role, State
from podium.apps.accessible.tree import Node, Snapshot
from podium.apps.base import Change, Effect
from podium.apps.tooling import ToolError
from podium.apps.workspace import Workspace


class Consequences:
    """Reads the application's numbering (`ids`), the text typed since it observed (`typed`) and the
    workspace files open in it (`opened`); all three are the application's own, kept up to date by it."""

    def __init__(self, ids: ControlIds, typed: dict[Ref, str], workspace: Workspace | None,
                 opened: set[str]) -> None:
        self.ids = ids
        self.typed = typed
        self.workspace = workspace
        self.opened = opened

    def node(self, number: int) -> tuple[Snapshot, Node] | None:
        found = self.ids.lookup(number)
        latest = self.ids.latest
        if found is None or latest is None:
            return None
        node = next((n for n in latest.snapshot.nodes if n.ref == found[0]), None)
        return None if node is None else (latest.snapshot, node)

    def focused(self) -> Node | None:
        latest = self.ids.latest
        return None if latest is None else next((n for n in latest.snapshot.nodes if State.FOCUSED in n.states),
                                                None)

    def in_file_chooser(self, ref: Ref) -> bool:
        latest = self.ids.latest
        if latest is None:
            return False
        nodes = latest.snapshot.nodes
        node = next((n for n in nodes if n.ref == ref), None)
        while node is not None and node.parent is not None:
            if node.role is Role.FILE_CHOOSER:
                return True
            node = nodes[node.parent]
        return False

    def chooser_path(self, text: str) -> str:
        """A name typed into a file chooser is a path in the workspace: the absolute path to type."""
        if self.workspace is None:
            return text
        return str(self.workspace.resolve(text.strip()))

    def chooser_target(self, snap: Snapshot, window: int | None) -> Path | None:
        """The file a file chooser in `window` would take: the text of its name field, if any."""
        if not any(n.window == window and n.role is Role.FILE_CHOOSER for n in snap.nodes):
            return None
        for node in snap.nodes:
            if node.window != window or "EditableText" not in node.interfaces or node.role not in TEXT_ROLES:
                continue
            text = self.typed.get(node.ref, node.text or "").strip()
            if text:
                path = Path(text)
                return path if path.is_absolute() or self.workspace is None else self.workspace.root / path
        return None

    def accepts(self, snap: Snapshot, node: Node) -> Path | None:
        """The file a press of `node` saves to, when it is the default button of a file chooser's window."""
        return self.chooser_target(snap, node.window) if State.IS_DEFAULT in node.states else None

    def effect(self, path: Path) -> Effect:
        change = Change.REPLACE if path.exists() else Change.CREATE
        if self.workspace is not None:
            try:
                return Effect(self.workspace.relative(path.resolve()), change)
            except (ToolError, ValueError):
                pass
        return Effect(str(path), change)

    def of_acting(self) -> tuple[Effect, ...] | None:
        """A click, selection, menu item or key: unknown (it may save) while a workspace file is open in it."""
        return None if self.opened else ()

    def of_click(self, number: int) -> tuple[Effect, ...] | None:
        found = self.node(number)
        if found is not None and (target := self.accepts(*found)) is not None:
            return (self.effect(target),)
        return self.of_acting()

    def of_keys(self, pressed: str) -> tuple[Effect, ...] | None:
        focused = self.focused()
        latest = self.ids.latest
        if focused is not None and latest is not None and any(
                keys.ACCEPT_KEYS & set(chord.split("+")) for chord in pressed.split()):
            target = self.chooser_target(latest.snapshot, focused.window)
            if target is not None:
                return (self.effect(target),)
        return self.of_acting()

    def click_needs_approval(self, number: int, *, accepting: bool) -> bool:
        found = self.node(number)
        if found is None:
            return False  # refused when it runs: the number is unknown
        snap, node = found
        window = snap.window_of(node)
        if window is not None and window.role in CONFIRMING:
            return True
        target = self.accepts(snap, node) if accepting else None
        return target is not None and target.exists()

    def keys_need_approval(self, pressed: str) -> bool:
        try:
            chords = keys.parse(pressed)
        except ToolError:
            return False  # refused when it runs
        focused = self.focused()
        typing = focused is not None and State.EDITABLE in focused.states and focused.role in TEXT_ROLES
        return keys.needs_approval(chords, typing, self._pressing_needs_approval(focused))

    def _pressing_needs_approval(self, focused: Node | None) -> bool:
        """Whether a key that presses a button of the focused window needs approval, as a click there would:
        in an alert, or in a file chooser that would take an existing file; unknown (no focus): it does."""
        latest = self.ids.latest
        if focused is None or latest is None:
            return True
        window = latest.snapshot.window_of(focused)
        if window is None or window.role in CONFIRMING:
            return True
        target = self.chooser_target(latest.snapshot, focused.window)
        return target is not None and target.exists()
