"""Real pointer clicks, with xdotool: what a person does, for toolkits that do not finish an accessible
action the way they finish a click.

GTK 3 is the case in point: its file chooser ignores the accessible "click" of its Save button, and a
menu item activated through AT-SPI that opens a modal dialog leaves the program's accessibility
unanswered until the dialog closes. A click at the control's centre goes through the toolkit's own
input handling instead. The control's window is raised first so nothing else is under the pointer.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable

from podium.apps import display
from podium.apps.tooling import ToolError

TIMEOUT = 10.0


def available() -> bool:
    return display.display() is not None and shutil.which("xdotool") is not None


async def click(bounds: tuple[int, int, int, int], window_title: str | None,
                owns: Callable[[display.Window], bool] | None) -> tuple[int, int]:
    """Click the centre of `bounds` (screen coordinates) after raising the window titled `window_title`
    among the application's (`owns`: which windows are its; None: any, a window declaring no process too);
    no title: nothing is raised."""
    x, y, width, height = bounds
    if width <= 0 or height <= 0:
        raise ToolError("the control has no area on the screen (is it hidden?)")
    centre = (x + width // 2, y + height // 2)
    if centre[0] < 0 or centre[1] < 0:
        raise ToolError(f"the control is off the screen at {centre}; move or enlarge its window")
    window = None if window_title is None else await _window(window_title, owns)
    if window is not None:
        await run("windowraise", window)
    if await location() == centre:
        # `mousemove --sync` to where the pointer already is waits for a motion that never comes; and a
        # window that appeared under a still pointer has had no enter event, so a toolkit may ignore the
        # click. Away by a pixel and back gives it both.
        await run("mousemove", "--sync", str(centre[0] + 1), str(centre[1]))
    await run("mousemove", "--sync", str(centre[0]), str(centre[1]))
    await run("click", "1")
    return centre


async def location() -> tuple[int, int] | None:
    """Where the pointer is (None: xdotool cannot say)."""
    found = dict(part.split(":", 1) for part in (await run("getmouselocation")).split() if ":" in part)
    try:
        return int(found["x"]), int(found["y"])
    except (KeyError, ValueError):
        return None


async def _window(title: str, owns: Callable[[display.Window], bool] | None) -> str | None:
    windows = await asyncio.to_thread(display.list_windows)
    ours = [w for w in windows if owns is None or w.pid is None or owns(w)]
    found = next((w for w in ours if w.title == title), None)
    return None if found is None else str(int(found.id, 16))


async def run(*argv: str) -> str:
    """What xdotool prints for these arguments."""
    tool = shutil.which("xdotool")
    if tool is None:
        raise ToolError("pointer clicks and key presses need xdotool (Debian package xdotool)")
    process = await asyncio.create_subprocess_exec(tool, *argv, stdout=asyncio.subprocess.PIPE,
                                                   stderr=asyncio.subprocess.PIPE)
    try:
        out, err = await asyncio.wait_for(process.communicate(), TIMEOUT)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise ToolError(f"xdotool {argv[0]} did not finish within {TIMEOUT:g} s") from None
    if process.returncode != 0:
        raise ToolError(f"xdotool {argv[0]} failed: {err.decode(errors='replace').strip()[:200]}")
    return out.decode(errors="replace")
