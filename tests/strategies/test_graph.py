"""The Graph strategy as pure functions: validation before dispatch, parallel ready subtasks,
dependency results in prompts, per-agent FIFO, failure policies, stable reply order."""

from __future__ import annotations

import json

import pytest

from podium.agent.backend import Prompt
from podium.ensemble.ops import Dispatch, Halt
from podium.ensemble.strategies.graph import (
    Graph,
    Subtask,
    SubtaskStatus,
    graph_outcomes,
    parse_plan,
    render_subtask,
)
from podium.errors import ConfigError, Reason, ReasonKind
from tests.strategies.strategy_driver import BOOM, Drive, dispatches, outcomes, resp, spec


def graph(**opts) -> Drive:
    return Drive(Graph(), agents=[spec("x"), spec("y"), spec("z")], **opts)


def diamond() -> list[Subtask]:
    return [Subtask("a", "A", "x"), Subtask("b", "B", "y", ["a"]), Subtask("c", "C", "z", ["a"]),
            Subtask("d", "D", "x", ["b", "c"])]


@pytest.mark.parametrize(("opts", "message"), [
    ({}, "agents= is required"),
    ({"agents": [spec("x")], "default_agent": "q"}, "default_agent= must name one of the agents"),
    ({"agents": [spec("x")], "planner": "q"}, "planner= must name one of the agents"),
    ({"agents": [spec("x")], "on_failure": "ignore"}, "on_failure= must be one of"),
    ({"agents": [spec("x")], "render": "fmt"}, "render= must be a function"),
])
def test_bad_options(opts, message) -> None:
    with pytest.raises(ConfigError, match=message):
        Graph().init(opts)


def test_a_diamond_runs_ready_subtasks_in_parallel_with_their_inputs() -> None:
    d = graph()
    t1, ops = d.ask("request", subtasks=diamond())
    assert dispatches(ops) == [("x", "A", t1)]
    ops = d.respond("x", resp("ra", (1, 1)))
    assert dispatches(ops) == [("y", "B\n\nResults of the subtasks this one depends on:\n\n[a] ra", t1),
                               ("z", "C\n\nResults of the subtasks this one depends on:\n\n[a] ra", t1)]
    assert d.respond("z", resp("rc", (1, 1))) == []
    ops = d.respond("y", resp("rb", (1, 1)))
    assert dispatches(ops) == [("x", "D\n\nResults of the subtasks this one depends on:\n\n[b] rb\n\n[c] rc", t1)]
    ops = d.respond("x", resp("rd", (1, 1)))
    assert outcomes(ops) == [(t1, "[a] ra\n\n[b] rb\n\n[c] rc\n\n[d] rd")]
    reply = ops[0].response
    assert reply.usage.total_tokens == 8
    results = graph_outcomes(reply)
    assert [(o.id, o.status, o.result.text) for o in results] == [
        ("a", SubtaskStatus.DONE, "ra"), ("b", SubtaskStatus.DONE, "rb"),
        ("c", SubtaskStatus.DONE, "rc"), ("d", SubtaskStatus.DONE, "rd")]
    assert d.status()["phase"] == "idle"


def test_the_reply_order_is_stable_whatever_the_listing_or_completion_order() -> None:
    d = graph()
    listed = [Subtask("late", "L", "x", ["early"]), Subtask("early", "E", "y"), Subtask("free", "F", "z")]
    t1, ops = d.ask("", subtasks=listed)
    assert [a for a, _, _ in dispatches(ops)] == ["y", "z"]  # every ready subtask, at once
    d.respond("z", "rf")
    d.respond("y", "re")
    ops = d.respond("x", "rl")
    assert outcomes(ops) == [(t1, "[early] re\n\n[late] rl\n\n[free] rf")]


def test_invalid_graphs_fail_before_any_dispatch_listing_every_problem() -> None:
    d = graph()
    bad = [Subtask("a", "A", "x", ["ghost"]), Subtask("b", "B", "nobody"), Subtask("c", "C")]
    t1, ops = d.ask("", subtasks=bad)
    assert outcomes(ops) == [(t1, ReasonKind.PLAN_INVALID)] and dispatches(ops) == []
    detail = ops[0].reason.detail
    assert "'b' names unknown agent 'nobody'" in detail and "'c' names no agent" in detail
    assert "'a' depends on unknown subtask 'ghost'" in detail
    t2, ops = d.ask("", subtasks=[Subtask("p", "P", "x", ["q"]), Subtask("q", "Q", "y", ["p"])])
    assert outcomes(ops) == [(t2, ReasonKind.PLAN_INVALID)] and "dependency cycle" in ops[0].reason.detail
    assert d.status()["runs"] == {}


