"""documents: replace_text keeping formatting, find_text, insert_paragraph and delete_paragraph on real .docx files."""

from __future__ import annotations

import re
from pathlib import Path

import docx

from podium.apps.base import Change
from podium.apps.doc_edit import replace_in_runs
from podium.apps.documents import DocumentsApplication
from tests.apps.books import report
from tests.apps.effects_check import call_checked, kinds


def runs(path: Path, index: int) -> list[tuple[str, bool | None]]:
    return [(run.text, run.bold) for run in docx.Document(str(path)).paragraphs[index].runs]


async def test_replace_everywhere_keeping_the_runs(documents: DocumentsApplication, root: Path) -> None:
    report(root / "r.docx")
    call = {"path": "r.docx", "find": "Q3", "replace_with": "the third quarter"}
    assert kinds(documents, "replace_text", call) == [Change.EDIT] and documents.is_sensitive("replace_text", call)
    result = await call_checked(documents, root, "replace_text", call)
    assert result.content["replacements"] == 5
    assert result.content["where"] == ["paragraph 1", "paragraph 3", "table 0 row 0 column 1", "footer 0"]
    assert runs(root / "r.docx", 1) == [("Revenue in ", None), ("the third quarter 2024", True),
                                        (" grew; the third quarter was strong.", None)]
    document = docx.Document(str(root / "r.docx"))
    assert document.tables[0].cell(0, 1).paragraphs[0].runs[0].bold is True
    assert document.sections[0].footer.paragraphs[0].text == "the third quarter report"
    gone = await call_checked(documents, root, "replace_text", call)
    assert "'Q3' does not occur in 'r.docx'" in gone.error


async def test_replace_reaches_every_cell_of_a_large_table(documents: DocumentsApplication, root: Path) -> None:
    document = docx.Document()
    table = document.add_table(rows=40, cols=3)
    for r in range(40):
        for c in range(3):
            table.cell(r, c).text = f"Acme {r}.{c}"
    table.cell(39, 0).merge(table.cell(39, 2))  # one cell now, holding the three texts as its paragraphs
    document.save(str(root / "t.docx"))
    result = await call_checked(documents, root, "replace_text", {"path": "t.docx", "find": "Acme",
                                                                  "replace_with": "Apex"})
    assert result.content["replacements"] == 40 * 3  # the merged cell's three paragraphs, once
    texts = [cell.text for row in docx.Document(str(root / "t.docx")).tables[0].rows for cell in row.cells]
    assert not [t for t in texts if "Acme" in t] and sum("Apex" in t for t in texts) == len(texts)

def test_a_match_across_runs_takes_the_first_runs_look() -> None:
    document = docx.Document()
    paragraph = document.add_paragraph()
    for text, bold in (("Total ", False), ("reve", True), ("nue: 5", False)):
        paragraph.add_run(text).bold = bold
    count = replace_in_runs(paragraph.runs, re.compile("revenue"), "income")
    assert count == 1
    assert [(r.text, r.bold) for r in paragraph.runs] == [("Total ", False), ("income", True), (": 5", False)]


async def test_replace_in_another_case(documents: DocumentsApplication, root: Path) -> None:
    report(root / "r.docx")
    hint = await call_checked(documents, root, "replace_text", {"path": "r.docx", "find": "SALES",
                                                                 "replace_with": "Turnover"})
    assert "occurs 2 time(s) in another case: pass match_case=false" in hint.error
    done = await call_checked(documents, root, "replace_text", {"path": "r.docx", "find": "SALES",
                                                                 "replace_with": "Turnover", "match_case": False})
    assert done.content["replacements"] == 2
    assert docx.Document(str(root / "r.docx")).paragraphs[2].style.name == "Heading 1"  # its style kept


async def test_find_counts_where_a_text_is(documents: DocumentsApplication, root: Path) -> None:
    report(root / "r.docx")
    found = (await documents.call("find_text", {"path": "r.docx", "text": "q3"})).content
    assert (found["count"], found["paragraphs"]) == (5, 4)
    assert found["where"][0] == {"where": "paragraph 1", "count": 2, "text": "Revenue in Q3 2024 grew; Q3 was strong."}


async def test_insert_after_or_before_a_paragraph_or_at_either_end(documents: DocumentsApplication,
                                                                    root: Path) -> None:
    report(root / "r.docx")
    after = {"path": "r.docx", "text": "Prices held.", "where": "after", "paragraph_text": "sales rose"}
    assert kinds(documents, "insert_paragraph", after) == [Change.ADD] and not documents.is_sensitive(
        "insert_paragraph", after)
    assert (await call_checked(documents, root, "insert_paragraph", after)).content["index"] == 4
    texts = [p.text for p in docx.Document(str(root / "r.docx")).paragraphs]
    assert texts[3:6] == ["Sales rose in Q3.", "Prices held.", "Costs"]  # before the table's next heading
    assert (await call_checked(documents, root, "insert_paragraph", after)).content["unchanged"] is True
    first = {"path": "r.docx", "text": "Draft", "where": "start", "style": "List Bullet"}
    await call_checked(documents, root, "insert_paragraph", first)
    opened = docx.Document(str(root / "r.docx"))
    assert (opened.paragraphs[0].text, opened.paragraphs[0].style.name) == ("Draft", "List Bullet")
    before = {"path": "r.docx", "text": "Summary", "where": "before", "index": 2}
    assert (await call_checked(documents, root, "insert_paragraph", before)).content["index"] == 2
    assert [p.text for p in docx.Document(str(root / "r.docx")).paragraphs][1:4] == [
        texts[0], "Summary", texts[1]]
    end = {"path": "r.docx", "text": "The end.", "where": "end"}
    await call_checked(documents, root, "insert_paragraph", end)
    assert docx.Document(str(root / "r.docx")).paragraphs[-1].text == "The end."
    assert (await call_checked(documents, root, "insert_paragraph", end)).content["unchanged"] is True


