"""What the host does with an AppAgent's step: its answer decided on, its calls run, its status applied.

A PROPOSE report carries the model's answer and the facts of its calls; `decide` says what runs, what is a
repeat, what waits for the person. An EXECUTE report carries what ran; `remember` folds it into the step
memory. Then the answer's status moves the subtask's machine: a FINISH is verified against the
subtask's declarations (podium.desktop.host.verify), a PENDING asks the person, a FAIL ends it, and
anything else is one more step with what went wrong in front of it.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Iterable, Sequence
from dataclasses import replace

from podium.desktop.host import artifacts, verify
from podium.desktop.host.capability import covered
from podium.desktop.host.catalog import AppInfo
from podium.desktop.host.decide import (
    Decision,
    changed_nothing,
    decide,
    made,
    made_parts,
    met_new_error,
    observed,
    progressed,
    reaffirmed,
    remember,
)
from podium.desktop.host.flow import (
    Result,
    dispatch_execute,
    dispatch_propose,
    end_subtask,
    finish_run,
    handed,
    handed_data,
    idle_out,
    missing_work,
    named_data,
    quoted_data,
    settle,
)
from podium.desktop.host.fsm import STEP_EVENTS, HostEvent, SubtaskEvent
from podium.desktop.host.people import ask
from podium.desktop.host.plan import data_takers, handed_takers, named_by
from podium.desktop.host.run import (
    fired_rule,
    record_step,
    remember_line,
    run_of,
    set_record,
    update_subtask,
    with_run,
)
from podium.desktop.host.state import HostState, InteractionKind, Proposal, SubtaskRecord
from podium.desktop.rules import steps as rules
from podium.desktop.wire.messages import ActionResult, AppStepKind, AppStepReport, CallFacts, call_text, summarize
from podium.desktop.wire.schemas import AppOutput, AppStatus, normal_path
from podium.errors import Reason, ReasonKind


def repair_feedback(raw: str, problem: str) -> str:
    shown = raw if len(raw) <= 1500 else raw[:1500] + " ..."
    return (f"Your answer was:\n{shown}\nIt was rejected: {problem}\n"
            "Answer again with ONE JSON object with the fields of the example, and nothing else.")


def on_app_report(s: HostState, agent: str, report: AppStepReport) -> Result:
    sid = run_of(s).busy.get(agent)
    if sid is None:
        return [], s  # not working for this request (a late answer from an earlier one)
    if report.kind is AppStepKind.EXECUTE:
        return _executed(s, agent, sid, report)
    return _proposed(s, agent, sid, report)


def _broken(s: HostState, agent: str, sid: str, report: AppStepReport) -> Result:
    failure = report.failure
    assert failure is not None
    where = f"AppAgent {agent} (subtask {sid})"
    s = record_step(s, agent, "ERROR", subtask=sid, action="step failed", error=f"{failure.phase.value}: "
                    f"{failure.detail}", timings=report.timings_ms, screenshot=report.screenshot)
    if failure.kind is ReasonKind.BUDGET_EXCEEDED:
        return finish_run(s, HostEvent.LIMIT, Reason(ReasonKind.BUDGET_EXCEEDED, failure.detail, agent))
    reason = Reason(ReasonKind.STAGE_FAILED, f"{where}: {failure.phase.value} failed: {failure.detail}", agent)
    s = update_subtask(s, sid, SubtaskEvent.BROKEN, reason=reason)
    return finish_run(s, HostEvent.BROKEN, reason)


def step_decision(s: HostState, record: SubtaskRecord, output: AppOutput, facts: Sequence[CallFacts]) -> Decision:
    """The host's decision on an AppAgent's answer (podium.desktop.host.decide) with the run's values: the
    person's words, what the run created, the protected paths, the rules in force (`s.rules`). `podium script`
    asks it again with no rules to tell the calls a rule refused from those the mechanisms did."""
    run = run_of(s)
    given = " ".join((run.request, *(qa.answer for qa in record.answers)))
    picks = artifacts.named_rows(verify.tables_of(record, handed_data(s, record, handed(s, record)[1])),
                                 f"{run.request}\n{record.spec.description}") \
        if rules.ROWS_AS_NAMED in s.rules and any(not f.read_only for f in facts) else ()
    strays = _strays(s.catalog.get(record.spec.application), record, facts, run.files) \
        if rules.SOURCES_AS_DECLARED in s.rules else {}
    return decide(output, tuple(facts), record, active=s.rules, created=run.created, made=run.made,
                  request=run.request, picks=picks, strays=strays,
                  protected=s.config.protected,
                  given=given, tools=frozenset(t for app in s.catalog.apps for t in app.tool_names),
                  named=tuple(w for w in record.spec.writes if named_by(w, given)),
                  data=_read_data(run.subtasks.values(), record) if any(
                      not source for f in facts for _, _, source, _ in f.copies) else "")


def _strays(app: AppInfo | None, record: SubtaskRecord, facts: Sequence[CallFacts],
            files: Sequence[str] | None) -> dict[int, tuple[str, ...]]:
    """By the index of each call of a tool with a source choice (a copy or a move), the workspace files its
    source (a path, a folder, a pattern, or a folder and a `pattern` in it) takes that the subtask's declared
    reads and writes leave out, where it declares reads of its own."""
    reads = tuple(r for r in record.spec.reads if r != ".")
    if app is None or not files or not reads:
        return {}
    found: dict[int, tuple[str, ...]] = {}
    for index, fact in enumerate(facts):
        info = app.tool(fact.function)
        source, pattern = fact.arguments.get("source"), fact.arguments.get("pattern")
        if info is None or info.source_choice is None or not isinstance(source, str) or not source.strip():
            continue
        taken = normal_path(posixpath.join(source, pattern) if isinstance(pattern, str) and pattern else source)
        left = tuple(f for f in files if covered(f, (taken,)) and not covered(f, reads)
                     and not covered(f, record.spec.writes))
        if left:
            found[index] = left
    return found


def _read_data(records: Iterable[SubtaskRecord], record: SubtaskRecord) -> str:
    """What the run's reads found, as text: asked only where a call puts a value no cell holds into a record."""
    return json.dumps([a.value for r in (*records, record) for a in r.artifacts.values()], default=str,
                      ensure_ascii=False)


