"""fill_empty_cells on real workbooks: a value or the value above, one column or all, empty rows and formulas
left alone, and the declared effects against what each call did to the file."""

from __future__ import annotations

from pathlib import Path

from podium.apps.base import Change
from podium.apps.spreadsheets import SpreadsheetsApplication
from tests.apps.books import values, workbook
from tests.apps.effects_check import call_checked, kinds

CONTACTS = [["Name", "Phone", "City"], ["Eve", None, "Lyon"], ["Finn", "555-0101", None], [None, None, None],
            ["Gus", None, "Nice"]]


async def test_a_value_into_one_column(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "c.xlsx", {"People": CONTACTS})
    call = {"path": "c.xlsx", "column": "Phone", "value": "unknown"}
    # the gaps held nothing: filling them loses nothing, no approval
    assert kinds(sheets, "fill_empty_cells", call) == [Change.ADD] and not sheets.is_sensitive("fill_empty_cells",
                                                                                             call)
    result = await call_checked(sheets, root, "fill_empty_cells", call)
    assert result.content["cells"] == ["B2", "B5"]
    rows = values(root / "c.xlsx", "People")
    assert [r[1] for r in rows] == ["Phone", "unknown", "555-0101", None, "unknown"]  # the empty row stays empty
    again = await call_checked(sheets, root, "fill_empty_cells", call)
    assert again.content["unchanged"] and "under 'Phone'" in again.content["note"]


async def test_every_column_with_a_typed_value(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "c.xlsx", {"People": CONTACTS})
    await call_checked(sheets, root, "fill_empty_cells", {"path": "c.xlsx", "value": "0"})
    rows = values(root / "c.xlsx", "People")
    assert rows[1][1] == 0 and rows[2][2] == 0 and rows[4][1] == 0 and rows[3] == [None, None, None]


async def test_fill_down(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "r.xlsx", {"R": [["Region", "Rep", "Sales"], [None, "Al", 3], ["North", "Bo", 4],
                                     [None, "Cy", 5], ["South", "Di", "=C3+1"], [None, "Ed", None],
                                     [None, "Fa", 2]]})
    result = await call_checked(sheets, root, "fill_empty_cells", {"path": "r.xlsx", "from_above": True})
    assert result.content["left_empty"] == ["A2", "C6"] and "nothing above" in result.content["note"]
    rows = values(root / "r.xlsx", "R")
    assert [r[0] for r in rows] == ["Region", None, "North", "North", "South", "South", "South"]
    assert rows[5][2] is None  # under a formula: not copied


async def test_refusals(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "c.xlsx", {"People": CONTACTS})
    column = await call_checked(sheets, root, "fill_empty_cells", {"path": "c.xlsx", "column": "Mobile",
                                                                   "value": "-"})
    assert "Mobile" in column.error
    formula = await call_checked(sheets, root, "fill_empty_cells", {"path": "c.xlsx", "value": "=1+1"})
    assert "not a formula" in formula.error
    for neither_or_both in ({}, {"value": 1, "from_above": True}):
        refused = await call_checked(sheets, root, "fill_empty_cells", {"path": "c.xlsx", **neither_or_both})
        assert "either `value`" in refused.error
