"""What the host does with a planner step's report (the HostAgent's own FSM moves).

A plan is accepted only when its typed checks pass (podium.desktop.host.plan); its writes become the
subtasks' capabilities, trusted when the request names them or when the plan was made before the
planner had seen any result (what a file says never reaches the first plan). A FINISH is accepted only
when the run shows it: every subtask of the graph ended FINISH (each verified against its declarations),
and every file the request names that did not exist was made. Otherwise the run ends FAIL with what is
missing, never a FINISH for work that was not done.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence

from podium.desktop.blackboard import DEFAULT_ANSWER
from podium.desktop.host.artifacts import names
from podium.desktop.host.capability import covered
from podium.desktop.host.flow import (
    REPLAN,
    Result,
    asked_choice,
    dispatch_planner,
    failures,
    finish_run,
    kept_specs,
    merge_schedule,
    nothing_done,
    offered,
    planned,
    results_text,
    schedule_ready,
    unfinished,
    unmade,
)
from podium.desktop.host.fsm import PLANNED_EVENTS, HostEvent, SubtaskState
from podium.desktop.host.people import ask
from podium.desktop.host.plan import check_plan, folders_apart, named_by, open_choice, settle, unplanned_values
from podium.desktop.host.run import fire, fired_rule, record_step, run_of, with_run
from podium.desktop.host.state import PLANNER, Held, HostState, InteractionKind, SubtaskRecord
from podium.desktop.host.subtask import repair_feedback
from podium.desktop.rules import steps as rules
from podium.desktop.wire.messages import HostStepReport, summarize
from podium.desktop.wire.prompts import HOST_EXAMPLE_FILES, choice_title
from podium.desktop.wire.schemas import HostOutput, HostStatus, SubtaskSpec
from podium.ensemble.strategies.graph import GraphInvalid
from podium.errors import Reason, ReasonKind

EXAMPLE_RULE = "no-example-copy"
FAIL_DONE_RULE = rules.FAIL_DONE


def _trajectory(s: HostState, report: HostStepReport, output: HostOutput | None, fired: tuple[str, ...]) -> HostState:
    if output is not None:
        action = f"{output.status.value}"
        if output.subtasks:
            action += ": " + "; ".join(f"{t.id} [{t.application}] {t.description} (writes "
                                       f"{', '.join(t.writes) or 'nothing'})" for t in output.subtasks)
        elif output.current_subtask:
            action += f": {output.current_subtask}"
        outcome = output.comment
    else:
        action, outcome = "no valid answer", ""
    if report.bash is not None:
        outcome = f"{outcome}; Bash {report.bash.command!r}: {report.bash.detail}".lstrip("; ")
    error = report.invalid or (str(report.failure.detail) if report.failure else None)
    errors = "; ".join(f"{e.phase.value}: {e.detail}" for e in report.errors)
    return record_step(s, PLANNER, report.status.value if report.status else "ERROR", action=action,
                       outcome=outcome, timings=report.timings_ms, error=error or errors or None,
                       screenshot=report.screenshot, fired=fired)


def _specs(s: HostState, output: HostOutput) -> tuple[SubtaskSpec, ...]:
    """The subtask graph, or the seed's single Current Sub-Task on ControlText / ControlLabel."""
    if output.subtasks:
        return output.subtasks
    run = run_of(s)
    numbers = [int(i) for i in run.subtasks if i.isdigit()]
    app = offered(s).resolve(output.control_text, output.control_label) or output.control_text
    return (SubtaskSpec(id=str(max(numbers, default=0) + 1), description=output.current_subtask,
                        application=app, message=output.message),)


def _copies_example(texts: list[str], request: str, workspace: Sequence[str] = ()) -> str | None:
    """Rule no-example-copy: planner words naming the worked example's files that the request does not name and
    the workspace does not hold (a folder may well have a prices.xlsx of its own)."""
    held = {posixpath.basename(p.rstrip("/")) for p in workspace}
    files = [name for name in HOST_EXAMPLE_FILES if name not in request and name not in held]
    for text in texts:
        if any(name in text for name in files):
            return (f"{text!r} is from the example in your instructions, not about this request; answer for the "
                    "request in front of you")
    return None


