"""files: replace_text and append_at_end on real text files, and no text ever written into a typed file."""

from __future__ import annotations

from pathlib import Path

import docx
import pytest
from openpyxl import load_workbook

from podium.apps.base import Change
from podium.apps.files import FilesApplication
from podium.apps.registry import build_applications
from podium.apps.workspace import Workspace
from tests.apps.books import ORDERS, report, workbook
from tests.apps.effects_check import call_checked, kinds

OWNED = {".docx": "documents", ".xlsx": "spreadsheets"}


@pytest.fixture
def files(workspace: Workspace) -> FilesApplication:
    return FilesApplication(workspace, OWNED)


async def test_replace_every_occurrence(files: FilesApplication, root: Path) -> None:
    (root / "memo.txt").write_text("Dear team,\nthe Q3 plan: Q3 targets.\nq3 ends soon.\n")
    call = {"path": "memo.txt", "find": "Q3", "replace_with": "third quarter"}
    assert kinds(files, "replace_text", call) == [Change.EDIT] and files.is_sensitive("replace_text", call)
    result = await call_checked(files, root, "replace_text", call)
    assert result.content == {"path": "memo.txt", "replacements": 2}
    assert (root / "memo.txt").read_text() == \
        "Dear team,\nthe third quarter plan: third quarter targets.\nq3 ends soon.\n"
    other_case = await call_checked(files, root, "replace_text", {**call, "find": "Q3"})
    assert "occurs 1 time(s) in another case: pass match_case=false" in other_case.error
    await call_checked(files, root, "replace_text", {**call, "find": "Q3", "match_case": False})
    assert "q3" not in (root / "memo.txt").read_text()


async def test_replace_refusals_change_nothing(files: FilesApplication, root: Path) -> None:
    (root / "data.bin").write_bytes(b"ab\x00cd")
    (root / "latin.txt").write_bytes("caf\xe9".encode("latin-1"))
    binary = await call_checked(files, root, "replace_text", {"path": "data.bin", "find": "ab", "replace_with": "x"})
    assert "binary file" in binary.error
    latin = await call_checked(files, root, "replace_text", {"path": "latin.txt", "find": "caf", "replace_with": "x"})
    assert "is not UTF-8 text" in latin.error and (root / "latin.txt").read_bytes() == "caf\xe9".encode("latin-1")
    missing = await call_checked(files, root, "replace_text", {"path": "nope.txt", "find": "a", "replace_with": "b"})
    assert "'nope.txt' does not exist" in missing.error
    outside = await call_checked(files, root, "replace_text", {"path": "../outside/secret.txt", "find": "top",
                                                                "replace_with": "x"})
    assert "outside the workspace" in outside.error


async def test_append_adds_a_line_once(files: FilesApplication, root: Path) -> None:
    (root / "log.txt").write_text("first")  # no newline at the end
    call = {"path": "log.txt", "text": "second"}
    assert kinds(files, "append_at_end", call) == [Change.ADD] and not files.is_sensitive("append_at_end", call)
    await call_checked(files, root, "append_at_end", call)
    assert (root / "log.txt").read_text() == "first\nsecond\n"
    assert (await call_checked(files, root, "append_at_end", call)).content["unchanged"] is True  # a repeated call
    await call_checked(files, root, "append_at_end", {"path": "log.txt", "text": "third"})
    await call_checked(files, root, "append_at_end", call)  # the same line again, after another one: wanted
    assert (root / "log.txt").read_text() == "first\nsecond\nthird\nsecond\n"
    created = {"path": "new/todo.txt", "text": "buy ink"}
    assert kinds(files, "append_at_end", created) == [Change.CREATE]
    await call_checked(files, root, "append_at_end", created)
    assert (root / "new/todo.txt").read_text() == "buy ink\n"


