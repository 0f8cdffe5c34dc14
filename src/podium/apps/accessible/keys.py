"""Key presses, the last resort: sent to the application's window with xdotool (Debian package xdotool).

Keys are X keysyms joined by "+" for a chord ("ctrl+s", "Return", "Tab", "a"); several are separated by
spaces. Whether a press needs approval is decided from the keys themselves and the focused control
(`needs_approval`): keys cannot be checked like a control's role, they act on whatever has the focus.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable

from podium.apps import display
from podium.apps.accessible import pointer
from podium.apps.tooling import ToolError

KEY = re.compile(r"^[A-Za-z0-9_]+(\+[A-Za-z0-9_]+)*$")
MODIFIERS = frozenset({"ctrl", "control", "alt", "super", "meta", "hyper", "Control_L", "Control_R", "Alt_L",
                       "Alt_R", "Super_L", "Super_R", "Meta_L", "Meta_R"})
SHIFT = frozenset({"shift", "Shift_L", "Shift_R"})
# Keys that move the focus or the caret, or dismiss (Escape): they press no button and change no file.
MOVING = frozenset({"Escape", "Tab", "ISO_Left_Tab", "Up", "Down", "Left", "Right", "Home", "End", "Page_Up",
                    "Page_Down", "Prior", "Next"})
# Keys that edit the text of the focused field; harmless only when that field is editable text.
EDITING = frozenset({"BackSpace", "Delete", "space"})
# Keys that press a button: the window's default one (Return) or the focused one (space); outside a text field
# they do what a click of a button of the focused window does.
ACCEPT_KEYS = frozenset({"Return", "KP_Enter", "ISO_Enter"})
PRESSING = ACCEPT_KEYS | {"space", "KP_Space"}
MAX_KEYS = 50


def parse(keys: str) -> list[str]:
    chords = keys.split()
    if not chords:
        raise ToolError("give at least one key, e.g. 'Tab' or 'ctrl+s'")
    if len(chords) > MAX_KEYS:
        raise ToolError(f"at most {MAX_KEYS} keys per call; use set_text to enter text")
    bad = [c for c in chords if not KEY.match(c)]
    if bad:
        raise ToolError(f"not keys: {bad}; write X key names joined by '+', e.g. 'ctrl+s', 'Return', 'Tab'")
    return chords


def needs_approval(chords: list[str], typing_field: bool, pressing_needs_approval: bool = True) -> bool:
    """A chord with a modifier (a shortcut: save, close, quit...) needs approval; moving keys never do;
    plain characters and editing keys do unless the focus is an editable text field (they then only type).
    A key that presses a button (Return, space) is judged as a click of a button of the focused window
    (`pressing_needs_approval`: whether one would need approval there, as in an alert); where that is not
    known it needs approval. Return in a text field may press the default button too: judged the same way."""
    for chord in chords:
        parts = chord.split("+")
        if any(p in MODIFIERS or p.lower() in MODIFIERS for p in parts):
            return True
        key = [p for p in parts if p not in SHIFT and p.lower() not in SHIFT]
        if not key or all(k in MOVING for k in key):
            continue
        if all(k in PRESSING for k in key) and not (typing_field and "space" in key):
            if pressing_needs_approval:
                return True
            continue
        if not typing_field:
            return True
        if any(len(k) > 1 and k not in EDITING for k in key):
            return True  # Return, KP_Enter, F-keys...: they act, not type
    return False


async def press(chords: list[str], window_title: str, owns: Callable[[display.Window], bool] | None) -> str:
    """Focus the application's window (its title among its windows, `owns` telling which are; or any of
    its windows) and press the keys."""
    if display.display() is None:
        raise ToolError("no display ($DISPLAY is not set): keys cannot be pressed")
    windows = await asyncio.to_thread(display.list_windows)
    mine = [w for w in windows if owns is not None and owns(w)]
    target = next((w for w in mine or windows if w.title == window_title), None) or next(iter(mine), None)
    if target is None:
        raise ToolError(f"no X window of the application ({window_title!r}) to send keys to")
    window = str(int(target.id, 16))
    await pointer.run("windowfocus", "--sync", window)
    await pointer.run("key", "--clearmodifiers", "--delay", "30", *chords)
    return target.title
