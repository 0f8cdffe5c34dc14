"""The host strategy's shared moves: dispatching steps, scheduling the graph, limits, ending a request.

Every function is pure: it takes the state and returns `(ops, new_state)`. Nothing here awaits or
reads a clock; the HostAgent's whole life is a sequence of these values.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from podium.agent.backend import Prompt
from podium.agent.events import Event, Response, Usage
from podium.desktop.blackboard import Screenshot, SubtaskResult, TrajectoryEntry
from podium.desktop.catalog import Catalog, asks_for_change, reads_only
from podium.desktop.events import RunFinished
from podium.desktop.fsm import HostEvent, SubtaskEvent, SubtaskState
from podium.desktop.host_state import (
    JUDGE,
    OBSERVER,
    PLANNER,
    HostState,
    Run,
    SubtaskRecord,
    usage_dict,
)
from podium.desktop.messages import AppStepKind, AppStepRequest, HostStepRequest, SubtaskView, summarize
from podium.desktop.prompts import judge_prompt
from podium.desktop.schemas import Action, HostStatus
from podium.ensemble.ops import Dispatch, Forward, Op, Reply, ReplyError, Start
from podium.ensemble.strategies.graph import GraphSchedule, Subtask
from podium.errors import Reason, ReasonKind

Result = tuple[list[Op], HostState]


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
                confirmation: str | None = None, screenshot: str | None = None) -> HostState:
    step = s.step_no + 1
    board = s.blackboard.add_trajectory(TrajectoryEntry(
        step=step, agent=agent, status=status, subtask=subtask, action=action, outcome=outcome,
        confirmation=confirmation, timings_ms=dict(timings or {}), error=error))
    if screenshot:
        board = board.add_screenshot(Screenshot(path=screenshot, agent=agent, step=step))
    return replace(s, step_no=step, blackboard=board)


def temperature(s: HostState, retry: bool) -> float:
    return s.config.retry_temperature if retry else s.config.temperature


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


# -- the planner ----------------------------------------------------------------------------------

def views(run: Run) -> tuple[SubtaskView, ...]:
    return tuple(SubtaskView(id=r.spec.id, description=r.spec.description, application=r.spec.application,
                             depends_on=r.spec.depends_on, state=r.state.value, result=r.result,
                             reason=None if r.reason is None else r.reason.detail)
                 for r in run.subtasks.values())


def dispatch_planner(s: HostState, note: str = "", feedback: str = "", retry: bool = False,
                     preface: str = "") -> Result:
    """Ask the planner for its next step (checks the limits first: a limit ends the request).
    `preface` goes in front of the note for this step only (a re-ask after a restart keeps the note)."""
    limit = budget_reason(s) or step_limit_reason(s)
    if limit is not None:
        return finish_run(s, HostEvent.LIMIT, limit)
    run = run_of(s)
    t = temperature(s, retry)
    request = HostStepRequest(request=run.request, step=run.planner_steps + 1, applications=run.applications,
                              subtasks=views(run), plan=run.plan,
                              blackboard=s.blackboard.to_prompt(s.config.blackboard_chars), answers=run.answers,
                              note=f"{preface} {note}".strip(), feedback=feedback, temperature=t)
    ops: list[Op] = []
    if s.planner_down:  # it went down earlier: a fresh one, started right before its step
        ops.append(Start(PLANNER, s.planner.behaviour, s.planner.opts))
        s = replace(s, planner_down=False)
    s = replace(s, session_steps=s.session_steps + 1)
    s = with_run(s, steps=run.steps + 1, planner_steps=run.planner_steps + 1, current="planner thinking",
                 planner_ask=(note, feedback, retry))
    return [*ops, Dispatch(PLANNER, Prompt(request.model_dump_json(), temperature=t), run.token)], s


# -- the AppAgents -------------------------------------------------------------------------------

def reserve_agent(s: HostState, app: str) -> tuple[HostState, str]:
    """A new generation of the application's AppAgent in the cache, started at its first step."""
    gen = s.generations.get(app, 0) + 1
    name = f"app-{app}" if gen == 1 else f"app-{app}-{gen}"
    s = replace(s, agents={**s.agents, app: name}, generations={**s.generations, app: gen}, fresh=s.fresh | {name})
    return s, name


def agent_for(s: HostState, app: str) -> tuple[list[Op], HostState, str]:
    """The application's AppAgent, started on first use and cached (reused with its memory)."""
    name = s.agents.get(app)
    if name is not None and name not in s.fresh:
        return [], s, name
    if name is None:
        s, name = reserve_agent(s, app)
    spec = s.app_specs[app]
    s = replace(s, fresh=s.fresh - {name})
    return [Start(name, spec.behaviour, spec.opts)], s, name


