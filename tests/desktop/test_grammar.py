"""The answer grammars: what a model may write is what the host can act on. Checked against llama.cpp's
own schema-to-grammar converter and its grammar parser (the embedded model decodes under them)."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from podium.apps import build_applications
from podium.apps.base import Tool
from podium.apps.tooling import EDITED, EXISTING, FILE_TYPES, NOT_FILE_TYPES, NUMBER_TEXT, excluding
from podium.desktop.host.artifacts import Artifact, Kind, RefError, resolve
from podium.desktop.wire.grammar import MAX_LIST_ITEMS, MAX_ROWS, app_output_schema, host_output_schema

APPS = (("documents", ("read_table", "add_table")), ("spreadsheets", ("read_sheet", "write_rows", "add_chart")))
FILES = ("report.docx", "budget.xlsx", "reports/", ".")
ROWS = {"type": "array", "items": {"type": "array", "items": {"type": "string"}}}
TOOLS = [Tool("read_sheet", "read", {"type": "object", "properties": {"path": {"type": "string"}},
                                     "required": ["path"]}, read_only=True),
         Tool("write_rows", "write", {"type": "object", "properties": {
             "path": {"type": "string"}, "rows": ROWS, "count": {"type": "integer", "maximum": 10}},
             "required": ["path", "rows"]})]


def valid(schema: dict[str, Any], value: dict[str, Any]) -> bool:
    try:
        jsonschema.validate(value, schema)
    except jsonschema.ValidationError:
        return False
    return True


def plan(**subtask: Any) -> dict[str, Any]:
    base = {"id": "1", "description": "Read it", "application": "documents", "reads": ["report.docx"], "writes": [],
            "tools": ["read_table"], "depends_on": [], "hands_on": "table"}
    return {"Observation": "", "Thought": "", "Status": "ASSIGN", "Subtasks": [{**base, **subtask}], "Comment": ""}


def test_a_plan_names_only_real_applications_tools_and_files() -> None:
    schema = host_output_schema(APPS, FILES)
    assert valid(schema, plan())
    assert not valid(schema, plan(application="excel"))
    assert not valid(schema, plan(tools=["add_chart"]))  # a spreadsheets tool on documents
    assert not valid(schema, plan(tools=[]))
    assert not valid(schema, plan(reads=["invented.docx"]))
    assert not valid(schema, plan(hands_on="a chart"))
    assert valid(schema, plan(application="spreadsheets", tools=["add_chart"], writes=["new.xlsx"], reads=[]))


def test_a_planner_with_nothing_to_approve_is_not_offered_confirm() -> None:
    confirm = {"Observation": "", "Thought": "", "Status": "CONFIRM", "Comment": "The form is filled in"}
    assert valid(host_output_schema(APPS, FILES), confirm)
    assert not valid(host_output_schema(APPS, FILES, may_confirm=False), confirm)
    assert valid(host_output_schema(APPS, FILES, may_confirm=False), plan())


def test_a_planner_whose_planned_work_is_undone_is_not_offered_finish() -> None:
    finish = {"Observation": "", "Thought": "", "Status": "FINISH", "Comment": "done"}
    assert valid(host_output_schema(APPS, FILES), finish)
    assert not valid(host_output_schema(APPS, FILES, may_finish=False), finish)
    assert valid(host_output_schema(APPS, FILES, may_finish=False), plan())
    assert valid(host_output_schema(APPS, FILES, may_finish=False),
                 {"Observation": "", "Thought": "", "Status": "FAIL", "Comment": "no tool makes it"})


def test_a_planner_is_offered_to_launch_only_what_does_not_run() -> None:
    launch = {"Observation": "", "Thought": "", "Status": "CONTINUE", "Bash": "spreadsheets", "Comment": ""}
    assert valid(host_output_schema(APPS, FILES), launch)
    assert valid(host_output_schema(APPS, FILES, may_launch=("spreadsheets",)), launch)
    assert not valid(host_output_schema(APPS, FILES, may_launch=("documents",)), launch)
    # nothing to launch: no CONTINUE at all, and a plan as before
    nothing = host_output_schema(APPS, FILES, may_launch=())
    assert not valid(nothing, launch) and not valid(nothing, {**launch, "Bash": "documents"})
    assert valid(nothing, plan())


def test_a_planner_whose_question_nobody_answered_is_not_offered_pending() -> None:
    pending = {"Observation": "", "Thought": "", "Status": "PENDING", "Questions": ["Which file?"], "Comment": ""}
    assert valid(host_output_schema(APPS, FILES), pending)
    assert not valid(host_output_schema(APPS, FILES, may_ask=False), pending)
    assert valid(host_output_schema(APPS, FILES, may_ask=False), plan())


def test_each_status_carries_what_it_needs() -> None:
    schema = host_output_schema(APPS, FILES)
    head = {"Observation": "", "Thought": ""}
    assert not valid(schema, {**head, "Status": "PENDING", "Questions": [], "Comment": ""})
    assert valid(schema, {**head, "Status": "PENDING", "Questions": ["Which year?"], "Comment": ""})
    assert not valid(schema, {**head, "Status": "ASSIGN", "Subtasks": [], "Comment": ""})
    assert not valid(schema, {**head, "Status": "FAIL", "Comment": ""})
    assert not valid(schema, {**head, "Status": "ERROR", "Comment": "broken"})
    assert valid(schema, {**head, "Status": "CONTINUE", "Bash": "spreadsheets", "Comment": ""})
    assert not valid(schema, {**head, "Status": "CONTINUE", "Bash": "rm -rf /", "Comment": ""})
    assert not valid(schema, {**head, "Observation": "x" * 500, "Status": "FINISH", "Comment": ""})


def answer(**fields: Any) -> dict[str, Any]:
    return {"observation": "", "thought": "", "actions": [], "status": "FINISH", "result": "done", "comment": "",
            **fields}


def call(rows: Any, count: int = 1) -> dict[str, Any]:
    return {"function": "write_rows", "arguments": {"path": "a.xlsx", "rows": rows, "count": count}}


def test_an_answer_calls_real_tools_with_references_that_exist_and_fit() -> None:
    schema = app_output_schema(TOOLS, [("1.read_table", "table"), ("1.total", "number")])
    assert valid(schema, answer(actions=[call([["a"]])]))
    assert valid(schema, answer(actions=[call({"ref": "1.read_table"})]))
    assert not valid(schema, answer(actions=[call({"ref": "1.total"})]))  # a number is no rows
    assert not valid(schema, answer(actions=[call({"ref": "9.invented"})]))
    assert not valid(schema, answer(actions=[{"function": "delete_everything", "arguments": {}}]))
    assert valid(schema, answer(result={"ref": "1.total"}))
    # a number's bounds are the tool's to check (a grammar cannot): one bad call must not spoil the answer
    assert valid(schema, answer(actions=[call([["a"]], count=1_000_000)]))


def test_by_reference_an_argument_that_takes_data_takes_only_a_reference() -> None:
    refs = [("1.read_table", "table"), ("1.total", "number")]
    schema = app_output_schema(TOOLS, refs, by_ref=True)
    assert valid(schema, answer(actions=[call({"ref": "1.read_table"})]))
    assert not valid(schema, answer(actions=[call([["column_totals(a.xlsx)"]])]))  # rows typed out
    # a path, a name or a number is no data to copy: still written out (call's path is "a.xlsx", count 1)
    assert valid(schema, answer(actions=[
        {"function": "write_rows", "arguments": {"path": "a.xlsx", "rows": {"ref": "1.read_table"}, "count": 2}}]))
    # with no data of a kind it takes, an argument is as it was
    assert valid(app_output_schema(TOOLS, [("1.total", "number")], by_ref=True), answer(actions=[call([["a"]])]))


def test_a_command_takes_no_data_by_reference(tmp_path: Any) -> None:
    # what a file or a tool result says never becomes a command line, nor its argv
    shell = build_applications({"workspace": str(tmp_path), "enabled": ["shell"]})["shell"]
    (run,) = [t for t in shell.tools() if t.name == "run_command"]
    refs = [("1.read_file.text", "text"), ("1.names", "names"), ("1.count", "number")]
    schema = app_output_schema([run], refs)
    command = {"function": "run_command", "arguments": {"command": {"ref": "1.read_file.text"}}}
    argv = {"function": "run_command", "arguments": {"command": {"ref": "1.names"}}}
    assert valid(schema, answer(actions=[{"function": "run_command", "arguments": {"command": "ls -l"}}]))
    assert not valid(schema, answer(actions=[command])) and not valid(schema, answer(actions=[argv]))
    assert "x-code" not in json.dumps(schema)  # podium's own mark, not the grammar's
    data = {"1.read_file.text": Artifact("1.read_file.text", Kind.TEXT, "rm -rf notes")}
    with pytest.raises(RefError, match="code the tool runs"):
        resolve({"command": {"ref": "1.read_file.text"}}, data, run.parameters)


def test_continue_and_confirm_call_something_pending_asks_fail_says_why() -> None:
    schema = app_output_schema(TOOLS)
    assert not valid(schema, answer(status="CONTINUE", actions=[], comment=""))
    assert not valid(schema, {"observation": "", "thought": "", "actions": [], "status": "PENDING", "questions": [],
                              "comment": ""})
    assert not valid(schema, {"observation": "", "thought": "", "actions": [], "status": "FAIL", "comment": ""})
    forced = app_output_schema(TOOLS, must_act=True)
    assert not valid(forced, answer(actions=[]))
    assert valid(forced, answer(actions=[call([["a"]])]))
    pending = {"observation": "", "thought": "", "actions": [], "status": "PENDING", "questions": ["Which?"],
               "comment": ""}
    assert valid(schema, pending) and not valid(app_output_schema(TOOLS, may_ask=False), pending)
    # forced to act, it may still ask for what it has nowhere, where it may ask; it may not give up
    assert valid(forced, pending) and not valid(app_output_schema(TOOLS, must_act=True, may_ask=False), pending)
    assert not valid(forced, answer(status="FAIL", comment="no data"))
    assert valid(app_output_schema(TOOLS, may_ask=False), answer(status="FAIL", comment="no data"))
    only = app_output_schema(TOOLS, only=["read_sheet"])
    assert not valid(only, answer(actions=[call([["a"]])]))
    # no tool to call (its program has ended): an answer calls none, and it finishes, fails or asks
    idle = app_output_schema([])
    assert not valid(idle, answer(actions=[call([["a"]])])) and not valid(idle, answer(status="CONTINUE"))
    assert valid(idle, answer(status="FINISH")) and valid(idle, answer(status="FAIL", comment="gone"))




def _typed(*types: str) -> dict[str, Any]:
    return {"type": "object", "required": ["path"], "properties": {"path": {"type": "string", FILE_TYPES: list(types)}}}


TYPED = [Tool("read_sheet", "read", _typed(".xlsx"), read_only=True),
         Tool("read_csv", "read", _typed(".csv"), read_only=True),
         Tool("write_file", "write", {"type": "object", "properties": {"path": {"type": "string"}},
                                      "required": ["path"]})]


def test_a_typed_path_takes_only_files_of_its_types_and_a_tool_with_none_is_not_offered() -> None:
    schema = app_output_schema(TYPED, paths=("budget.xlsx", "report.docx", "new.XLSX"))
    calls = schema["$defs"]["action"]["anyOf"]
    assert [c["properties"]["function"]["enum"][0] for c in calls] == ["read_sheet", "write_file"]  # no .csv here
    assert calls[0]["properties"]["arguments"]["properties"]["path"] == {"type": "string",
                                                                         "enum": ["budget.xlsx", "new.XLSX"]}

    def answer(path: str) -> dict[str, Any]:
        return {"observation": "", "thought": "", "status": "CONTINUE", "comment": "",
                "actions": [{"function": "read_sheet", "arguments": {"path": path}}]}
    assert valid(schema, answer("budget.xlsx")) and not valid(schema, answer("report.docx"))
    assert FILE_TYPES not in json.dumps(app_output_schema(TYPED))  # without paths: as they are, keyword dropped
    # no tool left: all of them, as they were
    only = app_output_schema(TYPED[1:2], paths=("a.txt",))
    assert only["$defs"]["action"]["properties"]["function"]["enum"] == ["read_csv"]


def test_a_text_path_takes_only_files_no_other_application_owns() -> None:
    text = {"type": "object", "required": ["path"], "properties": {"path": {"type": "string", NOT_FILE_TYPES: []}}}
    read_file = excluding(Tool("read_file", "read", text, read_only=True), (".xlsx", ".docx"))
    assert read_file.parameters["properties"]["path"][NOT_FILE_TYPES] == [".docx", ".xlsx"]
    schema = app_output_schema([read_file], paths=("orders.xlsx", "notes.txt", "old/", "report.DOCX", "new.csv"))
    assert schema["$defs"]["action"]["properties"]["arguments"]["properties"]["path"] == {
        "type": "string", "enum": ["new.csv", "notes.txt"]}
    # only packages there: the tool is not offered (with another tool left to offer)
    schema = app_output_schema([read_file, TYPED[2]], paths=("orders.xlsx",))
    assert schema["$defs"]["action"]["properties"]["function"]["enum"] == ["write_file"]
    assert NOT_FILE_TYPES not in json.dumps(app_output_schema([read_file]))


def test_a_path_that_is_only_read_takes_only_files_that_exist() -> None:
    paths, existing = ("budget.xlsx", "new.xlsx", "data.csv"), ("budget.xlsx", "data.csv")
    reader = TYPED[0]  # read_sheet: read-only, so every typed path of it is read
    arguments = app_output_schema([reader], paths=paths, existing=existing)["$defs"]["action"]["properties"]
    assert arguments["arguments"]["properties"]["path"]["enum"] == ["budget.xlsx"]
    merge = Tool("merge", "merge", {"type": "object", "required": ["path"], "properties": {
        "path": {"type": "string", FILE_TYPES: [".xlsx"]},
        "sources": {"type": "array", "items": {"type": "string", FILE_TYPES: [".xlsx", ".csv"], EXISTING: True},
                    "maxItems": 8},
        "target": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None, FILE_TYPES: [".docx"]}}})
    schema = app_output_schema([merge], paths=paths, existing=existing)
    props = schema["$defs"]["action"]["properties"]["arguments"]["properties"]
    assert props["path"]["enum"] == ["budget.xlsx", "new.xlsx"]  # written: a new one too
    assert props["sources"] == {"type": "array", "items": {"type": "string", "enum": ["budget.xlsx", "data.csv"]},
                                "maxItems": 2}
    assert props["target"] == {"type": "null"}  # no .docx here: the optional path can only be left out

    def call(**arguments: Any) -> dict[str, Any]:
        return {"observation": "", "thought": "", "status": "CONTINUE", "comment": "",
                "actions": [{"function": "merge", "arguments": {"path": "new.xlsx", **arguments}}]}
    assert valid(schema, call(sources=["budget.xlsx", "data.csv"]))
    assert not valid(schema, call(sources=["new.xlsx"]))  # not there yet: nothing to read
    assert EXISTING not in json.dumps(schema)
    # no file to read at all: an optional list is left empty, a required path takes the tool off the offer
    none = app_output_schema([merge, TYPED[2]], paths=("new.xlsx",), existing=())
    options = none["$defs"]["action"]["anyOf"]
    assert options[0]["properties"]["arguments"]["properties"]["sources"] == {"type": "array", "maxItems": 0}
    assert app_output_schema([reader, TYPED[2]], paths=("new.xlsx",), existing=())["$defs"]["action"][
        "properties"]["function"]["enum"] == ["write_file"]


def test_with_nobody_to_approve_a_changing_tool_writes_only_what_it_may_change() -> None:
    paths = ("north.xlsx", "south.xlsx", "all.xlsx")
    merge = Tool("merge", "merge", {"type": "object", "required": ["path"], "properties": {
        "path": {"type": "string", FILE_TYPES: [".xlsx"]},
        "sources": {"type": "array", "items": {"type": "string", FILE_TYPES: [".xlsx"], EXISTING: True}}}})
    schema = app_output_schema([merge, TYPED[0]], paths=paths, existing=paths[:2], writable=("all.xlsx",))
    merge_call, read_call = schema["$defs"]["action"]["anyOf"]
    assert merge_call["properties"]["arguments"]["properties"]["path"]["enum"] == ["all.xlsx"]
    assert merge_call["properties"]["arguments"]["properties"]["sources"]["items"]["enum"] == ["north.xlsx",
                                                                                              "south.xlsx"]
    assert read_call["properties"]["arguments"]["properties"]["path"]["enum"] == ["north.xlsx", "south.xlsx"]
    # nothing it may change: a changing tool is not offered at all (the reading one still is)
    reading = app_output_schema([merge, TYPED[0]], paths=paths, existing=paths[:2], writable=())
    assert reading["$defs"]["action"]["properties"]["function"]["enum"] == ["read_sheet"]


def test_a_path_a_tool_opens_and_changes_takes_only_files_that_exist_and_may_be_written() -> None:
    paths, existing = ("report.docx", "draft.docx", "contents.docx"), ("report.docx", "draft.docx")
    edit = Tool("insert_table_row", "edit", {"type": "object", "required": ["path"], "properties": {
        "path": {"type": "string", FILE_TYPES: [".docx"], EDITED: True}}})
    make = Tool("add_table", "make", {"type": "object", "required": ["path"], "properties": {
        "path": {"type": "string", FILE_TYPES: [".docx"]}}})

    def enums(schema: dict[str, Any]) -> dict[str, list[str]]:
        return {c["properties"]["function"]["enum"][0]: c["properties"]["arguments"]["properties"]["path"]["enum"]
                for c in schema["$defs"]["action"]["anyOf"]}
    assert enums(app_output_schema([edit, make], paths=paths, existing=existing)) == {
        "insert_table_row": ["draft.docx", "report.docx"],  # contents.docx: not there yet, nothing to open
        "add_table": ["contents.docx", "draft.docx", "report.docx"]}
    assert enums(app_output_schema([edit, make], paths=paths, existing=existing, writable=("draft.docx",
                                                                                           "contents.docx"))) == {
        "insert_table_row": ["draft.docx"], "add_table": ["contents.docx", "draft.docx"]}
    # only a new file to write: the editing tool is not offered
    only_new = app_output_schema([edit, make], paths=paths, existing=existing, writable=("contents.docx",))
    assert only_new["$defs"]["action"]["properties"]["function"]["enum"] == ["add_table"]
    assert EDITED not in json.dumps(only_new)


def test_the_builtin_tools_that_open_their_file_are_marked_so(tmp_path: Any) -> None:
    """A changing tool of documents and spreadsheets marks its path as one that must exist (EDITED, or EXISTING where
    it is only read) exactly when a call of it on a file that is not there fails for that (the others make it)."""
    import asyncio

    from podium.apps.base import Tool as ToolType

    def fill(name: str, spec: dict[str, Any]) -> Any:
        spec = next((s for s in spec.get("anyOf", []) if s.get("type") != "null"), spec)
        if spec.get(FILE_TYPES) or spec.get("items", {}).get(FILE_TYPES):
            typed = spec.get(FILE_TYPES) or spec["items"][FILE_TYPES]
            return (["in.csv"] if spec.get("type") == "array" else "in.csv") if ".csv" in typed else "new.x"
        if "enum" in spec:
            return spec["enum"][0]
        kind = spec.get("type")
        if kind == "array":
            items = spec.get("items", {})
            if items.get("type") == "object":  # conditions, and the like: one with what it requires
                wanted = items.get("required", ())
                return [{k: fill(k, s) for k, s in items.get("properties", {}).items() if k in wanted}]
            return [["Name", "Score"], ["a", 1]] if items.get("type") == "array" else ["A"]
        return {"integer": 1, "number": 1, "boolean": False}.get(str(kind), "A1" if name in ("cell", "data",
                                                                                          "range") else "A")

    async def probe(tool: ToolType, app: Any, suffix: str) -> bool:
        for item in tmp_path.iterdir():
            item.unlink()
        (tmp_path / "in.csv").write_text("Name,Score\na,1\n")
        required = tool.parameters.get("required", [])
        args = {k: fill(k, s) for k, s in tool.parameters["properties"].items() if k in required}
        args = {k: (f"new{suffix}" if v == "new.x" else v) for k, v in args.items()}
        result = await app.call(tool.name, args)
        return not result.ok and "does not exist" in (result.error or "")

    apps = build_applications({"enabled": ["documents", "spreadsheets"]}, base=tmp_path)
    checked = 0
    for app in apps.values() if hasattr(apps, "values") else apps:
        suffix = {"documents": ".docx", "spreadsheets": ".xlsx"}[app.name]
        for tool in app.tools():
            path = tool.parameters["properties"].get("path", {})
            if tool.read_only or suffix not in path.get(FILE_TYPES, ()):
                continue
            assert asyncio.run(probe(tool, app, suffix)) == bool(path.get(EDITED) or path.get(EXISTING)), tool.name
            checked += 1
    assert checked >= 25


def test_an_argument_the_application_names_the_values_of_takes_only_those() -> None:
    """A program's set_text is offered only the controls that take text (apps.accessible: `choices`)."""
    control = {"type": "object", "required": ["control", "text"],
               "properties": {"control": {"type": "integer", "minimum": 1}, "text": {"type": "string"}}}
    tools = [Tool("set_text", "type", control), Tool("click", "press", control)]
    schema = app_output_schema(tools, choices={("set_text", "control"): (9, 12)})

    def act(function: str, number: int) -> dict[str, Any]:
        return answer(actions=[{"function": function, "arguments": {"control": number, "text": "eggs"}}])
    assert valid(schema, act("set_text", 9)) and valid(schema, act("set_text", 12))
    assert not valid(schema, act("set_text", 8))  # a tab list: it takes no text
    assert valid(schema, act("click", 8))  # another tool's argument of that name is its own
    assert valid(app_output_schema(tools, choices={("set_text", "control"): ()}), act("set_text", 8))  # none known
    from llama_cpp.llama_grammar import LlamaGrammar, json_schema_to_gbnf
    LlamaGrammar.from_string(json_schema_to_gbnf(json.dumps(schema)), verbose=False)


