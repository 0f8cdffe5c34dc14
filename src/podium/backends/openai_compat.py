"""The OpenAI-compatible backend: OpenAI itself and every server speaking its chat API (vLLM, Ollama,
llama.cpp's server, LM Studio, OpenRouter...), through the official `openai` SDK (imported lazily).

Events: text deltas as `text`, tool calls as `tool_use` (once their arguments are complete), the server's
usage (stream_options.include_usage) as `usage`, then a `result` with the full text. Failures end the turn
with an `error` event whose data["reason"] says what went wrong (see podium.backends.retry).

Structured output (Prompt.schema): response_format json_schema (strict). A server that rejects it (400/422)
is asked again with json_object plus the schema (the llama.cpp/vLLM extension), then plain json_object with
the schema in the system prompt; the first level a server accepts is remembered for this backend. The
answer is validated against the schema whatever the level: invalid output fails the turn (invalid_output,
raw text in data["raw"]).
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Mapping
from enum import IntEnum
from typing import Any

from podium.agent.backend import BaseBackend, Prompt
from podium.agent.events import Event
from podium.backends.chat import ChatSession, Message, assistant_message, sdk_kwargs, setting
from podium.backends.keys import Secret, resolve_key
from podium.backends.pricing import NO_PRICES, PriceTable
from podium.backends.retry import Failure, RetryPolicy, StreamCut, failure_from_status, stream_with_retries
from podium.backends.structured import OutputErrors, strict_schema, validate_schema
from podium.errors import ConfigError, ReasonKind

OPENAI_BASE_URL = "https://api.openai.com/v1"


class SchemaMode(IntEnum):
    """How a server is asked for structured output, from the best to the most widely supported."""

    JSON_SCHEMA = 0
    JSON_OBJECT_WITH_SCHEMA = 1
    JSON_OBJECT = 2


class _Rejected(Exception):
    """A structured-output request the server refused at every level."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.cause = cause


def _schema_instruction(schema: Mapping[str, Any]) -> str:
    return ("Answer with one JSON value, and nothing else, that matches this JSON schema:\n"
            + json.dumps(schema, separators=(",", ":")))


