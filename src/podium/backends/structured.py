"""Structured output: get a validated pydantic value out of a model's text.

The pure parts are separate so an agent Behaviour can use them inside its own turn loop:

    extract_json(text)          -> the JSON value in the text (bare, in ```json fences, or inside prose)
    validate(Model, text)       -> a Model instance, or OutputErrors (what is wrong, and the raw text)
    repair_prompt(errors)       -> the follow-up prompt that asks the model to fix its answer
    schema_of(Model)            -> the JSON schema to put in Prompt.schema

`ask_structured` runs the whole loop against a Backend: ask, validate, re-ask with the validation errors
(a bounded number of times), then raise StructuredOutputError carrying the last raw output.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic import TypeAdapter, ValidationError

from podium.agent.backend import Prompt
from podium.agent.events import EventKind, Response, Usage
from podium.errors import PodiumError, Reason, ReasonKind, RunFailed

if TYPE_CHECKING:
    from podium.agent.backend import Backend

T = TypeVar("T")

_FENCE = re.compile(r"```[ \t]*(?:json|JSON|json5)?[ \t]*\n?(.*?)```", re.DOTALL)


class NoJSONFound(PodiumError, ValueError):
    """The text holds no JSON value."""


@dataclass(frozen=True, slots=True)
class OutputErrors:
    """Why a model's output was rejected: a readable message (one line per problem) and the raw text."""

    message: str
    raw: str

    def reason(self) -> Reason:
        return Reason(ReasonKind.INVALID_OUTPUT, self.message)


class StructuredOutputError(PodiumError):
    """The model did not produce valid output within the allowed attempts. `raw` is its last answer."""

    def __init__(self, errors: OutputErrors, attempts: int) -> None:
        super().__init__(f"no valid structured output after {attempts} attempt(s): {errors.message}")
        self.errors = errors
        self.raw = errors.raw
        self.attempts = attempts
        self.reason = Reason(ReasonKind.INVALID_OUTPUT, f"after {attempts} attempt(s): {errors.message}")


