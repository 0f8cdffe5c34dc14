"""Counts and statistics a person asks of a table, computed by the tool: a small model adds, counts and
picks a median wrongly, a tool does not.

column_stats: one column (by header or letter) or a range: how many values, how many numbers, their
sum, average, minimum, maximum and median, how many distinct values, and how many cells meet a value
or a criterion ('Paid', '>100', 'A*'). group_totals: a pivot table's commonest form, one row a value
of a column with the sum (count, average, min, max) of other columns, handed back as rows and, with
target_sheet, written into a new sheet.

Formula cells count with their computed values (sheet_eval). A totals row closing the table (its
formulas all =SUM) is left out, or every sum would count the rows twice.
"""

from __future__ import annotations

import statistics
from typing import Any, Literal

from pydantic import Field

from podium.apps.base import Change, Effect
from podium.apps.sheet_args import PathArgs
from podium.apps.sheet_cells import CellValue, bounds, filled, plain, sheet_named, used_range
from podium.apps.sheet_functions import matches
from podium.apps.sheet_view import (
    Reader,
    SheetTable,
    check_new_sheet,
    new_sheet,
    shown,
    table_of,
    totals_row,
    write_rows,
)
from podium.apps.table_math import number
from podium.apps.tool_effects import declared, effect
from podium.apps.tooling import ToolError, ToolSpec, into_part

How = Literal["sum", "count", "average", "min", "max"]


class StatsArgs(PathArgs):
    sheet: str | None = Field(None, description="sheet name; the active sheet when omitted")
    column: str = Field(description="a column of the sheet's table by header or letter ('Price', 'C'), or a range "
                                    "('C2:C9')")
    count_matching: CellValue = Field(None, description="also count the cells equal to this value, or meeting a "
                                                        "criterion such as '>100' or 'A*'")


class GroupArgs(PathArgs):
    sheet: str | None = Field(None, description="sheet with the table; the active sheet when omitted")
    by: str = Field(description="the column whose values make the groups (header or letter)")
    columns: list[str] = Field(default_factory=list, description="the columns to total in each group; none: "
                                                                 "only count the rows")
    how: How = Field("sum", description="sum, count, average, min or max of each column")
    target_sheet: str | None = into_part("a new sheet to write the summary into; omitted: only "
                                         "return it")


def specs(app: Any) -> list[ToolSpec]:
    return [
        ToolSpec("column_stats", "Count, sum, average, min, max and median of one column or range, and how many "
                 "cells match a value.", StatsArgs, lambda a: column_stats(app._peek(a.path), a), read_only=True,
                 computes=True),
        ToolSpec("group_totals", "Sum (or count, average, min, max) of columns for each value of another column, "
                 "like a pivot table; target_sheet writes it into a new sheet.", GroupArgs,
                 lambda a: app._edit(a.path, lambda wb: group_totals(wb, a)) if a.target_sheet
                 else group_totals(app._peek(a.path), a),
                 effects=declared(lambda a: _group_effects(app, a)), edits=True),
    ]


# -- one column --------------------------------------------------------------------------------
def _cells(workbook: Any, args: StatsArgs) -> tuple[str, str, list[Any], str]:
    """(sheet title, what was read, the values, a note) for the column or range asked."""
    reader = Reader(workbook)
    if ":" in args.column:
        sheet = sheet_named(workbook, args.sheet)
        min_col, min_row, max_col, max_row = bounds(args.column)
        values = [reader.value(sheet.title, r, c) for r in range(min_row, min(max_row, sheet.max_row) + 1)
                  for c in range(min_col, min(max_col, sheet.max_column) + 1)]
        return sheet.title, args.column.upper(), values, ""
    table = table_of(workbook, args.sheet)
    col = table.column(args.column)
    closing = totals_row(workbook[table.title], table)
    rows = [(r, v) for r, v in reader.rows(table, [col]) if r != closing]
    from openpyxl.utils.cell import get_column_letter

    letter = get_column_letter(col)
    area = f"{letter}{table.header_row + 1}:{letter}{(closing - 1) if closing else table.last_row}"
    note = f"row {closing} left out: it totals the rows above" if closing else ""
    return table.title, f"{table.name_of(col)} ({area})", [v[0] for _, v in rows], note


