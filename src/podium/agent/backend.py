"""How a model is plugged into an agent: the `Backend` protocol and the `Prompt` value."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from podium.agent.events import Event


@dataclass(frozen=True, slots=True)
class Prompt:
    """A prompt with per-turn settings. Backends accept a plain `str` as well.

    `schema` asks for structured output (a JSON schema); `temperature` None means the backend's default.
    `spell_schema` True has the schema written into the prompt even where the decoder enforces it (a
    backend that can enforce it leaves it out by default).
    """

    text: str
    schema: Mapping[str, Any] | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    system: str | None = None
    spell_schema: bool = False


def prompt_text(prompt: str | Prompt) -> str:
    return prompt if isinstance(prompt, str) else prompt.text


@runtime_checkable
class Backend(Protocol):
    """A model connection. The session value is opaque to the agent and handed back on every call.

    `prompt` returns an async iterator of events that ends with exactly one terminal event
    (`result` or `error`); a stream that ends without one fails the turn with `no_terminal_event`.
    Raising `podium.errors.AgentCrashed` takes the agent down; any other exception fails the turn.
    """

    async def start_session(self, opts: Mapping[str, Any]) -> Any: ...

    def prompt(self, session: Any, prompt: str | Prompt) -> AsyncIterator[Event]: ...

    async def update_session(self, session: Any, terminal: Event) -> Any: ...

    async def terminate_session(self, session: Any) -> None: ...


class BaseBackend:
    """Defaults for the optional parts of the protocol; subclass and implement `prompt`."""

    async def start_session(self, opts: Mapping[str, Any]) -> Any:
        return dict(opts)

    def prompt(self, session: Any, prompt: str | Prompt) -> AsyncIterator[Event]:
        raise NotImplementedError

    async def update_session(self, session: Any, terminal: Event) -> Any:
        return session

    async def terminate_session(self, session: Any) -> None:
        return None
