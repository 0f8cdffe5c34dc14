"""Structured telemetry events: to attached handlers, the `logging` module, and OpenTelemetry.

Nothing is emitted until something listens (`attach`, `to_logging`, `enable_opentelemetry`), so the
hot paths pay one boolean test. Metadata never holds prompt or response text, only names, tokens,
counts and reason kinds, so telemetry can be shipped anywhere without leaking what the agents said.

`enable_opentelemetry()` also makes every desktop run a trace (`Tracing`, read by
`podium.desktop.HostSession`): a span per request, subtask, step, phase, model call and tool call.
Their text (prompts, answers, tool arguments and results, file text) is recorded only with
`content=True`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

log = logging.getLogger("podium.telemetry")


class Telemetry(StrEnum):
    SESSION_START = "session.start"
    SESSION_HALT = "session.halt"
    SESSION_STOP = "session.stop"
    TOKEN_START = "token.start"
    TOKEN_STOP = "token.stop"
    TOKEN_ERROR = "token.error"
    DISPATCH_START = "dispatch.start"
    DISPATCH_STOP = "dispatch.stop"
    DISPATCH_ERROR = "dispatch.error"
    DISPATCH_REJECTED = "dispatch.rejected"
    DISPATCH_FENCED = "dispatch.fenced"
    OP_FAILED = "op.failed"
    AGENT_DOWN = "agent.down"
    PROMPT_START = "agent.prompt.start"
    PROMPT_STOP = "agent.prompt.stop"
    PROMPT_ERROR = "agent.prompt.error"
    INPUT_REJECTED = "agent.input.rejected"
    AGENT_HALTED = "agent.halted"


Handler = Callable[[Telemetry, Mapping[str, Any]], None]
_handlers: list[Handler] = []
_otel: Any = None

# What a trace may hold of the text that passed through a run, per attribute, when content is on: a
# 1.5B model's whole prompt fits; a workbook read back in full does not need to.
MAX_CONTENT_CHARS = 16_000


@dataclass(frozen=True, slots=True)
class Tracing:
    """How runs become OpenTelemetry traces. `content`: also record the text that passed through (the
    request, prompts, answers, tool arguments and results, which may hold file text), each attribute
    cut at `max_content_chars`; off, a trace holds names, paths, statuses, counts, tokens and timings
    only. `tracer_provider`: where spans go (None: the process's global provider)."""

    content: bool = False
    tracer_provider: Any = None
    tracer_name: str = "podium"
    max_content_chars: int = MAX_CONTENT_CHARS

    def __post_init__(self) -> None:
        if self.max_content_chars < 1:
            raise ValueError(f"Tracing.max_content_chars must be at least 1, not {self.max_content_chars}")

    def tracer(self) -> Any:
        """The OpenTelemetry tracer spans are made with (needs `opentelemetry-api`)."""
        trace = _opentelemetry_trace("tracing")
        return trace.get_tracer(self.tracer_name, tracer_provider=self.tracer_provider)


_tracing: Tracing | None = None


_on = False


def attach(handler: Handler) -> Callable[[], None]:
    """Call `handler(event, metadata)` for every telemetry event; returns a function that detaches it."""
    global _on
    _handlers.append(handler)
    _on = True

    def detach() -> None:
        global _on
        if handler in _handlers:
            _handlers.remove(handler)
        _on = bool(_handlers) or _otel is not None

    return detach


def to_logging(level: int = logging.DEBUG) -> Callable[[], None]:
    """Log every telemetry event on the `podium.telemetry` logger; returns a function that stops it."""

    def write(event: Telemetry, metadata: Mapping[str, Any]) -> None:
        log.log(level, "%s %s", event.value, metadata, extra={"podium_event": event.value, "podium": metadata})

    return attach(write)


def _opentelemetry_trace(what: str) -> Any:
    try:
        from opentelemetry import trace
    except ImportError as exc:  # optional dependency
        raise ImportError(f"{what} needs OpenTelemetry: pip install 'podium[otel]' "
                          "(or opentelemetry-api and an SDK of your choice)") from exc
    return trace


def enable_opentelemetry(tracer_name: str = "podium", *, content: bool = False,
                         tracer_provider: Any = None) -> Tracing:
    """Record every event as an OpenTelemetry span event, and every desktop run as a trace (needs
    `opentelemetry-api`). `content=True` puts the text of prompts, answers and tool calls in the
    spans; `tracer_provider` None uses the global provider. Returns the tracing setting now in force."""
    global _otel, _on, _tracing
    trace = _opentelemetry_trace("enable_opentelemetry")
    _tracing = Tracing(content=content, tracer_provider=tracer_provider, tracer_name=tracer_name)
    _otel = trace.get_tracer(tracer_name, tracer_provider=tracer_provider)
    _on = True
    return _tracing


def disable_opentelemetry() -> None:
    """Undo `enable_opentelemetry`: no more span events, and runs started from now on are not traced."""
    global _otel, _on, _tracing
    _otel = None
    _tracing = None
    _on = bool(_handlers)


def tracing() -> Tracing | None:
    """The process-wide tracing setting (`enable_opentelemetry`), None when off."""
    return _tracing


def active() -> bool:
    """Cheap check for hot paths: skip building metadata when nobody listens."""
    return _on


def emit(event: Telemetry, **metadata: Any) -> None:
    if not _on:
        return
    for handler in tuple(_handlers):
        try:
            handler(event, metadata)
        except Exception:  # a broken handler must not break the session
            log.exception("telemetry handler failed on %s", event)
    if _otel is not None:
        from opentelemetry import trace

        span = trace.get_current_span()
        span.add_event(event.value, {k: str(v) for k, v in metadata.items()})
