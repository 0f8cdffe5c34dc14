"""Small local models: the grammar-shaped schemas, the tolerant reading of their answers, and the nudges
and limits that keep a confused AppAgent from ending the run or looping until the step budget."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from llama_cpp.llama_grammar import json_schema_to_gbnf

from podium.agent.backend import Prompt
from podium.apps.files import FilesApplication
from podium.apps.workspace import Workspace
from podium.backends.scripted import Fail, ScriptedBackend
from podium.backends.structured import OutputErrors, validate_schema
from podium.desktop import HostConfig, run_request
from podium.desktop.grammar import app_output_schema, host_output_schema
from podium.desktop.messages import ActionResult
from podium.desktop.schemas import Action, AppOutput, AppStatus
from podium.desktop.tolerance import DoneCalls, progress_nudge, read_app_output
from podium.errors import ReasonKind
from tests.desktop.memapps import Documents, Notes, Spreadsheets
from tests.desktop.scripting import app, assign, host, step_of, sub, subtask_of, verifying

TABLE = [["Quarter", "Sales"], ["Q1", 10]]


class Spy(ScriptedBackend):
    """A scripted model that also records every Prompt it gets (temperature, schema, system)."""

    def __init__(self, script: Any) -> None:
        super().__init__(script)
        self.seen: list[Prompt] = []

    async def prompt(self, session: Any, prompt: Any):  # type: ignore[override]
        self.seen.append(prompt)
        async for event in super().prompt(session, prompt):
            yield event


def docs() -> Documents:
    return Documents({"report.docx": {"paragraphs": [], "tables": [TABLE]}})


def one_subtask(prompt: str) -> str:
    if verifying(prompt):
        return host("FINISH", "done") if "ended FINISH" in prompt or "FINISH:" in prompt else host("FAIL", "no")
    return assign(sub("1", "Read the table of report.docx", "documents"))


def writing_subtask(prompt: str) -> str:  # a subtask that only reads would change nothing
    if verifying(prompt):
        return host("FINISH", "done") if "ended FINISH" in prompt or "FINISH:" in prompt else host("FAIL", "no")
    return assign(sub("1", "Add a paragraph to report.docx", "documents"))


# -- the grammar-shaped schemas -------------------------------------------------------------------------

def test_the_app_schema_makes_the_model_think_then_act_then_say_its_status() -> None:
    schema = app_output_schema(Spreadsheets().tools())
    assert schema["required"] == ["observation", "thought", "actions", "status", "comment", "questions", "result"]
    assert list(schema["properties"]) == schema["required"]  # a grammar writes them in this order
    assert "ERROR" not in schema["properties"]["status"]["enum"]  # the orchestrator's word, not a choice
    calls = schema["properties"]["actions"]["items"]["anyOf"]
    assert [c["properties"]["function"]["enum"] for c in calls] == [
        ["wait"], ["write_rows"], ["add_chart"], ["clear_sheet"]]
    chart = next(c for c in calls if c["properties"]["function"]["enum"] == ["add_chart"])
    assert set(chart["properties"]["arguments"]["properties"]) == {"path", "kind", "range", "title"}


def test_the_schemas_turn_into_llama_cpp_grammars_with_the_real_names() -> None:
    # llama.cpp falls back to "any JSON" silently when a schema does not convert: make sure it does.
    grammar = json_schema_to_gbnf(json.dumps(app_output_schema(Spreadsheets().tools())))
    root = next(line for line in grammar.splitlines() if line.startswith("root ::="))
    assert root.index("thought-kv") < root.index("actions-kv") < root.index("status-kv")
    for name in ('"\\"write_rows\\""', '"\\"add_chart\\""', '"\\"range\\""'):
        assert name in grammar
    forced = json_schema_to_gbnf(json.dumps(app_output_schema(Spreadsheets().tools(), must_act=True)))
    actions = next(line for line in forced.splitlines() if line.startswith("actions ::="))
    assert actions.startswith('actions ::= "[" space actions-item (')  # no way to write [] in a must_act step
    host = json_schema_to_gbnf(json.dumps(host_output_schema(("documents", "spreadsheets"))))
    assert '"\\"documents\\"" | "\\"spreadsheets\\""' in host


def test_the_host_schema_asks_for_the_graph_with_catalogue_applications() -> None:
    schema = host_output_schema(("documents", "spreadsheets"))
    assert schema["required"][:4] == ["Observation", "Thought", "Status", "Subtasks"]
    item = schema["properties"]["Subtasks"]["items"]
    assert item["properties"]["application"]["enum"] == ["documents", "spreadsheets"]
    assert "ERROR" not in schema["properties"]["Status"]["enum"]


async def test_steps_send_the_grammar_shaped_schemas() -> None:
    planner, reader = Spy(one_subtask), Spy(lambda p: app("FINISH", ("read_table", {"path": "report.docx"})))
    result = await run_request("Read the table of report.docx", [docs()], planner, app_models={"documents": reader})
    assert result.ok, result
    assert planner.seen[0].schema == host_output_schema(("documents",))
    assert reader.seen[0].schema == app_output_schema(docs().tools())
    assert "## Files in the request (application that handles each)\n- report.docx: documents" in planner.seen[0].text
    assert "- read_table(path: string, index: integer)" in (reader.seen[0].system or "")


# -- reading answers tolerantly -------------------------------------------------------------------------

def test_pending_without_a_question_is_read_as_continue_with_its_actions() -> None:
    text = json.dumps({"status": "pending", "questions": [], "actions": [
        {"function": "read_table", "arguments": {"path": "a.docx"}}]})
    output, nudge = read_app_output(text, has_tools=True)
    assert isinstance(output, AppOutput) and output.status is AppStatus.CONTINUE
    assert output.actions[0].function == "read_table" and nudge and "PENDING without a question" in nudge
    asked, nudge = read_app_output(json.dumps({"status": "PENDING", "questions": ["Which?"]}), has_tools=True)
    assert isinstance(asked, AppOutput) and asked.status is AppStatus.PENDING and nudge is None
    # without tools there is nothing to continue with: the answer stays invalid (repaired by re-asking)
    invalid, nudge = read_app_output(json.dumps({"status": "PENDING"}), has_tools=False)
    assert isinstance(invalid, OutputErrors) and "PENDING needs" in invalid.message and nudge is None


def test_confirm_without_an_action_is_read_as_continue() -> None:
    output, nudge = read_app_output(json.dumps({"status": "CONFIRM", "comment": "may I?"}), has_tools=True)
    assert isinstance(output, AppOutput) and output.status is AppStatus.CONTINUE and nudge
    held = json.dumps({"status": "CONFIRM", "actions": [{"function": "clear_sheet", "arguments": {"path": "b"}}]})
    output, nudge = read_app_output(held, has_tools=True)
    assert isinstance(output, AppOutput) and output.status is AppStatus.CONFIRM and nudge is None


def test_what_the_nudges_say() -> None:
    out = AppOutput(status=AppStatus.CONTINUE)
    assert "called no tool" in (progress_nudge(out, [], ["read_table", "write_rows"]) or "")
    assert "read_table, write_rows" in (progress_nudge(out, [], ["read_table", "write_rows"]) or "")
    failed = ActionResult(function="write_rows", arguments={"path": "b.xlsx"}, ok=False, error="rows: required")
    assert "rows: required" in (progress_nudge(out, [failed], ["write_rows"]) or "")  # the tool's own words
    ok = ActionResult(function="write_rows", arguments={}, ok=True)
    assert progress_nudge(out, [failed, ok], ["write_rows"]) is None


def test_no_call_is_made_twice_in_a_subtask_but_a_read_is_new_after_a_change() -> None:
    write = Action(function="write_rows", arguments={"path": "b.xlsx", "rows": [[1]]})
    same = Action(function="write_rows", arguments={"rows": [[1]], "path": "b.xlsx"})  # key order aside
    read = Action(function="read_sheet", arguments={"path": "b.xlsx"})
    done = DoneCalls().after("1", [(write, False)])
    assert done.repeated(same, False) and "do not repeat it" in (done.repeated(same, False) or "")
    assert done.repeated(read, True) is None
    done = done.after("1", [(read, True)])
    assert "its result is under Your previous steps" in (done.repeated(read, True) or "")
    chart = Action(function="add_chart", arguments={"path": "b.xlsx"})
    assert done.after("1", [(chart, False)]).repeated(read, True) is None  # the file changed: read again
    assert done.after("2", []).repeated(same, False) is None  # another subtask starts afresh


# -- in a session ------------------------------------------------------------------------------------------

async def test_an_app_agent_that_says_pending_without_a_question_is_nudged_not_ended() -> None:
    def reader(prompt: str) -> str:
        if step_of(prompt) == 1:
            return json.dumps({"status": "PENDING", "questions": [], "comment": "please help"})
        if step_of(prompt) == 2:
            return app("CONTINUE", ("read_table", {"path": "report.docx"}))
        return app("FINISH", result=TABLE)

    model = Spy(reader)
    result = await run_request("Read the table of report.docx", [docs()], Spy(one_subtask),
                               app_models={"documents": model})
    assert result.ok, result
    second = model.seen[1]
    assert "## Attention" in second.text and "PENDING without a question" in second.text
    assert [p.temperature for p in model.seen] == [0.0, 0.7, 0.0]  # the nudged step is sampled
    assert result.subtasks[0]["result"] == TABLE


async def test_steps_without_any_tool_end_the_subtask_with_a_clear_reason() -> None:
    planner = Spy(one_subtask)
    stuck = Spy(lambda p: app("CONTINUE", comment="thinking about it"))
    result = await run_request("Read the table of report.docx", [docs()], planner, app_models={"documents": stuck},
                               config=HostConfig(max_idle_steps=3, max_subtask_steps=20, max_replans=0))
    assert not result.ok and len(stuck.seen) == 3  # not the 20 steps the subtask had
    subtask = result.subtasks[0]
    assert subtask["state"] == "FAIL" and subtask["reason_kind"] == ReasonKind.LIMIT_REACHED.value
    assert "made no progress: 3 steps in a row" in subtask["reason"] and "max_idle_steps=3" in subtask["reason"]
    assert "called no tool" in stuck.seen[1].text and "read_table" in stuck.seen[1].text


async def test_a_failing_tool_call_is_fed_back_verbatim_and_the_next_step_fixes_it() -> None:
    def writer(prompt: str) -> str:
        if step_of(prompt) == 1:
            return app("CONTINUE", ("read_table", {"path": "nowhere.docx"}))
        if "nowhere.docx" in prompt and step_of(prompt) == 2:
            return app("FINISH", ("read_table", {"path": "report.docx"}))
        return app("FAIL", comment="no feedback seen")

    model = Spy(writer)
    result = await run_request("Read the table of report.docx", [docs()], Spy(one_subtask),
                               app_models={"documents": model})
    assert result.ok, result
    assert "Your last action failed: read_table" in model.seen[1].text and "'nowhere.docx'" in model.seen[1].text


async def test_the_same_change_twice_runs_once_and_the_rest_of_the_step_still_runs() -> None:
    notes = Notes()

    def writer(prompt: str) -> str:
        if step_of(prompt) == 1:
            return app("CONTINUE", ("write_note", {"title": "a", "text": "x"}))
        return app("FINISH", ("write_note", {"title": "a", "text": "x"}), ("write_note", {"title": "b", "text": "y"}),
                   result="saved")

    def planner(prompt: str) -> str:
        if verifying(prompt):
            return host("FINISH", "done")
        return assign(sub("1", "Write the notes a.txt and b.txt", "notes"))

    result = await run_request("Write the notes a.txt and b.txt", [notes], ScriptedBackend(planner),
                               app_models={"notes": ScriptedBackend(writer)})
    assert result.ok, result
    assert [c[0] for c in notes.calls] == ["write_note", "write_note"]  # a once, then b
    assert notes.notes == {"a": "x", "b": "y"}
    steps = [t for t in result.trajectory if t.get("subtask") == "1"]
    assert "already succeeded with these same arguments" in json.dumps(steps)


async def test_an_answer_the_backend_refused_as_invalid_is_repaired_not_an_error() -> None:
    # A backend that checks the schema itself (the embedded model) fails the turn with invalid_output,
    # e.g. when the answer was cut at max_tokens: re-ask, as for any invalid answer.
    answers = iter([Fail("invalid structured output (the answer was cut at max_tokens): ...",
                         ReasonKind.INVALID_OUTPUT)])

    def reader(prompt: str) -> Any:
        step = next(answers, None)
        if step is not None:
            return step
        return app("FINISH", ("read_table", {"path": "report.docx"}), result=TABLE)

    model = Spy(reader)
    result = await run_request("Read the table of report.docx", [docs()], Spy(one_subtask),
                               app_models={"documents": model})
    assert result.ok, result
    assert "cut at max_tokens" in model.seen[1].text and model.seen[1].temperature == 0.7


async def test_a_confirm_with_nothing_to_approve_does_not_fail_the_subtask_in_batch_mode() -> None:
    sheets = Spreadsheets()

    def charter(prompt: str) -> str:
        if subtask_of(prompt) == "1" and step_of(prompt) == 1:
            return app("CONFIRM", comment="the person needs to approve this")
        return app("FINISH", ("add_chart", {"path": "b.xlsx", "kind": "bar", "range": "A1:B2", "title": "t"}))

    def planner(prompt: str) -> str:
        if verifying(prompt):
            return host("FINISH", "done")
        return assign(sub("1", "Chart b.xlsx", "spreadsheets"))

    result = await run_request("Chart b.xlsx", [sheets], ScriptedBackend(planner),
                               app_models={"spreadsheets": ScriptedBackend(charter)})
    assert result.ok, result
    assert sheets.books["b.xlsx"]["charts"] == [{"kind": "bar", "range": "A1:B2", "title": "t"}]


async def test_a_finish_before_any_tool_call_is_questioned_once_then_believed() -> None:
    # Handed the results of the subtask it depends on, a small model copies them into its result and
    # "finishes" a chart it never made: that FINISH is questioned once; a second one is believed.
    chart = ("add_chart", {"path": "b.xlsx", "kind": "bar", "range": "A1:B2", "title": "t"})

    def charter(prompt: str) -> str:
        if step_of(prompt) == 1:
            return app("FINISH", result=TABLE)  # claimed, never done
        return app("FINISH", chart, result="the chart is in b.xlsx")

    def reader(prompt: str) -> str:  # no inputs: a FINISH without a tool call is believed at once
        return app("FINISH", result=TABLE)

    def planner(prompt: str) -> str:
        if verifying(prompt):
            return host("FINISH", "done")
        return assign(sub("1", "Read the table of report.docx", "documents"),
                      sub("2", "Show it as a graph in b.xlsx", "spreadsheets", "1"))

    def run(charting: Spy, **config: Any) -> Any:
        return run_request("Chart the table of report.docx in b.xlsx", [docs(), sheets], ScriptedBackend(planner),
                           app_models={"documents": reading, "spreadsheets": charting}, config=HostConfig(**config))

    sheets, reading, model = Spreadsheets(), Spy(reader), Spy(charter)
    result = await run(model)
    assert result.ok, result
    assert len(reading.seen) == 1
    assert sheets.books["b.xlsx"]["charts"] == [{"kind": "bar", "range": "A1:B2", "title": "t"}]
    nudged = model.seen[1].text
    assert "nothing was changed for this subtask yet" in nudged and "'Show it as a graph in b.xlsx'" in nudged
    assert "tools that change files: write_rows, add_chart, clear_sheet." in nudged  # not the read-only "wait"
    assert model.seen[1].temperature == 0.7
    # and this time an answer without a call cannot be written (the grammar wants one)
    assert model.seen[1].schema["properties"]["actions"]["minItems"] == 1  # type: ignore[index]
    assert "minItems" not in model.seen[0].schema["properties"]["actions"]  # type: ignore[index]

    sheets, reading, believed = Spreadsheets(), Spy(reader), Spy(lambda p: app("FINISH", result="nothing to do"))
    result = await run(believed)
    assert result.ok and len(believed.seen) == 2 and result.subtasks[1]["result"] == "nothing to do"

    sheets, reading, unchecked = Spreadsheets(), Spy(reader), Spy(lambda p: app("FINISH", result="nothing to do"))
    result = await run(unchecked, check_finish=False)
    assert result.ok and len(unchecked.seen) == 1


async def test_a_finish_before_calling_a_tool_its_words_name_is_questioned_and_the_next_step_must_call_it() -> None:
    # The rows written, the chart named but never made: the FINISH is questioned, and the next step's
    # grammar offers only add_chart (given the choice, the 1.5B model wrote the rows again).
    rows = ("write_rows", {"path": "b.xlsx", "cell": "A1", "rows": [["a", 1]]})
    chart = ("add_chart", {"path": "b.xlsx", "kind": "bar", "range": "A1:B1", "title": "t"})

    def charter(prompt: str) -> str:
        return app("FINISH", rows, result="written") if step_of(prompt) == 1 else app("FINISH", chart, result="ok")

    def planner(prompt: str) -> str:
        if verifying(prompt):
            return host("FINISH", "done")
        return assign(sub("1", "Write the data into b.xlsx and create a bar chart of it", "spreadsheets"))

    sheets, model = Spreadsheets(), Spy(charter)
    result = await run_request("Chart a in b.xlsx", [sheets], ScriptedBackend(planner),
                               app_models={"spreadsheets": model})
    assert result.ok, result
    assert sheets.books["b.xlsx"]["charts"] == [{"kind": "bar", "range": "A1:B1", "title": "t"}]
    first, second = model.seen
    assert "It names the tool add_chart: not called yet." in first.text
    assert "names add_chart, and it was not called yet" in second.text and "write_rows(" in second.text
    offered = second.schema["properties"]["actions"]  # type: ignore[index]
    assert offered["minItems"] == 1 and offered["items"]["properties"]["function"]["enum"] == ["add_chart"]
    assert "anyOf" in first.schema["properties"]["actions"]["items"]  # type: ignore[index]


async def test_a_step_that_gets_nowhere_while_a_named_tool_is_uncalled_must_call_it() -> None:
    chart = ("add_chart", {"path": "b.xlsx", "kind": "bar", "range": "A1:B1", "title": "t"})

    def charter(prompt: str) -> str:
        return app("CONTINUE") if step_of(prompt) == 1 else app("FINISH", chart, result="ok")  # no call at first

    def planner(prompt: str) -> str:
        if verifying(prompt):
            return host("FINISH", "done")
        return assign(sub("1", "Add a bar chart to b.xlsx", "spreadsheets"))

    sheets, model = Spreadsheets(), Spy(charter)
    sheets.books["b.xlsx"] = {"rows": [["a", 1]], "charts": []}
    result = await run_request("Chart b.xlsx", [sheets], ScriptedBackend(planner), app_models={"spreadsheets": model})
    assert result.ok, result
    assert sheets.books["b.xlsx"]["charts"] == [{"kind": "bar", "range": "A1:B1", "title": "t"}]
    offered = model.seen[1].schema["properties"]["actions"]  # type: ignore[index]
    assert offered["items"]["properties"]["function"]["enum"] == ["add_chart"]
    assert "Your subtask names add_chart: call it now." in model.seen[1].text


async def test_a_step_that_only_repeats_calls_that_succeeded_is_taken_as_its_finish() -> None:
    write = ("write_rows", {"path": "b.xlsx", "cell": "A1", "rows": TABLE})
    worker = Spy(lambda p: app("CONTINUE", write, result="the figures are in b.xlsx"))  # never says FINISH

    def planner(prompt: str) -> str:
        return host("FINISH", "done") if verifying(prompt) else assign(sub("1", "Put the figures into b.xlsx",
                                                                            "spreadsheets"))

    sheets = Spreadsheets()
    result = await run_request("Put the figures into b.xlsx", [sheets], ScriptedBackend(planner),
                               app_models={"spreadsheets": worker})
    assert result.ok, result
    assert len(worker.seen) == 2 and [c[0] for c in sheets.calls] == ["write_rows"]
    assert result.subtasks[0]["state"] == "FINISH" and result.subtasks[0]["result"] == "the figures are in b.xlsx"


async def test_a_reading_subtask_that_repeats_its_read_is_taken_as_its_finish() -> None:
    # "List the files" done, the 1.5B model listed them again and again until the idle limit failed it.
    read = ("read_table", {"path": "report.docx"})
    reader = Spy(lambda p: app("CONTINUE", read, result="the table"))

    def planner(prompt: str) -> str:  # its words name no file: a read is not yet its end
        return host("FINISH", "done") if verifying(prompt) else assign(sub("1", "Read the table", "documents"))

    documents = docs()
    result = await run_request("What is in the table of report.docx?", [documents], ScriptedBackend(planner),
                               app_models={"documents": reader})
    assert result.ok, result
    assert len(reader.seen) == 2 and [c[0] for c in documents.calls] == ["read_table"]
    assert result.subtasks[0]["state"] == "FINISH"


async def test_a_read_of_the_file_a_reading_part_names_with_a_result_is_its_finish() -> None:
    reader = Spy(lambda p: app("CONTINUE", ("read_table", {"path": "report.docx"}), result="the table"))
    named = ScriptedBackend(lambda p: host("FINISH", "done") if verifying(p) else assign(
        sub("1", "Read the table of report.docx", "documents")))
    result = await run_request("What is in the table of report.docx?", [docs()], named,
                               app_models={"documents": reader})
    assert result.ok and len(reader.seen) == 1  # no second step to read it again
    assert result.subtasks[0]["state"] == "FINISH" and result.subtasks[0]["result"] == "the table"
    # without a result in its answer, or with a sum to compute, it goes on
    for say, doing in ((app("CONTINUE", ("read_table", {"path": "report.docx"})), "Read the table of report.docx"),
                       (app("CONTINUE", ("read_table", {"path": "report.docx"}), result="x"),
                        "Read report.docx and compute the sum of the sales")):
        steps = Spy(lambda p, say=say: say)  # type: ignore[misc]
        await run_request(doing, [docs()], ScriptedBackend(
            lambda p, doing=doing: host("FINISH", "done") if verifying(p) else assign(sub("1", doing, "documents"))),
                          app_models={"documents": steps}, config=HostConfig(max_idle_steps=2, max_replans=0))
        assert len(steps.seen) > 1


async def test_a_changing_subtask_that_only_repeats_a_read_is_not_done() -> None:
    reader = Spy(lambda p: app("CONTINUE", ("read_table", {"path": "report.docx"}), result="the table"))
    result = await run_request("Add a paragraph to report.docx", [docs()],
                               ScriptedBackend(lambda p: host("FAIL", "no") if verifying(p) else assign(
                                   sub("1", "Read report.docx and write a paragraph about it", "documents"))),
                               app_models={"documents": reader}, config=HostConfig(max_idle_steps=2, max_replans=0))
    assert not result.ok and result.subtasks[0]["state"] == "FAIL"
    assert "made no progress" in result.subtasks[0]["reason"]


async def test_a_change_the_application_finds_already_made_counts_as_a_repeat() -> None:
    class Idempotent(Spreadsheets):
        async def _add_chart(self, path: str, kind: str, range: str, title: str = "") -> Any:
            if any(c["kind"] == kind for c in self._book(path)["charts"]):
                return {"unchanged": True, "note": "already there"}
            return await super()._add_chart(path, kind, range, title)

    def charter(prompt: str) -> str:  # the same chart, its range written another way: CONTINUE each time
        cells = "A1:B2" if step_of(prompt) == 1 else "Sheet1!A1:B2"
        return app("CONTINUE", ("add_chart", {"path": "b.xlsx", "kind": "bar", "range": cells}), result="charted")

    def planner(prompt: str) -> str:
        return host("FINISH", "done") if verifying(prompt) else assign(sub("1", "Add a bar chart to b.xlsx",
                                                                            "spreadsheets"))

    sheets, model = Idempotent(), Spy(charter)
    result = await run_request("Chart b.xlsx", [sheets], ScriptedBackend(planner), app_models={"spreadsheets": model})
    assert result.ok, result
    assert len(model.seen) == 2 and len(sheets.books["b.xlsx"]["charts"]) == 1
    assert result.subtasks[0]["state"] == "FINISH" and result.subtasks[0]["result"] == "charted"


async def test_a_finish_whose_change_failed_is_nudged_sampled_and_bounded() -> None:
    failing = Spy(lambda p: app("FINISH", ("write_paragraph", {"path": "report.docx"}), result="written"))
    result = await run_request("Add a paragraph to report.docx", [docs()], Spy(writing_subtask),
                               app_models={"documents": failing},
                               config=HostConfig(max_idle_steps=2, max_replans=0))
    assert not result.ok and len(failing.seen) == 2
    assert "You answered FINISH, but a change failed, so the subtask is not done. Your last action failed: " \
           "write_paragraph" in failing.seen[1].text
    assert [p.temperature for p in failing.seen] == [0.0, 0.7]
    assert "made no progress: 2 steps in a row" in result.subtasks[0]["reason"]


async def test_a_finish_whose_only_failure_is_a_read_is_accepted() -> None:
    # The read changed nothing and the model decided it was done without its result: nothing is lost.
    done = Spy(lambda p: app("FINISH", ("read_table", {"path": "nowhere.docx"}),
                             ("write_paragraph", {"path": "report.docx", "text": "hi"}), result="written"))
    documents = docs()
    result = await run_request("Add a paragraph to report.docx", [documents], Spy(writing_subtask),
                               app_models={"documents": done})
    assert result.ok and len(done.seen) == 1 and documents.docs["report.docx"]["paragraphs"] == ["hi"]


async def test_a_subtask_done_on_what_it_observed_hands_the_observation_on() -> None:
    # The AppAgent looks at the files of its subtask before deciding (a read-only tool that takes only a
    # path); a reading subtask that FINISHes on that look alone still hands the content to its dependants.
    class Reports(Documents):
        def tools(self) -> list[Any]:
            from podium.apps.base import Tool

            return [Tool("read_document", "the whole document", {"type": "object", "properties": {
                "path": {"type": "string"}}, "required": ["path"]}, read_only=True), *super().tools()]

        async def _read_document(self, path: str) -> dict[str, Any]:
            return {"tables": self.docs[path]["tables"]}

    reports = Reports({"report.docx": {"paragraphs": [], "tables": [TABLE]}})
    sheets = Spreadsheets()
    seen: list[str] = []

    def reader(prompt: str) -> str:
        seen.append(prompt)
        return app("FINISH")

    def writer(prompt: str) -> str:
        rows = TABLE if json.dumps(TABLE) in prompt else [["nothing"]]
        return app("FINISH", ("write_rows", {"path": "b.xlsx", "cell": "A1", "rows": rows}))

    def planner(prompt: str) -> str:
        if verifying(prompt):
            return host("FINISH", "done")
        return assign(sub("1", "Read the table of report.docx", "documents"),
                      sub("2", "Write it into b.xlsx", "spreadsheets", "1"))

    result = await run_request("Copy the table of report.docx into b.xlsx", [reports, sheets],
                               ScriptedBackend(planner), app_models={"documents": ScriptedBackend(reader),
                                                                     "spreadsheets": ScriptedBackend(writer)},
                               config=HostConfig(check_finish=False))
    assert result.ok, result
    assert '## The files of your subtask now\n- read_document({"path": "report.docx"}) -> ok:' in seen[0]
    assert sheets.books["b.xlsx"]["rows"] == TABLE
    assert ("read_document", {"path": "report.docx"}) in reports.calls


def test_a_call_that_failed_is_not_made_again_until_something_changed() -> None:
    bad = Action(function="read_sheet", arguments={"path": "report.docx"})
    done = DoneCalls().after("1", [], [(bad, "read_sheet: 'report.docx' is not an .xlsx path")])
    why = done.failed_before(Action(function="read_sheet", arguments={"path": "report.docx"}))
    assert why is not None and "already failed" in why and "is not an .xlsx path" in why
    assert done.failed_before(Action(function="read_sheet", arguments={"path": "budget.xlsx"})) is None
    write = Action(function="write_rows", arguments={"path": "budget.xlsx", "rows": [[1]]})
    assert done.after("1", [(write, False)]).failed_before(bad) is None  # a change may have fixed it
    assert done.after("1", [(bad, True)], []).failed_before(bad) is not None  # a read changes nothing
    assert done.after("2", []).failed_before(bad) is None  # another subtask starts afresh


async def test_a_repeated_failing_call_is_reported_failed_without_running() -> None:
    documents = docs()

    def reader(prompt: str) -> str:
        if step_of(prompt) in (1, 2):
            return app("CONTINUE", ("read_table", {"path": "nowhere.docx"}))
        return app("FINISH", ("read_table", {"path": "report.docx"}), result="read")

    model = Spy(reader)
    result = await run_request("Read the table of report.docx", [documents], Spy(one_subtask),
                               app_models={"documents": model})
    assert result.ok, result
    assert documents.calls == [("read_table", {"path": "nowhere.docx"}), ("read_table", {"path": "report.docx"})]
    third = model.seen[2].text
    assert "not run: it already failed with these same arguments" in third and "'nowhere.docx'" in third


def sheet_planner(prompt: str) -> str:
    if verifying(prompt):
        return host("FINISH", "done") if "FINISH" in prompt.split("## Subtasks so far", 1)[-1] else host("FAIL", "no")
    return assign(sub("1", "Write the figures into budget.xlsx", "spreadsheets"))


async def test_an_app_agent_that_made_its_change_and_then_idles_ends_its_subtask_as_done() -> None:
    sheets = Spreadsheets()

    def writer(prompt: str) -> str:
        if step_of(prompt) == 1:
            return app("CONTINUE", ("write_rows", {"path": "budget.xlsx", "cell": "A1", "rows": TABLE}))
        return app("CONTINUE", comment="looking at it")  # never says FINISH

    model = Spy(writer)
    result = await run_request("Write the figures into budget.xlsx", [sheets], Spy(sheet_planner),
                               app_models={"spreadsheets": model},
                               config=HostConfig(max_idle_steps=2, max_subtask_steps=20, max_replans=0))
    assert result.ok, result
    assert len(model.seen) == 3 and sheets.books["budget.xlsx"]["rows"] == TABLE
    (subtask,) = result.subtasks
    assert subtask["state"] == "FINISH"
    assert "the changes made: write_rows(" in subtask["result"] and "did not say it was done" in subtask["result"]
    # the step after an idle one was told what had already succeeded, and to FINISH if that is the subtask
    assert "Your earlier changes succeeded: write_rows(" in model.seen[2].text and "FINISH" in model.seen[2].text


async def test_an_app_agent_that_changed_nothing_and_idles_still_fails() -> None:
    stuck = Spy(lambda p: app("CONTINUE", comment="thinking"))
    result = await run_request("Write the figures into budget.xlsx", [Spreadsheets()], Spy(sheet_planner),
                               app_models={"spreadsheets": stuck},
                               config=HostConfig(max_idle_steps=2, max_subtask_steps=20, max_replans=0))
    assert not result.ok and result.subtasks[0]["state"] == "FAIL"
    assert "made no progress" in result.subtasks[0]["reason"]


async def test_changes_made_do_not_end_a_subtask_as_done_while_a_tool_its_words_name_never_succeeded() -> None:
    sheets = Spreadsheets()

    def writer(prompt: str) -> str:
        if step_of(prompt) == 1:
            return app("CONTINUE", ("write_rows", {"path": "budget.xlsx", "cell": "A1", "rows": TABLE}))
        return app("CONTINUE", ("add_chart", {"path": "nowhere.xlsx", "kind": "bar"}))  # fails every time

    def planner(prompt: str) -> str:
        if verifying(prompt):
            return host("FAIL", "no")
        return assign(sub("1", "Write the figures into budget.xlsx and add a bar chart of them", "spreadsheets"))

    result = await run_request("Chart the figures in budget.xlsx", [sheets], Spy(planner),
                               app_models={"spreadsheets": Spy(writer)},
                               config=HostConfig(max_idle_steps=2, max_subtask_steps=20, max_replans=0))
    (subtask,) = result.subtasks
    assert not result.ok and subtask["state"] == "FAIL" and "made no progress" in subtask["reason"]


async def test_a_merged_chain_is_done_part_by_part_and_each_finish_is_checked() -> None:
    sheets = Spreadsheets()

    def planner(prompt: str) -> str:
        if verifying(prompt):
            return host("FINISH", "done")
        return assign(sub("1", "Write the figures into budget.xlsx", "spreadsheets"),
                      sub("2", "Chart the figures in budget.xlsx", "spreadsheets", "1"))

    def worker(prompt: str) -> str:
        if "part 1 of 2" in prompt:
            return app("FINISH", ("write_rows", {"path": "budget.xlsx", "cell": "A1", "rows": TABLE}), result="written")
        if "## Attention" not in prompt:
            return app("FINISH", result="the chart is there")  # a claim, with no call made for this part
        return app("FINISH", ("add_chart", {"path": "budget.xlsx", "kind": "bar", "range": "A1:B2"}), result="charted")

    model = Spy(worker)
    result = await run_request("Chart the figures in budget.xlsx", [sheets], Spy(planner),
                               app_models={"spreadsheets": model})
    assert result.ok, result
    (subtask,) = result.subtasks  # one subtask, one AppAgent, two parts
    assert subtask["id"] == "1" and subtask["state"] == "FINISH" and subtask["result"] == "charted"
    assert sheets.books["budget.xlsx"] == {"rows": TABLE, "charts": [{"kind": "bar", "range": "A1:B2", "title": ""}]}
    first, second, third = (p.text for p in model.seen)
    assert "## Your subtask (1, part 1 of 2)\nWrite the figures into budget.xlsx" in first
    assert "## Your subtask (1, part 2 of 2)\nChart the figures in budget.xlsx" in second
    assert "## Parts of your subtask already done\n- Write the figures into budget.xlsx" in second
    assert "Part 1 of 2 is done (written). Now part 2: Chart the figures in budget.xlsx" in second
    # the nudge quotes the part at hand, not the merged description
    assert "You answered FINISH, but your subtask 'Chart the figures in budget.xlsx' names add_chart" in third


async def test_a_parts_finish_is_told_the_changes_earlier_parts_made() -> None:
    sheets = Spreadsheets()
    write = ("write_rows", {"path": "budget.xlsx", "cell": "A1", "rows": TABLE})
    chart = ("add_chart", {"path": "budget.xlsx", "kind": "bar", "range": "A1:B2"})

    def planner(prompt: str) -> str:
        if verifying(prompt):
            return host("FINISH", "done")
        return assign(sub("1", "Write the figures into budget.xlsx", "spreadsheets"),
                      sub("2", "Chart the figures in budget.xlsx", "spreadsheets", "1"))

    def worker(prompt: str) -> str:  # does both parts at once, then names both calls again for part 2
        return app("FINISH", write, chart, result="written and charted")

    model = Spy(worker)
    result = await run_request("Chart the figures in budget.xlsx", [sheets], Spy(planner),
                               app_models={"spreadsheets": model})
    assert result.ok, result
    first, second, third = (p.text for p in model.seen)
    assert "part 1 of 2" in first and "part 2 of 2" in second
    # part 2's FINISH named only repeats: questioned, with what part 1 already made; the second is believed
    assert "## Attention" not in second and "nothing was changed for this part yet" in third
    assert "The earlier parts of your subtask made these changes: write_rows(" in third and "add_chart(" in third
    assert [c[0] for c in sheets.calls] == ["write_rows", "add_chart"]  # each ran once
    assert sheets.books["budget.xlsx"]["charts"] == [{"kind": "bar", "range": "A1:B2", "title": ""}]


async def test_a_dependant_that_only_read_before_its_finish_is_questioned_once() -> None:
    documents = docs()

    def planner(prompt: str) -> str:
        if verifying(prompt):
            return host("FINISH", "done")
        return assign(sub("1", "Write the figures into b.xlsx", "spreadsheets"),
                      sub("2", "Add a note about the figures to report.docx", "documents", "1"))

    def writer(prompt: str) -> str:
        return app("FINISH", ("write_rows", {"path": "b.xlsx", "cell": "A1", "rows": TABLE}), result="written")

    def noter(prompt: str) -> str:
        if "## Attention" not in prompt:  # reads its file, then calls it done: nothing was added
            return app("FINISH", ("read_table", {"path": "report.docx"}), result="report.docx has the table")
        return app("FINISH", ("write_paragraph", {"path": "report.docx", "text": "Totals in b.xlsx"}), result="noted")

    model = Spy(noter)
    result = await run_request("Write the figures into b.xlsx and note it in report.docx", [documents, Spreadsheets()],
                               Spy(planner), app_models={"documents": model, "spreadsheets": Spy(writer)})
    assert result.ok, result
    assert len(model.seen) == 2 and "nothing was changed for this subtask yet" in model.seen[1].text
    assert documents.docs["report.docx"]["paragraphs"] == ["Totals in b.xlsx"]


async def test_a_result_naming_numbers_no_tool_returned_is_not_handed_on_as_the_result() -> None:
    def reader(prompt: str) -> str:
        if step_of(prompt) == 1:  # its words are written before the call returns anything
            return app("CONTINUE", ("read_table", {"path": "report.docx"}), result="the total is 7095")
        return app("FINISH", result="the total is 7095")

    def summing(prompt: str) -> str:
        if verifying(prompt):
            return host("FINISH", "done")
        return assign(sub("1", "Find the total sales in report.docx", "documents"))

    result = await run_request("What is the total of the sales in report.docx?", [docs()], Spy(summing),
                               app_models={"documents": Spy(reader)})
    assert result.subtasks[0]["result"] == ("(not its result: its words named 7095, which none of its tool "
                                            "outputs shows; what its tools returned is in its outputs)")
    # a number its tools did return (10, the only sale) is its result
    right = Spy(lambda p: app("CONTINUE", ("read_table", {"path": "report.docx"})) if step_of(p) == 1
                else app("FINISH", result="the total is 10"))
    result = await run_request("What is the total of the sales in report.docx?", [docs()], Spy(summing),
                               app_models={"documents": right})
    assert result.subtasks[0]["result"] == "the total is 10"


async def test_a_call_past_a_numbers_bound_is_the_tools_error_not_an_invalid_answer(tmp_path: Path) -> None:
    files = FilesApplication(Workspace(tmp_path))
    schema = app_output_schema(files.tools())
    answer = json.dumps({"observation": "", "thought": "", "status": "CONTINUE", "comment": "", "questions": [],
                         "result": None, "actions": [{"function": "read_file",
                                                      "arguments": {"path": "a.txt", "max_bytes": 1000000000}}]})
    assert validate_schema(schema, answer) == json.loads(answer)  # no grammar enforces it: not the answer's fault
    (tmp_path / "a.txt").write_text("hello")
    result = await files.call("read_file", {"path": "a.txt", "max_bytes": 1000000000})
    assert not result.ok and "max_bytes" in (result.error or "") and "10000000" in (result.error or "")