def extract_json(text: str) -> Any:
    """The first JSON value found in `text`: the whole text, else a fenced block, else the first object or
    array embedded in prose. Raises NoJSONFound."""
    stripped = text.strip()
    try:
        return json.loads(stripped)
    except ValueError:
        pass
    for block in _FENCE.findall(text):
        try:
            return json.loads(block.strip())
        except ValueError:
            continue
    decoder = json.JSONDecoder()
    for match in re.finditer(r"[\[{]", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except ValueError:
            continue
        return value
    raise NoJSONFound("no JSON object found in the output")


@lru_cache(maxsize=256)
def _adapter(output_type: Any) -> TypeAdapter[Any]:
    return TypeAdapter(output_type)


def schema_of(output_type: Any) -> dict[str, Any]:
    """The JSON schema of a pydantic model (or any type pydantic can validate)."""
    return _adapter(output_type).json_schema()


def _describe(error: ValidationError) -> str:
    lines = []
    for item in error.errors(include_url=False):
        where = ".".join(str(part) for part in item["loc"]) or "(root)"
        lines.append(f"{where}: {item['msg']}")
    return "; ".join(lines)


def validate(output_type: type[T], text: str) -> T | OutputErrors:
    """Parse and validate `text` as `output_type`. Never raises for bad output: returns OutputErrors."""
    try:
        value = extract_json(text)
    except NoJSONFound:
        return OutputErrors("the answer contains no JSON object", text)
    try:
        return _adapter(output_type).validate_python(value)
    except ValidationError as error:
        return OutputErrors(_describe(error), text)


def validate_schema(schema: Mapping[str, Any], text: str) -> Any | OutputErrors:
    """Parse `text` and check it against a JSON schema (for backends, which get a schema, not a type)."""
    try:
        value = extract_json(text)
    except NoJSONFound:
        return OutputErrors("the answer contains no JSON object", text)
    import jsonschema  # a validator only backends with a schema need

    validator_class = jsonschema.validators.validator_for(schema)
    problems = sorted(validator_class(schema).iter_errors(value), key=lambda e: list(e.absolute_path))
    if problems:
        message = "; ".join(f"{'.'.join(str(p) for p in e.absolute_path) or '(root)'}: {e.message}"
                            for e in problems[:10])
        return OutputErrors(message, text)
    return value


def repair_prompt(errors: OutputErrors, original: str | None = None) -> str:
    """The follow-up prompt after a rejected answer. Pass `original` when the conversation does not hold
    the rejected exchange (the turn failed), so the model sees the question and its own answer again."""
    fix = (f"Your answer was rejected: {errors.message}.\n"
           "Reply again with only one JSON value that matches the requested schema: no prose, no code fences.")
    if original is None:
        return fix
    shown = errors.raw if len(errors.raw) <= 2000 else errors.raw[:2000] + " ..."
    return f"{original}\n\nA previous answer to this was:\n{shown}\n\n{fix}"


def strict_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of the schema in the form OpenAI's strict structured outputs accept: every object closed
    (additionalProperties false) with all its properties required, and no defaults. Optional fields stay
    optional in meaning because pydantic writes them as `anyOf [..., null]`; validation fills defaults."""

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(item) for item in node]
        if not isinstance(node, Mapping):
            return node
        out = {key: walk(value) for key, value in node.items() if key != "default"}
        if out.get("type") == "object" or "properties" in out:
            properties = out.get("properties", {})
            out["properties"] = properties
            out["required"] = list(properties)
            out["additionalProperties"] = False
        return out

    return walk(schema)


@dataclass(frozen=True, slots=True)
class Structured(Generic[T]):
    """A validated value, the session after the exchange, the accepted text, attempts used, total usage."""

    value: T
    session: Any
    text: str
    attempts: int
    usage: Usage | None = None


async def ask_structured(backend: Backend, session: Any, prompt: str | Prompt, output_type: type[T], *,
                         attempts: int = 3) -> Structured[T]:
    """Ask `backend` for a value of `output_type` (Prompt.schema is set from it), re-asking with the
    validation errors until the answer validates or `attempts` are used up.

    Raises StructuredOutputError (with .raw) when no valid answer came, RunFailed(reason) when a turn failed
    for another reason (rate limit, budget, server down...).
    """
    if attempts < 1:
        raise ValueError("attempts must be >= 1")
    schema = schema_of(output_type)
    base = Prompt(prompt) if isinstance(prompt, str) else prompt
    current = replace(base, schema=schema)
    usage: Usage | None = None
    errors = OutputErrors("no answer", "")
    for attempt in range(1, attempts + 1):
        events = [event async for event in backend.prompt(session, current)]
        terminal = events[-1] if events and events[-1].terminal else None
        if terminal is None:
            raise RunFailed(Reason(ReasonKind.NO_TERMINAL_EVENT, "the backend stream ended without a result"))
        session = await backend.update_session(session, terminal)
        response = Response.from_events(events)
        if response.usage is not None:
            usage = response.usage if usage is None else usage + response.usage
        if terminal.kind is EventKind.ERROR:
            reason = terminal.data.get("reason")
            if not isinstance(reason, Reason):
                reason = Reason(ReasonKind.BACKEND_ERROR, str(terminal.data.get("detail", "")))
            if reason.kind is not ReasonKind.INVALID_OUTPUT:
                raise RunFailed(reason)
            # The failed turn is not in the conversation: show the model the question and its answer.
            errors = OutputErrors(reason.detail, str(terminal.data.get("raw", "")))
            current = replace(base, text=repair_prompt(errors, original=base.text), schema=schema)
            continue
        result = validate(output_type, response.text)
        if not isinstance(result, OutputErrors):
            return Structured(result, session, response.text, attempt, usage)
        errors = result
        current = replace(base, text=repair_prompt(errors), schema=schema)
    raise StructuredOutputError(errors, attempts)
