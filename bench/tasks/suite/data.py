"""Sums, sorts and maxima that need the data, not the layout: tables that do not start at A1, columns of
other numbers next to the right one, rows in no useful order."""

from __future__ import annotations

import re
from pathlib import Path

from .. import folder_view, xlsx_view
from ..task import Category, EndState, Fail, Task, require
from ..values import number, numbers_in, same, words
from .make import docx_file, xlsx_file

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
EXPENSES_TOTAL = round(sum(row[3] for row in EXPENSES[1:]), 2)  # 3099.84

SCORES = [["Name", "Score"], ["Dana", 71], ["Ben", 88], ["Alice", 64], ["Farid", 93], ["Chloe", 79],
          ["Emil", 85], ["Greta", 58], ["Hugo", 90]]

# The highest total is neither the highest Q1 (South) nor the highest Q2 (West), nor the first or last row.
SALES = [["Region", "Q1", "Q2"], ["North", "410", "380"], ["South", "520", "240"], ["East", "395", "455"],
         ["West", "300", "530"], ["Central", "200", "210"]]


def build_expenses(folder: Path) -> None:
    workbook = xlsx_file(folder / "expenses.xlsx", {"March": EXPENSES}, start_row=3)
    workbook["March"]["A1"] = "Expenses, March 2024"
    workbook.save(str(folder / "expenses.xlsx"))


def check_expenses(end: EndState) -> str:
    text = folder_view.read_text(end, "total.txt")
    found = numbers_in(text)
    require(any(same(n, EXPENSES_TOTAL) for n in found),
            f"total.txt does not give the total {EXPENSES_TOTAL} (it says {text.strip()[:120]!r})")
    require(len(found) <= 3, f"total.txt holds {len(found)} numbers; the request asked for the total only")
    return f"total.txt says {text.strip()[:60]!r}"


def build_scores(folder: Path) -> None:
    xlsx_file(folder / "scores.xlsx", {"Scores": SCORES})


def check_scores(end: EndState) -> str:
    workbook = xlsx_view.load(end.path("scores.xlsx"), "scores.xlsx")
    ranking = xlsx_view.sheet(workbook, "Ranking", "scores.xlsx")
    score_of = {words(name): score for name, score in SCORES[1:]}
    listed: list[tuple[str, list[float]]] = []
    for row in xlsx_view.rows(ranking):
        names = [words(v) for v in row if words(v) in score_of]
        if names:
            listed.append((names[0], [n for n in (number(v) for v in row) if n is not None]))
    order = [name for name, _ in listed]
    expected = [words(n) for n, _ in sorted(SCORES[1:], key=lambda r: r[1], reverse=True)]
    wrong = [name for name, numbers in listed if not any(same(n, score_of[name]) for n in numbers)]
    require(not wrong, f"the Ranking sheet gives wrong scores for {wrong}")
    require(sorted(order) == sorted(expected), f"the Ranking sheet lists {order}, not every student once")
    require(order == expected, f"the Ranking sheet is not from highest to lowest score: {order}")
    changed = xlsx_view.changed_cells(xlsx_view.load(end.before["scores.xlsx"], "scores.xlsx"), workbook)
    require(not changed, f"the Scores sheet was changed: {changed[:3]}")
    return f"Ranking lists all {len(order)} students, highest first"


# Invoice numbers are numbers too: a total over "every numeric column" would add them up.
INVOICES = [["Invoice", "Client", "Net", "VAT"], [2024031, "Nimbus Ltd", 1200, 240], [2024032, "Vega SA", 860, 172],
            [2024033, "Acme Corp", 2310, 462], [2024034, "Bolt & Sons", 455, 91], [2024035, "Nimbus Ltd", 1725, 345]]


def build_invoices(folder: Path) -> None:
    xlsx_file(folder / "invoices.xlsx", {"Invoices": INVOICES})


def check_invoices(end: EndState) -> str:
    workbook = xlsx_view.load(end.path("invoices.xlsx"), "invoices.xlsx")
    ws = xlsx_view.sheet(workbook, "Invoices", "invoices.xlsx")
    changed = xlsx_view.changed_cells(xlsx_view.load(end.before["invoices.xlsx"], "invoices.xlsx"), workbook)
    require(not changed, f"the invoices were changed: {changed[:3]}")
    grid = xlsx_view.rows(ws)
    below = [(r, row) for r, row in enumerate(grid[len(INVOICES):], len(INVOICES) + 1)
             if any(words(v) == "total" for v in row)]
    require(below, "no row labelled Total under the invoices")
    r, _ = below[0]
    for column, name in ((3, "Net"), (4, "VAT")):
        wanted = sum(row[column - 1] for row in INVOICES[1:])
        value = xlsx_view.evaluate(workbook, ws, ws.cell(row=r, column=column).value)
        require(same(value, wanted), f"the Total row's {name} cell holds {value!r}, not {wanted}")
    return f"row {r}: Total with Net and VAT sums"


def build_sales(folder: Path) -> None:
    docx_file(folder / "sales.docx", ["Sales per region, in thousands.", SALES, "Figures are provisional."],
              heading="Half-year sales")


def check_sales(end: EndState) -> str:
    text = folder_view.read_text(end, "answer.txt")
    totals = {row[0]: int(row[1]) + int(row[2]) for row in SALES[1:]}
    best = max(totals, key=totals.__getitem__)
    named = [r for r in totals if re.search(rf"\b{r}\b", text, flags=re.IGNORECASE)]
    if named != [best]:
        raise Fail(f"answer.txt names {named or 'no region'}; the highest total is {best} ({totals[best]})")
    return f"answer.txt names {best}"


TASKS = [
    Task("sum_column", Category.DATA,
         "What is the total of the Amount column in expenses.xlsx? Write just that number into total.txt.",
         build_expenses, check_expenses,
         note="the Amount column's sum (not Ref or the dates) in a new text file; the table starts at row 3"),
    Task("total_row", Category.DATA,
         "In invoices.xlsx, add a row labelled Total directly under the invoices, with the totals of the Net and "
         "VAT columns.",
         build_invoices, check_invoices,
         note="a Total row with the Net and VAT sums (values or formulas) in their own columns; invoices kept"),
    Task("sort_by_score", Category.DATA,
         "In scores.xlsx, add a sheet named Ranking that lists the students with their scores, from the highest "
         "score to the lowest.",
         build_scores, check_scores, note="a new sheet with every student in descending score order; source kept"),
    Task("max_total_region", Category.DATA,
         "Which region had the highest total sales over both quarters in the table of sales.docx? Write only the "
         "region's name into answer.txt.",
         build_sales, check_sales,
         note="the region with the largest Q1+Q2 (not the largest Q1 or Q2 alone), read from a Word table"),
]
