"""Arithmetic over tables for tools: numbers as documents write them, column and row totals."""

from __future__ import annotations

from pathlib import Path

import docx
import pytest

from podium.apps.documents import DocumentsApplication
from podium.apps.table_math import number, table_totals
from podium.apps.workspace import Workspace


@pytest.mark.parametrize(("cell", "value"), [
    (1200, 1200), (3.5, 3.5), ("1,200", 1200), ("€ 3.50", 3.5), ("12%", 12), ("-7", -7), (" 42 ", 42),
    ("Q1", None), ("2024-01-03", None), ("", None), (None, None), (True, None), ("1,20", None), ("12 apples", None),
])
def test_a_cell_counts_as_the_number_it_writes(cell: object, value: object) -> None:
    assert number(cell) == value and type(number(cell)) is type(value)


SALES = [["Sales 2024", "", ""], ["Region", "Q1", "Q2"], ["North", "1,200", "900"], ["South", "800", "1,500"],
         ["West", "1,000", "1,050"], ["", "", ""]]


def test_columns_and_rows_are_totalled_under_the_header_and_the_extremes_named() -> None:
    totals = table_totals(SALES)
    assert totals["header_row"] == 2 and totals["data_rows"] == 3
    assert totals["columns"]["Q1"] == {"column": 2, "sum": 3000, "count": 3, "min": 800, "max": 1200, "mean": 1000}
    assert totals["columns"]["Q2"]["sum"] == 3450
    assert totals["row_totals"] == [["North", 2100], ["South", 2300], ["West", 2050]]
    assert totals["highest_row_total"] == "South" and totals["lowest_row_total"] == "West"


def test_one_number_column_has_no_row_totals_and_a_table_without_numbers_is_an_error() -> None:
    assert "row_totals" not in table_totals([["Item", "Amount"], ["Rent", "1200"], ["Cloud", "80"]])
    with pytest.raises(ValueError, match="no column of numbers under the header row 1"):
        table_totals([["Item", "Owner"], ["Rent", "Ann"]])
    with pytest.raises(ValueError, match="no header row"):
        table_totals([["1", "2"], ["3", "4"]])


async def test_the_documents_tool_totals_a_real_table(tmp_path: Path) -> None:
    document = docx.Document()
    document.add_paragraph("Quarterly sales")
    table = document.add_table(rows=len(SALES) - 2, cols=3)
    for r, row in enumerate(SALES[1:-1]):
        for c, text in enumerate(row):
            table.cell(r, c).text = text
    document.save(str(tmp_path / "sales.docx"))
    documents = DocumentsApplication(Workspace(tmp_path))
    result = await documents.call("table_totals", {"path": "sales.docx"})
    assert result.ok and result.content["highest_row_total"] == "South"
    assert result.content["columns"]["Q2"]["max"] == 1500 and result.content["path"] == "sales.docx"
    missing = await documents.call("table_totals", {"path": "sales.docx", "index": 2})
    assert not missing.ok and "no table 2" in (missing.error or "")
