"""Prompt lookup: which continuation is guessed, and when guessing stops because it does not pay."""

from __future__ import annotations

from podium.backends.prefix_cache import as_tokens
from podium.backends.prompt_lookup import DraftPolicy, find_draft


def test_the_guess_is_what_followed_the_same_tokens_earlier():
    # the prompt holds a table row; the answer has started re-typing it
    row = [50, 51, 52, 53, 54, 55, 56]
    tokens = as_tokens([1, 2, *row, 3, 4, 9, 50, 51, 52])
    assert list(find_draft(tokens, limit=3)) == [53, 54, 55]
    assert list(find_draft(tokens, limit=10)) == [53, 54, 55, 56, 3, 4, 9, 50, 51, 52]


def test_no_guess_without_a_long_enough_match():
    tokens = as_tokens([1, 2, 3, 4, 5, 9, 8, 3])  # only one token (3) matches
    assert len(find_draft(tokens, limit=4, min_ngram=2)) == 0
    tokens = as_tokens([1, 2, 3, 4, 5, 9, 2, 3])  # two tokens match: enough for 2, not for 3
    assert list(find_draft(tokens, limit=2, min_ngram=2)) == [4, 5]
    assert len(find_draft(tokens, limit=2, min_ngram=3)) == 0
    assert len(find_draft(as_tokens([7]), limit=4)) == 0
    assert len(find_draft(tokens, limit=0)) == 0


def test_the_longest_match_wins_then_the_latest():
    # "7 8 9" is followed by 100 once and by 200 later; "6 7 8 9" only before 100
    tokens = as_tokens([6, 7, 8, 9, 100, 0, 7, 8, 9, 200, 0, 6, 7, 8, 9])
    assert list(find_draft(tokens, limit=1)) == [100]
    tokens = as_tokens([5, 7, 8, 9, 100, 0, 7, 8, 9, 200, 0, 1, 7, 8, 9])
    assert list(find_draft(tokens, limit=1)) == [200]


def test_fully_accepted_guesses_grow_and_partial_ones_shrink():
    policy = DraftPolicy(length=4, max_draft=16)
    policy.observe(drafted=4, accepted=4, written=5, ms=100)
    assert policy.allowed() == 8
    policy.observe(drafted=8, accepted=8, written=9, ms=150)
    policy.observe(drafted=16, accepted=16, written=17, ms=200)
    assert policy.allowed() == 16  # bounded
    policy.observe(drafted=16, accepted=3, written=4, ms=200)
    assert policy.allowed() == 4
    policy.observe(drafted=4, accepted=0, written=1, ms=100)
    assert policy.allowed() == policy.min_draft


def test_guessing_stops_where_it_is_slower_than_plain_steps_and_is_tried_again_later():
    policy = DraftPolicy(length=4, trial=3, backoff=10)
    for _ in range(5):
        policy.observe(drafted=0, accepted=0, written=1, ms=40)  # plain steps: 40 ms a token
    for _ in range(3):
        policy.observe(drafted=4, accepted=0, written=1, ms=100)  # guesses that fail: 100 ms a token
    assert policy.allowed() == 0 and policy.history == ["off"]
    for _ in range(10):
        policy.observe(drafted=0, accepted=0, written=1, ms=40)
    assert policy.allowed() > 0  # tried again after the backoff
    for _ in range(3):
        policy.observe(drafted=4, accepted=0, written=1, ms=100)
    assert policy.allowed() == 0 and policy.backoff == 40  # twice as long a pause this time


def test_guessing_that_pays_stays_on():
    policy = DraftPolicy(length=4, trial=3)
    for _ in range(5):
        policy.observe(drafted=0, accepted=0, written=1, ms=40)
    for _ in range(20):
        policy.observe(drafted=8, accepted=8, written=9, ms=150)  # 17 ms a token
    assert policy.allowed() > 0 and policy.history == []


def test_without_plain_steps_the_measured_prior_is_the_baseline():
    policy = DraftPolicy(length=4, trial=2, prior_ms=40)
    policy.observe(drafted=4, accepted=0, written=1, ms=100)
    policy.observe(drafted=4, accepted=0, written=1, ms=100)
    assert policy.allowed() == 0
    unknown = DraftPolicy(length=4, trial=2)
    unknown.observe(drafted=4, accepted=0, written=1, ms=100)
    unknown.observe(drafted=4, accepted=0, written=1, ms=100)
    assert unknown.allowed() > 0  # nothing to compare with: no verdict yet
