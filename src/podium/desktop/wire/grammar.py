"""The shapes the models are asked to answer in: JSON schemas built for constrained decoding.

`HostOutput` / `AppOutput` (podium.desktop.wire.schemas) say what a valid answer MEANS and accept sloppy
spellings. The schemas here say what a model may WRITE, shaped for a grammar (llama.cpp turns the schema
into one; OpenAI-style servers enforce it as a strict schema), so that an invalid answer is impossible
rather than repaired:

- one alternative per status, each with only the fields that status needs: PENDING has at least one
  question, CONTINUE and CONFIRM at least one call, FAIL a reason, ASSIGN at least one subtask. ERROR is
  not offered: it is what the orchestrator reports when something broke, not a model's choice.
- a subtask's `application` is one of the catalogue's; its `tools` are that application's tools; what it
  `reads` is a file of the workspace; `hands_on` is one of the kinds of data.
- an action's `function` is one of the tools offered and its `arguments` follow that tool's parameter
  schema; where an argument can take data by reference, the references that exist and fit are offered
  (`{"ref": "1.read_table"}`), and nothing else is.
- free text is bounded (observation, thought, comment): a small model that cannot stop writing is cut by
  the grammar, not by the token limit in the middle of the JSON.
- within each answer the fields come in the order a model should think in: observation, thought, then
  the actions, then the status.

Nothing here constrains a `path` a call writes: tried, a small model that meant another type could not
close the string. A grammar constrains well where the choice is among names, not in free text.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from podium.apps.tooling import CODE, EDITED, EXISTING, FILE_TYPES, NOT_FILE_TYPES, NUMBER_TEXT, PARTED, WRITTEN
from podium.backends.json_grammar import held
from podium.desktop.host.artifacts import REF, accepted, wants
from podium.desktop.wire.schemas import HandsOn

MAX_ACTIONS = 4  # per step: enough to write and chart in one go, short enough to keep a step reviewable
MAX_SUBTASKS = 8
CHOICE_WORDS = 100  # the request's words a Choice's answer quotes
MAX_LISTED = 150  # workspace paths offered by name to `reads`; beyond that `reads` is free text
OBSERVATION_CHARS = 160
THOUGHT_CHARS = 300
COMMENT_CHARS = 240
QUESTION_CHARS = 200
RESULT_CHARS = 400
DESCRIPTION_CHARS = 200
PATH_CHARS = 120
# A list a tool argument takes, when the tool sets no bound: a small model that starts repeating itself
# ("Sheet1", "Sheet2", ...) reaches the answer's token limit and leaves no JSON at all. Bounded, the grammar
# closes the list and the answer stays whole; a longer list goes by reference (data), not typed out.
MAX_LIST_ITEMS = 16
# the text of one number, as a program's numeric control takes it (podium.apps.tooling.NUMBER_TEXT)
NUMBER_FORM = {"type": "string", "pattern": "^-?[0-9]{1,9}([.][0-9]{1,6})?$"}
MAX_ROWS = 24


def _text(limit: int, at_least: int = 0) -> dict[str, Any]:
    spec: dict[str, Any] = {"type": "string", "maxLength": limit}
    if at_least:
        spec["minLength"] = at_least
    return spec


def _closed(properties: Mapping[str, Any]) -> dict[str, Any]:
    # No "additionalProperties": false: llama.cpp's grammar already allows no other names when it is
    # absent, and strict servers get it added (strict_schema).
    return {"type": "object", "properties": dict(properties), "required": list(properties)}


def _array(items: Any, at_least: int = 0, at_most: int | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"type": "array", "items": items}
    if at_least:
        spec["minItems"] = at_least
    if at_most is not None:
        spec["maxItems"] = at_most
    return spec


# A number's bound that the grammar cannot hold (podium.backends.json_grammar.held) would make the whole answer
# invalid when one call passes it. Left to the tool, that bound refuses the one call with its own error, which
# the next step sees; the bounds the grammar holds are kept, so no call passes them.
_BOUNDS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"})


def _plain(node: Any) -> Any:
    """A tool's parameter schema without what costs grammar size and prompt tokens but constrains
    nothing (titles, descriptions, defaults, examples), nor the number bounds the tool checks itself and a
    grammar cannot (_BOUNDS but those json_grammar.held), and with a bound on every list (MAX_LIST_ITEMS,
    MAX_ROWS for a list of rows).
    Property NAMES are kept whatever they are."""
    if isinstance(node, list):
        return [_plain(v) for v in node]
    if not isinstance(node, Mapping):
        return node
    out: dict[str, Any] = {}
    kept = held(node)
    if node.get("type") == "array" and "maxItems" not in node:
        items = node.get("items")
        out["maxItems"] = MAX_ROWS if isinstance(items, Mapping) and items.get("type") == "array" else MAX_LIST_ITEMS
    for key, value in node.items():
        if key == "properties" and isinstance(value, Mapping):
            out[key] = {name: _plain(spec) for name, spec in value.items()}
        elif key not in ("title", "description", "default", "examples", "$comment", "additionalProperties", FILE_TYPES,
                         NOT_FILE_TYPES, EXISTING, EDITED, CODE, PARTED) and (key not in _BOUNDS or key in kept):
            out[key] = _plain(value)
    return out


_DATA_SHAPES = frozenset({"content", "rows", "list", "array"})  # what a text or a table is given as (wants)
# A text that joins words and data ("Total: " and a sum) is a list of parts, each a string or a reference to a
# single value (podium.desktop.host.artifacts.joined): the model writes the words, never the value.
PART_KINDS = ("text", "number")
MAX_PARTS = 6
PART_CHARS = 200


def _with_refs(spec: Any, refs: Sequence[tuple[str, str]], raw: Any = None, by_ref: bool = False) -> Any:
    """An argument's schema that also takes a reference to data of a kind it can take (as its `raw` schema, the
    tool's own, says); `by_ref`: one that takes data (a text, rows; not a name or a path) takes only that."""
    kinds = {k.value for k in accepted(spec if raw is None else raw)}
    names = [name for name, kind in refs if kind in kinds]
    if not names:
        return spec
    ref = _closed({REF: {"type": "string", "enum": names}})
    shapes = set(wants(spec if raw is None else raw))
    if by_ref and _DATA_SHAPES & shapes:
        return ref
    values = [name for name, kind in refs if kind in PART_KINDS]
    if "content" not in shapes or not values:
        return {"anyOf": [spec, ref]}
    part = {"anyOf": [_text(PART_CHARS), _closed({REF: {"type": "string", "enum": values}})]}
    return {"anyOf": [spec, ref, {"type": "array", "items": part, "minItems": 2, "maxItems": MAX_PARTS}]}


