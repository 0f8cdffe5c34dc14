"""Test doubles shared by the core tests: a backend whose turns finish only when the test says so."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from typing import Any

from podium.agent.backend import BaseBackend, Prompt, prompt_text
from podium.agent.events import Event
from podium.errors import AgentCrashed, Reason, ReasonKind


class GateBackend(BaseBackend):
    """Each prompt waits until the test opens its gate with `succeed`, `fail` or `crash`.

    The reply echoes the prompt (`"re: <prompt>"`), so tests can tell which request an answer belongs to.
    """

    def __init__(self) -> None:
        self.waiting: dict[str, asyncio.Future[tuple[str, str]]] = {}
        self.seen: list[str] = []

    async def start_session(self, opts: Mapping[str, Any]) -> dict[str, Any]:
        return dict(opts)

    async def prompt(self, session: Any, prompt: str | Prompt) -> AsyncIterator[Event]:  # type: ignore[override]
        text = prompt_text(prompt)
        self.seen.append(text)
        gate: asyncio.Future[tuple[str, str]] = asyncio.get_running_loop().create_future()
        self.waiting[text] = gate
        try:
            outcome, detail = await gate
        finally:
            self.waiting.pop(text, None)
        if outcome == "ok":
            yield Event.text("re: ")
            yield Event.text(text)
            yield Event.usage(len(text), 4)
            yield Event.result()
        elif outcome == "fail":
            yield Event.error(detail, reason=Reason(ReasonKind.BACKEND_ERROR, detail))
        else:
            raise AgentCrashed(detail)

    def _open(self, text: str, outcome: str, detail: str = "") -> None:
        gate = self.waiting.get(text)
        if gate is None:
            raise AssertionError(f"no turn is waiting on {text!r}; waiting: {sorted(self.waiting)}")
        if not gate.done():
            gate.set_result((outcome, detail))

    def succeed(self, text: str) -> None:
        self._open(text, "ok")

    def fail(self, text: str, detail: str = "boom") -> None:
        self._open(text, "fail", detail)

    def crash(self, text: str, detail: str = "crashed") -> None:
        self._open(text, "crash", detail)


async def settle(rounds: int = 10) -> None:
    """Let every ready task run until nothing is left to do (bounded)."""
    for _ in range(rounds):
        await asyncio.sleep(0)


async def until(predicate: Any, rounds: int = 200) -> None:
    """Yield to the loop until `predicate()` holds; fail loudly instead of hanging."""
    for _ in range(rounds):
        if predicate():
            return
        await asyncio.sleep(0)
    raise AssertionError("condition not reached")
