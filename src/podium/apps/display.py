"""The X display, when there is one: its top-level windows and a screenshot of the desktop.

Windows come from `wmctrl -lpx` when a window manager answers (it gives each window's process id),
otherwise from `xwininfo -root -children` (bare X servers such as Xvfb have no window manager),
with process ids from `xdotool getwindowpid` where the window declares one. Screenshots use
ImageMagick's `import`. These are Debian packages wmctrl, x11-utils, xdotool and imagemagick; what
is missing is reported as a value, never raised: no display is a normal situation on a server.
"""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
from dataclasses import dataclass
from pathlib import Path

COMMAND_TIMEOUT = 10.0
_XWININFO_LINE = re.compile(r'^\s*(0x[0-9a-f]+) "(.*)": \("(.*)" "(.*)"\)', re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Window:
    id: str
    title: str
    wm_class: str = ""
    pid: int | None = None


@dataclass(frozen=True, slots=True)
class Screenshot:
    path: Path
    width: int
    height: int


@dataclass(frozen=True, slots=True)
class ScreenshotSkipped:
    reason: str


def display() -> str | None:
    """The X display to use, or None when there is none."""
    return os.environ.get("DISPLAY") or None


def list_windows() -> list[Window]:
    """Top-level windows with a title; [] when there is no display or no tool to ask it."""
    if display() is None:
        return []
    if shutil.which("wmctrl"):
        windows = _wmctrl()
        if windows is not None:
            return windows
    if shutil.which("xwininfo"):
        return _xwininfo()
    return []


def window_listing_available() -> bool:
    return display() is not None and bool(shutil.which("wmctrl") or shutil.which("xwininfo"))


def screenshot(path: Path) -> Screenshot | ScreenshotSkipped:
    """A PNG of the whole desktop at `path`, or why there is none."""
    if display() is None:
        return ScreenshotSkipped("no display: $DISPLAY is not set")
    tool = shutil.which("import")
    if tool is None:
        return ScreenshotSkipped("no screenshot tool: install ImageMagick (Debian package imagemagick)")
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        done = subprocess.run(
            [tool, "-silent", "-window", "root", f"png:{path}"],
            capture_output=True,
            timeout=COMMAND_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return ScreenshotSkipped(f"the screenshot did not finish within {COMMAND_TIMEOUT:g} s")
    size = _png_size(path) if done.returncode == 0 else None
    if size is None:
        detail = done.stderr.decode(errors="replace").strip()[:300]
        return ScreenshotSkipped(f"the screenshot failed (status {done.returncode}): {detail}")
    return Screenshot(path, *size)


def _run(argv: list[str]) -> str | None:
    try:
        done = subprocess.run(argv, capture_output=True, timeout=COMMAND_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.decode(errors="replace") if done.returncode == 0 else None


def _wmctrl() -> list[Window] | None:
    out = _run(["wmctrl", "-lpx"])
    if out is None:
        return None  # no window manager to answer
    windows = []
    for line in out.splitlines():
        parts = line.split(None, 5)
        if len(parts) < 5:
            continue
        window_id, _desktop, pid, wm_class = parts[:4]
        title = parts[5] if len(parts) > 5 else ""
        windows.append(Window(window_id, title, wm_class, int(pid) if pid.isdigit() and pid != "0" else None))
    return windows


def _xwininfo() -> list[Window]:
    out = _run(["xwininfo", "-root", "-children"]) or ""
    windows = []
    xdotool = shutil.which("xdotool")
    for line in out.splitlines():
        match = _XWININFO_LINE.match(line)
        if match is None:
            continue
        window_id, title, instance, wm_class = match.groups()
        pid = None
        if xdotool:
            answer = _run([xdotool, "getwindowpid", str(int(window_id, 16))])
            pid = int(answer) if answer and answer.strip().isdigit() else None
        windows.append(Window(window_id, title, f"{instance}.{wm_class}", pid))
    return windows


def _png_size(path: Path) -> tuple[int, int] | None:
    try:
        with open(path, "rb") as handle:
            head = handle.read(24)
    except OSError:
        return None
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    width, height = struct.unpack(">II", head[16:24])
    return width, height
