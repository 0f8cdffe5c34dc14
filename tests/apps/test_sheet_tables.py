"""split_by_column and merge_tables on real workbooks and a real .csv file."""

from __future__ import annotations

from pathlib import Path

from openpyxl import load_workbook

from podium.apps.base import Change
from podium.apps.spreadsheets import SpreadsheetsApplication
from tests.apps.books import ORDERS, values, workbook
from tests.apps.effects_check import call_checked, kinds


async def test_split_into_one_sheet_a_value(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "o.xlsx", {"Orders": [*ORDERS, ["mug", "West/East", 1, 3]]})
    call = {"path": "o.xlsx", "by": "Region"}
    assert kinds(sheets, "split_by_column", call) == [Change.ADD]
    result = await call_checked(sheets, root, "split_by_column", call)
    assert [(s["sheet"], s["value"], s["rows"]) for s in result.content["sheets"]] == [
        ("North", "North", 2), ("South", "South", 1), ("East", "East", 1), ("West_East", "West/East", 1)]
    assert values(root / "o.xlsx", "North") == [ORDERS[0], ORDERS[1], ORDERS[3]]
    assert load_workbook(root / "o.xlsx").sheetnames == ["Orders", "North", "South", "East", "West_East"]
    assert (await call_checked(sheets, root, "split_by_column", call)).content["unchanged"] is True


async def test_split_never_writes_over_a_sheet(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "o.xlsx", {"Orders": ORDERS, "North": [["notes of mine"]]})
    result = await call_checked(sheets, root, "split_by_column", {"path": "o.xlsx", "by": "Region"})
    assert "sheet 'North' already holds values (A1:A1)" in result.error
    assert load_workbook(root / "o.xlsx").sheetnames == ["Orders", "North"]  # nothing else made either
    column = await call_checked(sheets, root, "split_by_column", {"path": "o.xlsx", "by": "Town"})
    assert "no column 'Town'" in column.error


async def test_append_matches_columns_by_header(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "m.xlsx", {"Jan": [["Item", "Region", "Amount"], ["pen", "North", 2], ["ink", "South", 3],
                                       ["Total", None, "=SUM(C2:C3)"]],
                               "Feb": [["region", "AMOUNT", "Item", "Note"], ["East", 5, "pen", "late"]]})
    call = {"path": "m.xlsx", "sheet": "Jan", "source_sheet": "Feb"}
    assert kinds(sheets, "merge_tables", call) == [Change.ADD]
    result = await call_checked(sheets, root, "merge_tables", call)
    assert result.content["rows_added"] == 1
    assert "columns added to the table: ['Note']" in result.content["note"]
    assert values(root / "m.xlsx", "Jan") == [["Item", "Region", "Amount", "Note"], ["pen", "North", 2, None],
                                              ["ink", "South", 3, None], ["pen", "East", 5, "late"],
                                              ["Total", None, "=SUM(C2:C4)", None]]
    assert (await call_checked(sheets, root, "merge_tables", call)).content["unchanged"] is True


async def test_a_merge_under_a_table_that_shares_no_column_is_refused(sheets: SpreadsheetsApplication,
                                                                       root: Path) -> None:
    # a row of data typed where a header belongs: the sources' rows would go beside it, under columns of their own
    workbook(root / "all.xlsx", {"Sheet1": [["Vega SA", "Brighton", 2020], ["Acme Corp", None, None]]})
    workbook(root / "north.xlsx", {"Customers": [["Customer", "City", "Since"], ["Nimbus", "Leeds", 2019]]})
    before = (root / "all.xlsx").read_bytes()
    result = await call_checked(sheets, root, "merge_tables", {"path": "all.xlsx", "sheet": "Sheet1",
                                                                "source": "north.xlsx"})
    assert "has none of the source's columns ['Customer', 'City', 'Since']" in str(result.error)
    assert (root / "all.xlsx").read_bytes() == before
    # into a sheet of its own, the same merge makes the table
    done = await call_checked(sheets, root, "merge_tables", {"path": "all.xlsx", "sheet": "Customers",
                                                              "source": "north.xlsx"})
    assert done.ok and values(root / "all.xlsx", "Customers") == [["Customer", "City", "Since"],
                                                                  ["Nimbus", "Leeds", 2019]]


async def test_append_from_another_workbook_and_a_csv(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "all.xlsx", {"All": ORDERS[:2]})
    workbook(root / "more.xlsx", {"Data": [ORDERS[0], ORDERS[2], ["sum", None, "=SUM(C2:C2)", None]]})
    (root / "late.csv").write_text("Qty,Item,Region,Price\n7,lamp,West,9.5\n")
    first = await call_checked(sheets, root, "merge_tables", {"path": "all.xlsx", "sheet": "All",
                                                               "source": "more.xlsx"})
    assert first.content["rows_added"] == 1  # the source's totals row is left out
    await call_checked(sheets, root, "merge_tables", {"path": "all.xlsx", "sheet": "All", "source": "late.csv"})
    assert values(root / "all.xlsx", "All") == [ORDERS[0], ORDERS[1], ORDERS[2], ["lamp", "West", 7, 9.5]]


async def test_append_into_a_new_workbook(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "jan.xlsx", {"Jan": ORDERS})
    call = {"path": "year.xlsx", "sheet": "Year", "source": "jan.xlsx"}
    assert kinds(sheets, "merge_tables", call) == [Change.CREATE]
    result = await call_checked(sheets, root, "merge_tables", call)
    assert result.content["created_sheet"] is True
    assert values(root / "year.xlsx", "Year") == ORDERS