async def test_insert_at_the_end_goes_after_a_closing_table(documents: DocumentsApplication, root: Path) -> None:
    document = docx.Document()
    for text in ("Minutes", "Present: all.", "The budget was discussed."):
        document.add_paragraph(text)
    document.paragraphs[1]._p.addnext(document.add_table(rows=1, cols=2)._tbl)
    document.save(str(root / "m.docx"))
    await call_checked(documents, root, "insert_paragraph", {"path": "m.docx", "text": "Approved.", "where": "end"})
    body = docx.Document(str(root / "m.docx")).element.body
    blocks = [child.tag.rsplit("}", 1)[1] for child in body if not child.tag.endswith("sectPr")]
    assert blocks == ["p", "p", "tbl", "p", "p"]
    assert docx.Document(str(root / "m.docx")).paragraphs[-1].text == "Approved."
    after = {"path": "m.docx", "text": "Chair: Ines.", "where": "after", "paragraph_text": "Present"}
    await call_checked(documents, root, "insert_paragraph", after)  # right after it, before the table
    blocks = [child.tag.rsplit("}", 1)[1] for child in docx.Document(str(root / "m.docx")).element.body
              if not child.tag.endswith("sectPr")]
    assert blocks == ["p", "p", "p", "tbl", "p", "p"]
    empty = docx.Document()
    empty.save(str(root / "e.docx"))
    await call_checked(documents, root, "insert_paragraph", {"path": "e.docx", "text": "First.", "where": "start"})
    assert [p.text for p in docx.Document(str(root / "e.docx")).paragraphs] == ["First."]


async def test_insert_errors(documents: DocumentsApplication, root: Path) -> None:
    report(root / "r.docx")
    missing = await call_checked(documents, root, "insert_paragraph", {"path": "r.docx", "text": "x",
                                                                        "where": "after", "paragraph_text": "Appendix"})
    assert "no paragraph contains 'Appendix'; the paragraphs: 0: 'Annual report'" in missing.error
    unnamed = await call_checked(documents, root, "insert_paragraph",
                                 {"path": "r.docx", "text": "x", "where": "before"})
    assert "where='before' needs paragraph_text or index" in unnamed.error
    past = await call_checked(documents, root, "insert_paragraph", {"path": "r.docx", "text": "x", "where": "after",
                                                                     "index": 99})
    assert "there is no paragraph 99" in past.error and "where='end' puts it after everything" in past.error
    style = await call_checked(documents, root, "insert_paragraph", {"path": "r.docx", "text": "x", "where": "end",
                                                                      "style": "Fancy"})
    assert "has no paragraph style 'Fancy'" in style.error


async def test_delete_one_paragraph(documents: DocumentsApplication, root: Path) -> None:
    report(root / "r.docx")
    many = await call_checked(documents, root, "delete_paragraph", {"path": "r.docx", "containing": "in Q"})
    assert "paragraphs [1, 3, 7] contain it: give index" in many.error
    call = {"path": "r.docx", "containing": "costs fell"}
    assert kinds(documents, "delete_paragraph", call) == [Change.EDIT] and documents.is_sensitive(
        "delete_paragraph", call)
    assert (await call_checked(documents, root, "delete_paragraph", call)).content["text"] == "Costs fell."
    by_index = await call_checked(documents, root, "delete_paragraph", {"path": "r.docx", "index": 0})
    assert by_index.content["text"] == "Annual report"
    assert [p.text for p in docx.Document(str(root / "r.docx")).paragraphs] == [
        "Revenue in Q3 2024 grew; Q3 was strong.", "Sales", "Sales rose in Q3.", "Costs", "Outlook", "More in Q4."]
    beyond = await call_checked(documents, root, "delete_paragraph", {"path": "r.docx", "index": 40})
    assert "has 6 paragraphs (0-5); there is no paragraph 40" in beyond.error


async def test_read_document_gives_paragraph_positions(documents: DocumentsApplication, root: Path) -> None:
    report(root / "r.docx")
    blocks = (await documents.call("read_document", {"path": "r.docx"})).content["blocks"]
    assert [b.get("paragraph") for b in blocks] == [0, 1, 2, 3, None, 4, 5, 6, 7]  # the table has none
