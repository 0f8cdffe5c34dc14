"""How a document's text looks: format_text (bold, italic, underline, strike-through, font, size, colour,
highlight) of every occurrence of a text, of one paragraph, or of all the text; format_paragraphs
(alignment, line spacing, a paragraph style) of one paragraph, of those containing a text, or of all.

Formatting part of a run splits it at the match's ends, so only the matched text changes look; a run
that holds more than text (a picture, a field mark) is not split, and takes the look whole. Paragraph
positions are those of read_document's paragraphs. A change of look is an EDIT: the look it had is not
kept.
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any, Literal

from pydantic import Field

from podium.apps.base import Change
from podium.apps.doc_edit import _TEXT_ONLY, _pattern, _runs, _set_text, all_paragraphs, declaring, saving
from podium.apps.tooling import Args, ToolError, ToolSpec, file_path

_PATH = ".docx file, relative to the workspace root"
Highlight = Literal["yellow", "green", "cyan", "pink", "blue", "red", "gray", "none"]
Align = Literal["left", "center", "right", "justify"]


class TextArgs(Args):
    path: str = file_path(_PATH, ".docx")
    text: str | None = Field(None, description="format every occurrence of this text (any case)")
    paragraph: int | None = Field(None, ge=0, description="else this paragraph's text; all the text when both "
                                                          "are omitted")
    bold: bool | None = None
    italic: bool | None = None
    underline: bool | None = None
    strike: bool | None = None
    font: str | None = Field(None, description="font name, e.g. 'Times New Roman'")
    size: float | None = Field(None, gt=0, le=400, description="in points")
    color: str | None = Field(None, pattern=r"^#?[0-9A-Fa-f]{6}$", description="hex RGB, e.g. '#FF0000'")
    highlight: Highlight | None = None


class ParagraphArgs(Args):
    path: str = file_path(_PATH, ".docx")
    paragraph: int | None = Field(None, ge=0, description="this paragraph")
    containing: str | None = Field(None, description="else every paragraph containing this text; all paragraphs "
                                                     "when both are omitted")
    align: Align | None = None
    line_spacing: float | None = Field(None, gt=0, le=10, description="lines: 1, 1.5, 2")
    style: str | None = Field(None, description="paragraph style name, e.g. 'Heading 2'")


def specs(app: Any) -> list[ToolSpec]:
    def run(do: Any) -> Any:
        return saving(app, do)

    def effects(do: Any) -> Any:
        return declaring(app, do, Change.EDIT)

    return [
        ToolSpec("format_text", "Set how text looks (bold, italic, underline, strike, font, size, colour, "
                 "highlight): a text's occurrences, a paragraph, or all; save.", TextArgs, run(format_text),
                 effects=effects(format_text), edits=True),
        ToolSpec("format_paragraphs", "Set paragraphs' alignment, line spacing or style: one, those containing "
                 "a text, or all; save.", ParagraphArgs, run(format_paragraphs),
                 effects=effects(format_paragraphs), edits=True),
    ]


# -- text --------------------------------------------------------------------------------------
def _text_only(run: Any) -> bool:
    return all(child.tag.rsplit("}", 1)[-1] in _TEXT_ONLY for child in run._r)


def _split_at(paragraph: Any, offset: int) -> None:
    """Split the run that holds position `offset` of the paragraph's text there (a text-only run)."""
    from docx.text.run import Run

    position = 0
    for run in _runs(paragraph):
        text = run.text
        if position < offset < position + len(text) and _text_only(run):
            clone = deepcopy(run._r)
            run._r.addnext(clone)
            _set_text(run, text[:offset - position])
            _set_text(Run(clone, paragraph), text[offset - position:])
            return
        position += len(text)


def matched_runs(paragraph: Any, text: str) -> list[Any]:
    """The runs that hold exactly the occurrences of `text` (any case) in the paragraph, split out."""
    pattern = _pattern(text, False)
    spans = [(m.start(), m.end()) for m in pattern.finditer("".join(r.text for r in _runs(paragraph)))]
    for begin, end in reversed(spans):
        _split_at(paragraph, end)
        _split_at(paragraph, begin)
    picked, position = [], 0
    for run in _runs(paragraph):
        length = len(run.text)
        if length and any(begin < position + length and position < end for begin, end in spans):
            picked.append(run)
        position += length
    return picked


