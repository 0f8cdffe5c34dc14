"""Pool as pure functions: free worker or FIFO queue, rotation, rejection, replacement."""

from __future__ import annotations

import pytest

from podium.ensemble.ops import Halt, Start
from podium.ensemble.strategies.pool import Pool
from podium.errors import ConfigError, Reason, ReasonKind
from tests.strategies.strategy_driver import BOOM, Drive, dispatches, outcomes, spec


def pool(n: int = 2, **opts) -> Drive:
    return Drive(Pool(), worker_template=spec("w"), worker_count=n, **opts)


def test_workers_come_from_the_template() -> None:
    d = pool(3)
    assert [s.name for s in d.specs] == ["w-1", "w-2", "w-3"]
    assert all(s.behaviour is d.specs[0].behaviour for s in d.specs)
    assert d.status() == {"phase": "idle", "workers": ("w-1", "w-2", "w-3"), "free": 3, "busy": 0, "queued": 0}


@pytest.mark.parametrize(("opts", "message"), [
    ({}, "worker_template= is required"),
    ({"worker_template": spec("w"), "worker_count": 0}, "worker_count= must be an integer >= 1"),
    ({"worker_template": spec("w"), "replace_workers": "yes"}, "replace_workers= must be True or False"),
    ({"worker_template": spec("w"), "workers": 2}, "unknown option"),
])
def test_bad_options(opts, message) -> None:
    with pytest.raises(ConfigError, match=message):
        Pool().init(opts)


def test_free_workers_first_then_a_fifo_queue() -> None:
    d = pool(2)
    t1, ops1 = d.tell("a")
    t2, ops2 = d.tell("b")
    t3, ops3 = d.tell("c")
    t4, ops4 = d.tell("d")
    assert dispatches(ops1 + ops2) == [("w-1", "a", t1), ("w-2", "b", t2)]
    assert ops3 == [] and ops4 == []
    assert d.status()["queued"] == 2
    ops = d.respond("w-2", "rb")  # a finishing worker takes the oldest queued request
    assert outcomes(ops) == [(t2, "rb")] and dispatches(ops) == [("w-2", "c", t3)]
    ops = d.error("w-1", BOOM)  # a turn error fails that request only
    assert outcomes(ops) == [(t1, ReasonKind.BACKEND_ERROR)] and dispatches(ops) == [("w-1", "d", t4)]


def test_idle_workers_rotate() -> None:
    d = pool(3)
    used = []
    for i in range(6):
        _t, ops = d.tell(str(i))
        (agent, _, _), = dispatches(ops)
        used.append(agent)
        d.respond(agent, "ok")
    assert used == ["w-1", "w-2", "w-3", "w-1", "w-2", "w-3"]


def test_a_dead_worker_fails_its_token_and_is_replaced() -> None:
    d = pool(1)
    t1, _ = d.tell("a")
    t2, _ = d.tell("b")
    ops = d.down("w-1")
    assert outcomes(ops) == [(t1, ReasonKind.WORKER_DOWN)]
    assert ops[0].reason.agent == "w-1" and ops[0].reason.cause.kind is ReasonKind.AGENT_DOWN
    start = next(op for op in ops if isinstance(op, Start))
    assert start.name == "w-2" and start.behaviour is d.specs[0].behaviour
    assert dispatches(ops) == [("w-2", "b", t2)]
    assert [type(o).__name__ for o in ops] == ["ReplyError", "Start", "Dispatch"]  # started before use
    assert outcomes(d.respond("w-2", "rb")) == [(t2, "rb")]
    assert d.status()["workers"] == ("w-2",)


def test_without_replacement_the_pool_shrinks_then_halts() -> None:
    d = pool(2, replace_workers=False)
    t1, _ = d.tell("a")
    ops = d.down("w-1")
    assert outcomes(ops) == [(t1, ReasonKind.WORKER_DOWN)] and not any(isinstance(o, Halt) for o in ops)
    assert d.status()["workers"] == ("w-2",)
    ops = d.down("w-2")
    assert isinstance(ops[-1], Halt) and "pool exhausted" in ops[-1].reason.detail


