"""Hand-made end states: what a run could leave behind, made with python-docx and openpyxl directly."""

from __future__ import annotations

import shutil
import warnings
from collections.abc import Callable, Sequence
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


def append_table(path: Path, rows: Sequence[Sequence[Any]]) -> None:
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


def new_workbook(path: Path, sheets: dict[str, Sequence[Sequence[Any]]], start_row: int = 1,
                 start_col: int = 1) -> None:
    """A new workbook with these sheets, each sheet's rows written from (start_row, start_col)."""
    from openpyxl import Workbook

    wb = Workbook()
    wb.remove(wb.active)
    for name, rows in sheets.items():
        ws = wb.create_sheet(name)
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                ws.cell(row=start_row + r, column=start_col + c).value = value
    path.parent.mkdir(parents=True, exist_ok=True)
    wb.save(str(path))


def as_numbers(rows: Sequence[Sequence[Any]]) -> list[list[Any]]:
    """Rows with every cell that reads as a number made one (what a careful import writes)."""
    def convert(value: Any) -> Any:
        if isinstance(value, str):
            try:
                return int(value)
            except ValueError:
                try:
                    return float(value)
                except ValueError:
                    return value
        return value

    return [[convert(v) for v in row] for row in rows]


def delete(folder: Path, *names: str) -> None:
    for name in names:
        path = folder / name
        shutil.rmtree(path) if path.is_dir() else path.unlink()


def replace_in_document(path: Path, old: str, new: str, *, tables: bool = True) -> None:
    """Find and replace in every run of the body's paragraphs (and table cells), as a word processor does."""
    doc = document(path)
    paragraphs = list(doc.paragraphs)
    if tables:
        paragraphs += [p for table in doc.tables for row in table.rows for cell in row.cells for p in cell.paragraphs]
    for paragraph in paragraphs:
        for run in paragraph.runs:
            run.text = run.text.replace(old, new)
    doc.save(str(path))


Make = Callable[[Path], None]  # turns a freshly built task folder into an end state


def both(*makes: Make) -> Make:
    """The end state of these changes one after the other."""
    def make(folder: Path) -> None:
        for step in makes:
            step(folder)

    return make


def edit_workbook(file: str, change: Callable[[Any], None]) -> Make:
    """Open the workbook, let `change` edit it, save it."""
    def make(folder: Path) -> None:
        wb = workbook(folder / file)
        change(wb)
        wb.save(str(folder / file))

    return make


def drop_table_and_append(path: Path, text: str) -> None:
    """The document's first table removed, a paragraph appended: an edit that loses content."""
    doc = document(path)
    table = doc.tables[0]._tbl
    table.getparent().remove(table)
    doc.add_paragraph(text)
    doc.save(str(path))
