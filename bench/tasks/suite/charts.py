"""Native charts of each kind (bar, line, pie), each with the title the request gives."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import xlsx_view
from ..task import Category, EndState, Fail, Task, require
from ..values import title_matches
from .make import xlsx_file

TEAMS = [["Team", "Headcount"], ["Sales", 14], ["Support", 9], ["Engineering", 23], ["Finance", 5]]
VISITORS = [["Month", "Visitors"], ["Jan", 1830], ["Feb", 2110], ["Mar", 1975], ["Apr", 2460], ["May", 2890],
            ["Jun", 3120]]
SPENDING = [["Category", "Amount"], ["Rent", 12000], ["Salaries", 54000], ["Software", 6500], ["Travel", 4200]]


def _chart_task(name: str, kind: str, file: str, sheet: str, data: Sequence[Sequence[Any]], title: str,
                request: str) -> Task:
    values = [row[1] for row in data[1:]]

    def build(folder: Path) -> None:
        xlsx_file(folder / file, {sheet: data})

    def check(end: EndState) -> str:
        path = end.path(file)
        workbook = xlsx_view.load(path, file)
        changed = xlsx_view.changed_cells(xlsx_view.load(end.before[file], file), workbook)
        require(not changed, f"the data was changed: {changed[:3]}")
        charts = xlsx_view.charts(path, file)
        of_kind = [c for c in charts if kind in c.kinds]
        require(of_kind, f"{file} has no {kind} chart ({[c.describe() for c in charts] or 'no charts'})")
        titled = [c for c in of_kind if title_matches(c.title, title)]
        require(titled, f"the {kind} chart is not titled {title!r} (titles: {[c.title for c in of_kind]})")
        if not any(xlsx_view.chart_over(workbook, c, values) for c in titled):
            raise Fail(f"the {kind} chart titled {title!r} does not plot the {data[0][1]} values")
        return f"{kind} chart {title!r} over the {data[0][1]} values"

    return Task(name, Category.CHARTS, request, build, check,
                note=f"a native {kind} chart titled {title!r} over the right cells; data unchanged")



TASKS = [
    _chart_task("bar_chart_titled", "bar", "teams.xlsx", "Teams", TEAMS, "Headcount by team",
                "Create a bar chart of the headcount per team in teams.xlsx, titled 'Headcount by team'."),
    _chart_task("line_chart_titled", "line", "traffic.xlsx", "Traffic", VISITORS, "Visitors per month",
                "Add a line chart of the monthly visitors in traffic.xlsx with the title 'Visitors per month'."),
    _chart_task("pie_chart_titled", "pie", "spending.xlsx", "Spending", SPENDING, "Spending 2024",
                "Make a pie chart of the spending by category in spending.xlsx and title it 'Spending 2024'."),
]
