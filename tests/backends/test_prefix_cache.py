"""The prefix cache's bookkeeping: which stored state a prompt starts from, what is kept, what is dropped."""

from __future__ import annotations

import pytest

from podium.backends.prefix_cache import PrefixCache, as_tokens, common_prefix


def seq(*parts: range | list[int]) -> list[int]:
    return [t for part in parts for t in part]


def test_common_prefix_counts_leading_equal_tokens():
    assert common_prefix(as_tokens([1, 2, 3, 4]), as_tokens([1, 2, 9])) == 2
    assert common_prefix(as_tokens([1, 2]), as_tokens([1, 2, 3])) == 2
    assert common_prefix(as_tokens([]), as_tokens([1])) == 0
    assert common_prefix(as_tokens([5]), as_tokens([1])) == 0


def test_a_prompt_starts_from_the_entry_sharing_the_most_tokens():
    cache = PrefixCache(10_000, min_tokens=4)
    instructions = list(range(100, 140))
    planner = seq(range(1, 50))
    cache.store(planner, b"p" * 100)
    cache.store(seq(instructions, [1, 2, 3, 4, 5]), b"a" * 100)  # one AppAgent's prompt
    hit = cache.lookup(seq(instructions, [7, 7, 7]))  # another AppAgent: same instructions, its own step
    assert hit is not None and hit.common == len(instructions) and hit.state == b"a" * 100
    hit = cache.lookup(seq(range(1, 30), [0]))
    assert hit is not None and hit.common == 29 and hit.state == b"p" * 100
    assert cache.lookup([9, 9, 9, 9, 9]) is None


def test_too_short_a_shared_prefix_is_no_hit():
    cache = PrefixCache(10_000, min_tokens=8)
    cache.store(list(range(20)), b"x")
    assert cache.lookup(list(range(5)) + [99] * 20) is None
    assert cache.lookup([*list(range(8)), 99]) is not None
    assert cache.stats().misses == 1 and cache.stats().hits == 1


def test_a_sequence_that_extends_an_entry_replaces_it():
    # an agent whose prompt grows step by step keeps one entry, not one per step
    cache = PrefixCache(10_000, min_tokens=2)
    cache.store(list(range(10)), b"1" * 10)
    cache.store(list(range(20)), b"2" * 20)
    assert len(cache) == 1 and cache.size == 20
    # a prefix of a stored entry adds nothing: the entry can be cut back to it
    assert not cache.store(list(range(15)), b"3" * 15)
    assert cache.covers(list(range(15))) and not cache.covers(list(range(21)))
    assert len(cache) == 1


def test_the_least_recently_used_entries_go_first_past_the_byte_bound():
    cache = PrefixCache(250, min_tokens=2)
    a, b, c = [1] * 10, [2] * 10, [3] * 10
    cache.store(a, b"a" * 100)
    cache.store(b, b"b" * 100)
    assert cache.lookup([*a, 0]) is not None  # a is now the most recently used
    cache.store(c, b"c" * 100)  # 300 bytes > 250: b goes
    assert cache.size == 200 and cache.size <= cache.capacity
    assert cache.lookup(b) is None
    assert cache.lookup(a) is not None and cache.lookup(c) is not None
    assert cache.stats().evicted == 1


def test_a_state_larger_than_the_whole_bound_is_not_kept_and_evicts_nothing():
    cache = PrefixCache(100, min_tokens=2)
    cache.store([1] * 5, b"a" * 60)
    assert not cache.store([2] * 5, b"b" * 101)
    assert len(cache) == 1 and cache.size == 60


def test_too_short_a_sequence_is_not_kept():
    cache = PrefixCache(100, min_tokens=32)
    assert not cache.store(list(range(31)), b"x")
    assert len(cache) == 0


def test_a_negative_bound_is_refused():
    with pytest.raises(ValueError, match="bytes"):
        PrefixCache(-1)
