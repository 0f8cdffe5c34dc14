"""The Anthropic backend, through the official `anthropic` SDK (an optional extra, imported lazily).

Same event mapping as the OpenAI-compatible backend: text deltas, tool_use events once a tool call's
input is complete, one usage event (input tokens from message_start, output tokens from message_delta),
then a result with the full text. Structured output (Prompt.schema) is a forced call of a tool whose
input schema is the requested schema; its input is the answer, streamed as text.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

from podium.agent.backend import BaseBackend, Prompt
from podium.agent.events import Event
from podium.backends.chat import ChatSession, Message, sdk_kwargs, setting
from podium.backends.keys import Secret, resolve_key
from podium.backends.pricing import NO_PRICES, PriceTable
from podium.backends.retry import Failure, RetryPolicy, StreamCut, failure_from_status, stream_with_retries
from podium.backends.structured import OutputErrors, validate_schema
from podium.errors import ConfigError, ReasonKind

ANSWER_TOOL = "structured_answer"
# The HTTP status each documented error type stands for, to classify errors sent inside a stream.
_STREAM_ERRORS = {"invalid_request_error": 400, "authentication_error": 401, "permission_error": 403,
                  "not_found_error": 404, "request_too_large": 413, "rate_limit_error": 429, "api_error": 500,
                  "overloaded_error": 529}
DEFAULT_MAX_TOKENS = 4096  # the Messages API requires max_tokens


def _answer_tool(schema: Mapping[str, Any]) -> tuple[dict[str, Any], bool]:
    """The forced tool for structured output, and whether the schema had to be wrapped (a tool's input
    is always an object, so any other schema becomes {"value": ...})."""
    wrapped = schema.get("type") != "object"
    input_schema = ({"type": "object", "properties": {"value": dict(schema)}, "required": ["value"]}
                    if wrapped else dict(schema))
    return {"name": ANSWER_TOOL, "description": "Give the answer as structured data matching the schema.",
            "input_schema": input_schema}, wrapped


class AnthropicSession(ChatSession):
    """The conversation in Anthropic's message format (content blocks); same settings as ChatSession."""

    __slots__ = ()

    def pending_tool_calls(self) -> tuple[str, ...]:
        if not self.messages or self.messages[-1].get("role") != "assistant":
            return ()
        content = self.messages[-1].get("content")
        if not isinstance(content, list):
            return ()
        return tuple(block["id"] for block in content if block.get("type") == "tool_use")

    def new_messages(self, prompt: str | Prompt) -> tuple[Message, ...]:
        text = prompt if isinstance(prompt, str) else prompt.text
        pending = self.pending_tool_calls()
        if pending:
            return ({"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id, "content": text}
                                                 for call_id in pending]},)
        return ({"role": "user", "content": text},)


