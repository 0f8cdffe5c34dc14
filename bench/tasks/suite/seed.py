"""The seed's example: extract the table from report.docx and chart it in budget.xlsx; and the same work
asked in other words, on another document's table, into a workbook the run must create."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .. import xlsx_view
from ..task import Category, EndState, Fail, Task, require
from .make import docx_file

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "quarterly" / "make_files.py"


def _example() -> Any:
    spec = importlib.util.spec_from_file_location("quarterly_make_files", EXAMPLE)
    if spec is None or spec.loader is None:
        raise FileNotFoundError(f"the seed example's script is missing: {EXAMPLE}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build(folder: Path) -> None:
    _example().make_files(folder)


def table() -> list[list[str]]:
    return [list(row) for row in _example().TABLE]


def table_and_bars(workbook_file: str, rows_of: Callable[[], Sequence[Sequence[str]]]) -> Callable[[EndState], str]:
    """The document's table (`rows_of()`, header first) somewhere in the workbook, and a native bar chart
    that plots one of its numeric columns."""

    def check(end: EndState) -> str:
        path = end.path(workbook_file)
        workbook = xlsx_view.load(path, workbook_file)
        rows = [list(r) for r in rows_of()]
        where = xlsx_view.find_table(workbook, rows)
        require(where, f"{workbook_file} does not hold the document's table ({len(rows)} rows, header {rows[0]})")
        charts = xlsx_view.charts(path, workbook_file)
        bars = [c for c in charts if "bar" in c.kinds]
        require(bars, f"{workbook_file} has no bar chart ({[c.describe() for c in charts] or 'no charts'})")
        columns = [[row[i] for row in rows[1:]] for i in range(1, len(rows[0]))]
        for chart in bars:
            if any(xlsx_view.chart_over(workbook, chart, column) for column in columns):
                return f"table at {where}; {chart.describe()} plots the table's numbers"
        raise Fail("the bar chart does not plot the table's numbers (its ranges point elsewhere or at empty cells)")

    return check


check = table_and_bars("budget.xlsx", table)

# The rewording: another table (five months, two channels) and a workbook that does not exist yet.
SALES_SUMMARY = [["Month", "Online", "Store"], ["Jan", "340", "510"], ["Feb", "385", "470"], ["Mar", "410", "495"],
                 ["Apr", "460", "530"], ["May", "505", "560"]]


def build_sales_summary(folder: Path) -> None:
    docx_file(folder / "sales_summary.docx", ["Units sold per month and channel.", SALES_SUMMARY,
                                              "Store sales include the two pop-up shops."], heading="Sales summary")


SEED = Task("seed_bar_chart", Category.SEED,
            "Extract the table from report.docx and create a bar chart of it in budget.xlsx",
            build, check, note="the table's rows in budget.xlsx and a native bar chart over its numbers")

TASKS = [
    SEED,
    SEED.reworded("seed_bar_chart_reworded",
                  "Could you chart the figures of the table in sales_summary.docx as bars in a new workbook named "
                  "figures.xlsx?",
                  build_sales_summary, table_and_bars("figures.xlsx", lambda: SALES_SUMMARY),
                  note="a new figures.xlsx holding the document's table and a native bar chart over its numbers"),
]
