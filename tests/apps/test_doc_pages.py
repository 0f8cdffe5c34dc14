"""set_header_footer on real documents: text and page numbers in every section, what read_document shows, and
the declared effects against what each call did to the file."""

from __future__ import annotations

from pathlib import Path

import docx
from docx.enum.section import WD_SECTION

from podium.apps.base import Change
from podium.apps.documents import DocumentsApplication
from tests.apps.effects_check import call_checked, kinds


def two_sections(path: Path) -> None:
    document = docx.Document()
    document.add_paragraph("Part one.")
    document.add_section(WD_SECTION.NEW_PAGE)
    document.add_paragraph("Part two.")
    document.sections[1].footer.is_linked_to_previous = False
    document.sections[1].footer.paragraphs[0].text = "Draft"
    document.save(str(path))


def fields(area: object) -> list[str]:
    return [n.get(docx.oxml.ns.qn("w:instr")) for n in area._element.iter(docx.oxml.ns.qn("w:fldSimple"))]


async def test_header_and_page_numbers(documents: DocumentsApplication, root: Path) -> None:
    docx.Document().save(str(root / "r.docx"))
    call = {"path": "r.docx", "header": "Confidential", "page_numbers": "footer", "align": "center"}
    # a header and a footer that held nothing: added to, nothing lost
    assert kinds(documents, "set_header_footer", call) == [Change.ADD]
    assert not documents.is_sensitive("set_header_footer", call)
    await call_checked(documents, root, "set_header_footer", call)
    saved = docx.Document(str(root / "r.docx"))
    assert saved.sections[0].header.paragraphs[0].text == "Confidential"
    assert fields(saved.sections[0].footer) == ["PAGE"] and saved.sections[0].footer.paragraphs[0].alignment == 1
    read = await documents.call("read_document", {"path": "r.docx"})
    assert read.content["header"] == "Confidential" and read.content["footer"] == "{PAGE}"
    again = await call_checked(documents, root, "set_header_footer", call)
    assert again.content["unchanged"]


async def test_every_section_and_replaced_text(documents: DocumentsApplication, root: Path) -> None:
    two_sections(root / "t.docx")
    call = {"path": "t.docx", "footer": "Final"}
    # the second section's footer said "Draft": replacing it loses that, and waits for approval
    assert kinds(documents, "set_header_footer", call) == [Change.EDIT]
    assert documents.is_sensitive("set_header_footer", call)
    await call_checked(documents, root, "set_header_footer", call)
    saved = docx.Document(str(root / "t.docx"))
    assert [s.footer.paragraphs[0].text for s in saved.sections] == ["Final", "Final"]
    assert [len(s.footer.paragraphs) for s in saved.sections] == [1, 1]


async def test_something_to_set(documents: DocumentsApplication, root: Path) -> None:
    docx.Document().save(str(root / "r.docx"))
    refused = await call_checked(documents, root, "set_header_footer", {"path": "r.docx"})
    assert "give a header, a footer" in refused.error