def new_questions(record: SubtaskRecord, questions: Sequence[str]) -> tuple[str, ...]:
    """The questions the person has not answered for this subtask yet."""
    asked = {qa.question.casefold() for qa in record.answers}
    return tuple(q for q in questions if q.casefold() not in asked)


def _proposed(s: HostState, agent: str, sid: str, report: AppStepReport) -> Result:
    run = run_of(s)
    record = run.subtasks[sid]
    if report.failure is not None:
        return _broken(s, agent, sid, report)
    record = observed(record, report.observed)  # what DATA_COLLECTION read is data it may refer to
    if report.observed:
        record = replace(record, dialog=verify.open_dialog(report.observed),
                         documents=verify.documents(record.documents, report.observed))
    s = set_record(s, record)
    output = AppOutput.model_validate(report.output) if report.output is not None and report.status else None
    if output is None:
        problem = report.invalid or "no answer"
        s = record_step(s, agent, "ERROR", subtask=sid, action="no valid answer", error=problem,
                        timings=report.timings_ms, screenshot=report.screenshot)
        if record.repairs >= s.config.max_repairs:
            reason = Reason(ReasonKind.INVALID_OUTPUT, f"AppAgent {agent} (subtask {sid}): the output stayed invalid "
                                                       f"after {record.repairs} repair(s): {problem}; last output: "
                                                       f"{summarize(report.raw, 300)!r}", agent)
            # the subtask fails, not the run: its AppAgent answered, only not in form; the planner re-plans
            s = end_subtask(s, sid, agent, SubtaskEvent.STEP_FAIL, reason=reason)
            return settle(s)
        s = update_subtask(s, sid, SubtaskEvent.RETRY, repairs=record.repairs + 1,
                           feedback=repair_feedback(report.raw, problem))
        return dispatch_propose(s, sid)
    facts = tuple(report.facts)
    decision = step_decision(s, record, output, facts)
    if (settled := reaffirmed(record, facts, decision)) is not record:
        s = set_record(s, record := settled)
    if decision.warned:  # asked once: the same call proposed again runs
        s = set_record(s, record := replace(record, warned=(*record.warned, *decision.warned)))
    planned = (record.planned,) if record.planned else ()
    if planned:
        s = update_subtask(s, sid, planned="")
        if decision.questions or decision.holds or len(decision.run) != len(facts) or not facts:
            # what the plan's answer would change waits for the person, or is not run: forgotten, and the
            # first step is its model's, as without the rule
            why = "; ".join(why for _, why, _ in decision.skipped) or "it would wait for the person"
            s = record_step(s, agent, AppStatus.CONTINUE.value, subtask=sid,
                            action="; ".join(call_text(f.function, f.arguments, 200) for f in facts),
                            outcome=f"left to the model: {why}", timings=report.timings_ms, fired=planned)
            s = update_subtask(s, sid, steps=record.steps - 1)
            return dispatch_propose(s, sid, planned=False)
    narrowed = (record.narrowed,) if record.narrowed and facts else ()
    proposal = Proposal(output, facts, decision.run, decision.skipped, fired=(*planned, *narrowed, *decision.fired),
                        failed_again=decision.failed_again, held_alone=decision.held_alone,
                        deferred=decision.deferred, blocked=decision.blocked, timings_ms=dict(report.timings_ms),
                        screenshot=report.screenshot)
    s = update_subtask(s, sid, proposal=proposal, repairs=0, feedback="")
    if questions := new_questions(record, decision.questions):
        s = _trajectory(s, agent, sid, "PENDING", proposal, ())
        s = update_subtask(s, sid, SubtaskEvent.STEP_PENDING, proposal=None)
        return ask(s, InteractionKind.QUESTION, agent, sid, questions=questions, summary=output.comment)
    if decision.holds:
        s = _trajectory(s, agent, sid, "CONFIRM", proposal, ())
        held = [facts[i] for i in decision.run]
        summary = f"{run.subtasks[sid].spec.application}: " + ", ".join(call_text(f.function, f.arguments, 200)
                                                                         for f in held)
        if output.comment:
            summary += f" ({output.comment})"
        s = update_subtask(s, sid, SubtaskEvent.STEP_CONFIRM, holds=decision.holds)
        return ask(s, InteractionKind.APPROVAL, agent, sid, summary=summary,
                   actions=tuple(output.actions[i] for i in decision.run), holds=decision.holds)
    if decision.run:
        return dispatch_execute(s, sid, proposal)
    return _stepped(s, agent, sid, ())


