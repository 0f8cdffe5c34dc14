"""Structured output: the pure parts (extract, validate, repair) and the re-ask loop against a backend."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from podium.agent.backend import Prompt
from podium.backends import (
    NoJSONFound,
    OutputErrors,
    StructuredOutputError,
    ask_structured,
    extract_json,
    repair_prompt,
    schema_of,
    validate,
)
from podium.backends.scripted import Fail, Say, ScriptedBackend
from podium.backends.structured import strict_schema, validate_schema
from podium.errors import ReasonKind, RunFailed


class Action(BaseModel):
    tool: str
    arguments: dict[str, str] = Field(default_factory=dict)
    why: str | None = None


@pytest.mark.parametrize("text", [
    '{"tool": "click"}',
    '  \n{"tool": "click"}\n',
    'Here is the action:\n```json\n{"tool": "click"}\n```\nHope it helps.',
    '```\n{"tool": "click"}\n```',
    'Sure! The answer is {"tool": "click"} as requested.',
    'I think {not json} but then {"tool": "click"}',
])
def test_extract_json_recovers_json_wrapped_in_prose_or_fences(text):
    assert extract_json(text) == {"tool": "click"}


def test_extract_json_without_json_raises():
    with pytest.raises(NoJSONFound):
        extract_json("I cannot do that.")


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                           lambda children: st.lists(children, max_size=3)
                           | st.dictionaries(st.text(max_size=5), children, max_size=3), max_leaves=10)


@given(value=st.dictionaries(st.text(max_size=5), json_values, max_size=4),
       prose=st.sampled_from(["", "Answer: ", "Here you go:\n"]))
def test_extract_json_round_trips_any_object_after_prose(value, prose):
    assert extract_json(prose + json.dumps(value)) == value


def test_validate_returns_an_instance_or_errors_naming_the_field():
    assert validate(Action, 'ok: {"tool": "type", "arguments": {"text": "hi"}}') == Action(
        tool="type", arguments={"text": "hi"})
    errors = validate(Action, '{"arguments": {"text": 3}}')
    assert isinstance(errors, OutputErrors)
    assert "tool: Field required" in errors.message and "arguments.text" in errors.message
    assert errors.raw == '{"arguments": {"text": 3}}'
    assert validate(Action, "no json here").message == "the answer contains no JSON object"


def test_repair_prompt_carries_the_errors_and_optionally_the_question():
    errors = OutputErrors("tool: Field required", '{"x": 1}')
    assert "tool: Field required" in repair_prompt(errors) and "only one JSON" in repair_prompt(errors)
    with_question = repair_prompt(errors, original="What next?")
    assert with_question.startswith("What next?") and '{"x": 1}' in with_question


def test_strict_schema_closes_objects_and_requires_every_property():
    strict = strict_schema(schema_of(Action))
    assert strict["required"] == ["tool", "arguments", "why"] and strict["additionalProperties"] is False
    assert "default" not in json.dumps(strict)


def test_validate_schema_checks_against_a_json_schema():
    schema = schema_of(Action)
    assert validate_schema(schema, '{"tool": "x"}') == {"tool": "x"}
    assert "'tool' is a required property" in validate_schema(schema, "{}").message


async def test_ask_structured_reasks_with_the_validation_error_until_valid():
    backend = ScriptedBackend(['{"arguments": {}}', 'Fixed: {"tool": "save"}'])
    session = await backend.start_session({})
    result = await ask_structured(backend, session, "What now?", Action)
    assert result.value == Action(tool="save") and result.attempts == 2
    assert backend.prompts[0] == "What now?"
    assert "tool: Field required" in backend.prompts[1]


async def test_ask_structured_gives_up_with_the_raw_output_attached():
    backend = ScriptedBackend(["nope", "still nope", "never"])
    with pytest.raises(StructuredOutputError) as caught:
        await ask_structured(backend, await backend.start_session({}), Prompt("Act."), Action, attempts=2)
    assert caught.value.raw == "still nope" and caught.value.attempts == 2
    assert caught.value.reason.kind is ReasonKind.INVALID_OUTPUT
    assert len(backend.prompts) == 2


async def test_ask_structured_after_a_failed_turn_shows_the_question_again():
    backend = ScriptedBackend([Fail("bad json", ReasonKind.INVALID_OUTPUT), '{"tool": "ok"}'])
    result = await ask_structured(backend, await backend.start_session({}), "Which tool?", Action)
    assert result.value.tool == "ok"
    assert backend.prompts[1].startswith("Which tool?") and "bad json" in backend.prompts[1]


async def test_ask_structured_sums_usage_and_stops_on_other_failures():
    backend = ScriptedBackend([Say("{}", usage=(10, 2)), Say('{"tool": "a"}', usage=(20, 3))])
    result = await ask_structured(backend, await backend.start_session({}), "go", Action)
    assert (result.usage.input_tokens, result.usage.output_tokens) == (30, 5)

    failing = ScriptedBackend([Fail("server down")])
    with pytest.raises(RunFailed) as caught:
        await ask_structured(failing, await failing.start_session({}), "go", Action)
    assert caught.value.reason.kind is ReasonKind.BACKEND_ERROR
