"""Thread and batch settings of the embedded model, chosen from the machine it runs on.

llama.cpp's matrix kernels saturate a core's vector units: a second thread on the same physical core (SMT)
adds contention rather than speed, and more threads than cores make every step wait for the slowest one.
So the default is one thread per physical core (psutil), for writing and for reading alike. The batch (how
many prompt tokens one evaluation takes) trades the compute buffer's memory for fewer, larger steps: 512
unless the machine has little memory to spare. Every value can be set in [backends.local]
(n_threads, n_threads_batch, n_batch).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from podium.errors import ConfigError

_SMALL_MEMORY = 4 * 2**30  # bytes available under which the batch is halved


@dataclass(frozen=True, slots=True)
class Machine:
    physical_cores: int
    logical_cores: int
    available_bytes: int | None


def this_machine() -> Machine:
    import psutil

    logical = psutil.cpu_count(logical=True) or os.cpu_count() or 1
    physical = psutil.cpu_count(logical=False) or logical
    try:
        available: int | None = int(psutil.virtual_memory().available)
    except (OSError, RuntimeError):  # a sandbox without /proc/meminfo
        available = None
    return Machine(max(1, physical), max(1, logical), available)


@dataclass(frozen=True, slots=True)
class ThreadSettings:
    n_threads: int  # writing: one token at a time
    n_threads_batch: int  # reading: the prompt, in batches
    n_batch: int

    def describe(self) -> str:
        return f"{self.n_threads} threads writing, {self.n_threads_batch} reading, batch {self.n_batch}"


def _positive(name: str, value: int | None) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"[backends.local] {name} must be a whole number >= 1, got {value!r}")
    return value


def choose_threads(machine: Machine, *, n_threads: int | None = None, n_threads_batch: int | None = None,
                   n_batch: int | None = None) -> ThreadSettings:
    """The settings for `machine`; any value given explicitly wins (n_threads_batch follows n_threads
    when only that is given)."""
    n_threads = _positive("n_threads", n_threads)
    n_threads_batch = _positive("n_threads_batch", n_threads_batch)
    n_batch = _positive("n_batch", n_batch)
    writing = n_threads or machine.physical_cores
    reading = n_threads_batch or n_threads or machine.physical_cores
    small = machine.available_bytes is not None and machine.available_bytes < _SMALL_MEMORY
    return ThreadSettings(writing, reading, n_batch or (256 if small else 512))
