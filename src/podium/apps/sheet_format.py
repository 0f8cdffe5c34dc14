"""How cells look: format_cells (bold, italic, number format, font and fill colour, alignment),
highlight_rows (that look for the rows of a table that meet conditions, a filter's rows: the tool picks them,
not the model), set_column_width (a width, or wide enough for what the column shows), merge_cells (one cell over a
range, its text centred) and freeze_panes (rows above and columns left of a cell stay in view).

Cells are named as a person names them: a range ('A1:D1'), whole rows ('1:1', over the columns the sheet
uses), a column of the sheet's table by header or letter ('Price', 'C': its values, under the header), or
'header' for the table's header row. Only the properties given change; the values never do. A change of look
is an EDIT of the workbook: the look it had is not kept.
"""

from __future__ import annotations

import re
from copy import copy
from typing import Any, Literal

from pydantic import Field

from podium.apps.base import Change, Effect
from podium.apps.sheet_args import Cell, PathArgs, Range
from podium.apps.sheet_cells import bounds, plain, sheet_named, value_at
from podium.apps.sheet_rows import Condition, FilterArgs, picked_rows
from podium.apps.sheet_view import table_of, totals_row
from podium.apps.tool_effects import declared, effect
from podium.apps.tooling import ToolError, ToolSpec, active_part

_COLOR = r"^#?[0-9A-Fa-f]{6}$"
_ROWS = re.compile(r"(\d+):(\d+)")  # whole rows, as a spreadsheet names them ('1:1', '2:5')
MAX_WIDTH = 80


class FormatArgs(PathArgs):
    sheet: str | None = active_part("sheet name; the active sheet when omitted")
    cells: str = Field(description="a range ('A1:D1'), rows ('1:1'), a column's values by header or letter "
                                   "('Price', 'C'), or 'header' (its header row)")
    bold: bool | None = None
    italic: bool | None = None
    number_format: str | None = Field(None, max_length=100, description="e.g. '0.00', '#,##0', '0%', 'yyyy-mm-dd'")
    font_color: str | None = Field(None, description="hex RGB, e.g. '#FF0000'", pattern=_COLOR)
    fill_color: str | None = Field(None, description="hex RGB background, e.g. '#FFFF00'", pattern=_COLOR)
    align: Literal["left", "center", "right"] | None = None


class HighlightArgs(PathArgs):
    sheet: str | None = active_part("sheet with the table; the active sheet when omitted")
    where: list[Condition] = Field(min_length=1, description="conditions every row formatted meets")
    whole_row: bool = Field(True, description="true: the row across the table; false: only its cells in the "
                                              "conditions' columns")
    fill_color: str | None = Field(None, description="hex RGB background, e.g. '#FFFF00'", pattern=_COLOR)
    font_color: str | None = Field(None, description="hex RGB, e.g. '#FF0000'", pattern=_COLOR)
    bold: bool | None = None


class MergeArgs(PathArgs):
    sheet: str | None = active_part("sheet name; the active sheet when omitted")
    range: Range = Field(description="e.g. 'A1:C1'")
    text: str | None = Field(None, description="the merged cell's text; the range's first value when omitted")


class FreezeArgs(PathArgs):
    sheet: str | None = active_part("sheet name; the active sheet when omitted")
    cell: Cell = Field("A2", description="rows above it and columns left of it stay in view: 'A2' keeps row 1")


class WidthArgs(PathArgs):
    sheet: str | None = active_part("sheet name; the active sheet when omitted")
    columns: list[str] = Field(min_length=1, description="columns by header or letter")
    width: float | None = Field(None, gt=0, le=255, description="in characters; omitted: fit what the column shows")


