"""File housekeeping: list, copy, move, rename by pattern. Every original must be where the request
leaves it, with the same bytes."""

from __future__ import annotations

import re
from pathlib import Path

from .. import folder_view
from ..task import Category, EndState, Task, require
from .make import docx_file, text_file, xlsx_file


def _same_bytes(end: EndState, old: str, new: str) -> bool:
    path = end.path(new)
    return path.is_file() and path.read_bytes() == end.before[old]


# -- list -----------------------------------------------------------------------------------------

DOCX_FILES = ["plan.docx", "reports/march.docx", "reports/2023/annual.docx"]


def build_listing(folder: Path) -> None:
    for name in DOCX_FILES:
        docx_file(folder / name, [f"This is {name}."])
    text_file(folder / "docx_notes.txt", "Notes about our .docx files.\n")
    text_file(folder / "reports/summary.txt", "Summary.\n")
    xlsx_file(folder / "reports/figures.xlsx", {"Sheet1": [["a", 1]]})


def check_listing(end: EndState) -> str:
    text = folder_view.read_text(end, "docx_files.txt")
    listed = {Path(m).name for m in re.findall(r"[\w./\\-]+\.docx\b", text, flags=re.IGNORECASE)}
    wanted = {Path(n).name for n in DOCX_FILES}
    others = [n for n in ("docx_notes.txt", "summary.txt", "figures.xlsx") if n in text]
    require(wanted <= listed, f"docx_files.txt misses {sorted(wanted - listed)}")
    require(not (listed - wanted) and not others, f"docx_files.txt lists more than the .docx files: "
                                                  f"{sorted(listed - wanted) + others}")
    return f"docx_files.txt lists the {len(wanted)} .docx files"


# -- copy -----------------------------------------------------------------------------------------


def build_backup(folder: Path) -> None:
    xlsx_file(folder / "q1.xlsx", {"Q1": [["Item", "Amount"], ["Rent", 1000]]})
    xlsx_file(folder / "q2.xlsx", {"Q2": [["Item", "Amount"], ["Rent", 1050]]})
    docx_file(folder / "summary.docx", ["Quarterly summary."])
    text_file(folder / "readme.txt", "Spreadsheets of 2024.\n")


def check_backup(end: EndState) -> str:
    copies = [n for n in ("q1.xlsx", "q2.xlsx") if _same_bytes(end, n, f"backup/{n}")]
    require(len(copies) == 2, f"backup/ lacks an exact copy of {sorted({'q1.xlsx', 'q2.xlsx'} - set(copies))}")
    extra = sorted(n for n in folder_view.files_now(end) if n.startswith("backup/") and not n.endswith(".xlsx"))
    require(not extra, f"backup/ holds files that are not .xlsx: {extra}")
    folder_view.require_untouched(end)
    return "backup/ holds exact copies of q1.xlsx and q2.xlsx; the originals are in place"


# -- move -----------------------------------------------------------------------------------------

NOTES = {"monday.txt": "Call the bank.\n", "tuesday.txt": "Order paper.\n"}


def build_notes(folder: Path) -> None:
    for name, text in NOTES.items():
        text_file(folder / name, text)
    text_file(folder / "readme.md", "# Notes\n")
    xlsx_file(folder / "data.xlsx", {"Sheet1": [["x", 1]]})


def check_notes(end: EndState) -> str:
    moved = [n for n in NOTES if _same_bytes(end, n, f"notes/{n}")]
    require(len(moved) == len(NOTES), f"notes/ lacks {sorted(set(NOTES) - set(moved))} (with its content)")
    left = [n for n in NOTES if end.path(n).exists()]
    require(not left, f"{left} are still in the top folder (moved means not left behind)")
    folder_view.require_untouched(end, ["readme.md", "data.xlsx"])
    return "both .txt files are in notes/; the other files stayed"


# -- rename by pattern ----------------------------------------------------------------------------

DRAFTS = ["draft_plan.txt", "draft_budget.txt", "draft_letter.txt"]
NOT_DRAFTS = ["old_draft_ideas.txt", "readme.txt", "drafts.txt"]  # contain "draft" but do not start with "draft_"


def build_drafts(folder: Path) -> None:
    for name in DRAFTS + NOT_DRAFTS:
        text_file(folder / name, f"Content of {name}.\n")


def check_drafts(end: EndState) -> str:
    missing = [n for n in DRAFTS if not _same_bytes(end, n, "final_" + n.removeprefix("draft_"))]
    require(not missing, f"not renamed to final_...: {missing}")
    left = [n for n in DRAFTS if end.path(n).exists()]
    require(not left, f"the old names are still there: {left}")
    folder_view.require_untouched(end, NOT_DRAFTS)
    return f"{len(DRAFTS)} files renamed draft_ -> final_; the others untouched"


TASKS = [
    Task("list_docx_files", Category.FILES,
         "Write the names of all the .docx files in this folder and its subfolders into docx_files.txt, one "
         "per line.",
         build_listing, check_listing, note="exactly the three .docx files (subfolders too), not docx_notes.txt"),
    Task("copy_to_backup", Category.FILES,
         "Copy every .xlsx file in this folder into a new folder named backup.",
         build_backup, check_backup, note="byte-identical copies in backup/, only .xlsx, originals intact"),
    Task("move_txt_files", Category.FILES,
         "Move all the .txt files into a folder named notes.",
         build_notes, check_notes, note="the .txt files in notes/ with their content and gone from the top"),
    Task("rename_by_pattern", Category.FILES,
         "Rename every file whose name starts with 'draft_' so that it starts with 'final_' instead "
         "(for example draft_plan.txt becomes final_plan.txt).",
         build_drafts, check_drafts,
         note="draft_* -> final_* with content kept; old_draft_ideas.txt and drafts.txt untouched"),
]
