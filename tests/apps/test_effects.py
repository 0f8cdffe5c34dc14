"""Effects: the paths every changing tool of the built-in applications would change, after links are
followed, and the approval that follows from them (a destructive change of a path that exists, any change
of a protected path)."""

from __future__ import annotations

import os
from pathlib import Path

import docx
import pytest
from openpyxl import Workbook

from podium.apps.approval import SHOWN_CHARS, SHOWN_LINES, needs_approval
from podium.apps.base import Change, Effect
from podium.apps.desktop_apps import DesktopApplication
from podium.apps.documents import DocumentsApplication
from podium.apps.files import FilesApplication
from podium.apps.lifecycle import DesktopAppConfig, Lifecycle
from podium.apps.mcp_servers import McpApplication, McpServerConfig
from podium.apps.sandbox import Access
from podium.apps.shell import ShellApplication
from podium.apps.spreadsheets import SpreadsheetsApplication
from podium.apps.workspace import Workspace

C, A, E, R, D, M, K = Change.CREATE, Change.ADD, Change.EDIT, Change.REPLACE, Change.DELETE, Change.MOVE, Change.KEEP


@pytest.fixture
def protected(root: Path) -> Workspace:
    (root / "podium.toml").write_text("[apps]\n")
    (root / ".podium").mkdir()
    (root / ".podium" / "journal.db").write_bytes(b"SQLite format 3\x00")
    return Workspace.at(root, [root / ".podium" / "journal.db"])


def test_change_kinds_that_may_lose_what_a_path_held() -> None:
    assert [c for c in Change if c.destructive] == [E, R, D]


def test_files_effects(protected: Workspace, root: Path) -> None:
    files = FilesApplication(protected)
    (root / "sub" / "link.txt").symlink_to("../notes.txt")
    cases = [
        ("write_file", {"path": "new.txt", "content": "x"}, [("new.txt", C)]),
        ("write_file", {"path": "a/b/new.txt", "content": "x"}, [("a/b/new.txt", C)]),
        ("write_file", {"path": "notes.txt", "content": "x", "overwrite": True}, [("notes.txt", R)]),
        ("write_file", {"path": "notes.txt", "content": "hello\n", "overwrite": True}, [("notes.txt", K)]),  # holds it
        ("write_file", {"path": "notes.txt", "content": "x"}, []),  # refused: exists, no overwrite
        ("write_file", {"path": "sub/link.txt", "content": "x", "overwrite": True}, [("notes.txt", R)]),
        ("write_file", {"path": "../escape.txt", "content": "x"}, []),  # refused
        ("make_folder", {"path": "fresh"}, [("fresh", C)]),
        ("make_folder", {"path": "sub"}, [("sub", K)]),  # there already
        ("copy_or_move", {"mode": "copy", "source": "notes.txt", "destination": "sub"}, [("sub/notes.txt", C)]),
        ("copy_or_move", {"mode": "copy", "source": "notes.txt", "destination": "sub/inner.txt", "overwrite": True},
         [("sub/inner.txt", R)]),
        ("copy_or_move", {"mode": "move",
                          "source": "notes.txt", "destination": "moved.txt"}, [("notes.txt", M), ("moved.txt", C)]),
        ("copy_or_move", {"mode": "move",
                          "source": "sub/*.txt", "destination": "all"}, [("sub/inner.txt", M), ("all/inner.txt", C),
                                                                  ("sub/link.txt", M), ("all/link.txt", C)]),
        ("rename_pattern", {"pattern": "^notes", "replacement": "memo"}, [("notes.txt", M), ("memo.txt", C)]),
        ("rename_pattern", {"pattern": "^notes", "replacement": "memo", "dry_run": True}, []),
        ("delete", {"path": "sub/link.txt"}, [("sub/link.txt", D)]),  # the link, not what it points at
        ("delete", {"path": "sub"}, []),  # refused: not empty
        ("delete", {"path": "missing.txt"}, []),
        ("list_files", {}, []),
        ("read_file", {"path": "notes.txt"}, []),
    ]
    for tool, args, expected in cases:
        assert tuple((e.path, e.change) for e in files.effects(tool, args)) == tuple(expected), (tool, args)