def _arguments(parameters: Any, refs: Sequence[tuple[str, str]], by_ref: bool = False) -> dict[str, Any]:
    params = _plain(parameters) if isinstance(parameters, Mapping) else {}
    if params.get("type") != "object" and "properties" not in params:
        return {"type": "object", "properties": {}}
    params.setdefault("type", "object")
    props = params.get("properties") or {}
    raw = parameters.get("properties") or {} if isinstance(parameters, Mapping) else {}
    params["properties"] = {name: _with_refs(spec, refs, raw.get(name), by_ref) for name, spec in props.items()}
    return params


def app_output_schema(tools: Iterable[Any], refs: Iterable[tuple[str, str]] = (), *, must_act: bool = False,
                      may_ask: bool = True, only: Sequence[str] = (), paths: Sequence[str] | None = None,
                      existing: Sequence[str] | None = None, writable: Sequence[str] | None = None,
                      by_ref: bool = False, choices: Mapping[tuple[str, ...], Sequence[Any]] | None = None,
                      parts: Sequence[str] = ()) -> dict[str, Any]:
    """The AppAgent's answer with these tools (objects with `name` and `parameters`) and these references ((name, kind)
    pairs). `must_act`: every answer calls a tool, but for a question. `may_ask`: PENDING is offered. `only`: the calls
    may be of these tools alone (names not among `tools` are ignored; none left: all tools). `paths`: the workspace's
    files and the subtask's declared paths; a path argument of file types (FILE_TYPES) then takes only those of its
    types (one of NOT_FILE_TYPES, only files of none of them), and a tool with such an argument and no such path is not
    offered (read_sheet with no workbook). `existing`: those of `paths` that are files now; a path a tool only reads
    (every typed path of a read-only tool, and one marked EXISTING) takes only these, so a call cannot read a file that
    is not there; one a tool opens and changes (EDITED), only those that are also writable. `writable`: those of
    `paths` a call may change (None: all); a path a changing tool writes takes only these, and an untyped one it
    writes as text (WRITTEN) too, when each of them names a file. `by_ref`: an argument that takes data (a text,
    rows) takes only a reference to data of a kind it can take, where there is some. `choices`: (tool, argument) ->
    the values that argument may take now (the application's own, from what it last observed: the controls that take
    text), an enum of them; (tool, argument, other) -> values it may take only with `other` given (_chosen).
    `parts`: the parts (sheets) of the files the subtask may open; a place in a file that may name one (PARTED: a
    range, 'Data!A1:C5') names only these (none: any name). Cached on its inputs; shared: read it, never change it."""
    listed = list(tools)
    chosen = [t for t in listed if t.name in only] or listed
    typed = [(t.name, _typed_paths(getattr(t, "parameters", None), paths, existing,
                                   bool(getattr(t, "read_only", False)), writable)) for t in chosen]
    typed = [(name, params) for name, params in typed if params is not None] or \
        [(t.name, getattr(t, "parameters", None)) for t in chosen]
    if choices:
        typed = [(name, form) for name, params in typed for form in _chosen(name, params, choices)]
    if (prefix := _part_names(parts)) is not None:
        typed = [(name, _parted(params, prefix)) for name, params in typed]
    key = json.dumps(typed, sort_keys=True, default=str)
    return _app_schema(key, tuple(refs), must_act, may_ask, by_ref)


