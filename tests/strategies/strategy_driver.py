"""Driving a strategy as plain functions: feed callbacks, collect ops, check nothing was mutated."""

from __future__ import annotations

from typing import Any

from podium.agent.behaviour import Behaviour
from podium.agent.events import Event, Response, Usage
from podium.backends.scripted import ScriptedBackend
from podium.ensemble.ops import AgentSpec, Dispatch, Op, Reply, ReplyError, Token
from podium.ensemble.strategy import Strategy
from podium.errors import Reason, ReasonKind

BOOM = Reason(ReasonKind.BACKEND_ERROR, "boom")
BUSY = Reason(ReasonKind.OVERLOADED, "prompt queue full (0)")
CRASH = Reason(ReasonKind.AGENT_DOWN, "crashed")


def spec(name: str, **opts: Any) -> AgentSpec:
    return AgentSpec(name, Behaviour(), {"backend": ScriptedBackend(), **opts})


def resp(text: str, tokens: tuple[int, int] | None = None) -> Response:
    usage = None if tokens is None else Usage(*tokens)
    return Response(text, (Event.text(text), Event.result(text)), usage)


class Drive:
    """Holds a strategy's state between callbacks the way a session would, minus the session."""

    def __init__(self, strategy: Strategy[Any], **opts: Any) -> None:
        self.strategy = strategy
        self.state, self.specs = strategy.init(opts)
        self._tokens = 0

    def _call(self, name: str, *args: Any) -> list[Op]:
        before = repr(self.state)
        ops, state = getattr(self.strategy, name)(*args, self.state)
        assert repr(self.state) == before, f"{name} mutated the state it was given"
        assert isinstance(ops, list)
        self.state = state
        return ops

    def token(self) -> Token:
        self._tokens += 1
        return f"t{self._tokens}"

    def tell(self, prompt: Any, **opts: Any) -> tuple[Token, list[Op]]:
        token = self.token()
        return token, self._call("handle_tell", prompt, opts, token)

    def ask(self, prompt: Any, **opts: Any) -> tuple[Token, list[Op]]:
        token = self.token()
        return token, self._call("handle_ask", prompt, opts, token)

    def respond(self, agent: str, text: str | Response) -> list[Op]:
        return self._call("handle_response", agent, resp(text) if isinstance(text, str) else text)

    def error(self, agent: str, reason: Reason = BOOM) -> list[Op]:
        return self._call("handle_error", agent, reason)

    def reject(self, agent: str, token: Token, reason: Reason = BUSY) -> list[Op]:
        return self._call("handle_dispatch_rejected", agent, token, reason)

    def down(self, agent: str, reason: Reason = CRASH) -> list[Op]:
        return self._call("handle_agent_down", agent, reason)

    def notify(self, event: Any) -> list[Op]:
        return self._call("handle_notify", event)

    def status(self) -> dict[str, Any]:
        return dict(self.strategy.handle_status(self.state))


def dispatches(ops: list[Op]) -> list[tuple[str, Any, Token | None]]:
    return [(op.agent, op.prompt, op.token) for op in ops if isinstance(op, Dispatch)]


def outcomes(ops: list[Op]) -> list[tuple[Token, Any]]:
    """Replies as (token, text) and error replies as (token, reason kind), in op order."""
    out: list[tuple[Token, Any]] = []
    for op in ops:
        if isinstance(op, Reply):
            out.append((op.token, op.response.text))
        elif isinstance(op, ReplyError):
            out.append((op.token, op.reason.kind))
    return out