def _executed(s: HostState, agent: str, sid: str, report: AppStepReport) -> Result:
    record = run_of(s).subtasks[sid]
    proposal = record.proposal
    if proposal is None:
        return [], s
    if report.failure is not None:
        return _broken(s, agent, sid, report)
    planned = set(proposal.fired) & {rules.PLAN_READS, rules.PLAN_WRITES}
    if planned and not rules.planned_done(report.results):
        # not the whole file, or not done: forgotten, and the first step is its model's, as without the rule
        why = "; ".join(f"{r.function}: {r.left_out or r.error or 'not run'}" for r in report.results
                        if not r.ok or r.left_out)
        s = record_step(s, agent, AppStatus.CONTINUE.value, subtask=sid,
                        action="; ".join(call_text(f.function, f.arguments, 200) for f in proposal.facts),
                        outcome=f"left to the model: {why}", timings=report.timings_ms, fired=tuple(planned))
        s = update_subtask(s, sid, proposal=None, steps=record.steps - 1)
        return dispatch_propose(s, sid, planned=False)
    worked = progressed(report.results, record)
    steered = not worked and met_new_error(report.results, record)
    record = remember(record, proposal.facts, report.results)
    if any(r.ok and not r.read_only for r in report.results):
        record = replace(record, dialog="")  # what it acted on changed: the next observation tells
    s = set_record(s, record)
    run = run_of(s)
    s = with_run(s, created=tuple(dict.fromkeys((*run.created, *made(report.results)))),
                 made=made_parts(run.made, report.results))
    timings = {**proposal.timings_ms, **report.timings_ms}
    errors = "; ".join(f"{e.phase.value}: {e.detail}" for e in report.errors) or None
    return _stepped(s, agent, sid, tuple(report.results), timings, errors, worked=worked, steered=steered)


def _shown(proposal: Proposal, results: tuple[ActionResult, ...]) -> tuple[str, str]:
    """The step's calls and what came of each, in the answer's order (ran or not)."""
    ran = dict(zip(proposal.run, results, strict=False))
    skipped = {i: why for i, why, _ in proposal.skipped}
    calls, outcomes = [], []
    for index, action in enumerate(proposal.output.actions):
        fact = proposal.facts[index] if index < len(proposal.facts) else None
        arguments = fact.arguments if fact is not None else action.arguments
        calls.append(call_text(action.function, arguments, 120))
        if index in ran:
            r = ran[index]
            outcomes.append(f"{r.function}: " + (f"ok {summarize(r.content, 300)}" if r.ok else f"error {r.error}"))
        elif index in skipped:
            outcomes.append(f"{action.function}: {skipped[index]}")
    output = proposal.output
    if output.result not in (None, ""):
        outcomes.append(f"result: {summarize(output.result, 200)}")
    if output.comment:
        outcomes.append(output.comment)
    return "; ".join(calls), "; ".join(outcomes)


