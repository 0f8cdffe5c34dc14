"""Solo: one agent; the minimal reference strategy of the seed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from podium.agent.backend import Prompt
from podium.agent.behaviour import Behaviour
from podium.agent.events import Response
from podium.ensemble.ops import AgentSpec, Dispatch, Forward, Halt, Reply, ReplyError, Token
from podium.ensemble.strategy import Result, Strategy
from podium.errors import ConfigError, Reason, ReasonKind


@dataclass(frozen=True, slots=True)
class SoloState:
    agent: str
    queue: tuple[Token, ...] = ()  # tokens in the order the agent received them


class Solo(Strategy[SoloState]):
    """Every tell/ask is dispatched at once to the one agent (its mailbox does the queueing); each
    response or error closes the oldest token; a rejection removes that token; events are forwarded;
    the agent's death halts the session.

    Options: `agent=AgentSpec(...)`, or `backend=...` with optional `behaviour=` and `name=` ("solo").
    """

    def init(self, opts: Mapping[str, Any]) -> tuple[SoloState, list[AgentSpec]]:
        spec = opts.get("agent")
        if spec is None:
            if "backend" not in opts:
                raise ConfigError("Solo needs agent=AgentSpec(...) or backend=<Backend>")
            agent_opts = {k: v for k, v in opts.items() if k not in ("behaviour", "name")}
            spec = AgentSpec(opts.get("name", "solo"), opts.get("behaviour") or Behaviour(), agent_opts)
        elif not isinstance(spec, AgentSpec):
            raise ConfigError(f"Solo: agent must be an AgentSpec, got {spec!r}")
        return SoloState(spec.name), [spec]

    def handle_tell(self, prompt: str | Prompt, opts: Mapping[str, Any], token: Token, state: SoloState
                    ) -> Result[SoloState]:
        return [Dispatch(state.agent, prompt, token)], SoloState(state.agent, (*state.queue, token))

    handle_ask = handle_tell  # the same; bound directly to spare a call on the hot path

    def handle_response(self, agent: str, response: Response, state: SoloState) -> Result[SoloState]:
        if not state.queue:
            return [], state
        return [Reply(state.queue[0], response)], SoloState(state.agent, state.queue[1:])

    def handle_error(self, agent: str, reason: Reason, state: SoloState) -> Result[SoloState]:
        if not state.queue:
            return [], state
        return [ReplyError(state.queue[0], reason)], SoloState(state.agent, state.queue[1:])

    def handle_dispatch_rejected(self, agent: str, token: Token, reason: Reason, state: SoloState
                                 ) -> Result[SoloState]:
        return [], replace(state, queue=tuple(t for t in state.queue if t != token))

    def handle_notify(self, event: Any, state: SoloState) -> Result[SoloState]:
        return [Forward(state.agent, event)], state

    def handle_agent_down(self, agent: str, reason: Reason, state: SoloState) -> Result[SoloState]:
        return [Halt(Reason(ReasonKind.AGENT_DOWN, reason.detail, agent, reason))], replace(state, queue=())

    def handle_status(self, state: SoloState) -> Mapping[str, Any]:
        return {"agent": state.agent, "queued_tokens": len(state.queue)}
