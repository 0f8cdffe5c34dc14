"""Spans for the two kinds of call a step makes: a model call (OpenTelemetry's GenAI semantic
conventions: `chat {model}`, provider, model, tokens) and a tool call (`execute_tool {tool}`: the tool,
ok or not, the paths its effects name).

Both are thin wrappers: `TracedBackend` around a model `Backend`, `TracedApplication` around an
`Application`; everything else passes through untouched. Their spans are children of the phase that
runs them (the `RunTracer` knows which phase each agent is in), and each is the current span while
the wrapped call runs, so spans an instrumented SDK or HTTP client makes land under it.

By default a span holds no text that passed through the run: no prompt, answer, tool argument or
result (any of which may hold a file's text), and an error is named by its kind, not its message.
`Tracing(content=True)` adds them, each cut at `max_content_chars`.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

from opentelemetry import trace
from opentelemetry.trace import SpanKind, Status, StatusCode

from podium.agent.backend import BaseBackend, Prompt
from podium.agent.events import Event, EventKind
from podium.errors import Reason
from podium.telemetry import Tracing

if TYPE_CHECKING:
    from podium.desktop.shell.trace_tree import Owner, RunTracer

log = logging.getLogger("podium.desktop.tracing")

# GenAI semantic conventions (opentelemetry-semantic-conventions' gen_ai attributes); gen_ai.system is
# the older name of gen_ai.provider.name, still what many backends read.
OPERATION = "gen_ai.operation.name"
SYSTEM = "gen_ai.system"
PROVIDER = "gen_ai.provider.name"
REQUEST_MODEL = "gen_ai.request.model"
RESPONSE_MODEL = "gen_ai.response.model"
TEMPERATURE = "gen_ai.request.temperature"
MAX_TOKENS = "gen_ai.request.max_tokens"
OUTPUT_TYPE = "gen_ai.output.type"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
CACHED_TOKENS = "gen_ai.usage.cache_read.input_tokens"
FINISH_REASONS = "gen_ai.response.finish_reasons"
AGENT_NAME = "gen_ai.agent.name"
SYSTEM_INSTRUCTIONS = "gen_ai.system_instructions"
INPUT_MESSAGES = "gen_ai.input.messages"
OUTPUT_MESSAGES = "gen_ai.output.messages"
TOOL_NAME = "gen_ai.tool.name"
TOOL_TYPE = "gen_ai.tool.type"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_ARGUMENTS = "gen_ai.tool.call.arguments"
TOOL_RESULT = "gen_ai.tool.call.result"
ERROR_TYPE = "error.type"

# Backends that do not name their provider themselves (an OpenAI-style backend has a `label`).
_PROVIDERS = {"AnthropicBackend": "anthropic", "EmbeddedBackend": "llama.cpp", "ScriptedBackend": "scripted"}


def model_identity(backend: Any) -> tuple[str, str]:
    """(provider, model) of a backend, looking through wrappers that keep theirs in `inner`."""
    seen: set[int] = set()
    while getattr(backend, "inner", None) is not None and id(backend) not in seen:
        seen.add(id(backend))
        backend = backend.inner
    label = getattr(backend, "label", None)
    kind = type(backend)
    provider = label if isinstance(label, str) else next(
        (name for cls in kind.__mro__ for key, name in _PROVIDERS.items() if cls.__name__ == key),
        kind.__name__.removesuffix("Backend").lower() or "unknown")
    model = getattr(backend, "model", None)
    if not isinstance(model, str):
        path = getattr(backend, "model_path", None)
        model = getattr(path, "name", None) or provider
    return provider, model


def content(setting: Tracing, value: Any) -> str:
    """The text of a value for a span attribute (JSON when it is not text), cut at the setting's limit
    (then it says how much was left out, and a JSON value is no longer whole)."""
    text = value if isinstance(value, str) else _json(value)
    cut = setting.max_content_chars
    return text if len(text) <= cut else f"{text[:cut]}... [{len(text) - cut} more characters]"


def _json(value: Any) -> str:
    return json.dumps(value, default=str, ensure_ascii=False)


def messages(setting: Tracing, role: str | None, text: str, **extra: Any) -> str:
    """GenAI messages as JSON (one text part; `role` None: system instructions), the text cut so
    that the JSON stays whole."""
    part = {"type": "text", "content": content(setting, text)}
    return json.dumps([part] if role is None else [{"role": role, "parts": [part], **extra}], ensure_ascii=False)


def fail(span: Any, setting: Tracing, kind: str, message: str) -> None:
    """Mark a span failed: its error type always, the message only with content on (it may quote files)."""
    span.set_attribute(ERROR_TYPE, kind)
    span.set_status(Status(StatusCode.ERROR, content(setting, message) if setting.content else kind))


class TracedBackend(BaseBackend):
    """A model backend whose every prompt is a GenAI `chat` span under the phase that asked."""

    def __init__(self, inner: Any, tracer: RunTracer, owner: Owner, agent: str) -> None:
        self.inner = inner
        self._tracer = tracer
        self._owner = owner
        self._agent = agent
        self._provider, self._model = model_identity(inner)

    def __getattr__(self, name: str) -> Any:  # what callers ask of the model itself (rules_profile, load...)
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    async def start_session(self, opts: Mapping[str, Any]) -> Any:
        return await self.inner.start_session(opts)

    async def update_session(self, session: Any, terminal: Event) -> Any:
        return await self.inner.update_session(session, terminal)

    async def terminate_session(self, session: Any) -> None:
        await self.inner.terminate_session(session)

    def prompt(self, session: Any, prompt: str | Prompt) -> AsyncIterator[Event]:
        return self._prompt(session, prompt)

    async def _prompt(self, session: Any, prompt: str | Prompt) -> AsyncIterator[Event]:
        span = self._start(prompt)
        stream = None
        ended = False
        try:
            stream = self.inner.prompt(session, prompt)
            while True:
                # current only while the inner backend works, never across a yield to the caller
                with trace.use_span(span, record_exception=False, set_status_on_exception=False):
                    try:
                        event = await anext(stream)
                    except StopAsyncIteration:
                        break
                self._observe(span, event)
                if event.terminal:
                    ended = True
                    span.end()
                yield event
        except GeneratorExit:
            raise  # the caller stopped reading (after the answer, as a rule): nothing went wrong
        except BaseException as exc:
            if not ended:
                fail(span, self._tracer.setting, type(exc).__name__, f"{type(exc).__name__}: {exc}")
            raise
        finally:
            if not ended:
                span.end()
            close = getattr(stream, "aclose", None)  # None: the backend failed before it streamed
            if close is not None:
                await close()

    def _start(self, prompt: str | Prompt) -> Any:
        setting = self._tracer.setting
        attributes: dict[str, Any] = {OPERATION: "chat", PROVIDER: self._provider, SYSTEM: self._provider,
                                      REQUEST_MODEL: self._model, AGENT_NAME: self._agent}
        text, system = prompt, None
        if isinstance(prompt, Prompt):
            text, system = prompt.text, prompt.system
            if prompt.temperature is not None:
                attributes[TEMPERATURE] = prompt.temperature
            if prompt.max_tokens is not None:
                attributes[MAX_TOKENS] = prompt.max_tokens
            attributes[OUTPUT_TYPE] = "json" if prompt.schema is not None else "text"
        if setting.content:
            attributes[INPUT_MESSAGES] = messages(setting, "user", text)
            if system:
                attributes[SYSTEM_INSTRUCTIONS] = messages(setting, None, system)
        return self._tracer.start_call(self._owner, f"chat {self._model}", SpanKind.CLIENT, attributes)

    def _observe(self, span: Any, event: Event) -> None:
        try:
            data = event.data
            if event.kind is EventKind.USAGE:
                span.set_attribute(INPUT_TOKENS, int(data.get("input_tokens", 0)))
                span.set_attribute(OUTPUT_TOKENS, int(data.get("output_tokens", 0)))
                if data.get("cached_tokens"):
                    span.set_attribute(CACHED_TOKENS, int(data["cached_tokens"]))
                if data.get("cost") is not None:
                    span.set_attribute("podium.cost", float(data["cost"]))
                if isinstance(data.get("model"), str):
                    span.set_attribute(RESPONSE_MODEL, data["model"])
            elif event.kind is EventKind.RESULT:
                finish = data.get("finish_reason") or data.get("stop_reason")
                if isinstance(finish, str):
                    span.set_attribute(FINISH_REASONS, [finish])
                if isinstance(data.get("model"), str):
                    span.set_attribute(RESPONSE_MODEL, data["model"])
                setting = self._tracer.setting
                if setting.content:
                    extra = {"finish_reason": finish} if isinstance(finish, str) else {}
                    span.set_attribute(OUTPUT_MESSAGES, messages(setting, "assistant", str(data.get("text", "")),
                                                                 **extra))
            elif event.kind is EventKind.ERROR:
                reason = data.get("reason")
                kind = reason.kind.value if isinstance(reason, Reason) else "backend_error"
                fail(span, self._tracer.setting, kind, str(data.get("detail", kind)))
        except Exception:  # observing a call must not break it
            log.exception("tracing: could not record a model event")


class TracedApplication:
    """An application whose every call is an `execute_tool` span under the phase that made it."""

    def __init__(self, inner: Any, tracer: RunTracer, owner: Owner) -> None:
        self._inner = inner
        self._tracer = tracer
        self._owner = owner

    def __getattr__(self, name: str) -> Any:  # the rest of the Application interface, and its extras
        if name == "_inner":
            raise AttributeError(name)
        return getattr(self._inner, name)

    def __repr__(self) -> str:
        return f"TracedApplication({self._inner!r})"

    async def call(self, tool: str, arguments: Mapping[str, Any]) -> Any:
        tracer, setting = self._tracer, self._tracer.setting
        started = time.time_ns()
        attributes: dict[str, Any] = {OPERATION: "execute_tool", TOOL_NAME: tool, TOOL_TYPE: "function",
                                      "podium.application": str(getattr(self._inner, "name", ""))}
        planned = tracer.planned_call(self._owner, tool, arguments)
        if planned is not None:
            call, call_id = planned
            effects = tuple(getattr(call, "effects", ()) or ())
            attributes[TOOL_CALL_ID] = call_id
            attributes["podium.tool.paths"] = [str(e.path) for e in effects]
            attributes["podium.tool.changes"] = [str(e.change) for e in effects]
        if setting.content:
            attributes[TOOL_ARGUMENTS] = content(setting, _json(dict(arguments)))
        span = tracer.start_call(self._owner, f"execute_tool {tool}", SpanKind.INTERNAL, attributes, started)
        try:
            with trace.use_span(span, record_exception=False, set_status_on_exception=False):
                result = await self._inner.call(tool, arguments)
        except BaseException as exc:
            span.set_attribute("podium.tool.ok", False)
            fail(span, setting, type(exc).__name__, f"{type(exc).__name__}: {exc}")
            span.end()
            raise
        try:
            error = getattr(result, "error", None)
            span.set_attribute("podium.tool.ok", error is None)
            if error is not None:
                fail(span, setting, "tool_error", str(error))
            elif setting.content:
                span.set_attribute(TOOL_RESULT, content(setting, _json(getattr(result, "content", None))))
        except Exception:
            log.exception("tracing: could not record a tool result")
        span.end()
        return result
