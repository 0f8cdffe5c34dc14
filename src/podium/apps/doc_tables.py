"""The tables of a document: list_tables (which tables there are, their size and header, the text
before each), insert_table_row and delete_table_row.

A new row is a copy of the row next to it (the last row, or the one at the position asked), so it
keeps the table's look: borders, shading, each cell's font; only the texts change. read_table reads one
table, and set_table_cell changes one cell (documents).
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any

from pydantic import Field

from podium.apps.base import Change
from podium.apps.doc_edit import declaring, saving
from podium.apps.tooling import Args, ToolError, ToolSpec, file_path

_PATH = ".docx file, relative to the workspace root"
TableValue = str | int | float | bool | None


class ListArgs(Args):
    path: str = file_path(_PATH, ".docx")


class AddRowArgs(Args):
    path: str = file_path(_PATH, ".docx")
    table: int = Field(0, ge=0, description="which table, in document order, from 0")
    values: list[TableValue] = Field(min_length=1, description="the new row's cell texts, one a column, first column "
                                                               "first ('' for an empty cell)")
    position: int | None = Field(None, ge=1, description="the new row's number, from 0 (the header row); at the end "
                                                         "when omitted")


class DeleteRowArgs(Args):
    path: str = file_path(_PATH, ".docx")
    table: int = Field(0, ge=0, description="which table, in document order, from 0")
    row: int = Field(ge=0, description="the row's number, from 0 (the header row)")


def specs(app: Any) -> list[ToolSpec]:
    def on_table(do: Any) -> Any:
        return lambda app, document, args: do(document, app._table(document, args.path, args.table), args)

    def change(do: Any) -> Any:
        return saving(app, on_table(do))

    def effects(do: Any, kind: Change) -> Any:
        return declaring(app, on_table(do), kind)

    return [
        ToolSpec("list_tables", "List a document's tables: size, header row, and the text before each.", ListArgs,
                 lambda a: list_tables(app._open(a.path), a.path), read_only=True, describes=True),
        ToolSpec("insert_table_row", "Add a row to a table of a document (at the end, or at a position), in the "
                 "table's look, and save.", AddRowArgs, change(insert_table_row),
                 effects=effects(insert_table_row, Change.ADD), edits=True),
        ToolSpec("delete_table_row", "Delete one row of a table of a document and save.", DeleteRowArgs,
                 change(delete_table_row), effects=effects(delete_table_row, Change.EDIT), edits=True),
    ]


def list_tables(document: Any, path: str) -> dict[str, Any]:
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    from podium.apps.documents import read_table_grid

    tables, before = [], ""
    for block in document.iter_inner_content():
        if isinstance(block, Paragraph):
            before = block.text.strip() or before
        elif isinstance(block, Table):
            grid = read_table_grid(block)
            tables.append({"index": len(tables), "rows": grid["n_rows"], "columns": grid["n_columns"],
                           "header": grid["rows"][0] if grid["rows"] else [], "after_text": before[:120]})
    return {"path": path, "tables": tables, "count": len(tables)}


def _set_cell_text(tc: Any, text: str) -> None:
    """One paragraph with one run holding `text`, in the look of the cell's first run (its font, bold...)."""
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    paragraphs = tc.findall(qn("w:p"))
    for extra in paragraphs[1:]:
        tc.remove(extra)
    paragraph = paragraphs[0]
    runs = paragraph.findall(qn("w:r"))
    for extra in runs[1:]:
        paragraph.remove(extra)
    for child in list(paragraph):
        if child.tag not in (qn("w:pPr"), qn("w:r")):
            paragraph.remove(child)  # hyperlinks, bookmarks: the copied row's, not the new one's
    if runs:
        run = runs[0]
        for child in list(run):
            if child.tag != qn("w:rPr"):
                run.remove(child)
    else:
        run = OxmlElement("w:r")
        paragraph.append(run)
    element = OxmlElement("w:t")
    element.text = text
    element.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")
    run.append(element)


def insert_table_row(document: Any, table: Any, args: AddRowArgs) -> dict[str, Any]:
    from docx.oxml.ns import qn

    from podium.apps.documents import _cell_text

    rows = table._tbl.tr_lst
    if not rows:
        raise ToolError(f"table {args.table} has no rows to take the look from")
    at = len(rows) if args.position is None or args.position >= len(rows) else args.position
    model = rows[at - 1] if at == len(rows) else rows[at]
    cells = model.findall(qn("w:tc"))
    texts = [_cell_text(v) for v in args.values]
    if len(texts) != len(cells):
        # a shorter row is not padded: its values would land under the wrong headers as often as not
        header = _texts(rows[0])
        raise ToolError(f"table {args.table} has {len(cells)} cells in a row ({', '.join(header)}); {len(texts)} "
                        f"value{'s were' if len(texts) != 1 else ' was'} given: give one a cell, '' for an empty one")
    done = {"path": args.path, "table": args.table, "row": at, "values": texts}
    neighbour = rows[at - 1] if at > 0 else None
    if neighbour is not None and _texts(neighbour) == texts:
        return {**done, "unchanged": True, "note": f"row {at - 1} holds these values already: not added again"}
    new = deepcopy(model)
    for tc, text in zip(new.findall(qn("w:tc")), texts, strict=True):
        vmerge = tc.find(f"{qn('w:tcPr')}/{qn('w:vMerge')}")
        if vmerge is not None:
            vmerge.getparent().remove(vmerge)  # the new row is no part of a merge above or below
        _set_cell_text(tc, text)
    if at == len(rows):
        rows[-1].addnext(new)
    else:
        rows[at].addprevious(new)
    return done


def _texts(tr: Any) -> list[str]:
    from docx.oxml.ns import qn

    return ["".join(t.text or "" for t in tc.iter(qn("w:t"))).strip() for tc in tr.findall(qn("w:tc"))]


def delete_table_row(document: Any, table: Any, args: DeleteRowArgs) -> dict[str, Any]:
    rows = table._tbl.tr_lst
    if args.row >= len(rows):
        raise ToolError(f"table {args.table} has {len(rows)} rows (0-{len(rows) - 1}); there is no row {args.row}")
    if len(rows) == 1:
        raise ToolError(f"row {args.row} is the table's only row: delete the table instead")
    values = _texts(rows[args.row])
    rows[args.row].getparent().remove(rows[args.row])
    return {"path": args.path, "table": args.table, "deleted_row": args.row, "values": values}
