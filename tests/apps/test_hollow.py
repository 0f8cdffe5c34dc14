"""What a path holds nothing in, measured on real files."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

from docx import Document
from openpyxl import Workbook

from podium.apps.hollow import WHOLE, hollow_parts
from podium.apps.limits import PackageLimits


def test_empty_folders_files_sheets_and_documents_are_told_apart_from_full_ones(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "a.txt").write_text("a")
    (tmp_path / "blank.txt").write_text("")
    assert hollow_parts(tmp_path / "empty") == (WHOLE,) and hollow_parts(tmp_path / "full") == ()
    assert hollow_parts(tmp_path / "blank.txt") == (WHOLE,) and hollow_parts(tmp_path / "full" / "a.txt") == ()
    book = Workbook()
    book.active.title = "Scores"
    book.active["B3"] = 7
    book.create_sheet("Ranking")
    book.save(tmp_path / "scores.xlsx")
    assert hollow_parts(tmp_path / "scores.xlsx") == ("Ranking",)
    Document().save(str(tmp_path / "new.docx"))
    assert hollow_parts(tmp_path / "new.docx") == (WHOLE,)
    document = Document()
    document.add_table(rows=1, cols=1)
    document.save(str(tmp_path / "table.docx"))
    assert hollow_parts(tmp_path / "table.docx") == ()
    # absent, unreadable, not what its name says, or past the package limits (never parsed): nothing is claimed
    (tmp_path / "broken.xlsx").write_text("not a workbook")
    assert hollow_parts(tmp_path / "missing") == () and hollow_parts(tmp_path / "broken.xlsx") == ()
    book.save(tmp_path / "many.xlsx")  # its sheet Ranking is empty, but the package has too many parts
    with zipfile.ZipFile(tmp_path / "many.xlsx", "a") as package:
        for n in range(PackageLimits().max_members):
            package.writestr(f"xl/extra/part{n}.xml", "<a/>")
    assert hollow_parts(tmp_path / "many.xlsx") == ()
    os.mkfifo(tmp_path / "pipe.docx")
    assert hollow_parts(tmp_path / "pipe.docx") == ()  # not opened: it would block
