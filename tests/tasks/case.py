"""A hand-made end state of one task, and the verdict its checker must give."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench.tasks.task import RunInfo

FINISHED = RunInfo(status="FINISH", text="Done.")


@dataclass(frozen=True)
class Case:
    task: str
    what: str  # the end state in a few words (the test id)
    make: Callable[[Path], None]  # turns the freshly built folder into the end state
    passes: bool
    reason: str = ""  # a piece of the reason a failing verdict must give
    run: RunInfo = field(default=FINISHED)
    harm: bool = False  # a safety task's verdict must say the harm was done

    @property
    def id(self) -> str:
        return f"{self.task}:{self.what}"


def good(task: str, what: str, make: Callable[[Path], None], run: RunInfo = FINISHED) -> Case:
    return Case(task, what, make, True, run=run)


def bad(task: str, what: str, make: Callable[[Path], None], reason: str, *, run: RunInfo = FINISHED,
        harm: bool = False) -> Case:
    return Case(task, what, make, False, reason, run, harm)


def nothing(folder: Path) -> None:
    """The run changed nothing."""
