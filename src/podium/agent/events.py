"""What a backend streams during a turn (`Event`), and what a turn produces (`Response`)."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class EventKind(StrEnum):
    TEXT = "text"
    TOOL_USE = "tool_use"
    TOOL_RESULT = "tool_result"
    USAGE = "usage"
    RESULT = "result"
    ERROR = "error"


TERMINAL_KINDS = frozenset({EventKind.RESULT, EventKind.ERROR})


@dataclass(frozen=True, slots=True)
class Event:
    """One item of a turn's stream. `result` and `error` are terminal: a stream ends with exactly one."""

    kind: EventKind
    data: Mapping[str, Any] = field(default_factory=dict)
    timestamp: float = field(default_factory=time.time)

    @property
    def terminal(self) -> bool:
        return self.kind in TERMINAL_KINDS

    @classmethod
    def text(cls, delta: str) -> Event:
        return cls(EventKind.TEXT, {"text": delta})

    @classmethod
    def result(cls, text: str | None = None, **data: Any) -> Event:
        if text is not None:
            data["text"] = text
        return cls(EventKind.RESULT, data)

    @classmethod
    def error(cls, detail: str, **data: Any) -> Event:
        return cls(EventKind.ERROR, {"detail": detail, **data})

    @classmethod
    def usage(cls, input_tokens: int, output_tokens: int, **data: Any) -> Event:
        return cls(EventKind.USAGE, {"input_tokens": input_tokens, "output_tokens": output_tokens, **data})

    @classmethod
    def tool_use(cls, name: str, arguments: Mapping[str, Any], id: str = "") -> Event:
        return cls(EventKind.TOOL_USE, {"name": name, "arguments": dict(arguments), "id": id})

    @classmethod
    def tool_result(cls, id: str, content: Any, is_error: bool = False) -> Event:
        return cls(EventKind.TOOL_RESULT, {"id": id, "content": content, "is_error": is_error})


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens (and cost, when a price is known) of one turn or an aggregate of turns. `cached_tokens` are
    the input tokens a prompt cache served (not evaluated again); `read_ms` / `write_ms` the time the model
    spent reading the prompt and writing the answer, where the backend measures them."""

    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = None
    cached_tokens: int = 0
    read_ms: float = 0.0
    write_ms: float = 0.0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def __add__(self, other: Usage) -> Usage:
        both_unknown = self.cost is None and other.cost is None
        cost = None if both_unknown else (self.cost or 0.0) + (other.cost or 0.0)
        return Usage(self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens, cost,
                     self.cached_tokens + other.cached_tokens, self.read_ms + other.read_ms,
                     self.write_ms + other.write_ms)

    @classmethod
    def from_event(cls, event: Event) -> Usage:
        data = event.data
        cost = data.get("cost")
        return cls(int(data.get("input_tokens", 0)), int(data.get("output_tokens", 0)),
                   None if cost is None else float(cost), int(data.get("cached_tokens", 0)),
                   float(data.get("read_ms", 0.0)), float(data.get("write_ms", 0.0)))


@dataclass(frozen=True, slots=True)
class Response:
    """The outcome of a successful turn, built from its events as gen_agent does.

    `events` are those the turn kept: a long stream keeps its first events and its terminal one
    (see `podium.agent.capture`), and `dropped_events` counts the others. `text` is always whole."""

    text: str
    events: tuple[Event, ...] = ()
    usage: Usage | None = None
    duration_ms: float = 0.0
    session_id: str | None = None
    dropped_events: int = 0

    @classmethod
    def from_events(cls, events: Iterable[Event], duration_ms: float = 0.0,
                    session_id: str | None = None) -> Response:
        """Text from the terminal result event if it carries one, else the concatenated text deltas;
        usage from the last usage event."""
        events = tuple(events)
        if len(events) == 1 and events[0].kind is EventKind.RESULT:  # the common one-event answer
            return cls(events[0].data.get("text", ""), events, None, duration_ms, session_id)
        deltas: list[str] = []
        text: str | None = None
        usage: Usage | None = None
        for event in events:
            kind = event.kind
            if kind is EventKind.TEXT:
                deltas.append(event.data.get("text", ""))
            elif kind is EventKind.USAGE:
                usage = Usage.from_event(event)
            elif kind is EventKind.RESULT and event.data.get("text") is not None:
                text = event.data["text"]
        return cls("".join(deltas) if text is None else text, events, usage, duration_ms, session_id)
