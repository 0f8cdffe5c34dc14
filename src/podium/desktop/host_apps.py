"""What the host does with an AppAgent step's report or a failed turn (an agent going down: host_restarts)."""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

from podium.desktop.blackboard import QA
from podium.desktop.catalog import ARITHMETIC, AppInfo, file_names, reads_only, work_named
from podium.desktop.fsm import STEP_EVENTS, HostEvent, SubtaskEvent
from podium.desktop.grounding import numbers, ungrounded
from podium.desktop.host_flow import (
    Result,
    dispatch_app,
    end_subtask,
    finish_run,
    record_step,
    run_of,
    settle,
    update_subtask,
)
from podium.desktop.host_people import ask
from podium.desktop.host_planner import repair_feedback
from podium.desktop.host_state import HostState, InteractionKind
from podium.desktop.messages import AppStepReport, HoldKind, summarize
from podium.desktop.schemas import AppOutput, AppStatus
from podium.desktop.tolerance import failure_nudge, finish_nudge, progress_nudge
from podium.errors import Reason, ReasonKind


def _describe(report: AppStepReport, output: AppOutput | None) -> tuple[str, str]:
    calls = [f"{r.function}({summarize(r.arguments, 120)})" for r in report.results]
    if report.held:
        calls.append("held for approval: " + ", ".join(f"{a.function}({summarize(a.arguments, 120)})"
                                                        for a in report.held))
    results = [f"{r.function}: " + (f"ok {summarize(r.content, 200)}" if r.ok else f"error {r.error}")
               for r in report.results]
    if output is not None and output.result not in (None, ""):
        results.append(f"result: {summarize(output.result, 200)}")
    if output is not None and output.comment:
        results.append(output.comment)
    return "; ".join(calls), "; ".join(results)