def test_a_range_names_only_a_sheet_of_the_subtasks_workbooks(tmp_path: Any) -> None:
    """A range's sheet is one the workbooks hold ('Data!A1:C5'), never a name made up (a reference's path)."""
    (app,) = build_applications({"enabled": ["spreadsheets"]}, base=tmp_path).values()
    chart = [t for t in app.tools() if t.name in ("add_chart", "read_sheet")]

    def chart_of(data: str) -> dict[str, Any]:
        return answer(status="CONTINUE", actions=[{"function": "add_chart", "arguments": {
            "path": "budget.xlsx", "kind": "bar", "data": data, "title": "Costs"}}])
    schema = app_output_schema(chart, parts=("Data", "Q1 costs", "Sheet-2"))
    for data in ("A1:C5", "Data!A1:C5", "Q1 costs!B2", "Sheet-2!A1:A9"):
        assert valid(schema, chart_of(data)), data
    for data in ("ref1.read_sheet.rows.0.2.0!A1:C6", "Summary!A1:B2", "data!A1:C5", "Data!a1"):
        assert not valid(schema, chart_of(data)), data
    assert "x-parted" not in json.dumps(schema)
    from llama_cpp.llama_grammar import LlamaGrammar, json_schema_to_gbnf

    from podium.backends.json_grammar import gbnf
    for convert in (json_schema_to_gbnf, gbnf):
        LlamaGrammar.from_string(convert(json.dumps(schema)), verbose=False)
    # no workbook known, or a sheet's name a pattern cannot hold as it is: any name, as before
    for loose in (app_output_schema(chart), app_output_schema(chart, parts=("Data", "Costs (2024)"))):
        assert valid(loose, chart_of("Summary!A1:B2")) and valid(loose, chart_of("ref1.read_sheet.rows.0.2.0!A1"))