class AnthropicBackend(BaseBackend):
    """Claude models through the Messages API (streaming)."""

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | Secret | None = None,
                 api_key_env: tuple[str, ...] = ("ANTHROPIC_API_KEY",), timeout: float = 60.0,
                 retry: RetryPolicy | None = None, prices: PriceTable | None = None,
                 default_headers: Mapping[str, str] | None = None, max_tokens: int = DEFAULT_MAX_TOKENS) -> None:
        self.model = model
        self.base_url = base_url.rstrip("/") if base_url else None
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        self.prices = prices or NO_PRICES
        self.max_tokens = max_tokens
        self._key = resolve_key(api_key, api_key_env, required=True, what="the anthropic backend")
        self._headers = dict(default_headers or {})
        self._client: Any = None

    def __repr__(self) -> str:
        return f"AnthropicBackend(model={self.model!r}, base_url={self.base_url!r})"

    @property
    def where(self) -> str:
        return f"anthropic server at {self.base_url or 'the default API address'}"

    def client(self) -> Any:
        if self._client is None:
            try:
                import anthropic  # optional SDK, imported only when the backend is used
            except ImportError:
                raise ConfigError("the anthropic backend needs its SDK: pip install 'podium[anthropic]'") from None

            self._client = anthropic.AsyncAnthropic(api_key=self._key.reveal(), base_url=self.base_url,
                                                    timeout=self.timeout, max_retries=0,
                                                    default_headers=self._headers or None)
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    async def start_session(self, opts: Mapping[str, Any]) -> AnthropicSession:
        self.client()
        base = ChatSession.from_opts(self.model, opts)
        return AnthropicSession(base.model, base.system, base.messages, base.tools, base.temperature,
                                base.max_tokens)

    async def update_session(self, session: AnthropicSession, terminal: Event) -> AnthropicSession:
        return session.settle(terminal)  # type: ignore[return-value]

    def prompt(self, session: AnthropicSession, prompt: str | Prompt) -> AsyncIterator[Event]:
        return stream_with_retries(lambda: self._attempt(session, prompt), self.classify, self.retry)

    def _request(self, session: AnthropicSession, prompt: str | Prompt, new: tuple[Message, ...],
                 schema: Mapping[str, Any] | None) -> tuple[dict[str, Any], bool]:
        request: dict[str, Any] = {
            "model": session.model,
            "max_tokens": setting(prompt, "max_tokens", session.max_tokens) or self.max_tokens,
            "messages": [dict(m) for m in session.messages] + [dict(m) for m in new],
            "stream": True,
        }
        system = setting(prompt, "system", session.system)
        if system:
            request["system"] = system
        temperature = setting(prompt, "temperature", session.temperature)
        if temperature is not None:
            request["temperature"] = temperature
        tools = [tool.anthropic() for tool in session.tools]
        wrapped = False
        if schema is not None:
            answer, wrapped = _answer_tool(schema)
            tools.append(answer)
            request["tool_choice"] = {"type": "tool", "name": ANSWER_TOOL}
        if tools:
            request["tools"] = tools
        return request, wrapped

    async def _attempt(self, session: AnthropicSession, prompt: str | Prompt) -> AsyncIterator[Event]:
        new = session.new_messages(prompt)
        schema = None if isinstance(prompt, str) else prompt.schema
        request, wrapped = self._request(session, prompt, new, schema)
        create = self.client().messages.create
        stream = await create(**sdk_kwargs(create, request))
        blocks: dict[int, dict[str, Any]] = {}
        input_tokens = output_tokens = 0
        stop_reason: str | None = None
        finished = False
        try:
            async for item in stream:
                kind = item.type
                if kind == "message_start":
                    input_tokens = item.message.usage.input_tokens or 0
                    output_tokens = item.message.usage.output_tokens or 0
                elif kind == "content_block_start":
                    block = item.content_block
                    blocks[item.index] = ({"type": "tool_use", "id": block.id, "name": block.name, "json": ""}
                                          if block.type == "tool_use" else {"type": block.type, "text": ""})
                elif kind == "content_block_delta":
                    slot = blocks.setdefault(item.index, {"type": "text", "text": ""})
                    delta = item.delta
                    if delta.type == "text_delta":
                        slot["text"] += delta.text
                        yield Event.text(delta.text)
                    elif delta.type == "input_json_delta":
                        slot["json"] += delta.partial_json
                        if slot.get("name") == ANSWER_TOOL and not wrapped and delta.partial_json:
                            yield Event.text(delta.partial_json)
                elif kind == "message_delta":
                    stop_reason = item.delta.stop_reason or stop_reason
                    if item.usage is not None and item.usage.output_tokens is not None:
                        output_tokens = item.usage.output_tokens
                elif kind == "message_stop":
                    finished = True
        finally:
            await stream.close()
        if not finished:
            raise StreamCut("the server closed the stream before message_stop")
        yield self.prices.price_event(Event.usage(input_tokens, output_tokens, model=session.model))
        async for event in self._finish(session, new, blocks, schema, wrapped, stop_reason):
            yield event

    async def _finish(self, session: AnthropicSession, new: tuple[Message, ...], blocks: dict[int, dict[str, Any]],
                      schema: Mapping[str, Any] | None, wrapped: bool,
                      stop_reason: str | None) -> AsyncIterator[Event]:
        text_parts: list[str] = []
        content: list[dict[str, Any]] = []
        answer: str | None = None
        for index in sorted(blocks):
            block = blocks[index]
            if block["type"] == "text":
                text_parts.append(block["text"])
                if block["text"]:
                    content.append({"type": "text", "text": block["text"]})
                continue
            if block["type"] != "tool_use":
                continue
            try:
                arguments = json.loads(block["json"] or "{}")
            except ValueError:
                hint = " (cut at max_tokens)" if stop_reason == "max_tokens" else ""
                yield Event.error(f"the model called tool {block['name']!r} with malformed input{hint}",
                                  reason=OutputErrors(f"malformed tool input{hint}", block["json"]).reason(),
                                  raw=block["json"])
                return
            if block["name"] == ANSWER_TOOL:
                answer = json.dumps(arguments["value"] if wrapped and "value" in arguments else arguments)
                continue
            content.append({"type": "tool_use", "id": block["id"], "name": block["name"], "input": arguments})
            yield Event.tool_use(block["name"], arguments, block["id"])
        full = "".join(text_parts)
        if schema is not None:
            raw = answer if answer is not None else full
            checked = validate_schema(schema, raw)
            if isinstance(checked, OutputErrors):
                yield Event.error(f"invalid structured output: {checked.message}", reason=checked.reason(),
                                  raw=raw)
                return
            full = raw
            # Kept as plain text in the conversation: a tool_use block would demand a tool_result next.
            content = [{"type": "text", "text": raw}]
        if not content:
            content = [{"type": "text", "text": full}]
        assistant = {"role": "assistant", "content": content}
        yield Event.result(full, exchange=(*new, assistant), stop_reason=stop_reason, model=session.model)

    def classify(self, exc: BaseException) -> Failure:
        import anthropic

        where = self.where
        if isinstance(exc, anthropic.APITimeoutError):
            return Failure(ReasonKind.TIMEOUT, f"{where} did not answer within {self.timeout:g} s", retryable=True)
        if isinstance(exc, anthropic.APIConnectionError):
            cause = exc.__cause__ or exc.__context__
            extra = f" ({type(cause).__name__}: {self._key.redact(str(cause))})" if cause else ""
            return Failure(ReasonKind.BACKEND_ERROR, f"lost the connection to {where}{extra}", retryable=True)
        if isinstance(exc, anthropic.APIStatusError):
            status = exc.status_code
            message = self._message(exc)
            if status < 400:  # an `error` event inside a 200 stream: its type says what it would have been
                status = _STREAM_ERRORS.get(self._error_type(exc), 500)
            if status == 529:  # Anthropic's "overloaded": transient, like a 503
                return Failure(ReasonKind.BACKEND_ERROR, f"{where} is overloaded (529): {message}",
                               retryable=True)
            return failure_from_status(status, message, exc.response.headers, where)
        if isinstance(exc, StreamCut):
            return Failure(ReasonKind.BACKEND_ERROR, f"{where}: {exc}", retryable=True)
        if isinstance(exc, ValueError | anthropic.APIResponseValidationError):
            return Failure(ReasonKind.BACKEND_ERROR, f"{where} sent a malformed response: {self._key.redact(str(exc))}")
        return Failure(ReasonKind.BACKEND_ERROR,
                       f"{where}: unexpected {type(exc).__name__}: {self._key.redact(str(exc))}")

    @staticmethod
    def _error_type(exc: Any) -> str:
        body = exc.body
        error = body.get("error") if isinstance(body, Mapping) else None
        return str(error.get("type", "")) if isinstance(error, Mapping) else ""

    def _message(self, exc: Any) -> str:
        body = exc.body
        message = None
        if isinstance(body, Mapping):
            error = body.get("error", body)
            message = error.get("message") if isinstance(error, Mapping) else error
        return self._key.redact(str(message if message is not None else exc.message))
