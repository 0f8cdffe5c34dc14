"""The OpenAI-compatible backend against llama.cpp's own OpenAI-compatible server (python -m
llama_cpp.server) serving SmolLM2-135M on loopback: real HTTP, a real model, no mocks."""

from __future__ import annotations

from pydantic import BaseModel

from podium.agent.backend import Prompt
from podium.agent.events import EventKind, Response
from podium.backends import RetryPolicy, ask_structured, backend_from_spec
from podium.backends.openai_compat import SchemaMode

from .conftest import collect


async def test_chat_streams_text_and_keeps_the_conversation(llama_server):
    backend = backend_from_spec(f"openai-compatible:{llama_server}#smollm2", retry=RetryPolicy(max_attempts=1))
    session = await backend.start_session({"system": "You are a terse assistant."})
    events = await collect(backend, session, Prompt("Say hello.", max_tokens=12, temperature=0.0))
    kinds = [e.kind for e in events]
    assert kinds[-1] is EventKind.RESULT, events[-1].data
    assert kinds.count(EventKind.TEXT) >= 1
    text = Response.from_events(events).text
    assert text.strip() and text == "".join(e.data["text"] for e in events if e.kind is EventKind.TEXT)

    session = await backend.update_session(session, events[-1])
    assert [m["role"] for m in session.messages] == ["user", "assistant"]
    assert session.messages[1]["content"] == text
    again = await collect(backend, session, Prompt("Again.", max_tokens=8, temperature=0.0))
    assert again[-1].kind is EventKind.RESULT
    await backend.aclose()


class City(BaseModel):
    name: str
    country: str


async def test_structured_output_against_a_server_without_json_schema(llama_server):
    # llama_cpp.server refuses response_format json_schema (422): the backend falls back to json_object with
    # the schema, which llama.cpp turns into a grammar, and remembers that for the next turns.
    backend = backend_from_spec(f"openai-compatible:{llama_server}#smollm2", retry=RetryPolicy(max_attempts=1))
    session = await backend.start_session({})
    result = await ask_structured(backend, session, Prompt("Name a city in France.", max_tokens=40,
                                                           temperature=0.0), City)
    assert isinstance(result.value, City) and result.value.name
    assert backend.schema_mode is SchemaMode.JSON_OBJECT_WITH_SCHEMA
    await backend.aclose()
