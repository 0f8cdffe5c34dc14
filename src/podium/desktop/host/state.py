"""The host strategy's state (immutable values) and the read-only views of it: status, progress.

Everything the host decides from is here, so a run is fully described by the inputs its strategy
received: the plan with its declarations, each subtask's step memory (what its calls did, what they
changed, what they handed on), what the run created, and who is being asked what.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from podium.agent.events import Usage
from podium.desktop.blackboard import DEFAULT_ANSWER, QA, Blackboard
from podium.desktop.host.artifacts import Artifact
from podium.desktop.host.capability import Hold
from podium.desktop.host.catalog import Catalog
from podium.desktop.host.fsm import HostMachine, SubtaskMachine, SubtaskState
from podium.desktop.person import Progress, SubtaskProgress
from podium.desktop.rules import AUTO, PROFILES
from podium.desktop.wire.messages import CallFacts, EffectView
from podium.desktop.wire.schemas import Action, AppOutput, SubtaskSpec
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
    # Steps in a row in which a subtask's AppAgent ran no tool successfully: then the subtask ends, FINISH
    # if the verifier finds its declared work done, FAIL otherwise.
    max_idle_steps: int = 3
    temperature: float = 0.0  # first attempt: greedy
    retry_temperature: float = 0.7  # re-asks after an invalid answer: sampled, so the model does not repeat itself
    interactive: bool = False  # False: batch mode, nobody answers
    default_answer: str = "not available"  # batch mode's answer to every question
    auto_approve: bool = False  # batch mode: grant holds --yes may grant (never an undeclared write)
    evaluate: bool = False  # LLM judge at the end
    blackboard_chars: int = 4000
    rules: str = AUTO  # the profile of named rules (podium.desktop.rules); "auto": HostSession picks by model
    protected: tuple[str, ...] = ("podium.toml",)  # workspace paths every change of needs approval

    def __post_init__(self) -> None:
        for name in ("max_steps", "max_subtask_steps", "blackboard_chars", "max_idle_steps"):
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
        if self.rules not in PROFILES:
            raise ConfigError(f"HostConfig.rules must be one of {', '.join(PROFILES)}, got {self.rules!r}")


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
    holds: tuple[Hold, ...] = ()


@dataclass(frozen=True, slots=True)
class Proposal:
    """An AppAgent's answer whose calls wait: for the person's approval, or for their EXECUTE turn."""

    output: AppOutput
    facts: tuple[CallFacts, ...]
    run: tuple[int, ...]  # the actions to run (indexes into output.actions)
    skipped: tuple[tuple[int, str, bool], ...] = ()  # (index, why, counts as done) of those not run
    intent: str = ""  # set when its calls were sent to run (EXECUTE)
    fired: tuple[str, ...] = ()  # the named rules that fired deciding it
    failed_again: tuple[str, ...] = ()  # tools whose failed call, or whose read, it proposed again
    held_alone: tuple[str, ...] = ()  # the tools of its calls that wait for the person on their own
    deferred: tuple[int, ...] = ()  # its calls not run yet behind one that waits for the person (Decision.deferred)
    blocked: tuple[int, ...] = ()  # its calls not run behind a change that did not run (Decision.blocked)
    timings_ms: Mapping[str, float] = field(default_factory=dict)  # of its PROPOSE turn
    screenshot: str | None = None


@dataclass(frozen=True, slots=True)
class SubtaskRecord:
    spec: SubtaskSpec
    machine: SubtaskMachine = field(default_factory=SubtaskMachine)
    untrusted: tuple[str, ...] = ()  # its declared writes and reads that only data named (capability.BY_DATA)
    agent: str | None = None
    steps: int = 0
    repairs: int = 0
    feedback: str = ""
    note: str = ""  # for the next step: a FINISH questioned, a restart, a refusal...
    answers: tuple[QA, ...] = ()
    proposal: Proposal | None = None
    holds: tuple[Hold, ...] = ()
    artifacts: Mapping[str, Artifact] = field(default_factory=dict)  # what its calls read, by name
    names: Mapping[str, str] = field(default_factory=dict)  # artifact base name -> the call that made it
    warned: tuple[str, ...] = ()  # calls not run once for the fields they would leave empty (call keys)
    done: tuple[str, ...] = ()  # the changes that succeeded (call keys): the same change is not made twice
    failed: tuple[tuple[str, str], ...] = ()  # (call key, error) since its last successful change
    # failed calls that a later call of the same tool on the same path did instead (a sheet named wrong, then
    # right): proposed again, they are that work done, not work left
    corrected: tuple[str, ...] = ()
    # failed calls that would have made a file anew where one exists, with no overwrite (CallFacts.taken): a later
    # successful change of a path they name did their work another way (corrected)
    inert: tuple[str, ...] = ()
    changed: Mapping[str, EffectView] = field(default_factory=dict)  # path -> what its calls did to it
    # (path, change's call key, the path's digest after it), in order: a change that brings a path back to what it
    # held after an earlier one undid the changes between
    states: tuple[tuple[str, str, str], ...] = ()
    called: tuple[str, ...] = ()  # the tools whose calls succeeded
    tried: tuple[str, ...] = ()  # the tools whose calls ran and failed
    read: tuple[str, ...] = ()  # the reads that succeeded since its last change (call keys): again, no progress
    refused: tuple[str, ...] = ()  # what was refused it, and it went on without
    declined: tuple[str, ...] = ()  # the tools of the changes refused it (not demanded of its FINISH)
    stuck: tuple[str, ...] = ()  # tools withheld from its grammar (rule withhold-stuck-tool)
    by_ref: bool = False  # its data arguments take only references (by_ref_rule, else ref-after-call-as-data)
    by_ref_rule: str = ""  # the rule that made them so
    # (tool, argument, option): a choice of its tools' the request settled before anything ran (rule
    # open-choice-asked); its calls' grammar takes only that option
    settled: tuple[tuple[str, str, str], ...] = ()
    said: str = ""  # what else the request settled for it, said with its description at every step
    only: tuple[str, ...] = ()  # its next answer must call one of these (rule force-missing-tool)
    result: Any = None
    reason: Reason | None = None
    restarts: int = 0
    idle: int = 0  # steps in a row without a call that succeeded
    finish_checked: bool = False  # a FINISH was questioned once already
    # the kinds of what is asked once (verify.Missing.soft_kinds: writes that left their files as they were, a
    # part made and left empty, ...) that a questioned FINISH was asked about so far
    asked: tuple[str, ...] = ()
    fail_checked: bool = False  # a FAIL after a tool's error was questioned once already
    sampled: bool = False  # its next step is sampled (rule sample-after-no-progress)
    planned: str = ""  # the rule whose answer its pending PROPOSE carries in place of the model's
    narrowed: str = ""  # the rule that narrowed the tools its pending PROPOSE offers
    # its program's dialog in front, as its latest observation showed it (verify.open_dialog); cleared when a
    # change of its runs, until the next observation
    dialog: str = ""
    # its program's documents its latest observation shows: number -> (digest of the text when it first saw it,
    # digest now) (apps.base.DOCUMENTS)
    documents: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    ended: int | None = None  # its program's exit status, where an action of its closed it (apps.base.ENDED)
    # the table columns its latest change of each tool and path took, and the texts that call was given
    # ("tool path" -> (headers, texts); apps.base.TOOK_COLUMNS)
    took: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] = field(default_factory=dict)
    # the parts of each file its reads took, and the file's others (path -> (read, others); apps.base.READ_PART)
    parts: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] = field(default_factory=dict)

    @property
    def state(self) -> SubtaskState:
        return self.machine.state

    @property
    def may_ask(self) -> bool:
        """Whether its agent may ask the person: not once a question of its got only the default answer
        (nobody would answer another)."""
        return may_ask(self.answers)


@dataclass(frozen=True, slots=True)
class Held:
    """A plan that passed its checks and the choices the request settled for it: held while the planner settles
    those still open (`asked`), accepted when none is."""

    specs: tuple[SubtaskSpec, ...]
    asked: tuple[str, ...]  # the subtasks whose choice is still to settle; the head's is asked now
    settled: Mapping[str, tuple[tuple[str, str, str], ...]] = field(default_factory=dict)  # SubtaskRecord.settled
    said: Mapping[str, str] = field(default_factory=dict)  # SubtaskRecord.said


@dataclass(frozen=True, slots=True)
class Run:
    """One request, from the ask to the reply."""

    token: Token
    request: str
    machine: HostMachine = field(default_factory=HostMachine)
    schedule: GraphSchedule | None = None
    subtasks: Mapping[str, SubtaskRecord] = field(default_factory=dict)  # every subtask ever planned
    files: tuple[str, ...] | None = None  # the workspace's paths, as the planner's last step listed them
    trusted: tuple[str, ...] = ()  # writes and reads the request or a plan made before any result named
    created: tuple[str, ...] = ()  # paths the run itself made: its own to change again
    made: tuple[tuple[str, str], ...] = ()  # (path, part): parts the run added to a file (a sheet), its own too
    seen_data: bool = False  # a subtask has handed results to the planner (later plans saw data)
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
    finish_checked: bool = False  # a FINISH that left named files unmade was questioned once already
    fail_checked: bool = False  # a FAIL after every subtask finished was questioned once already
    confirm_checked: bool = False  # a CONFIRM before any plan was questioned once already
    # the planner asked to confirm with no command to run: there was nothing to approve, and its answers are not
    # offered CONFIRM again (approved or refused, asking again holds nothing either)
    confirmed_nothing: bool = False
    values_checked: bool = False  # a plan that left out values the request quotes was sent back once already
    folders_checked: bool = False  # a plan that made a folder apart from the files it reads was sent back once
    applications: tuple[str, ...] = ()  # offered to the planner; () means all
    evaluating: Mapping[str, Any] | None = None  # the outcome held back while the judge works
    intents: int = 0  # EXECUTE batches sent (their ids)
    choosing: Held | None = None

    @property
    def may_ask(self) -> bool:
        """Whether the planner may ask the person: as a subtask's agent (SubtaskRecord.may_ask)."""
        return may_ask(self.answers)