# A part's name written into a pattern as it is: none of its characters is a pattern's operator.
_PLAIN_PART = re.compile(r"[A-Za-z0-9 _-]{1,31}")


def _part_names(parts: Sequence[str]) -> str | None:
    """The alternatives of a place's prefix: the parts' names, when there are some and each can be written into
    a pattern as it is (else None: the prefix stays any name)."""
    names = sorted(set(parts))
    if not names or not all(_PLAIN_PART.fullmatch(n) for n in names):
        return None
    return "|".join(names)


def _parted(node: Any, prefix: str) -> Any:
    """`node` with each place in a file (PARTED) prefixed by one of the names `prefix` alternates, or by none."""
    if isinstance(node, Mapping):
        if isinstance(area := node.get(PARTED), str):
            return {**node, "pattern": f"^(({prefix})!)?{area}$"}
        return {key: _parted(value, prefix) for key, value in node.items()}
    if isinstance(node, list):
        return [_parted(value, prefix) for value in node]
    return node


def _typed_paths(parameters: Any, paths: Sequence[str] | None, existing: Sequence[str] | None = None,
                 read_only: bool = False, writable: Sequence[str] | None = None) -> Any:
    """A tool's parameters with each typed path argument an enum of the paths of its types (of those that
    exist, where it only reads; of the writable ones, where it writes); None when a required one has no
    such path. As they are without `paths`."""
    props = parameters.get("properties") if isinstance(parameters, Mapping) else None
    if paths is None or not isinstance(props, Mapping):
        return parameters
    required = set(parameters.get("required") or ())
    there = None if existing is None else [p for p in paths if p in set(existing)]
    allowed = None if writable is None else [p for p in paths if p in set(writable)]
    changed: dict[str, Any] = {}
    for name, spec in props.items():
        item = spec.get("items") if isinstance(spec, Mapping) and spec.get("type") == "array" else None
        typed = item if isinstance(item, Mapping) else spec
        if not isinstance(typed, Mapping):
            continue
        if typed.get(WRITTEN) and not read_only and (files := _named_files(allowed)):
            changed[name] = _enum(spec, item, files)
            continue
        reads = read_only or bool(typed.get(EXISTING))
        narrowed = there if reads else allowed
        if typed.get(EDITED) and not read_only and there is not None:
            narrowed = there if allowed is None else [p for p in there if p in allowed]
        offered = paths if narrowed is None else narrowed
        types = tuple(t.lower() for t in typed.get(FILE_TYPES) or ())
        others = typed.get(NOT_FILE_TYPES)
        if types:
            fitting = sorted({p for p in offered if p.lower().endswith(types)})
        elif others is not None:
            fitting = sorted({p for p in offered if not p.endswith("/")
                              and not p.lower().endswith(tuple(t.lower() for t in others))})
        else:
            continue
        if not fitting:
            if name in required or (item is None and not _optional(spec)):
                return None
            changed[name] = {"type": "array", "maxItems": 0} if item is not None else {"type": "null"}
            continue
        changed[name] = _enum(spec, item, fitting)
    return {**parameters, "properties": {**props, **changed}} if changed else parameters


