"""The host strategy as pure functions: feed callbacks, compare ops and states. No event loop."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from podium.agent.behaviour import Behaviour
from podium.agent.events import Response, Usage
from podium.apps.base import ENDED
from podium.apps.tooling import EDITED, EXISTING, FILE_TYPES, SOURCE_GONE
from podium.desktop.blackboard import ArtifactEntry
from podium.desktop.host.catalog import AppInfo, Catalog, ToolInfo
from podium.desktop.host.flow import quoted_data
from podium.desktop.host.fsm import SubtaskState
from podium.desktop.host.run import run_of
from podium.desktop.host.state import HostConfig, HostState
from podium.desktop.host.strategy import HostStrategy
from podium.desktop.person import Answer, Approval, ApprovalRequest, Cancel, Elapsed, Progress, Question, RunFinished
from podium.desktop.rules import SMALL_LOCAL, profile_rules
from podium.desktop.rules.steps import PLAN_READS, PLAN_WRITES, REF_AFTER_UNWRITTEN, VERIFIED_FINISH
from podium.desktop.shell.phases import Phase
from podium.desktop.wire.messages import (
    ActionResult,
    AppStepKind,
    AppStepReport,
    AppStepRequest,
    CallFacts,
    EffectView,
    HostStepReport,
    HostStepRequest,
    StepFailure,
)
from podium.desktop.wire.prompts import HOST_FINISH_EXAMPLE, app_user
from podium.desktop.wire.schemas import AppOutput, AppStatus, HostOutput
from podium.ensemble.ops import AgentSpec, Dispatch, Forward, Reply, ReplyError, Start
from podium.errors import ConfigError, Reason, ReasonKind

CATALOG = Catalog((
    AppInfo("documents", "docs", (".docx",), (ToolInfo("read_table", True), ToolInfo("add_table", False))),
    AppInfo("spreadsheets", "sheets", (".xlsx",), (ToolInfo("read_sheet", True), ToolInfo(
        "write_rows", False, json.dumps({"type": "object", "properties": {"path": {"type": "string"}, "rows": {
            "type": "array", "items": {"type": "array", "items": {"type": "string"}}}}})),
        ToolInfo("add_chart", False), ToolInfo("sort_rows", False, unapproved="give target_sheet")))))
SPEC = AgentSpec("template", Behaviour(), {"backend": object()})
STRATEGY = HostStrategy()
FILES = ("report.docx", "budget.xlsx")
REQUEST = "Extract the table from report.docx and chart it in budget.xlsx"
TABLE = [["Quarter", "Sales"], ["Q1", 10]]


def init(observer: bool = False, catalog: Catalog = CATALOG, **config: Any) -> HostState:
    opts: dict[str, Any] = {"planner": SPEC, "app_agents": {a.name: SPEC for a in catalog.apps},
                            "catalog": catalog, "config": HostConfig(**{"rules": "none", **config})}
    if observer:
        opts["observer"] = SPEC
    state, specs = STRATEGY.init(opts)
    assert [s.name for s in specs] == ["host", *(["observer"] if observer else [])]
    return state


def sub(id: str, app: str, *deps: str, **fields: Any) -> dict[str, Any]:
    return {"id": id, "description": f"subtask {id}", "application": app, "depends_on": list(deps), **fields}


SEED = [sub("1", "documents", reads=["report.docx"], tools=["read_table"], hands_on="table"),
        sub("2", "spreadsheets", "1", writes=["budget.xlsx"], tools=["write_rows", "add_chart"])]


def planner_says(status: str, files: tuple[str, ...] | None = FILES, usage: Usage | None = None,
                 **fields: Any) -> Response:
    output = HostOutput.model_validate({"Status": status, **fields})
    return Response(HostStepReport(status=output.status, output=output.dump(), files=files).model_dump_json(),
                    usage=usage)


def facts_of(function: str, arguments: dict[str, Any], change: str | None = "add",
             read_only: bool = False) -> CallFacts:
    effects = () if read_only or change is None else (EffectView(path=arguments.get("path", ""), change=change),)
    return CallFacts(function=function, arguments=arguments, read_only=read_only, effects=effects)


def proposes(status: str, *calls: CallFacts, observed: tuple[ActionResult, ...] = (), **fields: Any) -> Response:
    output = AppOutput.model_validate({"status": status, "actions": [{"function": c.function,
                                                                      "arguments": c.arguments} for c in calls],
                                       **fields})
    return Response(AppStepReport(status=output.status, output=output.dump(), facts=calls,
                                  observed=observed).model_dump_json())


def executed(*results: ActionResult) -> Response:
    return Response(AppStepReport(kind=AppStepKind.EXECUTE, results=results).model_dump_json())


def ran(c: CallFacts, content: Any = "ok", ok: bool = True) -> ActionResult:
    changes = tuple(e.model_copy(update={"before": None if e.change == "create" else "old", "after": "new"})
                    for e in (c.effects or ())) if ok else ()
    return ActionResult(function=c.function, arguments=c.arguments, ok=ok, content=content if ok else None,
                        error=None if ok else str(content), read_only=c.read_only, changes=changes)


def dispatches(ops: list[Any]) -> list[Dispatch]:
    return [op for op in ops if isinstance(op, Dispatch)]


def app_request(op: Any) -> AppStepRequest:
    return AppStepRequest.model_validate_json(op.prompt if isinstance(op.prompt, str) else op.prompt.text)


def host_request(op: Any) -> HostStepRequest:
    return HostStepRequest.model_validate_json(op.prompt.text)


def started(request: str = REQUEST, **config: Any) -> HostState:
    _, s = STRATEGY.handle_ask(request, {}, "t1", init(**config))
    return s


def assigned(**config: Any) -> tuple[list[Any], HostState]:
    return STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=SEED), started(**config))


READ = facts_of("read_table", {"path": "report.docx"}, read_only=True)
WRITE = facts_of("write_rows", {"path": "budget.xlsx", "rows": TABLE})
CHART = facts_of("add_chart", {"path": "budget.xlsx", "kind": "bar"})


def read_done(**config: Any) -> HostState:
    """Subtask 1 read the table and finished, handing it on; subtask 2 was sent its first step."""
    _, s = assigned(**config)
    _, s = STRATEGY.handle_response("app-documents", proposes("CONTINUE", READ), s)
    _, s = STRATEGY.handle_response("app-documents", executed(ran(READ, TABLE)), s)
    _, s = STRATEGY.handle_response("app-documents", proposes("FINISH", result={"ref": "1.read_table"}), s)
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
    with pytest.raises(ConfigError, match="rules must be one of"):
        HostConfig(rules="lenient")


def test_a_request_starts_with_a_greedy_planner_step() -> None:
    ops, s = STRATEGY.handle_ask("Chart the table", {}, "t1", init())
    (op,) = ops
    assert isinstance(op, Dispatch) and op.agent == "host" and op.token == "t1"
    assert op.prompt.temperature == 0.0  # type: ignore[union-attr]
    assert host_request(op).request == "Chart the table" and host_request(op).step == 1
    assert STRATEGY.handle_status(s)["host"]["state"] == "CONTINUE"


def test_assign_starts_the_first_app_agent_with_its_declarations() -> None:
    ops, s = assigned()
    assert [type(op).__name__ for op in ops] == ["Start", "Dispatch"]
    start, dispatch = ops
    assert isinstance(start, Start) and start.name == "app-documents" and dispatch.token == "t1"
    request = app_request(dispatch)
    assert (request.kind, request.subtask_id, request.step, request.application) == (
        AppStepKind.PROPOSE, "1", 1, "documents")
    assert request.reads == ("report.docx",) and request.writes == () and request.tools == ("read_table",)
    host = STRATEGY.handle_status(s)["host"]
    assert host["state"] == "ASSIGN"
    assert [(t["id"], t["state"], t["writes"]) for t in host["subtasks"]] == [
        ("1", "CONTINUE", []), ("2", "WAITING", ["budget.xlsx"])]


def measured() -> tuple[list[Any], HostState]:
    """A table read by subtask 1 and handed by reference to subtask 2, which hands on a number."""
    measuring = [SEED[0], sub("2", "spreadsheets", "1", reads=["budget.xlsx"], tools=["read_sheet"], hands_on="number")]
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=measuring),
                                    started("What is the total of the table in report.docx?"))
    _, s = STRATEGY.handle_response("app-documents", proposes("CONTINUE", READ), s)
    _, s = STRATEGY.handle_response("app-documents", executed(ran(READ, TABLE)), s)
    return STRATEGY.handle_response("app-documents", proposes("FINISH", result={"ref": "1.read_table"}), s)


def test_a_subtask_that_writes_no_typed_file_is_given_a_tables_figures_too() -> None:
    # a writer of a workbook takes the table itself; one that hands on a number is given the figures as well,
    # first, so its model copies a total or a largest row instead of computing it (the table still after them)
    ops, _ = measured()
    request = app_request(dispatches(ops)[-1])
    assert request.subtask_id == "2" and request.artifacts[-1].name == "1.read_table"
    assert {a.name: a.value for a in request.artifacts[:-1]} == {
        "1.read_table.row_count": 1, "1.read_table.sum.Sales": 10, "1.read_table.mean.Sales": 10,
        "1.read_table.min.Sales": 10, "1.read_table.max.Sales": 10, "1.read_table.min_label.Sales": "Q1",
        "1.read_table.max_label.Sales": "Q1",
        "1.read_table.column.Quarter": ["Q1"]}


def test_a_workbook_writer_is_given_the_rows_of_a_value_the_request_names_before_the_whole_table() -> None:
    staff = [["Name", "Dept"], ["Ann", "Sales"], ["Bob", "IT"], ["Cy", "Sales"]]
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=SEED),
                                    started("Put the Sales people of report.docx into budget.xlsx"))
    _, s = STRATEGY.handle_response("app-documents", proposes("CONTINUE", READ), s)
    _, s = STRATEGY.handle_response("app-documents", executed(ran(READ, staff)), s)
    ops, _ = STRATEGY.handle_response("app-documents", proposes("FINISH", result={"ref": "1.read_table"}), s)
    request = app_request(dispatches(ops)[-1])
    assert [(a.name, a.value) for a in request.artifacts] == [
        ("1.read_table.where.Dept.Sales", [["Name", "Dept"], ["Ann", "Sales"], ["Cy", "Sales"]]),
        ("1.read_table", staff)]


def test_a_result_naming_a_figure_of_its_inputs_hands_that_value_on() -> None:
    # the figures handed to a subtask are its data as much as what it read: naming one is that value
    _, s = measured()
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result={"ref": "1.read_table.sum.Sales"}),
                                    s)
    handed = s.blackboard.result_of("2")
    assert handed is not None and handed.status == "FINISH" and handed.result == 10
    assert handed.artifacts[0].name == "1.read_table.sum.Sales" and handed.artifacts[0].value == 10


def test_a_result_in_words_that_quotes_one_value_of_its_data_hands_that_value_on() -> None:
    # "the total is '10'": the figure it quotes is what it hands on, as if named by reference
    _, s = measured()
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="The total of Sales is '10'"), s)
    handed = s.blackboard.result_of("2")
    assert handed is not None and handed.named == "1.read_table.sum.Sales" and handed.result == 10
    # the path its read was given is no value of its data, quoted or not
    record = run_of(measured()[1]).subtasks["2"]
    echo = ArtifactEntry(name="1.read_table.path", kind="text", value="report.docx",
                         source='read_table({"path": "report.docx"})')
    assert quoted_data(record, "Read 'report.docx'", "", [echo]) is None
    # a value quoted that none of its data holds is no number handed on: the FINISH is questioned
    _, s = measured()
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="It is '17'"), s)
    assert s.blackboard.result_of("2") is None and run_of(s).subtasks["2"].state is SubtaskState.CONTINUE


def test_with_nobody_to_approve_an_agent_is_told_what_it_may_change() -> None:
    s = read_done()
    (writer,) = dispatches(STRATEGY.handle_response("app-documents", proposes(
        "FINISH", result={"ref": "1.read_table"}), read_done_before_finish())[0])
    assert app_request(writer).writable == ("budget.xlsx",)  # its declared write, in batch mode
    _, s = STRATEGY.handle_response("app-documents", proposes("CONTINUE", READ), assigned(interactive=True)[1])
    (step,), s = STRATEGY.handle_response("app-documents", executed(ran(READ, TABLE)), s)
    assert app_request(step).writable is None  # a person may approve any other change: every path is offered


def test_proposed_calls_run_in_an_execute_turn_then_the_step_memory_has_them() -> None:
    _, s = assigned()
    (execute,), s = STRATEGY.handle_response("app-documents", proposes("CONTINUE", READ), s)
    request = app_request(execute)
    assert request.kind is AppStepKind.EXECUTE and request.intent == "1.1"
    assert [(c.function, c.arguments) for c in request.calls] == [("read_table", {"path": "report.docx"})]
    (again,), s = STRATEGY.handle_response("app-documents", executed(ran(READ, TABLE)), s)
    step = app_request(again)
    assert step.kind is AppStepKind.PROPOSE and step.step == 2
    assert [(a.name, a.kind) for a in step.artifacts] == [("1.read_table", "table")]
    assert any("read_table" in line for line in step.memory)


def test_a_finished_subtask_hands_its_data_on_by_reference() -> None:
    s = read_done()
    request = app_request(dispatches(STRATEGY.handle_response("app-documents", proposes(
        "FINISH", result={"ref": "1.read_table"}), read_done_before_finish())[0])[-1])
    assert request.subtask_id == "2" and [a.name for a in request.artifacts] == ["1.read_table"]
    assert request.artifacts[0].value == TABLE and [i.result for i in request.inputs] == [TABLE]
    assert s.blackboard.result_of("1").result == TABLE  # type: ignore[union-attr]
    # the dependant writes the table by reference; its EXECUTE carries the values (resolved by its PROPOSE)
    (execute,), s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", WRITE, CHART), s)
    assert [c.function for c in app_request(execute).calls] == ["write_rows", "add_chart"]
    _, s = STRATEGY.handle_response("app-spreadsheets", executed(ran(WRITE), ran(CHART)), s)
    (verify,), s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="charted"), s)
    assert verify.agent == "host" and "Every subtask has ended" in host_request(verify).note
    (reply,), s = STRATEGY.handle_response("host", planner_says("FINISH", Comment="charted"), s)
    assert isinstance(reply, Reply) and reply.response.text == "charted"
    outcome = reply.response.events[-1].data["outcome"]
    assert outcome["status"] == "FINISH" and outcome["created"] == []
    assert reply.response.events[-1].timestamp == 0.0  # no clock in the strategy: a replay decides the same
    json.dumps(outcome)
    assert s.run is None and STRATEGY.handle_status(s)["host"]["state"] == "idle"


def test_what_a_result_repeats_of_its_calls_arguments_is_not_offered_as_data() -> None:
    _, s = assigned()
    _, s = STRATEGY.handle_response("app-documents", proposes("CONTINUE", READ), s)
    _, s = STRATEGY.handle_response("app-documents", executed(ran(READ, {"path": "report.docx", "rows": TABLE})), s)
    ops, s = STRATEGY.handle_response("app-documents", proposes("FINISH", result={"ref": "1.read_table.rows"}), s)
    # the path it read is what the call was given: offered, it is a file's name written where the table belongs
    names = [a.name for a in app_request(dispatches(ops)[-1]).artifacts]
    assert "1.read_table.rows" in names and "1.read_table.path" not in names


def test_a_reader_handing_on_a_value_chooses_it_among_the_figures_of_what_it_read() -> None:
    plan = [sub("1", "documents", reads=["report.docx"], tools=["read_table"], hands_on="number"),
            sub("2", "spreadsheets", "1", writes=["budget.xlsx"], tools=["write_rows"])]
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=plan), started())
    _, s = STRATEGY.handle_response("app-documents", proposes("CONTINUE", READ), s)
    (step,), s = STRATEGY.handle_response("app-documents", executed(ran(READ, TABLE)), s)
    given = {a.name: a.value for a in app_request(step).artifacts}
    total = sum(row[1] for row in TABLE[1:])
    assert given["1.read_table.sum.Sales"] == total
    ops, s = STRATEGY.handle_response("app-documents", proposes("FINISH", result={"ref": "1.read_table.sum.Sales"}), s)
    (writer,) = dispatches(ops)
    assert writer.agent == "app-spreadsheets" and [i.result for i in app_request(writer).inputs] == [total]
    assert app_request(writer).artifacts[0].name == "1.read_table"  # the table it read, handed on too
    # a reader that hands on a table is given no figures of its own
    _, s = assigned()
    _, s = STRATEGY.handle_response("app-documents", proposes("CONTINUE", READ), s)
    (step,), s = STRATEGY.handle_response("app-documents", executed(ran(READ, TABLE)), s)
    assert [a.name for a in app_request(step).artifacts] == ["1.read_table"]


def test_a_program_action_that_declares_no_effect_still_stops_its_batch_when_it_fails() -> None:
    editor = Catalog((AppInfo("editor", "a text editor", (), (
        ToolInfo("set_text", False, names_its_writes=False), ToolInfo("click", False, names_its_writes=False))),))
    state, _ = STRATEGY.init({"planner": SPEC, "app_agents": {"editor": SPEC}, "catalog": editor,
                              "config": HostConfig(rules="none")})
    _, s = STRATEGY.handle_ask("Type hello into the editor and save it as notes.txt", {}, "t1", state)
    plan = [sub("1", "editor", writes=["notes.txt"], tools=["set_text", "click"])]
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", files=(), Subtasks=plan), s)
    typed = facts_of("set_text", {"control": 2, "text": "hello"}, None)
    clicked = facts_of("click", {"control": 4}, None)
    (execute,) = dispatches(STRATEGY.handle_response("app-editor", proposes("CONTINUE", typed, clicked), s)[0])
    # a program's controls are no file: the click acts on what the text left, and does not run if it failed
    assert [c.changes_nothing for c in app_request(execute).calls] == [False, False]


def test_a_programs_unwritten_file_is_forced_on_a_tool_that_names_what_it_writes() -> None:
    """Typed into a window and called done, the declared file is still missing: of a program's tools, the one
    that names the file it writes (its save) makes it, not another click or key press."""
    editor = Catalog((AppInfo("editor", "a text editor", (), (
        ToolInfo("observe", True), ToolInfo("set_text", False, names_its_writes=False),
        ToolInfo("click", False, names_its_writes=False), ToolInfo("save", False),
        ToolInfo("close", False, names_its_writes=False))),))
    state, _ = STRATEGY.init({"planner": SPEC, "app_agents": {"editor": SPEC}, "catalog": editor,
                              "config": HostConfig(rules="small-local")})
    _, s = STRATEGY.handle_ask("Type hello into the editor and save it as notes.txt", {}, "t1", state)
    plan = [sub("1", "editor", writes=["notes.txt"], tools=["set_text"])]
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", files=(), Subtasks=plan), s)
    typed = facts_of("set_text", {"control": 2, "text": "hello"}, None)
    _, s = STRATEGY.handle_response("app-editor", proposes("CONTINUE", typed), s)
    _, s = STRATEGY.handle_response("app-editor", executed(ran(typed)), s)
    (again,), s = STRATEGY.handle_response("app-editor", proposes("FINISH", result="typed"), s)
    request = app_request(again)
    assert "notes.txt is unchanged" in request.note
    assert request.must_act and request.offered == ("save",)
    # a declared program action never called comes first: a save of what the program holds unchanged writes nothing
    _, s = STRATEGY.handle_ask("Type hello into the editor and save it as notes.txt", {}, "t2", state)
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", files=(), Subtasks=plan), s)
    (again,), s = STRATEGY.handle_response("app-editor", proposes("FINISH", result="typed"), s)
    assert app_request(again).offered == ("set_text",)
    # an action in the program after the question is new work there: the next FINISH is asked about again, and
    # the save is what makes the file
    _, s = STRATEGY.handle_response("app-editor", proposes("CONTINUE", typed), s)
    _, s = STRATEGY.handle_response("app-editor", executed(ran(typed)), s)
    (again,), s = STRATEGY.handle_response("app-editor", proposes("FINISH", result="typed"), s)
    assert "notes.txt is unchanged" in app_request(again).note and run_of(s).subtasks["1"].state is not \
        SubtaskState.FAIL
    assert app_request(again).offered == ("save",)
    # with nothing new done since, a FINISH that still lacks the file fails
    _, s = STRATEGY.handle_response("app-editor", proposes("FINISH", result="typed"), s)
    assert run_of(s).subtasks["1"].state is SubtaskState.FAIL


def test_a_program_that_opens_files_opens_the_declared_file_before_it_acts() -> None:
    editor = Catalog((AppInfo("editor", "a text editor", (".txt",), (
        ToolInfo("observe", True), ToolInfo("set_text", False, names_its_writes=False), ToolInfo("save", False),
        ToolInfo("open_file", False))),))

    def first_step(rules: str, writes: str) -> tuple[AppStepRequest, HostState]:
        state, _ = STRATEGY.init({"planner": SPEC, "app_agents": {"editor": SPEC}, "catalog": editor,
                                  "config": HostConfig(rules=rules)})
        _, s = STRATEGY.handle_ask(f"Add eggs to {writes} and save it", {}, "t1", state)
        plan = [sub("1", "editor", writes=[writes], tools=["set_text", "save"])]
        ops, s = STRATEGY.handle_response("host", planner_says("ASSIGN", files=("shopping.txt",), Subtasks=plan), s)
        return app_request(dispatches(ops)[0]), s

    request, s = first_step("small-local", "shopping.txt")
    assert request.offered == ("open_file",) and request.must_act
    opened = facts_of("open_file", {"path": "shopping.txt"}, "edit")
    _, s = STRATEGY.handle_response("app-editor", proposes("CONTINUE", opened), s)
    # an edit of the person's file: it waits for the person, and the step says which rule narrowed it
    step = next(t for t in s.blackboard.trajectories if t.agent == "app-editor")
    assert step.status == "CONFIRM" and step.rules == ("open-before-acting",)
    # a file it makes anew has nothing to open; without the rule nothing is forced
    assert first_step("small-local", "notes.txt")[0].offered == ()  # every tool
    assert not first_step("none", "shopping.txt")[0].must_act


def dialog_state(rules: str) -> HostState:
    """A host whose one application is a dialog with a form (its actions name no file)."""
    dialog = Catalog((AppInfo("dialog", "a form", (), (
        ToolInfo("observe", True), ToolInfo("set_text", False, names_its_writes=False),
        ToolInfo("click", False, names_its_writes=False))),))
    state, _ = STRATEGY.init({"planner": SPEC, "app_agents": {"dialog": SPEC}, "catalog": dialog,
                              "config": HostConfig(rules=rules)})
    return state


def test_a_finish_that_leaves_the_dialog_it_filled_in_open_is_asked_about_once() -> None:
    state = dialog_state("none")
    _, s = STRATEGY.handle_ask("Fill in the form with Alice and confirm it", {}, "t1", state)
    plan = [sub("1", "dialog", tools=["set_text"])]
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", files=(), Subtasks=plan), s)

    def window(open_: bool) -> tuple[ActionResult, ...]:
        content = {"windows": [{"title": "Visitor", "role": "dialog"}] if open_ else [], "controls": []}
        if open_:
            content["open_dialog"] = {"window": "Visitor"}
        return (ActionResult(function="observe", ok=True, content=content, read_only=True),)

    # observed before it acted, the open dialog is no question: it has done nothing in it yet
    typed = facts_of("set_text", {"control": 3, "text": "Alice"}, None)
    _, s = STRATEGY.handle_response("app-dialog", proposes("CONTINUE", typed, observed=window(True)), s)
    _, s = STRATEGY.handle_response("app-dialog", executed(ran(typed)), s)
    (again,), s = STRATEGY.handle_response("app-dialog", proposes("FINISH", observed=window(True), result="ok"), s)
    assert "its dialog 'Visitor' is still open: confirm it with its button" in app_request(again).note
    # asked once: a FINISH again leaves it open
    _, s = STRATEGY.handle_response("app-dialog", proposes("FINISH", observed=window(True), result="ok"), s)
    assert run_of(s).subtasks["1"].state is SubtaskState.FINISH
    # confirmed (the dialog is gone), a FINISH is not asked about
    _, s = STRATEGY.handle_ask("Fill in the form with Alice and confirm it", {}, "t2", state)
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", files=(), Subtasks=plan), s)
    _, s = STRATEGY.handle_response("app-dialog", proposes("CONTINUE", typed, observed=window(True)), s)
    _, s = STRATEGY.handle_response("app-dialog", executed(ran(typed)), s)
    _, s = STRATEGY.handle_response("app-dialog", proposes("FINISH", observed=window(False), result="ok"), s)
    assert run_of(s).subtasks["1"].state is SubtaskState.FINISH
    # with the rules of a small model, its next answer must take one of the program's actions it has not taken
    small = replace(state, rules=profile_rules(SMALL_LOCAL))
    _, s = STRATEGY.handle_ask("Fill in the form with Alice and confirm it", {}, "t3", small)
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", files=(), Subtasks=plan), s)
    _, s = STRATEGY.handle_response("app-dialog", proposes("CONTINUE", typed, observed=window(True)), s)
    _, s = STRATEGY.handle_response("app-dialog", executed(ran(typed)), s)
    (forced,), s = STRATEGY.handle_response("app-dialog", proposes("FINISH", observed=window(True), result="ok"), s)
    assert app_request(forced).offered == ("click",) and app_request(forced).must_act
    # the confirming click ends the program: no tool of it can act any more, so the next answer calls none
    confirm = facts_of("click", {"control": 8}, None)
    _, s = STRATEGY.handle_response("app-dialog", proposes("CONTINUE", confirm), s)
    (after,), s = STRATEGY.handle_response("app-dialog", executed(ran(confirm, {"windows": [], ENDED: 0})), s)
    request = app_request(after)
    assert request.ended == 0 and not request.must_act
    assert "## Your program has ended\nIt exited with status 0" in app_user(request, [], [])
    ops, s = STRATEGY.handle_response("app-dialog", proposes("FINISH", result="ok"), s)
    assert any(isinstance(op, Reply) for op in ops)  # confirmed and verified: the request is done
    assert [(t.agent, t.status) for t in s.blackboard.trajectories[-3:-1]] == [
        ("app-dialog", "FINISH"), ("host", "FINISH")]


def test_with_the_rules_a_subtask_that_writes_no_file_and_leaves_its_dialog_open_fails() -> None:
    typed = facts_of("set_text", {"control": 2, "text": "65"}, None)
    observed = (ActionResult(function="observe", ok=True, read_only=True, content={
        "windows": [{"title": "Volume", "role": "dialog"}], "controls": [],
        "open_dialog": {"window": "Volume", "buttons": {"3": "Cancel", "4": "OK"}}}),)

    def twice(rules: str) -> HostState:
        _, s = STRATEGY.handle_ask("Set the volume to 65 and confirm", {}, "t1", dialog_state(rules))
        _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", files=(), Subtasks=[
            sub("1", "dialog", tools=["set_text"])]), s)
        _, s = STRATEGY.handle_response("app-dialog", proposes("CONTINUE", typed), s)
        _, s = STRATEGY.handle_response("app-dialog", executed(ran(typed)), s)
        (asked,), s = STRATEGY.handle_response("app-dialog", proposes("FINISH", observed=observed, result="ok"), s)
        assert "its dialog 'Volume' is still open (its buttons: 3 'Cancel', 4 'OK')" in app_request(asked).note
        _, s = STRATEGY.handle_response("app-dialog", proposes("FINISH", observed=observed, result="ok"), s)
        return s

    # the dialog is the subtask's only effect: set and never confirmed, nothing was done
    held = twice("small-local")
    assert run_of(held).subtasks["1"].state is SubtaskState.FAIL
    assert any("dialog-is-failure" in t.rules for t in held.blackboard.trajectories)
    # without the rule a FINISH again is believed: a dialog may be left open on purpose
    assert run_of(twice("none")).subtasks["1"].state is SubtaskState.FINISH


def test_a_document_changed_where_no_file_is_written_is_asked_about_and_with_the_rules_fails() -> None:
    def look(digest: str) -> tuple[ActionResult, ...]:
        return (ActionResult(function="observe", ok=True, read_only=True, documents={"5": digest},
                             content={"windows": [{"title": "Untitled 1", "role": "frame"}], "controls": []}),)

    typed = facts_of("set_text", {"control": 5, "text": "Line Numbers"}, None)

    def run(rules: str, undone: bool = False, later: bool = False) -> tuple[str, HostState]:
        plan = [sub("1", "dialog", tools=["set_text"])]
        if later:
            # two wait for it, so the plan keeps it apart (one alone would do both)
            plan += [sub("2", "dialog", "1", writes=["notes.txt"], tools=["click"]),
                     sub("3", "dialog", "1", writes=["todo.txt"], tools=["click"])]
        request = "Turn on line numbers in the editor" + (", then save notes.txt and todo.txt" if later else "")
        _, s = STRATEGY.handle_ask(request, {}, "t1", dialog_state(rules))
        _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", files=(), Subtasks=plan), s)
        _, s = STRATEGY.handle_response("app-dialog", proposes("CONTINUE", typed, observed=look("a")), s)
        _, s = STRATEGY.handle_response("app-dialog", executed(ran(typed)), s)
        ops, s = STRATEGY.handle_response("app-dialog", proposes(
            "FINISH", observed=look("a" if undone else "b"), result="ok"), s)
        if any(isinstance(op, Reply) for op in ops) or run_of(s).subtasks["1"].state is SubtaskState.FINISH:
            return "", s  # believed: the request done, or the next subtask dispatched
        _, s = STRATEGY.handle_response("app-dialog", proposes("FINISH", observed=look("b"), result="ok"), s)
        return app_request(dispatches(ops)[0]).note, s

    note, held = run("small-local")
    assert "your actions changed the text of control 5, and no file your subtask writes keeps it" in note
    assert run_of(held).subtasks["1"].state is SubtaskState.FAIL
    assert any("unsaved-is-failure" in t.rules for t in held.blackboard.trajectories)
    # without the rule a FINISH again is believed: the text may be the work
    note, believed = run("none")
    assert "(answer FINISH again if that text is the work)" in note
    assert run_of(believed).subtasks["1"].state is SubtaskState.FINISH
    # a text brought back to what it held, or one a later subtask of the program saves, is no question
    assert run("small-local", undone=True)[0] == ""
    note, saved = run("small-local", later=True)
    assert note == "" and run_of(saved).subtasks["1"].state is SubtaskState.FINISH


def test_a_finish_that_came_with_calls_that_never_ran_is_not_one() -> None:
    _, s = assigned()
    _, s = STRATEGY.handle_response("app-documents", proposes("CONTINUE", READ), s)
    _, s = STRATEGY.handle_response("app-documents", executed(ran(READ, TABLE)), s)
    _, s = STRATEGY.handle_response("app-documents", proposes("FINISH", result={"ref": "1.read_table"}), s)
    # the write cannot run, so the chart after it is never tried: the FINISH counted on both
    broken = WRITE.model_copy(update={"error": "unknown reference '9.x'"})
    (again,), s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", broken, CHART, result="ok"), s)
    note = app_request(again).note
    assert "You answered FINISH with calls that did not run (add_chart(" in note and "9.x" in note
    assert run_of(s).subtasks["2"].state is SubtaskState.CONTINUE


def test_with_the_rules_a_confirmation_leaving_fields_empty_is_asked_about_once() -> None:
    _, s = STRATEGY.handle_ask("Fill in the form with Alice and room Green, and confirm it", {}, "t1",
                               dialog_state("small-local"))
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", files=(), Subtasks=[
        sub("1", "dialog", tools=["set_text", "click"])]), s)
    confirm = facts_of("click", {"control": 9}, None).model_copy(update={"unfilled": ("Room",)})
    (again,), s = STRATEGY.handle_response("app-dialog", proposes("CONTINUE", confirm), s)
    assert app_request(again).kind is AppStepKind.PROPOSE
    assert "it would confirm the dialog with 'Room' left empty" in app_request(again).note
    # the same click proposed again is the agent's choice: it runs
    (execute,), s = STRATEGY.handle_response("app-dialog", proposes("CONTINUE", confirm), s)
    assert app_request(execute).kind is AppStepKind.EXECUTE


def test_with_the_rules_a_figure_computed_after_the_last_write_is_then_given_by_reference() -> None:
    files = Catalog((AppInfo("files", "files", (".txt", ".csv"), (
        ToolInfo("write_file", False, TEXT_WRITE), ToolInfo("column_totals", True, computes=True))),))
    state, _ = STRATEGY.init({"planner": SPEC, "app_agents": {"files": SPEC}, "catalog": files,
                              "config": HostConfig(rules="small-local")})
    _, s = STRATEGY.handle_ask("Add up the hours in hours.csv and write the total into hours.txt", {}, "t1", state)
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", files=("hours.csv",), Subtasks=[
        sub("1", "files", reads=["hours.csv"], writes=["hours.txt"], tools=["write_file", "column_totals"])]), s)
    label = facts_of("write_file", {"path": "hours.txt", "content": "Total hours: "}, "create")
    _, s = STRATEGY.handle_response("app-files", proposes("CONTINUE", label), s)
    _, s = STRATEGY.handle_response("app-files", executed(ran(label)), s)
    totals = facts_of("column_totals", {"path": "hours.csv"}, read_only=True)
    _, s = STRATEGY.handle_response("app-files", proposes("CONTINUE", totals), s)
    _, s = STRATEGY.handle_response("app-files", executed(ran(totals, {"columns": {"Hours": {"sum": 33.25}}})), s)
    (again,), s = STRATEGY.handle_response("app-files", proposes("FINISH", result="written"), s)
    request = app_request(again)
    # the total was worked out after the file got its label: the next data written is a reference
    assert "column_totals" in request.note and request.by_ref
    assert "1.column_totals.columns.Hours.sum" in [a.name for a in request.artifacts]
    assert run_of(s).subtasks["1"].narrowed == REF_AFTER_UNWRITTEN  # recorded with the step it shapes


def without_verified_finish(s: HostState) -> HostState:
    """The profile's rules less verified-graph-is-finish: the planner is asked once every subtask ended, as it
    is when the request names a file no subtask made."""
    return replace(s, rules=s.rules - {VERIFIED_FINISH})


def test_with_the_rules_a_verified_graph_ends_the_request_without_asking_the_planner() -> None:
    for rules in ("small-local", "none"):
        s = read_done(rules=rules)
        _, s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", WRITE, CHART), s)
        _, s = STRATEGY.handle_response("app-spreadsheets", executed(ran(WRITE), ran(CHART)), s)
        ops, s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="budget.xlsx has a chart"), s)
        if rules == "none":  # the seed's HostAgent verifies completion itself
            (confirm,) = dispatches(ops)
            assert confirm.agent == "host" and "Every subtask has ended" in host_request(confirm).note
            continue
        (reply,) = ops
        assert isinstance(reply, Reply) and reply.response.text == ('subtask 1: [["Quarter", "Sales"], ["Q1", 10]]; '
                                                                    "subtask 2: budget.xlsx has a chart")
        assert s.last is not None and s.last["status"] == "FINISH"
        step = s.blackboard.trajectories[-2]
        assert (step.agent, step.status, step.rules) == ("host", "FINISH", (VERIFIED_FINISH,))


# a file written whole from a text: its content takes data
TEXT_WRITE = json.dumps({"type": "object", "properties": {"path": {"type": "string"}, "content": {
    "type": "string", "contentMediaType": "text/plain"}}})
PATH_ONLY = json.dumps({"type": "object", "properties": {"path": {"type": "string"}, "index": {"type": "integer"}},
                        "required": ["path"]})
READERS = Catalog((
    AppInfo("documents", "docs", (".docx",), (ToolInfo("read_table", True, PATH_ONLY), ToolInfo(
        "find_text", True, json.dumps({"properties": {"path": {}, "text": {}}, "required": ["path", "text"]})),
        ToolInfo("table_totals", True, PATH_ONLY, computes=True))),
    CATALOG.get("spreadsheets")))


def test_with_the_rules_a_plain_read_its_plan_determines_runs_without_a_model_call() -> None:
    ops, s = assigned(rules="small-local", catalog=READERS)
    (reader,) = [d for d in dispatches(ops) if d.agent == "app-documents"]
    request = app_request(reader)
    assert request.kind is AppStepKind.EXECUTE and request.launch  # the application's first step launches it
    assert [(c.function, c.arguments) for c in request.calls] == [("read_table", {"path": "report.docx"})]
    ops, s = STRATEGY.handle_response("app-documents", executed(ran(READ, {"rows": TABLE})), s)
    record = run_of(s).subtasks["1"]
    assert record.state is SubtaskState.FINISH and record.result == "report.docx read"
    step = s.blackboard.trajectories[-1]
    assert (step.agent, step.status, step.rules) == ("app-documents", "FINISH", (PLAN_READS,))
    (writer,) = dispatches(ops)  # the table is handed on by reference
    assert writer.agent == "app-spreadsheets" and "1.read_table.rows" in {a.name for a in app_request(writer).artifacts}
    # a read that failed, or that left part of its file out, is forgotten: the first step is the model's, as
    # without the rule (the other table is not handed on as if it were the one)
    for result in (ran(READ, "no such file", ok=False), ran(READ, {"rows": TABLE, "left_out": "1 other table"})):
        ops, s = assigned(rules="small-local", catalog=READERS)
        ops, s = STRATEGY.handle_response("app-documents", executed(result), s)
        (asked,) = dispatches(ops)
        request = app_request(asked)
        assert request.kind is AppStepKind.PROPOSE and request.step == 1
        record = run_of(s).subtasks["1"]
        assert record.state is SubtaskState.CONTINUE and not record.artifacts and not request.memory
        step = s.blackboard.trajectories[-1]
        assert step.rules == (PLAN_READS,) and step.outcome.startswith("left to the model: read_table: ")
    # the model makes the step when: no rules; a tool that computes or needs more than the path; a write
    plans = [[sub("1", "documents", reads=["report.docx"], tools=["read_table"], hands_on="table")],
             [sub("1", "documents", reads=["report.docx"], tools=["table_totals"], hands_on="table")],
             [sub("1", "documents", reads=["report.docx"], tools=["find_text"], hands_on="text")],
             [sub("1", "documents", reads=["report.docx"], tools=["read_table"], hands_on="number")]]
    for rules, plan in zip(("none", "small-local", "small-local", "small-local"), plans, strict=True):
        ops, _ = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=plan),
                                          started(rules=rules, catalog=READERS))
        (step,) = dispatches(ops)
        assert app_request(step).kind is AppStepKind.PROPOSE, (rules, plan)


TABLE_WRITER = json.dumps({"type": "object", "properties": {"path": {"type": "string"}, "rows": {"type": "array"},
                                                            "start": {"type": "string"}}, "required": ["path", "rows"]})
WRITERS = Catalog((READERS.get("documents"), AppInfo("spreadsheets", "sheets", (".xlsx",), (
    ToolInfo("read_sheet", True, PATH_ONLY), ToolInfo("write_rows", False, TABLE_WRITER),
    ToolInfo("add_chart", False)))))


def copy_plan(target: str = "new.xlsx", tools: tuple[str, ...] = ("write_rows",)) -> list[dict[str, Any]]:
    return [sub("1", "documents", reads=["report.docx"], tools=["read_table"], hands_on="table"),
            sub("2", "spreadsheets", "1", writes=[target], tools=list(tools))]


def to_writer(plan: list[dict[str, Any]], rules: str = "small-local", **config: Any) -> tuple[list[Any], HostState]:
    """The plan assigned and its read done: the writer's first step is asked for."""
    request = f"Put the table of report.docx into {plan[1]['writes'][0]}"
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=plan),
                                    started(request, rules=rules, catalog=WRITERS, **config))
    if rules == "none":  # the read is the model's step too
        _, s = STRATEGY.handle_response("app-documents", proposes("FINISH", READ), s)
    return STRATEGY.handle_response("app-documents", executed(ran(READ, {"rows": TABLE})), s)


