"""Native charts over a sheet's table (openpyxl chart objects; the spreadsheets application adds and
saves them)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from podium.apps.base import TOOK_COLUMNS
from podium.apps.sheet_args import ChartArgs
from podium.apps.sheet_cells import area_of, bounds, find_table, parse_cell, sheet_named, split_sheet
from podium.apps.tooling import ToolError

_NUMBER = re.compile(r"[-+]?[\d,]*\.?\d+%?")
_TOTAL_LABEL = re.compile(r"^\s*(?:grand\s+)?(?:sub)?(?:totals?|sum)\b", re.IGNORECASE)


def chart_sheets(workbook: Any, args: ChartArgs, file: Path) -> tuple[Any, Any, str, list[str]]:
    """The data's sheet, the sheet the chart goes on, the data's range, and notes on what was taken
    otherwise than asked."""
    data_sheet_name, area = split_sheet(args.data)
    notes: list[str] = []
    if data_sheet_name not in (None, *workbook.sheetnames):
        same = [n for n in workbook.sheetnames if n.casefold() == data_sheet_name.casefold()]
        if same:
            data_sheet_name = same[0]
        elif data_sheet_name.casefold() in (file.name.casefold(), file.stem.casefold()):
            data_sheet_name = None  # 'budget.xlsx!A1:C5' (the 1.5B AppAgent's): the workbook, not a sheet
        elif len(workbook.worksheets) == 1:  # one sheet: no doubt which the range is on
            only = workbook.worksheets[0].title
            notes.append(f"no sheet named {data_sheet_name!r}: the data is read from {only!r}, the only sheet")
            data_sheet_name = only
    # A chart's sheet the workbook lacks is where the chart was to go, not data: the 1.5B AppAgent
    # named it after the chart's title ('Costs') three times. It goes on the data's sheet, said so.
    placed = args.sheet if args.sheet in workbook.sheetnames else None
    data_sheet = sheet_named(workbook, data_sheet_name or placed)
    target = sheet_named(workbook, placed) if placed else data_sheet
    if args.sheet and not placed:
        notes.append(f"no sheet named {args.sheet!r}: the chart is on {target.title!r}, with its data")
    return data_sheet, target, area, notes


def place_chart(args: ChartArgs, data_sheet: Any, target: Any, area: str, free_row: int,
                notes: list[str]) -> dict[str, Any]:
    """Build the chart and add it to the target sheet, at the anchor asked or right of everything there
    from the first row free of other drawings; the result says where."""
    args, area, headers = _columns_named(args, data_sheet, area)
    if not headers:
        args, area, headers = _under_header(args, data_sheet, area)
    chart, built, series = build_chart(args, data_sheet, area)
    built[:0] = headers
    min_col, min_row, max_col, max_row = bounds(area)
    anchor = args.anchor or anchor_right_of(target, max_col, max(min_row, free_row))
    if args.anchor and target is data_sheet and _inside(args.anchor, min_col, min_row, max_col, max_row):
        # a chart laid over its own table hides the table (the 1.5B AppAgent's anchor 'A1')
        anchor = anchor_right_of(target, max_col, min_row)
        built.append(f"{args.anchor} is inside the data: the chart is at {anchor}, right of it")
    target.add_chart(chart, anchor)
    done: dict[str, Any] = {"path": args.path, "sheet": target.title, "kind": args.kind, "anchor": anchor,
                            "data": f"{data_sheet.title}!{area}"}
    if all(series):
        done[TOOK_COLUMNS] = series
    if built or notes:
        done["note"] = "; ".join([*built, *notes])
    return done


def _table_hint(sheet: Any) -> str:
    """Where the sheet's table is, for an error about a range that misses it ("" when it has none)."""
    table = find_table(sheet)
    if table is None or not table.has_header:
        return ""
    area = area_of(table.first_col, table.top_row, table.last_col, table.last_row)
    return f"; the table of {sheet.title!r} (header row first) is {area}: chart that range, or some of its columns"


def _columns_named(args: ChartArgs, sheet: Any, area: str) -> tuple[ChartArgs, str, list[str]]:
    """A range of nothing but cells of the table's header row names those columns: the chart is of the table
    with those columns as its series (categories from its first column), as a header names its column.
    Anything else is left as it is."""
    table = find_table(sheet)
    min_col, min_row, max_col, max_row = bounds(area)
    if table is None or not table.has_header or not (min_row == max_row == table.top_row) \
            or not (table.first_col <= min_col and max_col <= table.last_col) or table.last_row <= table.top_row:
        return args, area, []
    from openpyxl.utils.cell import get_column_letter

    whole = area_of(table.first_col, table.top_row, table.last_col, table.last_row)
    named = [get_column_letter(c) for c in range(min_col, max_col + 1) if c != table.first_col]
    series = args.columns or named
    said = f" columns {', '.join(series)}" if series else ""
    return (args.model_copy(update={"columns": series}), whole,
            [f"{area} is the table's header row: the chart is of {whole}{said}"])