def test_the_shell_offers_the_sheets_of_the_workbooks_its_subtask_declares(tmp_path: Any) -> None:
    from openpyxl import Workbook

    from podium.desktop.shell.app_step import _parts
    for name, sheets in (("budget.xlsx", ["Data", "Notes"]), ("other.xlsx", ["Secret"])):
        book = Workbook()
        book.active.title = sheets[0]
        for sheet in sheets[1:]:
            book.create_sheet(sheet)
        book.save(tmp_path / name)
    (tmp_path / "notes.txt").write_text("x")
    (app,) = build_applications({"enabled": ["spreadsheets"]}, base=tmp_path).values()
    there = ("budget.xlsx", "other.xlsx", "notes.txt")
    assert _parts(app, there, ("budget.xlsx",)) == ("Data", "Notes")
    assert _parts(app, there, ("*.xlsx", "notes.txt")) == ("Data", "Notes", "Secret")
    assert _parts(app, there, ("report.xlsx",)) == ()  # a workbook still to make: any sheet


def test_a_value_that_needs_another_argument_is_offered_only_with_it() -> None:
    """A program's list is no item of itself: `select` of it takes the item (apps.accessible: `choices`)."""
    select = {"type": "object", "required": ["control"], "properties": {
        "control": {"type": "integer", "minimum": 1}, "item": {"anyOf": [{"type": "string"}, {"type": "null"}]}}}
    tools = [Tool("select", "choose", select)]
    schema = app_output_schema(tools, choices={("select", "control"): (5, 6), ("select", "control", "item"): (4,)})

    def act(**arguments: Any) -> dict[str, Any]:
        return answer(actions=[{"function": "select", "arguments": arguments}])
    assert valid(schema, act(control=5)) and valid(schema, act(control=4, item="Banana"))
    assert not valid(schema, act(control=4)) and not valid(schema, act(control=4, item=None))
    assert not valid(schema, act(control=7, item="Banana"))  # a number the program did not list
    # with no other value known, the list's form is the only one; with none named at all, any stands alone
    only = app_output_schema(tools, choices={("select", "control"): (), ("select", "control", "item"): (4,)})
    assert valid(only, act(control=4, item="Banana")) and not valid(only, act(control=5))
    loose = app_output_schema(tools, choices={("select", "control", "item"): (4,)})
    assert valid(loose, act(control=5)) and valid(loose, act(control=4, item="Banana"))
    from llama_cpp.llama_grammar import LlamaGrammar, json_schema_to_gbnf
    LlamaGrammar.from_string(json_schema_to_gbnf(json.dumps(schema)), verbose=False)


