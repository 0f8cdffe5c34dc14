"""What the host does with a planner step's report (the HostAgent's own FSM moves)."""

from __future__ import annotations

from dataclasses import replace

from podium.desktop.catalog import asks_for_change
from podium.desktop.fsm import PLANNED_EVENTS, HostEvent
from podium.desktop.host_flow import (
    REPLAN,
    Result,
    dispatch_planner,
    failures,
    finish_run,
    fire,
    kept_specs,
    merge_schedule,
    new_record,
    offered,
    record_step,
    run_of,
    schedule_ready,
    with_run,
)
from podium.desktop.host_people import ask
from podium.desktop.host_state import PLANNER, HostState, InteractionKind, Run
from podium.desktop.messages import HostStepReport, summarize
from podium.desktop.plan import check_plan
from podium.desktop.plan_repairs import (
    add_missing,
    add_unwritten,
    as_requested,
    compute_upstream,
    merge_chains,
    missing_work,
    write_first,
)
from podium.desktop.prompts import copies_host_example
from podium.desktop.schemas import HostOutput, HostStatus, SubtaskSpec
from podium.ensemble.strategies.graph import GraphInvalid
from podium.errors import Reason, ReasonKind

NO_CHANGE_FINISH = ("You answered FINISH, but no subtask has changed any file. Compare the request with the subtask "
                    "results: if the request asks for a change, ASSIGN subtasks (new ids) that make it; if it needed "
                    "no change, answer FINISH again.")


def repair_feedback(raw: str, problem: str) -> str:
    shown = raw if len(raw) <= 1500 else raw[:1500] + " ..."
    # An object never closed was cut off at the token limit: the 1.5B planner's Thought ran on ("The Excel
    # application has tools ... The Excel app...") three times in a row when only told it was no JSON.
    cut = " It was cut off: it ran on. Keep Observation and Thought to one short sentence each." \
        if raw.lstrip().startswith("{") and not raw.rstrip().endswith("}") else ""
    return (f"Your answer was:\n{shown}\nIt was rejected: {problem}{cut}\n"
            "Answer again with ONE JSON object with the fields of the example, and nothing else.")


def _trajectory(s: HostState, report: HostStepReport, output: HostOutput | None) -> HostState:
    if output is not None:
        action = f"{output.status.value}"
        if output.subtasks:
            action += ": " + "; ".join(f"{t.id} [{t.application}] {t.description}" for t in output.subtasks)
        elif output.current_subtask:
            action += f": {output.current_subtask}"
        outcome = output.comment
    else:
        action, outcome = "no valid answer", ""
    if report.bash is not None:
        outcome = f"{outcome}; Bash {report.bash.command!r}: {report.bash.detail}".lstrip("; ")
    run = run_of(s)
    if run.planner_steps == 1 and run.applications:  # decided in code: say so where the run is read back
        outcome = f"{outcome} [applications offered: {', '.join(run.applications)}: the files the request " \
                  f"names are theirs]".lstrip()
    error = report.invalid or (str(report.failure.detail) if report.failure else None)
    errors = "; ".join(f"{e.phase.value}: {e.detail}" for e in report.errors)
    return record_step(s, PLANNER, report.status.value if report.status else "ERROR", action=action,
                       outcome=outcome, timings=report.timings_ms, error=error or errors or None,
                       screenshot=report.screenshot)


def _specs(s: HostState, output: HostOutput) -> tuple[SubtaskSpec, ...]:
    """The subtask graph, or the seed's single Current Sub-Task on ControlText / ControlLabel."""
    if output.subtasks:
        return output.subtasks
    run = run_of(s)
    numbers = [int(i) for i in run.subtasks if i.isdigit()]
    app = offered(s).resolve(output.control_text, output.control_label) or output.control_text
    return (SubtaskSpec(id=str(max(numbers, default=0) + 1), description=output.current_subtask,
                        application=app, message=output.message),)


