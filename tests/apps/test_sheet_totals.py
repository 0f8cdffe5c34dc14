"""add_totals_row on real .xlsx files, called the way an AppAgent calls it (tool name and JSON arguments)."""

from __future__ import annotations

from pathlib import Path

import pytest
from openpyxl import load_workbook

from podium.apps.spreadsheets import SpreadsheetsApplication
from podium.apps.workspace import Workspace
from tests.apps.test_sheet_sort import cells, workbook_at

INVOICES = [["Invoice", "Client", "Net", "VAT"], [2024031, "Nimbus Ltd", 1200, 240], [2024032, "Bolt", 850.5, 170.1],
            [2024033, "Acme", 400, 80]]


@pytest.fixture
def sheets(workspace: Workspace) -> SpreadsheetsApplication:
    return SpreadsheetsApplication(workspace)


async def test_a_total_row_puts_each_sum_under_its_own_column(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook_at(root / "i.xlsx", {"Invoices": INVOICES}, start_row=3)  # a table that does not start at A1
    done = await sheets.call("add_totals_row", {"path": "i.xlsx", "columns": ["net", "D"]})
    assert done.ok, done.error
    assert done.content == {"path": "i.xlsx", "sheet": "Invoices", "row": 7, "label": "Total",
                            "cells": {"C7": "=SUM(C4:C6)", "D7": "=SUM(D4:D6)"},
                            "totals": {"Net": 2450.5, "VAT": 490.1}}
    rows = cells(root / "i.xlsx", "Invoices")
    assert rows[6] == ["Total", None, "=SUM(C4:C6)", "=SUM(D4:D6)"] and rows[2:6] == INVOICES  # nothing else moved
    # again: the table's last row is the Total row now, and nothing is written twice
    again = await sheets.call("add_totals_row", {"path": "i.xlsx"})
    assert not again.ok and "the table's last row (7) is a 'Total' row already" in (again.error or "")


async def test_every_column_of_numbers_but_the_labels_one_by_default_and_clear_errors(
        sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook_at(root / "i.xlsx", {"Invoices": INVOICES})
    done = await sheets.call("add_totals_row", {"path": "i.xlsx", "label": "Sum"})
    assert done.ok and done.content["cells"] == {"C5": "=SUM(C2:C4)", "D5": "=SUM(D2:D4)"}  # not Invoice numbers
    assert load_workbook(root / "i.xlsx")["Invoices"]["A5"].value == "Sum"
    workbook_at(root / "j.xlsx", {"Invoices": INVOICES})
    unknown = await sheets.call("add_totals_row", {"path": "j.xlsx", "columns": ["Tax"]})
    assert unknown.error == ("add_totals_row: the table of 'Invoices' has no column 'Tax'; its columns are "
                             "['Invoice', 'Client', 'Net', 'VAT']")
    label = await sheets.call("add_totals_row", {"path": "j.xlsx", "columns": ["Invoice"]})
    assert "column A takes the label 'Total'" in (label.error or "")
    workbook_at(root / "words.xlsx", {"Notes": [["Name", "Note"], ["a", "b"]]})
    none = await sheets.call("add_totals_row", {"path": "words.xlsx"})
    assert "has no column of numbers to total" in (none.error or "")
    workbook_at(root / "empty.xlsx", {"Empty": []})
    assert "has no table" in ((await sheets.call("add_totals_row", {"path": "empty.xlsx"})).error or "")
    assert cells(root / "j.xlsx", "Invoices") == INVOICES  # every refusal wrote nothing
    assert not sheets.is_sensitive("add_totals_row", {"path": "j.xlsx"})  # only empty cells are written


async def test_a_total_asked_of_an_empty_sheet_points_to_a_formula_over_the_other_sheets_columns(
        sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook_at(root / "i.xlsx", {"Invoices": INVOICES, "Summary": []})
    refused = await sheets.call("add_totals_row", {"path": "i.xlsx", "sheet": "Summary"})
    assert not refused.ok and refused.instead == ("set_formula",)
    assert "Net: =SUM('Invoices'!C2:C4); VAT: =SUM('Invoices'!D2:D4)" in (refused.error or "")
    # the formula it names is the total, written where it was asked
    done = await sheets.call("set_formula", {"path": "i.xlsx", "sheet": "Summary", "cell": "B1",
                                             "formula": "=SUM('Invoices'!C2:C4)"})
    assert done.ok and done.content["value"] == 2450.5
