"""Accessible applications against real GTK programs (mousepad, zenity) under Xvfb with the accessibility
bus: every tool, the approvals they need, and what they wrote to the workspace."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from podium.apps.accessible.app import AccessibleApplication
from podium.apps.accessible.roles import Role
from podium.apps.base import ENDED, Change, Effect
from podium.apps.registry import Applications, build_applications
from podium.apps.tooling import NUMBER_TEXT
from podium.desktop.shell.observe import observe
from tests.desktop_session import desktop_session


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    with desktop_session(tmp_path_factory.mktemp("desktop")) as env:
        yield env


def editor_apps(workspace: Path, **extra: Any) -> Applications:
    return build_applications({"workspace": str(workspace), "enabled": ["files"], "desktop": {
        "editor": {"command": ["mousepad"], "accessible": True, "file_types": [".txt"], "opens_files": True,
                   "workspace": "write", "startup_timeout": 60, **extra}}})


def find(content: dict[str, Any], pattern: str) -> int:
    """The number of the first control line matching `pattern` (what a model reads off the list)."""
    for line in content["controls"]:
        if re.search(pattern, line):
            return int(line.split(":", 1)[0])
    raise AssertionError(f"no control matches {pattern!r} in {content['controls']}")


async def ok(app: AccessibleApplication, tool: str, **arguments: Any) -> Any:
    result = await app.call(tool, arguments)
    assert result.ok, (tool, arguments, result.error)
    return result.content


async def save_as(editor: AccessibleApplication, name: str) -> dict[str, Any]:
    await ok(editor, "menu", path=["File", "Save As…"])
    await ok(editor, "wait_for", title="Save As")
    dialog = await ok(editor, "observe")
    await ok(editor, "set_text", control=find(dialog, r"^\d+: text \[.*editable.*\] = ''$"), text=name)
    return await ok(editor, "observe")  # its Save button is enabled now


async def test_mousepad_observe_type_and_save_as_a_new_file(session: dict[str, str], tmp_path: Path) -> None:
    apps = editor_apps(tmp_path)
    editor = apps["editor"]
    assert isinstance(editor, AccessibleApplication) and editor.observer == "observe"
    try:
        assert not await editor.is_running()
        await editor.launch()
        assert await editor.is_running()
        seen = await ok(editor, "observe")
        assert seen["application"] == "mousepad" and seen["observation"] == 1
        assert any(re.match(r"\d+: menu 'File'$", line) for line in seen["controls"])
        text = find(seen, r": text \[.*editable")
        done = await ok(editor, "set_text", control=text, text="Buy milk\nCall Anna\n")
        assert done["text"] == "Buy milk\nCall Anna\n" and done["windows"] == ["*Untitled 1 - Mousepad"]
        assert (await ok(editor, "read_text", control=text))["text"] == "Buy milk\nCall Anna\n"
        # the document's text, by a digest for the host: typed into, it is another
        typed = await ok(editor, "observe")
        assert set(seen["documents"]) == {str(text)} == set(typed["documents"])
        assert typed["documents"][str(text)] != seen["documents"][str(text)]
        (look,) = await observe(editor, [])  # the host's observation: the digests apart, not for the model
        assert "documents" not in look.content and look.documents == typed["documents"]

        dialog = await save_as(editor, "notes.txt")
        assert (dialog["windows"][-1]["title"], dialog["windows"][-1]["role"]) == ("Save As", "file chooser")
        assert dialog["windows"][-1]["modal"]
        save = find(dialog, r"push button 'Save' \[is_default\]")
        found = dialog["open_dialog"]
        assert (found["window"], found["button"], found["buttons"][str(save)]) == ("Save As", save, "Save")
        assert "open_dialog" not in seen
        # a new file: created, no approval needed
        assert editor.effects("click", {"control": save}) == (Effect("notes.txt", Change.CREATE),)
        assert not editor.is_sensitive("click", {"control": save})
        assert not editor.is_sensitive("press_keys", {"keys": "Return"})  # pressing it by a key: the same
        saved = await ok(editor, "click", control=save)
        assert saved["name"] == "Save"
        await ok(editor, "wait_for", title="Save As", gone=True)
        assert (tmp_path / "notes.txt").read_text() == "Buy milk\nCall Anna\n"

        # the Save button's number names a control of a dialog that closed: a clear error, nothing pressed
        stale = await editor.call("click", {"control": save})
        assert stale.error is not None
        assert re.search(r"control \d+ \(push button 'Save'\) is not shown now", stale.error)
        unknown = await editor.call("click", {"control": 9999})
        assert unknown.error is not None and "there is no control 9999" in unknown.error
        # numbers stay the same for the same control across observations
        again = await ok(editor, "observe")
        assert find(again, r": text \[.*editable") == text and again["observation"] == 6
    finally:
        assert await apps.aclose() == ["editor"]


async def test_saving_over_a_file_needs_approval_and_so_does_the_toolkits_confirmation(
        session: dict[str, str], tmp_path: Path) -> None:
    (tmp_path / "todo.txt").write_text("old list\n")
    apps = editor_apps(tmp_path)
    editor = apps["editor"]
    try:
        await editor.launch()
        seen = await ok(editor, "observe")
        await ok(editor, "set_text", control=find(seen, r": text \[.*editable"), text="new list\n")
        dialog = await save_as(editor, "todo.txt")
        save = find(dialog, r"push button 'Save' \[is_default\]")
        assert editor.effects("click", {"control": save}) == (Effect("todo.txt", Change.REPLACE),)
        assert editor.is_sensitive("click", {"control": save})
        assert editor.is_sensitive("press_keys", {"keys": "Return"})
        await ok(editor, "click", control=save)
        confirm = await ok(editor, "observe")
        assert confirm["windows"][-1]["role"] == "alert"
        replace = find(confirm, r"push button 'Replace'")
        cancel = find(confirm, r"push button 'Cancel'")
        # every button of an alert confirms what the program warned about: approval, whatever it says
        assert editor.is_sensitive("click", {"control": replace}) and editor.is_sensitive("click", {"control": cancel})
        assert editor.is_sensitive("press_keys", {"keys": "Return"})
        assert editor.is_sensitive("press_keys", {"keys": "space"})
        assert not editor.is_sensitive("press_keys", {"keys": "Escape"})  # dismissing it needs none
        await ok(editor, "press_keys", keys="Escape")
        await ok(editor, "wait_for", title="Question", gone=True)
        assert (tmp_path / "todo.txt").read_text() == "old list\n"
        # a name outside the workspace is refused before it is typed
        dialog = await ok(editor, "observe", window="Save As")
        field = find(dialog, r"^\d+: text \[.*editable.*\] = ")
        outside = await editor.call("set_text", {"control": field, "text": "../escape.txt"})
        assert outside.error is not None and "outside" in outside.error
    finally:
        await apps.aclose()


async def test_open_a_workspace_file_edit_it_by_keys_and_save(session: dict[str, str], tmp_path: Path) -> None:
    (tmp_path / "list.txt").write_text("apples\n")
    apps = editor_apps(tmp_path)
    editor = apps["editor"]
    try:
        await ok(editor, "open_file", path="list.txt")
        seen = await ok(editor, "observe")
        assert any("list.txt" in w["title"] for w in seen["windows"]), seen
        text = find(seen, r": text \[.*editable")
        assert (await ok(editor, "read_text", control=text))["text"] == "apples\n"
        # while a workspace file is open in it, what a click saves is not known before it runs
        assert editor.effects("click", {"control": text}) is None
        # typing into the focused text field needs no approval; a shortcut does
        await ok(editor, "click", control=text)  # a click gives it the focus, as for a person
        assert "focused" in (await ok(editor, "observe"))["controls"][text - 1]
        assert editor.is_sensitive("press_keys", {"keys": "ctrl+End p e a r s"})
        assert not editor.is_sensitive("press_keys", {"keys": "End p e a r s"})
        assert editor.is_sensitive("press_keys", {"keys": "ctrl+s"})
        await ok(editor, "press_keys", keys="ctrl+End p e a r s Return")
        assert (await ok(editor, "read_text", control=text))["text"] == "apples\npears\n"
        await ok(editor, "press_keys", keys="ctrl+s")
        for _ in range(50):
            if (tmp_path / "list.txt").read_text() == "apples\npears\n":
                break
            await asyncio.sleep(0.1)
        assert (tmp_path / "list.txt").read_text() == "apples\npears\n"
        # a line added at the end of the text, on a line of its own, then saved in place
        # text set in place of the document's would leave out lines it holds; an append, or a text that holds
        # them, leaves out none
        await ok(editor, "observe")
        assert editor.erased("set_text", {"control": text, "text": "plums"}) == ("apples", "pears")
        assert editor.erased("set_text", {"control": text, "text": "plums", "append": True}) == ()
        assert editor.erased("set_text", {"control": text, "text": "apples\npears\nplums"}) == ()
        assert editor.erased("click", {"control": text}) == ()
        appended = await ok(editor, "set_text", control=text, text="plums", append=True)
        assert appended["text"] == "apples\npears\nplums"
        assert editor.effects("save", {}) == (Effect("list.txt", Change.EDIT, adds=("plums",)),)
        assert (await ok(editor, "save"))["saved"] == "list.txt"
        assert (tmp_path / "list.txt").read_text() == "apples\npears\nplums"
        bad = await editor.call("press_keys", {"keys": "ctrl+s; rm -rf /"})
        assert bad.error is not None and "not keys" in bad.error
    finally:
        await apps.aclose()


async def test_save_types_a_new_name_into_the_chooser_or_saves_the_open_file_in_place(
        session: dict[str, str], tmp_path: Path) -> None:
    """One `save` call does what the dialog takes a person (shortcut, chooser, name, default button); it
    never saves over a file the program does not have open, and saving that file in place is an edit."""
    (tmp_path / "kept.txt").write_text("the person's own\n")
    apps = editor_apps(tmp_path)
    editor = apps["editor"]
    try:
        await editor.launch()
        seen = await ok(editor, "observe")
        # text given to a control that takes none is refused, naming the text fields: never typed elsewhere
        wrong = await editor.call("set_text", {"control": find(seen, r"^\d+: menu 'File'$"), "text": "x"})
        text = find(seen, r": text \[.*editable")
        assert wrong.error is not None and f"the text fields listed are: {text}" in wrong.error
        # the grammar offers set_text only the controls that take text: here the document's
        assert editor.choices()[("set_text", "control")] == (text,)
        await ok(editor, "set_text", control=text, text="Call the plumber\n")
        # nothing open yet: a save in place has no file to write; a name outside the workspace is refused
        missing = await editor.call("save", {})
        assert missing.error is not None and "give `path`" in missing.error
        outside = await editor.call("save", {"path": "../escaped.txt"})
        assert outside.error is not None and not (tmp_path.parent / "escaped.txt").exists()
        taken = await editor.call("save", {"path": "kept.txt"})
        assert taken.error is not None and "not the file open" in taken.error
        assert (tmp_path / "kept.txt").read_text() == "the person's own\n"
        assert editor.effects("save", {"path": "notes.txt"}) == (Effect("notes.txt", Change.CREATE),)
        assert not editor.is_sensitive("save", {"path": "notes.txt"})

        saved = await ok(editor, "save", path="notes.txt")
        assert saved["saved"] == "notes.txt" and not any("Save As" in w for w in saved["windows"])
        assert (tmp_path / "notes.txt").read_text() == "Call the plumber\n"

        # the document is notes.txt now: saving it again is an edit of that file, in place
        assert editor.effects("save", {}) == (Effect("notes.txt", Change.EDIT),)
        assert editor.is_sensitive("save", {})  # an edit of a file that exists: the person approves it
        seen = await ok(editor, "observe")
        text = find(seen, r": text \[.*editable")
        await ok(editor, "set_text", control=text, text="Buy stamps\n")
        # the person approving the edit sees what it would lose from the file
        assert editor.effects("save", {}) == (Effect("notes.txt", Change.EDIT, removes=("Call the plumber",),
                                                     adds=("Buy stamps",)),)
        # a text of three lines or more saved as a text that keeps less than half of them is a rewrite (wipes)
        await ok(editor, "set_text", control=text, text="Call the plumber\nBuy stamps\nFeed the cat\n")
        assert (await ok(editor, "save"))["saved"] == "notes.txt"
        await ok(editor, "set_text", control=text, text="Feed the dog\n")
        (rewrite,) = editor.effects("save", {})
        assert rewrite.wipes and rewrite.removes == ("Call the plumber", "Buy stamps", "Feed the cat")
        await ok(editor, "set_text", control=text, text="Call the plumber\nBuy stamps\n")
        # a line removed with nothing in its place is dropped: said apart, as --yes does not grant it
        assert editor.effects("save", {}) == (Effect("notes.txt", Change.EDIT, removes=("Feed the cat",),
                                                     drops=("Feed the cat",)),)
        assert (await ok(editor, "save"))["saved"] == "notes.txt"
        assert (tmp_path / "notes.txt").read_text() == "Call the plumber\nBuy stamps\n"
    finally:
        await apps.aclose()


async def test_the_role_table_is_the_toolkits(session: dict[str, str], tmp_path: Path) -> None:
    """Every role number mousepad sends means what AT-SPI's own role name says (roles.Role is AT-SPI's)."""
    apps = editor_apps(tmp_path)
    editor = apps["editor"]
    try:
        await editor.launch()
        observed = await editor.observation()
        bus = await editor.bus()
        names = await asyncio.gather(*(bus.call(n.ref, "Accessible", "GetRoleName") for n in observed.snapshot.nodes))
        pairs = {(node.role, str(name[0])) for node, name in zip(observed.snapshot.nodes, names, strict=True)}
        assert len(pairs) >= 8
        for role, name in pairs:  # AT-SPI writes some without a space ("statusbar")
            assert role.name.replace("_", "").lower() == name.replace(" ", "").lower(), (role, name)
        assert Role.APPLICATION in {r for r, _ in pairs}
    finally:
        await apps.aclose()


async def test_a_menu_item_opens_its_dialog_by_the_menu_tool_and_by_clicks(session: dict[str, str],
                                                                         tmp_path: Path) -> None:
    """An open menu's items lie in a popup above the program's window: a click on one raises nothing
    (raising the window would cover the popup, and the click would land on the window instead)."""
    apps = editor_apps(tmp_path)
    editor = apps["editor"]
    try:
        await editor.launch()
        # the observation lists what each closed menu holds, its items numbered like controls ('>' a submenu)
        seen = await ok(editor, "observe")
        menus = seen["menus"]
        view = next(line for line in menus if line.startswith("View: "))
        assert re.search(r"\b\d+ Line Numbers\b", view) and "Color Scheme >" in view
        assert [line.split(":")[0] for line in menus][:2] == ["File", "Edit"]
        edit = next(line for line in menus if line.startswith("Edit: "))
        preferences = int(re.search(r"(\d+) Preferences", edit).group(1))  # type: ignore[union-attr]
        assert preferences > 1000  # numbered apart: the shown controls keep the numbers they would have
        # a path that misses names where the menus hold what it asks for
        wrong = await editor.call("menu", {"path": ["File", "View", "Line Numbers"]})
        assert wrong.error is not None and "no menu entry 'View' in File" in wrong.error
        assert wrong.error.endswith("'Line Numbers' is in the menu 'View': its path is [\"View\", \"Line Numbers\"]")
        await ok(editor, "press_keys", keys="Escape")
        # an item looked for in a control that a menu holds: the error names the menu's item
        chosen = await editor.call("select", {"control": find(seen, r": text \[.*editable"), "item": "line numbers"})
        numbered = re.search(r"(\d+) Line Numbers", view).group(1)  # type: ignore[union-attr]
        assert chosen.error is not None and chosen.error.endswith(
            f"the menu item {numbered} (View > Line Numbers) bears that name: click it to choose it")
        typed = await ok(editor, "set_text", control=find(seen, r": text \[.*editable"), text="Line Numbers")
        assert typed["text"] == "Line Numbers" and typed["note"] == (
            f"typed as text; the menu item {numbered} (View > Line Numbers) bears that name: click it to choose it")
        # text for a closed menu's item is refused, saying what it is; a click (or a selection) of it opens the
        # menus on the way, as the menu tool does
        typed = await editor.call("set_text", {"control": preferences, "text": "Preferences"})
        assert typed.error is not None and "is the item Edit > Preferences... of a menu" in typed.error
        clicked = await ok(editor, "click", control=preferences)
        assert clicked["control"] == preferences and clicked["menu"] == "Edit > Preferences..."
        await ok(editor, "wait_for", title="Preferences")
        # a settings dialog with no button to end it with has nothing to confirm: no open dialog to ask about
        assert "open_dialog" not in await ok(editor, "observe")
    finally:
        await apps.aclose()
    assert not await editor.is_running()
    apps = editor_apps(tmp_path)
    editor = apps["editor"]
    try:
        await editor.launch()
        content = await ok(editor, "observe")
        await ok(editor, "click", control=find(content, r"^\d+: menu 'Edit'"))
        opened = await ok(editor, "observe")
        await ok(editor, "click", control=find(opened, r"^\d+: menu item 'Preferences"))
        await ok(editor, "wait_for", title="Preferences")
    finally:
        await apps.aclose()

def dialog_apps(workspace: Path, command: str) -> Applications:
    """zenity run by a shell that keeps what it prints in the workspace (zenity's answer is its output)."""
    return build_applications({"workspace": str(workspace), "enabled": ["files"], "desktop": {
        "dialog": {"command": ["sh", "-c", f"cd {workspace} && {{ {command}; }}"], "process": "zenity",
                   "window": "zenity", "accessible": True, "workspace": "write",
                   "startup_timeout": 60}}})


async def until_file(path: Path) -> str:
    for _ in range(100):
        if path.exists() and path.read_text():
            return path.read_text()
        await asyncio.sleep(0.1)
    raise AssertionError(f"{path} was not written")


VISITOR_FORM = ('zenity --forms --title Visitor --text "Register a visitor" --add-entry Name --add-entry Email '
                '--add-combo Room --combo-values "Blue|Green|Red" > form.txt')


@pytest.mark.parametrize("by_label", [False, True], ids=["by-field", "by-label"])
async def test_zenity_form_fields_a_combo_box_and_ok(session: dict[str, str], tmp_path: Path, by_label: bool) -> None:
    """Filled by its fields' numbers, or by its labels' (typing "into Name" types into the field the label
    names, and "into Room" chooses in its combo box)."""
    apps = dialog_apps(tmp_path, VISITOR_FORM)
    form = apps["dialog"]
    try:
        await form.launch()
        seen = await ok(form, "observe")
        assert [(w["title"], w["role"]) for w in seen["windows"]] == [("Visitor", "dialog")]
        # the dialog in front (zenity's OK is not marked as its default button): the verifier asks about a
        # FINISH that leaves it open
        lines = seen["controls"]
        assert seen["open_dialog"] == {"window": "Visitor", "buttons": {
            str(find(seen, r"push button 'Cancel'")): "Cancel", str(find(seen, r"push button 'OK'")): "OK"}}
        # read in screen order: each field right after its label
        assert re.search(r"label 'Name'$", lines[1]) and re.search(r": text \[.*editable.*\] = ''$", lines[2])
        combo = find(seen, r": combo box")
        # a click on its OK would confirm it with every labelled field empty; not with those an earlier call of
        # the same answer fills (by the field or by its label)
        confirm = find(seen, r"push button 'OK'")
        assert form.unfilled("click", {"control": confirm}) == ("Name", "Email", "Room")
        earlier = [("set_text", {"control": find(seen, r": text")}), ("select", {"control": combo})]
        assert form.unfilled("click", {"control": confirm}, earlier) == ("Email",)
        assert form.unfilled("set_text", {"control": confirm}) == ()
        # set_text is offered the fields and the labels that name one, not the form's title
        takers = form.choices()[("set_text", "control")]
        assert {find(seen, r": text"), find(seen, r"label 'Name'$"), find(seen, r"label 'Room'$")} <= set(takers)
        assert find(seen, r"label 'Register a visitor'$") not in takers
        # select takes the combo box, and the label that names it, only with the item meant
        needs_item = form.choices()[("select", "control", "item")]
        assert {combo, find(seen, r"label 'Room'$")} <= set(needs_item)
        assert not set(needs_item) & set(form.choices()[("select", "control")])
        if by_label:
            name, room = find(seen, r"label 'Name'$"), find(seen, r"label 'Room'$")
            typed = await ok(form, "set_text", control=name, text="Alice Martin")
            assert (typed["label"], typed["control"], typed["text"]) == (name, find(seen, r": text"), "Alice Martin")
            await ok(form, "set_text", control=find(seen, r"label 'Email'$"), text="alice@example.org")
            chosen = await ok(form, "set_text", control=room, text="Green")
            assert (chosen["label"], chosen["control"]) == (room, combo)
            title = await form.call("set_text", {"control": find(seen, r"label 'Register a visitor'$"), "text": "x"})
            assert title.error is not None and "takes no text; the text fields listed are" in title.error
        else:
            await ok(form, "set_text", control=find(seen, r": text"), text="Alice Martin")
            await ok(form, "set_text", control=int(lines[lines.index(next(x for x in lines if "'Email'" in x)) + 1]
                                                    .split(":")[0]), text="alice@example.org")
            missing = await form.call("select", {"control": combo, "item": "Purple"})
            assert missing.error is not None and "'Green'" in missing.error  # the items it has are listed
            await ok(form, "select", control=combo, item="green")
        assert not form.is_sensitive("click", {"control": find(seen, r"push button 'OK'")})
        # filled, no field is left empty by a confirmation
        await ok(form, "observe")
        assert form.unfilled("click", {"control": find(seen, r"push button 'OK'")}) == ()
        await ok(form, "click", control=find(seen, r"push button 'OK'"))
        assert (await until_file(tmp_path / "form.txt")).strip() == "Alice Martin|alice@example.org|Green"
    finally:
        await apps.aclose()


async def test_zenity_list_selection_and_a_slider(session: dict[str, str], tmp_path: Path) -> None:
    apps = dialog_apps(tmp_path, "zenity --list --title Pick --column Fruit Apple Banana Cherry > pick.txt; "
                                 "zenity --scale --title Volume --value 20 > volume.txt")
    dialog = apps["dialog"]
    # a program of no document type that opens no file is offered no save
    assert "save" not in {t.name for t in dialog.tools()} and "click" in {t.name for t in dialog.tools()}
    try:
        await dialog.launch()
        seen = await ok(dialog, "observe")
        table = find(seen, r"^\d+: (tree )?table( '[^']*')?( \[.*\])?$")
        # the table itself is no item to select: one of its is meant, and they are named (the grammar offers
        # the table only with an item; its cells alone)
        assert dialog.choices()[("select", "control", "item")] == (table,)
        assert find(seen, r"table cell 'Banana'") in dialog.choices()[("select", "control")]
        whole = await dialog.call("select", {"control": table})
        assert whole.error is not None and "select one of its items" in whole.error and "'Banana'" in whole.error
        await ok(dialog, "select", control=table, item="Cherry")
        # an item given its own name as the item to select is selected itself
        await ok(dialog, "select", control=find(seen, r"table cell 'Banana'"), item="banana")
        # Return presses what a click on its window's buttons would: no approval outside an alert
        assert not dialog.is_sensitive("press_keys", {"keys": "Return"})
        await ok(dialog, "click", control=find(seen, r"push button 'OK'"))
        assert (await until_file(tmp_path / "pick.txt")).strip() == "Banana"
        await ok(dialog, "wait_for", title="Volume")
        seen = await ok(dialog, "observe")
        slider = find(seen, r": slider")
        # a number is its text, and only the text of a number (no form of set_text types anything else)
        assert dialog.choices()[("set_text", "control", "text", NUMBER_TEXT)] == (slider,)
        assert dialog.choices()[("set_text", "control")] == ()
        assert seen["controls"][[int(x.split(":")[0]) for x in seen["controls"]].index(slider)].endswith("= '20'")
        # a click lands the slider wherever it hits: its value is given as a number
        clicked = await dialog.call("click", {"control": slider})
        assert clicked.error is not None and "set its value with set_text" in clicked.error
        too_big = await dialog.call("set_text", {"control": slider, "text": "250"})
        assert too_big.error is not None and "outside its range 0 to 100" in too_big.error
        two = await dialog.call("set_text", {"control": slider, "text": "from 20 to 65"})
        assert two.error is not None and "give one number" in two.error
        assert (await ok(dialog, "set_text", control=slider, text="{64}"))["value"] == 64  # its one number
        assert (await ok(dialog, "set_text", control=slider, text="65"))["value"] == 65
        confirmed = await ok(dialog, "click", control=find(seen, r"push button 'OK'"))
        assert (await until_file(tmp_path / "volume.txt")).strip() == "65"
        assert confirmed["windows"] == [] and confirmed[ENDED] == 0  # the script ended with its last dialog
    finally:
        await apps.aclose()


async def test_a_dialog_closed_by_its_cancel_button_reports_its_programs_failure(session: dict[str, str],
                                                                                  tmp_path: Path) -> None:
    apps = dialog_apps(tmp_path, "zenity --scale --title Volume --value 20 > volume.txt")
    dialog = apps["dialog"]
    try:
        await dialog.launch()
        seen = await ok(dialog, "observe")
        await ok(dialog, "set_text", control=find(seen, r": slider"), text="65")
        cancelled = await ok(dialog, "click", control=find(seen, r"push button 'Cancel'"))
        assert cancelled["windows"] == [] and cancelled[ENDED] == 1  # zenity's status for a cancel
        assert (tmp_path / "volume.txt").read_text() == ""
    finally:
        await apps.aclose()


async def test_set_of_marks_draws_each_listed_controls_box_and_number(session: dict[str, str],
                                                                     tmp_path: Path) -> None:
    from PIL import Image, ImageColor

    from podium.apps import display
    from podium.apps.accessible.marks import COLOURS

    apps = editor_apps(tmp_path)
    editor = apps["editor"]
    try:
        await editor.launch()
        observed = await editor.observation()
        shot = await editor.marked_screenshot(tmp_path / "marks.png")
        assert isinstance(shot, display.Screenshot) and (shot.width, shot.height) == (1600, 1200)
        boxed = 0
        with Image.open(shot.path) as image:
            pixels = image.convert("RGB")
            for number, control in enumerate(observed.controls):
                if control.node.bounds is None or min(control.node.bounds[2:]) < 6:
                    continue
                x, y, width, height = control.node.bounds
                colour = ImageColor.getrgb(COLOURS[number % len(COLOURS)])[:3]
                assert pixels.getpixel((x + width // 2, y + height - 1)) == colour, control.line()
                boxed += 1
        assert boxed >= 5
    finally:
        await apps.aclose()
