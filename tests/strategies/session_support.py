"""What the session-level strategy tests share: an agent that keeps itself busy, and a recorder."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from podium.agent.behaviour import Behaviour, Continue, PromptAgain
from podium.agent.events import Response
from podium.ensemble.inputs import ErrorInput, Input, ResponseInput
from podium.ensemble.ops import AgentSpec, Op


class FollowUp(Behaviour[bool]):
    """After its first answer the agent runs one follow-up turn of its own (a self-chained prompt),
    so it is busy when the strategy sends it the next request: with max_pending_prompts=0 that
    request is refused. This is how an agent with a zero-size queue rejects a strategy's dispatch."""

    def __init__(self, text: str = "follow-up") -> None:
        self.text = text

    def init_agent(self, opts: Mapping[str, Any]) -> tuple[Mapping[str, Any], bool]:
        return dict(opts), False

    def handle_response(self, ref: int, response: Response, chained: bool) -> Any:
        return Continue(True) if chained else PromptAgain(self.text, True)


def busy_spec(name: str, backend: Any, follow_up: str = "follow-up") -> AgentSpec:
    """An agent with a zero-size queue that keeps itself busy after its first answer."""
    return AgentSpec(name, FollowUp(follow_up), {"backend": backend, "max_pending_prompts": 0})


class Inputs:
    """A session recorder keeping what reached the strategy."""

    def __init__(self) -> None:
        self.seen: list[Input] = []

    def record(self, session: str, input: Input, ops: list[Op]) -> None:
        self.seen.append(input)

    def results_from(self, agent: str) -> list[Input]:
        return [i for i in self.seen if isinstance(i, ResponseInput | ErrorInput) and i.agent == agent]
