"""Whole tables moved between sheets: split_by_column (one new sheet for each value of a column) and
merge_tables (the rows of a table from another sheet, workbook or .csv file added under a sheet's table,
column by column as their headers match).

merge_tables matches columns by header (any case, spaces around ignored), so the source's columns may
come in another order; a source column the target lacks is added at the right of the target's header,
and the result names it. Under a table that ends with a totals row (=SUM formulas) the rows go above
it, and its sums are extended to cover them.
"""

from __future__ import annotations

import re
from copy import copy
from typing import Any

from pydantic import AliasChoices, Field, field_validator

from podium.apps.base import Change, Effect
from podium.apps.csv_tables import CSV_SUFFIXES, read_rows
from podium.apps.sheet_args import PathArgs
from podium.apps.sheet_cells import filled, header_index, plain, used_range
from podium.apps.sheet_view import (
    Reader,
    SheetTable,
    check_new_sheet,
    check_title,
    copied_rows,
    holds,
    safe_title,
    table_of,
    totals_row,
    write_rows,
)
from podium.apps.tool_effects import declared, effect
from podium.apps.tooling import EXISTING, FILE_TYPES, ToolError, ToolSpec

_SUM = re.compile(r"=SUM\((\$?[A-Z]{1,3}\$?)(\d+):(\$?[A-Z]{1,3}\$?)(\d+)\)", re.IGNORECASE)


class SplitArgs(PathArgs):
    sheet: str | None = Field(None, description="sheet with the table; the active sheet when omitted")
    by: str = Field(description="the column whose values name the new sheets (header or letter)")


# The most files one merge_tables call reads (a grammar bounds the list with it).
MAX_SOURCES = 8


