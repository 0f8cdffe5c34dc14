"""sort_rows on real .xlsx files, called the way an AppAgent calls it (tool name and JSON arguments)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from openpyxl import Workbook, load_workbook

from podium.apps.spreadsheets import SpreadsheetsApplication
from podium.apps.workspace import Workspace

SCORES = [["Name", "Score"], ["Dana", 71], ["Ben", 88], ["Alice", 64], ["Farid", 93], ["Chloe", 79]]


@pytest.fixture
def sheets(workspace: Workspace) -> SpreadsheetsApplication:
    return SpreadsheetsApplication(workspace)


def workbook_at(path: Path, tables: dict[str, list[list[Any]]], start_row: int = 1) -> None:
    book = Workbook()
    book.remove(book.active)
    for name, rows in tables.items():
        sheet = book.create_sheet(name)
        for r, row in enumerate(rows, start=start_row):
            for c, value in enumerate(row, start=1):
                sheet.cell(r, c, value)
    book.save(path)


def cells(path: Path, sheet: str) -> list[list[Any]]:
    return [list(row) for row in load_workbook(path)[sheet].iter_rows(values_only=True)]


async def test_descending_by_header_into_a_new_sheet(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook_at(root / "scores.xlsx", {"Scores": SCORES})
    before = cells(root / "scores.xlsx", "Scores")
    call = {"path": "scores.xlsx", "by": " score ", "order": "descending", "target_sheet": "Ranking"}
    assert not sheets.is_sensitive("sort_rows", call)  # a copy replaces nothing
    result = await sheets.call("sort_rows", call)
    assert result.ok, result.error
    ranked = [["Name", "Score"], ["Farid", 93], ["Ben", 88], ["Chloe", 79], ["Dana", 71], ["Alice", 64]]
    assert result.content == {"path": "scores.xlsx", "sheet": "Scores", "by": "Score", "column": "B",
                              "order": "descending", "target_sheet": "Ranking", "range": "A1:B6", "rows": ranked}
    book = load_workbook(root / "scores.xlsx")
    assert book.sheetnames == ["Scores", "Ranking"]
    assert cells(root / "scores.xlsx", "Ranking") == ranked
    assert cells(root / "scores.xlsx", "Scores") == before


async def test_an_empty_sheet_sorted_into_the_table_s_sheet_is_the_other_way_round(
        sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook_at(root / "scores.xlsx", {"Scores": SCORES, "Ranking": []})
    before = cells(root / "scores.xlsx", "Scores")
    call = {"path": "scores.xlsx", "by": "Score", "order": "descending", "sheet": "Ranking", "target_sheet": "Scores"}
    assert not sheets.is_sensitive("sort_rows", call)  # into the empty sheet: nothing is replaced
    result = await sheets.call("sort_rows", call)
    assert result.ok, result.error
    assert result.content["note"] == ("sheet 'Ranking' is empty and 'Scores' holds the table: 'Scores' was sorted "
                                      "into 'Ranking'")
    assert cells(root / "scores.xlsx", "Ranking")[1] == ["Farid", 93]
    assert cells(root / "scores.xlsx", "Scores") == before
    # both sheets hold values now: no swap (and the same sort again changes nothing)
    again = await sheets.call("sort_rows", {**call, "sheet": "Scores", "target_sheet": "Ranking"})
    assert again.ok and again.content.get("unchanged")


async def test_ascending_by_letter_with_a_title_above_the_table(sheets: SpreadsheetsApplication,
                                                                root: Path) -> None:
    workbook_at(root / "s.xlsx", {"Scores": SCORES}, start_row=3)
    book = load_workbook(root / "s.xlsx")
    book["Scores"]["A1"] = "Class 4B"  # a title: not the header, and it stays where it is
    book.save(root / "s.xlsx")
    call = {"path": "s.xlsx", "by": "b", "order": "ascending"}
    assert sheets.is_sensitive("sort_rows", call)  # in place: values move to other cells
    result = await sheets.call("sort_rows", call)
    assert result.ok, result.error
    assert result.content["range"] == "A4:B8" and "unchanged" not in result.content
    assert cells(root / "s.xlsx", "Scores") == [
        ["Class 4B", None], [None, None], ["Name", "Score"],
        ["Alice", 64], ["Dana", 71], ["Chloe", 79], ["Ben", 88], ["Farid", 93]]
    assert not sheets.is_sensitive("sort_rows", call)  # in order now: nothing would move
    again = await sheets.call("sort_rows", call)
    assert again.ok and again.content["unchanged"] is True and "already in this order" in again.content["note"]


async def test_empty_cells_last_both_ways_text_ignores_case_and_ties_keep_order(
        sheets: SpreadsheetsApplication, root: Path) -> None:
    rows = [["Item", "Price", "Note"], ["pear", 3, "a"], ["Apple", None, "b"], ["banana", 3, "c"],
            ["cherry", 1.5, "d"], [None, 7, "e"], ["", 2, "f"]]
    workbook_at(root / "m.xlsx", {"Data": rows})
    before = cells(root / "m.xlsx", "Data")
    up = await sheets.call("sort_rows", {"path": "m.xlsx", "by": "Price", "order": "ascending", "target_sheet": "Up"})
    down = await sheets.call("sort_rows", {"path": "m.xlsx", "by": "Price", "order": "descending",
                                           "target_sheet": "Down"})
    by_item = await sheets.call("sort_rows", {"path": "m.xlsx", "by": "ITEM", "order": "ascending",
                                              "target_sheet": "Items"})
    assert up.ok and down.ok and by_item.ok, (up.error, down.error, by_item.error)
    notes = {name: [row[2] for row in cells(root / "m.xlsx", name)[1:]] for name in ("Up", "Down", "Items")}
    assert notes["Up"] == ["d", "f", "a", "c", "e", "b"]  # 1.5, 2, 3 (pear before banana, as they were), 7, empty
    assert notes["Down"] == ["e", "a", "c", "f", "d", "b"]  # the empty price is last this way too
    assert notes["Items"] == ["b", "c", "d", "a", "e", "f"]  # Apple, banana, cherry, pear; no item last
    assert cells(root / "m.xlsx", "Data") == before


async def test_a_target_sheet_holding_values_is_refused_and_a_repeat_is_unchanged(
        sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook_at(root / "s.xlsx", {"Scores": SCORES, "Notes": [["keep me"]], "Empty": []})
    taken = await sheets.call("sort_rows", {"path": "s.xlsx", "by": "Score", "order": "ascending",
                                            "target_sheet": "Notes"})
    assert not taken.ok and "sheet 'Notes' already holds values (A1:A1)" in taken.error
    assert cells(root / "s.xlsx", "Notes") == [["keep me"]]
    call = {"path": "s.xlsx", "by": "Score", "order": "descending", "target_sheet": "Empty"}  # made by add_sheet
    assert (await sheets.call("sort_rows", call)).ok
    written = (root / "s.xlsx").read_bytes()
    repeat = await sheets.call("sort_rows", {**call, "target_sheet": "empty"})  # the same sheet in any case
    assert repeat.ok and repeat.content["unchanged"] is True and repeat.content["target_sheet"] == "Empty"
    assert (root / "s.xlsx").read_bytes() == written  # not even saved
    other_order = await sheets.call("sort_rows", {**call, "order": "ascending"})
    assert not other_order.ok and "already holds values (A1:B6)" in other_order.error
    assert cells(root / "s.xlsx", "Empty")[1] == ["Farid", 93]
    # a sheet holding the table as it is, unsorted (its numbers typed as text too), gets the sorted rows in
    # its place: that copy loses nothing the table's own sheet does not keep; the sort adds, it asks for nothing
    workbook_at(root / "c.xlsx", {"Scores": SCORES, "Copy": [[str(c) for c in r] for r in SCORES]})
    into_copy = {"path": "c.xlsx", "by": "Score", "order": "descending", "target_sheet": "Copy"}
    assert not sheets.is_sensitive("sort_rows", into_copy)
    replaced = await sheets.call("sort_rows", into_copy)
    assert replaced.ok and "held the table unsorted" in replaced.content["note"]
    assert cells(root / "c.xlsx", "Copy") == cells(root / "s.xlsx", "Empty")
    # one that holds some of its rows, or more, is refused as before
    workbook_at(root / "d.xlsx", {"Scores": SCORES, "Part": SCORES[:-1]})
    part = await sheets.call("sort_rows", {**into_copy, "path": "d.xlsx", "target_sheet": "Part"})
    assert not part.ok and "already holds values" in part.error


async def test_formulas_refuse_in_place_and_move_with_their_rows_into_a_copy(
        sheets: SpreadsheetsApplication, root: Path) -> None:
    rows = [["Item", "Qty", "Price", "Total"], ["b", 2, 5, "=B2*C2"], ["a", 1, 30, "=B3*C3"], ["c", 4, 1, "=B4*C4"]]
    workbook_at(root / "f.xlsx", {"Orders": rows})
    before = (root / "f.xlsx").read_bytes()
    call = {"path": "f.xlsx", "by": "Item", "order": "ascending"}
    assert not sheets.is_sensitive("sort_rows", call)  # refused at once, not held for an approval
    refused = await sheets.call("sort_rows", call)
    assert not refused.ok and "formulas" in refused.error and "target_sheet" in refused.error
    same_sheet = await sheets.call("sort_rows", {**call, "target_sheet": "Orders"})  # the source: in place
    assert not same_sheet.ok and "formulas" in same_sheet.error
    assert (root / "f.xlsx").read_bytes() == before
    copied = await sheets.call("sort_rows", {**call, "target_sheet": "Sorted"})
    assert copied.ok, copied.error
    assert cells(root / "f.xlsx", "Sorted") == [
        ["Item", "Qty", "Price", "Total"], ["a", 1, 30, "=B2*C2"], ["b", 2, 5, "=B3*C3"], ["c", 4, 1, "=B4*C4"]]


async def test_errors_say_what_to_fix(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook_at(root / "s.xlsx", {"Scores": SCORES, "Header": [["Name", "Score"]], "Blank": []})
    before = (root / "s.xlsx").read_bytes()
    unknown = await sheets.call("sort_rows", {"path": "s.xlsx", "order": "ascending",
                                              "by": "Points", "target_sheet": "R"})
    assert unknown.error == ("sort_rows: no column 'Points' in the table of sheet 'Scores'; its headers are "
                             "['Name', 'Score'] (columns A-B)")
    assert "no column 'D'" in (await sheets.call("sort_rows", {"path": "s.xlsx", "order": "ascending",
                                                               "by": "D"})).error
    missing = await sheets.call("sort_rows", {"path": "s.xlsx", "order": "ascending", "by": "Score", "sheet": "Ranks"})
    assert "no sheet named 'Ranks'" in missing.error and "Scores" in missing.error
    header_only = await sheets.call("sort_rows", {"path": "s.xlsx", "order": "ascending",
                                                  "by": "Score", "sheet": "Header"})
    assert "no data rows" in header_only.error
    assert "is empty" in (await sheets.call("sort_rows", {"path": "s.xlsx", "order": "ascending",
                                                          "by": "A", "sheet": "Blank"})).error
    assert "order: Field required" in (await sheets.call("sort_rows", {"path": "s.xlsx", "by": "Score"})).error
    assert (root / "s.xlsx").read_bytes() == before


async def test_a_long_table_shows_only_its_first_rows(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook_at(root / "l.xlsx", {"L": [["N", "Value"], *[[f"n{i}", i] for i in range(60)]]})
    result = await sheets.call("sort_rows", {"path": "l.xlsx", "by": "Value", "order": "descending",
                                             "target_sheet": "Top"})
    assert result.ok and result.content["sorted_rows"] == 60 and "rows" not in result.content
    assert result.content["first_rows"][:2] == [["N", "Value"], ["n59", 59]]
    assert cells(root / "l.xlsx", "Top")[-1] == ["n0", 0]


def test_the_tool_is_listed_with_a_short_description(sheets: SpreadsheetsApplication) -> None:
    tool = next(t for t in sheets.tools() if t.name == "sort_rows")
    assert not tool.read_only and len(tool.description) < 160
    assert set(tool.parameters["properties"]) == {"path", "by", "order", "sheet", "target_sheet"}
    assert tool.parameters["required"] == ["path", "by", "order"]
