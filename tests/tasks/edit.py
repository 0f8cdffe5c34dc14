"""Hand-made end states: what a run could leave behind, made with python-docx and openpyxl directly."""

from __future__ import annotations

import shutil
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def workbook(path: Path) -> Any:
    from openpyxl import load_workbook

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return load_workbook(path)


def write_cells(path: Path, sheet: str | None, start_row: int, start_col: int, rows: Sequence[Sequence[Any]]) -> None:
    wb = workbook(path)
    ws = wb[sheet] if sheet else wb.active
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            ws.cell(row=start_row + r, column=start_col + c).value = value  # None clears the cell
    wb.save(str(path))


def add_chart(path: Path, sheet: str, kind: str, title: str | None, values: str, categories: str | None,
              *, drop_existing: bool = False, anchor: str = "H2") -> None:
    """A native chart over `values` (e.g. "B1:B5", header row first) the way openpyxl writes one."""
    from openpyxl.chart import BarChart, LineChart, PieChart, Reference
    from openpyxl.utils.cell import range_boundaries

    wb = workbook(path)
    ws = wb[sheet]
    if drop_existing:
        ws._charts = []
    chart = {"bar": BarChart, "line": LineChart, "pie": PieChart}[kind]()
    if title is not None:
        chart.title = title
    min_col, min_row, max_col, max_row = range_boundaries(values)
    chart.add_data(Reference(ws, min_col=min_col, min_row=min_row, max_col=max_col, max_row=max_row),
                   titles_from_data=True)
    if categories:
        min_col, min_row, max_col, max_row = range_boundaries(categories)
        chart.set_categories(Reference(ws, min_col=min_col, min_row=min_row, max_col=max_col, max_row=max_row))
    ws.add_chart(chart, anchor)
    wb.save(str(path))


def document(path: Path) -> Any:
    import docx

    return docx.Document(str(path))


def append_paragraph(path: Path, text: str) -> None:
    doc = document(path)
    doc.add_paragraph(text)
    doc.save(str(path))


def merge_tables(path: Path, rows: Sequence[Sequence[Any]]) -> None:
    doc = document(path)
    table = doc.add_table(rows=len(rows), cols=len(rows[0]))
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            table.cell(r, c).text = str(value)
    doc.save(str(path))


def new_document(path: Path, paragraphs: Sequence[str]) -> None:
    import docx

    doc = docx.Document()
    for text in paragraphs:
        doc.add_paragraph(text)
    doc.save(str(path))


def write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def copy(folder: Path, source: str, destination: str) -> None:
    (folder / destination).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(folder / source, folder / destination)


def move(folder: Path, source: str, destination: str) -> None:
    (folder / destination).parent.mkdir(parents=True, exist_ok=True)
    shutil.move(folder / source, folder / destination)