def on_planner_report(s: HostState, report: HostStepReport) -> Result:
    run = run_of(s)
    if report.files is not None:
        s = with_run(s, files=report.files)
        run = run_of(s)
    if run.choosing is not None:
        return _settled(s, report)
    output = HostOutput.model_validate(report.output) if report.output is not None and report.status else None
    fired: tuple[str, ...] = ()
    if output is not None and EXAMPLE_RULE in s.rules:
        said = [t.description for t in output.subtasks] + [w for t in output.subtasks for w in t.writes]
        copied = _copies_example(said, run.request, run.files or ())
        if copied is not None:  # a plan of the worked example's subtasks is no plan: repaired like invalid output
            output, report, fired = None, report.model_copy(update={"invalid": copied}), (EXAMPLE_RULE,)
    s = _trajectory(s, report, output, fired)
    if report.failure is not None:
        failure = report.failure
        if failure.kind is ReasonKind.BUDGET_EXCEEDED:
            return finish_run(s, HostEvent.LIMIT, Reason(ReasonKind.BUDGET_EXCEEDED, failure.detail, PLANNER))
        return finish_run(s, HostEvent.BROKEN, Reason(
            ReasonKind.STAGE_FAILED, f"HostAgent step {run.planner_steps}: {failure.phase.value} failed: "
                                     f"{failure.detail}", PLANNER))
    if output is None:
        problem = report.invalid or "no answer"
        if run.repairs >= s.config.max_repairs:
            return finish_run(s, HostEvent.BROKEN, Reason(
                ReasonKind.INVALID_OUTPUT, f"the HostAgent's output stayed invalid after {run.repairs} repair(s): "
                                           f"{problem}; last output: {summarize(report.raw, 300)!r}", PLANNER))
        s = fire(with_run(s, repairs=run.repairs + 1), HostEvent.RETRY)
        return dispatch_planner(s, feedback=repair_feedback(report.raw, problem), retry=True)
    said = output.comment
    if EXAMPLE_RULE in s.rules and said and _copies_example([said], run.request, run.files or ()) is not None:
        said = ""  # the example's words are no last word on this request (a run's reply shows it)
    s = with_run(s, repairs=0, plan=output.plan or run.plan, comment=said or run.comment)
    status = output.status
    if status is HostStatus.ASSIGN:
        return _assign(s, output, report.raw)
    if status is HostStatus.FINISH:
        return _finish(s, output)
    if status is HostStatus.FAIL:
        if (refused := _refused(s)) is not None:
            return finish_run(s, HostEvent.PLANNED_FAIL, refused)
        done = [r for r in run_of(s).subtasks.values() if r.state is SubtaskState.FINISH]
        if FAIL_DONE_RULE in s.rules and done and not unfinished(s) and not run_of(s).fail_checked:
            changed = "; ".join(f"subtask {r.spec.id} changed {', '.join(r.changed) or 'nothing'}" for r in done)
            s = fire(with_run(s, fail_checked=True), HostEvent.RETRY)
            return dispatch_planner(s, retry=True, note=(
                f"You answered FAIL, but every subtask ended FINISH, each checked against the files ({changed}). "
                "Answer FINISH if that is what the request asks for, or ASSIGN new subtasks (new ids) for what is "
                "still missing."))
        # A small planner answers a re-plan with FAIL and the note's own words as its reason, or the example's.
        why = output.comment.replace(REPLAN, "").strip()
        if EXAMPLE_RULE in s.rules and _copies_example([why], run_of(s).request) is not None:
            why = ""
        why = why or failures(s)
        return finish_run(s, HostEvent.PLANNED_FAIL, Reason(
            ReasonKind.FAILED, why or "the HostAgent gave up without saying why", PLANNER))
    if status is HostStatus.ERROR:  # the model itself says something is broken
        return finish_run(s, PLANNED_EVENTS[status], Reason(
            ReasonKind.FAILED, f"the HostAgent reported ERROR: {output.comment or 'no reason given'}", PLANNER))
    if status is HostStatus.CONFIRM and rules.CONFIRM_UNPLANNED in s.rules and not run_of(s).subtasks \
            and not output.bash and not run_of(s).confirm_checked:
        s = fire(with_run(fired_rule(s, rules.CONFIRM_UNPLANNED), confirm_checked=True), HostEvent.RETRY)
        return dispatch_planner(s, retry=True, note=(
            "You answered CONFIRM before planning anything: the person approves what a plan declares it changes (its "
            "writes, shown before anything runs) and any change it did not declare, so there is nothing to approve "
            "yet. Answer ASSIGN with the subtasks that do the request."))
    s = fire(s, PLANNED_EVENTS[status])
    if status is HostStatus.CONTINUE:
        note = f"Bash {report.bash.command!r}: {report.bash.detail}." if report.bash else ""
        return dispatch_planner(s, note=f"{note} Look again and go on.".strip())
    if status is HostStatus.PENDING:
        return ask(s, InteractionKind.QUESTION, PLANNER, questions=output.questions, summary=output.comment)
    summary = output.comment or output.current_subtask or "the HostAgent's next step"  # CONFIRM
    if output.bash:
        summary += f" (Bash: {output.bash})"
    else:
        s = with_run(s, confirmed_nothing=True)
    return ask(s, InteractionKind.APPROVAL, PLANNER, summary=summary)


