"""A sheet's table as the table tools see it: its header names, its data rows, a column found by its
header or its letter, the values of formula cells computed (sheet_eval), and new sheets to write into.

Where the table is comes from sheet_cells.find_table (a title row above the header is not the header,
an empty row inside the table does not end it). A table here must have a header row: every table tool
names its columns by header, and a table without one has no names to give.
"""

from __future__ import annotations

import re
from copy import copy
from dataclasses import dataclass
from typing import Any

from podium.apps.sheet_cells import filled, find_table, plain, sheet_named, used_range
from podium.apps.sheet_eval import Evaluator
from podium.apps.sheet_totals import _column as column_of_header
from podium.apps.tooling import ToolError

MAX_SHOWN = 50  # rows a result lists: enough to hand on, not a whole sheet in a model's context
_BAD_TITLE = re.compile(r"[\\/*?:\[\]]")
MAX_TITLE = 31  # what Excel and LibreOffice accept


@dataclass(frozen=True, slots=True)
class SheetTable:
    """Where one sheet's table is; rows and columns are the sheet's own numbers (from 1)."""

    title: str
    first_col: int
    last_col: int
    header_row: int
    last_row: int
    header: tuple[str, ...]  # one name a column, first_col..last_col ("" where the header cell is empty)

    def column(self, name: str) -> int:
        """The sheet column `name` means: a header (any case) or a letter of the table's columns."""
        headers = {self.first_col + i: text for i, text in enumerate(self.header)}
        return column_of_header(name, headers, self.title)

    def name_of(self, col: int) -> str:
        from openpyxl.utils.cell import get_column_letter

        text = self.header[col - self.first_col] if self.first_col <= col <= self.last_col else ""
        return text or get_column_letter(col)

    @property
    def columns(self) -> range:
        return range(self.first_col, self.last_col + 1)


def table_of(workbook: Any, sheet: str | None) -> SheetTable:
    """The table of `sheet` (the active one when None); a ToolError says what the sheet lacks."""
    worksheet = sheet_named(workbook, sheet)
    table = find_table(worksheet)
    if table is None:
        raise ToolError(f"sheet {worksheet.title!r} is empty: there is no table on it")
    if not table.has_header:
        raise ToolError(f"sheet {worksheet.title!r} ({used_range(worksheet)}) has no header row (a row of column "
                        "names): nothing says which column is which")
    header = tuple(_name(worksheet.cell(table.top_row, c).value)
                   for c in range(table.first_col, table.last_col + 1))
    return SheetTable(worksheet.title, table.first_col, table.last_col, table.top_row, table.last_row, header)


MAX_EMPTY = 12  # empty cells a read lists


def empty_cells(sheet: Any) -> list[dict[str, str]]:
    """The empty cells inside a sheet's table: under a named column, in a row that holds other values. The
    gaps a person asks to fill in, each with its address, column and row label (the row's first text),
    so a reader need not count its way there through rows of nulls."""
    table = find_table(sheet)
    if table is None or not table.has_header:
        return []
    found: list[dict[str, str]] = []
    names = [_name(sheet.cell(table.top_row, c).value) for c in range(table.first_col, table.last_col + 1)]
    for number in range(table.top_row + 1, table.last_row + 1):
        row = [sheet.cell(number, c).value for c in range(table.first_col, table.last_col + 1)]
        if sum(filled(v) for v in row) < 2:
            continue  # an empty row, or a lone note: no gap in a record
        label = next((str(v).strip() for v in row if isinstance(v, str) and v.strip()), "")
        found += [{"cell": f"{_letter(table.first_col + i)}{number}", "column": names[i], "row": label}
                  for i, v in enumerate(row) if not filled(v) and names[i]]
    return found[:MAX_EMPTY]


def _name(value: Any) -> str:
    return str(plain(value)).strip() if filled(value) else ""


class Reader:
    """The values of a workbook's tables, formulas computed where sheet_eval can (else kept as the
    formula text, and counted in `unknown`)."""

    def __init__(self, workbook: Any) -> None:
        self.workbook = workbook
        self.evaluator = Evaluator(workbook)
        self.unknown: list[str] = []  # cells whose formula could not be computed

    def raw(self, title: str, row: int, col: int) -> tuple[bool, Any]:
        """(True, the value as openpyxl holds it, a formula's computed), or (False, the formula's text)."""
        known, value = self.evaluator.known(title, row, col)
        if not known:
            from openpyxl.utils.cell import get_column_letter

            self.unknown.append(f"{get_column_letter(col)}{row}")
        return known, value

    def value(self, title: str, row: int, col: int) -> Any:
        """The value as JSON (dates as ISO text): a formula's result, or its text when not known."""
        return plain(self.raw(title, row, col)[1])

    def rows(self, table: SheetTable, columns: list[int] | None = None) -> list[tuple[int, list[Any]]]:
        """(row number, values of `columns`, default all) of each data row holding a value."""
        sheet = self.workbook[table.title]
        wanted = columns if columns is not None else list(table.columns)
        found = []
        for row in range(table.header_row + 1, table.last_row + 1):
            if not any(filled(sheet.cell(row=row, column=c).value) for c in table.columns):
                continue
            found.append((row, [self.value(table.title, row, c) for c in wanted]))
        return found


def totals_row(sheet: Any, table: SheetTable) -> int | None:
    """The table's last row when it totals the rows above: every value in it besides the first column is
    a =SUM or =SUBTOTAL formula (as add_totals_row writes). Recognised by its formulas, not its label."""
    row = table.last_row
    if row <= table.header_row + 1:
        return None
    values = [sheet.cell(row=row, column=c).value for c in table.columns if c != table.first_col]
    formulas = [v for v in values if filled(v)]
    if not formulas:
        return None
    return row if all(isinstance(v, str) and v.replace(" ", "").upper().startswith(("=SUM(", "=SUBTOTAL("))
                      for v in formulas) else None


