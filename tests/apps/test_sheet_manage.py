"""rename_sheet, copy_sheet and delete_sheet on real workbooks, one of them written the way Excel writes it."""

from __future__ import annotations

import re
from pathlib import Path

from openpyxl import load_workbook
from openpyxl.workbook.defined_name import DefinedName

from podium.apps.base import Change
from podium.apps.spreadsheets import SpreadsheetsApplication
from podium.apps.xlsx_package import Package, drawing_summary, rename_sheet_references
from tests.apps.books import ORDERS, values, workbook
from tests.apps.effects_check import call_checked, kinds
from tests.apps.test_spreadsheets import check_package
from tests.apps.xlsx_craft import excel_style_workbook


def chart_references(path: Path) -> list[str]:
    package = Package(path.read_bytes())
    return [ref for name, data in package.parts.items() if re.fullmatch(r"xl/charts/chart\d*\.xml", name)
            for ref in re.findall(r"<c:f>([^<]*)</c:f>", data.decode())]


async def test_rename_carries_formulas_and_charts(sheets: SpreadsheetsApplication, root: Path) -> None:
    excel_style_workbook(root / "e.xlsx")  # sheet Data holds a chart, a picture and a text box
    await sheets.call("set_formula", {"path": "e.xlsx", "sheet": "Notes", "cell": "B1",
                                      "formula": '=SUM(Data!B2:B4)&" Data!B2"'})  # text that only looks like one
    call = {"path": "e.xlsx", "sheet": "Data", "new_name": "Sales 2024"}
    assert kinds(sheets, "rename_sheet", call) == [Change.EDIT] and sheets.is_sensitive("rename_sheet", call)
    result = await call_checked(sheets, root, "rename_sheet", call)
    assert result.content["formulas_updated"] == 1
    renamed = load_workbook(root / "e.xlsx")
    assert renamed.sheetnames[0] == "Sales 2024"
    assert renamed["Notes"]["B1"].value == '=SUM(\'Sales 2024\'!B2:B4)&" Data!B2"'
    assert drawing_summary((root / "e.xlsx").read_bytes())["Sales 2024"] == {"charts": 1, "pictures": 1,
                                                                             "shapes": 1}
    assert set(chart_references(root / "e.xlsx")) == {"'Sales 2024'!$B$1", "'Sales 2024'!$A$2:$A$4",
                                                      "'Sales 2024'!$B$2:$B$4"}
    check_package(root / "e.xlsx")
    assert (await call_checked(sheets, root, "rename_sheet", {**call, "sheet": "Sales 2024"})).content["unchanged"]


async def test_rename_carries_defined_names(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "o.xlsx", {"Orders": ORDERS, "Sum": [["=SUM(Orders!C2:C5)"]]})
    book = load_workbook(root / "o.xlsx")
    book.defined_names["qty"] = DefinedName("qty", attr_text="Orders!$C$2:$C$5")
    book.save(root / "o.xlsx")
    await call_checked(sheets, root, "rename_sheet", {"path": "o.xlsx", "sheet": "Orders", "new_name": "May"})
    renamed = load_workbook(root / "o.xlsx")
    assert renamed.defined_names["qty"].attr_text == "May!$C$2:$C$5"
    assert renamed["Sum"]["A1"].value == "=SUM(May!C2:C5)"


async def test_rename_refusals(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "o.xlsx", {"Orders": ORDERS, "Old": [[1]]})
    taken = await call_checked(sheets, root, "rename_sheet", {"path": "o.xlsx", "sheet": "Old", "new_name": "orders"})
    assert "already has a sheet named 'Orders'" in taken.error
    bad = await call_checked(sheets, root, "rename_sheet", {"path": "o.xlsx", "sheet": "Old", "new_name": "Q1/Q2"})
    assert "cannot be a sheet name" in bad.error
    missing = await call_checked(sheets, root, "rename_sheet", {"path": "o.xlsx", "sheet": "New", "new_name": "X"})
    assert "no sheet named 'New'; the sheets are ['Orders', 'Old']" in missing.error


def test_chart_references_are_renamed_as_written() -> None:
    assert rename_sheet_references("(Data!$A$1,'Data'!$B$1,Other!$C$1)", {"Data": "My data"}) == \
        "('My data'!$A$1,'My data'!$B$1,Other!$C$1)"
    assert rename_sheet_references("'It''s'!A1", {"It's": "Spring"}) == "Spring!A1"
    assert rename_sheet_references("Data!A1", {"Data": "AB12"}) == "'AB12'!A1"  # a name like a cell is quoted


async def test_copy_before_a_sheet_and_its_drawings_stay(sheets: SpreadsheetsApplication, root: Path) -> None:
    excel_style_workbook(root / "e.xlsx")
    call = {"path": "e.xlsx", "sheet": "Data", "new_name": "Data (Backup)", "before": "Notes"}
    assert kinds(sheets, "copy_sheet", call) == [Change.ADD]
    result = await call_checked(sheets, root, "copy_sheet", call)
    assert result.content["sheets"] == ["Data", "Data (Backup)", "Notes"]
    assert "stay on it" in result.content["note"]
    assert values(root / "e.xlsx", "Data (Backup)") == values(root / "e.xlsx", "Data")
    summary = drawing_summary((root / "e.xlsx").read_bytes())
    assert summary["Data"] == {"charts": 1, "pictures": 1, "shapes": 1}
    check_package(root / "e.xlsx")
    assert (await call_checked(sheets, root, "copy_sheet", call)).content["unchanged"] is True


async def test_delete_is_an_edit_and_refused_while_used(sheets: SpreadsheetsApplication, root: Path) -> None:
    excel_style_workbook(root / "e.xlsx")
    await sheets.call("add_sheet", {"path": "e.xlsx", "name": "Calc"})
    await sheets.call("set_formula", {"path": "e.xlsx", "sheet": "Calc", "cell": "A1", "formula": "=Notes!A1"})
    used = await call_checked(sheets, root, "delete_sheet", {"path": "e.xlsx", "sheet": "Notes"})
    assert "sheet 'Notes' is used by Calc!A1" in used.error
    call = {"path": "e.xlsx", "sheet": "Calc"}
    assert kinds(sheets, "delete_sheet", call) == [Change.EDIT] and sheets.is_sensitive("delete_sheet", call)
    assert (await call_checked(sheets, root, "delete_sheet", call)).content["sheets"] == ["Data", "Notes"]
    assert drawing_summary((root / "e.xlsx").read_bytes())["Data"]["charts"] == 1
    check_package(root / "e.xlsx")


async def test_delete_refused_for_a_charted_sheet_and_the_last_one(sheets: SpreadsheetsApplication,
                                                                    root: Path) -> None:
    workbook(root / "c.xlsx", {"Data": ORDERS, "Charts": [["chart below"]]})
    await sheets.call("add_chart", {"path": "c.xlsx", "sheet": "Charts", "kind": "bar", "data": "Data!C1:D5",
                                    "title": "Qty"})
    charted = await call_checked(sheets, root, "delete_sheet", {"path": "c.xlsx", "sheet": "Data"})
    assert "used by a chart on 'Charts'" in charted.error
    workbook(root / "one.xlsx", {"Only": ORDERS})
    last = await call_checked(sheets, root, "delete_sheet", {"path": "one.xlsx", "sheet": "Only"})
    assert "the workbook's only sheet" in last.error