def _targets(app: Any, document: Any, args: TextArgs) -> tuple[str, list[Any]]:
    if args.text:
        runs = [r for _, p in all_paragraphs(document) if _pattern(args.text, False).search(p.text)
                for r in matched_runs(p, args.text)]
        if not runs:
            raise ToolError(f"{args.text!r} does not occur in {args.path!r}; nothing was changed")
        return f"every {args.text!r}", runs
    if args.paragraph is not None:
        paragraphs = document.paragraphs
        if args.paragraph >= len(paragraphs):
            raise ToolError(f"the document has {len(paragraphs)} paragraphs (0-{len(paragraphs) - 1}); there is no "
                            f"paragraph {args.paragraph}")
        return f"paragraph {args.paragraph}", _runs(paragraphs[args.paragraph])
    return "all the text", [r for _, p in all_paragraphs(document) for r in _runs(p)]


def _wanted(args: TextArgs) -> dict[str, Any]:
    from docx.enum.text import WD_COLOR_INDEX
    from docx.shared import Pt, RGBColor

    wanted: dict[str, Any] = {name: getattr(args, name) for name in ("bold", "italic", "underline", "strike")
                              if getattr(args, name) is not None}
    if args.font:
        wanted["name"] = args.font
    if args.size:
        wanted["size"] = Pt(args.size)
    if args.color:
        wanted["color"] = RGBColor.from_string(args.color.lstrip("#").upper())
    if args.highlight:
        wanted["highlight_color"] = None if args.highlight == "none" else getattr(
            WD_COLOR_INDEX, "GRAY_25" if args.highlight == "gray" else args.highlight.upper())
    if not wanted:
        raise ToolError("say what to change: bold, italic, underline, strike, font, size, color or highlight")
    return wanted


def _looks(run: Any, flag: str) -> bool:
    """Whether the text shows a font flag: its own setting, else its paragraph style's (or a style it is based
    on), else not: a flag set to what the text already shows changes nothing a person sees."""
    value = getattr(run.font, flag)
    style = getattr(getattr(run, "_parent", None), "style", None)
    while value is None and style is not None:
        value = getattr(style.font, flag, None)
        style = style.base_style
    return bool(value)


def format_text(app: Any, document: Any, args: TextArgs) -> dict[str, Any]:
    wanted = _wanted(args)
    where, runs = _targets(app, document, args)
    changed = 0
    for run in runs:
        font = run.font
        # an on-or-off property (bold, italic...) as the text shows it; the others as set
        held = {name: (font.color.rgb if name == "color" else _looks(run, name) if isinstance(value, bool)
                       else getattr(font, name)) for name, value in wanted.items()}
        if held != wanted:
            changed += 1
            for name, value in wanted.items():
                if name == "color":
                    font.color.rgb = value
                else:
                    setattr(font, name, value)
    done = {"path": args.path, "formatted": where, "runs": len(runs)}
    if not changed:
        return {**done, "unchanged": True, "note": "the text looks like this already: nothing changed"}
    return done


# -- paragraphs --------------------------------------------------------------------------------
def format_paragraphs(app: Any, document: Any, args: ParagraphArgs) -> dict[str, Any]:
    from docx.enum.text import WD_ALIGN_PARAGRAPH

    paragraphs = document.paragraphs
    if args.paragraph is not None:
        if args.paragraph >= len(paragraphs):
            raise ToolError(f"the document has {len(paragraphs)} paragraphs (0-{len(paragraphs) - 1}); there is no "
                            f"paragraph {args.paragraph}")
        picked = [args.paragraph]
    elif args.containing:
        picked = [i for i, p in enumerate(paragraphs) if args.containing.casefold() in p.text.casefold()]
        if not picked:
            raise ToolError(f"no paragraph contains {args.containing!r}; nothing was changed")
    else:
        picked = [i for i, p in enumerate(paragraphs) if p.text.strip()]
    if args.align is None and args.line_spacing is None and args.style is None:
        raise ToolError("say what to change: align, line_spacing or style")
    style = app._style(document, args.style) if args.style else None
    align = getattr(WD_ALIGN_PARAGRAPH, args.align.upper()) if args.align else None
    changed = 0
    for index in picked:
        paragraph = paragraphs[index]
        form = paragraph.paragraph_format
        before = (form.alignment, form.line_spacing, paragraph.style.name if paragraph.style else None)
        if align is not None:
            form.alignment = align
        if args.line_spacing is not None:
            form.line_spacing = args.line_spacing
        if style is not None:
            paragraph.style = style
        changed += before != (form.alignment, form.line_spacing, paragraph.style.name if paragraph.style else None)
    done = {"path": args.path, "paragraphs": picked[:50], "count": len(picked)}
    if not changed:
        return {**done, "unchanged": True, "note": "the paragraphs look like this already: nothing changed"}
    return done