def _refused(s: HostState) -> Reason | None:
    """The run's end when what it was asked for was refused and nothing else was changed: said as such."""
    run = run_of(s)
    refused = [r.reason.detail for r in run.subtasks.values() if r.reason is not None
               and r.reason.kind is ReasonKind.REFUSED]
    refused += [f"refused (batch mode): {what}" for r in run.subtasks.values() for what in r.refused]
    if not refused or any(r.changed for r in run.subtasks.values()):
        return None
    return Reason(ReasonKind.REFUSED, f"not done: {'; '.join(dict.fromkeys(refused))}", PLANNER)


def _finish(s: HostState, output: HostOutput) -> Result:
    """The planner says the request is done: accepted when the run shows it."""
    run = run_of(s)
    if (refused := _refused(s)) is not None:
        return finish_run(s, HostEvent.PLANNED_FAIL, refused)
    failed = unfinished(s)
    if failed:
        return finish_run(s, HostEvent.PLANNED_FAIL, Reason(
            ReasonKind.FAILED, f"the HostAgent answered FINISH, but {failures(s)}", PLANNER))
    lacking = None
    # A FINISH straight away answers from what the planner sees (the workspace's files); one after the
    # planner itself planned work (its plan refused, or subtasks that all failed), or asked to confirm an action
    # it never planned, says nothing was done. (A person's answer to its question may settle the request.)
    unplanned = not planned(run) and not output.bash
    if unplanned and rules.FINISH_UNPLANNED in s.rules and not run.finish_checked:
        s = fire(with_run(fired_rule(s, rules.FINISH_UNPLANNED), finish_checked=True), HostEvent.RETRY)
        return dispatch_planner(s, retry=True, note=(
            "You answered FINISH before planning anything: nothing was read, changed or run, and the files' names "
            "are all you see. ASSIGN the subtasks that do the request; answer FINISH again only if those names "
            "answer it."))
    if unplanned and rules.UNPLANNED_FAIL in s.rules and run.finish_checked \
            and not any(q.answered_by != DEFAULT_ANSWER for q in s.blackboard.questions) \
            and not any(names(output.comment, posixpath.basename(f.rstrip("/"))) for f in run.files):
        # questioned, the planner stood by a FINISH that reads from no file name, with nothing done and nobody
        # having answered: no evidence of any of the request's work
        return finish_run(fired_rule(s, rules.UNPLANNED_FAIL), HostEvent.PLANNED_FAIL, Reason(
            ReasonKind.FAILED, "not done: the HostAgent answered FINISH with nothing planned, read or run, and its "
                               "answer names none of the workspace's files", PLANNER))
    if nothing_done(run):
        lacking = ("no subtask has done any of it", "ASSIGN the subtasks that do the request",
                   "not done: the HostAgent planned work and answered FINISH before any subtask did it")
    elif missing := unmade(run):
        lacking = (f"the request names {', '.join(missing)}, which no subtask made",
                   "ASSIGN the subtasks that make it (new ids, with it in their writes)",
                   f"not done: the request names {', '.join(missing)}, which was never made")
    if lacking is not None:
        why, then, reason = lacking
        if not run.finish_checked:
            s = fire(with_run(s, finish_checked=True), HostEvent.RETRY)
            return dispatch_planner(s, note=f"You answered FINISH, but {why}. {then}, or answer FAIL with the "
                                            "reason.", retry=True)
        return finish_run(s, HostEvent.PLANNED_FAIL, Reason(ReasonKind.FAILED, reason, PLANNER))
    text = output.comment
    if EXAMPLE_RULE in s.rules and _copies_example([text], run.request) is not None:
        text = results_text(run)
    return finish_run(s, HostEvent.PLANNED_FINISH, None, text=text or results_text(run))


