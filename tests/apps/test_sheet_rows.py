"""filter_rows, find_duplicates and remove_duplicate_rows on real .xlsx files."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from openpyxl import load_workbook

from podium.apps.base import Change
from podium.apps.spreadsheets import SpreadsheetsApplication
from tests.apps.books import ORDERS, values, workbook
from tests.apps.effects_check import call_checked, kinds

DAY = dt.datetime(2024, 1, 3)
LOG = [["Date", "Channel", "Revenue"], [DAY, "E-mail Coupon", 120], [DAY, "Web", 80],
       [DAY, "E-mail Coupon", 120], [DAY + dt.timedelta(days=1), "e-mail coupon", 60], [DAY, "Web", 80]]


async def test_filter_into_a_new_sheet_keeps_chosen_columns_and_dates(sheets: SpreadsheetsApplication,
                                                                      root: Path) -> None:
    workbook(root / "log.xlsx", {"Log": LOG})
    call = {"path": "log.xlsx", "where": [{"column": "channel", "op": "=", "value": "E-mail coupon"}],
            "columns": ["Date", "Revenue"], "target_sheet": "Coupons"}
    assert kinds(sheets, "filter_rows", call) == [Change.ADD]
    result = await call_checked(sheets, root, "filter_rows", call)
    assert result.content["matched"] == 3 and result.content["source_rows"] == [2, 4, 5]
    written = load_workbook(root / "log.xlsx")["Coupons"]
    assert [[c.value for c in row] for row in written.iter_rows()] == [
        ["Date", "Revenue"], [DAY, 120], [DAY, 120], [DAY + dt.timedelta(days=1), 60]]
    assert written["A2"].number_format == "yyyy-mm-dd h:mm:ss"  # the date's format moved with it
    assert (await call_checked(sheets, root, "filter_rows", call)).content["unchanged"] is True


@pytest.mark.parametrize(("condition", "rows"), [
    ({"column": "Qty", "op": ">", "value": 2}, [3, 5]), ({"column": "Qty", "op": "<=", "value": "2"}, [2, 4]),
    ({"column": "Item", "op": "contains", "value": "P"}, [2, 4, 5]),
    ({"column": "Region", "op": "!=", "value": "north"}, [3, 5]),
    ({"column": "Item", "op": "starts_with", "value": "c"}, [5]), ({"column": "D", "op": "=", "value": 2}, [5]),
])
async def test_conditions(sheets: SpreadsheetsApplication, root: Path, condition: dict[str, object],
                          rows: list[int]) -> None:
    workbook(root / "o.xlsx", {"Orders": ORDERS})
    result = await call_checked(sheets, root, "filter_rows", {"path": "o.xlsx", "where": [condition]})
    assert result.content["source_rows"] == rows
    assert len(result.content["rows"]) == len(rows) + 1  # the header first


async def test_filter_errors_say_what_is_there(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "o.xlsx", {"Orders": ORDERS})
    none = await call_checked(sheets, root, "filter_rows", {"path": "o.xlsx", "target_sheet": "W",
                                                             "where": [{"column": "Region", "value": "West"}]})
    assert "no row of 'Orders' meets the conditions; column 'Region' holds: East, North, South" in none.error
    column = await call_checked(sheets, root, "filter_rows", {"path": "o.xlsx", "where": [{"column": "Town"}]})
    assert "no column 'Town'" in column.error


async def test_duplicates_listed_and_removed_into_a_new_sheet(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "log.xlsx", {"Log": LOG})
    found = (await sheets.call("find_duplicates", {"path": "log.xlsx"})).content
    assert found["duplicate_rows"] == [4, 6] and found["count"] == 2
    assert [g["rows"] for g in found["groups"]] == [[2, 4], [3, 6]]
    by_channel = (await sheets.call("find_duplicates", {"path": "log.xlsx", "columns": ["Channel"]})).content
    assert by_channel["duplicate_rows"] == [4, 6]  # "e-mail coupon" differs in case: not the same text
    call = {"path": "log.xlsx", "target_sheet": "Unique"}
    result = await call_checked(sheets, root, "remove_duplicate_rows", call)
    assert result.content["removed_rows"] == [4, 6] and result.content["rows_left"] == 3
    assert len(values(root / "log.xlsx", "Unique")) == 4
    assert len(values(root / "log.xlsx", "Log")) == 6  # the table itself is as it was


async def test_duplicates_removed_in_place_need_approval(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "log.xlsx", {"Log": LOG})
    call = {"path": "log.xlsx"}
    assert kinds(sheets, "remove_duplicate_rows", call) == [Change.EDIT] and sheets.is_sensitive(
        "remove_duplicate_rows", call)
    await call_checked(sheets, root, "remove_duplicate_rows", call)
    # the rows kept move up; the rows freed below the table are left empty
    assert values(root / "log.xlsx", "Log") == [LOG[0], LOG[1], LOG[2], LOG[4], [None] * 3, [None] * 3]
    again = await call_checked(sheets, root, "remove_duplicate_rows", call)
    assert again.content["unchanged"] is True


async def test_in_place_removal_refused_over_formulas(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "o.xlsx", {"Orders": [["A", "B"], [1, "=A2*2"], [1, "=A3*2"]]})
    result = await call_checked(sheets, root, "remove_duplicate_rows", {"path": "o.xlsx", "columns": ["A"]})
    assert "holds formulas" in result.error and "give target_sheet" in result.error
    computed = (await sheets.call("find_duplicates", {"path": "o.xlsx", "columns": ["B"]})).content
    assert computed["duplicate_rows"] == [3]  # both formulas compute to 2
    none = (await sheets.call("find_duplicates", {"path": "o.xlsx", "columns": ["B"], "sheet": "Orders"})).content
    assert none["count"] == 1