def _under_header(args: ChartArgs, sheet: Any, area: str) -> tuple[ChartArgs, str, list[str]]:
    """A range of a table's values from its first row under the header row on (the header left out, the first
    column too or not) is a chart of those rows: the header row above names its columns and the table's first
    column gives the categories, as a spreadsheet program's chart of a selection inside a table takes them. The
    value columns it spans are the series (those `columns` names, where it names some). Anything else is left as
    it is."""
    table = find_table(sheet)
    min_col, min_row, max_col, max_row = bounds(area)
    if table is None or not table.has_header or min_row != table.top_row + 1 or max_row > table.last_row \
            or not (table.first_col <= min_col and max_col <= table.last_col) or max_col == table.first_col:
        return args, area, []
    from openpyxl.utils.cell import get_column_letter

    whole = area_of(table.first_col, table.top_row, max_col, max_row)
    series = args.columns or [get_column_letter(c) for c in range(max(min_col, table.first_col + 1), max_col + 1)]
    return (args.model_copy(update={"columns": series, "header_row": True, "categories_in_first_column": True}),
            whole, [f"{area} leaves out the table's header row: the chart is of {whole} columns {', '.join(series)}, "
                    "named by the header, by the first column's categories"])


def _inside(cell: str, min_col: int, min_row: int, max_col: int, max_row: int) -> bool:
    try:
        col, row = parse_cell(cell, "anchor")
    except ToolError:
        return False
    return min_col <= col <= max_col and min_row <= row <= max_row


def build_chart(args: ChartArgs, sheet: Any, area: str) -> tuple[Any, list[str], list[str]]:
    """The chart, notes on what it took otherwise than asked, and its series' names ("" without a header
    row). A totals row closing the range (a label such as 'Total', or nothing but =SUM formulas) is left
    out: drawn with the months, a year's total flattens every line (the 1.5B AppAgent asked for a chart of
    the monthly costs took the table with its Total row). A first row, or first column, of nothing but text
    is the series names, or the categories, whatever the call says: text is no value to plot (as a
    spreadsheet program's chart wizard decides; the 1.5B AppAgent's header_row=false pie plotted 'Amount'
    and the category names)."""
    from openpyxl.chart import BarChart, LineChart, PieChart, Reference

    min_col, min_row, max_col, max_row = bounds(area)
    notes = []
    header_row, categories = args.header_row, args.categories_in_first_column
    if not header_row and max_row > min_row and _texts(sheet, min_row, min_row, min_col, max_col):
        header_row = True
        notes.append(f"row {min_row} holds only text: taken as the series names")
    if not categories and max_col > min_col and _texts(sheet, min_row + header_row, max_row, min_col, min_col):
        categories = True
        notes.append("the first column holds only text: taken as the categories")
    args = args.model_copy(update={"header_row": header_row, "categories_in_first_column": categories})
    first_data_col = min_col + 1 if args.categories_in_first_column else min_col
    first_value_row = min_row + 1 if args.header_row else min_row
    if first_data_col > max_col or first_value_row > max_row:
        raise ToolError(f"range {area} holds no values besides its header row / category column{_table_hint(sheet)}")
    if not any(cell.value not in (None, "") for row in sheet.iter_rows(
            min_row=first_value_row, max_row=max_row, min_col=first_data_col, max_col=max_col) for cell in row):
        # a chart over empty cells shows nothing: the data handed from another file is not in this one yet
        hint = _table_hint(sheet) or ": write the rows into the sheet first (write_rows), then chart the range they " \
            "fill"
        raise ToolError(f"{sheet.title}!{area} is empty{hint}")
    if max_row > first_value_row and _totals_row(sheet, max_row, min_col, first_data_col, max_col,
                                                 args.categories_in_first_column):
        notes.append(f"row {max_row} left out of the chart: it totals the rows above")
        max_row -= 1
    chart: Any
    if args.kind in ("bar", "column", "horizontal_bar"):
        chart = BarChart()
        # People asking for a "bar chart" mostly mean vertical bars (Excel calls those columns).
        chart.type = "bar" if args.kind == "horizontal_bar" else "col"
    elif args.kind == "line":
        chart = LineChart()
    else:
        chart = PieChart()
    chart.title = args.title
    top = min_row if args.header_row else first_value_row
    spans = _series(args, sheet, min_row, first_data_col, max_col,
                    min_col if args.categories_in_first_column else None, notes)
    spans = _plotted(sheet, spans, min_row if args.header_row else None, first_value_row, max_row, area, notes)
    for low, high in spans:
        chart.add_data(Reference(sheet, min_col=low, min_row=top, max_col=high, max_row=max_row),
                       titles_from_data=args.header_row)
    series = [str(sheet.cell(row=min_row, column=c).value or "").strip() if args.header_row else ""
              for low, high in spans for c in range(low, high + 1)]
    if args.categories_in_first_column:
        chart.set_categories(Reference(sheet, min_col=min_col, min_row=first_value_row, max_row=max_row))
    if args.kind != "pie":
        if args.x_title:
            chart.x_axis.title = args.x_title
        if args.y_title:
            chart.y_axis.title = args.y_title
    chart.width, chart.height = 16, 8
    return chart, notes, series