def specs(app: Any) -> list[ToolSpec]:
    return [
        ToolSpec("format_cells", "Set how cells look (bold, italic, number format, colours, alignment) and save "
                 "(the rows that meet a condition: highlight_rows).",
                 FormatArgs, lambda a: app._edit(a.path, lambda wb: format_cells(wb, a)),
                 effects=declared(lambda a: _effects(app, a, _format_changes)), edits=True),
        ToolSpec("highlight_rows", "Format (fill colour, font colour, bold) the rows of a sheet's table that meet "
                 "conditions, or only their cells in the conditions' columns, and save.", HighlightArgs,
                 lambda a: app._edit(a.path, lambda wb: highlight_rows(wb, a)),
                 effects=declared(lambda a: _effects(app, a, _highlight_changes)), edits=True),
        ToolSpec("set_column_width", "Set the width of columns, or fit them to their contents, and save.",
                 WidthArgs, lambda a: app._edit(a.path, lambda wb: set_column_width(wb, a)),
                 effects=declared(lambda a: _effects(app, a, _width_changes)), edits=True),
        ToolSpec("merge_cells", "Merge a range into one cell (its text centred) and save.", MergeArgs,
                 lambda a: app._edit(a.path, lambda wb: merge_cells(wb, a)),
                 effects=declared(lambda a: _effects(app, a, _merge_changes)), edits=True),
        ToolSpec("freeze_panes", "Keep the rows above a cell and the columns left of it in view, and save.",
                 FreezeArgs, lambda a: app._edit(a.path, lambda wb: freeze_panes(wb, a)),
                 effects=declared(lambda a: _effects(app, a, _freeze_changes)), edits=True),
    ]


def _effects(app: Any, args: Any, changes: Any) -> list[Effect]:
    # A copy of its own: reaching a cell through openpyxl adds it to the sheet, and the shared parse
    # (app._peek) must stay as the file is.
    workbook = app._load(app._existing(args.path))
    return [effect(app.workspace, args.path, Change.EDIT)] if changes(workbook, args)[1] else []


# -- cells -------------------------------------------------------------------------------------
def target_cells(workbook: Any, args: FormatArgs) -> tuple[Any, str, list[Any]]:
    """The sheet, the range meant, and its cells."""
    from openpyxl.utils.cell import get_column_letter

    sheet = sheet_named(workbook, args.sheet)
    wanted = args.cells.strip()
    if (rows := _ROWS.fullmatch(wanted)) is not None:  # whole rows, over the columns the sheet uses
        min_row, max_row = sorted(int(n) for n in rows.groups())
        min_col, max_col = sheet.min_column, sheet.max_column
        if min_row < 1:
            raise ToolError(f"rows are numbered from 1, not {wanted!r}")
    elif (":" in wanted and not wanted.replace(":", "").isalpha()) or _is_cell(wanted):
        area = wanted if ":" in wanted else f"{wanted}:{wanted}"
        min_col, min_row, max_col, max_row = bounds(area)
    else:
        table = table_of(workbook, sheet.title)
        if wanted.casefold() == "header":
            min_col, max_col, min_row, max_row = table.first_col, table.last_col, table.header_row, table.header_row
        else:
            names = [w.strip() for w in wanted.split(":")] if wanted.replace(":", "").isalpha() and ":" in wanted \
                else [wanted]
            cols = [table.column(n) for n in names]
            min_col, max_col = min(cols), max(cols)
            closing = totals_row(sheet, table)
            min_row, max_row = table.header_row + 1, table.last_row - (1 if closing else 0)
    area = f"{get_column_letter(min_col)}{min_row}:{get_column_letter(max_col)}{max_row}"
    cells = [sheet.cell(row=r, column=c) for r in range(min_row, max_row + 1) for c in range(min_col, max_col + 1)]
    return sheet, area, cells


def _is_cell(text: str) -> bool:
    from podium.apps.sheet_cells import _ADDRESS

    return _ADDRESS.fullmatch(text) is not None


def _hex(color: str | None) -> str | None:
    return None if color is None else "FF" + color.lstrip("#").upper()


def _format_changes(workbook: Any, args: FormatArgs) -> tuple[str, list[tuple[Any, dict[str, Any]]]]:
    """The range and, for each cell whose look would change, what to set."""
    from openpyxl.styles import Alignment, Font, PatternFill

    if all(v is None for v in (args.bold, args.italic, args.number_format, args.font_color, args.fill_color,
                               args.align)):
        raise ToolError("say what to change: bold, italic, number_format, font_color, fill_color or align")
    _, area, cells = target_cells(workbook, args)
    changes = []
    for cell in cells:
        wanted: dict[str, Any] = {}
        font = cell.font
        if (args.bold is not None and bool(font.b) != args.bold) or (args.italic is not None and
                                                                    bool(font.i) != args.italic) \
                or (args.font_color is not None and _color(font.color) != _hex(args.font_color)):
            wanted["font"] = Font(**{**_font(font), **({"b": args.bold} if args.bold is not None else {}),
                                     **({"i": args.italic} if args.italic is not None else {}),
                                     **({"color": _hex(args.font_color)} if args.font_color else {})})
        if args.number_format is not None and cell.number_format != args.number_format:
            wanted["number_format"] = args.number_format
        if args.fill_color is not None and (cell.fill.fill_type != "solid" or
                                            _color(cell.fill.fgColor) != _hex(args.fill_color)):
            wanted["fill"] = PatternFill(fill_type="solid", fgColor=_hex(args.fill_color))
        if args.align is not None and cell.alignment.horizontal != args.align:
            alignment = copy(cell.alignment)
            wanted["alignment"] = Alignment(**{**_alignment(alignment), "horizontal": args.align})
        if wanted:
            changes.append((cell, wanted))
    return area, changes


