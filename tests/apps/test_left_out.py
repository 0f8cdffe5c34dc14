"""A read says what of its file it did not return (podium.apps.base.LEFT_OUT): the host takes a read its plan
made as the whole file only when it says nothing, so each reading tool is checked on real files both ways."""

from __future__ import annotations

from pathlib import Path

import docx
import openpyxl

from podium.apps.base import LEFT_OUT
from podium.apps.documents import DocumentsApplication
from podium.apps.files import FilesApplication
from podium.apps.spreadsheets import SpreadsheetsApplication
from podium.apps.workspace import Workspace


def document(path: Path, tables: int) -> None:
    made = docx.Document()
    for n in range(tables):
        made.add_paragraph(f"Table {n}")
        table = made.add_table(rows=2, cols=2)
        for r, row in enumerate([["Name", "Value"], [f"row {n}", str(n)]]):
            for c, text in enumerate(row):
                table.cell(r, c).text = text
    made.save(str(path))


async def test_a_documents_only_table_is_read_whole_and_one_of_several_says_so(workspace: Workspace,
                                                                                root: Path) -> None:
    documents = DocumentsApplication(workspace)
    document(root / "one.docx", 1)
    document(root / "two.docx", 2)
    whole = (await documents.call("read_table", {"path": "one.docx"})).content
    assert whole["rows"] == [["Name", "Value"], ["row 0", "0"]] and LEFT_OUT not in whole
    first = (await documents.call("read_table", {"path": "two.docx"})).content
    assert first["rows"][1] == ["row 0", "0"] and first[LEFT_OUT] == "1 other table(s) of 2"
    assert LEFT_OUT not in (await documents.call("read_document", {"path": "two.docx"})).content


async def test_a_workbooks_only_sheet_is_read_whole_and_a_sheet_of_several_or_a_range_says_so(
        workspace: Workspace, root: Path) -> None:
    sheets = SpreadsheetsApplication(workspace)
    book = openpyxl.Workbook()
    book.active.title = "Data"
    book.active.append(["Item", "Price"])
    book.active.append(["Pen", 1.5])
    book.save(root / "one.xlsx")
    book.create_sheet("Notes")
    book.save(root / "two.xlsx")
    assert LEFT_OUT not in (await sheets.call("read_sheet", {"path": "one.xlsx"})).content
    assert (await sheets.call("read_sheet", {"path": "two.xlsx"})).content[LEFT_OUT] == "the other sheets (Notes)"
    ranged = (await sheets.call("read_sheet", {"path": "one.xlsx", "range": "A1:A2"})).content
    assert ranged[LEFT_OUT] == "the cells outside A1:A2"


async def test_a_listing_says_what_it_left_in_subfolders_or_out_by_pattern(workspace: Workspace,
                                                                          root: Path) -> None:
    files = FilesApplication(workspace)
    (root / "flat").mkdir()
    (root / "flat" / "a.txt").write_text("a")
    (root / "deep" / "sub").mkdir(parents=True)
    (root / "deep" / "sub" / "b.txt").write_text("b")
    assert LEFT_OUT not in (await files.call("list_files", {"path": "flat"})).content
    assert "subfolders" in (await files.call("list_files", {"path": "deep"})).content[LEFT_OUT]
    assert LEFT_OUT not in (await files.call("list_files", {"path": "deep", "recursive": True})).content
    matched = (await files.call("list_files", {"path": "flat", "pattern": "*.docx"})).content
    assert matched[LEFT_OUT] == "the names not matching '*.docx'"
    assert LEFT_OUT not in (await files.call("read_file", {"path": "flat/a.txt"})).content
    (root / "flat" / "long.txt").write_text("long enough")
    cut = (await files.call("read_file", {"path": "flat/long.txt", "max_bytes": 4})).content
    assert cut["truncated"] and cut[LEFT_OUT] == "the bytes past the first 4"
