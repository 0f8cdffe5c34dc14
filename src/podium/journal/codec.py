"""JSON for podium's values: strategy inputs, ops, responses and reasons survive a round trip.

A dataclass is written as `{"$": "<registered name or module:Qualname>", field: value...}`, an enum as
`{"$enum": "<name>", "value": ...}`, a tuple as `{"$tuple": [...]}`. Objects that are not values
(behaviours, backends, clients) are written as `{"$opaque": "<module.Type>"}` and read back as `Opaque`: a record
keeps what happened, not live objects, and replay gets those from the strategy it re-runs.
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from podium.agent.backend import Prompt
from podium.agent.events import Event, EventKind, Response, Usage
from podium.ensemble import inputs, ops
from podium.errors import Reason, ReasonKind


@dataclass(frozen=True, slots=True)
class Opaque:
    """Stands in for an object that is not a value (a behaviour, a backend) in a decoded record."""

    repr: str


_TYPES: dict[str, type] = {}
_ENUMS: dict[str, type[enum.Enum]] = {}


def register(cls: type) -> type:
    """Make a dataclass or enum known to the codec (by its class name, which must be unique)."""
    table: dict[str, Any] = _ENUMS if issubclass(cls, enum.Enum) else _TYPES
    existing = table.get(cls.__name__)
    if existing is not None and existing is not cls:
        raise ValueError(f"codec: two types named {cls.__name__}: {existing} and {cls}")
    table[cls.__name__] = cls
    return cls


for _cls in (Reason, Event, Usage, Response, Prompt, Opaque, *(
        getattr(ops, n) for n in ("AgentSpec", "Start", "Stop", "Dispatch", "Reply", "ReplyError", "Forward", "Halt")),
        *(getattr(inputs, n) for n in ("TellInput", "AskInput", "ResponseInput", "ErrorInput", "NotifyInput",
                                       "AgentDownInput", "DispatchRejectedInput"))):
    register(_cls)
for _enum in (ReasonKind, EventKind):
    register(_enum)


def to_jsonable(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, enum.Enum):
        name = type(value).__name__
        return {"$enum": name, "value": value.value} if name in _ENUMS else value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        cls = type(value)
        name = cls.__name__ if _TYPES.get(cls.__name__) is cls else f"{cls.__module__}:{cls.__qualname__}"
        return {"$": name, **{f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}}
    if isinstance(value, tuple):
        return {"$tuple": [to_jsonable(v) for v in value]}
    if isinstance(value, list):
        return [to_jsonable(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if hasattr(value, "model_dump"):  # a pydantic model: keep its data
        return to_jsonable(value.model_dump(mode="json"))
    return _opaque(value)


def _opaque(value: Any) -> dict[str, str]:
    # The type, never the repr: a repr may hold an address (unstable) or a secret (an API key).
    cls = type(value)
    return {"$opaque": f"{cls.__module__}.{cls.__qualname__}"}


def from_jsonable(data: Any) -> Any:
    if isinstance(data, list):
        return [from_jsonable(v) for v in data]
    if not isinstance(data, dict):
        return data
    if "$" in data:
        cls = _TYPES.get(data["$"]) or _importable(data["$"])
        fields = {k: from_jsonable(v) for k, v in data.items() if k != "$"}
        return cls(**fields) if cls is not None else Opaque(data["$"])
    if "$enum" in data:
        enum_cls = _ENUMS.get(data["$enum"])
        return enum_cls(data["value"]) if enum_cls is not None else data["value"]
    if "$tuple" in data:
        return tuple(from_jsonable(v) for v in data["$tuple"])
    if "$opaque" in data:
        return Opaque(data["$opaque"])
    return {k: from_jsonable(v) for k, v in data.items()}


def _importable(path: str) -> type | None:
    """A dataclass of podium's own packages, by `module:Qualname`; nothing outside podium is imported."""
    module, _, qualname = path.partition(":")
    if not module.startswith("podium.") or not qualname:
        return None
    try:
        obj: Any = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        return None
    return obj if isinstance(obj, type) and dataclasses.is_dataclass(obj) else None


def _opaque_leaf(data: Any) -> bool:
    return isinstance(data, dict) and ("$opaque" in data or data.get("$") == "Opaque")


def same_values(a: Any, b: Any) -> bool:
    """Two decoded JSON records are the same, objects that are not values (recorded by type only) aside:
    a replay's stand-in backend is the recorded backend's equal."""
    if _opaque_leaf(a) or _opaque_leaf(b):
        return _opaque_leaf(a) and _opaque_leaf(b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_values(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_values(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b and type(a) is type(b))


def dumps(value: Any) -> str:
    return json.dumps(to_jsonable(value), separators=(",", ":"), ensure_ascii=False)


def loads(text: str) -> Any:
    return from_jsonable(json.loads(text))