def _chosen(tool: str, parameters: Any, choices: Mapping[tuple[str, ...], Sequence[Any]]) -> list[Any]:
    """The forms of a tool's call under `choices`: each argument a (tool, argument) key names takes only those
    values (an enum, its type kept; none: that form is not offered); each (tool, argument, other) key adds a form in
    which the argument takes those values and `other`, a text, is required (a list is no item: which of its items
    is meant); a (tool, argument, other, NUMBER_TEXT) key, one in which `other` is the text of one number."""
    props = parameters.get("properties") if isinstance(parameters, Mapping) else None
    if not isinstance(props, Mapping):
        return [parameters]

    def enum(name: str, values: Sequence[Any]) -> dict[str, Any]:
        spec = props[name]
        return {**({"type": spec["type"]} if "type" in spec else {}), "enum": list(values)}

    own = {(name, *rest): values for (owner, name, *rest), values in choices.items()
           if owner == tool and isinstance(props.get(name), Mapping) and all(r in props for r in rest[:1])}
    changed = {key[0]: enum(key[0], values) for key, values in own.items() if len(key) == 1 and values}
    forms = [{**parameters, "properties": {**props, **changed, key[0]: enum(key[0], values),
                                           key[1]: NUMBER_FORM if key[2:] == (NUMBER_TEXT,) else
                                           {"type": "string", "minLength": 1}},
              "required": list(dict.fromkeys([*parameters.get("required", ()), key[1]]))}
             for key, values in own.items() if len(key) >= 2 and values]
    empty = any(len(key) == 1 and not values for key, values in own.items())
    base = [] if empty and forms else [{**parameters, "properties": {**props, **changed}} if changed else parameters]
    return [*base, *forms]


def _enum(spec: Mapping[str, Any], item: Any, paths: Sequence[str]) -> dict[str, Any]:
    enum: dict[str, Any] = {"type": "string", "enum": list(paths)}
    if item is not None:  # a list of paths: each one of them, at most as many as there are
        bounds = {k: spec[k] for k in ("minItems",) if k in spec}
        enum = {"type": "array", "items": enum, **bounds,
                "maxItems": min(int(spec.get("maxItems", len(paths))), len(paths))}
    return enum


def _named_files(writable: Sequence[str] | None) -> list[str]:
    """The writable paths, sorted, when each of them names one file (a type, no pattern, not a folder); else
    none: a folder or a pattern holds files no enum lists."""
    if not writable or any(not posixpath.splitext(p)[1] or "*" in p or "?" in p or p.endswith("/")
                           for p in writable):
        return []
    return sorted(set(writable))


def _optional(spec: Any) -> bool:
    """An argument that may be null: its default is None."""
    return isinstance(spec, Mapping) and "default" in spec and spec["default"] is None


@lru_cache(maxsize=64)
def _app_schema(key: str, refs: tuple[tuple[str, str], ...], must_act: bool, may_ask: bool,
                by_ref: bool = False) -> dict[str, Any]:
    tools = json.loads(key)
    defs: dict[str, Any] = {}
    if tools:
        options = [_closed({"function": {"type": "string", "enum": [name]},
                            "arguments": _arguments(params, refs, by_ref)}) for name, params in tools]
        defs["action"] = options[0] if len(options) == 1 else {"anyOf": options}
    action = {"$ref": "#/$defs/action"}
    head = {"observation": _text(OBSERVATION_CHARS), "thought": _text(THOUGHT_CHARS)}
    some = _array(action, 1, MAX_ACTIONS) if tools else _array({"type": "object"}, 0, 0)
    maybe = _array(action, 1 if must_act else 0, MAX_ACTIONS) if tools else _array({"type": "object"}, 0, 0)
    none = _array({"type": "object"}, 0, 0)
    result: dict[str, Any] = {"anyOf": [_text(RESULT_CHARS), {"type": "number"}]}
    ref_names = [name for name, _ in refs]
    if ref_names:
        result["anyOf"].append(_closed({REF: {"type": "string", "enum": ref_names}}))

    def status(value: str) -> dict[str, Any]:
        return {"type": "string", "enum": [value]}

    variants = [
        _closed({**head, "actions": some, "status": status("CONTINUE"), "comment": _text(COMMENT_CHARS)}),
        _closed({**head, "actions": maybe, "status": status("FINISH"), "result": result,
                 "comment": _text(COMMENT_CHARS)}),
        _closed({**head, "actions": some, "status": status("CONFIRM"), "comment": _text(COMMENT_CHARS, 1)}),
    ]
    if not must_act:
        variants.append(_closed({**head, "actions": none, "status": status("FAIL"),
                                 "comment": _text(COMMENT_CHARS, 1)}))
    if may_ask:  # forced to act, it may still ask for a value it has nowhere: made up, it would be written
        variants.append(_closed({**head, "actions": none, "status": status("PENDING"),
                                 "questions": _array(_text(QUESTION_CHARS, 1), 1, 3),
                                 "comment": _text(COMMENT_CHARS)}))
    if not tools:  # nothing to call: only the answers that call nothing
        variants = [v for v in variants if v["properties"]["status"]["enum"][0] in ("FINISH", "FAIL", "PENDING")]
    schema: dict[str, Any] = {"anyOf": variants}
    if defs:
        schema["$defs"] = defs
    return schema