def _trajectory(s: HostState, agent: str, sid: str, status: str, proposal: Proposal,
                results: tuple[ActionResult, ...], timings: dict[str, float] | None = None, error: str | None = None,
                fired: tuple[str, ...] = ()) -> HostState:
    action, outcome = _shown(proposal, results)
    s = record_step(s, agent, status, subtask=sid, action=action, outcome=outcome,
                    timings=timings or dict(proposal.timings_ms), error=error, screenshot=proposal.screenshot,
                    fired=(*proposal.fired, *fired))
    output = proposal.output
    line = f"- subtask {sid} step {run_of(s).subtasks[sid].steps}: {status}"
    if output.thought:
        line += f"; thought: {summarize(output.thought, 200)}"
    if action:
        line += f"\n  calls: {action}\n  -> {summarize(outcome, 1500)}"
    return remember_line(s, run_of(s).subtasks[sid].spec.application, line)


def _took_nothing_handed(s: HostState, record: SubtaskRecord) -> tuple[str, ...]:
    """For a writer whose only source is the data handed to it, none of which its changes hold (it wrote what it
    was not given: a file's name where the names went), the tools of its application that take that data."""
    app = s.catalog.get(record.spec.application)
    if app is None or not record.spec.writes or verify.own_sources(record.spec):
        return ()
    if not missing_work(s, record, handed(s, record)[1]).unhanded:
        return ()
    return handed_takers(record.spec, app, {r.spec.id: r.spec for r in run_of(s).subtasks.values()})


def _sent_to(s: HostState, record: SubtaskRecord, results: tuple[ActionResult, ...]) -> tuple[str, ...]:
    """The tools of the subtask's application that its failed calls' errors send it to, not stuck."""
    app = s.catalog.get(record.spec.application)
    named = dict.fromkeys(t for r in results if not r.ok for t in r.instead)
    return tuple(t for t in named if app is not None and app.tool(t) is not None and t not in record.stuck)