def _font(font: Any) -> dict[str, Any]:
    return {k: getattr(font, k) for k in ("name", "sz", "b", "i", "u", "strike", "color", "vertAlign")}


def _alignment(alignment: Any) -> dict[str, Any]:
    return {k: getattr(alignment, k) for k in ("horizontal", "vertical", "wrap_text", "shrink_to_fit", "indent",
                                               "text_rotation")}


def _color(color: Any) -> str | None:
    rgb = getattr(color, "rgb", None)
    return rgb.upper() if isinstance(rgb, str) else None


def format_cells(workbook: Any, args: FormatArgs) -> dict[str, Any]:
    area, changes = _format_changes(workbook, args)
    done = {"path": args.path, "sheet": sheet_named(workbook, args.sheet).title, "cells": area}
    return _restyled(done, changes, "the cells look like this already: nothing changed")


def _restyled(done: dict[str, Any], changes: list[tuple[Any, dict[str, Any]]], same: str) -> dict[str, Any]:
    """`done` after setting what each cell is to look like; `same`: the note where nothing changes."""
    if not changes:
        return {**done, "unchanged": True, "note": same}
    for cell, wanted in changes:
        for name, value in wanted.items():
            setattr(cell, name, value)
    return {**done, "changed_cells": len(changes)}


# -- rows by their values -----------------------------------------------------------------------
def _highlight_changes(workbook: Any, args: HighlightArgs) -> tuple[list[int], list[tuple[Any, dict[str, Any]]]]:
    """The rows meeting the conditions (as filter_rows picks them), and what each of their cells to format
    would have set."""
    from openpyxl.utils.cell import get_column_letter

    if args.fill_color is None and args.font_color is None and args.bold is None:
        raise ToolError("say how the rows look: fill_color, font_color or bold")
    table, _, rows, _ = picked_rows(workbook, FilterArgs(path=args.path, sheet=args.sheet, where=args.where))
    cols = list(table.columns) if args.whole_row else sorted({table.column(c.column) for c in args.where})
    looks = FormatArgs(path=args.path, sheet=table.title, cells="A1", bold=args.bold, font_color=args.font_color,
                       fill_color=args.fill_color)
    changes = []
    for row in rows:
        for col in cols:
            cell = f"{get_column_letter(col)}{row}"
            changes += _format_changes(workbook, looks.model_copy(update={"cells": cell}))[1]
    return rows, changes


def highlight_rows(workbook: Any, args: HighlightArgs) -> dict[str, Any]:
    rows, changes = _highlight_changes(workbook, args)
    done = {"path": args.path, "sheet": sheet_named(workbook, args.sheet).title, "rows": rows}
    return _restyled(done, changes, "these rows look like this already: nothing changed")


# -- widths ------------------------------------------------------------------------------------
def _width_changes(workbook: Any, args: WidthArgs) -> tuple[str, list[tuple[str, float]]]:
    """The sheet and (column letter, width) for each column whose width would change."""
    from openpyxl.utils.cell import column_index_from_string

    sheet = sheet_named(workbook, args.sheet)
    letters = [_letter_of(workbook, sheet.title, name.strip()) for name in args.columns]
    changes = []
    for letter in dict.fromkeys(letters):
        width = args.width if args.width is not None else _fit(sheet, column_index_from_string(letter))
        if sheet.column_dimensions[letter].width != width:
            changes.append((letter, width))
    return sheet.title, changes


