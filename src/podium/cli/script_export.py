"""`podium script RUN`: the model answers of a recorded desktop run, written as a script file that
`--model scripted:FILE` plays (podium.cli.script), as the host TOOK them: played with no compensation
rules (`[host] rules = "none"`), the script makes the run's changes again.

The answers come from the journal: every planner step's `HostStepReport` and every AppAgent PROPOSE turn's
`AppStepReport` (its EXECUTE turns ran tools; they are not answers), each application's in order, and the
judge's. The record is replayed through the pure host strategy (podium.journal.replay), which gives the
host's state before and after every answer, so each answer is compared with what the host made of it. What
is transformed, exactly:

- An answer the host found invalid and asked for again (it did not validate) is left out.
- An answer a named rule refused outright is left out: a planner answer refused by no-example-copy, a FAIL
  questioned by question-fail-after-error. Such a FAIL whose calls ran with some success is written as a
  CONTINUE with its calls instead: what they read or changed was taken.
- A call a named rule refused (failed-call-not-rerun, copy-is-question, the AppAgent's no-example-copy) is
  left out of its answer: the calls refused are those the mechanisms alone would run (the host's decision
  taken again with no rules) that did not run under the run's rules.
- An answer a rule turned into questions to the person (copy-is-question) is written as the PENDING answer
  that asks them, with no calls: nothing of it ran, the questions were asked.
- An answer a rule read as another status (repeat-is-finish and read-result-is-finish read a CONTINUE as
  FINISH) is written with the status the host took, the one its trajectory entry records.
- A first step its plan made without a model call (plan-reads-without-model, plan-writes-without-model) is
  written as the answer that makes those calls; one the host forgot (a call that failed or would have waited
  for the person, a read that left part of its file out) is not written: the model's answer after it was the
  subtask's first.
- A request the host ended FINISH by verified-graph-is-finish, without asking the planner, gets the planner
  FINISH that rules = "none" asks for, its comment the reply the host gave.
- What the mechanisms decided stays as the model answered: calls that repeat a change already made, calls
  held for an approval batch mode refused, calls that cannot run (an unknown tool or reference), plans that
  failed their checks, FINISH answers the verifier questioned, questions asked again. Played again, the same
  mechanism acts the same way.
- References (`{"ref": ...}`) stay references: the replay moves data the way the run did. Answers are
  written as validated (field names normalised), fields left at their defaults left out.
- A model call that failed is written as `{"$fail": detail}`; a turn that failed outside the model (a
  timeout, a crash) is not an answer and is only counted in the note.

The script's "note" says which run it came from and every transformation made.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from podium.agent.backend import prompt_text
from podium.cli.records import resolve
from podium.desktop import HostStrategy
from podium.desktop.blackboard import TrajectoryEntry
from podium.desktop.host.decide import observed
from podium.desktop.host.planner import EXAMPLE_RULE
from podium.desktop.host.state import JUDGE, OBSERVER, PLANNER, HostState
from podium.desktop.host.subtask import new_questions, step_decision
from podium.desktop.rules.steps import FAIL_QUESTION, PLAN_READS, PLAN_WRITES, VERIFIED_FINISH, planned_done
from podium.desktop.shell.phases import Phase
from podium.desktop.shell.records import STRATEGY_RECORD, strategy_options
from podium.desktop.wire.messages import (
    ActionResult,
    AppStepKind,
    AppStepReport,
    HostStepReport,
    decode_app_report,
    decode_host_report,
)
from podium.desktop.wire.schemas import AppOutput, AppStatus, HostOutput
from podium.ensemble.inputs import AskInput, ErrorInput, ResponseInput, TellInput
from podium.errors import ConfigError
from podium.journal import ReplayStep, Store, replay

_APP = "app"
_PLANNER = "planner"
_JUDGE = "judge"


@dataclass
class _Answer:
    """One model answer of the record, with what the host made of it."""

    role: str  # planner, app or judge
    application: str | None
    number: int  # its place among its role's (and application's) answers, from 1
    before: HostState  # the host's state before it took the answer
    report: HostStepReport | AppStepReport | str  # the step's report (the judge's: its text)
    sid: str | None = None
    results: tuple[ActionResult, ...] = ()  # what its calls did (the EXECUTE turn that followed)
    trajectory: list[TrajectoryEntry] = field(default_factory=list)  # the trajectory entries its step recorded
    planned: bool = False  # made by its plan, not by the model (plan-reads/writes-without-model)
    forgotten: bool = False  # a planned answer the host forgot: the model's answer after it was the step

    @property
    def who(self) -> str:
        return f"{self.application or self.role} answer {self.number}"


@dataclass(frozen=True, slots=True)
class Exported:
    """A run's script: the JSON body, how many answers it holds, and what was transformed."""

    run: str
    script: dict[str, Any]
    answers: int
    changes: tuple[str, ...]
    failed_turns: int = 0

    def text(self) -> str:
        """The script as JSON, one answer a line (a diff of two scripts shows which answers differ)."""
        def one(value: Any) -> str:
            return json.dumps(value, ensure_ascii=False)

        def replies(values: Sequence[Any], indent: str) -> str:
            return "[\n" + ",\n".join(f"{indent} {one(v)}" for v in values) + f"\n{indent}]" if values else "[]"

        parts = []
        for key, value in self.script.items():
            if key == "apps":
                apps = ",\n".join(f"  {one(name)}: {replies(v, '  ')}" for name, v in value.items())
                parts.append(f' "apps": {{\n{apps}\n }}' if apps else ' "apps": {}')
            elif isinstance(value, list):
                parts.append(f" {one(key)}: {replies(value, ' ')}")
            else:
                parts.append(f" {one(key)}: {one(value)}")
        return "{\n" + ",\n".join(parts) + "\n}\n"

    def write(self, path: Path) -> Path:
        path = path.expanduser()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.text(), encoding="utf-8")
        return path