def _assign(s: HostState, output: HostOutput, raw: str) -> Result:
    run = run_of(s)
    kept = kept_specs(run)
    check = check_plan(_specs(s, output), offered(s), run.request, run.files, kept, configured=s.catalog)
    if not check.ok:
        problems = "\n".join(f"- {p}" for p in check.problems)
        if run.plan_retries >= s.config.max_plan_retries:
            return finish_run(s, HostEvent.GIVE_UP, Reason(
                ReasonKind.PLAN_INVALID, f"the plan still failed its checks after {run.plan_retries} "
                                         f"retr{'y' if run.plan_retries == 1 else 'ies'}:\n{problems}", PLANNER))
        s = fire(with_run(s, plan_retries=run.plan_retries + 1), HostEvent.RETRY)
        # Not shown its rejected answer: a small model shown it copies it back whole, problems and all. A
        # plan that invents a file to write is often one that lacks a value: asking is the way on.
        return dispatch_planner(s, feedback=(
            f"Your plan failed these checks:\n{problems}\nPlan again so that none of them holds; or, if the "
            "request lacks something only the person knows (a value no file holds), answer PENDING with your "
            "question instead. Answer with ONE JSON object."), retry=True)
    if rules.VALUES_PLANNED in s.rules and not run.values_checked and (dropped := unplanned_values(
            run.request, (*check.subtasks, *kept.values()))):
        s = fire(with_run(fired_rule(s, rules.VALUES_PLANNED), values_checked=True), HostEvent.RETRY)
        values = ", ".join(repr(v) for v in dropped)
        return dispatch_planner(s, retry=True, feedback=(
            f"Your plan leaves out {values}, which the request gives: no subtask's description says it. Plan again "
            "so that the description of the subtask that does that part of the request says its value as the "
            "request gives it. Answer with ONE JSON object."))
    if rules.FOLDER_BESIDE in s.rules and not run.folders_checked and (apart := folders_apart(
            check.subtasks, run.files or ())):
        s = fire(with_run(fired_rule(s, rules.FOLDER_BESIDE), folders_checked=True), HostEvent.RETRY)
        said = "; ".join(f"subtask {sid!r} writes {name}, a new folder at the workspace's top, while what it reads "
                         f"is in {inside.rsplit('/', 1)[0]}/" for sid, name, inside in apart)
        paths = ", ".join(inside for _, _, inside in apart)
        return dispatch_planner(s, retry=True, feedback=(
            f"{said}. If the request puts it inside that folder, write {paths}; if at the top, plan it again as "
            "it is. Answer with ONE JSON object."))
    if check.amended:  # said where the plan is shown: the fixes are the host's, not the planner's words
        s = record_step(s, PLANNER, HostStatus.ASSIGN.value, action="plan amended by the host",
                        outcome="; ".join(check.amended))
    # A choice only the request can settle is asked before anything runs, so its answer comes from the
    # request alone, as the plan's own declarations do.
    open_ = () if rules.OPEN_CHOICE not in s.rules or run.seen_data else tuple(
        spec.id for spec in check.subtasks if open_choice(spec, offered(s), run.request, run.files) is not None)
    if open_:
        return dispatch_planner(with_run(s, choosing=Held(check.subtasks, open_)))
    return _accept(s, Held(check.subtasks, ()))


