"""Supervisor as pure functions: decompose, fan out in parallel, join in subtask order."""

from __future__ import annotations

import pytest

from podium.ensemble.ops import Halt, Start, Stop
from podium.ensemble.strategies._support import result_data
from podium.ensemble.strategies.supervisor import Supervisor
from podium.errors import ConfigError, ReasonKind
from tests.strategies.strategy_driver import BOOM, Drive, dispatches, outcomes, resp, spec


def lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def sup(**opts) -> Drive:
    return Drive(Supervisor(), coordinator=spec("boss"), worker_template=spec("w"), decomposer=lines, **opts)


def kinds(ops) -> list[str]:
    return [type(o).__name__ for o in ops]


@pytest.mark.parametrize(("opts", "message"), [
    ({"worker_template": spec("w"), "decomposer": lines}, "coordinator= is required"),
    ({"coordinator": spec("c"), "decomposer": lines}, "worker_template= is required"),
    ({"coordinator": spec("c"), "worker_template": spec("w")}, "decomposer= is required"),
    ({"coordinator": spec("c"), "worker_template": spec("w"), "decomposer": "lines"}, "must be a function"),
    ({"coordinator": spec("w"), "worker_template": spec("w"), "decomposer": lines}, "must differ"),
])
def test_bad_options(opts, message) -> None:
    with pytest.raises(ConfigError, match=message):
        Supervisor().init(opts)


def test_fan_out_in_parallel_and_join_in_subtask_order() -> None:
    d = sup()
    assert [s.name for s in d.specs] == ["boss"]
    t1, ops = d.tell("plan it")
    assert dispatches(ops) == [("boss", "plan it", t1)]
    assert d.status() == {"phase": "decomposing", "done": 0, "total": 0, "queued": 0}
    ops = d.respond("boss", resp("one\ntwo\nthree", (1, 1)))
    assert kinds(ops) == ["Start"] * 3 + ["Dispatch"] * 3  # every worker exists before any dispatch
    assert [o.name for o in ops if isinstance(o, Start)] == ["w-1", "w-2", "w-3"]
    assert dispatches(ops) == [("w-1", "one", t1), ("w-2", "two", t1), ("w-3", "three", t1)]
    assert d.respond("w-3", resp("R3", (1, 1))) == []
    assert d.respond("w-1", resp("R1", (1, 1))) == []
    assert d.status() == {"phase": "fanning_out", "done": 2, "total": 3, "queued": 0}
    ops = d.respond("w-2", resp("R2", (1, 1)))
    assert [o.name for o in ops if isinstance(o, Stop)] == ["w-1", "w-2", "w-3"]
    assert outcomes(ops) == [(t1, "R1\n\nR2\n\nR3")]  # subtask order, not arrival order
    reply = ops[-1].response
    assert reply.usage.total_tokens == 8  # coordinator + 3 workers
    assert result_data(reply, "subtasks") == (("w-1", "R1"), ("w-2", "R2"), ("w-3", "R3"))


def test_a_custom_synthesizer_gets_worker_and_text_pairs_in_subtask_order() -> None:
    d = sup(synthesizer=lambda pairs: " | ".join(f"{w}={t}" for w, t in pairs))
    t1, _ = d.tell("x")
    d.respond("boss", "a\nb")
    d.respond("w-2", "B")
    assert outcomes(d.respond("w-1", "A")) == [(t1, "w-1=A | w-2=B")]


def test_no_subtasks_means_the_coordinator_answers() -> None:
    d = sup()
    t1, _ = d.tell("x")
    assert outcomes(d.respond("boss", "   ")) == [(t1, "   ")]


def test_worker_names_are_never_reused_and_runs_queue() -> None:
    d = sup()
    t1, _ = d.tell("x")
    t2, ops = d.tell("y")
    assert ops == [] and d.status()["queued"] == 1
    d.respond("boss", "a")
    ops = d.respond("w-1", "A")
    assert outcomes(ops) == [(t1, "A")] and dispatches(ops) == [("boss", "y", t2)]
    assert kinds(ops) == ["Stop", "Reply", "Dispatch"]
    ops = d.respond("boss", "b")
    assert [o.name for o in ops if isinstance(o, Start)] == ["w-2"]