def export_script(store: Store, ident: str) -> Exported:
    """The script of run `ident` (a name, a unique prefix or `last`). ConfigError, one line, for a run that
    is unknown, not a desktop run, does not replay as recorded, or has no answers."""
    record = resolve(store, ident)
    kept = store.get(record.name, STRATEGY_RECORD)
    if kept is None:
        raise ConfigError(f"run {record.name} is not a desktop run (it kept no HostAgent options): `podium script` "
                          "writes the model answers of a `podium run`")
    options = strategy_options(kept)
    entries = store.entries(record.name)
    steps = replay(HostStrategy(), options, entries)
    diverged = next((s for s in steps if not s.matches), None)
    if diverged is not None:
        raise ConfigError(f"run {record.name} does not replay as recorded (entry {diverged.seq} of {len(entries)} "
                          "decides otherwise now: recorded by another version of podium?), so what the host took "
                          f"of its answers cannot be told; `podium replay {record.name}` shows where")
    state, _ = HostStrategy().init(options)
    answers, failed_turns = _answers(state, steps)
    if not answers:
        raise ConfigError(f"run {record.name} has no model answers to write (its record holds {len(entries)} "
                          "entries and no planner, AppAgent or judge answer)")
    request = next((prompt_text(s.input.prompt) for s in steps if isinstance(s.input, TellInput | AskInput)), "")
    return _script(record.name, request, answers, failed_turns)


def _answers(state: HostState, steps: Sequence[ReplayStep]) -> tuple[list[_Answer], int]:
    """Every model answer in the record the host took, each with the trajectory entries its step recorded and
    what its calls did; and how many turns failed outside the model."""
    answers: list[_Answer] = []
    open_: dict[str, _Answer] = {}  # agent -> its answer whose step may still record entries
    failed_turns = 0
    for step in steps:
        input = step.input
        if type(input) is ResponseInput and input.agent != OBSERVER:
            agent, text = input.agent, input.response.text
            answer: _Answer | None = None
            if agent == PLANNER:
                answer = _Answer(_PLANNER, None, 0, state, decode_host_report(text))
            elif agent == JUDGE:
                answer = _Answer(_JUDGE, None, 0, state, text)
            else:
                answer = _app_answer(state, agent, decode_app_report(text), open_.get(agent))
            if answer is not None:
                answers.append(answer)
                open_[agent] = answer
        elif type(input) is ErrorInput and input.agent != OBSERVER:
            failed_turns += 1
        for entry in step.state.blackboard.trajectories:
            if entry.step > state.step_no and entry.agent in open_:
                open_[entry.agent].trajectory.append(entry)
        for answer in open_.values():
            if answer.planned and answer.sid is not None and not _planned_taken(step.state, answer.sid):
                answer.forgotten = True  # its calls would have waited for the person: the model's step was made
        state = step.state
    kept = [a for a in answers if not a.forgotten]
    counts: dict[str, int] = {}
    for answer in kept:
        key = answer.application or answer.role
        counts[key] = answer.number = counts.get(key, 0) + 1
    return kept, failed_turns


