"""Screenshots for DATA_COLLECTION: one PNG per step in a folder, when there is a display.

`podium.apps.display.screenshot` takes the picture (or says why it cannot: no display, no tool); the
step records the path, and the host strategy puts it on the blackboard's screenshots.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any


class FolderScreenshots:
    """Saves `<folder>/<step>-<agent>.png`; returns None (no screenshot) when the display has none to give."""

    def __init__(self, folder: str | Path, take: Callable[[Path], Any] | None = None) -> None:
        self.folder = Path(folder)
        if take is None:
            from podium.apps.display import screenshot as take
        self._take = take
        self._count = 0
        self.skipped: str | None = None  # why the latest one was skipped

    async def capture(self, agent: str, step: int) -> str | None:
        self._count += 1
        name = re.sub(r"[^\w.-]", "_", f"{self._count:04d}-{agent}-{step}.png")
        path = self.folder / name
        shot = await asyncio.to_thread(self._take, path)
        if getattr(shot, "path", None) is None:  # ScreenshotSkipped
            self.skipped = getattr(shot, "reason", "no screenshot")
            return None
        return str(shot.path)
