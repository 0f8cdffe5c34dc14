"""What podium opens of an untrusted .docx or .xlsx file, checked before any library parses it, and how
much of a file a tool hands back.

A workspace file may come from anyone, and the libraries that read Office files trust what they read:
a 0.3 MB .docx whose document.xml expands to 200 MB, a 2 MB .xlsx carrying an unused 2 GB part, a 5 kB
.xlsx with one cell at XFD1048576 (or a merged range to it) that makes every walk over the sheet's used
range walk seventeen billion cells, a table cell with gridSpan=400000000: each took gigabytes or hung. So
the package is checked first, from its zip directory and one streaming pass over its XML parts, against
`PackageLimits`: member count, each member's and the total uncompressed size, the compression ratio, XML
elements, no DTD (entity expansion), each sheet's used area and merged cells, each table's span and grid
size. zipfile never returns more than a member's declared size, so the declared sizes bound what the
libraries read afterwards. A refused file gets one clear error that names the part and the limit.
"""

from __future__ import annotations

import hashlib
import io
import re
import zipfile
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import IO, Any

from lxml import etree

from podium.apps.tooling import ToolError

SPREADSHEET = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
WORD = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
# What one tool result may carry of a file's text: a model reads it all, and a small one has ~8k tokens.
MAX_RESULT_CHARS = 100_000
_CELL = re.compile(r"\$?([A-Z]{1,3})\$?([0-9]{1,7})")
MAX_ROW, MAX_COLUMN = 1_048_576, 16_384  # the format's own bounds (XFD1048576)


class FileRefused(ToolError):
    """A file is not opened: it is past a limit, or not a file at all; nothing was read into a library."""


@dataclass(frozen=True, slots=True)
class PackageLimits:
    max_file_bytes: int = 100 << 20  # the .docx/.xlsx itself
    max_members: int = 5_000
    max_member_bytes: int = 64 << 20  # one part, uncompressed
    max_total_bytes: int = 256 << 20  # every part, uncompressed
    max_ratio: int = 100  # uncompressed / compressed, for a part larger than ratio_from
    ratio_from: int = 1 << 20
    max_elements: int = 5_000_000  # XML elements of every part: what a parsed tree costs
    max_sheet_cells: int = 1_000_000  # a sheet's used range, rows x columns (merged ranges included)
    max_merged_cells: int = 200_000  # all of a sheet's merged ranges (a library makes an object per cell)
    max_table_columns: int = 1_000  # a table row's grid columns, any one cell's span included
    max_table_cells: int = 1_000_000  # a table's rows x grid columns


@dataclass(slots=True)
class _Sheet:
    """A worksheet part's bounds as a reader lays its cells out (a cell without `r` follows the last)."""

    min_row: int = MAX_ROW + 1
    min_col: int = MAX_COLUMN + 1
    max_row: int = 0
    max_col: int = 0
    merged: int = 0
    row: int = 0
    col: int = 0

    def take(self, col: int, row: int) -> None:
        self.min_row, self.max_row = min(self.min_row, row), max(self.max_row, row)
        self.min_col, self.max_col = min(self.min_col, col), max(self.max_col, col)

    @property
    def area(self) -> int:
        return 0 if self.max_row == 0 else (self.max_row - self.min_row + 1) * (self.max_col - self.min_col + 1)

    def extent(self) -> str:
        return f"{_letters(self.min_col)}{self.min_row}:{_letters(self.max_col)}{self.max_row}"


@dataclass(slots=True)
class _Table:
    rows: int = 0
    width: int = 0
    grid: int = 0
    row_width: int = 0


@dataclass(slots=True)
class _Checked:
    """Digests of packages that passed, so that a file is checked once per content (bounded)."""

    passed: OrderedDict[tuple[str, PackageLimits], None] = field(default_factory=OrderedDict)

    def seen(self, key: tuple[str, PackageLimits]) -> bool:
        if key in self.passed:
            self.passed.move_to_end(key)
            return True
        return False

    def add(self, key: tuple[str, PackageLimits]) -> None:
        self.passed[key] = None
        while len(self.passed) > 64:
            self.passed.popitem(last=False)


_CHECKED = _Checked()