def _app_answer(state: HostState, agent: str, report: AppStepReport, last: _Answer | None) -> _Answer | None:
    """The answer an AppAgent's report stands for (None: it is the EXECUTE turn of an answer before it)."""
    sid = state.run.busy.get(agent) if state.run is not None else None
    record = state.run.subtasks.get(sid) if state.run is not None and sid is not None else None
    proposal = record.proposal if record is not None else None
    fired = set(proposal.fired) if proposal is not None else set()
    if report.kind is AppStepKind.EXECUTE:
        if fired & {PLAN_READS, PLAN_WRITES} and not planned_done(report.results):
            if last is not None and last.planned:  # the host forgot it: the model made the subtask's first step
                last.forgotten = True
            return None
        if PLAN_READS in fired and proposal is not None:  # the reads its plan made, run without a PROPOSE turn
            planned = AppStepReport(status=proposal.output.status, output=proposal.output.dump(), facts=proposal.facts)
            return _Answer(_APP, _application(state, agent, sid), 0, state, planned, sid,
                           results=tuple(report.results), planned=True)
        if last is not None:
            last.results = tuple(report.results)
        return None
    return _Answer(_APP, _application(state, agent, sid), 0, state, report, sid,
                   planned=bool(record is not None and record.planned))


def _planned_taken(state: HostState, sid: str) -> bool:
    """Whether the host took the answer its plan gave for the subtask (it was not forgotten)."""
    record = state.run.subtasks.get(sid) if state.run is not None else None
    if record is None or record.planned:
        return True  # not decided on yet
    return (record.proposal is not None and PLAN_WRITES in record.proposal.fired) or record.steps > 1 \
        or record.machine.final


def _application(state: HostState, agent: str, sid: str | None) -> str:
    if sid is not None and state.run is not None and sid in state.run.subtasks:
        return str(state.run.subtasks[sid].spec.application)
    for application, name in state.agents.items():
        if name == agent:
            return str(application)
    base = agent.removeprefix("app-")  # an earlier generation of an AppAgent: app-<application>-<n>
    return next((name for name in state.catalog.names if base == name or base.startswith(f"{name}-")), base)


def _script(run: str, request: str, answers: list[_Answer], failed_turns: int) -> Exported:
    planner: list[Any] = []
    apps: dict[str, list[Any]] = {}
    judge: list[Any] = []
    changes: list[str] = []
    for answer in answers:
        if answer.role == _PLANNER:
            reply, change = _planner_reply(answer)
        elif answer.role == _JUDGE:
            reply, change = _judge_reply(answer.report), None
        else:
            reply, change = _app_reply(answer)
            if answer.planned:
                change = "the answer its plan made without a model call, written as the model's"
        if change is not None:
            changes.append(f"{answer.who}: {change}")
        if reply is None:
            continue
        if answer.role == _PLANNER:
            planner.append(reply)
            for entry in answer.trajectory:
                if VERIFIED_FINISH in entry.rules:  # the host ended the request without a planner answer
                    planner.append({"Status": "FINISH", "Comment": entry.outcome})
                    changes.append(f"after {answer.who}: the FINISH the host took by {VERIFIED_FINISH} without "
                                   "asking, written as the planner's")
        elif answer.role == _JUDGE:
            judge.append(reply)
        else:
            apps.setdefault(answer.application or "", []).append(reply)
    written = len(planner) + len(judge) + sum(len(a) for a in apps.values())
    if not written:
        raise ConfigError(f"run {run} has no model answer the host took ({len(answers)} answer(s), every one "
                          "left out: " + "; ".join(changes[:3]) + ")")
    note = f"Exported by `podium script` from run {run}"
    note += f" ({request!r})" if request else ""
    note += ": the answers as the host took them, for rules = \"none\". "
    note += ("Transformed: " + "; ".join(changes) + "." if changes else "Every answer as the model gave it.")
    if failed_turns:
        note += f" {failed_turns} turn(s) failed outside the model and are not in it."
    script: dict[str, Any] = {"note": note, "planner": planner, "apps": apps}
    if judge:
        script["judge"] = judge
    return Exported(run, script, written, tuple(changes), failed_turns)


