"""Supervisor: a coordinator's answer is split into subtasks, one fresh worker each, then joined."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from podium.agent.backend import Prompt
from podium.agent.events import Response
from podium.ensemble.ops import AgentSpec, Dispatch, Halt, Op, Reply, ReplyError, Start, Stop, Token
from podium.ensemble.strategies._support import Options, call_user, composed, evolve, fail_all, is_prompt
from podium.ensemble.strategy import Result, Strategy
from podium.errors import Reason, ReasonKind

Queued = tuple[Token, str | Prompt]
Decomposer = Callable[[str], Sequence[str | Prompt]]
Synthesizer = Callable[[Sequence[tuple[str, str]]], str]


def join_blank_lines(results: Sequence[tuple[str, str]]) -> str:
    """The default synthesizer: the workers' texts, in subtask order, separated by blank lines."""
    return "\n\n".join(text for _, text in results)


class Phase(StrEnum):
    IDLE = "idle"
    DECOMPOSING = "decomposing"
    FANNING_OUT = "fanning_out"


@dataclass(frozen=True, slots=True)
class SupervisorRun:
    token: Token
    phase: Phase
    coordinator: Response | None = None
    workers: tuple[str, ...] = ()  # one per subtask, in subtask order
    results: tuple[Response | None, ...] = ()  # same order; None until the worker answered
    done: int = 0  # how many answered


@dataclass(frozen=True, slots=True)
class SupervisorState:
    coordinator: str
    template: AgentSpec
    decomposer: Decomposer
    synthesizer: Synthesizer
    run: SupervisorRun | None = None
    queue: tuple[Queued, ...] = ()
    started: int = 0  # workers ever started: names new ones uniquely


