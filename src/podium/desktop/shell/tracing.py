"""Whether a HostSession's runs are traced, and the do-nothing tracer when they are not.

`HostSession.start(..., tracing=...)` takes a `podium.telemetry.Tracing`, True (the defaults: no text
in the spans), False (off), or None: the process-wide setting of `podium.telemetry.enable_opentelemetry`
(off unless it was called). OpenTelemetry is imported only when a run is traced: it is an optional
extra (`podium[otel]`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from podium import telemetry
from podium.desktop.shell.phases import Middleware
from podium.errors import ConfigError
from podium.telemetry import Tracing

if TYPE_CHECKING:
    from podium.desktop.shell.trace_tree import RunTracer


class NoTracing:
    """What a session holds when its runs are not traced: every hook passes its value through."""

    def model(self, backend: Any, agent: str, application: str | None = None) -> Any:
        return backend

    def application(self, app: Any) -> Any:
        return app

    def middleware(self, middleware: Sequence[Middleware[Any]]) -> tuple[Middleware[Any], ...]:
        return tuple(middleware)

    def request_started(self, token: str, request: str) -> None:
        return None

    def request_ended(self, token: str, outcome: Any) -> None:
        return None

    def event(self, event: Any) -> None:
        return None

    def close(self) -> None:
        return None


NO_TRACING = NoTracing()


def tracer_for(setting: Tracing | bool | None) -> RunTracer | NoTracing:
    """The tracer of one HostSession for `setting` (see the module's docstring)."""
    if setting is None:
        setting = telemetry.tracing()
    if setting is True:
        setting = Tracing()
    if setting is None or setting is False:
        return NO_TRACING
    if not isinstance(setting, Tracing):
        raise ConfigError(f"tracing: give a podium.telemetry.Tracing, True or False, not {type(setting).__name__}")
    from podium.desktop.shell.trace_tree import RunTracer

    return RunTracer(setting)
