"""Sums, sorts and maxima that need the data, not the layout: tables that do not start at A1, columns of
other numbers next to the right one, rows in no useful order."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import folder_view, xlsx_view
from ..task import Category, EndState, Fail, Task, require
from ..values import number, numbers_in, same, words
from .make import docx_file, xlsx_file

Rows = Sequence[Sequence[Any]]


@dataclass(frozen=True)
class ColumnSum:
    """A table under a title line, whose one column's sum goes alone into a text file (other columns hold
    numbers too: references, dates, counts)."""

    workbook: str
    sheet: str
    title: str
    table: Rows  # header first
    column: str
    answer: str  # the text file
    start_row: int = 3

    @property
    def total(self) -> float:
        index = list(self.table[0]).index(self.column)
        return round(sum(row[index] for row in self.table[1:]), 2)

    def build(self, folder: Path) -> None:
        workbook = xlsx_file(folder / self.workbook, {self.sheet: self.table}, start_row=self.start_row)
        workbook[self.sheet]["A1"] = self.title
        workbook.save(str(folder / self.workbook))

    def check(self, end: EndState) -> str:
        text = folder_view.read_text(end, self.answer)
        found = numbers_in(text)
        require(any(same(n, self.total) for n in found),
                f"{self.answer} does not give the total {self.total} (it says {text.strip()[:120]!r})")
        require(len(found) <= 3, f"{self.answer} holds {len(found)} numbers; the request asked for the total only")
        return f"{self.answer} says {text.strip()[:60]!r}"


# Ref numbers and dates are numbers too: only the Amount column adds up to the total.
EXPENSES = [
    ["Ref", "Date", "Item", "Amount"],
    [1041, "2024-03-02", "Train tickets", 120.5],
    [1042, "2024-03-05", "Printer ink", 89.99],
    [1043, "2024-03-09", "Laptop", 1500],
    [1044, "2024-03-12", "Taxi", 42.1],
    [1045, "2024-03-18", "Conference fee", 310],
    [1046, "2024-03-21", "Lunch with client", 77.25],
    [1047, "2024-03-28", "Monitor", 960],
]
EXPENSES_SUM = ColumnSum("expenses.xlsx", "March", "Expenses, March 2024", EXPENSES, "Amount", "total.txt")
EXPENSES_TOTAL = EXPENSES_SUM.total  # 3099.84

# The rewording: trip numbers and nights are numbers too; the table starts on row 2.
TRIPS = [
    ["Trip", "Destination", "Nights", "Cost"],
    [301, "Lyon", 2, 486.4],
    [302, "Porto", 3, 712.0],
    [303, "Gdansk", 1, 228.75],
    [304, "Bologna", 4, 1034.9],
    [305, "Ghent", 2, 395.5],
]
TRIPS_SUM = ColumnSum("trips.xlsx", "Trips", "Business trips, second quarter", TRIPS, "Cost", "sum.txt", start_row=2)


@dataclass(frozen=True)
class TotalRow:
    """A table that needs a row labelled Total directly under it, with the sums of some columns (values
    or formulas) in those columns' cells."""

    workbook: str
    sheet: str
    table: Rows
    columns: tuple[str, ...]  # the columns to total

    def build(self, folder: Path) -> None:
        xlsx_file(folder / self.workbook, {self.sheet: self.table})

    def check(self, end: EndState) -> str:
        workbook = xlsx_view.load(end.path(self.workbook), self.workbook)
        ws = xlsx_view.sheet(workbook, self.sheet, self.workbook)
        changed = xlsx_view.changed_cells(xlsx_view.load(end.before[self.workbook], self.workbook), workbook)
        require(not changed, f"the table's rows were changed: {changed[:3]}")
        grid = xlsx_view.rows(ws)
        below = [(r, row) for r, row in enumerate(grid[len(self.table):], len(self.table) + 1)
                 if any(words(v) == "total" for v in row)]
        require(below, f"no row labelled Total under the table of {self.workbook}")
        r, _ = below[0]
        for name in self.columns:
            column = list(self.table[0]).index(name) + 1
            wanted = sum(row[column - 1] for row in self.table[1:])
            value = xlsx_view.evaluate(workbook, ws, ws.cell(row=r, column=column).value)
            require(same(value, wanted), f"the Total row's {name} cell holds {value!r}, not {wanted}")
        return f"row {r}: Total with the sums of {' and '.join(self.columns)}"


