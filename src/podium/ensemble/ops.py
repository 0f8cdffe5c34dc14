"""The operations a strategy returns; the session applies them in order."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from podium.agent.backend import Prompt
from podium.agent.behaviour import Behaviour
from podium.agent.events import Response
from podium.errors import Reason

Token = str


@dataclass(frozen=True, slots=True)
class AgentSpec:
    """How to start a sub-agent: its bare name, its behaviour, and its options.

    `opts` must hold `backend` (a `Backend`); the agent's own limits (`max_pending_prompts`,
    `max_pending_notifications`, `max_tell_results`, `turn_timeout`) may be set there too, and the
    rest is handed to the behaviour's `init_agent`.
    """

    name: str
    behaviour: Behaviour[Any]
    opts: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Start(AgentSpec):
    """Start a sub-agent (a duplicate name is an op failure, logged)."""


@dataclass(frozen=True, slots=True)
class Stop:
    """Stop a sub-agent; its in-flight work is dropped and `handle_agent_down` does not fire."""

    name: str


@dataclass(frozen=True, slots=True)
class Dispatch:
    """Send a prompt to a sub-agent. With a token the result is fenced to that run; without one
    (the legacy form) the result is never fenced and a rejection is only logged."""

    agent: str
    prompt: str | Prompt
    token: Token | None = None


@dataclass(frozen=True, slots=True)
class Reply:
    token: Token
    response: Response


@dataclass(frozen=True, slots=True)
class ReplyError:
    token: Token
    reason: Reason


@dataclass(frozen=True, slots=True)
class Forward:
    """Notify a sub-agent of an event."""

    agent: str
    event: Any


@dataclass(frozen=True, slots=True)
class Halt:
    """Terminate the session: every pending token gets a `halted` error, every agent stops."""

    reason: Reason


Op = Start | Stop | Dispatch | Reply | ReplyError | Forward | Halt
