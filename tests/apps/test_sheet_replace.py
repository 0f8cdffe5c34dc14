"""replace_text on real workbooks: whole cells, text inside cells, one column, numbers, formulas left alone,
and the declared effects against what each call did to the file."""

from __future__ import annotations

from pathlib import Path

from openpyxl import load_workbook

from podium.apps.base import Change
from podium.apps.spreadsheets import SpreadsheetsApplication
from tests.apps.books import values, workbook
from tests.apps.effects_check import call_checked, kinds

CONTACTS = [["Name", "Phone", "City"], ["Eve", "N/A", "NY"], ["Finn", "555-0101", "NYC"], ["Gus", "n/a", "NY"],
            ["Hal", 0, "Boston"]]


async def test_whole_cells_any_case_in_every_sheet(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "c.xlsx", {"People": CONTACTS, "Old": [["Phone"], ["N/A"]]})
    call = {"path": "c.xlsx", "find": "N/A", "replace_with": "unknown"}
    assert kinds(sheets, "replace_text", call) == [Change.EDIT] and sheets.is_sensitive("replace_text", call)
    result = await call_checked(sheets, root, "replace_text", call)
    assert result.content["replaced"] == 3
    assert result.content["cells"] == ["People!B2", "People!B4", "Old!A2"]
    assert [r[1] for r in values(root / "c.xlsx", "People")] == ["Phone", "unknown", "555-0101", "unknown", 0]
    again = await call_checked(sheets, root, "replace_text", call)
    assert again.content["unchanged"] and "holds 'N/A' as a whole cell" in again.content["note"]


async def test_whole_cell_leaves_longer_texts(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "c.xlsx", {"People": CONTACTS})
    await call_checked(sheets, root, "replace_text", {"path": "c.xlsx", "find": "NY", "replace_with": "New York",
                                                        "column": "City"})
    assert [r[2] for r in values(root / "c.xlsx", "People")] == ["City", "New York", "NYC", "New York", "Boston"]


async def test_inside_texts_and_match_case(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "c.xlsx", {"People": CONTACTS})
    await call_checked(sheets, root, "replace_text", {"path": "c.xlsx", "find": "NY", "replace_with": "Albany",
                                                        "whole_cell": False, "match_case": True, "sheet": "People"})
    assert [r[2] for r in values(root / "c.xlsx", "People")] == ["City", "Albany", "AlbanyC", "Albany", "Boston"]
    assert values(root / "c.xlsx", "People")[3][1] == "n/a"  # another column, matched by case only


async def test_numbers_and_typed_replacements(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "c.xlsx", {"People": CONTACTS})
    await call_checked(sheets, root, "replace_text", {"path": "c.xlsx", "find": "0.0", "replace_with": "1,200",
                                                        "column": "B"})
    assert values(root / "c.xlsx", "People")[4][1] == 1200  # a number found as a number, written as one
    await call_checked(sheets, root, "replace_text", {"path": "c.xlsx", "find": "n/a", "replace_with": "",
                                                        "column": "Phone"})
    assert [r[1] for r in values(root / "c.xlsx", "People")][1:4] == [None, "555-0101", None]


async def test_header_and_formulas_are_not_values(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "t.xlsx", {"T": [["Total", "x"], [3, "=SUM(A2:A2)"], ["Total", 1]]})
    result = await call_checked(sheets, root, "replace_text", {"path": "t.xlsx", "find": "Total",
                                                                 "replace_with": "Sum", "column": "A"})
    assert result.content["cells"] == ["T!A3"]
    book = load_workbook(root / "t.xlsx")
    assert book["T"]["A1"].value == "Total" and book["T"]["B2"].value == "=SUM(A2:A2)"
    nothing = await call_checked(sheets, root, "replace_text", {"path": "t.xlsx", "find": "SUM",
                                                                  "replace_with": "MAX", "whole_cell": False,
                                                                  "match_case": True})
    assert nothing.content["unchanged"] and "'Sum', 'Total', 'x'" in nothing.content["note"]


async def test_refusals_change_nothing(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "c.xlsx", {"People": CONTACTS})
    column = await call_checked(sheets, root, "replace_text", {"path": "c.xlsx", "find": "N/A",
                                                                 "replace_with": "-", "column": "Mobile"})
    assert "Mobile" in column.error and "Phone" in column.error
    formula = await call_checked(sheets, root, "replace_text", {"path": "c.xlsx", "find": "N/A",
                                                                  "replace_with": "=1+1"})
    assert "not a formula" in formula.error
    sheet = await call_checked(sheets, root, "replace_text", {"path": "c.xlsx", "find": "N/A",
                                                                "replace_with": "-", "sheet": "Nope"})
    assert "no sheet named 'Nope'" in sheet.error
