"""format_cells, set_column_width and add_chart's columns, on real .xlsx files read back with openpyxl."""

from __future__ import annotations

import re
from pathlib import Path

from openpyxl import load_workbook

from podium.apps.base import TOOK_COLUMNS, Change
from podium.apps.spreadsheets import SpreadsheetsApplication
from podium.apps.xlsx_package import Package
from tests.apps.books import ORDERS, workbook
from tests.apps.effects_check import call_checked, kinds
from tests.apps.xlsx_craft import excel_style_workbook


async def test_bold_header_and_number_format(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "o.xlsx", {"Orders": [["Orders"], *ORDERS, ["Total", None, "=SUM(C3:C6)", "=SUM(D3:D6)"]]})
    header = {"path": "o.xlsx", "cells": "header", "bold": True, "fill_color": "#FFFF00"}
    assert kinds(sheets, "format_cells", header) == [Change.EDIT] and sheets.is_sensitive("format_cells", header)
    assert (await call_checked(sheets, root, "format_cells", header)).content["cells"] == "A2:D2"
    price = {"path": "o.xlsx", "cells": "Price", "number_format": "0.00", "align": "right"}
    assert (await call_checked(sheets, root, "format_cells", price)).content["cells"] == "D3:D6"  # not the total
    sheet = load_workbook(root / "o.xlsx")["Orders"]
    assert [sheet.cell(2, c).font.b for c in range(1, 5)] == [True] * 4 and sheet["A1"].font.b is not True
    assert sheet["B2"].fill.fgColor.rgb == "FFFFFF00"
    assert [sheet.cell(r, 4).number_format for r in range(3, 8)] == ["0.00"] * 4 + ["General"]
    assert sheet["D3"].alignment.horizontal == "right" and sheet["D3"].value == 1.5  # values as they were
    assert (await call_checked(sheets, root, "format_cells", header)).content["unchanged"] is True


async def test_a_range_and_colours(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "o.xlsx", {"Orders": ORDERS})
    await call_checked(sheets, root, "format_cells", {"path": "o.xlsx", "cells": "A2:B3", "italic": True,
                                                       "font_color": "0000ff"})
    sheet = load_workbook(root / "o.xlsx")["Orders"]
    assert sheet["B3"].font.i and sheet["B3"].font.color.rgb == "FF0000FF" and not sheet["C3"].font.i


async def test_whole_rows_over_the_columns_the_sheet_uses(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "o.xlsx", {"Orders": ORDERS})
    done = await call_checked(sheets, root, "format_cells", {"path": "o.xlsx", "cells": "1:1", "bold": True})
    width = len(ORDERS[0])
    assert done.content["cells"] == f"A1:{'ABCDEFGH'[width - 1]}1" and done.content["changed_cells"] == width
    sheet = load_workbook(root / "o.xlsx")["Orders"]
    assert all(sheet.cell(1, c).font.b for c in range(1, width + 1)) and not sheet["A2"].font.b
    backwards = await call_checked(sheets, root, "format_cells", {"path": "o.xlsx", "cells": "3:2", "italic": True})
    assert backwards.content["cells"] == f"A2:{'ABCDEFGH'[width - 1]}3"
    zero = await call_checked(sheets, root, "format_cells", {"path": "o.xlsx", "cells": "0:1", "bold": True})
    assert "rows are numbered from 1" in zero.error


async def test_format_refusals(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "o.xlsx", {"Orders": ORDERS})
    nothing = await call_checked(sheets, root, "format_cells", {"path": "o.xlsx", "cells": "A1"})
    assert "say what to change" in nothing.error
    colour = await call_checked(sheets, root, "format_cells", {"path": "o.xlsx", "cells": "A1", "fill_color": "red"})
    assert "fill_color" in colour.error
    column = await call_checked(sheets, root, "format_cells", {"path": "o.xlsx", "cells": "Cost", "bold": True})
    assert "no column 'Cost'; its columns are ['Item', 'Region', 'Qty', 'Price']" in column.error