# Invoice numbers are numbers too: a total over "every numeric column" would add them up.
INVOICES = [["Invoice", "Client", "Net", "VAT"], [2024031, "Nimbus Ltd", 1200, 240], [2024032, "Vega SA", 860, 172],
            [2024033, "Acme Corp", 2310, 462], [2024034, "Bolt & Sons", 455, 91], [2024035, "Nimbus Ltd", 1725, 345]]
INVOICES_TOTAL = TotalRow("invoices.xlsx", "Invoices", INVOICES, ("Net", "VAT"))

# The rewording: week numbers are numbers; the rate is not to be totalled; the columns are not side by side.
TIMESHEET = [["Week", "Hours", "Rate", "Consultant", "Fee"], [14, 32, 80, "Ines", 2560], [15, 38, 80, "Ines", 3040],
             [16, 29.5, 85, "Omar", 2507.5], [17, 40, 85, "Omar", 3400], [18, 12, 80, "Ines", 960],
             [19, 35, 90, "Lena", 3150]]
TIMESHEET_TOTAL = TotalRow("timesheet.xlsx", "Hours", TIMESHEET, ("Hours", "Fee"))


@dataclass(frozen=True)
class Ranking:
    """Names with a number each, to list on a new sheet ordered by that number (the source kept)."""

    workbook: str
    sheet: str
    table: Rows  # [name, number] rows, header first
    new_sheet: str
    descending: bool
    what: str  # what the rows are, for the reasons ("students", "runners")

    def build(self, folder: Path) -> None:
        xlsx_file(folder / self.workbook, {self.sheet: self.table})

    def check(self, end: EndState) -> str:
        workbook = xlsx_view.load(end.path(self.workbook), self.workbook)
        ranking = xlsx_view.sheet(workbook, self.new_sheet, self.workbook)
        value_of = {words(name): value for name, value in self.table[1:]}
        listed: list[tuple[str, list[float]]] = []
        for row in xlsx_view.rows(ranking):
            names = [words(v) for v in row if words(v) in value_of]
            if names:
                listed.append((names[0], [n for n in (number(v) for v in row) if n is not None]))
        order = [name for name, _ in listed]
        expected = [words(n) for n, _ in sorted(self.table[1:], key=lambda r: r[1], reverse=self.descending)]
        direction = "from highest to lowest" if self.descending else "from lowest to highest"
        wrong = [name for name, numbers in listed if not any(same(n, value_of[name]) for n in numbers)]
        require(not wrong, f"the {self.new_sheet} sheet gives wrong {self.table[0][1]} values for {wrong}")
        require(sorted(order) == sorted(expected), f"the {self.new_sheet} sheet lists {order}, not every one of "
                                                   f"the {self.what} once")
        require(order == expected, f"the {self.new_sheet} sheet is not {direction} {self.table[0][1]}: {order}")
        changed = xlsx_view.changed_cells(xlsx_view.load(end.before[self.workbook], self.workbook), workbook)
        require(not changed, f"the {self.sheet} sheet was changed: {changed[:3]}")
        return f"{self.new_sheet} lists all {len(order)} {self.what}, {direction} {self.table[0][1]}"


SCORES = [["Name", "Score"], ["Dana", 71], ["Ben", 88], ["Alice", 64], ["Farid", 93], ["Chloe", 79],
          ["Emil", 85], ["Greta", 58], ["Hugo", 90]]
SCORES_RANKING = Ranking("scores.xlsx", "Scores", SCORES, "Ranking", True, "students")

# The rewording sorts the other way: the fastest time (the smallest number) first.
RACE = [["Runner", "Minutes"], ["Okafor", 41.5], ["Lindqvist", 38.25], ["Moreau", 44.0], ["Tanaka", 36.75],
        ["Silva", 39.5], ["Novak", 47.25], ["Haddad", 40.0]]
RACE_RANKING = Ranking("race.xlsx", "Times", RACE, "Results", False, "runners")