def test_a_control_that_holds_a_number_takes_only_the_text_of_one() -> None:
    """A slider's set_text is given one number: the grammar cannot write the control list, a word or nothing
    there, while a text field beside it takes any text (apps.accessible: `choices`, NUMBER_TEXT)."""
    typed = {"type": "object", "required": ["control", "text"], "properties": {
        "control": {"type": "integer"}, "text": {"type": "string"}}}
    tools = [Tool("set_text", "type", typed)]

    def act(control: int, text: str) -> dict[str, Any]:
        return answer(actions=[{"function": "set_text", "arguments": {"control": control, "text": text}}])
    both = app_output_schema(tools, choices={("set_text", "control"): (5,),
                                             ("set_text", "control", "text", NUMBER_TEXT): (2,)})
    for number in ("65", "-3", "0.25"):
        assert valid(both, act(2, number)), number
    for text in ("", "65%", "sixty", "1: label 'Volume'\n2: slider = '20'"):
        assert not valid(both, act(2, text)), text
    assert valid(both, act(5, "Alice Martin")) and not valid(both, act(7, "65"))
    # only a slider takes a text: no form types anything else
    alone = app_output_schema(tools, choices={("set_text", "control"): (),
                                              ("set_text", "control", "text", NUMBER_TEXT): (2,)})
    assert valid(alone, act(2, "65")) and not valid(alone, act(5, "65")) and not valid(alone, act(2, "x"))
    from llama_cpp.llama_grammar import LlamaGrammar

    from podium.backends.json_grammar import gbnf
    LlamaGrammar.from_string(gbnf(json.dumps(alone)), verbose=False)