@lru_cache(maxsize=32)
def choice_schema(options: Sequence[str]) -> dict[str, Any]:
    """The answer to a Choice: the request's words that settle it (quoted first: a small model that writes them
    before it chooses chooses from them, not from where an option stands in the question), then one of its
    options."""
    return _closed({"words": _text(CHOICE_WORDS), "answer": {"type": "string", "enum": list(options)}})


def host_output_schema(applications: tuple[tuple[str, tuple[str, ...]], ...], files: tuple[str, ...] = (),
                       may_confirm: bool = True, may_finish: bool = True,
                       may_ask: bool = True, may_launch: tuple[str, ...] | None = None) -> dict[str, Any]:
    """The HostAgent's answer: the seed's fields the host acts on, one alternative per status, and the
    typed subtask graph over these applications ((name, tool names) pairs) and workspace paths; CONFIRM only
    where `may_confirm`, FINISH only where `may_finish`, PENDING only where `may_ask`, CONTINUE (Bash launches
    an application) only for the applications of `may_launch` (None: all), and not where it names none: an
    application that runs already is launched by nothing, and a planner told so answered CONTINUE again.
    `Current Sub-Task`, `Message`, `ControlLabel`, `ControlText` and `Plan` (the seed's one-subtask form)
    are accepted by `HostOutput` but not asked for: `Subtasks` carries the same, and every field a small
    model writes costs seconds."""
    listed = [*files[:MAX_LISTED]]
    reads: dict[str, Any] = ({"type": "string", "enum": listed} if listed and len(files) <= MAX_LISTED
                             else _text(PATH_CHARS, 1))
    subtasks = [_closed({
        "id": _text(4, 1),
        "description": _text(DESCRIPTION_CHARS, 1),
        "application": {"type": "string", "enum": [name]},
        "reads": _array(reads, 0, 8),
        "writes": _array(_text(PATH_CHARS, 1), 0, 8),
        "tools": _array({"type": "string", "enum": list(tools)}, 1, 6) if tools else _array(_text(40), 0, 0),
        "depends_on": _array(_text(4, 1), 0, MAX_SUBTASKS),
        "hands_on": {"type": "string", "enum": [h.value for h in HandsOn]},
    }) for name, tools in applications]
    item = subtasks[0] if len(subtasks) == 1 else {"anyOf": subtasks}
    launchable = [name for name, _ in applications if may_launch is None or name in may_launch]
    head = {"Observation": _text(OBSERVATION_CHARS), "Thought": _text(THOUGHT_CHARS)}

    def status(value: str) -> dict[str, Any]:
        return {"type": "string", "enum": [value]}

    variants = [
        _closed({**head, "Status": status("ASSIGN"), "Subtasks": _array(item, 1, MAX_SUBTASKS),
                 "Comment": _text(COMMENT_CHARS)}),
        *([_closed({**head, "Status": status("FINISH"), "Comment": _text(COMMENT_CHARS)})] if may_finish else []),
        _closed({**head, "Status": status("FAIL"), "Comment": _text(COMMENT_CHARS, 1)}),
        *([_closed({**head, "Status": status("PENDING"), "Questions": _array(_text(QUESTION_CHARS, 1), 1, 3),
                    "Comment": _text(COMMENT_CHARS)})] if may_ask else []),
        *([_closed({**head, "Status": status("CONFIRM"), "Comment": _text(COMMENT_CHARS, 1)})] if may_confirm else []),
        *([_closed({**head, "Status": status("CONTINUE"), "Bash": {"type": "string", "enum": list(launchable)},
                    "Comment": _text(COMMENT_CHARS)})] if launchable else []),
    ]
    return {"anyOf": variants}
