"""What a run changed in a file, from the change log's before/after copies: cells of a workbook (per
sheet), charts added or removed, a document's paragraphs and table rows, a text file's lines.

Each diff is a list of `Line(sign, text)`: "+" added, "-" removed, "~" changed, " " context, "!" a note
(a file podium could not read as its type is shown by size instead of failing the report).
"""

from __future__ import annotations

import difflib
import io
import re
import zipfile
from collections import Counter
from dataclasses import dataclass
from typing import Any

from lxml import etree

from podium.apps.docx_parser import LOCK

MAX_PARSE = 25 * 1024 * 1024  # a copy larger than this is compared by size only
MAX_LINES = 400  # per file: a report stays readable (and small) whatever a run wrote
_SAFE_XML = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)


@dataclass(frozen=True, slots=True)
class Line:
    sign: str
    text: str


def diff_file(path: str, before: bytes | None, after: bytes | None) -> list[Line]:
    suffix = path.lower().rsplit(".", 1)[-1] if "." in path else ""
    try:
        if max(len(before or b""), len(after or b"")) > MAX_PARSE:
            raise ValueError(f"larger than {MAX_PARSE:,} bytes")
        if suffix in ("xlsx", "xlsm"):
            lines = _workbook(before, after)
        elif suffix in ("docx", "docm"):
            lines = _document(before, after)
        else:
            lines = _text(before, after)
    except Exception as exc:  # a file that is not what its name says: sizes only
        lines = [Line("!", f"not compared as .{suffix or 'text'} ({type(exc).__name__}: {exc}); "
                      f"{_size(before)} -> {_size(after)}")]
    if len(lines) > MAX_LINES:
        lines = [*lines[:MAX_LINES], Line("!", f"... {len(lines) - MAX_LINES} more lines")]
    return lines or [Line("!", "no visible difference")]


def _size(data: bytes | None) -> str:
    return "absent" if data is None else f"{len(data):,} bytes"


# -- workbooks -------------------------------------------------------------------------------------

def _workbook(before: bytes | None, after: bytes | None) -> list[Line]:
    old, new = _cells(before), _cells(after)
    lines: list[Line] = []
    for sheet in [*new, *(s for s in old if s not in new)]:
        if sheet not in old:
            lines.append(Line("+", f"sheet {sheet} added"))
        elif sheet not in new:
            lines.append(Line("-", f"sheet {sheet} removed"))
            continue
        was, now = old.get(sheet, {}), new[sheet]
        for cell in sorted(set(was) | set(now), key=_cell_order):
            if cell not in was:
                lines.append(Line("+", f"{sheet}!{cell} = {now[cell]!r}"))
            elif cell not in now:
                lines.append(Line("-", f"{sheet}!{cell} was {was[cell]!r}"))
            elif was[cell] != now[cell]:
                lines.append(Line("~", f"{sheet}!{cell}: {was[cell]!r} -> {now[cell]!r}"))
    charts_before, charts_after = Counter(_charts(before)), Counter(_charts(after))
    for chart in (charts_after - charts_before).elements():
        lines.append(Line("+", f"chart added: {chart}"))
    for chart in (charts_before - charts_after).elements():
        lines.append(Line("-", f"chart removed: {chart}"))
    return lines


def _cells(data: bytes | None) -> dict[str, dict[str, Any]]:
    if data is None:
        return {}
    import openpyxl

    book = openpyxl.load_workbook(io.BytesIO(data), data_only=False)
    try:
        return {ws.title: {c.coordinate: c.value for row in ws.iter_rows() for c in row if c.value is not None}
                for ws in book.worksheets}
    finally:
        book.close()


def _cell_order(cell: str) -> tuple[int, int]:
    match = re.fullmatch(r"([A-Z]+)(\d+)", cell)
    if match is None:
        return (0, 0)
    column = 0
    for ch in match.group(1):
        column = column * 26 + ord(ch) - 64
    return (int(match.group(2)), column)


def _charts(data: bytes | None) -> list[str]:
    """Each chart of the package as 'bar chart "Title"'."""
    if data is None:
        return []
    found = []
    with zipfile.ZipFile(io.BytesIO(data)) as package:
        for name in sorted(package.namelist()):
            if re.fullmatch(r"xl/charts/chart\d+\.xml", name):
                root = etree.fromstring(package.read(name), _SAFE_XML)
                kinds = [etree.QName(e).localname for e in root.iter() if isinstance(e.tag, str)
                         and etree.QName(e).localname.endswith("Chart") and etree.QName(e).localname != "chart"]
                title = root.find(".//{*}title")
                text = "".join(t.text or "" for t in title.iter("{*}t")) if title is not None else ""
                kind = (kinds[0][: -len("Chart")] if kinds else "a") + " chart"
                found.append(f"{kind} {text!r}" if text else kind)
    return found


# -- documents -----------------------------------------------------------------------------------

def _document(before: bytes | None, after: bytes | None) -> list[Line]:
    return _lines_diff(_blocks(before), _blocks(after))


def _blocks(data: bytes | None) -> list[str]:
    if data is None:
        return []
    import docx

    with LOCK:
        document = docx.Document(io.BytesIO(data))
        blocks = [f"¶ {p.text}" for p in document.paragraphs if p.text.strip()]
        for t, table in enumerate(document.tables):
            for r, row in enumerate(table.rows):
                blocks.append(f"table {t + 1} row {r + 1}: " + " | ".join(cell.text for cell in row.cells))
    return blocks


# -- text ----------------------------------------------------------------------------------------

def _text(before: bytes | None, after: bytes | None) -> list[Line]:
    old = (before or b"").decode("utf-8").splitlines()
    new = (after or b"").decode("utf-8").splitlines()
    return _lines_diff(old, new)


def _lines_diff(old: list[str], new: list[str]) -> list[Line]:
    lines = []
    for text in difflib.unified_diff(old, new, n=1, lineterm=""):
        if text.startswith(("---", "+++")):
            continue
        if text.startswith("@@"):
            lines.append(Line(" ", "…"))
        else:
            lines.append(Line(text[0], text[1:]))
    return lines
