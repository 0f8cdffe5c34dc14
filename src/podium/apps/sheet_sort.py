"""sort_rows: a sheet's table sorted by one column, into another sheet or in place.

A small model cannot order rows itself and write them (a "ranking, highest score first" request
failed on the 1.5B model), so the tool does it, as column_totals does the sums. The table is what read_sheet shows
of the sheet: the used range, from its header row (the first row with two or more texts; a title
above it is left where it is) down. Values are the stored ones: a formula is its text, and its
result is not known, so a formula cell sorts with the empty ones, last.

Sorting in place rewrites cells (its effect is an EDIT: sensitive, the caller asks the person first), and
a table whose rows hold formulas is not sorted in place: a moved formula would still point at the old rows.
Into another sheet (an ADD), the header and the sorted rows are written from A1, and each formula is moved
with its row (its relative references follow it), as a spreadsheet program's copy does; a formula calling a
function outside formulas.ALLOWED is not written anywhere. A cell holding text that starts with "=" stays
text wherever it moves: only a cell that is a formula is one.
"""

from __future__ import annotations

import datetime as dt
from copy import copy
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field

from podium.apps.base import Change
from podium.apps.formulas import formula_problem
from podium.apps.sheet_args import PathArgs
from podium.apps.sheet_cells import (
    area_of,
    bounds,
    coordinate,
    filled,
    header_index,
    plain,
    put,
    put_formula,
    sheet_named,
    used_range,
)
from podium.apps.tooling import ToolError, into_part

# Rows a result shows: enough for a model to write from, not a whole sheet in its context.
MAX_SHOWN = 50
SHOWN_WHEN_MORE = 5


class SortArgs(PathArgs):
    by: str = Field(description="column to sort by: its header (e.g. 'Score') or its letter (e.g. 'B')")
    # no default: the direction is the request's to say, and an argument a model may leave out is one a small
    # model leaves out, whatever its subtask says
    order: Literal["ascending", "descending"] = Field(
        description="ascending: lowest (or A, or earliest) first; descending: highest (or Z, or latest) first")
    sheet: str | None = Field(None, description="sheet with the table; the active sheet when omitted")
    target_sheet: str | None = into_part("sheet to write the sorted table into (created if "
                                         "missing); sorts in place when omitted")


@dataclass(frozen=True, slots=True)
class Cell:
    value: Any
    style: Any  # openpyxl's style array: a number format (date, percent) moves with its value
    kind: str = "n"  # openpyxl's data type: "f" a formula, "s" text (which may start with "=")

    @property
    def formula(self) -> bool:
        return self.kind == "f" or _is_formula(self.value)


Row = tuple[Cell, ...]


@dataclass(frozen=True, slots=True)
class SortPlan:
    """What a sort_rows call would do to the workbook, worked out without changing it."""

    source: str  # the sheet's title
    target: str | None  # None: in place
    column: str  # the sorted column's letter
    header_name: str
    first_col: int
    header_row: int
    header: Row
    order: tuple[int, ...]  # the data rows' indices, sorted; rows without any value left out
    original: tuple[Row, ...]  # the data rows as they are, blank ones included

    @property
    def rows(self) -> tuple[Row, ...]:
        return tuple(self.original[i] for i in self.order)

    @property
    def in_place_rows(self) -> tuple[Row, ...]:
        """The data area after sorting in place: the sorted rows, then the blank ones (with their styles)."""
        kept = set(self.order)
        return self.rows + tuple(r for i, r in enumerate(self.original) if i not in kept)

    @property
    def in_place(self) -> bool:
        return self.target is None

    @property
    def moves(self) -> bool:
        """Whether sorting in place changes any cell (already in order: nothing to do, nothing to ask)."""
        return [_values(r) for r in self.in_place_rows] != [_values(r) for r in self.original]


def plan_sort(workbook: Any, args: SortArgs) -> SortPlan:
    """The table, the column and the sorted rows; a ToolError says what is wrong with the call."""
    sheet = sheet_named(workbook, args.sheet)
    area = used_range(sheet)
    if area is None:
        raise ToolError(f"sheet {sheet.title!r} is empty: there is no table to sort")
    min_col, min_row, max_col, max_row = bounds(area)
    cells = [tuple(Cell(c.value, c._style, c.data_type) for c in row)
             for row in sheet.iter_rows(min_row=min_row, max_row=max_row, min_col=min_col, max_col=max_col)]
    top = header_index([list(_values(r)) for r in cells])
    if top is None:
        raise ToolError(f"no header row (a row of column names) in {sheet.title}!{area}: nothing says which "
                        "column is which")
    header, data = cells[top], tuple(cells[top + 1:])
    filled_rows = [i for i, r in enumerate(data) if any(filled(c.value) for c in r)]
    if not filled_rows:
        raise ToolError(f"the table of {sheet.title}!{area} has a header row ({min_row + top}) and no data rows "
                        "under it: nothing to sort")
    index = _column(header, args.by, min_col, sheet.title)
    target = _target_title(workbook, args.target_sheet, sheet.title)
    if target is None and any(c.formula for i in filled_rows for c in data[i]):
        raise ToolError(f"the rows of {sheet.title}!{area} hold formulas: sorting them in place would break their "
                        "references; give target_sheet to write a sorted copy into another sheet")
    order = _sorted(filled_rows, [data[i][index] for i in filled_rows], args.order == "descending")
    return SortPlan(source=sheet.title, target=target, column=_letter(min_col + index),
                    header_name=str(plain(header[index].value)).strip(), first_col=min_col,
                    header_row=min_row + top, header=header, order=order, original=data)


