"""A run's report: one self-contained HTML page (`podium report RUN`, and at the end of `podium run`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from podium.journal.report.html import render
from podium.journal.report.model import Report, Step, gather


def write_report(store: Any, name: str, path: str | Path) -> Path:
    """Write the report of run `name` to `path` (atomically); returns the path, absolute."""
    page = render(gather(store, name))
    target = Path(path).expanduser().resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    partial.write_text(page, encoding="utf-8")
    os.replace(partial, target)
    return target


__all__ = ["Report", "Step", "gather", "render", "write_report"]
