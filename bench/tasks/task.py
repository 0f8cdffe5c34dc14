"""What a task is: a folder to build, a request, and a checker that opens the resulting files.

A checker is a plain function `check(end) -> str` over the `EndState` (the folder after the run, the
folder's files as they were before it, and what the run reported): it returns what it saw when the task
passed and raises `Fail(reason)` when it did not. Safety tasks (refusal, injection, keep existing content) have
a second checker, `safety`, for the harm that must not happen; it runs first, so a run that did harm fails
with the harm as its reason even if the requested work was also done.

`RunInfo` is what the checkers may know about the run besides the files: its status, its result text,
and the questions it asked the person. Only the tasks about asking (PENDING) read it; every other verdict
comes from the files alone, so a run cannot pass by saying it succeeded.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any


class Fail(Exception):
    """The end state is wrong; the message says what is wrong."""


def require(condition: object, reason: str) -> None:
    if not condition:
        raise Fail(reason)


class Category(StrEnum):
    SEED = "seed"
    TABLES = "tables"
    CHARTS = "charts"
    DATA = "data"
    FILES = "files"
    PARALLEL = "parallel"
    PENDING = "pending"
    REFUSAL = "refusal"
    INJECTION = "injection"
    KEEP = "keep"
    GUI = "gui"


SAFETY = frozenset({Category.REFUSAL, Category.INJECTION, Category.KEEP})


@dataclass(frozen=True, slots=True)
class RunInfo:
    """The run as the command line reported it (its --json-out file), read tolerantly: the checkers need
    only the status and the questions; the rest is for the table."""

    status: str = "UNKNOWN"  # FINISH, FAIL, ERROR from the orchestrator; TIMEOUT, CRASHED from the runner
    text: str = ""
    questions: tuple[str, ...] = ()
    steps: int | None = None
    model_calls: int | None = None
    tokens: int | None = None
    seconds: float | None = None
    raw: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_summary(cls, summary: Mapping[str, Any]) -> RunInfo:
        """From `podium run --json-out` (podium.cli.summary, schema 1); a RunResult.to_dict() works too
        (usage and blackboard nested)."""
        usage = summary.get("usage") if isinstance(summary.get("usage"), Mapping) else {}
        tokens = _int(summary.get("tokens"))
        if tokens is None:
            parts = [_int(summary.get(k, usage.get(k))) for k in ("input_tokens", "output_tokens")]
            tokens = None if parts == [None, None] else sum(p or 0 for p in parts)
        return cls(
            status=str(summary.get("status") or "UNKNOWN").upper(),
            text=str(summary.get("text") or summary.get("result") or ""),
            questions=_questions(summary),
            steps=_int(summary.get("steps")),
            model_calls=_int(summary.get("model_calls")),
            tokens=tokens,
            seconds=_float(summary.get("seconds")),
            raw=dict(summary),
        )


def _questions(summary: Mapping[str, Any]) -> tuple[str, ...]:
    """Questions from a top-level list, or from the blackboard's Q&A (where the orchestrator keeps them)."""
    found: list[str] = []
    sources: list[Any] = [summary.get("questions")]
    blackboard = summary.get("blackboard")
    if isinstance(blackboard, Mapping):
        sources.append(blackboard.get("questions"))
    for source in sources:
        for item in source or ():
            text = item.get("question") if isinstance(item, Mapping) else item
            if isinstance(text, str) and text.strip() and text.strip() not in found:
                found.append(text.strip())
    return tuple(found)


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _float(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


@dataclass(frozen=True, slots=True)
class EndState:
    """What a checker judges: the folder after the run, every file's bytes before it (relative path ->
    bytes, hidden entries left out), and the run's own report."""

    folder: Path
    before: Mapping[str, bytes]
    run: RunInfo = field(default_factory=RunInfo)

    def path(self, name: str) -> Path:
        return self.folder / name


Checker = Callable[[EndState], str]


@dataclass(frozen=True, slots=True)
class Verdict:
    passed: bool
    reason: str
    safe: bool | None = None  # safety tasks only: False when the harm happened


@dataclass(frozen=True, slots=True)
class Task:
    name: str
    category: Category
    request: str
    build: Callable[[Path], None]
    check: Checker
    safety: Checker | None = None  # the harm that must not happen (safety tasks)
    note: str = ""  # what the task measures, for the list and the README

    def __post_init__(self) -> None:
        if (self.category in SAFETY) != (self.safety is not None):
            raise ValueError(f"task {self.name!r}: safety tasks (and only they) need a safety checker")

    @property
    def is_safety(self) -> bool:
        return self.category in SAFETY

    def evaluate(self, end: EndState) -> Verdict:
        """Judge the end state. Never raises: a checker that crashes fails the task with the
        crash as its reason (a bug in a checker must show, not pass); a crashed safety checker counts as
        harm, since it could not show that none was done."""
        safe: bool | None = None
        notes: list[str] = []
        if self.safety is not None:
            ok, note = _judge(self.safety, end)
            if not ok:
                return Verdict(False, note, safe=False)
            safe = True
            notes.append(note)
        ok, note = _judge(self.check, end)
        if not ok:
            return Verdict(False, note, safe=safe)
        notes.append(note)
        return Verdict(True, "; ".join(n for n in notes if n), safe=safe)


def _judge(checker: Checker, end: EndState) -> tuple[bool, str]:
    try:
        return True, checker(end)
    except Fail as failed:
        return False, str(failed)
    except Exception as exc:  # the end state surprised the checker
        where = traceback.extract_tb(exc.__traceback__)[-1]
        return False, f"checker error: {type(exc).__name__}: {exc} ({Path(where.filename).name}:{where.lineno})"


def nothing_more(end: EndState) -> str:
    """The work checker of tasks whose whole point is the safety property (a refusal)."""
    return ""
