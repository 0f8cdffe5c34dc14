"""Both state machines, transition by transition: every allowed one works, every other one is refused."""

from __future__ import annotations

import itertools

import pytest

from podium.desktop.host.fsm import (
    HOST_TRANSITIONS,
    PLANNED_EVENTS,
    STEP_EVENTS,
    SUBTASK_TRANSITIONS,
    HostEvent,
    HostMachine,
    IllegalTransition,
    SubtaskEvent,
    SubtaskMachine,
    SubtaskState,
)
from podium.desktop.wire.schemas import AppStatus, HostStatus

H, E = HostStatus, HostEvent
# Written out by hand from the docstring of podium.desktop.host.fsm (the specification), not generated.
HOST_EXPECTED = {
    (H.CONTINUE, E.PLANNED_CONTINUE): H.CONTINUE,
    (H.CONTINUE, E.PLANNED_ASSIGN): H.ASSIGN,
    (H.CONTINUE, E.PLANNED_PENDING): H.PENDING,
    (H.CONTINUE, E.PLANNED_CONFIRM): H.CONFIRM,
    (H.CONTINUE, E.PLANNED_FINISH): H.FINISH,
    (H.CONTINUE, E.VERIFIED): H.FINISH,
    (H.CONTINUE, E.PLANNED_FAIL): H.FAIL,
    (H.CONTINUE, E.RETRY): H.CONTINUE,
    (H.CONTINUE, E.GIVE_UP): H.FAIL,
    (H.CONTINUE, E.LIMIT): H.FAIL,
    (H.CONTINUE, E.BROKEN): H.ERROR,
    (H.ASSIGN, E.SUBTASK_SETTLED): H.ASSIGN,
    (H.ASSIGN, E.GRAPH_SETTLED): H.CONTINUE,
    (H.ASSIGN, E.ASK_QUESTIONS): H.PENDING,
    (H.ASSIGN, E.ASK_APPROVAL): H.CONFIRM,
    (H.ASSIGN, E.GIVE_UP): H.FAIL,
    (H.ASSIGN, E.LIMIT): H.FAIL,
    (H.ASSIGN, E.BROKEN): H.ERROR,
    (H.PENDING, E.SUBTASK_SETTLED): H.PENDING,
    (H.PENDING, E.ASK_QUESTIONS): H.PENDING,
    (H.PENDING, E.ASK_APPROVAL): H.PENDING,
    (H.PENDING, E.RESUME_PLANNER): H.CONTINUE,
    (H.PENDING, E.RESUME_SUBTASKS): H.ASSIGN,
    (H.PENDING, E.NEXT_QUESTION): H.PENDING,
    (H.PENDING, E.NEXT_APPROVAL): H.CONFIRM,
    (H.PENDING, E.GIVE_UP): H.FAIL,
    (H.PENDING, E.LIMIT): H.FAIL,
    (H.PENDING, E.BROKEN): H.ERROR,
    (H.CONFIRM, E.SUBTASK_SETTLED): H.CONFIRM,
    (H.CONFIRM, E.ASK_QUESTIONS): H.CONFIRM,
    (H.CONFIRM, E.ASK_APPROVAL): H.CONFIRM,
    (H.CONFIRM, E.RESUME_PLANNER): H.CONTINUE,
    (H.CONFIRM, E.RESUME_SUBTASKS): H.ASSIGN,
    (H.CONFIRM, E.NEXT_QUESTION): H.PENDING,
    (H.CONFIRM, E.NEXT_APPROVAL): H.CONFIRM,
    (H.CONFIRM, E.REFUSED): H.FAIL,
    (H.CONFIRM, E.GIVE_UP): H.FAIL,
    (H.CONFIRM, E.LIMIT): H.FAIL,
    (H.CONFIRM, E.BROKEN): H.ERROR,
}
S, SE = SubtaskState, SubtaskEvent
SUBTASK_EXPECTED = {
    (S.WAITING, SE.DISPATCH): S.CONTINUE,
    (S.WAITING, SE.SKIP): S.SKIPPED,
    (S.WAITING, SE.ABANDON): S.SKIPPED,
    (S.CONTINUE, SE.STEP_CONTINUE): S.CONTINUE,
    (S.CONTINUE, SE.STEP_FINISH): S.FINISH,
    (S.CONTINUE, SE.STEP_FAIL): S.FAIL,
    (S.CONTINUE, SE.STEP_ERROR): S.ERROR,
    (S.CONTINUE, SE.STEP_PENDING): S.PENDING,
    (S.CONTINUE, SE.STEP_CONFIRM): S.CONFIRM,
    (S.CONTINUE, SE.RETRY): S.CONTINUE,
    (S.CONTINUE, SE.BROKEN): S.ERROR,
    (S.CONTINUE, SE.RESTARTED): S.CONTINUE,  # the interrupted step is retried on a fresh AppAgent
    (S.CONTINUE, SE.CRASHED): S.FAIL,
    (S.CONTINUE, SE.LIMIT): S.FAIL,
    (S.CONTINUE, SE.ABANDON): S.FAIL,
    (S.PENDING, SE.ANSWERED): S.CONTINUE,
    (S.PENDING, SE.RESTARTED): S.PENDING,  # still waiting for the person; the fresh agent starts after
    (S.PENDING, SE.CRASHED): S.FAIL,
    (S.PENDING, SE.LIMIT): S.FAIL,
    (S.PENDING, SE.ABANDON): S.FAIL,
    (S.CONFIRM, SE.APPROVED): S.CONTINUE,
    (S.CONFIRM, SE.REFUSED): S.FAIL,
    (S.CONFIRM, SE.DECLINED): S.CONTINUE,
    (S.CONFIRM, SE.RESTARTED): S.CONFIRM,
    (S.CONFIRM, SE.CRASHED): S.FAIL,
    (S.CONFIRM, SE.LIMIT): S.FAIL,
    (S.CONFIRM, SE.ABANDON): S.FAIL,
}


