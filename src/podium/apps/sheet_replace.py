"""replace_text: a spreadsheet's find and replace over cell values.

The same work has the same name in every application (documents and text files have a replace_text too): a plan
that declared it for a workbook on the wrong application keeps it when the subtask moves to the one that opens
the file.

As in a spreadsheet program's Find & Replace, a match is a whole cell by default ('NY' does not touch 'NYC'),
case ignored (a cell is an entry: 'n/a' and 'N/A' are the same one); `whole_cell=false` also replaces the text
inside longer texts. A number matches as a number ('5' finds 5 and 5.0). Formulas are never searched or
rewritten: their text is code, not a value. A replacement is written as a typed value would be (sheet_cells
.cell_value: '0' the number 0, '' an empty cell), never as a live formula (sheet_cells.put).

The search covers every sheet, or one sheet; with `column`, the data rows of that column of the sheet's table
(its header left as it is). Replacing overwrites what the person had, an EDIT that waits for approval; a call
that finds nothing changes nothing and says what the cells searched do hold.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from pydantic import Field

from podium.apps.base import Change, Effect
from podium.apps.formulas import is_formula
from podium.apps.sheet_args import PathArgs
from podium.apps.sheet_cells import bounds, cell_value, filled, plain, put, sheet_named, used_range
from podium.apps.sheet_view import table_of
from podium.apps.tool_effects import declared
from podium.apps.tooling import ToolError, ToolSpec

MAX_LISTED = 20  # cells a result names


class ReplaceArgs(PathArgs):
    find: str = Field(min_length=1, description="the value to find, e.g. 'N/A'")
    replace_with: str | int | float = Field(description="what each match becomes ('' empties the cell)")
    sheet: str | None = Field(None, description="the sheet to search; every sheet when omitted (the active "
                                                "one when `column` is given)")
    column: str | None = Field(None, description="only this column of the table, by header or letter "
                                                 "('Phone', 'C'); its header is left as it is")
    whole_cell: bool = Field(True, description="true: cells whose whole value is `find`; false: `find` inside "
                                               "longer texts too")
    match_case: bool = Field(False, description="true: 'N/A' does not find 'n/a'")


def specs(app: Any) -> list[ToolSpec]:
    return [
        ToolSpec("replace_text", "Replace every cell holding a value (or, not whole_cell, a text inside cells) "
                 "in a workbook: every sheet, a sheet, or one column of its table; and save.", ReplaceArgs,
                 lambda a: app._edit(a.path, lambda wb: replace_text(wb, a)),
                 effects=declared(lambda a: _effects(app, a)), edits=True),
    ]


def replace_text(workbook: Any, args: ReplaceArgs) -> dict[str, Any]:
    """Replace in `workbook` (the caller saves it unless the result says `unchanged`)."""
    new = _replacement(args)
    done: dict[str, Any] = {"path": args.path, "find": args.find, "replace_with": args.replace_with}
    changed = []
    for sheet, cell in _matches(workbook, args):
        put(cell, new if args.whole_cell else _within(cell.value, args, new))
        changed.append(f"{sheet.title}!{cell.coordinate}")
    if not changed:
        return {**done, "unchanged": True, "note": _nothing_found(workbook, args)}
    shown = changed[:MAX_LISTED] + ([f"... {len(changed) - MAX_LISTED} more"] if len(changed) > MAX_LISTED else [])
    return {**done, "replaced": len(changed), "cells": shown}


def _effects(app: Any, args: ReplaceArgs) -> list[Effect]:
    _replacement(args)  # a refused replacement changes nothing
    workbook = app._peek(args.path)
    sheets = {sheet.title for sheet, _ in _matches(workbook, args)}
    if not sheets:
        return []
    change = app.workspace.effect(app._existing(args.path), Change.EDIT)
    return [replace(change, part=next(iter(sheets)))] if len(sheets) == 1 else [change]


def _matches(workbook: Any, args: ReplaceArgs) -> Iterator[tuple[Any, Any]]:
    """The cells a call replaces, sheet by sheet, row by row (a ToolError for a sheet or column not there)."""
    for sheet, cells in _searched(workbook, args):
        for cell in cells:
            if _hit(cell.value, args):
                yield sheet, cell


def _searched(workbook: Any, args: ReplaceArgs) -> Iterator[tuple[Any, Iterator[Any]]]:
    if args.column is not None:
        table = table_of(workbook, args.sheet)
        col = table.column(args.column)
        sheet = workbook[table.title]
        yield sheet, (sheet.cell(row, col) for row in range(table.header_row + 1, table.last_row + 1))
        return
    sheets = [sheet_named(workbook, args.sheet)] if args.sheet is not None else workbook.worksheets
    for sheet in sheets:
        area = used_range(sheet)
        if area is not None:
            min_col, min_row, max_col, max_row = bounds(area)
            yield sheet, (cell for row in sheet.iter_rows(min_row=min_row, max_row=max_row, min_col=min_col,
                                                          max_col=max_col) for cell in row)


def _hit(value: Any, args: ReplaceArgs) -> bool:
    if not filled(value) or is_formula(value):
        return False
    if args.whole_cell:
        wanted, found = cell_value(args.find.strip()), plain(value)
        if _number(wanted) is not None and _number(found) is not None:
            return _number(wanted) == _number(found)
        return _fold(str(found).strip(), args) == _fold(str(wanted), args)
    return isinstance(value, str) and _pattern(args).search(value) is not None


def _within(value: str, args: ReplaceArgs, new: Any) -> Any:
    return cell_value(_pattern(args).sub(lambda _: "" if new is None else str(new), value))


def _pattern(args: ReplaceArgs) -> re.Pattern[str]:
    return re.compile(re.escape(args.find), 0 if args.match_case else re.IGNORECASE)


def _replacement(args: ReplaceArgs) -> Any:
    if isinstance(args.replace_with, str):
        if is_formula(args.replace_with.strip()):
            raise ToolError("replace_with is a value, not a formula: set_formula or add_formula_column write "
                            "formulas")
        return cell_value(args.replace_with) if args.replace_with.strip() else None
    return args.replace_with


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _fold(text: str, args: ReplaceArgs) -> str:
    return text if args.match_case else text.casefold()


def _nothing_found(workbook: Any, args: ReplaceArgs) -> str:
    """What a call that found nothing tells: where it looked, and what is there instead."""
    values = sorted({str(plain(cell.value)).strip() for _, cells in _searched(workbook, args) for cell in cells
                     if filled(cell.value) and not is_formula(cell.value)}, key=str.casefold)
    where = f"column {args.column!r}" if args.column else f"sheet {args.sheet!r}" if args.sheet else "any sheet"
    how = "as a whole cell" if args.whole_cell else "in any text"
    shown = ", ".join(repr(v) for v in values[:MAX_LISTED]) + (", ..." if len(values) > MAX_LISTED else "")
    return f"no cell of {where} holds {args.find!r} {how}: nothing written; the values there: {shown or 'none'}"
