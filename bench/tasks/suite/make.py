"""Building task folders: real .docx and .xlsx files from plain Python values."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

Block = str | Sequence[Sequence[Any]]  # a paragraph, or a table (rows of cells; the first is the header)


def docx_file(path: Path, blocks: Sequence[Block], heading: str | None = None) -> None:
    """A Word document: an optional title, then paragraphs and tables in order."""
    import docx

    document = docx.Document()
    if heading:
        document.add_heading(heading, level=1)
    for block in blocks:
        if isinstance(block, str):
            document.add_paragraph(block)
            continue
        table = document.add_table(rows=len(block), cols=max(len(r) for r in block))
        table.style = document.styles["Table Grid"]
        for r, row in enumerate(block):
            for c, value in enumerate(row):
                table.cell(r, c).text = str(value)
    path.parent.mkdir(parents=True, exist_ok=True)
    document.save(str(path))


def xlsx_file(path: Path, sheets: Mapping[str, Sequence[Sequence[Any]]], start_row: int = 1) -> Any:
    """A workbook with the given sheets (rows written from row `start_row`); returns the saved workbook,
    so a caller can add charts and save again."""
    from openpyxl import Workbook

    workbook = Workbook()
    workbook.remove(workbook.active)
    for name, rows in sheets.items():
        ws = workbook.create_sheet(name)
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                ws.cell(row=start_row + r, column=1 + c, value=value)
    path.parent.mkdir(parents=True, exist_ok=True)
    workbook.save(str(path))
    return workbook


def text_file(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def make_files(folder: Path, files: Mapping[str, Any]) -> None:
    """Files by name, each from its content: a .docx from a list of blocks (or one paragraph), a .xlsx from
    {sheet: rows}, anything else from its text."""
    for name, content in files.items():
        path = folder / name
        suffix = path.suffix.lower()
        if suffix == ".docx":
            docx_file(path, [content] if isinstance(content, str) else content)
        elif suffix == ".xlsx":
            xlsx_file(path, content)
        else:
            text_file(path, content)


def builder(files: Mapping[str, Any]) -> Callable[[Path], None]:
    """A task's build function that makes these files (make_files)."""
    return lambda folder: make_files(folder, files)
