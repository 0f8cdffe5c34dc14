"""Switchboard as pure functions: routing by agent=, per-agent FIFO, rejection, agent down."""

from __future__ import annotations

import pytest

from podium.ensemble.ops import Forward, Halt, ReplyError
from podium.ensemble.strategies.switchboard import Switchboard
from podium.errors import ConfigError, ReasonKind
from tests.strategies.strategy_driver import BOOM, CRASH, Drive, dispatches, outcomes, spec


def board() -> Drive:
    return Drive(Switchboard(), agents=[spec("a"), spec("b")])


def test_init_starts_every_agent() -> None:
    d = board()
    assert [s.name for s in d.specs] == ["a", "b"]
    assert d.status() == {"phase": "idle", "pending_per_agent": {"a": 0, "b": 0}, "down": ()}


@pytest.mark.parametrize(("opts", "message"), [
    ({}, "agents= is required"),
    ({"agents": []}, "at least 1"),
    ({"agents": [spec("a"), spec("a")]}, "duplicate agent names: a"),
    ({"agents": ["a"]}, r"agents\[0\] must be an AgentSpec"),
    ({"agents": [spec("a")], "agent": "a"}, "unknown option"),
])
def test_bad_options_are_refused_at_init(opts, message) -> None:
    with pytest.raises(ConfigError, match=message):
        Switchboard().init(opts)


def test_routes_by_agent_and_answers_each_agent_in_order() -> None:
    d = board()
    t1, ops = d.tell("x", agent="a")
    assert dispatches(ops) == [("a", "x", t1)]
    t2, _ = d.tell("y", agent="b")
    t3, _ = d.tell("z", agent="a")
    assert d.status() == {"phase": "routing", "pending_per_agent": {"a": 2, "b": 1}, "down": ()}
    assert outcomes(d.respond("a", "ra")) == [(t1, "ra")]
    assert outcomes(d.error("a", BOOM)) == [(t3, ReasonKind.BACKEND_ERROR)]
    assert outcomes(d.respond("b", "rb")) == [(t2, "rb")]
    assert d.status()["phase"] == "idle"
    assert d.respond("a", "stray") == []  # nothing owed: ignored


def test_missing_and_unknown_agents_fail_clearly() -> None:
    d = board()
    t1, ops = d.ask("x")
    assert outcomes(ops) == [(t1, ReasonKind.NO_AGENT_SPECIFIED)]
    assert "agent= one of a, b" in ops[0].reason.detail
    t2, ops = d.ask("x", agent="zed")
    assert outcomes(ops) == [(t2, ReasonKind.UNKNOWN_AGENT)]
    assert "'zed' is not in this session; the agents are a, b" in ops[0].reason.detail


def test_a_rejection_removes_only_the_rejected_token() -> None:
    d = board()
    t1, _ = d.tell("x", agent="a")
    t2, _ = d.tell("y", agent="a")
    ops = d.reject("a", t2)
    assert outcomes(ops) == [(t2, ReasonKind.DISPATCH_REJECTED)]
    assert ops[0].reason.agent == "a" and ops[0].reason.cause.kind is ReasonKind.OVERLOADED
    assert outcomes(d.respond("a", "ra")) == [(t1, "ra")]


def test_agent_down_fails_only_its_tokens_and_the_last_one_halts() -> None:
    d = board()
    t1, _ = d.tell("x", agent="a")
    t2, _ = d.tell("y", agent="a")
    t3, _ = d.tell("z", agent="b")
    ops = d.down("a")
    assert outcomes(ops) == [(t1, ReasonKind.AGENT_DOWN), (t2, ReasonKind.AGENT_DOWN)]
    assert ops[0].reason.cause == CRASH
    t4, ops = d.tell("again", agent="a")
    assert outcomes(ops) == [(t4, ReasonKind.UNKNOWN_AGENT)] and "is down" in ops[0].reason.detail
    assert outcomes(d.respond("b", "rb")) == [(t3, "rb")]
    ops = d.down("b")
    assert isinstance(ops[-1], Halt) and "exhausted" in ops[-1].reason.detail


def test_notify_goes_to_the_named_agent() -> None:
    d = board()
    assert d.notify({"agent": "b", "x": 1}) == [Forward("b", {"agent": "b", "x": 1})]
    assert d.notify("no target") == []
    assert not any(isinstance(op, ReplyError) for op in d.notify({"agent": "ghost"}))