def test_every_list_an_argument_takes_is_bounded_so_a_repeating_answer_still_closes() -> None:
    schema = app_output_schema(TOOLS)
    rows = schema["$defs"]["action"]["anyOf"][1]["properties"]["arguments"]["properties"]["rows"]
    assert (rows["maxItems"], rows["items"]["maxItems"]) == (MAX_ROWS, MAX_LIST_ITEMS)

    def write(n: int) -> dict[str, Any]:
        return {"observation": "", "thought": "", "status": "CONTINUE", "comment": "", "actions": [
            {"function": "write_rows", "arguments": {"path": "a.xlsx", "rows": [[f"Sheet{i}" for i in range(n)]]}}]}
    assert valid(schema, write(MAX_LIST_ITEMS)) and not valid(schema, write(MAX_LIST_ITEMS + 1))


@pytest.mark.parametrize("schema", [host_output_schema(APPS, FILES), app_output_schema(TOOLS, [("1.t", "table")]),
                                    app_output_schema(TYPED, paths=("budget.xlsx",))])
def test_llama_cpp_turns_both_into_a_grammar(schema: dict[str, Any]) -> None:
    from llama_cpp.llama_grammar import LlamaGrammar, json_schema_to_gbnf

    gbnf = json_schema_to_gbnf(json.dumps(schema))
    assert "root ::=" in gbnf
    LlamaGrammar.from_string(gbnf, verbose=False)


