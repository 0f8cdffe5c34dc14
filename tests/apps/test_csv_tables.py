"""CSV files as tables: files' read_csv and write_csv_table, spreadsheets' import_csv and export_csv."""

from __future__ import annotations

import csv
import datetime as dt
from pathlib import Path

import pytest

from podium.apps.base import Change
from podium.apps.csv_tables import csv_value, parse_csv
from podium.apps.files import FilesApplication
from podium.apps.spreadsheets import SpreadsheetsApplication
from podium.apps.workspace import Workspace
from tests.apps.books import ORDERS, values, workbook
from tests.apps.effects_check import call_checked, kinds


@pytest.fixture
def files(workspace: Workspace) -> FilesApplication:
    return FilesApplication(workspace)


@pytest.mark.parametrize(("text", "value"), [("42", 42), ("-3.5", -3.5), ("007", "007"), ("", None), (" ", None),
                                             ("1,200", "1,200"), ("1e3", "1e3"), ("N/A", "N/A")])
def test_values(text: str, value: object) -> None:
    assert csv_value(text) == value


def test_the_delimiter_is_found() -> None:
    assert parse_csv("a;b\n1;2,5\n") == [["a", "b"], [1, "2,5"]]
    assert parse_csv("a\tb\n1\t2\n\n") == [["a", "b"], [1, 2]]
    assert parse_csv('name,note\n"Smith, J","said ""hi"""\n') == [["name", "note"], ["Smith, J", 'said "hi"']]


async def test_write_then_read(files: FilesApplication, root: Path) -> None:
    rows = [["Item", "Qty", "Code", "Paid"], ["pen", 2.0, "007", True], ["ink, blue", None, "x", False]]
    call = {"path": "out/items.csv", "rows": rows}
    assert kinds(files, "write_csv_table", call) == [Change.CREATE]
    await call_checked(files, root, "write_csv_table", call)
    assert (root / "out/items.csv").read_text() == 'Item,Qty,Code,Paid\npen,2,007,TRUE\n"ink, blue",,x,FALSE\n'
    read = await files.call("read_csv", {"path": "out/items.csv"})
    assert read.content["rows"] == [["Item", "Qty", "Code", "Paid"], ["pen", 2, "007", "TRUE"],
                                    ["ink, blue", None, "x", "FALSE"]]
    assert (await call_checked(files, root, "write_csv_table", call)).content["unchanged"] is True
    taken = await call_checked(files, root, "write_csv_table", {**call, "rows": [["other"]]})
    assert "already exists: to change a part of it and keep the rest, call replace_text" in taken.error
    assert "pass overwrite=true to replace it whole" in taken.error
    replace = {**call, "rows": [["other"]], "overwrite": True}
    assert kinds(files, "write_csv_table", replace) == [Change.REPLACE]
    assert files.is_sensitive("write_csv_table", replace)


async def test_column_totals_of_a_csv_file(files: FilesApplication, root: Path) -> None:
    (root / "hours.csv").write_text("Timesheet\nDate,Person,Hours,Note\n2024-06-03,Ines,7.5,\n"
                                    "2024-06-04,Omar,8,workshop\n2024-06-05,Ines,6.25,12\n")
    assert files._by_name["column_totals"].computes and files._by_name["column_totals"].read_only
    totals = (await files.call("column_totals", {"path": "hours.csv"})).content
    assert totals["header_row"] == 2 and totals["data_rows"] == "3-5"
    assert totals["columns"]["Hours"] == {"column": "C", "sum": 21.75, "count": 3, "min": 6.25, "max": 8,
                                          "mean": 7.25}
    assert totals["columns"]["Note"]["sum"] == 12  # a number in a column of notes counts; texts do not
    (root / "names.csv").write_text("Name,City\nAda,Oslo\n")
    assert "has no column of numbers" in (await files.call("column_totals", {"path": "names.csv"})).error
    (root / "empty.csv").write_text("")
    assert "holds no rows" in (await files.call("column_totals", {"path": "empty.csv"})).error


async def test_csv_refusals(files: FilesApplication, root: Path) -> None:
    wrong = await call_checked(files, root, "write_csv_table", {"path": "items.txt", "rows": [["a"]]})
    assert "'items.txt' is not a .csv file: rows go into another text file with write_file" in wrong.error
    missing = await files.call("read_csv", {"path": "nope.csv"})
    assert "'nope.csv' does not exist" in missing.error


async def test_import_into_a_new_workbook_and_an_existing_one(sheets: SpreadsheetsApplication, root: Path) -> None:
    (root / "may.csv").write_text("Item,Qty\npen,2\nink,3\n")
    call = {"path": "book.xlsx", "source": "may.csv"}
    assert kinds(sheets, "import_csv", call) == [Change.CREATE]
    result = await call_checked(sheets, root, "import_csv", call)
    assert result.content["sheet"] == "may" and result.content["created_workbook"] is True
    assert values(root / "book.xlsx", "may") == [["Item", "Qty"], ["pen", 2], ["ink", 3]]
    assert (await call_checked(sheets, root, "import_csv", call)).content["unchanged"] is True
    workbook(root / "o.xlsx", {"Orders": ORDERS})
    into = {"path": "o.xlsx", "source": "may.csv", "sheet": "May"}
    assert kinds(sheets, "import_csv", into) == [Change.ADD]
    await call_checked(sheets, root, "import_csv", into)
    assert values(root / "o.xlsx", "Orders") == ORDERS
    taken = await call_checked(sheets, root, "import_csv", {**into, "sheet": "Orders"})
    assert "sheet 'Orders' already holds values" in taken.error


async def test_export_writes_what_the_sheet_shows(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "o.xlsx", {"Orders": [[*ORDERS[0], "Total", "Day"],
                                          ["pen", "North", 2, 1.5, "=C2*D2", dt.datetime(2024, 5, 1)]]})
    call = {"path": "o.xlsx", "target": "orders.csv"}
    assert kinds(sheets, "export_csv", call) == [Change.CREATE]
    await call_checked(sheets, root, "export_csv", call)
    with open(root / "orders.csv", newline="") as handle:
        assert list(csv.reader(handle)) == [["Item", "Region", "Qty", "Price", "Total", "Day"],
                                            ["pen", "North", "2", "1.5", "3", "2024-05-01"]]
    assert (await call_checked(sheets, root, "export_csv", call)).content["unchanged"] is True
    (root / "notes.csv").write_text("mine\n")
    kept = await call_checked(sheets, root, "export_csv", {**call, "target": "notes.csv"})
    assert "already exists; pass overwrite=true" in kept.error
    over = {**call, "target": "notes.csv", "overwrite": True}
    assert kinds(sheets, "export_csv", over) == [Change.REPLACE] and sheets.is_sensitive("export_csv", over)
