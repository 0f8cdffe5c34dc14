"""How a workbook looks and is organised: a bold header row, a number format, a sheet's name. The values
must stay what they were (numbers stay numbers: text that looks like "12.50" is not a formatted number)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from .. import folder_view, xlsx_view
from ..task import Category, EndState, Family, Task, require
from ..values import same_row
from .make import xlsx_file


def _unchanged(end: EndState, file: str) -> Any:
    workbook = xlsx_view.load(end.path(file), file)
    changed = xlsx_view.changed_cells(xlsx_view.load(end.before[file], file), workbook)
    require(not changed, f"{file}: values changed: {changed[:3]}")
    return workbook


# -- bold header row ----------------------------------------------------------------------------------

STAFF = [["Name", "Department", "Started", "Grade"], ["Ines Duarte", "Finance", "2019-04-01", "B2"],
         ["Omar Haddad", "Sales", "2021-09-13", "A1"], ["Lena Berg", "Support", "2020-01-06", "B1"],
         ["Farid Amini", "Engineering", "2018-11-19", "C1"]]


def build_staff(folder: Path) -> None:
    xlsx_file(folder / "staff.xlsx", {"Staff": STAFF})


def check_bold(end: EndState) -> str:
    workbook = _unchanged(end, "staff.xlsx")
    ws = xlsx_view.sheet(workbook, "Staff", "staff.xlsx")
    plain = [c.coordinate for c in ws[1] if c.value is not None and not c.font.b]
    require(not plain, f"header cells not bold: {plain}")
    bold = [c.coordinate for row in ws.iter_rows(min_row=2) for c in row if c.value is not None and c.font.b]
    require(not bold, f"data cells made bold too: {bold[:4]} (only the header row was asked)")
    return "the header row is bold, the data rows are not"


# -- a number format --------------------------------------------------------------------------------

PRODUCTS = [["Code", "Product", "Price", "Stock"], ["P-100", "Stapler", 12.5, 40], ["P-101", "Paper A4", 4.2, 310],
            ["P-102", "Toner", 89, 7], ["P-103", "Folder", 1.75, 125], ["P-104", "Desk lamp", 24.999, 18]]
PRICE = PRODUCTS[0].index("Price") + 1
# The first section of a format, outside quotes and brackets, ends its number with exactly two decimals:
# 0.00, #,##0.00, "€"#,##0.00, [$€-1809]#,##0.00;[Red]-#,##0.00, 0.00" EUR".
_TWO_DECIMALS = re.compile(r"[0#?,]*0\.00(?![0#?])")


def _number_part(number_format: str) -> str:
    first = number_format.split(";", 1)[0]
    return re.sub(r'"[^"]*"|\[[^\]]*\]|\\.', "", first)


def build_products(folder: Path) -> None:
    xlsx_file(folder / "products.xlsx", {"Products": PRODUCTS})


def check_format(end: EndState) -> str:
    workbook = xlsx_view.load(end.path("products.xlsx"), "products.xlsx")
    ws = xlsx_view.sheet(workbook, "Products", "products.xlsx")
    for r, row in enumerate(PRODUCTS[1:], 2):
        cell = ws.cell(row=r, column=PRICE)
        require(isinstance(cell.value, int | float) and not isinstance(cell.value, bool),
                f"the price of {row[1]} is {cell.value!r}, no longer a number")
        require(cell.value == row[PRICE - 1], f"the price of {row[1]} became {cell.value!r} (was {row[PRICE - 1]}): "
                                              "a format shows decimals, it does not round the value")
        require(_TWO_DECIMALS.search(_number_part(cell.number_format)),
                f"the price of {row[1]} ({cell.coordinate}) has the format {cell.number_format!r}, not two decimals")
    _unchanged(end, "products.xlsx")
    return f"the {len(PRODUCTS) - 1} prices show two decimals; the values are unchanged"


# -- rename a sheet ------------------------------------------------------------------------------------

FORECAST = {"Sheet1": [["Month", "Units"], ["Jul", 320], ["Aug", 290], ["Sep", 410]],
            "Assumptions": [["Growth", 0.04], ["Source", "sales plan 2024"]]}


def build_forecast(folder: Path) -> None:
    xlsx_file(folder / "forecast.xlsx", FORECAST)


def check_renamed(end: EndState) -> str:
    workbook = xlsx_view.load(end.path("forecast.xlsx"), "forecast.xlsx")
    names = workbook.sheetnames
    require("sheet1" not in {n.casefold() for n in names}, f"forecast.xlsx still has a sheet named Sheet1: {names}")
    ws = xlsx_view.sheet(workbook, "Forecast", "forecast.xlsx")
    grid, wanted = xlsx_view.rows(ws), FORECAST["Sheet1"]
    require(len(grid) == len(wanted) and all(same_row(g, list(w)) for g, w in zip(grid, wanted, strict=True)),
            "the Forecast sheet does not hold what Sheet1 held")
    require(len(names) == len(FORECAST), f"forecast.xlsx has {len(names)} sheets, not {len(FORECAST)}: {names}")
    changed = xlsx_view.changed_cells(xlsx_view.load(end.before["forecast.xlsx"], "forecast.xlsx"), workbook,
                                      ignore_sheets=["Sheet1"])
    require(not changed, f"forecast.xlsx: other sheets changed: {changed[:3]}")
    folder_view.require_untouched(end, [n for n in end.before if n != "forecast.xlsx"])
    return "Sheet1 is now Forecast with its data; Assumptions kept"


TASKS = [
    Task("bold_header_row", Category.FORMAT,
         "Make the header row in staff.xlsx bold.",
         build_staff, check_bold, family=Family.NEW,
         approves=True,
         note="every header cell bold, no data cell bold; values unchanged"),
    Task("number_format_two_decimals", Category.FORMAT,
         "Show the prices in products.xlsx with two decimal places.",
         build_products, check_format, family=Family.NEW,
         approves=True,
         note="a two-decimal number format on every price (any currency or thousands separator); values unrounded"),
    Task("rename_sheet", Category.FORMAT,
         "In forecast.xlsx, the sheet called Sheet1 should be named Forecast.",
         build_forecast, check_renamed, family=Family.NEW,
         approves=True,
         note="Sheet1 renamed Forecast with its cells; no sheet added or lost; Assumptions kept"),
]
