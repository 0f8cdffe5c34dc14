"""Numbers an agent writes must be ones it was shown (podium.desktop.grounding)."""

from __future__ import annotations

from decimal import Decimal

from podium.desktop.blackboard import SubtaskResult
from podium.desktop.grounding import names_data, numbers, replaced_header, ungrounded, written_content
from podium.desktop.messages import AppStepRequest
from podium.desktop.prompts import app_user


def test_numbers_are_read_from_values_and_from_the_text_of_strings() -> None:
    found = numbers({"rows": [["Rent", 1500], ["Food", "1,599.84"]], "note": "+44 20 7946 0018", "ok": True,
                     "formula": "=SUM(B2:B3)", "nan": float("nan")})
    assert found == [Decimal(1500), Decimal("1599.84"), Decimal(44), Decimal(20), Decimal(7946), Decimal(18)]
    assert numbers("1,2 and 12,345,678.5") == [Decimal(1), Decimal(2), Decimal("12345678.5")]


def test_a_number_is_grounded_when_something_seen_rounds_to_it_as_written() -> None:
    seen = numbers({"Amount": {"sum": 3099.84, "mean": 442.8342857143}, "Ref": {"sum": 7308}})
    assert ungrounded(["3099.84", "3,100", 442.83, "442.8", 7308, "Total"], seen) == []
    assert ungrounded(["}095.0", 7095.0, 3099.85, 442.835], seen) == ["95.0", "7095.0", "3099.85", "442.835"]
    assert ungrounded(["step 3 of 9", "=SUM(B2:B99)"], ()) == []  # one-digit whole numbers, formulas
    assert ungrounded(["12", 12], ()) == ["12"]  # once each, as written


def test_only_what_a_change_writes_is_checked_not_where() -> None:
    assert written_content({"path": "q2024.xlsx", "start": "B12", "rows": [[1]], "content": "x", "value": 2}) \
        == [[[1]], "x", 2]


READ = [{"path": "meeting.docx", "blocks": [
    {"kind": "paragraph", "style": "Normal", "text": "Minutes of the planning meeting."},
    {"kind": "table", "index": 0, "rows": [["Action", "Owner"], ["Book the venue", "Lena"]]}], "tables": 1}]


def test_a_result_names_data_when_it_gives_a_value_its_outputs_hold() -> None:
    asked = "Read the table in meeting.docx"
    # a pointer at the data: its words are the read's own (file, kinds of block), not values of it
    assert not names_data("the paragraphs and tables of meeting.docx that read_document shows", READ, asked)
    assert not names_data("read 1 table", READ, asked)
    assert names_data("Action items: Book the venue (Lena)", READ, asked)
    assert names_data("The sum is 3,099.84", [{"Amount": {"sum": 3099.84}}])


def test_a_dependent_is_shown_the_outputs_not_a_result_that_only_points_at_them() -> None:
    pointer = SubtaskResult(subtask="1", application="documents", status="FINISH", outputs=tuple(READ),
                            description="Read the table in meeting.docx",
                            result="the paragraphs and tables of meeting.docx that read_document shows")
    shown = app_user(AppStepRequest(description="Write the action items into actions.txt", inputs=(pointer,)), [])
    assert "read_document shows" not in shown and "Book the venue" in shown
    data = pointer.model_copy(update={"result": "Book the venue (Lena)"})
    shown = app_user(AppStepRequest(description="Write the action items into actions.txt", inputs=(data,)), [])
    assert "result: Book the venue (Lena)" in shown and "tool outputs:" in shown


def test_a_table_written_without_its_header_row_under_other_text_is_found() -> None:
    table = [["Product", "Price"], ["Stapler", "12.5"], ["Toner", 89]]
    data = [{"blocks": [{"kind": "paragraph", "text": "Stock count."}, {"kind": "table", "rows": table}]}]
    swapped = [["Stock count.", "Counted at night."], ["Stapler", 12.5], ["Toner", "89"]]
    assert replaced_header(swapped, data) == (["Product", "Price"], ["Stock count.", "Counted at night."])
    assert replaced_header(table, data) is None  # the whole table
    assert replaced_header(table[1:], data) is None  # its rows alone (appended under the header already there)
    assert replaced_header([*table[1:], ["Total", 101.5]], data) is None  # a row under them, not in place
    assert replaced_header([["Title"], *table], data) is None  # text above the whole table
    assert replaced_header(swapped, [{"rows": table[:2]}]) is None  # a header and one row: no table to judge