def test_a_writer_is_given_a_files_data_before_a_description_of_how_it_is_made_up() -> None:
    # the reader listed the document's tables, then read one: the list is how to find the data, not the data
    describing = Catalog((AppInfo("documents", "docs", (".docx",), (
        ToolInfo("list_tables", True, PATH_ONLY, describes=True), ToolInfo("read_table", True, PATH_ONLY))),
        WRITERS.get("spreadsheets")))
    plan = copy_plan()
    plan[0]["tools"] = ["list_tables", "read_table"]
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=plan),
                                    started("Put the table of report.docx into new.xlsx", rules="none",
                                            catalog=describing))
    listing = facts_of("list_tables", {"path": "report.docx"}, read_only=True)
    _, s = STRATEGY.handle_response("app-documents", proposes("CONTINUE", listing, READ), s)
    tables = [{"index": 0, "rows": 2, "columns": 2, "before": "Sales by quarter"}]
    _, s = STRATEGY.handle_response("app-documents", executed(ran(listing, {"tables": tables}),
                                                              ran(READ, {"rows": TABLE})), s)
    ops, _ = STRATEGY.handle_response("app-documents", proposes("FINISH", result="report.docx read"), s)
    given = [(a.name, a.value) for a in app_request(dispatches(ops)[-1]).artifacts if a.kind == "table"]
    assert given[0] == ("1.read_table.rows", TABLE) and "1.list_tables.tables" in dict(given)


