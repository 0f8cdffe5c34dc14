"""Pipeline as pure functions: stages in order, one run at a time, failures name the stage."""

from __future__ import annotations

import pytest

from podium.agent.backend import Prompt
from podium.agent.events import Usage
from podium.ensemble.ops import Halt
from podium.ensemble.strategies.pipeline import Pipeline
from podium.errors import ConfigError, ReasonKind
from tests.strategies.strategy_driver import BOOM, Drive, dispatches, outcomes, resp, spec


def pipe() -> Drive:
    return Drive(Pipeline(), stages=[spec("draft"), spec("edit"), spec("polish")])


@pytest.mark.parametrize(("opts", "message"), [
    ({}, "stages= is required"),
    ({"stages": []}, "at least 1"),
    ({"stages": spec("a")}, "must be a list of AgentSpec"),
    ({"stages": [spec("a"), spec("a")]}, "duplicate"),
    ({"stages": [spec("a")], "stage": 1}, "unknown option"),
])
def test_bad_options(opts, message) -> None:
    with pytest.raises(ConfigError, match=message):
        Pipeline().init(opts)


def test_each_stage_feeds_the_next_and_the_last_replies_with_total_usage() -> None:
    d = pipe()
    prompt = Prompt("topic", temperature=0.1)
    t1, ops = d.tell(prompt)
    assert dispatches(ops) == [("draft", prompt, t1)]  # the caller's prompt, settings and all
    assert d.status() == {"phase": "in_stage", "stage": "draft", "stages": ("draft", "edit", "polish"), "queued": 0}
    assert dispatches(d.respond("draft", resp("v1", (1, 2)))) == [("edit", "v1", t1)]
    assert dispatches(d.respond("edit", resp("v2", (3, 4)))) == [("polish", "v2", t1)]
    ops = d.respond("polish", resp("v3", (5, 6)))
    assert outcomes(ops) == [(t1, "v3")]
    assert ops[0].response.usage == Usage(9, 12)
    assert d.status()["phase"] == "idle"


def test_one_run_at_a_time_the_rest_queue_in_order() -> None:
    d = pipe()
    t1, _ = d.tell("a")
    t2, ops2 = d.tell("b")
    _t3, _ = d.tell("c")
    assert ops2 == [] and d.status()["queued"] == 2
    d.respond("draft", "a1")
    d.respond("edit", "a2")
    ops = d.respond("polish", "a3")
    assert outcomes(ops) == [(t1, "a3")] and dispatches(ops) == [("draft", "b", t2)]
    assert [type(o).__name__ for o in ops] == ["Reply", "Dispatch"]  # the reply cannot be abandoned
    assert d.status()["queued"] == 1


def test_a_stage_error_fails_the_run_naming_the_stage_and_admits_the_next() -> None:
    d = pipe()
    t1, _ = d.tell("a")
    t2, _ = d.tell("b")
    d.respond("draft", "a1")
    ops = d.error("edit", BOOM)
    assert outcomes(ops) == [(t1, ReasonKind.STAGE_FAILED)]
    reason = ops[0].reason
    assert reason.agent == "edit" and reason.cause == BOOM
    assert reason.detail == "stage 'edit' (2 of 3) failed: backend_error: boom"
    assert dispatches(ops) == [("draft", "b", t2)]


def test_a_rejected_stage_fails_the_run_and_admits_the_next() -> None:
    d = pipe()
    t1, _ = d.tell("a")
    t2, _ = d.tell("b")
    ops = d.reject("draft", t1)
    assert outcomes(ops) == [(t1, ReasonKind.STAGE_FAILED)]
    assert ops[0].reason.cause.kind is ReasonKind.DISPATCH_REJECTED and ops[0].reason.agent == "draft"
    assert dispatches(ops) == [("draft", "b", t2)]
    assert d.reject("draft", t1) == []  # stale: that run is over


def test_a_stage_going_down_halts() -> None:
    d = pipe()
    t1, _ = d.tell("a")
    d.tell("b")
    d.respond("draft", "a1")
    ops = d.down("edit")
    assert outcomes(ops) == [(t1, ReasonKind.STAGE_FAILED)]
    assert isinstance(ops[-1], Halt) and ops[-1].reason.agent == "edit"


def test_results_from_other_agents_are_ignored() -> None:
    d = pipe()
    d.tell("a")
    assert d.respond("edit", "not its turn") == []
    assert d.error("polish") == []
