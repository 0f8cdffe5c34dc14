"""The seed's example: extract the table from report.docx and chart it in budget.xlsx."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from .. import xlsx_view
from ..task import Category, EndState, Fail, Task, require

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


def check(end: EndState) -> str:
    path = end.path("budget.xlsx")
    workbook = xlsx_view.load(path, "budget.xlsx")
    rows = table()
    where = xlsx_view.find_table(workbook, rows)
    require(where, f"budget.xlsx does not hold the report's table ({len(rows)} rows, header {rows[0]})")
    charts = xlsx_view.charts(path, "budget.xlsx")
    bars = [c for c in charts if "bar" in c.kinds]
    require(bars, f"budget.xlsx has no bar chart ({[c.describe() for c in charts] or 'no charts'})")
    columns = [[row[i] for row in rows[1:]] for i in range(1, len(rows[0]))]
    for chart in bars:
        if any(xlsx_view.chart_over(workbook, chart, column) for column in columns):
            return f"table at {where}; {chart.describe()} plots the table's numbers"
    raise Fail("the bar chart does not plot the table's numbers (its ranges point elsewhere or at empty cells)")


TASKS = [
    Task("seed_bar_chart", Category.SEED,
         "Extract the table from report.docx and create a bar chart of it in budget.xlsx",
         build, check, note="the table's rows in budget.xlsx and a native bar chart over its numbers"),
]