MERGER = json.dumps({"type": "object", "properties": {
    "path": {"type": "string"}, "sheet": {"type": "string"},
    "sources": {"type": "array", "maxItems": 8, "items": {"type": "string", FILE_TYPES: [".xlsx", ".csv"],
                                                          EXISTING: True}}}, "required": ["path"]})
MERGERS = Catalog((AppInfo("spreadsheets", "sheets", (".xlsx", ".csv"), (
    ToolInfo("read_sheet", True, PATH_ONLY), ToolInfo("merge_tables", False, MERGER))),))


def test_with_the_rules_a_merge_of_the_files_a_subtask_reads_is_the_plans_answer() -> None:
    files = ("north.xlsx", "south.csv", "all.xlsx")

    def first_step(reads: list[str], rules: str = "small-local", hands_on: str = "nothing") -> Any:
        plan = [sub("1", "spreadsheets", reads=reads, writes=["all.xlsx"], tools=["merge_tables"], hands_on=hands_on)]
        ops, _ = STRATEGY.handle_response("host", planner_says("ASSIGN", files=files, Subtasks=plan),
                                          started("Merge the customers of north.xlsx and south.csv into all.xlsx",
                                                  rules=rules, catalog=MERGERS))
        (step,) = dispatches(ops)
        return app_request(step).planned

    planned = AppOutput.model_validate(first_step(["north.xlsx", "south.csv", "all.xlsx"]))
    (action,) = planned.actions
    assert planned.status is AppStatus.FINISH
    assert (action.function, action.arguments) == ("merge_tables", {"path": "all.xlsx",
                                                                    "sources": ["north.xlsx", "south.csv"]})
    # the model makes the step: no rules; a source that is not there; a subtask that hands data on
    assert first_step(["north.xlsx", "south.csv"], rules="none") is None
    assert first_step(["north.xlsx", "east.xlsx"]) is None
    assert first_step(["north.xlsx", "south.csv"], hands_on="table") is None


def test_with_the_rules_a_table_put_into_a_file_as_its_plan_determines_is_the_plans_answer_not_the_models() -> None:
    ops, s = to_writer(copy_plan())
    (writer,) = dispatches(ops)
    request = app_request(writer)
    assert writer.agent == "app-spreadsheets" and request.kind is AppStepKind.PROPOSE and request.step == 1
    # the answer its plan gives, the table by reference: the shell gathers its facts, the model is not asked
    planned = AppOutput.model_validate(request.planned)
    assert planned.status is AppStatus.FINISH
    (action,) = planned.actions
    assert (action.function, action.arguments) == (
        "write_rows", {"path": "new.xlsx", "rows": {"ref": "1.read_table.rows"}})
    write = facts_of("write_rows", {"path": "new.xlsx", "rows": TABLE}, change="create")
    said = proposes("FINISH", write, result="new.xlsx has the table handed on")
    (execute,), s = STRATEGY.handle_response("app-spreadsheets", said, s)
    (call,) = app_request(execute).calls  # decided on as a model's answer: a new declared file needs no one
    assert (call.function, call.arguments) == ("write_rows", {"path": "new.xlsx", "rows": TABLE})
    made = ran(write, {"range": "A1:B2"})
    ops, s = STRATEGY.handle_response("app-spreadsheets", executed(made), s)
    assert any(isinstance(op, Reply) for op in ops)  # verified against the files: the request is done
    assert [(t.agent, t.status, t.rules) for t in s.blackboard.trajectories[-3:-1]] == [
        ("app-spreadsheets", "FINISH", (PLAN_WRITES,)), ("host", "FINISH", (VERIFIED_FINISH,))]
    # a call that failed is forgotten: the first step is the model's, as without the rule
    _, s = to_writer(copy_plan())
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", write), s)
    ops, s = STRATEGY.handle_response("app-spreadsheets", executed(ran(write, "disk full", ok=False)), s)
    (asked,) = dispatches(ops)
    assert app_request(asked).kind is AppStepKind.PROPOSE and app_request(asked).step == 1
    assert app_request(asked).planned is None
    assert s.blackboard.trajectories[-1].outcome == "left to the model: write_rows: disk full"
    # a call that would wait for the person (its effects lose what the file held; a protected path) is not
    # asked about: forgotten, and the model makes the step
    for facts, config in ((facts_of("write_rows", {"path": "new.xlsx", "rows": TABLE}, change="edit"), {}),
                          (write, {"protected": ("new.xlsx",)})):
        _, s = to_writer(copy_plan(), **config)
        ops, s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", facts), s)
        (asked,) = dispatches(ops)
        request = app_request(asked)
        assert request.kind is AppStepKind.PROPOSE and request.step == 1 and request.planned is None, config
        assert not any(isinstance(op, Forward) for op in ops)  # nothing asked of the person
        assert s.blackboard.trajectories[-1].outcome.startswith("left to the model")
        assert s.blackboard.trajectories[-1].rules == (PLAN_WRITES,)
    # the model makes the step when: no rules; two tables handed; another file read first; more to do than put
    # the table in (a tool besides, or none that takes the table); a table its dependency read but does not
    # hand on (it hands on text)
    two = [*copy_plan()[:1], sub("2", "documents", reads=["other.docx"], tools=["read_table"], hands_on="table"),
           sub("3", "spreadsheets", "1", "2", writes=["new.xlsx"], tools=["write_rows"])]
    for plan, rules in ((copy_plan(), "none"),
                        ([{**copy_plan()[0], "hands_on": "text"}, copy_plan()[1]], "small-local"),
                        ([copy_plan()[0], {**copy_plan()[1], "reads": ["budget.xlsx"]}], "small-local"),
                        (copy_plan("budget.xlsx", ("write_rows", "add_chart")), "small-local"),
                        (copy_plan("budget.xlsx", ("add_chart",)), "small-local")):
        ops, _ = to_writer(plan, rules)
        (step,) = dispatches(ops)
        assert app_request(step).kind is AppStepKind.PROPOSE and app_request(step).planned is None, (plan, rules)
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=two, files=(*FILES, "other.docx")),
                                    started("Put the tables of report.docx and other.docx into new.xlsx",
                                            rules="small-local", catalog=WRITERS))
    _, s = STRATEGY.handle_response("app-documents", executed(ran(READ, {"rows": TABLE})), s)
    other = facts_of("read_table", {"path": "other.docx"}, read_only=True)
    ops, _ = STRATEGY.handle_response("app-documents", executed(ran(other, {"rows": TABLE})), s)
    (step,) = dispatches(ops)
    assert app_request(step).planned is None


def test_with_the_rules_a_planners_fail_after_every_subtask_finished_is_questioned_once() -> None:
    for rules, asked in (("small-local", True), ("none", False)):
        s = without_verified_finish(read_done(rules=rules))
        _, s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", WRITE, CHART), s)
        _, s = STRATEGY.handle_response("app-spreadsheets", executed(ran(WRITE), ran(CHART)), s)
        _, s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="charted"), s)
        ops, s = STRATEGY.handle_response("host", planner_says("FAIL", Comment="the chart is not made"), s)
        if asked:
            (again,) = dispatches(ops)
            assert "You answered FAIL, but every subtask ended FINISH" in host_request(again).note
            assert "subtask 2 changed budget.xlsx" in host_request(again).note
            ops, s = STRATEGY.handle_response("host", planner_says("FAIL", Comment="the chart is not made"), s)
        (end,) = ops
        assert isinstance(end, ReplyError) and end.reason.detail.endswith("failed[host]: the chart is not made")


def test_a_write_that_left_its_file_as_it_was_is_asked_about_once_even_after_another_question_then_fails() -> None:
    s = read_done()
    (again,), s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="done"), s)
    assert "budget.xlsx is unchanged" in app_request(again).note
    same = ran(WRITE).model_copy(update={"changes": (EffectView(path="budget.xlsx", change="add", before="d",
                                                                after="d"),)})
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", WRITE, CHART), s)
    chart = ran(CHART).model_copy(update={"changes": same.changes})
    _, s = STRATEGY.handle_response("app-spreadsheets", executed(same, chart), s)
    (asked,), s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="done"), s)
    assert "budget.xlsx is as before: your calls wrote what was there already" in app_request(asked).note
    # a small model writes the cells already there and calls the work done: a FINISH still showing only that
    # fails, saying so
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="it held the table already"), s)
    record = run_of(s).subtasks["2"]
    assert record.state.value == "FAIL" and record.reason is not None
    assert "budget.xlsx is as before: your calls wrote what was there already" in record.reason.detail


def read_done_before_finish() -> HostState:
    _, s = assigned()
    _, s = STRATEGY.handle_response("app-documents", proposes("CONTINUE", READ), s)
    _, s = STRATEGY.handle_response("app-documents", executed(ran(READ, TABLE)), s)
    return s


def test_a_finish_that_left_a_declared_write_unchanged_is_questioned_then_fails() -> None:
    s = read_done()
    (again,), s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="done"), s)
    note = app_request(again).note
    assert "You answered FINISH, but budget.xlsx is unchanged; write_rows, add_chart were not called" in note
    ops, s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="done"), s)
    (replan,) = dispatches(ops)
    assert replan.agent == "host" and "ended FAIL" in host_request(replan).note
    assert "budget.xlsx is unchanged" in host_request(replan).note
    # the planner cannot report the request done while a subtask of its graph failed
    (end,), s = STRATEGY.handle_response("host", planner_says("FINISH", Comment="charted"), s)
    assert isinstance(end, ReplyError) and "answered FINISH, but subtask 2" in end.reason.detail


