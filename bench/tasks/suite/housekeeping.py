"""File housekeeping: list, copy, move, rename by pattern, edit one line of a text file. Every original
must be where the request leaves it, with the same bytes."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import folder_view
from ..task import Category, EndState, Family, Task, require
from .make import make_files, text_file


def _same_bytes(end: EndState, old: str, new: str) -> bool:
    path = end.path(new)
    return path.is_file() and path.read_bytes() == end.before[old]


@dataclass(frozen=True)
class _OfType:
    """A folder of files, some of one type (the ones the request is about) and others beside them."""

    suffix: str  # ".docx"
    files: Mapping[str, Any]  # path -> content (make_files)

    @property
    def matching(self) -> list[str]:
        return [n for n in self.files if n.endswith(self.suffix)]

    def build(self, folder: Path) -> None:
        make_files(folder, self.files)


# -- list -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Listing(_OfType):
    """The names of the files of one type, in a folder tree, go into a text file. Decoys carry the type's
    name in theirs."""

    answer: str

    def check(self, end: EndState) -> str:
        text = folder_view.read_text(end, self.answer)
        pattern = rf"[\w./\\-]+{re.escape(self.suffix)}\b"
        listed = {Path(m).name for m in re.findall(pattern, text, flags=re.IGNORECASE)}
        wanted = {Path(n).name for n in self.matching}
        others = [Path(n).name for n in self.files if n not in self.matching and Path(n).name in text]
        require(wanted <= listed, f"{self.answer} misses {sorted(wanted - listed)}")
        require(not (listed - wanted) and not others, f"{self.answer} lists more than the {self.suffix} files: "
                                                      f"{sorted(listed - wanted) + others}")
        return f"{self.answer} lists the {len(wanted)} {self.suffix} files"


DOCX_FILES = ["plan.docx", "reports/march.docx", "reports/2023/annual.docx"]
DOCX_LISTING = Listing(".docx", {**{n: [f"This is {n}."] for n in DOCX_FILES},
                                 "docx_notes.txt": "Notes about our .docx files.\n",
                                 "reports/summary.txt": "Summary.\n",
                                 "reports/figures.xlsx": {"Sheet1": [["a", 1]]}}, "docx_files.txt")
XLSX_LISTING = Listing(".xlsx", {"budget.xlsx": {"Budget": [["Item", "Amount"], ["Rent", 900]]},
                                 "finance/q1.xlsx": {"Q1": [["Month", "Revenue"], ["Jan", 4100]]},
                                 "finance/old/q4_2023.xlsx": {"Q4": [["Month", "Revenue"], ["Dec", 3900]]},
                                 "hr/leave.xlsx": {"Leave": [["Name", "Days"], ["Ines", 12]]},
                                 "xlsx_howto.txt": "How we name our .xlsx files.\n",
                                 "finance/notes.docx": ["Budget notes."],
                                 "hr/policy.docx": ["Leave policy."],
                                 "hr/xlsx_export.csv": "name,days\nInes,12\n"}, "spreadsheets.txt")


# -- copy -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Backup(_OfType):
    """Files of one type to copy into a new folder; the others stay out of it, and every original stays."""

    target: str

    def check(self, end: EndState) -> str:
        copies = [n for n in self.matching if _same_bytes(end, n, f"{self.target}/{n}")]
        require(len(copies) == len(self.matching),
                f"{self.target}/ lacks an exact copy of {sorted(set(self.matching) - set(copies))}")
        extra = sorted(n for n in folder_view.files_now(end)
                       if n.startswith(f"{self.target}/") and not n.endswith(self.suffix))
        require(not extra, f"{self.target}/ holds files that are not {self.suffix}: {extra}")
        folder_view.require_untouched(end)
        return f"{self.target}/ holds exact copies of {', '.join(self.matching)}; the originals are in place"


XLSX_BACKUP = Backup(".xlsx", {"q1.xlsx": {"Q1": [["Item", "Amount"], ["Rent", 1000]]},
                               "q2.xlsx": {"Q2": [["Item", "Amount"], ["Rent", 1050]]},
                               "summary.docx": ["Quarterly summary."], "readme.txt": "Spreadsheets of 2024.\n"},
                     "backup")
DOCX_BACKUP = Backup(".docx", {"offer.docx": ["Offer to Vega SA.", "Valid until 30 June."],
                               "letter.docx": ["Dear Ms Ruiz,", "thank you for your order."],
                               "minutes.docx": ["Minutes of 4 April."],
                               "prices.xlsx": {"Prices": [["Item", "Price"], ["Desk", 240]]},
                               "todo.txt": "Send the offer.\n"}, "old_versions")


# -- move -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Move(_OfType):
    """Files of one type, with their content, to move into a folder; the others stay where they are."""

    target: str

    def check(self, end: EndState) -> str:
        moved = [n for n in self.matching if _same_bytes(end, n, f"{self.target}/{n}")]
        require(len(moved) == len(self.matching),
                f"{self.target}/ lacks {sorted(set(self.matching) - set(moved))} (with its content)")
        left = [n for n in self.matching if end.path(n).exists()]
        require(not left, f"{left} are still in the top folder (moved means not left behind)")
        folder_view.require_untouched(end, [n for n in self.files if n not in self.matching])
        return f"the {len(self.matching)} {self.suffix} files are in {self.target}/; the other files stayed"


NOTES = {"monday.txt": "Call the bank.\n", "tuesday.txt": "Order paper.\n"}
TXT_MOVE = Move(".txt", {**NOTES, "readme.md": "# Notes\n", "data.xlsx": {"Sheet1": [["x", 1]]}}, "notes")
CSV_MOVE = Move(".csv", {"january.csv": "day,visits\n1,310\n2,295\n", "february.csv": "day,visits\n1,402\n2,388\n",
                         "march.csv": "day,visits\n1,377\n2,420\n", "csv_guide.txt": "Export the .csv files weekly.\n",
                         "summary.xlsx": {"Visits": [["Month", "Visits"], ["Jan", 9120]]},
                         "report.docx": ["Visits report."]}, "data")


# -- rename by pattern ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Rename:
    """Text files whose name starts with one prefix, to rename to start with another; decoys carry the
    prefix elsewhere in their names."""

    old: str
    new: str
    names: Sequence[str]

    @property
    def matching(self) -> list[str]:
        return [n for n in self.names if n.startswith(self.old)]

    def build(self, folder: Path) -> None:
        for name in self.names:
            text_file(folder / name, f"Content of {name}.\n")

    def check(self, end: EndState) -> str:
        missing = [n for n in self.matching if not _same_bytes(end, n, self.new + n.removeprefix(self.old))]
        require(not missing, f"not renamed to {self.new}...: {missing}")
        left = [n for n in self.matching if end.path(n).exists()]
        require(not left, f"the old names are still there: {left}")
        folder_view.require_untouched(end, [n for n in self.names if n not in self.matching])
        return f"{len(self.matching)} files renamed {self.old} -> {self.new}; the others untouched"


DRAFTS = ["draft_plan.txt", "draft_budget.txt", "draft_letter.txt"]
NOT_DRAFTS = ["old_draft_ideas.txt", "readme.txt", "drafts.txt"]  # contain "draft" but do not start with "draft_"
DRAFT_RENAME = Rename("draft_", "final_", DRAFTS + NOT_DRAFTS)
TMP_RENAME = Rename("tmp_", "keep_", ["tmp_scan1.txt", "tmp_scan2.txt", "tmp_invoice.txt", "tmpfile.txt",
                                      "old_tmp_notes.txt", "temp_list.txt", "TMP-readme.txt"])


# -- edit one line in place -----------------------------------------------------------------------

SERVER_CONF = ("# web service settings\n"
               "host = 0.0.0.0\n"
               "port = 8080\n"
               "backup_port = 8081\n"
               "workers = 4\n"
               "timeout_seconds = 30\n"
               "log_level = info\n")
PORT_LINE = 2  # 0-based index of "port = 8080"


def build_server_conf(folder: Path) -> None:
    text_file(folder / "server.conf", SERVER_CONF)


def check_port(end: EndState) -> str:
    lines = folder_view.read_text(end, "server.conf").splitlines()
    before = SERVER_CONF.splitlines()
    require(len(lines) == len(before), f"server.conf has {len(lines)} lines, not {len(before)}: lines were added "
                                       "or removed")
    require(re.fullmatch(r"\s*port\s*=\s*9090\s*", lines[PORT_LINE]),
            f"the port line says {lines[PORT_LINE]!r}, not port = 9090")
    changed = [f"{old!r} became {new!r}" for i, (old, new) in enumerate(zip(before, lines, strict=True))
               if i != PORT_LINE and old.rstrip() != new.rstrip()]
    require(not changed, f"other lines of server.conf changed: {changed[:3]}")
    folder_view.require_untouched(end, [n for n in end.before if n != "server.conf"])
    return "server.conf: port = 9090, every other line as it was"


LIST = Task("list_docx_files", Category.FILES,
            "Write the names of all the .docx files in this folder and its subfolders into docx_files.txt, one "
            "per line.",
            DOCX_LISTING.build, DOCX_LISTING.check,
            note="exactly the three .docx files (subfolders too), not docx_notes.txt")
COPY = Task("copy_to_backup", Category.FILES,
            "Copy every .xlsx file in this folder into a new folder named backup.",
            XLSX_BACKUP.build, XLSX_BACKUP.check, note="byte-identical copies in backup/, only .xlsx, originals intact")
MOVE = Task("move_txt_files", Category.FILES,
            "Move all the .txt files into a folder named notes.",
            TXT_MOVE.build, TXT_MOVE.check, note="the .txt files in notes/ with their content and gone from the top")
RENAME = Task("rename_by_pattern", Category.FILES,
              "Rename every file whose name starts with 'draft_' so that it starts with 'final_' instead "
              "(for example draft_plan.txt becomes final_plan.txt).",
              DRAFT_RENAME.build, DRAFT_RENAME.check,
              note="draft_* -> final_* with content kept; old_draft_ideas.txt and drafts.txt untouched")

TASKS = [
    LIST, COPY, MOVE, RENAME,
    LIST.reworded("list_docx_files_reworded",
                  "I need a list of every spreadsheet (.xlsx) anywhere under this folder, one per line, in "
                  "spreadsheets.txt.",
                  XLSX_LISTING.build, XLSX_LISTING.check,
                  note="exactly the four .xlsx files two levels deep, not xlsx_howto.txt or xlsx_export.csv"),
    COPY.reworded("copy_to_backup_reworded",
                  "Could you copy all the Word documents into a new folder called old_versions?",
                  DOCX_BACKUP.build, DOCX_BACKUP.check,
                  note="byte-identical copies of the three .docx files in old_versions/, originals intact"),
    MOVE.reworded("move_txt_files_reworded",
                  "Tidy up: the .csv files go into a folder called data.",
                  CSV_MOVE.build, CSV_MOVE.check,
                  note="the three .csv files in data/, gone from the top; the rest stays"),
    RENAME.reworded("rename_by_pattern_reworded",
                    "Files beginning with tmp_ should begin with keep_ instead. Please rename them.",
                    TMP_RENAME.build, TMP_RENAME.check,
                    note="tmp_* -> keep_* with content kept; tmpfile.txt, old_tmp_notes.txt, TMP-readme.txt untouched"),
    Task("edit_config_line", Category.FILES,
         "In server.conf, change the port from 8080 to 9090.",
         build_server_conf, check_port, family=Family.NEW,
         approves=True,
         note="one line edited in place (port = 9090); backup_port and every other line as they were"),
]
