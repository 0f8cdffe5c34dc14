"""spreadsheets: Excel (.xlsx) workbooks through openpyxl: read, write rows, cells and formulas, append
rows under a table, a Total row of =SUM formulas (sheet_totals), sort a table (sheet_sort), add charts.

A written value that is text starting with "=" is written as text, never as a live formula: data is not
code (`=WEBSERVICE(...)` appended from a document would run when the person opens the workbook). A formula
is written only by a tool whose job is one (add_totals_row's =SUM), and only with the functions
formulas.ALLOWED names. By default, text that reads as a number ("1200", "-3.5", "1,200") is written as
a number, because values copied from a document's table arrive as text and a chart over text cells is
empty (sheet_cells.cell_value).

Every write tool saves the workbook at once (atomic replace). Each changing tool declares its effects
(approval): writing over cells that already hold other values is an EDIT (those values would be lost, so
it is sensitive), replacing a whole file a REPLACE; appending under a table, a chart, a sheet an ADD. The
drawings already in the file (charts, pictures, shapes, text boxes) are kept exactly as they were: see
xlsx_package. A change the file already shows (the values already in the cells, the chart or rows this
application just added) is not made again, and the result says `unchanged`.

A workbook is checked against the package limits before openpyxl parses it (limits.check_package: a
compression bomb, a cell at XFD1048576 or a merged range to it are refused with the reason), a write that
would grow a sheet past them is refused, and a link is read and written where it points.
"""

from __future__ import annotations

import hashlib
import io
import warnings
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from podium.apps import (
    approval,
    sheet_csv,
    sheet_fill,
    sheet_format,
    sheet_formulas,
    sheet_manage,
    sheet_replace,
    sheet_rows,
    sheet_stats,
    sheet_tables,
)
from podium.apps.approval import declared
from podium.apps.base import EMPTY_CELLS, LEFT_OUT, OTHER_PARTS, READ_PART, TOOK_COLUMNS, Change, Effect
from podium.apps.formulas import formula_problem
from podium.apps.limits import MAX_RESULT_CHARS, FileRefused, PackageLimits, check_package
from podium.apps.sheet_args import (
    AppendArgs,
    CellArgs,
    ChartArgs,
    CreateArgs,
    PathArgs,
    ReadArgs,
    SheetArgs,
    WriteArgs,
)
from podium.apps.sheet_cells import (
    aligned_under,
    area_of,
    bounds,
    cell_value,
    check_rows,
    check_write_bounds,
    coordinate,
    copied_cells,
    filled,
    find_table,
    holds,
    overwrites,
    parse_cell,
    plain,
    put,
    repeated_block,
    sheet_named,
    split_sheet,
    used_range,
    value_at,
)
from podium.apps.sheet_charts import chart_sheets, place_chart
from podium.apps.sheet_sort import SortArgs, sort_effect, sort_rows
from podium.apps.sheet_totals import TotalsArgs, add_totals_row, column_stats
from podium.apps.sheet_view import empty_cells
from podium.apps.tooling import ToolApplication, ToolError, ToolSpec
from podium.apps.workspace import Workspace, atomic_save
from podium.apps.xlsx_package import drawing_summary, first_free_rows, graft_drawings, sheets_with_drawings

MAX_READ_CELLS = 20_000
T = TypeVar("T")
Rows = tuple[tuple[Any, ...], ...]


# Told to "add a sheet named Ranking that lists the students ... from the highest score", the 1.5B
# AppAgent wrote the rows into 'Ranking' before it existed; the error names the two ways there.
_EMPTY_CELLS = "cells that are empty (below the table, append_rows, or a new sheet) need no approval"
_NEW_SHEET = ": add it first with add_sheet, or sort_rows with target_sheet writes a sorted copy into a new sheet"


class _Chart(NamedTuple):
    """The chart this application added last to a file."""

    stamp: str  # the file's digest right after
    before: bytes  # the file's bytes right before
    sheet: str | None
    title: str
    kind: str
    columns: tuple[str, ...]  # plotted


