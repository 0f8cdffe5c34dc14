"""The seed's Strategy behaviour: how a session of sub-agents handles prompts, events and responses."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Generic, TypeVar

from podium.agent.backend import Prompt
from podium.agent.events import Response
from podium.ensemble.ops import AgentSpec, Op, Token
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
    """

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

    @classmethod
    def implements(cls, callback: str) -> bool:
        """Whether this strategy overrides an optional callback."""
        return getattr(cls, callback) is not getattr(Strategy, callback)
