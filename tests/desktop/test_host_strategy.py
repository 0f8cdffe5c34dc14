"""The host strategy as pure functions: feed callbacks, compare ops and states. No event loop."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from typing import Any

import pytest

from podium.agent.behaviour import Behaviour
from podium.agent.events import Response, Usage
from podium.apps.spreadsheets import SpreadsheetsApplication
from podium.apps.workspace import Workspace
from podium.desktop.catalog import AppInfo, Catalog
from podium.desktop.events import (
    Answer,
    Approval,
    ApprovalRequest,
    Cancel,
    Elapsed,
    Progress,
    Question,
    RunFinished,
)
from podium.desktop.host import HostStrategy
from podium.desktop.host_state import HostConfig, HostState
from podium.desktop.messages import (
    ActionResult,
    AppStepKind,
    AppStepReport,
    AppStepRequest,
    Hold,
    HoldKind,
    HostStepReport,
    HostStepRequest,
    StepFailure,
)
from podium.desktop.pipeline import Phase
from podium.desktop.prompts import HOST_EXAMPLE, HOST_FINISH_EXAMPLE, HOST_ONE_FILE_EXAMPLE
from podium.desktop.schemas import Action, AppOutput, HostOutput
from podium.ensemble.ops import AgentSpec, Dispatch, Forward, Reply, ReplyError, Start
from podium.errors import ConfigError, Reason, ReasonKind

CATALOG = Catalog((AppInfo("documents", "docs", (".docx",)), AppInfo("spreadsheets", "sheets", (".xlsx",))))
SPEC = AgentSpec("template", Behaviour(), {"backend": object()})
STRATEGY = HostStrategy()


def init(observer: bool = False, **config: Any) -> HostState:
    opts: dict[str, Any] = {"planner": SPEC, "app_agents": {"documents": SPEC, "spreadsheets": SPEC},
                            "catalog": CATALOG, "config": HostConfig(**config)}
    if observer:
        opts["observer"] = SPEC
    state, specs = STRATEGY.init(opts)
    assert [s.name for s in specs] == ["host", *(["observer"] if observer else [])]
    return state


def planner_says(status: str, usage: Usage | None = None, **fields: Any) -> Response:
    output = HostOutput.model_validate({"Status": status, **fields})
    report = HostStepReport(status=output.status, output=output.dump())
    return Response(report.model_dump_json(), usage=usage)


def app_says(status: str, *, results: tuple[ActionResult, ...] = (), held: tuple[Action, ...] = (),
             holds: tuple[Hold, ...] = (), **fields: Any) -> Response:
    output = AppOutput.model_validate({"status": status, **fields})
    report = AppStepReport(status=output.status, output=output.dump(), results=results, held=held, holds=holds)
    return Response(report.model_dump_json())


def graph(*subtasks: tuple[str, str, str, tuple[str, ...]]) -> list[dict[str, Any]]:
    return [{"id": i, "description": d, "application": a, "depends_on": list(deps)} for i, d, a, deps in subtasks]


SEED = graph(("1", "Extract the table from report.docx", "documents", ()),
             ("2", "Chart it in budget.xlsx", "spreadsheets", ("1",)))


def dispatches(ops: list[Any]) -> list[Dispatch]:
    return [op for op in ops if isinstance(op, Dispatch)]


def app_request(op: Dispatch) -> AppStepRequest:
    return AppStepRequest.model_validate_json(op.prompt if isinstance(op.prompt, str) else op.prompt.text)


def host_request(op: Dispatch) -> HostStepRequest:
    return HostStepRequest.model_validate_json(op.prompt.text)  # type: ignore[union-attr]


def started(**config: Any) -> HostState:
    _, s = STRATEGY.handle_ask("Extract the table from report.docx and chart it in budget.xlsx", {}, "t1",
                               init(**config))
    return s


def test_init_refuses_bad_options_with_clear_errors() -> None:
    with pytest.raises(ConfigError, match="needs option `planner`"):
        STRATEGY.init({"catalog": CATALOG})
    with pytest.raises(ConfigError, match="must map every application"):
        STRATEGY.init({"planner": SPEC, "catalog": CATALOG, "app_agents": {"documents": SPEC}})
    with pytest.raises(ConfigError, match="evaluate is on but no `judge`"):
        STRATEGY.init({"planner": SPEC, "catalog": CATALOG, "app_agents": {"documents": SPEC, "spreadsheets": SPEC},
                       "config": HostConfig(evaluate=True)})
    with pytest.raises(ConfigError, match="max_steps must be an integer >= 1"):
        HostConfig(max_steps=0)


def test_a_request_starts_with_a_greedy_planner_step() -> None:
    ops, s = STRATEGY.handle_ask("Chart the table", {}, "t1", init())
    (op,) = ops
    assert isinstance(op, Dispatch) and op.agent == "host" and op.token == "t1"
    assert op.prompt.temperature == 0.0  # type: ignore[union-attr]
    request = host_request(op)
    assert request.request == "Chart the table" and request.step == 1 and "Chart the table" in request.blackboard
    assert STRATEGY.handle_status(s)["host"]["state"] == "CONTINUE"


def test_assign_starts_the_first_app_agent_and_dispatches_only_ready_subtasks() -> None:
    ops, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=SEED), started())
    assert [type(op).__name__ for op in ops] == ["Start", "Dispatch"]
    start, dispatch = ops
    assert isinstance(start, Start) and start.name == "app-documents" and start.behaviour is SPEC.behaviour
    assert dispatch.agent == "app-documents" and dispatch.token == "t1"  # type: ignore[union-attr]
    request = app_request(dispatch)  # type: ignore[arg-type]
    assert (request.subtask_id, request.step, request.application) == ("1", 1, "documents")
    host = STRATEGY.handle_status(s)["host"]
    assert host["state"] == "ASSIGN"
    assert [(t["id"], t["state"]) for t in host["subtasks"]] == [("1", "CONTINUE"), ("2", "WAITING")]


def test_a_finished_subtask_goes_on_the_blackboard_and_unblocks_its_dependant() -> None:
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=SEED), started())
    ops, s = STRATEGY.handle_response("app-documents", app_says("FINISH", result=[["Q1", 10]]), s)
    assert [type(op).__name__ for op in ops] == ["Start", "Dispatch"]
    request = app_request(ops[1])  # type: ignore[arg-type]
    assert request.subtask_id == "2" and [r.result for r in request.inputs] == [[["Q1", 10]]]
    # the dependant is handed the blackboard's entry as its inputs; its blackboard section does not repeat it,
    # nor the HostAgent's steps (the plan is its subtask)
    assert '[["Q1", 10]]' not in request.blackboard and "host ASSIGN" not in request.blackboard
    assert s.blackboard.result_of("1").result == [["Q1", 10]]  # type: ignore[union-attr]
    ops, s = STRATEGY.handle_response("app-spreadsheets", app_says("FINISH", result="charted"), s)
    (verify,) = ops
    assert verify.agent == "host" and "Every subtask has ended" in host_request(verify).note  # type: ignore[union-attr]
    assert STRATEGY.handle_status(s)["host"]["state"] == "CONTINUE"
    # nothing was changed although data was handed on: the FINISH is questioned once, then believed
    ops, s = STRATEGY.handle_response("host", planner_says("FINISH", Comment="charted"), s)
    (question,) = ops
    assert question.agent == "host" and "no subtask has changed any file" in host_request(question).note  # type: ignore[union-attr]
    ops, s = STRATEGY.handle_response("host", planner_says("FINISH", Comment="charted"), s)
    (reply,) = ops
    assert isinstance(reply, Reply) and reply.token == "t1" and reply.response.text == "charted"
    outcome = reply.response.events[-1].data["outcome"]
    assert outcome["status"] == "FINISH" and [t["state"] for t in outcome["subtasks"]] == ["FINISH", "FINISH"]
    json.dumps(outcome)
    assert s.run is None and STRATEGY.handle_status(s)["host"]["state"] == "idle"


def test_independent_subtasks_are_dispatched_in_the_same_batch() -> None:
    subtasks = graph(("a", "x.docx", "documents", ()), ("b", "y.xlsx", "spreadsheets", ()))
    ops, _ = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=subtasks), started())
    assert [d.agent for d in dispatches(ops)] == ["app-documents", "app-spreadsheets"]


def test_one_subtask_at_a_time_per_app_agent_and_the_agent_is_reused() -> None:
    subtasks = graph(("a", "a.docx", "documents", ()), ("b", "b.docx", "documents", ()))
    ops, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=subtasks), started())
    assert [type(op).__name__ for op in ops] == ["Start", "Dispatch"]
    ops, s = STRATEGY.handle_response("app-documents", app_says("FINISH"), s)
    assert [type(op).__name__ for op in ops] == ["Dispatch"]  # no second Start: the cached agent
    assert app_request(ops[0]).subtask_id == "b"  # type: ignore[arg-type]


def test_the_longest_chain_starts_first_when_ready_subtasks_share_an_agent() -> None:
    subtasks = graph(("short", "a.docx", "documents", ()), ("long", "b.docx", "documents", ()),
                     ("after", "c.xlsx", "spreadsheets", ("long",)))
    ops, _ = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=subtasks), started())
    assert app_request(dispatches(ops)[0]).subtask_id == "long"


def test_the_seed_single_subtask_form_on_control_text() -> None:
    ops, _ = STRATEGY.handle_response("host", planner_says(
        "ASSIGN", **{"Current Sub-Task": "Extract the table from report.docx", "ControlText": "Microsoft Word",
                     "ControlLabel": "0", "Message": "first table"}), started())
    request = app_request(dispatches(ops)[0])
    assert (request.subtask_id, request.application, request.tips) == ("1", "documents", "first table")


def test_the_planner_is_offered_only_the_applications_the_request_may_need() -> None:
    files = AppInfo("files", "the file system")
    wide = Catalog((*CATALOG.apps, files))
    s, _ = STRATEGY.init({"planner": SPEC, "app_agents": {"documents": SPEC, "spreadsheets": SPEC, "files": SPEC},
                          "catalog": wide, "config": HostConfig(max_plan_retries=1)})
    (ask,), s = STRATEGY.handle_ask("Chart the table of report.docx in budget.xlsx", {}, "t1", s)
    assert host_request(ask).applications == ("documents", "spreadsheets")  # type: ignore[arg-type]
    (retry,), s = STRATEGY.handle_response(
        "host", planner_says("ASSIGN", Subtasks=graph(("1", "Copy the table", "files", ()))), s)
    feedback = host_request(retry).feedback  # type: ignore[arg-type]
    assert "unknown application 'files': choose one of documents, spreadsheets" in feedback
    first = s.blackboard.trajectories[-1]
    assert first.agent == "host" and "applications offered: documents, spreadsheets" in first.outcome
    (other,), _ = STRATEGY.handle_ask("Copy every .txt file into old/", {}, "t2", init())
    assert host_request(other).applications == ()  # () is all of them  # type: ignore[arg-type]


def test_an_invalid_plan_is_re_asked_with_sampling_then_fails() -> None:
    bad = graph(("1", "Chart it", "photoshop", ()))
    ops, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=bad), started(max_plan_retries=1))
    (retry,) = ops
    assert retry.prompt.temperature == 0.7  # type: ignore[union-attr]
    assert "unknown application 'photoshop'" in host_request(retry).feedback  # type: ignore[arg-type]
    ops, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=bad), s)
    (fail,) = ops
    assert isinstance(fail, ReplyError) and fail.reason.kind is ReasonKind.PLAN_INVALID


def test_invalid_planner_output_is_repaired_then_errors() -> None:
    bad = Response(HostStepReport(invalid="Status: field required", raw="hello").model_dump_json())
    ops, s = STRATEGY.handle_response("host", bad, started(max_repairs=1))
    assert "Status: field required" in host_request(ops[0]).feedback and "hello" in host_request(ops[0]).feedback  # type: ignore[arg-type]
    assert "It was cut off" not in host_request(ops[0]).feedback  # type: ignore[operator]
    ops, s = STRATEGY.handle_response("host", bad, s)
    (error,) = ops
    assert isinstance(error, ReplyError) and error.reason.kind is ReasonKind.INVALID_OUTPUT
    assert s.last is not None and s.last["status"] == "ERROR"
    # an object never closed ran on to the token limit: the repair says so, and how to keep it short
    cut = Response(HostStepReport(invalid="the answer contains no JSON object",
                                  raw='{"Observation": "x", "Thought": "The Excel app').model_dump_json())
    (again,), _ = STRATEGY.handle_response("host", cut, started())
    assert "It was cut off: it ran on. Keep Observation and Thought to one short sentence each." in \
        host_request(again).feedback  # type: ignore[operator]


def test_an_answer_in_the_words_of_the_worked_example_is_not_said_to_the_person() -> None:
    copied = HOST_FINISH_EXAMPLE["Comment"]
    # nothing was changed: that FINISH is questioned once, then believed, with what really happened
    (question,), s = STRATEGY.handle_response("host", planner_says("FINISH", Comment=copied), started())
    assert "no subtask has changed any file" in host_request(question).note  # type: ignore[union-attr]
    (reply,), _ = STRATEGY.handle_response("host", planner_says("FINISH", Comment=copied), s)
    assert isinstance(reply, Reply) and reply.response.text == "every subtask ended FINISH"
    # after a change: believed at once, the subtasks' results said instead of the example's words
    one = graph(("1", "Add a line to report.docx", "documents", ()))
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=one), started())
    wrote = ActionResult(function="add_paragraphs", arguments={"path": "report.docx"}, ok=True)
    _, s = STRATEGY.handle_response("app-documents", app_says("FINISH", results=(wrote,), result="line added"), s)
    (work,), s = STRATEGY.handle_response("host", planner_says("FINISH", Comment=copied), s)  # no chart: asked
    assert "the request asks for a chart and no subtask made chart" in host_request(work).note  # type: ignore[union-attr]
    (reply,), _ = STRATEGY.handle_response("host", planner_says("FINISH", Comment=copied), s)
    assert isinstance(reply, Reply) and reply.response.text == "subtask 1: line added"
    # a plan of the example's own subtasks is repaired; a request about the example's files is not
    plan = graph(("1", HOST_EXAMPLE["Subtasks"][0]["description"], "documents", ()))
    (retry,), s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=plan), started())
    assert "is from the example in your instructions" in host_request(retry).feedback  # type: ignore[arg-type]
    reworded = graph(("1", "Copy the price table of offer.docx into prices.xlsx", "documents", ()))  # its files
    (retry,), s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=reworded), started())
    assert "is from the example in your instructions" in host_request(retry).feedback  # type: ignore[arg-type]
    (question,), s = STRATEGY.handle_response("host", planner_says(
        "FINISH", Comment="budget.xlsx holds the price table of offer.docx and its sum"), started())
    assert "no subtask has changed any file" in host_request(question).note  # type: ignore[union-attr]
    _, about = STRATEGY.handle_ask("Copy the table of offer.docx into prices.xlsx", {}, "t1", init())
    ops, _ = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=plan), about)
    assert [d.agent for d in dispatches(ops)] == ["app-documents"]


def test_a_finish_with_work_of_the_request_left_undone_is_questioned_once() -> None:
    plan = graph(("1", "Read the table of report.docx", "documents", ()),
                 ("2", "Write the rows of subtask 1 into budget.xlsx", "spreadsheets", ("1",)))
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=plan), started())
    _, s = STRATEGY.handle_response("app-documents", app_says("FINISH", result=[["Quarter", "Sales"], ["Q1", 10]]), s)
    wrote = ActionResult(function="write_rows", arguments={"path": "budget.xlsx"}, ok=True)
    _, s = STRATEGY.handle_response("app-spreadsheets", app_says("FINISH", results=(wrote,), result="rows"), s)
    (question,), s = STRATEGY.handle_response("host", planner_says("FINISH", Comment="done"), s)
    assert host_request(question).note == (  # type: ignore[union-attr]
        "You answered FINISH, but the request asks for a chart and no subtask made chart. ASSIGN the subtasks "
        "that do it (new ids), or answer FINISH again if it is done.")
    chart = graph(("3", "Create a bar chart of the rows in budget.xlsx", "spreadsheets", ("2",)))
    ops, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=chart), s)
    assert [d.agent for d in dispatches(ops)] == ["app-spreadsheets"]


def test_a_finish_with_nothing_changed_is_questioned_once_when_the_request_asks_for_a_change() -> None:
    def finished(request: str) -> tuple[list[Any], HostState]:
        _, s = STRATEGY.handle_ask(request, {}, "t1", init())
        plan = graph(("1", "Read the action items of meeting.docx", "documents", ()))
        _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=plan), s)
        _, s = STRATEGY.handle_response("app-documents", app_says("FINISH", result=["Call Bo"]), s)
        return STRATEGY.handle_response("host", planner_says("FINISH", Comment="actions.txt holds them"), s)

    (question,), _ = finished("Write the action items of meeting.docx into actions.txt")
    assert "no subtask has changed any file" in host_request(question).note  # type: ignore[union-attr]
    (reply,), _ = finished("Read the action items of meeting.docx")  # only looking: believed
    assert isinstance(reply, Reply) and reply.response.text == "actions.txt holds them"


def test_the_one_file_example_is_an_example_too_and_unasked_work_is_left_out_on_the_record() -> None:
    copied = graph(("1", HOST_ONE_FILE_EXAMPLE["Subtasks"][0]["description"], "documents", ()))
    (retry,), _ = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=copied), started())
    assert "is from the example in your instructions" in host_request(retry).feedback  # type: ignore[arg-type]
    _, s = STRATEGY.handle_ask("Reset ledger.xlsx: replace every amount with 0", {}, "t1", init())
    plan = graph(("1", "Replace the amounts in ledger.xlsx with 0", "spreadsheets", ()),
                 ("2", "Add the sum of the amounts under the rows in ledger.xlsx", "spreadsheets", ("1",)))
    ops, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=plan), s)
    (work,) = dispatches(ops)
    req = app_request(work)
    assert req.description == "Replace the amounts in ledger.xlsx with 0" and req.parts == 0
    assert "subtask 2 ('Add the sum of the amounts under the rows in ledger.xlsx') left out: the request asks " \
           "for no sum" in s.blackboard.trajectories[-1].outcome


def test_a_generic_application_alone_is_given_the_request_itself() -> None:
    catalog = Catalog((*CATALOG.apps, AppInfo("files", "the file system")))
    s, _ = STRATEGY.init({"planner": SPEC, "app_agents": {"documents": SPEC, "spreadsheets": SPEC, "files": SPEC},
                          "catalog": catalog})
    request = "Move all the .txt files into a folder named notes."
    _, s = STRATEGY.handle_ask(request, {}, "t1", s)
    plan = graph(("1", "Read all .txt files in the workspace", "files", ()),
                 ("2", "Copy the .txt files to the folder notes", "files", ("1",)))
    ops, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=plan), s)
    req = app_request(dispatches(ops)[0])
    assert (req.description, req.parts, req.tips) == (request, 0, "")
    assert "subtask 1 is the request in its own words" in s.blackboard.trajectories[-1].outcome


def test_a_file_the_request_writes_and_the_plan_forgets_is_written_by_a_subtask_added_after_it() -> None:
    files = AppInfo("files", "the file system", tools=("read_file", "write_file"), changing=("write_file",))
    s, _ = STRATEGY.init({"planner": SPEC, "app_agents": {"documents": SPEC, "spreadsheets": SPEC, "files": SPEC},
                          "catalog": Catalog((*CATALOG.apps, files))})
    request = "Write the action items from the table in meeting.docx into actions.txt, one per line."
    _, s = STRATEGY.handle_ask(request, {}, "t1", s)
    plan = graph(("1", "Read the action items from the table in meeting.docx", "documents", ()))
    ops, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=plan), s)
    assert [app_request(d).description for d in dispatches(ops)] == [plan[0]["description"]]
    assert s.run is not None
    added = s.run.subtasks["2"]
    assert (added.spec.application, added.spec.description, added.spec.depends_on) == ("files", request, ("1",))
    assert "subtask 2 added on files: no subtask wrote actions.txt" in s.blackboard.trajectories[-1].outcome


def test_a_part_that_asks_for_a_change_calls_a_tool_until_it_has_made_one() -> None:
    sheets = AppInfo("spreadsheets", "sheets", (".xlsx",), tools=("read_sheet", "write_rows", "add_chart"),
                     changing=("write_rows", "add_chart"))
    catalog = Catalog((AppInfo("documents", "docs", (".docx",), tools=("read_table",)), sheets))
    s, _ = STRATEGY.init({"planner": SPEC, "app_agents": {"documents": SPEC, "spreadsheets": SPEC},
                          "catalog": catalog})
    _, s = STRATEGY.handle_ask("Chart the table of report.docx in budget.xlsx", {}, "t1", s)
    plan = graph(("1", "Read the table of report.docx", "documents", ()),
                 ("2", "Write the rows into budget.xlsx", "spreadsheets", ("1",)),
                 ("3", "Create a bar chart in budget.xlsx", "spreadsheets", ("2",)))
    ops, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=plan), s)
    assert not app_request(dispatches(ops)[0]).must_call  # reading: it may answer from what it sees
    ops, s = STRATEGY.handle_response("app-documents", app_says("FINISH", result=[["Q1", 10]]), s)
    first = app_request(dispatches(ops)[0])
    assert first.must_call and not first.must_act  # any tool, reads too
    idle = app_says("CONTINUE")
    ops, s = STRATEGY.handle_response("app-spreadsheets", idle, s)
    assert app_request(dispatches(ops)[0]).must_call
    wrote = ActionResult(function="write_rows", arguments={"path": "budget.xlsx"}, ok=True)
    ops, s = STRATEGY.handle_response("app-spreadsheets", app_says("CONTINUE", results=(wrote,)), s)
    assert not app_request(dispatches(ops)[0]).must_call  # its change is made: it may now say it is done
    ops, s = STRATEGY.handle_response("app-spreadsheets", app_says("FINISH", result="written"), s)
    part_two = app_request(dispatches(ops)[0])
    assert "chart" in part_two.description and part_two.must_call  # the next part starts afresh


def test_a_part_that_computes_is_not_told_to_change_a_file_but_to_call_the_tool_that_computes() -> None:
    sheets = AppInfo("spreadsheets", "sheets", (".xlsx",), tools=("read_sheet", "column_totals", "write_rows"),
                     changing=("write_rows",))
    s, _ = STRATEGY.init({"planner": SPEC, "app_agents": {"spreadsheets": SPEC}, "catalog": Catalog((sheets,))})
    _, s = STRATEGY.handle_ask("What is the total of the Amount column of e.xlsx?", {}, "t1", s)
    plan = graph(("1", "Read the Amount column from e.xlsx", "spreadsheets", ()),
                 ("2", "Compute the sum of the values from subtask 1", "spreadsheets", ("1",)))
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=plan), s)
    ops, s = STRATEGY.handle_response("app-spreadsheets", app_says("FINISH", result="the rows"), s)
    part_two = app_request(dispatches(ops)[0])
    assert part_two.description.startswith("Compute") and part_two.asked == ("column_totals",)
    assert not part_two.must_call  # it changes no file
    ops, s = STRATEGY.handle_response("app-spreadsheets", app_says("FINISH", result="the rows"), s)
    questioned = app_request(dispatches(ops)[0])
    assert "names column_totals, and it was not called yet" in questioned.nudge and questioned.must_act
    summed = ActionResult(function="column_totals", arguments={"path": "e.xlsx"}, ok=True, read_only=True,
                          content={"columns": {"Amount": {"sum": 3099.84}}})
    ops, s = STRATEGY.handle_response("app-spreadsheets", app_says("FINISH", results=(summed,), result="3099.84"), s)
    assert s.run is not None and s.run.subtasks["1"].state.value == "FINISH"
    assert s.blackboard.result_of("1").result == "3099.84"  # type: ignore[union-attr]


def test_a_fail_right_after_a_tools_error_is_questioned_once() -> None:
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=SEED), started())
    broken = ActionResult(function="read_table", arguments={"path": "report.docx", "index": 7}, ok=False,
                          error="read_table: no table 7; the document has 1 table")
    ops, s = STRATEGY.handle_response("app-documents", app_says("FAIL", results=(broken,), comment="no table"), s)
    again = app_request(dispatches(ops)[0])
    assert again.subtask_id == "1" and again.nudge.startswith(
        "You answered FAIL after read_table failed: read_table: no table 7; the document has 1 table.")
    ops, s = STRATEGY.handle_response("app-documents", app_says("FAIL", results=(broken,), comment="no table"), s)
    assert s.run is not None and s.run.subtasks["1"].state.value == "FAIL"  # the second FAIL is believed
    # a FAIL with no failed call of its own is believed at once
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=SEED), started())
    _, s = STRATEGY.handle_response("app-documents", app_says("FAIL", comment="there is no table"), s)
    assert s.run is not None and s.run.subtasks["1"].state.value == "FAIL"


def test_a_data_collection_failure_is_an_error_naming_the_phase() -> None:
    failed = Response(HostStepReport(failure=StepFailure(phase=Phase.DATA_COLLECTION, detail="no display"))
                      .model_dump_json())
    (error,), s = STRATEGY.handle_response("host", failed, started())
    assert isinstance(error, ReplyError) and "DATA_COLLECTION failed: no display" in error.reason.detail
    assert s.last["status"] == "ERROR"  # type: ignore[index]


def test_questions_reach_the_observer_and_answers_go_back_to_the_asker() -> None:
    s = started(observer=True, interactive=True)
    ops, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=SEED), s)
    idle = app_says("CONTINUE", results=(ActionResult(function="read_document", ok=False, error="no such file"),))
    _, s = STRATEGY.handle_response("app-documents", idle, s)
    ops, s = STRATEGY.handle_response("app-documents", app_says("PENDING", questions=["Which table?"]), s)
    assert s.run is not None and s.run.subtasks["1"].idle == 2  # two steps without a tool call that succeeded
    forwarded = [op.event for op in ops if isinstance(op, Forward)]
    question = next(e for e in forwarded if isinstance(e, Question))
    assert (question.id, question.questions, question.subtask, question.asked_by) == (
        "q1", ("Which table?",), "1", "app-documents")
    assert isinstance(forwarded[-1], Progress) and forwarded[-1].host_state == "PENDING"
    assert forwarded[-1].waiting_for == ("q1",)
    assert STRATEGY.handle_notify(Answer("nope", ("x",)), s) == ([], s)  # unknown id: ignored
    ops, s = STRATEGY.handle_notify(Answer("q1", ("the second",)), s)
    request = app_request(dispatches(ops)[0])
    assert request.subtask_id == "1" and [(a.question, a.answer) for a in request.answers] == [
        ("Which table?", "the second")]
    assert s.run is not None and s.run.subtasks["1"].idle == 0  # new information: the count starts again
    assert STRATEGY.handle_status(s)["host"]["state"] == "ASSIGN"
    # asked again (with the answer pasted in): the person is not asked twice; the AppAgent is reminded
    again = app_says("PENDING", questions=["Q (app-documents): Which table? A (person): the second"])
    ops, s = STRATEGY.handle_response("app-documents", again, s)
    assert not any(isinstance(op, Forward) and isinstance(op.event, Question) for op in ops)
    reminded = app_request(dispatches(ops)[0])
    assert "Your question was answered already ('Which table?': 'the second')" in reminded.nudge
    ops, s = STRATEGY.handle_response("app-documents", app_says("PENDING", questions=["Which row?", "Which table?"]), s)
    (asked,) = [op.event for op in ops if isinstance(op, Forward) and isinstance(op.event, Question)]
    assert asked.questions == ("Which row?",)  # only what is new


def test_held_actions_wait_for_approval_and_run_only_after_yes() -> None:
    s = started(observer=True, interactive=True)
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=SEED), s)
    held = (Action(function="delete_document", arguments={"path": "report.docx"}),)
    ops, s = STRATEGY.handle_response("app-documents", app_says("CONTINUE", held=held), s)
    assert dispatches(ops) == []
    request = next(op.event for op in ops if isinstance(op, Forward) and isinstance(op.event, ApprovalRequest))
    assert request.actions == held and request.application == "documents"
    assert STRATEGY.handle_status(s)["host"]["state"] == "CONFIRM"
    ops, yes = STRATEGY.handle_notify(Approval(request.id, True), s)
    run = app_request(dispatches(ops)[0])
    assert run.kind is AppStepKind.RUN_APPROVED and run.actions == held
    assert STRATEGY.handle_status(yes)["host"]["subtasks"][0]["state"] == "CONTINUE"
    ops, no = STRATEGY.handle_notify(Approval(request.id, False), s)
    (replan,) = dispatches(ops)  # nothing is run: the planner is asked to re-plan around the refusal
    assert replan.agent == "host" and "the person refused" in host_request(replan).note
    assert [t["state"] for t in STRATEGY.handle_status(no)["host"]["subtasks"]] == ["FAIL", "SKIPPED"]
    assert no.blackboard.trajectories[-1].confirmation == "refused"
    ops, _ = STRATEGY.handle_response("host", planner_says("FINISH", Comment="all done"), no)
    reply = next(op for op in ops if isinstance(op, ReplyError | Reply))
    # nothing was changed and what the request needed was refused: not a FINISH, whatever the planner says
    assert isinstance(reply, ReplyError) and reply.reason.kind is ReasonKind.REFUSED
    assert "not done: the person refused" in reply.reason.detail and "all done" in reply.reason.detail


def test_batch_mode_answers_and_refuses_at_once() -> None:
    s = started()
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=SEED), s)
    ops, after = STRATEGY.handle_response("app-documents", app_says("PENDING", questions=["Which?"]), s)
    assert app_request(dispatches(ops)[0]).answers[0].answer == "not available"
    held = (Action(function="delete_document", arguments={}),)
    ops, after = STRATEGY.handle_response("app-documents", app_says("CONTINUE", held=held), s)
    # refused by batch mode, not by a person: the AppAgent is told and goes on without it, once
    (again,) = dispatches(ops)
    nudge = app_request(again).nudge
    assert "Not run: documents: delete_document({})" in nudge and "Do your subtask without it" in nudge
    assert after.run is not None and after.run.subtasks["1"].state.value == "CONTINUE"
    ops, after = STRATEGY.handle_response("app-documents", app_says("CONTINUE", held=held), after)
    assert after.run is not None and after.run.subtasks["1"].state.value == "FAIL"  # a second refusal ends it
    assert "the person refused" in after.run.subtasks["1"].reason.detail  # type: ignore[union-attr]


def test_a_refusal_in_batch_mode_says_how_the_application_does_that_work_without_approval(tmp_path: Any) -> None:
    sheets = SpreadsheetsApplication(Workspace(tmp_path))
    catalog = Catalog((AppInfo("documents", "docs", (".docx",)), AppInfo.of(sheets)))
    s, _ = STRATEGY.init({"planner": SPEC, "app_agents": {"documents": SPEC, "spreadsheets": SPEC},
                          "catalog": catalog})
    _, s = STRATEGY.handle_ask("In scores.xlsx, add a sheet named Ranking that lists the students by score", {},
                               "t1", s)
    plan = graph(("1", "Add a sheet named Ranking to scores.xlsx with the students by score", "spreadsheets", ()))
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=plan), s)
    held = (Action(function="sort_rows", arguments={"path": "scores.xlsx", "by": "Score"}),)
    ops, _ = STRATEGY.handle_response("app-spreadsheets", app_says("CONTINUE", held=held), s)
    nudge = app_request(dispatches(ops)[0]).nudge
    assert "Without approval: sort_rows: give target_sheet, the name of a new sheet" in nudge
    # a refused tool the application says nothing about gets the general advice only
    ops, _ = STRATEGY.handle_response("app-spreadsheets", app_says("CONTINUE", held=(
        Action(function="delete_sheet", arguments={}),)), s)
    assert "Without approval" not in app_request(dispatches(ops)[0]).nudge


def test_a_change_held_because_data_named_its_file_says_so_to_the_person_and_to_the_agent() -> None:
    leak = (Action(function="copy", arguments={"source": "salaries.xlsx", "destination": "public"}),)
    holds = (Hold(kind=HoldKind.NAMED_BY_DATA, names=("salaries.xlsx", "public")),)
    s = started(observer=True, interactive=True)
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=SEED), s)
    ops, _ = STRATEGY.handle_response("app-documents", app_says("CONTINUE", held=leak, holds=holds), s)
    request = next(op.event for op in ops if isinstance(op, Forward) and isinstance(op.event, ApprovalRequest))
    assert "salaries.xlsx, public are named only by what a file or a tool's result says" in request.summary
    # batch mode: the AppAgent is told to leave those files alone, not to find another way to change them
    s = started()
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=SEED), s)
    ops, after = STRATEGY.handle_response("app-documents", app_says("CONTINUE", held=leak, holds=holds), s)
    nudge = app_request(dispatches(ops)[0]).nudge
    assert "named only by what a file or a tool's result says" in nudge and "Leave those files as they are" in nudge
    assert "add to what is there instead" not in nudge
    assert after.run is not None and after.run.subtasks["1"].holds == ()
    # a change held only as sensitive is not described as anything else
    ops, _ = STRATEGY.handle_response("app-documents", app_says("CONTINUE", held=leak, holds=(
        Hold(kind=HoldKind.SENSITIVE),)), s)
    assert "add to what is there instead" in app_request(dispatches(ops)[0]).nudge


def test_limits_from_usage_and_from_the_shells_clock() -> None:
    s = started(max_tokens=100, max_wall_time=30)
    (error,), _ = STRATEGY.handle_response("host", planner_says("CONTINUE", usage=Usage(90, 20)), s)
    assert isinstance(error, ReplyError) and error.reason.kind is ReasonKind.BUDGET_EXCEEDED
    assert STRATEGY.handle_notify(Elapsed(29.0), s) == ([], s)
    assert STRATEGY.handle_notify(Elapsed(31.0, token="another run"), s) == ([], s)
    (error,), _ = STRATEGY.handle_notify(Elapsed(31.0, token="t1"), s)
    assert isinstance(error, ReplyError) and "max_wall_time=30" in error.reason.detail
    (error,), _ = STRATEGY.handle_notify(Cancel("stop"), s)
    assert isinstance(error, ReplyError) and error.reason.kind is ReasonKind.CANCELLED


def test_late_answers_after_the_end_are_ignored_and_queued_requests_start() -> None:
    s = started(observer=True)
    ops, s = STRATEGY.handle_ask("second", {}, "t2", s)
    assert ops == [] and STRATEGY.handle_status(s)["host"]["queued_requests"] == 1
    ops, s = STRATEGY.handle_response("host", planner_says("FAIL", Comment="cannot"), s)
    kinds = [type(op).__name__ for op in ops]
    assert kinds[:2] == ["Forward", "ReplyError"] and isinstance(ops[0].event, RunFinished)  # type: ignore[union-attr]
    nxt = dispatches(ops)[0]
    assert nxt.token == "t2" and host_request(nxt).request == "second"
    late, _ = STRATEGY.handle_response("app-documents", app_says("FINISH"), s)  # from the ended run
    assert [op for op in late if not isinstance(op, Forward)] == []


def test_failures_of_turns_agents_and_dispatches() -> None:
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=SEED), started(max_replans=0))
    (error,), _ = STRATEGY.handle_dispatch_rejected("app-documents", "t1", Reason(ReasonKind.OVERLOADED, "full"), s)
    assert isinstance(error, ReplyError) and error.reason.kind is ReasonKind.DISPATCH_REJECTED
    # (a down agent with restarts left is replaced: tests/desktop/test_host_restarts.py)
    no_restart = replace(s, config=replace(s.config, max_agent_restarts=0))
    (error,), down = STRATEGY.handle_agent_down("app-documents", Reason(ReasonKind.AGENT_DOWN, "boom"), no_restart)
    assert isinstance(error, ReplyError) and "no re-plan left" in error.reason.detail
    assert "agent_down[app-documents]: AppAgent app-documents went down during subtask 1" in error.reason.detail
    assert "no restart left (max_agent_restarts=0)" in error.reason.detail
    assert "documents" not in down.agents
    (error,), _ = STRATEGY.handle_error("app-documents", Reason(ReasonKind.TIMEOUT, "turn exceeded 600s"), s)
    assert isinstance(error, ReplyError) and "no re-plan left" in error.reason.detail
    (error,), _ = STRATEGY.handle_error("host", Reason(ReasonKind.TIMEOUT, "slow"), started())
    assert isinstance(error, ReplyError) and error.reason.kind is ReasonKind.TIMEOUT


def test_callbacks_are_pure_same_input_same_output_and_the_input_state_is_untouched() -> None:
    s = started()
    before = copy.deepcopy(s)
    first = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=SEED), s)
    second = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=SEED), s)
    # (deepcopy duplicates the agent templates' objects; everything else must be equal)
    assert first == second and replace(before, planner=s.planner, app_specs=s.app_specs) == s
