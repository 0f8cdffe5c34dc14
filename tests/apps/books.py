"""Small real workbooks and documents for the table and text tools' tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import docx
from openpyxl import Workbook, load_workbook

ORDERS = [["Item", "Region", "Qty", "Price"], ["pen", "North", 2, 1.5], ["ink", "South", 3, 4],
          ["pad", "North", 1, 2.5], ["cup", "East", 5, 2]]


def workbook(path: Path, sheets: dict[str, list[list[Any]]]) -> Path:
    """Write an .xlsx with one sheet a key, its rows from A1."""
    book = Workbook()
    book.remove(book.active)
    for title, rows in sheets.items():
        sheet = book.create_sheet(title)
        for row in rows:
            sheet.append(row)
    book.save(path)
    return path


def values(path: Path, sheet: str) -> list[list[Any]]:
    return [list(row) for row in load_workbook(path)[sheet].iter_rows(values_only=True)]


def report(path: Path) -> Path:
    """A .docx with a title, headings of two levels, formatted runs, a table and a footer."""
    document = docx.Document()
    document.add_heading("Annual report", 0)
    intro = document.add_paragraph("Revenue in ")
    intro.add_run("Q3 2024").bold = True
    intro.add_run(" grew; Q3 was strong.")
    document.add_heading("Sales", 1)
    document.add_paragraph("Sales rose in Q3.")
    table = document.add_table(rows=3, cols=3)
    table.style = "Table Grid"
    for r, row in enumerate([["Region", "Q3", "Q4"], ["North", "10", "12"], ["South", "8", "9"]]):
        for c, text in enumerate(row):
            table.cell(r, c).text = text
    for c in range(3):
        table.cell(0, c).paragraphs[0].runs[0].bold = True
    document.add_heading("Costs", 2)
    document.add_paragraph("Costs fell.")
    document.add_heading("Outlook", 1)
    document.add_paragraph("More in Q4.")
    document.sections[0].footer.paragraphs[0].text = "Q3 report"
    document.save(path)
    return path
