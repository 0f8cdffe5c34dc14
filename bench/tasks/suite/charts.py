"""Native charts of each kind (bar, line, pie), each with the title the request gives; and a chart of only
some of a table's columns."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import xlsx_view
from ..task import Category, Checker, EndState, Fail, Family, Task, require
from ..values import title_matches
from .make import xlsx_file

TEAMS = [["Team", "Headcount"], ["Sales", 14], ["Support", 9], ["Engineering", 23], ["Finance", 5]]
VISITORS = [["Month", "Visitors"], ["Jan", 1830], ["Feb", 2110], ["Mar", 1975], ["Apr", 2460], ["May", 2890],
            ["Jun", 3120]]
SPENDING = [["Category", "Amount"], ["Rent", 12000], ["Salaries", 54000], ["Software", 6500], ["Travel", 4200]]

# The rewordings' data: another table of each shape, and in the line chart's a second numeric column.
TICKETS = [["Agent", "Tickets"], ["Ines", 41], ["Omar", 37], ["Lena", 52], ["Farid", 29], ["Chloe", 45]]
TEMPERATURES = [["Day", "Max °C", "Min °C"], ["Mon", 21.5, 12.0], ["Tue", 23.0, 13.5], ["Wed", 19.5, 11.0],
                ["Thu", 18.0, 9.5], ["Fri", 22.5, 12.5], ["Sat", 25.0, 15.0], ["Sun", 24.0, 14.5]]
BROWSERS = [["Browser", "Share"], ["Chrome", 64.7], ["Safari", 18.6], ["Edge", 5.2], ["Firefox", 2.8],
            ["Other", 8.7]]


def _chart_check(kind: str, file: str, data: Sequence[Sequence[Any]], title: str, column: int = 1) -> Checker:
    values = [row[column] for row in data[1:]]

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
            raise Fail(f"the {kind} chart titled {title!r} does not plot the {data[0][column]} values")
        return f"{kind} chart {title!r} over the {data[0][column]} values"

    return check


def _chart_task(name: str, kind: str, file: str, sheet: str, data: Sequence[Sequence[Any]], title: str,
                request: str, column: int = 1) -> Task:
    return Task(name, Category.CHARTS, request, lambda folder: xlsx_file(folder / file, {sheet: data}),
                _chart_check(kind, file, data, title, column),
                note=f"a native {kind} chart titled {title!r} over the {data[0][column]} cells; data unchanged")


def _rewording(original: Task, kind: str, file: str, sheet: str, data: Sequence[Sequence[Any]], title: str,
               request: str, column: int = 1) -> Task:
    task = _chart_task(f"{original.name}_reworded", kind, file, sheet, data, title, request, column)
    return original.reworded(task.name, request, task.build, task.check, note=task.note)


BAR = _chart_task("bar_chart_titled", "bar", "teams.xlsx", "Teams", TEAMS, "Headcount by team",
                  "Create a bar chart of the headcount per team in teams.xlsx, titled 'Headcount by team'.")
LINE = _chart_task("line_chart_titled", "line", "traffic.xlsx", "Traffic", VISITORS, "Visitors per month",
                   "Add a line chart of the monthly visitors in traffic.xlsx with the title 'Visitors per month'.")
PIE = _chart_task("pie_chart_titled", "pie", "spending.xlsx", "Spending", SPENDING, "Spending 2024",
                  "Make a pie chart of the spending by category in spending.xlsx and title it 'Spending 2024'.")


# -- a chart of only some columns ------------------------------------------------------------------

REGIONS = [["Quarter", "North", "South", "East", "West"], ["Q1", 410, 520, 395, 300], ["Q2", 380, 240, 455, 530],
           ["Q3", 450, 310, 470, 515], ["Q4", 495, 360, 430, 560]]
CHARTED, LEFT_OUT = ("North", "West"), ("South", "East")


def build_regions(folder: Path) -> None:
    xlsx_file(folder / "regions.xlsx", {"Sales": REGIONS})


def check_some_columns(end: EndState) -> str:
    path = end.path("regions.xlsx")
    workbook = xlsx_view.load(path, "regions.xlsx")
    changed = xlsx_view.changed_cells(xlsx_view.load(end.before["regions.xlsx"], "regions.xlsx"), workbook)
    require(not changed, f"the data was changed: {changed[:3]}")
    column = {name: [row[REGIONS[0].index(name)] for row in REGIONS[1:]] for name in (*CHARTED, *LEFT_OUT)}
    lines = [c for c in xlsx_view.charts(path, "regions.xlsx") if "line" in c.kinds]
    require(lines, "regions.xlsx has no line chart")
    for chart in lines:
        plotted = [n for n in CHARTED if xlsx_view.chart_over(workbook, chart, column[n])]
        extra = [n for n in LEFT_OUT if xlsx_view.chart_over(workbook, chart, column[n])]
        if len(plotted) == len(CHARTED) and not extra and len(chart.series) == len(CHARTED):
            return f"{chart.describe()} plots North and West only"
    seen = [(c.describe(), [n for n in column if xlsx_view.chart_over(workbook, c, column[n])]) for c in lines]
    raise Fail(f"no line chart plots exactly the North and West columns (charts and the columns they plot: {seen})")


TASKS = [
    BAR, LINE, PIE,
    _rewording(BAR, "bar", "support.xlsx", "Tickets", TICKETS, "Tickets per agent",
               "Bar chart of tickets per agent from support.xlsx. Title: Tickets per agent."),
    _rewording(LINE, "line", "weather.xlsx", "Week", TEMPERATURES, "Highest temperature",
               "Please plot the daily maximum temperatures in weather.xlsx as a line chart called "
               "'Highest temperature'."),
    _rewording(PIE, "pie", "browsers.xlsx", "Share", BROWSERS, "Market share",
               "I'd like a pie chart titled 'Market share' showing each browser's share in browsers.xlsx."),
    Task("chart_some_columns", Category.CHARTS,
         "Make a line chart in regions.xlsx that shows only the North and West columns.",
         build_regions, check_some_columns, family=Family.NEW,
         note="one line chart whose two series plot North and West, not South or East; data unchanged"),
]