def _letter_of(workbook: Any, title: str, name: str) -> str:
    """A column named by a header of the sheet's table, or by its letter (any column of the sheet)."""
    from openpyxl.utils.cell import get_column_letter

    try:
        return get_column_letter(table_of(workbook, title).column(name))
    except ToolError:
        if name.isalpha() and len(name) <= 3:
            return name.upper()
        raise


def _fit(sheet: Any, col: int) -> float:
    """Wide enough for the longest text the column shows (a spreadsheet's "optimal width"), in characters."""
    longest = max((len(str(plain(cell.value))) for (cell,) in sheet.iter_rows(min_col=col, max_col=col)
                   if cell.value is not None), default=8)
    return float(min(MAX_WIDTH, max(8, longest + 2)))


def set_column_width(workbook: Any, args: WidthArgs) -> dict[str, Any]:
    title, changes = _width_changes(workbook, args)
    sheet = workbook[title]
    done = {"path": args.path, "sheet": title}
    if not changes:
        return {**done, "unchanged": True, "note": "the columns have these widths already: nothing changed"}
    for letter, width in changes:
        sheet.column_dimensions[letter].width = width
    return {**done, "widths": dict(changes)}


# -- merge and freeze --------------------------------------------------------------------------
def _merge_changes(workbook: Any, args: MergeArgs) -> tuple[str, list[Any]]:
    """The range, and what merging it would lose or change: [] when it is merged with this text already. A
    ToolError when cells other than the first hold values (a merge keeps only the first: they would be
    lost), or the range overlaps another merge."""
    from openpyxl.utils.cell import get_column_letter

    sheet = sheet_named(workbook, args.sheet)
    min_col, min_row, max_col, max_row = bounds(args.range)
    if (min_col, min_row) == (max_col, max_row):
        raise ToolError(f"{args.range!r} is one cell: give a range of two or more, e.g. 'A1:C1'")
    area = f"{get_column_letter(min_col)}{min_row}:{get_column_letter(max_col)}{max_row}"
    first = sheet.cell(row=min_row, column=min_col).value
    text = args.text if args.text is not None else first
    merged = [str(r) for r in sheet.merged_cells.ranges]
    if area in merged:
        return area, [] if text == first else [("text", text)]
    clash = [r for r in sheet.merged_cells.ranges
             if not (r.max_col < min_col or r.min_col > max_col or r.max_row < min_row or r.min_row > max_row)]
    if clash:
        raise ToolError(f"{area} overlaps the merged cells {[str(r) for r in clash]}")
    held = [f"{get_column_letter(c)}{r}" for r in range(min_row, max_row + 1) for c in range(min_col, max_col + 1)
            if (r, c) != (min_row, min_col) and value_at(sheet, r, c) not in (None, "")]
    if held:
        raise ToolError(f"{', '.join(held[:8])} hold values that merging {area} would lose: only the first cell's "
                        "value stays; clear or move them first")
    return area, [("merge", text)]


def merge_cells(workbook: Any, args: MergeArgs) -> dict[str, Any]:
    from openpyxl.styles import Alignment

    area, changes = _merge_changes(workbook, args)
    sheet = sheet_named(workbook, args.sheet)
    done = {"path": args.path, "sheet": sheet.title, "merged": area}
    if not changes:
        return {**done, "unchanged": True, "note": f"{area} is merged with this text already"}
    first = sheet[area.split(":")[0]]
    first.value = changes[0][1]
    if changes[0][0] == "merge":
        sheet.merge_cells(area)
        first.alignment = Alignment(**{**_alignment(first.alignment), "horizontal": "center"})
    return {**done, "text": first.value}


def _freeze_changes(workbook: Any, args: FreezeArgs) -> tuple[str, list[str]]:
    from podium.apps.sheet_cells import coordinate, parse_cell

    sheet = sheet_named(workbook, args.sheet)
    cell = coordinate(*parse_cell(args.cell))
    return cell, [] if sheet.freeze_panes == cell else [cell]


def freeze_panes(workbook: Any, args: FreezeArgs) -> dict[str, Any]:
    cell, changes = _freeze_changes(workbook, args)
    sheet = sheet_named(workbook, args.sheet)
    done = {"path": args.path, "sheet": sheet.title, "frozen_at": cell}
    if not changes:
        return {**done, "unchanged": True, "note": "the panes are frozen there already"}
    sheet.freeze_panes = cell
    return done
