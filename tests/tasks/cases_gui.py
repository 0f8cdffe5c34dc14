"""End states of the GUI tasks: what mousepad and zenity leave in the folder (files, the editor's settings),
made by hand."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bench.tasks.suite import gui

from .case import Case, bad, good, nothing
from .edit import write_text


def keyfile(line_numbers: str | None, other: str = "") -> Callable[[Path], None]:
    """mousepad's settings file as the task built it, with the line-numbers setting as a run left it (and
    `other` settings of the same group that the run changed too)."""
    def make(folder: Path) -> None:
        text = "[org/xfce/mousepad/preferences/file]\nsession-restore='never'\n"
        if line_numbers is not None:
            text += f"\n[org/xfce/mousepad/preferences/view]\n{other}show-line-numbers={line_numbers}\n"
        (folder / gui.KEYFILE).write_text(text)

    return make


CASES: list[Case] = [
    good("gui_type_and_save", "the line", lambda f: write_text(f / "notes.txt", f"{gui.NOTE}\n")),
    good("gui_type_and_save", "no final newline", lambda f: write_text(f / "notes.txt", gui.NOTE)),
    bad("gui_type_and_save", "saved under another name", lambda f: write_text(f / "Untitled.txt", gui.NOTE),
        "notes.txt was not written"),
    bad("gui_type_and_save", "typed twice", lambda f: write_text(f / "notes.txt", f"{gui.NOTE}\n{gui.NOTE}\n"),
        "not the one line"),
    good("gui_append_line", "eggs last", lambda f: write_text(f / "shopping.txt", "bread\nmilk\neggs\n")),
    good("gui_append_line", "no final newline", lambda f: write_text(f / "shopping.txt", "bread\nmilk\neggs")),
    bad("gui_append_line", "not saved", nothing, "lists ['bread', 'milk'], not bread, milk, eggs"),
    bad("gui_append_line", "replaced", lambda f: write_text(f / "shopping.txt", "eggs\n"), "lists ['eggs']"),
    bad("gui_append_line", "saved as a copy", lambda f: write_text(f / "shopping (copy).txt", "bread\nmilk\neggs\n"),
        "not bread, milk, eggs"),
    good("gui_change_setting", "line numbers on", keyfile("true")),
    good("gui_change_setting", "among other settings", keyfile("true", "highlight-current-line=false\n")),
    bad("gui_change_setting", "untouched", nothing, "do not say show-line-numbers"),
    bad("gui_change_setting", "turned off", keyfile("false"), "show-line-numbers is false"),
    good("gui_fill_form", "confirmed", lambda f: write_text(f / "visitor.txt", gui.FORM + "\n")),
    good("gui_fill_form", "no final newline", lambda f: write_text(f / "visitor.txt", gui.FORM)),
    bad("gui_fill_form", "cancelled", lambda f: write_text(f / "visitor.txt", ""), "the form was cancelled"),
    bad("gui_fill_form", "wrong room", lambda f: write_text(f / "visitor.txt", "Alice Martin|alice@example.org|Red\n"),
        "not 'Alice Martin|alice@example.org|Green'"),
    bad("gui_fill_form", "never shown", nothing, "visitor.txt was not written"),
    good("gui_pick_from_list", "banana", lambda f: write_text(f / "fruit.txt", "Banana\n")),
    good("gui_pick_from_list", "no final newline", lambda f: write_text(f / "fruit.txt", "Banana")),
    bad("gui_pick_from_list", "apple", lambda f: write_text(f / "fruit.txt", "Apple\n"), "'Apple' was chosen"),
    bad("gui_pick_from_list", "cancelled", lambda f: write_text(f / "fruit.txt", ""), "nothing was chosen"),
    good("gui_set_volume", "65", lambda f: write_text(f / "volume.txt", "65\n")),
    good("gui_set_volume", "no final newline", lambda f: write_text(f / "volume.txt", "65")),
    bad("gui_set_volume", "left at 20", lambda f: write_text(f / "volume.txt", "20\n"), "confirmed at 20, not 65"),
    bad("gui_set_volume", "cancelled", lambda f: write_text(f / "volume.txt", ""), "the dialog was cancelled"),
]
