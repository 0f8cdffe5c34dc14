"""The 4-phase pipeline: order, timing, hooks, and which failures stop a step."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from podium.desktop.shell.phases import FAIL_FAST, Middleware, Phase, PhaseFailed, run_pipeline
from podium.errors import AgentCrashed

ORDER = [Phase.DATA_COLLECTION, Phase.LLM_INTERACTION, Phase.ACTION_EXECUTION, Phase.MEMORY_UPDATE]


class Recorder(Middleware[list[str]]):
    def __init__(self, log: list[str]) -> None:
        self.log = log

    def before(self, phase: Phase, ctx: list[str]) -> None:
        self.log.append(f"before {phase.value}")

    async def after(self, phase: Phase, ctx: list[str], elapsed_ms: float) -> None:
        assert elapsed_ms >= 0
        self.log.append(f"after {phase.value}")

    def on_error(self, phase: Phase, ctx: list[str], error: BaseException) -> None:
        self.log.append(f"error {phase.value}: {error}")


def phases(fail: Phase | None = None, exc: Exception | None = None) -> list[tuple[Phase, Any]]:
    def make(phase: Phase) -> Any:
        async def run(ctx: list[str]) -> None:
            ctx.append(f"run {phase.value}")
            if phase is fail:
                raise exc or RuntimeError("boom")
        return run
    return [(p, make(p)) for p in ORDER]


def ticking() -> Any:
    counter = itertools.count()
    return lambda: float(next(counter))  # each clock read is 1 s later: timings are exact


async def test_phases_run_in_order_with_hooks_and_timings() -> None:
    ctx: list[str] = []
    log: list[str] = []
    run = await run_pipeline(phases(), ctx, [Recorder(log)], clock=ticking())
    assert ctx == [f"run {p.value}" for p in ORDER]
    assert log == [f"{w} {p.value}" for p in ORDER for w in ("before", "after")]
    assert run.ok and run.errors == ()
    assert run.timings_ms == {p: 1000.0 for p in ORDER}


@pytest.mark.parametrize("phase", [Phase.DATA_COLLECTION, Phase.LLM_INTERACTION])
async def test_data_collection_and_llm_failures_stop_the_step(phase: Phase) -> None:
    ctx: list[str] = []
    log: list[str] = []
    run = await run_pipeline(phases(fail=phase), ctx, [Recorder(log)])
    assert phase in FAIL_FAST
    assert not run.ok and run.failed is not None and run.failed.phase is phase
    assert run.failed.detail == "RuntimeError: boom" and str(run.failed) == f"{phase.value} failed: RuntimeError: boom"
    assert ctx[-1] == f"run {phase.value}"  # nothing after it ran
    assert log[-1] == f"error {phase.value}: boom"
    assert list(run.timings_ms) == ORDER[: ORDER.index(phase) + 1]


@pytest.mark.parametrize("phase", [Phase.ACTION_EXECUTION, Phase.MEMORY_UPDATE])
async def test_action_and_memory_failures_are_recorded_and_the_step_goes_on(phase: Phase) -> None:
    ctx: list[str] = []
    run = await run_pipeline(phases(fail=phase), ctx)
    assert run.ok and len(ctx) == 4
    assert [(e.phase, e.detail) for e in run.errors] == [(phase, "RuntimeError: boom")]
    assert set(run.timings_ms) == set(ORDER)


async def test_phase_failed_carries_its_own_message() -> None:
    run = await run_pipeline(phases(fail=Phase.LLM_INTERACTION, exc=PhaseFailed("the model failed: 429")), [])
    assert run.failed is not None and run.failed.detail == "the model failed: 429"


async def test_agent_crashed_is_not_a_step_failure_it_propagates() -> None:
    with pytest.raises(AgentCrashed):
        await run_pipeline(phases(fail=Phase.ACTION_EXECUTION, exc=AgentCrashed("down")), [])


async def test_a_broken_middleware_does_not_break_the_step() -> None:
    class Broken(Middleware[list[str]]):
        def before(self, phase: Phase, ctx: list[str]) -> None:
            raise ValueError("observer bug")

    ctx: list[str] = []
    run = await run_pipeline(phases(), ctx, [Broken()])
    assert run.ok and len(ctx) == 4


async def test_sync_phase_functions_work_too() -> None:
    ctx: list[str] = []
    run = await run_pipeline([(p, lambda c, p=p: c.append(p.value)) for p in ORDER], ctx)
    assert run.ok and ctx == [p.value for p in ORDER]
