"""The files application on a real folder: what a user relies on, and every way out refused."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from podium.apps.base import Application
from podium.apps.files import FilesApplication
from podium.apps.workspace import Workspace


@pytest.fixture
def files(workspace: Workspace) -> FilesApplication:
    return FilesApplication(workspace)


def snapshot(folder: Path) -> dict[str, bytes | str]:
    """Everything under `folder` (files' bytes, links' targets), to prove nothing was touched."""
    out: dict[str, bytes | str] = {}
    for top, dirs, names in os.walk(folder):
        for name in dirs + names:
            path = Path(top) / name
            rel = str(path.relative_to(folder))
            if path.is_symlink():
                out[rel] = "link->" + os.readlink(path)
            elif path.is_file():
                out[rel] = path.read_bytes()
            else:
                out[rel] = "dir"
    return out


async def test_is_an_application(files: FilesApplication) -> None:
    assert isinstance(files, Application)
    names = {tool.name for tool in files.tools()}
    assert {"list_files", "read_file", "write_file", "copy", "move", "rename_pattern", "delete"} <= names
    schema = next(t for t in files.tools() if t.name == "write_file").parameters
    assert schema["type"] == "object" and set(schema["required"]) == {"path", "content"}


async def test_list_read_write(files: FilesApplication, root: Path) -> None:
    listing = await files.call("list_files", {})
    assert {e["path"] for e in listing.content["entries"]} == {"sub", "notes.txt"}
    deep = await files.call("list_files", {"recursive": True, "pattern": "*.txt"})
    assert {e["path"] for e in deep.content["entries"]} == {"notes.txt", "sub/inner.txt"}
    assert (await files.call("read_file", {"path": "notes.txt"})).content["text"] == "hello\n"
    written = await files.call("write_file", {"path": "new/dir/a.txt", "content": "é\n"})
    assert written.ok and (root / "new/dir/a.txt").read_text(encoding="utf-8") == "é\n"


async def test_write_never_overwrites_without_overwrite(files: FilesApplication, root: Path) -> None:
    result = await files.call("write_file", {"path": "notes.txt", "content": "gone"})
    assert not result.ok and "overwrite=true" in result.error
    assert (root / "notes.txt").read_text() == "hello\n"
    assert not files.is_sensitive("write_file", {"path": "fresh.txt", "content": "x"})
    assert not files.is_sensitive("write_file", {"path": "fresh.txt", "content": "x", "overwrite": True})
    assert files.is_sensitive("write_file", {"path": "notes.txt", "content": "x", "overwrite": True})
    mode = (root / "notes.txt").stat().st_mode
    assert (await files.call("write_file", {"path": "notes.txt", "content": "new", "overwrite": True})).ok
    assert (root / "notes.txt").read_text() == "new" and (root / "notes.txt").stat().st_mode == mode


async def test_copy_move_delete(files: FilesApplication, root: Path) -> None:
    assert (await files.call("copy", {"source": "notes.txt", "destination": "copy.txt"})).ok
    assert (root / "copy.txt").read_text() == "hello\n"
    assert (await files.call("copy", {"source": "sub", "destination": "sub2"})).ok
    assert (root / "sub2/inner.txt").read_text() == "inner\n"
    refused = await files.call("copy", {"source": "notes.txt", "destination": "sub/inner.txt"})
    assert not refused.ok and (root / "sub/inner.txt").read_text() == "inner\n"
    assert files.is_sensitive("copy", {"source": "notes.txt", "destination": "sub/inner.txt", "overwrite": True})
    assert (await files.call("move", {"source": "copy.txt", "destination": "sub/moved.txt"})).ok
    assert not (root / "copy.txt").exists() and (root / "sub/moved.txt").exists()
    refused = await files.call("move", {"source": "sub", "destination": "sub/deeper"})
    assert not refused.ok
    assert files.is_sensitive("delete", {"path": "sub2"})
    not_empty = await files.call("delete", {"path": "sub2"})
    assert not not_empty.ok and "recursive=true" in not_empty.error and (root / "sub2").exists()
    assert (await files.call("delete", {"path": "sub2", "recursive": True})).ok
    assert not (root / "sub2").exists()


async def test_a_copy_that_would_change_a_files_type_is_refused_with_the_tool_that_writes_text(
        files: FilesApplication, root: Path) -> None:
    (root / "meeting.docx").write_bytes(b"PK\x03\x04 a Word file")
    refused = await files.call("copy", {"source": "meeting.docx", "destination": "actions.txt"})
    assert not refused.ok and "write_file" in refused.error and not (root / "actions.txt").exists()
    assert (await files.call("copy", {"source": "meeting.docx", "destination": "old/meeting.DOCX"})).ok
    assert (await files.call("copy", {"source": "meeting.docx", "destination": "meeting-copy"})).ok  # no type named


async def test_delete_symlink_removes_the_link_not_its_target(files: FilesApplication, root: Path) -> None:
    (root / "link.txt").symlink_to("notes.txt")
    assert (await files.call("delete", {"path": "link.txt"})).ok
    assert not (root / "link.txt").exists() and (root / "notes.txt").read_text() == "hello\n"


async def test_rename_by_pattern(files: FilesApplication, root: Path) -> None:
    for name in ("q1.csv", "q2.csv", "keep.txt"):
        (root / name).write_text(name)
    dry = await files.call(
        "rename_pattern", {"pattern": r"q(\d)\.csv", "replacement": r"quarter-\1.csv", "dry_run": True}
    )
    assert dry.content["renamed"] == [["q1.csv", "quarter-1.csv"], ["q2.csv", "quarter-2.csv"]]
    assert (root / "q1.csv").exists()
    done = await files.call("rename_pattern", {"pattern": r"q(\d)\.csv", "replacement": r"quarter-\1.csv"})
    assert done.ok and (root / "quarter-2.csv").read_text() == "q2.csv" and (root / "keep.txt").exists()


@pytest.mark.parametrize(
    ("pattern", "replacement", "why"),
    [
        (r"quarter-\d\.csv", "same.csv", "both be renamed"),
        (r"quarter-1\.csv", "keep.txt", "replace an existing"),
        (r"quarter-1\.csv", "../escaped.csv", "not a plain name"),
        (r"quarter-1\.csv", "sub/x.csv", "not a plain name"),
        (r"(", "x", "not a valid regular expression"),
    ],
)
async def test_rename_by_pattern_refuses_collisions_and_escapes(
    files: FilesApplication, root: Path, pattern: str, replacement: str, why: str
) -> None:
    for name in ("quarter-1.csv", "quarter-2.csv", "keep.txt"):
        (root / name).write_text(name)
    before = snapshot(root.parent)
    result = await files.call("rename_pattern", {"pattern": pattern, "replacement": replacement})
    assert not result.ok and why in result.error
    assert snapshot(root.parent) == before


async def test_bad_arguments_are_clear_errors(files: FilesApplication) -> None:
    unknown = await files.call("read_file", {"path": "notes.txt", "mode": "rb"})
    assert not unknown.ok and "mode" in unknown.error
    missing = await files.call("read_file", {})
    assert not missing.ok and "path" in missing.error
    assert "no tool" in (await files.call("format_disk", {})).error
    assert "does not exist" in (await files.call("read_file", {"path": "nope.txt"})).error
    # a wrong folder for a file the workspace has: the error names the path that works
    lost = await files.call("read_file", {"path": "C:/Users/me/Documents/inner.txt"})
    assert "does not exist; the workspace has 'sub/inner.txt'" in lost.error
    windows = await files.call("read_file", {"path": "C:\\Users\\me\\notes.txt"})
    assert "the workspace has 'notes.txt'" in windows.error


# -- the security corpus: every way out of the root is refused and nothing is touched ----------
ESCAPES = [
    "../outside/secret.txt",
    "sub/../../outside/secret.txt",
    "./../outside/secret.txt",
    "sub/../../../etc/passwd",
    "/etc/passwd",
    "~/.bashrc",
    "link_out/secret.txt",  # a symlinked folder pointing out
    "file_link_out",  # a symlink to a file outside
    "sub/nested_link_out",  # a symlink nested in a real folder
    "relative_link_out/secret.txt",  # a relative symlink climbing out
    "link_out",
    "",
    "..",
    "\x00notes.txt",
]


def make_escape_links(root: Path) -> None:
    outside = root.parent / "outside"
    (root / "link_out").symlink_to(outside)
    (root / "file_link_out").symlink_to(outside / "secret.txt")
    (root / "sub" / "nested_link_out").symlink_to(outside / "secret.txt")
    (root / "relative_link_out").symlink_to("../outside")


CALLS = [
    ("read_file", lambda p: {"path": p}),
    ("list_files", lambda p: {"path": p}),
    ("write_file", lambda p: {"path": p, "content": "pwned", "overwrite": True}),
    ("delete", lambda p: {"path": p, "recursive": True}),
    ("make_folder", lambda p: {"path": p}),
    ("copy", lambda p: {"source": p, "destination": "stolen.txt"}),
    ("copy", lambda p: {"source": "notes.txt", "destination": p, "overwrite": True}),
    ("move", lambda p: {"source": p, "destination": "stolen.txt"}),
    ("move", lambda p: {"source": "notes.txt", "destination": p, "overwrite": True}),
    ("rename_pattern", lambda p: {"folder": p, "pattern": ".*", "replacement": "x"}),
]


@pytest.mark.parametrize("escape", ESCAPES)
@pytest.mark.parametrize(("tool", "arguments"), CALLS, ids=[f"{t}-{i}" for i, (t, _) in enumerate(CALLS)])
async def test_escapes_are_refused_and_nothing_is_touched(
    files: FilesApplication, root: Path, escape: str, tool: str, arguments
) -> None:
    make_escape_links(root)
    before = snapshot(root.parent)
    result = await files.call(tool, arguments(escape))
    assert not result.ok, f"{tool} {escape!r} was allowed: {result.content}"
    assert snapshot(root.parent) == before
    assert (root.parent / "outside" / "secret.txt").read_text() == "top secret"


@pytest.mark.parametrize("escape", ["../outside/secret.txt", "/etc/passwd", "link_out/secret.txt", "file_link_out"])
async def test_refusal_says_what_and_where(files: FilesApplication, root: Path, escape: str) -> None:
    make_escape_links(root)
    result = await files.call("read_file", {"path": escape})
    assert "outside the workspace root" in result.error and escape in result.error


async def test_absolute_path_inside_root_and_inner_symlinks_are_fine(files: FilesApplication, root: Path) -> None:
    (root / "inner_link").symlink_to(root / "sub")
    assert (await files.call("read_file", {"path": str(root / "notes.txt")})).content["text"] == "hello\n"
    assert (await files.call("read_file", {"path": "inner_link/inner.txt"})).content["text"] == "inner\n"
    assert (await files.call("read_file", {"path": "sub/../notes.txt"})).ok


async def test_changing_podiums_own_configuration_needs_approval(files: FilesApplication) -> None:
    # Even a fresh podium.toml: it would widen what the next run in this folder may do.
    assert files.is_sensitive("write_file", {"path": "podium.toml", "content": "[apps.shell]\nallow=['sh']"})
    assert files.is_sensitive("write_file", {"path": "sub/podium.toml", "content": "x"})
    assert files.is_sensitive("copy", {"source": "notes.txt", "destination": "podium.toml"})
    assert files.is_sensitive("move", {"source": "podium.toml", "destination": "old.toml"})
    assert not files.is_sensitive("write_file", {"path": "podium.toml.txt", "content": "x"})