class OpenAIBackend(BaseBackend):
    """A chat model behind an OpenAI-compatible API.

    `timeout` bounds each wait on the server (connecting, and each silence while streaming); `retry`
    says how failed requests are retried; `prices` sets the cost of usage events.
    """

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | Secret | None = None,
                 api_key_env: tuple[str, ...] = ("OPENAI_API_KEY",), key_required: bool = True,
                 timeout: float = 60.0, retry: RetryPolicy | None = None, prices: PriceTable | None = None,
                 label: str = "openai", default_headers: Mapping[str, str] | None = None) -> None:
        self.model = model
        self.base_url = (base_url or OPENAI_BASE_URL).rstrip("/")
        self.label = label
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        self.prices = prices or NO_PRICES
        self.schema_mode = SchemaMode.JSON_SCHEMA
        self.usage_option = True  # stream_options.include_usage, until a server refuses it
        self._key = resolve_key(api_key, api_key_env, required=key_required, what=f"the {label} backend")
        self._headers = dict(default_headers or {})
        self._client: Any = None

    def __repr__(self) -> str:
        return f"OpenAIBackend(model={self.model!r}, base_url={self.base_url!r}, label={self.label!r})"

    @property
    def where(self) -> str:
        return f"{self.label} server at {self.base_url}"

    def client(self) -> Any:
        if self._client is None:
            try:
                import openai  # imported only when a backend is used
            except ImportError:
                raise ConfigError("the OpenAI-compatible backend needs the openai SDK: pip install openai") from None

            # Retries are ours (RetryPolicy): the SDK's own would hide failures from the Reason mapping.
            self._client = openai.AsyncOpenAI(api_key=self._key.reveal(), base_url=self.base_url,
                                              timeout=self.timeout, max_retries=0,
                                              default_headers=self._headers or None)
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    async def start_session(self, opts: Mapping[str, Any]) -> ChatSession:
        self.client()
        return ChatSession.from_opts(self.model, opts)

    async def update_session(self, session: ChatSession, terminal: Event) -> ChatSession:
        return session.settle(terminal)

    def prompt(self, session: ChatSession, prompt: str | Prompt) -> AsyncIterator[Event]:
        return stream_with_retries(lambda: self._attempt(session, prompt), self.classify, self.retry)

    # -- one attempt -------------------------------------------------------------------------------

    def _request(self, session: ChatSession, prompt: str | Prompt, new: tuple[Message, ...]) -> dict[str, Any]:
        request: dict[str, Any] = {
            "model": session.model,
            "messages": session.request_messages(new, setting(prompt, "system", None)),
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        temperature = setting(prompt, "temperature", session.temperature)
        if temperature is not None:
            request["temperature"] = temperature
        max_tokens = setting(prompt, "max_tokens", session.max_tokens)
        if max_tokens is not None:
            request["max_tokens"] = max_tokens
        if session.tools:
            request["tools"] = [tool.openai() for tool in session.tools]
        return request

    @staticmethod
    def _with_schema(request: dict[str, Any], schema: Mapping[str, Any], mode: SchemaMode,
                     spell: bool = False) -> dict[str, Any]:
        request = dict(request)
        if mode is SchemaMode.JSON_SCHEMA:
            request["response_format"] = {"type": "json_schema", "json_schema": {
                "name": re.sub(r"[^A-Za-z0-9_-]", "_", str(schema.get("title") or "output"))[:64],
                "schema": strict_schema(schema),
                "strict": True}}
            if not spell:
                return request
        messages = list(request["messages"])
        instruction = _schema_instruction(schema)
        if messages and messages[0]["role"] == "system":
            messages[0] = {"role": "system", "content": f"{messages[0]['content']}\n\n{instruction}"}
        else:
            messages.insert(0, {"role": "system", "content": instruction})
        request["messages"] = messages
        if mode is not SchemaMode.JSON_SCHEMA:
            request["response_format"] = ({"type": "json_object", "schema": dict(schema)}
                                          if mode is SchemaMode.JSON_OBJECT_WITH_SCHEMA else {"type": "json_object"})
        return request

    async def _open(self, request: dict[str, Any], schema: Mapping[str, Any] | None, spell: bool = False) -> Any:
        import openai

        if not self.usage_option:
            request = {key: value for key, value in request.items() if key != "stream_options"}
        try:
            return await self._open_with_schema(request, schema, spell)
        except openai.APIStatusError as exc:
            # A few servers reject stream_options: ask once more without it (no usage events then).
            if "stream_options" not in request or "stream_options" not in self._message(exc):
                raise
            self.usage_option = False
            request = {key: value for key, value in request.items() if key != "stream_options"}
            return await self._open_with_schema(request, schema, spell)

    async def _open_with_schema(self, request: dict[str, Any], schema: Mapping[str, Any] | None,
                                spell: bool = False) -> Any:
        create = self.client().chat.completions.create
        if schema is None:
            return await create(**sdk_kwargs(create, request))
        import openai

        mode = self.schema_mode
        while True:
            try:
                stream = await create(**sdk_kwargs(create, self._with_schema(request, schema, mode, spell)))
            except openai.APIStatusError as exc:
                if not self._refuses_format(exc):
                    raise
                if mode is SchemaMode.JSON_OBJECT:
                    raise _Rejected(exc) from exc
                mode = SchemaMode(mode + 1)
                continue
            # Remembered only once a level is accepted, so a 400 for another cause cannot downgrade us.
            self.schema_mode = mode
            return stream

    async def _attempt(self, session: ChatSession, prompt: str | Prompt) -> AsyncIterator[Event]:
        new = session.new_messages(prompt)
        schema = None if isinstance(prompt, str) else prompt.schema
        spell = isinstance(prompt, Prompt) and prompt.spell_schema
        stream = await self._open(self._request(session, prompt, new), schema, spell)
        text: list[str] = []
        calls: dict[int, dict[str, Any]] = {}
        finish: str | None = None
        usage: Any = None
        try:
            async for chunk in stream:
                if getattr(chunk, "usage", None) is not None:
                    usage = chunk.usage
                for choice in chunk.choices or ():
                    if choice.index not in (0, None):
                        continue
                    delta = choice.delta
                    if delta is not None and delta.content:
                        text.append(delta.content)
                        yield Event.text(delta.content)
                    for call in (delta.tool_calls if delta is not None else None) or ():
                        slot = calls.setdefault(call.index, {"id": "", "name": "", "arguments": ""})
                        if call.id:
                            slot["id"] = call.id
                        if call.function is not None:
                            slot["name"] += call.function.name or ""
                            slot["arguments"] += call.function.arguments or ""
                    if choice.finish_reason:
                        finish = choice.finish_reason
        finally:
            await stream.close()
        if finish is None:
            raise StreamCut("the server closed the stream before the model finished")
        if usage is not None:
            yield self.prices.price_event(Event.usage(usage.prompt_tokens or 0, usage.completion_tokens or 0,
                                                      model=session.model))
        tool_calls = []
        for index in sorted(calls):
            slot = calls[index]
            try:
                arguments = json.loads(slot["arguments"] or "{}")
            except ValueError:
                yield Event.error(f"the model called tool {slot['name']!r} with malformed arguments",
                                  reason=OutputErrors("malformed tool arguments", slot["arguments"]).reason(),
                                  raw=slot["arguments"])
                return
            tool_calls.append({"id": slot["id"] or f"call_{index}", "name": slot["name"], "arguments": arguments})
            yield Event.tool_use(slot["name"], arguments, slot["id"] or f"call_{index}")
        full = "".join(text)
        if schema is not None:
            checked = validate_schema(schema, full)
            if isinstance(checked, OutputErrors):
                hint = " (the answer was cut at max_tokens)" if finish == "length" else ""
                yield Event.error(f"invalid structured output{hint}: {checked.message}",
                                  reason=checked.reason(), raw=full)
                return
            try:
                json.loads(full)
            except ValueError:
                full = json.dumps(checked)  # recovered from fences or prose: hand on the clean JSON
        yield Event.result(full, exchange=(*new, assistant_message(full, tool_calls)), finish_reason=finish,
                           model=session.model)

    def _refuses_format(self, exc: Any) -> bool:
        """Whether an error status means "I do not support this response_format". Most servers say 400 or
        422; some (llama-cpp-python's server among them) turn their validation error into a 500, so a 5xx
        counts only when it names the field."""
        text = self._message(exc)
        if "stream_options" in text:  # not about the format: _open handles that one
            return False
        if exc.status_code in (400, 422):
            return True
        return exc.status_code >= 500 and ("response_format" in text or "json_schema" in text)

    # -- failures ----------------------------------------------------------------------------------

    def classify(self, exc: BaseException) -> Failure:
        import openai

        where = self.where
        if isinstance(exc, _Rejected):
            failure = self.classify(exc.cause)
            return Failure(failure.kind, f"{failure.detail} (structured output was refused in every form: "
                           "json_schema, json_object)")
        if isinstance(exc, openai.APITimeoutError):
            return Failure(ReasonKind.TIMEOUT, f"{where} did not answer within {self.timeout:g} s",
                           retryable=True)
        if isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__ or exc.__context__
            extra = f" ({type(cause).__name__}: {self._key.redact(str(cause))})" if cause else ""
            return Failure(ReasonKind.BACKEND_ERROR, f"lost the connection to {where}{extra}", retryable=True)
        if isinstance(exc, openai.APIStatusError):
            return failure_from_status(exc.status_code, self._message(exc), exc.response.headers, where)
        if isinstance(exc, StreamCut):
            return Failure(ReasonKind.BACKEND_ERROR, f"{where}: {exc}", retryable=True)
        if isinstance(exc, ValueError | openai.APIResponseValidationError):
            return Failure(ReasonKind.BACKEND_ERROR,
                           f"{where} sent a malformed response: {self._key.redact(str(exc))}")
        return Failure(ReasonKind.BACKEND_ERROR,
                       f"{where}: unexpected {type(exc).__name__}: {self._key.redact(str(exc))}")

    def _message(self, exc: Any) -> str:
        body = exc.body
        message = None
        if isinstance(body, Mapping):
            error = body.get("error", body)
            message = error.get("message") if isinstance(error, Mapping) else error
            if message is None and isinstance(body.get("detail"), list | str):  # FastAPI-style 422
                message = json.dumps(body["detail"])[:500]
        text = str(message if message is not None else exc.message)
        return self._key.redact(text)