@dataclass(frozen=True)
class BestOfTwo:
    """A Word table of names with two numbers each; the name with the largest sum goes alone into a text
    file (the largest first or second number alone belongs to other rows)."""

    document: str
    heading: str
    intro: str
    table: Rows  # [name, a, b] as text, header first
    answer: str

    def totals(self) -> dict[str, int]:
        return {row[0]: int(row[1]) + int(row[2]) for row in self.table[1:]}

    def build(self, folder: Path) -> None:
        docx_file(folder / self.document, [self.intro, self.table, "Figures are provisional."], heading=self.heading)

    def check(self, end: EndState) -> str:
        text = folder_view.read_text(end, self.answer)
        totals = self.totals()
        best = max(totals, key=totals.__getitem__)
        named = [r for r in totals if re.search(rf"\b{re.escape(r)}\b", text, flags=re.IGNORECASE)]
        if named != [best]:
            raise Fail(f"{self.answer} names {named or 'nothing of the table'}; the highest total is {best} "
                       f"({totals[best]})")
        return f"{self.answer} names {best}"


# The highest total is neither the highest Q1 (South) nor the highest Q2 (West), nor the first or last row.
SALES = [["Region", "Q1", "Q2"], ["North", "410", "380"], ["South", "520", "240"], ["East", "395", "455"],
         ["West", "300", "530"], ["Central", "200", "210"]]
SALES_BEST = BestOfTwo("sales.docx", "Half-year sales", "Sales per region, in thousands.", SALES, "answer.txt")

# The rewording: branches by city, halves of the year; the best (Leeds) is neither best in H1 nor in H2.
BRANCHES = [["Branch", "H1", "H2"], ["Bristol", "640", "410"], ["Leeds", "590", "585"], ["York", "720", "330"],
            ["Bath", "350", "610"], ["Hull", "505", "520"], ["Derby", "300", "280"]]
BRANCHES_BEST = BestOfTwo("branches.docx", "Branch sales 2024", "Sales per branch and half-year, in units.", BRANCHES,
                          "best.txt")

SUM_COLUMN = Task("sum_column", Category.DATA,
                  "What is the total of the Amount column in expenses.xlsx? Write just that number into total.txt.",
                  EXPENSES_SUM.build, EXPENSES_SUM.check,
                  note="the Amount column's sum (not Ref or the dates) in a new text file; the table starts at row 3")
TOTAL_ROW = Task("total_row", Category.DATA,
                 "In invoices.xlsx, add a row labelled Total directly under the invoices, with the totals of the Net "
                 "and VAT columns.",
                 INVOICES_TOTAL.build, INVOICES_TOTAL.check,
                 note="a Total row with the Net and VAT sums (values or formulas) in their own columns; invoices kept")
SORT = Task("sort_by_score", Category.DATA,
            "In scores.xlsx, add a sheet named Ranking that lists the students with their scores, from the highest "
            "score to the lowest.",
            SCORES_RANKING.build, SCORES_RANKING.check,
            note="a new sheet with every student in descending score order; source kept")
BEST = Task("max_total_region", Category.DATA,
            "Which region had the highest total sales over both quarters in the table of sales.docx? Write only the "
            "region's name into answer.txt.",
            SALES_BEST.build, SALES_BEST.check,
            note="the region with the largest Q1+Q2 (not the largest Q1 or Q2 alone), read from a Word table")

TASKS = [
    SUM_COLUMN, TOTAL_ROW, SORT, BEST,
    SUM_COLUMN.reworded("sum_column_reworded",
                        "Add up the Cost column of trips.xlsx and put only the result in sum.txt.",
                        TRIPS_SUM.build, TRIPS_SUM.check,
                        note="the Cost column's sum (not the trip numbers or nights) alone in sum.txt; table on row 2"),
    TOTAL_ROW.reworded("total_row_reworded",
                       "Could you put a Total line right below the last week in timesheet.xlsx, summing the Hours "
                       "and the Fee?",
                       TIMESHEET_TOTAL.build, TIMESHEET_TOTAL.check,
                       note="a Total row with the Hours and Fee sums (not Week or Rate); the weeks kept"),
    SORT.reworded("sort_by_score_reworded",
                  "Rank the runners in race.xlsx by their time, fastest first, on a new sheet called Results.",
                  RACE_RANKING.build, RACE_RANKING.check,
                  note="a new sheet with every runner in ascending time order; the Times sheet kept"),
    BEST.reworded("max_total_region_reworded",
                  "Looking at the table in branches.docx, which branch sold the most in H1 and H2 together? Just "
                  "its name in best.txt, please.",
                  BRANCHES_BEST.build, BRANCHES_BEST.check,
                  note="the branch with the largest H1+H2 (not the best H1 or H2 alone), read from a Word table"),
]
