"""Where agents run. The session starts and addresses agents only through this small interface, so a
second runtime (Ray actors on other machines) plugs in without the session or any strategy changing."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from podium.agent.actor import Agent
from podium.agent.backend import Prompt
from podium.agent.status import AgentStatus, OnComplete
from podium.ensemble.ops import AgentSpec
from podium.errors import Reason


class AgentHandle(Protocol):
    """A started agent as the session sees it.

    `tell_with_completion` must decide synchronously: it returns a ref, or raises `Overloaded` /
    `AgentNotRunning`; the completion comes later, exactly once, through `on_complete`.
    """

    name: str

    @property
    def alive(self) -> bool: ...

    async def ready(self) -> None: ...

    def tell_with_completion(self, prompt: str | Prompt, on_complete: OnComplete) -> int: ...

    def notify(self, event: Any) -> None: ...

    def interrupt(self) -> bool: ...

    def status(self) -> AgentStatus: ...

    def stop(self, reason: Reason | None = None) -> Awaitable[None] | None: ...

    def kill(self, reason: Reason | None = None) -> None:
        """Take the agent down now, as a crash would: its owner's `on_down` is called."""


class AgentRuntime(Protocol):
    def start(self, address: str, spec: AgentSpec, on_down: Callable[[Reason], None]) -> AgentHandle: ...


class LocalRuntime:
    """Agents as asyncio actors in this process (the default)."""

    def start(self, address: str, spec: AgentSpec, on_down: Callable[[Reason], None]) -> AgentHandle:
        return Agent(address, spec.behaviour, spec.opts, on_down)