def _stepped(s: HostState, agent: str, sid: str, results: tuple[ActionResult, ...],
             timings: dict[str, float] | None = None, error: str | None = None, worked: bool = False,
             steered: bool = False) -> Result:
    """The step's calls are done (or none ran; `worked`: they moved the subtask on; `steered`: one failed
    with an error new to the subtask): apply its status."""
    record = run_of(s).subtasks[sid]
    proposal = record.proposal
    assert proposal is not None
    output = proposal.output
    # Calls that propose nothing new: repeats of changes made, repeats of calls that failed, changes that
    # found their work done (a step of only these, after a change succeeded, has nothing left to do).
    repeats = sum(1 for index, _, done in proposal.skipped if done or (
        record.done and index < len(proposal.facts) and proposal.facts[index].function in proposal.failed_again))
    repeats += sum(1 for r in results if changed_nothing(r))
    fired: list[str] = []
    status = output.status
    if (rule := rules.as_finish(output, results, repeats, record.spec.writes, s.rules, learned=worked)) is not None:
        status = AppStatus.FINISH
        fired.append(rule)
    failed_change = [r for r in results if not r.ok and not r.read_only]
    s = _trajectory(s, agent, sid, status.value, proposal, results, timings, error, tuple(fired))
    stuck = record.stuck
    if rules.STUCK_TOOL in s.rules and proposal.failed_again:
        stuck = tuple(dict.fromkeys((*stuck, *proposal.failed_again)))
    changed = any(r.ok and not r.read_only and not changed_nothing(r) for r in results)
    # an action in a program (no file measured) after a FINISH was questioned is new work there: the next FINISH
    # is asked about again (the step limits bound them)
    acted = any(r.ok and not r.read_only and not r.changes for r in results)
    by_ref = not changed and (record.by_ref or (rules.REF_AFTER_CALL in s.rules and (
        rules.CALL_AS_DATA in proposal.fired or rules.REQUEST_AS_DATA in proposal.fired)))
    by_ref_rule = record.by_ref_rule if by_ref and record.by_ref else ""
    only = () if changed else record.only
    if changed and rules.REF_AFTER_NOTHING in s.rules and (takers := _took_nothing_handed(s, record)):
        by_ref, by_ref_rule, only = True, rules.REF_AFTER_NOTHING, takers
    if not changed and rules.ERROR_NAMES_TOOL in s.rules and (named := _sent_to(s, record, results)):
        only = named
        s = fired_rule(s, rules.ERROR_NAMES_TOOL)
    s = update_subtask(s, sid, proposal=None, note="", stuck=() if changed else stuck,
                       only=only, by_ref=by_ref, by_ref_rule=by_ref_rule,
                       finish_checked=record.finish_checked and not acted)
    if rules.DEFERRED in s.rules and proposal.deferred and changed and not failed_change:
        # the calls behind the one that waited, as the model gave them, decided on what the calls before them
        # left (a write into the sheet just added); held again, the step is the model's
        again = output.model_copy(update={"actions": tuple(output.actions[i] for i in proposal.deferred)})
        return dispatch_propose(s, sid, answer=again, rule=rules.DEFERRED)
    if status is AppStatus.FINISH and not failed_change and proposal.blocked:
        # the answer proposed changes that were never tried: it said FINISH counting on them
        unrun = ", ".join(call_text(proposal.facts[i].function, proposal.facts[i].arguments, 120)
                          for i in proposal.blocked if i < len(proposal.facts))
        return _go_on(s, agent, sid, output, results, proposal, worked=worked, steered=steered,
                      said=f"You answered FINISH with calls that did not run ({unrun}), so the subtask is not done. ")
    if status is AppStatus.FINISH and not failed_change:
        # changes proposed that all found their work done, or repeated one made: an answer that did nothing
        did_nothing = not changed and (repeats > 0 or any(not r.read_only for r in results))
        # a FINISH said with a call that computes was said before what it computed was seen, as one with changes
        app = s.catalog.get(record.spec.application)
        computed = app is not None and any(r.ok and (info := app.tool(r.function)) is not None and info.computes
                                           for r in results)
        return _finish(s, agent, sid, output, changed=changed or computed, did_nothing=did_nothing)
    if status is AppStatus.PENDING:
        return _pending(s, agent, sid, output)
    if status is AppStatus.FAIL:
        return _fail(s, agent, sid, output, results)
    if status is AppStatus.ERROR:
        reason = Reason(ReasonKind.FAILED, f"AppAgent {agent} (subtask {sid}) reported ERROR: "
                                           f"{output.comment or 'no reason given'}", agent)
        s = update_subtask(s, sid, STEP_EVENTS[AppStatus.ERROR], reason=reason)
        return finish_run(s, HostEvent.BROKEN, reason)
    return _go_on(s, agent, sid, output, results, proposal, worked=worked, steered=steered)


