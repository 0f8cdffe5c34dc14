"""A JSON schema as a GBNF grammar for llama.cpp, with the number bounds a grammar can hold.

llama-cpp-python's converter (`llama_cpp.llama_grammar.SchemaConverter`) ignores `minimum` and `maximum`, so a
model may write a count of -3 that the schema forbids, and the answer then fails validation as a whole. This
converter holds the bounds that a few grammar alternatives express exactly: a non-negative integer or number (no
minus sign), a positive integer or number (no leading zero, no zero), and a small integer range (its values
enumerated).
`held` says which of a node's bound keys these are, so a caller keeps those in the schema and leaves the others
to be checked after decoding.

The converter's character of a string is any but a quote or a backslash, so a model may write a raw line break
inside a string, which JSON forbids: the whole answer then fails to parse. Here a string's character is what JSON
allows (no control character unescaped), as in llama.cpp's own converter.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

SMALL_RANGE = 64  # an integer range with at most this many values is enumerated: a few hundred grammar bytes
# a character of a JSON string: anything but a quote, a backslash or a control character, or an escape
JSON_CHAR = r'[^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F])'


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def held(spec: Mapping[str, Any]) -> frozenset[str]:
    """The bound keys of a number or integer schema that the grammar of `gbnf` holds exactly."""
    kind = spec.get("type")
    low, high = spec.get("minimum"), spec.get("maximum")
    if kind == "integer" and _integer(low) and _integer(high) and 0 <= high - low < SMALL_RANGE:
        return frozenset({"minimum", "maximum"})
    if kind == "integer" and _integer(low) and low in (0, 1):
        return frozenset({"minimum"})
    if kind in ("integer", "number") and spec.get("exclusiveMinimum") == 0:
        return frozenset({"exclusiveMinimum"})
    if kind == "number" and low == 0:
        return frozenset({"minimum"})
    return frozenset()


def _rule(spec: Mapping[str, Any]) -> tuple[str, tuple[str, ...]] | None:
    """The grammar rule (and the primitive rules it uses) for a bounded number, or None: the converter's own."""
    keys = held(spec)
    if not keys:
        return None
    low = spec.get("minimum")
    if keys == {"minimum", "maximum"}:
        values = " | ".join(f'"{n}"' for n in range(int(low), int(spec["maximum"]) + 1))
        return f"({values}) space", ()
    if spec.get("type") == "integer" and (low == 1 or "exclusiveMinimum" in keys):
        return "[1-9] [0-9]{0,15} space", ()
    if spec.get("type") == "integer":
        return "integral-part space", ("integral-part",)
    if "exclusiveMinimum" in keys:  # a positive number: a digit that is not zero before or after the point
        return '([1-9] [0-9]{0,15} ("." [0-9]{1,16})? | "0." "0"{0,15} [1-9] [0-9]{0,15}) space', ()
    return ('integral-part ("." decimal-part)? ([eE] [-+]? integral-part)? space',
            ("integral-part", "decimal-part"))


def gbnf(schema_json: str) -> str:
    """The GBNF grammar of a JSON schema (text). Raises as llama-cpp-python's converter does on a schema it
    cannot convert (the caller then falls back to any JSON)."""
    from llama_cpp.llama_grammar import PRIMITIVE_RULES, RESERVED_NAMES, SchemaConverter

    class _Bounded(SchemaConverter):  # type: ignore[misc]
        def visit(self, schema: Any, name: str) -> str:
            bounded = _rule(schema) if isinstance(schema, Mapping) else None
            if bounded is None:
                return str(super().visit(schema, name))
            content, deps = bounded
            for dep in deps:
                if dep not in self._rules:
                    self._add_primitive(dep, PRIMITIVE_RULES[dep])
            return str(self._add_rule(name + "-" if name in RESERVED_NAMES else name or "root", content))

    converter = _Bounded(prop_order={}, allow_fetch=False, dotall=False, raw_pattern=False)
    schema = converter.resolve_refs(json.loads(schema_json), "stdin")
    converter.visit(schema, "")
    if "char" in converter._rules:
        converter._rules["char"] = JSON_CHAR
    return str(converter.format_grammar())