def check_package(data: bytes, name: str, limits: PackageLimits | None = None, what: str = "Office file") -> None:
    """Raise FileRefused (what is past which limit, in which part) unless the zip package `data` (the file
    `name`, a `what`: ".docx file") is within `limits`; a package that passed is not scanned again."""
    limits = limits or PackageLimits()
    key = (hashlib.blake2b(data, digest_size=16).hexdigest(), limits)
    if _CHECKED.seen(key):
        return
    if len(data) > limits.max_file_bytes:
        raise FileRefused(f"{name!r} is {_size(len(data))}; files over {_size(limits.max_file_bytes)} are not opened")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise FileRefused(f"{name!r} is not a readable {what} (not a zip package: {exc})") from exc
    with archive:
        members = archive.infolist()
        if len(members) > limits.max_members:
            raise FileRefused(f"{name!r} holds {len(members)} parts; packages of more than {limits.max_members} "
                              "are not opened")
        total = 0
        for member in members:
            total += member.file_size
            if member.file_size > limits.max_member_bytes:
                raise FileRefused(f"{name!r}: its part {member.filename!r} expands to {_size(member.file_size)}; "
                                  f"parts over {_size(limits.max_member_bytes)} are not opened")
            ratio = member.file_size // max(member.compress_size, 1)
            if member.file_size > limits.ratio_from and ratio > limits.max_ratio:
                raise FileRefused(f"{name!r}: its part {member.filename!r} expands {ratio:,} times "
                                  f"({_size(member.compress_size)} to {_size(member.file_size)}), a compression "
                                  f"bomb; parts that expand more than {limits.max_ratio} times are not opened")
        if total > limits.max_total_bytes:
            raise FileRefused(f"{name!r} expands to {_size(total)}; packages over {_size(limits.max_total_bytes)} "
                              "are not opened")
        elements = 0
        for member in members:
            if member.filename.endswith((".xml", ".rels")):
                with archive.open(member) as stream:
                    elements = _scan(stream, name, member.filename, limits, elements)
            # legacy drawings: often not well-formed XML, and never with a DTD
            elif member.filename.endswith(".vml") and b"<!DOCTYPE" in archive.read(member).upper():
                raise FileRefused(f"{name!r} (part {member.filename!r}) declares a DTD, which Office files "
                                  "never do (entity expansion); not opened")
    _CHECKED.add(key)


def _scan(stream: IO[bytes], name: str, part: str, limits: PackageLimits, elements: int) -> int:
    """One streaming pass over an XML part: no DTD, the element budget, sheets' and tables' shapes."""
    where = f"{name!r} (part {part!r})"
    sheet, tables = _Sheet(), []
    kept = _Head(stream)
    events = etree.iterparse(kept, events=("start", "end"), resolve_entities=False, no_network=True,
                             load_dtd=False, huge_tree=False, remove_comments=True, remove_pis=True)
    first = True
    try:
        for event, element in events:
            if event == "end":
                _end(element, tables, where, limits)
                element.clear(keep_tail=False)  # the tree is not kept: memory stays flat
                while element.getprevious() is not None:
                    del element.getparent()[0]
                continue
            if first:
                first = False
                if element.getroottree().docinfo.doctype:
                    raise FileRefused(f"{where} declares a DTD, which Office files never do (entity expansion); "
                                      "not opened")
            elements += 1
            if elements > limits.max_elements:
                raise FileRefused(f"{name!r} holds more than {limits.max_elements:,} XML elements; not opened")
            _start(element, sheet, tables, where, limits)
    except etree.XMLSyntaxError as exc:
        # a newer libxml2 stops an entity bomb inside the DTD, before the root element is seen
        if b"<!DOCTYPE" in kept.head.upper():
            raise FileRefused(f"{where} declares a DTD, which Office files never do (entity expansion); "
                              "not opened") from exc
        raise FileRefused(f"{where} is not well-formed XML ({exc}); not opened") from exc
    return elements


class _Head:
    """A stream that keeps its first bytes read (where a DTD would be declared)."""

    KEPT = 65536

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream, self.head = stream, b""

    def read(self, size: int = -1) -> bytes:
        data = self.stream.read(size)
        if len(self.head) < self.KEPT:
            self.head += data[:self.KEPT - len(self.head)]
        return data


