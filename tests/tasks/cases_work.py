"""End states of the seed, table, chart and data tasks."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bench.tasks.suite import data, seed, tables

from .case import Case, bad, good, nothing
from .edit import add_chart, append_paragraph, append_table, new_document, workbook, write_cells, write_text

Make = Callable[[Path], None]


def _numbers(rows: list[list[str]]) -> list[list[object]]:
    return [rows[0]] + [[r[0], *(float(v) if "." in v else int(v) for v in r[1:])] for r in rows[1:]]


def seed_right(folder: Path) -> None:
    write_cells(folder / "budget.xlsx", "Budget", 1, 1, _numbers(seed.table()))
    add_chart(folder / "budget.xlsx", "Budget", "bar", "Quarterly report", "B1:C5", "A2:A5")


def seed_elsewhere(folder: Path) -> None:
    write_cells(folder / "budget.xlsx", "Budget", 3, 4, _numbers(seed.table()))  # at D3
    add_chart(folder / "budget.xlsx", "Budget", "bar", None, "E3:E7", "D4:D7")


def seed_elsewhere_as_text(folder: Path) -> None:
    write_cells(folder / "budget.xlsx", "Budget", 3, 4, seed.table())  # D3, numbers left as text
    add_chart(folder / "budget.xlsx", "Budget", "bar", None, "E3:E7", "D4:D7")


def seed_data_only(folder: Path) -> None:
    write_cells(folder / "budget.xlsx", "Budget", 1, 1, _numbers(seed.table()))


def seed_chart_over_nothing(folder: Path) -> None:
    write_cells(folder / "budget.xlsx", "Budget", 1, 1, _numbers(seed.table()))
    add_chart(folder / "budget.xlsx", "Budget", "bar", "Quarterly", "F1:G5", "A2:A5")


def seed_line_chart(folder: Path) -> None:
    write_cells(folder / "budget.xlsx", "Budget", 1, 1, _numbers(seed.table()))
    add_chart(folder / "budget.xlsx", "Budget", "line", "Quarterly", "B1:C5", "A2:A5")


def seed_chart_without_table(folder: Path) -> None:
    write_cells(folder / "budget.xlsx", "Budget", 1, 1, _numbers(seed.table())[:3])  # Q1 and Q2 only
    add_chart(folder / "budget.xlsx", "Budget", "bar", "Quarterly", "B1:C3", "A2:A3")


SEED = [
    good("seed_bar_chart", "table at A1 and a bar chart", seed_right),
    good("seed_bar_chart", "table at D3, untitled chart", seed_elsewhere),
    # a spreadsheet program draws a bar over text that looks like a number as nothing: an empty chart
    bad("seed_bar_chart", "table at D3 as text", seed_elsewhere_as_text, "does not plot"),
    bad("seed_bar_chart", "data without chart", seed_data_only, "no bar chart"),
    bad("seed_bar_chart", "chart over empty cells", seed_chart_over_nothing, "does not plot"),
    bad("seed_bar_chart", "line chart", seed_line_chart, "no bar chart"),
    bad("seed_bar_chart", "half the table", seed_chart_without_table, "does not hold the document's table"),
    bad("seed_bar_chart", "nothing done", nothing, "does not hold the document's table"),
]


def inventory(rows: list[list[str]], start_col: int = 1) -> Make:
    return lambda folder: write_cells(folder / "inventory.xlsx", "Sheet1", 1, start_col, rows)


def inventory_transposed(folder: Path) -> None:
    write_cells(folder / "inventory.xlsx", "Sheet1", 1, 1, [list(c) for c in zip(*tables.INVENTORY, strict=True)])


def inventory_new_sheet(folder: Path) -> None:
    wb = workbook(folder / "inventory.xlsx")
    ws = wb.create_sheet("Inventory")
    for row in tables.INVENTORY:
        ws.append(row)
    wb.save(str(folder / "inventory.xlsx"))


def catalogue_right(folder: Path) -> None:
    append_table(folder / "catalogue.docx", tables.PRICES)


def catalogue_rewritten(folder: Path) -> None:
    new_document(folder / "catalogue.docx", ["Catalogue"])
    append_table(folder / "catalogue.docx", tables.PRICES)


TABLES = [
    good("doc_table_to_sheet", "the table at A1", inventory(tables.INVENTORY)),
    good("doc_table_to_sheet", "the table at C1", inventory(tables.INVENTORY, start_col=3)),
    bad("doc_table_to_sheet", "last row missing", inventory(tables.INVENTORY[:-1]), "does not hold"),
    bad("doc_table_to_sheet", "transposed", inventory_transposed, "does not hold"),
    bad("doc_table_to_sheet", "in a new second sheet", inventory_new_sheet, "first sheet of inventory.xlsx ('Sheet1')"),
    good("sheet_table_to_doc", "table appended", catalogue_right),
    bad("sheet_table_to_doc", "a row missing", lambda f: append_table(f / "catalogue.docx", tables.PRICES[:-1]),
        "no table holding the Prices sheet"),
    bad("sheet_table_to_doc", "document rewritten", catalogue_rewritten, "lost its text"),
    bad("sheet_table_to_doc", "paragraphs instead of a table",
        lambda f: append_paragraph(f / "catalogue.docx", str(tables.PRICES)), "no table"),
]


def chart(file: str, sheet: str, kind: str, title: str | None, values: str, categories: str) -> Make:
    return lambda folder: add_chart(folder / file, sheet, kind, title, values, categories)


def bar_but_value_changed(folder: Path) -> None:
    write_cells(folder / "teams.xlsx", "Teams", 3, 2, [[10]])
    add_chart(folder / "teams.xlsx", "Teams", "bar", "Headcount by team", "B1:B5", "A2:A5")


CHARTS = [
    good("bar_chart_titled", "bar chart", chart("teams.xlsx", "Teams", "bar", "Headcount by team", "B1:B5", "A2:A5")),
    good("bar_chart_titled", "title in other case",
         chart("teams.xlsx", "Teams", "bar", "headcount  by Team", "B1:B5", "A2:A5")),
    bad("bar_chart_titled", "pie chart", chart("teams.xlsx", "Teams", "pie", "Headcount by team", "B1:B5", "A2:A5"),
        "no bar chart"),
    bad("bar_chart_titled", "no title", chart("teams.xlsx", "Teams", "bar", None, "B1:B5", "A2:A5"),
        "not titled 'Headcount by team'"),
    bad("bar_chart_titled", "a value changed", bar_but_value_changed, "data was changed"),
    good("line_chart_titled", "line chart",
         chart("traffic.xlsx", "Traffic", "line", "Visitors per month", "B1:B7", "A2:A7")),
    bad("line_chart_titled", "first rows only",
        chart("traffic.xlsx", "Traffic", "line", "Visitors per month", "B1:B4", "A2:A4"), "does not plot"),
    bad("line_chart_titled", "other title", chart("traffic.xlsx", "Traffic", "line", "Traffic", "B1:B7", "A2:A7"),
        "not titled"),
    good("pie_chart_titled", "pie chart", chart("spending.xlsx", "Spending", "pie", "Spending 2024", "B1:B5", "A2:A5")),
    bad("pie_chart_titled", "bar chart", chart("spending.xlsx", "Spending", "bar", "Spending 2024", "B1:B5", "A2:A5"),
        "no pie chart"),
    bad("pie_chart_titled", "over the categories",
        chart("spending.xlsx", "Spending", "pie", "Spending 2024", "A1:A5", "A2:A5"), "does not plot"),
]


def ranking(rows: list[list[object]], *, sort_scores_too: bool = False) -> Make:
    def make(folder: Path) -> None:
        wb = workbook(folder / "scores.xlsx")
        ws = wb.create_sheet("Ranking")
        for row in rows:
            ws.append(row)
        if sort_scores_too:
            for r, row in enumerate(rows[1:], 2):
                wb["Scores"].cell(row=r, column=1, value=row[-2])
                wb["Scores"].cell(row=r, column=2, value=row[-1])
        wb.save(str(folder / "scores.xlsx"))

    return make


BY_SCORE = [["Name", "Score"], *sorted(data.SCORES[1:], key=lambda r: r[1], reverse=True)]
BY_NAME = [["Name", "Score"], *sorted(data.SCORES[1:])]
RANKED = [["Rank", "Name", "Score"], *([i, n, s] for i, (n, s) in enumerate(BY_SCORE[1:], 1))]

def total_row(row: list[object], at: int = 7) -> Make:
    return lambda folder: write_cells(folder / "invoices.xlsx", "Invoices", at, 1, [row])


DATA = [
    good("total_row", "values", total_row(["Total", None, 6550, 1310])),
    good("total_row", "formulas, label in B", total_row([None, "TOTAL", "=SUM(C2:C6)", "=SUM(D2:D6)"])),
    bad("total_row", "totals shifted one column left", total_row(["Total", 6550, 1310]),
        "Net cell holds 1310, not 6550"),
    bad("total_row", "formula over the header and a missing row", total_row(["Total", None, "=SUM(C1:C5)", 1310]),
        "not 6550"),
    bad("total_row", "an invoice overwritten", total_row(["Total", None, 6550, 1310], at=6),
        "the table's rows were changed"),
    bad("total_row", "no label", total_row([None, None, 6550, 1310]), "no row labelled Total"),
    good("sum_column", "just the number", lambda f: write_text(f / "total.txt", "3099.84\n")),
    good("sum_column", "a sentence", lambda f: write_text(f / "total.txt", "Total: 3,099.84 EUR")),
    bad("sum_column", "rounded", lambda f: write_text(f / "total.txt", "3100"), "does not give the total"),
    bad("sum_column", "Ref column added in", lambda f: write_text(f / "total.txt", str(3099.84 + 7308)),
        "does not give the total"),
    bad("sum_column", "every number dumped", lambda f: write_text(f / "total.txt", "120.5 89.99 1500 42.1 3099.84"),
        "the total only"),
    bad("sum_column", "no file", nothing, "total.txt was not written"),
    good("sort_by_score", "name and score", ranking(BY_SCORE)),
    good("sort_by_score", "with a rank column", ranking(RANKED)),
    bad("sort_by_score", "sorted by name", ranking(BY_NAME), "not from highest to lowest"),
    bad("sort_by_score", "a student missing", ranking(BY_SCORE[:-1]), "not every one of the students once"),
    bad("sort_by_score", "scores swapped",
        ranking([BY_SCORE[0], [BY_SCORE[1][0], BY_SCORE[2][1]], [BY_SCORE[2][0], BY_SCORE[1][1]], *BY_SCORE[3:]]),
        "wrong Score values"),
    bad("sort_by_score", "source sorted in place", ranking(BY_SCORE, sort_scores_too=True), "Scores sheet was changed"),
    bad("sort_by_score", "no Ranking sheet", nothing, "no sheet 'Ranking'"),
    good("max_total_region", "East", lambda f: write_text(f / "answer.txt", "East\n")),
    good("max_total_region", "a sentence", lambda f: write_text(f / "answer.txt", "The east region (850).")),
    bad("max_total_region", "highest Q1", lambda f: write_text(f / "answer.txt", "South"), "highest total is East"),
    bad("max_total_region", "two regions", lambda f: write_text(f / "answer.txt", "East or West"), "names ['East',"),
]

CASES: list[Case] = [*SEED, *TABLES, *CHARTS, *DATA]
