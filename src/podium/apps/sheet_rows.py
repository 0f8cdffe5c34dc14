"""Rows of a sheet's table picked by their values: filter_rows (the rows meeting conditions, and only the
columns asked, as LibreOffice's standard filter with "copy results to"), find_duplicates (rows that
repeat an earlier one) and remove_duplicate_rows (keep each row's first occurrence).

Each hands the rows back; with target_sheet the result is written into a new sheet of the workbook,
header first, and the table stays as it is. Removing duplicates in place rewrites the table's rows, so
it declares an EDIT (approval) and is refused for a table holding formulas: a moved formula would
still point at its old rows.
"""

from __future__ import annotations

from copy import copy
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from podium.apps.base import Change, Effect
from podium.apps.sheet_args import PathArgs
from podium.apps.sheet_cells import CellValue, filled, plain, used_range
from podium.apps.sheet_view import (
    Reader,
    SheetTable,
    check_new_sheet,
    copied_rows,
    new_sheet,
    shown,
    table_of,
    totals_row,
    write_rows,
)
from podium.apps.table_math import number
from podium.apps.tool_effects import declared, effect
from podium.apps.tooling import ToolError, ToolSpec, into_part

Op = Literal["=", "!=", ">", ">=", "<", "<=", "contains", "starts_with", "ends_with", "empty", "not_empty"]
_TARGET = "a new sheet to write the rows into (header first); omitted: only return them"


class Condition(BaseModel):
    model_config = ConfigDict(extra="forbid")

    column: str = Field(description="header or letter")
    op: Op = "="
    value: CellValue = None


class FilterArgs(PathArgs):
    sheet: str | None = Field(None, description="sheet with the table; the active sheet when omitted")
    where: list[Condition] = Field(default_factory=list, description="conditions every row kept meets")
    columns: list[str] = Field(default_factory=list, description="the columns to keep, in this order; all when empty")
    target_sheet: str | None = into_part(_TARGET)


class DuplicatesArgs(PathArgs):
    sheet: str | None = Field(None, description="sheet with the table; the active sheet when omitted")
    columns: list[str] = Field(default_factory=list, description="the columns that must be equal; all when empty")


class RemoveArgs(DuplicatesArgs):
    target_sheet: str | None = into_part("a new sheet for the rows without duplicates; omitted: "
                                         "remove them from the table itself (needs approval)")


def specs(app: Any) -> list[ToolSpec]:
    def edit_or_read(change: Any) -> Any:
        return lambda a: app._edit(a.path, lambda wb: change(wb, a)) if getattr(a, "target_sheet", None) \
            else change(app._peek(a.path), a)

    return [
        ToolSpec("filter_rows", "The rows of a sheet's table that meet conditions (only the columns named, if "
                 "any); target_sheet writes them into a new sheet.", FilterArgs, edit_or_read(filter_rows),
                 effects=declared(lambda a: _target_effects(app, a, picked_rows(app._peek(a.path), a))), edits=True,
                 reshapes=True),
        ToolSpec("find_duplicates", "List the rows of a sheet's table that repeat an earlier row (all columns "
                 "equal, or the columns named).", DuplicatesArgs, lambda a: find_duplicates(app._peek(a.path), a),
                 read_only=True, computes=True),
        ToolSpec("remove_duplicate_rows", "Keep the first of each set of equal rows: into target_sheet, or in the "
                 "table itself.", RemoveArgs, lambda a: app._edit(a.path, lambda wb: remove_duplicate_rows(wb, a)),
                 effects=declared(lambda a: _remove_effects(app, a)), edits=True,
                 reshapes=True),
    ]


# -- conditions --------------------------------------------------------------------------------
def meets(value: Any, condition: Condition) -> bool:
    """Whether a cell meets a condition: numbers compare as numbers (a number written as text too), text
    ignoring case and the spaces around it, dates as their ISO text."""
    op, wanted = condition.op, condition.value
    if op == "empty":
        return not filled(value)
    if op == "not_empty":
        return filled(value)
    if not filled(value):
        return op == "!=" and filled(wanted)
    if op in ("contains", "starts_with", "ends_with"):
        text, part = str(plain(value)).casefold(), str(plain(wanted) if wanted is not None else "").strip().casefold()
        return part in text if op == "contains" else text.startswith(part) if op == "starts_with" \
            else text.endswith(part)
    a, b = number(value), number(wanted)
    if a is None or b is None:  # compare as text
        a, b = str(plain(value)).strip().casefold(), str(plain(wanted) if wanted is not None else "").strip().casefold()
    if op == "=":
        return a == b
    if op == "!=":
        return a != b
    if isinstance(a, str) != isinstance(b, str):
        return False
    return {">": a > b, ">=": a >= b, "<": a < b, "<=": a <= b}[op]  # type: ignore[operator]


def picked_rows(workbook: Any, args: FilterArgs) -> tuple[SheetTable, Reader, list[int], list[int]]:
    """The table, its reader, the rows meeting every condition, and the columns to keep."""
    table = table_of(workbook, args.sheet)
    conditions = [(table.column(c.column), c) for c in args.where]
    columns = [table.column(name) for name in args.columns] or list(table.columns)
    reader = Reader(workbook)
    closing = totals_row(workbook[table.title], table)
    rows = [row for row, values in reader.rows(table) if row != closing
            and all(meets(values[col - table.first_col], c) for col, c in conditions)]
    if not rows and conditions:
        col = conditions[0][0]
        held = (v[col - table.first_col] for _, v in reader.rows(table))
        seen = sorted({str(v) for v in held if filled(v)})
        raise ToolError(f"no row of {table.title!r} meets the conditions; column {table.name_of(col)!r} holds: "
                        f"{', '.join(seen[:20])}{', ...' if len(seen) > 20 else ''}")
    return table, reader, rows, columns


