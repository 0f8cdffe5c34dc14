"""[telemetry] in podium.toml: each `podium run` (and `podium resume`) as an OpenTelemetry trace, the
spans of podium.desktop (request > subtask > step > phase, model and tool calls).

    [telemetry]
    otel = true
    content = false                                  # true: prompts, answers, tool arguments, file text
    endpoint = "http://127.0.0.1:4318/v1/traces"     # an OTLP/HTTP collector (Jaeger, Tempo, ...)
    file = "traces.jsonl"                            # or: one span a line, JSON, appended

Where the spans go: to `endpoint` and/or `file` when given; otherwise to the OpenTelemetry provider the
process already has (`opentelemetry-instrument podium run ...` sets one up from the OTEL_* variables),
else to a file per run beside the journal (traces/RUN.jsonl). The run's first lines say which. An
endpoint's credentials travel in OTEL_EXPORTER_OTLP_HEADERS, never in the file.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from podium.cli.config import PodiumConfig
from podium.cli.journal_store import files_folder
from podium.errors import ConfigError
from podium.telemetry import Tracing

log = logging.getLogger("podium.cli")
OTLP_TIMEOUT = 10.0  # seconds an export to the collector may take


@dataclass
class RunTrace:
    """Where one run's spans go; `shutdown()` sends what is left and closes the file."""

    setting: Tracing | bool = False
    where: str = ""
    _closers: list[Callable[[], Any]] = field(default_factory=list)

    def shutdown(self) -> None:
        closers, self._closers = self._closers, []
        for close in closers:
            try:
                close()
            except Exception:  # a collector that is gone: the file still closes, the run still ends
                log.exception("could not finish the run's trace")


def destination(config: PodiumConfig, name: str) -> str:
    """Where the spans of run `name` go, in words (for the run's first lines); "" when not traced."""
    options = config.telemetry
    if not options.otel:
        return ""
    places = [p for p in (options.endpoint, _file(config)) if p]
    if not places:
        places = ["the process's OpenTelemetry provider" if _global_provider() else str(_own_file(config, name))]
    text = "; ".join(str(p) for p in places)
    return f"{text} ({'with' if options.content else 'no'} prompt, answer or file text)"


def start_trace(config: PodiumConfig, name: str) -> RunTrace:
    """The tracing setting of run `name` per [telemetry] (False: off)."""
    options = config.telemetry
    if not options.otel:
        return RunTrace()
    where = f"[telemetry] in {config.where}"
    endpoint, file = options.endpoint, _file(config)
    if endpoint is None and file is None and _global_provider():
        return RunTrace(Tracing(content=options.content, max_content_chars=options.max_content_chars),
                        destination(config, name))
    try:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor
    except ImportError:
        raise ConfigError(f"{where}: otel = true needs OpenTelemetry's SDK: pip install 'podium[otel]'") from None
    resource = Resource.create({"podium.run": name})
    if str(resource.attributes.get("service.name", "")).startswith("unknown_service"):  # OTEL_SERVICE_NAME wins
        resource = resource.merge(Resource({"service.name": "podium"}))
    provider = TracerProvider(resource=resource)
    trace = RunTrace(Tracing(content=options.content, tracer_provider=provider,
                             max_content_chars=options.max_content_chars), destination(config, name))
    if endpoint is not None:
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        except ImportError:
            raise ConfigError(f"{where}: endpoint needs OpenTelemetry's OTLP exporter: pip install 'podium[otel]' "
                              "(opentelemetry-exporter-otlp-proto-http)") from None
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint, timeout=OTLP_TIMEOUT)))
    if endpoint is None and file is None:
        file = _own_file(config, name)
    if file is not None:
        try:
            file.parent.mkdir(parents=True, exist_ok=True)
            handle = open(file, "a", encoding="utf-8")  # noqa: SIM115 (closed by shutdown, after the last span)
        except OSError as exc:
            raise ConfigError(f"{where}: cannot write the trace to {file}: {exc}") from None
        trace._closers.append(handle.close)
        # One span a line: the SDK's own JSON of a span, what its console exporter prints.
        provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter(
            out=handle, formatter=lambda span: span.to_json(indent=None) + "\n")))
    trace._closers.insert(0, provider.shutdown)  # flushes the processors, before the file closes
    return trace


def _file(config: PodiumConfig) -> Path | None:
    given = config.telemetry.file
    if given is None:
        return None
    path = Path(given).expanduser()
    return path if path.is_absolute() else config.folder / path


def _own_file(config: PodiumConfig, name: str) -> Path:
    return files_folder(config) / "traces" / f"{name}.jsonl"


def _global_provider() -> bool:
    """Whether the process already has an OpenTelemetry provider of its own (not the API's placeholder)."""
    try:
        from opentelemetry import trace
    except ImportError:
        return False
    return not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider | trace.NoOpTracerProvider)
