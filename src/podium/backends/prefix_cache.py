"""Which evaluated prefixes of the embedded model are kept, and which one a new prompt should start from.

The model's KV state after reading a sequence of tokens can be restored later, and cut back to any of its
prefixes, instead of reading those tokens again (about 10 ms a token on two cores, 3 ms to restore 2,000).
The process shares one model between the planner and every AppAgent, and their calls alternate, so the one
sequence in the model's context is usually another agent's: this cache keeps the sequences that were
evaluated, as opaque state blobs keyed by their tokens, least recently used first out, bounded in bytes.

A lookup returns the entry sharing the longest prefix with the new prompt; the caller restores it and cuts
it to that prefix. An entry that is a prefix of another one serves nothing the longer one does not (a
state can always be cut back), so storing a sequence drops the entries it extends: an agent whose prompt
grows step by step keeps one entry, and two agents whose prompts share their instructions keep one each
(the shared part is stored twice: simpler and faster than a tree of partial states, and the bound in bytes
holds either way).

Pure bookkeeping: no llama.cpp here, so it is tested with plain bytes.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Tokens = npt.NDArray[np.int32]


def as_tokens(tokens: Sequence[int] | Tokens) -> Tokens:
    return np.asarray(tokens, dtype=np.int32)


def common_prefix(a: Tokens, b: Tokens) -> int:
    """The number of leading tokens `a` and `b` share."""
    n = min(len(a), len(b))
    if n == 0:
        return 0
    differ = np.flatnonzero(a[:n] != b[:n])
    return int(differ[0]) if len(differ) else n


@dataclass(frozen=True, slots=True)
class PrefixHit:
    """A stored state and how many of the prompt's tokens it already holds."""

    tokens: Tokens  # the stored entry's whole sequence
    state: bytes | bytearray
    common: int


@dataclass(frozen=True, slots=True)
class CacheStats:
    entries: int
    bytes: int
    capacity: int
    hits: int
    misses: int
    evicted: int


class PrefixCache:
    """Token sequences and their saved model states, least recently used first out past `capacity` bytes.
    Not thread-safe: the embedded model's lock already serialises every use."""

    def __init__(self, capacity: int, *, min_tokens: int = 32) -> None:
        if capacity < 0:
            raise ValueError(f"a prefix cache's capacity is a number of bytes >= 0, got {capacity}")
        self.capacity = capacity
        self.min_tokens = min_tokens  # shorter sequences are cheaper to read again than to keep
        self._entries: OrderedDict[bytes, tuple[Tokens, bytes | bytearray]] = OrderedDict()
        self._bytes = 0
        self._hits = self._misses = self._evicted = 0

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def size(self) -> int:
        return self._bytes

    def stats(self) -> CacheStats:
        return CacheStats(len(self._entries), self._bytes, self.capacity, self._hits, self._misses, self._evicted)

    def lookup(self, tokens: Sequence[int] | Tokens) -> PrefixHit | None:
        """The entry sharing the most leading tokens with `tokens` (at least min_tokens), now the most
        recently used; None when no entry shares that many."""
        wanted = as_tokens(tokens)
        best: tuple[int, bytes] | None = None
        for key, (stored, _) in self._entries.items():
            common = common_prefix(stored, wanted)
            if common >= self.min_tokens and (best is None or common > best[0]):
                best = (common, key)
        if best is None:
            self._misses += 1
            return None
        self._hits += 1
        self._entries.move_to_end(best[1])
        stored, state = self._entries[best[1]]
        return PrefixHit(stored, state, best[0])

    def covers(self, tokens: Sequence[int] | Tokens) -> bool:
        """Whether an entry already holds all of `tokens` (it equals or extends them)."""
        wanted = as_tokens(tokens)
        return any(len(stored) >= len(wanted) and common_prefix(stored, wanted) == len(wanted)
                   for stored, _ in self._entries.values())

    def store(self, tokens: Sequence[int] | Tokens, state: bytes | bytearray) -> bool:
        """Keep `state` as the state after `tokens`; False when it is not kept (too short, larger than
        the whole capacity, or already covered by an entry)."""
        key_tokens = as_tokens(tokens).copy()
        if len(key_tokens) < self.min_tokens or len(state) > self.capacity or self.covers(key_tokens):
            return False
        for key, (stored, _) in list(self._entries.items()):
            if common_prefix(stored, key_tokens) == len(stored):  # the new entry extends it
                self._drop(key)
        key = key_tokens.tobytes()
        self._entries[key] = (key_tokens, state)
        self._bytes += len(state)
        while self._bytes > self.capacity:
            self._drop(next(iter(self._entries)))
            self._evicted += 1
        return True

    def items(self) -> list[tuple[Tokens, bytes | bytearray]]:
        """The entries, least recently used first."""
        return list(self._entries.values())

    def clear(self) -> None:
        self._entries.clear()
        self._bytes = 0

    def _drop(self, key: bytes) -> None:
        _, state = self._entries.pop(key)
        self._bytes -= len(state)
