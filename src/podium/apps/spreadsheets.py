"""spreadsheets: Excel (.xlsx) workbooks through openpyxl: read, write rows and formulas, add charts.

A cell value that is a string starting with "=" is a formula. By default, text that reads as a
number ("1200", "-3.5", "1,200") is written as a number, because values copied from a document's
table arrive as text and a chart over text cells is empty.

Every write tool saves the workbook at once (atomic replace). Writing over cells that already hold
other values is sensitive (those values would be lost), as is replacing a whole file. The drawings already in the file
(charts, pictures, shapes, text boxes) are kept exactly as they were: see xlsx_package.
"""

from __future__ import annotations

import datetime as dt
import io
import re
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import Field

from podium.apps.tooling import Args, ToolApplication, ToolError, ToolSpec
from podium.apps.workspace import Workspace, atomic_save
from podium.apps.xlsx_package import drawing_summary, first_free_rows, graft_drawings, sheets_with_drawings

CellValue = str | int | float | bool | None
MAX_READ_CELLS = 20_000
T = TypeVar("T")
_NUMBER = re.compile(r"[+-]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?")


class PathArgs(Args):
    path: str = Field(description=".xlsx file, relative to the workspace root")


class ReadArgs(PathArgs):
    sheet: str | None = Field(None, description="sheet name; the active sheet when omitted")
    range: str | None = Field(None, description="e.g. 'A1:C10'; the whole used area when omitted")
    cached_values: bool = Field(False, description="formula results as last saved by a spreadsheet program")


class CreateArgs(PathArgs):
    sheets: list[str] = Field(default_factory=lambda: ["Sheet1"], min_length=1)
    overwrite: bool = Field(False, description="replace an existing file (needs approval)")


class SheetArgs(PathArgs):
    name: str


class WriteArgs(PathArgs):
    sheet: str | None = None
    start: str = Field("A1", description="top-left cell of the rows, e.g. 'B2'")
    # Numeric-looking text is written as a number, and text that must stay text starts with an apostrophe,
    # as in a spreadsheet program. (A flag for it was set at random by a small model that fills in every
    # argument, and a chart over numbers written as text is empty.)
    rows: list[list[CellValue]] = Field(min_length=1, description="rows of values; '=...' strings are formulas, "
                                                                  "a leading ' keeps numeric-looking text as text")


class ChartArgs(PathArgs):
    sheet: str | None = Field(None, description="sheet to put the chart on; the data's sheet when omitted")
    kind: Literal["bar", "column", "horizontal_bar", "line", "pie"] = Field(
        description="bar/column: vertical bars; horizontal_bar; line; pie (first series only)"
    )
    data: str = Field(description="the table, e.g. 'A1:C5' or 'Data!A1:C5': header row, categories in column 1")
    title: str
    header_row: bool = Field(True, description="the first row holds the series names")
    categories_in_first_column: bool = True
    anchor: str | None = Field(None, description="top-left cell of the chart; right of the data when omitted")
    x_title: str | None = None
    y_title: str | None = None