def test_a_finish_said_with_calls_that_changed_files_is_asked_about_again_not_held_against_it() -> None:
    s = read_done()
    (again,), s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="done"), s)
    assert "budget.xlsx is unchanged" in app_request(again).note
    # questioned once already, it writes and says FINISH in the same answer, before seeing the result
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", WRITE, result="done"), s)
    (again,), s = STRATEGY.handle_response("app-spreadsheets", executed(ran(WRITE)), s)
    assert app_request(again).kind is AppStepKind.PROPOSE
    assert "You answered FINISH, but add_chart was not called" in app_request(again).note
    # a FINISH that changes nothing more is held against it
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="done"), s)
    assert run_of(s).subtasks["2"].state is SubtaskState.FAIL
    assert "add_chart was not called" in str(run_of(s).subtasks["2"].reason)


def test_the_force_rule_makes_the_next_answer_call_a_missing_tool_while_a_write_is_unchanged() -> None:
    s = read_done(rules="small-local")
    (again,), s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="done"), s)
    request = app_request(again)
    assert request.must_act and request.offered == ("write_rows", "add_chart")
    assert "force-missing-tool" in s.blackboard.trajectories[-1].rules
    # forced, it may still ask for a value it has nowhere, and is told to rather than make one up
    assert request.may_ask and "ask the person for it (PENDING): never make one up" in request.note
    # a forced tool whose failed call is proposed again unchanged is withheld from the forced choice too
    stuck = s
    _, stuck = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", CHART), stuck)
    _, stuck = STRATEGY.handle_response("app-spreadsheets", executed(ran(CHART, ok=False)), stuck)
    (next_step,), stuck = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", CHART), stuck)
    assert app_request(next_step).offered == ("write_rows",) and app_request(next_step).must_act
    # every forced tool stuck (an error that names another tool for the work): the application's other tools
    _, only = read_handed([SEED[0], sub("2", "spreadsheets", "1", writes=["budget.xlsx"], tools=["add_chart"])],
                          rules="small-local")
    (forced,), only = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="done"), only)
    assert app_request(forced).offered == ("add_chart",)
    _, only = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", CHART), only)
    _, only = STRATEGY.handle_response("app-spreadsheets", executed(ran(CHART, ok=False)), only)
    (next_step,), only = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", CHART), only)
    assert app_request(next_step).offered == ("read_sheet", "write_rows", "sort_rows")
    assert app_request(next_step).must_act
    # once its declared writes changed, a declared tool never called is forced still: a FINISH again without
    # it would end the subtask FAIL (work not done), so the answer that can do it is the one left
    s = read_done(rules="small-local")
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", WRITE), s)
    _, s = STRATEGY.handle_response("app-spreadsheets", executed(ran(WRITE)), s)
    (again,), s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="done"), s)
    assert app_request(again).must_act and app_request(again).offered == ("add_chart",)
    assert "add_chart was not called" in app_request(again).note
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="done"), s)
    assert run_of(s).subtasks["2"].state is SubtaskState.FAIL
    # without the rule the step is free, and only told
    s = read_done()
    (again,), s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="done"), s)
    assert not app_request(again).must_act and "write_rows, add_chart were not called" in app_request(again).note


def test_a_question_nobody_answers_is_a_step_without_progress() -> None:
    s = read_done(rules="small-local")  # batch mode: the default answer
    (again,), s = STRATEGY.handle_response("app-spreadsheets", proposes("PENDING", questions=["Which rows?"]), s)
    request = app_request(again)
    record = run_of(s).subtasks["2"]
    assert record.answers[-1].answered_by == "default" and record.idle == 1
    assert request.note == ("Nobody can answer in batch mode. Do your subtask with the data you have (write_rows, "
                            "add_chart not called yet), or answer FAIL if it cannot be done without the answer.")
    # the note says so; the default answer is no answer to show (nor to copy into a file as data)
    assert request.answers == () and "Which rows?" not in request.blackboard
    assert "Which rows?" in s.blackboard.to_prompt() and "not available" in s.blackboard.to_prompt()
    # not forced to call a tool: a value nobody gave must not be made up, and FAIL stays open; asking again
    # is not offered, since nobody would answer it otherwise (a person's answer leaves it open)
    assert not request.must_act and not request.may_ask
    first, _ = STRATEGY.handle_response("app-documents", proposes("FINISH", result={"ref": "1.read_table"}),
                                        read_done_before_finish())
    (step,) = [app_request(op) for op in first if getattr(op, "agent", "") == "app-spreadsheets"]
    assert step.may_ask
    # asked again, worded anew: still no progress, and the idle limit ends the subtask
    for n in (2, 3):
        _, s = STRATEGY.handle_response("app-spreadsheets", proposes("PENDING", questions=[f"Which rows ({n})?"]),
                                        s)
    record = run_of(s).subtasks["2"]
    assert record.state is SubtaskState.FAIL and "questions nobody answers" in str(record.reason), record
    # once its declared work is done, questions nobody answers end it FINISH: the steps after it were extra
    s = read_done(rules="small-local")
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", WRITE, CHART), s)
    _, s = STRATEGY.handle_response("app-spreadsheets", executed(ran(WRITE), ran(CHART)), s)
    for n in (1, 2, 3):
        _, s = STRATEGY.handle_response("app-spreadsheets", proposes("PENDING", questions=[f"Anything else ({n})?"]),
                                        s)
    (record,) = [r for r in s.last["subtasks"] if r["id"] == "2"] if s.last else []
    assert record["state"] == "FINISH" and "declared changes were made" in str(record["result"]), record


def test_an_application_is_launched_for_its_first_step_of_the_run_only() -> None:
    ops, s = assigned()
    (reader,) = [d for d in dispatches(ops) if d.agent == "app-documents"]
    assert app_request(reader).launch
    (again,), s = STRATEGY.handle_response("app-documents", proposes("CONTINUE", READ), s)
    (again,), s = STRATEGY.handle_response("app-documents", executed(ran(READ, TABLE)), s)
    assert not app_request(again).launch  # closed since (a dialog confirmed): not started anew
    ops, s = STRATEGY.handle_response("app-documents", proposes("FINISH", result={"ref": "1.read_table"}), s)
    (writer,) = [d for d in dispatches(ops) if d.agent == "app-spreadsheets"]
    assert app_request(writer).launch


def read_handed(plan: list[dict[str, Any]], **config: Any) -> tuple[list[Any], HostState]:
    """Plan `plan`, whose subtask 1 is SEED's reader: it read the table and finished, handing it on."""
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=plan), started(**config))
    _, s = STRATEGY.handle_response("app-documents", proposes("CONTINUE", READ), s)
    _, s = STRATEGY.handle_response("app-documents", executed(ran(READ, TABLE)), s)
    return STRATEGY.handle_response("app-documents", proposes("FINISH", result={"ref": "1.read_table"}), s)


def test_the_force_rule_makes_a_writer_that_declared_no_tool_call_one_that_changes() -> None:
    # declaring only a tool that reads, it may use any of its application's (podium.desktop.host.amend)
    anyway = [SEED[0], sub("2", "spreadsheets", "1", writes=["budget.xlsx"], tools=["read_sheet"])]
    _, s = read_handed(anyway, rules="small-local")
    (again,), s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="done"), s)
    request = app_request(again)
    assert "budget.xlsx is unchanged" in request.note
    # made only of the table handed to it (rule handed-data-first): the tools that take it
    assert request.must_act and request.offered == ("write_rows",)
    # without that rule, any tool that changes files
    _, s = read_handed(anyway, rules="small-local")
    s = replace(s, rules=s.rules - {"handed-data-first"})
    (again,), s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="done"), s)
    assert app_request(again).offered == ("write_rows", "add_chart", "sort_rows")


SHEETS_ADDING = Catalog((CATALOG.get("documents"), AppInfo("spreadsheets", "sheets", (".xlsx",), (
    ToolInfo("read_sheet", True), ToolInfo("write_rows", False), ToolInfo("add_sheet", False, empty_part=True)))))


def test_a_part_left_empty_is_filled_by_another_tool_than_the_one_that_added_it() -> None:
    plan = [SEED[0], sub("2", "spreadsheets", "1", writes=["budget.xlsx"], tools=["add_sheet"])]
    _, s = read_handed(plan, rules="small-local", catalog=SHEETS_ADDING)
    add = CallFacts(function="add_sheet", arguments={"path": "budget.xlsx", "name": "Ranking"}, read_only=False,
                    effects=(EffectView(path="budget.xlsx", change="add", hollow=("Ranking",)),))
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", add), s)
    _, s = STRATEGY.handle_response("app-spreadsheets", executed(ran(add)), s)
    (again,), s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="done"), s)
    request = app_request(again)
    assert "sheet 'Ranking' of budget.xlsx holds nothing" in request.note
    # adding another sheet would leave one more empty: the forced step writes into it
    assert request.must_act and request.offered == ("write_rows",)
    # before any call, a declared tool that only adds an empty part is not forced alone: what changes content
    # is offered with it (a row under a table needs no new sheet, whatever a small planner declared)
    _, s = read_handed(plan, rules="small-local", catalog=SHEETS_ADDING)
    (again,), s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="done"), s)
    assert app_request(again).must_act and app_request(again).offered == ("add_sheet", "write_rows")


def test_the_force_rule_makes_a_reader_that_finished_with_no_data_call_a_reading_tool() -> None:
    _, s = assigned(rules="small-local")  # subtask 1 hands on a table with read_table
    (again,), s = STRATEGY.handle_response("app-documents", proposes("FINISH", result="done"), s)
    request = app_request(again)
    assert "no table was read to hand on" in request.note
    assert request.must_act and request.offered == ("read_table",)
    assert "force-missing-tool" in s.blackboard.trajectories[-1].rules


def test_with_the_rules_a_tool_whose_change_batch_mode_refused_is_withheld() -> None:
    plan = [sub("1", "documents", reads=["report.docx"], writes=["notes.docx"], tools=["read_table", "add_table"])]
    other = facts_of("add_table", {"path": "minutes.docx"})
    request = "Copy the table of report.docx into notes.docx"
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=plan),
                                    started(request, rules="small-local"))
    (step,), s = STRATEGY.handle_response("app-documents", proposes("CONTINUE", READ, other), s)
    assert "It was refused" in app_request(step).note and app_request(step).offered == ("read_table",)
    # no rules: only told
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=plan), started(request))
    (step,), s = STRATEGY.handle_response("app-documents", proposes("CONTINUE", READ, other), s)
    assert "It was refused" in app_request(step).note and app_request(step).offered == ()


def test_where_nobody_can_approve_a_subtask_that_may_change_nothing_is_offered_only_reading_tools() -> None:
    # subtask 1 of SEED reads and writes nothing: in batch mode any change of a file would be refused, so a
    # tool that names the files it changes is not offered (with or without the rules)
    def first(ops: list[Any]) -> AppStepRequest:
        (step,) = [app_request(op) for op in ops if isinstance(op, Dispatch) and op.agent == "app-documents"]
        return step
    for rules in ("small-local", "none"):
        step = first(assigned(rules=rules)[0])
        assert step.writable == () and step.offered == ("read_table",)
    step = first(assigned(interactive=True)[0])  # the person may approve one: every tool
    assert step.writable is None and step.offered == ()
    # the writer, handed the table, may change budget.xlsx: its tools are all offered
    _, s = assigned()
    _, s = STRATEGY.handle_response("app-documents", proposes("CONTINUE", READ), s)
    _, s = STRATEGY.handle_response("app-documents", executed(ran(READ, TABLE)), s)
    ops, _ = STRATEGY.handle_response("app-documents", proposes("FINISH", result={"ref": "1.read_table"}), s)
    (writer,) = [app_request(op) for op in ops if isinstance(op, Dispatch) and op.agent == "app-spreadsheets"]
    assert writer.writable == ("budget.xlsx",) and writer.offered == ()


def test_of_a_step_asked_about_as_a_whole_only_the_calls_that_needed_approval_are_withheld() -> None:
    # the agent asks about a rewrite of cells (it loses what they held) and a chart that only adds: batch mode
    # refuses the step, and only the rewrite's tool is withheld; the chart is offered and may run alone
    s = read_done(rules="small-local")
    rewrite = facts_of("write_rows", {"path": "budget.xlsx", "rows": TABLE}, change="edit")
    (step,), s = STRATEGY.handle_response("app-spreadsheets", proposes("CONFIRM", rewrite, CHART), s)
    record = run_of(s).subtasks["2"]
    assert record.stuck == ("write_rows",) and record.declined == ("write_rows",)
    assert "It was refused" in app_request(step).note and "write_rows" not in app_request(step).offered
    (execute,), s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", CHART), s)
    assert app_request(execute).kind is AppStepKind.EXECUTE


def test_a_subtask_that_stops_progressing_is_judged_with_the_data_handed_to_it() -> None:
    plan = [SEED[0], sub("2", "spreadsheets", "1", writes=["budget.xlsx"], tools=["write_rows"])]
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=plan),
                                    started(rules="small-local", max_idle_steps=2))
    _, s = STRATEGY.handle_response("app-documents", proposes("CONTINUE", READ), s)
    _, s = STRATEGY.handle_response("app-documents", executed(ran(READ, TABLE)), s)
    _, s = STRATEGY.handle_response("app-documents", proposes("FINISH", result={"ref": "1.read_table"}), s)
    # it writes something that holds none of the table it was handed, then makes no more progress
    made_up = facts_of("write_rows", {"path": "budget.xlsx", "rows": [["report.docx"]]})
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", made_up), s)
    _, s = STRATEGY.handle_response("app-spreadsheets", executed(ran(made_up)), s)
    for _ in range(2):
        _, s = STRATEGY.handle_response("app-spreadsheets", proposes(
            "CONTINUE", CallFacts(function="explode", known=False)), s)
    # its change was made, but of nothing it had: no FINISH for it
    assert run_of(s).subtasks["2"].state is not SubtaskState.FINISH


def test_a_question_asked_again_is_no_progress_and_ends_the_subtask_at_the_idle_limit() -> None:
    _, s = STRATEGY.handle_ask(REQUEST, {}, "t1", init(observer=True, interactive=True))
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=SEED), s)
    ops, s = STRATEGY.handle_response("app-documents", proposes("PENDING", questions=["Which table?"]), s)
    (question,) = [op.event for op in ops if isinstance(op, Forward) and isinstance(op.event, Question)]
    _, s = STRATEGY.handle_notify(Answer(question.id, ("the first",)), s)
    for _ in range(2):
        ops, s = STRATEGY.handle_response("app-documents", proposes("PENDING", questions=["Which table?"]), s)
        (again,) = dispatches(ops)
        assert "Your question was answered already ('Which table?': 'the first')" in app_request(again).note
    ops, s = STRATEGY.handle_response("app-documents", proposes("PENDING", questions=["Which table?"]), s)
    reason = run_of(s).subtasks["1"].reason
    assert reason is not None and "made no progress: 3 steps in a row" in reason.detail


def test_independent_subtasks_are_dispatched_in_the_same_batch() -> None:
    subtasks = [sub("a", "documents", reads=["report.docx"], tools=["read_table"]),
                sub("b", "spreadsheets", reads=["budget.xlsx"], tools=["read_sheet"])]
    ops, _ = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=subtasks), started())
    assert [d.agent for d in dispatches(ops)] == ["app-documents", "app-spreadsheets"]


def test_one_subtask_at_a_time_per_app_agent_the_agent_reused_and_the_longest_chain_first() -> None:
    subtasks = [sub("short", "documents", reads=["report.docx"], tools=["read_table"]),
                sub("long", "documents", reads=["report.docx"], tools=["read_table"]),
                sub("after", "spreadsheets", "long", writes=["budget.xlsx"], tools=["write_rows"])]
    ops, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=subtasks), started())
    assert [type(op).__name__ for op in ops] == ["Start", "Dispatch"] and app_request(ops[1]).subtask_id == "long"
    ops, s = STRATEGY.handle_response("app-documents", proposes("FINISH", result="read"), s)
    assert {app_request(d).subtask_id for d in dispatches(ops)} == {"short", "after"}
    assert not any(isinstance(op, Start) and op.name == "app-documents" for op in ops)  # the cached agent


def test_the_seed_one_subtask_form_is_asked_again_for_its_declarations() -> None:
    (retry,), _ = STRATEGY.handle_response("host", planner_says(
        "ASSIGN", **{"Current Sub-Task": "Extract the table from report.docx", "ControlText": "documents"}), started())
    assert "declares no tools" in host_request(retry).feedback


