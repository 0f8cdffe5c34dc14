"""The two state machines of the desktop orchestrator, as explicit transition tables.

The HostAgent's machine has the seed's seven states, CONTINUE, ASSIGN, FINISH, FAIL, ERROR, PENDING
and CONFIRM. Each subtask has its own machine over the AppAgent's statuses (CONTINUE, FINISH, FAIL,
ERROR, PENDING, CONFIRM), with WAITING before it starts and SKIPPED when it never will.

What each host state means here:
- CONTINUE: the planner (the HostAgent's model) is working: planning, re-planning, verifying.
- ASSIGN: subtasks are out on their AppAgents; the host waits for their results.
- PENDING: the host waits for the person's answers to questions (its own or an AppAgent's).
- CONFIRM: the host waits for the person's approval of a sensitive step, which has not run.
- FINISH / FAIL / ERROR: the request is over (ERROR: something broke, such as a planner whose output
  stayed invalid or a failed data-collection phase; FAIL: the work could not be done or a limit hit; an
  AppAgent whose output stayed invalid fails its subtask, and the planner decides what follows).

Both machines are values: `fire(event)` returns a new machine or raises `IllegalTransition` naming
the state, the event and what the state accepts. Nothing else in the package changes a state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType

from podium.desktop.wire.schemas import AppStatus, HostStatus
from podium.errors import PodiumError


class HostEvent(StrEnum):
    # what the planner answered (CONTINUE state)
    PLANNED_CONTINUE = "planned_continue"  # e.g. after Bash launched an application: look again
    PLANNED_ASSIGN = "planned_assign"  # a plan passed the checks; ready subtasks were dispatched
    PLANNED_PENDING = "planned_pending"
    PLANNED_CONFIRM = "planned_confirm"
    PLANNED_FINISH = "planned_finish"
    PLANNED_FAIL = "planned_fail"
    RETRY = "retry"  # invalid output or plan: the planner is asked again with the reasons
    # from the AppAgents (ASSIGN state, and while the person is being asked)
    SUBTASK_SETTLED = "subtask_settled"  # a subtask ended; other work goes on
    GRAPH_SETTLED = "graph_settled"  # nothing left that can run: the planner verifies or re-plans
    VERIFIED = "verified"  # every subtask ended FINISH, checked against the files: done without the planner
    ASK_QUESTIONS = "ask_questions"
    ASK_APPROVAL = "ask_approval"
    # after the person replied (PENDING / CONFIRM)
    RESUME_PLANNER = "resume_planner"
    RESUME_SUBTASKS = "resume_subtasks"
    NEXT_QUESTION = "next_question"  # another interaction was queued behind the one just answered
    NEXT_APPROVAL = "next_approval"
    REFUSED = "refused"  # the person refused the planner's own sensitive step
    # from anywhere before the end
    GIVE_UP = "give_up"  # work failed and no re-plan is left
    LIMIT = "limit"  # steps, wall time, tokens or cost exhausted
    BROKEN = "broken"  # a phase failed, output stayed invalid, the planner went down


class SubtaskState(StrEnum):
    WAITING = "WAITING"  # planned; not started (dependencies, or its AppAgent is busy)
    CONTINUE = AppStatus.CONTINUE.value
    PENDING = AppStatus.PENDING.value
    CONFIRM = AppStatus.CONFIRM.value
    FINISH = AppStatus.FINISH.value
    FAIL = AppStatus.FAIL.value
    ERROR = AppStatus.ERROR.value
    SKIPPED = "SKIPPED"  # will never run: a dependency failed, the run ended, or a re-plan dropped it


class SubtaskEvent(StrEnum):
    DISPATCH = "dispatch"
    STEP_CONTINUE = "step_continue"
    STEP_FINISH = "step_finish"
    STEP_FAIL = "step_fail"
    STEP_ERROR = "step_error"
    STEP_PENDING = "step_pending"
    STEP_CONFIRM = "step_confirm"
    RETRY = "retry"  # invalid output re-asked
    BROKEN = "broken"  # a phase failed or the output stayed invalid
    ANSWERED = "answered"
    APPROVED = "approved"
    REFUSED = "refused"
    DECLINED = "declined"  # refused in batch mode: the AppAgent goes on without the refused calls
    CRASHED = "crashed"  # its AppAgent went down and no restart is left
    RESTARTED = "restarted"  # its AppAgent went down; a fresh one takes over (the same state goes on)
    LIMIT = "limit"
    SKIP = "skip"  # never started and never will
    ABANDON = "abandon"  # the run ended while it was still going


class IllegalTransition(PodiumError, ValueError):
    """An event the current state does not accept: a bug in the caller, never a model's mistake."""

    def __init__(self, machine: str, state: StrEnum, event: StrEnum, allowed: frozenset[StrEnum]) -> None:
        accepted = ", ".join(sorted(e.value for e in allowed)) or "nothing (final state)"
        super().__init__(f"{machine}: event {event.value!r} is not allowed in state {state.value}; "
                         f"{state.value} accepts: {accepted}")
        self.state = state
        self.event = event


