"""Switchboard: the caller picks the agent, per request."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from podium.agent.backend import Prompt
from podium.agent.events import Response
from podium.ensemble.ops import AgentSpec, Dispatch, Forward, Halt, Op, Reply, ReplyError, Token
from podium.ensemble.strategies._support import Options, evolve, fail_all
from podium.ensemble.strategy import Result, Strategy
from podium.errors import Reason, ReasonKind


@dataclass(frozen=True, slots=True)
class SwitchboardState:
    agents: tuple[str, ...]  # the live agents, in configuration order
    fifo: Mapping[str, tuple[Token, ...]]  # per agent, its tokens in the order it received them
    down: tuple[str, ...] = ()

    def pop(self, agent: str) -> tuple[Token | None, SwitchboardState]:
        queue = self.fifo.get(agent, ())
        if not queue:
            return None, self
        return queue[0], evolve(self, fifo=MappingProxyType({**self.fifo, agent: queue[1:]}))


class Switchboard(Strategy[SwitchboardState]):
    """Routes each request to the agent the caller names: `session.ask(prompt, agent="billing")`.

    Options: `agents=[AgentSpec, ...]` (at least one, unique names).

    A request without `agent=` fails `no_agent_specified`, one naming an agent the session does not
    have fails `unknown_agent`; both say which agents there are. Each agent answers its requests in
    order (one FIFO per agent). An agent going down fails only that agent's tokens (`agent_down`);
    when the last agent is down the session halts. Events sent with `session.notify` go to the agent
    named by the event's `agent` attribute or key, when it has one.
    Status: `phase` (idle | routing), `pending_per_agent`, `down`.
    """

    def init(self, opts: Mapping[str, Any]) -> tuple[SwitchboardState, list[AgentSpec]]:
        specs = Options("Switchboard", opts, ("agents",)).specs("agents")
        names = tuple(s.name for s in specs)
        return SwitchboardState(names, MappingProxyType({n: () for n in names})), list(specs)

    def handle_tell(self, prompt: str | Prompt, opts: Mapping[str, Any], token: Token,
                    state: SwitchboardState) -> Result[SwitchboardState]:
        agent = opts.get("agent")
        if agent is None:
            return [ReplyError(token, Reason(
                ReasonKind.NO_AGENT_SPECIFIED,
                f"Switchboard routes by agent=: pass agent= one of {', '.join(state.agents)}"))], state
        if agent not in state.agents:
            why = "is down" if agent in state.down else "is not in this session"
            return [ReplyError(token, Reason(
                ReasonKind.UNKNOWN_AGENT, f"agent {agent!r} {why}; the agents are {', '.join(state.agents)}",
                agent if isinstance(agent, str) else None))], state
        fifo = MappingProxyType({**state.fifo, agent: (*state.fifo[agent], token)})
        return [Dispatch(agent, prompt, token)], evolve(state, fifo=fifo)

    def handle_response(self, agent: str, response: Response, state: SwitchboardState
                        ) -> Result[SwitchboardState]:
        token, state = state.pop(agent)
        return ([Reply(token, response)] if token is not None else []), state

    def handle_error(self, agent: str, reason: Reason, state: SwitchboardState) -> Result[SwitchboardState]:
        token, state = state.pop(agent)
        return ([ReplyError(token, reason)] if token is not None else []), state

    def handle_dispatch_rejected(self, agent: str, token: Token, reason: Reason, state: SwitchboardState
                                 ) -> Result[SwitchboardState]:
        # Only the rejected token leaves the FIFO: the agent still owes the earlier ones.
        queue = tuple(t for t in state.fifo.get(agent, ()) if t != token)
        fifo = MappingProxyType({**state.fifo, agent: queue})
        return [ReplyError(token, Reason(ReasonKind.DISPATCH_REJECTED, reason.detail, agent, reason))], \
            evolve(state, fifo=fifo)

    def handle_agent_down(self, agent: str, reason: Reason, state: SwitchboardState
                          ) -> Result[SwitchboardState]:
        failure = Reason(ReasonKind.AGENT_DOWN, f"agent {agent!r} went down", agent, reason)
        ops: list[Op] = fail_all(state.fifo.get(agent, ()), failure)
        agents = tuple(a for a in state.agents if a != agent)
        fifo = MappingProxyType({a: q for a, q in state.fifo.items() if a != agent})
        if not agents:
            ops.append(Halt(Reason(ReasonKind.AGENT_DOWN, "switchboard exhausted: every agent is down",
                                   agent, reason)))
        return ops, SwitchboardState(agents, fifo, (*state.down, agent))

    def handle_notify(self, event: Any, state: SwitchboardState) -> Result[SwitchboardState]:
        target = event.get("agent") if isinstance(event, Mapping) else getattr(event, "agent", None)
        if target in state.agents:
            return [Forward(target, event)], state
        return [], state

    def handle_status(self, state: SwitchboardState) -> Mapping[str, Any]:
        pending = {a: len(q) for a, q in state.fifo.items()}
        return {"phase": "routing" if any(pending.values()) else "idle",
                "pending_per_agent": pending, "down": state.down}
