"""What a path holds nothing in: a folder with no entries, an empty file, a workbook's sheets without a
value, a document without text or a table.

The shell measures it before and after each change, so the verifier can tell a sheet, a document or a
folder a subtask made and left empty (work begun and not done) from one that was empty already. A package
is checked against podium.apps.limits before a library parses it, as the tools do.
"""

from __future__ import annotations

import io
import os
import stat
import zipfile
from pathlib import Path

from podium.apps.docx_parser import LOCK
from podium.apps.limits import FileRefused, PackageLimits, check_package
from podium.apps.workspace import PathRefused, open_regular

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
        if suffix not in (".xlsx", ".docx"):
            return ()
        # a package is checked against the limits before a library parses it, as every tool does (a zip
        # bomb a command wrote into a declared path must not take the host down), and parsed from the bytes
        # checked
        limits = PackageLimits()
        with open_regular(full, full.name) as handle:  # never blocks on a FIFO swapped in since the stat
            data = handle.read(limits.max_file_bytes + 1)
        check_package(data, full.name, limits, f"{suffix} file")
        return _empty_sheets(data) if suffix == ".xlsx" else _empty_document(data)
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, FileRefused, PathRefused):
        return ()


def _empty_sheets(data: bytes) -> tuple[str, ...]:
    from openpyxl import load_workbook

    book = load_workbook(io.BytesIO(data), read_only=True)
    try:
        return tuple(sheet.title for sheet in book.worksheets
                     if not any(value is not None for row in sheet.iter_rows(values_only=True) for value in row))
    finally:
        book.close()


def _empty_document(data: bytes) -> tuple[str, ...]:
    from docx import Document

    with LOCK:
        document = Document(io.BytesIO(data))
        held = document.tables or any(p.text.strip() for p in document.paragraphs)
    return () if held else (WHOLE,)