def test_the_offered_applications_rule() -> None:
    files = AppInfo("files", "the file system", (), (ToolInfo("copy_or_move", False),))
    wide = Catalog((*CATALOG.apps, files))
    for rules, offered in (("small-local", ("documents", "spreadsheets")), ("none", ())):
        s, _ = STRATEGY.init({"planner": SPEC, "app_agents": {"documents": SPEC, "spreadsheets": SPEC, "files": SPEC},
                              "catalog": wide, "config": HostConfig(rules=rules)})
        (ask,), s = STRATEGY.handle_ask(REQUEST, {}, "t1", s)
        assert host_request(ask).applications == offered


def test_an_invalid_plan_is_re_asked_with_sampling_then_fails() -> None:
    bad = [sub("1", "documents", reads=["invented.docx"], tools=["read_table"])]
    ops, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=bad), started(max_plan_retries=1))
    (retry,) = ops
    assert retry.prompt.temperature == 0.7  # type: ignore[union-attr]
    feedback = host_request(retry).feedback
    assert "reads invented.docx, which is not in the workspace" in feedback and "report.docx" in feedback
    ops, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=bad), s)
    (fail,) = ops
    assert isinstance(fail, ReplyError) and fail.reason.kind is ReasonKind.PLAN_INVALID


def test_invalid_planner_output_is_repaired_then_errors() -> None:
    bad = Response(HostStepReport(invalid="Status: field required", raw="hello").model_dump_json())
    ops, s = STRATEGY.handle_response("host", bad, started(max_repairs=1))
    assert "Status: field required" in host_request(ops[0]).feedback and "hello" in host_request(ops[0]).feedback
    ops, s = STRATEGY.handle_response("host", bad, s)
    (error,) = ops
    assert isinstance(error, ReplyError) and error.reason.kind is ReasonKind.INVALID_OUTPUT
    assert s.last is not None and s.last["status"] == "ERROR"


def test_the_example_rule_keeps_the_worked_examples_words_from_the_person() -> None:
    s = without_verified_finish(read_done(rules="small-local"))
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", WRITE, CHART), s)
    _, s = STRATEGY.handle_response("app-spreadsheets", executed(ran(WRITE), ran(CHART)), s)
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="charted"), s)
    copied = "prices.xlsx holds the price table of offer.docx"
    (reply,), _ = STRATEGY.handle_response("host", planner_says("FINISH", Comment=copied), s)
    assert isinstance(reply, Reply) and "offer.docx" not in reply.response.text and "subtask 2" in reply.response.text
    plan = [sub("1", "documents", reads=["report.docx"], tools=["read_table"], description="Read offer.docx")]
    (retry,), s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=plan), started(rules="small-local"))
    assert "from the example in your instructions" in host_request(retry).feedback
    assert s.blackboard.trajectories[-1].rules == ("no-example-copy",)
    # a workspace with a file of the example's name: naming it is about this request
    own = [sub("1", "documents", reads=["offer.docx"], tools=["read_table"], description="Read offer.docx")]
    ops, s = STRATEGY.handle_response("host", planner_says("ASSIGN", files=("offer.docx",), Subtasks=own),
                                      started("Read the table of the offer", rules="small-local"))
    assert [d.agent for d in dispatches(ops)] == ["app-documents"]
    assert HOST_FINISH_EXAMPLE["Status"] == "FINISH"
    # a FAIL whose reason is the example's words ends with what the subtasks say instead
    (end,), _ = STRATEGY.handle_response("host", planner_says("FAIL", Comment=HOST_FINISH_EXAMPLE["Comment"]),
                                         started(rules="small-local"))
    assert isinstance(end, ReplyError) and end.reason.detail.endswith("the HostAgent gave up without saying why")
    # a plan whose comment is the example's is kept, its comment is not: it would be the run's last word
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=SEED, Comment=HOST_FINISH_EXAMPLE[
        "Comment"]), started(rules="small-local"))
    assert run_of(s).comment == "" and run_of(s).subtasks


def test_a_finish_that_left_a_named_file_unmade_is_questioned_then_fails() -> None:
    s = started("Sum budget.xlsx into total.txt")
    (again,), s = STRATEGY.handle_response("host", planner_says("FINISH", Comment="done"), s)
    assert "the request names total.txt, which no subtask made" in host_request(again).note
    (end,), s = STRATEGY.handle_response("host", planner_says("FINISH", Comment="done"), s)
    assert isinstance(end, ReplyError) and "total.txt, which was never made" in end.reason.detail


def test_a_finish_after_planning_work_that_never_ran_is_questioned_then_fails() -> None:
    s = started()
    bad = [sub("1", "spreadsheets", writes=["budget.xlsx"], tools=["no_such_tool"])]
    (retry,), s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=bad), s)
    assert "Your plan failed these checks" in host_request(retry).feedback
    # a plan that cannot pass may lack what only the person knows: asking is offered as the way on
    assert "answer PENDING with your question instead" in host_request(retry).feedback
    # nothing of the planned work is done, so the grammar offers no FINISH; a model decoded without it still
    # answers one, and the host questions it, then ends the run FAIL
    assert not host_request(retry).may_finish and host_request(dispatches(STRATEGY.handle_ask(
        REQUEST, {}, "t1", init())[0])[0]).may_finish
    (again,), s = STRATEGY.handle_response("host", planner_says("FINISH", Comment="done"), s)
    assert not host_request(again).may_finish
    assert "You answered FINISH, but no subtask has done any of it" in host_request(again).note
    (end,), s = STRATEGY.handle_response("host", planner_says("FINISH", Comment="done"), s)
    assert isinstance(end, ReplyError) and "planned work and answered FINISH before any subtask did it" in \
        end.reason.detail
    # a FINISH straight away answers from what the planner sees: nothing was planned, nothing is missing
    (answer,), _ = STRATEGY.handle_response("host", planner_says("FINISH", Comment="report.docx is there"),
                                            started("Is there a report in the workspace?"))
    assert not isinstance(answer, ReplyError)
    # one after asking to confirm an action it never planned (questioned by its rule) is no answer either
    request = "Fill in the visitor form and confirm it"
    (asked,), s = STRATEGY.handle_response("host", planner_says("CONFIRM", Comment="ready to confirm"),
                                           started(request, rules="small-local"))
    assert run_of(s).confirm_checked and host_request(asked).note
    (again,), s = STRATEGY.handle_response("host", planner_says("FINISH", Comment="the person answered"), s)
    assert "You answered FINISH, but no subtask has done any of it" in host_request(again).note
    (end,), s = STRATEGY.handle_response("host", planner_says("FINISH", Comment="done"), s)
    assert isinstance(end, ReplyError) and "before any subtask did it" in end.reason.detail


def test_a_planner_confirm_with_nothing_to_run_is_not_offered_again() -> None:
    # --yes approves what the plan declares; a CONFIRM with no command holds nothing, and asked again it would
    # be approved again, forever
    ops, s = STRATEGY.handle_response("host", planner_says("CONFIRM", Comment="the request is complete"),
                                      started(rules="none", auto_approve=True))
    (again,) = dispatches(ops)
    assert run_of(s).confirmed_nothing and not host_request(again).may_confirm
    assert "The person approved" in host_request(again).note
    # one that names a command holds it: approved, CONFIRM stays offered
    ops, s = STRATEGY.handle_response("host", planner_says("CONFIRM", Comment="launch", Bash="spreadsheets"),
                                      started(rules="none", auto_approve=True))
    assert not run_of(s).confirmed_nothing


def test_a_planner_whose_question_nobody_answered_is_not_offered_another() -> None:
    # batch mode: the default answer came from nobody, and a question asked again would get it again
    (again,), s = STRATEGY.handle_response("host", planner_says("PENDING", Questions=["Which workbook?"]), started())
    assert run_of(s).answers[0].answer == "not available" and not host_request(again).may_ask
    assert host_request(again).may_finish  # nothing was planned: a FINISH may answer from the files' names
    # a person who answers may be asked again
    ops, s = STRATEGY.handle_ask(REQUEST, {}, "t1", init(observer=True, interactive=True))
    assert host_request(dispatches(ops)[0]).may_ask
    ops, s = STRATEGY.handle_response("host", planner_says("PENDING", Questions=["Which workbook?"]), s)
    (question,) = [op.event for op in ops if isinstance(op, Forward) and isinstance(op.event, Question)]
    ops, s = STRATEGY.handle_notify(Answer(question.id, ("budget.xlsx",)), s)
    assert host_request(dispatches(ops)[0]).may_ask


def test_a_fail_right_after_a_tools_error_is_questioned_once_by_its_rule() -> None:
    s = read_done(rules="small-local")
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", WRITE), s)
    _, s = STRATEGY.handle_response("app-spreadsheets", executed(ran(WRITE, "no sheet 'Q9'", ok=False)), s)
    (again,), s = STRATEGY.handle_response("app-spreadsheets", proposes("FAIL", comment="cannot"), s)
    assert "You answered FAIL after write_rows failed: no sheet 'Q9'" in app_request(again).note
    ops, s = STRATEGY.handle_response("app-spreadsheets", proposes("FAIL", comment="cannot"), s)
    assert any(d.agent == "host" for d in dispatches(ops))  # the subtask failed: the planner re-plans


def test_a_data_collection_failure_is_an_error_naming_the_phase() -> None:
    _, s = assigned()
    broken = AppStepReport(failure=StepFailure(phase=Phase.DATA_COLLECTION, detail="launch failed"))
    (error,), _ = STRATEGY.handle_response("app-documents", Response(broken.model_dump_json()), s)
    assert isinstance(error, ReplyError) and error.reason.kind is ReasonKind.STAGE_FAILED
    assert "DATA_COLLECTION failed: launch failed" in error.reason.detail


def test_questions_reach_the_observer_and_answers_go_back_to_the_asker() -> None:
    _, s = STRATEGY.handle_ask(REQUEST, {}, "t1", init(observer=True, interactive=True))
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=SEED), s)
    ops, s = STRATEGY.handle_response("app-documents", proposes("PENDING", questions=["Which table?"]), s)
    (question,) = [op.event for op in ops if isinstance(op, Forward) and isinstance(op.event, Question)]
    assert question.questions == ("Which table?",) and question.subtask == "1"
    assert STRATEGY.handle_status(s)["host"]["state"] == "PENDING"
    ops, s = STRATEGY.handle_notify(Answer(question.id, ("the first",)), s)
    (step,) = dispatches(ops)
    assert step.agent == "app-documents" and app_request(step).answers[0].answer == "the first"
    assert isinstance(ops[-1], Forward) and isinstance(ops[-1].event, Progress)


def test_a_held_change_runs_only_after_the_yes() -> None:
    _, s = STRATEGY.handle_ask(REQUEST, {}, "t1", init(observer=True, interactive=True))
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=SEED), s)
    other = facts_of("add_table", {"path": "minutes.docx"})
    ops, s = STRATEGY.handle_response("app-documents", proposes("CONTINUE", READ, other), s)
    (request,) = [op.event for op in ops if isinstance(op, Forward) and isinstance(op.event, ApprovalRequest)]
    assert not dispatches(ops) and "minutes.docx, which its subtask does not declare it writes" in request.reasons[0]
    assert [a.function for a in request.actions] == ["read_table", "add_table"]
    ops, s = STRATEGY.handle_notify(Approval(request.id, True), s)
    (execute,) = dispatches(ops)
    assert app_request(execute).kind is AppStepKind.EXECUTE and len(app_request(execute).calls) == 2


def test_batch_mode_answers_questions_and_refuses_holds_once_then_for_good() -> None:
    _, s = assigned()
    (step,), s = STRATEGY.handle_response("app-documents", proposes("PENDING", questions=["Which?"]), s)
    # answered with the default answer (recorded), which the agent is told is none rather than shown
    assert run_of(s).subtasks["1"].answers[0].answer == "not available"
    assert app_request(step).answers == () and app_request(step).note.startswith("Nobody can answer in batch mode")
    other = facts_of("add_table", {"path": "minutes.docx"})
    (step,), s = STRATEGY.handle_response("app-documents", proposes("CONTINUE", other), s)
    note = app_request(step).note
    assert "It was refused: it changes minutes.docx, which its subtask does not declare" in note
    assert "Change only what your subtask writes" in note
    ops, s = STRATEGY.handle_response("app-documents", proposes("CONTINUE", other), s)
    assert any(d.agent == "host" for d in dispatches(ops))  # refused twice: the subtask failed


def test_a_change_refused_again_after_the_declared_work_is_done_ends_the_subtask_finish_saying_so() -> None:
    """Batch mode refuses a held change twice; where the subtask's changes already did all it declares, it ends
    FINISH with the refused change named in its result, else FAIL."""
    elsewhere = facts_of("add_chart", {"path": "salaries.xlsx", "kind": "bar"})
    s = read_done()
    for calls in ((WRITE,), (CHART,)):
        _, s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", *calls), s)
        _, s = STRATEGY.handle_response("app-spreadsheets", executed(*(ran(c) for c in calls)), s)
    for _ in range(2):
        _, s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", elsewhere), s)
    record = run_of(s).subtasks["2"]
    assert record.state.value == "FINISH" and record.reason is None
    assert "refused with nobody to approve it: " in str(record.result) and "salaries.xlsx" in str(record.result)
    # the chart it declares is not made: the second refusal is the end of it, a failure
    s = read_done()
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", WRITE), s)
    _, s = STRATEGY.handle_response("app-spreadsheets", executed(ran(WRITE)), s)
    rows_elsewhere = facts_of("write_rows", {"path": "salaries.xlsx", "rows": TABLE})
    for _ in range(2):
        _, s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", rows_elsewhere), s)
    record = run_of(s).subtasks["2"]
    assert record.state.value == "FAIL" and record.reason is not None and "refused" in record.reason.detail


def test_a_declared_tool_whose_change_was_refused_is_not_demanded_of_the_finish() -> None:
    s = read_done()
    elsewhere = facts_of("add_chart", {"path": "salaries.xlsx", "kind": "bar"})
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", elsewhere), s)  # refused: undeclared
    assert run_of(s).subtasks["2"].declined == ("add_chart",)
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", WRITE), s)
    _, s = STRATEGY.handle_response("app-spreadsheets", executed(ran(WRITE)), s)
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="written"), s)
    assert run_of(s).subtasks["2"].state.value == "FINISH"


def test_yes_grants_a_destructive_change_the_plan_declared_but_not_one_it_did_not() -> None:
    s = read_done(auto_approve=True)
    overwrite = facts_of("write_rows", {"path": "budget.xlsx", "rows": TABLE}, change="edit")
    (execute,), s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", overwrite), s)
    assert app_request(execute).kind is AppStepKind.EXECUTE
    s = read_done(auto_approve=True)
    elsewhere = facts_of("write_rows", {"path": "salaries.xlsx", "rows": TABLE})
    (step,), s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", elsewhere), s)
    assert app_request(step).kind is AppStepKind.PROPOSE and "refused" in app_request(step).note
    last = [t for t in s.blackboard.trajectories if t.confirmation][-1]
    assert "--yes grants no change the plan did not declare" in last.confirmation  # type: ignore[operator]
    # nor a declared one that leaves less than half of a text in place: approved in advance is an edit
    set_cell = ToolInfo("set_cell", False, json.dumps({"type": "object", "properties": {
        "path": {"type": "string", EDITED: True}, "value": {"type": "string", "contentMediaType": "text/plain"}}}))
    sheets = CATALOG.get("spreadsheets")
    assert sheets is not None
    editing = Catalog((CATALOG.apps[0], replace(sheets, tools=(*sheets.tools, set_cell))))
    s = read_done(auto_approve=True, catalog=editing)
    rewrite = CallFacts(function="write_rows", arguments={"path": "budget.xlsx", "rows": TABLE}, read_only=False,
                        effects=(EffectView(path="budget.xlsx", change="replace", wipes=True),))
    (step,), s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", rewrite), s)
    assert app_request(step).kind is AppStepKind.PROPOSE and "less than half of the lines" in app_request(step).note
    # the refusal names the tools of its application that change a part of that file and keep the rest
    assert "To change a part of budget.xlsx and keep the rest: set_cell." in app_request(step).note
    # nor one that deletes a line with nothing in its place: the refusal names the line
    s = read_done(auto_approve=True, catalog=editing)
    lossy = CallFacts(function="write_rows", arguments={"path": "budget.xlsx", "rows": TABLE}, read_only=False,
                      effects=(EffectView(path="budget.xlsx", change="replace", drops=("Notes,kept",)),))
    (step,), s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", lossy), s)
    assert app_request(step).kind is AppStepKind.PROPOSE
    assert "it would delete 'Notes,kept' from budget.xlsx" in app_request(step).note
    assert "To change a part of budget.xlsx and keep the rest: set_cell." in app_request(step).note


