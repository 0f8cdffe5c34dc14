"""The cells of a worksheet: what a written value becomes, cell and range addresses, and where a
sheet's table is (its header row, its last row, its columns).

Pure functions over openpyxl worksheets (loaded by the spreadsheets application); openpyxl is
imported inside them so that importing this module stays cheap.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any

from podium.apps.formulas import formula_problem, is_formula
from podium.apps.limits import check_sheet_area
from podium.apps.tooling import ToolError

CellValue = str | int | float | bool | None
_NUMBER = re.compile(r"[+-]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?")


# -- values ------------------------------------------------------------------------------------
def cell_value(value: CellValue) -> CellValue:
    """What a written value becomes, as in a spreadsheet program: "'007" the text '007', "1,200" the
    number 1200 (values copied from a document's table arrive as text, and a chart over text cells
    is empty); "'Friday'", quoted at both ends as the request quoted it, the text Friday. Text starting
    with "=" stays that text: `put` writes it as text, never as a formula."""
    if isinstance(value, str) and len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    if isinstance(value, str) and value.startswith("'"):
        return value[1:]
    if isinstance(value, str) and _NUMBER.fullmatch(value.strip()):
        text = value.strip().replace(",", "")
        return float(text) if "." in text else int(text)
    return value


def put(cell: Any, value: CellValue) -> bool:
    """Write a value into an openpyxl cell as a value: text starting with "=" is stored as text, never as a
    live formula (data is not code: "=HYPERLINK(\"http://...?\"&B2)" written from a document would send the
    workbook's data away when the person opens it). True when the value was such text."""
    cell.value = value
    if is_formula(value):
        cell.data_type = "s"  # openpyxl took it for a formula
        return True
    return False


def put_formula(cell: Any, formula: str) -> None:
    """Write a formula made by a tool whose job is one (a Total row's =SUM), if every function it calls is
    allowed (formulas.formula_problem); else ToolError, and the cell is left as it was."""
    problem = formula_problem(formula)
    if problem is not None:
        raise ToolError(problem)
    cell.value = formula


def holds(cell: Any, value: CellValue) -> bool:
    """Whether `put(cell, value)` would leave the cell as it is (text "=x" over a formula "=x" would not)."""
    return cell.value == value and (not is_formula(value) or cell.data_type == "s")


def check_write_bounds(sheet: Any, first_col: int, first_row: int, rows: list[list[Any]] | tuple[Any, ...],
                       what: str) -> None:
    """Refuse a write (ToolError) that would grow the sheet's used range past what podium opens."""
    width = max((len(row) for row in rows), default=1) or 1
    last_col, last_row = first_col + width - 1, first_row + len(rows) - 1
    area = used_range(sheet)
    if area is not None:
        min_col, min_row, max_col, max_row = bounds(area)
        first_col, first_row = min(first_col, min_col), min(first_row, min_row)
        last_col, last_row = max(last_col, max_col), max(last_row, max_row)
    check_sheet_area(first_col, first_row, last_col, last_row, what)


_ADDRESS = re.compile(r"\$?[A-Za-z]{1,3}\$?[1-9][0-9]{0,6}")


def check_rows(rows: list[list[CellValue]], start: str) -> None:
    """Refuse the rows small models write by mistake: a table whose first row is empty (the header row
    lost in copying), and one [address, value] pair written at A1 or at that address ([["B2", "Friday"]]
    for "write Friday into B2"; a row ["Q4", 160] under a table is data, and stays allowed)."""
    if len(rows) > 1 and not any(filled(v) for v in rows[0]):
        raise ToolError("the first row is empty: give the rows from the first one that holds values "
                        "(a table's header row first); start says where they go")
    if len(rows) == 1 and len(row := rows[0]) == 2 and isinstance(row[0], str) \
            and _ADDRESS.fullmatch(row[0].strip()) and start.upper() in ("A1", row[0].strip().upper()):
        raise ToolError(f"{row[0]!r} is a cell address written as a value: to write {row[1]!r} into cell "
                        f"{row[0]}, call set_cell with cell={row[0]!r} (text that only looks like an "
                        "address is written with a leading apostrophe)", instead=("set_cell",))


_REFERENCE = re.compile(r"\$?[A-Z]{1,3}\$?[0-9]{1,7}(?::\$?[A-Z]{1,3}\$?[0-9]{1,7})?|\$?[A-Z]{1,3}:\$?[A-Z]{1,3}"
                        r"|\$?[0-9]{1,7}:\$?[0-9]{1,7}", re.IGNORECASE)


def check_formulas(workbook: Any, rows: list[list[CellValue]]) -> None:
    """Refuse a formula that refers to what the workbook does not have: a column by its header
    ("=SUM(Net)": the 1.5B AppAgent's Total row, which a spreadsheet program shows as #NAME?), or a
    sheet that is not there. Cells, ranges, whole columns or rows, table references and the
    workbook's defined names are fine."""
    from openpyxl.formula import Tokenizer

    names = {n.lower() for n in workbook.defined_names}
    sheets = {t.lower() for t in workbook.sheetnames}
    for value in (v for row in rows for v in row):
        if not (isinstance(value, str) and value.startswith("=") and len(value) > 1):
            continue
        try:
            items = Tokenizer(value).items
        except Exception as exc:  # openpyxl's own parse error: the formula is malformed
            raise ToolError(f"{value!r} is not a formula a spreadsheet can read: {exc}") from exc
        for item in items:
            if item.type != "OPERAND" or item.subtype != "RANGE" or "[" in item.value:
                continue
            sheet, _, ref = item.value.rpartition("!")
            sheet = sheet.strip("'")
            if sheet and sheet.lower() not in sheets:
                raise ToolError(f"{value!r} refers to sheet {sheet!r}, which is not in the workbook (its sheets: "
                                f"{', '.join(workbook.sheetnames)})")
            if not _REFERENCE.fullmatch(ref) and ref.lower() not in names:
                raise ToolError(f"{value!r} refers to {ref!r}, which is neither a cell range (such as C2:C6) nor a "
                                f"name defined in the workbook: refer to the cells, e.g. =SUM(C2:C6)")


def plain(value: Any) -> Any:
    """A cell value as JSON: dates as ISO text, anything exotic as text."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    return str(value)


def filled(value: Any) -> bool:
    """Whether a cell holds something a reader sees (an empty text is as blank as no value)."""
    return value is not None and value != ""


# -- addresses ---------------------------------------------------------------------------------
def sheet_named(workbook: Any, name: str | None, hint: str = "") -> Any:
    """The sheet `name` (None: the active one); `hint` ends the error for a name that is not there."""
    if name is None:
        return workbook.active
    if name not in workbook.sheetnames:
        raise ToolError(f"no sheet named {name!r}; the sheets are {workbook.sheetnames}{hint}")
    return workbook[name]


def split_sheet(reference: str) -> tuple[str | None, str]:
    """'Data!A1:C5' -> ('Data', 'A1:C5'); "'My data'!B2" -> ('My data', 'B2'); 'B2' -> (None, 'B2')."""
    if "!" not in reference:
        return None, reference
    sheet, area = reference.rsplit("!", 1)
    if len(sheet) >= 2 and sheet[0] == sheet[-1] == "'":
        sheet = sheet[1:-1].replace("''", "'")
    return sheet, area


def parse_cell(reference: str, what: str = "cell") -> tuple[int, int]:
    """'B2' (or '$B$2', 'b2') -> (column 2, row 2); `what` names the argument in the error."""
    from openpyxl.utils.cell import column_index_from_string, coordinate_from_string
    from openpyxl.utils.exceptions import CellCoordinatesException

    try:
        letters, row = coordinate_from_string(reference.strip().replace("$", "").upper())
        return column_index_from_string(letters), row
    except (ValueError, CellCoordinatesException) as exc:
        raise ToolError(f"{what} {reference!r} is not a cell reference like 'A1'") from exc


def bounds(area: str) -> tuple[int, int, int, int]:
    """'A1:C5' -> (min_col, min_row, max_col, max_row)."""
    from openpyxl.utils.cell import range_boundaries
    from openpyxl.utils.exceptions import CellCoordinatesException

    try:
        min_col, min_row, max_col, max_row = range_boundaries(area.replace("$", "").upper())
    except (ValueError, TypeError, CellCoordinatesException) as exc:
        raise ToolError(f"{area!r} is not a range like 'A1:C5'") from exc
    if None in (min_col, min_row, max_col, max_row):
        raise ToolError(f"{area!r} must name both corners, like 'A1:C5'")
    return min_col, min_row, max_col, max_row  # type: ignore[return-value]


def coordinate(col: int, row: int) -> str:
    """(2, 3) -> 'B3'."""
    from openpyxl.utils.cell import get_column_letter

    return f"{get_column_letter(col)}{row}"


def area_of(min_col: int, min_row: int, max_col: int, max_row: int) -> str:
    return f"{coordinate(min_col, min_row)}:{coordinate(max_col, max_row)}"


def used_range(sheet: Any) -> str | None:
    if sheet.max_row == 1 and sheet.max_column == 1 and sheet.cell(1, 1).value is None:
        return None
    return sheet.dimensions


# A text that is one row's own: a phone or account number (six digits or more, however grouped), an e-mail
# (what quotes or brackets enclose in a longer text are not part of it).
_IDENTIFIER = re.compile(r"\+?\(?\d(?:[\s\-./()]*\d){5,}|[^@\s\"'<>()\[\],;]+@[^@\s\"'<>()\[\],;]+\.\w+")


def identity(value: Any) -> str | None:
    """The identifier a text cell holds, comparable however it is written ("+44 20 7946 0018" and
    "+442079460018" are one), or None if it is not one (numbers are amounts, not identifiers)."""
    if not isinstance(value, str) or not _IDENTIFIER.fullmatch(text := value.strip()):
        return None
    return text.casefold() if "@" in text else re.sub(r"\D", "", text)


def identities(text: str) -> set[str]:
    """The identifiers a text holds anywhere in it, each as `identity` makes it comparable."""
    return {key for found in _IDENTIFIER.finditer(text) if (key := identity(found.group(0))) is not None}


def value_at(sheet: Any, row: int, col: int) -> CellValue:
    """A cell's value, without adding the cell to the sheet when it lies outside the used area (openpyxl's
    sheet.cell() creates it, and the used range would grow to it: a check must leave the sheet as it is)."""
    if not (sheet.min_row <= row <= sheet.max_row and sheet.min_column <= col <= sheet.max_column):
        return None
    return sheet.cell(row=row, column=col).value


def overwrites(sheet: Any, first_col: int, first_row: int, rows: list[list[CellValue]]) -> bool:
    """Whether writing the rows from a cell would replace a value the sheet holds (it would be lost)."""
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            at = (first_row + r, first_col + c)
            if value_at(sheet, *at) is not None and not holds(sheet.cell(*at), cell_value(value)):
                return True  # a value, or a formula replaced by its text
    return False


def repeated_block(sheet: Any, first_col: int, first_row: int, rows: list[list[CellValue]]) -> str | None:
    """The area right above the write that holds these rows already, in the same columns (two rows or more,
    each as given), or None: written there they would stack a second copy of a table under the first."""
    top = first_row - len(rows)
    if len(rows) < 2 or top < 1:
        return None
    wanted = [[plain(cell_value(v)) for v in row] for row in rows]
    if all([plain(value_at(sheet, top + r, first_col + c)) for c in range(len(row))] == row
           for r, row in enumerate(wanted)):
        return area_of(first_col, top, first_col + max(len(row) for row in wanted) - 1, first_row - 1)
    return None


def copied_cells(sheet: Any, first_col: int, first_row: int, rows: list[list[CellValue]]
                 ) -> list[tuple[str, CellValue, str, str]]:
    """(cell, value, where it is already, what the cell is) for each identifier the rows put into an EMPTY
    cell that another cell of the sheet holds: told to fill in a contact's missing phone number, found
    nowhere, the 1.5B AppAgent wrote another contact's, under Phone, then beside it in a new column. What
    the cell is ("Phone of Acme Corp") names the value to ask the person for. An identifier no cell holds, put
    into an empty cell of a column whose other cells hold identifiers (a record's missing address), is there
    with "" for where: it comes from the call alone, and the host asks where the call got it."""
    held: dict[str, str] = {}  # identifier -> the first cell holding it (one pass over the sheet)
    columns: set[int] = set()  # the columns holding identifiers
    for line in sheet.iter_rows():
        for cell in line:
            if (key := identity(cell.value)) is not None:
                held.setdefault(key, cell.coordinate)
                columns.add(cell.column)
    found = []
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            key, col, at = identity(cell_value(value)), first_col + c, first_row + r
            if key is None or value_at(sheet, at, col) not in (None, ""):
                continue
            if key in held:  # the target is empty, so the cell holding it is another one
                found.append((coordinate(col, at), value, held[key], _field(sheet, held[key], at)))
            elif col in columns:
                found.append((coordinate(col, at), value, "", _field(sheet, coordinate(col, at), at)))
    return found


def _field(sheet: Any, source: str, row: int) -> str:
    """What a record's cell is, by the header over the column its value came from and a row's first text
    ("Phone of Acme Corp (C3)"). The row is the one record of the table that lacks a value in that column,
    if only one does (the 1.5B AppAgent wrote Acme's "missing" phone beside Bolt's, in D2); else the row
    written into."""
    table = find_table(sheet)
    col = parse_cell(source, "cell")[0]
    header, cell = None, ""
    if table is not None:
        header = value_at(sheet, table.top_row, col) if table.has_header else None
        first = table.top_row + 1 if table.has_header else table.top_row
        lacking = [r for r in range(first, table.last_row + 1) if value_at(sheet, r, col) in (None, "")]
        if len(lacking) == 1:
            row, cell = lacking[0], f" ({coordinate(col, lacking[0])})"
    label = next((v.strip() for v in (value_at(sheet, row, c) for c in range(1, sheet.max_column + 1))
                  if isinstance(v, str) and v.strip() and identity(v) is None), None)
    what = str(header).strip() if isinstance(header, str) and header.strip() else "value"
    return f"{what} of {label}{cell}" if label else f"{what} of row {row}{cell}"


# -- tables ------------------------------------------------------------------------------------
def header_index(rows: list[list[Any]]) -> int | None:
    """The index of a table's header among its rows: the first row with two or more texts (a title
    above the table is one text), or with one text when the rows are one column wide. A formula is
    no name: a row of formulas is not a header."""
    if not rows:
        return None
    texts = min(2, max(len(row) for row in rows))
    return next((i for i, row in enumerate(rows)
                 if sum(isinstance(v, str) and v.strip() != "" and not v.startswith("=") for v in row) >= texts),
                None)


@dataclass(frozen=True, slots=True)
class Table:
    """Where a sheet's table is: from its header row (or its first row holding a value, when no row
    reads as a header) down to the last row holding any value, over the columns those rows use."""

    first_col: int
    last_col: int
    top_row: int
    last_row: int
    has_header: bool

    @property
    def data_rows(self) -> str | None:
        """The rows of values under the header, e.g. 'A2:C5' (what a =SUM under the table adds up)."""
        first = self.top_row + 1 if self.has_header else self.top_row
        if first > self.last_row:
            return None
        return area_of(self.first_col, first, self.last_col, self.last_row)


def aligned_under(sheet: Any, first_col: int, first_row: int, rows: list[list[CellValue]]) -> int | None:
    """The column to write new rows from, when they were put right under the sheet's table one or more
    columns to the right, past its last column (the 1.5B AppAgent wrote ['Travel', 300] at B5 under
    Item/Amount in A1:B4: Travel under Amount); None when they are where they belong, or the cells at the
    table's columns hold values (then nothing moves: a change needs its own approval)."""
    table = find_table(sheet)
    width = max((len(row) for row in rows), default=0)
    if table is None or first_row != table.last_row + 1 or not table.first_col < first_col <= table.last_col \
            or first_col + width - 1 <= table.last_col or width > table.last_col - table.first_col + 1:
        return None
    if any(value_at(sheet, first_row + r, table.first_col + c) not in (None, "")
           for r, row in enumerate(rows) for c in range(len(row))):
        return None
    return table.first_col


def find_table(sheet: Any) -> Table | None:
    """The sheet's table, or None for a sheet without a value. An empty row inside the table does not
    end it (the last row holding a value does), and a title row above it is not its header."""
    area = used_range(sheet)
    if area is None:
        return None
    min_col, min_row, max_col, max_row = bounds(area)
    rows = [list(row) for row in sheet.iter_rows(min_row=min_row, max_row=max_row, min_col=min_col,
                                                 max_col=max_col, values_only=True)]
    used = [i for i, row in enumerate(rows) if any(filled(v) for v in row)]
    if not used:
        return None  # cells with a style and no value
    header = header_index(rows)
    top = header if header is not None else used[0]
    columns = [c for row in rows[top:used[-1] + 1] for c, v in enumerate(row) if filled(v)]
    return Table(first_col=min_col + min(columns), last_col=min_col + max(columns), top_row=min_row + top,
                 last_row=min_row + used[-1], has_header=header is not None)
