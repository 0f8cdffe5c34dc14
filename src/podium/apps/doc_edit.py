"""Editing a document's text in place: replace_text (find and replace in every paragraph, table cell,
header and footer), insert_paragraph (at the end, the start, or beside a paragraph), delete_paragraph,
find_text (where a text occurs, and how often).

Replacing keeps the formatting: the text of a paragraph is spread over runs (bold, italic, a font), and
a match is replaced inside the runs it covers, the replacement taking the look of the run where the
match starts, so "Q3" in a bold heading stays bold. Paragraph positions are those of
document_outline and read_document's paragraphs: the body's paragraphs from 0, tables not counted.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any, Literal

from pydantic import Field

from podium.apps.base import Change
from podium.apps.tool_effects import declared, effect
from podium.apps.tooling import Args, Content, ToolError, ToolSpec, file_path

_PATH = ".docx file, relative to the workspace root"
_P_TAG = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}p"
_SHOWN = 30


class ReplaceArgs(Args):
    path: str = file_path(_PATH, ".docx")
    find: str = Field(min_length=1, description="the exact text to find")
    replace_with: Content = Field(description="what replaces every occurrence ('' deletes it)")
    match_case: bool = Field(True, description="false: 'Total' also finds 'TOTAL' and 'total'")


class FindArgs(Args):
    path: str = file_path(_PATH, ".docx")
    text: str = Field(min_length=1)
    match_case: bool = False


class InsertArgs(Args):
    path: str = file_path(_PATH, ".docx")
    text: Content
    # A choice, not a position to compute: "at the end" written as the last paragraph's index lands before it.
    where: Literal["end", "start", "after", "before"] = Field(
        description="end: after everything, tables too; start: before everything; after/before: beside the "
                    "paragraph_text or index paragraph")
    paragraph_text: str | None = Field(None, description="where after/before: the first paragraph containing "
                                                         "this text")
    index: int | None = Field(None, ge=0, description="where after/before: else that paragraph's position, from 0")
    style: str | None = Field(None, description="paragraph style name, e.g. 'List Bullet'")


class DeleteArgs(Args):
    path: str = file_path(_PATH, ".docx")
    containing: str | None = Field(None, description="the one paragraph containing this text")
    index: int | None = Field(None, ge=0, description="else its position among the paragraphs, from 0")


Change_ = Callable[[Any, Any, Any], dict[str, Any]]  # (application, opened document, arguments) -> result


def saving(app: Any, do: Change_) -> Callable[[Any], dict[str, Any]]:
    """A tool's handler: open the document, change it, and save it unless the result says `unchanged`."""
    def run(args: Any) -> dict[str, Any]:
        document = app._open(args.path)
        result = do(app, document, args)
        if not result.get("unchanged"):
            app._save(document, args.path)
        return result
    return run


def declaring(app: Any, do: Change_, kind: Change) -> Callable[[Any], tuple[Any, ...]]:
    """A tool's effects, found by making the change on a copy opened for it (never saved)."""
    return declared(lambda a: [] if do(app, app._open(a.path), a).get("unchanged")
                    else [effect(app.workspace, a.path, kind)])


def specs(app: Any) -> list[ToolSpec]:
    def change(do: Change_) -> Callable[[Any], dict[str, Any]]:
        return saving(app, do)

    def effects(do: Change_, kind: Change) -> Callable[[Any], tuple[Any, ...]]:
        return declaring(app, do, kind)

    return [
        ToolSpec("replace_text", "Replace every occurrence of a text in a document (paragraphs, tables, headers, "
                 "footers), keeping its formatting, and save.", ReplaceArgs, change(replace_text),
                 effects=effects(replace_text, Change.EDIT), edits=True),
        ToolSpec("find_text", "Where a text occurs in a document, and how many times.", FindArgs,
                 lambda a: find_text(app._open(a.path), a), read_only=True),
        ToolSpec("insert_paragraph", "Insert a paragraph at the end or the start of a document, or after or "
                 "before one of its paragraphs, and save.", InsertArgs, change(insert_paragraph),
                 effects=effects(insert_paragraph, Change.ADD), edits=True),
        ToolSpec("delete_paragraph", "Delete one paragraph (the one containing a text, or at a position) and "
                 "save.", DeleteArgs, change(delete_paragraph), effects=effects(delete_paragraph, Change.EDIT),
                 edits=True),
    ]


