"""Debate: two agents answer each other in turn."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from podium.agent.backend import Prompt
from podium.agent.events import Response
from podium.ensemble.ops import AgentSpec, Dispatch, Halt, Op, Reply, ReplyError, Token
from podium.ensemble.strategies._support import Options, call_user, composed, evolve, with_usage
from podium.ensemble.strategy import Result, Strategy
from podium.errors import Reason, ReasonKind

Queued = tuple[Token, str | Prompt]
Transcript = tuple[tuple[str, str], ...]  # (agent, text) per turn, in order


class DebateReply(StrEnum):
    TRANSCRIPT = "transcript"  # every turn, "[agent] text", blank-line separated
    LAST = "last"  # the last response as it came
    SYNTHESIS = "synthesis"  # synthesize(transcript) -> text


def render_transcript(transcript: Transcript) -> str:
    return "\n\n".join(f"[{agent}] {text}" for agent, text in transcript)


@dataclass(frozen=True, slots=True)
class DebateRun:
    token: Token
    speaker: str  # the agent whose answer is awaited
    responses: tuple[Response, ...] = ()

    @property
    def turn(self) -> int:
        return len(self.responses) + 1


@dataclass(frozen=True, slots=True)
class DebateState:
    agents: tuple[str, str]  # (first speaker, second speaker)
    rounds: int
    converge: Callable[[str], bool] | None
    reply: DebateReply
    synthesize: Callable[[Transcript], str] | None
    run: DebateRun | None = None
    queue: tuple[Queued, ...] = ()


class Debate(Strategy[DebateState]):
    """Two agents alternate: the first answers the caller's prompt, then each response is the
    other agent's prompt, for `rounds` responses in all (both agents together; default 6) or until
    `converge(text)` says a response (from the second one on) settles it. One debate at a time; the
    others wait, in order.

    Options: `agents=[AgentSpec, AgentSpec]`, `first=` (the name of the agent that opens; default
    the first listed), `rounds=` (>= 1), `converge=` (pure, text -> bool), `reply=` "transcript"
    (default) | "last" | "synthesis" with `synthesize=` (pure, [(agent, text), ...] -> text).

    The reply carries the usage of every turn; for "transcript" and "synthesis" its result event
    holds `transcript` (the (agent, text) pairs). An agent error or a rejected dispatch fails that
    debate (the reason names the agent and the turn) and the next one starts; a converge or
    synthesize function that raises fails it too. An agent going down halts the session.
    Status: `phase` (idle | debating), `turn`, `rounds`, `speaker`, `queued`.
    """

    def init(self, opts: Mapping[str, Any]) -> tuple[DebateState, list[AgentSpec]]:
        o = Options("Debate", opts, ("agents", "first", "rounds", "converge", "reply", "synthesize"))
        specs = o.specs("agents", exactly=2)
        names = (specs[0].name, specs[1].name)
        first = opts.get("first", names[0])
        if first not in names:
            raise o.error(f"first= must name one of the agents {names[0]!r} or {names[1]!r}, got {first!r}")
        order = names if first == names[0] else (names[1], names[0])
        rounds = o.integer("rounds", 6, minimum=1)
        converge = None if opts.get("converge") is None else o.function("converge", None, "text -> bool")
        reply = o.choice("reply", DebateReply.TRANSCRIPT, DebateReply)
        synthesize = None
        if reply is DebateReply.SYNTHESIS:
            synthesize = o.function("synthesize", None, "[(agent, text), ...] -> text, for reply='synthesis'")
        elif "synthesize" in opts:
            raise o.error("synthesize= is used only with reply='synthesis'")
        return DebateState(order, rounds, converge, reply, synthesize), list(specs)

    def handle_tell(self, prompt: str | Prompt, opts: Mapping[str, Any], token: Token, state: DebateState
                    ) -> Result[DebateState]:
        if state.run is not None:
            return [], evolve(state, queue=(*state.queue, (token, prompt)))
        return self._begin([], token, prompt, state)

    def handle_response(self, agent: str, response: Response, state: DebateState) -> Result[DebateState]:
        run = state.run
        if run is None or agent != run.speaker:
            return [], state
        run = evolve(run, responses=(*run.responses, response))
        settled = False
        if state.converge is not None and len(run.responses) >= 2:
            verdict, error = call_user(state.converge, "converge", ReasonKind.STRATEGY_ERROR, response.text)
            if error is not None:
                return self._advance([ReplyError(run.token, error)], state)
            settled = bool(verdict)
        if settled or len(run.responses) >= state.rounds:
            return self._finish(run, state)
        other = state.agents[1] if agent == state.agents[0] else state.agents[0]
        return [Dispatch(other, response.text, run.token)], evolve(state, run=evolve(run, speaker=other))

    def handle_error(self, agent: str, reason: Reason, state: DebateState) -> Result[DebateState]:
        run = state.run
        if run is None or agent != run.speaker:
            return [], state
        return self._advance([ReplyError(run.token, self._failure(run, agent, reason))], state)

    def handle_dispatch_rejected(self, agent: str, token: Token, reason: Reason, state: DebateState
                                 ) -> Result[DebateState]:
        run = state.run
        if run is None or run.token != token:
            return [], state
        rejected = Reason(ReasonKind.DISPATCH_REJECTED, reason.detail, agent, reason)
        return self._advance([ReplyError(token, self._failure(run, agent, rejected))], state)

    def handle_agent_down(self, agent: str, reason: Reason, state: DebateState) -> Result[DebateState]:
        if agent not in state.agents:
            return [], state
        ops: list[Op] = []
        if state.run is not None:
            ops.append(ReplyError(state.run.token, self._failure(state.run, agent, reason)))
        ops.append(Halt(Reason(ReasonKind.AGENT_DOWN, f"debater {agent!r} went down", agent, reason)))
        return ops, evolve(state, run=None, queue=())

    def handle_status(self, state: DebateState) -> Mapping[str, Any]:
        run = state.run
        return {"phase": "idle" if run is None else "debating", "turn": 0 if run is None else run.turn,
                "rounds": state.rounds, "speaker": None if run is None else run.speaker,
                "queued": len(state.queue)}

    # -- internals ---------------------------------------------------------------------------

    def _begin(self, ops: list[Op], token: Token, prompt: str | Prompt, state: DebateState
               ) -> Result[DebateState]:
        first = state.agents[0]
        ops.append(Dispatch(first, prompt, token))
        return ops, evolve(state, run=DebateRun(token, first))

    def _advance(self, ops: list[Op], state: DebateState) -> Result[DebateState]:
        if not state.queue:
            return ops, evolve(state, run=None)
        (token, prompt), queue = state.queue[0], state.queue[1:]
        return self._begin(ops, token, prompt, evolve(state, queue=queue))

    def _finish(self, run: DebateRun, state: DebateState) -> Result[DebateState]:
        speakers = [state.agents[i % 2] for i in range(len(run.responses))]
        transcript: Transcript = tuple((a, r.text) for a, r in zip(speakers, run.responses, strict=True))
        if state.reply is DebateReply.LAST:
            return self._advance([Reply(run.token, with_usage(run.responses[-1], run.responses))], state)
        if state.reply is DebateReply.TRANSCRIPT:
            text = render_transcript(transcript)
        else:
            assert state.synthesize is not None
            text, error = call_user(state.synthesize, "synthesize", ReasonKind.STRATEGY_ERROR, transcript)
            if error is None and not isinstance(text, str):
                error = Reason(ReasonKind.STRATEGY_ERROR, f"synthesize must return a str, got {text!r:.100}")
            if error is not None:
                return self._advance([ReplyError(run.token, error)], state)
        return self._advance([Reply(run.token, composed(str(text), run.responses, transcript=transcript))], state)

    @staticmethod
    def _failure(run: DebateRun, agent: str, reason: Reason) -> Reason:
        detail = f"debater {agent!r} failed at turn {run.turn}: {reason.kind.value}" + (
            f": {reason.detail}" if reason.detail else "")
        return Reason(ReasonKind.STAGE_FAILED, detail, agent, reason)
