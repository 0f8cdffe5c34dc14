"""documents: format_text and format_paragraphs on a real .docx, read back with python-docx."""

from __future__ import annotations

from pathlib import Path

import docx
from docx.enum.text import WD_ALIGN_PARAGRAPH, WD_COLOR_INDEX
from docx.shared import Pt

from podium.apps.base import Change
from podium.apps.documents import DocumentsApplication
from tests.apps.books import report
from tests.apps.effects_check import call_checked, kinds


def looks(path: Path, index: int) -> list[tuple[str, bool | None, object]]:
    return [(r.text, r.bold, r.font.highlight_color) for r in docx.Document(str(path)).paragraphs[index].runs]


async def test_only_the_matched_text_changes_look(documents: DocumentsApplication, root: Path) -> None:
    report(root / "r.docx")
    call = {"path": "r.docx", "text": "grew", "italic": True, "highlight": "yellow"}
    assert kinds(documents, "format_text", call) == [Change.EDIT] and documents.is_sensitive("format_text", call)
    assert (await call_checked(documents, root, "format_text", call)).content["runs"] == 1
    runs = docx.Document(str(root / "r.docx")).paragraphs[1].runs
    assert [(r.text, r.italic, r.font.highlight_color) for r in runs] == [
        ("Revenue in ", None, None), ("Q3 2024", None, None), (" ", None, None),
        ("grew", True, WD_COLOR_INDEX.YELLOW), ("; Q3 was strong.", None, None)]
    assert runs[1].bold is True  # the bold run it did not touch is as it was
    assert (await call_checked(documents, root, "format_text", call)).content["unchanged"] is True


async def test_a_flag_set_to_what_the_text_already_shows_changes_nothing(documents: DocumentsApplication,
                                                                        root: Path) -> None:
    report(root / "r.docx")
    before = (root / "r.docx").read_bytes()
    plain = await call_checked(documents, root, "format_text", {"path": "r.docx", "text": "grew", "underline": False,
                                                                 "italic": False})
    assert plain.content["unchanged"] is True and (root / "r.docx").read_bytes() == before  # not even saved
    # a heading's style shows it bold: asking it bold changes nothing, asking it not bold does
    heading = docx.Document(str(root / "r.docx")).paragraphs[2]
    assert heading.style.name == "Heading 1" and heading.style.font.bold and heading.runs[0].bold is None
    shown = await call_checked(documents, root, "format_text", {"path": "r.docx", "paragraph": 2, "bold": True})
    assert shown.content.get("unchanged") is True
    undone = await call_checked(documents, root, "format_text", {"path": "r.docx", "paragraph": 2, "bold": False})
    assert not undone.content.get("unchanged") and docx.Document(str(root / "r.docx")).paragraphs[2].runs[0].bold \
        is False


async def test_a_paragraph_and_all_the_text(documents: DocumentsApplication, root: Path) -> None:
    report(root / "r.docx")
    await call_checked(documents, root, "format_text", {"path": "r.docx", "paragraph": 5, "strike": True,
                                                         "color": "#FF0000"})
    await call_checked(documents, root, "format_text", {"path": "r.docx", "font": "Times New Roman", "size": 12})
    document = docx.Document(str(root / "r.docx"))
    costs = document.paragraphs[5].runs[0]
    assert (costs.text, costs.font.strike, str(costs.font.color.rgb)) == ("Costs fell.", True, "FF0000")
    everything = [r for p in document.paragraphs for r in p.runs] + \
        [r for row in document.tables[0].rows for c in row.cells for p in c.paragraphs for r in p.runs]
    assert {(r.font.name, r.font.size) for r in everything} == {("Times New Roman", Pt(12))}


async def test_paragraph_alignment_spacing_and_style(documents: DocumentsApplication, root: Path) -> None:
    report(root / "r.docx")
    await call_checked(documents, root, "format_paragraphs", {"path": "r.docx", "paragraph": 2, "align": "center"})
    await call_checked(documents, root, "format_paragraphs", {"path": "r.docx", "line_spacing": 2})
    await call_checked(documents, root, "format_paragraphs", {"path": "r.docx", "containing": "more in",
                                                               "style": "Heading 3"})
    paragraphs = docx.Document(str(root / "r.docx")).paragraphs
    assert paragraphs[2].paragraph_format.alignment == WD_ALIGN_PARAGRAPH.CENTER
    assert {p.paragraph_format.line_spacing for p in paragraphs} == {2.0}
    assert paragraphs[7].style.name == "Heading 3"
    again = await call_checked(documents, root, "format_paragraphs", {"path": "r.docx", "line_spacing": 2})
    assert again.content["unchanged"] is True


async def test_format_refusals(documents: DocumentsApplication, root: Path) -> None:
    report(root / "r.docx")
    missing = await call_checked(documents, root, "format_text", {"path": "r.docx", "text": "EBITDA", "bold": True})
    assert "'EBITDA' does not occur in 'r.docx'" in missing.error
    nothing = await call_checked(documents, root, "format_text", {"path": "r.docx", "text": "Q3"})
    assert "say what to change" in nothing.error
    beyond = await call_checked(documents, root, "format_paragraphs", {"path": "r.docx", "paragraph": 30,
                                                                        "align": "left"})
    assert "has 8 paragraphs (0-7); there is no paragraph 30" in beyond.error
    style = await call_checked(documents, root, "format_paragraphs", {"path": "r.docx", "style": "Fancy"})
    assert "has no paragraph style 'Fancy'" in style.error
