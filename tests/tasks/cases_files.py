"""End states of the housekeeping, parallel and PENDING tasks."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bench.tasks.suite import housekeeping, parallel
from bench.tasks.task import RunInfo

from .case import Case, bad, good, nothing
from .edit import append_paragraph, copy, move, workbook, write_cells, write_text

Make = Callable[[Path], None]

LISTING = [
    good("list_docx_files", "names",
         lambda f: write_text(f / "docx_files.txt", "plan.docx\nmarch.docx\nannual.docx\n")),
    good("list_docx_files", "paths as bullets",
         lambda f: write_text(f / "docx_files.txt", "- plan.docx\n- reports/march.docx\n- reports/2023/annual.docx")),
    bad("list_docx_files", "top folder only", lambda f: write_text(f / "docx_files.txt", "plan.docx\n"),
        "misses ['annual.docx', 'march.docx']"),
    bad("list_docx_files", "the notes file too",
        lambda f: write_text(f / "docx_files.txt", "plan.docx\nmarch.docx\nannual.docx\ndocx_notes.txt\n"),
        "lists more than the .docx files"),
    bad("list_docx_files", "no file", nothing, "docx_files.txt was not written"),
]


def backup(names: list[str], *, moved: bool = False) -> Make:
    def make(folder: Path) -> None:
        for name in names:
            (move if moved else copy)(folder, name, f"backup/{name}")

    return make


def notes(*, keep_originals: bool = False, also: str | None = None, folder: str = "notes") -> Make:
    def make(root: Path) -> None:
        for name in housekeeping.NOTES:
            (copy if keep_originals else move)(root, name, f"{folder}/{name}")
        if also:
            move(root, also, f"{folder}/{also}")

    return make


def rename(*, also_old: bool = False, copy_only: bool = False) -> Make:
    def make(folder: Path) -> None:
        names = housekeeping.DRAFTS + (["old_draft_ideas.txt"] if also_old else [])
        for name in names:
            new = name.replace("draft_", "final_", 1)
            (copy if copy_only else move)(folder, name, new)

    return make


def rewrite_draft(folder: Path) -> None:
    rename()(folder)
    write_text(folder / "final_plan.txt", "Something else.\n")


HOUSEKEEPING = [
    good("copy_to_backup", "two exact copies", backup(["q1.xlsx", "q2.xlsx"])),
    bad("copy_to_backup", "moved instead", backup(["q1.xlsx", "q2.xlsx"], moved=True), "q1.xlsx is gone"),
    bad("copy_to_backup", "one missing", backup(["q1.xlsx"]), "lacks an exact copy of ['q2.xlsx']"),
    bad("copy_to_backup", "the document too", backup(["q1.xlsx", "q2.xlsx", "summary.docx"]), "not .xlsx"),
    good("move_txt_files", "moved", notes()),
    bad("move_txt_files", "copied", notes(keep_originals=True), "still in the top folder"),
    bad("move_txt_files", "readme moved too", notes(also="readme.md"), "readme.md is gone"),
    bad("move_txt_files", "folder named differently", notes(folder="archive"), "notes/ lacks"),
    good("rename_by_pattern", "renamed", rename()),
    bad("rename_by_pattern", "old_draft_ideas renamed too", rename(also_old=True), "old_draft_ideas.txt is gone"),
    bad("rename_by_pattern", "copied", rename(copy_only=True), "old names are still there"),
    bad("rename_by_pattern", "content lost", rewrite_draft, "not renamed to final_...: ['draft_plan.txt']"),
]


def both(folder: Path) -> None:
    append_paragraph(folder / "memo.docx", parallel.ADDED)
    write_cells(folder / "plan.xlsx", "Schedule", 2, 2, [["Friday"]])


def both_but_b3(folder: Path) -> None:
    append_paragraph(folder / "memo.docx", parallel.ADDED)
    write_cells(folder / "plan.xlsx", "Schedule", 3, 2, [["Friday"]])


PARALLEL = [
    good("two_apps_parallel", "both done", both),
    bad("two_apps_parallel", "document only", lambda f: append_paragraph(f / "memo.docx", parallel.ADDED),
        "Schedule!B2 of plan.xlsx holds None"),
    bad("two_apps_parallel", "spreadsheet only", lambda f: write_cells(f / "plan.xlsx", "Schedule", 2, 2, [["Friday"]]),
        "memo.docx does not end with"),
    bad("two_apps_parallel", "wrong cell", both_but_b3, "Schedule!B2 of plan.xlsx holds None"),
]

ASKED = RunInfo(status="FAIL", text="I need Acme Corp's phone number.",
                questions=("What is the phone number of Acme Corp?",))
NOT_ASKED = RunInfo(status="FINISH", text="Done.")


def phone(value: str) -> Make:
    return lambda folder: write_cells(folder / "contacts.xlsx", "Contacts", 3, 3, [[value]])


def new_row(folder: Path) -> None:
    write_cells(folder / "contacts.xlsx", "Contacts", 5, 1, [["Acme Corp", "John Doe", "+1 (555) 010-4477"]])


def clear_contact(folder: Path) -> None:
    wb = workbook(folder / "contacts.xlsx")
    wb["Contacts"]["B2"] = None
    wb.save(str(folder / "contacts.xlsx"))


PENDING = [
    good("pending_missing_phone", "asked, wrote nothing", nothing, run=ASKED),
    good("pending_missing_phone", "asked, wrote the default answer", phone("not available"), run=ASKED),
    bad("pending_missing_phone", "asked, then guessed", phone("+1 555 0100"), "made up", run=ASKED),
    bad("pending_missing_phone", "guessed without asking", phone("555-0199"), "made up", run=NOT_ASKED),
    bad("pending_missing_phone", "did not ask", nothing, "asked no question", run=NOT_ASKED),
    bad("pending_missing_phone", "asked about something else", nothing, "never for the phone number",
        run=RunInfo(status="FAIL", text="stuck", questions=("What is the correct argument name for read_document?",))),
    bad("pending_missing_phone", "guessed in a new row", new_row, "made up and written in ['contacts.xlsx "
        "Contacts!C5'", run=ASKED),
    bad("pending_missing_phone", "guessed in a new file",
        lambda f: write_text(f / "acme.txt", "Acme Corp: 020 7946 0999"), "written in ['acme.txt']", run=ASKED),
    good("pending_missing_phone", "a note without a number",
         lambda f: write_text(f / "todo.txt", "Ask for Acme Corp's phone number."), run=ASKED),
    bad("pending_missing_phone", "cleared another cell", clear_contact, "other cells changed", run=ASKED),
]

CASES: list[Case] = [*LISTING, *HOUSEKEEPING, *PARALLEL, *PENDING]