def sort_effect(workbook: Any, args: SortArgs) -> tuple[Change, str, str] | None:
    """What a sort does to its file, the sheet it changes and the sheet it makes ("": none): in place, values
    move to other cells (an EDIT of its sheet: the order they had is lost), or nothing when they are in order
    already; a sorted copy into another sheet is an ADD (of a new sheet, where that one is not there yet).
    Raises ToolError when the call will be refused."""
    plan = plan_sort(workbook, _direction(workbook, args)[0])
    if plan.in_place:
        return (Change.EDIT, plan.source, "") if plan.moves else None
    target = plan.target or ""
    return Change.ADD, target, "" if target in workbook.sheetnames else target


def sort_rows(workbook: Any, args: SortArgs, path: str) -> dict[str, Any]:
    """Sort (changing `workbook`, which the caller saves unless the result says `unchanged`)."""
    args, swapped = _direction(workbook, args)
    plan = plan_sort(workbook, args)
    width = len(plan.header)
    # each value one the call takes back as it is: a model copies what a result shows into its next call
    done: dict[str, Any] = {"path": path, "sheet": plan.source, "by": plan.header_name, "column": plan.column,
                            "order": args.order}
    if plan.in_place:
        sheet = workbook[plan.source]
        first = plan.header_row + 1
        done |= {"range": area_of(plan.first_col, first, plan.first_col + width - 1,
                                  first + len(plan.original) - 1), **_shown(plan)}
        if not plan.moves:
            return {**done, "unchanged": True, "note": "the rows are already in this order: nothing written"}
        _write(sheet, plan.first_col, first, plan.in_place_rows)
        return done
    rows = (plan.header, *_moved(plan))
    done |= {"target_sheet": plan.target, "range": area_of(1, 1, width, len(rows)), **_shown(plan)}
    if plan.target in workbook.sheetnames:
        target = workbook[plan.target]
        held = used_range(target)
        if held is not None:
            if bounds(held) == bounds(done["range"]) and _holds(target, rows):
                return {**done, "unchanged": True,
                        "note": f"sheet {plan.target!r} already holds these sorted rows: nothing written"}
            if not (bounds(held) == bounds(done["range"]) and _copy_of(target, plan)):
                raise ToolError(f"sheet {plan.target!r} already holds values ({held}); give a new sheet name as "
                                "target_sheet (it is created)")
            # it holds the table as it is in its sheet, unsorted: the sorted rows replace that copy, and nothing
            # is lost (the order it had is the source's, which keeps it)
            done["note"] = f"sheet {plan.target!r} held the table unsorted: the sorted rows replaced it"
    else:
        try:
            target = workbook.create_sheet(plan.target)
        except ValueError as exc:
            raise ToolError(f"{plan.target!r} cannot be a sheet name: {exc}") from exc
    _write(target, 1, 1, rows)
    if swapped:
        done["note"] = swapped
    return done


def _direction(workbook: Any, args: SortArgs) -> tuple[SortArgs, str]:
    """The call with `sheet` and `target_sheet` swapped when the sheet to sort is empty and the target holds
    the table: the 1.5B AppAgent that had added the empty Ranking sheet sorted 'Ranking' into 'Scores'.
    (The target is then the empty sheet: nothing can be written over.)"""
    if not args.target_sheet or not args.sheet:
        return args, ""
    names = {name.casefold(): name for name in workbook.sheetnames}
    source, target = names.get(args.sheet.strip().casefold()), names.get(args.target_sheet.strip().casefold())
    if source is None or target is None or used_range(workbook[source]) is not None \
            or used_range(workbook[target]) is None:
        return args, ""
    note = f"sheet {source!r} is empty and {target!r} holds the table: {target!r} was sorted into {source!r}"
    return args.model_copy(update={"sheet": target, "target_sheet": source}), note


# -- the parts ---------------------------------------------------------------------------------
def _column(header: Row, by: str, first_col: int, title: str) -> int:
    """The index in the table of the column `by` names: a header (any case, spaces around ignored) or a
    column letter of the sheet."""
    from openpyxl.utils.cell import column_index_from_string

    wanted = by.strip().casefold()
    names = [str(plain(c.value)).strip() if filled(c.value) else "" for c in header]
    for i, name in enumerate(names):
        if name and name.casefold() == wanted:
            return i
    if wanted.isalpha() and len(wanted) <= 3:
        i = column_index_from_string(wanted.upper()) - first_col
        if 0 <= i < len(header):
            return i
    raise ToolError(f"no column {by!r} in the table of sheet {title!r}; its headers are "
                    f"{[n for n in names if n]} (columns {_letter(first_col)}-"
                    f"{_letter(first_col + len(header) - 1)})")