def filter_rows(workbook: Any, args: FilterArgs) -> dict[str, Any]:
    table, reader, rows, columns = picked_rows(workbook, args)
    values, styles = copied_rows(reader, table, rows, columns)
    done = {"path": args.path, "sheet": table.title, "matched": len(rows), "source_rows": rows[:50],
            **shown([[plain(v) for v in line] for line in values])}
    return _written(workbook, args, done, values, styles)


def _written(workbook: Any, args: Any, done: dict[str, Any], values: list[list[Any]],
             styles: list[list[Any]]) -> dict[str, Any]:
    """`done`, after writing the rows into args.target_sheet when one is given."""
    if not args.target_sheet:
        return done
    target = new_sheet(workbook, args.target_sheet, values)
    if target is None:
        return {**done, "target_sheet": args.target_sheet, "unchanged": True,
                "note": f"sheet {args.target_sheet!r} holds these rows already: nothing written"}
    return {**done, "target_sheet": target.title, "range": write_rows(target, values, styles)}


def _target_effects(app: Any, args: Any, picked: tuple[SheetTable, Reader, list[int], list[int]]) -> list[Effect]:
    if not args.target_sheet:
        return []
    table, reader, rows, columns = picked
    values, _ = copied_rows(reader, table, rows, columns)
    existing = check_new_sheet(reader.workbook, args.target_sheet, values)
    if existing is not None and used_range(reader.workbook[existing]) is not None:
        return []  # written already
    return [effect(app.workspace, args.path, Change.ADD)]


# -- duplicates --------------------------------------------------------------------------------
def _duplicates(workbook: Any, args: DuplicatesArgs) -> tuple[SheetTable, Reader, list[int], dict[int, int]]:
    """The table, its reader, its data rows, and each repeating row -> the row it repeats."""
    table = table_of(workbook, args.sheet)
    columns = [table.column(name) for name in args.columns] or list(table.columns)
    reader = Reader(workbook)
    closing = totals_row(workbook[table.title], table)
    first: dict[tuple[Any, ...], int] = {}
    repeats: dict[int, int] = {}
    rows = []
    for row, values in reader.rows(table, columns):
        if row == closing:
            continue
        rows.append(row)
        key = tuple(_same(v) for v in values)
        if key in first:
            repeats[row] = first[key]
        else:
            first[key] = row
    return table, reader, rows, repeats


def _same(value: Any) -> Any:
    """What makes two cells equal here: text without the spaces around it, 3 and 3.0 alike."""
    value = plain(value)
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def find_duplicates(workbook: Any, args: DuplicatesArgs) -> dict[str, Any]:
    table, reader, _, repeats = _duplicates(workbook, args)
    groups: dict[int, list[int]] = {}
    for row, original in repeats.items():
        groups.setdefault(original, [original]).append(row)
    listed = [{"rows": rows, "values": [reader.value(table.title, rows[0], c) for c in table.columns]}
              for rows in groups.values()]
    done = {"path": args.path, "sheet": table.title, "header": list(table.header),
            "duplicate_rows": sorted(repeats), "count": len(repeats), "groups": listed[:50]}
    return done if repeats else {**done, "note": "no row repeats an earlier one"}


def remove_duplicate_rows(workbook: Any, args: RemoveArgs) -> dict[str, Any]:
    table, reader, rows, repeats = _duplicates(workbook, args)
    kept = [r for r in rows if r not in repeats]
    done: dict[str, Any] = {"path": args.path, "sheet": table.title, "removed_rows": sorted(repeats),
                            "rows_left": len(kept)}
    if args.target_sheet:
        values, styles = copied_rows(reader, table, kept, list(table.columns))
        return _written(workbook, args, done, values, styles)
    if not repeats:
        return {**done, "unchanged": True, "note": "no row repeats an earlier one: nothing removed"}
    sheet = workbook[table.title]
    _movable(sheet, table)
    cells = [[(sheet.cell(row=r, column=c).value, sheet.cell(row=r, column=c)._style) for c in table.columns]
             for r in kept]
    for offset, r in enumerate(range(table.header_row + 1, table.last_row + 1)):
        for i, c in enumerate(table.columns):
            target = sheet.cell(row=r, column=c)
            if offset < len(cells):
                target.value, target._style = cells[offset][i][0], copy(cells[offset][i][1])
            else:
                target.value = None
    return done


def _movable(sheet: Any, table: SheetTable) -> None:
    """Refuse to move the rows of a table that holds formulas (a moved formula points at its old rows)."""
    if any(isinstance(v := sheet.cell(row=r, column=c).value, str) and v.startswith("=")
           for r in range(table.header_row + 1, table.last_row + 1) for c in table.columns):
        raise ToolError(f"the table of {table.title!r} holds formulas: removing rows in place would break their "
                        "references; give target_sheet to write the rows without duplicates into a new sheet")


def _remove_effects(app: Any, args: RemoveArgs) -> list[Effect]:
    workbook = app._peek(args.path)
    table, reader, rows, repeats = _duplicates(workbook, args)
    if args.target_sheet:
        return _target_effects(app, args, (table, reader, [r for r in rows if r not in repeats], list(table.columns)))
    if not repeats:
        return []
    _movable(workbook[table.title], table)
    return [effect(app.workspace, args.path, Change.EDIT)]
