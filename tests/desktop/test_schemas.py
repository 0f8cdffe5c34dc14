"""The HostAgent and AppAgent output schemas: the seed's field names, leniency, and refusals."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from podium.desktop.wire.schemas import (
    Action,
    AppOutput,
    AppStatus,
    HandsOn,
    HostOutput,
    HostStatus,
    SubtaskSpec,
)

SEED_EXAMPLE = {
    "Observation": "Desktop shows Microsoft Word with document open containing a table",
    "Thought": "User wants to extract data from Word first",
    "Current Sub-Task": "Extract the table data from the document",
    "Message": "Starting data extraction from Word document",
    "ControlLabel": "0",
    "ControlText": "Microsoft Word - Document1",
    "Plan": ["Extract table from Word", "Create chart in Excel"],
    "Status": "ASSIGN",
    "Comment": "Delegating table extraction to Word AppAgent",
    "Questions": [],
    "Bash": "",
}
SEED_FIELDS = ["Observation", "Thought", "Current Sub-Task", "Message", "ControlLabel", "ControlText", "Plan",
               "Status", "Comment", "Questions", "Bash"]


def test_the_seed_example_parses_and_round_trips_with_the_seed_names() -> None:
    out = HostOutput.model_validate(SEED_EXAMPLE)
    assert out.status is HostStatus.ASSIGN
    assert out.current_subtask == "Extract the table data from the document"
    assert out.control_label == "0" and out.control_text == "Microsoft Word - Document1"
    assert out.plan == ("Extract table from Word", "Create chart in Excel")
    dumped = out.dump()
    assert list(dumped)[:11] == SEED_FIELDS
    assert {k: dumped[k] for k in SEED_FIELDS} == SEED_EXAMPLE
    assert HostOutput.model_validate(dumped) == out


def test_the_seven_host_statuses_and_six_app_statuses() -> None:
    assert [s.value for s in HostStatus] == ["CONTINUE", "ASSIGN", "FINISH", "FAIL", "ERROR", "PENDING", "CONFIRM"]
    assert [s.value for s in AppStatus] == ["CONTINUE", "FINISH", "FAIL", "ERROR", "PENDING", "CONFIRM"]


def test_python_names_are_accepted_too() -> None:
    out = HostOutput.model_validate({"status": "FINISH", "current_subtask": "x", "control_text": "documents"})
    assert out.status is HostStatus.FINISH and out.current_subtask == "x" and out.control_text == "documents"


@pytest.mark.parametrize("raw", ["finish", " Finish ", "FINISH.", "Status.FINISH"])
def test_status_spelling_is_forgiven(raw: str) -> None:
    assert HostOutput.model_validate({"Status": raw}).status is HostStatus.FINISH
    assert AppOutput.model_validate({"status": raw}).status is AppStatus.FINISH


@pytest.mark.parametrize("raw", ["DONE", "", None, 3])
def test_unknown_or_missing_status_is_refused(raw: object) -> None:
    with pytest.raises(ValidationError, match=r"Status"):
        HostOutput.model_validate({"Status": raw})
    with pytest.raises(ValidationError):
        AppOutput.model_validate({"status": raw})


def test_missing_status_is_refused() -> None:
    with pytest.raises(ValidationError, match="Status"):
        HostOutput.model_validate({"Observation": "x"})


def test_single_strings_become_lists_and_nulls_become_empty() -> None:
    out = HostOutput.model_validate({"Status": "CONTINUE", "Plan": "do it", "Questions": None, "Bash": None,
                                     "ControlLabel": 2, "Comment": None})
    assert out.plan == ("do it",) and out.questions == () and out.bash == "" and out.control_label == "2"
    assert out.comment == ""


def test_pending_needs_questions_and_assign_needs_something_to_assign() -> None:
    with pytest.raises(ValidationError, match="PENDING asks the person a question, and Questions is empty"):
        HostOutput.model_validate({"Status": "PENDING"})
    # a plan is no question: the status says what the answer is, it is not guessed from the other fields
    with pytest.raises(ValidationError, match="Questions is empty"):
        HostOutput.model_validate({"Status": "PENDING", "Subtasks": [{"id": "1", "description": "Chart it"}]})
    with pytest.raises(ValidationError, match="ASSIGN needs"):
        HostOutput.model_validate({"Status": "ASSIGN"})
    with pytest.raises(ValidationError, match="PENDING needs"):
        AppOutput.model_validate({"status": "PENDING"})
    assert HostOutput.model_validate({"Status": "PENDING", "Questions": "Which file?"}).questions == ("Which file?",)


def test_the_subtask_graph() -> None:
    out = HostOutput.model_validate({"Status": "ASSIGN", "Subtasks": [
        {"id": 1, "description": "Extract the table from report.docx", "application": "documents"},
        {"id": "2", "task": "Chart it", "app": "spreadsheets", "depends_on": 1, "tips": "use a bar chart"},
        {"id": "3", "description": "x", "dependencies": ["1", 2]},
    ]})
    first, second, third = out.subtasks
    assert first == SubtaskSpec(id="1", description="Extract the table from report.docx", application="documents")
    assert second.depends_on == ("1",) and second.description == "Chart it" and second.message == "use a bar chart"
    assert third.depends_on == ("1", "2") and third.application == ""
    assert out.dump()["Subtasks"][1] == {"id": "2", "description": "Chart it", "application": "spreadsheets",
                                         "depends_on": ["1"], "message": "use a bar chart", "reads": [], "writes": [],
                                         "tools": [], "hands_on": "nothing"}


def test_a_subtask_declares_paths_tools_and_what_it_hands_on() -> None:
    spec = SubtaskSpec.model_validate({"id": "1", "description": "Chart it", "application": "spreadsheets",
                                       "reads": "./report.xlsx", "writes": ["backup/", "./a.xlsx", "a.xlsx"],
                                       "tools": ["add_chart", "add_chart"], "hands_on": " Table "})
    assert spec.reads == ("report.xlsx",) and spec.writes == ("backup", "a.xlsx")
    assert spec.tools == ("add_chart",) and spec.hands_on is HandsOn.TABLE
    with pytest.raises(ValidationError, match="hands_on"):
        SubtaskSpec.model_validate({"id": "1", "description": "x", "hands_on": "a chart"})


def test_a_subtask_needs_an_id_and_a_description() -> None:
    with pytest.raises(ValidationError, match="id"):
        SubtaskSpec.model_validate({"description": "x"})
    with pytest.raises(ValidationError, match="description"):
        SubtaskSpec.model_validate({"id": "1"})


def test_app_output_actions_in_every_shape_a_small_model_writes() -> None:
    single = AppOutput.model_validate({"status": "CONTINUE", "action": {"name": "read_table", "args": '{"i": 0}'}})
    assert single.actions == (Action(function="read_table", arguments={"i": 0}),)
    many = AppOutput.model_validate({"Status": "FINISH", "Actions": [{"function": "a"}, {"tool": "b", "input": None}],
                                     "Result": [[1, 2]], "Plan": "next"})
    assert [a.function for a in many.actions] == ["a", "b"] and many.actions[1].arguments == {}
    assert many.result == [[1, 2]] and many.plan == ("next",)
    assert AppOutput.model_validate({"status": "FINISH", "actions": None}).actions == ()


def test_bad_actions_are_refused_with_the_reason() -> None:
    with pytest.raises(ValidationError, match="function"):
        AppOutput.model_validate({"status": "CONTINUE", "actions": [{"arguments": {}}]})
    with pytest.raises(ValidationError, match="JSON object"):
        AppOutput.model_validate({"status": "CONTINUE", "actions": [{"function": "f", "arguments": "{oops"}]})


def test_outputs_are_immutable_values() -> None:
    out = HostOutput.model_validate(SEED_EXAMPLE)
    with pytest.raises(ValidationError):
        out.status = HostStatus.FAIL  # type: ignore[misc]


