"""set_header_footer: the text at the top or bottom of every page of a document, and its page numbers.

A header or footer is a section's, and a document may have several sections: each section's own is set (one
linked to the previous section's follows it already). The text given replaces what the header or footer held
(an EDIT of what was there, which waits for approval; into an empty one, an ADD). A page number is a PAGE field,
which the word processor fills in on each page, after the text; its alignment is the paragraph's.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from podium.apps.base import Change
from podium.apps.tool_effects import declared, effect
from podium.apps.tooling import Args, Content, ToolError, ToolSpec, file_path

Part = Literal["header", "footer"]
_ALIGN = {"left": 0, "center": 1, "right": 2}  # WD_ALIGN_PARAGRAPH's values


class PagesArgs(Args):
    path: str = file_path(".docx file, relative to the workspace root", ".docx")
    header: Content | None = Field(None, description="the text at the top of every page ('' empties it)")
    footer: Content | None = Field(None, description="the text at the bottom of every page ('' empties it)")
    page_numbers: Part | None = Field(None, description="put the page number into the header or the footer, "
                                                        "after its text")
    align: Literal["left", "center", "right"] | None = Field(None, description="the alignment of what is set")


def specs(app: Any) -> list[ToolSpec]:
    def run(args: PagesArgs) -> dict[str, Any]:
        document = app._open(args.path)
        result = set_header_footer(document, args)
        if not result.get("unchanged"):
            app._save(document, args.path)
        return result

    def effects(args: PagesArgs) -> list[Any]:
        result = set_header_footer(app._open(args.path), args)
        if result.get("unchanged"):
            return []
        return [effect(app.workspace, args.path, Change.EDIT if result["replaced"] else Change.ADD)]

    return [ToolSpec("set_header_footer", "Set the header or footer text of every page of a document, or add page "
                     "numbers to it, and save.", PagesArgs, run, effects=declared(effects), edits=True)]


def set_header_footer(document: Any, args: PagesArgs) -> dict[str, Any]:
    """Set (changing `document`, which the caller saves unless the result says `unchanged`); `replaced`: whether
    text a header or footer held was lost."""
    if args.header is None and args.footer is None and args.page_numbers is None:
        raise ToolError("give a header, a footer, or where the page numbers go (page_numbers)")
    replaced = changed = False
    for number, section in enumerate(document.sections):
        for part in ("header", "footer"):
            text: str | None = getattr(args, part)
            numbered = args.page_numbers == part
            if text is None and not numbered:
                continue
            area = getattr(section, part)
            if area.is_linked_to_previous and number > 0:
                continue  # it shows the previous section's, set already
            old, had_number = _text(area), _numbered(area)
            new = old if text is None else text
            aligned = args.align is None or (bool(area.paragraphs)
                                             and area.paragraphs[0].alignment == _ALIGN[args.align])
            if new == old and (had_number or not numbered) and aligned:
                continue
            replaced |= bool(old.strip()) and new != old
            _write(area, new, numbered or had_number, args.align)
            changed = True
    done = {"path": args.path, "sections": len(document.sections),
            **{p: getattr(args, p) for p in ("header", "footer") if getattr(args, p) is not None},
            **({"page_numbers": args.page_numbers} if args.page_numbers else {})}
    if not changed:
        return {**done, "unchanged": True, "note": "the headers and footers hold this already: nothing written"}
    return {**done, "replaced": replaced}


def shown(document: Any) -> dict[str, str]:
    """The header and footer of a document's first section, as a reader sees them (a page number as
    '{PAGE}'), where they hold anything."""
    found = {}
    for part in ("header", "footer"):
        area = getattr(document.sections[0], part) if document.sections else None
        if area is None or area.is_linked_to_previous:
            continue  # none of its own: reading it would make one
        text = " ".join(filter(None, [_text(area), "{PAGE}" if _numbered(area) else ""]))
        if text:
            found[part] = text
    return found


def _text(area: Any) -> str:
    return "\n".join(p.text for p in area.paragraphs).strip()


def _numbered(area: Any) -> bool:
    return any(node.get(_qn("w:instr"), "").strip().upper().startswith("PAGE")
               for node in area._element.iter(_qn("w:fldSimple")))


def _write(area: Any, text: str, numbered: bool, align: str | None) -> None:
    """One paragraph holding `text` (and a PAGE field after it): what the area held before is gone."""
    area.is_linked_to_previous = False
    paragraphs = area.paragraphs
    first = paragraphs[0] if paragraphs else area.add_paragraph()
    for extra in paragraphs[1:]:
        extra._element.getparent().remove(extra._element)
    for child in list(first._element):
        if child.tag != _qn("w:pPr"):
            first._element.remove(child)
    if text:
        first.add_run(text + (" " if numbered else ""))
    if numbered:
        first._element.append(_page_field())
    if align is not None:
        first.alignment = _ALIGN[align]


def _page_field() -> Any:
    from docx.oxml import OxmlElement

    field = OxmlElement("w:fldSimple")
    field.set(_qn("w:instr"), "PAGE")
    run = OxmlElement("w:r")
    shown = OxmlElement("w:t")
    shown.text = "1"  # what shows until the word processor updates the field
    run.append(shown)
    field.append(run)
    return field


def _qn(tag: str) -> str:
    from docx.oxml.ns import qn

    return str(qn(tag))
