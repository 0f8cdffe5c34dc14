"""fill_empty_cells: the gaps of a sheet's table filled with one value, or each with the value above it.

A gap is an empty cell under a named column, in a data row that holds other values (an empty row is no record,
and is left as it is). Filling one loses nothing the person had (an ADD, no approval), as writing under a table
does. A value is written as a typed one would be (sheet_cells.cell_value); "from above" copies the nearest value
above it in its column, a spreadsheet program's fill down: a formula is not copied (its references would not
follow), so a gap under one stays a gap and the result names it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pydantic import Field

from podium.apps.base import Change, Effect
from podium.apps.formulas import is_formula
from podium.apps.sheet_args import PathArgs
from podium.apps.sheet_cells import cell_value, filled, put
from podium.apps.sheet_view import SheetTable, table_of
from podium.apps.tool_effects import declared
from podium.apps.tooling import ToolError, ToolSpec, active_part

MAX_LISTED = 20  # cells a result names


class FillArgs(PathArgs):
    sheet: str | None = active_part("sheet with the table; the active sheet when omitted")
    column: str | None = Field(None, description="only this column, by header or letter ('Phone', 'C'); every "
                                                 "column of the table when omitted")
    value: str | int | float | None = Field(None, description="what goes into each empty cell, e.g. 0 or 'unknown'")
    from_above: bool = Field(False, description="true: each empty cell takes the value above it (fill down), "
                                                "instead of `value`")


def specs(app: Any) -> list[ToolSpec]:
    return [
        ToolSpec("fill_empty_cells", "Fill the empty cells of a sheet's table (or of one column) with a value, or "
                 "each with the value above it, and save.", FillArgs,
                 lambda a: app._edit(a.path, lambda wb: fill_empty_cells(wb, a)),
                 effects=declared(lambda a: _effects(app, a)), edits=True),
    ]


def fill_empty_cells(workbook: Any, args: FillArgs) -> dict[str, Any]:
    """Fill (changing `workbook`, which the caller saves unless the result says `unchanged`)."""
    table, filling, left = _plan(workbook, args)
    sheet = workbook[table.title]
    for (row, col), value in filling.items():
        put(sheet.cell(row, col), value)
    done: dict[str, Any] = {"path": args.path, "sheet": table.title}
    if left:
        done |= {"left_empty": _listed(left), "note": "nothing above these to copy (the column's top, or a formula)"}
    if not filling:
        return {**done, "unchanged": True, "note": f"no empty cell in the rows of the table of {table.title!r}"
                                                   f"{_where(table, args)}: nothing written"}
    return {**done, "filled": len(filling), "cells": _listed(list(filling))}


def _effects(app: Any, args: FillArgs) -> list[Effect]:
    table, filling, _ = _plan(app._peek(args.path), args)
    if not filling:
        return []
    return [replace(app.workspace.effect(app._existing(args.path), Change.ADD), part=table.title)]


def _plan(workbook: Any, args: FillArgs) -> tuple[SheetTable, dict[tuple[int, int], Any], list[tuple[int, int]]]:
    """The table, what goes into each gap (row, column), and the gaps left empty."""
    if (args.value is None or args.value == "") == (not args.from_above):
        raise ToolError("give either `value` (what to write) or from_above=true (copy the value above)")
    table = table_of(workbook, args.sheet)
    sheet = workbook[table.title]
    columns = [table.column(args.column)] if args.column is not None else \
        [c for c in table.columns if table.header[c - table.first_col]]
    new = cell_value(args.value) if not args.from_above else None
    if isinstance(new, str) and is_formula(new):
        raise ToolError("value is a value, not a formula: add_formula_column writes a formula in every row")
    filling: dict[tuple[int, int], Any] = {}
    left: list[tuple[int, int]] = []
    for col in columns:
        above: Any = None
        for row in range(table.header_row + 1, table.last_row + 1):
            value = sheet.cell(row, col).value
            if filled(value):
                above = None if is_formula(value) else value
                continue
            if not any(filled(sheet.cell(row, c).value) for c in table.columns):
                continue  # an empty row: no record to complete
            if not args.from_above:
                filling[(row, col)] = new
            elif above is not None:
                filling[(row, col)] = above
            else:
                left.append((row, col))
    return table, filling, left


def _listed(cells: list[tuple[int, int]]) -> list[str]:
    from openpyxl.utils.cell import get_column_letter

    names = [f"{get_column_letter(col)}{row}" for row, col in sorted(cells)]
    return names[:MAX_LISTED] + ([f"... {len(names) - MAX_LISTED} more"] if len(names) > MAX_LISTED else [])


def _where(table: SheetTable, args: FillArgs) -> str:
    return f" under {table.name_of(table.column(args.column))!r}" if args.column is not None else ""