async def test_widths_set_and_fitted(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "o.xlsx", {"Orders": [["Item", "Description"], ["pen", "a blue pen with a long name"]]})
    fit = {"path": "o.xlsx", "columns": ["Description"]}
    assert kinds(sheets, "set_column_width", fit) == [Change.EDIT]
    assert (await call_checked(sheets, root, "set_column_width", fit)).content["widths"] == {"B": 29.0}
    await call_checked(sheets, root, "set_column_width", {"path": "o.xlsx", "columns": ["A", "F"], "width": 15})
    sheet = load_workbook(root / "o.xlsx")["Orders"]
    assert (sheet.column_dimensions["B"].width, sheet.column_dimensions["A"].width,
            sheet.column_dimensions["F"].width) == (29, 15, 15)
    assert (await call_checked(sheets, root, "set_column_width", fit)).content["unchanged"] is True


async def test_formatting_keeps_drawings(sheets: SpreadsheetsApplication, root: Path) -> None:
    excel_style_workbook(root / "e.xlsx")
    await call_checked(sheets, root, "format_cells", {"path": "e.xlsx", "sheet": "Data", "cells": "header",
                                                       "bold": True})
    listed = (await sheets.call("list_sheets", {"path": "e.xlsx"})).content["sheets"][0]
    assert (listed["charts"], listed["pictures"], listed["shapes"]) == (1, 1, 1)


async def test_chart_of_chosen_columns_only(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "w.xlsx", {"Weeks": [["Week", "Sales", "COGS", "Profit"], ["W1", 10, 4, 6], ["W2", 12, 5, 7]]})
    result = await sheets.call("add_chart", {"path": "w.xlsx", "kind": "column", "data": "A1:D3",
                                             "title": "Sales & COGS", "columns": ["cogs", "B"]})
    assert result.ok, result.error
    package = Package((root / "w.xlsx").read_bytes())
    chart = package.parts["xl/charts/chart1.xml"].decode()
    assert re.findall(r"<f>'Weeks'!\$([A-Z])\$2:\$[A-Z]\$3</f>", chart) == ["A", "C", "A", "B"]  # categories, series
    wrong = await sheets.call("add_chart", {"path": "w.xlsx", "kind": "line", "data": "A1:D3", "title": "x",
                                            "columns": ["Margin"]})
    assert "no value column 'Margin'; its value columns: ['Sales (B)', 'COGS (C)', 'Profit (D)']" in wrong.error
    # the categories' column named among the series is the categories still
    named = await sheets.call("add_chart", {"path": "w.xlsx", "kind": "line", "data": "A1:D3", "title": "COGS",
                                            "columns": ["Week", "COGS"]})
    assert named.ok and named.content[TOOK_COLUMNS] == ["COGS"]
    assert named.content["note"] == "'Week' is the chart's categories (column A), not a series"
    alone = await sheets.call("add_chart", {"path": "w.xlsx", "kind": "line", "data": "A1:D3", "title": "All",
                                            "columns": ["A"]})
    assert alone.ok and alone.content[TOOK_COLUMNS] == ["Sales", "COGS", "Profit"]


async def test_a_chart_made_again_over_fewer_of_its_columns_replaces_it(sheets: SpreadsheetsApplication,
                                                                        root: Path) -> None:
    workbook(root / "w.xlsx", {"Weeks": [["Week", "Sales", "COGS", "Profit"], ["W1", 10, 4, 6], ["W2", 12, 5, 7]]})
    every = {"path": "w.xlsx", "kind": "line", "data": "A1:D3", "title": "Sales and COGS"}
    first = await sheets.call("add_chart", every)
    assert first.ok and first.content[TOOK_COLUMNS] == ["Sales", "COGS", "Profit"]
    again = await sheets.call("add_chart", {**every, "columns": ["sales", "COGS"]})
    assert again.ok and again.content[TOOK_COLUMNS] == ["Sales", "COGS"]
    assert "replaces the chart added before, which plotted Sales, COGS, Profit" in again.content["note"]
    listed = (await sheets.call("list_sheets", {"path": "w.xlsx"})).content["sheets"][0]
    assert listed["charts"] == 1
    chart = Package((root / "w.xlsx").read_bytes()).parts["xl/charts/chart1.xml"].decode()
    assert re.findall(r"<f>'Weeks'!([A-Z])1</f>", chart) == ["B", "C"]  # the series' names
    # another title, more columns, or a file changed since: a chart added beside it
    other = await sheets.call("add_chart", {**every, "title": "Profit", "columns": ["Profit"]})
    assert other.ok and "note" not in other.content
    assert (await sheets.call("list_sheets", {"path": "w.xlsx"})).content["sheets"][0]["charts"] == 2
    await call_checked(sheets, root, "set_cell", {"path": "w.xlsx", "cell": "E1", "value": "Note"})
    later = await sheets.call("add_chart", {**every, "title": "Profit", "columns": ["Profit"], "kind": "bar"})
    assert later.ok and (await sheets.call("list_sheets", {"path": "w.xlsx"})).content["sheets"][0]["charts"] == 3