def _finish(s: HostState, agent: str, sid: str, output: AppOutput, changed: bool = False,
            did_nothing: bool = False) -> Result:
    """A FINISH is verified. One that came with calls that changed files was said before their results were
    seen: what they left missing is asked about again rather than held against it (each such step changed
    something, and the step limits bound them). A part left empty is believed after its question only from
    a FINISH that stands by itself: one whose changes all found their work done (`did_nothing`) answered the
    question with nothing."""
    record = run_of(s).subtasks[sid]
    # a result that names one of its data (its own figures too) is that value
    given = handed(s, record)[1]
    text = f"{run_of(s).request}\n{record.spec.description}"
    chosen = named_data(record, output.result, text, given) or quoted_data(record, output.result, text, given)
    record = replace(record, result=output.result if chosen is None else chosen.value)
    missing = missing_work(s, record, given)
    # (or, where its write holds the whole table it was handed, one of the parts of it it was offered)
    parted = chosen is not None and chosen.name in {n for _, _, offered in missing.whole for n in offered}
    if missing and (missing.unhanded or missing.writes or parted) and chosen is not None \
            and rules.RESULT_CONTENT in s.rules \
            and chosen.name.split(".", 1)[0] in record.spec.depends_on \
            and not (isinstance(chosen.value, str) and json.dumps(chosen.value) in chosen.source):
        # the data it named, not a path its giver's call repeats, goes where it was to be written
        run = run_of(s)
        answer = rules.content_from_result(record.spec, s.catalog.get(record.spec.application), chosen.name,
                                           run.files or (), run.created)
        if answer is not None:
            s = update_subtask(s, sid, SubtaskEvent.STEP_CONTINUE, finish_checked=True)
            return dispatch_propose(s, sid, answer=answer, rule=rules.RESULT_CONTENT)
    if missing.columns and rules.COLUMNS_AS_NAMED in s.rules and (answer := rules.columns_as_named(
            s.catalog.get(record.spec.application), record.done, [k for k, _ in record.failed],
            missing.columns)) is not None:
        s = update_subtask(s, sid, SubtaskEvent.STEP_CONTINUE, finish_checked=True)
        return dispatch_propose(s, sid, answer=answer, rule=rules.COLUMNS_AS_NAMED)
    # a declared write left as it was, over empty cells of its records under a column the subtask names: what
    # they were to hold is nowhere in its work, so the person is asked for it (a value nobody gave is not made up)
    if (missing.writes or missing.kept) and record.may_ask and (questions := new_questions(
            record, verify.unfilled(record, (*missing.writes, *missing.kept)))):
        s = record_step(s, "host", "PENDING", subtask=sid, action=f"FINISH questioned: {missing.text()}",
                        outcome=" ".join(questions))
        s = update_subtask(s, sid, SubtaskEvent.STEP_PENDING, finish_checked=True, note=(
            f"You answered FINISH, but {missing.text()}. The person was asked for the values it needs: write "
            "what they answer, or answer FAIL if they give none."))
        return ask(s, InteractionKind.QUESTION, agent, sid, questions=questions, summary=missing.text())
    # writes that left their files as they were and parts left empty are asked about once, even after another
    # question; only a part left empty is believed then (it may be what was asked)
    if missing and (not record.finish_checked or changed or not set(missing.soft_kinds) <= set(record.asked)):
        app = s.catalog.get(record.spec.application)
        reading = tuple(t for t in record.spec.tools if app is not None and (i := app.tool(t)) is not None
                        and i.read_only) or (tuple(t.name for t in app.tools if t.read_only) if app else ())
        reading = tuple(t for t in reading if t not in record.called) or reading  # what read it so far did not
        # a declared write unchanged and no declared tool left to call: a tool of its application that names the
        # file it writes (a program's save), else any that changes (a click or a key press only may write one)
        changing = tuple(t.name for t in app.tools if not t.read_only) if app is not None else ()
        naming = tuple(t.name for t in app.tools if t.writes_named) \
            if app is not None and missing.writes else ()
        # declared program actions alone cannot make a missing file: the tools that name one are offered with them
        acting = bool(missing.tools) and app is not None and all(
            (info := app.tool(t)) is not None and not info.names_its_writes for t in missing.tools)
        writing = (*missing.tools, *(naming if acting else ())) or naming or changing
        # a save writes what the program holds: the declared actions in it not taken yet come first (a save of
        # what is unchanged writes nothing), and the next FINISH after them is asked about again
        first = tuple(t for t in missing.tools if app is not None and (info := app.tool(t)) is not None and info.acts)
        if first and app is not None and any((info := app.tool(t)) is not None and info.writes_named
                                             for t in writing):
            writing = first
        run = run_of(s)
        if missing.writes and app is not None and run.files is not None and not set(missing.writes) & {
                *run.files, *run.created}:  # files to make: not by a tool that opens one that exists
            writing = tuple(t for t in writing if (info := app.tool(t)) is None or not info.needs_file) or writing
        takers = data_takers(record.spec, app, {r.spec.id: r.spec for r in run.subtasks.values()}) \
            if missing.writes and rules.HANDED_FIRST in s.rules else ()
        if takers:  # its work is made of the data handed to it
            writing = tuple(t for t in writing if t in takers) or writing
        elif missing.writes and not missing.tools and app is not None and all(
                posixpath.splitext(w.rstrip("/"))[1] for w in missing.writes):
            # a file left unwritten by a subtask that read data: made of what it read (a listing into a list),
            # not a folder by the file's name (a folder is filled with files, by the tools that move them)
            kinds = {a.kind for a in record.artifacts.values()}
            writing = tuple(t for t in writing if (info := app.tool(t)) is not None
                            and any(info.takes(k) for k in kinds)) or writing
        if missing.hollow:  # a part left empty is filled by a tool that writes into it, not by one that adds another
            writing = _filling(writing, app) or _filling(changing, app) or writing
        elif writing and not _filling(writing, app):  # an empty part alone changes no content: those that do too
            writing = (*writing, *_filling(changing, app))
        # sources left out where another was taken by its path: the declared tools that change files take them
        taking = (tuple(t for t in record.spec.tools if t in changing) or changing) \
            if missing.untaken and missing.unused else ()
        # a declared changing tool never called is work not done (a FINISH again fails): it is what is forced
        wanted = (writing if missing.writes or missing.tools or missing.kept or missing.hollow or missing.unsettled
                  or missing.late else reading if missing.hands_on or missing.unread else missing.uncomputed or (
                      _acting(app, record.called) if missing.dialog or missing.unsaved else ())
                  or taking or missing.computing)
        force = rules.FORCE_TOOL in s.rules and bool(wanted)
        tools = f" with {', '.join(record.spec.tools)}" if record.spec.tools else ""
        note = (f"You answered FINISH, but {missing.text()}. Your subtask declares it writes "
                f"{', '.join(record.spec.writes) or 'nothing'}{tools}: make what is missing now with the data you "
                f"were given, then FINISH (FINISH again if your calls did it another way).")
        if record.may_ask and (missing.writes or missing.hollow):
            note += (" If a value it needs is in none of your files and data, ask the person for it (PENDING): "
                     "never make one up.")
        # what a computing tool worked out and no change holds is given by reference: the next data written is one
        by_ref = rules.REF_AFTER_UNWRITTEN in s.rules and bool(missing.late or missing.unwritten)
        s = update_subtask(s, sid, SubtaskEvent.STEP_CONTINUE, finish_checked=True,
                           asked=tuple(dict.fromkeys((*record.asked, *missing.soft_kinds))), note=note,
                           only=wanted if force else (),
                           **({"by_ref": True, "by_ref_rule": rules.REF_AFTER_UNWRITTEN} if by_ref else {}))
        if force:
            s = fired_rule(s, rules.FORCE_TOOL)
        return dispatch_propose(s, sid)
    lacking = missing.work  # a source it did not use, asked about once, is believed unneeded after
    if lacking and (not lacking.only_soft or (did_nothing and bool(record.asked))):  # never done for work it lacks
        reason = Reason(ReasonKind.FAILED, f"AppAgent {agent} (subtask {sid}) answered FINISH, but {lacking.text()}",
                        agent)
        if lacking.unhanded and lacking.handed_only:
            s = fired_rule(s, rules.UNHANDED_FAIL)
        if lacking.nothing:
            s = fired_rule(s, rules.NOTHING_FAIL)
        if lacking.whole and lacking.held_whole:
            s = fired_rule(s, rules.WHOLE_FAIL)
        if lacking.dialog and lacking.held_dialog:
            s = fired_rule(s, rules.DIALOG_FAIL)
        if lacking.unsaved and lacking.held_unsaved:
            s = fired_rule(s, rules.UNSAVED_FAIL)
        s = end_subtask(s, sid, agent, SubtaskEvent.STEP_FAIL, reason=reason)
        return settle(s)
    s = end_subtask(s, sid, agent, SubtaskEvent.STEP_FINISH, result=output.result)
    return settle(s)