def on_app_report(s: HostState, agent: str, report: AppStepReport) -> Result:
    run = run_of(s)
    sid = run.busy.get(agent)
    if sid is None:
        return [], s  # not working for this request (a late answer from an earlier one)
    record = run.subtasks[sid]
    output = AppOutput.model_validate(report.output) if report.output is not None and report.status else None
    action, outcome = _describe(report, output)
    error = report.invalid or (report.failure.detail if report.failure else None) or \
        "; ".join(f"{e.phase.value}: {e.detail}" for e in report.errors) or None
    status = report.status.value if report.status else "ERROR"
    s = record_step(s, agent, "CONFIRM" if report.held else status, subtask=sid, action=action, outcome=outcome,
                    timings=report.timings_ms, error=error, screenshot=report.screenshot)
    where = f"AppAgent {agent} (subtask {sid})"

    if report.failure is not None:
        failure = report.failure
        if failure.kind is ReasonKind.BUDGET_EXCEEDED:
            return finish_run(s, HostEvent.LIMIT, Reason(ReasonKind.BUDGET_EXCEEDED, failure.detail, agent))
        reason = Reason(ReasonKind.STAGE_FAILED, f"{where}: {failure.phase.value} failed: {failure.detail}", agent)
        s = update_subtask(s, sid, SubtaskEvent.BROKEN, reason=reason)
        return finish_run(s, HostEvent.BROKEN, reason)

    if output is None:
        problem = report.invalid or "no answer"
        if record.repairs >= s.config.max_repairs:
            reason = Reason(ReasonKind.INVALID_OUTPUT, f"{where}: the output stayed invalid after {record.repairs} "
                                                       f"repair(s): {problem}; last output: "
                                                       f"{summarize(report.raw, 300)!r}", agent)
            s = update_subtask(s, sid, SubtaskEvent.BROKEN, reason=reason)
            return finish_run(s, HostEvent.BROKEN, reason)
        s = update_subtask(s, sid, SubtaskEvent.RETRY, repairs=record.repairs + 1,
                           feedback=repair_feedback(report.raw, problem))
        return dispatch_app(s, sid)

    outputs = (*record.outputs, *(r.content for r in report.results if r.ok))[-s.config.max_outputs:]
    done = sum(1 for r in report.results if r.ok and not r.skipped)
    made = [f"{r.function}({summarize(r.arguments, 120)})" for r in report.results
            if r.ok and not r.read_only and not r.skipped]
    changes = len(made)
    changed = (*record.changed, *made)[-8:]
    app = s.catalog.get(record.spec.application)
    called = tuple(dict.fromkeys((*record.called, *(r.function for r in report.results
                                                    if r.ok and (not r.read_only or AppInfo.arithmetic(r.function))))))
    s = update_subtask(s, sid, repairs=0, feedback="", note="", nudge="", must_act=False, outputs=outputs,
                       part_changes=record.part_changes + changes, idle=0 if done else record.idle + 1,
                       changed=changed, called=called)
    asked = run_of(s).subtasks[sid].asked(app)
    # What blocks a FINISH is a change that failed; a failed read changed nothing, and the model
    # decided it was done without waiting for the read's result.
    failed = [r for r in report.results if not r.ok and not r.skipped and not r.read_only]
    if output.status is AppStatus.CONTINUE and report.results and all(r.skipped for r in report.results) \
            and not asked and (record.changed or reads_only(record.doing)):
        # It asks again for exactly what it already has, and nothing new: the 1.5B model that has made
        # its change often cannot say it is done (rows and chart made, then the same two calls, CONTINUE,
        # step after step); one told to list the files lists them again, and again. Taken as its FINISH,
        # checked like one.
        output = output.model_copy(update={"status": AppStatus.FINISH})
    if output.status is AppStatus.CONTINUE and not report.held and output.result not in (None, "") \
            and _read_what_it_names(record.doing, report):
        # "Read the table from report.docx", read_table on report.docx succeeded, and the answer gives a
        # result: that is the part done (its output is what the next one is handed). The 1.5B AppAgent
        # answered CONTINUE and read it again, a step (~40 s) in most plans, which start with such a read.
        output = output.model_copy(update={"status": AppStatus.FINISH})

    if report.held or output.status is AppStatus.CONFIRM:
        s = update_subtask(s, sid, SubtaskEvent.STEP_CONFIRM, held=report.held, holds=report.holds)
        if report.held:
            summary = f"{record.spec.application}: " + ", ".join(
                f"{a.function}({summarize(a.arguments, 200)})" for a in report.held)
            if output.comment:
                summary += f" ({output.comment})"
            # the person is told what, beyond the change itself, makes it need approval
            if notes := [h.text() for h in report.holds if h.kind in (HoldKind.NAMED_BY_DATA, HoldKind.READ_SOURCE)]:
                summary += f" [{'; '.join(notes)}]"
        else:
            summary = output.comment or f"the next step of subtask {sid}"
        return ask(s, InteractionKind.APPROVAL, agent, sid, summary=summary, actions=report.held)
    if output.status is AppStatus.PENDING:
        new = tuple(q for q in output.questions if not _answered(q, record.answers))
        if output.questions and not new:
            # Asked again (the 1.5B AppAgent re-asked the earlier question with its answer pasted in):
            # the person is not asked twice; the AppAgent is shown the answers and goes on.
            given = "; ".join(f"{qa.question!r}: {qa.answer!r}" for qa in record.answers)
            s = update_subtask(s, sid, SubtaskEvent.STEP_CONTINUE, nudge=f"Your question was answered already "
                               f"({given}). Go on with that answer: call the tool for your subtask, or answer "
                               f"FINISH or FAIL.")
            return dispatch_app(s, sid)
        s = update_subtask(s, sid, SubtaskEvent.STEP_PENDING)
        return ask(s, InteractionKind.QUESTION, agent, sid, questions=new, summary=output.comment)
    parts = record.parts
    # (a part that only reads or computes, "Compute the sum of the values", is not there to change a file)
    unchanged = record.part_changes + changes == 0 and bool(record.spec.depends_on or record.part > 0) \
        and not reads_only(record.doing)
    if output.status is AppStatus.FINISH and not failed and (unchanged or asked) \
            and not record.finish_checked and s.config.check_finish and app and app.tools:
        # Small models "finish" a change they never made: handed the results of the subtasks it
        # depends on (or of the parts before), the AppAgent copies them into its result, or reads its
        # file and stops there; or it makes one change where its words ask for another too (the rows
        # written, the chart named but never made). A subtask that is handed data is there to do
        # something with it, so a FINISH before any change, or before a call of a tool its words name,
        # is questioned, once (a second FINISH is believed). A subtask without inputs or named tools
        # may well be done by looking (observe.py).
        s = update_subtask(s, sid, SubtaskEvent.STEP_CONTINUE, finish_checked=True, must_act=True,
                           nudge=finish_nudge(record.doing, asked or app.changing or app.tools, record.changed,
                                              named=bool(asked)))
        return dispatch_app(s, sid)
    if output.status is AppStatus.FINISH and not failed and record.part + 1 < len(parts):
        # One part done: the same AppAgent goes on with the next, its FINISH checked afresh.
        done_text = f" ({summarize(output.result, 200)})" if output.result not in (None, "") else ""
        s = update_subtask(s, sid, SubtaskEvent.STEP_CONTINUE, part=record.part + 1, part_changes=0,
                           finish_checked=False,
                           note=f"Part {record.part + 1} of {len(parts)} is done{done_text}. "
                                f"Now part {record.part + 2}: {parts[record.part + 1]}")
        return dispatch_app(s, sid)
    if output.status is AppStatus.FINISH and not failed:
        if not outputs:
            # Done without a tool call: what it looked at (the files of its subtask, read at this
            # step) is what the subtasks depending on it need, whatever its result says.
            seen = tuple(r.content for r in report.observed if r.ok)
            s = update_subtask(s, sid, outputs=seen[-s.config.max_outputs:])
        s = end_subtask(s, sid, agent, SubtaskEvent.STEP_FINISH, result=_grounded(s, sid, output.result))
        return settle(s)
    erred = [r for r in report.results if not r.ok and r.ran and r.error]
    if output.status is AppStatus.FAIL and erred and not record.fail_checked and s.config.check_finish:
        # Its own call failed, and it gives up: the 1.5B AppAgent sent add_table three malformed calls
        # and answered FAIL, and the planner, told a subtask failed, gave up the request. A tool's error
        # says how to call it right: the AppAgent is told so, once (a second FAIL ends the subtask).
        s = update_subtask(s, sid, SubtaskEvent.STEP_CONTINUE, fail_checked=True, nudge=(
            f"You answered FAIL after {erred[-1].function} failed: {erred[-1].error}. That error says what "
            f"to change: call {erred[-1].function} again with corrected arguments (or another tool). Answer "
            f"FAIL only if your subtask truly cannot be done."))
        return dispatch_app(s, sid)
    if output.status is AppStatus.FAIL:
        reason = Reason(ReasonKind.FAILED, f"{where}: {output.comment or 'failed without saying why'}", agent)
        s = end_subtask(s, sid, agent, SubtaskEvent.STEP_FAIL, reason=reason)
        return settle(s)
    if output.status is AppStatus.ERROR:
        reason = Reason(ReasonKind.FAILED, f"{where} reported ERROR: {output.comment or 'no reason given'}", agent)
        s = update_subtask(s, sid, STEP_EVENTS[AppStatus.ERROR], reason=reason)
        return finish_run(s, HostEvent.BROKEN, reason)
    # CONTINUE, or a FINISH whose own actions failed: one more step, with the failure in front of it
    s = update_subtask(s, sid, SubtaskEvent.STEP_CONTINUE)
    if output.status is AppStatus.FINISH or not done:
        return _no_progress(s, agent, sid, report, output)
    return dispatch_app(s, sid)