def test_a_worker_error_stops_every_worker_and_fails_only_the_current_run() -> None:
    d = sup()
    t1, _ = d.tell("x")
    t2, _ = d.tell("y")
    d.respond("boss", "a\nb")
    ops = d.error("w-2", BOOM)
    assert {o.name for o in ops if isinstance(o, Stop)} == {"w-1", "w-2"}
    assert outcomes(ops) == [(t1, ReasonKind.STAGE_FAILED)]
    assert ops[2].reason.agent == "w-2" and "subtask 2 of 2" in ops[2].reason.detail
    assert dispatches(ops) == [("boss", "y", t2)]
    assert d.respond("w-1", "late") == []  # a late sibling result is ignored


def test_a_worker_death_fails_the_current_and_every_queued_run_once() -> None:
    d = sup()
    t1, _ = d.tell("x")
    t2, _ = d.tell("y")
    t3, _ = d.tell("z")
    d.respond("boss", "a\nb\nc")
    ops = d.down("w-2")
    assert {o.name for o in ops if isinstance(o, Stop)} == {"w-1", "w-3"}
    assert outcomes(ops) == [(t1, ReasonKind.WORKER_DOWN), (t2, ReasonKind.WORKER_DOWN),
                             (t3, ReasonKind.WORKER_DOWN)]
    assert dispatches(ops) == []
    assert d.status() == {"phase": "idle", "done": 0, "total": 0, "queued": 0}
    t4, ops = d.tell("again")
    assert dispatches(ops) == [("boss", "again", t4)]


def test_coordinator_error_fails_the_run_and_coordinator_death_halts() -> None:
    d = sup()
    t1, _ = d.tell("x")
    t2, _ = d.tell("y")
    ops = d.error("boss", BOOM)
    assert outcomes(ops) == [(t1, ReasonKind.STAGE_FAILED)] and dispatches(ops) == [("boss", "y", t2)]
    ops = d.down("boss")
    assert outcomes(ops) == [(t2, ReasonKind.STAGE_FAILED)] and isinstance(ops[-1], Halt)


def test_a_rejected_worker_dispatch_fails_the_run_and_stops_the_started_workers() -> None:
    d = sup()
    t1, _ = d.tell("x")
    d.respond("boss", "a\nb\nc")
    ops = d.reject("w-2", t1)  # w-3's dispatch was abandoned with the batch
    assert {o.name for o in ops if isinstance(o, Stop)} == {"w-1", "w-2", "w-3"}
    assert outcomes(ops) == [(t1, ReasonKind.STAGE_FAILED)]
    assert ops[-1].reason.cause.kind is ReasonKind.DISPATCH_REJECTED
    assert d.status()["phase"] == "idle"


def test_a_raising_decomposer_or_synthesizer_fails_the_run_not_the_session() -> None:
    def bad(_text: str) -> list[str]:
        raise ValueError("no plan")

    d = Drive(Supervisor(), coordinator=spec("boss"), worker_template=spec("w"), decomposer=bad)
    t1, _ = d.tell("x")
    ops = d.respond("boss", "a")
    assert outcomes(ops) == [(t1, ReasonKind.INVALID_OUTPUT)] and "no plan" in ops[0].reason.detail
    d = Drive(Supervisor(), coordinator=spec("boss"), worker_template=spec("w"), decomposer=lambda t: 7)
    t1, _ = d.tell("x")
    assert outcomes(d.respond("boss", "a")) == [(t1, ReasonKind.INVALID_OUTPUT)]
    d = sup(synthesizer=lambda pairs: 1 / 0)
    t1, _ = d.tell("x")
    d.respond("boss", "a")
    ops = d.respond("w-1", "A")
    assert outcomes(ops) == [(t1, ReasonKind.STRATEGY_ERROR)] and any(isinstance(o, Stop) for o in ops)