def column_stats(workbook: Any, args: StatsArgs) -> dict[str, Any]:
    title, read, values, note = _cells(workbook, args)
    present = [v for v in values if filled(v)]
    if not present:
        raise ToolError(f"{title}!{read} holds no values (the sheet's values are in "
                        f"{used_range(workbook[title]) or 'no cell: it is empty'})")
    numbers = [n for v in present if (n := number(v)) is not None]
    done: dict[str, Any] = {"path": args.path, "sheet": title, "cells": read, "count": len(present),
                            "numbers": len(numbers), "distinct": len({str(v).strip() for v in present})}
    if numbers:
        total = sum(numbers)
        done |= {"sum": _round(total), "average": _round(total / len(numbers)), "min": min(numbers),
                 "max": max(numbers), "median": _round(statistics.median(numbers))}
        texts = sum(isinstance(v, str) for v in present if number(v) is not None)
        if texts:
            note = "; ".join(filter(None, [note, f"{texts} of the numbers are written as text"]))
    if args.count_matching is not None:
        done["matching"] = {"criterion": args.count_matching,
                            "count": sum(matches(v, args.count_matching) for v in values)}
    return {**done, "note": note} if note else done


def _round(value: float) -> int | float:
    value = round(value, 10)
    return int(value) if float(value).is_integer() else value


# -- groups ------------------------------------------------------------------------------------
def _labels(table: SheetTable, by: int, columns: list[int], how: How) -> list[str]:
    """The summary's header: the grouping column's, then each total's (a sum keeps the column's own name:
    'Revenue'; 'Average of Revenue' says what else it is), or Count when nothing is totalled."""
    named = [table.name_of(c) if how == "sum" else f"{how.capitalize()} of {table.name_of(c)}" for c in columns]
    return [table.name_of(by), *(named or ["Count"])]


def summary(workbook: Any, args: GroupArgs) -> tuple[SheetTable, int | None, list[list[Any]]]:
    """The table, its totals row (left out) and the summary's rows, header first."""
    table = table_of(workbook, args.sheet)
    by = table.column(args.by)
    columns = [table.column(name) for name in args.columns if table.column(name) != by]
    closing = totals_row(workbook[table.title], table)
    reader = Reader(workbook)
    groups: dict[Any, list[list[Any]]] = {}
    for row, values in reader.rows(table, [by, *columns]):
        if row != closing and filled(values[0]):
            groups.setdefault(_key(values[0]), []).append(values)
    if not groups:
        raise ToolError(f"column {table.name_of(by)!r} of {table.title!r} holds no values to group by")
    rows = [_labels(table, by, columns, args.how)]
    for key in sorted(groups, key=_order):
        members = groups[key]
        line = [key]
        for i in range(1, len(columns) + 1):
            numbers = [n for m in members if (n := number(m[i])) is not None]
            line.append(_aggregate(numbers, len(members), args.how))
        if not columns:
            line.append(len(members))
        rows.append(line)
    return table, closing, rows


def group_totals(workbook: Any, args: GroupArgs) -> dict[str, Any]:
    table, closing, rows = summary(workbook, args)
    by = table.column(args.by)
    done: dict[str, Any] = {"path": args.path, "sheet": table.title, "groups": len(rows) - 1, **shown(rows)}
    if closing:
        done["note"] = f"row {closing} left out: it totals the rows above"
    if args.target_sheet:
        target = new_sheet(workbook, args.target_sheet, rows)
        if target is None:
            return {**done, "target_sheet": args.target_sheet, "unchanged": True,
                    "note": f"sheet {args.target_sheet!r} holds this summary already: nothing written"}
        header_style = workbook[table.title].cell(row=table.header_row, column=by)._style
        styles = [[header_style] * len(rows[0]), *[[None] * len(r) for r in rows[1:]]]
        done |= {"target_sheet": target.title, "range": write_rows(target, rows, styles)}
    return done


def _aggregate(numbers: list[float], members: int, how: How) -> Any:
    if how == "count":
        return len(numbers) if numbers else members
    if not numbers:
        return None
    if how == "sum":
        return _round(sum(numbers))
    if how == "average":
        return _round(sum(numbers) / len(numbers))
    return min(numbers) if how == "min" else max(numbers)


def _key(value: Any) -> Any:
    """Values that read the same group together: ' North' and 'North', 3 and 3.0."""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return plain(value)


def _order(value: Any) -> tuple[int, Any]:
    return (0, value) if isinstance(value, int | float) and not isinstance(value, bool) else (1, str(value).casefold())


def _group_effects(app: Any, args: GroupArgs) -> list[Effect]:
    if not args.target_sheet:
        return []
    workbook = app._peek(args.path)
    rows = summary(workbook, args)[2]
    existing = check_new_sheet(workbook, args.target_sheet, rows)  # a call refused changes nothing
    if existing is not None and used_range(workbook[existing]) is not None:
        return []  # the summary is there already
    return [effect(app.workspace, args.path, Change.ADD)]