# -- where text is -----------------------------------------------------------------------------
def all_paragraphs(document: Any) -> Iterator[tuple[str, Any]]:
    """(where, paragraph) for every paragraph: the body's, each table cell's (tables inside cells too),
    and the headers' and footers'."""
    for index, paragraph in enumerate(document.paragraphs):
        yield f"paragraph {index}", paragraph
    for t, table in enumerate(document.tables):
        yield from _table_paragraphs(table, f"table {t}")
    for s, section in enumerate(document.sections):
        for part, name in ((section.header, "header"), (section.footer, "footer")):
            if part.is_linked_to_previous and s > 0:
                continue
            for index, paragraph in enumerate(part.paragraphs):
                yield f"{name} {index}" + (f" of section {s}" if s else ""), paragraph


def _table_paragraphs(table: Any, where: str) -> Iterator[tuple[str, Any]]:
    # The cells' elements themselves, not their ids: lxml makes a new proxy for an element whose last one
    # was freed, and a freed proxy's id can be the next one's, which would skip a cell.
    seen: set[Any] = set()
    for r, row in enumerate(table.rows):
        for c, cell in enumerate(row.cells):
            if cell._tc in seen:
                continue  # a merged cell is listed once, at its first position
            seen.add(cell._tc)
            for paragraph in cell.paragraphs:
                yield f"{where} row {r} column {c}", paragraph
            for n, inner in enumerate(cell.tables):
                yield from _table_paragraphs(inner, f"{where} row {r} column {c} table {n}")


def _runs(paragraph: Any) -> list[Any]:
    """The paragraph's runs in order, those inside hyperlinks too (not deleted revisions)."""
    from docx.text.run import Run

    return [Run(r, paragraph) for r in paragraph._p.xpath("./w:r | ./w:hyperlink/w:r | ./w:ins/w:r | ./w:smartTag/w:r")]


def _pattern(text: str, match_case: bool) -> re.Pattern[str]:
    return re.compile(re.escape(text), 0 if match_case else re.IGNORECASE)


# -- replace -----------------------------------------------------------------------------------
def replace_in_runs(runs: list[Any], pattern: re.Pattern[str], replacement: str) -> int:
    """Replace every match across the runs: a match's text leaves the runs it covers, and the replacement
    goes into the run where the match starts (so it takes that run's look)."""
    texts = [run.text for run in runs]
    matches = list(pattern.finditer("".join(texts)))
    if not matches:
        return 0
    lengths = [len(text) for text in texts]
    starts = [sum(lengths[:i]) for i in range(len(texts))]
    # Backwards, so that the offsets of the matches still to do stay those of the original text: a later
    # match only changes text after it, and no run before it ends past its start.
    for found in reversed(matches):
        begin, end = found.start(), found.end()
        first = next(i for i in range(len(texts)) if starts[i] <= begin < starts[i] + lengths[i])
        last = next(i for i in reversed(range(len(texts))) if starts[i] < end <= starts[i] + lengths[i])
        for i in range(first, last + 1):
            low, high = max(begin - starts[i], 0), min(end - starts[i], lengths[i])
            texts[i] = texts[i][:low] + (replacement if i == first else "") + texts[i][high:]
    for run, text in zip(runs, texts, strict=True):
        if run.text != text:
            _set_text(run, text)
    return len(matches)


_TEXT_ONLY = frozenset({"rPr", "t", "tab", "br", "cr"})


def _set_text(run: Any, text: str) -> None:
    """Set a run's text. A run that holds more than text (a picture, a field mark) keeps it: only its text
    elements change."""
    from docx.oxml.ns import qn

    if all(child.tag.rsplit("}", 1)[-1] in _TEXT_ONLY for child in run._r):
        run.text = text
        return
    elements = run._r.findall(qn("w:t"))
    for i, element in enumerate(elements):
        element.text = text if i == 0 else ""
        element.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")


def replace_text(app: Any, document: Any, args: ReplaceArgs) -> dict[str, Any]:
    pattern = _pattern(args.find, args.match_case)
    count, places = 0, []
    for where, paragraph in all_paragraphs(document):
        if pattern.search(paragraph.text) is None:
            continue
        replaced = replace_in_runs(_runs(paragraph), pattern, args.replace_with)
        if replaced:
            count += replaced
            places.append(where)
    done = {"path": args.path, "replacements": count, "where": places[:_SHOWN]}
    if count == 0:
        other = sum(len(_pattern(args.find, False).findall(p.text)) for _, p in all_paragraphs(document)) \
            if args.match_case else 0
        hint = f"; it occurs {other} time(s) in another case: pass match_case=false" if other else ""
        raise ToolError(f"{args.find!r} does not occur in {args.path!r}{hint}; nothing was changed")
    if args.match_case and args.find == args.replace_with:
        return {**done, "unchanged": True, "note": "the replacement is the text found: nothing changed"}
    return done