def check_title(name: str) -> str:
    """A sheet name a spreadsheet program accepts, or a ToolError that says why not."""
    title = name.strip()
    if not title:
        raise ToolError("a sheet name cannot be empty")
    if _BAD_TITLE.search(title) or len(title) > MAX_TITLE or title.startswith("'") or title.endswith("'"):
        raise ToolError(f"{name!r} cannot be a sheet name: at most {MAX_TITLE} characters, none of \\ / * ? : [ ], "
                        "and no apostrophe at either end")
    return title


def safe_title(text: str, taken: set[str]) -> str:
    """A valid sheet name made from a value (split_by_column's sheets): bad characters become '_', cut to the
    length allowed, and made unique against `taken` (any case) with ' (2)', ' (3)'..."""
    base = _BAD_TITLE.sub("_", text.strip()).strip("'") or "blank"
    title, number = base[:MAX_TITLE], 2
    while title.casefold() in {t.casefold() for t in taken}:
        suffix = f" ({number})"
        title, number = base[: MAX_TITLE - len(suffix)] + suffix, number + 1
    return title


def check_new_sheet(workbook: Any, name: str, rows: list[list[Any]] | None = None) -> str | None:
    """The existing sheet (any case) a table may be written into, None for a sheet to create; a ToolError
    for a name that cannot be a sheet's, or a sheet that holds values (it is never written over) other
    than exactly `rows` (then the call repeats one made: see holds)."""
    title = check_title(name)
    existing = next((t for t in workbook.sheetnames if t.casefold() == title.casefold()), None)
    if existing is not None and used_range(workbook[existing]) is not None \
            and not (rows is not None and holds(workbook[existing], rows)):
        raise ToolError(f"sheet {existing!r} already holds values ({used_range(workbook[existing])}); give the name "
                        "of a new sheet (it is created)")
    return existing


def holds(sheet: Any, rows: list[list[Any]]) -> bool:
    """Whether the sheet holds exactly these rows from A1, and nothing else (read without adding a cell)."""
    from podium.apps.sheet_cells import bounds, value_at

    area = used_range(sheet)
    if area is None:
        return not any(filled(v) for row in rows for v in row)
    _, _, max_col, max_row = bounds(area)
    height, width = max(max_row, len(rows)), max(max_col, max((len(row) for row in rows), default=0))
    wanted = [[*row, *[None] * (width - len(row))] for row in rows] + [[None] * width] * (height - len(rows))
    return all(plain(value_at(sheet, r + 1, c + 1)) == plain(wanted[r][c]) for r in range(height) for c in range(width))


def new_sheet(workbook: Any, name: str, rows: list[list[Any]] | None = None) -> Any | None:
    """An empty sheet to write `rows` into: created, or an existing one that holds nothing; None when the
    sheet holds exactly these rows already (check_new_sheet)."""
    existing = check_new_sheet(workbook, name, rows)
    if existing is None:
        return workbook.create_sheet(check_title(name))
    return None if rows is not None and used_range(workbook[existing]) is not None else workbook[existing]


def write_rows(sheet: Any, rows: list[list[Any]], styles: list[list[Any]] | None = None) -> str:
    """Write rows from A1 of an empty sheet (with openpyxl style arrays of the same workbook, if given);
    the range written."""
    from openpyxl.utils.cell import get_column_letter

    for r, row in enumerate(rows, start=1):
        for c, value in enumerate(row, start=1):
            cell = sheet.cell(row=r, column=c)
            cell.value = value
            if styles is not None and styles[r - 1][c - 1] is not None:
                cell._style = copy(styles[r - 1][c - 1])
    width = max((len(row) for row in rows), default=1)
    return f"A1:{get_column_letter(width)}{len(rows)}"


def shown(rows: list[list[Any]]) -> dict[str, Any]:
    """Rows for a result: all of them up to MAX_SHOWN, else the first ones and how many there are."""
    if len(rows) <= MAX_SHOWN:
        return {"rows": rows}
    return {"rows": rows[:MAX_SHOWN], "rows_shown": MAX_SHOWN, "rows_total": len(rows)}


def copied_rows(reader: Reader, table: SheetTable, rows: list[int], columns: list[int]
                ) -> tuple[list[list[Any]], list[list[Any]]]:
    """The header and the given rows of `columns`, as values to write elsewhere in the same workbook, and
    their styles (a date's or a percentage's format moves with it). A formula is copied as its computed
    value; one that cannot be computed here is moved with its row (its references follow it, as a
    spreadsheet program's copy does), and written from A1 of the target."""
    from openpyxl.formula.translate import Translator

    sheet = reader.workbook[table.title]
    values = [[sheet.cell(row=table.header_row, column=c).value for c in columns]]
    styles = [[sheet.cell(row=table.header_row, column=c)._style for c in columns]]
    for new_row, row in enumerate(rows, start=2):
        line = []
        for new_col, col in enumerate(columns, start=1):
            known, value = reader.raw(table.title, row, col)
            if not known:
                origin = f"{_letter(col)}{row}"
                value = Translator(value, origin=origin).translate_formula(f"{_letter(new_col)}{new_row}")
            line.append(value)
        values.append(line)
        styles.append([sheet.cell(row=row, column=c)._style for c in columns])
    return values, styles


def _letter(col: int) -> str:
    from openpyxl.utils.cell import get_column_letter

    return get_column_letter(col)
