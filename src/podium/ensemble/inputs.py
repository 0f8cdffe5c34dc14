"""Everything a strategy can receive, as values: the session feeds each one through a single place
(`Session._step`), where it is handed to the strategy and, with the ops that came back, to the recorder."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from podium.agent.backend import Prompt
from podium.agent.events import Response
from podium.ensemble.ops import Op, Token
from podium.errors import Reason


@dataclass(frozen=True, slots=True)
class TellInput:
    prompt: str | Prompt
    opts: Mapping[str, Any]
    token: Token


@dataclass(frozen=True, slots=True)
class AskInput:
    prompt: str | Prompt
    opts: Mapping[str, Any]
    token: Token


@dataclass(frozen=True, slots=True)
class ResponseInput:
    """A sub-agent answered a dispatch (token None for the legacy, unfenced form)."""

    agent: str
    token: Token | None
    response: Response


@dataclass(frozen=True, slots=True)
class ErrorInput:
    agent: str
    token: Token | None
    reason: Reason


@dataclass(frozen=True, slots=True)
class NotifyInput:
    event: Any


@dataclass(frozen=True, slots=True)
class AgentDownInput:
    """`tokens` are those that had work in flight on the agent when it went down."""

    agent: str
    reason: Reason
    tokens: tuple[Token, ...] = ()


@dataclass(frozen=True, slots=True)
class DispatchRejectedInput:
    agent: str
    token: Token
    reason: Reason


Input = TellInput | AskInput | ResponseInput | ErrorInput | NotifyInput | AgentDownInput | DispatchRejectedInput


class Recorder(Protocol):
    """The journal seam: sees every strategy input with the ops the strategy returned, in order."""

    def record(self, session: str, input: Input, ops: list[Op]) -> None: ...