def test_request_errors_are_clear() -> None:
    d = graph()
    t1, ops = d.ask("do it")
    assert outcomes(ops) == [(t1, ReasonKind.INVALID_REQUEST)] and "subtasks=[Subtask(" in ops[0].reason.detail
    t2, ops = d.ask("", subtasks=diamond(), agent="x")
    assert outcomes(ops) == [(t2, ReasonKind.INVALID_REQUEST)]
    assert "unknown request option(s) agent" in ops[0].reason.detail
    t3, ops = d.ask("", subtasks=diamond(), on_failure="maybe")
    assert outcomes(ops) == [(t3, ReasonKind.INVALID_REQUEST)]


def test_subtasks_on_one_agent_wait_in_its_fifo() -> None:
    d = graph()
    subtasks = [Subtask("a", "A", "x"), Subtask("b", "B", "x"), Subtask("c", "C", "y")]
    t1, ops = d.ask("", subtasks=subtasks)
    assert dispatches(ops) == [("x", "A", t1), ("y", "C", t1)]
    assert d.status()["queued"] == 1
    assert dispatches(d.respond("x", "ra")) == [("x", "B", t1)]
    d.respond("y", "rc")
    assert outcomes(d.respond("x", "rb")) == [(t1, "[a] ra\n\n[b] rb\n\n[c] rc")]


def test_two_requests_share_the_agents_fairly() -> None:
    d = graph()
    t1, ops1 = d.ask("", subtasks=[Subtask("a", "A1", "x")])
    t2, ops2 = d.ask("", subtasks=[Subtask("a", "A2", "x"), Subtask("b", "B2", "y")])
    assert dispatches(ops1) == [("x", "A1", t1)] and dispatches(ops2) == [("y", "B2", t2)]
    ops = d.respond("x", "r1")
    assert outcomes(ops) == [(t1, "[a] r1")] and dispatches(ops) == [("x", "A2", t2)]
    assert [type(o).__name__ for o in ops] == ["Reply", "Dispatch"]


def test_fail_policy_fails_the_request_at_once() -> None:
    d = graph()
    t1, _ = d.ask("", subtasks=[Subtask("a", "A", "x"), Subtask("b", "B", "y"), Subtask("c", "C", "z", ["a"])])
    ops = d.error("y", BOOM)
    assert outcomes(ops) == [(t1, ReasonKind.STAGE_FAILED)]
    assert ops[0].reason.agent == "y" and ops[0].reason.detail == "subtask 'b' on agent 'y' failed: backend_error: boom"
    assert d.status()["runs"] == {}
    assert d.respond("x", "late") == []  # x is free again; nothing owed


def test_skip_policy_skips_dependants_and_replies_with_every_outcome() -> None:
    d = graph(on_failure="skip")
    t1, _ = d.ask("", subtasks=[*diamond(), Subtask("e", "E", "z")])
    d.respond("z", "re")  # e was ready at once; c waits behind it in z's FIFO
    d.respond("x", "ra")
    ops = d.error("y", BOOM)
    assert outcomes(ops) == []
    ops = d.respond("z", "rc")
    assert outcomes(ops) == [(t1, "[a] ra\n\n[b] FAILED: backend_error: boom\n\n[c] rc\n\n"
                                  "[d] SKIPPED: cancelled: skipped: dependency 'b' failed\n\n[e] re")]
    statuses = [o.status for o in graph_outcomes(ops[0].response)]
    assert statuses == [SubtaskStatus.DONE, SubtaskStatus.FAILED, SubtaskStatus.DONE, SubtaskStatus.SKIPPED,
                        SubtaskStatus.DONE]


def test_the_policy_can_be_chosen_per_request() -> None:
    d = graph()
    t1, _ = d.ask("", subtasks=[Subtask("a", "A", "x"), Subtask("b", "B", "y")], on_failure="skip")
    d.error("x", BOOM)
    assert outcomes(d.respond("y", "rb")) == [(t1, "[a] FAILED: backend_error: boom\n\n[b] rb")]


def test_a_rejection_fails_only_that_request() -> None:
    d = graph()
    _t1, _ = d.ask("", subtasks=[Subtask("a", "A1", "x")])
    t2, _ = d.ask("", subtasks=[Subtask("a", "A2", "x"), Subtask("b", "B2", "y", ["a"])])
    t3, _ = d.ask("", subtasks=[Subtask("a", "A3", "z"), Subtask("b", "B3", "y")])  # y busy with B3
    ops = d.respond("y", "rb3")  # y free; z still busy
    assert dispatches(ops) == []
    ops = d.respond("x", "r1")  # batch: reply t1, dispatch A2 to x
    assert dispatches(ops) == [("x", "A2", t2)]
    ops = d.reject("x", t2)
    assert outcomes(ops) == [(t2, ReasonKind.DISPATCH_REJECTED)] and "subtask 'a'" in ops[0].reason.detail
    assert d.status()["runs"].keys() == {t3}