async def test_the_sheet_left_out_is_the_first_sources_or_the_active_one(sheets: SpreadsheetsApplication,
                                                                          root: Path) -> None:
    workbook(root / "north.xlsx", {"Customers": [["Customer", "City"], ["Nimbus", "Leeds"]]})
    (root / "south.csv").write_text("City,Customer\nHull,Bolt\n")
    # a new workbook's sheet is named after the first source's
    call = {"path": "all.xlsx", "sources": ["north.xlsx", "south.csv"]}
    assert kinds(sheets, "merge_tables", call) == [Change.CREATE]
    made = await call_checked(sheets, root, "merge_tables", call)
    assert made.content["sheet"] == "Customers"
    assert values(root / "all.xlsx", "Customers") == [["Customer", "City"], ["Nimbus", "Leeds"], ["Bolt", "Hull"]]
    # a workbook that exists takes the rows under its active sheet's table
    workbook(root / "late.xlsx", {"More": [["Customer", "City"], ["Orbit", "York"]]})
    added = await call_checked(sheets, root, "merge_tables", {"path": "all.xlsx", "source": "late.xlsx"})
    assert added.content["sheet"] == "Customers" and added.content["rows_added"] == 1
    # rows from the workbook's own sheets need the sheet they go to
    own = await call_checked(sheets, root, "merge_tables", {"path": "all.xlsx", "source_sheet": "Customers"})
    assert "give `sheet`" in str(own.error)


async def test_append_errors_leave_no_file(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "jan.xlsx", {"Jan": ORDERS})
    missing = await call_checked(sheets, root, "merge_tables", {"path": "year.xlsx", "sheet": "Y",
                                                                 "source": "feb.xlsx"})
    assert "'feb.xlsx' does not exist; the .xlsx files here: 'jan.xlsx'" in missing.error
    assert not (root / "year.xlsx").exists()
    same = await call_checked(sheets, root, "merge_tables", {"path": "jan.xlsx", "sheet": "Jan",
                                                              "source_sheet": "Jan"})
    assert "both sheet 'Jan'" in same.error


async def test_merge_several_sources_in_one_call(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "north.xlsx", {"N": [["Item", "Amount"], ["pen", 2], ["ink", 3]]})
    workbook(root / "south.xlsx", {"S": [["amount", "Item", "Note"], [5, "cup", "late"]]})
    (root / "east.csv").write_text("Item,Amount\nlamp,7\n")
    call = {"path": "all.xlsx", "sheet": "All", "sources": ["north.xlsx", "south.xlsx", "east.csv"]}
    assert kinds(sheets, "merge_tables", call) == [Change.CREATE]
    result = await call_checked(sheets, root, "merge_tables", call)
    assert result.content["rows_added"] == 4
    assert result.content["sources"] == [{"source": "north.xlsx", "rows": 2}, {"source": "south.xlsx", "rows": 1},
                                         {"source": "east.csv", "rows": 1}]
    assert values(root / "all.xlsx", "All") == [["Item", "Amount", "Note"], ["pen", 2, None], ["ink", 3, None],
                                                ["cup", 5, "late"], ["lamp", 7, None]]
    assert (await call_checked(sheets, root, "merge_tables", call)).content["unchanged"] is True
    # one source that cannot be read: nothing is written, from any of them
    broken = await call_checked(sheets, root, "merge_tables", {"path": "all.xlsx", "sheet": "All",
                                                                "sources": ["north.xlsx", "west.xlsx"]})
    assert "'west.xlsx' does not exist" in broken.error
    assert len(values(root / "all.xlsx", "All")) == 5


async def test_a_source_whose_rows_the_table_holds_already_is_not_added_again(sheets: SpreadsheetsApplication,
                                                                               root: Path) -> None:
    workbook(root / "north.xlsx", {"N": [["Name", "City"], ["Nimbus", "Leeds"], ["Bolt", "York"]]})
    workbook(root / "south.xlsx", {"S": [["Name", "City"], ["Vega", "Bath"], ["Vega", "Bath"]]})
    # the first source's rows written in before the merge: the merge adds the other source's alone, and a
    # source's own repeated rows are its to keep
    workbook(root / "all.xlsx", {"All": [["Name", "City"], ["Nimbus", "Leeds"], ["Bolt", "York"]]})
    call = {"path": "all.xlsx", "sheet": "All", "sources": ["north.xlsx", "south.xlsx"]}
    assert kinds(sheets, "merge_tables", call) == [Change.ADD]
    result = await call_checked(sheets, root, "merge_tables", call)
    assert result.content["rows_added"] == 2 and result.content["held_already"] == ["north.xlsx"]
    assert "the table held the rows of north.xlsx already" in result.content["note"]
    assert values(root / "all.xlsx", "All") == [["Name", "City"], ["Nimbus", "Leeds"], ["Bolt", "York"],
                                                ["Vega", "Bath"], ["Vega", "Bath"]]
    # a source held already, though not as the table's last rows, changes nothing (and is declared so)
    again = {"path": "all.xlsx", "sheet": "All", "source": "north.xlsx"}
    assert kinds(sheets, "merge_tables", again) == []
    assert (await call_checked(sheets, root, "merge_tables", again)).content["unchanged"] is True
    # a part of a source held is no source held: its rows all go in
    workbook(root / "west.xlsx", {"W": [["Name", "City"], ["Bolt", "York"], ["Ada", "Hull"]]})
    west = await call_checked(sheets, root, "merge_tables", {"path": "all.xlsx", "sheet": "All",
                                                              "source": "west.xlsx"})
    assert west.content["rows_added"] == 2
