"""What a path holds nothing in: a folder with no entries, an empty file, a workbook's sheets without a
value, a document without text or a table.

The shell measures it before and after each change, so the verifier can tell a sheet, a document or a
folder a subtask made and left empty (work begun and not done) from one that was empty already.
"""

from __future__ import annotations

import os
import stat
import zipfile
from pathlib import Path

WHOLE = ""  # the part that names the path itself


def hollow_parts(full: Path) -> tuple[str, ...]:
    """The parts of `full` that hold nothing (WHOLE for the path itself, else sheet names); () for a path
    that is absent, unreadable or of a kind whose contents are not told apart."""
    try:
        info = os.stat(full)
        if stat.S_ISDIR(info.st_mode):
            with os.scandir(full) as entries:
                return () if any(True for _ in entries) else (WHOLE,)
        if not stat.S_ISREG(info.st_mode):
            return ()
        if info.st_size == 0:
            return (WHOLE,)
        suffix = full.suffix.lower()
        if suffix == ".xlsx":
            return _empty_sheets(full)
        if suffix == ".docx":
            return _empty_document(full)
    except (OSError, ValueError, KeyError, zipfile.BadZipFile):
        return ()
    return ()


def _empty_sheets(full: Path) -> tuple[str, ...]:
    from openpyxl import load_workbook

    book = load_workbook(full, read_only=True)
    try:
        return tuple(sheet.title for sheet in book.worksheets
                     if not any(value is not None for row in sheet.iter_rows(values_only=True) for value in row))
    finally:
        book.close()


def _empty_document(full: Path) -> tuple[str, ...]:
    from docx import Document

    document = Document(str(full))
    held = document.tables or any(p.text.strip() for p in document.paragraphs)
    return () if held else (WHOLE,)