class Supervisor(Strategy[SupervisorState]):
    """The coordinator answers the request; `decomposer(text)` turns the answer into sub-prompts;
    each sub-prompt starts a worker from `worker_template` and is dispatched at once, in parallel;
    when every worker has answered, `synthesizer([(worker, text), ...])` (in SUBTASK order, not
    arrival order) makes the reply, and the workers are stopped. No sub-prompt: the coordinator's
    answer is the reply. One request runs at a time; the others wait, in order.

    Options: `coordinator=AgentSpec`, `worker_template=AgentSpec(prefix, ...)` (workers are named
    prefix-1, prefix-2, ... never reused), `decomposer=` (required; pure), `synthesizer=` (pure;
    default: texts joined by blank lines).

    A coordinator error, a worker error, a rejected dispatch, or a decomposer / synthesizer that
    raises fails the current request (the reason names the agent), stops its workers (late results
    of the siblings are fenced), and the next queued request starts. A worker going down fails the
    current request AND every queued one (`worker_down`), exactly once. The coordinator going down
    halts the session.
    Status: `phase` (idle | decomposing | fanning_out), `done`, `total`, `queued`.
    """

    def init(self, opts: Mapping[str, Any]) -> tuple[SupervisorState, list[AgentSpec]]:
        o = Options("Supervisor", opts, ("coordinator", "worker_template", "decomposer", "synthesizer"))
        coordinator = o.spec("coordinator")
        template = o.spec("worker_template")
        assert coordinator is not None and template is not None
        decomposer = o.function("decomposer", None, "text -> list of sub-prompts")
        synthesizer = o.function("synthesizer", join_blank_lines, "[(worker, text), ...] -> text")
        if template.name == coordinator.name:
            raise o.error("worker_template's name (the workers' prefix) must differ from the coordinator's")
        return SupervisorState(coordinator.name, template, decomposer, synthesizer), [coordinator]

    def handle_tell(self, prompt: str | Prompt, opts: Mapping[str, Any], token: Token, state: SupervisorState
                    ) -> Result[SupervisorState]:
        if state.run is not None:
            return [], evolve(state, queue=(*state.queue, (token, prompt)))
        return self._begin([], token, prompt, state)

    def handle_response(self, agent: str, response: Response, state: SupervisorState
                        ) -> Result[SupervisorState]:
        run = state.run
        if run is None:
            return [], state
        if agent == state.coordinator and run.phase is Phase.DECOMPOSING:
            return self._fan_out(run, response, state)
        if run.phase is Phase.FANNING_OUT and agent in run.workers:
            index = run.workers.index(agent)
            if run.results[index] is not None:
                return [], state
            results = (*run.results[:index], response, *run.results[index + 1:])
            run = SupervisorRun(run.token, run.phase, run.coordinator, run.workers, results, run.done + 1)
            if run.done < len(run.workers):
                return [], evolve(state, run=run)
            return self._join(run, state)
        return [], state

    def handle_error(self, agent: str, reason: Reason, state: SupervisorState) -> Result[SupervisorState]:
        run = state.run
        if run is None or not (agent == state.coordinator or agent in run.workers):
            return [], state
        return self._abort(run, self._failure(run, agent, reason), state)

    def handle_dispatch_rejected(self, agent: str, token: Token, reason: Reason, state: SupervisorState
                                 ) -> Result[SupervisorState]:
        run = state.run
        if run is None or run.token != token:
            return [], state
        rejected = Reason(ReasonKind.DISPATCH_REJECTED, reason.detail, agent, reason)
        # The dispatches after this one in the batch were abandoned; failing the run covers them.
        return self._abort(run, self._failure(run, agent, rejected), state)

    def handle_agent_down(self, agent: str, reason: Reason, state: SupervisorState) -> Result[SupervisorState]:
        run = state.run
        if agent == state.coordinator:
            ops: list[Op] = []
            if run is not None:
                ops.append(ReplyError(run.token, self._failure(run, agent, reason)))
            ops.append(Halt(Reason(ReasonKind.AGENT_DOWN, f"coordinator {agent!r} went down", agent, reason)))
            return ops, evolve(state, run=None, queue=())
        if run is None or agent not in run.workers:
            return [], state
        failure = Reason(ReasonKind.WORKER_DOWN, f"worker {agent!r} went down", agent, reason)
        ops = [Stop(w) for w in run.workers if w != agent]
        ops += fail_all([run.token, *(t for t, _ in state.queue)], failure)
        return ops, evolve(state, run=None, queue=())

    def handle_status(self, state: SupervisorState) -> Mapping[str, Any]:
        run = state.run
        return {"phase": Phase.IDLE.value if run is None else run.phase.value,
                "done": 0 if run is None else run.done,
                "total": 0 if run is None else len(run.workers),
                "queued": len(state.queue)}

    # -- internals ---------------------------------------------------------------------------

    def _begin(self, ops: list[Op], token: Token, prompt: str | Prompt, state: SupervisorState
               ) -> Result[SupervisorState]:
        ops.append(Dispatch(state.coordinator, prompt, token))
        return ops, evolve(state, run=SupervisorRun(token, Phase.DECOMPOSING))

    def _advance(self, ops: list[Op], state: SupervisorState) -> Result[SupervisorState]:
        if not state.queue:
            return ops, evolve(state, run=None)
        (token, prompt), queue = state.queue[0], state.queue[1:]
        return self._begin(ops, token, prompt, evolve(state, queue=queue))

    def _fan_out(self, run: SupervisorRun, response: Response, state: SupervisorState
                 ) -> Result[SupervisorState]:
        prompts, error = call_user(state.decomposer, "decomposer", ReasonKind.INVALID_OUTPUT, response.text)
        if error is None and (isinstance(prompts, str | Prompt) or not isinstance(prompts, Sequence)
                              or not all(is_prompt(p) for p in prompts)):
            error = Reason(ReasonKind.INVALID_OUTPUT,
                           f"decomposer must return a list of str or Prompt, got {prompts!r:.200}")
        if error is not None:
            return self._advance([ReplyError(run.token, evolve(error, agent=state.coordinator))], state)
        assert prompts is not None
        if not prompts:
            return self._advance([Reply(run.token, response)], state)
        first = state.started + 1
        workers = tuple(f"{state.template.name}-{i}" for i in range(first, first + len(prompts)))
        ops: list[Op] = [Start(w, state.template.behaviour, state.template.opts) for w in workers]
        ops += [Dispatch(w, p, run.token) for w, p in zip(workers, prompts, strict=True)]
        run = evolve(run, phase=Phase.FANNING_OUT, coordinator=response, workers=workers,
                      results=(None,) * len(workers))
        return ops, evolve(state, run=run, started=state.started + len(workers))

    def _join(self, run: SupervisorRun, state: SupervisorState) -> Result[SupervisorState]:
        results: tuple[Response, ...] = run.results  # type: ignore[assignment]  # all answered
        pairs = tuple((w, r.text) for w, r in zip(run.workers, results, strict=True))
        text, error = call_user(state.synthesizer, "synthesizer", ReasonKind.STRATEGY_ERROR, pairs)
        if error is None and not isinstance(text, str):
            error = Reason(ReasonKind.STRATEGY_ERROR, f"synthesizer must return a str, got {type(text).__name__}")
        ops: list[Op] = [Stop(w) for w in run.workers]
        if error is not None:
            ops.append(ReplyError(run.token, error))
        else:
            assert isinstance(text, str)
            ops.append(Reply(run.token, composed(text, (run.coordinator, *results), subtasks=pairs)))
        return self._advance(ops, state)

    def _abort(self, run: SupervisorRun, reason: Reason, state: SupervisorState) -> Result[SupervisorState]:
        ops: list[Op] = [Stop(w) for w in run.workers]
        ops.append(ReplyError(run.token, reason))
        return self._advance(ops, state)

    @staticmethod
    def _failure(run: SupervisorRun, agent: str, reason: Reason) -> Reason:
        if agent in run.workers:
            index = run.workers.index(agent)
            where = f"worker {agent!r} (subtask {index + 1} of {len(run.workers)})"
        else:
            where = f"coordinator {agent!r}"
        detail = f"{where} failed: {reason.kind.value}" + (f": {reason.detail}" if reason.detail else "")
        return Reason(ReasonKind.STAGE_FAILED, detail, agent, reason)
