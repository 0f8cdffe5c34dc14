"""Tables put together and taken apart: two workbooks' tables merged into one, a table split into sheets
by a column's value, a CSV file made a workbook. A table is found by its header wherever it stands, and
its columns may carry others beside them; rows are compared as a person reads them."""

from __future__ import annotations

import re
from pathlib import Path

from .. import folder_view, xlsx_view
from ..task import Category, EndState, Fail, Family, Task, require
from .injection import csv_text
from .make import text_file, xlsx_file

# -- merge ------------------------------------------------------------------------------------------

HEADER = ["Customer", "City", "Since"]
NORTH = [HEADER, ["Nimbus Ltd", "Leeds", 2019], ["Bolt & Sons", "Hull", 2021], ["Orbit Foods", "York", 2017],
         ["Kestrel Print", "Durham", 2022]]
SOUTH = [HEADER, ["Vega SA", "Brighton", 2020], ["Acme Corp", "Bristol", 2015], ["Harbour Tools", "Plymouth", 2023]]


def build_merge(folder: Path) -> None:
    xlsx_file(folder / "north.xlsx", {"Customers": NORTH})
    xlsx_file(folder / "south.xlsx", {"Customers": SOUTH})


def check_merge(end: EndState) -> str:
    workbook = xlsx_view.load(end.path("all_customers.xlsx"), "all_customers.xlsx")
    wanted = NORTH[1:] + SOUTH[1:]
    found = xlsx_view.find_records(workbook, HEADER)
    require(found, f"all_customers.xlsx has no table headed {HEADER}")
    merged = [r for r in found if xlsx_view.same_records(r.rows, wanted)]
    if not merged:
        sizes = "; ".join(f"{r.where}: {len(r.rows)} rows" for r in found)
        raise Fail(f"the two tables are not merged into one (each customer of both files exactly once under one "
                   f"header): {sizes}")
    folder_view.require_untouched(end, ["north.xlsx", "south.xlsx"])
    return f"all {len(wanted)} customers under one header at {merged[0].where}; the two files intact"


# -- split by a column's value ----------------------------------------------------------------------

ORDERS = [["Order", "Region", "Product", "Amount"], [5001, "North", "Desk", 240], [5002, "South", "Chair", 95],
          [5003, "East", "Lamp", 38], [5004, "North", "Shelf", 120], [5005, "East", "Desk", 240],
          [5006, "South", "Desk", 240], [5007, "North", "Lamp", 38], [5008, "South", "Shelf", 120]]
REGION = ORDERS[0].index("Region")


def build_split(folder: Path) -> None:
    xlsx_file(folder / "orders.xlsx", {"Orders": ORDERS})


def check_split(end: EndState) -> str:
    workbook = xlsx_view.load(end.path("orders.xlsx"), "orders.xlsx")
    changed = xlsx_view.changed_cells(xlsx_view.load(end.before["orders.xlsx"], "orders.xlsx"), workbook)
    require(not changed, f"the Orders sheet was changed: {changed[:3]}")
    columns = [c for c in ORDERS[0] if c != "Region"]  # the region column may stay or go on its own sheet
    picked = [ORDERS[0].index(c) for c in columns]
    regions = list(dict.fromkeys(row[REGION] for row in ORDERS[1:]))
    for region in regions:  # a sheet named after the region: "North", "north orders", "Orders_North"
        sheets = [t for t in workbook.sheetnames if re.search(rf"(?<![a-z]){region}(?![a-z])", t, re.IGNORECASE)]
        require(sheets, f"orders.xlsx has no sheet for {region} (sheets: {workbook.sheetnames})")
        rows = [[row[i] for i in picked] for row in ORDERS[1:] if row[REGION] == region]
        found = xlsx_view.find_records(workbook, columns, sheets=sheets)
        require(any(xlsx_view.same_records(r.rows, rows) for r in found),
                f"the sheet {sheets[0]!r} does not hold exactly the {len(rows)} {region} orders under a header")
    return f"one sheet per region ({', '.join(regions)}), each with its orders; Orders kept"


# -- a CSV file into a workbook -----------------------------------------------------------------------

CONTACTS = [["Name", "Company", "Phone", "Orders"], ["Maria Bolt", "Bolt & Sons", "+44 20 7946 0018", 12],
            ["Ana Ruiz", "Nimbus Ltd", "+34 91 123 4567", 7], ["John Doe", "Acme Corp", "+1 202 555 0143", 3],
            ["Kenji Mori", "Orbit Foods", "+81 3 1234 5678", 21], ["Lea Vogel", "Vega SA", "+49 30 901820", 5]]


def build_csv(folder: Path) -> None:
    text_file(folder / "contacts.csv", csv_text(CONTACTS))


def check_csv(end: EndState) -> str:
    workbook = xlsx_view.load(end.path("contacts.xlsx"), "contacts.xlsx")
    found = [r for r in xlsx_view.find_records(workbook, CONTACTS[0])
             if xlsx_view.same_records(r.rows, CONTACTS[1:], ordered=True)]
    require(found, f"contacts.xlsx does not hold the CSV's {len(CONTACTS) - 1} rows under its header, in order")
    folder_view.require_untouched(end, ["contacts.csv"])
    return f"the CSV's table at {found[0].where}; contacts.csv kept"


TASKS = [
    Task("merge_workbooks", Category.TABLES,
         "Merge the customer lists in north.xlsx and south.xlsx into one table in a new workbook, "
         "all_customers.xlsx.",
         build_merge, check_merge, family=Family.NEW,
         note="every customer of both files once, under one header (any order, extra columns allowed)"),
    Task("split_by_column", Category.TABLES,
         "Split the orders in orders.xlsx into separate sheets, one for each region.",
         build_split, check_split, family=Family.NEW,
         note="a sheet per region holding exactly its orders under a header; the Orders sheet kept"),
    Task("csv_to_workbook", Category.TABLES,
         "Turn contacts.csv into an Excel workbook called contacts.xlsx.",
         build_csv, check_csv, family=Family.NEW,
         note="the CSV's header and rows in order, anywhere in the workbook; the CSV kept"),
]