def test_a_tools_number_bounds_the_grammar_holds_are_kept_the_others_left_to_the_tool() -> None:
    from podium.desktop.wire.grammar import _plain

    params = {"type": "object", "properties": {
        "count": {"type": "integer", "minimum": 0, "description": "how many"},
        "level": {"type": "integer", "minimum": 1, "maximum": 6},
        "ratio": {"type": "number", "minimum": 0.5, "maximum": 2, "multipleOf": 0.5}}}
    plain = _plain(params)["properties"]
    assert plain["count"] == {"type": "integer", "minimum": 0}
    assert plain["level"] == {"type": "integer", "minimum": 1, "maximum": 6}
    assert plain["ratio"] == {"type": "number"}


def test_the_files_tool_that_edits_a_text_in_place_takes_only_a_file_that_exists(tmp_path: Any) -> None:
    """replace_text opens its file (EDITED: the grammar offers only files there now); append_at_end makes one."""
    import asyncio

    from podium.desktop.host.catalog import AppInfo
    from podium.desktop.host.people import editors

    (app,) = build_applications({"enabled": ["files"]}, base=tmp_path).values()
    marked = {t.name: bool(t.parameters["properties"]["path"].get(EDITED)) for t in app.tools()
              if t.name in ("replace_text", "append_at_end")}
    assert marked == {"replace_text": True, "append_at_end": False}
    missing = asyncio.run(app.call("replace_text", {"path": "notes.txt", "find": "a", "replace_with": "b"}))
    assert not missing.ok and "does not exist" in (missing.error or "")
    assert editors(AppInfo.of(app), "notes.txt") == ("replace_text",)


