"""What the host strategy sends to a step (a request) and what a step sends back (a report).

Both travel as JSON text: the request as the text of the dispatched prompt, the report as the text of
the turn's response. Text is what the session journals and replays, and the strategy stays free of
references to live objects. `decode_*` never raises: a prompt that is not a step request is taken as a
plain subtask (someone asked the agent directly); a response that is not a report is reported as one
that failed.

An AppAgent's step is two turns of its agent, with the host's decision between them:
- PROPOSE (DATA_COLLECTION, LLM_INTERACTION): the agent looks at its files, asks the model, and reports
  the answer with the facts of each proposed call (is it read-only, which paths would it change, and
  how): what the application says, found before anything runs;
- the host strategy decides, purely, what runs, what waits for the person and what is a repeat
  (podium.desktop.host.decide);
- EXECUTE (ACTION_EXECUTION): the agent runs exactly the calls it is sent, references already resolved,
  and reports each result with the change it measured on every path (content digests before and
  after), which is the evidence a FINISH is verified against. MEMORY_UPDATE is the host's: the steps
  are remembered in its state, so they are journaled, replayed and rebuilt after a crash.
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from podium.apps.base import LEFT_OUT
from podium.desktop.blackboard import QA, ArtifactEntry
from podium.desktop.shell.phases import Phase
from podium.desktop.wire.schemas import AppStatus, HandsOn, HostStatus
from podium.errors import ReasonKind

_MSG = ConfigDict(frozen=True, extra="ignore")


class AppStepKind(StrEnum):
    PROPOSE = "propose"  # look, ask the model, report its answer and the facts of its calls
    EXECUTE = "execute"  # run the calls the host decided to run


ArtifactView = ArtifactEntry  # data a step may refer to


class InputView(BaseModel):
    """A subtask the step's subtask depends on, as the AppAgent is shown it."""

    model_config = _MSG

    subtask: str
    application: str
    description: str
    status: str
    result: Any = None


class EffectView(BaseModel):
    """One path a call would change or changed, and how (podium.apps.base.Effect); `before` / `after`
    are content digests (None: the path did not exist), where measured."""

    model_config = _MSG

    path: str
    change: str
    before: str | None = None
    after: str | None = None
    # the parts holding nothing (podium.apps.hollow: "" the path itself, else a sheet's name), where measured
    hollow_before: tuple[str, ...] = ()
    hollow: tuple[str, ...] = ()
    # the lines of text it removes and adds, where known before it runs (podium.apps.base.Effect)
    removes: tuple[str, ...] = ()
    adds: tuple[str, ...] = ()
    wipes: bool = False  # it keeps less than half of a text's lines (podium.apps.approval.wipes)
    drops: tuple[str, ...] = ()  # the lines it removes with nothing in their place (approval.dropped)
    empties: bool = False  # it leaves a text that held something blank
    part: str = ""  # the one part (a sheet) it is confined to; "" the file as a whole
    makes: str = ""  # the part it adds (a sheet): the run's own from then on


class Call(BaseModel):
    """A call the host decided to run: references resolved, and the effects proposed for it."""

    model_config = _MSG

    function: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    effects: tuple[EffectView, ...] = ()
    # Its application declared it changes nothing (effects (), not unknown): if it fails, nothing the rest of
    # the batch relies on was changed, so the batch goes on (a workbook "created" that exists is still there).
    changes_nothing: bool = False


class PlacingView(BaseModel):
    """Data handed to the subtask that none of its planned tools takes, and the tools that put it in."""

    model_config = _MSG

    subtask: str
    data: HandsOn
    tools: tuple[str, ...]


