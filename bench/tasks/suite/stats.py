"""Work a spreadsheet's data asks for beyond a sum: the duplicate rows of a sheet, a count of the rows that
match a value, a computed column written as formulas."""

from __future__ import annotations

import re
from pathlib import Path

from .. import folder_view, formula, xlsx_view
from ..task import Category, EndState, Family, Task, require
from ..values import numbers_in, same, words
from .make import xlsx_file

# -- duplicate rows ---------------------------------------------------------------------------------

MEMBERS = [["Name", "Email", "Joined"],
           ["Ana Ruiz", "ana.ruiz@mail.example", "2023-02-01"],
           ["Tom Hale", "tom.hale@mail.example", "2022-11-15"],
           ["Li Wei", "li.wei@mail.example", "2024-01-09"],
           ["Sara Njoroge", "sara.n@mail.example", "2023-06-30"],
           ["Tom Hale", "tom.hale@mail.example", "2022-11-15"],
           ["Jonas Berg", "jonas.berg@mail.example", "2021-09-04"],
           ["Ana Ruiz", "ana.ruiz@mail.example", "2023-02-01"],
           ["Priya Nair", "priya.nair@mail.example", "2024-03-12"],
           ["Tom Hale", "tom.hale@mail.example", "2022-11-15"],
           ["Li Wei", "li.wei@mail.example", "2024-01-09"],
           ["Marta Costa", "marta.costa@mail.example", "2022-05-20"]]
_SEEN = [tuple(r) for r in MEMBERS[1:]]
DUPLICATED = [list(r) for r in dict.fromkeys(r for r in _SEEN if _SEEN.count(r) > 1)]
UNIQUE = [list(r) for r in _SEEN if _SEEN.count(r) == 1]


def build_members(folder: Path) -> None:
    xlsx_file(folder / "members.xlsx", {"Members": MEMBERS})


def check_duplicates(end: EndState) -> str:
    text = folder_view.read_text(end, "duplicates.txt").casefold()
    missing = [row[0] for row in DUPLICATED if row[0].casefold() not in text and row[1].casefold() not in text]
    require(not missing, f"duplicates.txt does not name the repeated rows of {missing}")
    listed = [row[0] for row in UNIQUE if row[0].casefold() in text or row[1].casefold() in text]
    require(not listed, f"duplicates.txt lists rows that appear only once: {listed}")
    folder_view.require_untouched(end, ["members.xlsx"])
    return f"duplicates.txt names the {len(DUPLICATED)} repeated rows and no other"


# -- count the rows that match a value ----------------------------------------------------------------

TICKETS = [["Ticket", "Opened", "Status", "Priority"], [1201, "2024-05-02", "Closed", "Low"],
           [1202, "2024-05-02", "Open", "High"], [1203, "2024-05-03", "Waiting", "Low"],
           [1204, "2024-05-06", "Open", "Low"], [1205, "2024-05-06", "Closed", "High"],
           [1206, "2024-05-07", "Open", "Low"], [1207, "2024-05-08", "Waiting", "High"],
           [1208, "2024-05-09", "Closed", "Low"], [1209, "2024-05-10", "Open", "High"],
           [1210, "2024-05-13", "Closed", "Low"], [1211, "2024-05-14", "Open", "Low"],
           [1212, "2024-05-15", "Waiting", "Low"], [1213, "2024-05-16", "Closed", "High"],
           [1214, "2024-05-17", "Open", "High"]]
OPEN = sum(row[2] == "Open" for row in TICKETS[1:])  # 6 of 14


def build_tickets(folder: Path) -> None:
    xlsx_file(folder / "tickets.xlsx", {"Tickets": TICKETS})


def check_count(end: EndState) -> str:
    text = folder_view.read_text(end, "open_tickets.txt")
    found = numbers_in(text)
    require(any(same(n, OPEN) for n in found),
            f"open_tickets.txt does not give the {OPEN} open tickets (it says {text.strip()[:80]!r})")
    require(len(found) <= 3, f"open_tickets.txt holds {len(found)} numbers; the request asked for the count")
    folder_view.require_untouched(end, ["tickets.xlsx"])
    return f"open_tickets.txt says {text.strip()[:60]!r}"


# -- a computed column as formulas ---------------------------------------------------------------------

LINES = [["Item", "Qty", "Price"], ["Desk", 2, 240], ["Chair", 6, 95.5], ["Lamp", 4, 38.25], ["Shelf", 3, 120],
         ["Monitor arm", 5, 64.9], ["Cable tray", 10, 12.4]]


def build_lines(folder: Path) -> None:
    xlsx_file(folder / "order_lines.xlsx", {"Lines": LINES})


def check_computed(end: EndState) -> str:
    workbook = xlsx_view.load(end.path("order_lines.xlsx"), "order_lines.xlsx")
    changed = xlsx_view.changed_cells(xlsx_view.load(end.before["order_lines.xlsx"], "order_lines.xlsx"), workbook)
    require(not changed, f"the order lines were changed: {changed[:3]}")
    ws = xlsx_view.sheet(workbook, "Lines", "order_lines.xlsx")
    header = xlsx_view.rows(ws)[0]
    # "Total", "total (EUR)", "Line total": the header names the column a Total
    columns = [c for c, v in enumerate(header) if re.search(r"\btotal\b", words(v))]
    require(columns, f"the Lines sheet has no column headed Total (header: {[v for v in header if v is not None]})")
    column = columns[0] + 1
    for r, (item, qty, price) in enumerate(LINES[1:], 2):
        written = ws.cell(row=r, column=column).value
        require(formula.is_formula(written), f"the Total of {item} is {written!r}, not a formula")
        value = formula.value(workbook, ws, written)
        require(value is not None and same(value, qty * price),
                f"the Total of {item} ({written}) comes to {value!r}, not {qty} x {price} = {qty * price:g}")
    where = ws.cell(row=1, column=column).coordinate
    return f"Total column at {where}: Qty x Price as formulas on all {len(LINES) - 1} lines"


TASKS = [
    Task("list_duplicates", Category.DATA,
         "Which rows in members.xlsx are duplicates? List them in duplicates.txt.",
         build_members, check_duplicates, family=Family.NEW,
         note="the three repeated rows named (by name or email), none of the rows that appear once"),
    Task("count_matching_rows", Category.DATA,
         "How many tickets in tickets.xlsx are still open? Write the number in open_tickets.txt.",
         build_tickets, check_count, family=Family.NEW,
         note="the count of Status = Open (6 of 14; ticket numbers and dates are numbers too)"),
    Task("computed_column", Category.DATA,
         "In order_lines.xlsx, add a Total column that multiplies Qty by Price for each line, as formulas.",
         build_lines, check_computed, family=Family.NEW,
         note="a column headed Total whose every line is a formula worth Qty x Price (any column, any form)"),
]