def _acting(app: AppInfo | None, called: tuple[str, ...]) -> tuple[str, ...]:
    """A program's actions (tools that change its state, naming no file), those not called yet first: what
    ends a dialog its calls left open (its button) is an action it has not taken."""
    acting = tuple(t.name for t in app.tools if t.acts) if app else ()
    return tuple(t for t in acting if t not in called) or acting


def _filling(tools: tuple[str, ...], app: AppInfo | None) -> tuple[str, ...]:
    """The tools that do not only add an empty part (a sheet, a folder): they can put content into one."""
    return tuple(t for t in tools if app is None or (info := app.tool(t)) is None or not info.empty_part)


def _pending(s: HostState, agent: str, sid: str, output: AppOutput) -> Result:
    record = run_of(s).subtasks[sid]
    new = new_questions(record, output.questions)
    if not new:  # asked again: no progress, counted like a step whose calls all failed
        given = "; ".join(f"{qa.question!r}: {qa.answer!r}" for qa in record.answers)
        return _go_on(s, agent, sid, output, (), None, said=(
            f"Your question was answered already ({given}). Go on with that answer: call the tool for your "
            "subtask, or answer FINISH or FAIL."))
    s = update_subtask(s, sid, SubtaskEvent.STEP_PENDING)
    return ask(s, InteractionKind.QUESTION, agent, sid, questions=new, summary=output.comment)