def _read_what_it_names(doing: str, report: AppStepReport) -> bool:
    """Whether a part that only reads (and computes nothing) has read a file it names, and failed at
    nothing it tried."""
    named = {PurePosixPath(n).name.lower() for n in file_names(doing)}
    if not named or not reads_only(doing) or work_named(doing, ARITHMETIC) or any(
            not r.ok and not r.skipped for r in report.results):
        return False
    return any(r.ok and r.read_only and not r.skipped and isinstance(r.arguments.get("path"), str)
               and PurePosixPath(r.arguments["path"]).name.lower() in named for r in report.results)


def _answered(question: str, answers: tuple[QA, ...]) -> bool:
    """Whether `question` is one already answered (the same words, or holding one's words)."""
    words = " ".join(re.findall(r"\w+", question.lower()))
    return any((earlier := " ".join(re.findall(r"\w+", qa.question.lower()))) and earlier in words
               for qa in answers)


def _grounded(s: HostState, sid: str, result: Any) -> Any:
    """The result a subtask hands on, unless it names numbers none of its tools (nor its inputs' tools,
    the request or the person) gave, where the work is arithmetic: the 1.5B AppAgent wrote "The sum ...
    is 7095.0" in the answer that called column_totals (Amount: 3099.84), and the next subtask wrote
    7095 into total.txt. Then its outputs speak for it, and the result says so."""
    run = run_of(s)
    record = run.subtasks[sid]
    texts = (run.request, record.spec.description, *record.parts)
    if result in (None, "") or not work_named(" ".join(texts), ARITHMETIC):
        return result
    inputs = [r.outputs for r in (s.blackboard.result_of(d) for d in record.spec.depends_on) if r is not None]
    answers = [qa.answer for qa in s.blackboard.questions]
    guessed = ungrounded(result, numbers([texts, record.outputs, inputs, answers]))
    if not guessed:
        return result
    return (f"(not its result: its words named {', '.join(guessed)}, which none of its tool outputs shows; "
            f"what its tools returned is in its outputs)")