def test_a_worker_that_cannot_start_is_not_replaced_forever() -> None:
    d = pool(2)
    ops = d.down("w-1", Reason(ReasonKind.INIT_FAILED, "bad key"))
    assert not any(isinstance(o, Start) for o in ops)
    assert d.status()["workers"] == ("w-2",)


def test_a_rejection_fails_the_token_and_frees_the_worker() -> None:
    d = pool(1)
    t1, _ = d.tell("a")
    ops = d.reject("w-1", t1)
    assert outcomes(ops) == [(t1, ReasonKind.DISPATCH_REJECTED)]
    assert d.status() == {"phase": "idle", "workers": ("w-1",), "free": 1, "busy": 0, "queued": 0}
    t2, ops = d.tell("b")
    assert dispatches(ops) == [("w-1", "b", t2)]


def test_after_a_rejection_the_queue_waits_for_a_busy_worker_rather_than_retry_the_refuser() -> None:
    d = pool(2)
    t1, _ = d.tell("a")
    t2, _ = d.tell("b")
    t3, _ = d.tell("c")  # queued
    ops = d.reject("w-2", t2)
    assert outcomes(ops) == [(t2, ReasonKind.DISPATCH_REJECTED)] and dispatches(ops) == []
    ops = d.respond("w-1", "ra")  # w-1 is free again: the queue moves on
    assert outcomes(ops) == [(t1, "ra")] and len(dispatches(ops)) == 1 and dispatches(ops)[0][2] == t3


def test_a_rejection_puts_back_the_dispatches_its_batch_never_applied() -> None:
    # a rejected dispatch ends its batch: a dispatch after it in the same batch never reached its worker
    d = pool(2)
    _t1, _ = d.tell("a")
    t2, _ = d.tell("b")
    t3, _ = d.tell("c")
    t4, _ = d.tell("d")  # c and d queued
    d.reject("w-2", t2)  # w-2 free, skipped while w-1 runs
    ops = d.respond("w-1", "ra")  # c to w-2, d to w-1, in one batch
    assert [(w, t) for w, _, t in dispatches(ops)] == [("w-2", t3), ("w-1", t4)]
    ops = d.reject("w-2", t3)  # ...and w-2 refuses c: d was never dispatched
    assert outcomes(ops) == [(t3, ReasonKind.DISPATCH_REJECTED)]
    assert [(w, t) for w, _, t in dispatches(ops)] == [("w-1", t4)]
    assert d.status()["busy"] == 1 and d.status()["queued"] == 0


def test_when_nothing_else_runs_the_queue_is_retried_so_no_token_hangs() -> None:
    d = pool(1)
    _t1, _ = d.tell("a")
    t2, _ = d.tell("b")  # queued behind t1
    d.respond("w-1", "ra")  # t2 dispatched to w-1
    ops = d.reject("w-1", t2)
    assert outcomes(ops) == [(t2, ReasonKind.DISPATCH_REJECTED)]
    t3, ops = d.tell("c")
    assert dispatches(ops) == [("w-1", "c", t3)]


def test_rejection_because_the_worker_is_gone_drops_and_replaces_it() -> None:
    d = pool(1)
    t1, _ = d.tell("a")
    ops = d.reject("w-1", t1, Reason(ReasonKind.AGENT_NOT_RUNNING, "no agent 'w-1'", "w-1"))
    assert outcomes(ops)[0] == (t1, ReasonKind.DISPATCH_REJECTED)
    assert [o.name for o in ops if isinstance(o, Start)] == ["w-2"]
    assert d.down("w-1") == []  # its late down signal changes nothing
    assert d.status()["workers"] == ("w-2",)
