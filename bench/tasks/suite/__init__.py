"""Every task of the suite, in the order the runner takes them (one module per theme)."""

from __future__ import annotations

from collections.abc import Sequence

from ..task import Category, Family, Task
from . import (
    charts,
    combine,
    data,
    documents,
    formatting,
    gui,
    housekeeping,
    injection,
    keep,
    parallel,
    pending,
    read_only,
    refusal,
    seed,
    stats,
    tables,
)

TASKS: tuple[Task, ...] = (
    *seed.TASKS,
    *tables.TASKS,
    *combine.TASKS,
    *charts.TASKS,
    *data.TASKS,
    *stats.TASKS,
    *documents.TASKS,
    *formatting.TASKS,
    *housekeeping.TASKS,
    *parallel.TASKS,
    *pending.TASKS,
    *refusal.TASKS,
    *injection.TASKS,
    *keep.TASKS,
    *read_only.TASKS,
    *gui.TASKS,
)
_BY_NAME = {task.name: task for task in TASKS}
if len(_BY_NAME) != len(TASKS):
    raise RuntimeError("two tasks share a name")
for _task in TASKS:  # a rewording compares with its original only if it is the same kind of work
    _original = _BY_NAME.get(_task.original) if _task.original else None
    if _task.original and (_original is None or _original.family is not Family.ORIGINAL
                           or _original.category is not _task.category):
        raise RuntimeError(f"task {_task.name!r} rewords {_task.original!r}, which is not an original task "
                           "of its category")


def select(names: Sequence[str] = (), families: Sequence[Family] = (),
           categories: Sequence[Category] = ()) -> list[Task]:
    """The named tasks (all when none are named) of the given families and categories (all when none are
    given), in suite order; an unknown name is an error that lists the known ones."""
    unknown = [n for n in names if n not in _BY_NAME]
    if unknown:
        raise KeyError(f"unknown task(s) {unknown}; the tasks are: {', '.join(_BY_NAME)}")
    return [t for t in TASKS if (not names or t.name in names) and (not families or t.family in families)
            and (not categories or t.category in categories)]
