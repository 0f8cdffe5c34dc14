"""Accessible applications without a desktop: roles and states, the control list's numbering, key
approvals, the hybrid advice, and a clear error when there is no accessibility bus."""

from __future__ import annotations

from pathlib import Path

import pytest

from podium.apps.accessible import keys
from podium.apps.accessible.app import AccessibleApplication
from podium.apps.accessible.bus import AccessibilityUnavailable, AtspiBus
from podium.apps.accessible.controls import ControlIds, number_ranges
from podium.apps.accessible.roles import Role, State, states_of
from podium.apps.accessible.tree import Node, Snapshot
from podium.apps.base import Change, Effect
from podium.apps.registry import build_applications
from podium.apps.tooling import ToolError

SHOWN = frozenset({State.SHOWING, State.VISIBLE, State.SENSITIVE, State.ENABLED})
TEXT = frozenset({"EditableText", "Text", "Component"})


class Tree:
    """A hand-made snapshot: node i is the i-th added; the application is node 0, its children are windows."""

    def __init__(self) -> None:
        self.rows: list[dict] = [dict(role=Role.APPLICATION, name="editor", parent=None, bounds=None, states=SHOWN,
                                      text=None, interfaces=frozenset({"Application"}), path="/root")]

    def add(self, role: Role, name: str = "", *, parent: int, bounds: tuple[int, int, int, int] | None = (0, 0, 50, 20),
            states: frozenset[State] = SHOWN, text: str | None = None,
            interfaces: frozenset[str] = frozenset({"Action", "Component"}), path: str | None = None) -> int:
        self.rows.append(dict(role=role, name=name, parent=parent, bounds=bounds, states=states, text=text,
                              interfaces=interfaces, path=path or f"/o/{len(self.rows)}"))
        return len(self.rows) - 1

    def window_of(self, index: int) -> int | None:
        while self.rows[index]["parent"] not in (None, 0):
            index = self.rows[index]["parent"]
        return None if index == 0 else index

    def snapshot(self) -> Snapshot:
        nodes = tuple(Node((":1.5", r["path"]), r["role"], r["name"], r["states"], r["interfaces"], r["parent"],
                           self.window_of(i), i, bounds=r["bounds"], text=r["text"], text_length=len(r["text"] or ""),
                           children=tuple(j for j, c in enumerate(self.rows) if c["parent"] == i))
                      for i, r in enumerate(self.rows))
        return Snapshot(nodes[0].ref, "editor", 42, nodes, nodes[0].children)


def test_states_come_from_both_words_of_the_bit_set() -> None:
    words = [(1 << State.FOCUSED) | (1 << State.SHOWING), 1 << (State.IS_DEFAULT - 32)]
    assert states_of(words) == {State.FOCUSED, State.SHOWING, State.IS_DEFAULT}
    assert Role.of(43) is Role.PUSH_BUTTON and Role.of(9999) is Role.UNKNOWN
    assert Role.PUSH_BUTTON.label == "push button"


def test_numbers_stay_with_their_control_and_new_controls_get_new_ones() -> None:
    ids = ControlIds()
    page = Tree()
    frame = page.add(Role.FRAME, "notes - Editor", parent=0, states=SHOWN | {State.ACTIVE}, bounds=(0, 0, 800, 600))
    page.add(Role.PUSH_BUTTON, "Save", parent=frame, bounds=(100, 10, 60, 20))
    page.add(Role.TEXT, parent=frame, interfaces=TEXT, text="hello", bounds=(0, 40, 300, 200),
             states=SHOWN | {State.EDITABLE, State.FOCUSED})
    first = ids.observe(page.snapshot())
    assert [c.line() for c in first.controls] == ["1: push button 'Save'", "2: text [focused, editable] = 'hello'"]
    dialog = page.add(Role.ALERT, "Question", parent=0, states=SHOWN | {State.MODAL}, bounds=(200, 200, 300, 100))
    replace = page.add(Role.PUSH_BUTTON, "Replace", parent=dialog, states=SHOWN | {State.IS_DEFAULT},
                       bounds=(210, 260, 60, 20))
    second = ids.observe(page.snapshot())
    # the dialog's controls first (it is modal), a new number for its button; the others keep theirs
    assert [c.line() for c in second.controls] == ["3: push button 'Replace' [is_default]", "1: push button 'Save'",
                                                   "2: text [focused, editable] = 'hello'"]
    assert second.generation == 2
    assert ids.lookup(3) == ((":1.5", page.rows[replace]["path"]), Role.PUSH_BUTTON, "Replace")
    assert ids.lookup(4) is None
    assert second.to_content()["windows"][1] == {"title": "Question", "role": "alert", "modal": True}
    assert [c.line() for c in ids.observe(page.snapshot(), window="question").controls] == [
        "3: push button 'Replace' [is_default]"]
    # an object path given to another kind of object later is another control
    page.rows[2]["role"] = Role.CHECK_BOX
    assert ids.observe(page.snapshot()).controls[1].line() == "4: check box 'Save'"