def on_planner_report(s: HostState, report: HostStepReport) -> Result:
    output = HostOutput.model_validate(report.output) if report.output is not None and report.status else None
    copied = None if output is None else copies_host_example([t.description for t in output.subtasks],
                                                             run_of(s).request)
    if copied is not None:  # a plan of the worked example's subtasks is no plan: repaired like invalid output
        output, report = None, report.model_copy(update={"invalid": copied})
    s = _trajectory(s, report, output)
    run = run_of(s)
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
    s = with_run(s, repairs=0, plan=output.plan or run.plan, comment=output.comment or run.comment)
    status = output.status
    if status is HostStatus.ASSIGN:
        return _assign(s, output, report.raw)
    refused = [r.reason.detail for r in run.subtasks.values()
               if r.reason is not None and r.reason.kind is ReasonKind.REFUSED]
    refused += [f"refused (batch mode): {what}" for r in run.subtasks.values() for what in r.refused]
    if status is HostStatus.FINISH and refused and not any(r.changed for r in run.subtasks.values()):
        # "Every part of the request is done" is not what happened: the person (or batch mode) refused
        # what the request asked for and nothing else was changed. The reply says so.
        why = "; ".join(dict.fromkeys(refused))
        return finish_run(s, HostEvent.PLANNED_FAIL, Reason(
            ReasonKind.REFUSED, f"not done: {why}" + (f" (the HostAgent: {output.comment})" if output.comment
                                                      else ""), PLANNER))
    if status is HostStatus.FINISH and s.config.check_finish and not run.work_checked and run.subtasks:
        missing = missing_work(run.request, [text for r in run.subtasks.values()
                                             for text in (r.spec.description, *r.parts)])
        if missing:
            s = fire(with_run(s, work_checked=True), HostEvent.RETRY)
            return dispatch_planner(s, note=f"You answered FINISH, but {'; '.join(missing)}. ASSIGN the subtasks "
                                            "that do it (new ids), or answer FINISH again if it is done.",
                                    retry=True)
    # The 1.5B planner answers FINISH in its example's words ("prices.xlsx holds the price table of
    # offer.docx and its sum"), whatever the subtasks did: said to the person, they would be false.
    parroted = status is HostStatus.FINISH and copies_host_example([output.comment], run.request) is not None
    if status is HostStatus.FINISH and s.config.check_finish and not run.finish_checked \
            and (parroted or (run.subtasks and asks_for_change(run.request))
                 or any(r.spec.depends_on or r.parts for r in run.subtasks.values())) \
            and not any(r.changed for r in run.subtasks.values()):
        # A request that asks for a change (the 1.5B planner planned "Write the action items of
        # meeting.docx into actions.txt" as reading them, and finished), a plan that hands data from one
        # subtask (or part) to the next, and an answer in the example's words: when nothing was
        # changed at all, that FINISH is questioned, once.
        s = fire(with_run(s, finish_checked=True), HostEvent.RETRY)
        return dispatch_planner(s, note=NO_CHANGE_FINISH, retry=True)
    if status is HostStatus.FINISH:
        text = _results(run) if parroted else output.comment
        return finish_run(s, HostEvent.PLANNED_FINISH, None, text=text or "done")
    if status is HostStatus.FAIL:
        # The 1.5B planner answers a re-plan with FAIL and the note's own words as its reason.
        why = output.comment.replace(REPLAN, "").strip() or failures(s)
        return finish_run(s, HostEvent.PLANNED_FAIL, Reason(
            ReasonKind.FAILED, why or "the HostAgent gave up without saying why", PLANNER))
    if status is HostStatus.ERROR:  # the model itself says something is broken
        return finish_run(s, PLANNED_EVENTS[status], Reason(
            ReasonKind.FAILED, f"the HostAgent reported ERROR: {output.comment or 'no reason given'}", PLANNER))
    s = fire(s, PLANNED_EVENTS[status])
    if status is HostStatus.CONTINUE:
        note = f"Bash {report.bash.command!r}: {report.bash.detail}." if report.bash else ""
        return dispatch_planner(s, note=f"{note} Look again and go on.".strip())
    if status is HostStatus.PENDING:
        return ask(s, InteractionKind.QUESTION, PLANNER, questions=output.questions, summary=output.comment)
    summary = output.comment or output.current_subtask or "the HostAgent's next step"  # CONFIRM
    if output.bash:
        summary += f" (Bash: {output.bash})"
    return ask(s, InteractionKind.APPROVAL, PLANNER, summary=summary)


def _results(run: Run) -> str:
    """What the subtasks say they did, for a FINISH whose own words are not about this request."""
    return "; ".join(f"subtask {r.spec.id}: {summarize(r.result, 200)}" for r in run.subtasks.values()
                     if r.result not in (None, "")) or "every subtask ended FINISH"


def _noted(s: HostState, note: str) -> HostState:
    """The planner's last trajectory entry with what the code changed in its plan, in brackets."""
    *before, last = s.blackboard.trajectories
    last = last.model_copy(update={"outcome": f"{last.outcome} [{note}]".lstrip()})
    return replace(s, blackboard=s.blackboard.model_copy(update={"trajectories": (*before, last)}))


def _assign(s: HostState, output: HostOutput, raw: str) -> Result:
    run = run_of(s)
    kept = kept_specs(run)
    check = check_plan(_specs(s, output), offered(s), run.request, kept)
    if not check.ok:
        problems = "\n".join(f"- {p}" for p in check.problems)
        if run.plan_retries >= s.config.max_plan_retries:
            return finish_run(s, HostEvent.GIVE_UP, Reason(
                ReasonKind.PLAN_INVALID, f"the plan still failed its checks after {run.plan_retries} "
                                         f"retr{'y' if run.plan_retries == 1 else 'ies'}:\n{problems}", PLANNER))
        s = fire(with_run(s, plan_retries=run.plan_retries + 1), HostEvent.RETRY)
        return dispatch_planner(s, feedback=repair_feedback(raw, f"the plan failed these checks:\n{problems}"),
                                retry=True)
    planned, added = merge_chains(check.subtasks, kept), ()
    if output.subtasks:  # a graph is the whole plan; the seed's one Current Sub-Task is one step of it
        done = [r.spec.description for r in run.subtasks.values()]
        planned, added = add_missing(planned, run.request, offered(s), done)
        planned, written = write_first(planned, run.request, offered(s), kept)
        planned, computed = compute_upstream(planned, offered(s))
        added += written + computed
        planned, whole = as_requested(planned, run.request, offered(s), done)
        added += whole
        if not done:
            planned, unwritten = add_unwritten(planned, run.request, offered(s))
            added += unwritten
    if check.dropped or check.moved or added:
        s = _noted(s, "; ".join((*check.dropped, *check.moved, *added)))
    try:
        schedule = merge_schedule(run, tuple(spec for spec, _ in planned))
    except GraphInvalid as exc:  # the checks above should have caught it; never crash the session on a plan
        return finish_run(s, HostEvent.GIVE_UP, Reason(ReasonKind.PLAN_INVALID, str(exc), PLANNER))
    records = dict(run.subtasks)
    for spec, parts in planned:
        records[spec.id] = new_record(spec, parts)
    s = with_run(s, subtasks=records, schedule=schedule, plan_retries=0)
    s = fire(s, HostEvent.PLANNED_ASSIGN)
    return schedule_ready(s)
