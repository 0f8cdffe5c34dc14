"""GraphSchedule: the pure scheduling value the Graph strategy and the desktop orchestrator share."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from podium.ensemble.strategies.graph_schedule import (
    FailurePolicy,
    GraphInvalid,
    GraphSchedule,
    ScheduleError,
    Subtask,
    SubtaskStatus,
    stable_order,
)
from podium.errors import ConfigError, Reason, ReasonKind

BOOM = Reason(ReasonKind.BACKEND_ERROR, "boom")


def diamond() -> list[Subtask]:
    return [
        Subtask("a", "A", "x"),
        Subtask("b", "B", "y", ["a"]),
        Subtask("c", "C", "x", ["a"]),
        Subtask("d", "D", "y", ["b", "c"]),
    ]


def ids(subtasks) -> list[str]:
    return [s.id for s in subtasks]


def test_ready_start_complete_walks_a_diamond() -> None:
    g = GraphSchedule.build(diamond())
    assert ids(g.ready()) == ["a"]
    g = g.start("a")
    assert g.ready() == () and g.running == {"a"}
    g = g.complete("a", "ra")
    assert ids(g.ready()) == ["b", "c"]
    g = g.start("b", "c").complete("c", "rc")
    assert g.ready() == () and g.status("d") is SubtaskStatus.WAITING
    g = g.complete("b", "rb")
    assert ids(g.ready()) == ["d"]
    assert [(o.id, o.result) for o in g.inputs("d")] == [("b", "rb"), ("c", "rc")]
    g = g.start("d").complete("d", "rd")
    assert g.finished and g.succeeded
    assert [(o.id, o.status, o.result) for o in g.outcomes()] == [
        ("a", SubtaskStatus.DONE, "ra"), ("b", SubtaskStatus.DONE, "rb"),
        ("c", SubtaskStatus.DONE, "rc"), ("d", SubtaskStatus.DONE, "rd")]


def test_transitions_never_mutate_the_schedule() -> None:
    g0 = GraphSchedule.build(diamond())
    g1 = g0.start("a")
    g2 = g1.complete("a", "ra")
    assert g0.running == frozenset() and ids(g0.ready()) == ["a"]
    assert g1.results == {} and g1.running == {"a"}
    assert g2.results == {"a": "ra"}


def test_stable_order_keeps_caller_order_where_dependencies_allow() -> None:
    listed = [Subtask("z", "", depends_on=["m"]), Subtask("m", ""), Subtask("b", ""), Subtask("a", "")]
    assert ids(stable_order(listed)) == ["m", "z", "b", "a"]
    already_topological = diamond()
    assert ids(stable_order(already_topological)) == ["a", "b", "c", "d"]


def test_fail_policy_fails_the_whole_graph_and_starts_nothing_more() -> None:
    g = GraphSchedule.build([*diamond(), Subtask("e", "E", "x")], on_failure="fail")
    g = g.start("a", "e").fail("a", BOOM)
    assert g.finished and not g.succeeded
    assert g.ready() == ()
    assert g.failed == {"a"} and g.skipped == {"b", "c", "d"}
    # a subtask still running when the graph failed may still report; it changes nothing
    g = g.complete("e", "re")
    assert g.finished and g.results == {"e": "re"}


def test_skip_policy_skips_only_dependants() -> None:
    g = GraphSchedule.build([*diamond(), Subtask("e", "E", "x")], on_failure=FailurePolicy.SKIP)
    g = g.start("a", "e").complete("a", "ra").start("b", "c").fail("b", BOOM)
    assert g.skipped == {"d"} and not g.finished
    assert g.outcome("d").reason is not None and "'b'" in g.outcome("d").reason.detail
    g = g.complete("c", "rc")
    assert not g.finished  # e still runs
    g = g.complete("e", "re")
    assert g.finished and not g.succeeded
    assert [o.status for o in g.outcomes()] == [SubtaskStatus.DONE, SubtaskStatus.FAILED,
                                                SubtaskStatus.DONE, SubtaskStatus.SKIPPED,
                                                SubtaskStatus.DONE]


def test_retry_unblocks_the_dependants() -> None:
    g = GraphSchedule.build(diamond(), on_failure="skip").start("a").fail("a", BOOM)
    assert g.finished and g.skipped == {"b", "c", "d"}
    g = g.retry("a")
    assert ids(g.ready()) == ["a"] and not g.finished


def test_extend_adds_subtasks_after_the_existing_ones() -> None:
    g = GraphSchedule.build(diamond()[:2]).start("a").complete("a", "ra")
    g = g.extend([Subtask("z", "Z", depends_on=["a"])])
    assert ids(g.subtasks) == ["a", "b", "z"]
    assert ids(g.ready()) == ["b", "z"]
    with pytest.raises(GraphInvalid, match="unknown subtask 'nope'"):
        g.extend([Subtask("q", "Q", depends_on=["nope"])])


@pytest.mark.parametrize(("subtasks", "message"), [
    ([], "no subtasks"),
    ([Subtask("a", ""), Subtask("a", "")], "duplicate subtask id 'a'"),
    ([Subtask("a", "", depends_on=["ghost"])], "'a' depends on unknown subtask 'ghost'"),
    ([Subtask("a", "", depends_on=["a"])], "dependency cycle a -> a"),
    ([Subtask("", "")], "empty or non-string id"),
    (["not a subtask"], "expected a Subtask"),
])
def test_invalid_graphs_are_refused_with_every_problem(subtasks, message) -> None:
    with pytest.raises(GraphInvalid, match=message) as info:
        GraphSchedule.build(subtasks)
    assert isinstance(info.value, ConfigError)
    assert info.value.reason.kind is ReasonKind.PLAN_INVALID


def test_cycle_is_named() -> None:
    subtasks = [Subtask("a", "", depends_on=["c"]), Subtask("b", "", depends_on=["a"]),
                Subtask("c", "", depends_on=["b"]), Subtask("d", "")]
    with pytest.raises(GraphInvalid) as info:
        GraphSchedule.build(subtasks)
    (problem,) = info.value.problems
    assert problem.startswith("dependency cycle")
    assert {"a", "b", "c"} <= set(problem.replace("dependency cycle", "").replace("->", " ").split())


def test_unknown_and_missing_agents_are_refused_when_agents_are_known() -> None:
    subtasks = [Subtask("a", "", "x"), Subtask("b", "", "nobody"), Subtask("c", "")]
    with pytest.raises(GraphInvalid) as info:
        GraphSchedule.build(subtasks, agents=["x"])
    assert info.value.problems == ("subtask 'b' names unknown agent 'nobody' (known: x)",
                                   "subtask 'c' names no agent and there is no default agent")
    g = GraphSchedule.build(subtasks[::2], agents=["x"], default_agent="x")
    assert g.agent_of("c") == "x"


def test_bad_transitions_raise_schedule_errors() -> None:
    g = GraphSchedule.build(diamond())
    with pytest.raises(ScheduleError, match="cannot start: it is waiting"):
        g.start("d")
    with pytest.raises(ScheduleError, match="no subtask 'nope'"):
        g.complete("nope", 1)
    g = g.start("a").complete("a", 1)
    with pytest.raises(ScheduleError, match="cannot complete subtask 'a': it is done"):
        g.complete("a", 2)


@st.composite
def dags(draw):
    n = draw(st.integers(1, 8))
    subtasks = []
    for i in range(n):
        deps = draw(st.lists(st.integers(0, i - 1), unique=True)) if i else []
        subtasks.append(Subtask(f"s{i}", f"p{i}", depends_on=[f"s{d}" for d in deps]))
    order = draw(st.permutations(subtasks))
    return list(order)


@given(dags(), st.data())
def test_any_run_order_ends_with_every_subtask_decided(subtasks, data) -> None:
    policy = data.draw(st.sampled_from(list(FailurePolicy)))
    g = GraphSchedule.build(subtasks, on_failure=policy)
    order = ids(g.subtasks)
    for s in g.subtasks:  # the stable order is topological
        assert all(order.index(d) < order.index(s.id) for d in s.depends_on)
    for _ in range(64):
        ready, running = g.ready(), sorted(g.running)
        if not ready and not running:
            break
        if ready and (not running or data.draw(st.booleans())):
            g = g.start(data.draw(st.sampled_from(ready)).id)
            continue
        sid = data.draw(st.sampled_from(running))
        g = g.fail(sid, BOOM) if data.draw(st.booleans()) else g.complete(sid, sid)
    assert g.finished
    assert g.ready() == ()
    statuses = {o.id: o.status for o in g.outcomes()}
    assert SubtaskStatus.WAITING not in statuses.values() and SubtaskStatus.READY not in statuses.values()
    for s in g.subtasks:
        if statuses[s.id] is SubtaskStatus.DONE:
            assert all(statuses[d] is SubtaskStatus.DONE for d in s.depends_on)