def dispatch_app(s: HostState, sid: str, kind: AppStepKind = AppStepKind.STEP,
                 actions: tuple[Action, ...] = ()) -> Result:
    """Send a subtask's next step to its AppAgent (checks the limits first)."""
    run = run_of(s)
    record = run.subtasks[sid]
    limit = budget_reason(s) or step_limit_reason(s)
    parts = record.parts
    allowed = s.config.max_subtask_steps * max(1, len(parts))  # a merged chain keeps its subtasks' steps
    if limit is None and kind is AppStepKind.STEP and record.steps >= allowed:
        limit = Reason(ReasonKind.LIMIT_REACHED, f"subtask {sid} used all its {allowed} steps "
                                                 f"(max_subtask_steps) without finishing")
    if limit is not None:
        s = update_subtask(s, sid, SubtaskEvent.LIMIT, reason=limit)
        return finish_run(s, HostEvent.LIMIT, limit)
    ops, s, agent = agent_for(s, record.spec.application)
    run = run_of(s)
    inputs = tuple(r for r in (s.blackboard.result_of(d) for d in record.spec.depends_on) if r is not None)
    retry = record.repairs > 0 or bool(record.nudge)  # greedy would give the same useless answer again
    t = temperature(s, retry)
    steps = record.steps + (1 if kind is AppStepKind.STEP else 0)
    part = min(record.part, len(parts) - 1) if parts else 0
    request = AppStepRequest(kind=kind, application=record.spec.application, subtask_id=sid,
                             description=record.doing,
                             done_parts=parts[:part], parts=len(parts), tips=record.spec.message, request=run.request,
                             step=steps, inputs=inputs,
                             # A quarter of the planner's share: an AppAgent's own work is in its memory and inputs.
                             # The HostAgent's steps are left out: its plan is the subtask itself, and its
                             # comments ("the subtasks have not been assigned") the 1.5B AppAgent gave as
                             # its own result, step after step.
                             blackboard=s.blackboard.to_prompt(max(1, s.config.blackboard_chars // 4),
                                                               shown_request=run.request, own_subtask=sid,
                                                               shown_results={r.subtask for r in inputs},
                                                               hidden_agents={PLANNER}),
                             answers=record.answers, feedback=record.feedback, note=record.note,
                             nudge=record.nudge, must_act=record.must_act, must_call=_must_call(s, record),
                             asked=record.asked(s.catalog.get(record.spec.application)), temperature=t,
                             actions=actions)
    s = replace(update_subtask(s, sid, agent=agent, steps=steps), session_steps=s.session_steps + 1)
    s = with_run(s, steps=run.steps + 1, busy={**run.busy, agent: sid},
                 current=f"subtask {sid} step {steps} on {agent}")
    return [*ops, Dispatch(agent, Prompt(request.model_dump_json(), temperature=t), run.token)], s


def _downstream(schedule: GraphSchedule) -> dict[str, int]:
    # Longest chain of dependants below each subtask: starting the longest chain first shortens the
    # makespan when several ready subtasks compete for one application's AppAgent.
    below: dict[str, int] = {}
    children: dict[str, list[str]] = {t.id: [] for t in schedule.subtasks}
    for t in schedule.subtasks:
        for dep in t.depends_on:
            children[dep].append(t.id)
    for t in reversed(schedule.subtasks):  # dependants come later in the stable order
        below[t.id] = 1 + max((below[c] for c in children[t.id]), default=0)
    return below


def schedule_ready(s: HostState) -> Result:
    """Start every ready subtask whose AppAgent is free (one subtask per AppAgent at a time)."""
    ops: list[Op] = []
    run = run_of(s)
    if run.schedule is None:
        return ops, s
    depth = _downstream(run.schedule)
    order = sorted(run.schedule.ready(), key=lambda t: -depth[t.id])  # sorted() is stable
    for task in order:
        run = run_of(s)
        app = run.subtasks[task.id].spec.application
        if s.agents.get(app) in run.busy:
            continue
        s = with_run(s, schedule=run.schedule.start(task.id))  # type: ignore[union-attr]
        s = update_subtask(s, task.id, SubtaskEvent.DISPATCH)
        more, s = dispatch_app(s, task.id)
        ops += more
        if not active(s):
            break
    return ops, s


def _must_call(s: HostState, record: SubtaskRecord) -> bool:
    """Whether the AppAgent's next step must call a tool: its part asks for a change and none is made
    yet. Free to answer without one, the 1.5B AppAgent handed the rows to write answered CONTINUE with
    no call (or with the planner's words as its result), a step of ~40 s each time. It may still read
    first, ask a question or say it failed: any tool will do."""
    app = s.catalog.get(record.spec.application)
    return bool(app and app.changing) and record.part_changes == 0 and asks_for_change(record.doing) \
        and not reads_only(record.doing)


def end_subtask(s: HostState, sid: str, agent: str | None, event: SubtaskEvent, *, result: Any = None,
                reason: Reason | None = None) -> HostState:
    """Record a subtask's end in its machine, the graph and the blackboard, and free its AppAgent."""
    s = update_subtask(s, sid, event, result=result, reason=reason, held=(), holds=())
    record = run_of(s).subtasks[sid]
    schedule = run_of(s).schedule
    if schedule is not None and record.spec.id in {t.id for t in schedule.subtasks}:
        if record.state is SubtaskState.FINISH:
            schedule = schedule.complete(sid, result)
        elif schedule.status(sid).value in ("running", "ready"):
            schedule = schedule.fail(sid, reason or Reason(ReasonKind.FAILED, f"subtask {sid} failed"))
    busy = {a: t for a, t in run_of(s).busy.items() if a != agent}
    s = with_run(s, schedule=schedule, busy=busy)
    if schedule is not None:  # dependants of a failure that will now never run
        for other, rec in run_of(s).subtasks.items():
            if rec.state is SubtaskState.WAITING and other in {t.id for t in schedule.subtasks} \
                    and schedule.status(other).value == "skipped":
                s = update_subtask(s, other, SubtaskEvent.SKIP, reason=schedule.outcome(other).reason)
    entry = SubtaskResult(subtask=sid, application=record.spec.application, status=record.state.value,
                          description=record.spec.description,
                          result=result if reason is None else reason.detail, outputs=record.outputs)
    return replace(s, blackboard=s.blackboard.add_result(entry))


def in_flight(s: HostState) -> bool:
    """Whether a step of the request is out on an agent: the planner's (the host is in CONTINUE) or an
    AppAgent's (a busy subtask in CONTINUE). The session fails a run that a crash leaves with none."""
    run = run_of(s)
    return run.machine.state is HostStatus.CONTINUE or \
        any(run.subtasks[sid].state is SubtaskState.CONTINUE for sid in run.busy.values())


REPLAN = ("Re-plan: FINISH subtasks are kept; ASSIGN new subtasks (new ids) for what is left, or answer FAIL "
          "with the reason.")


def failures(s: HostState) -> str:
    """How the subtasks that failed ended, for a FAIL that gives no reason of its own."""
    return "; ".join(f"subtask {r.spec.id} ({r.spec.description}) ended {r.state.value}: "
                     f"{r.reason.detail if r.reason else 'no reason given'}"
                     for r in run_of(s).subtasks.values() if r.state in (SubtaskState.FAIL, SubtaskState.ERROR))


def graph_idle(s: HostState) -> bool:
    schedule = run_of(s).schedule
    return schedule is None or schedule.finished


def after_graph(s: HostState) -> Result:
    """Nothing is left to run: ask the planner to verify (all done) or to re-plan (failures)."""
    run = run_of(s)
    failed = [r for r in run.subtasks.values() if r.state in (SubtaskState.FAIL, SubtaskState.ERROR)
              and run.schedule is not None and r.spec.id in {t.id for t in run.schedule.subtasks}]
    if not failed:
        return dispatch_planner(s, note="Every subtask has ended (see Subtasks so far). Compare the results with "
                                        "the request: answer FINISH if it is done, or ASSIGN new subtasks for what "
                                        "is still missing.")
    first = failed[0]
    if run.replans >= s.config.max_replans:
        reason = Reason(ReasonKind.FAILED, f"subtask {first.spec.id} ({first.spec.description}) ended "
                        f"{first.state.value}: {first.reason.detail if first.reason else 'no reason given'}; "
                        f"no re-plan left (max_replans={s.config.max_replans})", first.agent, first.reason)
        return finish_run(s, HostEvent.GIVE_UP, reason)
    lines = "; ".join(f"subtask {r.spec.id} ended {r.state.value}: {r.reason.detail if r.reason else '?'}"
                      for r in failed)
    s = with_run(s, replans=run.replans + 1)
    return dispatch_planner(s, note=f"{lines}. {REPLAN}")


def settle(s: HostState) -> Result:
    """After a subtask ended: start what it unblocked, or hand back to the planner when all is idle.
    While the person is being asked the host state stays; the reply decides what comes next."""
    state = run_of(s).machine.state.value
    if state == "ASSIGN" and graph_idle(s):
        return after_graph(fire(s, HostEvent.GRAPH_SETTLED))
    s = fire(s, HostEvent.SUBTASK_SETTLED)
    return schedule_ready(s)


# -- the end of a request -----------------------------------------------------------------------

def _abandon(s: HostState) -> HostState:
    for sid, record in run_of(s).subtasks.items():
        if not record.machine.final:
            s = update_subtask(s, sid, SubtaskEvent.ABANDON,
                               reason=record.reason or Reason(ReasonKind.CANCELLED, "the request ended first"))
    return with_run(s, busy={})


def outcome(s: HostState, reason: Reason | None, text: str) -> dict[str, Any]:
    run = run_of(s)
    return {
        "token": run.token,
        "request": run.request,
        "status": run.machine.state.value,
        "result": text,
        "reason": None if reason is None else str(reason),
        "reason_kind": None if reason is None else reason.kind.value,
        "steps": run.steps,
        "usage": usage_dict(run.usage),
        "subtasks": [{"id": r.spec.id, "description": r.spec.description, "application": r.spec.application,
                      "depends_on": list(r.spec.depends_on), "state": r.state.value, "steps": r.steps,
                      "agent": r.agent, "restarts": r.restarts, "result": r.result,
                      "reason": None if r.reason is None else r.reason.detail,
                      "reason_kind": None if r.reason is None else r.reason.kind.value}
                     for r in run.subtasks.values()],
        "evaluation": None,
        "blackboard": s.blackboard.to_dict(),
    }


def finish_run(s: HostState, event: HostEvent, reason: Reason | None = None, text: str = "") -> Result:
    """End the request: the host's final state, every unfinished subtask abandoned, the reply (after the
    judge, when evaluation is on), then the next queued request."""
    s = _abandon(fire(s, event))
    run = run_of(s)
    if not text:
        text = run.comment or (str(reason) if reason else run.machine.state.value)
    s = record_step(s, PLANNER, run.machine.state.value, action="end of request",
                    outcome=text if reason is None else str(reason))
    result = outcome(s, reason, text)
    if s.judge and s.config.evaluate:
        board = s.blackboard
        trajectory = "\n".join(f"step {t.step} {t.agent} {t.status}: {t.action} -> {t.outcome}"
                               for t in board.trajectories[-60:])
        prompt = Prompt(judge_prompt(board.requests, summarize(trajectory, 12000), board.results), temperature=0.0)
        s = with_run(s, evaluating=result, current="evaluating")
        return [Dispatch(JUDGE, prompt, run.token)], s
    return reply_and_close(s, result)


def reply_and_close(s: HostState, result: dict[str, Any]) -> Result:
    run = run_of(s)
    ops: list[Op] = []
    if s.observer:
        ops.append(Forward(OBSERVER, RunFinished(run.token, result)))
    if result["status"] == "FINISH":
        text = str(result["result"])
        ops.append(Reply(run.token, Response(text, (Event.result(text, outcome=result),), run.usage)))
    else:
        kind = ReasonKind(result["reason_kind"]) if result["reason_kind"] else ReasonKind.FAILED
        detail = result["reason"] or result["result"]
        if kind is not ReasonKind.BUDGET_EXCEEDED and kind is not ReasonKind.LIMIT_REACHED:
            detail = f"HostAgent {result['status']}: {detail}"
        ops.append(ReplyError(run.token, Reason(kind, detail)))
    s = replace(s, run=None, last=result)
    if s.queue:
        (token, request), *rest = s.queue
        more, s = start_run(replace(s, queue=tuple(rest)), token, request)
        ops += more
    return ops, s


def start_run(s: HostState, token: str, request: str) -> Result:
    offered = s.catalog.needed_by(request)
    run = Run(token=token, request=request, applications=() if offered == s.catalog.names else offered)
    s = replace(s, run=run, blackboard=s.blackboard.add_request(request))
    return dispatch_planner(s)


def offered(s: HostState) -> Catalog:
    """The applications the planner may plan with in this run."""
    names = run_of(s).applications
    return s.catalog.only(names) if names else s.catalog


def kept_specs(run: Run) -> dict[str, Any]:
    """Subtasks a re-plan keeps: the finished ones (and any still running)."""
    return {sid: r.spec for sid, r in run.subtasks.items()
            if r.state is SubtaskState.FINISH or r.machine.active}


def merge_schedule(run: Run, new: Iterable[Any]) -> GraphSchedule:
    """The graph after a (re-)plan: kept subtasks with their results, then the new ones."""
    kept = kept_specs(run)
    nodes = [Subtask(spec.id, spec.description, spec.application, spec.depends_on) for spec in kept.values()]
    nodes += [Subtask(spec.id, spec.description, spec.application, spec.depends_on) for spec in new]
    schedule = GraphSchedule.build(nodes, on_failure="skip")
    results = {sid: run.subtasks[sid].result for sid, r in run.subtasks.items()
               if r.state is SubtaskState.FINISH and sid in kept}
    running = frozenset(sid for sid, r in run.subtasks.items() if r.machine.active and sid in kept)
    return replace(schedule, results=results, running=running)


def new_record(spec: Any, parts: tuple[str, ...] = ()) -> SubtaskRecord:
    return SubtaskRecord(spec=spec, parts=parts)
