"""The callbacks one agent runs (gen_agent's callback module), and the values they return.

Every callback may be a plain function or a coroutine function: the agent awaits what is awaitable.
Unlike a `Strategy`, a behaviour may do I/O (collect data before a turn, act on a response after it).

Decision callbacks (`handle_response`, `handle_error`, `handle_event`) return one of
`Continue(state)`, `PromptAgain(text, state)` (a follow-up turn that runs ahead of the mailbox)
or `HaltAgent(state)` (freeze the agent until `resume`). `pre_turn` returns `Proceed(prompt, state)`,
`Skip(state)` or `HaltAgent(state)`.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from podium.agent.backend import Prompt
from podium.agent.events import Event, Response
from podium.errors import Reason

S = TypeVar("S")
Ref = int


@dataclass(frozen=True, slots=True)
class Continue(Generic[S]):
    state: S


@dataclass(frozen=True, slots=True)
class PromptAgain(Generic[S]):
    prompt: str | Prompt
    state: S


@dataclass(frozen=True, slots=True)
class HaltAgent(Generic[S]):
    state: S


@dataclass(frozen=True, slots=True)
class Proceed(Generic[S]):
    prompt: str | Prompt
    state: S


@dataclass(frozen=True, slots=True)
class Skip(Generic[S]):
    state: S


Decision = Continue[S] | PromptAgain[S] | HaltAgent[S]
TurnStart = Proceed[S] | Skip[S] | HaltAgent[S]
MaybeAwaitable = Any  # a value, or an awaitable of it


@dataclass(frozen=True, slots=True)
class TurnResult:
    """What `post_turn` sees: the turn's response, or its failure reason."""

    response: Response | None = None
    reason: Reason | None = None

    @property
    def ok(self) -> bool:
        return self.reason is None


class Behaviour(Generic[S]):
    """Base class with the default of every optional callback; the defaults make a plain chat agent."""

    def init_agent(self, opts: Mapping[str, Any]) -> tuple[Mapping[str, Any], S] | Awaitable[Any]:
        """Returns `(backend_opts, state)`; raise to fail the start."""
        return dict(opts), None  # type: ignore[return-value]

    def pre_run(self, state: S) -> S | Awaitable[S]:
        """Once after init; raise to stop the agent."""
        return state

    def pre_turn(self, prompt: str | Prompt, state: S) -> TurnStart[S] | Awaitable[TurnStart[S]]:
        return Proceed(prompt, state)

    def handle_stream_event(self, event: Event, state: S) -> S | Awaitable[S]:
        return state

    def handle_response(self, ref: Ref, response: Response, state: S) -> Decision[S] | Awaitable[Decision[S]]:
        return Continue(state)

    def handle_error(self, ref: Ref, reason: Reason, state: S) -> Decision[S] | Awaitable[Decision[S]]:
        return Continue(state)

    def handle_event(self, event: Any, state: S) -> Decision[S] | Awaitable[Decision[S]]:
        return Continue(state)

    def post_turn(self, result: TurnResult, ref: Ref, state: S) -> S | Awaitable[S]:
        return state

    def post_run(self, state: S) -> Awaitable[None] | None:
        return None

    def terminate_agent(self, reason: Reason, state: S) -> Awaitable[None] | None:
        return None


_CALLBACK_KINDS: dict[type, tuple[frozenset[str], frozenset[str]]] = {}
_CALLBACKS = ("init_agent", "pre_run", "pre_turn", "handle_stream_event", "handle_response", "handle_error",
              "handle_event", "post_turn", "post_run", "terminate_agent")


def callback_kinds(behaviour: Behaviour[Any]) -> tuple[frozenset[str], frozenset[str]]:
    """(coroutine callbacks, overridden callbacks) of a behaviour class, decided once per class so the
    hot path neither asks "is this awaitable?" nor calls a default that does nothing."""
    cls = type(behaviour)
    found = _CALLBACK_KINDS.get(cls)
    if found is None:
        found = (frozenset(n for n in _CALLBACKS if inspect.iscoroutinefunction(getattr(cls, n))),
                 frozenset(n for n in _CALLBACKS if getattr(cls, n) is not getattr(Behaviour, n)))
        _CALLBACK_KINDS[cls] = found
    return found