def test_yes_grants_no_destructive_change_of_a_path_the_request_does_not_name() -> None:
    # a plan may write a file the request does not name when a later subtask reads it (the workspace's file
    # names reach the planner): changing what the person had there is not what --yes approved in advance
    plan = [sub("1", "spreadsheets", writes=["salaries.xlsx"], tools=["write_rows"]),
            sub("2", "spreadsheets", "1", reads=["salaries.xlsx"], writes=["budget.xlsx"], tools=["write_rows"])]
    files = (*FILES, "salaries.xlsx")
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", files, Subtasks=plan),
                                    started("Put the totals into budget.xlsx", auto_approve=True))
    overwrite = facts_of("write_rows", {"path": "salaries.xlsx", "rows": TABLE}, change="edit")
    (step,), s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", overwrite), s)
    assert app_request(step).kind is AppStepKind.PROPOSE
    assert "the request does not name salaries.xlsx" in app_request(step).note
    last = [t for t in s.blackboard.trajectories if t.confirmation][-1]
    assert "nor a destructive change of a path the request does not name" in last.confirmation  # type: ignore[operator]
    # adding to it changes nothing the person had: it runs
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", files, Subtasks=plan),
                                    started("Put the totals into budget.xlsx", auto_approve=True))
    added = facts_of("write_rows", {"path": "salaries.xlsx", "rows": TABLE})
    (step,), s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", added), s)
    assert app_request(step).kind is AppStepKind.EXECUTE


def test_after_a_call_written_out_as_data_the_next_answers_give_data_by_reference_until_a_change() -> None:
    s = read_done(rules="small-local")
    titled = facts_of("add_chart", {"path": "budget.xlsx", "kind": "bar", "title": "read_table(report.docx)"})
    (step,), s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", titled), s)
    assert "written out, not data" in app_request(step).note and app_request(step).by_ref
    assert run_of(s).subtasks["2"].by_ref
    (execute,), s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", WRITE), s)
    assert app_request(execute).kind is AppStepKind.EXECUTE
    (step,), s = STRATEGY.handle_response("app-spreadsheets", executed(ran(WRITE)), s)
    assert not app_request(step).by_ref and not run_of(s).subtasks["2"].by_ref
    # which the trajectory records as the rule's
    fired = [t.rules for t in s.blackboard.trajectories if t.agent == "app-spreadsheets"]
    assert any("ref-after-call-as-data" in r for r in fired)
    # without the rule, nothing is narrowed
    s = read_done(rules="none")
    (step,), s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", titled), s)
    assert not app_request(step).by_ref
    # so is a change refused as its instructions written out (instruction-is-not-data)
    s = read_done(rules="small-local")
    told = run_of(s).request
    said = facts_of("add_chart", {"path": "budget.xlsx", "kind": "bar", "title": told})
    (step,), s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", said), s)
    assert "holds the words of your instructions" in app_request(step).note and app_request(step).by_ref


def test_a_fail_whose_changes_show_all_the_declared_work_is_questioned_once() -> None:
    s = read_done(rules="small-local")
    for fact in (WRITE, CHART):
        _, s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", fact), s)
        _, s = STRATEGY.handle_response("app-spreadsheets", executed(ran(fact)), s)
    (asked,), s = STRATEGY.handle_response("app-spreadsheets", proposes("FAIL", comment="cannot"), s)
    assert "You answered FAIL, but your changes show the work your subtask declares: they changed budget.xlsx" \
        in app_request(asked).note
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("FAIL", comment="cannot"), s)
    assert run_of(s).subtasks["2"].state is SubtaskState.FAIL
    # work left (the chart never drawn): a FAIL is taken at once
    s = read_done(rules="small-local")
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", WRITE), s)
    _, s = STRATEGY.handle_response("app-spreadsheets", executed(ran(WRITE)), s)
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("FAIL", comment="cannot"), s)
    assert run_of(s).subtasks["2"].state is SubtaskState.FAIL


def test_a_refusal_says_how_the_application_does_that_work_without_approval() -> None:
    s = read_done()
    sort = facts_of("sort_rows", {"path": "budget.xlsx"}, change="edit")
    (step,), _ = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", sort), s)
    assert "Without approval: sort_rows: give target_sheet" in app_request(step).note


def test_a_write_a_replan_adds_after_seeing_data_is_held_as_named_by_data() -> None:
    s = read_done()
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("FAIL", comment="no"), s)
    # a write the request never names is refused in any plan; one a later subtask reads is let through, but
    # added after the planner saw data, changing it waits for the person
    assert "writes public.xlsx, which the request does not name" in host_request(dispatches(STRATEGY.handle_response(
        "host", planner_says("ASSIGN", Subtasks=[sub("3", "spreadsheets", writes=["public.xlsx"],
                                                      tools=["write_rows"])]), s)[0])[0]).feedback
    replan = [sub("3", "spreadsheets", writes=["public.xlsx"], tools=["write_rows"]),
              sub("4", "spreadsheets", "3", reads=["public.xlsx"], writes=["budget.xlsx"], tools=["write_rows"])]
    ops, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=replan), s)
    (step,) = dispatches(ops)
    assert s.run is not None and s.run.subtasks["3"].untrusted == ("public.xlsx",)
    # a read only data named is no source a rename may take (capability)
    assert s.run.subtasks["4"].untrusted == ("public.xlsx",)
    write = facts_of("write_rows", {"path": "public.xlsx", "rows": TABLE})
    (after,), s = STRATEGY.handle_response(step.agent, proposes("CONTINUE", write), s)
    assert "named only by what a file or a tool's result says" in app_request(after).note


def test_limits_from_usage_and_from_the_shells_clock() -> None:
    s = started(max_tokens=100)
    (end,), s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=SEED, usage=Usage(90, 20)), s)
    assert isinstance(end, ReplyError) and end.reason.kind is ReasonKind.BUDGET_EXCEEDED
    s = started(max_wall_time=10)
    assert STRATEGY.handle_notify(Elapsed(5.0), s) == ([], s)
    (end,), _ = STRATEGY.handle_notify(Elapsed(11.0), s)
    assert isinstance(end, ReplyError) and end.reason.kind is ReasonKind.LIMIT_REACHED


def test_late_answers_after_the_end_are_ignored_and_queued_requests_start() -> None:
    s = started()
    ops, s = STRATEGY.handle_tell("second request", {}, "t2", s)
    assert ops == [] and len(s.queue) == 1
    ops, s = STRATEGY.handle_notify(Cancel("stop"), s)
    assert isinstance(ops[0], ReplyError) and ops[0].token == "t1"
    assert host_request(dispatches(ops)[0]).request == "second request"
    assert STRATEGY.handle_response("app-documents", proposes("FINISH"), s)[0] == []


def test_failures_of_turns_agents_and_dispatches() -> None:
    _, s = assigned()
    ops, s2 = STRATEGY.handle_error("app-documents", Reason(ReasonKind.TIMEOUT, "watchdog"), s)
    assert any(d.agent == "host" for d in dispatches(ops))
    assert s2.run is not None and s2.run.subtasks["1"].state.value == "FAIL"
    (error,), _ = STRATEGY.handle_dispatch_rejected("app-documents", "t1", Reason(ReasonKind.OVERLOADED, "full"), s)
    assert isinstance(error, ReplyError) and error.reason.kind is ReasonKind.DISPATCH_REJECTED
    (error,), _ = STRATEGY.handle_error("host", Reason(ReasonKind.BACKEND_ERROR, "down"), started())
    assert isinstance(error, ReplyError) and "the HostAgent's step failed: down" in error.reason.detail


def test_callbacks_are_pure_same_input_same_output_and_the_input_state_is_untouched() -> None:
    s = read_done(rules="small-local")
    frozen = repr(s)
    response = proposes("CONTINUE", WRITE, CHART)
    first = STRATEGY.handle_response("app-spreadsheets", response, s)
    second = STRATEGY.handle_response("app-spreadsheets", response, s)
    assert first == second and repr(s) == frozen
    finished = [op for op in first[0] if isinstance(op, Forward) and isinstance(op.event, RunFinished)]
    assert finished == []


def test_the_hosts_own_fixes_of_a_plan_are_in_the_trajectory() -> None:
    misplaced = [sub("1", "documents", reads=["budget.xlsx"], tools=["read_table"], hands_on="table"),
                 sub("2", "spreadsheets", "1", writes=["budget.xlsx"], tools=["add_chart"])]
    ops, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=misplaced),
                                      started("Chart the table of budget.xlsx"))
    assert [d.agent for d in dispatches(ops)] == ["app-spreadsheets"]
    amended = s.blackboard.trajectories[-1]
    assert amended.action == "plan amended by the host"
    assert amended.outcome == ("subtask '1' runs on spreadsheets, which opens budget.xlsx (documents does not); "
                               "subtask '1' reads for '2' alone on spreadsheets: '2' does both")
    assert list(run_of(s).subtasks) == ["2"] and run_of(s).subtasks["2"].spec.reads == ("budget.xlsx",)


def test_steps_without_progress_end_a_subtask_as_done_only_when_all_it_declared_is_done() -> None:
    s = read_done()
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", WRITE), s)
    _, s = STRATEGY.handle_response("app-spreadsheets", executed(ran(WRITE)), s)
    for attempt in range(4):  # the chart its subtask declares fails every time: new to it once, then idle
        chart = CHART.model_copy(update={"arguments": {**CHART.arguments, "title": f"try {attempt}"}})
        _, s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", chart), s)
        _, s = STRATEGY.handle_response("app-spreadsheets", executed(ran(chart, ok=False)), s)
    record = run_of(s).subtasks["2"]
    assert record.state.value == "FAIL" and record.reason is not None
    assert "made no progress: 3 steps in a row" in record.reason.detail
    assert "add_chart failed and never succeeded" in record.reason.detail


def test_a_step_that_meets_a_new_error_is_not_idle_and_one_that_meets_a_known_error_is() -> None:
    # each error says what to change: an agent meeting new ones is being steered by the tool
    s = read_done()
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", WRITE), s)
    _, s = STRATEGY.handle_response("app-spreadsheets", executed(ran(WRITE)), s)
    errors = ["no column Sales: the columns are Region, Revenue", "Revenue is text in row 3", "the range is empty"]
    for attempt, error in enumerate(errors):
        chart = CHART.model_copy(update={"arguments": {**CHART.arguments, "title": f"try {attempt}"}})
        _, s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", chart), s)
        _, s = STRATEGY.handle_response("app-spreadsheets", executed(ran(chart, error, ok=False)), s)
    record = run_of(s).subtasks["2"]
    assert record.state.value == "CONTINUE" and record.idle == 0 and errors[-1] in record.note
    for attempt in range(3):  # the same error again, whatever the arguments: idle steps, then the end
        chart = CHART.model_copy(update={"arguments": {**CHART.arguments, "title": f"again {attempt}"}})
        _, s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", chart), s)
        _, s = STRATEGY.handle_response("app-spreadsheets", executed(ran(chart, errors[1], ok=False)), s)
    record = run_of(s).subtasks["2"]
    assert record.state.value == "FAIL" and record.reason is not None
    assert "made no progress: 3 steps in a row" in record.reason.detail


def test_a_finish_questioned_for_a_declared_tool_that_still_lacks_it_fails() -> None:
    s = read_done()
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", WRITE), s)
    _, s = STRATEGY.handle_response("app-spreadsheets", executed(ran(WRITE)), s)
    (again,), s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="done"), s)
    assert "add_chart was not called" in app_request(again).note
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="done"), s)
    record = run_of(s).subtasks["2"]
    assert record.state.value == "FAIL" and record.reason is not None
    assert record.reason.detail.endswith("answered FINISH, but add_chart was not called")


def test_the_one_subtask_of_a_plan_is_given_the_persons_words() -> None:
    one = [sub("1", "spreadsheets", reads=["budget.xlsx"], writes=["budget.xlsx"], tools=["write_rows"])]
    request = "In budget.xlsx, add a sheet that lists the rows from the largest amount to the smallest"
    ops, _ = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=one), started(request))
    (step,) = dispatches(ops)
    assert app_request(step).description == request
    ops, _ = assigned()  # a subtask that only reads for another: its own description
    assert app_request(dispatches(ops)[0]).description == SEED[0]["description"]


def test_the_writer_of_several_subtasks_keeps_its_own_description() -> None:
    _, s = assigned()
    _, s = STRATEGY.handle_response("app-documents", proposes("CONTINUE", READ), s)
    _, s = STRATEGY.handle_response("app-documents", executed(ran(READ, TABLE)), s)
    ops, _ = STRATEGY.handle_response("app-documents", proposes("FINISH", result={"ref": "1.read_table"}), s)
    (writer,) = dispatches(ops)  # given the whole request as its own, it would set out to read report.docx again
    assert app_request(writer).description == SEED[1]["description"]
    assert app_request(writer).request == REQUEST


def test_a_finish_that_used_one_of_its_two_sources_is_asked_once_then_believed_unless_it_took_the_other_by_path(
) -> None:
    files = ("north.xlsx", "south.xlsx")
    merge = [sub("1", "spreadsheets", reads=list(files), writes=["all.xlsx"], tools=["write_rows"])]
    seen = tuple(ActionResult(function="read_sheet", arguments={"path": f}, ok=True, read_only=True,
                              content=[["Name"], [name]]) for f, name in zip(files, ("Ada", "Bea"), strict=True))

    def second_finish(arguments: dict[str, Any], **config: Any) -> SubtaskState:
        _, s = STRATEGY.handle_ask("Merge north.xlsx and south.xlsx into all.xlsx", {}, "t1", init(**config))
        _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", files=files, Subtasks=merge), s)
        write = facts_of("write_rows", {"path": "all.xlsx", **arguments}, change="create")
        _, s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", write, observed=seen), s)
        _, s = STRATEGY.handle_response("app-spreadsheets", executed(ran(write)), s)
        (asked,), s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="merged"), s)
        assert ("You answered FINISH, but nothing of south.xlsx, which your subtask reads, went into your changes"
                in app_request(asked).note)
        # the other source taken by its path, the one left out is work to do: with the rule, a declared tool that
        # changes files must be called (it takes that source), or the person asked
        forced = "source" in arguments and config.get("rules") == "small-local"
        assert (app_request(asked).must_act, app_request(asked).offered) == (
            (True, ("write_rows",)) if forced else (False, ()))
        _, s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="merged"), s)
        return run_of(s).subtasks["1"].state

    # data written by value: asked once, then believed (what it took from a source may not show as its values)
    assert second_finish({"rows": [["Name"], ["Ada"]]}) is SubtaskState.FINISH
    # the other source taken by its path, this one never: the merge is not done
    assert second_finish({"source": "north.xlsx"}) is SubtaskState.FAIL
    assert second_finish({"source": "north.xlsx"}, rules="small-local") is not SubtaskState.FINISH


def test_a_writer_made_only_of_handed_data_is_offered_the_tools_that_take_it_until_one_works() -> None:
    # moved to the application that opens its file, the writer keeps no tool of the other one
    plan = [SEED[0], sub("2", "documents", "1", writes=["budget.xlsx"], tools=["add_table"])]
    first, s = read_handed(plan, rules="small-local")
    (step,) = [app_request(op) for op in dispatches(first) if op.agent == "app-spreadsheets"]
    assert step.offered == ("write_rows",) and not step.must_act  # add_chart takes no table; FAIL stays open
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", WRITE), s)
    (after,), s = STRATEGY.handle_response("app-spreadsheets", executed(ran(WRITE)), s)
    assert "handed-data-first" in s.blackboard.trajectories[-1].rules
    assert app_request(after).offered == ()  # the data is in: every tool again
    # without the rule nothing is narrowed
    first, s = read_handed(plan)
    (step,) = [app_request(op) for op in dispatches(first) if op.agent == "app-spreadsheets"]
    assert step.offered == ()
    # a FINISH with its file unwritten is forced onto those tools too, not onto every tool that changes files
    _, s = read_handed(plan, rules="small-local")
    (forced,), s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="done"), s)
    assert app_request(forced).must_act and app_request(forced).offered == ("write_rows",)


def test_what_a_giver_said_of_columns_the_text_does_not_name_is_not_handed_on() -> None:
    # the text names the Cost column: the other columns' statistics are only numbers to take by mistake
    table = [["Trips"], ["Trip", "Cost"], [301, 486.4], [302, 712]]
    files = AppInfo("files", "the file system", (), (ToolInfo("write_file", False),))
    stats = ToolInfo("column_stats", True, computes=True)
    sheets = CATALOG.get("spreadsheets")
    catalog = Catalog((replace(sheets, tools=(*sheets.tools, stats)), files))
    plan = [sub("1", "spreadsheets", reads=["budget.xlsx"], tools=["read_sheet"], hands_on="table"),
            sub("2", "files", "1", writes=["sum.txt"], tools=["write_file"])]
    s, _ = STRATEGY.init({"planner": SPEC, "app_agents": {"spreadsheets": SPEC, "files": SPEC}, "catalog": catalog,
                          "config": HostConfig(rules="none")})
    _, s = STRATEGY.handle_ask("Add up the Cost column of budget.xlsx into sum.txt", {}, "t1", s)
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", files=("budget.xlsx",), Subtasks=plan), s)
    read = facts_of("read_sheet", {"path": "budget.xlsx"}, read_only=True)
    stats = facts_of("column_stats", {"path": "budget.xlsx"}, read_only=True)
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", read, stats), s)
    _, s = STRATEGY.handle_response("app-spreadsheets", executed(ran(read, {"rows": table}), ran(stats, {
        "columns": {"Trip": {"sum": 603}, "Cost": {"sum": 1198.4}}, "header_row": 2})), s)
    ops, _ = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result={"ref": "1.read_sheet.rows"}), s)
    given = {a.name: a.value for a in app_request(dispatches(ops)[-1]).artifacts}
    assert given["1.read_sheet.rows.sum.Cost"] == 1198.4 and given["1.column_stats.columns.Cost.sum"] == 1198.4
    assert given["1.column_stats.header_row"] == 2  # of no column: kept
    assert not [name for name in given if "Trip" in name.split(".")[1:]]


