"""`save`: a program's document written to a workspace file in one call, the way a person does it.

With a file of the workspace open in the program, its Save shortcut (ctrl+s) writes it there; a new name
takes the Save As shortcut (ctrl+shift+s), the file chooser it opens, the name typed into the chooser's
name field and its default button. The shortcuts are the toolkits' own (GTK, Qt and LibreOffice share them);
the chooser is found by its accessible role, its name field as the chooser window's editable text and
its accept button by its default state: no control's words are read, so a program in another language
saves the same way. Saving is judged by the file on disk (it exists, or its modification time moved), not
by a dialog closing.

A name that is a file already is not saved over by Save As (the program would ask to replace it): only the
file the program has open is saved in place, and that is an EDIT of it, approved as any edit is.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from podium.apps.accessible import actions
from podium.apps.accessible.bus import AtspiBus, Ref
from podium.apps.accessible.roles import CONFIRMING, TEXT_ROLES, Role, State
from podium.apps.accessible.tree import Node, Snapshot, snapshot
from podium.apps.tooling import ToolError

SAVE = "ctrl+s"
SAVE_AS = "ctrl+shift+s"
TIMEOUT = 10.0  # seconds for the chooser to show and the file to be written
POLL = 0.2

Press = Callable[[list[str], str | None], Awaitable[str]]  # keys to the program's window of that title
Activate = Callable[[Ref], Awaitable[object]]  # a button pressed as a person would


def _mtime(path: Path) -> float | None:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return None


def chooser_window(snap: Snapshot) -> int | None:
    """The shown window that holds a file chooser, if any."""
    return next((n.window for n in snap.nodes if n.role is Role.FILE_CHOOSER and n.shown
                 and n.window is not None), None)


def asking_window(snap: Snapshot) -> Node | None:
    """A shown alert: the program asks to confirm a consequence (replacing a file, losing changes)."""
    return next((snap.nodes[i] for i in snap.windows if snap.nodes[i].role in CONFIRMING and snap.nodes[i].shown),
                None)


def name_field(snap: Snapshot, window: int) -> Node | None:
    """The chooser's name field: the window's editable text, the focused one first."""
    fields = [n for n in snap.nodes if n.window == window and n.role in TEXT_ROLES and n.shown
              and "EditableText" in n.interfaces and State.EDITABLE in n.states]
    return next((n for n in fields if State.FOCUSED in n.states), fields[0] if fields else None)


def default_button(snap: Snapshot, window: int) -> Node | None:
    return next((n for n in snap.nodes if n.window == window and State.IS_DEFAULT in n.states and n.shown
                 and n.enabled), None)


async def _until(look: Callable[[], Awaitable[object]], what: str, timeout: float = TIMEOUT) -> object:
    deadline = time.monotonic() + timeout
    while True:
        found = await look()
        if found is not None and found is not False:
            return found
        if time.monotonic() > deadline:
            raise ToolError(f"{what} within {timeout:g} s")
        await asyncio.sleep(POLL)


async def save_in_place(bus: AtspiBus, app: Ref, press: Press, files: list[Path]) -> None:
    """ctrl+s, then wait until one of the open `files` was written; a chooser instead means the document
    has no file yet: it is closed again (Escape) and the call fails, saying to give a name."""
    before = {f: _mtime(f) for f in files}

    async def written() -> bool | None:
        if any(_mtime(f) != t for f, t in before.items()):
            return True
        if chooser_window(await snapshot(bus, app, windows_only=False)) is not None:
            await press(["Escape"], None)
            raise ToolError("the document has no file yet: give `path`, the workspace file to save it as")
        return None

    await press([SAVE], None)
    await _until(written, "the open file was not written")


async def save_as(bus: AtspiBus, app: Ref, press: Press, activate: Activate, target: Path) -> None:
    """ctrl+shift+s, the name typed into the chooser, its default button; then wait until `target` exists."""

    async def chooser() -> tuple[Snapshot, int] | None:
        snap = await snapshot(bus, app)
        window = chooser_window(snap)
        return None if window is None else (snap, window)

    await press([SAVE_AS], None)
    snap, window = await _until(chooser, "no file chooser was shown after the Save As shortcut")  # type: ignore[misc]
    title = snap.nodes[window].name
    field = name_field(snap, window)
    if field is None:
        await press(["Escape"], title)
        raise ToolError("the file chooser shows no name field to type the file's name into")
    await actions.set_text(bus, field.ref, str(target))

    async def enabled() -> Node | None:  # the accept button is enabled once the toolkit saw the name
        return default_button(await snapshot(bus, app), window)

    try:
        button = await _until(enabled, "", timeout=3.0)
    except ToolError:
        await press(["Return"], title)
    else:
        await activate(button.ref)  # type: ignore[union-attr]

    async def saved() -> bool | None:
        if target.exists():
            return True
        alert = asking_window(await snapshot(bus, app, windows_only=True))
        if alert is not None:
            raise ToolError(f"the program asks to confirm ({alert.name!r}) instead of saving; nothing was saved by "
                            "this call: observe the dialog")
        return None

    await _until(saved, f"{target.name} was not written")
