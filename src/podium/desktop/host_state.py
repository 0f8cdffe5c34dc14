"""The host strategy's state (immutable values) and the read-only views of it: status, progress, outcome."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from podium.agent.events import Usage
from podium.desktop.blackboard import QA, Blackboard
from podium.desktop.catalog import AppInfo, Catalog
from podium.desktop.events import Progress, SubtaskProgress
from podium.desktop.fsm import HostMachine, SubtaskMachine, SubtaskState
from podium.desktop.messages import Hold
from podium.desktop.schemas import Action, SubtaskSpec
from podium.ensemble.ops import AgentSpec, Token
from podium.ensemble.strategies.graph import GraphSchedule
from podium.errors import ConfigError, Reason

PLANNER = "host"
OBSERVER = "observer"
JUDGE = "judge"


@dataclass(frozen=True, slots=True)
class HostConfig:
    """Limits and policies of the HostAgent. Every limit ends the request with FAIL and a reason."""

    max_steps: int = 100  # Host + App steps of one request
    max_session_steps: int | None = None  # Host + App steps of all the session's requests
    max_subtask_steps: int = 20
    max_wall_time: float | None = None  # seconds; the shell sends Elapsed when it passes
    max_tokens: int | None = None  # for the whole session
    max_cost: float | None = None
    max_repairs: int = 2  # re-asks after invalid output, per step
    max_plan_retries: int = 2  # re-asks after a plan failed its checks
    max_replans: int = 2  # re-plans after failed subtasks
    # Fresh agents started after a crash interrupted a step: per subtask for its AppAgent, per request
    # for the planner. The interrupted step is retried on the fresh agent; once spent, the subtask fails.
    max_agent_restarts: int = 1
    # Steps in a row in which a subtask's AppAgent ran no tool successfully (no action, only failing
    # ones, or a reading that had to be corrected): the subtask fails with that reason instead of
    # spending the rest of its steps the same way. Each such step is nudged and sampled, not greedy.
    max_idle_steps: int = 3
    # A FINISH before any change, by a subtask (or part) that was handed data, is questioned once, and
    # so is the planner's FINISH when data was handed on and nothing changed (the next step is asked to
    # make the change, or to FINISH again): small models report changes they never made.
    check_finish: bool = True
    temperature: float = 0.0  # first attempt: greedy
    retry_temperature: float = 0.7  # re-asks: sample, so the model does not repeat itself
    interactive: bool = False  # False: batch mode, nobody answers
    default_answer: str = "not available"  # batch mode's answer to every question
    auto_approve: bool = False  # batch mode: approve sensitive steps (--yes) instead of refusing them
    evaluate: bool = False  # LLM judge at the end
    blackboard_chars: int = 4000
    max_outputs: int = 5  # tool outputs kept per subtask for the subtasks that depend on it

    def __post_init__(self) -> None:
        for name in ("max_steps", "max_subtask_steps", "blackboard_chars", "max_outputs", "max_idle_steps"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ConfigError(f"HostConfig.{name} must be an integer >= 1, got {value!r}")
        for name in ("max_repairs", "max_plan_retries", "max_replans", "max_agent_restarts"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 0:
                raise ConfigError(f"HostConfig.{name} must be an integer >= 0, got {value!r}")
        for name in ("max_wall_time", "max_tokens", "max_cost", "max_session_steps"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int | float) or value <= 0):
                raise ConfigError(f"HostConfig.{name} must be a positive number or None, got {value!r}")


class InteractionKind(StrEnum):
    QUESTION = "question"
    APPROVAL = "approval"


@dataclass(frozen=True, slots=True)
class Interaction:
    """Something waiting for the person: questions (PENDING) or an approval (CONFIRM)."""

    id: str
    kind: InteractionKind
    asked_by: str
    subtask: str | None = None
    questions: tuple[str, ...] = ()
    summary: str = ""
    actions: tuple[Action, ...] = ()


@dataclass(frozen=True, slots=True)
class SubtaskRecord:
    spec: SubtaskSpec
    machine: SubtaskMachine = field(default_factory=SubtaskMachine)
    agent: str | None = None
    steps: int = 0
    repairs: int = 0
    feedback: str = ""
    answers: tuple[QA, ...] = ()
    held: tuple[Action, ...] = ()
    holds: tuple[Hold, ...] = ()  # why `held` waits for approval
    outputs: tuple[Any, ...] = ()
    result: Any = None
    reason: Reason | None = None
    restarts: int = 0  # fresh AppAgents started for it after a crash interrupted its step
    note: str = ""  # for the next step's AppAgent: its predecessor went down (until a valid step)
    nudge: str = ""  # for the next step's AppAgent: its last step made no progress, and what to do
    idle: int = 0  # steps in a row without a tool call that succeeded
    changed: tuple[str, ...] = ()  # the changes that succeeded in this subtask, as calls (the latest few)
    finish_checked: bool = False  # a FINISH without any tool call was questioned once already
    fail_checked: bool = False  # a FAIL right after a tool's error was questioned once already
    must_act: bool = False  # its next step must call a tool (it was just questioned for changing nothing)
    refused: tuple[str, ...] = ()  # what batch mode refused it and it went on without
    parts: tuple[str, ...] = ()  # what it was merged from (plan.merge_chains), done in order; () if not merged
    part: int = 0  # the part being done
    part_changes: int = 0  # changes that succeeded in this part (the whole subtask when it has no parts)
    called: tuple[str, ...] = ()  # the changing tools it called (that succeeded, or that batch mode refused)

    def asked(self, app: AppInfo | None) -> tuple[str, ...]:
        """The changing tools the words of the part at hand name (AppInfo.asked_for) and the subtask has
        not called yet (an earlier part may have made the chart its next part names; a call batch mode
        refused counts: asking again is refused again)."""
        return () if app is None else app.pending(self.doing, self.called)

    @property
    def state(self) -> SubtaskState:
        return self.machine.state

    @property
    def doing(self) -> str:
        """What its AppAgent is asked to do now: the current part, or the whole subtask."""
        return self.parts[min(self.part, len(self.parts) - 1)] if self.parts else self.spec.description


@dataclass(frozen=True, slots=True)
class Run:
    """One request, from the ask to the reply."""

    token: Token
    request: str
    machine: HostMachine = field(default_factory=HostMachine)
    schedule: GraphSchedule | None = None
    subtasks: Mapping[str, SubtaskRecord] = field(default_factory=dict)  # every subtask ever planned
    plan: tuple[str, ...] = ()
    steps: int = 0
    planner_steps: int = 0
    repairs: int = 0
    plan_retries: int = 0
    replans: int = 0
    planner_restarts: int = 0
    planner_ask: tuple[str, str, bool] = ("", "", False)  # the planner's last step: note, feedback, retry
    answers: tuple[QA, ...] = ()  # the person's answers to the planner's own questions
    waiting: tuple[Interaction, ...] = ()  # the head is the one shown to the person
    usage: Usage = field(default_factory=Usage)
    busy: Mapping[str, str] = field(default_factory=dict)  # AppAgent -> the subtask it works on
    current: str = "planning"
    comment: str = ""  # the planner's last comment
    finish_checked: bool = False  # a FINISH with no change made was questioned once already
    work_checked: bool = False  # a FINISH with work of the request left undone was questioned once already
    applications: tuple[str, ...] = ()  # offered to the planner (Catalog.needed_by); () means all
    evaluating: Mapping[str, Any] | None = None  # the outcome held back while the judge works


@dataclass(frozen=True, slots=True)
class HostState:
    config: HostConfig
    catalog: Catalog
    planner: AgentSpec
    app_specs: Mapping[str, AgentSpec]  # application -> template of its AppAgent
    observer: bool = False
    judge: bool = False
    agents: Mapping[str, str] = field(default_factory=dict)  # application -> its AppAgent (the cache)
    generations: Mapping[str, int] = field(default_factory=dict)
    fresh: frozenset[str] = frozenset()  # cached AppAgents not started yet (they start at their first step)
    planner_down: bool = False  # it went down; a fresh one starts at the planner's next step
    blackboard: Blackboard = field(default_factory=Blackboard)
    run: Run | None = None
    queue: tuple[tuple[Token, str], ...] = ()  # requests waiting for the current one to end
    usage: Usage = field(default_factory=Usage)  # the whole session's
    step_no: int = 0  # trajectory step numbers, across the session
    session_steps: int = 0  # Host + App steps dispatched, across the session
    interaction_no: int = 0
    last: Mapping[str, Any] | None = None  # the outcome of the latest finished request


def subtask_view(record: SubtaskRecord) -> SubtaskProgress:
    spec = record.spec
    return SubtaskProgress(spec.id, spec.description, spec.application, record.state.value, spec.depends_on,
                           record.steps, record.agent)


def progress(s: HostState) -> Progress:
    run = s.run
    usage = s.usage
    if run is None:
        last = s.last or {}
        return Progress(None, str(last.get("status", "idle")), (), "idle", 0, usage.input_tokens,
                        usage.output_tokens, usage.cost)
    return Progress(run.token, run.machine.state.value, tuple(subtask_view(r) for r in run.subtasks.values()),
                    run.current, run.steps, usage.input_tokens, usage.output_tokens, usage.cost,
                    tuple(i.id for i in run.waiting))


def usage_dict(usage: Usage) -> dict[str, Any]:
    return {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens, "cost": usage.cost}


def status(s: HostState) -> dict[str, Any]:
    """What `Session.status()["host"]` shows: the host state and every subtask's state."""
    run = s.run
    body: dict[str, Any] = {
        "state": "idle" if run is None else run.machine.state.value,
        "agents": dict(s.agents),
        "queued_requests": len(s.queue),
        "usage": usage_dict(s.usage),
        "session_steps": s.session_steps,
        "last": s.last,
    }
    if run is not None:
        body.update({
            "request": run.request, "token": run.token, "current": run.current, "steps": run.steps,
            "plan": list(run.plan),
            "subtasks": [{"id": r.spec.id, "description": r.spec.description, "application": r.spec.application,
                          "depends_on": list(r.spec.depends_on), "state": r.state.value, "steps": r.steps,
                          "agent": r.agent, "restarts": r.restarts} for r in run.subtasks.values()],
            "waiting_for": [{"id": i.id, "kind": i.kind.value, "asked_by": i.asked_by, "subtask": i.subtask,
                             "questions": list(i.questions), "summary": i.summary} for i in run.waiting],
        })
    return body