class SpreadsheetsApplication(ToolApplication):
    name = "spreadsheets"
    file_types = (".xlsx",)  # what it can open (the host matches files named in a request)
    # What an AppAgent is shown of a workbook its subtask names, before it decides: the rows (a sheet
    # listing handed on as a "read" subtask's result carried no data to the next subtask).
    observer = "read_sheet"

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        # The charts this application added, and the file's digest right after: asked for the same chart
        # again while the file is as it left it, it adds none (a small model repeats its last calls
        # with a cosmetic change of arguments, and each repeat added a chart).
        self._charted: dict[tuple[str, ...], str] = {}
        # The chart this application added last to each file: the same chart asked for again over fewer of its
        # columns while the file is as it left it replaces it (apps.base.TOOK_COLUMNS).
        self._last_chart: dict[str, _Chart] = {}
        # Likewise the rows this application last appended to each file (sheet, rows as written, the
        # file's digest right after, the result): the same rows asked for again while the file is as it
        # left it are that repeat, not appended twice. Wanting the same row twice on purpose is rarer
        # than a repeated call; the note says how (write_rows at the next row).
        self._appended: dict[str, tuple[str, Rows, str, dict[str, Any]]] = {}
        self._peeked: tuple[tuple[str, str], Any] | None = None
        self.limits = PackageLimits()
        self.description = "Excel workbooks (.xlsx): read and write cells, add Total rows and native charts"
        super().__init__()

    def _specs(self) -> list[ToolSpec]:
        # Tools that declare their effects exactly: a call of one needs approval when an effect is destructive.
        more = [*sheet_formulas.specs(self), *sheet_stats.specs(self), *sheet_rows.specs(self),
                  *sheet_tables.specs(self), *sheet_manage.specs(self), *sheet_csv.specs(self),
                  *sheet_format.specs(self), *sheet_replace.specs(self), *sheet_fill.specs(self)]
        return [
            ToolSpec("list_sheets", "List the sheets, their used ranges and charts.", PathArgs, self._list, True,
                     describes=True),
            ToolSpec("read_sheet", "Read a range, or a whole sheet, as rows of values.", ReadArgs, self._read, True),
            ToolSpec("column_totals", "Sum, count, minimum, maximum and mean of each numeric column of a table, by "
                     "its header.", ReadArgs, self._totals, True, computes=True),
            ToolSpec("create_workbook", "Create a new workbook with the named sheets.", CreateArgs, self._create,
                     unapproved="a workbook that exists is written into (add_sheet, write_rows), not created again",
                     effects=declared(self._create_effects), new_only=True),
            ToolSpec("add_sheet", "Add an empty sheet and save (a sorted, filtered or grouped table goes into "
                     "the new sheet its own tool makes: target_sheet).", SheetArgs, self._add_sheet,
                     effects=declared(self._sheet_effects), empty_part=True, edits=True),
            ToolSpec("write_rows", "Write rows of values from a start cell and save (a new workbook if there is none).",
                     WriteArgs, self._write,
                     unapproved=_EMPTY_CELLS, effects=declared(self._write_effects)),
            # A small model cannot work out a start cell: given only write_rows, it wrote a cell's address
            # as a value, and rows meant for under a table beside it.
            ToolSpec("set_cell", "Write one value into one cell and save.", CellArgs, self._set_cell,
                     unapproved=_EMPTY_CELLS, effects=declared(lambda args: self._write_effects(_as_rows(args)))),
            ToolSpec("append_rows", "Add rows under the last row of a sheet's table and save.", AppendArgs,
                     self._append, effects=declared(self._add_effects), edits=True),
            ToolSpec("add_totals_row", "Add a labelled row (Total) under a sheet's table with a =SUM under each "
                     "column of numbers, or under the columns named, and save.", TotalsArgs, self._add_totals,
                     effects=declared(self._add_effects), edits=True),
            # The 1.5B model cannot order rows itself and write them (a ranking request failed on it), as it
            # cannot add them up: the tool does it, like column_totals.
            ToolSpec("sort_rows", "Copy a sheet's table sorted by one column (header name or letter, highest or "
                     "lowest first) into a new sheet named target_sheet, or sort it in place, and save.", SortArgs,
                     self._sort,
                     unapproved="give target_sheet, the name of a new sheet: the sorted copy is written there, "
                                "the rows stay where they are, and no approval is needed",
                     effects=declared(self._sort_effects), edits=True, reshapes=True),
            ToolSpec(
                "add_chart",
                "Add a native bar, column, line or pie chart over a table and save. Asked again for the chart it "
                "just added (same sheet, title and kind) with fewer of its columns, it replaces that chart.",
                ChartArgs,
                self._add_chart,
                effects=declared(self._add_effects),
                edits=True,
            ),
            *more,
        ]

    def parts(self, path: str) -> tuple[str, ...]:
        """The sheets of a workbook, in order (a tool's `sheet` names one of them)."""
        return tuple(self._peek(path).sheetnames) if self._xlsx_path(path).exists() else ()

    def _sensitive(self, tool: str, args: Any) -> bool:
        return approval.sensitive(self._by_name[tool], args, self.workspace)

    # -- effects: what a call would change, from the workbook as the file holds it (parsed once) -----
    def _create_effects(self, args: CreateArgs) -> tuple[Effect, ...]:
        return approval.whole_file(self.workspace, self._xlsx_path(args.path), args.overwrite)

    def _add_effects(self, args: Any) -> tuple[Effect, ...]:
        """Rows under a table, a Total row, a chart, a sheet: added, nothing the file holds is lost."""
        return (self.workspace.effect(self._existing(args.path), Change.ADD),)

    def _sheet_effects(self, args: SheetArgs) -> tuple[Effect, ...]:
        """A sheet added: the run's own from then on, though the file is the person's."""
        return tuple(replace(e, makes=args.name) for e in self._add_effects(args))

    def _write_effects(self, args: WriteArgs) -> tuple[Effect, ...]:
        """EDIT when a cell's value would be written over, ADD into empty cells, KEEP when the cells hold the
        values already; a write that will be refused (rows, bounds) has none."""
        check_rows(args.rows, args.start)
        if not self._xlsx_path(args.path).exists():
            return (self.workspace.effect(self._xlsx_path(args.path), Change.CREATE),)  # a new workbook
        sheet = sheet_named(self._peek(args.path), args.sheet)
        first_col, first_row = parse_cell(args.start, "start")
        check_write_bounds(sheet, first_col, first_row, args.rows, f"writing at {args.start}")
        if overwrites(sheet, first_col, first_row, args.rows):
            change = Change.EDIT
        elif all(value_at(sheet, first_row + r, first_col + c) is not None
                 and holds(sheet.cell(first_row + r, first_col + c), cell_value(v))
                 for r, row in enumerate(args.rows) for c, v in enumerate(row)):
            change = Change.KEEP
        else:
            change = Change.ADD
        return (replace(self.workspace.effect(self._existing(args.path), change), part=sheet.title),)

    def _sort_effects(self, args: SortArgs) -> tuple[Effect, ...]:
        found = sort_effect(self._peek(args.path), args)
        if found is None:
            return ()
        change, part, makes = found
        return (replace(self.workspace.effect(self._existing(args.path), change), part=part, makes=makes),)

    def _copies(self, tool: str, args: Any) -> list[tuple[str, Any, str, str]]:
        try:
            rows = _as_rows(args) if tool == "set_cell" else args if tool == "write_rows" else None
            if rows is None:
                return []
            sheet = sheet_named(self._peek(rows.path), rows.sheet)
            first_col, first_row = parse_cell(rows.start, "start")
        except Exception:
            return []  # the call itself will fail: nothing is written
        return copied_cells(sheet, first_col, first_row, rows.rows)

    # -- reading -------------------------------------------------------------------------------
    def _list(self, args: PathArgs) -> dict[str, Any]:
        path = self._existing(args.path)
        data = self._bytes(path, args.path)
        workbook = self._load_bytes(data, args.path)
        drawings = drawing_summary(data)
        empty = {"charts": 0, "pictures": 0, "shapes": 0}
        sheets = []
        for sheet in workbook.worksheets:
            sheets.append(
                {
                    "name": sheet.title,
                    "kind": "worksheet",
                    "used_range": used_range(sheet),
                    **drawings.get(sheet.title, empty),
                }
            )
        for sheet in workbook.chartsheets:
            sheets.append({"name": sheet.title, "kind": "chartsheet", **drawings.get(sheet.title, empty)})
        return {"path": args.path, "active": workbook.active.title if workbook.active else None, "sheets": sheets}

    def _read(self, args: ReadArgs) -> dict[str, Any]:
        workbook = self._load_bytes(self._bytes(self._existing(args.path), args.path), args.path,
                                    data_only=args.cached_values)
        sheet = sheet_named(workbook, args.sheet)
        area = args.range or used_range(sheet)
        if area is None:
            return {"path": args.path, "sheet": sheet.title, "range": None, "rows": []}
        min_col, min_row, max_col, max_row = bounds(area)
        if (max_col - min_col + 1) * (max_row - min_row + 1) > MAX_READ_CELLS:
            raise ToolError(f"range {area} holds more than {MAX_READ_CELLS} cells; read a smaller range")
        rows, budget = [], MAX_RESULT_CHARS
        for row in sheet.iter_rows(min_row=min_row, max_row=max_row, min_col=min_col, max_col=max_col,
                                   values_only=True):
            shown = [plain(value) for value in row]
            budget -= sum(len(str(value)) for value in shown if value is not None)
            if budget < 0 and rows:
                break
            rows.append(shown)
        others = [name for name in workbook.sheetnames if name != sheet.title]
        gaps = [] if args.range else empty_cells(sheet)
        done = {"path": args.path, READ_PART: sheet.title, "range": area, "rows": rows,
                **({EMPTY_CELLS: gaps} if gaps else {}), **({OTHER_PARTS: others} if others else {})}
        left = [f"the other sheets ({', '.join(others)})"] if others else []
        if args.range:
            left.append(f"the cells outside {area}")
        if len(rows) < max_row - min_row + 1:
            done |= {"truncated": True, "note": f"{sheet.title}!{area} holds more than {MAX_RESULT_CHARS:,} "
                                                f"characters: its first {len(rows)} rows are shown; read a "
                                                "smaller range"}
            left.append(f"the rows past the first {len(rows)}")
        return done | ({LEFT_OUT: "; ".join(left)} if left else {})

    def _totals(self, args: ReadArgs) -> dict[str, Any]:
        """Arithmetic is what a small model gets wrong and a tool gets right. The header is the first
        row with two or more texts (a title above a table is skipped), or the first text of a range one
        column wide; below it, each column's numbers (not text, not formulas: those need cached_values)
        are summed."""
        table = self._read(args)
        rows, area = table["rows"], table["range"]
        if not rows:
            raise ToolError(f"sheet {table['sheet']!r} is empty: there is no table to total")
        min_row = bounds(area)[1]
        top, columns = column_stats(rows, area, table["sheet"])
        if not columns and args.range:
            # The 1.5B model totals "A1:A5" for the Amount column in D: the sheet's totals answer it.
            whole = self._totals(args.model_copy(update={"range": None}))
            return {**whole, "note": f"{table['sheet']}!{area} has no column of numbers; these are the totals "
                                     "of the whole sheet"}
        if not columns:
            raise ToolError(f"no column of numbers under the header row {min_row + top} of {table['sheet']}!{area}"
                            + ("" if args.cached_values else "; formulas count only with cached_values=true"))
        return {"path": args.path, "sheet": table["sheet"], "header_row": min_row + top,
                "data_rows": f"{min_row + top + 1}-{min_row + len(rows) - 1}", "columns": columns}

    # -- writing -------------------------------------------------------------------------------
    def _create(self, args: CreateArgs) -> dict[str, Any]:
        from openpyxl import Workbook

        path = self._xlsx_path(args.path)
        if path.exists() and not args.overwrite:
            raise ToolError(f"{args.path!r} already exists: add to it or change a part of it with the tools that "
                            "edit a workbook (add_sheet, write_rows, append_rows...); pass overwrite=true to replace "
                            "it with an empty one (needs approval)")
        if len(set(args.sheets)) != len(args.sheets):
            raise ToolError("sheet names must be different from each other")
        workbook = Workbook()
        workbook.active.title = args.sheets[0]
        for name in args.sheets[1:]:
            workbook.create_sheet(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_save(path, lambda tmp: workbook.save(str(tmp)))
        return {"path": args.path, "sheets": args.sheets}

    def _add_sheet(self, args: SheetArgs) -> dict[str, Any]:
        def change(workbook: Any) -> dict[str, Any]:
            if args.name in workbook.sheetnames:
                raise ToolError(f"the workbook already has a sheet named {args.name!r}")
            workbook.create_sheet(args.name)
            return {"path": args.path, "sheets": workbook.sheetnames}

        return self._edit(args.path, change)

    def _write(self, args: WriteArgs) -> dict[str, Any]:
        first_col, first_row = parse_cell(args.start, "start")
        check_rows(args.rows, args.start)

        def change(workbook: Any) -> dict[str, Any]:
            sheet = sheet_named(workbook, args.sheet, _NEW_SHEET)
            col, notes = first_col, []
            if (aligned := aligned_under(sheet, first_col, first_row, args.rows)) is not None:
                col = aligned
                notes.append(f"written from {coordinate(col, first_row)}, under the table's own columns "
                             f"({args.start} would have put each value under the next column's header)")
            if (there := repeated_block(sheet, col, first_row, args.rows)) is not None:
                raise ToolError(f"{sheet.title}!{there}, right above {coordinate(col, first_row)}, holds these "
                                f"{len(args.rows)} rows already: written there they would be a second copy of "
                                "them; write only the rows that are new")
            check_write_bounds(sheet, col, first_row, args.rows, f"writing at {coordinate(col, first_row)}")
            done = {"path": args.path, "sheet": sheet.title, "range": _area(col, first_row, args.rows)}
            changed, texts = _put(sheet, col, first_row, [[cell_value(v) for v in row] for row in args.rows])
            if not changed:
                return {**done, "unchanged": True, "note": "the cells already hold these values: nothing written"}
            notes += [_as_text(texts)] if texts else []
            return {**done, "note": "; ".join(notes)} if notes else done

        return self._edit(args.path, change, new_sheet=args.sheet or "Sheet1")

    def _set_cell(self, args: CellArgs) -> dict[str, Any]:
        write = _as_rows(args)
        done = self._write(write)
        value = plain(cell_value(args.value))
        result = {"path": args.path, "sheet": done["sheet"], "cell": write.start, "value": value}
        if done.get("unchanged"):
            return {**result, "unchanged": True, "note": "the cell already holds this value: nothing written"}
        return {**result, "note": done["note"]} if "note" in done else result

    def _append(self, args: AppendArgs) -> dict[str, Any]:
        rows: Rows = tuple(tuple(cell_value(v) for v in row) for row in args.rows)
        if not any(filled(v) for row in rows for v in row):
            raise ToolError("rows hold no values: nothing to append")
        resolved = self._existing(args.path)
        title = ""

        def change(workbook: Any) -> dict[str, Any]:
            nonlocal title
            sheet = sheet_named(workbook, args.sheet, _NEW_SHEET)
            title = sheet.title
            last = self._appended.get(str(resolved))
            if last is not None and last[:3] == (title, rows, self._stamp(resolved)):
                first, _, _, end = bounds(last[3]["range"])
                # a stack of two rows or more again under itself is refused by write_rows (repeated_block)
                again = f" (another copy, if wanted: write_rows at {coordinate(first, end + 1)})"
                return {**last[3], "unchanged": True, "note": "these rows were just appended and are there: not "
                        "appended again" + (again if len(rows) == 1 else "")}
            table = find_table(sheet)
            first_col, first_row = (table.first_col, table.last_row + 1) if table else (1, 1)
            top = first_row - len(rows)
            if table and top == table.top_row and all(
                    sheet.cell(top + i, first_col + j).value == value
                    for i, row in enumerate(rows) for j, value in enumerate(row)):
                # The whole table, header and all: the 1.5B AppAgent wrote a table with write_rows and
                # appended the same rows in the same step. (Rows repeated under a table may be wanted.)
                return {"path": args.path, "sheet": title, "range": _area(first_col, top, rows), "unchanged": True,
                        "note": "these rows are the whole table already: not appended again"}
            under = table.data_rows if table else None
            put, notes = rows, []
            if table and len(rows) > 1 and _same_header(rows[0], [sheet.cell(table.top_row, first_col + j).value
                                                                  for j in range(len(rows[0]))]):
                # rows copied from another table, header and all: under a table with that header, the header
                # is not a row of data
                put, notes = rows[1:], ["the rows' first row is the table's header: left out"]
            check_write_bounds(sheet, first_col, first_row, put, f"appending at {coordinate(first_col, first_row)}")
            texts = _put(sheet, first_col, first_row, put)[1]
            notes += [_as_text(texts)] if texts else []
            return {"path": args.path, "sheet": title, "range": _area(first_col, first_row, put),
                    **({"under": under} if under else {}), **({"note": "; ".join(notes)} if notes else {})}

        result = self._edit(args.path, change)
        if not result.get("unchanged"):
            self._appended[str(resolved)] = (title, rows, self._stamp(resolved), result)
        return result

    def _add_totals(self, args: TotalsArgs) -> dict[str, Any]:
        return self._edit(args.path, lambda workbook: add_totals_row(workbook, args))

    def _sort(self, args: SortArgs) -> dict[str, Any]:
        return self._edit(args.path, lambda workbook: sort_rows(workbook, args, args.path))

    def _add_chart(self, args: ChartArgs) -> dict[str, Any]:
        resolved = self._existing(args.path)
        current = self._bytes(resolved, args.path)
        redone = self._redone_chart(args, resolved, current)
        free_rows = first_free_rows(current if redone is None else redone.before)
        key: tuple[str, ...] = ()

        def change(workbook: Any) -> dict[str, Any]:
            nonlocal key
            data_sheet, target, area, notes = chart_sheets(workbook, args, resolved)
            key = (str(resolved), target.title, data_sheet.title, area.replace("$", "").upper(), args.kind,
                   args.title, *args.columns)
            if self._charted.get(key) == self._stamp(resolved):
                return {"path": args.path, "sheet": target.title, "kind": args.kind,
                        "data": f"{data_sheet.title}!{area}", "unchanged": True,
                        "note": "this chart was added already and is there: not added again"}
            return place_chart(args, data_sheet, target, area, free_rows.get(target.title, 1), notes)

        result = self._edit(args.path, change, original=None if redone is None else redone.before)
        if not result.get("unchanged"):
            stamp = self._stamp(resolved)
            self._charted[key] = stamp
            self._last_chart[str(resolved)] = _Chart(stamp, current if redone is None else redone.before, args.sheet,
                                                     args.title, args.kind, tuple(result.get(TOOK_COLUMNS, ())))
            if redone is not None:
                result["note"] = "; ".join(filter(None, [f"it replaces the chart added before, which plotted "
                                                         f"{', '.join(redone.columns)}", result.get("note")]))
        return result

    def _redone_chart(self, args: ChartArgs, resolved: Path, current: bytes) -> _Chart | None:
        """The chart this application added last to the file, where the file is as it left it and this call
        asks for that chart again (sheet, title, kind) over fewer of its columns: the call replaces it."""
        last = self._last_chart.get(str(resolved))
        if last is None or last.stamp != _digest(current) or (last.sheet, last.title, last.kind) != (
                args.sheet, args.title, args.kind):
            return None
        plotted = {c.casefold() for c in last.columns}
        wanted = {c.strip().casefold() for c in args.columns}
        return last if wanted and wanted < plotted else None

    # -- workbook I/O --------------------------------------------------------------------------
    def _edit(self, path: str, change: Callable[[Any], T], *, new_sheet: str | None = None,
              original: bytes | None = None) -> T:
        """Load, change, save: openpyxl writes the cells, the original drawings are grafted back. The
        workbook a call's effects just parsed is the one changed, when the file is as it was then. With
        `new_sheet`, a workbook that does not exist yet is made, its one sheet so named (writing rows into
        a new workbook makes it: the plan declared the path). `original`: the bytes changed in place of the
        file's (a chart made again over the file as it was before that chart)."""
        if new_sheet is not None and not self._xlsx_path(path).exists():
            from openpyxl import Workbook

            workbook = Workbook()
            workbook.active.title = new_sheet
            result = change(workbook)
            _no_new_live_formulas(workbook, {})
            target = self._xlsx_path(path)
            target.parent.mkdir(parents=True, exist_ok=True)
            atomic_save(target, lambda tmp: workbook.save(str(tmp)))
            return result
        resolved = self._existing(path)
        original = self._bytes(resolved, path) if original is None else original
        key = (str(resolved), _digest(original))
        if self._peeked is not None and self._peeked[0] == key:
            workbook, self._peeked = self._peeked[1], None
        else:
            workbook = self._load_bytes(original, path)
        for sheet in [*workbook.worksheets, *workbook.chartsheets]:
            # What openpyxl re-read from the drawings is lossy; the originals are grafted back below.
            sheet._charts = []
            sheet._images = []
        titles = {id(sheet): sheet.title for sheet in [*workbook.worksheets, *workbook.chartsheets]}
        had = _formulas(workbook)
        result = change(workbook)
        if isinstance(result, dict) and result.get("unchanged"):
            return result
        _no_new_live_formulas(workbook, had)
        buffer = io.BytesIO()
        workbook.save(buffer)
        saved = buffer.getvalue()
        if sheets_with_drawings(original):
            # a sheet the change renamed keeps its drawings, and charts follow its new name
            renamed = {titles[id(s)]: s.title for s in [*workbook.worksheets, *workbook.chartsheets]
                       if id(s) in titles and titles[id(s)] != s.title}
            saved = graft_drawings(original, saved, renamed)
        atomic_save(resolved, lambda tmp: tmp.write_bytes(saved))
        return result

    def _peek(self, path: str) -> Any:
        """The workbook as the file holds it now, parsed once for the checks made before a call
        (sensitivity, copied identifiers): keyed by the file's digest, so any change reparses it. Only
        read: a write loads its own copy (_edit)."""
        resolved = self._existing(path)
        data = self._bytes(resolved, path)
        key = (str(resolved), _digest(data))
        if self._peeked is None or self._peeked[0] != key:
            self._peeked = (key, self._load_bytes(data, path))
        return self._peeked[1]

    def _bytes(self, path: Path, name: str) -> bytes:
        """The workbook file's bytes: a regular file (never a FIFO), within the package limits (checked once
        per content) before anything parses a part of it."""
        data = self.workspace.read_bytes(path, self.limits.max_file_bytes, name)
        check_package(data, name, self.limits, ".xlsx workbook")
        return data

    def _load(self, path: Path, *, data_only: bool = False) -> Any:
        """The workbook at `path`, read as a regular file within the package limits, then parsed."""
        return self._load_bytes(self._bytes(path, path.name), path.name, data_only=data_only)

    def _stamp(self, path: Path) -> str:
        """The file's content digest: "as this application left it" exactly (two saves within one tick of a
        coarse file clock, at the same size, share a modification stamp)."""
        return _digest(self._bytes(path, path.name))

    def _load_bytes(self, data: bytes, name: str, *, data_only: bool = False) -> Any:
        """The workbook, parsed once its package passed the limits."""
        from openpyxl import load_workbook

        check_package(data, name, self.limits, ".xlsx workbook")
        try:
            with warnings.catch_warnings():
                # openpyxl warns that it drops shapes; we keep them (xlsx_package), so the warning misleads.
                warnings.simplefilter("ignore", UserWarning)
                return load_workbook(io.BytesIO(data), data_only=data_only)
        except FileRefused:
            raise
        except Exception as exc:  # openpyxl on a damaged package: any of a dozen exceptions
            raise ToolError(f"{name!r} is not a readable .xlsx workbook ({type(exc).__name__}: {exc})") from exc

    def _xlsx_path(self, path: str) -> Path:
        """Where the workbook is: a link followed to its file, which must be an .xlsx too."""
        return self.workspace.typed(path, ".xlsx", "an .xlsx path (only Excel .xlsx workbooks are supported)")

    def _existing(self, path: str) -> Path:
        resolved = self._xlsx_path(path)
        if not resolved.exists():
            raise self.workspace.missing(path, f"{self.workspace.of_type('.xlsx')}; a new one is made with "
                                               "create_workbook, or by write_rows")
        return resolved


def _same_header(row: Sequence[Any], header: Sequence[Any]) -> bool:
    """Whether a row holds a table's header, cell for cell (case and spaces aside; every cell a name)."""
    def names(cells: Sequence[Any]) -> list[str]:
        return [str(c).strip().casefold() if isinstance(c, str) else "" for c in cells]

    return all(names(row)) and names(row) == names(header)


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _as_text(cells: list[str]) -> str:
    shown = ", ".join(cells[:8]) + (", ..." if len(cells) > 8 else "")
    return (f"{shown}: written as text, not as a formula (a value starting with '=' is data); a Total row of "
            "=SUM formulas is add_totals_row's work")


def _as_rows(args: CellArgs) -> WriteArgs:
    """set_cell is write_rows of one value at the cell; "Schedule!B2" names the sheet as well."""
    sheet, cell = split_sheet(args.cell)
    if sheet is not None and args.sheet is not None and sheet != args.sheet:
        raise ToolError(f"cell {args.cell!r} is on sheet {sheet!r} but sheet is {args.sheet!r}: give one sheet")
    col, row = parse_cell(cell, "cell")
    return WriteArgs(path=args.path, sheet=sheet or args.sheet, start=coordinate(col, row),
                     rows=[[args.value]])


def _area(first_col: int, first_row: int, rows: Any) -> str:
    """The range rows written from a cell cover: as wide as the widest row."""
    width = max(len(row) for row in rows) or 1
    return area_of(first_col, first_row, first_col + width - 1, first_row + len(rows) - 1)


def _put(sheet: Any, first_col: int, first_row: int, rows: Any) -> tuple[bool, list[str]]:
    """Write the values (already through cell_value) from a cell, text starting with "=" as text (put);
    (whether anything changed, the cells written as such text). Nothing is written when the cells already
    hold the values (the call repeats a change made)."""
    cells = [(sheet.cell(row=first_row + r, column=first_col + c), value)
             for r, row in enumerate(rows) for c, value in enumerate(row)]
    if all(holds(cell, value) for cell, value in cells):
        return False, []
    return True, [cell.coordinate for cell, value in cells if put(cell, value)]


def _formulas(workbook: Any) -> dict[tuple[str, str], str]:
    """Every formula of the workbook's sheets by (sheet, cell): what the person's file held before a change."""
    return {(sheet.title, cell.coordinate): text for sheet in workbook.worksheets for cell in sheet._cells.values()
            if cell.data_type == "f" and (text := _formula_text(cell.value))}


def _formula_text(value: Any) -> str:
    text = value if isinstance(value, str) else getattr(value, "text", None)  # an array formula keeps it there
    return text if isinstance(text, str) else ""


def _no_new_live_formulas(workbook: Any, had: dict[tuple[str, str], str]) -> None:
    """Refuse a save that would leave a formula reaching outside the workbook (formulas.formula_problem) where
    the person's file had none: whatever route a change took (a value read from a .csv, a header, text that
    only looked like a formula copied as one), data does not become live code. What the file held stays."""
    known = set(had.values())
    for (where, text) in _formulas(workbook).items():
        if had.get(where) == text or text in known:
            continue
        problem = formula_problem(text if text.startswith("=") else f"={text}")
        if problem is not None:
            raise ToolError(f"{where[0]}!{where[1]}: {problem}; nothing was saved")
