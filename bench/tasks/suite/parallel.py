"""A request with two independent subtasks on two applications (the planner may run them in parallel);
both effects must be there."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import docx_view, xlsx_view
from ..task import Category, EndState, Task, require
from ..values import same
from .make import docx_file, xlsx_file


@dataclass(frozen=True)
class TwoApps:
    """A paragraph to append to a document, and a value to write into one cell of a workbook."""

    document: str
    heading: str
    paragraphs: Sequence[str]
    added: str
    workbook: str
    sheets: dict[str, Sequence[Sequence[Any]]]
    sheet: str
    cell: str
    value: str

    def build(self, folder: Path) -> None:
        docx_file(folder / self.document, self.paragraphs, heading=self.heading)
        xlsx_file(folder / self.workbook, self.sheets)

    def check(self, end: EndState) -> str:
        document = docx_view.load(end.path(self.document), self.document)
        texts = docx_view.paragraphs(document)
        require(texts and same(texts[-1], self.added),
                f"{self.document} does not end with {self.added!r} (last: {texts[-1:]})")
        require(all(p in texts for p in self.paragraphs), f"{self.document} lost some of its paragraphs")
        workbook = xlsx_view.load(end.path(self.workbook), self.workbook)
        found = xlsx_view.sheet(workbook, self.sheet, self.workbook)[self.cell].value
        require(same(found, self.value),
                f"{self.sheet}!{self.cell} of {self.workbook} holds {found!r}, not {self.value!r}")
        changed = xlsx_view.changed_cells(xlsx_view.load(end.before[self.workbook], self.workbook), workbook)
        require(not changed, f"{self.workbook}: other cells changed: {changed[:3]}")
        return f"{self.document} ends with the new paragraph and {self.sheet}!{self.cell} says {self.value}"


MEMO = ["The team meeting is on Thursday at 10:00.", "Please bring the quarterly figures."]
ADDED = "The meeting moves to Friday."
SCHEDULE = [["Event", "Day"], ["Team meeting", None], ["Review", "Monday"]]
MEMO_AND_PLAN = TwoApps("memo.docx", "Memo", MEMO, ADDED, "plan.xlsx",
                        {"Schedule": SCHEDULE, "Budget": [["Item", "Amount"], ["Catering", 250]]}, "Schedule", "B2",
                        "Friday")

AGENDA = ["Agenda of the spring conference.", "Day one: talks.", "Day two: workshops."]
ROOMS = [["Session", "Speaker", "Room"], ["Opening", "Ines Duarte", "Hall A"], ["Workshop 1", "Omar Haddad", None],
         ["Workshop 2", "Lena Berg", "Room 2C"]]
AGENDA_AND_ROOMS = TwoApps("agenda.docx", "Spring conference", AGENDA, "The venue is confirmed.", "venues.xlsx",
                           {"Rooms": ROOMS, "Catering": [["Meal", "Guests"], ["Lunch", 120]]}, "Rooms", "C3",
                           "Room 4B")

TWO_APPS = Task("two_apps_parallel", Category.PARALLEL,
                f"Add the paragraph '{ADDED}' at the end of memo.docx, and write 'Friday' into cell B2 of the "
                "Schedule sheet in plan.xlsx.",
                MEMO_AND_PLAN.build, MEMO_AND_PLAN.check,
                note="two independent subtasks (documents and spreadsheets), both done")

TASKS = [
    TWO_APPS,
    TWO_APPS.reworded("two_apps_parallel_reworded",
                      "Put 'Room 4B' into cell C3 of the Rooms sheet in venues.xlsx; also, agenda.docx should end "
                      "with a new paragraph: 'The venue is confirmed.'",
                      AGENDA_AND_ROOMS.build, AGENDA_AND_ROOMS.check,
                      note="the spreadsheet asked first, the document second; both done, nothing else changed"),
]