class AppStepRequest(BaseModel):
    model_config = _MSG

    kind: AppStepKind = AppStepKind.PROPOSE
    application: str = ""
    subtask_id: str = ""
    step: int = 1
    intent: str = ""  # EXECUTE: the identity of this batch of calls (exactly once across a resume)
    # PROPOSE: the subtask as planned, and what it is given
    description: str = ""
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()  # the tools its plan expects it to call
    hands_on: HandsOn = HandsOn.NOTHING
    request: str = ""  # the person's whole request
    inputs: tuple[InputView, ...] = ()
    artifacts: tuple[ArtifactView, ...] = ()  # what it may refer to: its inputs' data and its own
    placing: tuple[PlacingView, ...] = ()  # handed data its planned tools cannot take (plan.unplaced)
    memory: tuple[str, ...] = ()  # its earlier steps (the host's record of them), oldest first
    answers: tuple[QA, ...] = ()
    blackboard: str = ""
    note: str = ""  # from the HostAgent: why it is asked now (a FINISH questioned, a restart...)
    feedback: str = ""  # why the previous answer was rejected, for a repair
    offered: tuple[str, ...] = ()  # the tools its answer may call (none: all of them)
    # What its calls may change with no one's approval, where nobody could approve another change (batch
    # mode): its declared writes the request stands behind and what the run made. A changing tool's path
    # is then offered among these alone, since a call on any other could only be refused. None: any path.
    writable: tuple[str, ...] | None = None
    created: tuple[str, ...] = ()  # the paths the run made: its own, written again with no one's approval
    must_act: bool = False  # its answer must call a tool
    by_ref: bool = False  # an argument that takes data takes only a reference to some (grammar.app_output_schema)
    settled: tuple[tuple[str, str, str], ...] = ()  # (tool, argument, option): choices the request settled
    # whether its answer may ask the person: not once nobody answered it (batch mode), since asking
    # again can only be answered the same way
    may_ask: bool = True
    launch: bool = True  # start the application if it is not running (its first step of the run)
    # its program's exit status, where an action of its closed it: a program is not started again (shell
    # app_step._launch), so no tool of it can act any more and none is offered
    ended: int | None = None
    temperature: float | None = None
    rules: tuple[str, ...] = ()  # the named rules the host runs with (the step's own share of them)
    # the answer the subtask's plan gives (an AppOutput's dump): its calls' facts are gathered as for the
    # model's answer, which is not asked for (rule plan-writes-without-model)
    planned: dict[str, Any] | None = None
    # EXECUTE
    calls: tuple[Call, ...] = ()


class CallFacts(BaseModel):
    """What the application says of a proposed call before it runs."""

    model_config = _MSG

    function: str
    arguments: dict[str, Any] = Field(default_factory=dict)  # as resolved
    known: bool = True
    read_only: bool = False
    sensitive: bool = False  # the application's own verdict (destructive, protected, its own sensitive acts)
    effects: tuple[EffectView, ...] | None = ()  # None: the application does not say
    error: str | None = None  # it cannot run as given (an unknown reference...)
    # identifiers it would put into a record's empty place: (where, value, source, what); source is the other
    # record's cell it is copied from, or "" where no cell of the file holds it
    copies: tuple[tuple[str, Any, str, str], ...] = ()
    rewritten: tuple[str, ...] = ()  # the named rules that changed its arguments (a path, a sheet, a folder)
    absent: bool = False  # a read whose `path` names nothing in the workspace
    # a change that would replace a file there already and is not told to (no overwrite): it changes nothing
    taken: bool = False
    # the labels of the fields of a dialog it confirms (a button's click) that would be left empty
    unfilled: tuple[str, ...] = ()
    # the lines of a document's text it would type over (its text replaced by one that leaves them out)
    erased: tuple[str, ...] = ()


class ActionResult(BaseModel):
    model_config = _MSG

    function: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    ok: bool
    content: Any = None
    error: str | None = None
    read_only: bool = False
    ran: bool = True  # False: not run (a call before it in the batch failed)
    changes: tuple[EffectView, ...] = ()  # what it changed, measured (digests before and after)
    instead: tuple[str, ...] = ()  # the tools its error sends it to (apps.tooling.ToolError.instead)
    # digests of its program's documents' texts, by control number (apps.base.DOCUMENTS): the host's, not shown
    documents: dict[str, str] = Field(default_factory=dict)

    @property
    def left_out(self) -> str:
        """What of its file a read did not return (podium.apps.base.LEFT_OUT); "" when it returned it whole."""
        return str(self.content.get(LEFT_OUT) or "") if isinstance(self.content, dict) else ""


class StepFailure(BaseModel):
    model_config = _MSG

    phase: Phase
    detail: str
    kind: ReasonKind | None = None  # the model's own failure reason (budget, rate limit...), if it gave one


class AppStepReport(BaseModel):
    """One turn of an AppAgent step. PROPOSE: `status` is None when the step produced no usable answer
    (`failure` says which fail-fast phase failed, or `invalid` why the model's output was refused);
    `facts` has one entry per proposed action. EXECUTE: `results` has one entry per call sent."""

    model_config = _MSG

    kind: AppStepKind = AppStepKind.PROPOSE
    status: AppStatus | None = None
    output: dict[str, Any] | None = None  # the validated AppOutput
    raw: str = ""
    invalid: str | None = None
    failure: StepFailure | None = None
    facts: tuple[CallFacts, ...] = ()
    results: tuple[ActionResult, ...] = ()
    observed: tuple[ActionResult, ...] = ()  # DATA_COLLECTION's read-only look at the subtask's files
    errors: tuple[StepFailure, ...] = ()  # action / memory failures (recorded, not fatal)
    timings_ms: dict[str, float] = Field(default_factory=dict)
    screenshot: str | None = None


