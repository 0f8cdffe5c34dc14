"""The blackboard: an immutable, serialisable record whose prompt rendering stays bounded."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from podium.desktop.blackboard import QA, Blackboard, Screenshot, SubtaskResult, TrajectoryEntry


def _full() -> Blackboard:
    return (Blackboard()
            .add_request("Extract the table from report.docx and chart it in budget.xlsx")
            .add_questions(QA(question="Which sheet?", answer="Sheet1", asked_by="app-spreadsheets", subtask="2"))
            .add_trajectory(TrajectoryEntry(step=1, agent="host", status="ASSIGN", action="plan 2 subtasks",
                                            timings_ms={"DATA_COLLECTION": 1.5}))
            .add_screenshot(Screenshot(path="/tmp/shot1.png", agent="host", step=1, metadata={"w": 800}))
            .add_result(SubtaskResult(subtask="1", application="documents", status="FINISH",
                                      result=[["Q1", 10], ["Q2", 20]])))


def test_every_add_returns_a_new_board_and_leaves_the_old_one() -> None:
    empty = Blackboard()
    assert empty.is_empty()
    one = empty.add_request("hello")
    assert empty.is_empty() and one.requests == ("hello",) and not one.is_empty()
    with pytest.raises(ValidationError):
        one.requests = ()  # type: ignore[misc]
    full = _full()
    assert (len(full.requests), len(full.questions), len(full.trajectories), len(full.screenshots),
            len(full.results)) == (1, 1, 1, 1, 1)


def test_round_trip_through_dict_and_json() -> None:
    board = _full()
    assert Blackboard.from_dict(board.to_dict()) == board
    assert Blackboard.from_json(board.to_json()) == board
    assert board.to_dict()["results"][0]["result"] == [["Q1", 10], ["Q2", 20]]


def test_loading_bad_data_says_what_is_wrong() -> None:
    with pytest.raises(ValidationError, match="trajectories"):
        Blackboard.from_dict({"trajectories": [{"agent": "host"}]})
    with pytest.raises(ValidationError, match=r"bogus"):
        Blackboard.from_dict({"bogus": []})


def test_a_later_result_for_the_same_subtask_replaces_the_earlier_one() -> None:
    board = _full().add_result(SubtaskResult(subtask="1", application="documents", status="FINISH", result="v2"))
    assert len(board.results) == 1 and board.result_of("1").result == "v2"  # type: ignore[union-attr]
    assert board.result_of("9") is None


def test_to_prompt_shows_every_category() -> None:
    text = _full().to_prompt()
    for part in ("## Requests", "report.docx", "## Subtask results", '[["Q1", 10], ["Q2", 20]]',
                 "## Questions and answers", "Which sheet?", "Sheet1", "## Screenshots", "/tmp/shot1.png",
                 "## Trajectory", "plan 2 subtasks"):
        assert part in text
    assert Blackboard().to_prompt() == ""


def test_to_prompt_drops_the_oldest_trajectory_first_and_says_how_many() -> None:
    board = _full()
    for step in range(2, 200):
        board = board.add_trajectory(TrajectoryEntry(step=step, agent="app-documents", status="CONTINUE",
                                                     action=f"action number {step}"))
    text = board.to_prompt(2000)
    assert len(text) <= 2000
    assert "action number 199" in text and "action number 2:" not in text.replace("number 2:", "number 2 :")
    assert "earlier entries omitted" in text
    assert '[["Q1", 10], ["Q2", 20]]' in text and "Which sheet?" in text  # essentials survive


def test_one_huge_entry_is_clipped() -> None:
    board = Blackboard().add_result(SubtaskResult(subtask="1", application="documents", status="FINISH",
                                                  result="x" * 100_000))
    text = board.to_prompt()
    assert len(text) < 1000 and "[clipped]" in text


@settings(max_examples=60, deadline=None)
@given(requests=st.lists(st.text(max_size=300), max_size=20),
       steps=st.lists(st.text(max_size=300), max_size=60),
       answers=st.lists(st.text(max_size=300), max_size=20),
       limit=st.integers(min_value=0, max_value=5000))
def test_to_prompt_is_always_bounded(requests: list[str], steps: list[str], answers: list[str], limit: int) -> None:
    board = Blackboard()
    for r in requests:
        board = board.add_request(r)
    for i, s in enumerate(steps):
        board = board.add_trajectory(TrajectoryEntry(step=i, agent="a", status="CONTINUE", action=s))
    for a in answers:
        board = board.add_questions(QA(question="q", answer=a))
    assert len(board.to_prompt(limit)) <= limit


def test_to_prompt_leaves_out_what_the_reader_already_shows() -> None:
    board = (Blackboard().add_request("chart it")
             .add_result(SubtaskResult(subtask="1", application="documents", status="FINISH", result=[["Q1", 10]]))
             .add_result(SubtaskResult(subtask="3", application="files", status="FINISH", result="listed"))
             .add_trajectory(TrajectoryEntry(step=1, agent="host", status="ASSIGN", action="plan"),
                             TrajectoryEntry(step=2, agent="app-documents", status="FINISH", subtask="1",
                                             action="read_table"),
                             TrajectoryEntry(step=3, agent="app-spreadsheets", status="CONTINUE", subtask="2",
                                             action="read_sheet(report.docx)")))
    text = board.to_prompt(shown_request="chart it", shown_results={"1"}, own_subtask="2")
    assert "listed" in text and "plan" in text  # what the reader does not show otherwise
    assert "Q1" not in text and "read_table" not in text  # its inputs, and how they were made
    assert "read_sheet" not in text and "chart it" not in text  # its own steps (its memory), the request
    assert "Q1" in board.to_prompt() and "read_sheet" in board.to_prompt()
    assert "plan" not in board.to_prompt(hidden_agents={"host"}) and "listed" in board.to_prompt(hidden_agents={"host"})