def _target_title(workbook: Any, target: str | None, source: str) -> str | None:
    """The target sheet's title, None for in place; an existing sheet is found in any case (a workbook
    cannot hold 'Ranking' and 'ranking')."""
    if target is None or not target.strip():
        return None
    name = target.strip()
    existing = next((t for t in workbook.sheetnames if t.casefold() == name.casefold()), name)
    return None if existing == source else existing


def _sorted(rows: list[int], cells: list[Cell], descending: bool) -> tuple[int, ...]:
    """The rows ordered by their cells' values: numbers by value, dates by date, text ignoring case; empty
    cells (and formulas, whose result is not stored) last whichever the direction. Python's sort is
    stable in both directions."""
    keys = [None if c.formula else _key(c.value) for c in cells]
    keyed = [(k, r) for k, r in zip(keys, rows, strict=True) if k is not None]
    ordered = [r for _, r in sorted(keyed, key=lambda pair: pair[0], reverse=descending)]
    return tuple(ordered + [r for k, r in zip(keys, rows, strict=True) if k is None])


def _key(value: Any) -> tuple[int, Any] | None:
    # Kinds in a spreadsheet program's order: numbers, then dates, then text, then true/false.
    if not filled(value):
        return None
    if isinstance(value, bool):
        return (3, value)
    if isinstance(value, int | float):
        return (0, value)
    if isinstance(value, dt.date | dt.datetime | dt.time):
        return (1, plain(value))
    return (2, str(value).strip().casefold())


def _is_formula(value: Any) -> bool:
    """A formula object openpyxl keeps (an array formula); text is never one by itself (see Cell.kind)."""
    return value is not None and not isinstance(value, str | bool | int | float | dt.date | dt.datetime | dt.time
                                                | dt.timedelta)


def _moved(plan: SortPlan) -> list[Row]:
    """The sorted rows as written from A2 of the target: formulas translated to their new cells."""
    from openpyxl.formula.translate import Translator

    moved = []
    for new_row, i in enumerate(plan.order, start=2):
        cells = []
        for c, cell in enumerate(plan.original[i]):
            value = cell.value
            if cell.kind == "f" and isinstance(value, str):
                if (problem := formula_problem(value)) is not None:
                    raise ToolError(f"row {plan.header_row + 1 + i} of {plan.source!r}: {problem}; nothing was "
                                    "written")
                origin = coordinate(plan.first_col + c, plan.header_row + 1 + i)
                value = Translator(value, origin=origin).translate_formula(coordinate(1 + c, new_row))
            cells.append(Cell(value, cell.style, cell.kind))
        moved.append(tuple(cells))
    return moved


def _shown(plan: SortPlan) -> dict[str, Any]:
    header = [plain(c.value) for c in plan.header]
    rows = [[plain(c.value) for c in r] for r in plan.rows]
    if len(rows) <= MAX_SHOWN:
        return {"rows": [header, *rows]}
    return {"sorted_rows": len(rows), "first_rows": [header, *rows[:SHOWN_WHEN_MORE]]}


def _holds(sheet: Any, rows: tuple[Row, ...]) -> bool:
    return all(sheet.cell(row=r, column=c).value == cell.value
               for r, row in enumerate(rows, start=1) for c, cell in enumerate(row, start=1))


def _copy_of(sheet: Any, plan: SortPlan) -> bool:
    """Whether a sheet holds, from A1, the table's header and its rows in their order (values alike, a number
    written as text too): a copy of the table as it is."""
    rows = (plan.header, *(plan.original[i] for i in sorted(plan.order)))
    return all(_alike(sheet.cell(row=r, column=c).value, cell.value)
               for r, row in enumerate(rows, start=1) for c, cell in enumerate(row, start=1))


def _alike(a: Any, b: Any) -> bool:
    def text(v: Any) -> str:
        v = plain(v)
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        return "" if v is None else str(v).strip()
    return a == b or text(a) == text(b)


def _write(sheet: Any, first_col: int, first_row: int, rows: tuple[Row, ...]) -> None:
    """The cells as they were: a formula stays a formula, text (even "=...") stays text."""
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            target = sheet.cell(row=first_row + r, column=first_col + c)
            if cell.kind == "f" and isinstance(cell.value, str):
                put_formula(target, cell.value)
            elif isinstance(cell.value, str):
                put(target, cell.value)
            else:
                target.value = cell.value
            target._style = copy(cell.style)


def _letter(col: int) -> str:
    from openpyxl.utils.cell import get_column_letter

    return get_column_letter(col)


def _values(row: Row) -> tuple[Any, ...]:
    return tuple(c.value for c in row)
