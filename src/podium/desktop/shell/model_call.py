"""One model call inside a step's LLM_INTERACTION phase: stream, collect usage, validate the output."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel

from podium.agent.backend import Backend, BaseBackend, Prompt
from podium.agent.events import Event, EventKind, Response
from podium.backends.structured import OutputErrors, validate
from podium.errors import Reason, ReasonKind

M = TypeVar("M", bound=BaseModel)


class ModelFailed(Exception):
    """The model's turn ended with an error (or without a result); `reason` says why, `raw` is what the
    model wrote when the backend refused it as invalid output."""

    def __init__(self, reason: Reason, raw: str = "", usage: Event | None = None) -> None:
        super().__init__(reason.detail or reason.kind.value)
        self.reason = reason
        self.raw = raw
        self.usage = usage  # tokens spent on the failed answer still count

    def invalid_output(self) -> OutputErrors | None:
        """The failure as a rejected answer, when it is one: a backend that checks the schema itself
        (the embedded model, OpenAI-style servers) fails the turn with invalid_output, e.g. an answer cut
        at max_tokens. That is the model's mistake, repaired by re-asking like any invalid answer, not a
        broken LLM phase."""
        if self.reason.kind is not ReasonKind.INVALID_OUTPUT:
            return None
        return OutputErrors(self.reason.detail or "the answer does not match the schema", self.raw)


class StepBackend(BaseBackend):
    """A step runner that is an agent's backend: the model's sessions are its own."""

    model: Backend

    async def start_session(self, opts: Mapping[str, Any]) -> Any:
        return await self.model.start_session(opts)

    async def terminate_session(self, session: Any) -> None:
        await self.model.terminate_session(session)


@dataclass(frozen=True, slots=True)
class ModelAnswer:
    text: str
    usage: Event | None  # the last usage event, passed on so the session counts it


async def call_model(model: Backend, session: Any, prompt: Prompt) -> ModelAnswer:
    events: list[Event] = []
    terminal: Event | None = None
    stream = model.prompt(session, prompt)
    try:
        async for event in stream:
            events.append(event)
            if event.terminal:
                terminal = event
                break
    finally:
        close = getattr(stream, "aclose", None)
        if close is not None:
            await close()
    usage = next((e for e in reversed(events) if e.kind is EventKind.USAGE), None)
    if terminal is None:
        raise ModelFailed(Reason(ReasonKind.NO_TERMINAL_EVENT, "the model ended its answer without a result"))
    if terminal.kind is EventKind.ERROR:
        given = terminal.data.get("reason")
        reason = given if isinstance(given, Reason) else Reason(
            ReasonKind.BACKEND_ERROR, str(terminal.data.get("detail", "model error")))
        raw = terminal.data.get("raw")
        raise ModelFailed(reason, raw if isinstance(raw, str) else Response.from_events(events).text, usage)
    return ModelAnswer(Response.from_events(events).text, usage)


@dataclass(frozen=True, slots=True)
class Thought(Generic[M]):
    """A step's answer from its model: valid (`output`), or refused as invalid (`invalid`: re-asked)."""

    answer: ModelAnswer
    output: M | None = None
    invalid: OutputErrors | None = None


async def think(model: Backend, session: Any, prompt: Prompt, output_type: type[M]) -> Thought[M]:
    """Ask the step's model and validate its answer as `output_type`. An answer the backend itself refused as
    invalid output is a Thought with `invalid`; any other failure raises ModelFailed."""
    try:
        answer = await call_model(model, session, prompt)
    except ModelFailed as exc:
        invalid = exc.invalid_output()
        if invalid is None:
            raise
        return Thought(ModelAnswer(exc.raw, exc.usage), invalid=invalid)
    parsed = validate(output_type, answer.text)
    if isinstance(parsed, OutputErrors):
        return Thought(answer, invalid=parsed)
    return Thought(answer, output=parsed)


class Screenshots(Protocol):
    """Where DATA_COLLECTION gets a screenshot: a path, or None when there is no display."""

    async def capture(self, agent: str, step: int) -> str | None: ...


def usage_events(answer: ModelAnswer | None) -> Sequence[Event]:
    return () if answer is None or answer.usage is None else (answer.usage,)
