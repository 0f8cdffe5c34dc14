"""The documents application on real .docx files, read back with python-docx itself."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import replace
from pathlib import Path

import docx
import pytest

from podium.apps import docx_parser
from podium.apps.documents import DocumentsApplication
from podium.apps.hollow import hollow_parts
from podium.apps.workspace import Workspace


@pytest.fixture
def documents(workspace: Workspace) -> DocumentsApplication:
    return DocumentsApplication(workspace)


def merged_table_document(path: Path) -> None:
    """3x4 table: a header merged across two columns, a cell merged down two rows, empty cells."""
    document = docx.Document()
    document.add_paragraph("Before the table")
    table = document.add_table(rows=4, cols=3)
    for r, row in enumerate([["Region", "Sales", ""], ["North", "10", "20"], ["", "30", "40"], ["South", "", "60"]]):
        for c, text in enumerate(row):
            table.cell(r, c).text = text
    table.cell(0, 1).merge(table.cell(0, 2))  # horizontal merge: "Sales" spans two columns
    table.cell(1, 0).merge(table.cell(2, 0))  # vertical merge: "North" spans two rows
    document.add_paragraph("After the table")
    document.save(str(path))


async def test_reads_paragraphs_and_tables_in_order(documents: DocumentsApplication, root: Path) -> None:
    merged_table_document(root / "report.docx")
    result = await documents.call("read_document", {"path": "report.docx"})
    kinds = [block["kind"] for block in result.content["blocks"]]
    assert kinds == ["paragraph", "table", "paragraph"]
    assert result.content["blocks"][0]["text"] == "Before the table"
    assert result.content["tables"] == 1


async def test_merged_cells_appear_once_and_are_listed(documents: DocumentsApplication, root: Path) -> None:
    merged_table_document(root / "report.docx")
    table = (await documents.call("read_table", {"path": "report.docx"})).content
    assert table["rows"] == [
        ["Region", "Sales", ""],
        ["North", "10", "20"],
        ["", "30", "40"],
        ["South", "", "60"],
    ]
    assert {(m["row"], m["column"], m["rows"], m["columns"]) for m in table["merged"]} == {(0, 1, 1, 2), (1, 0, 2, 1)}
    repeated = (await documents.call("read_table", {"path": "report.docx", "repeat_merged": True})).content
    assert repeated["rows"][0] == ["Region", "Sales", "Sales"] and repeated["rows"][2][0] == "North"


async def test_writes_and_saves(documents: DocumentsApplication, root: Path) -> None:
    assert (await documents.call("create_document", {"path": "out/new.docx", "title": "Quarterly"})).ok
    assert (await documents.call("add_heading", {"path": "out/new.docx", "text": "Numbers", "level": 2})).ok
    assert (await documents.call("add_paragraphs", {"path": "out/new.docx", "paragraphs": ["one", "two"]})).ok
    rows = [["Quarter", "Revenue"], ["Q1", 1200], ["Q2", 1350.5], ["Q3", None]]
    added = await documents.call("add_table", {"path": "out/new.docx", "rows": rows})
    assert added.ok and added.content["table"] == 0
    assert (
        await documents.call(
            "set_table_cell", {"path": "out/new.docx", "table": 0, "row": 3, "column": 1, "text": "n/a"}
        )
    ).ok
    reread = docx.Document(str(root / "out/new.docx"))
    assert [p.text for p in reread.paragraphs] == ["Quarterly", "Numbers", "one", "two"]
    assert reread.paragraphs[1].style.name == "Heading 2"
    assert [[c.text for c in r.cells] for r in reread.tables[0].rows] == [
        ["Quarter", "Revenue"],
        ["Q1", "1200"],
        ["Q2", "1350.5"],
        ["Q3", "n/a"],
    ]


async def test_refusals_are_clear_and_leave_files_alone(documents: DocumentsApplication, root: Path) -> None:
    merged_table_document(root / "report.docx")
    before = (root / "report.docx").read_bytes()
    exists = await documents.call("create_document", {"path": "report.docx"})
    assert "already exists: add to it or change a part of it with the tools that edit a document" in exists.error
    assert documents.is_sensitive("create_document", {"path": "report.docx", "overwrite": True})
    assert not documents.is_sensitive("add_paragraphs", {"path": "report.docx", "paragraphs": ["x"]})
    cell = {"path": "report.docx", "table": 0, "row": 1, "column": 1}
    assert documents.is_sensitive("set_table_cell", {**cell, "text": "99"})  # replaces "10"
    assert not documents.is_sensitive("set_table_cell", {**cell, "text": "10"})
    assert not documents.is_sensitive("set_table_cell", {**cell, "row": 3, "text": "5"})  # an empty cell
    assert "no table 3" in (await documents.call("read_table", {"path": "report.docx", "index": 3})).error
    cell = await documents.call(
        "set_table_cell", {"path": "report.docx", "table": 0, "row": 9, "column": 0, "text": "x"}
    )
    assert "outside it" in cell.error
    assert (
        "no paragraph style 'Nope'"
        in (await documents.call("add_paragraphs", {"path": "report.docx", "paragraphs": ["x"], "style": "Nope"})).error
    )
    assert (root / "report.docx").read_bytes() == before
    # a paragraph style on a table: the table is added in the default look, and the note names the styles
    # that would do (not python-docx's style type numbers)
    wrong = await documents.call("add_table", {"path": "report.docx", "rows": [["a"]], "style": "Normal"})
    assert wrong.ok and wrong.content["table"] == 1
    assert "'Normal' is not a table style" in wrong.content["note"] and "Table Grid" in wrong.content["note"]
    assert docx.Document(str(root / "report.docx")).tables[1].style.name == "Table Grid"
    (root / "fake.docx").write_text("not a zip")
    assert "not a readable .docx" in (await documents.call("read_document", {"path": "fake.docx"})).error
    assert (await documents.call("read_document", {"path": "notes.txt"})).error.endswith(
        "is not a .docx path (only Word .docx files are supported); the .docx files here: 'fake.docx', 'report.docx'")
    assert (await documents.call("read_document", {"path": "missing.docx"})).error.endswith(
        "does not exist; the .docx files here: 'fake.docx', 'report.docx'; a new one is made with create_document")
    assert "outside the workspace" in (await documents.call("read_document", {"path": "../x.docx"})).error


async def test_empty_table_and_irregular_rows_do_not_crash(documents: DocumentsApplication, root: Path) -> None:
    document = docx.Document()
    document.add_table(rows=2, cols=2)  # every cell empty
    document.save(str(root / "empty.docx"))
    table = (await documents.call("read_table", {"path": "empty.docx"})).content
    assert table["rows"] == [["", ""], ["", ""]] and table["merged"] == []
    ragged = await documents.call("add_table", {"path": "empty.docx", "rows": [["a"], ["b", "c", "d"]]})
    assert ragged.ok
    second = (await documents.call("read_table", {"path": "empty.docx", "index": 1})).content
    assert second["rows"] == [["a", "", ""], ["b", "c", "d"]]


async def test_a_table_the_document_holds_already_is_not_added_again(documents: DocumentsApplication,
                                                                     root: Path) -> None:
    rows = [["Role", "Day rate"], ["Lead", 900]]
    assert (await documents.call("add_table", {"path": "p.docx", "rows": rows})).ok
    before = (root / "p.docx").read_bytes()
    call = {"path": "p.docx", "rows": [["Role", "Day rate"], ["Lead", "900 "]]}  # the same cells, as text
    assert [e.change.value for e in documents.effects("add_table", call)] == ["keep"]
    again = await documents.call("add_table", call)
    assert again.content["unchanged"] is True and again.content["table"] == 0
    assert (root / "p.docx").read_bytes() == before and len(docx.Document(str(root / "p.docx")).tables) == 1
    other = await documents.call("add_table", {"path": "p.docx", "rows": [["Role"], ["Lead"]]})
    assert other.content["table"] == 1  # another table is added


async def test_python_docx_is_used_by_one_thread_at_a_time(documents: DocumentsApplication, root: Path) -> None:
    """A document is never handed between threads: the documents tools run on the event loop, where the
    shell measures a call's effects; and a reader on another thread (a measure of an empty document) waits
    for whoever holds the library."""
    assert all(not spec.blocking for spec in documents._by_name.values())
    loop = threading.get_ident()
    seen: list[int] = []
    spec = documents._by_name["add_paragraphs"]
    documents._by_name["add_paragraphs"] = replace(spec, handler=lambda a: seen.append(threading.get_ident())
                                                   or spec.handler(a))
    assert (await documents.call("add_paragraphs", {"path": "a.docx", "paragraphs": ["one"]})).ok
    assert seen == [loop]
    held, release = threading.Event(), threading.Event()

    def holder() -> None:
        with docx_parser.LOCK:
            held.set()
            release.wait(10)

    thread = threading.Thread(target=holder)
    thread.start()
    held.wait(10)
    effects = asyncio.ensure_future(asyncio.to_thread(documents.effects, "add_table",
                                                      {"path": "a.docx", "rows": [["x"]]}))
    measured = asyncio.ensure_future(asyncio.to_thread(hollow_parts, root / "a.docx"))
    await asyncio.sleep(0.3)
    assert not (effects.done() or measured.done())
    release.set()
    assert await measured == () and [e.change.value for e in await effects] == ["add"]
    thread.join()
    assert [p.text for p in docx.Document(str(root / "a.docx")).paragraphs] == ["one"]