def _series(args: ChartArgs, sheet: Any, header_row: int, first: int, last: int, categories: int | None,
            notes: list[str]) -> list[tuple[int, int]]:
    """The column spans plotted: the data's value columns, or only those `columns` names (by the header of
    the data's first row, any case, or a letter), in the order named. The categories' column named among
    them is the categories still, not a series (said in `notes`)."""
    from openpyxl.utils.cell import column_index_from_string, get_column_letter

    if not args.columns:
        return [(first, last)]
    headers = {c: str(sheet.cell(row=header_row, column=c).value or "").strip() for c in range(first, last + 1)}
    label = str(sheet.cell(row=header_row, column=categories).value or "").strip() if categories else ""
    spans = []
    for name in args.columns:
        wanted = name.strip()
        found = [c for c, h in headers.items() if h and h.casefold() == wanted.casefold()]
        if not found and wanted.isalpha() and len(wanted) <= 3:
            found = [c for c in [column_index_from_string(wanted.upper())] if c in headers]
        letter = get_column_letter(categories) if categories else ""
        if not found and categories and wanted.casefold() in (label.casefold(), letter.casefold()):
            notes.append(f"{name!r} is the chart's categories (column {letter}), not a series")
            continue
        if not found:
            shown = [f"{h or '(no header)'} ({get_column_letter(c)})" for c, h in headers.items()]
            raise ToolError(f"the chart's data on {sheet.title!r} has no value column {name!r}; its value columns: "
                            f"{shown}")
        spans.append((found[0], found[0]))
    return spans or [(first, last)]


def _plotted(sheet: Any, spans: list[tuple[int, int]], header_row: int | None, first_row: int, last_row: int,
             area: str, notes: list[str]) -> list[tuple[int, int]]:
    """The spans' columns that hold a number (a formula may give one), as spans. A column of text plots as
    nothing (a spreadsheet program draws it as zeros): such a column is left out, said in `notes`, and a
    range with no column of numbers is no chart at all."""
    from openpyxl.utils.cell import get_column_letter

    columns = [c for low, high in spans for c in range(low, high + 1)]
    plotted = [c for c in columns if any(_number(cell) for row in sheet.iter_rows(
        min_row=first_row, max_row=last_row, min_col=c, max_col=c) for cell in row)]
    if plotted == columns:
        return spans
    names = [(str(sheet.cell(row=header_row, column=c).value or "").strip() if header_row else "", c)
             for c in columns if c not in plotted]
    named = ", ".join(f"{name} ({get_column_letter(c)})" if name else get_column_letter(c) for name, c in names)
    if not plotted:
        raise ToolError(f"{sheet.title}!{area}: its value columns {named} hold no numbers, and a chart plots numbers: "
                        "there is nothing in them to chart")
    notes.append(f"{named} hold no numbers: left out of the chart")
    merged: list[tuple[int, int]] = []
    for c in plotted:
        if merged and merged[-1][1] == c - 1:
            merged[-1] = (merged[-1][0], c)
        else:
            merged.append((c, c))
    return merged


def _number(cell: Any) -> bool:
    """Whether a cell holds a number, a number written as text, or a live formula (text that only starts with
    "=", data written as text, is none)."""
    value = cell.value
    if cell.data_type == "f":
        return True
    if isinstance(value, bool) or value in (None, ""):
        return False
    return isinstance(value, int | float) or bool(_NUMBER.fullmatch(str(value).strip()))


def _texts(sheet: Any, min_row: int, max_row: int, min_col: int, max_col: int) -> bool:
    """Whether the cells hold values and every one is text that is no number or formula."""
    values = [cell.value for row in sheet.iter_rows(min_row=min_row, max_row=max_row, min_col=min_col,
                                                    max_col=max_col) for cell in row if cell.value not in (None, "")]
    return bool(values) and all(isinstance(v, str) and not v.startswith("=") and not _NUMBER.fullmatch(v.strip())
                                for v in values)


def _totals_row(sheet: Any, row: int, min_col: int, first_data_col: int, max_col: int, labelled: bool) -> bool:
    label = sheet.cell(row=row, column=min_col).value if labelled else None
    if isinstance(label, str) and _TOTAL_LABEL.match(label):
        return True
    values = [sheet.cell(row=row, column=c).value for c in range(first_data_col, max_col + 1)]
    return all(isinstance(v, str) and v.replace(" ", "").upper().startswith("=SUM(") for v in values)


def anchor_right_of(sheet: Any, max_col: int, row: int) -> str:
    """A free cell two columns right of both the data and whatever else the sheet holds."""
    from openpyxl.utils.cell import get_column_letter

    return f"{get_column_letter(max(max_col, sheet.max_column) + 2)}{row}"