def _settled(s: HostState, report: HostStepReport) -> Result:
    """The planner's answer to the choice asked: the held plan's subtask settled by it (as declared, nothing
    settled, when it gave none), then the next choice asked or the plan accepted."""
    held = run_of(s).choosing
    assert held is not None
    if report.failure is not None and report.failure.kind is ReasonKind.BUDGET_EXCEEDED:
        return finish_run(s, HostEvent.LIMIT, Reason(ReasonKind.BUDGET_EXCEEDED, report.failure.detail, PLANNER))
    spec = next(spec for spec in held.specs if spec.id == held.asked[0])
    choice = asked_choice(s)
    settled, pins, said = spec, held.settled, held.said
    if choice is not None and report.chosen in choice.options:
        settled, told = settle(spec, choice, report.chosen)
        if choice.tool:  # the option its tool's calls take
            pins = {**pins, spec.id: (*pins.get(spec.id, ()), (choice.tool, choice.argument, report.chosen))}
        if told:
            said = {**said, spec.id: told}
    if choice is not None:
        why = report.invalid or (report.failure.detail if report.failure else "no answer")
        s = record_step(s, PLANNER, HostStatus.ASSIGN.value, fired=(rules.OPEN_CHOICE,),
                        action=choice_title(choice),
                        outcome=f"{report.chosen or f'not settled ({why})'}; it writes "
                                f"{', '.join(settled.writes) or 'nothing'}")
    specs = tuple(settled if other.id == spec.id else other for other in held.specs)
    if held.asked[1:]:
        return dispatch_planner(with_run(s, choosing=Held(specs, held.asked[1:], pins, said)))
    return _accept(with_run(s, choosing=None), Held(specs, (), pins, said))


def _accept(s: HostState, plan: Held) -> Result:
    """A plan that passed its checks, its choices settled, scheduled: its subtasks recorded with what of their
    declarations is trusted and what the request settled for them, the ready ones dispatched."""
    run, specs = run_of(s), plan.specs
    try:
        schedule = merge_schedule(run, specs)
    except GraphInvalid as exc:  # the checks above should have caught it; never crash the session on a plan
        return finish_run(s, HostEvent.GIVE_UP, Reason(ReasonKind.PLAN_INVALID, str(exc), PLANNER))
    # What a plan made before any result declares is the person's request turned into paths; what a later
    # plan adds may come from what a file said, and waits for the person unless the request names it.
    # Its reads too: a file read may be renamed to a declared new name beside it (capability).
    trusted = run.trusted if run.seen_data else (*run.trusted, *(p for spec in specs
                                                                 for p in (*spec.writes, *spec.reads)))
    records = dict(run.subtasks)
    for spec in specs:
        untrusted = tuple(p for p in dict.fromkeys((*spec.writes, *spec.reads))
                          if not covered(p, trusted) and not named_by(p, run.request))
        records[spec.id] = SubtaskRecord(spec=spec, untrusted=untrusted, settled=plan.settled.get(spec.id, ()),
                                         said=plan.said.get(spec.id, ""))
    s = with_run(s, subtasks=records, schedule=schedule, plan_retries=0, trusted=tuple(dict.fromkeys(trusted)))
    s = fire(s, HostEvent.PLANNED_ASSIGN)
    return schedule_ready(s)