def test_batches_with_several_runs_resend_what_a_rejection_abandoned() -> None:
    d = graph()
    t1, _ = d.ask("", subtasks=[Subtask("a", "A1", "x"), Subtask("b", "B1", "y", ["a"])])
    t2, _ = d.ask("", subtasks=[Subtask("a", "A2", "x")])  # waits for x
    ops = d.respond("x", "ra1")  # one batch: A2 to x (run 2) and B1 to y (run 1)
    b1 = "B1\n\nResults of the subtasks this one depends on:\n\n[a] ra1"
    assert dispatches(ops) == [("x", "A2", t2), ("y", b1, t1)]
    ops = d.reject("x", t2)  # the first dispatch was refused: B1 never went out
    assert outcomes(ops) == [(t2, ReasonKind.DISPATCH_REJECTED)]
    assert dispatches(ops) == [("y", b1, t1)]
    assert outcomes(d.respond("y", "rb1")) == [(t1, "[a] ra1\n\n[b] rb1")]


def test_agent_down_fails_the_run_it_was_serving_and_subtasks_waiting_for_it() -> None:
    d = graph(on_failure="skip")
    t1, _ = d.ask("", subtasks=[Subtask("a", "A", "x"), Subtask("b", "B", "y")])
    t2, _ = d.ask("", subtasks=[Subtask("p", "P", "x"), Subtask("q", "Q", "z")])
    ops = d.down("x")
    assert outcomes(ops) == [(t1, ReasonKind.AGENT_DOWN)]  # a was running on x
    assert "while running subtask 'a'" in ops[0].reason.detail
    ops = d.respond("z", "rq")  # t2's p was waiting for x: failed agent_down, skip policy goes on
    assert outcomes(ops) == [(t2, "[p] FAILED: agent_down[x]: agent 'x' went down <- agent_down: crashed\n\n[q] rq")]
    t3, ops = d.ask("", subtasks=[Subtask("a", "A", "x")])
    assert outcomes(ops) == [(t3, ReasonKind.PLAN_INVALID)] and "'x', which is down" in ops[0].reason.detail
    d.down("y")
    ops = d.down("z")
    assert isinstance(ops[-1], Halt)


def test_prompts_keep_their_settings_and_a_custom_render_gets_the_request() -> None:
    sub = Subtask("b", Prompt("B", temperature=0.0), "y", ["a"])
    rendered = render_subtask(sub, (), "req")
    assert rendered == sub.prompt
    d = graph(render=lambda s, inputs, request: f"{request}: {s.prompt} <- {[o.result.text for o in inputs]}")
    t1, _ = d.ask("trip", subtasks=[Subtask("a", "A", "x"), Subtask("b", "B", "y", ["a"])])
    assert dispatches(d.respond("x", "ra")) == [("y", "trip: B <- ['ra']", t1)]


def test_a_raising_render_fails_that_subtask() -> None:
    d = graph(render=lambda s, inputs, request: 1 / 0)
    t1, ops = d.ask("", subtasks=[Subtask("a", "A", "x")])
    assert outcomes(ops) == [(t1, ReasonKind.STAGE_FAILED)]
    assert "render raised ZeroDivisionError" in ops[0].reason.detail


def test_a_planner_agent_supplies_the_graph() -> None:
    d = graph(planner="z")
    plan = [{"id": "a", "prompt": "A", "agent": "x"}, {"id": "b", "prompt": "B", "agent": "y", "depends_on": ["a"]}]
    t1, ops = d.ask("plan a trip")
    assert dispatches(ops) == [("z", "plan a trip", t1)]
    assert d.status()["runs"] == {t1: {"planning": 1}}
    ops = d.respond("z", "```json\n" + json.dumps(plan) + "\n```")
    assert dispatches(ops) == [("x", "A", t1)]
    d.respond("x", "ra")
    assert outcomes(d.respond("y", "rb")) == [(t1, "[a] ra\n\n[b] rb")]
    t2, _ = d.ask("again")
    ops = d.respond("z", "no plan today")
    assert outcomes(ops) == [(t2, ReasonKind.PLAN_INVALID)] and "not JSON" in ops[0].reason.detail


def test_parse_plan_errors_say_what_is_wrong() -> None:
    assert parse_plan('{"subtasks": [{"id": "a", "prompt": "A"}]}') == (Subtask("a", "A"),)
    with pytest.raises(ValueError, match="must be a JSON list"):
        parse_plan('{"steps": []}')
    with pytest.raises(ValueError, match='"depends_on" must be a list'):
        parse_plan('[{"id": "a", "prompt": "A", "depends_on": "b"}]')


def test_status_reports_each_run() -> None:
    d = graph()
    t1, _ = d.ask("", subtasks=diamond())
    status = d.status()
    assert status["phase"] == "running" and status["busy"] == ("x",)
    assert status["runs"][t1] == {"waiting": 3, "ready": 0, "running": 1, "done": 0, "failed": 0, "skipped": 0}
    assert not any(isinstance(op, Dispatch) for op in d.error("y", Reason(ReasonKind.BACKEND_ERROR)))