def test_a_writer_that_took_from_one_of_the_files_read_for_it_is_asked_about_the_others() -> None:
    docs = AppInfo("documents", "docs", (".docx",), (ToolInfo("read_document", True, PATH_ONLY),))
    files = AppInfo("files", "the file system", (), (ToolInfo("copy_or_move", False),))
    s, _ = STRATEGY.init({"planner": SPEC, "app_agents": {"documents": SPEC, "files": SPEC},
                          "catalog": Catalog((docs, files)), "config": HostConfig(rules="none")})
    _, s = STRATEGY.handle_ask("Copy the Word documents into old/", {}, "t1", s)
    plan = [sub("1", "documents", reads=["a.docx", "b.docx"], tools=["read_document"], hands_on="text"),
            sub("2", "files", "1", writes=["old"], tools=["copy_or_move"])]
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", files=("a.docx", "b.docx"), Subtasks=plan), s)
    reads = [facts_of("read_document", {"path": p}, read_only=True) for p in ("a.docx", "b.docx")]
    _, s = STRATEGY.handle_response("app-documents", proposes("CONTINUE", *reads), s)
    _, s = STRATEGY.handle_response("app-documents", executed(
        ran(reads[0], {"path": "a.docx", "text": "Dear Ann"}), ran(reads[1], {"path": "b.docx", "text": "Minutes"})), s)
    _, s = STRATEGY.handle_response("app-documents", proposes("FINISH", result="read"), s)
    one = facts_of("copy_or_move", {"source": "a.docx", "destination": "old"}, change="create")
    one = one.model_copy(update={"effects": (EffectView(path="old/a.docx", change="create"),)})
    _, s = STRATEGY.handle_response("app-files", proposes("CONTINUE", one), s)
    _, s = STRATEGY.handle_response("app-files", executed(ran(one)), s)
    (again,), s = STRATEGY.handle_response("app-files", proposes("FINISH", result="copied"), s)
    assert ("nothing of b.docx, which the subtasks yours depends on read for it, went into your changes, while "
            "another of those files did") in app_request(again).note
    # asked once: a FINISH that stands is believed (one of several may be what was asked)
    _, s = STRATEGY.handle_response("app-files", proposes("FINISH", result="copied"), s)
    assert s.blackboard.result_of("2").status == "FINISH"  # type: ignore[union-attr]


def test_a_total_computed_after_the_writers_last_change_is_asked_for_then_the_finish_fails() -> None:
    files = AppInfo("files", "the file system", (".txt", ".csv"), (
        ToolInfo("write_file", False, TEXT_WRITE), ToolInfo("column_totals", True, PATH_ONLY, computes=True)))
    s, _ = STRATEGY.init({"planner": SPEC, "app_agents": {"files": SPEC}, "catalog": Catalog((files,)),
                          "config": HostConfig(rules="none")})
    _, s = STRATEGY.handle_ask("Add up the hours in hours.csv into total.txt", {}, "t1", s)
    plan = [sub("1", "files", reads=["hours.csv"], writes=["total.txt"], tools=["write_file", "column_totals"])]
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", files=("hours.csv",), Subtasks=plan), s)
    label = facts_of("write_file", {"path": "total.txt", "content": "Total hours: "}, change="create")
    _, s = STRATEGY.handle_response("app-files", proposes("CONTINUE", label), s)
    _, s = STRATEGY.handle_response("app-files", executed(ran(label)), s)
    (asked,), s = STRATEGY.handle_response("app-files", proposes("FINISH", result="written"), s)
    assert "column_totals was not called" in app_request(asked).note
    # computed in the answer that says FINISH, its total was not seen yet: asked about, not failed
    totals = facts_of("column_totals", {"path": "hours.csv"}, read_only=True)
    _, s = STRATEGY.handle_response("app-files", proposes("FINISH", totals, result="written"), s)
    (again,), s = STRATEGY.handle_response("app-files", executed(ran(totals, {"columns": {"Hours": {
        "sum": 33.25, "mean": 6.65}}})), s)
    assert "column_totals ran after your last change, and nothing it computed is in your changes" in \
        app_request(again).note
    # standing by it, the FINISH fails: the file does not hold the total
    _, s = STRATEGY.handle_response("app-files", proposes("FINISH", result="written"), s)
    record = run_of(s).subtasks["1"]
    assert record.state is SubtaskState.FAIL and "column_totals ran after your last change" in record.reason.detail


def test_the_force_rule_makes_a_writer_that_took_nothing_of_its_source_call_a_computing_tool() -> None:
    files = AppInfo("files", "the file system", (".txt", ".csv"), (
        ToolInfo("write_file", False), ToolInfo("read_csv", True, PATH_ONLY),
        ToolInfo("column_totals", True, PATH_ONLY, computes=True)))
    plan = [sub("1", "files", reads=["hours.csv"], writes=["total.txt"], tools=["write_file"])]
    label = facts_of("write_file", {"path": "total.txt", "content": "Total hours: "}, change="create")
    read = facts_of("read_csv", {"path": "hours.csv"}, read_only=True)

    def finished(rules: str) -> AppStepRequest:
        s, _ = STRATEGY.init({"planner": SPEC, "app_agents": {"files": SPEC}, "catalog": Catalog((files,)),
                              "config": HostConfig(rules=rules)})
        _, s = STRATEGY.handle_ask("Add up the hours in hours.csv into total.txt", {}, "t1", s)
        _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", files=("hours.csv",), Subtasks=plan), s)
        for call, content in ((read, {"rows": [["Day", "Hours"], ["Mon", 7.5], ["Tue", 6.25]]}), (label, "ok")):
            _, s = STRATEGY.handle_response("app-files", proposes("CONTINUE", call), s)
            _, s = STRATEGY.handle_response("app-files", executed(ran(call, content)), s)
        (asked,), s = STRATEGY.handle_response("app-files", proposes("FINISH", result="written"), s)
        return app_request(asked)

    # its label holds nothing of the file's rows and no tool computed a figure of them: the application's
    # computing tool, which it never called, is named, and with the rules it is the one the next answer calls
    asked = finished("small-local")
    assert "column_totals computes figures of a file's data" in asked.note
    assert asked.must_act and asked.offered == ("column_totals",)
    told = finished("none")
    assert "column_totals computes figures of a file's data" in told.note and told.offered == ()


def test_a_reader_that_left_out_the_sheet_its_subtask_names_reads_it_and_hands_it_on_first() -> None:
    plan = [sub("1", "spreadsheets", reads=["budget.xlsx"], tools=["read_sheet"], hands_on="table",
                description="Read the Archive sheet of budget.xlsx"),
            sub("2", "documents", "1", writes=["report.docx"], tools=["add_table"])]
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=plan), started(
        "Put the table on the Archive sheet of budget.xlsx into report.docx"))

    def read(sheet: str | None, rows: list[list[Any]], others: list[str]) -> tuple[CallFacts, ActionResult]:
        call = facts_of("read_sheet", {"path": "budget.xlsx", **({"sheet": sheet} if sheet else {})}, read_only=True)
        return call, ran(call, {"path": "budget.xlsx", "sheet": sheet or "Active", "rows": rows,
                                "other_sheets": others})

    active, active_read = read(None, [["Customer"], ["Vega SA"]], ["Archive"])
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", active), s)
    _, s = STRATEGY.handle_response("app-spreadsheets", executed(active_read), s)
    (again,), s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="read"), s)
    assert ("your subtask names 'Archive' of budget.xlsx, which your reads left out while they read other parts "
            "of the file: read it by its name") in app_request(again).note
    archive, archive_read = read("Archive", [["Customer"], ["Kestrel Print"]], ["Active"])
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", archive), s)
    _, s = STRATEGY.handle_response("app-spreadsheets", executed(archive_read), s)
    ops, s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="read"), s)
    (writer,) = [app_request(d) for d in dispatches(ops) if d.agent == "app-documents"]
    tables = [a for a in writer.artifacts if a.kind == "table" and a.name.startswith("1.")]
    assert "Archive" in tables[0].source and len(tables) == 2


def test_the_forced_choice_for_a_file_left_unwritten_is_the_tools_that_write_what_it_read() -> None:
    """A listing read for a list in a file: the tools that take data, not a folder made by the file's name."""
    text = {"type": "object", "properties": {"path": {"type": "string"}, "content": {
        "type": "string", "contentMediaType": "text/plain"}}}
    files = AppInfo("files", "files", (), (ToolInfo("list_files", True), ToolInfo(
        "make_folder", False, json.dumps({"type": "object", "properties": {"path": {"type": "string"}}})),
        ToolInfo("write_file", False, json.dumps(text))))
    plan = [sub("1", "files", reads=["exports/a.csv"], writes=["purge_list.txt"], tools=["list_files"])]
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", files=("exports/", "exports/a.csv"),
                                                         Subtasks=plan),
                                    started("List the files of exports in purge_list.txt", rules="small-local",
                                            catalog=Catalog((files,))))
    listing = facts_of("list_files", {"path": "exports"}, read_only=True)
    _, s = STRATEGY.handle_response("app-files", proposes("CONTINUE", listing), s)
    _, s = STRATEGY.handle_response("app-files", executed(ran(listing, {"folder": "exports", "entries": [
        {"path": "exports/a.csv", "kind": "file"}]})), s)
    (again,), s = STRATEGY.handle_response("app-files", proposes("FINISH", result="listed"), s)
    assert "purge_list.txt is unchanged" in app_request(again).note
    assert app_request(again).must_act and app_request(again).offered == ("write_file",)


def test_the_forced_choice_for_a_new_file_leaves_out_the_tools_that_open_one_that_exists() -> None:
    path = {"type": "string"}
    editor = AppInfo("editor", "a text editor", (".txt",), (
        ToolInfo("set_text", False, names_its_writes=False),
        ToolInfo("open_file", False, json.dumps({"type": "object", "properties": {"path": {**path, EXISTING: True}}})),
        ToolInfo("save", False, json.dumps({"type": "object", "properties": {"path": path}}))))
    plan = [{**sub("1", "editor", writes=["notes.txt"], tools=["set_text"]),
             "description": "Type 'Call the plumber' into the editor"}]
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", files=("todo.txt",), Subtasks=plan),
                                    started("Type 'Call the plumber' into the editor and save it as notes.txt",
                                            rules="small-local", catalog=Catalog((editor,))))
    typed = facts_of("set_text", {"control": 9, "text": "Call the plumber"}, change=None)
    _, s = STRATEGY.handle_response("app-editor", proposes("CONTINUE", typed), s)
    _, s = STRATEGY.handle_response("app-editor", executed(ran(typed, {"control": 9})), s)
    (again,), s = STRATEGY.handle_response("app-editor", proposes("FINISH", result="typed"), s)
    assert "notes.txt is unchanged" in app_request(again).note
    assert app_request(again).must_act and app_request(again).offered == ("save",)


def test_a_folder_made_and_left_empty_is_filled_by_another_tool_than_the_one_that_made_it() -> None:
    files = AppInfo("files", "files", (), (
        ToolInfo("make_folder", False, json.dumps({"type": "object", "properties": {"path": {"type": "string"}}}),
                 new_only=True, empty_part=True),
        ToolInfo("copy_or_move", False, json.dumps({"type": "object", "properties": {
            "source": {"type": "string"}, "destination": {"type": "string"}}}))))
    plan = [sub("1", "files", reads=["a.docx"], writes=["old_versions"], tools=["make_folder", "copy_or_move"])]
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", files=("a.docx",), Subtasks=plan),
                                    started("Copy a.docx into a new folder old_versions", rules="small-local",
                                            catalog=Catalog((files,))))
    made = CallFacts(function="make_folder", arguments={"path": "old_versions"}, effects=(
        EffectView(path="old_versions", change="create", hollow=("",)),))
    _, s = STRATEGY.handle_response("app-files", proposes("CONTINUE", made), s)
    _, s = STRATEGY.handle_response("app-files", executed(ran(made, {"path": "old_versions"})), s)
    (again,), s = STRATEGY.handle_response("app-files", proposes("FINISH", result="made"), s)
    assert "old_versions holds nothing" in app_request(again).note
    assert app_request(again).must_act and app_request(again).offered == ("copy_or_move",)


def test_with_the_rule_a_copy_of_files_its_subtask_does_not_read_is_held_once() -> None:
    files = AppInfo("files", "files", (), (ToolInfo("copy_or_move", False, json.dumps({
        "type": "object", "required": ["mode", "source", "destination"], "properties": {
            "mode": {"type": "string", "enum": ["copy", "move"], SOURCE_GONE: "move"},
            "source": {"type": "string"}, "destination": {"type": "string"}, "pattern": {"type": "string"}}})),))
    workspace = ("jan.csv", "feb.csv", "notes.txt")

    def first(rules: frozenset[str], copy: CallFacts) -> tuple[Any, HostState]:
        s = replace(started("Copy every CSV file into archive", catalog=Catalog((files,))), rules=rules)
        _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", files=workspace, Subtasks=[
            sub("1", "files", reads=["*.csv"], writes=["archive"], tools=["copy_or_move"])]), s)
        return STRATEGY.handle_response("app-files", proposes("CONTINUE", copy), s)

    held = frozenset({"sources-as-declared"})
    def copy(names: tuple[str, ...], **arguments: str) -> CallFacts:
        return CallFacts(function="copy_or_move", arguments={"mode": "copy", "destination": "archive", **arguments},
                         effects=tuple(EffectView(path=f"archive/{n}", change="create") for n in names))

    every = copy(workspace, source=".")
    (again,), s = first(held, every)
    assert app_request(again).kind is AppStepKind.PROPOSE
    skipped = s.blackboard.trajectories[-1]
    assert "not run: it takes notes.txt, which your subtask does not read (it reads *.csv)" in skipped.outcome
    assert skipped.rules == ("sources-as-declared",)
    # proposed again, it runs; without the rule it runs at once; a source its reads cover is never held
    only_csv = copy(workspace[:2], source=".", pattern="*.csv")
    for (run,), _ in (STRATEGY.handle_response("app-files", proposes("CONTINUE", every), s),
                      first(frozenset(), every), first(held, only_csv)):
        assert app_request(run).kind is AppStepKind.EXECUTE


def test_a_fail_before_any_declared_change_ran_is_questioned_once() -> None:
    s = read_done(rules="small-local")  # subtask 2 declares write_rows and add_chart
    (again,), s = STRATEGY.handle_response("app-spreadsheets", proposes("FAIL", comment="cannot be done"), s)
    assert app_request(again).note == ("You answered FAIL, but write_rows, add_chart, which your subtask declares "
                                       "for its work, never ran. Call them now; answer FAIL only if a call says the "
                                       "work cannot be done.")
    assert "question-fail-untried" in s.blackboard.trajectories[-1].rules
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("FAIL", comment="cannot be done"), s)
    assert run_of(s).subtasks["2"].state is SubtaskState.FAIL
    # without the rule the FAIL stands at once
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("FAIL", comment="cannot be done"), read_done())
    assert run_of(s).subtasks["2"].state is SubtaskState.FAIL


def test_with_the_rules_a_confirm_before_any_plan_is_questioned_once() -> None:
    def confirm(s: HostState) -> tuple[list[Any], HostState]:
        return STRATEGY.handle_response("host", planner_says("CONFIRM", Comment="The form is filled in"), s)

    ops, s = confirm(started(rules=SMALL_LOCAL))
    (again,) = dispatches(ops)
    assert again.agent == "host" and "before planning anything" in host_request(again).note
    assert s.blackboard.trajectories[-1].rules == ("question-confirm-unplanned",) and not run_of(s).waiting
    # and its answer is not offered CONFIRM, until it plans (grammar); the first ask offers it, as without the rules
    assert not host_request(again).may_confirm
    first, _ = STRATEGY.handle_ask(REQUEST, {}, "t1", init(rules=SMALL_LOCAL))
    assert host_request(dispatches(first)[0]).may_confirm
    # asked once: a CONFIRM again goes to the person (here nobody: batch mode refuses it), as it does at once
    # without the rules
    for ops, end in (confirm(s), confirm(started())):
        assert not dispatches(ops) and end.run is None
        assert "The form is filled in" in end.blackboard.trajectories[-1].outcome
        assert "refused" in end.blackboard.trajectories[-1].outcome


