"""column_stats and group_totals on real .xlsx files: the arithmetic done by the tool, formulas computed."""

from __future__ import annotations

from pathlib import Path

from podium.apps.base import Change
from podium.apps.spreadsheets import SpreadsheetsApplication
from tests.apps.books import ORDERS, values, workbook
from tests.apps.effects_check import call_checked, kinds

SALES = [["Region", "Units", "Price", "Revenue"], ["North", 2, 1.5, "=B2*C2"], ["South", 3, 4, "=B3*C3"],
         ["North", 1, "2.5", "=B4*C4"], ["East", 5, 1.5, "=B5*C5"], ["Total", "=SUM(B2:B5)", None, "=SUM(D2:D5)"]]


async def test_stats_of_a_computed_column_leave_the_totals_row_out(sheets: SpreadsheetsApplication,
                                                                   root: Path) -> None:
    workbook(root / "s.xlsx", {"Sales": SALES})
    result = await sheets.call("column_stats", {"path": "s.xlsx", "column": "revenue", "count_matching": ">5"})
    assert result.content == {"path": "s.xlsx", "sheet": "Sales", "cells": "Revenue (D2:D5)", "count": 4,
                              "numbers": 4, "distinct": 4, "sum": 25, "average": 6.25, "min": 2.5, "max": 12,
                              "median": 5.25, "matching": {"criterion": ">5", "count": 2},
                              "note": "row 6 left out: it totals the rows above"}


async def test_stats_count_text_values_and_ranges(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "s.xlsx", {"Sales": SALES})
    regions = (await sheets.call("column_stats", {"path": "s.xlsx", "column": "A", "count_matching": "north"})).content
    assert (regions["count"], regions["numbers"], regions["distinct"], regions["matching"]["count"]) == (4, 0, 3, 2)
    assert "sum" not in regions
    prices = (await sheets.call("column_stats", {"path": "s.xlsx", "column": "C2:C5"})).content
    assert (prices["count"], prices["sum"], prices["median"]) == (4, 9.5, 2)
    assert prices["note"] == "1 of the numbers are written as text"


async def test_stats_errors_say_what_exists(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "s.xlsx", {"Sales": SALES, "Blank": []})
    missing = await sheets.call("column_stats", {"path": "s.xlsx", "column": "Cost"})
    assert "no column 'Cost'; its columns are ['Region', 'Units', 'Price', 'Revenue']" in missing.error
    empty_range = await sheets.call("column_stats", {"path": "s.xlsx", "column": "F2:F9"})
    assert "Sales!F2:F9 holds no values (the sheet's values are in A1:D6)" in empty_range.error
    empty = await sheets.call("column_stats", {"path": "s.xlsx", "sheet": "Blank", "column": "A"})
    assert "sheet 'Blank' is empty" in empty.error
    sheet = await sheets.call("column_stats", {"path": "s.xlsx", "sheet": "Other", "column": "A"})
    assert "no sheet named 'Other'; the sheets are ['Sales', 'Blank']" in sheet.error


async def test_group_totals_returned_and_written(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "s.xlsx", {"Sales": SALES})
    read = await sheets.call("group_totals", {"path": "s.xlsx", "by": "Region", "columns": ["Revenue", "Units"]})
    assert read.content["rows"] == [["Region", "Revenue", "Units"], ["East", 7.5, 5], ["North", 5.5, 3],
                                    ["South", 12, 3]]
    assert sheets.effects("group_totals", {"path": "s.xlsx", "by": "Region"}) == ()  # only returned: no change
    call = {"path": "s.xlsx", "by": "Region", "columns": ["Units"], "how": "average", "target_sheet": "By region"}
    assert kinds(sheets, "group_totals", call) == [Change.ADD]
    written = await call_checked(sheets, root, "group_totals", call)
    assert written.content["range"] == "A1:B4"
    assert values(root / "s.xlsx", "By region") == [["Region", "Average of Units"], ["East", 5], ["North", 1.5],
                                                    ["South", 3]]
    assert (await call_checked(sheets, root, "group_totals", call)).content["unchanged"] is True
    other = await call_checked(sheets, root, "group_totals", {**call, "how": "max"})
    assert "sheet 'By region' already holds values (A1:B4)" in other.error


async def test_group_counts_rows_when_nothing_is_totalled(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "o.xlsx", {"Orders": ORDERS})
    result = await sheets.call("group_totals", {"path": "o.xlsx", "by": "Region"})
    assert result.content["rows"] == [["Region", "Count"], ["East", 1], ["North", 2], ["South", 1]]
    bad = await sheets.call("group_totals", {"path": "o.xlsx", "by": "Region", "target_sheet": "a/b"})
    assert "'a/b' cannot be a sheet name" in bad.error