class AppendTableArgs(PathArgs):
    sheet: str | None = Field(None, description="the sheet to add the rows to (created if missing); by default "
                                                "the active one, or the first source's name")
    sources: list[str] = Field(
        default_factory=list, max_length=MAX_SOURCES,
        validation_alias=AliasChoices("sources", "source"),
        description="the .xlsx or .csv files the rows come from, in order; this workbook when empty",
        json_schema_extra={"items": {"type": "string", FILE_TYPES: [".xlsx", *CSV_SUFFIXES], EXISTING: True}})
    source_sheet: str | None = Field(None, description="each source workbook's sheet; its active sheet when "
                                                       "omitted")

    @field_validator("sources", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        if value is None:
            return []
        return [value] if isinstance(value, str) else value

    def each(self) -> list[str | None]:
        """The sources in order; None is this workbook."""
        return list(dict.fromkeys(self.sources)) or [None]


def specs(app: Any) -> list[ToolSpec]:
    return [
        ToolSpec("split_by_column", "Copy a sheet's table into one new sheet for each value of a column (rows "
                 "with that value, header first) and save.", SplitArgs,
                 lambda a: app._edit(a.path, lambda wb: split_by_column(wb, a)),
                 effects=declared(lambda a: _split_effects(app, a)), edits=True,
                 reshapes=True),
        ToolSpec("merge_tables", "Add the rows of other sheets', workbooks' or .csv files' tables (all in one"
                 " call) under a sheet's table, columns matched by header; save.", AppendTableArgs,
                 lambda a: merge_tables(app, a), effects=declared(lambda a: _append_effects(app, a)), edits=True),
    ]


# -- split -------------------------------------------------------------------------------------
Part = tuple[Any, list[list[Any]], list[list[Any]]]  # a value of the column, the rows to write, their styles


def _parts(workbook: Any, args: SplitArgs) -> tuple[SheetTable, dict[str, Part]]:
    """The table and, for each new sheet's name, (the value, its rows to write, their styles)."""
    table = table_of(workbook, args.sheet)
    by = table.column(args.by)
    reader = Reader(workbook)
    closing = totals_row(workbook[table.title], table)
    groups: dict[Any, list[int]] = {}
    for row, values in reader.rows(table, [by]):
        if row != closing and filled(values[0]):
            groups.setdefault(str(values[0]).strip(), []).append(row)
    if not groups:
        raise ToolError(f"column {table.name_of(by)!r} of {table.title!r} holds no values to split by")
    parts: dict[str, Part] = {}
    for value, rows in groups.items():
        title = safe_title(value, set(parts))
        values, styles = copied_rows(reader, table, rows, list(table.columns))
        if title.casefold() == table.title.casefold():
            raise ToolError(f"the value {value!r} would name a new sheet like the table's own sheet {table.title!r}")
        check_new_sheet(workbook, title, values)
        parts[title] = (value, values, styles)
    return table, parts


def split_by_column(workbook: Any, args: SplitArgs) -> dict[str, Any]:
    table, parts = _parts(workbook, args)
    made, kept = [], []
    for title, (value, values, styles) in parts.items():
        existing = check_new_sheet(workbook, title, values)
        if existing is not None and used_range(workbook[existing]) is not None:
            kept.append(existing)
            continue
        sheet = workbook[existing] if existing else workbook.create_sheet(title)
        write_rows(sheet, values, styles)
        made.append({"sheet": sheet.title, "value": value, "rows": len(values) - 1})
    done: dict[str, Any] = {"path": args.path, "sheet": table.title, "by": table.name_of(table.column(args.by)),
                            "sheets": made}
    if not made:
        return {**done, "unchanged": True, "note": f"the sheets {kept} hold these rows already: nothing written"}
    return {**done, "note": f"already there: {kept}"} if kept else done


def _split_effects(app: Any, args: SplitArgs) -> list[Effect]:
    workbook = app._peek(args.path)
    _, parts = _parts(workbook, args)
    fresh = [t for t, (_, values, _) in parts.items()
             if not (t in workbook.sheetnames and used_range(workbook[t]) is not None)]
    return [effect(app.workspace, args.path, Change.ADD)] if fresh else []


# -- append ------------------------------------------------------------------------------------
Source = tuple[list[str], list[list[Any]], list[list[Any]] | None]


def _source(app: Any, workbook: Any, args: AppendTableArgs) -> tuple[Source, list[int]]:
    """The sources' table as one: the first's header and then each later source's new columns, the rows
    of all in order (formulas computed) and, for one source in the same workbook, their styles; and the
    count of rows each source gave. Every source is read before anything is written. `workbook` is the
    target's (None: it does not exist yet)."""
    tables = [_one_source(app, workbook, args, source) for source in args.each()]
    counts = [len(rows) for _, rows, _ in tables]
    if len(tables) == 1:
        return tables[0], counts
    header: list[str] = []
    for names, _, _ in tables:
        header += [n for n in names if n.casefold() not in {h.casefold() for h in header}]
    place = {h.casefold(): i for i, h in enumerate(header)}
    rows = []
    for names, values, _ in tables:
        for row in values:
            merged: list[Any] = [None] * len(header)
            for name, value in zip(names, row, strict=False):
                merged[place[name.casefold()]] = value
            rows.append(merged)
    return (header, rows, None), counts


def _one_source(app: Any, workbook: Any, args: AppendTableArgs, source: str | None) -> Source:
    if source and source.lower().endswith(CSV_SUFFIXES):
        rows = [list(r) for r in read_rows(app.workspace, source)]
        top = header_index(rows)
        if top is None:
            raise ToolError(f"{source!r} has no header row (a row of column names)")
        return [str(v or "").strip() for v in rows[top]], [r for r in rows[top + 1:] if any(filled(v) for v in r)], None
    same = workbook is not None and (not source or
                                     app.workspace.resolve(source) == app.workspace.resolve(args.path))
    if workbook is None and not source:
        raise ToolError(f"{args.path!r} does not exist: name the source files the rows come from")
    source_book = workbook if same else app._load(app._existing(source))
    if same and (args.source_sheet or "") == args.sheet:
        raise ToolError(f"the source and the target are both sheet {args.sheet!r}: name another sheet or file")
    table = table_of(source_book, args.source_sheet)
    reader = Reader(source_book)
    closing = totals_row(source_book[table.title], table)
    picked = [r for r, _ in reader.rows(table) if r != closing]
    values, styles = copied_rows(reader, table, picked, list(table.columns))
    names = list(table.header)
    if len(args.each()) > 1 and (any(not n for n in names) or len({n.casefold() for n in names}) != len(names)):
        raise ToolError(f"the headers {names} of {source or args.path!r} must all be there and different, to "
                        "match its columns with the other sources'")
    return names, [list(r) for r in values[1:]], styles[1:] if same else None


def _plan(app: Any, workbook: Any, args: AppendTableArgs) -> dict[str, Any]:
    """Where each source column goes, the rows to write and where: worked out without changing anything."""
    (header, rows, styles), counts = _source(app, workbook, args)
    if not rows:
        raise ToolError("the source table has a header row and no rows under it: nothing to add")
    names = list(header)
    if any(not n for n in names) or len({n.casefold() for n in names}) != len(names):
        raise ToolError(f"the source's headers {names} must all be there and different, to match columns by them")
    existing = next((t for t in workbook.sheetnames if t.casefold() == check_title(args.sheet).casefold()), None)
    if existing is None or used_range(workbook[existing]) is None:
        return {"title": existing or check_title(args.sheet), "new": True, "header": names, "rows": rows,
                "styles": styles, "first_row": 2, "columns": list(range(1, len(names) + 1)), "added": [],
                "closing": None, "counts": counts}
    table = table_of(workbook, existing)
    by_name = {h.casefold(): table.first_col + i for i, h in enumerate(table.header) if h}
    columns, added, next_col = [], [], table.last_col + 1
    for name in names:
        if name.casefold() in by_name:
            columns.append(by_name[name.casefold()])
        else:
            columns.append(next_col)
            added.append(name)
            next_col += 1
    if len(added) == len(names):
        # rows set under none of the table's columns, beside it: two tables side by side, not one
        raise ToolError(f"the table of sheet {existing!r} (its header {[h for h in table.header if h]}) has none of "
                        f"the source's columns {names}: a merge adds rows under the columns the tables share. Merge "
                        "into a sheet of its own (a sheet name that holds nothing yet)")
    closing = totals_row(workbook[existing], table)
    rows, styles, held = _not_held(workbook[existing], table, closing, columns, rows, styles, counts, args.each())
    return {"title": existing, "new": False, "header": names, "rows": rows, "styles": styles, "columns": columns,
            "first_row": closing or table.last_row + 1, "added": added, "closing": closing, "table": table,
            "counts": counts, "held": held}


def _not_held(sheet: Any, table: SheetTable, closing: int | None, columns: list[int], rows: list[list[Any]],
              styles: list[Any] | None, counts: list[int], sources: list[str | None]
              ) -> tuple[list[list[Any]], list[Any] | None, list[str]]:
    """The rows (and styles) of the sources whose rows the table does not hold already, and the names of those
    it does: a source whose every row is there, in its order, one under the other, was merged already (its rows
    written in before this call); added again, each of them would be there twice. A source is kept or left out
    whole: rows repeated within or across the sources are theirs to keep."""
    last = (closing - 1) if closing else table.last_row
    there = [tuple(plain(sheet.cell(row=r, column=c).value) for c in columns)
             for r in range(table.header_row + 1, last + 1)]
    kept_rows: list[list[Any]] = []
    kept_styles: list[Any] = []
    held: list[str] = []
    start = 0
    for source, count in zip(sources, counts, strict=True):
        block = rows[start:start + count]
        wanted = [tuple(plain(v) for v in (*row, *[None] * (len(columns) - len(row))))[:len(columns)]
                  for row in block]
        if wanted and any(there[i:i + len(wanted)] == wanted for i in range(len(there) - len(wanted) + 1)):
            held.append(source or table.title)
        else:
            kept_rows += block
            kept_styles += styles[start:start + count] if styles is not None else []
        start += count
    return kept_rows, (kept_styles if styles is not None else None), held


def _repeats(workbook: Any, plan: dict[str, Any]) -> bool:
    """Whether the rows are the last rows of the table already (the call repeats one just made)."""
    if plan["new"]:
        title = plan["title"]
        return title in workbook.sheetnames and holds(workbook[title], [plan["header"], *plan["rows"]])
    sheet, rows = workbook[plan["title"]], plan["rows"]
    top = plan["first_row"] - len(rows)
    if top <= plan["table"].header_row or plan["added"]:
        return False
    return all(plain(sheet.cell(row=top + i, column=c).value) == plain(v)
               for i, row in enumerate(rows) for c, v in zip(plan["columns"], row, strict=False))


def _with_sheet(app: Any, args: AppendTableArgs) -> AppendTableArgs:
    """The call with its target sheet named: the one given; else the workbook's active sheet, or for a new
    workbook the first source workbook's table's sheet name (a .csv file's rows go to Sheet1)."""
    if args.sheet:
        return args
    exists = app.workspace.resolve(args.path).exists()
    if not args.sources and not exists:
        return args  # nothing to take rows from: said as the workbook that does not exist
    if not args.sources:
        raise ToolError("rows from this workbook's own sheets go to a sheet named: give `sheet`, the sheet to add "
                        "them to")
    if exists:
        title = app._peek(args.path).active.title
    elif (first := args.each()[0]) is None or first.lower().endswith(CSV_SUFFIXES):
        title = "Sheet1"
    else:
        title = table_of(app._load(app._existing(first)), args.source_sheet).title
    return args.model_copy(update={"sheet": title})


def merge_tables(app: Any, args: AppendTableArgs) -> dict[str, Any]:
    args = _with_sheet(app, args)
    if not app.workspace.resolve(args.path).exists():
        from podium.apps.sheet_args import CreateArgs

        _source(app, None, args)  # a source that cannot be read leaves no empty workbook behind
        app._create(CreateArgs(path=args.path, sheets=[check_title(args.sheet)]))
    return app._edit(args.path, lambda wb: _append(app, wb, args))


def _append(app: Any, workbook: Any, args: AppendTableArgs) -> dict[str, Any]:
    plan = _plan(app, workbook, args)
    rows, columns, first = plan["rows"], plan["columns"], plan["first_row"]
    done: dict[str, Any] = {"path": args.path, "sheet": plan["title"], "rows_added": len(rows)}
    if len(args.each()) > 1:
        done["sources"] = [{"source": name, "rows": count} for name, count in zip(args.each(), plan["counts"],
                                                                                   strict=True)]
    if plan.get("held"):
        done["held_already"] = plan["held"]
    if not rows:
        return {**done, "unchanged": True, "note": f"the table holds the rows of {', '.join(plan['held'])} already, "
                                                   "in order: not added again"}
    if _repeats(workbook, plan):
        return {**done, "unchanged": True, "note": "these rows are the table's last rows already: not added again"}
    if plan["new"]:
        title = plan["title"]
        sheet = workbook[title] if title in workbook.sheetnames else workbook.create_sheet(title)
        write_rows(sheet, [plan["header"], *rows])
        return {**done, "range": f"A1:{_letter(len(plan['header']))}{len(rows) + 1}", "created_sheet": True}
    sheet, table = workbook[plan["title"]], plan["table"]
    for name, col in zip(plan["header"], columns, strict=True):
        if name in plan["added"]:
            head = sheet.cell(row=table.header_row, column=col)
            head.value, head._style = name, sheet.cell(row=table.header_row, column=table.last_col)._style
    if plan["closing"]:
        _move_totals(sheet, table, plan["closing"], len(rows))
    styles = plan["styles"]
    for i, row in enumerate(rows):
        for j, (col, value) in enumerate(zip(columns, row, strict=False)):
            cell = sheet.cell(row=first + i, column=col)
            cell.value = value
            if styles is not None:
                cell._style = copy(styles[i][j])
    done["range"] = f"{_letter(min(columns))}{first}:{_letter(max(columns))}{first + len(rows) - 1}"
    missing = [h for h in table.header if h and h.casefold() not in {n.casefold() for n in plan["header"]}]
    notes = ([f"columns added to the table: {plan['added']}"] if plan["added"] else []) + \
        ([f"the table held the rows of {', '.join(plan['held'])} already: not added again"] if plan["held"] else []) + \
        ([f"the source has no {missing}: left empty"] if missing else []) + \
        ([f"the totals row moved to row {plan['closing'] + len(rows)}, its sums cover the new rows"]
         if plan["closing"] else [])
    return {**done, "note": "; ".join(notes)} if notes else done


def _extended_totals(sheet: Any, table: SheetTable, closing: int, count: int) -> list[tuple[int, Any]]:
    """The totals row's cells once `count` rows are added above it: each =SUM(X2:X9) extended over them.
    A ToolError when a formula there is of another shape (nothing is changed)."""
    cells = []
    for col in range(table.first_col, table.last_col + 1):
        value = sheet.cell(row=closing, column=col).value
        if isinstance(value, str) and value.startswith("="):
            found = _SUM.fullmatch(value.replace(" ", ""))
            if found is None or int(found.group(4)) != closing - 1:
                raise ToolError(f"the totals row {closing} holds {value!r}, which this tool cannot extend over new "
                                "rows: add them with append_rows, then fix the totals")
            value = f"=SUM({found.group(1)}{found.group(2)}:{found.group(3)}{closing - 1 + count})"
        cells.append((col, value))
    return cells


def _move_totals(sheet: Any, table: SheetTable, closing: int, count: int) -> None:
    """Move the totals row down by `count` rows, its sums extended over the rows added above it."""
    cells = _extended_totals(sheet, table, closing, count)
    styles = {col: sheet.cell(row=closing, column=col)._style for col, _ in cells}
    for col, _ in cells:
        sheet.cell(row=closing, column=col).value = None
    for col, value in cells:
        moved = sheet.cell(row=closing + count, column=col)
        moved.value, moved._style = value, copy(styles[col])


def _append_effects(app: Any, args: AppendTableArgs) -> list[Effect]:
    args = _with_sheet(app, args)
    if not app.workspace.resolve(args.path).exists():
        _source(app, None, args)
        return [effect(app.workspace, args.path, Change.CREATE)]
    workbook = app._peek(args.path)
    plan = _plan(app, workbook, args)
    if not plan["rows"] or _repeats(workbook, plan):
        return []
    if plan["closing"]:
        _extended_totals(workbook[plan["title"]], plan["table"], plan["closing"], 1)  # refused when it cannot
    return [effect(app.workspace, args.path, Change.ADD)]


def _letter(col: int) -> str:
    from openpyxl.utils.cell import get_column_letter

    return get_column_letter(col)