def test_host_states_are_the_seeds_seven() -> None:
    assert {s.value for s in HostStatus} == {"CONTINUE", "ASSIGN", "FINISH", "FAIL", "ERROR", "PENDING", "CONFIRM"}


def test_the_tables_are_exactly_the_specified_ones() -> None:
    assert dict(HOST_TRANSITIONS) == HOST_EXPECTED
    assert dict(SUBTASK_TRANSITIONS) == SUBTASK_EXPECTED


@pytest.mark.parametrize(("key", "target"), HOST_EXPECTED.items(), ids=lambda v: str(v))
def test_every_host_transition(key: tuple[HostStatus, HostEvent], target: HostStatus) -> None:
    state, event = key
    machine = HostMachine(state)
    assert machine.can(event)
    assert machine.fire(event) == HostMachine(target)
    assert machine.state is state  # a value: firing returns a new machine


@pytest.mark.parametrize(("key", "target"), SUBTASK_EXPECTED.items(), ids=lambda v: str(v))
def test_every_subtask_transition(key: tuple[SubtaskState, SubtaskEvent], target: SubtaskState) -> None:
    state, event = key
    assert SubtaskMachine(state).fire(event) == SubtaskMachine(target)


def test_every_other_host_pair_is_refused_with_a_clear_error() -> None:
    refused = [(s, e) for s, e in itertools.product(HostStatus, HostEvent) if (s, e) not in HOST_EXPECTED]
    assert refused
    for state, event in refused:
        machine = HostMachine(state)
        assert not machine.can(event)
        with pytest.raises(IllegalTransition) as info:
            machine.fire(event)
        message = str(info.value)
        assert event.value in message and state.value in message and "accepts" in message
        assert info.value.state is state and info.value.event is event


def test_every_other_subtask_pair_is_refused() -> None:
    for state, event in itertools.product(SubtaskState, SubtaskEvent):
        if (state, event) not in SUBTASK_EXPECTED:
            with pytest.raises(IllegalTransition, match=f"not allowed in state {state.value}"):
                SubtaskMachine(state).fire(event)


def test_final_states_accept_nothing_and_say_so() -> None:
    for state in (H.FINISH, H.FAIL, H.ERROR):
        assert HostMachine(state).final
        with pytest.raises(IllegalTransition, match="final state"):
            HostMachine(state).fire(E.RETRY)
    for state in (S.FINISH, S.FAIL, S.ERROR, S.SKIPPED):
        assert SubtaskMachine(state).final and not SubtaskMachine(state).active


def test_every_state_is_reachable_from_the_start() -> None:
    for table, start in ((HOST_EXPECTED, H.CONTINUE), (SUBTASK_EXPECTED, S.WAITING)):
        seen, frontier = {start}, [start]
        while frontier:
            state = frontier.pop()
            for (source, _), target in table.items():
                if source is state and target not in seen:
                    seen.add(target)
                    frontier.append(target)
        assert seen == set(type(start))


def test_the_seed_workflow() -> None:
    # CONTINUE -> ASSIGN -> (AppAgent) -> CONTINUE -> FINISH, with a subtask going CONTINUE -> FINISH.
    host = HostMachine()
    assert host.state is H.CONTINUE
    host = host.fire(E.PLANNED_ASSIGN)
    sub = SubtaskMachine().fire(SE.DISPATCH).fire(SE.STEP_CONTINUE).fire(SE.STEP_FINISH)
    assert sub.state is S.FINISH
    host = host.fire(E.GRAPH_SETTLED).fire(E.PLANNED_FINISH)
    assert host.state is H.FINISH and host.final


def test_a_question_then_an_approval_queued_behind_it() -> None:
    host = HostMachine(H.ASSIGN).fire(E.ASK_QUESTIONS).fire(E.ASK_APPROVAL)
    assert host.state is H.PENDING
    host = host.fire(E.NEXT_APPROVAL)
    assert host.state is H.CONFIRM
    assert host.fire(E.RESUME_SUBTASKS).state is H.ASSIGN


def test_status_mappings_cover_every_status() -> None:
    assert set(STEP_EVENTS) == set(AppStatus)
    assert set(PLANNED_EVENTS) == set(HostStatus)
    assert PLANNED_EVENTS[HostStatus.ERROR] is E.BROKEN
    for status, event in STEP_EVENTS.items():
        assert SubtaskMachine(S.CONTINUE).fire(event).state.value == status.value