async def test_an_overwrite_or_an_edit_of_text_says_which_lines_it_removes_and_adds(root: Path) -> None:
    files = FilesApplication(Workspace.at(root))
    (root / "plan.txt").write_text("keep me\nold line\nalso kept\n")
    [over] = files.effects("write_file", {"path": "plan.txt", "content": "keep me\nnew line\nalso kept\n",
                                          "overwrite": True})
    assert (over.change, over.removes, over.adds) == (R, ("old line",), ("new line",))
    [edit] = files.effects("replace_text", {"path": "plan.txt", "find": "old", "replace_with": "older"})
    assert (edit.change, edit.removes, edit.adds) == (E, ("old line",), ("older line",))
    # a long change is shown in part: a few lines, each cut short, the rest counted
    many = "\n".join(f"line {i} " + "x" * 200 for i in range(SHOWN_LINES + 3))
    [long] = files.effects("write_file", {"path": "plan.txt", "content": many, "overwrite": True})
    assert len(long.adds) == SHOWN_LINES + 1 and long.adds[-1] == "(and 3 more lines)"
    assert all(len(line) <= SHOWN_CHARS for line in long.adds)
    # the result of the overwrite says the same to the agent
    done = await files.call("write_file", {"path": "plan.txt", "content": "keep me\n", "overwrite": True})
    assert done.content["removed_lines"] == ["old line", "also kept"] and done.content["added_lines"] == []
    # a rewrite that keeps less than half of the lines where they were wipes the text; an edit of a line does not
    (root / "server.conf").write_text("# web\nhost = 0.0.0.0\nport = 8080\nworkers = 4\n")
    [wiped] = files.effects("write_file", {"path": "server.conf", "content": "port = 9090\n", "overwrite": True})
    [edited] = files.effects("write_file", {"path": "server.conf", "overwrite": True,
                                            "content": "# web\nhost = 0.0.0.0\nport = 9090\nworkers = 4\n"})
    [replaced] = files.effects("replace_text", {"path": "server.conf", "find": "8080", "replace_with": "9090"})
    assert wiped.wipes and not edited.wipes and not replaced.wipes
    assert not over.wipes and not edit.wipes
    # two lines both replaced are another text; one of two changed, or a single line, is an edit
    (root / "shopping.txt").write_text("bread\nmilk\n")
    [both] = files.effects("write_file", {"path": "shopping.txt", "content": "eggs\neggs\n", "overwrite": True})
    [one] = files.effects("write_file", {"path": "shopping.txt", "content": "bread\neggs\n", "overwrite": True})
    assert both.wipes and not one.wipes
    # a rewrite that keeps most lines but deletes one with nothing in its place drops it; blank lines aside,
    # a change of a line, or a block replaced by as many lines, drops nothing
    [lossy] = files.effects("write_file", {"path": "server.conf", "overwrite": True,
                                           "content": "host = 0.0.0.0\nport = 9090\nworkers = 4"})
    assert not lossy.wipes and lossy.drops == ("# web",)
    assert edited.drops == () and replaced.drops == ()
    [spaced] = files.effects("write_file", {"path": "server.conf", "overwrite": True,
                                            "content": "# web\n\nhost = 0.0.0.0\nport = 9090\nworkers = 4\n\n"})
    assert spaced.drops == ()
    [cut] = files.effects("replace_text", {"path": "server.conf", "find": "workers = 4\n", "replace_with": ""})
    assert cut.change is E and cut.drops == ("workers = 4",)
    # a change that leaves a text holding nothing empties it (a listing of no names written over it); one that
    # keeps a line, or a file that held nothing, does not
    [emptied] = files.effects("write_file_names", {"path": ".", "pattern": "*.none", "into": "server.conf",
                                                   "overwrite": True})
    assert emptied.empties and not (wiped.empties or lossy.empties or cut.empties)
    (root / "blank.txt").write_text("\n")
    [blank] = files.effects("write_file", {"path": "blank.txt", "content": "", "overwrite": True})
    assert not blank.empties
    # a file that is not text has no lines to show
    (root / "blob.txt").write_bytes(b"\x00\x01")
    [blob] = files.effects("write_file", {"path": "blob.txt", "content": "x", "overwrite": True})
    assert (blob.removes, blob.adds) == ((), ())