H, E = HostStatus, HostEvent
_WAITING_FOR_PERSON = {
    E.SUBTASK_SETTLED: None,  # None: stay in the same state
    E.ASK_QUESTIONS: None,  # queued behind the current interaction
    E.ASK_APPROVAL: None,
    E.RESUME_PLANNER: H.CONTINUE,
    E.RESUME_SUBTASKS: H.ASSIGN,
    E.NEXT_QUESTION: H.PENDING,
    E.NEXT_APPROVAL: H.CONFIRM,
}
_ANYWHERE = {E.GIVE_UP: H.FAIL, E.LIMIT: H.FAIL, E.BROKEN: H.ERROR}
_HOST_ROWS: dict[HostStatus, dict[HostEvent, HostStatus | None]] = {
    H.CONTINUE: {
        E.PLANNED_CONTINUE: H.CONTINUE,
        E.PLANNED_ASSIGN: H.ASSIGN,
        E.PLANNED_PENDING: H.PENDING,
        E.PLANNED_CONFIRM: H.CONFIRM,
        E.PLANNED_FINISH: H.FINISH,
        E.PLANNED_FAIL: H.FAIL,
        E.VERIFIED: H.FINISH,
        E.RETRY: H.CONTINUE,
        **_ANYWHERE,
    },
    H.ASSIGN: {
        E.SUBTASK_SETTLED: H.ASSIGN,
        E.GRAPH_SETTLED: H.CONTINUE,
        E.ASK_QUESTIONS: H.PENDING,
        E.ASK_APPROVAL: H.CONFIRM,
        **_ANYWHERE,
    },
    H.PENDING: {**_WAITING_FOR_PERSON, **_ANYWHERE},
    H.CONFIRM: {**_WAITING_FOR_PERSON, E.REFUSED: H.FAIL, **_ANYWHERE},
    H.FINISH: {},
    H.FAIL: {},
    H.ERROR: {},
}
HOST_TRANSITIONS: Mapping[tuple[HostStatus, HostEvent], HostStatus] = MappingProxyType({
    (state, event): (state if target is None else target)
    for state, row in _HOST_ROWS.items() for event, target in row.items()
})
HOST_FINAL = frozenset({H.FINISH, H.FAIL, H.ERROR})

