"""The state of the running request as values: reading and updating it, recording a step, the limits.

Pure functions of the host strategy's state (podium.desktop.host.state), shared by every move in
podium.desktop.host.flow and the modules that handle each kind of answer.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from podium.agent.events import Usage
from podium.desktop.blackboard import Screenshot, TrajectoryEntry
from podium.desktop.host.fsm import HostEvent, SubtaskEvent
from podium.desktop.host.state import HostState, Run, SubtaskRecord
from podium.errors import Reason, ReasonKind

MEMORY_KEPT = 30  # lines of an application's memory kept (its AppAgent's prompt shows the latest few)


def run_of(s: HostState) -> Run:
    assert s.run is not None, "no request is running"
    return s.run


def with_run(s: HostState, **changes: Any) -> HostState:
    return replace(s, run=replace(run_of(s), **changes))


def fire(s: HostState, event: HostEvent) -> HostState:
    return with_run(s, machine=run_of(s).machine.fire(event))


def update_subtask(s: HostState, sid: str, event: SubtaskEvent | None = None, **changes: Any) -> HostState:
    run = run_of(s)
    record = run.subtasks[sid]
    if event is not None:
        changes["machine"] = record.machine.fire(event)
    return with_run(s, subtasks={**run.subtasks, sid: replace(record, **changes)})


def set_record(s: HostState, record: SubtaskRecord) -> HostState:
    run = run_of(s)
    return with_run(s, subtasks={**run.subtasks, record.spec.id: record})


def active(s: HostState) -> bool:
    """A request is running and still accepts results (not ended, not waiting for the judge)."""
    return s.run is not None and not s.run.machine.final and s.run.evaluating is None


def add_usage(s: HostState, usage: Usage | None) -> HostState:
    if usage is None:
        return s
    s = replace(s, usage=s.usage + usage)
    return with_run(s, usage=run_of(s).usage + usage) if s.run is not None else s


def record_step(s: HostState, agent: str, status: str, *, subtask: str | None = None, action: str = "",
                outcome: str = "", timings: dict[str, float] | None = None, error: str | None = None,
                confirmation: str | None = None, screenshot: str | None = None, fired: Iterable[str] = ()) -> HostState:
    step = s.step_no + 1
    board = s.blackboard.add_trajectory(TrajectoryEntry(
        step=step, agent=agent, status=status, subtask=subtask, action=action, outcome=outcome,
        confirmation=confirmation, timings_ms=dict(timings or {}), error=error, rules=tuple(fired)))
    if screenshot:
        board = board.add_screenshot(Screenshot(path=screenshot, agent=agent, step=step))
    return replace(s, step_no=step, blackboard=board)


def fired_rule(s: HostState, rule: str) -> HostState:
    """The latest trajectory entry with one more rule that fired."""
    *before, last = s.blackboard.trajectories
    if rule in last.rules:
        return s
    last = last.model_copy(update={"rules": (*last.rules, rule)})
    return replace(s, blackboard=s.blackboard.model_copy(update={"trajectories": (*before, last)}))


def uncalled(s: HostState, sid: str) -> tuple[str, ...]:
    """The subtask's declared tools (of its application) that no call of it has succeeded with."""
    record = run_of(s).subtasks[sid]
    app = s.catalog.get(record.spec.application)
    known = app.tool_names if app is not None else ()
    return tuple(t for t in record.spec.tools if t in known and t not in record.called)


def remember_line(s: HostState, application: str, line: str) -> HostState:
    kept = (*s.memory.get(application, ()), line)[-MEMORY_KEPT:]
    return replace(s, memory={**s.memory, application: kept})


# -- limits -------------------------------------------------------------------------------------

def budget_reason(s: HostState) -> Reason | None:
    cfg, usage = s.config, s.usage
    if cfg.max_tokens is not None and usage.total_tokens >= cfg.max_tokens:
        return Reason(ReasonKind.BUDGET_EXCEEDED,
                      f"token budget exhausted: {usage.total_tokens} tokens used of max_tokens={cfg.max_tokens}")
    if cfg.max_cost is not None and usage.cost is not None and usage.cost >= cfg.max_cost:
        return Reason(ReasonKind.BUDGET_EXCEEDED,
                      f"cost budget exhausted: {usage.cost:.4f} spent of max_cost={cfg.max_cost}")
    return None


def step_limit_reason(s: HostState) -> Reason | None:
    run, cfg = run_of(s), s.config
    if run.steps >= cfg.max_steps:
        return Reason(ReasonKind.LIMIT_REACHED, f"the request used all its {cfg.max_steps} steps (max_steps)")
    if cfg.max_session_steps is not None and s.session_steps >= cfg.max_session_steps:
        return Reason(ReasonKind.LIMIT_REACHED, f"the session used all its {cfg.max_session_steps} steps "
                                                f"(max_session_steps)")
    return None
