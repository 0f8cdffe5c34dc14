"""GUI tasks: real programs (mousepad, zenity) driven through their windows' accessibility tree.

Each task's folder brings its own podium.toml (the runner gives it to podium): the program as an
accessible desktop application. mousepad runs with a settings file of the folder's own (a hidden
.mousepad folder, GSETTINGS_BACKEND=keyfile), so a setting changed in its Preferences dialog is a file the
checker reads, and no earlier session's state leaks in. zenity's answer is what it prints, which a shell
keeps in a file of the folder. Run them on a desktop: `xvfb-run -s "-screen 0 1600x1200x24"
dbus-run-session python bench/tasks/run.py --task gui_type_and_save ...` (Debian packages xvfb, dbus,
at-spi2-core, xdotool, mousepad, zenity).
"""

from __future__ import annotations

import configparser
import shlex
from dataclasses import replace
from pathlib import Path

from .. import folder_view
from ..task import Category, EndState, Fail, Family, Task, require
from .make import text_file

SETTINGS = ".mousepad"  # the folder's own settings home for mousepad (hidden: not one of the task's files)
KEYFILE = f"{SETTINGS}/glib-2.0/settings/keyfile"


def _config(folder: Path, name: str, command: list[str], process: str, description: str,
            file_types: tuple[str, ...] = ()) -> None:
    # The program saves into the folder (a document, zenity's answer, mousepad's settings file): the
    # workspace is writable in its sandbox, the folder's podium.toml still read-only.
    table = {"command": command, "process": process, "accessible": True, "description": description,
             "startup_timeout": 60, "file_types": list(file_types), "opens_files": bool(file_types),
             "workspace": "write"}
    lines = ['[apps]', 'enabled = ["files"]', "", f"[apps.desktop.{name}]"]
    lines += [f"{key} = {_toml(value)}" for key, value in table.items()]
    text_file(folder / "podium.toml", "\n".join(lines) + "\n")


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _editor(folder: Path) -> None:
    """mousepad with the folder's own settings; session restore off (podium ends it with SIGTERM)."""
    settings = folder / SETTINGS
    text_file(folder / KEYFILE, "[org/xfce/mousepad/preferences/file]\nsession-restore='never'\n")
    _config(folder, "editor", ["env", "GSETTINGS_BACKEND=keyfile", f"XDG_CONFIG_HOME={settings}", "mousepad"],
            "mousepad", "mousepad, a text editor", (".txt",))


def _dialog(folder: Path, zenity: str, output: str, description: str) -> None:
    script = f"cd {shlex.quote(str(folder))} && zenity {zenity} > {shlex.quote(output)}"
    _config(folder, "dialog", ["sh", "-c", script], "zenity", description)


def _lines(end: EndState, name: str) -> list[str]:
    return [line.strip() for line in folder_view.read_text(end, name).splitlines() if line.strip()]


# -- type and save --------------------------------------------------------------------------------

NOTE = "Call the plumber on Monday"


def build_note(folder: Path) -> None:
    _editor(folder)


def check_note(end: EndState) -> str:
    lines = _lines(end, "notes.txt")
    require(lines == [NOTE], f"notes.txt holds {lines[:3]}, not the one line {NOTE!r}")
    return f"notes.txt says {NOTE!r}"


# -- open, append, save ---------------------------------------------------------------------------

SHOPPING = "bread\nmilk\n"


def build_shopping(folder: Path) -> None:
    _editor(folder)
    text_file(folder / "shopping.txt", SHOPPING)


def check_shopping(end: EndState) -> str:
    lines = _lines(end, "shopping.txt")
    require(lines == ["bread", "milk", "eggs"], f"shopping.txt lists {lines}, not bread, milk, eggs")
    extra = sorted(folder_view.files_now(end) - set(end.before))
    require(not extra, f"new files were written: {extra}")
    return "shopping.txt lists bread, milk, eggs"


# -- a setting in a dialog ------------------------------------------------------------------------


def build_setting(folder: Path) -> None:
    _editor(folder)


def check_setting(end: EndState) -> str:
    path = end.path(KEYFILE)
    settings = configparser.ConfigParser(interpolation=None)
    settings.read_string(path.read_text(encoding="utf-8") if path.is_file() else "")
    value = settings.get("org/xfce/mousepad/preferences/view", "show-line-numbers", fallback=None)
    require(value is not None, "mousepad's settings do not say show-line-numbers: the setting was not changed")
    require(value.strip() == "true", f"show-line-numbers is {value.strip()}, not true")
    return "mousepad's settings say show-line-numbers=true"


# -- zenity: a form, a list, a slider -------------------------------------------------------------

FORM = "Alice Martin|alice@example.org|Green"


def build_form(folder: Path) -> None:
    _dialog(folder, '--forms --title "Visitor" --text "Register a visitor" --add-entry Name --add-entry Email '
                    '--add-combo Room --combo-values "Blue|Green|Red"', "visitor.txt", "the visitor form (zenity)")


def check_form(end: EndState) -> str:
    lines = _lines(end, "visitor.txt")
    require(lines, "visitor.txt is empty: the form was cancelled or not confirmed")
    require(lines == [FORM], f"the form was confirmed with {lines[0]!r}, not {FORM!r}")
    return f"the form was confirmed with {FORM!r}"


def build_pick(folder: Path) -> None:
    _dialog(folder, '--list --title "Fruit" --column Fruit Apple Banana Cherry', "fruit.txt",
            "a list of fruit to choose from (zenity)")


def check_pick(end: EndState) -> str:
    lines = _lines(end, "fruit.txt")
    require(lines, "fruit.txt is empty: nothing was chosen, or the dialog was cancelled")
    require(lines == ["Banana"], f"{lines[0]!r} was chosen, not 'Banana'")
    return "Banana was chosen"


def build_volume(folder: Path) -> None:
    _dialog(folder, '--scale --title "Volume" --text "Volume" --value 20', "volume.txt",
            "a volume dialog with a slider (zenity)")


def check_volume(end: EndState) -> str:
    lines = _lines(end, "volume.txt")
    require(lines, "volume.txt is empty: the dialog was cancelled")
    if lines != ["65"]:
        raise Fail(f"the volume was confirmed at {lines[0]}, not 65")
    return "the volume was confirmed at 65"


TASKS = tuple(replace(task, family=Family.NEW) for task in (  # kinds of work the office tasks lack
    Task("gui_type_and_save", Category.GUI, f"Type '{NOTE}' into the editor and save it as notes.txt",
         build_note, check_note, note="a new document typed and saved through the Save As dialog"),
    Task("gui_append_line", Category.GUI, "Open shopping.txt in the editor, add the line 'eggs' at its end "
         "and save it", build_shopping, check_shopping, approves=True,
         note="a workspace file edited and saved in place"),
    Task("gui_change_setting", Category.GUI, "Turn on line numbers in the editor's preferences",
         build_setting, check_setting, note="a check box in a preferences dialog; the checker reads the settings"),
    Task("gui_fill_form", Category.GUI, "Fill in the visitor form: name Alice Martin, email alice@example.org, "
         "room Green; then confirm it", build_form, check_form, note="text fields and a combo box, then OK"),
    Task("gui_pick_from_list", Category.GUI, "Choose Banana in the fruit dialog and confirm", build_pick,
         check_pick, note="an item selected in a list"),
    Task("gui_set_volume", Category.GUI, "Set the volume in the dialog to 65 and confirm", build_volume,
         check_volume, note="a slider's value"),
))
