"""Pipeline: every request passes through the stages in order, one request at a time."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from podium.agent.backend import Prompt
from podium.agent.events import Response
from podium.ensemble.ops import AgentSpec, Dispatch, Halt, Op, Reply, ReplyError, Token
from podium.ensemble.strategies._support import Options, evolve, with_usage
from podium.ensemble.strategy import Result, Strategy
from podium.errors import Reason, ReasonKind

Queued = tuple[Token, str | Prompt]


@dataclass(frozen=True, slots=True)
class PipelineRun:
    token: Token
    stage: int  # index of the stage working on it
    responses: tuple[Response, ...] = ()  # of the stages done, for the run's total usage


@dataclass(frozen=True, slots=True)
class PipelineState:
    stages: tuple[str, ...]
    run: PipelineRun | None = None
    queue: tuple[Queued, ...] = ()


class Pipeline(Strategy[PipelineState]):
    """Each request goes through `stages` in order: the first stage gets the caller's prompt, each
    stage's response text is the next stage's prompt, the last stage's response is the reply
    (carrying the usage of every stage). One request runs at a time; the others wait, in order.

    Options: `stages=[AgentSpec, ...]` (at least one, unique names).

    A stage error or a rejected dispatch fails that request with `stage_failed` naming the stage
    (the reason's `agent`; its `cause` is the stage's own reason), and the next queued request
    starts. A stage going down halts the session (the pipeline cannot work without it).
    Status: `phase` (idle | in_stage), `stage` (its name or None), `stages`, `queued`.
    """

    def init(self, opts: Mapping[str, Any]) -> tuple[PipelineState, list[AgentSpec]]:
        specs = Options("Pipeline", opts, ("stages",)).specs("stages")
        return PipelineState(tuple(s.name for s in specs)), list(specs)

    def handle_tell(self, prompt: str | Prompt, opts: Mapping[str, Any], token: Token, state: PipelineState
                    ) -> Result[PipelineState]:
        if state.run is not None:
            return [], evolve(state, queue=(*state.queue, (token, prompt)))
        return self._begin([], token, prompt, state)

    def handle_response(self, agent: str, response: Response, state: PipelineState) -> Result[PipelineState]:
        run = state.run
        if run is None or state.stages[run.stage] != agent:
            return [], state
        responses = (*run.responses, response)
        if run.stage + 1 < len(state.stages):
            nxt = run.stage + 1
            run = PipelineRun(run.token, nxt, responses)
            return [Dispatch(state.stages[nxt], response.text, run.token)], evolve(state, run=run)
        return self._advance([Reply(run.token, with_usage(response, responses))], state)

    def handle_error(self, agent: str, reason: Reason, state: PipelineState) -> Result[PipelineState]:
        run = state.run
        if run is None or state.stages[run.stage] != agent:
            return [], state
        return self._advance([ReplyError(run.token, self._stage_failed(state, run, reason))], state)

    def handle_dispatch_rejected(self, agent: str, token: Token, reason: Reason, state: PipelineState
                                 ) -> Result[PipelineState]:
        run = state.run
        if run is None or run.token != token:
            return [], state
        rejected = Reason(ReasonKind.DISPATCH_REJECTED, reason.detail, agent, reason)
        return self._advance([ReplyError(token, self._stage_failed(state, run, rejected))], state)

    def handle_agent_down(self, agent: str, reason: Reason, state: PipelineState) -> Result[PipelineState]:
        if agent not in state.stages:
            return [], state
        ops: list[Op] = []
        if state.run is not None:
            ops.append(ReplyError(state.run.token, self._stage_failed(state, state.run, reason)))
        ops.append(Halt(Reason(ReasonKind.AGENT_DOWN, f"pipeline stage {agent!r} went down", agent, reason)))
        return ops, evolve(state, run=None, queue=())

    def handle_status(self, state: PipelineState) -> Mapping[str, Any]:
        run = state.run
        return {"phase": "idle" if run is None else "in_stage",
                "stage": None if run is None else state.stages[run.stage],
                "stages": state.stages, "queued": len(state.queue)}

    # -- internals ---------------------------------------------------------------------------

    def _begin(self, ops: list[Op], token: Token, prompt: str | Prompt, state: PipelineState
               ) -> Result[PipelineState]:
        ops.append(Dispatch(state.stages[0], prompt, token))
        return ops, evolve(state, run=PipelineRun(token, 0))

    def _advance(self, ops: list[Op], state: PipelineState) -> Result[PipelineState]:
        """The current run is closed (by `ops`); admit the next queued one."""
        if not state.queue:
            return ops, evolve(state, run=None)
        (token, prompt), queue = state.queue[0], state.queue[1:]
        return self._begin(ops, token, prompt, evolve(state, queue=queue))

    @staticmethod
    def _stage_failed(state: PipelineState, run: PipelineRun, reason: Reason) -> Reason:
        name = state.stages[run.stage]
        return Reason(ReasonKind.STAGE_FAILED,
                      f"stage {name!r} ({run.stage + 1} of {len(state.stages)}) failed: {reason.kind.value}"
                      + (f": {reason.detail}" if reason.detail else ""), name, reason)
