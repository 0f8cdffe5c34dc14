"""Structured telemetry events: to attached handlers, the `logging` module, and OpenTelemetry.

Nothing is emitted until something listens (`attach`, `to_logging`, `enable_opentelemetry`), so the
hot paths pay one boolean test. Metadata never holds prompt or response text, only names, tokens,
counts and reason kinds, so telemetry can be shipped anywhere without leaking what the agents said.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
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


def enable_opentelemetry(tracer_name: str = "podium") -> None:
    """Also record every event as an OpenTelemetry span event (needs `opentelemetry-api`)."""
    global _otel, _on
    try:
        from opentelemetry import trace
    except ImportError as exc:  # optional dependency
        raise ImportError("enable_opentelemetry needs `pip install opentelemetry-api`") from exc
    _otel = trace.get_tracer(tracer_name)
    _on = True


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