def test_approval_follows_from_effects(protected: Workspace, root: Path) -> None:
    files = FilesApplication(protected)
    # content goes on
    assert not files.is_sensitive("copy_or_move", {"mode": "move", "source": "notes.txt", "destination": "moved.txt"})
    assert not files.is_sensitive("rename_pattern", {"pattern": "^notes", "replacement": "memo"})
    assert files.is_sensitive("delete", {"path": "notes.txt"})
    assert files.is_sensitive("rename_pattern", {"pattern": "^podium", "replacement": "x"})
    assert files.is_sensitive("copy_or_move", {"mode": "move",
                                               "source": ".podium", "destination": "old"})  # holds the journal
    assert not needs_approval([Effect("fresh.txt", C), Effect("notes.txt", A)], protected)
    assert needs_approval([Effect("notes.txt", E)], protected)
    assert not needs_approval([Effect("gone.txt", E)], protected)  # nothing there to lose
    assert needs_approval([Effect("/etc/passwd", A)], protected)  # outside: always
    assert needs_approval([Effect("sub/podium.toml", C)], protected)  # a configuration anywhere


def test_a_hard_link_of_a_protected_file_is_protected(protected: Workspace, root: Path) -> None:
    os.link(root / ".podium" / "journal.db", root / "copy.db")
    assert protected.is_protected(root / "copy.db") and not protected.is_protected(root / "notes.txt")


def test_documents_effects(protected: Workspace, root: Path) -> None:
    document = docx.Document()
    table = document.add_table(rows=1, cols=2)
    table.cell(0, 0).text = "kept"
    document.save(str(root / "r.docx"))
    (root / "alias.docx").symlink_to("r.docx")
    documents = DocumentsApplication(protected)
    cell = {"path": "r.docx", "table": 0, "row": 0}
    assert documents.effects("set_table_cell", {**cell, "column": 0, "text": "new"}) == (Effect("r.docx", E),)
    assert documents.effects("set_table_cell", {**cell, "column": 1, "text": "new"}) == (Effect("r.docx", A),)
    assert documents.effects("set_table_cell", {**cell, "column": 0, "text": "kept"}) == (Effect("r.docx", K),)
    assert documents.effects("set_table_cell", {**cell, "column": 5, "text": "x"}) == ()
    assert documents.effects("add_paragraphs", {"path": "alias.docx", "paragraphs": ["x"]}) == (Effect("r.docx", A),)
    assert documents.effects("create_document", {"path": "n.docx"}) == (Effect("n.docx", C),)
    assert documents.effects("create_document", {"path": "r.docx", "overwrite": True}) == (Effect("r.docx", R),)
    assert documents.effects("create_document", {"path": "r.docx"}) == ()
    assert documents.is_sensitive("set_table_cell", {**cell, "column": 0, "text": "new"})
    assert not documents.is_sensitive("set_table_cell", {**cell, "column": 1, "text": "new"})


