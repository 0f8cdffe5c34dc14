"""The shapes the models are asked to answer in: JSON schemas built for constrained decoding.

`HostOutput` / `AppOutput` (podium.desktop.schemas) say what a valid answer MEANS and accept sloppy
spellings. The schemas here say what the model may WRITE, and are shaped for a grammar (llama.cpp turns
the schema into one; OpenAI-style servers enforce it as a strict schema):

- every field is required, in the order a model should think in: observation and thought first, then
  the actions, then the status, then the rest. A grammar emits required fields first and optional ones
  after, in a fixed order; with optional actions a small model skipped straight to
  `{"status": "CONTINUE"}` and never called a tool, step after step.
- `function` is one of the application's real tool names, and each tool's `arguments` follow that
  tool's own parameter schema: the model cannot misspell a tool or an argument name.
- `application` of a subtask is one of the catalogue's names.
- ERROR is not offered: it is what the orchestrator reports when something broke, not a choice a model
  makes (a model that gives up answers FAIL with the reason).

The model's answer is still validated by the pydantic models; other backends may ignore the schema.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from podium.desktop.schemas import AppStatus, HostStatus

MAX_ACTIONS = 4  # per step: enough to write and chart in one go, short enough to keep a step reviewable
APP_STATUSES = tuple(s.value for s in AppStatus if s is not AppStatus.ERROR)
HOST_STATUSES = tuple(s.value for s in HostStatus if s is not HostStatus.ERROR)
_TEXT: dict[str, Any] = {"type": "string"}
_TEXTS: dict[str, Any] = {"type": "array", "items": {"type": "string"}}
_ANY: dict[str, Any] = {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}, {"type": "null"},
                                  {"type": "array"}, {"type": "object"}]}


def _closed(properties: Mapping[str, Any]) -> dict[str, Any]:
    # No "additionalProperties": false: llama.cpp's grammar already allows no other names when it is
    # absent, strict servers get it added (strict_schema), and the schema's text reaches the prompt.
    return {"type": "object", "properties": dict(properties), "required": list(properties)}


# A number's bounds are not in the grammar llama.cpp makes, so a call past one (read_file with max_bytes
# 1000000000) made the whole answer invalid, and after the repairs the request ended in ERROR. Left to the
# tool, the bound refuses that one call with its own error, which the next step sees.
_UNCHECKED = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"})


def _plain(node: Any) -> Any:
    """A tool's parameter schema without what costs grammar size and prompt tokens but constrains
    nothing (titles, descriptions, defaults, examples), nor what the tool checks itself and a grammar
    cannot (_UNCHECKED). Property NAMES are kept whatever they are."""
    if isinstance(node, list):
        return [_plain(v) for v in node]
    if not isinstance(node, Mapping):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "properties" and isinstance(value, Mapping):
            out[key] = {name: _plain(spec) for name, spec in value.items()}
        elif key not in ("title", "description", "default", "examples", "$comment", "additionalProperties") \
                and key not in _UNCHECKED:
            out[key] = _plain(value)
    return out


def _arguments(parameters: Any) -> dict[str, Any]:
    params = _plain(parameters) if isinstance(parameters, Mapping) else {}
    if params.get("type") != "object" and "properties" not in params:
        return {"type": "object", "properties": {}}
    params.setdefault("type", "object")
    params.setdefault("properties", {})
    return params


def _action(tool: Any) -> dict[str, Any]:
    return _closed({"function": {"type": "string", "enum": [tool.name]},
                    "arguments": _arguments(getattr(tool, "parameters", None))})


def app_output_schema(tools: Sequence[Any], must_act: bool = False, only: Sequence[str] = ()) -> dict[str, Any]:
    """The AppAgent's answer for an application with these tools (cached on the tools' signatures;
    shared: read it, never change it). `must_act`: at least one call (the step after a FINISH that was
    questioned for changing nothing: told so in words, the 1.5B model answered FINISH with no call
    again; any tool may be called, so a subtask that really needs no change can look and say so).
    `only`: the calls may be of these tools alone (names not among `tools` are ignored; none left: all
    tools). Given the choice after a questioned FINISH, the 1.5B model read the sheet again or wrote
    the rows again where its part asked for the chart (Catalog.asked_for).

    No pattern constrains a `path` to the application's file types: tried, and a small model that
    meant to write another type could not close the string and wrote on until max_tokens. A grammar
    constrains well where the choice is among names (tools, statuses), not in free text."""
    chosen = [t for t in tools if t.name in only] or list(tools)
    key = json.dumps([[t.name, getattr(t, "parameters", None)] for t in chosen], default=str)
    return _app_schema(key, must_act)


@lru_cache(maxsize=64)
def _app_schema(key: str, must_act: bool) -> dict[str, Any]:
    tools = [_Tool(name, params) for name, params in json.loads(key)]
    if tools:
        item: dict[str, Any] = {"anyOf": [_action(t) for t in tools]} if len(tools) > 1 else _action(tools[0])
        actions = {"type": "array", "items": item, "maxItems": MAX_ACTIONS}
        if must_act:
            actions["minItems"] = 1
    else:
        actions = {"type": "array", "maxItems": 0}
    return _closed({
        "observation": _TEXT,
        "thought": _TEXT,
        "actions": actions,
        "status": {"type": "string", "enum": list(APP_STATUSES)},
        "comment": _TEXT,
        "questions": _TEXTS,
        "result": _ANY,
    })


class _Tool:
    def __init__(self, name: str, parameters: Any) -> None:
        self.name = name
        self.parameters = parameters


@lru_cache(maxsize=64)
def host_output_schema(applications: tuple[str, ...]) -> dict[str, Any]:
    """The HostAgent's answer with these applications: the seed's fields the host acts on, in thinking
    order, and the subtask graph. `Current Sub-Task`, `Message`, `ControlLabel`, `ControlText` and
    `Plan` (the seed's one-subtask form) are accepted by `HostOutput` but not asked for: `Subtasks`
    carries the same, and every field a small model writes costs seconds."""
    subtask = _closed({
        "id": _TEXT,
        "description": _TEXT,
        "application": {"type": "string", "enum": list(applications)} if applications else _TEXT,
        "depends_on": _TEXTS,
        "message": _TEXT,
    })
    return _closed({
        "Observation": _TEXT,
        "Thought": _TEXT,
        "Status": {"type": "string", "enum": list(HOST_STATUSES)},
        "Subtasks": {"type": "array", "items": subtask},
        "Questions": _TEXTS,
        "Bash": _TEXT,
        "Comment": _TEXT,
    })