@pytest.mark.parametrize(("tool", "arguments", "owner"), [
    ("write_file", {"path": "report.docx", "content": "plain text"}, "documents"),
    ("write_file", {"path": "new.xlsx", "content": "a,b"}, "spreadsheets"),
    ("write_file_names", {"path": ".", "pattern": "*", "into": "names.xlsx"}, "spreadsheets"),
    ("replace_text", {"path": "report.docx", "find": "Q3", "replace_with": "x"}, "documents"),
    ("append_at_end", {"path": "o.xlsx", "text": "x"}, "spreadsheets"),
    ("copy_or_move", {"mode": "move", "source": "notes.txt", "destination": "notes.docx"}, "documents"),
    ("copy_or_move", {"mode": "copy", "source": "notes.txt", "destination": "copy.xlsx"}, "tools that write that type"),
])
async def test_text_never_goes_into_a_typed_file(files: FilesApplication, root: Path, tool: str,
                                                 arguments: dict[str, object], owner: str) -> None:
    report(root / "report.docx")
    workbook(root / "o.xlsx", {"Orders": ORDERS})
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    result = await files.call(tool, arguments)
    assert result.error is not None and owner in result.error
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before
    assert files.is_sensitive(tool, arguments) is False  # refused outright: nothing to approve
    docx.Document(str(root / "report.docx"))  # both still open as what they are
    load_workbook(root / "o.xlsx")


async def test_bytes_of_typed_files_still_move(files: FilesApplication, root: Path) -> None:
    report(root / "report.docx")
    assert (await files.call("copy_or_move", {"mode": "copy",
                                              "source": "report.docx", "destination": "backup/report.docx"})).ok
    assert (await files.call("copy_or_move", {"mode": "move", "source": "report.docx", "destination": "final.docx"})).ok
    docx.Document(str(root / "final.docx"))
    assert (await files.call("write_file", {"path": "notes.md", "content": "# ok"})).ok


async def test_the_registry_names_the_owner_or_says_none_is_enabled(root: Path) -> None:
    apps = build_applications({"workspace": str(root), "enabled": ["files", "spreadsheets"]})
    files = apps["files"]
    docx_refused = await files.call("write_file", {"path": "a.docx", "content": "x"})
    assert "no enabled application writes .docx files" in docx_refused.error
    xlsx_refused = await files.call("write_file", {"path": "a.xlsx", "content": "x"})
    assert "write it with the spreadsheets application's tools" in xlsx_refused.error
    assert not (root / "a.docx").exists() and not (root / "a.xlsx").exists()


async def test_the_lines_that_hold_a_text_are_written_into_another_file(files: FilesApplication, root: Path) -> None:
    notes = "03-01 Refund approved for order 12\n03-02 Password reset\n03-03 partial REFUND of 4.50\n03-04 Invoice\n"
    (root / "notes.txt").write_text(notes)
    call = {"path": "notes.txt", "contains": "refund", "into": "refunds.txt"}
    assert kinds(files, "write_matching_lines", call) == [Change.CREATE]
    assert not files.is_sensitive("write_matching_lines", call)
    result = await call_checked(files, root, "write_matching_lines", call)
    assert result.content["lines"] == 2
    assert (root / "refunds.txt").read_text() == "03-01 Refund approved for order 12\n03-03 partial REFUND of 4.50\n"
    # the others, into a new file; in the given case only
    await call_checked(files, root, "write_matching_lines", {**call, "into": "rest.txt", "without": True})
    assert (root / "rest.txt").read_text() == "03-02 Password reset\n03-04 Invoice\n"
    await call_checked(files, root, "write_matching_lines", {**call, "into": "cased.txt", "contains": "REFUND",
                                                              "match_case": True})
    assert (root / "cased.txt").read_text() == "03-03 partial REFUND of 4.50\n"
    # an existing file is replaced only with overwrite, which needs approval; nothing matching writes nothing
    again = await call_checked(files, root, "write_matching_lines", {**call, "contains": "invoice"})
    assert again.error is not None and (root / "refunds.txt").read_text().count("\n") == 2
    assert files.is_sensitive("write_matching_lines", {**call, "contains": "invoice", "overwrite": True})
    none = await call_checked(files, root, "write_matching_lines", {**call, "contains": "kettle", "into": "k.txt"})
    assert "no line holds 'kettle' in 'notes.txt': nothing written" in none.error and not (root / "k.txt").exists()
    # a typed file is no text to take lines from, nor to write them into
    report(root / "report.docx")
    typed = await call_checked(files, root, "write_matching_lines", {**call, "path": "report.docx", "into": "r.txt"})
    assert "is a .docx file, not a text file" in typed.error
    into = await call_checked(files, root, "write_matching_lines", {**call, "into": "refunds.docx"})
    assert "is a .docx file, not a text file" in into.error and (root / "notes.txt").read_text() == notes
