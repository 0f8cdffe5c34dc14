"""Tables both ways between documents and spreadsheets."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import docx_view, xlsx_view
from ..task import Category, EndState, Task, require
from .make import docx_file, xlsx_file

Rows = Sequence[Sequence[Any]]


@dataclass(frozen=True)
class DocToSheet:
    """A document holding a table between paragraphs, and a workbook whose first sheet must receive it."""

    document: str
    text: tuple[str, str]  # the paragraphs before and after the table
    table: Rows
    workbook: str
    sheets: Sequence[str]  # the workbook's sheets (empty ones), the first is where the table goes

    def build(self, folder: Path) -> None:
        docx_file(folder / self.document, [self.text[0], self.table, self.text[1]])
        xlsx_file(folder / self.workbook, {name: [] for name in self.sheets})

    def check(self, end: EndState) -> str:
        workbook = xlsx_view.load(end.path(self.workbook), self.workbook)
        first = workbook.worksheets[0].title
        where = xlsx_view.find_table(workbook, self.table, sheets=[first])
        require(where, f"the first sheet of {self.workbook} ({first!r}) does not hold the document's table "
                       "(every row, in order, same columns)")
        return f"table found at {where}"


@dataclass(frozen=True)
class SheetToDoc:
    """A sheet of a workbook to append to a document as a Word table, the document's text kept."""

    workbook: str
    sheet: str
    table: Rows
    document: str
    text: Sequence[str]

    def build(self, folder: Path) -> None:
        xlsx_file(folder / self.workbook, {self.sheet: self.table})
        docx_file(folder / self.document, list(self.text))

    def check(self, end: EndState) -> str:
        document = docx_view.load(end.path(self.document), self.document)
        index = docx_view.find_table(document, self.table)
        require(index is not None, f"{self.document} has no table holding the {self.sheet} sheet "
                                   f"({len(docx_view.tables(document))} table(s) in it)")
        kept = docx_view.paragraphs(document)
        missing = [p for p in self.text if p not in kept]
        require(not missing, f"{self.document} lost its text: {missing}")
        return f"table {index} holds the sheet; the text is kept"


INVENTORY = [
    ["Product", "Price", "Stock"],
    ["Stapler", "12.5", "40"],
    ["Paper A4", "4.2", "310"],
    ["Toner", "89", "7"],
    ["Folder", "1.75", "125"],
]
INVENTORY_TASK = DocToSheet("inventory.docx", ("Stock count of 1 March.", "Counted by the night shift."), INVENTORY,
                            "inventory.xlsx", ["Sheet1"])

# The rewording: a longer table with a date column, and a workbook of two sheets (the first is the target).
STOCK_TAKE = [
    ["Shelf", "Item", "Counted", "Checked on"],
    ["A1", "Cable ties", "1200", "2024-05-02"],
    ["A2", "Screws M4", "5400", "2024-05-02"],
    ["B1", "Wall plugs", "860", "2024-05-03"],
    ["B2", "Hinges", "95", "2024-05-03"],
    ["C1", "Drill bits", "48", "2024-05-04"],
    ["C2", "Sandpaper", "310", "2024-05-04"],
]
STOCK_TAKE_TASK = DocToSheet("stock_take.docx", ("Stock take of the workshop store.", "Signed: R. Okafor."),
                             STOCK_TAKE, "stock.xlsx", ["Count", "Notes"])

PRICES = [
    ["Service", "Hours", "Rate"],
    ["Design", 12, 85],
    ["Development", 40, 95],
    ["Testing", 16, 70],
]
CATALOGUE_TEXT = ["Our services for 2024.", "Rates are in euros per hour."]
CATALOGUE_TASK = SheetToDoc("prices.xlsx", "Prices", PRICES, "catalogue.docx", ["Catalogue", *CATALOGUE_TEXT])

RATES = [
    ["Role", "Day rate", "Days"],
    ["Project lead", 900, 10],
    ["Analyst", 650, 25],
    ["Trainer", 700, 6],
    ["Support", 480, 30],
]
PROPOSAL_TASK = SheetToDoc("rates.xlsx", "Rates", RATES, "proposal.docx",
                           ["Proposal for Vega SA", "We propose a phased rollout over two months.",
                            "The costs below exclude travel."])

DOC_TO_SHEET = Task("doc_table_to_sheet", Category.TABLES,
                    "Copy the table in inventory.docx into the first sheet of inventory.xlsx.",
                    INVENTORY_TASK.build, INVENTORY_TASK.check,
                    note="the document's table, row for row, in the workbook")
SHEET_TO_DOC = Task("sheet_table_to_doc", Category.TABLES,
                    "Add the table from the Prices sheet of prices.xlsx to the end of catalogue.docx as a table.",
                    CATALOGUE_TASK.build, CATALOGUE_TASK.check,
                    note="the sheet as a Word table; the document's text kept")

TASKS = [
    DOC_TO_SHEET,
    SHEET_TO_DOC,
    DOC_TO_SHEET.reworded("doc_table_to_sheet_reworded",
                          "Please take the table out of stock_take.docx and put it in the first worksheet of "
                          "stock.xlsx.",
                          STOCK_TAKE_TASK.build, STOCK_TAKE_TASK.check,
                          note="a 7-row table with dates, row for row, in the first of two sheets"),
    SHEET_TO_DOC.reworded("sheet_table_to_doc_reworded",
                          "At the bottom of proposal.docx, insert the Rates sheet from rates.xlsx as a table.",
                          PROPOSAL_TASK.build, PROPOSAL_TASK.check,
                          note="the sheet as a Word table at the end; the proposal's three paragraphs kept"),
]
