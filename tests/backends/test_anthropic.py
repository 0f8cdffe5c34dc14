"""The Anthropic backend over real HTTP against a local server speaking the Messages streaming format."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from podium.agent.backend import Prompt
from podium.agent.events import EventKind, Response
from podium.backends import AnthropicBackend, RetryPolicy, ask_structured, backend_from_spec
from podium.errors import ConfigError, ReasonKind

from .conftest import Waits, collect
from .fakes import Hang, Stream, anthropic_error, anthropic_stream


def make(server, retry: RetryPolicy, **settings) -> AnthropicBackend:
    return backend_from_spec("anthropic:claude-test", base_url=server.url, api_key="sk-ant-secret-0001",
                             retry=retry, **settings)


async def test_streams_text_usage_and_result_and_keeps_the_conversation(fake_server, fast_retry):
    fake_server.push(anthropic_stream([{"type": "text", "deltas": ["Bon", "jour"]}], input_tokens=21,
                                      output_tokens=4),
                     anthropic_stream([{"type": "text", "deltas": ["encore"]}]))
    backend = make(fake_server, fast_retry, prices={"claude-test": {"input": 3.0, "output": 15.0}})
    session = await backend.start_session({"system": "Reply in French."})
    events = await collect(backend, session, Prompt("hello", temperature=0.5))
    assert [e.kind for e in events] == [EventKind.TEXT, EventKind.TEXT, EventKind.USAGE, EventKind.RESULT]
    response = Response.from_events(events)
    assert response.text == "Bonjour"
    assert (response.usage.input_tokens, response.usage.output_tokens) == (21, 4)
    assert response.usage.cost == pytest.approx((21 * 3.0 + 4 * 15.0) / 1e6)
    sent = fake_server.requests[0]
    assert sent.path == "/v1/messages"
    assert sent.body["system"] == "Reply in French." and sent.body["stream"] is True
    assert sent.body["temperature"] == 0.5 and sent.body["max_tokens"] == 4096
    assert "sk-ant-secret-0001" in (sent.headers.get("x-api-key", "") + sent.headers.get("authorization", ""))

    session = await backend.update_session(session, events[-1])
    await collect(backend, session, "again")
    assert fake_server.requests[1].body["messages"] == [
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": [{"type": "text", "text": "Bonjour"}]},
        {"role": "user", "content": "again"}]


async def test_tool_use_blocks_become_tool_use_events_and_the_next_prompt_is_the_result(fake_server, fast_retry):
    fake_server.push(anthropic_stream([
        {"type": "text", "deltas": ["Let me look."]},
        {"type": "tool_use", "id": "toolu_1", "name": "read_cell", "json": ['{"cell":', ' "B2"}']},
    ], stop_reason="tool_use"), anthropic_stream([{"type": "text", "deltas": ["B2 is 42."]}]))
    backend = make(fake_server, fast_retry)
    tool = {"name": "read_cell", "description": "Read a cell",
            "parameters": {"type": "object", "properties": {"cell": {"type": "string"}}}}
    session = await backend.start_session({"tools": [tool]})
    events = await collect(backend, session, "what is in B2?")
    uses = [e.data for e in events if e.kind is EventKind.TOOL_USE]
    assert uses == [{"name": "read_cell", "arguments": {"cell": "B2"}, "id": "toolu_1"}]
    assert fake_server.requests[0].body["tools"][0]["input_schema"]["properties"] == {"cell": {"type": "string"}}
    session = await backend.update_session(session, events[-1])
    await collect(backend, session, "42")
    last = fake_server.requests[1].body["messages"][-1]
    assert last == {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "42"}]}


class Step(BaseModel):
    action: str
    target: str


async def test_structured_output_is_a_forced_tool_call(fake_server, fast_retry):
    fake_server.push(anthropic_stream([{"type": "tool_use", "id": "toolu_9", "name": "structured_answer",
                                        "json": ['{"action": "click",', ' "target": "OK"}']}],
                                      stop_reason="tool_use"))
    backend = make(fake_server, fast_retry)
    session = await backend.start_session({})
    result = await ask_structured(backend, session, "what next?", Step)
    assert result.value == Step(action="click", target="OK")
    body = fake_server.requests[0].body
    assert body["tool_choice"] == {"type": "tool", "name": "structured_answer"}
    assert body["tools"][-1]["input_schema"]["required"] == ["action", "target"]
    # the answer is kept as text, so the next turn need not carry a tool_result
    assert result.session.messages[-1] == {"role": "assistant",
                                           "content": [{"type": "text", "text": result.text}]}


async def test_overloaded_529_is_retried_then_rate_limit_honours_retry_after(fake_server, fast_retry, waits):
    fake_server.push(anthropic_error(529, "overloaded_error", "Overloaded"),
                     anthropic_error(429, "rate_limit_error", "slow down", ("retry-after", "2")),
                     anthropic_stream([{"type": "text", "deltas": ["fine"]}]))
    backend = make(fake_server, fast_retry)
    events = await collect(backend, await backend.start_session({}), "hi")
    assert events[-1].kind is EventKind.RESULT and events[-1].data["text"] == "fine"
    assert waits.delays == [0.375, 2.0]  # backoff (jitter 0.5 of a 0.5 s ceiling), then the server's own wait


async def test_error_event_inside_the_stream_is_classified_by_its_type(fake_server, waits: Waits):
    start = anthropic_stream([]).items[0]
    fake_server.default = Stream((start, ("error", {"type": "error", "error": {"type": "overloaded_error",
                                                                               "message": "Overloaded"}})))
    backend = make(fake_server, RetryPolicy(max_attempts=2, sleep=waits))
    events = await collect(backend, await backend.start_session({}), "hi")
    reason = events[-1].data["reason"]
    assert reason.kind is ReasonKind.BACKEND_ERROR and "Overloaded" in reason.detail
    assert len(fake_server.requests) == 2


async def test_invalid_request_is_not_retried_and_the_key_is_not_leaked(fake_server, fast_retry, waits):
    fake_server.push(anthropic_error(400, "invalid_request_error", "max_tokens: too large; key sk-ant-secret-0001"))
    backend = make(fake_server, fast_retry)
    events = await collect(backend, await backend.start_session({}), "hi")
    reason = events[-1].data["reason"]
    assert reason.kind is ReasonKind.INVALID_REQUEST and "max_tokens" in reason.detail
    assert "sk-ant-secret-0001" not in reason.detail and "sk-ant-secret-0001" not in repr(backend)
    assert waits.delays == []


async def test_stream_cut_before_message_stop_fails_the_turn(fake_server, fast_retry):
    fake_server.push(anthropic_stream([{"type": "text", "deltas": ["half", " an answer"]}], truncate_after=5))
    backend = make(fake_server, fast_retry)
    events = await collect(backend, await backend.start_session({}), "hi")
    assert events[-1].kind is EventKind.ERROR
    assert events[-1].data["reason"].kind is ReasonKind.BACKEND_ERROR
    assert len(fake_server.requests) == 1  # text had reached the agent: no silent second attempt


async def test_timeout(fake_server, waits: Waits):
    fake_server.default = Hang(2.0)
    backend = make(fake_server, RetryPolicy(max_attempts=1, sleep=waits), timeout=0.3)
    events = await collect(backend, await backend.start_session({}), "hi")
    assert events[-1].data["reason"].kind is ReasonKind.TIMEOUT


def test_missing_key_is_a_config_error_naming_the_variable(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        backend_from_spec("anthropic:claude-sonnet-4-5")
