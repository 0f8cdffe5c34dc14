"""TOML text from parsed TOML (what `tomllib` gives): the runner writes configurations it merged."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


def toml_text(data: Mapping[str, Any]) -> str:
    """A TOML document for `data`: tables of strings, numbers, booleans, arrays and nested tables."""
    lines: list[str] = []
    _table(data, (), lines)
    return "\n".join(lines).lstrip("\n") + "\n"


def _table(data: Mapping[str, Any], where: tuple[str, ...], lines: list[str]) -> None:
    plain = {k: v for k, v in data.items() if not isinstance(v, Mapping)}
    if where and (plain or not any(isinstance(v, Mapping) for v in data.values())):
        lines += ["", f"[{'.'.join(_key(k) for k in where)}]"]
    lines += [f"{_key(k)} = {_value(v)}" for k, v in plain.items()]
    for key, value in data.items():
        if isinstance(value, Mapping):
            _table(value, (*where, key), lines)


def _key(key: str) -> str:
    bare = key.replace("_", "").replace("-", "").isalnum() and key.isascii()
    return key if bare else json.dumps(key)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a TOML basic string
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no TOML value for {type(value).__name__}")
