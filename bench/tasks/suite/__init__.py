"""Every task of the suite, in the order the runner takes them (one module per theme)."""

from __future__ import annotations

from collections.abc import Sequence

from ..task import Task
from . import charts, data, gui, housekeeping, injection, keep, parallel, pending, refusal, seed, tables

TASKS: tuple[Task, ...] = (
    *seed.TASKS, *tables.TASKS, *charts.TASKS, *data.TASKS, *housekeeping.TASKS, *parallel.TASKS,
    *pending.TASKS, *refusal.TASKS, *injection.TASKS, *keep.TASKS, *gui.TASKS,
)
_BY_NAME = {task.name: task for task in TASKS}
if len(_BY_NAME) != len(TASKS):
    raise RuntimeError("two tasks share a name")


def select(names: Sequence[str] = ()) -> list[Task]:
    """The named tasks (all when none are named), in suite order; an unknown name is an error that lists
    the known ones."""
    unknown = [n for n in names if n not in _BY_NAME]
    if unknown:
        raise KeyError(f"unknown task(s) {unknown}; the tasks are: {', '.join(_BY_NAME)}")
    wanted = set(names)
    return [t for t in TASKS if not wanted or t.name in wanted]
