"""The spreadsheets tools' arguments: each model is both the JSON schema a model is shown and the
validator of what it sends back (see tooling), so the descriptions here are prompt text: short."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, WithJsonSchema

from podium.apps.sheet_cells import CellValue
from podium.apps.tooling import PARTED, Args, active_part, file_path

# Numeric-looking text is written as a number, and text that must stay text starts with an apostrophe,
# as in a spreadsheet program. (A flag for it was set at random by a small model that fills in every
# argument, and a chart over numbers written as text is empty.) Text starting with "=" is data, written as
# text: formulas are the work of the tools that make them (add_totals_row).
_VALUES = "a leading ' keeps numeric-looking text as text; '=...' is written as text, not a formula"

# Cells and ranges are patterned in the schema, so that a local model's grammar admits an address only
# (and artifacts.wants offers no data by reference there: an address is written, not passed). No '$':
# llama.cpp's grammar parser refuses the escape json_schema_to_gbnf writes for it; the tools accept it.
# Capital letters only (the tools accept both): with small letters, words such as 'ref1' were addresses.
_CELL = r"[A-Z]{1,3}[0-9]{1,7}"
Cell = Annotated[str, WithJsonSchema({"type": "string", "pattern": f"^{_CELL}$"})]
_AREA = f"{_CELL}(:{_CELL})?"
# The sheet's name, where the subtask's workbooks are not known; where they are, only theirs (PARTED).
_RANGE = f"^([A-Za-z0-9 _'.-]{{1,40}}!)?{_AREA}$"
Range = Annotated[str, WithJsonSchema({"type": "string", "pattern": _RANGE, PARTED: _AREA})]


class PathArgs(Args):
    path: str = file_path(".xlsx file, relative to the workspace root", ".xlsx")


class ReadArgs(PathArgs):
    sheet: str | None = active_part("sheet name; the active sheet when omitted")
    range: Range | None = Field(None, description="e.g. 'A1:C10'; the whole used area when omitted")
    cached_values: bool = Field(False, description="formula results as last saved by a spreadsheet program")


class CreateArgs(PathArgs):
    sheets: list[str] = Field(default_factory=lambda: ["Sheet1"], min_length=1)
    overwrite: bool = Field(False, description="replace an existing file (needs approval)")


class SheetArgs(PathArgs):
    name: str


class WriteArgs(PathArgs):
    sheet: str | None = active_part("sheet name; the active sheet when omitted")
    start: Cell = Field("A1", description="top-left cell of the rows, e.g. 'B2'")
    rows: list[list[CellValue]] = Field(min_length=1, description=f"rows of values; {_VALUES}")


class CellArgs(PathArgs):
    sheet: str | None = active_part("sheet name; the active sheet when omitted")
    cell: Cell = Field(description="the cell, e.g. 'B2'")
    value: CellValue = Field(description=f"the value; {_VALUES}")


class AppendArgs(PathArgs):
    sheet: str | None = active_part("sheet name; the active sheet when omitted")
    rows: list[list[CellValue]] = Field(min_length=1, description=f"rows of values, in the table's column order; "
                                                                  f"{_VALUES}")


class ChartArgs(PathArgs):
    sheet: str | None = Field(None, description="sheet to put the chart on; the data's sheet when omitted")
    kind: Literal["bar", "column", "horizontal_bar", "line", "pie"] = Field(
        description="bar/column: vertical bars; horizontal_bar; line; pie (first series only)"
    )
    data: Range = Field(description="the table, e.g. 'A1:C5' or 'Data!A1:C5': header row, categories in column 1")
    title: str
    columns: list[str] = Field(default_factory=list, description="only these columns of the data as series (headers "
                                                                 "or letters); every column when empty")
    header_row: bool = Field(True, description="the first row holds the series names")
    categories_in_first_column: bool = True
    anchor: Cell | None = Field(None, description="top-left cell of the chart; right of the data when omitted")
    x_title: str | None = None
    y_title: str | None = None
