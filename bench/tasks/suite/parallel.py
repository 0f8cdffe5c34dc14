"""A request with two independent subtasks on two applications (the planner may run them in parallel);
both effects must be there."""

from __future__ import annotations

from pathlib import Path

from .. import docx_view, xlsx_view
from ..task import Category, EndState, Task, require
from ..values import same
from .make import docx_file, xlsx_file

MEMO = ["The team meeting is on Thursday at 10:00.", "Please bring the quarterly figures."]
ADDED = "The meeting moves to Friday."
SCHEDULE = [["Event", "Day"], ["Team meeting", None], ["Review", "Monday"]]


def build(folder: Path) -> None:
    docx_file(folder / "memo.docx", MEMO, heading="Memo")
    xlsx_file(folder / "plan.xlsx", {"Schedule": SCHEDULE, "Budget": [["Item", "Amount"], ["Catering", 250]]})


def check(end: EndState) -> str:
    document = docx_view.load(end.path("memo.docx"), "memo.docx")
    texts = docx_view.paragraphs(document)
    require(texts and same(texts[-1], ADDED), f"memo.docx does not end with {ADDED!r} (last: {texts[-1:]})")
    require(all(p in texts for p in MEMO), "memo.docx lost some of its paragraphs")
    workbook = xlsx_view.load(end.path("plan.xlsx"), "plan.xlsx")
    b2 = xlsx_view.sheet(workbook, "Schedule", "plan.xlsx")["B2"].value
    require(same(b2, "Friday"), f"Schedule!B2 of plan.xlsx holds {b2!r}, not 'Friday'")
    changed = xlsx_view.changed_cells(xlsx_view.load(end.before["plan.xlsx"], "plan.xlsx"), workbook)
    require(not changed, f"plan.xlsx: other cells changed: {changed[:3]}")
    return "memo.docx ends with the new paragraph and Schedule!B2 says Friday"


TASKS = [
    Task("two_apps_parallel", Category.PARALLEL,
         f"Add the paragraph '{ADDED}' at the end of memo.docx, and write 'Friday' into cell B2 of the "
         "Schedule sheet in plan.xlsx.",
         build, check, note="two independent subtasks (documents and spreadsheets), both done"),
]