async def test_spreadsheets_effects_parse_a_workbook_once_per_call(protected: Workspace, root: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    book = Workbook()
    book.active.title = "S"
    for row in (["Item", "Amount"], ["a", 1], ["b", 2]):
        book.active.append(row)
    book.save(root / "w.xlsx")
    sheets = SpreadsheetsApplication(protected)
    # a change confined to one sheet names it (`part`); one that adds a sheet names the sheet it makes
    cases = [
        ("write_rows", {"path": "w.xlsx", "start": "A4", "rows": [["c", 3]]}, Effect("w.xlsx", A, part="S")),
        ("write_rows", {"path": "w.xlsx", "start": "A2", "rows": [["z", 9]]}, Effect("w.xlsx", E, part="S")),
        ("set_cell", {"path": "w.xlsx", "cell": "B2", "value": 1}, Effect("w.xlsx", K, part="S")),  # holds it
        ("append_rows", {"path": "w.xlsx", "rows": [["c", 3]]}, A),
        ("add_totals_row", {"path": "w.xlsx"}, A),
        ("add_chart", {"path": "w.xlsx", "kind": "bar", "data": "A1:B3", "title": "t"}, A),
        ("add_sheet", {"path": "w.xlsx", "name": "T"}, Effect("w.xlsx", A, makes="T")),
        ("sort_rows", {"path": "w.xlsx", "by": "Amount", "order": "descending"}, Effect("w.xlsx", E, part="S")),
        ("sort_rows", {"path": "w.xlsx", "by": "Amount", "order": "ascending"}, None),  # in order already
        ("sort_rows", {"path": "w.xlsx", "by": "Amount", "order": "ascending", "target_sheet": "Sorted"},
         Effect("w.xlsx", A, part="Sorted", makes="Sorted")),
        ("set_cell", {"path": "w.xlsx", "cell": "XFD1048576", "value": 1}, None),  # refused: past the limits
        ("create_workbook", {"path": "w.xlsx", "overwrite": True}, R),
    ]
    for tool, args, change in cases:
        expected = () if change is None else (change if isinstance(change, Effect) else Effect("w.xlsx", change),)
        assert sheets.effects(tool, args) == expected, (tool, args)
    # effects, sensitivity and the call itself parse the workbook once between them
    import openpyxl

    loads = []
    original = openpyxl.load_workbook
    monkeypatch.setattr(openpyxl, "load_workbook", lambda *a, **k: loads.append(1) or original(*a, **k))
    call, fresh = {"path": "w.xlsx", "start": "A2", "rows": [["z", 9]]}, SpreadsheetsApplication(protected)
    assert fresh.effects("write_rows", call) and fresh.is_sensitive("write_rows", call)
    assert (await fresh.call("write_rows", call)).ok and len(loads) == 1
    assert (await fresh.call("write_rows", {**call, "rows": [["y", 8]]})).ok and len(loads) == 2  # changed file


def test_shell_effects(protected: Workspace) -> None:
    shell = ShellApplication(protected)
    assert shell.effects("run_command", {"command": "cat notes.txt"}) == ()
    assert shell.effects("run_command", {"command": "cp notes.txt b.txt"}) == (Effect(".", E),)
    assert shell.effects("run_command", {"command": "bash -c ls"}) == ()  # refused
    assert shell.is_sensitive("run_command", {"command": "mkdir x"})


def test_desktop_effects(protected: Workspace, root: Path) -> None:
    reader = DesktopApplication(DesktopAppConfig("viewer", ("xmessage",), opens_files=True), Lifecycle(), protected)
    writer = DesktopApplication(DesktopAppConfig("editor", ("xmessage",), opens_files=True,
                                                 workspace_access=Access.WRITE), Lifecycle(), protected)
    assert reader.effects("open_file", {"path": "notes.txt"}) == ()
    assert writer.effects("open_file", {"path": "notes.txt"}) == (Effect("notes.txt", E),)
    assert not reader.is_sensitive("open_file", {"path": "notes.txt"})
    assert writer.is_sensitive("open_file", {"path": "notes.txt"})
    assert reader.is_sensitive("close", {}) and reader.effects("close", {}) == ()


def test_mcp_effects_are_unknown_unless_read_only() -> None:
    app = McpApplication(McpServerConfig(name="m", url="http://127.0.0.1:1/mcp"))
    from podium.apps.base import Tool

    app._tools = {"look": Tool("look", "", read_only=True), "change": Tool("change", "")}
    assert app.effects("look", {}) == () and app.effects("change", {}) is None


async def test_writing_rows_or_appending_to_a_document_that_does_not_exist_makes_it(root: Path) -> None:
    workspace = Workspace.at(root)
    sheets, documents = SpreadsheetsApplication(workspace), DocumentsApplication(workspace)
    rows = {"path": "out/new.xlsx", "sheet": "Data", "rows": [["Name", "Total"], ["East", 3]]}
    assert sheets.effects("write_rows", rows) == (Effect("out/new.xlsx", C),)
    assert not needs_approval(sheets.effects("write_rows", rows), workspace)
    assert (await sheets.call("write_rows", rows)).ok
    from openpyxl import load_workbook

    book = load_workbook(root / "out" / "new.xlsx")
    assert book.sheetnames == ["Data"] and [[c.value for c in r] for r in book["Data"].iter_rows()] == rows["rows"]
    assert sheets.effects("write_rows", {**rows, "rows": [["West", 4]], "start": "A3"}) == (
        Effect("out/new.xlsx", A, part="Data"),)
    para = {"path": "notes.docx", "paragraphs": ["First", "Second"]}
    assert documents.effects("add_paragraphs", para) == (Effect("notes.docx", C),)
    assert (await documents.call("add_paragraphs", para)).ok
    assert [p.text for p in docx.Document(str(root / "notes.docx")).paragraphs] == ["First", "Second"]
    assert documents.effects("add_heading", {"path": "notes.docx", "text": "Title"}) == (Effect("notes.docx", A),)
