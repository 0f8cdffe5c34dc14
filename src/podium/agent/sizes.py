"""How many bytes a queued prompt, a notification or a streamed event holds, for the agent's byte limits.

Exact for what carries the bulk (text, bytes, a `Prompt`), an estimate for the rest: containers are
summed item by item (to a bounded depth), other objects count their own size. The limits guard memory
against a flood of large inputs; they are not an accounting of every pointer.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from podium.agent.backend import Prompt
from podium.agent.events import Event

_DEPTH = 8  # deeper structures are counted by their own size: an estimate, never a recursion error


def text_size(text: str) -> int:
    """The UTF-8 length of `text` (for ASCII text, its length: no encoding on the hot path)."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def payload_size(value: Any, depth: int = 0) -> int:
    kind = type(value)
    if kind is str:
        return text_size(value)
    if kind is bytes or kind is bytearray or kind is memoryview:
        return len(value)
    if kind is Prompt:
        size = text_size(value.text)
        if value.system:
            size += text_size(value.system)
        if value.schema is not None:
            size += payload_size(value.schema, depth + 1)
        return size
    if kind is Event:
        return payload_size(value.data, depth + 1)
    if value is None or kind is bool or kind is int or kind is float:
        return 8
    if depth >= _DEPTH:
        return sys.getsizeof(value)
    if isinstance(value, Mapping):
        return sum(payload_size(k, depth + 1) + payload_size(v, depth + 1) for k, v in value.items())
    if isinstance(value, list | tuple | set | frozenset):
        return sum(payload_size(v, depth + 1) for v in value)
    if isinstance(value, str):  # a subclass (a StrEnum member, say)
        return text_size(value)
    if isinstance(value, bytes | bytearray):
        return len(value)
    return sys.getsizeof(value)