class SubtaskView(BaseModel):
    """A subtask as the planner is shown it."""

    model_config = _MSG

    id: str
    description: str
    application: str
    depends_on: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    state: str
    result: Any = None
    reason: str | None = None


class ChoiceKind(StrEnum):
    SOURCE = "source"  # what a declared tool makes of its sources, which the subtask only reads
    PART = "part"  # whether a new path the request names only by its stem is a file or a part of a named file


class Choice(BaseModel):
    """A choice a plan left open that only the request can settle, one of `options`: SOURCE, the `argument` of the
    `tool` a subtask declares, whose options the tool's schema says (`meaning`; its `gone` option takes the
    `sources` away, so it makes them writes); PART, whether `sources` (one new path) is a file or a part (its
    `gone` option: what the application calls a part, a sheet, in `argument`) of `within`. How it is asked is
    podium.desktop.wire.prompts.choice_user's."""

    model_config = _MSG

    kind: ChoiceKind = ChoiceKind.SOURCE
    subtask: str
    tool: str = ""
    argument: str
    options: tuple[str, ...]
    gone: str
    meaning: str = ""
    sources: tuple[str, ...] = ()
    within: str = ""


class HostStepRequest(BaseModel):
    model_config = _MSG

    request: str
    step: int = 1
    applications: tuple[str, ...] = ()  # the ones offered for this request; () means all
    subtasks: tuple[SubtaskView, ...] = ()
    plan: tuple[str, ...] = ()  # the previous plan
    blackboard: str = ""
    answers: tuple[QA, ...] = ()
    note: str = ""  # why the planner is asked now (verify, re-plan after a failure, approval given)
    feedback: str = ""  # why the previous answer was rejected
    temperature: float | None = None
    may_confirm: bool = True  # CONFIRM is offered (grammar): not where nothing is there to approve
    may_finish: bool = True  # FINISH is offered (grammar): not where the host could only refuse it
    may_ask: bool = True  # PENDING is offered (grammar): not once a question of its got only the default answer
    choice: Choice | None = None  # asked instead of a plan: one of its options is the whole answer


class BashReport(BaseModel):
    model_config = _MSG

    command: str
    application: str | None = None
    ok: bool
    detail: str


class HostStepReport(BaseModel):
    model_config = _MSG

    status: HostStatus | None = None
    output: dict[str, Any] | None = None  # the validated HostOutput, seed field names
    raw: str = ""
    invalid: str | None = None
    failure: StepFailure | None = None
    bash: BashReport | None = None
    running: dict[str, bool] = Field(default_factory=dict)
    files: tuple[str, ...] | None = None  # the workspace's paths as DATA_COLLECTION listed them (None: no workspace)
    errors: tuple[StepFailure, ...] = ()
    timings_ms: dict[str, float] = Field(default_factory=dict)
    screenshot: str | None = None
    chosen: str | None = None  # the option picked, when the step settled a Choice


def decode_app_request(text: str) -> AppStepRequest:
    try:
        return AppStepRequest.model_validate_json(text)
    except (ValidationError, ValueError):
        return AppStepRequest(description=text)


def decode_host_request(text: str) -> HostStepRequest:
    try:
        return HostStepRequest.model_validate_json(text)
    except (ValidationError, ValueError):
        return HostStepRequest(request=text)


def _not_a_report(text: str, error: Exception) -> StepFailure:
    shown = text if len(text) <= 200 else text[:200] + "..."
    return StepFailure(phase=Phase.LLM_INTERACTION, detail=f"the step returned no report ({error}): {shown!r}")


def decode_app_report(text: str) -> AppStepReport:
    try:
        return AppStepReport.model_validate_json(text)
    except (ValidationError, ValueError) as exc:
        return AppStepReport(raw=text, failure=_not_a_report(text, exc))


def decode_host_report(text: str) -> HostStepReport:
    try:
        return HostStepReport.model_validate_json(text)
    except (ValidationError, ValueError) as exc:
        return HostStepReport(raw=text, failure=_not_a_report(text, exc))


def summarize(value: Any, limit: int = 300) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def call_text(function: str, arguments: Any, limit: int = 150) -> str:
    return f"{function}({summarize(arguments, limit)})"

