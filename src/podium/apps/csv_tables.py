"""CSV files as tables: read into rows of values, written from rows. The files application's read_csv and
write_csv_table, and what the spreadsheets application imports and exports (sheet_csv).

Reading finds the delimiter (comma, semicolon, tab or bar, as a spreadsheet program's import dialog
guesses it) and gives numbers as numbers: "42" is 42 and "3.5" is 3.5, but "007" stays text (a code,
not a number) and "" is an empty cell. Writing quotes what needs quoting, one row a line.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

from pydantic import Field

from podium.apps.base import LEFT_OUT, Change, Effect
from podium.apps.sheet_functions import as_text as csv_text
from podium.apps.tooling import Args, ToolError, ToolSpec, file_path
from podium.apps.workspace import is_regular

CSV_SUFFIXES = (".csv", ".tsv")
MAX_CELLS = 20_000  # as read_sheet: a table a model can take in, not a database
MAX_BYTES = 20_000_000
_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?")
CsvValue = str | int | float | bool | None


class ReadCsvArgs(Args):
    path: str = file_path(".csv file, relative to the workspace root", ".csv")


class WriteCsvArgs(Args):
    path: str = file_path(".csv file to write", ".csv")
    rows: list[list[CsvValue]] = Field(min_length=1, description="rows of values, the header first")
    overwrite: bool = Field(False, description="replace an existing file (needs approval)")


def specs(app: Any) -> list[ToolSpec]:
    """read_csv, column_totals and write_csv_table, for the files application (its workspace and owned-types
    check)."""
    return [
        ToolSpec("read_csv", "Read a .csv file as rows of values (numbers as numbers).", ReadCsvArgs,
                 lambda a: read_csv(app.workspace, a.path), read_only=True),
        # a sum over a file's rows is the tool's to make, as a sheet's is: never the model's own arithmetic
        ToolSpec("column_totals", "Sum, count, minimum, maximum and mean of each numeric column of a .csv file, "
                 "by its header.", ReadCsvArgs, lambda a: csv_totals(app.workspace, a.path), read_only=True,
                 computes=True),
        ToolSpec("write_csv_table", "Write rows into a .csv file.", WriteCsvArgs, lambda a: write_csv(app, a),
                 effects=lambda a: write_effects(app, a)),
    ]


# -- values ------------------------------------------------------------------------------------
def csv_value(text: str) -> CsvValue:
    """A cell of a CSV file as a value: a plain number is a number, anything else stays text."""
    stripped = text.strip()
    if stripped == "":
        return None
    if _NUMBER.fullmatch(stripped):
        return float(stripped) if "." in stripped else int(stripped)
    return text


def parse_csv(text: str, name: str = "the file") -> list[list[CsvValue]]:
    """The rows of a CSV text, values converted (csv_value); the delimiter is found from the text."""
    sample = text[:20_000]
    try:
        dialect: Any = csv.Sniffer().sniff(sample, delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel_tab if "\t" in sample and "," not in sample else csv.excel
    try:
        rows = [[csv_value(cell) for cell in row] for row in csv.reader(io.StringIO(text), dialect)]
    except csv.Error as exc:
        raise ToolError(f"{name} is not a readable CSV file: {exc}") from exc
    while rows and not any(v is not None for v in rows[-1]):
        rows.pop()  # blank lines at the end
    return rows


def format_csv(rows: list[list[Any]], delimiter: str = ",") -> str:
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    for row in rows:
        writer.writerow([csv_text(v) for v in row])
    return out.getvalue()


def delimiter_for(path: Path) -> str:
    return "\t" if path.suffix.lower() == ".tsv" else ","


# -- files -------------------------------------------------------------------------------------
def csv_path(workspace: Any, path: str, *, existing: bool) -> Path:
    """The resolved path of a .csv (or .tsv) file; a ToolError for another type, or a missing file."""
    resolved = workspace.resolve(path)
    if resolved.suffix.lower() not in CSV_SUFFIXES:
        raise ToolError(f"{path!r} is not a .csv file{workspace.of_type('.csv')}")
    if existing and not resolved.is_file():
        raise workspace.missing(path, workspace.of_type(".csv"))
    return resolved


def read_rows(workspace: Any, path: str) -> list[list[CsvValue]]:
    resolved = csv_path(workspace, path, existing=True)
    if resolved.stat().st_size > MAX_BYTES:
        raise ToolError(f"{path!r} is larger than {MAX_BYTES // 1_000_000} MB: too large to read as a table")
    data = workspace.read_bytes(resolved, MAX_BYTES, path)  # a FIFO is refused, never waited on
    text = data.decode("utf-8-sig", errors="replace") if not data.startswith(b"\xff\xfe") else data.decode("utf-16")
    return parse_csv(text, repr(path))


def read_csv(workspace: Any, path: str) -> dict[str, Any]:
    rows = read_rows(workspace, path)
    width = max((len(row) for row in rows), default=0)
    done: dict[str, Any] = {"path": path, "n_rows": len(rows), "n_columns": width}
    if len(rows) * max(width, 1) > MAX_CELLS:
        keep = MAX_CELLS // max(width, 1)
        return {**done, "rows": rows[:keep], "truncated": True, LEFT_OUT: f"the rows past the first {keep}",
                "note": f"the first {keep} of {len(rows)} rows; import_csv puts the whole table into a workbook"}
    return {**done, "rows": rows}


def csv_totals(workspace: Any, path: str) -> dict[str, Any]:
    """column_totals of a sheet's table (sheet_totals.column_stats), over a CSV file's rows."""
    from podium.apps.sheet_totals import column_stats

    rows = read_rows(workspace, path)
    if not rows:
        raise ToolError(f"{path!r} holds no rows")
    top, columns = column_stats([list(row) for row in rows], "A1", path)
    if not columns:
        raise ToolError(f"{path!r} has no column of numbers under its header {rows[top]}")
    return {"path": path, "header_row": top + 1, "data_rows": f"{top + 2}-{len(rows)}", "columns": columns}


def write_csv(app: Any, args: WriteCsvArgs) -> dict[str, Any]:
    if not args.path.lower().endswith(CSV_SUFFIXES):
        raise ToolError(f"{args.path!r} is not a .csv file: rows go into another text file with write_file, its "
                        "content the table by reference (written as tab-separated lines)")
    resolved = csv_path(app.workspace, args.path, existing=False)
    text = format_csv(args.rows, delimiter_for(resolved))
    if resolved.is_file() and resolved.read_bytes() == text.encode("utf-8"):
        return {"path": args.path, "rows": len(args.rows), "unchanged": True,
                "note": "the file already holds exactly these rows: nothing written"}
    from podium.apps.files import WriteArgs

    app._write(WriteArgs(path=args.path, content=text, overwrite=args.overwrite))
    return {"path": args.path, "rows": len(args.rows), "columns": max(len(row) for row in args.rows)}


def write_effects(app: Any, args: WriteCsvArgs) -> list[Effect]:
    from podium.apps.tool_effects import effect

    try:
        resolved = csv_path(app.workspace, args.path, existing=False)
    except ToolError:
        return []
    if not resolved.exists():
        return [effect(app.workspace, args.path, Change.CREATE)]
    if not args.overwrite or (is_regular(resolved) and resolved.read_bytes() == format_csv(
            args.rows, delimiter_for(resolved)).encode()):
        return []  # refused (it exists), or nothing would change
    return [effect(app.workspace, args.path, Change.REPLACE)]