def find_text(document: Any, args: FindArgs) -> dict[str, Any]:
    pattern = _pattern(args.text, args.match_case)
    found = [(where, len(hits), paragraph.text) for where, paragraph in all_paragraphs(document)
             if (hits := pattern.findall(paragraph.text))]
    return {"path": args.path, "text": args.text, "count": sum(n for _, n, _ in found), "paragraphs": len(found),
            "where": [{"where": w, "count": n, "text": t[:200]} for w, n, t in found[:_SHOWN]]}


# -- paragraphs --------------------------------------------------------------------------------
def _containing(document: Any, text: str) -> list[int]:
    wanted = text.strip().casefold()
    return [i for i, p in enumerate(document.paragraphs) if wanted in p.text.casefold()]


def _listing(document: Any) -> str:
    shown = [f"{i}: {p.text[:40]!r}" for i, p in enumerate(document.paragraphs) if p.text.strip()][:_SHOWN]
    return "; ".join(shown) or "none holds text"


def insert_paragraph(app: Any, document: Any, args: InsertArgs) -> dict[str, Any]:
    from docx.oxml import OxmlElement
    from docx.text.paragraph import Paragraph

    body = document.element.body
    blocks = [child for child in body.iterchildren() if not child.tag.endswith("}sectPr")]
    if args.where in ("end", "start"):
        neighbour = (blocks[-1] if args.where == "end" else blocks[0]) if blocks else None
        there = neighbour
    else:
        neighbour = _named(document, args)._p
        there = neighbour.getnext() if args.where == "after" else neighbour.getprevious()
    if there is not None and there.tag == _P_TAG and Paragraph(there, None).text == args.text:
        return {"path": args.path, "where": args.where, "text": args.text, "unchanged": True,
                "note": "the paragraph there holds this text already: not inserted again"}
    place = "addnext" if args.where in ("end", "after") else "addprevious"
    element = OxmlElement("w:p")
    if neighbour is None:
        body.insert(0, element)
    else:
        getattr(neighbour, place)(element)
    new = Paragraph(element, document._body)
    new.add_run(args.text)
    if args.style:
        new.style = app._style(document, args.style)
    index = next(i for i, p in enumerate(document.paragraphs) if p._p is element)
    return {"path": args.path, "where": args.where, "index": index, "text": args.text}


def _named(document: Any, args: InsertArgs) -> Any:
    """The paragraph an insertion goes after or before."""
    paragraphs = document.paragraphs
    if args.paragraph_text:
        found = _containing(document, args.paragraph_text)
        if not found:
            raise ToolError(f"no paragraph contains {args.paragraph_text!r}; the paragraphs: {_listing(document)}")
        return paragraphs[found[0]]
    if args.index is None:
        raise ToolError(f"where={args.where!r} needs paragraph_text or index: the paragraph it goes {args.where}; "
                        f"the paragraphs: {_listing(document)}")
    if args.index >= len(paragraphs):
        raise ToolError(f"there is no paragraph {args.index}: {args.path!r} has {len(paragraphs)} (from 0); "
                        f"where='end' puts it after everything")
    return paragraphs[args.index]


def delete_paragraph(app: Any, document: Any, args: DeleteArgs) -> dict[str, Any]:
    paragraphs = document.paragraphs
    if args.containing:
        found = _containing(document, args.containing)
        if len(found) != 1:
            where = f"paragraphs {found[:_SHOWN]} contain it: give index" if found else \
                f"no paragraph contains it; the paragraphs: {_listing(document)}"
            raise ToolError(f"{args.containing!r}: {where}")
        index = found[0]
    elif args.index is not None:
        if args.index >= len(paragraphs):
            raise ToolError(f"the document has {len(paragraphs)} paragraphs (0-{len(paragraphs) - 1}); there is no "
                            f"paragraph {args.index}")
        index = args.index
    else:
        raise ToolError("say which paragraph: containing (a text of it) or index")
    paragraph = paragraphs[index]
    paragraph._p.getparent().remove(paragraph._p)
    return {"path": args.path, "deleted": index, "text": paragraph.text}
