"""The OpenAI-compatible backend over real HTTP against a fake server that misbehaves on purpose."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import BaseModel

from podium.agent.backend import Prompt
from podium.agent.events import EventKind, Response
from podium.backends import OpenAIBackend, RetryPolicy, backend_from_spec
from podium.errors import Reason, ReasonKind

from .conftest import Waits, collect
from .fakes import Hang, Status, Stream, openai_chunk, openai_error, openai_stream


def make(server, retry: RetryPolicy, **settings) -> OpenAIBackend:
    return backend_from_spec(f"openai-compatible:{server.url}/v1#fake-model", retry=retry, **settings)


def reason_of(events) -> Reason:
    terminal = events[-1]
    assert terminal.kind is EventKind.ERROR
    return terminal.data["reason"]


async def test_streams_text_usage_and_result_then_keeps_the_conversation(fake_server, fast_retry):
    fake_server.push(openai_stream(["Hel", "lo", "!"], usage=(11, 7)), openai_stream(["again"]))
    backend = make(fake_server, fast_retry, prices={"fake-model": {"input": 1.0, "output": 2.0}})
    session = await backend.start_session({"system": "be brief"})
    events = await collect(backend, session, "hi")
    assert [e.kind for e in events] == [EventKind.TEXT] * 3 + [EventKind.USAGE, EventKind.RESULT]
    response = Response.from_events(events)
    assert response.text == "Hello!"
    assert (response.usage.input_tokens, response.usage.output_tokens) == (11, 7)
    assert response.usage.cost == pytest.approx((11 * 1.0 + 7 * 2.0) / 1e6)
    first = fake_server.requests[0].body
    assert first["messages"] == [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]
    assert first["stream"] is True and first["stream_options"] == {"include_usage": True}

    session = await backend.update_session(session, events[-1])
    await collect(backend, session, Prompt("and now?", temperature=0.2, max_tokens=5))
    second = fake_server.requests[1].body
    assert second["messages"][1:] == [{"role": "user", "content": "hi"},
                                      {"role": "assistant", "content": "Hello!"},
                                      {"role": "user", "content": "and now?"}]
    assert second["temperature"] == 0.2 and second["max_tokens"] == 5


async def test_429_honours_retry_after_then_succeeds(fake_server, fast_retry, waits: Waits):
    fake_server.push(openai_error(429, "slow down", ("retry-after", "3")), openai_stream(["ok"]))
    backend = make(fake_server, fast_retry)
    events = await collect(backend, await backend.start_session({}), "hi")
    assert events[-1].kind is EventKind.RESULT and events[-1].data["text"] == "ok"
    assert waits.delays == [3.0]
    assert len(fake_server.requests) == 2


async def test_5xx_retried_with_exponential_backoff_and_jitter_until_give_up(fake_server, waits: Waits):
    retry = RetryPolicy(max_attempts=4, base_delay=1.0, max_delay=3.0, jitter=lambda: 1.0, sleep=waits)
    fake_server.default = openai_error(500, "boom")
    backend = make(fake_server, retry)
    events = await collect(backend, await backend.start_session({}), "hi")
    reason = reason_of(events)
    assert reason.kind is ReasonKind.BACKEND_ERROR
    assert "500" in reason.detail and "boom" in reason.detail and "4 attempts" in reason.detail
    assert waits.delays == [1.0, 2.0, 3.0]  # doubled, capped at max_delay; jitter 1.0 = the full ceiling
    assert len(fake_server.requests) == 4


async def test_jitter_spreads_the_delay_within_the_upper_half():
    policy = RetryPolicy(base_delay=2.0, max_delay=100.0, jitter=lambda: 0.0)
    assert [policy.delay(n) for n in (1, 2, 3)] == [1.0, 2.0, 4.0]


async def test_input_errors_are_not_retried(fake_server, fast_retry, waits: Waits):
    fake_server.push(openai_error(400, "context too long"))
    backend = make(fake_server, fast_retry)
    events = await collect(backend, await backend.start_session({}), "hi")
    reason = reason_of(events)
    assert reason.kind is ReasonKind.INVALID_REQUEST and "context too long" in reason.detail
    assert waits.delays == [] and len(fake_server.requests) == 1


async def test_rate_limit_that_persists_is_reported_as_rate_limited(fake_server, waits: Waits):
    fake_server.default = openai_error(429, "quota", ("retry-after", "1"))
    backend = make(fake_server, RetryPolicy(max_attempts=2, sleep=waits))
    events = await collect(backend, await backend.start_session({}), "hi")
    assert reason_of(events).kind is ReasonKind.RATE_LIMITED
    assert events[-1].data["attempts"] == 2


async def test_retry_after_longer_than_allowed_fails_at_once(fake_server, waits: Waits):
    fake_server.push(openai_error(429, "come back tomorrow", ("retry-after", "86400")))
    backend = make(fake_server, RetryPolicy(max_retry_after=60, sleep=waits))
    events = await collect(backend, await backend.start_session({}), "hi")
    reason = reason_of(events)
    assert reason.kind is ReasonKind.RATE_LIMITED and "86400" in reason.detail
    assert waits.delays == []


async def test_silent_server_times_out_and_is_retried(fake_server, waits: Waits):
    # the timeout leaves the retried call's answer room on a loaded machine; the hang outlasts it well
    fake_server.push(Hang(4.0), openai_stream(["late but fine"]))
    backend = make(fake_server, RetryPolicy(max_attempts=2, sleep=waits), timeout=1.5)
    events = await collect(backend, await backend.start_session({}), "hi")
    assert events[-1].kind is EventKind.RESULT and events[-1].data["text"] == "late but fine"
    assert len(waits.delays) == 1


async def test_timeout_reason_when_the_server_stays_silent(fake_server, waits: Waits):
    fake_server.default = Hang(2.0)
    backend = make(fake_server, RetryPolicy(max_attempts=1, sleep=waits), timeout=0.3)
    events = await collect(backend, await backend.start_session({}), "hi")
    reason = reason_of(events)
    assert reason.kind is ReasonKind.TIMEOUT and "0.3 s" in reason.detail


async def test_stream_cut_after_text_fails_the_turn_without_duplicating_text(fake_server, fast_retry, waits):
    fake_server.push(openai_stream(["partial ", "answer"], truncate=True), openai_stream(["never used"]))
    backend = make(fake_server, fast_retry)
    session = await backend.start_session({})
    events = await collect(backend, session, "hi")
    assert [e.data["text"] for e in events if e.kind is EventKind.TEXT] == ["partial ", "answer"]
    reason = reason_of(events)
    assert reason.kind is ReasonKind.BACKEND_ERROR and "connection" in reason.detail
    assert len(fake_server.requests) == 1 and waits.delays == []
    # the failed turn left the conversation as it was: the same prompt can be sent again
    assert await backend.update_session(session, events[-1]) == session


async def test_stream_ending_without_finish_reason_before_any_text_is_retried(fake_server, fast_retry):
    fake_server.push(Stream(((None, "[DONE]"),)), openai_stream(["second try"]))
    backend = make(fake_server, fast_retry)
    events = await collect(backend, await backend.start_session({}), "hi")
    assert events[-1].kind is EventKind.RESULT and events[-1].data["text"] == "second try"


async def test_malformed_json_in_the_stream_is_a_backend_error(fake_server, fast_retry):
    fake_server.push(Stream(((None, openai_chunk("a")), (None, "{not json"), (None, "[DONE]"))))
    backend = make(fake_server, fast_retry)
    events = await collect(backend, await backend.start_session({}), "hi")
    reason = reason_of(events)
    assert reason.kind is ReasonKind.BACKEND_ERROR and "malformed" in reason.detail


async def test_unreachable_server_is_a_backend_error_naming_the_address(waits: Waits):
    backend = backend_from_spec("openai-compatible:http://127.0.0.1:9/v1#m",
                                retry=RetryPolicy(max_attempts=2, sleep=waits))
    events = await collect(backend, await backend.start_session({}), "hi")
    reason = reason_of(events)
    assert reason.kind is ReasonKind.BACKEND_ERROR and "127.0.0.1:9" in reason.detail
    assert len(waits.delays) == 1


async def test_bad_key_is_forbidden_and_the_key_never_appears(fake_server, fast_retry):
    key = "sk-very-secret-key-123"
    fake_server.push(openai_error(401, f"Incorrect API key provided: {key}"))
    backend = make(fake_server, fast_retry, api_key=key)
    events = await collect(backend, await backend.start_session({}), "hi")
    reason = reason_of(events)
    assert reason.kind is ReasonKind.FORBIDDEN
    assert key not in str(events[-1].data) and key not in repr(backend)
    assert fake_server.requests[0].headers["authorization"] == f"Bearer {key}"


async def test_tool_calls_stream_as_tool_use_events_and_the_next_prompt_is_the_result(fake_server, fast_retry):
    call = [{"index": 0, "id": "call_7", "type": "function",
             "function": {"name": "open_file", "arguments": '{"pa'}}]
    more = [{"index": 0, "function": {"arguments": 'th": "a.docx"}'}}]
    fake_server.push(Stream(((None, openai_chunk(tool_calls=call)), (None, openai_chunk(tool_calls=more)),
                             (None, openai_chunk(finish="tool_calls")), (None, "[DONE]"))),
                     openai_stream(["opened"]))
    tool = {"name": "open_file", "description": "Open a file",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}
    backend = make(fake_server, fast_retry)
    session = await backend.start_session({"tools": [tool]})
    events = await collect(backend, session, "open a.docx")
    uses = [e for e in events if e.kind is EventKind.TOOL_USE]
    assert [(u.data["name"], u.data["arguments"], u.data["id"]) for u in uses] == [
        ("open_file", {"path": "a.docx"}, "call_7")]
    assert fake_server.requests[0].body["tools"][0]["function"]["name"] == "open_file"
    session = await backend.update_session(session, events[-1])
    await collect(backend, session, "file opened, 3 pages")
    sent = fake_server.requests[1].body["messages"]
    assert sent[-2]["tool_calls"][0]["id"] == "call_7"
    assert sent[-1] == {"role": "tool", "tool_call_id": "call_7", "content": "file opened, 3 pages"}


class Plan(BaseModel):
    steps: list[str]
    done: bool = False


async def test_structured_output_uses_strict_json_schema(fake_server, fast_retry):
    fake_server.push(openai_stream(['{"steps": ["a", "b"], "done": true}']))
    backend = make(fake_server, fast_retry)
    events = await collect(backend, await backend.start_session({}),
                           Prompt("plan", schema=Plan.model_json_schema()))
    assert events[-1].kind is EventKind.RESULT
    assert Plan.model_validate_json(events[-1].data["text"]) == Plan(steps=["a", "b"], done=True)
    sent = fake_server.requests[0].body["response_format"]
    assert sent["type"] == "json_schema" and sent["json_schema"]["strict"] is True
    assert sent["json_schema"]["schema"]["required"] == ["steps", "done"]
    assert sent["json_schema"]["schema"]["additionalProperties"] is False
    assert all("JSON schema" not in m.get("content", "") for m in fake_server.requests[0].body["messages"])
    # spelled out on request, as well as enforced
    fake_server.push(openai_stream(['{"steps": [], "done": true}']))
    await collect(backend, await backend.start_session({}),
                  Prompt("plan", schema=Plan.model_json_schema(), spell_schema=True))
    body = fake_server.requests[1].body
    assert body["response_format"]["type"] == "json_schema" and "JSON schema" in body["messages"][0]["content"]


async def test_server_without_json_schema_falls_back_once_and_remembers(fake_server, fast_retry):
    def only_json_object(body):
        if body.get("response_format", {}).get("type") == "json_schema":
            return Status(400, {"error": {"message": "response_format json_schema is not supported"}})
        return openai_stream(['Sure! ```json\n{"steps": ["x"]}\n```'])

    fake_server.default = only_json_object
    backend = make(fake_server, fast_retry)
    session = await backend.start_session({"system": "You plan."})
    prompt = Prompt("plan", schema=Plan.model_json_schema())
    events = await collect(backend, session, prompt)
    assert events[-1].kind is EventKind.RESULT
    assert Plan.model_validate_json(events[-1].data["text"]) == Plan(steps=["x"])
    second = fake_server.requests[1].body
    assert second["response_format"]["type"] == "json_object"
    assert second["messages"][0]["role"] == "system" and "JSON schema" in second["messages"][0]["content"]
    assert second["messages"][0]["content"].startswith("You plan.")
    await collect(backend, session, prompt)
    assert len(fake_server.requests) == 3  # the json_schema refusal was remembered: no second 400
    assert fake_server.requests[2].body["response_format"]["type"] == "json_object"


async def test_invalid_structured_output_fails_with_the_raw_text(fake_server, fast_retry):
    fake_server.push(openai_stream(['{"steps": "not a list"}']))
    backend = make(fake_server, fast_retry)
    events = await collect(backend, await backend.start_session({}), Prompt("plan", schema=Plan.model_json_schema()))
    reason = reason_of(events)
    assert reason.kind is ReasonKind.INVALID_OUTPUT and "steps" in reason.detail
    assert events[-1].data["raw"] == '{"steps": "not a list"}'


async def test_an_interrupted_turn_closes_the_http_stream(fake_server, fast_retry):
    fake_server.push(openai_stream([f"w{i} " for i in range(200)], pause=0.02))
    backend = make(fake_server, fast_retry)
    stream = backend.prompt(await backend.start_session({}), "talk")
    assert (await anext(stream)).kind is EventKind.TEXT
    await stream.aclose()  # what an agent's interrupt does
    for _ in range(200):
        if fake_server.disconnects:
            break
        await asyncio.sleep(0.02)
    assert fake_server.disconnects == 1


async def test_a_server_that_rejects_stream_options_is_asked_again_without_them(fake_server, fast_retry):
    def picky(body):
        if "stream_options" in body:
            return openai_error(400, "Unrecognized request argument supplied: stream_options")
        return openai_stream(["fine"], usage=None)

    fake_server.default = picky
    backend = make(fake_server, fast_retry)
    session = await backend.start_session({})
    events = await collect(backend, session, "hi")
    assert events[-1].kind is EventKind.RESULT and events[-1].data["text"] == "fine"
    await collect(backend, session, "again")
    assert ["stream_options" in r.body for r in fake_server.requests] == [True, False, False]


async def test_stream_options_refusal_does_not_downgrade_structured_output(fake_server, fast_retry):
    def picky(body):
        if "stream_options" in body:
            return openai_error(400, "stream_options is not supported")
        return openai_stream(['{"steps": ["a"]}'], usage=None)

    fake_server.default = picky
    backend = make(fake_server, fast_retry)
    events = await collect(backend, await backend.start_session({}), Prompt("p", schema=Plan.model_json_schema()))
    assert events[-1].kind is EventKind.RESULT
    assert fake_server.requests[-1].body["response_format"]["type"] == "json_schema"
