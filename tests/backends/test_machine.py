"""Threads and batch of the embedded model, from the machine and from [backends.local]."""

from __future__ import annotations

import pytest

from podium.backends.machine import Machine, choose_threads, this_machine
from podium.errors import ConfigError


def test_one_thread_per_physical_core_by_default():
    smt = Machine(physical_cores=4, logical_cores=8, available_bytes=16 * 2**30)
    chosen = choose_threads(smt)
    assert (chosen.n_threads, chosen.n_threads_batch, chosen.n_batch) == (4, 4, 512)


def test_little_free_memory_halves_the_batch():
    assert choose_threads(Machine(2, 2, 2 * 2**30)).n_batch == 256
    assert choose_threads(Machine(2, 2, None)).n_batch == 512


def test_settings_win_and_reading_follows_writing_when_only_that_is_set():
    machine = Machine(8, 16, 32 * 2**30)
    assert choose_threads(machine, n_threads=3).n_threads_batch == 3
    chosen = choose_threads(machine, n_threads=3, n_threads_batch=6, n_batch=128)
    assert (chosen.n_threads, chosen.n_threads_batch, chosen.n_batch) == (3, 6, 128)
    assert chosen.describe() == "3 threads writing, 6 reading, batch 128"


@pytest.mark.parametrize("bad", [0, -2, 1.5, "4", True])
def test_a_bad_setting_names_itself(bad):
    with pytest.raises(ConfigError, match=r"\[backends.local\] n_threads must be a whole number"):
        choose_threads(Machine(2, 2, None), n_threads=bad)


def test_this_machine_reports_its_cores():
    machine = this_machine()
    assert 1 <= machine.physical_cores <= machine.logical_cores
