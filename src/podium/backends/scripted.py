"""A deterministic backend for tests, demos and replays: it answers from a script.

The script is a list of steps, consumed in order by the backend instance (shared by every agent that
uses it), or a function of the prompt text returning a step. A step is a `str` (the reply) or one of
`Say`, `Fail`, `Hang`, `Crash`, `Raise`.

`Say`, `Fail` and `Crash` wait `delay` seconds, then for their `signal` (an `asyncio.Event`) when one
is given, before they act: a test crashes an agent at the moment it chooses with
`Crash("boom", signal=event)` and, later, `event.set()`.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from podium.agent.backend import BaseBackend, Prompt, prompt_text
from podium.agent.events import Event
from podium.errors import AgentCrashed, ConfigError, Reason, ReasonKind


@dataclass(frozen=True, slots=True)
class Say:
    """Reply `text`, streamed in `chunks` text deltas, after `delay` seconds, reporting `usage`
    as (input_tokens, output_tokens) when given."""

    text: str
    chunks: int = 1
    usage: tuple[int, int] | None = None
    delay: float = 0.0
    signal: asyncio.Event | None = None


@dataclass(frozen=True, slots=True)
class Fail:
    """End the turn with a terminal error event (the agent's request fails `backend_error`)."""

    detail: str = "scripted failure"
    kind: ReasonKind = ReasonKind.BACKEND_ERROR
    delay: float = 0.0
    signal: asyncio.Event | None = None


@dataclass(frozen=True, slots=True)
class Hang:
    """Never answer (until the turn is interrupted or times out)."""


@dataclass(frozen=True, slots=True)
class Crash:
    """Crash the agent: it goes down (after `delay` seconds, then on `signal`, when given)."""

    detail: str = "scripted crash"
    delay: float = 0.0
    signal: asyncio.Event | None = None


@dataclass(frozen=True, slots=True)
class Raise:
    """Raise an exception inside the turn (the request fails `task_crashed`)."""

    exc: BaseException


Step = str | Say | Fail | Hang | Crash | Raise
Script = Iterable[Step] | Callable[[str], Step]


class ScriptedBackend(BaseBackend):
    def __init__(self, script: Script = (), *, default: Step | None = None) -> None:
        """`default` answers once a list script is used up (else the turn fails with a clear error)."""
        self._fn: Callable[[str], Step] | None = script if callable(script) else None
        self._steps = iter(()) if callable(script) else iter(list(script))
        self._default = default
        self.prompts: deque[str] = deque(maxlen=10_000)  # the latest prompts, in order: handy in tests
        self._sessions = itertools.count(1)

    async def start_session(self, opts: Mapping[str, Any]) -> dict[str, Any]:
        return {"session_id": f"scripted-{next(self._sessions)}", **opts}

    def _next(self, text: str) -> Step:
        if self._fn is not None:
            return self._fn(text)
        step = next(self._steps, None)
        if step is None:
            if self._default is None:
                return Fail("the script is used up", ReasonKind.INVALID_REQUEST)
            return self._default
        return step

    async def prompt(self, session: Any, prompt: str | Prompt) -> AsyncIterator[Event]:  # type: ignore[override]
        text = prompt_text(prompt)
        self.prompts.append(text)
        step = self._next(text)
        if type(step) is str:
            yield Event.result(step)
            return
        if isinstance(step, Say):
            await _wait(step)
            for chunk in _split(step.text, step.chunks):
                yield Event.text(chunk)
            if step.usage is not None:
                yield Event.usage(*step.usage)
            yield Event.result(step.text)
        elif isinstance(step, Fail):
            await _wait(step)
            yield Event.error(step.detail, reason=Reason(step.kind, step.detail))
        elif isinstance(step, Hang):
            await asyncio.Event().wait()
        elif isinstance(step, Crash):
            await _wait(step)
            raise AgentCrashed(step.detail)
        elif isinstance(step, Raise):
            raise step.exc
        else:
            raise ConfigError(f"unknown script step {step!r}")


async def _wait(step: Say | Fail | Crash) -> None:
    if step.delay:
        await asyncio.sleep(step.delay)
    if step.signal is not None:
        await step.signal.wait()


def _split(text: str, chunks: int) -> list[str]:
    if chunks <= 1 or len(text) <= 1:
        return [text]
    size = -(-len(text) // chunks)
    return [text[i:i + size] for i in range(0, len(text), size)]
