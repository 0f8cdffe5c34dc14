"""Graph: run a caller-supplied subtask graph, every ready subtask in parallel.

The scheduling itself is `GraphSchedule` (in `graph_schedule`, re-exported here), a pure value any
strategy can embed; `Graph` is the strategy that drives one per request with the session's agents.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from podium.agent.backend import Prompt, prompt_text
from podium.agent.events import Response
from podium.ensemble.ops import AgentSpec, Dispatch, Halt, Op, Reply, ReplyError, Token
from podium.ensemble.strategies._support import Options, call_user, composed, evolve, result_data
from podium.ensemble.strategies.graph_schedule import (
    FailurePolicy,
    GraphInvalid,
    GraphSchedule,
    ScheduleError,
    Subtask,
    SubtaskOutcome,
    SubtaskStatus,
    graph_problems,
    stable_order,
)
from podium.ensemble.strategy import Result, Strategy
from podium.errors import Reason, ReasonKind

__all__ = [
    "FailurePolicy", "Graph", "GraphInvalid", "GraphSchedule", "GraphState", "ScheduleError", "Subtask",
    "SubtaskOutcome", "SubtaskStatus", "graph_outcomes", "graph_problems", "parse_plan", "render_subtask",
    "stable_order",
]

Render = Callable[[Subtask, tuple[SubtaskOutcome, ...], str], "str | Prompt"]
PlanParser = Callable[[str], Iterable[Subtask]]
Slot = tuple[Token, str | None]  # (run token, subtask id); None: the planner's turn of that run


def render_subtask(subtask: Subtask, inputs: tuple[SubtaskOutcome, ...], request: str) -> str | Prompt:
    """The default prompt of a subtask: its own prompt, then the results it depends on, one block
    each, as `[id] text`. A subtask without dependencies gets its prompt unchanged."""
    if not inputs:
        return subtask.prompt
    blocks = "\n\n".join(f"[{o.id}] {_text(o.result)}" for o in inputs)
    text = f"{prompt_text(subtask.prompt)}\n\nResults of the subtasks this one depends on:\n\n{blocks}"
    return evolve(subtask.prompt, text=text) if isinstance(subtask.prompt, Prompt) else text


def parse_plan(text: str) -> tuple[Subtask, ...]:
    """The default plan parser for a planner agent: JSON, a list of
    `{"id", "prompt", "agent"?, "depends_on"?}` objects or `{"subtasks": [...]}`, optionally in a
    ```json fence. Raises ValueError saying what is wrong."""
    body = text.strip()
    fence = re.search(r"```(?:json)?\s*(.*?)```", body, re.DOTALL)
    if fence is not None:
        body = fence.group(1)
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        raise ValueError(f"the plan is not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    if isinstance(data, dict):
        data = data.get("subtasks")
    if not isinstance(data, list):
        raise ValueError('the plan must be a JSON list of subtasks, or {"subtasks": [...]}')
    subtasks = []
    for i, item in enumerate(data):
        if not isinstance(item, dict) or not isinstance(item.get("id"), str) \
                or not isinstance(item.get("prompt"), str):
            raise ValueError(f'plan item {i} must be an object with string "id" and "prompt"')
        deps = item.get("depends_on", [])
        if not isinstance(deps, list) or not all(isinstance(d, str) for d in deps):
            raise ValueError(f'plan item {i} ("{item["id"]}"): "depends_on" must be a list of ids')
        agent = item.get("agent")
        subtasks.append(Subtask(item["id"], item["prompt"], agent if isinstance(agent, str) else None, deps))
    return tuple(subtasks)


def graph_outcomes(response: Response) -> tuple[SubtaskOutcome, ...]:
    """The per-subtask outcomes of a Graph reply, in the schedule's stable order; a done
    subtask's `result` is its agent's `Response`."""
    return result_data(response, "subtasks")  # type: ignore[no-any-return]


def _text(result: Any) -> str:
    return result.text if isinstance(result, Response) else str(result)


@dataclass(frozen=True, slots=True)
class GraphRun:
    token: Token
    request: str
    policy: FailurePolicy
    schedule: GraphSchedule | None = None  # None while the planner works
    prompts: Mapping[str, str | Prompt] = field(default_factory=lambda: MappingProxyType({}))  # rendered


@dataclass(frozen=True, slots=True)
class GraphState:
    agents: tuple[str, ...]
    default_agent: str | None
    policy: FailurePolicy
    render: Render
    planner: str | None
    plan_parser: PlanParser
    down: frozenset[str] = frozenset()
    runs: Mapping[Token, GraphRun] = field(default_factory=lambda: MappingProxyType({}))
    busy: Mapping[str, Slot] = field(default_factory=lambda: MappingProxyType({}))  # one turn per agent
    waiting: Mapping[str, tuple[Slot, ...]] = field(default_factory=lambda: MappingProxyType({}))
    sent: tuple[tuple[str, Token], ...] = ()  # the dispatches of the last callback, in op order


class Graph(Strategy[GraphState]):
    """Runs a subtask graph per request: every subtask whose dependencies are done is dispatched at
    once (in parallel across agents) with the results it depends on rendered into its prompt, and
    the reply gives every subtask's result in a stable order.

        session = await Session.start(Graph(), agents=[AgentSpec("x", ...), AgentSpec("y", ...)])
        reply = await session.ask("trip", subtasks=[
            Subtask("flights", "Find flights to Oslo", "x"),
            Subtask("hotel", "Find a hotel in Oslo", "y"),
            Subtask("plan", "Write the itinerary", "x", depends_on=["flights", "hotel"])])
        reply.text              # "[flights] ...\\n\\n[hotel] ...\\n\\n[plan] ..."
        graph_outcomes(reply)   # (SubtaskOutcome(...), ...), each done one with its agent's Response

    Init options: `agents=[AgentSpec, ...]`, `default_agent=` (for subtasks naming none; default
    the only agent when there is one), `on_failure=` "fail" (default) | "skip", `render=` (pure;
    (subtask, dependency outcomes, request text) -> prompt; default `render_subtask`), `planner=`
    (an agent name: a request without subtasks goes to it and its reply is the plan),
    `plan_parser=` (pure; text -> subtasks; default `parse_plan`, JSON).
    Request options: `subtasks=[Subtask, ...]`, `on_failure=`.

    The graph is validated before anything is dispatched: duplicate ids, unknown dependencies,
    cycles, unknown or down agents fail the request `plan_invalid` listing every problem. Each
    agent runs one subtask at a time, the others wait in a FIFO (several subtasks may name the
    same agent). On a subtask failure, "fail" fails the request at once (`stage_failed` naming the
    subtask and agent); "skip" skips its dependants, lets independent branches finish and replies
    with every outcome (failed and skipped ones marked). A rejected dispatch, or an agent going
    down while it runs one of the request's subtasks, fails that request; subtasks that would run
    on a down agent fail `agent_down`. The session halts when every agent is down.
    Status: `phase` (idle | running), `runs` (per token, subtasks per status), `queued`, `busy`.
    """

    def init(self, opts: Mapping[str, Any]) -> tuple[GraphState, list[AgentSpec]]:
        o = Options("Graph", opts, ("agents", "default_agent", "on_failure", "render", "planner", "plan_parser"))
        specs = o.specs("agents")
        names = tuple(s.name for s in specs)
        default = opts.get("default_agent", names[0] if len(names) == 1 else None)
        if default is not None and default not in names:
            raise o.error(f"default_agent= must name one of the agents ({', '.join(names)}), got {default!r}")
        planner = opts.get("planner")
        if planner is not None and planner not in names:
            raise o.error(f"planner= must name one of the agents ({', '.join(names)}), got {planner!r}")
        state = GraphState(names, default, o.choice("on_failure", FailurePolicy.FAIL, FailurePolicy),
                           o.function("render", render_subtask, "(subtask, inputs, request) -> prompt"),
                           planner, o.function("plan_parser", parse_plan, "text -> list of Subtask"))
        return state, list(specs)

    def handle_tell(self, prompt: str | Prompt, opts: Mapping[str, Any], token: Token, state: GraphState
                    ) -> Result[GraphState]:
        unknown = sorted(set(opts) - {"subtasks", "on_failure"})
        policy = opts.get("on_failure", state.policy)
        subtasks = opts.get("subtasks")
        problem = None
        if unknown:
            problem = f"unknown request option(s) {', '.join(unknown)}; Graph takes subtasks= and on_failure="
        elif policy not in tuple(FailurePolicy):
            problem = f"on_failure= must be 'fail' or 'skip', got {policy!r}"
        elif subtasks is None and state.planner is None:
            problem = ("Graph needs the subtasks: ask(prompt, subtasks=[Subtask(id, prompt, agent, "
                       "depends_on), ...]), or a planner= agent configured at start")
        if problem is not None:
            return [ReplyError(token, Reason(ReasonKind.INVALID_REQUEST, problem))], evolve(state, sent=())
        run = GraphRun(token, prompt_text(prompt), FailurePolicy(policy))
        if subtasks is None:
            assert state.planner is not None
            return self._pump([], self._enqueue(state.planner, (token, None), self._put(run, state)))
        if isinstance(subtasks, Subtask) or not isinstance(subtasks, Iterable):
            subtasks = (subtasks,)
        return self._pump(*self._plan(run, subtasks, [], state))

    def handle_response(self, agent: str, response: Response, state: GraphState) -> Result[GraphState]:
        slot = state.busy.get(agent)
        if slot is None:
            return [], evolve(state, sent=())
        token, sid = slot
        state = self._free(agent, state)
        run = state.runs[token]
        if sid is not None:
            assert run.schedule is not None
            return self._pump(*self._progress(evolve(run, schedule=run.schedule.complete(sid, response)), [], state))
        # The planner's answer is the plan.
        subtasks, error = call_user(state.plan_parser, "plan_parser", ReasonKind.PLAN_INVALID, response.text)
        if error is not None:
            return self._pump(*self._close(run, ReplyError(token, evolve(error, agent=agent)), [], state))
        return self._pump(*self._plan(run, subtasks, [], state))  # type: ignore[arg-type]

    def handle_error(self, agent: str, reason: Reason, state: GraphState) -> Result[GraphState]:
        slot = state.busy.get(agent)
        if slot is None:
            return [], evolve(state, sent=())
        token, sid = slot
        state = self._free(agent, state)
        run = state.runs[token]
        if sid is None:
            failure = Reason(ReasonKind.STAGE_FAILED, f"planner {agent!r} failed: {reason}", agent, reason)
            return self._pump(*self._close(run, ReplyError(token, failure), [], state))
        assert run.schedule is not None
        return self._pump(*self._progress(evolve(run, schedule=run.schedule.fail(sid, reason)), [], state))

    def handle_dispatch_rejected(self, agent: str, token: Token, reason: Reason, state: GraphState
                                 ) -> Result[GraphState]:
        ops: list[Op] = []
        sent = state.sent
        if (agent, token) in sent:
            # The batch stopped here: the later dispatches never went out. Send those of other runs again.
            for other, other_token in sent[sent.index((agent, token)) + 1:]:
                slot = state.busy.get(other)
                if other_token != token and slot is not None and slot[0] == other_token:
                    ops.append(self._dispatch(other, slot, state))
        slot = state.busy.get(agent)
        run = state.runs.get(token)
        if slot is None or slot[0] != token or run is None:
            return self._pump(ops, state)
        state = self._free(agent, state)
        what = "the plan request" if slot[1] is None else f"subtask {slot[1]!r}"
        failure = Reason(ReasonKind.DISPATCH_REJECTED, f"agent {agent!r} refused {what}: {reason.detail}",
                         agent, reason)
        return self._pump(*self._close(run, ReplyError(token, failure), ops, state))

    def handle_agent_down(self, agent: str, reason: Reason, state: GraphState) -> Result[GraphState]:
        slot = state.busy.get(agent)
        waiting = state.waiting.get(agent, ())
        state = evolve(state, down=state.down | {agent},
                        busy=MappingProxyType({a: s for a, s in state.busy.items() if a != agent}),
                        waiting=MappingProxyType({a: q for a, q in state.waiting.items() if a != agent}))
        ops: list[Op] = []
        if slot is not None and slot[0] in state.runs:
            # The session fails a run with work in flight on a dead agent; say which subtask it was.
            what = "the planner" if slot[1] is None else f"subtask {slot[1]!r}"
            failure = Reason(ReasonKind.AGENT_DOWN, f"agent {agent!r} went down while running {what}",
                             agent, reason)
            ops, state = self._close(state.runs[slot[0]], ReplyError(slot[0], failure), ops, state)
        down = Reason(ReasonKind.AGENT_DOWN, f"agent {agent!r} went down", agent, reason)
        for token, sid in waiting:
            run = state.runs.get(token)
            if run is None:
                continue
            if sid is None or run.schedule is None:
                ops, state = self._close(run, ReplyError(token, down), ops, state)
            else:
                ops, state = self._progress(evolve(run, schedule=run.schedule.fail(sid, down)), ops, state)
        if len(state.down) == len(state.agents):
            ops.append(Halt(Reason(ReasonKind.AGENT_DOWN, "graph exhausted: every agent is down", agent, reason)))
            return ops, evolve(state, sent=())
        return self._pump(ops, state)

    def handle_status(self, state: GraphState) -> Mapping[str, Any]:
        runs = {t: {"planning": 1} if r.schedule is None else r.schedule.counts() for t, r in state.runs.items()}
        return {"phase": "running" if state.runs else "idle", "runs": runs,
                "queued": sum(len(q) for q in state.waiting.values()), "busy": tuple(sorted(state.busy)),
                "down": tuple(sorted(state.down))}

    # -- internals ---------------------------------------------------------------------------

    def _plan(self, run: GraphRun, subtasks: Iterable[Subtask], ops: list[Op], state: GraphState
              ) -> Result[GraphState]:
        """Validate the graph and start it; an invalid graph fails the run before any dispatch."""
        items = tuple(subtasks)
        problems = list(graph_problems(items, state.agents, state.default_agent))
        if not problems:
            for item in items:
                agent = item.agent if item.agent is not None else state.default_agent
                if agent in state.down:
                    problems.append(f"subtask {item.id!r} names agent {agent!r}, which is down")
        if problems:
            return self._close(run, ReplyError(run.token, GraphInvalid(problems).reason), ops, state)
        schedule = GraphSchedule(stable_order(items), run.policy, agents=frozenset(state.agents),
                                 default_agent=state.default_agent)
        return self._progress(evolve(run, schedule=schedule), ops, state)

    def _progress(self, run: GraphRun, ops: list[Op], state: GraphState) -> Result[GraphState]:
        """Render and queue every newly ready subtask on its agent; reply once the graph is finished."""
        schedule = run.schedule
        assert schedule is not None
        while True:
            prompts: dict[str, str | Prompt] = {}
            failed = False
            for subtask in schedule.ready():
                agent = schedule.agent_of(subtask.id)
                if agent in state.down:
                    error: Reason | None = Reason(ReasonKind.AGENT_DOWN, f"agent {agent!r} is down", agent)
                else:
                    prompt, error = call_user(state.render, "render", ReasonKind.STRATEGY_ERROR, subtask,
                                              schedule.inputs(subtask.id), run.request)
                    if error is None and not isinstance(prompt, str | Prompt):
                        error = Reason(ReasonKind.STRATEGY_ERROR, f"render returned {prompt!r:.80}, not a prompt")
                if error is not None:  # it cannot run: fail it now, the policy decides the rest
                    schedule, failed = schedule.fail(subtask.id, error), True
                else:
                    prompts[subtask.id] = prompt  # type: ignore[assignment]
            if not failed:
                break
        if schedule.finished:
            return self._close(evolve(run, schedule=schedule), self._final(schedule, run.token), ops, state)
        schedule = schedule.start(*prompts)
        run = evolve(run, schedule=schedule, prompts=MappingProxyType({**run.prompts, **prompts}))
        state = self._put(run, state)
        for sid in prompts:
            state = self._enqueue(schedule.agent_of(sid), (run.token, sid), state)  # type: ignore[arg-type]
        return ops, state

    @staticmethod
    def _final(schedule: GraphSchedule, token: Token) -> Reply | ReplyError:
        if schedule.on_failure is FailurePolicy.FAIL and schedule.failures:
            sid, reason = next(iter(schedule.failures.items()))
            agent = schedule.agent_of(sid)
            detail = f"subtask {sid!r} on agent {agent!r} failed: {reason.kind.value}" + (
                f": {reason.detail}" if reason.detail else "")
            return ReplyError(token, Reason(ReasonKind.STAGE_FAILED, detail, agent, reason))
        outcomes = schedule.outcomes()
        blocks = [f"[{o.id}] {_text(o.result)}" if o.status is SubtaskStatus.DONE
                  else f"[{o.id}] {o.status.value.upper()}: {o.reason}" for o in outcomes]
        responses = [o.result for o in outcomes if isinstance(o.result, Response)]
        return Reply(token, composed("\n\n".join(blocks), responses, subtasks=outcomes))

    @staticmethod
    def _close(run: GraphRun, op: Reply | ReplyError, ops: list[Op], state: GraphState) -> Result[GraphState]:
        """End a run: reply, forget it and its queued subtasks. Agents it kept busy become free: the
        session fences their late results, and their next prompt waits in their own mailbox."""
        token = run.token
        ops.append(op)
        return ops, evolve(
            state, runs=MappingProxyType({t: r for t, r in state.runs.items() if t != token}),
            busy=MappingProxyType({a: s for a, s in state.busy.items() if s[0] != token}),
            waiting=MappingProxyType({a: tuple(s for s in q if s[0] != token) for a, q in state.waiting.items()}))

    @staticmethod
    def _put(run: GraphRun, state: GraphState) -> GraphState:
        return evolve(state, runs=MappingProxyType({**state.runs, run.token: run}))

    @staticmethod
    def _enqueue(agent: str, slot: Slot, state: GraphState) -> GraphState:
        return evolve(state, waiting=MappingProxyType({**state.waiting, agent: (*state.waiting.get(agent, ()), slot)}))

    @staticmethod
    def _free(agent: str, state: GraphState) -> GraphState:
        return evolve(state, busy=MappingProxyType({a: s for a, s in state.busy.items() if a != agent}))

    def _pump(self, ops: list[Op], state: GraphState) -> Result[GraphState]:
        """Give every idle agent the oldest slot waiting for it. Dispatches go last in the batch and
        are remembered in `sent`, so a rejection knows which of them never went out."""
        busy, waiting = dict(state.busy), dict(state.waiting)
        for agent, queue in state.waiting.items():
            if agent not in busy and queue:
                busy[agent], waiting[agent] = queue[0], queue[1:]
                ops.append(self._dispatch(agent, queue[0], state))
        ops = [op for op in ops if type(op) is not Dispatch] + [op for op in ops if type(op) is Dispatch]
        sent = tuple((op.agent, op.token) for op in ops if type(op) is Dispatch)  # type: ignore[union-attr]
        return ops, evolve(state, busy=MappingProxyType(busy), waiting=MappingProxyType(waiting), sent=sent)

    @staticmethod
    def _dispatch(agent: str, slot: Slot, state: GraphState) -> Dispatch:
        token, sid = slot
        run = state.runs[token]
        return Dispatch(agent, run.request if sid is None else run.prompts[sid], token)