Reply = tuple[Any | None, str | None]  # what the script holds for an answer (None: nothing), what was changed


def _unusable(report: HostStepReport | AppStepReport) -> Reply | None:
    """A step that gave the host no answer to take: its model call failed (written as the failure, which the
    script plays), another phase failed (no answer), or the answer was invalid (left out)."""
    failure = report.failure
    if failure is not None:
        if failure.phase is Phase.LLM_INTERACTION:
            return {"$fail": failure.detail}, "the model call failed: written as $fail"
        return None, f"left out: its step failed in {failure.phase.value}, not in the model ({failure.detail})"
    if report.output is None or report.status is None:
        return None, f"left out: invalid, asked again ({_short(report.invalid or 'no answer')})"
    return None


def _planner_reply(answer: _Answer) -> Reply:
    report = answer.report
    if (unusable := _unusable(report)) is not None:
        return unusable
    fired = [rule for entry in answer.trajectory[:1] for rule in entry.rules]
    if EXAMPLE_RULE in fired:
        return None, f"left out: refused by {EXAMPLE_RULE}"
    return _compact(HostOutput, report.output, by_alias=True), None


def _app_reply(answer: _Answer) -> Reply:
    report = answer.report
    if (unusable := _unusable(report)) is not None:
        return unusable
    output = AppOutput.model_validate(report.output)
    body = output.dump()
    state, sid = answer.before, answer.sid
    if state.run is None or sid is None or sid not in state.run.subtasks:
        return _compact(AppOutput, body), None  # not taken for a subtask (a late answer): as it was
    record = observed(state.run.subtasks[sid], report.observed)
    taken = step_decision(state, record, output, report.facts)
    mechanisms = step_decision(replace(state, rules=frozenset()), record, output, report.facts)
    refused = [i for i in mechanisms.run if i not in taken.run]
    if questions := new_questions(record, taken.questions):
        body = {**body, "status": AppStatus.PENDING.value, "questions": list(questions), "actions": []}
        return _compact(AppOutput, body), (f"its calls became questions to the person ({_rules(taken.fired)}): "
                                           "written as PENDING with them")
    notes = []
    if refused:
        body = {**body, "actions": [a for i, a in enumerate(body["actions"]) if i not in refused]}
        names = ", ".join(output.actions[i].function for i in refused)
        notes.append(f"{names} left out (refused by {_rules(taken.fired)})")
    stepped = [entry for entry in answer.trajectory if entry.status != AppStatus.CONFIRM.value]
    if stepped:
        last = stepped[-1]
        if last.status == AppStatus.FAIL.value and FAIL_QUESTION in last.rules:
            if not any(r.ok for r in answer.results):
                return None, f"left out: a FAIL questioned by {FAIL_QUESTION}"
            body = {**body, "status": AppStatus.CONTINUE.value}
            notes.append(f"a FAIL questioned by {FAIL_QUESTION}, whose calls ran: written as CONTINUE")
        elif last.status != body["status"] and last.status in {s.value for s in AppStatus}:
            notes.append(f"{body['status']} read as {last.status} ({_rules(last.rules)}): written as {last.status}")
            body = {**body, "status": last.status}
    return _compact(AppOutput, body), "; ".join(notes) or None


def _judge_reply(text: str) -> Any:
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return value if isinstance(value, dict) else text


def _compact(model: type[BaseModel], body: Mapping[str, Any], *, by_alias: bool = False) -> dict[str, Any]:
    """The answer without the fields left at their defaults, when it validates back to the same answer."""
    full = model.model_validate(body)
    short = full.model_dump(mode="json", by_alias=by_alias, exclude_defaults=True)
    return short if model.model_validate(short) == full else full.model_dump(mode="json", by_alias=by_alias)


def _rules(fired: Sequence[str]) -> str:
    return ", ".join(fired) or "a named rule"


def _short(text: str, limit: int = 120) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
