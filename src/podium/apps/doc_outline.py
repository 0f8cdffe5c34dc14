"""A document's outline (its headings and their levels) and a table of contents made from it.

A heading is a paragraph with an outline level: set on the paragraph, or on its style or a style that
style is based on (Word's and LibreOffice's Heading 1-9 carry levels 1-9). The table of contents is
what a word processor inserts: a title, then one entry a heading, indented by level, inside a TOC
field, so Word or LibreOffice can refresh it (and add page numbers) later. It goes before the first
heading unless a position is given.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import Field

from podium.apps.base import Change
from podium.apps.doc_edit import declaring, saving
from podium.apps.tool_effects import declared, effect
from podium.apps.tooling import Args, ToolError, ToolSpec, file_path

_PATH = ".docx file, relative to the workspace root"
W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_INDENT_TWIPS = 360  # a quarter inch a level


class OutlineArgs(Args):
    path: str = file_path(_PATH, ".docx")


class TocArgs(Args):
    path: str = file_path("the .docx file with the headings", ".docx", existing=True)
    title: str = Field("Contents", description="the heading above the entries")
    levels: int = Field(3, ge=1, le=9, description="the deepest heading level listed")
    target: str | None = file_path("a new .docx to write it into; inserted into this document when omitted",
                                   ".docx", default=None)


def specs(app: Any) -> list[ToolSpec]:
    def add(app: Any, document: Any, args: TocArgs) -> dict[str, Any]:
        return add_table_of_contents(document, args)

    def into_itself(args: TocArgs) -> None:
        # a new document named as `path` is where the contents were to go, not where the headings are
        if not app._target(args.path).exists():
            raise app.workspace.missing(args.path, f"{app.workspace.of_type('.docx')}; to write the contents of "
                                                   f"one of them into a new document, give it as path and "
                                                   f"{args.path!r} as target")

    def handler(args: TocArgs) -> dict[str, Any]:
        if args.target:
            return contents_document(app, args, write=True)
        into_itself(args)
        return saving(app, add)(args)

    @declared
    def effects(args: TocArgs) -> Iterable[Any]:
        if not args.target:
            into_itself(args)
            return declaring(app, add, Change.ADD)(args)
        return [] if contents_document(app, args, write=False).get("unchanged") else [
            effect(app.workspace, args.target, Change.CREATE)]

    return [
        ToolSpec("document_outline", "The headings of a document with their levels and positions.", OutlineArgs,
                 lambda a: {"path": a.path, **outline(app._open(a.path))}, read_only=True),
        ToolSpec("add_table_of_contents", "Insert a table of contents made from the document's headings before the "
                 "first heading (or write it into a new document), and save.", TocArgs, handler, effects=effects),
    ]


def level_of(paragraph: Any) -> int | None:
    """The heading level (1-9) of a paragraph, or None for body text."""
    found = paragraph._p.xpath("./w:pPr/w:outlineLvl/@w:val")
    style = paragraph.style
    seen = 0
    while not found and style is not None and seen < 20:
        found = style.element.xpath("./w:pPr/w:outlineLvl/@w:val")
        style, seen = style.base_style, seen + 1
    if not found or not str(found[0]).isdigit() or int(found[0]) > 8:
        return None  # level 9 is body text
    return int(found[0]) + 1


def headings(document: Any) -> list[tuple[int, int, str]]:
    """(paragraph index, level, text) of each heading that holds text."""
    return [(i, level, p.text.strip()) for i, p in enumerate(document.paragraphs)
            if p.text.strip() and (level := level_of(p)) is not None]


def outline(document: Any) -> dict[str, Any]:
    found = headings(document)
    title = next((p.text.strip() for p in document.paragraphs if p.style is not None and p.style.style_id == "Title"
                  and p.text.strip()), None)
    done: dict[str, Any] = {"headings": [{"level": level, "text": text, "paragraph": i} for i, level, text in found],
                            "count": len(found)}
    if title:
        done["title"] = title
    if not found:
        done["note"] = "no paragraph has a heading style (Heading 1-9) or an outline level"
    return done


# -- table of contents -------------------------------------------------------------------------
def _existing_toc(document: Any) -> list[str] | None:
    """The entries of a table of contents field already in the body, or None."""
    body = document.element.body
    if not body.xpath(".//w:instrText[starts-with(normalize-space(.), 'TOC')]"):
        return None
    entries, inside = [], False
    for paragraph in document.paragraphs:
        codes = paragraph._p.xpath(".//w:instrText/text()")
        if any(str(c).strip().startswith("TOC") for c in codes):
            inside = True
        if inside:
            entries.append(paragraph.text.strip())
            if paragraph._p.xpath(".//w:fldChar[@w:fldCharType='end']"):
                break
    return entries


def _listed(document: Any, args: TocArgs) -> list[tuple[int, int, str]]:
    listed = [(i, level, text) for i, level, text in headings(document) if level <= args.levels]
    if not listed:
        raise ToolError(f"{args.path!r} has no headings (paragraphs styled Heading 1-{args.levels}): give the section "
                        "titles a heading style first (add_heading adds headings)")
    return listed


def _entry(document: Any, paragraph: Any, level: int) -> None:
    """A table of contents' entry look: the document's TOC style of that level, or an indent by level."""
    from docx.shared import Twips

    style = f"TOC {level}"
    if style in {s.name for s in document.styles}:
        paragraph.style = document.styles[style]
    else:
        paragraph.paragraph_format.left_indent = Twips((level - 1) * _INDENT_TWIPS)


def _title(document: Any, paragraph: Any) -> None:
    if "TOC Heading" in {s.name for s in document.styles}:
        paragraph.style = document.styles["TOC Heading"]
    else:
        paragraph.runs[0].bold = True


def contents_document(app: Any, args: TocArgs, *, write: bool) -> dict[str, Any]:
    """The table of contents as a document of its own at args.target (never written over); with write=False
    only worked out."""
    import docx

    listed = _listed(app._open(args.path), args)
    assert args.target is not None
    target = app._target(args.target)
    done = {"path": args.target, "source": args.path,
            "entries": [{"level": level, "text": text} for _, level, text in listed]}
    lines = [args.title, *(text for _, _, text in listed)]
    if target.exists():
        held = [p.text for p in app._open(args.target).paragraphs if p.text.strip()]
        if held == lines:
            return {**done, "unchanged": True, "note": f"{args.target!r} holds this table of contents already"}
        raise ToolError(f"{args.target!r} already exists: give the name of a new document")
    if write:
        document = docx.Document()
        _title(document, document.add_paragraph(args.title))
        for _, level, text in listed:
            _entry(document, document.add_paragraph(text), level)
        target.parent.mkdir(parents=True, exist_ok=True)
        app._save(document, args.target)
    return done


def add_table_of_contents(document: Any, args: TocArgs) -> dict[str, Any]:
    listed = _listed(document, args)
    done = {"path": args.path, "entries": [{"level": level, "text": text} for _, level, text in listed],
            "before_paragraph": listed[0][0]}
    existing = _existing_toc(document)
    if existing is not None:
        if existing[1:] == [text for _, _, text in listed] or existing == [text for _, _, text in listed]:
            return {**done, "unchanged": True, "note": "the document has this table of contents already"}
        raise ToolError(f"{args.path!r} has a table of contents already ({len(existing)} lines); refresh it in a word "
                        "processor, or delete its paragraphs first")
    anchor = document.paragraphs[listed[0][0]]
    _title(document, anchor.insert_paragraph_before(args.title))
    for n, (_, level, text) in enumerate(listed):
        entry = anchor.insert_paragraph_before()
        _entry(document, entry, level)
        if n == 0:
            _field_start(entry, args.levels)
        entry.add_run(text)
        if n == len(listed) - 1:
            _field_char(entry, "end")
    return done


def _field_char(paragraph: Any, kind: str) -> None:
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    run = OxmlElement("w:r")
    char = OxmlElement("w:fldChar")
    char.set(qn("w:fldCharType"), kind)
    run.append(char)
    paragraph._p.append(run)


def _field_start(paragraph: Any, levels: int) -> None:
    """The start of a TOC field over headings 1-`levels`, with hyperlinked entries (Word's default)."""
    from docx.oxml import OxmlElement

    _field_char(paragraph, "begin")
    run = OxmlElement("w:r")
    code = OxmlElement("w:instrText")
    code.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")
    code.text = f' TOC \\o "1-{levels}" \\h \\z \\u '
    run.append(code)
    paragraph._p.append(run)
    _field_char(paragraph, "separate")