def test_with_nobody_to_approve_a_text_file_is_written_only_where_the_subtask_may_write(tmp_path: Any) -> None:
    """write_file and the like name their file by a free path (a new file, any name); with nobody to approve a
    change and only named files to write, that path is one of them: a write into the workbook it read is no
    answer the grammar allows."""
    (app,) = build_applications({"enabled": ["files"]}, base=tmp_path).values()
    paths = ("members.xlsx", "notes.txt", "duplicates.txt")

    def enums(writable: Any) -> dict[str, Any]:
        # the declared writes are among the paths, as an AppAgent's step lists them
        declared = (*paths, *(w for w in writable or () if w not in paths))
        schema = app_output_schema(app.tools(), paths=declared, existing=paths[:2], writable=writable)
        return {c["properties"]["function"]["enum"][0]: {k: v.get("enum") for k, v in
                                                          c["properties"]["arguments"]["properties"].items()}
                for c in schema["$defs"]["action"]["anyOf"]}
    narrowed = enums(("duplicates.txt",))
    assert narrowed["write_file"]["path"] == narrowed["append_at_end"]["path"] == ["duplicates.txt"]
    assert narrowed["write_file_names"]["into"] == ["duplicates.txt"]
    # a folder or a pattern to write holds files no list names; a person to approve may be asked for any
    for free in (("duplicates.txt", "lists"), ("*.txt",), None):
        assert enums(free)["write_file"]["path"] is None