def may_ask(answers: tuple[QA, ...]) -> bool:
    """Not once a question got only the default answer: nobody would answer another."""
    return not any(qa.answered_by == DEFAULT_ANSWER for qa in answers)


@dataclass(frozen=True, slots=True)
class HostState:
    config: HostConfig
    catalog: Catalog
    planner: AgentSpec
    app_specs: Mapping[str, AgentSpec]  # application -> template of its AppAgent
    rules: frozenset[str] = frozenset()  # the ids of the named rules in force
    observer: bool = False
    judge: bool = False
    agents: Mapping[str, str] = field(default_factory=dict)  # application -> its AppAgent (the cache)
    generations: Mapping[str, int] = field(default_factory=dict)
    fresh: tuple[str, ...] = ()  # cached AppAgents not started yet (they start at their first step)
    planner_down: bool = False  # it went down; a fresh one starts at the planner's next step
    blackboard: Blackboard = field(default_factory=Blackboard)
    memory: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # application -> its AppAgent's steps
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
                           record.steps, record.agent, spec.writes)


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
    return {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens, "cost": usage.cost,
            "cached_tokens": usage.cached_tokens, "read_ms": usage.read_ms, "write_ms": usage.write_ms}


def subtask_dict(r: SubtaskRecord) -> dict[str, Any]:
    spec = r.spec
    return {"id": spec.id, "description": spec.description, "application": spec.application,
            "depends_on": list(spec.depends_on), "reads": list(spec.reads), "writes": list(spec.writes),
            "tools": list(spec.tools), "hands_on": spec.hands_on.value, "state": r.state.value, "steps": r.steps,
            "agent": r.agent, "restarts": r.restarts, "changed": sorted(r.changed)}


def status(s: HostState) -> dict[str, Any]:
    """What `Session.status()["host"]` shows: the host state and every subtask's state."""
    run = s.run
    body: dict[str, Any] = {
        "state": "idle" if run is None else run.machine.state.value,
        "agents": dict(s.agents),
        "queued_requests": len(s.queue),
        "usage": usage_dict(s.usage),
        "session_steps": s.session_steps,
        "rules": sorted(s.rules),
        "last": s.last,
    }
    if run is not None:
        body.update({
            "request": run.request, "token": run.token, "current": run.current, "steps": run.steps,
            "plan": list(run.plan), "created": list(run.created),
            "subtasks": [subtask_dict(r) for r in run.subtasks.values()],
            "waiting_for": [{"id": i.id, "kind": i.kind.value, "asked_by": i.asked_by, "subtask": i.subtask,
                             "questions": list(i.questions), "summary": i.summary} for i in run.waiting],
        })
    return body
