"""The conversation a chat backend keeps in its session value.

A session is a frozen value: `prompt` never changes it. The terminal result event carries the turn's new
messages under data["exchange"] and `update_session` appends them, so a failed turn leaves the conversation
as it was and the same prompt can simply be sent again.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from podium.agent.backend import Prompt
from podium.agent.events import Event, EventKind
from podium.errors import ConfigError

Message = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool the model may call: name, description and a JSON schema of its arguments."""

    name: str
    description: str = ""
    parameters: Mapping[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})

    @classmethod
    def coerce(cls, tool: Any) -> ToolSpec:
        """From a ToolSpec, a mapping, or any object with name/description/parameters attributes
        (such as podium.apps.base.Tool)."""
        if isinstance(tool, ToolSpec):
            return tool
        get = tool.get if isinstance(tool, Mapping) else (lambda key, default=None: getattr(tool, key, default))
        name = get("name")
        if not isinstance(name, str) or not name:
            raise ConfigError(f"a tool needs a non-empty string 'name', got {tool!r}")
        parameters = get("parameters") or get("input_schema") or {"type": "object", "properties": {}}
        return cls(name, get("description") or "", dict(parameters))

    def openai(self) -> dict[str, Any]:
        return {"type": "function",
                "function": {"name": self.name, "description": self.description,
                             "parameters": dict(self.parameters)}}

    def anthropic(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "input_schema": dict(self.parameters)}


@dataclass(frozen=True, slots=True)
class ChatSession:
    """An OpenAI-style conversation: the per-agent settings and the messages so far (system excluded)."""

    model: str
    system: str | None = None
    messages: tuple[Message, ...] = ()
    tools: tuple[ToolSpec, ...] = ()
    temperature: float | None = None
    max_tokens: int | None = None

    @classmethod
    def from_opts(cls, model: str, opts: Mapping[str, Any]) -> ChatSession:
        """Backend options an agent may pass: model, system, tools, temperature, max_tokens, history."""
        history = opts.get("history") or ()
        if not isinstance(history, Sequence) or not all(isinstance(m, Mapping) for m in history):
            raise ConfigError("backend option 'history' must be a list of {'role': ..., 'content': ...} maps")
        return cls(model=str(opts.get("model") or model), system=opts.get("system"),
                   messages=tuple(dict(m) for m in history),
                   tools=tuple(ToolSpec.coerce(t) for t in opts.get("tools") or ()),
                   temperature=opts.get("temperature"), max_tokens=opts.get("max_tokens"))

    def pending_tool_calls(self) -> tuple[str, ...]:
        """Ids of the tool calls the model made last turn that still wait for their results."""
        if not self.messages:
            return ()
        last = self.messages[-1]
        if last.get("role") != "assistant":
            return ()
        return tuple(call["id"] for call in last.get("tool_calls") or ())

    def new_messages(self, prompt: str | Prompt) -> tuple[Message, ...]:
        """The messages this prompt adds. After a tool call, the prompt is that tool's result: a behaviour
        runs the tool in handle_response and sends its outcome as the next prompt."""
        text = prompt if isinstance(prompt, str) else prompt.text
        pending = self.pending_tool_calls()
        if pending:
            return tuple({"role": "tool", "tool_call_id": call_id, "content": text} for call_id in pending)
        return ({"role": "user", "content": text},)

    def request_messages(self, new: Sequence[Message], system: str | None) -> list[dict[str, Any]]:
        system = system if system is not None else self.system
        head = [{"role": "system", "content": system}] if system else []
        return head + [dict(m) for m in self.messages] + [dict(m) for m in new]

    def settle(self, terminal: Event) -> ChatSession:
        """The session after a turn: a result appends the exchange; an error changes nothing."""
        if terminal.kind is not EventKind.RESULT:
            return self
        exchange = terminal.data.get("exchange") or ()
        return replace(self, messages=self.messages + tuple(exchange))


def assistant_message(text: str, tool_calls: Sequence[Mapping[str, Any]] = ()) -> dict[str, Any]:
    """The assistant turn as the OpenAI chat API expects it back on the next request."""
    message: dict[str, Any] = {"role": "assistant", "content": text if text or not tool_calls else None}
    if tool_calls:
        message["tool_calls"] = [
            {"id": call["id"], "type": "function",
             "function": {"name": call["name"], "arguments": json.dumps(call["arguments"])}}
            for call in tool_calls
        ]
    return message


def setting(prompt: str | Prompt, name: str, session_default: Any) -> Any:
    """A per-turn setting from the Prompt when it sets one, else the session's."""
    value = None if isinstance(prompt, str) else getattr(prompt, name)
    return session_default if value is None else value


def sdk_kwargs(create: Any, request: Mapping[str, Any]) -> dict[str, Any]:
    """`request` as keyword arguments for an SDK method: the fields its signature lacks (SDK versions drop
    or rename parameters, e.g. temperature for newer models) travel in extra_body, as sent on the wire."""
    import inspect

    known = inspect.signature(create).parameters
    kwargs = {key: value for key, value in request.items() if key in known}
    extra = {key: value for key, value in request.items() if key not in known}
    if extra:
        kwargs["extra_body"] = extra
    return kwargs
