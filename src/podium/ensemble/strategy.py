"""The seed's Strategy behaviour: how a session of sub-agents handles prompts, events and responses."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, Generic, TypeVar

from podium.agent.backend import Prompt
from podium.agent.events import Response
from podium.ensemble.inputs import (
    AgentDownInput,
    AskInput,
    DispatchRejectedInput,
    ErrorInput,
    Input,
    NotifyInput,
    ResponseInput,
    TellInput,
)
from podium.ensemble.ops import AgentSpec, Op, ReplyError, Token
from podium.errors import Reason

S = TypeVar("S")
Result = tuple[list[Op], S]


class Strategy(Generic[S]):
    """Decides; the session acts.

    Every callback takes an input and the strategy's state and returns `(ops, new_state)`;
    `init(opts)` returns `(state, start_specs)`. Callbacks MUST be pure: no I/O, no clock, no
    randomness, no awaiting, no mutation of the state passed in. That is what lets a strategy be
    tested by calling functions and comparing lists, and a session be journaled, resumed and
    replayed from the inputs its strategy received.

    Required: `init`, `handle_tell`, `handle_response` (and `handle_ask`, which defaults to
    `handle_tell`). Optional, with the session's guarantees when left out:
    - `handle_error`: the session fails the token the result belonged to with the reason;
    - `handle_dispatch_rejected`: the session fails the rejected token;
    - `handle_agent_down`: the session fails every token that had work on the dead agent;
    - `handle_notify`: events sent to the session are ignored;
    - `handle_status`: adds nothing to `Session.status()`.
    The session also fails any token a callback leaves pending in these cases, so no caller hangs.

    Options may be given to the constructor as well as to `Session.start`: `Solo(backend=b)` and
    `Session.start(Solo(), backend=b)` start the same session. The constructor's options are
    defaults that `init` receives merged under the ones it is called with, whoever calls it (a
    session, `podium.journal.replay`, `resume`), so a strategy object carries its configuration.
    """

    options: Mapping[str, Any] = MappingProxyType({})

    def __init__(self, **options: Any) -> None:
        self.options = MappingProxyType(dict(options))

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("init")
        if init is not None and not getattr(init, "merges_options", False):
            cls.init = _merging_options(init)  # type: ignore[method-assign]

    def init(self, opts: Mapping[str, Any]) -> tuple[S, list[AgentSpec]]:
        raise NotImplementedError

    def handle_tell(self, prompt: str | Prompt, opts: Mapping[str, Any], token: Token, state: S) -> Result[S]:
        raise NotImplementedError

    def handle_ask(self, prompt: str | Prompt, opts: Mapping[str, Any], token: Token, state: S) -> Result[S]:
        return self.handle_tell(prompt, opts, token, state)

    def handle_response(self, agent: str, response: Response, state: S) -> Result[S]:
        raise NotImplementedError

    def handle_error(self, agent: str, reason: Reason, state: S) -> Result[S]:
        raise NotImplementedError

    def handle_dispatch_rejected(self, agent: str, token: Token, reason: Reason, state: S) -> Result[S]:
        raise NotImplementedError

    def handle_notify(self, event: Any, state: S) -> Result[S]:
        return [], state

    def handle_agent_down(self, agent: str, reason: Reason, state: S) -> Result[S]:
        raise NotImplementedError

    def handle_status(self, state: S) -> Mapping[str, Any]:
        return {}

    def __repr__(self) -> str:
        options = ", ".join(f"{k}=..." for k in self.options)
        return f"{type(self).__name__}({options})"

    @classmethod
    def implements(cls, callback: str) -> bool:
        """Whether this strategy overrides an optional callback."""
        return getattr(cls, callback) is not getattr(Strategy, callback)


def _merging_options(init: Callable[..., Any]) -> Callable[..., Any]:
    """`init` of a strategy class, given the constructor's options under the ones it is called with.
    Done once per class, so that every strategy honours constructor options without each `init`
    having to remember to merge them."""

    @functools.wraps(init)
    def init_with_options(self: Strategy[Any], opts: Mapping[str, Any]) -> Any:
        options = self.options
        return init(self, {**options, **opts} if options else opts)

    init_with_options.merges_options = True  # type: ignore[attr-defined]
    return init_with_options


def decide(strategy: Strategy[S], input: Input, state: S) -> Result[S]:
    """Hand one input to the strategy's callback for it, with the session's defaults for the optional
    ones. Pure, given a pure strategy: the session and replay both go through here."""
    kind = type(input)
    cls = type(strategy)
    if kind is ResponseInput:
        result = strategy.handle_response(input.agent, input.response, state)  # type: ignore[union-attr]
    elif kind is AskInput:
        result = strategy.handle_ask(input.prompt, input.opts, input.token, state)  # type: ignore[union-attr]
    elif kind is TellInput:
        result = strategy.handle_tell(input.prompt, input.opts, input.token, state)  # type: ignore[union-attr]
    elif kind is ErrorInput:
        if cls.implements("handle_error"):
            result = strategy.handle_error(input.agent, input.reason, state)  # type: ignore[union-attr]
        else:
            token = input.token  # type: ignore[union-attr]
            result = ([ReplyError(token, input.reason)] if token is not None else [], state)  # type: ignore[union-attr]
    elif kind is NotifyInput:
        result = strategy.handle_notify(input.event, state)  # type: ignore[union-attr]
    elif kind is AgentDownInput:
        result = (strategy.handle_agent_down(input.agent, input.reason, state)  # type: ignore[union-attr]
                  if cls.implements("handle_agent_down") else ([], state))
    elif kind is DispatchRejectedInput:
        result = (strategy.handle_dispatch_rejected(input.agent, input.token, input.reason, state)  # type: ignore[union-attr]
                  if cls.implements("handle_dispatch_rejected") else ([], state))
    else:
        raise TypeError(f"unknown input {input!r}")
    ops, new_state = result
    if not isinstance(ops, list):
        raise TypeError(f"{cls.__name__} returned {result!r}; expected (list of ops, state)")
    return ops, new_state
