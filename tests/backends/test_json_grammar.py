"""The grammar of a JSON schema holds the number bounds a grammar can express, and llama.cpp parses it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from llama_cpp import LlamaGrammar
from llama_cpp.llama_grammar import PRIMITIVE_RULES, json_schema_to_gbnf

from podium.agent.backend import Prompt
from podium.agent.events import Response
from podium.backends import backend_from_spec
from podium.backends.json_grammar import JSON_CHAR, gbnf, held

from .conftest import collect


def rule(schema: dict[str, Any]) -> str:
    """The grammar rule of the one property `n` of an object."""
    text = gbnf(json.dumps({"type": "object", "properties": {"n": schema}, "required": ["n"]}))
    LlamaGrammar.from_string(text, verbose=False)  # llama.cpp parses what it is given
    (line,) = [line for line in text.splitlines() if line.startswith("n ::=")]
    return line.removeprefix("n ::= ")


def test_the_bounds_a_grammar_can_hold_are_held() -> None:
    assert rule({"type": "integer", "minimum": 0}) == "integral-part space"  # no minus sign
    assert rule({"type": "number", "minimum": 0}).startswith("integral-part (")
    assert rule({"type": "integer", "minimum": 1}) == "[1-9] [0-9]{0,15} space"  # no zero, no leading zero
    assert rule({"type": "integer", "exclusiveMinimum": 0}) == "[1-9] [0-9]{0,15} space"
    assert rule({"type": "integer", "minimum": -1, "maximum": 2}) == '("-1" | "0" | "1" | "2") space'
    positive = LlamaGrammar.from_string(gbnf(json.dumps({"type": "number", "exclusiveMinimum": 0})), verbose=False)
    assert positive is not None and held({"type": "number", "exclusiveMinimum": 0}) == {"exclusiveMinimum"}
    assert held({"type": "integer", "minimum": 1, "maximum": 3}) == {"minimum", "maximum"}


def test_the_bounds_it_cannot_hold_are_left_to_be_checked_and_the_rest_is_llama_cpps_own() -> None:
    for spec in ({"type": "number", "minimum": 0.5}, {"type": "number", "maximum": 3},
                 {"type": "integer", "multipleOf": 2}, {"type": "string", "minimum": 0}):
        assert held(spec) == frozenset(), spec
    assert held({"type": "integer", "minimum": 5}) == frozenset()
    assert held({"type": "number", "exclusiveMinimum": 1}) == frozenset()
    assert held({"type": "integer", "minimum": 0, "maximum": 1000}) == {"minimum"}  # the range is too wide
    unbounded = json.dumps({"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}},
                            "required": ["n"]})
    # the rest is the converter's own, but for a string's character (see the next test)
    assert gbnf(unbounded).replace(JSON_CHAR, "") == json_schema_to_gbnf(unbounded).replace(
        PRIMITIVE_RULES["char"].content, "")
    with pytest.raises(Exception):  # noqa: B017 - whatever llama-cpp-python raises: the caller falls back
        gbnf(json.dumps({"type": "object", "properties": {"n": {"type": "tuple"}}}))


def test_every_desktop_answer_schema_with_bounds_is_a_grammar_llama_cpp_parses(tmp_path: Any) -> None:
    from podium.apps import build_applications
    from podium.desktop.wire.grammar import app_output_schema

    apps = build_applications({"workspace": str(tmp_path)})
    for app in apps.values():
        schema = app_output_schema(app.tools(), [("1.read_table", "table"), ("1.total", "number")])
        LlamaGrammar.from_string(gbnf(json.dumps(schema)), verbose=False)


async def test_a_real_model_told_to_write_a_value_past_a_bound_cannot(small_model: Any) -> None:
    local = backend_from_spec(f"local:{small_model}", n_ctx=1024, n_threads=2, seed=7)
    schema = {"type": "object", "properties": {"count": {"type": "integer", "minimum": 0},
                                               "grade": {"type": "integer", "minimum": 1, "maximum": 3},
                                               "wait": {"type": "number", "exclusiveMinimum": 0}},
              "required": ["count", "grade", "wait"]}
    prompt = Prompt('Copy this JSON exactly: {"count": -7, "grade": 9, "wait": 0}', schema=schema, max_tokens=40,
                    temperature=0.0)
    events = await collect(local, await local.start_session({}), prompt)
    answer = json.loads(Response.from_events(events).text)
    assert answer["count"] >= 0 and answer["grade"] in (1, 2, 3) and answer["wait"] > 0, answer


def test_a_string_takes_no_raw_control_character_only_its_escape(small_model: Any) -> None:
    """A raw line break inside a JSON string makes the whole answer unparsable: the grammar refuses it and
    allows the escape, checked token by token with the sampler the embedded backend decodes with."""
    import llama_cpp

    from podium.backends.llama_prompt import Completion
    from podium.backends.llama_sampling import Sampler

    llama = llama_cpp.Llama(model_path=str(small_model), n_ctx=256, n_threads=2, verbose=False)
    text = gbnf(json.dumps({"type": "object", "properties": {"c": {"type": "string", "maxLength": 40}},
                            "required": ["c"]}))
    assert "char ::= [^\"\\\\\\x7F\\x00-\\x1F]" in text
    try:
        for tail, allowed in (("\n", False), ("\t", False), ("\\n", True), ("é", True)):
            sampler = Sampler(llama, Completion(tokens=(), max_tokens=8, grammar=text, temperature=0.0))
            try:
                for token in llama.tokenize(b'{"c": "ab', add_bos=False, special=False):
                    assert sampler._allowed(token)
                    llama_cpp.llama_sampler_accept(sampler._grammar, token)
                first = llama.tokenize(tail.encode(), add_bos=False, special=False)[0]
                assert sampler._allowed(first) is allowed, repr(tail)
            finally:
                sampler.close()
    finally:
        llama.close()