def test_the_list_is_bounded_and_says_how_many_it_left_out() -> None:
    page = Tree()
    frame = page.add(Role.FRAME, "many", parent=0)
    for i in range(30):
        page.add(Role.PUSH_BUTTON, f"b{i}", parent=frame, bounds=(10 * i, 0, 8, 8))
    observed = ControlIds().observe(page.snapshot(), max_controls=10)
    assert len(observed.controls) == 10 and observed.omitted == 20
    assert "20 more controls not listed" in observed.to_content()["omitted"]
    # reading order on the screen: left to right on one row
    assert [c.name for c in observed.controls] == [f"b{i}" for i in range(10)]


def test_a_nameless_item_is_named_by_its_labels_and_a_long_list_is_cut() -> None:
    page = Tree()
    frame = page.add(Role.FRAME, "files", parent=0, bounds=(0, 0, 500, 500))
    table = page.add(Role.TABLE, "Files", parent=frame, bounds=(0, 0, 400, 400))
    for row in range(12):
        item = page.add(Role.LIST_ITEM, parent=table, bounds=(0, 30 + 20 * row, 100, 18))
        page.add(Role.LABEL, f"file{row}.txt", parent=item, bounds=(2, 31 + 20 * row, 90, 16),
                 interfaces=frozenset({"Text", "Component"}))
    lines = [c.line() for c in ControlIds().observe(page.snapshot()).controls]
    assert lines[0] == "1: list item 'file0.txt'"  # nearest the top; the table's centre is lower down
    assert [line.split(": ", 1)[1] for line in lines if "list item" in line] == [
        f"list item 'file{i}.txt'" for i in range(8)]  # the first 8 items; their labels are not listed again
    assert "table 'Files'" in " ".join(lines) and not any("label" in line for line in lines)


def test_keys_need_approval_when_they_act_not_when_they_type_or_move() -> None:
    assert keys.parse("ctrl+s  Tab") == ["ctrl+s", "Tab"]
    with pytest.raises(ToolError, match="not keys"):
        keys.parse("ctrl+s;reboot")
    with pytest.raises(ToolError, match="at least one key"):
        keys.parse("   ")
    assert keys.needs_approval(["ctrl+s"], typing_field=True)
    assert keys.needs_approval(["Return"], typing_field=True)
    assert keys.needs_approval(["space"], typing_field=False)  # presses the focused button
    assert not keys.needs_approval(["H", "i", "space", "BackSpace", "shift+a"], typing_field=True)
    assert not keys.needs_approval(["Escape", "Tab", "Down"], typing_field=False)
    # a key that presses a button is judged as a click of a button of the focused window
    harmless = {"pressing_needs_approval": False}
    assert not keys.needs_approval(["Return"], typing_field=False, **harmless)
    assert not keys.needs_approval(["Down", "KP_Enter"], typing_field=False, **harmless)
    assert not keys.needs_approval(["space"], typing_field=False, **harmless)
    assert not keys.needs_approval(["Return"], typing_field=True, **harmless)
    assert keys.needs_approval(["ctrl+Return"], typing_field=False, **harmless)  # a shortcut still does
    assert keys.needs_approval(["F2"], typing_field=False, **harmless)  # a key that acts some other way
    assert keys.needs_approval(["a"], typing_field=False, **harmless)  # a key that types nowhere


def test_ranges() -> None:
    assert number_ranges([9, 1, 2, 3, 7, 10]) == "1-3, 7, 9-10"


def test_configured_as_accessible_with_the_hybrid_advice(tmp_path: Path) -> None:
    apps = build_applications({"workspace": str(tmp_path), "enabled": ["documents", "spreadsheets", "files"],
                               "desktop": {"writer": {"command": ["lowriter"], "accessible": True,
                                                      "file_types": [".docx", ".odt"], "max_controls": 40},
                                           "viewer": {"command": ["eog"]}}})
    writer = apps["writer"]
    assert isinstance(writer, AccessibleApplication) and not isinstance(apps["viewer"], AccessibleApplication)
    assert writer.max_controls == 40 and writer.observer == "observe"
    tools = {t.name: t for t in writer.tools()}
    assert {"observe", "click", "set_text", "select", "menu", "read_text", "wait_for", "press_keys", "status",
            "close"} <= set(tools)
    assert tools["observe"].read_only and not tools["observe"].parameters.get("required")
    assert "prefer documents for .docx" in tools["set_text"].description
    assert "without a window" in tools["observe"].description
    # nothing observed yet: no number is known, so nothing is sensitive and nothing of the workspace changes
    assert not writer.is_sensitive("click", {"control": 1})
    assert writer.effects("click", {"control": 1}) == ()
    assert writer.effects("observe", {}) == ()
    writer.opened.add("report.docx")  # a file open in it: what a click saves is not known
    assert writer.effects("click", {"control": 1}) is None