def _start(element: Any, sheet: _Sheet, tables: list[_Table], where: str, limits: PackageLimits) -> None:
    tag = element.tag
    if not isinstance(tag, str) or tag[0] != "{":
        return
    space, _, local = tag[1:].partition("}")
    if space == SPREADSHEET:
        if local == "row":
            sheet.row = _number(element.get("r"), where, "row") if element.get("r") else sheet.row + 1
            sheet.col = 0
        elif local == "c":
            ref = element.get("r")
            col, row = _cell(ref, where) if ref else (sheet.col + 1, max(sheet.row, 1))
            sheet.col, sheet.row = col, row
            sheet.take(col, row)
            _sheet_area(sheet, where, limits)
        elif local == "mergeCell":
            first, _, last = (element.get("ref") or "").partition(":")
            (c1, r1), (c2, r2) = _cell(first, where), _cell(last or first, where)
            sheet.merged += (abs(c2 - c1) + 1) * (abs(r2 - r1) + 1)
            if sheet.merged > limits.max_merged_cells:
                raise FileRefused(f"{where}: its merged ranges cover more than {limits.max_merged_cells:,} cells "
                                  f"(the last, {element.get('ref')}); not opened")
            sheet.take(min(c1, c2), min(r1, r2))
            sheet.take(max(c1, c2), max(r1, r2))
            _sheet_area(sheet, where, limits)
    elif space == WORD:
        if local == "tbl":
            tables.append(_Table())
        elif not tables:
            return
        elif local == "tr":
            tables[-1].rows += 1
            tables[-1].row_width = 0
        elif local == "tc":
            tables[-1].row_width += 1
        elif local in ("gridSpan", "gridBefore", "gridAfter"):
            value = _number(element.get(f"{{{WORD}}}val"), where, local)
            if value > limits.max_table_columns:
                raise FileRefused(f"{where}: a table cell spans {value:,} columns ({local}); tables of more than "
                                  f"{limits.max_table_columns:,} columns are not opened")
            tables[-1].row_width += value - 1 if local == "gridSpan" else value
        elif local == "gridCol":
            tables[-1].grid += 1


def _end(element: Any, tables: list[_Table], where: str, limits: PackageLimits) -> None:
    if not tables or element.tag not in (f"{{{WORD}}}tr", f"{{{WORD}}}tbl"):
        return
    table = tables[-1]
    if element.tag == f"{{{WORD}}}tr":
        table.width = max(table.width, table.row_width)
        if table.width > limits.max_table_columns:
            raise FileRefused(f"{where}: a table row spans {table.width:,} grid columns; tables of more than "
                              f"{limits.max_table_columns:,} columns are not opened")
        return
    tables.pop()
    width = max(table.width, table.grid)
    if width > limits.max_table_columns or table.rows * width > limits.max_table_cells:
        raise FileRefused(f"{where}: a table of {table.rows:,} rows by {width:,} columns; tables of more than "
                          f"{limits.max_table_cells:,} cells or {limits.max_table_columns:,} columns are not opened")


def _sheet_area(sheet: _Sheet, where: str, limits: PackageLimits) -> None:
    if sheet.area > limits.max_sheet_cells:
        raise FileRefused(f"{where}: a sheet's used range reaches {sheet.extent()} ({sheet.area:,} cells); sheets "
                          f"of more than {limits.max_sheet_cells:,} cells are not opened")


def check_sheet_area(min_col: int, min_row: int, max_col: int, max_row: int, what: str,
                     limits: PackageLimits | None = None) -> None:
    """Refuse a write that would make a sheet's used range larger than a file podium opens (ToolError)."""
    limits = limits or PackageLimits()
    area = (max_row - min_row + 1) * (max_col - min_col + 1)
    if max_row > MAX_ROW or max_col > MAX_COLUMN or area > limits.max_sheet_cells:
        extent = f"{_letters(min_col)}{min_row}:{_letters(min(max_col, MAX_COLUMN))}{min(max_row, MAX_ROW)}"
        raise ToolError(f"{what} would make the sheet's used range {extent} ({area:,} cells); podium keeps sheets "
                        f"within {limits.max_sheet_cells:,} cells: write next to the table")


def _cell(ref: str, where: str) -> tuple[int, int]:
    match = _CELL.fullmatch(ref.strip().upper())
    if match is None:
        raise FileRefused(f"{where}: {ref!r} is not a cell reference; not opened")
    col, row = _column(match.group(1)), int(match.group(2))
    if not (1 <= row <= MAX_ROW and 1 <= col <= MAX_COLUMN):
        raise FileRefused(f"{where}: cell {ref} is outside a sheet's bounds (A1:XFD1048576); not opened")
    return col, row


def _number(value: str | None, where: str, what: str) -> int:
    try:
        number = int(value or "")
    except ValueError:
        raise FileRefused(f"{where}: {what} {value!r} is not a number; not opened") from None
    if number < 0:
        raise FileRefused(f"{where}: {what} {value!r} is negative; not opened")
    return number


def _column(letters: str) -> int:
    number = 0
    for letter in letters:
        number = number * 26 + ord(letter) - 64
    return number


def _letters(column: int) -> str:
    out = ""
    while column > 0:
        column, rest = divmod(column - 1, 26)
        out = chr(65 + rest) + out
    return out


def _size(count: int) -> str:
    if count < 1024:
        return f"{count:,} bytes"
    if count < 1 << 20:
        return f"{count / 1024:.1f} KB"
    return f"{count / (1 << 20):,.1f} MB"


def within(text: str, budget: int) -> tuple[str, bool]:
    """`text` cut to `budget` characters, and whether it was cut."""
    return (text, False) if len(text) <= budget else (text[:budget], True)