def _fail(s: HostState, agent: str, sid: str, output: AppOutput, results: tuple[ActionResult, ...]) -> Result:
    record = run_of(s).subtasks[sid]
    erred = [(r.function, r.error) for r in results if not r.ok and r.error] or \
        [(json.loads(key)[0], error) for key, error in record.failed]
    if rules.FAIL_QUESTION in s.rules and erred and not record.fail_checked:
        function, error = erred[-1]
        s = update_subtask(s, sid, SubtaskEvent.STEP_CONTINUE, fail_checked=True, note=(
            f"You answered FAIL after {function} failed: {error}. That error says what to change: call {function} "
            "again with corrected arguments (or another tool). Answer FAIL only if your subtask truly cannot be "
            "done."))
        return dispatch_propose(fired_rule(s, rules.FAIL_QUESTION), sid)
    if rules.FAIL_DONE in s.rules and not record.fail_checked and record.spec.writes and record.done \
            and not missing_work(s, record, handed(s, record)[1]):
        s = update_subtask(s, sid, SubtaskEvent.STEP_CONTINUE, fail_checked=True, note=(
            f"You answered FAIL, but your changes show the work your subtask declares: they changed "
            f"{', '.join(record.changed)}. Answer FINISH if your subtask is done; FAIL only if a part of it is not."))
        return dispatch_propose(fired_rule(s, rules.FAIL_DONE), sid)
    app = s.catalog.get(record.spec.application)
    changing = [t for t in record.spec.tools if app is not None and (info := app.tool(t)) is not None
                and not info.read_only]
    if rules.FAIL_UNTRIED in s.rules and not record.fail_checked and changing and not set(
            changing) & {*record.called, *record.tried, *record.declined}:
        them = "them" if len(changing) > 1 else "it"
        s = update_subtask(s, sid, SubtaskEvent.STEP_CONTINUE, fail_checked=True, note=(
            f"You answered FAIL, but {', '.join(changing)}, which your subtask declares for its work, never ran. "
            f"Call {them} now; answer FAIL only if a call says the work cannot be done."))
        return dispatch_propose(fired_rule(s, rules.FAIL_UNTRIED), sid)
    reason = Reason(ReasonKind.FAILED, f"AppAgent {agent} (subtask {sid}): "
                                       f"{output.comment or 'failed without saying why'}", agent)
    s = end_subtask(s, sid, agent, SubtaskEvent.STEP_FAIL, reason=reason)
    return settle(s)


def _go_on(s: HostState, agent: str, sid: str, output: AppOutput, results: tuple[ActionResult, ...],
           proposal: Proposal | None, said: str = "", worked: bool = False, steered: bool = False) -> Result:
    """CONTINUE, a FINISH whose own change failed, or a question asked again: one more step, with what went
    wrong in front of it (`said`, when the caller knows). A step that met a new error is not idle, nor
    progress: the idle count stays."""
    record = run_of(s).subtasks[sid]
    idle = 0 if worked else record.idle + (0 if steered else 1)
    problems = [f"{r.function} failed: {r.error}" for r in results if not r.ok]
    problems += [why for _, why, done in (proposal.skipped if proposal else ()) if not done]
    note = said
    if output.status is AppStatus.FINISH and not said:
        note = "You answered FINISH, but a change failed, so the subtask is not done. "
    if problems:
        note += "In your last step: " + "; ".join(problems[:3]) + ". Fix the arguments or call another tool."
    elif not worked and not results and not said:
        note += "Your last step ran no call. Call the tool that does the next part of your subtask, or FINISH."
    if idle >= s.config.max_idle_steps:
        return settle(idle_out(s, sid, agent, idle, note))
    s = update_subtask(s, sid, SubtaskEvent.STEP_CONTINUE, idle=idle, note=note.strip(), sampled=not worked)
    if not worked and rules.SAMPLE in s.rules:
        s = fired_rule(s, rules.SAMPLE)
    return dispatch_propose(s, sid)


def on_app_error(s: HostState, agent: str, reason: Reason) -> Result:
    """A turn of the AppAgent failed outside its step (watchdog timeout, a crash in the step itself):
    the subtask fails; the planner may re-plan once the graph is idle."""
    sid = run_of(s).busy.get(agent)
    if sid is None:
        return [], s
    why = Reason(reason.kind, f"AppAgent {agent} (subtask {sid}): its turn failed: {reason.detail or reason.kind}",
                 agent, reason)
    s = record_step(s, agent, "FAIL", subtask=sid, action="turn failed", error=str(reason))
    s = end_subtask(s, sid, agent, SubtaskEvent.CRASHED, reason=why)
    return settle(s)
