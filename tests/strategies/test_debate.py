"""Debate as pure functions: two agents alternate; rounds, convergence, reply forms."""

from __future__ import annotations

import pytest

from podium.ensemble.ops import Halt
from podium.ensemble.strategies._support import result_data
from podium.ensemble.strategies.debate import Debate
from podium.errors import ConfigError, ReasonKind
from tests.strategies.strategy_driver import BOOM, Drive, dispatches, outcomes, resp, spec


def debate(**opts) -> Drive:
    return Drive(Debate(), agents=[spec("pro"), spec("con")], **opts)


@pytest.mark.parametrize(("opts", "message"), [
    ({"agents": [spec("a")]}, "exactly 2"),
    ({"agents": [spec("a"), spec("b")], "first": "c"}, "first= must name one of the agents"),
    ({"agents": [spec("a"), spec("b")], "rounds": 0}, "rounds= must be an integer >= 1"),
    ({"agents": [spec("a"), spec("b")], "reply": "summary"}, "reply= must be one of"),
    ({"agents": [spec("a"), spec("b")], "reply": "synthesis"}, "synthesize= is required"),
    ({"agents": [spec("a"), spec("b")], "synthesize": str}, "only with reply='synthesis'"),
    ({"agents": [spec("a"), spec("b")], "converge": True}, "converge= must be a function"),
])
def test_bad_options(opts, message) -> None:
    with pytest.raises(ConfigError, match=message):
        Debate().init(opts)


def test_agents_alternate_for_the_given_rounds_and_reply_the_transcript() -> None:
    d = debate(rounds=3)
    t1, ops = d.tell("motion")
    assert dispatches(ops) == [("pro", "motion", t1)]
    assert dispatches(d.respond("pro", "yes")) == [("con", "yes", t1)]
    assert d.status() == {"phase": "debating", "turn": 2, "rounds": 3, "speaker": "con", "queued": 0}
    assert dispatches(d.respond("con", "no")) == [("pro", "no", t1)]
    ops = d.respond("pro", "still yes")
    assert outcomes(ops) == [(t1, "[pro] yes\n\n[con] no\n\n[pro] still yes")]
    assert result_data(ops[0].response, "transcript") == (("pro", "yes"), ("con", "no"), ("pro", "still yes"))


def test_first_picks_the_opener() -> None:
    d = debate(first="con", rounds=2)
    t1, ops = d.tell("m")
    assert dispatches(ops) == [("con", "m", t1)]
    d.respond("con", "c1")
    assert outcomes(d.respond("pro", "p1")) == [(t1, "[con] c1\n\n[pro] p1")]


def test_converge_is_tested_from_the_second_response_on() -> None:
    d = debate(rounds=10, converge=lambda text: "agree" in text, reply="last")
    t1, _ = d.tell("m")
    assert dispatches(d.respond("pro", "I agree already")) != []  # turn 1 is never tested
    ops = d.respond("con", resp("we agree", (2, 3)))
    assert outcomes(ops) == [(t1, "we agree")]


def test_last_reply_carries_every_turns_usage_and_synthesis_uses_the_function() -> None:
    d = debate(rounds=2, reply="last")
    t1, _ = d.tell("m")
    d.respond("pro", resp("a", (1, 1)))
    ops = d.respond("con", resp("b", (2, 2)))
    assert ops[0].response.text == "b" and ops[0].response.usage.total_tokens == 6
    d = debate(rounds=2, reply="synthesis", synthesize=lambda tr: "+".join(t for _, t in tr))
    t1, _ = d.tell("m")
    d.respond("pro", "a")
    assert outcomes(d.respond("con", "b")) == [(t1, "a+b")]


def test_debates_queue_and_an_error_fails_only_the_current_one() -> None:
    d = debate(rounds=2)
    t1, _ = d.tell("m1")
    t2, ops = d.tell("m2")
    assert ops == []
    d.respond("pro", "p")
    ops = d.error("con", BOOM)
    assert outcomes(ops) == [(t1, ReasonKind.STAGE_FAILED)]
    assert ops[0].reason.agent == "con" and "turn 2" in ops[0].reason.detail
    assert dispatches(ops) == [("pro", "m2", t2)]
    assert d.respond("con", "late") == []  # not its turn


def test_rejection_fails_the_debate_and_death_halts() -> None:
    d = debate()
    t1, _ = d.tell("m1")
    t2, _ = d.tell("m2")
    d.respond("pro", "p")
    ops = d.reject("con", t1)
    assert outcomes(ops) == [(t1, ReasonKind.STAGE_FAILED)] and dispatches(ops) == [("pro", "m2", t2)]
    ops = d.down("pro")
    assert outcomes(ops) == [(t2, ReasonKind.STAGE_FAILED)] and isinstance(ops[-1], Halt)


def test_a_raising_converge_fails_the_debate() -> None:
    d = debate(converge=lambda text: 1 / 0)
    t1, _ = d.tell("m")
    d.respond("pro", "a")
    assert outcomes(d.respond("con", "b")) == [(t1, ReasonKind.STRATEGY_ERROR)]
