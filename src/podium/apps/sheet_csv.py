"""A sheet from a .csv file, and a sheet saved as one: import_csv and export_csv of the spreadsheets
application (the parsing and writing is csv_tables').

export_csv writes what a spreadsheet program shows: a formula's value (computed by sheet_eval, else the
value last saved by a spreadsheet program), from A1 to the sheet's last used cell, as LibreOffice's
"Save as CSV" does.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from podium.apps.base import Change, Effect
from podium.apps.csv_tables import CSV_SUFFIXES, csv_path, delimiter_for, format_csv, read_rows
from podium.apps.file_transfer import store
from podium.apps.sheet_args import CreateArgs, PathArgs
from podium.apps.sheet_cells import bounds, sheet_named, used_range
from podium.apps.sheet_view import Reader, check_new_sheet, check_title, write_rows
from podium.apps.tool_effects import declared, effect
from podium.apps.tooling import Args, ToolError, ToolSpec, file_path


class ImportArgs(PathArgs):
    source: str = file_path("the .csv file to import", *CSV_SUFFIXES, existing=True)
    sheet: str | None = Field(None, description="the new sheet's name; the .csv file's name when omitted")


class ExportArgs(Args):
    path: str = file_path("the .xlsx file to save a sheet of", ".xlsx", existing=True)
    sheet: str | None = Field(None, description="the sheet to save; the active sheet when omitted")
    target: str = file_path("the .csv file to write", *CSV_SUFFIXES)
    overwrite: bool = Field(False, description="replace an existing file (needs approval)")


def specs(app: Any) -> list[ToolSpec]:
    return [
        ToolSpec("import_csv", "Put a .csv file's rows into a new sheet of a workbook (the workbook is created if "
                 "missing) and save.", ImportArgs, lambda a: import_csv(app, a),
                 effects=declared(lambda a: _import_effects(app, a))),
        ToolSpec("export_csv", "Save a sheet's values as a .csv file.", ExportArgs, lambda a: export_csv(app, a),
                 effects=declared(lambda a: _export_effects(app, a))),
    ]


def _sheet_name(args: ImportArgs) -> str:
    from pathlib import PurePath

    return check_title(args.sheet or PurePath(args.source).stem[:31])


def import_csv(app: Any, args: ImportArgs) -> dict[str, Any]:
    rows = read_rows(app.workspace, args.source)
    if not rows:
        raise ToolError(f"{args.source!r} holds no rows")
    title = _sheet_name(args)
    created = not app.workspace.resolve(args.path).exists()
    if created:
        app._create(CreateArgs(path=args.path, sheets=[title]))

    def change(workbook: Any) -> dict[str, Any]:
        existing = check_new_sheet(workbook, title, rows)
        done = {"path": args.path, "sheet": existing or title, "rows": len(rows)}
        if existing is not None and used_range(workbook[existing]) is not None:
            return {**done, "unchanged": True, "note": f"sheet {existing!r} holds these rows already"}
        sheet = workbook[existing] if existing else workbook.create_sheet(title)
        return {**done, "range": write_rows(sheet, rows), **({"created_workbook": True} if created else {})}

    return app._edit(args.path, change)


def _import_effects(app: Any, args: ImportArgs) -> list[Effect]:
    rows = read_rows(app.workspace, args.source)
    title = _sheet_name(args)
    if not app.workspace.resolve(args.path).exists():
        return [effect(app.workspace, args.path, Change.CREATE)]
    workbook = app._peek(args.path)
    existing = check_new_sheet(workbook, title, rows)
    if existing is not None and used_range(workbook[existing]) is not None:
        return []
    return [effect(app.workspace, args.path, Change.ADD)]


def sheet_rows(app: Any, args: ExportArgs) -> list[list[Any]]:
    """The sheet's values from A1 to its last used cell, formulas as their values."""
    workbook = app._peek(args.path)
    sheet = sheet_named(workbook, args.sheet)
    area = used_range(sheet)
    if area is None:
        raise ToolError(f"sheet {sheet.title!r} is empty: there is nothing to export")
    _, _, max_col, max_row = bounds(area)
    reader = Reader(workbook)
    rows = [[reader.raw(sheet.title, r, c)[1] for c in range(1, max_col + 1)] for r in range(1, max_row + 1)]
    if reader.unknown:
        cached = app._load(app._existing(args.path), data_only=True)[sheet.title]
        for cell in reader.unknown:
            from podium.apps.sheet_cells import parse_cell

            col, row = parse_cell(cell)
            rows[row - 1][col - 1] = cached.cell(row=row, column=col).value
    return rows


def export_csv(app: Any, args: ExportArgs) -> dict[str, Any]:
    target = csv_path(app.workspace, args.target, existing=False)
    rows = sheet_rows(app, args)
    data = format_csv(rows, delimiter_for(target)).encode("utf-8")
    done = {"path": args.target, "sheet": sheet_named(app._peek(args.path), args.sheet).title, "rows": len(rows)}
    if target.is_file() and target.read_bytes() == data:
        return {**done, "unchanged": True, "note": "the file holds exactly these rows already: nothing written"}
    if target.exists() and not args.overwrite:
        raise ToolError(f"{args.target!r} already exists; pass overwrite=true to replace it (needs approval)")
    target.parent.mkdir(parents=True, exist_ok=True)
    store(target, data, args.overwrite)
    return done


def _export_effects(app: Any, args: ExportArgs) -> list[Effect]:
    target = csv_path(app.workspace, args.target, existing=False)
    data = format_csv(sheet_rows(app, args), delimiter_for(target)).encode("utf-8")
    if not target.exists():
        return [effect(app.workspace, args.target, Change.CREATE)]
    if (target.is_file() and target.read_bytes() == data) or not args.overwrite:
        return []
    return [effect(app.workspace, args.target, Change.REPLACE)]
