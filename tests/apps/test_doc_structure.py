"""documents: the outline, a table of contents made from it, and the tables (list, add and delete a row)."""

from __future__ import annotations

from pathlib import Path

import docx

from podium.apps.base import Change
from podium.apps.documents import DocumentsApplication
from tests.apps.books import report
from tests.apps.effects_check import call_checked, kinds


async def test_outline_by_outline_levels(documents: DocumentsApplication, root: Path) -> None:
    report(root / "r.docx")
    document = docx.Document(str(root / "r.docx"))
    custom = document.styles.add_style("Chapter", 1)  # a style of the person's own, based on Heading 1
    custom.base_style = document.styles["Heading 1"]
    document.add_paragraph("Appendix", style="Chapter")
    document.add_paragraph("", style="Heading 2")  # an empty heading is no entry
    document.save(root / "r.docx")
    outline = (await documents.call("document_outline", {"path": "r.docx"})).content
    assert outline["title"] == "Annual report"
    assert outline["headings"] == [{"level": 1, "text": "Sales", "paragraph": 2},
                                   {"level": 2, "text": "Costs", "paragraph": 4},
                                   {"level": 1, "text": "Outlook", "paragraph": 6},
                                   {"level": 1, "text": "Appendix", "paragraph": 8}]


async def test_outline_of_a_document_without_headings(documents: DocumentsApplication, root: Path) -> None:
    document = docx.Document()
    document.add_paragraph("Just text.")
    document.save(root / "plain.docx")
    outline = (await documents.call("document_outline", {"path": "plain.docx"})).content
    assert outline["count"] == 0 and "no paragraph has a heading style" in outline["note"]
    toc = await call_checked(documents, root, "add_table_of_contents", {"path": "plain.docx"})
    assert "has no headings (paragraphs styled Heading 1-3)" in toc.error


async def test_table_of_contents_before_the_first_heading(documents: DocumentsApplication, root: Path) -> None:
    report(root / "r.docx")
    call = {"path": "r.docx", "levels": 2}
    assert kinds(documents, "add_table_of_contents", call) == [Change.ADD]
    result = await call_checked(documents, root, "add_table_of_contents", call)
    assert result.content["entries"] == [{"level": 1, "text": "Sales"}, {"level": 2, "text": "Costs"},
                                         {"level": 1, "text": "Outlook"}]
    document = docx.Document(str(root / "r.docx"))
    paragraphs = document.paragraphs
    assert [p.text for p in paragraphs[2:7]] == ["Contents", "Sales", "Costs", "Outlook", "Sales"]
    assert paragraphs[2].style.name == "TOC Heading"
    assert paragraphs[4].paragraph_format.left_indent > (paragraphs[3].paragraph_format.left_indent or 0)
    codes = document.element.body.xpath(".//w:instrText/text()")
    assert [c.strip() for c in codes] == ['TOC \\o "1-2" \\h \\z \\u']  # a field a word processor refreshes
    kinds_of = document.element.body.xpath(".//w:fldChar/@w:fldCharType")
    assert list(kinds_of) == ["begin", "separate", "end"]
    outline = (await documents.call("document_outline", {"path": "r.docx"})).content
    assert [h["text"] for h in outline["headings"]] == ["Sales", "Costs", "Outlook"]  # the TOC is no heading
    assert (await call_checked(documents, root, "add_table_of_contents", call)).content["unchanged"] is True
    deeper = await call_checked(documents, root, "add_table_of_contents", {"path": "r.docx", "levels": 1})
    assert "has a table of contents already" in deeper.error


async def test_tables_listed_and_rows_added_in_their_look(documents: DocumentsApplication, root: Path) -> None:
    report(root / "r.docx")
    listed = (await documents.call("list_tables", {"path": "r.docx"})).content
    assert listed["tables"] == [{"index": 0, "rows": 3, "columns": 3, "header": ["Region", "Q3", "Q4"],
                                 "after_text": "Sales rose in Q3."}]
    call = {"path": "r.docx", "values": ["East", 5, 6.0]}
    assert kinds(documents, "insert_table_row", call) == [Change.ADD] and not documents.is_sensitive(
        "insert_table_row", call)
    await call_checked(documents, root, "insert_table_row", call)
    assert (await call_checked(documents, root, "insert_table_row", call)).content["unchanged"] is True
    west = {"path": "r.docx", "values": ["West"], "position": 1}
    short = await call_checked(documents, root, "insert_table_row", west)
    assert "has 3 cells in a row (Region, Q3, Q4); 1 value was given: give one a cell" in short.error
    await call_checked(documents, root, "insert_table_row", {**west, "values": ["West", "", ""]})
    rows = (await documents.call("read_table", {"path": "r.docx"})).content["rows"]
    assert rows == [["Region", "Q3", "Q4"], ["West", "", ""], ["North", "10", "12"], ["South", "8", "9"],
                    ["East", "5", "6"]]
    header_copy = docx.Document(str(root / "r.docx")).tables[0].cell(1, 0).paragraphs[0].runs[0]
    assert header_copy.bold is None  # the row at position 1 took the look of the row it went before, not the header


async def test_table_row_errors_and_delete(documents: DocumentsApplication, root: Path) -> None:
    report(root / "r.docx")
    wide = await call_checked(documents, root, "insert_table_row", {"path": "r.docx", "values": [1, 2, 3, 4]})
    assert "has 3 cells in a row (Region, Q3, Q4); 4 values were given" in wide.error
    none = await call_checked(documents, root, "insert_table_row", {"path": "r.docx", "table": 2, "values": [1]})
    assert "has 1 table(s); there is no table 2" in none.error
    call = {"path": "r.docx", "row": 1}
    assert kinds(documents, "delete_table_row", call) == [Change.EDIT] and documents.is_sensitive(
        "delete_table_row", call)
    assert (await call_checked(documents, root, "delete_table_row", call)).content["values"] == ["North", "10", "12"]
    beyond = await call_checked(documents, root, "delete_table_row", {"path": "r.docx", "row": 5})
    assert "has 2 rows (0-1); there is no row 5" in beyond.error


async def test_table_of_contents_into_a_new_document(documents: DocumentsApplication, root: Path) -> None:
    report(root / "r.docx")
    call = {"path": "r.docx", "target": "out/contents.docx"}
    assert kinds(documents, "add_table_of_contents", call) == [Change.CREATE]
    result = await call_checked(documents, root, "add_table_of_contents", call)
    assert [e["text"] for e in result.content["entries"]] == ["Sales", "Costs", "Outlook"]
    made = docx.Document(str(root / "out/contents.docx")).paragraphs
    assert [p.text for p in made] == ["Contents", "Sales", "Costs", "Outlook"]
    assert made[2].paragraph_format.left_indent > (made[1].paragraph_format.left_indent or 0)
    assert (await call_checked(documents, root, "add_table_of_contents", call)).content["unchanged"] is True
    taken = await call_checked(documents, root, "add_table_of_contents", {"path": "r.docx", "target": "r.docx"})
    assert "'r.docx' already exists: give the name of a new document" in taken.error
    wrong = await call_checked(documents, root, "add_table_of_contents", {"path": "r.docx", "target": "toc.txt"})
    assert "is not a .docx path" in wrong.error
    # the new document named as the one to read: the error says how to write into it
    backwards = await call_checked(documents, root, "add_table_of_contents", {"path": "new.docx"})
    assert backwards.error is not None and backwards.error.endswith(
        "'new.docx' does not exist; the .docx files here: 'r.docx', 'out/contents.docx'; to write the contents of "
        "one of them into a new document, give it as path and 'new.docx' as target")
    assert not (root / "new.docx").exists()
