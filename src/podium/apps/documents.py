"""documents: Word (.docx) files through python-docx: read paragraphs and tables, write them, save.

Tables are read as a rectangular grid of cell texts (rows x grid columns). python-docx repeats a
merged cell at every grid position it covers, which would duplicate values when a table is copied
elsewhere (into a spreadsheet, say). We instead put a merged cell's text at its top-left position
only, leave the positions it covers as "", and list every merge as {row, column, rows, columns};
`repeat_merged: true` asks for python-docx's repetition instead. Empty cells are "". A cell's
paragraphs are joined with newlines and stripped (merging cells in Word leaves empty paragraphs).

Every write tool saves the file at once (atomic replace): nothing is ever left unsaved. A path that is a
link is read and written where it points (and must be a .docx there too). A file is checked against the
package limits before python-docx parses it (limits.check_package: a compression bomb, a table cell
spanning millions of columns are refused with the reason), and what a read returns is capped
(limits.MAX_RESULT_CHARS). Each changing tool declares its effects (approval): appending is an ADD,
writing over a cell's text an EDIT, replacing a file a REPLACE.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic import Field

from podium.apps import approval, doc_edit, doc_format, doc_outline, doc_pages, doc_tables, docx_parser
from podium.apps.approval import declared
from podium.apps.base import LEFT_OUT, Change, Effect
from podium.apps.limits import MAX_RESULT_CHARS, FileRefused, PackageLimits, check_package
from podium.apps.table_math import table_totals
from podium.apps.tooling import Args, ToolApplication, ToolError, ToolSpec, file_path, holding
from podium.apps.workspace import Workspace, atomic_save

CellValue = str | int | float | bool | None


DEFAULT_TABLE_STYLE = "Table Grid"

class PathArgs(Args):
    path: str = file_path(".docx file, relative to the workspace root", ".docx")


class ReadTableArgs(PathArgs):
    index: int = Field(0, ge=0, description="which table, in document order, from 0")
    repeat_merged: bool = Field(False, description="repeat a merged cell's text at every position it covers")


class CreateArgs(PathArgs):
    title: str | None = Field(None, description="optional title heading")
    overwrite: bool = Field(False, description="replace an existing file (needs approval)")


class ParagraphsArgs(PathArgs):
    paragraphs: list[str]
    style: str | None = Field(None, description="paragraph style name, e.g. 'List Bullet'")


class HeadingArgs(PathArgs):
    text: str
    level: int = Field(1, ge=0, le=9)


class TableArgs(PathArgs):
    rows: list[list[CellValue]] = Field(min_length=1, description="rows of cell values; the first is the header")
    style: str | None = Field(DEFAULT_TABLE_STYLE, description="table style name, or null for the default")


class CellArgs(PathArgs):
    table: int = Field(ge=0)
    row: int = Field(ge=0)
    column: int = Field(ge=0)
    text: str


class DocumentsApplication(ToolApplication):
    name = "documents"
    file_types = (".docx",)  # what it can open (the host matches files named in a request)

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.limits = PackageLimits()
        # The document as the file holds it, parsed once for a call's effects and then handed to the call.
        self._peeked: tuple[tuple[str, str], Any] | None = None
        self.description = "Word documents (.docx): read and write paragraphs and tables"
        super().__init__()

    def _specs(self) -> list[ToolSpec]:
        # Tools that declare their effects exactly: a call of one needs approval when an effect is destructive.
        more = [*doc_edit.specs(self), *doc_outline.specs(self), *doc_tables.specs(self), *doc_format.specs(self),
                *doc_pages.specs(self)]
        # on the event loop, as the documents the shell reads are (podium.apps.docx_parser)
        return [replace(holding(docx_parser.LOCK, spec), blocking=False) for spec in [
            ToolSpec(
                "read_document",
                "Read a .docx: its paragraphs and tables in document order.",
                PathArgs,
                self._read_document,
                read_only=True,
            ),
            ToolSpec(
                "read_table",
                "Read one table as rows of cell texts; merged cells are listed in 'merged'.",
                ReadTableArgs,
                self._read_table,
                read_only=True,
            ),
            ToolSpec(
                "table_totals",
                "Sum, count, min, max and mean of each number column of one table, and each row's total with "
                "the rows of the highest and lowest total.",
                ReadTableArgs,
                self._table_totals,
                read_only=True,
                computes=True,
            ),
            ToolSpec("create_document", "Create a new empty .docx.", CreateArgs, self._create,
                     unapproved="a document that exists is added to (add_paragraphs, add_table), not created again",
                     effects=declared(self._create_effects), new_only=True),
            ToolSpec("add_paragraphs", "Append paragraphs at the end and save (a new document if there is none).",
                     ParagraphsArgs, self._add_paras,
                     effects=declared(self._add_effects)),
            ToolSpec("add_heading", "Append a heading at the end and save (a new document if there is none).",
                     HeadingArgs, self._add_heading,
                     effects=declared(self._add_effects)),
            ToolSpec("add_table", "Append a table at the end and save (a new document if there is none).",
                     TableArgs, self._add_table,
                     effects=declared(self._table_effects)),
            ToolSpec("set_table_cell", "Set the text of one table cell and save.", CellArgs, self._set_cell,
                     effects=declared(self._cell_effects), edits=True),
            *more,
        ]]

    def _sensitive(self, tool: str, args: Any) -> bool:
        # Appending loses nothing; replacing a whole file, or a cell's existing text, does.
        return approval.sensitive(self._by_name[tool], args, self.workspace)

    # -- effects -------------------------------------------------------------------------------
    def _create_effects(self, args: CreateArgs) -> tuple[Effect, ...]:
        return approval.whole_file(self.workspace, self._target(args.path), args.overwrite)

    def _add_effects(self, args: PathArgs) -> tuple[Effect, ...]:
        """What is appended at the end: added to the document, or a new document where there is none."""
        path = self._target(args.path)
        return (self.workspace.effect(path, Change.ADD if path.exists() else Change.CREATE),)

    def _table_effects(self, args: TableArgs) -> tuple[Effect, ...]:
        """A table the document holds already, cell for cell, is not added again: nothing changes."""
        path = self._target(args.path)
        if path.exists() and _held_table(self._peek(args.path), args.rows) is not None:
            return (self.workspace.effect(path, Change.KEEP),)
        return self._add_effects(args)

    def _cell_effects(self, args: CellArgs) -> tuple[Effect, ...]:
        document = self._peek(args.path)
        table = self._table(document, args.path, args.table)
        if args.row >= len(table.rows) or args.column >= len(table.columns):
            return ()  # refused
        old = table.cell(args.row, args.column).text
        change = Change.KEEP if old == args.text else Change.ADD if old.strip() == "" else Change.EDIT
        return (self.workspace.effect(self._target(args.path), change),)

    # -- reading -------------------------------------------------------------------------------
    def _read_document(self, args: PathArgs) -> dict[str, Any]:
        from docx.table import Table
        from docx.text.paragraph import Paragraph

        document = self._open(args.path)
        blocks: list[dict[str, Any]] = []
        table_index, paragraph_index, budget, cut = 0, 0, MAX_RESULT_CHARS, False
        for block in document.iter_inner_content():
            if isinstance(block, Paragraph):
                # the paragraph's position, as insert_paragraph and delete_paragraph take it
                shown: dict[str, Any] = {"kind": "paragraph", "paragraph": paragraph_index,
                                         "style": block.style.name if block.style else None, "text": block.text}
                paragraph_index += 1
                size = len(block.text)
            elif isinstance(block, Table):
                shown = {"kind": "table", "index": table_index, **read_table_grid(block)}
                size = sum(len(cell) for row in shown["rows"] for cell in row)
                table_index += 1
            else:
                continue
            if size > budget and blocks:
                cut = True  # the rest is counted, not shown: a result a model can read
                continue
            budget -= size
            blocks.append(shown)
        done = {"path": args.path, "blocks": blocks, "tables": table_index, **doc_pages.shown(document)}
        if cut:
            done |= {"truncated": True, LEFT_OUT: "the blocks past the first shown",
                     "note": f"the document holds more than {MAX_RESULT_CHARS:,} characters: only its first blocks "
                             "are shown; read a table with read_table"}
        return done

    def _read_table(self, args: ReadTableArgs) -> dict[str, Any]:
        document = self._open(args.path)
        table = self._table(document, args.path, args.index)
        grid = read_table_grid(table, repeat_merged=args.repeat_merged)
        budget, kept = MAX_RESULT_CHARS, 0
        for row in grid["rows"]:
            budget -= sum(len(cell) for cell in row)
            if budget < 0 and kept:
                break
            kept += 1
        done = {"path": args.path, "index": args.index, **grid}
        left = [f"{len(document.tables) - 1} other table(s) of {len(document.tables)}"] if len(document.tables) > 1 \
            else []
        if kept < len(grid["rows"]):
            done |= {"rows": grid["rows"][:kept], "truncated": True,
                     "note": f"the table holds more than {MAX_RESULT_CHARS:,} characters: its first {kept} of "
                             f"{len(grid['rows'])} rows are shown"}
            left.append(f"rows {kept + 1}-{len(grid['rows'])}")
        return done | ({LEFT_OUT: "; ".join(left)} if left else {})

    def _table_totals(self, args: ReadTableArgs) -> dict[str, Any]:
        document = self._open(args.path)
        rows = read_table_grid(self._table(document, args.path, args.index), repeat_merged=args.repeat_merged)["rows"]
        try:
            return {"path": args.path, "index": args.index, **table_totals(rows)}
        except ValueError as exc:
            raise ToolError(f"table {args.index} of {args.path!r}: {exc}") from exc

    # -- writing -------------------------------------------------------------------------------
    def _create(self, args: CreateArgs) -> dict[str, Any]:
        import docx

        path = self._target(args.path)
        if path.exists() and not args.overwrite:
            raise ToolError(f"{args.path!r} already exists: add to it or change a part of it with the tools that "
                            "edit a document (add_paragraphs, insert_paragraph, replace_text...); pass overwrite=true "
                            "to replace it with an empty one (needs approval)")
        document = docx.Document()
        if args.title:
            document.add_heading(args.title, level=0)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_save(path, lambda tmp: document.save(str(tmp)))
        return {"path": args.path, "created": True}

    def _add_paras(self, args: ParagraphsArgs) -> dict[str, Any]:
        document = self._open_or_new(args.path)
        for text in args.paragraphs:
            document.add_paragraph(text, style=self._style(document, args.style))
        self._save(document, args.path)
        return {"path": args.path, "added_paragraphs": len(args.paragraphs)}

    def _add_heading(self, args: HeadingArgs) -> dict[str, Any]:
        document = self._open_or_new(args.path)
        document.add_heading(args.text, level=args.level)
        self._save(document, args.path)
        return {"path": args.path, "added_heading": args.text}

    def _add_table(self, args: TableArgs) -> dict[str, Any]:
        document = self._open_or_new(args.path)
        width = max(len(row) for row in args.rows)
        if width == 0:
            raise ToolError("the table has no columns: give at least one cell")
        if (held := _held_table(document, args.rows)) is not None:
            return {"path": args.path, "table": held, "rows": len(args.rows), "columns": width, "unchanged": True,
                    "note": f"the document already holds this table (table {held}): nothing written"}
        table = document.add_table(rows=len(args.rows), cols=width)
        note = ""
        if args.style:
            # The look is not the content: the 1.5B AppAgent asked for the paragraph style 'Normal' three
            # times and gave up on the table. The table is added in the default look, and the result says so.
            try:
                table.style = self._style(document, args.style, "table")
            except ToolError as exc:
                note = f"{exc}; the table has the default table style instead"
                with contextlib.suppress(ToolError):
                    table.style = self._style(document, DEFAULT_TABLE_STYLE, "table")
        for r, row in enumerate(args.rows):
            for c, value in enumerate(row):
                table.cell(r, c).text = _cell_text(value)
        self._save(document, args.path)
        index = len(document.tables) - 1
        done = {"path": args.path, "table": index, "rows": len(args.rows), "columns": width}
        return {**done, "note": note} if note else done

    def _set_cell(self, args: CellArgs) -> dict[str, Any]:
        document = self._open(args.path)
        table = self._table(document, args.path, args.table)
        if args.row >= len(table.rows) or args.column >= len(table.columns):
            raise ToolError(
                f"table {args.table} has {len(table.rows)} rows and {len(table.columns)} columns; "
                f"({args.row}, {args.column}) is outside it"
            )
        table.cell(args.row, args.column).text = args.text
        self._save(document, args.path)
        return {"path": args.path, "table": args.table, "row": args.row, "column": args.column}

    # -- helpers -------------------------------------------------------------------------------
    def _target(self, path: str) -> Path:
        """Where the document is: a link followed to its file, which must be a .docx too."""
        return self.workspace.typed(path, ".docx", "a .docx path (only Word .docx files are supported)")

    def _open(self, path: str) -> Any:
        """The document, parsed from its bytes once they passed the package limits; the one a call's effects
        just parsed, when the file is unchanged (it is then the call's to change)."""
        resolved, data = self._bytes(path)
        key = (str(resolved), hashlib.blake2b(data, digest_size=16).hexdigest())
        if self._peeked is not None and self._peeked[0] == key:
            document, self._peeked = self._peeked[1], None
            return document
        return self._parse(data, path)

    def _peek(self, path: str) -> Any:
        """The document as the file holds it, for a call's effects (read only; _open hands it to the call)."""
        resolved, data = self._bytes(path)
        key = (str(resolved), hashlib.blake2b(data, digest_size=16).hexdigest())
        if self._peeked is None or self._peeked[0] != key:
            self._peeked = (key, self._parse(data, path))
        return self._peeked[1]

    def _bytes(self, path: str) -> tuple[Path, bytes]:
        resolved = self._target(path)
        if not resolved.exists():
            raise self.workspace.missing(path, f"{self.workspace.of_type('.docx')}; a new one is made with "
                                               "create_document")
        return resolved, self.workspace.read_bytes(resolved, self.limits.max_file_bytes, path)

    def _parse(self, data: bytes, path: str) -> Any:
        import docx

        check_package(data, path, self.limits, ".docx file")
        try:
            return docx.Document(io.BytesIO(data))
        except FileRefused:
            raise
        except Exception as exc:  # python-docx on a damaged package: any of a dozen exceptions
            raise ToolError(f"{path!r} is not a readable .docx file ({type(exc).__name__}: {exc})") from exc

    def _open_or_new(self, path: str) -> Any:
        """The document, or a new empty one where there is none: appending to a document that does not
        exist yet makes it (the plan declared the path)."""
        if self._target(path).exists():
            return self._open(path)
        import docx

        return docx.Document()

    def _save(self, document: Any, path: str) -> None:
        target = self._target(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_save(target, lambda tmp: document.save(str(tmp)))

    @staticmethod
    def _table(document: Any, path: str, index: int) -> Any:
        tables = document.tables
        if index >= len(tables):
            raise ToolError(f"{path!r} has {len(tables)} table(s); there is no table {index}")
        return tables[index]

    @staticmethod
    def _style(document: Any, name: str | None, kind: str = "paragraph") -> Any:
        """The named style, of the right kind (python-docx refuses a paragraph style on a table with a
        message about style type numbers, which tells a model nothing it can use)."""
        from docx.enum.style import WD_STYLE_TYPE

        if name is None:
            return None
        wanted = WD_STYLE_TYPE.TABLE if kind == "table" else WD_STYLE_TYPE.PARAGRAPH
        names = [s.name for s in document.styles if s.type == wanted]
        try:
            style = document.styles[name]
        except KeyError:
            style = None
        if style is None or style.type != wanted:
            problem = f"has no {kind} style {name!r}" if style is None else f"style {name!r} is not a {kind} style"
            raise ToolError(f"the document {problem}; its {kind} styles: {', '.join(names[:12]) or 'none'}")
        return style


def read_table_grid(table: Any, *, repeat_merged: bool = False) -> dict[str, Any]:
    """A table as a rectangular grid of texts plus its merges (see the module docstring)."""
    from docx.table import _Cell

    origins: dict[tuple[int, int], dict[str, Any]] = {}  # merge origin -> merge record
    covering: dict[tuple[int, int], tuple[int, int]] = {}  # covered position -> its origin
    texts: dict[tuple[int, int], str] = {}
    n_rows = len(table._tbl.tr_lst)
    width = len(table._tbl.tblGrid.gridCol_lst) if table._tbl.tblGrid is not None else 0
    for r, tr in enumerate(table._tbl.tr_lst):
        column = tr.grid_before
        for tc in tr.tc_lst:
            span = max(tc.grid_span, 1)
            above = covering.get((r - 1, column), (r - 1, column))
            if tc.vMerge == "continue" and above in origins:
                record = origins[above]
                record["rows"] = r - record["row"] + 1
                for c in range(column, column + span):
                    covering[(r, c)] = above
            else:
                texts[(r, column)] = _Cell(tc, table).text.strip()
                origins[(r, column)] = {"row": r, "column": column, "rows": 1, "columns": span}
                for c in range(column + 1, column + span):
                    covering[(r, c)] = (r, column)
            column += span
        width = max(width, column)
    rows = [["" for _ in range(width)] for _ in range(n_rows)]
    for (r, c), text in texts.items():
        rows[r][c] = text
    if repeat_merged:
        for (r, c), origin in covering.items():
            rows[r][c] = texts.get(origin, "")
    merged = [m for m in origins.values() if m["rows"] > 1 or m["columns"] > 1]
    return {"rows": rows, "merged": merged, "n_rows": n_rows, "n_columns": width}


def _held_table(document: Any, rows: Sequence[Sequence[CellValue]]) -> int | None:
    """The index of a table of the document that holds these rows cell for cell (text, spaces aside), or None."""
    wanted = [[_cell_text(v).strip() for v in row] for row in rows]
    for index, table in enumerate(document.tables):
        if [[cell.text.strip() for cell in row.cells] for row in table.rows] == wanted:
            return index
    return None


def _cell_text(value: CellValue) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