def test_a_program_opens_only_a_file_that_exists(tmp_path: Any) -> None:
    """open_file fails on a file that is not there: the grammar offers only those that are, so a program's new
    file is made by its save, and with no file there the tool is not offered at all."""
    from podium.apps.desktop_apps import OpenArgs

    opening = Tool("open_file", "open", OpenArgs.model_json_schema())
    paths = ("notes.txt", "shopping.txt", "prices.xlsx")
    schema = app_output_schema([opening, TYPED[0]], paths=paths, existing=("shopping.txt", "prices.xlsx"))
    call = schema["$defs"]["action"]["anyOf"][0]
    assert call["properties"]["arguments"]["properties"]["path"]["enum"] == ["prices.xlsx", "shopping.txt"]
    none = app_output_schema([opening, TOOLS[0]], paths=paths, existing=())
    assert none["$defs"]["action"]["properties"]["function"]["enum"] == ["read_sheet"]


def test_a_text_may_join_words_and_single_values_by_reference_and_the_files_application_writes_it(
        tmp_path: Any) -> None:
    import asyncio

    files = build_applications({"workspace": str(tmp_path), "enabled": ["files"]})["files"]
    writer = [t for t in files.tools() if t.name == "write_file"]
    refs = [("1.read_csv.rows.sum.Hours", "number"), ("1.read_csv.rows.max_label.Hours", "text"),
            ("1.read_csv", "table")]
    schema = app_output_schema(writer, refs)

    def answer(content: Any) -> dict[str, Any]:
        return {"observation": "", "thought": "", "actions": [
            {"function": "write_file", "arguments": {"path": "hours.txt", "content": content}}],
            "status": "FINISH", "result": "", "comment": ""}

    label = ["Total hours: ", {"ref": "1.read_csv.rows.sum.Hours"}]
    assert valid(schema, answer(label)) and valid(schema, answer({"ref": "1.read_csv"}))
    assert not valid(schema, answer(["Rows: ", {"ref": "1.read_csv"}]))  # a table is no part of a sentence
    assert not valid(schema, answer(["Total hours: ", {"ref": "1.hours"}]))  # no such data
    assert not valid(schema, answer([{"ref": "1.read_csv.rows.sum.Hours"}]))  # one part is the reference itself
    # a files application's arguments as the shell resolves them: the file holds the words and the number
    data = {"1.read_csv.rows.sum.Hours": Artifact("1.read_csv.rows.sum.Hours", Kind.NUMBER, 33.25)}
    arguments = resolve({"path": "hours.txt", "content": label}, data, writer[0].parameters)
    assert arguments["content"] == "Total hours: 33.25"
    assert asyncio.run(files.call("write_file", arguments)).ok
    assert (tmp_path / "hours.txt").read_text().strip() == "Total hours: 33.25"
    # with no single value to refer to, a text is only a text or a reference
    action = app_output_schema(writer, [("1.read_csv", "table")])["$defs"]["action"]
    assert not any(o.get("type") == "array" for o in
                   action["properties"]["arguments"]["properties"]["content"]["anyOf"])


def test_a_table_file_is_read_as_a_table_not_as_text(tmp_path: Any) -> None:
    """The files application's read_file takes text files, and a .csv is a table: its reading tool is read_csv
    (rows of values, numbers as numbers, which the tools that take data take and the host measures)."""
    (tmp_path / "hours.csv").write_text("Name,Hours\nAna,7.5\n")
    (tmp_path / "notes.txt").write_text("a note\n")
    files = build_applications({"workspace": str(tmp_path), "enabled": ["files"]})["files"]
    readers = [t for t in files.tools() if t.name in ("read_file", "read_csv")]
    paths = ("hours.csv", "notes.txt")
    schema = app_output_schema(readers, paths=paths, existing=paths)
    offered = {o["properties"]["function"]["enum"][0]: o["properties"]["arguments"]["properties"]["path"]["enum"]
               for o in schema["$defs"]["action"]["anyOf"]}
    assert offered == {"read_file": ["notes.txt"], "read_csv": ["hours.csv"]}
