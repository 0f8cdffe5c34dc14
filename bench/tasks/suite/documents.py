"""Editing documents: a table of contents from a document's headings, a term replaced throughout (its
paragraphs, headings and table cells)."""

from __future__ import annotations

import re
from pathlib import Path

from .. import docx_view, folder_view
from ..task import Category, EndState, Fail, Family, Task, require
from ..values import words

# -- headings into a table of contents -----------------------------------------------------------------

# (level, heading, body paragraphs): some body text repeats a heading's words, so a contents that copies
# paragraphs is told apart from one that lists headings.
HANDBOOK = [
    (1, "Introduction", ["This handbook explains how we work.", "Read it in your first week."]),
    (1, "Working hours", ["Core hours are 10:00 to 16:00.", "Working hours are recorded weekly."]),
    (2, "Remote work", ["Remote work needs your manager's approval."]),
    (1, "Holidays", ["Holidays are booked in the HR portal."]),
    (2, "Public holidays", ["The office is closed on public holidays."]),
    (1, "Expenses", ["Keep every receipt.", "Claims are paid monthly."]),
    (2, "Travel costs", ["Book trains rather than flights within the country."]),
]
INTRO = "Staff handbook, edition 2024."
HEADINGS = [heading for _, heading, _ in HANDBOOK]
BODY = [INTRO, *(p for _, _, paragraphs in HANDBOOK for p in paragraphs)]


def build_handbook(folder: Path) -> None:
    import docx

    document = docx.Document()
    document.add_paragraph(INTRO)
    for level, heading, paragraphs in HANDBOOK:
        document.add_heading(heading, level=level)
        for text in paragraphs:
            document.add_paragraph(text)
    document.save(str(folder / "handbook.docx"))


# "1.2 ", "- ", a bullet (U+2013 en dash, U+2022 bullet, U+00B7 middle dot) before; " ..... 3" after
_DECORATION = re.compile(r"^[\s\-\u2013\u2022*\u00b7]*(?:\d+(?:\.\d+)*\.?\s+)?|[\s.\u00b7\u2026]*\d*\s*$")


def _entry(line: str) -> str:
    """A contents line without its numbering, bullet or page number."""
    return words(_DECORATION.sub("", line))


def check_contents(end: EndState) -> str:
    document = docx_view.load(end.path("contents.docx"), "contents.docx")
    lines = docx_view.paragraphs(document) + [cell for grid in docx_view.tables(document) for row in grid
                                              for cell in row]
    entries = [_entry(line) for line in lines]
    positions = []
    for heading in HEADINGS:
        at = [i for i, e in enumerate(entries) if e == words(heading)]
        require(at, f"contents.docx does not list the heading {heading!r}")
        positions.append(at[0])
    order = [h for _, h in sorted(zip(positions, HEADINGS, strict=True))]
    require(order == HEADINGS, f"contents.docx lists the headings out of the document's order: {order}")
    copied = [p for p in BODY if words(p) in {words(line) for line in lines}]
    require(not copied, f"contents.docx holds body text, not only headings: {copied[:2]}")
    folder_view.require_untouched(end, ["handbook.docx"])
    return f"contents.docx lists the {len(HEADINGS)} headings in order; handbook.docx kept"


# -- find and replace throughout a document ---------------------------------------------------------------

OLD, NEW = "Northwind Traders", "Northwind Group"
CONTRACT_TEXT = [
    "Service agreement",
    "This agreement is made between Northwind Traders and Vega SA.",
    "Northwind Traders will deliver the goods listed below within 30 days.",
    "Payment is due 45 days after delivery.",
    "Northwind's warehouse in Leeds is the place of delivery.",  # the name alone: not the term
    "Signed for Northwind Traders: R. Okafor. Signed for Vega SA: L. Vogel.",
]
CONTRACT_TABLE = [["Party", "Role"], ["Northwind Traders", "Supplier"], ["Vega SA", "Buyer"]]


def build_contract(folder: Path) -> None:
    import docx

    document = docx.Document()
    document.add_heading(CONTRACT_TEXT[0], level=1)
    for text in CONTRACT_TEXT[1:4]:
        document.add_paragraph(text)
    table = document.add_table(rows=len(CONTRACT_TABLE), cols=2)
    for r, row in enumerate(CONTRACT_TABLE):
        for c, text in enumerate(row):
            table.cell(r, c).text = text
    for text in CONTRACT_TEXT[4:]:
        document.add_paragraph(text)
    document.save(str(folder / "contract.docx"))


def check_replaced(end: EndState) -> str:
    document = docx_view.load(end.path("contract.docx"), "contract.docx")
    left = [line for line in docx_view.all_text(document).splitlines() if OLD.casefold() in line.casefold()]
    require(not left, f"contract.docx still says {OLD!r}: {left[:2]}")
    paragraphs = docx_view.paragraphs(document)
    wanted = [p.replace(OLD, NEW) for p in CONTRACT_TEXT]
    if [words(p) for p in paragraphs] != [words(p) for p in wanted]:
        lost = [p for p in wanted if words(p) not in {words(q) for q in paragraphs}]
        raise Fail(f"contract.docx's paragraphs are not the old ones with the term replaced: missing {lost[:2]}, "
                   f"now {len(paragraphs)} paragraphs for {len(wanted)}")
    table = [[cell.replace(OLD, NEW) for cell in row] for row in CONTRACT_TABLE]
    require(docx_view.find_table(document, table) is not None,
            f"contract.docx's table does not read {table[1]} (the term replaced in its cells too)")
    return f"{OLD!r} replaced by {NEW!r} in {sum(OLD in p for p in CONTRACT_TEXT) + 1} places; the rest as it was"


TASKS = [
    Task("headings_to_contents", Category.DOCUMENTS,
         "Make a table of contents for handbook.docx: put its headings, in order, in a new document called "
         "contents.docx.",
         build_handbook, check_contents, family=Family.NEW,
         note="all 7 headings (both levels) in order, as paragraphs or a table, numbered or not; no body text"),
    Task("replace_term_in_document", Category.DOCUMENTS,
         f"We have been renamed: replace '{OLD}' with '{NEW}' everywhere in contract.docx.",
         build_contract, check_replaced, family=Family.NEW,
         approves=True,
         note="the term replaced in paragraphs and the table; 'Northwind's warehouse' and all else unchanged"),
]
