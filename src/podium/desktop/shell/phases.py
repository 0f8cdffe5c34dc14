"""The 4-phase step pipeline: DATA_COLLECTION -> LLM_INTERACTION -> ACTION_EXECUTION -> MEMORY_UPDATE.

Every Host and App step runs its four phase functions through `run_pipeline`, which times each phase,
calls the middleware hooks (`before`, `after`, `on_error`) around it, and applies UFO²'s failure rule:
the first two phases are fail-fast (a failure stops the step, which reports ERROR with the phase
named), the last two are not (a failure is recorded and reported, and the step goes on).

The context object is whatever the step wants to thread through its phases; the pipeline never looks
inside it. The clock lives here, on the shell side: timings reach the host strategy as data.
"""

from __future__ import annotations

import inspect
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Generic, TypeVar

from podium.errors import AgentCrashed

log = logging.getLogger("podium.desktop.phases")
C = TypeVar("C")


class Phase(StrEnum):
    DATA_COLLECTION = "DATA_COLLECTION"
    LLM_INTERACTION = "LLM_INTERACTION"
    ACTION_EXECUTION = "ACTION_EXECUTION"
    MEMORY_UPDATE = "MEMORY_UPDATE"


FAIL_FAST = frozenset({Phase.DATA_COLLECTION, Phase.LLM_INTERACTION})
PhaseFn = Callable[[C], Awaitable[None] | None]


@dataclass(frozen=True, slots=True)
class PhaseError:
    phase: Phase
    detail: str

    def __str__(self) -> str:
        return f"{self.phase.value} failed: {self.detail}"


@dataclass(frozen=True, slots=True)
class PipelineRun:
    """What one step's pipeline did: per-phase timings (ms) of the phases that ran, the fail-fast
    failure that stopped it (if any), and every error recorded (fail-fast or not)."""

    timings_ms: dict[Phase, float] = field(default_factory=dict)
    failed: PhaseError | None = None
    errors: tuple[PhaseError, ...] = ()

    @property
    def ok(self) -> bool:
        return self.failed is None


class Middleware(Generic[C]):
    """Hooks around every phase; override any of them (plain or async). A hook that raises is logged
    and ignored: observing a step must not break it."""

    def before(self, phase: Phase, ctx: C) -> Awaitable[None] | None:
        return None

    def after(self, phase: Phase, ctx: C, elapsed_ms: float) -> Awaitable[None] | None:
        return None

    def on_error(self, phase: Phase, ctx: C, error: BaseException) -> Awaitable[None] | None:
        return None


async def _hook(middleware: Sequence[Middleware[C]], name: str, *args: Any) -> None:
    for item in middleware:
        try:
            result = getattr(item, name)(*args)
            if inspect.isawaitable(result):
                await result
        except AgentCrashed:
            raise
        except Exception:
            log.exception("middleware %s.%s failed", type(item).__name__, name)


class PhaseFailed(Exception):
    """Raised by a phase function to fail with a chosen message (instead of an exception's text)."""


async def run_pipeline(phases: Sequence[tuple[Phase, PhaseFn[C]]], ctx: C,
                       middleware: Sequence[Middleware[C]] = (),
                       clock: Callable[[], float] = time.perf_counter) -> PipelineRun:
    """Run the phases in order. `AgentCrashed` (and cancellation) propagate: they are not step
    failures but the end of the agent or of the turn."""
    timings: dict[Phase, float] = {}
    errors: list[PhaseError] = []
    for phase, fn in phases:
        await _hook(middleware, "before", phase, ctx)
        started = clock()
        try:
            result = fn(ctx)
            if inspect.isawaitable(result):
                await result
        except AgentCrashed:
            raise
        except Exception as exc:
            timings[phase] = (clock() - started) * 1000.0
            detail = str(exc) if isinstance(exc, PhaseFailed) else f"{type(exc).__name__}: {exc}"
            error = PhaseError(phase, detail)
            errors.append(error)
            await _hook(middleware, "on_error", phase, ctx, exc)
            if phase in FAIL_FAST:
                return PipelineRun(timings, error, tuple(errors))
            continue
        elapsed = (clock() - started) * 1000.0
        timings[phase] = elapsed
        await _hook(middleware, "after", phase, ctx, elapsed)
    return PipelineRun(timings, None, tuple(errors))