async def test_merge_a_title_over_the_table(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "o.xlsx", {"Orders": [[None], *ORDERS]})
    call = {"path": "o.xlsx", "range": "A1:D1", "text": "Orders of May"}
    assert kinds(sheets, "merge_cells", call) == [Change.EDIT]
    assert (await call_checked(sheets, root, "merge_cells", call)).content["merged"] == "A1:D1"
    sheet = load_workbook(root / "o.xlsx")["Orders"]
    assert [str(r) for r in sheet.merged_cells.ranges] == ["A1:D1"]
    assert (sheet["A1"].value, sheet["A1"].alignment.horizontal) == ("Orders of May", "center")
    assert (await call_checked(sheets, root, "merge_cells", call)).content["unchanged"] is True
    lossy = await call_checked(sheets, root, "merge_cells", {"path": "o.xlsx", "range": "A2:B3"})
    assert "B2, A3, B3 hold values that merging A2:B3 would lose" in lossy.error
    overlap = await call_checked(sheets, root, "merge_cells", {"path": "o.xlsx", "range": "C1:E1"})
    assert "overlaps the merged cells ['A1:D1']" in overlap.error


async def test_freeze_the_header_row(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "o.xlsx", {"Orders": ORDERS})
    call = {"path": "o.xlsx", "cell": "B2"}
    assert kinds(sheets, "freeze_panes", call) == [Change.EDIT]
    await call_checked(sheets, root, "freeze_panes", call)
    assert load_workbook(root / "o.xlsx")["Orders"].freeze_panes == "B2"
    assert (await call_checked(sheets, root, "freeze_panes", call)).content["unchanged"] is True
    bad = await call_checked(sheets, root, "freeze_panes", {"path": "o.xlsx", "cell": "row 2"})
    assert "is not a cell reference like 'A1'" in bad.error


async def test_highlight_rows_meeting_conditions(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "s.xlsx", {"Stock": [["Item", "Stock", "Shelf"], ["bolts", 140, "A"], ["nuts", 8, "B"],
                                         ["hinges", 3, "A"], ["washers", 60, "C"]]})
    call = {"path": "s.xlsx", "where": [{"column": "Stock", "op": "<", "value": 10}], "fill_color": "#FFFF00"}
    assert kinds(sheets, "highlight_rows", call) == [Change.EDIT]
    result = await call_checked(sheets, root, "highlight_rows", call)
    assert result.content["rows"] == [3, 4] and result.content["changed_cells"] == 6
    sheet = load_workbook(root / "s.xlsx")["Stock"]
    yellow = {c.coordinate for row in sheet.iter_rows() for c in row if c.fill.fill_type == "solid"}
    assert yellow == {"A3", "B3", "C3", "A4", "B4", "C4"}
    assert (await call_checked(sheets, root, "highlight_rows", call)).content["unchanged"]
    cells = await call_checked(sheets, root, "highlight_rows", {**call, "whole_row": False, "font_color": "#FF0000",
                                                                "fill_color": None, "bold": True})
    assert cells.content["changed_cells"] == 2
    bold = {c.coordinate for row in load_workbook(root / "s.xlsx")["Stock"].iter_rows() for c in row if c.font.b}
    assert bold == {"B3", "B4"}


async def test_highlight_rows_refusals(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "s.xlsx", {"Stock": [["Item", "Stock"], ["bolts", 140]]})
    none = await call_checked(sheets, root, "highlight_rows", {"path": "s.xlsx", "fill_color": "#FFFF00",
                                                               "where": [{"column": "Stock", "op": "<", "value": 10}]})
    assert "no row of 'Stock' meets the conditions" in none.error and "140" in none.error
    looks = await call_checked(sheets, root, "highlight_rows", {"path": "s.xlsx",
                                                                "where": [{"column": "Stock", "op": ">", "value": 1}]})
    assert "say how the rows look" in looks.error