def test_with_the_rules_a_finish_before_any_plan_is_questioned_once() -> None:
    request = "Turn on line numbers in the editor's preferences"
    ops, s = STRATEGY.handle_response("host", planner_says("FINISH", Comment="already done"),
                                      started(request, rules=SMALL_LOCAL))
    (again,) = dispatches(ops)
    assert again.agent == "host" and host_request(again).note.startswith(
        "You answered FINISH before planning anything: nothing was read, changed or run")
    assert s.blackboard.trajectories[-1].rules == ("question-finish-unplanned",)
    # asked once: a FINISH again ends the run, as it does at once without the rules
    for state in (s, started(request)):
        ops, end = STRATEGY.handle_response("host", planner_says("FINISH", Comment="done"), state)
        assert not dispatches(ops) and end.run is None
        # with the rules it ends FAIL: nothing done, and the answer stands on no file's name
        failed = state is s
        assert [type(op) for op in ops] == [ReplyError if failed else Reply]
        assert (end.blackboard.trajectories[-2].rules == ("unplanned-finish-is-failure",)) is failed
    # an answer that names a workspace file stands on what the planner sees: believed
    ops, end = STRATEGY.handle_response("host", planner_says("FINISH", Comment="budget.xlsx is there"), s)
    assert [type(op) for op in ops] == [Reply] and end.run is None


def test_with_the_rules_a_first_plan_that_leaves_out_a_quoted_value_is_sent_back_once() -> None:
    request = "Put 'Room 4B' into C3 of budget.xlsx and end report.docx with 'The venue is confirmed.'"
    dropped = [sub("1", "documents", reads=["report.docx"], tools=["read_table"], hands_on="table"),
               {**sub("2", "spreadsheets", "1", writes=["budget.xlsx"], tools=["write_rows"]),
                "description": "Write the table of report.docx into budget.xlsx"}]
    ops, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=dropped),
                                      started(request, rules=SMALL_LOCAL))
    (again,) = dispatches(ops)
    assert again.agent == "host" and not run_of(s).subtasks
    assert "leaves out 'Room 4B', 'The venue is confirmed.', which the request gives" in host_request(again).feedback
    assert s.blackboard.trajectories[-1].rules == ("quoted-values-planned",)
    # sent back once: the same plan again is taken, as it is at once without the rules
    for state in (s, started(request)):
        ops, end = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=dropped), state)
        assert {d.agent for d in dispatches(ops)} == {"app-documents"} and set(run_of(end).subtasks) == {"1", "2"}
    # a plan whose descriptions say the values (case and the closing full stop aside) is taken at once
    said = [{**sub("1", "spreadsheets", writes=["budget.xlsx"], tools=["set_cell"]),
             "description": "Write Room 4B into C3 of budget.xlsx"},
            {**sub("2", "documents", writes=["report.docx"], tools=["add_paragraph"]),
             "description": "Add the paragraph 'the venue is confirmed' at the end of report.docx"}]
    ops, end = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=said),
                                        started(request, rules=SMALL_LOCAL))
    assert set(run_of(end).subtasks) == {"1", "2"}


def test_with_the_rules_a_new_folder_at_the_top_apart_from_what_it_reads_is_sent_back_once() -> None:
    files = AppInfo("files", "files", (), (ToolInfo("make_folder", False, new_only=True, empty_part=True),
                                           ToolInfo("copy_or_move", False)))
    workspace = ("services/api.log", "services/db.log", "services/notes.md", "install.log")
    request = "In the services folder, put every .log file into a subfolder named archive"

    def plan(writes: str) -> dict[str, Any]:
        return planner_says("ASSIGN", files=workspace, Subtasks=[
            sub("1", "files", reads=["services/*.log"], writes=[writes], tools=["make_folder", "copy_or_move"])])

    ops, s = STRATEGY.handle_response("host", plan("archive"), started(request, rules=SMALL_LOCAL,
                                                                         catalog=Catalog((files,))))
    (again,) = dispatches(ops)
    assert again.agent == "host" and not run_of(s).subtasks
    assert host_request(again).feedback.startswith(
        "subtask '1' writes archive, a new folder at the workspace's top, while what it reads is in services/. If "
        "the request puts it inside that folder, write services/archive; if at the top, plan it again as it is.")
    assert s.blackboard.trajectories[-1].rules == ("folder-beside-reads",)
    # sent back once: the same plan again is taken, as it is at once without the rules; one inside is taken
    for state, writes in ((s, "archive"), (started(request, catalog=Catalog((files,))), "archive"),
                          (started(request, rules=SMALL_LOCAL, catalog=Catalog((files,))), "services/archive")):
        _, end = STRATEGY.handle_response("host", plan(writes), state)
        assert run_of(end).subtasks["1"].spec.writes == (writes,)


def test_with_the_rule_a_writer_whose_changes_hold_nothing_of_its_data_fails_after_its_question() -> None:
    s = replace(read_done(), rules=frozenset({"nothing-taken-is-failure"}))
    junk = facts_of("write_rows", {"path": "budget.xlsx", "rows": [["members.xlsx"]]})
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", junk, CHART), s)
    _, s = STRATEGY.handle_response("app-spreadsheets", executed(ran(junk), ran(CHART)), s)
    ops, s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="done"), s)
    (asked,) = dispatches(ops)  # asked once, naming what is missing
    assert "holds nothing of any data you had" in app_request(asked).note
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="done"), s)
    record = run_of(s).subtasks["2"]
    assert record.state is SubtaskState.FAIL and record.reason is not None
    assert "holds nothing of any data you had" in record.reason.detail
    assert any("nothing-taken-is-failure" in t.rules for t in s.blackboard.trajectories)


def test_a_writer_of_plain_text_is_given_the_figures_of_the_table_files_it_read_itself(tmp_path: Any) -> None:
    """A subtask that reads a table file and writes a text file (a total of its column) is offered the table's
    figures by reference, as one handed the table would be; a folder's listing it read is no table of figures."""
    from podium.apps.files import FilesApplication
    from podium.apps.workspace import Workspace

    apps = Catalog.of([FilesApplication(Workspace.at(tmp_path))])

    def offered(reads: str, call: CallFacts, content: Any) -> set[str]:
        state, _ = STRATEGY.init({"planner": SPEC, "app_agents": {"files": SPEC}, "catalog": apps,
                                  "config": HostConfig(rules="none")})
        _, s = STRATEGY.handle_ask("Add up the hours of timesheet.csv into hours.txt", {}, "t1", state)
        plan = [sub("1", "files", reads=[reads], writes=["hours.txt"], tools=[call.function, "write_file"])]
        _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", files=("timesheet.csv",), Subtasks=plan), s)
        _, s = STRATEGY.handle_response("app-files", proposes("CONTINUE", call), s)
        (step,), s = STRATEGY.handle_response("app-files", executed(ran(call, content)), s)
        return {a.name: a.value for a in app_request(step).artifacts}

    rows = [["Name", "Hours"], ["Ana", 7.5], ["Bo", 2]]
    read = facts_of("read_csv", {"path": "timesheet.csv"}, read_only=True)
    given = offered("timesheet.csv", read, {"rows": rows})
    assert given["1.read_csv.rows.sum.Hours"] == 9.5 and given["1.read_csv.rows"] == rows
    listing = facts_of("list_files", {"path": "."}, read_only=True)
    entries = {"entries": [{"path": "a.txt", "kind": "file", "size": 3}, {"path": "b.txt", "kind": "file", "size": 5}]}
    assert not [name for name in offered(".", listing, entries) if ".sum." in name]


def test_calls_behind_one_that_waited_are_decided_again_on_what_the_calls_before_them_left() -> None:
    sheets = Catalog((AppInfo("spreadsheets", "sheets", (".xlsx",), (
        ToolInfo("read_sheet", True), ToolInfo("write_rows", False), ToolInfo("add_sheet", False, empty_part=True))),))
    plan = [sub("1", "spreadsheets", reads=["orders.xlsx"], writes=["orders.xlsx"], tools=["add_sheet", "write_rows"])]
    add = facts_of("add_sheet", {"path": "orders.xlsx", "name": "North"}, change=None).model_copy(
        update={"effects": (EffectView(path="orders.xlsx", change="add", makes="North"),)})
    rows = {"path": "orders.xlsx", "rows": TABLE}
    # measured before the sheet was added, the write names no sheet and lands on the person's active one
    over = facts_of("write_rows", rows, change=None).model_copy(
        update={"effects": (EffectView(path="orders.xlsx", change="edit", part="Orders"),)})

    def added(rules: str) -> tuple[list[Any], HostState]:
        s, _ = STRATEGY.init({"planner": SPEC, "app_agents": {"spreadsheets": SPEC}, "catalog": sheets,
                              "config": HostConfig(rules=rules)})
        _, s = STRATEGY.handle_ask("Split orders.xlsx into a sheet per region", {}, "t1", s)
        _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", files=("orders.xlsx",), Subtasks=plan), s)
        (execute,), s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", add, over, result="split"), s)
        assert [c.function for c in app_request(execute).calls] == ["add_sheet"]  # the write waits behind it
        return STRATEGY.handle_response("app-spreadsheets", executed(ran(add)), s)

    # with the rules, the write is proposed again as it was, without the model: its effects are measured anew
    (again,), s = added("small-local")
    planned = AppOutput.model_validate(app_request(again).planned)
    assert [(a.function, a.arguments) for a in planned.actions] == [("write_rows", rows)]
    assert planned.status is AppStatus.FINISH
    # the sheet just added is the active one now: the write fills it, with no one's approval
    into = facts_of("write_rows", rows, change=None).model_copy(
        update={"effects": (EffectView(path="orders.xlsx", change="add", part="North"),)})
    (execute,), s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", into, result="split"), s)
    assert [(c.function, c.arguments) for c in app_request(execute).calls] == [("write_rows", rows)]
    _, s = STRATEGY.handle_response("app-spreadsheets", executed(ran(into)), s)
    assert [t.rules for t in s.blackboard.trajectories if t.agent == "app-spreadsheets"][-1] == (
        "deferred-calls-again",)
    # held again, the step is the model's; without the rules, it is the model's at once
    (again,), s = added("small-local")
    (asked,), s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", over, result="split"), s)
    assert app_request(asked).kind is AppStepKind.PROPOSE and app_request(asked).planned is None
    assert s.blackboard.trajectories[-1].outcome.startswith("left to the model")
    (asked,), s = added("none")
    assert app_request(asked).kind is AppStepKind.PROPOSE and app_request(asked).planned is None


def test_each_kind_of_question_asked_once_is_asked_even_after_another_was() -> None:
    sheets = Catalog((AppInfo("spreadsheets", "sheets", (".xlsx",), (
        ToolInfo("read_sheet", True), ToolInfo("write_rows", False), ToolInfo("add_sheet", False, empty_part=True))),))
    plan = [sub("1", "spreadsheets", reads=["scores.xlsx"], writes=["scores.xlsx"], tools=["add_sheet", "read_sheet"])]
    s, _ = STRATEGY.init({"planner": SPEC, "app_agents": {"spreadsheets": SPEC}, "catalog": sheets,
                          "config": HostConfig(rules="none")})
    _, s = STRATEGY.handle_ask("In scores.xlsx, add a sheet Ranking of the scores", {}, "t1", s)
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", files=("scores.xlsx",), Subtasks=plan), s)
    scores = [["Name", "Score"], ["Dana", 71], ["Ben", 88]]
    read = facts_of("read_sheet", {"path": "scores.xlsx", "sheet": "Scores"}, read_only=True)
    add = facts_of("add_sheet", {"path": "scores.xlsx", "name": "Ranking"}, change=None).model_copy(
        update={"effects": (EffectView(path="scores.xlsx", change="add", makes="Ranking"),)})
    empty = ran(add).model_copy(update={"changes": (EffectView(
        path="scores.xlsx", change="add", before="d1", after="d2", makes="Ranking", hollow=("Ranking",)),)})
    for call, result in ((read, ran(read, {"rows": scores})), (add, empty)):
        _, s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", call), s)
        _, s = STRATEGY.handle_response("app-spreadsheets", executed(result), s)
    (asked,), s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="added"), s)
    assert "left it empty" in app_request(asked).note
    # the rows typed into it as they were read: a copy, a kind not asked about yet, is asked about in turn
    write = facts_of("write_rows", {"path": "scores.xlsx", "sheet": "Ranking", "rows": scores}, change=None)
    write = write.model_copy(update={"effects": (EffectView(path="scores.xlsx", change="add", part="Ranking"),)})
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", write), s)
    _, s = STRATEGY.handle_response("app-spreadsheets", executed(ran(write)), s)
    (asked,), s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="ranked"), s)
    assert "a copy, nothing new" in app_request(asked).note
    # each asked once: a FINISH that stands is believed
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result="ranked"), s)
    assert run_of(s).subtasks["1"].state is SubtaskState.FINISH


def test_a_writer_whose_change_took_nothing_of_the_data_handed_to_it_then_gives_data_by_reference() -> None:
    """Rule ref-after-nothing-taken: a writer whose only source is what a reader handed it, and whose change holds
    none of it (the workbook's name where the names went), calls only the tools that take that data, by reference,
    from its next step on, until a change succeeds."""
    files = AppInfo("files", "the file system", (), (ToolInfo("write_file", False, json.dumps({
        "type": "object", "properties": {"path": {"type": "string"},
                                         "content": {"type": "string", "contentMediaType": "text/plain"}},
        "required": ["path", "content"]})), ToolInfo("write_names", False, json.dumps({
            "type": "object", "properties": {"into": {"type": "string"}, "pattern": {"type": "string"}}}))))
    rows = [["Customer", "Left"], ["Kestrel Print", 2022], ["Acme Corp", 2023]]
    for rules in ("small-local", "none"):
        s = init(catalog=Catalog((*CATALOG.apps, files)), rules=rules)
        _, s = STRATEGY.handle_ask("Write the customers of crm.xlsx into customers.txt", {}, "t1", s)
        plan = [sub("1", "spreadsheets", reads=["crm.xlsx"], tools=["read_sheet"], hands_on="table"),
                sub("2", "files", "1", writes=["customers.txt"], tools=["write_file"])]
        _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", files=("crm.xlsx",), Subtasks=plan), s)
        read = facts_of("read_sheet", {"path": "crm.xlsx"}, read_only=True)
        _, s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", read), s)
        _, s = STRATEGY.handle_response("app-spreadsheets", executed(ran(read, {"path": "crm.xlsx", "rows": rows})), s)
        _, s = STRATEGY.handle_response("app-spreadsheets", proposes("FINISH", result={"ref": "1.read_sheet.rows"}), s)
        wrong = facts_of("write_file", {"path": "customers.txt", "content": "crm.xlsx"}, change="create")
        _, s = STRATEGY.handle_response("app-files", proposes("CONTINUE", wrong), s)
        (after,), s = STRATEGY.handle_response("app-files", executed(ran(wrong)), s)
        assert app_request(after).by_ref == (rules == "small-local")
        # and only the tools that take the data it was handed (not one that writes the names of files)
        assert app_request(after).offered == (("write_file",) if rules == "small-local" else ())
        assert app_request(after).must_act == (rules == "small-local")
        if rules == "small-local":
            right = facts_of("write_file", {"path": "customers.txt", "content": "Kestrel Print\nAcme Corp"},
                             change="replace")
            _, s = STRATEGY.handle_response("app-files", proposes("CONTINUE", right), s)
            (then,), s = STRATEGY.handle_response("app-files", executed(ran(right)), s)
            assert not app_request(then).by_ref  # a change that holds some of its data ends it
            # recorded on the step it narrowed
            assert "ref-after-nothing-taken" in [r for t in s.blackboard.trajectories for r in t.rules]


def test_a_failed_calls_error_that_names_other_tools_narrows_the_next_answer_to_them() -> None:
    def after_refusal(profile: str) -> tuple[AppStepRequest, HostState]:
        s = read_done(rules=profile)
        _, s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", CHART), s)
        refused = ran(CHART, "add_chart: the range holds no numbers: write the rows first, with write_rows", ok=False)
        (step,), s = STRATEGY.handle_response("app-spreadsheets", executed(
            refused.model_copy(update={"instead": ("write_rows", "no_such_tool")})), s)
        return app_request(step), s

    request, s = after_refusal("small-local")
    # only the application's tools it names, as a choice the grammar leaves (the unknown one dropped)
    assert request.offered == ("write_rows",) and request.must_act
    assert "tool-its-error-names" in s.blackboard.trajectories[-1].rules
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("CONTINUE", WRITE), s)
    (after,), s = STRATEGY.handle_response("app-spreadsheets", executed(ran(WRITE)), s)
    assert app_request(after).offered == ()  # a change succeeded: every tool again
    # without the rule the error's words are the only guide
    plain, _ = after_refusal("none")
    assert plain.offered == () and not plain.must_act