def program(workspace: Path, command: str, frame: str) -> tuple[AccessibleApplication, Tree]:
    """An accessible program of the workspace, and the tree of its main window to build on."""
    app = build_applications({"workspace": str(workspace), "enabled": ["files"],
                              "desktop": {command: {"command": [command], "accessible": True}}})[command]
    assert isinstance(app, AccessibleApplication)
    page = Tree()
    page.add(Role.FRAME, frame, parent=0)
    return app, page


def test_a_file_chooser_accept_creates_or_replaces_the_named_file(tmp_path: Path) -> None:
    (tmp_path / "old.txt").write_text("kept")
    editor, page = program(tmp_path, "mousepad", "Editor")
    chooser = page.add(Role.FILE_CHOOSER, "Save As", parent=0, states=SHOWN | {State.MODAL}, bounds=(0, 0, 500, 400))
    name = page.add(Role.TEXT, parent=chooser, text=str(tmp_path / "old.txt"), interfaces=TEXT,
                    states=SHOWN | {State.EDITABLE})
    page.add(Role.PUSH_BUTTON, "Save", parent=chooser, states=SHOWN | {State.IS_DEFAULT}, bounds=(100, 300, 50, 20))
    page.add(Role.PUSH_BUTTON, "Cancel", parent=chooser, bounds=(40, 300, 50, 20))
    observed = editor.ids.observe(page.snapshot())
    numbers = {c.name: c.id for c in observed.controls}
    assert editor.effects("click", {"control": numbers["Save"]}) == (Effect("old.txt", Change.REPLACE),)
    assert editor.is_sensitive("click", {"control": numbers["Save"]})
    assert not editor.is_sensitive("click", {"control": numbers["Cancel"]})
    assert editor.effects("click", {"control": numbers["Cancel"]}) == ()
    editor._typed[(":1.5", page.rows[name]["path"])] = str(tmp_path / "new.txt")  # what set_text typed since
    assert editor.effects("click", {"control": numbers["Save"]}) == (Effect("new.txt", Change.CREATE),)
    assert not editor.is_sensitive("click", {"control": numbers["Save"]})
    assert editor.consequences.chooser_path("notes/today.txt") == str(tmp_path.resolve() / "notes/today.txt")
    with pytest.raises(ToolError, match="outside"):
        editor.consequences.chooser_path("../elsewhere.txt")


async def test_without_a_session_bus_the_error_says_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
    monkeypatch.delenv("AT_SPI_BUS_ADDRESS", raising=False)
    with pytest.raises(AccessibilityUnavailable, match="dbus-run-session"):
        await AtspiBus.connect()


def test_a_label_stands_for_its_field_in_what_a_call_does_and_needs(tmp_path: Path) -> None:
    dialog, page = program(tmp_path, "zenity", "Form")
    alert = page.add(Role.ALERT, "Replace?", parent=0, states=SHOWN | {State.MODAL}, bounds=(0, 0, 500, 400))
    page.add(Role.LABEL, "Name", parent=alert, bounds=(10, 10, 60, 20))
    page.add(Role.TEXT, parent=alert, interfaces=TEXT, states=SHOWN | {State.EDITABLE}, bounds=(80, 10, 200, 20))
    page.add(Role.LABEL, "Room", parent=alert, bounds=(10, 40, 60, 20))
    page.add(Role.COMBO_BOX, parent=alert, bounds=(80, 40, 200, 20))
    page.add(Role.LABEL, "Pick one", parent=alert, bounds=(10, 70, 60, 20))
    numbers = {c.name or c.node.role.label: c.id for c in dialog.ids.observe(page.snapshot()).controls}
    assert dialog._field_of(numbers["Name"]).id == numbers["text"]  # type: ignore[union-attr]
    assert dialog._field_of(numbers["Pick one"]) is None  # nothing after it
    # typing through the label of a combo box is a selection there: judged as one (a confirming dialog's)
    assert dialog.is_sensitive("set_text", {"control": numbers["Room"], "text": "Green"})
    assert not dialog.is_sensitive("set_text", {"control": numbers["Name"], "text": "Alice"})
    dialog.opened.add("notes.txt")  # a file open in it: what a selection saves is not known; typing saves nothing
    assert dialog.effects("set_text", {"control": numbers["Room"], "text": "Green"}) is None
    assert dialog.effects("set_text", {"control": numbers["Name"], "text": "Alice"}) == ()
