"""A sheet's totals: column_totals' arithmetic (column_stats), and add_totals_row, a labelled row of =SUM
formulas directly under a sheet's table.

"Add a row labelled Total under the invoices, with the totals of the Net and VAT columns" is a change
whose cells a small model gets wrong three ways: its own sum of the numbers, a formula on a header
(=SUM(Net), which a spreadsheet program shows as #NAME?), and the right formulas one column off (the
1.5B AppAgent's ["Total", "=SUM(C2:C6)", "=SUM(D2:D6)"] put Net's total under Client). The tool puts
each column's formula under that column, from the first data row to the last, so the totals follow
later edits as a person's would; the label goes in the table's first column.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from podium.apps.sheet_args import PathArgs
from podium.apps.sheet_cells import bounds, coordinate, find_table, header_index, put, put_formula, sheet_named
from podium.apps.tooling import ToolError, active_part


class TotalsArgs(PathArgs):
    sheet: str | None = active_part("sheet with the table; the active sheet when omitted")
    columns: list[str] = Field(default_factory=list, description="the columns to total, by header (e.g. 'Net') "
                                                                 "or letter; every column of numbers when empty")
    label: str = Field("Total", description="the text in the row's first cell")


def add_totals_row(workbook: Any, args: TotalsArgs) -> dict[str, Any]:
    """Write the row under the table of `args.sheet`; raises ToolError (nothing written) when the sheet has
    no table with a header, a column is not the table's, or the row under the table is not empty."""
    from openpyxl.utils.cell import get_column_letter

    sheet = sheet_named(workbook, args.sheet)
    table = find_table(sheet)
    if table is None or not table.has_header or table.last_row == table.top_row:
        elsewhere = _sums_elsewhere(workbook, sheet)
        if elsewhere:  # a total of another sheet's column goes into a cell of this one: a formula's work
            raise ToolError(f"sheet {sheet.title!r} has no table (a header row and rows under it) to total; a "
                            f"total of another sheet's column goes into one of its cells with set_formula (sheet "
                            f"{sheet.title!r}, a cell, and the formula): {'; '.join(elsewhere)}",
                            instead=("set_formula",))
        raise ToolError(f"sheet {sheet.title!r} has no table (a header row and rows under it) to total")
    first, last, below = table.top_row + 1, table.last_row, table.last_row + 1
    header = {c: sheet.cell(table.top_row, c).value for c in range(table.first_col, table.last_col + 1)}
    label = str(sheet.cell(last, table.first_col).value or "").strip()
    if label.casefold() == args.label.strip().casefold():
        raise ToolError(f"the table's last row ({last}) is a {label!r} row already")
    numeric = {c: [v for r in range(first, last + 1) if _number(v := sheet.cell(r, c).value)] for c in header}
    wanted = [_column(name, header, sheet.title) for name in args.columns] or \
        [c for c, values in numeric.items() if values and c != table.first_col]
    if not wanted:
        raise ToolError(f"the table of {sheet.title!r} has no column of numbers to total")
    if table.first_col in wanted:
        raise ToolError(f"column {get_column_letter(table.first_col)} takes the label {args.label!r}: total "
                        "other columns")
    taken = [coordinate(c, below) for c in (table.first_col, *wanted) if sheet.cell(below, c).value is not None]
    if taken:
        raise ToolError(f"row {below}, under the table, is not empty ({', '.join(taken)}): nothing was written")
    put(sheet.cell(below, table.first_col), args.label)  # a label, even one starting with "=", is text
    cells, totals = {}, {}
    for c in wanted:
        letter = get_column_letter(c)
        formula = f"=SUM({letter}{first}:{letter}{last})"
        put_formula(sheet.cell(below, c), formula)
        cells[coordinate(c, below)] = formula
        totals[str(header[c] or letter)] = round(sum(numeric[c]), 10)
    return {"path": args.path, "sheet": sheet.title, "row": below, "label": args.label, "cells": cells,
            "totals": totals}


def _sums_elsewhere(workbook: Any, sheet: Any, most: int = 6) -> list[str]:
    """The =SUM formulas of the numeric columns of the workbook's other sheets' tables, each by its header."""
    from openpyxl.utils.cell import get_column_letter, quote_sheetname

    found = []
    for other in workbook.worksheets:
        table = find_table(other) if other is not sheet else None
        if table is None or not table.has_header or table.last_row == table.top_row:
            continue
        for c in range(table.first_col, table.last_col + 1):
            values = [other.cell(r, c).value for r in range(table.top_row + 1, table.last_row + 1)]
            if any(_number(v) for v in values):
                letter = get_column_letter(c)
                found.append(f"{other.cell(table.top_row, c).value or letter}: =SUM({quote_sheetname(other.title)}!"
                             f"{letter}{table.top_row + 1}:{letter}{table.last_row})")
    return found[:most]


def column_stats(rows: list[list[Any]], area: str, sheet: str) -> tuple[int, dict[str, Any]]:
    """The header row's index in `rows` (read from `area` of `sheet`), and each column of numbers' sum,
    count, min, max and mean by its header (its letter when it has none). The header is the first row with
    two or more texts (a title above a table is skipped), or the first text of a range one column wide;
    below it, a column's numbers count (not texts, not formulas). Raises ToolError without a header."""
    from openpyxl.utils.cell import get_column_letter

    min_col = bounds(area)[0]
    top = header_index(rows)
    if top is None:
        one_column = max(len(row) for row in rows) == 1
        raise ToolError(f"no header row (a row of {'text' if one_column else 'two or more texts'}) in {sheet}!{area}")
    columns: dict[str, Any] = {}
    for c, name in enumerate(rows[top]):
        numbers = [v for row in rows[top + 1:] if c < len(row) and _number(v := row[c])]
        if not numbers:
            continue
        total = sum(numbers)
        key = str(name).strip() if name not in (None, "") else get_column_letter(min_col + c)
        columns[key] = {"column": get_column_letter(min_col + c), "sum": round(total, 10), "count": len(numbers),
                        "min": min(numbers), "max": max(numbers), "mean": round(total / len(numbers), 10)}
    return top, columns


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _column(name: str, header: dict[int, Any], sheet: str) -> int:
    """The table's column `name` means: a header (any case) or a letter."""
    from openpyxl.utils.cell import column_index_from_string

    wanted = name.strip().casefold()
    found = [c for c, h in header.items() if str(h or "").strip().casefold() == wanted]
    if not found and wanted.isalpha() and len(wanted) <= 3:
        index = column_index_from_string(wanted.upper())
        found = [index] if index in header else []
    if not found:
        names = [str(h) for h in header.values() if h not in (None, "")]
        raise ToolError(f"the table of {sheet!r} has no column {name!r}; its columns are {names}")
    return found[0]