def _no_progress(s: HostState, agent: str, sid: str, report: AppStepReport, output: AppOutput) -> Result:
    """A step that ran no tool successfully (CONTINUE), or a FINISH whose actions failed: nudge the next
    step (sampled: greedy would answer the same), or end a run of such steps."""
    record = run_of(s).subtasks[sid]
    app = s.catalog.get(record.spec.application)
    nudge = report.nudge or progress_nudge(output, report.results, app.tools if app else ()) or ""
    if output.status is AppStatus.FINISH:
        nudge = f"You answered FINISH, but a change failed, so the subtask is not done. {failure_nudge(report.results)}"
    elif record.changed:  # a small model that made its change often cannot tell that it is done
        nudge = (f"Your earlier changes succeeded: {'; '.join(record.changed)}. If the files of your subtask now "
                 f"show what {record.doing!r} asks for, answer FINISH with the result; otherwise call "
                 f"the tool for the part still missing. {nudge}").strip()
    if record.idle >= s.config.max_idle_steps and record.changed and not record.asked(app):
        # Its changes stand and it has nothing left to do: the subtask ends as done, saying how, and the
        # HostAgent, which compares every result with the request, decides whether more is needed. (Not
        # while a tool its words name never succeeded: the 1.5B AppAgent added the Ranking sheet, its sort
        # failed twice, and "done" left the sheet empty.)
        result = (f"the changes made: {'; '.join(record.changed)} (then {record.idle} steps without progress; "
                  f"the AppAgent did not say it was done)")
        s = end_subtask(s, sid, agent, SubtaskEvent.STEP_FINISH, result=result)
        return settle(s)
    if record.idle >= s.config.max_idle_steps:
        reason = Reason(ReasonKind.LIMIT_REACHED,
                        f"AppAgent {agent} (subtask {sid}) made no progress: {record.idle} steps in a row without "
                        f"a tool call that succeeded (max_idle_steps={s.config.max_idle_steps}); last: "
                        f"{summarize(nudge, 300)}", agent)
        s = end_subtask(s, sid, agent, SubtaskEvent.LIMIT, reason=reason)
        return settle(s)
    # A step that got nowhere while its words name a tool it has not called: the next step calls it.
    asked = record.asked(app)
    if asked:
        nudge = f"{nudge} Your subtask names {', '.join(asked)}: call it now.".strip()
    s = update_subtask(s, sid, nudge=nudge, must_act=bool(asked))
    return dispatch_app(s, sid)


def on_app_error(s: HostState, agent: str, reason: Reason) -> Result:
    """A turn of the AppAgent failed outside its step (watchdog timeout, a crash in the step itself):
    the subtask fails; the planner may re-plan once the graph is idle."""
    run = run_of(s)
    sid = run.busy.get(agent)
    if sid is None:
        return [], s
    why = Reason(reason.kind, f"AppAgent {agent} (subtask {sid}): its turn failed: {reason.detail or reason.kind}",
                 agent, reason)
    s = record_step(s, agent, "FAIL", subtask=sid, action="turn failed", error=str(reason))
    s = end_subtask(s, sid, agent, SubtaskEvent.CRASHED, reason=why)
    return settle(s)
