"""Tables both ways between documents and spreadsheets."""

from __future__ import annotations

from pathlib import Path

from .. import docx_view, xlsx_view
from ..task import Category, EndState, Task, require
from .make import docx_file, xlsx_file

INVENTORY = [
    ["Product", "Price", "Stock"],
    ["Stapler", "12.5", "40"],
    ["Paper A4", "4.2", "310"],
    ["Toner", "89", "7"],
    ["Folder", "1.75", "125"],
]

PRICES = [
    ["Service", "Hours", "Rate"],
    ["Design", 12, 85],
    ["Development", 40, 95],
    ["Testing", 16, 70],
]
CATALOGUE_TEXT = ["Our services for 2024.", "Rates are in euros per hour."]


def build_inventory(folder: Path) -> None:
    docx_file(folder / "inventory.docx", ["Stock count of 1 March.", INVENTORY, "Counted by the night shift."])
    xlsx_file(folder / "inventory.xlsx", {"Sheet1": []})


def check_inventory(end: EndState) -> str:
    workbook = xlsx_view.load(end.path("inventory.xlsx"), "inventory.xlsx")
    first = workbook.worksheets[0].title
    where = xlsx_view.find_table(workbook, INVENTORY, sheets=[first])
    require(where, f"the first sheet of inventory.xlsx ({first!r}) does not hold the document's table "
                   "(every row, in order, same columns)")
    return f"table found at {where}"


def build_catalogue(folder: Path) -> None:
    xlsx_file(folder / "prices.xlsx", {"Prices": PRICES})
    docx_file(folder / "catalogue.docx", ["Catalogue", *CATALOGUE_TEXT])


def check_catalogue(end: EndState) -> str:
    document = docx_view.load(end.path("catalogue.docx"), "catalogue.docx")
    index = docx_view.find_table(document, PRICES)
    require(index is not None, "catalogue.docx has no table holding the Prices sheet "
                               f"({len(docx_view.tables(document))} table(s) in it)")
    kept = docx_view.paragraphs(document)
    missing = [p for p in CATALOGUE_TEXT if p not in kept]
    require(not missing, f"catalogue.docx lost its text: {missing}")
    return f"table {index} holds the sheet; the text is kept"


TASKS = [
    Task("doc_table_to_sheet", Category.TABLES,
         "Copy the table in inventory.docx into the first sheet of inventory.xlsx.",
         build_inventory, check_inventory, note="the document's table, row for row, in the workbook"),
    Task("sheet_table_to_doc", Category.TABLES,
         "Add the table from the Prices sheet of prices.xlsx to the end of catalogue.docx as a table.",
         build_catalogue, check_catalogue, note="the sheet as a Word table; the document's text kept"),
]
