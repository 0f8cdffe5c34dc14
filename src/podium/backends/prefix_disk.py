"""Evaluated prefixes kept on disk between processes, so that a new `podium run` starts where the last one
left off.

Within one process the PrefixCache serves every prompt after an agent's first; the first ones (the
planner's and each AppAgent's instructions, tools and worked examples, about 5,000 tokens of the seed's
request, 40 s on two cores) are the same from one run to the next. When the process ends, the states the
cache holds are written here; a later process reads the tokens of every entry at start (a few KB each) and a
state (tens of MB) only when a prompt starts from it.

One folder per model file and llama-cpp-python version (a state is only valid for the model and library
that wrote it); one file per entry, written under a temporary name then renamed, so that a crash or a
second process never leaves half a file under an entry's name; the oldest entries (by last use) go first
past the bound in bytes. A file that does not read back as an entry is deleted.

Most of what a process evaluates is its own request and results, which a later process rarely repeats;
what every process repeats is the system message of each agent (instructions, tools, examples). That
state is kept apart as a head, written as soon as it is read the first time: a longer entry that extends
it does not replace it, and heads go last when the bound is reached, so a run of different requests
starts each agent's first call from its instructions instead of reading them again.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from podium.backends.prefix_cache import Tokens, as_tokens, common_prefix

_MAGIC = b"podium-prefix-1\n"
_HEADER = struct.Struct("<qq")  # tokens, state bytes
_SUFFIX = ".prefix"
_HEAD_SUFFIX = ".head" + _SUFFIX


def is_head(path: Path) -> bool:
    return path.name.endswith(_HEAD_SUFFIX)


def model_folder(root: Path, model: Path, library: str) -> Path:
    """The folder of one model file's states: named after the file's identity and the library version."""
    stat = model.stat()
    identity = f"{model.resolve()}|{stat.st_size}|{stat.st_mtime_ns}|{library}"
    return root / f"{model.stem}-{hashlib.sha256(identity.encode()).hexdigest()[:16]}"


@dataclass(frozen=True, slots=True)
class DiskHit:
    tokens: Tokens
    path: Path
    common: int


class DiskPrefixes:
    def __init__(self, folder: Path, capacity: int, *, min_tokens: int = 32) -> None:
        self.folder = folder
        self.capacity = capacity
        self.min_tokens = min_tokens
        self._entries: dict[Path, Tokens] = {}
        folder.mkdir(parents=True, exist_ok=True)
        for path in folder.glob(f"*{_SUFFIX}"):
            tokens = self._read_tokens(path)
            if tokens is None:
                path.unlink(missing_ok=True)
            else:
                self._entries[path] = tokens

    def __len__(self) -> int:
        return len(self._entries)

    @staticmethod
    def _read_tokens(path: Path) -> Tokens | None:
        try:
            with path.open("rb") as file:
                if file.read(len(_MAGIC)) != _MAGIC:
                    return None
                count, size = _HEADER.unpack(file.read(_HEADER.size))
                tokens = np.frombuffer(file.read(4 * count), dtype=np.int32)
                if len(tokens) != count or path.stat().st_size != len(_MAGIC) + _HEADER.size + 4 * count + size:
                    return None
                return tokens
        except (OSError, struct.error, ValueError):
            return None

    def lookup(self, tokens: Tokens) -> DiskHit | None:
        best: DiskHit | None = None
        for path, stored in self._entries.items():
            common = common_prefix(stored, tokens)
            if common >= self.min_tokens and (best is None or common > best.common):
                best = DiskHit(stored, path, common)
        return best

    def read(self, hit: DiskHit) -> bytes | None:
        """The state of `hit`, or None when its file is gone or damaged (the entry is then forgotten)."""
        try:
            with hit.path.open("rb") as file:
                file.seek(len(_MAGIC))
                count, size = _HEADER.unpack(file.read(_HEADER.size))
                file.seek(4 * count, os.SEEK_CUR)
                state = file.read(size)
            if len(state) != size:
                raise ValueError("short state")
            os.utime(hit.path)  # last use, for the eviction order
            return state
        except (OSError, struct.error, ValueError):
            self._entries.pop(hit.path, None)
            with contextlib.suppress(OSError):
                hit.path.unlink()
            return None

    def covers(self, tokens: Tokens) -> bool:
        return any(len(stored) >= len(tokens) and common_prefix(stored, tokens) == len(tokens)
                   for stored in self._entries.values())

    def holds_head(self, tokens: Tokens) -> bool:
        """Whether `tokens` are kept as a head already."""
        return any(is_head(path) and np.array_equal(stored, tokens) for path, stored in self._entries.items())

    def store(self, tokens: Tokens | list[int], state: bytes | bytearray, *, head: bool = False) -> bool:
        """Keep `state` as the state after `tokens`, a head (see the module) or a plain entry; False when it
        is not kept (too short, larger than the whole bound, already held, or the disk refused)."""
        key = as_tokens(tokens).copy()  # a caller's buffer (the decoder's context) is overwritten later
        size = len(_MAGIC) + _HEADER.size + 4 * len(key) + len(state)
        held = self.holds_head(key) if head else self.covers(key)
        if len(key) < self.min_tokens or size > self.capacity or held:
            return False
        path = self.folder / f"{hashlib.sha256(key.tobytes()).hexdigest()[:24]}{_HEAD_SUFFIX if head else _SUFFIX}"
        temporary = path.with_name(f".{path.name}.{os.getpid()}.partial")
        try:
            with temporary.open("wb") as file:
                file.write(_MAGIC)
                file.write(_HEADER.pack(len(key), len(state)))
                file.write(key.tobytes())
                file.write(state)
            os.replace(temporary, path)
        except OSError:
            temporary.unlink(missing_ok=True)
            return False
        for other, stored in list(self._entries.items()):
            if not is_head(other) and common_prefix(stored, key) == len(stored):  # the new entry extends it
                self._forget(other)
        self._entries[path] = key
        self._evict()
        return True

    def _forget(self, path: Path) -> None:
        self._entries.pop(path, None)
        with contextlib.suppress(OSError):
            path.unlink()

    def _evict(self) -> None:
        def used(path: Path) -> float:
            try:
                return path.stat().st_mtime
            except OSError:
                return 0.0

        files = sorted(self._entries, key=lambda path: (is_head(path), used(path)))
        total = sum(path.stat().st_size for path in files if path.exists())
        while total > self.capacity and files:
            oldest = files.pop(0)
            with contextlib.suppress(OSError):
                total -= oldest.stat().st_size
            self._forget(oldest)