class SpreadsheetsApplication(ToolApplication):
    name = "spreadsheets"
    file_types = (".xlsx",)  # what it can open (the host matches files named in a request)
    # What an AppAgent is shown of a workbook its subtask names, before it decides: the rows (a sheet
    # listing handed on as a "read" subtask's result carried no data to the next subtask).
    observer = "read_sheet"

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        # The charts this application added, and the file's stamp right after: asked for the same chart
        # again while the file is as it left it, it adds none (a small model repeats its last calls
        # with a cosmetic change of arguments, and each repeat added a chart).
        self._charted: dict[tuple[str, ...], tuple[int, int]] = {}
        self.description = "Excel workbooks (.xlsx): read and write cells and formulas, add native charts"
        super().__init__()

    def _specs(self) -> list[ToolSpec]:
        return [
            ToolSpec("list_sheets", "List the sheets, their used ranges and charts.", PathArgs, self._list, True),
            ToolSpec("read_sheet", "Read a range, or a whole sheet, as rows of values.", ReadArgs, self._read, True),
            ToolSpec("column_totals", "Sum, count, minimum, maximum and mean of each numeric column of a table, by "
                     "its header.", ReadArgs, self._totals, True),
            ToolSpec("create_workbook", "Create a new workbook with the named sheets.", CreateArgs, self._create),
            ToolSpec("add_sheet", "Add an empty sheet and save.", SheetArgs, self._add_sheet),
            ToolSpec("write_rows", "Write rows of values/formulas from a start cell and save.", WriteArgs, self._write),
            ToolSpec(
                "add_chart",
                "Add a native bar, column, line or pie chart over a table and save.",
                ChartArgs,
                self._add_chart,
            ),
        ]

    def _sensitive(self, tool: str, args: Any) -> bool:
        if tool == "create_workbook" and args.overwrite:
            try:
                return self.workspace.resolve(args.path).exists()
            except ToolError:
                return False
        if tool == "write_rows":
            return self._overwrites_cells(args)
        return False

    def _overwrites_cells(self, args: WriteArgs) -> bool:
        """Whether writing would replace a value already in the sheet (that value would be lost)."""
        from openpyxl.utils.cell import column_index_from_string, coordinate_from_string

        try:
            workbook = self._load(self._existing(args.path))
            sheet = _sheet(workbook, args.sheet)
            letters, first_row = coordinate_from_string(args.start.replace("$", "").upper())
        except Exception:
            return False  # the call itself will fail: nothing is written
        first_col = column_index_from_string(letters)
        for r, row in enumerate(args.rows):
            for c, value in enumerate(row):
                new = _cell(value)
                old = sheet.cell(row=first_row + r, column=first_col + c).value
                if old is not None and old != new:
                    return True
        return False

    # -- reading -------------------------------------------------------------------------------
    def _list(self, args: PathArgs) -> dict[str, Any]:
        path = self._existing(args.path)
        data = path.read_bytes()
        workbook = self._load_bytes(data, args.path)
        drawings = drawing_summary(data)
        empty = {"charts": 0, "pictures": 0, "shapes": 0}
        sheets = []
        for sheet in workbook.worksheets:
            sheets.append(
                {
                    "name": sheet.title,
                    "kind": "worksheet",
                    "used_range": _used_range(sheet),
                    **drawings.get(sheet.title, empty),
                }
            )
        for sheet in workbook.chartsheets:
            sheets.append({"name": sheet.title, "kind": "chartsheet", **drawings.get(sheet.title, empty)})
        return {"path": args.path, "active": workbook.active.title if workbook.active else None, "sheets": sheets}

    def _read(self, args: ReadArgs) -> dict[str, Any]:
        workbook = self._load(self._existing(args.path), data_only=args.cached_values)
        sheet = _sheet(workbook, args.sheet)
        area = args.range or _used_range(sheet)
        if area is None:
            return {"path": args.path, "sheet": sheet.title, "range": None, "rows": []}
        min_col, min_row, max_col, max_row = _bounds(area)
        if (max_col - min_col + 1) * (max_row - min_row + 1) > MAX_READ_CELLS:
            raise ToolError(f"range {area} holds more than {MAX_READ_CELLS} cells; read a smaller range")
        rows = [
            [_plain(value) for value in row]
            for row in sheet.iter_rows(
                min_row=min_row, max_row=max_row, min_col=min_col, max_col=max_col, values_only=True
            )
        ]
        others = [name for name in workbook.sheetnames if name != sheet.title]
        return {"path": args.path, "sheet": sheet.title, "range": area, "rows": rows,
                **({"other_sheets": others} if others else {})}

    def _totals(self, args: ReadArgs) -> dict[str, Any]:
        """Arithmetic is what a small model gets wrong and a tool gets right. The header is the first
        row with two or more texts (a title above a table is skipped), or the first text of a range one
        column wide; below it, each column's numbers (not text, not formulas: those need cached_values)
        are summed."""
        from openpyxl.utils.cell import get_column_letter

        table = self._read(args)
        rows, area = table["rows"], table["range"]
        if not rows:
            raise ToolError(f"sheet {table['sheet']!r} is empty: there is no table to total")
        min_col, min_row, _, _ = _bounds(area)
        texts = min(2, max(len(row) for row in rows))
        top = next((i for i, row in enumerate(rows)
                    if sum(isinstance(v, str) and v.strip() != "" for v in row) >= texts), None)
        if top is None:
            raise ToolError(f"no header row (a row of {'two or more texts' if texts > 1 else 'text'}) in "
                            f"{table['sheet']}!{area}")
        columns: dict[str, Any] = {}
        for c, name in enumerate(rows[top]):
            values = [row[c] for row in rows[top + 1:] if c < len(row)]
            numbers = [v for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
            if not numbers:
                continue
            total = sum(numbers)
            key = str(name).strip() if name not in (None, "") else get_column_letter(min_col + c)
            columns[key] = {"column": get_column_letter(min_col + c), "sum": round(total, 10), "count": len(numbers),
                            "min": min(numbers), "max": max(numbers), "mean": round(total / len(numbers), 10)}
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
            raise ToolError(f"{args.path!r} already exists; pass overwrite=true to replace it (needs approval)")
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
        from openpyxl.utils.cell import column_index_from_string as col_index
        from openpyxl.utils.cell import coordinate_from_string, get_column_letter
        from openpyxl.utils.exceptions import CellCoordinatesException

        try:
            letters, first_row = coordinate_from_string(args.start.replace("$", "").upper())
        except (ValueError, CellCoordinatesException) as exc:
            raise ToolError(f"start {args.start!r} is not a cell reference like 'A1'") from exc
        first_col = col_index(letters)

        def change(workbook: Any) -> dict[str, Any]:
            sheet = _sheet(workbook, args.sheet)
            width = max(len(row) for row in args.rows) or 1
            last = f"{get_column_letter(first_col + width - 1)}{first_row + len(args.rows) - 1}"
            done = {"path": args.path, "sheet": sheet.title, "range": f"{letters}{first_row}:{last}"}
            if all(sheet.cell(row=first_row + r, column=first_col + c).value == _cell(value)
                   for r, row in enumerate(args.rows) for c, value in enumerate(row)):
                return {**done, "unchanged": True, "note": "the cells already hold these values: nothing written"}
            for r, row in enumerate(args.rows):
                for c, value in enumerate(row):
                    cell = sheet.cell(row=first_row + r, column=first_col + c)
                    cell.value = _cell(value)
            return done

        return self._edit(args.path, change)

    def _add_chart(self, args: ChartArgs) -> dict[str, Any]:
        resolved = self._existing(args.path)
        free_rows = first_free_rows(resolved.read_bytes())
        key: tuple[str, ...] = ()

        def change(workbook: Any) -> dict[str, Any]:
            nonlocal key
            data_sheet_name, area = _split_sheet(args.data)
            data_sheet = _sheet(workbook, data_sheet_name or args.sheet)
            target = _sheet(workbook, args.sheet) if args.sheet else data_sheet
            key = (str(resolved), target.title, data_sheet.title, area.replace("$", "").upper(), args.kind,
                   args.title)
            if self._charted.get(key) == _stamp(resolved):
                return {"path": args.path, "sheet": target.title, "kind": args.kind,
                        "data": f"{data_sheet.title}!{area}", "unchanged": True,
                        "note": "this chart was added already and is there: not added again"}
            chart = build_chart(args, data_sheet, area)
            _, min_row, max_col, _ = _bounds(area)
            anchor = args.anchor or _anchor_right_of(target, max_col, max(min_row, free_rows.get(target.title, 1)))
            target.add_chart(chart, anchor)
            return {
                "path": args.path,
                "sheet": target.title,
                "kind": args.kind,
                "anchor": anchor,
                "data": f"{data_sheet.title}!{area}",
            }

        result = self._edit(args.path, change)
        if not result.get("unchanged"):
            self._charted[key] = _stamp(resolved)
        return result

    # -- workbook I/O --------------------------------------------------------------------------
    def _edit(self, path: str, change: Callable[[Any], T]) -> T:
        """Load, change, save: openpyxl writes the cells, the original drawings are grafted back."""
        resolved = self._existing(path)
        original = resolved.read_bytes()
        workbook = self._load_bytes(original, path)
        for sheet in [*workbook.worksheets, *workbook.chartsheets]:
            # What openpyxl re-read from the drawings is lossy; the originals are grafted back below.
            sheet._charts = []
            sheet._images = []
        result = change(workbook)
        if isinstance(result, dict) and result.get("unchanged"):
            return result
        buffer = io.BytesIO()
        workbook.save(buffer)
        saved = buffer.getvalue()
        if sheets_with_drawings(original):
            saved = graft_drawings(original, saved)
        atomic_save(resolved, lambda tmp: tmp.write_bytes(saved))
        return result

    def _load(self, path: Path, *, data_only: bool = False) -> Any:
        return self._load_bytes(path.read_bytes(), str(path), data_only=data_only)

    @staticmethod
    def _load_bytes(data: bytes, name: str, *, data_only: bool = False) -> Any:
        from openpyxl import load_workbook

        try:
            with warnings.catch_warnings():
                # openpyxl warns that it drops shapes; we keep them (xlsx_package), so the warning misleads.
                warnings.simplefilter("ignore", UserWarning)
                return load_workbook(io.BytesIO(data), data_only=data_only)
        except (zipfile.BadZipFile, KeyError, OSError) as exc:
            raise ToolError(f"{name!r} is not a readable .xlsx workbook ({exc})") from exc

    def _xlsx_path(self, path: str) -> Path:
        resolved = self.workspace.resolve(path)
        if resolved.suffix.lower() != ".xlsx":
            raise ToolError(f"{path!r} is not an .xlsx path (only Excel .xlsx workbooks are supported)")
        return resolved

    def _existing(self, path: str) -> Path:
        resolved = self._xlsx_path(path)
        if not resolved.exists():
            raise self.workspace.missing(path, "; create it first with create_workbook")
        return resolved


def build_chart(args: ChartArgs, sheet: Any, area: str) -> Any:
    from openpyxl.chart import BarChart, LineChart, PieChart, Reference

    min_col, min_row, max_col, max_row = _bounds(area)
    first_data_col = min_col + 1 if args.categories_in_first_column else min_col
    first_value_row = min_row + 1 if args.header_row else min_row
    if first_data_col > max_col or first_value_row > max_row:
        raise ToolError(f"range {area} holds no values besides its header row / category column")
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
    data = Reference(
        sheet,
        min_col=first_data_col,
        min_row=min_row if args.header_row else first_value_row,
        max_col=max_col,
        max_row=max_row,
    )
    chart.add_data(data, titles_from_data=args.header_row)
    if args.categories_in_first_column:
        chart.set_categories(Reference(sheet, min_col=min_col, min_row=first_value_row, max_row=max_row))
    if args.kind != "pie":
        if args.x_title:
            chart.x_axis.title = args.x_title
        if args.y_title:
            chart.y_axis.title = args.y_title
    chart.width, chart.height = 16, 8
    return chart


def _stamp(path: Path) -> tuple[int, int]:
    stat = path.stat()
    return stat.st_mtime_ns, stat.st_size


def _sheet(workbook: Any, name: str | None) -> Any:
    if name is None:
        return workbook.active
    if name not in workbook.sheetnames:
        raise ToolError(f"no sheet named {name!r}; the sheets are {workbook.sheetnames}")
    return workbook[name]


def _split_sheet(reference: str) -> tuple[str | None, str]:
    if "!" not in reference:
        return None, reference
    sheet, area = reference.rsplit("!", 1)
    if len(sheet) >= 2 and sheet[0] == sheet[-1] == "'":
        sheet = sheet[1:-1].replace("''", "'")
    return sheet, area


def _bounds(area: str) -> tuple[int, int, int, int]:
    from openpyxl.utils.cell import range_boundaries
    from openpyxl.utils.exceptions import CellCoordinatesException

    try:
        min_col, min_row, max_col, max_row = range_boundaries(area.replace("$", "").upper())
    except (ValueError, TypeError, CellCoordinatesException) as exc:
        raise ToolError(f"{area!r} is not a range like 'A1:C5'") from exc
    if None in (min_col, min_row, max_col, max_row):
        raise ToolError(f"{area!r} must name both corners, like 'A1:C5'")
    return min_col, min_row, max_col, max_row  # type: ignore[return-value]


def _used_range(sheet: Any) -> str | None:
    if sheet.max_row == 1 and sheet.max_column == 1 and sheet.cell(1, 1).value is None:
        return None
    return sheet.dimensions


def _anchor_right_of(sheet: Any, max_col: int, row: int) -> str:
    from openpyxl.utils.cell import get_column_letter

    return f"{get_column_letter(max(max_col, sheet.max_column) + 2)}{row}"


def _cell(value: CellValue) -> CellValue:
    """What a written value becomes: "'007" the text '007', "1,200" the number 1200."""
    if isinstance(value, str) and value.startswith("'"):
        return value[1:]
    return _number(value)


def _number(value: CellValue) -> CellValue:
    if isinstance(value, str) and _NUMBER.fullmatch(value.strip()):
        text = value.strip().replace(",", "")
        return float(text) if "." in text else int(text)
    return value


def _plain(value: Any) -> Any:
    """A cell value as JSON: dates as ISO text, anything exotic as text."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    return str(value)
