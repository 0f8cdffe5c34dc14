"""Reading a .docx as a checker needs it: body paragraphs in order, and tables as grids of cell texts."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .task import Fail
from .values import same_row


def load(data: bytes | Path, name: str) -> Any:
    import docx
    from docx.opc.exceptions import PackageNotFoundError

    try:
        raw = data.read_bytes() if isinstance(data, Path) else data
        return docx.Document(io.BytesIO(raw))
    except FileNotFoundError:
        raise Fail(f"{name} is missing") from None
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise Fail(f"{name} is not a readable .docx document ({exc})") from None


def paragraphs(document: Any) -> list[str]:
    """The texts of the body's non-empty paragraphs, in order (table cells not included)."""
    return [p.text.strip() for p in document.paragraphs if p.text.strip()]


def tables(document: Any) -> list[list[list[str]]]:
    """Every table (nested ones not included) as rows of cell texts."""
    return [[[cell.text.strip() for cell in row.cells] for row in table.rows] for table in document.tables]


def find_table(document: Any, table: Sequence[Sequence[Any]]) -> int | None:
    """The index of a table whose rows are exactly `table` (values compared as a person reads them)."""
    for index, grid in enumerate(tables(document)):
        if len(grid) == len(table) and all(same_row(list(g), list(t)) for g, t in zip(grid, table, strict=True)):
            return index
    return None


def all_text(document: Any) -> str:
    """Paragraphs and table cells, one per line (what a search for a word must see)."""
    lines = paragraphs(document)
    for grid in tables(document):
        lines.extend(cell for row in grid for cell in row)
    return "\n".join(lines)
