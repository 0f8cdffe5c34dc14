"""`podium undo RUN`: every file the run changed back to what it was before the run; the files it
created removed. Files changed since by someone else are listed and left alone unless --force."""

from __future__ import annotations

import time
from typing import Any

from rich.console import Console
from rich.markup import escape

from podium.cli.records import resolve
from podium.errors import PodiumError
from podium.journal import Liveness, liveness
from podium.journal.undo import UndoAction, UndoRefused, apply_undo, plan_undo

_DONE = {UndoAction.RESTORE: "restored", UndoAction.REMOVE: "removed (the run created it)",
         UndoAction.RECREATE: "written back (the run deleted it)",
         UndoAction.REMOVE_FOLDER: "folder removed (the run created it)",
         UndoAction.RECREATE_FOLDER: "folder made again (the run removed it)"}


def undo_run(store: Any, ident: str, console: Console, *, force: bool = False) -> int:
    """Returns how many files were changed back."""
    record = resolve(store, ident)
    if liveness(record) is Liveness.RUNNING:
        raise PodiumError(f"run {record.name} is still running (pid {record.process.pid}): "  # type: ignore[union-attr]
                          "undo it once it has ended")
    changes = store.changes(record.name)
    if not changes:
        console.print(f"Run {record.name} recorded no file changes: nothing to undo.")
        return 0
    plan = plan_undo(record.name, changes)
    if not plan.work:
        console.print(f"Every file run {record.name} changed is already as it was before the run: nothing to undo.")
        return 0
    try:
        done = apply_undo(plan, store, force=force)
    except UndoRefused as refused:
        console.print(f"[red]Not undone:[/] {len(refused.plan.conflicts)} file(s) changed since run {record.name} "
                      "by someone else:")
        for step in refused.plan.conflicts:
            console.print(f"  {escape(step.change.path)}  [dim]({step.change.workspace})[/]")
        raise PodiumError("nothing was undone; `podium undo --force` overwrites those files too") from None
    for step in done:
        forced = " [yellow](changed since the run: overwritten, --force)[/]" if step.conflict else ""
        console.print(f"{escape(step.change.path)}: {_DONE[step.action]}{forced}")
    console.print(f"Undid run {record.name}: {len(done)} file(s) in {escape(done[0].change.workspace)}.")
    store.put(record.name, "undone", {"at": time.time(), "files": [s.change.path for s in done], "forced": force})
    return len(done)