S, SE = SubtaskState, SubtaskEvent
_RUNNING_ENDS = {SE.CRASHED: S.FAIL, SE.LIMIT: S.FAIL, SE.ABANDON: S.FAIL}
# A fresh AppAgent takes over: an interrupted step (CONTINUE) is retried on it; a subtask waiting for
# the person keeps waiting and the fresh agent starts with the reply.
_SUBTASK_ROWS: dict[SubtaskState, dict[SubtaskEvent, SubtaskState]] = {
    S.WAITING: {SE.DISPATCH: S.CONTINUE, SE.SKIP: S.SKIPPED, SE.ABANDON: S.SKIPPED},
    S.CONTINUE: {
        SE.STEP_CONTINUE: S.CONTINUE,
        SE.STEP_FINISH: S.FINISH,
        SE.STEP_FAIL: S.FAIL,
        SE.STEP_ERROR: S.ERROR,
        SE.STEP_PENDING: S.PENDING,
        SE.STEP_CONFIRM: S.CONFIRM,
        SE.RETRY: S.CONTINUE,
        SE.BROKEN: S.ERROR,
        SE.RESTARTED: S.CONTINUE,
        **_RUNNING_ENDS,
    },
    S.PENDING: {SE.ANSWERED: S.CONTINUE, SE.RESTARTED: S.PENDING, **_RUNNING_ENDS},
    S.CONFIRM: {SE.APPROVED: S.CONTINUE, SE.REFUSED: S.FAIL, SE.DECLINED: S.CONTINUE, SE.RESTARTED: S.CONFIRM,
                **_RUNNING_ENDS},
    S.FINISH: {},
    S.FAIL: {},
    S.ERROR: {},
    S.SKIPPED: {},
}
SUBTASK_TRANSITIONS: Mapping[tuple[SubtaskState, SubtaskEvent], SubtaskState] = MappingProxyType({
    (state, event): target for state, row in _SUBTASK_ROWS.items() for event, target in row.items()
})
SUBTASK_FINAL = frozenset({S.FINISH, S.FAIL, S.ERROR, S.SKIPPED})

# The AppAgent's reported status -> the event it fires.
STEP_EVENTS: Mapping[AppStatus, SubtaskEvent] = MappingProxyType({
    AppStatus.CONTINUE: SE.STEP_CONTINUE,
    AppStatus.FINISH: SE.STEP_FINISH,
    AppStatus.FAIL: SE.STEP_FAIL,
    AppStatus.ERROR: SE.STEP_ERROR,
    AppStatus.PENDING: SE.STEP_PENDING,
    AppStatus.CONFIRM: SE.STEP_CONFIRM,
})
# The planner's reported status -> the event it fires (ERROR from the model itself is BROKEN).
PLANNED_EVENTS: Mapping[HostStatus, HostEvent] = MappingProxyType({
    HostStatus.CONTINUE: E.PLANNED_CONTINUE,
    HostStatus.ASSIGN: E.PLANNED_ASSIGN,
    HostStatus.PENDING: E.PLANNED_PENDING,
    HostStatus.CONFIRM: E.PLANNED_CONFIRM,
    HostStatus.FINISH: E.PLANNED_FINISH,
    HostStatus.FAIL: E.PLANNED_FAIL,
    HostStatus.ERROR: E.BROKEN,
})


def host_accepts(state: HostStatus) -> frozenset[HostEvent]:
    return frozenset(e for (s, e) in HOST_TRANSITIONS if s is state)


def subtask_accepts(state: SubtaskState) -> frozenset[SubtaskEvent]:
    return frozenset(e for (s, e) in SUBTASK_TRANSITIONS if s is state)


@dataclass(frozen=True, slots=True)
class HostMachine:
    """The HostAgent's state; a new request starts at CONTINUE (the planner's first step)."""

    state: HostStatus = HostStatus.CONTINUE

    def fire(self, event: HostEvent) -> HostMachine:
        target = HOST_TRANSITIONS.get((self.state, event))
        if target is None:
            raise IllegalTransition("HostAgent", self.state, event, host_accepts(self.state))
        return HostMachine(target)

    def can(self, event: HostEvent) -> bool:
        return (self.state, event) in HOST_TRANSITIONS

    @property
    def final(self) -> bool:
        return self.state in HOST_FINAL


@dataclass(frozen=True, slots=True)
class SubtaskMachine:
    """One subtask's state, driven by its AppAgent's reported statuses."""

    state: SubtaskState = SubtaskState.WAITING

    def fire(self, event: SubtaskEvent) -> SubtaskMachine:
        target = SUBTASK_TRANSITIONS.get((self.state, event))
        if target is None:
            raise IllegalTransition("subtask", self.state, event, subtask_accepts(self.state))
        return SubtaskMachine(target)

    def can(self, event: SubtaskEvent) -> bool:
        return (self.state, event) in SUBTASK_TRANSITIONS

    @property
    def final(self) -> bool:
        return self.state in SUBTASK_FINAL

    @property
    def active(self) -> bool:
        """Started and not ended: its AppAgent is working on it or waiting for the person."""
        return self.state in (SubtaskState.CONTINUE, SubtaskState.PENDING, SubtaskState.CONFIRM)
