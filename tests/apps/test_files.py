"""The files application on a real folder: what a user relies on, and every way out refused."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from podium.apps.base import Application
from podium.apps.files import FilesApplication
from podium.apps.tooling import NOT_FILE_TYPES
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
    assert {"list_files", "read_file", "write_file", "copy_or_move", "rename_pattern", "delete"} <= names
    schema = next(t for t in files.tools() if t.name == "write_file").parameters
    assert schema["type"] == "object" and set(schema["required"]) == {"path", "content"}
    # a folder made is an empty part for other calls to fill (a copy into it), not work done by itself
    assert [t.name for t in files.tools() if t.empty_part] == ["make_folder"]


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
    # writing what the file already holds loses nothing: no approval, and the result says nothing changed
    same = {"path": "notes.txt", "content": "new", "overwrite": True}
    assert not files.is_sensitive("write_file", same)
    again = await files.call("write_file", same)
    assert again.ok and again.content["unchanged"] is True
    assert (await files.call("write_file", {**same, "overwrite": False})).content["unchanged"] is True
    assert files.is_sensitive("write_file", {**same, "content": "new!"})


async def test_copy_move_delete(files: FilesApplication, root: Path) -> None:
    assert (await files.call("copy_or_move", {"mode": "copy", "source": "notes.txt", "destination": "copy.txt"})).ok
    assert (root / "copy.txt").read_text() == "hello\n"
    assert (await files.call("copy_or_move", {"mode": "copy", "source": "sub", "destination": "sub2"})).ok
    assert (root / "sub2/inner.txt").read_text() == "inner\n"
    refused = await files.call("copy_or_move", {"mode": "copy", "source": "notes.txt", "destination": "sub/inner.txt"})
    assert not refused.ok and (root / "sub/inner.txt").read_text() == "inner\n"
    assert files.is_sensitive("copy_or_move", {"mode": "copy", "source": "notes.txt", "destination": "sub/inner.txt",
                                               "overwrite": True})
    assert (await files.call("copy_or_move", {"mode": "move", "source": "copy.txt", "destination": "sub/moved.txt"})).ok
    assert not (root / "copy.txt").exists() and (root / "sub/moved.txt").exists()
    refused = await files.call("copy_or_move", {"mode": "move", "source": "sub", "destination": "sub/deeper"})
    assert not refused.ok
    # a delete that will be refused (a folder that is not empty) changes nothing: nothing to approve
    assert files.is_sensitive("delete", {"path": "sub2", "recursive": True})
    assert not files.is_sensitive("delete", {"path": "sub2"})
    not_empty = await files.call("delete", {"path": "sub2"})
    assert not not_empty.ok and "recursive=true" in not_empty.error and (root / "sub2").exists()
    assert (await files.call("delete", {"path": "sub2", "recursive": True})).ok
    assert not (root / "sub2").exists()


async def test_a_copy_that_would_change_or_lose_a_files_type_is_refused_with_what_to_do_instead(
        files: FilesApplication, root: Path) -> None:
    (root / "meeting.docx").write_bytes(b"PK\x03\x04 a Word file")
    refused = await files.call("copy_or_move", {"mode": "copy", "source": "meeting.docx", "destination": "actions.txt"})
    assert not refused.ok and "write_file" in refused.error and not (root / "actions.txt").exists()
    assert (await files.call("copy_or_move", {"mode": "copy",
                                              "source": "meeting.docx", "destination": "old/meeting.DOCX"})).ok
    # a new name with no type for a file with one is a folder to make, as `cp a.docx backup/` would be
    copied = await files.call("copy_or_move", {"mode": "copy", "source": "meeting.docx", "destination": "backup"})
    assert copied.ok and copied.content == {"source": "meeting.docx", "destination": "backup/meeting.docx"}
    assert (root / "backup" / "meeting.docx").read_bytes() == (root / "meeting.docx").read_bytes()
    assert [e.path for e in files.effects("copy_or_move", {"mode": "move",
                                                           "source": "meeting.docx", "destination": "done"})] == [
        "meeting.docx", "done/meeting.docx"]
    moved = await files.call("copy_or_move", {"mode": "move", "source": "meeting.docx", "destination": "done"})
    assert moved.ok and (root / "done" / "meeting.docx").is_file() and not (root / "meeting.docx").exists()
    # a name with no type that is a file already is the file (replaced only with overwrite)
    (root / "notes").write_text("kept")
    taken = await files.call("copy_or_move", {"mode": "copy", "source": "done/meeting.docx", "destination": "notes"})
    assert not taken.ok and "already exists" in taken.error and (root / "notes").read_text() == "kept"


def test_text_tools_name_the_types_another_application_owns(workspace: Workspace) -> None:
    files = FilesApplication(workspace, owned={".docx": "documents", ".xlsx": None})
    tools = {t.name: t for t in files.tools()}
    assert tools["replace_text"].parameters["properties"]["path"][NOT_FILE_TYPES] == [".docx", ".xlsx"]
    # and read_file leaves a table file to read_csv
    assert tools["read_file"].parameters["properties"]["path"][NOT_FILE_TYPES] == [".csv", ".docx", ".tsv", ".xlsx"]
    assert NOT_FILE_TYPES not in tools["write_file"].parameters["properties"]["path"]


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
    # the pattern is searched in the name and its first match replaced, as `rename 's/^q/Q/'` does
    prefix = await files.call("rename_pattern", {"pattern": "^quarter-", "replacement": "Q"})
    assert prefix.content["renamed"] == [["quarter-1.csv", "Q1.csv"], ["quarter-2.csv", "Q2.csv"]]
    none = await files.call("rename_pattern", {"pattern": "^draft_", "replacement": "final_"})
    assert not none.ok and "no name in '.' matches '^draft_'" in none.error and "'Q1.csv'" in none.error


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
    # a folder named like a file is a file to write
    named = await files.call("make_folder", {"path": "out/docx_files.TXT"})
    assert named.error == ("make_folder: 'out/docx_files.TXT' is a file's name, not a folder's: write_file creates "
                           "the file (and the folders above it)")
    assert (await files.call("make_folder", {"path": "out/v1.2"})).ok  # a dotted name that is no file type


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
    "../outside/*.txt",  # a pattern source in a folder outside
    "link_out/*",
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
    ("copy_or_move", lambda p: {"mode": "copy", "source": p, "destination": "stolen.txt"}),
    ("copy_or_move", lambda p: {"mode": "copy", "source": "notes.txt", "destination": p, "overwrite": True}),
    ("copy_or_move", lambda p: {"mode": "move", "source": p, "destination": "stolen.txt"}),
    ("copy_or_move", lambda p: {"mode": "move", "source": "notes.txt", "destination": p, "overwrite": True}),
    ("rename_pattern", lambda p: {"folder": p, "pattern": ".*", "replacement": "x"}),
]


# "" names the root where the root is admitted (a folder to list or rename in): no escape there.
ROOT_ADMITTED = {"list_files", "rename_pattern"}
ESCAPE_CASES = [
    pytest.param(tool, arguments, escape, id=f"{tool}-{i}-{escape!r}")
    for i, (tool, arguments) in enumerate(CALLS)
    for escape in ESCAPES
    if not (escape == "" and tool in ROOT_ADMITTED)
]


@pytest.mark.parametrize(("tool", "arguments", "escape"), ESCAPE_CASES)
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


async def test_changing_podiums_own_configuration_needs_approval(files: FilesApplication, root: Path) -> None:
    # Even a fresh podium.toml: it would widen what the next run in this folder may do.
    assert files.is_sensitive("write_file", {"path": "podium.toml", "content": "[apps.shell]\nallow=['sh']"})
    assert files.is_sensitive("write_file", {"path": "sub/podium.toml", "content": "x"})
    (root / "backup.toml").write_text("[apps]\n")
    assert files.is_sensitive("copy_or_move", {"mode": "copy", "source": "backup.toml", "destination": "podium.toml"})
    assert not files.is_sensitive("copy_or_move", {"mode": "move",
                                                   "source": "podium.toml", "destination": "old.toml"})  # none: refused
    (root / "podium.toml").write_text("[apps]\n")
    assert files.is_sensitive("copy_or_move", {"mode": "move", "source": "podium.toml", "destination": "old.toml"})
    assert files.is_sensitive("copy_or_move", {"mode": "move",
                                               "source": "*.toml", "destination": "old"})  # a pattern that takes it
    assert files.is_sensitive("copy_or_move", {"mode": "copy",
                                               "source": "podium.toml", "destination": "sub"})  # into a folder
    assert not files.is_sensitive("write_file", {"path": "podium.toml.txt", "content": "x"})


# -- housekeeping the way a user of ls, cp and mv expects ----------------------------------------
async def test_an_empty_path_is_the_root_where_the_root_is_admitted(files: FilesApplication, root: Path) -> None:
    for blank in ("", "  "):
        listing = await files.call("list_files", {"path": blank})
        assert listing.ok and {e["path"] for e in listing.content["entries"]} == {"sub", "notes.txt"}
    (root / "draft_plan.txt").write_text("plan")
    renamed = await files.call("rename_pattern", {"pattern": r"draft_(.*)", "replacement": r"final_\1", "folder": ""})
    assert renamed.ok and renamed.content["renamed"] == [["draft_plan.txt", "final_plan.txt"]]
    assert (root / "final_plan.txt").read_text() == "plan"
    # where the root is not a sensible target, an empty path stays an error
    for tool, arguments in [("write_file", {"path": "", "content": "x"}), ("read_file", {"path": " "}),
                            ("copy_or_move", {"mode": "copy", "source": "notes.txt", "destination": ""}),
                            ("copy_or_move", {"mode": "move", "source": "", "destination": "sub"})]:
        refused = await files.call(tool, arguments)
        assert not refused.ok and "empty path" in refused.error, tool


async def test_list_pattern_is_a_glob_or_else_a_regular_expression(files: FilesApplication, root: Path) -> None:
    for name in ("a.txt", "report_2024.docx", "old.docx", "xtxt", "2021-12.csv", "2022-06.csv"):
        (root / name).write_text(name)

    async def names(pattern: str) -> set[str]:
        listing = await files.call("list_files", {"pattern": pattern})
        assert listing.ok, listing.error
        return {e["path"] for e in listing.content["entries"]}

    assert await names("*.docx") == {"report_2024.docx", "old.docx"}
    assert await names("\\.txt") == {"a.txt", "notes.txt"}  # a regular expression searched in the name
    assert await names("report") == {"report_2024.docx"}
    assert await names("*.txt") == {"a.txt", "notes.txt"}  # no valid regex: the glob alone (not 'xtxt')
    assert await names("*.pdf") == set()
    # a glob that is a valid regular expression too ('202' then any '2') is the glob: names that begin 2022
    assert await names("2022*") == {"2022-06.csv"}
    assert await names("2022.*") == {"2022-06.csv"}  # '.*': a regular expression
    schema = next(t for t in files.tools() if t.name == "list_files").parameters
    description = schema["properties"]["pattern"]["description"]
    assert "glob" in description and "regular expression" in description


async def test_copy_and_move_into_an_existing_folder_keep_the_name(files: FilesApplication, root: Path) -> None:
    moved = await files.call("copy_or_move", {"mode": "move", "source": "notes.txt", "destination": "sub"})
    assert moved.content == {"source": "notes.txt", "destination": "sub/notes.txt"}
    assert (root / "sub/notes.txt").read_text() == "hello\n" and not (root / "notes.txt").exists()
    copied = await files.call("copy_or_move", {"mode": "copy", "source": "sub/inner.txt", "destination": "."})
    assert copied.content == {"source": "sub/inner.txt", "destination": "inner.txt"}
    assert (await files.call("copy_or_move", {"mode": "copy",
                                              "source": "inner.txt", "destination": "fresh/"})).ok  # '/': a folder
    assert (root / "fresh/inner.txt").read_text() == "inner\n"
    (root / "archive").mkdir()
    assert (await files.call("copy_or_move", {"mode": "copy",
                                              "source": "sub", "destination": "archive"})).ok  # like cp -r
    assert (root / "archive/sub/inner.txt").read_text() == "inner\n"
    assert (await files.call("copy_or_move", {"mode": "copy",
                                              "source": "sub", "destination": "brand-new"})).ok  # a new path: the copy
    assert (root / "brand-new/inner.txt").read_text() == "inner\n"
    assert (root / "sub/inner.txt").read_text() == "inner\n"
    # the same name already in the folder: refused without overwrite, replaced with it (after approval)
    arguments = {"mode": "move", "source": "inner.txt", "destination": "sub"}
    taken = await files.call("copy_or_move", arguments)
    assert not taken.ok and "'sub/inner.txt' already exists; pass overwrite=true" in taken.error
    assert not files.is_sensitive("copy_or_move", arguments)  # refused anyway: nothing to approve
    assert files.is_sensitive("copy_or_move", arguments | {"overwrite": True})
    (root / "inner.txt").write_text("newer\n")
    assert (await files.call("copy_or_move", arguments | {"overwrite": True})).ok
    assert (root / "sub/inner.txt").read_text() == "newer\n" and not (root / "inner.txt").exists()
    already = await files.call("copy_or_move", {"mode": "move",
                                                "source": "sub/notes.txt", "destination": "sub", "overwrite": True})
    assert not already.ok and "already there" in already.error
    into_itself = await files.call("copy_or_move", {"mode": "move", "source": "sub", "destination": "sub"})
    assert not into_itself.ok and "into itself" in into_itself.error and (root / "sub/inner.txt").exists()
    [described] = [t.parameters["properties"]["destination"]["description"] for t in files.tools()
                   if t.name == "copy_or_move"]
    assert "folder to put it in" in described and "ending in '/'" in described


async def test_a_pattern_source_takes_every_match_into_the_folder(files: FilesApplication, root: Path) -> None:
    for name in ("a.txt", "b.txt", "c.docx", ".hidden.txt"):
        (root / name).write_text(name)
    moved = await files.call("copy_or_move", {"mode": "move", "source": "*.txt", "destination": "texts"})
    assert moved.content == {"moved": [["a.txt", "texts/a.txt"], ["b.txt", "texts/b.txt"],
                                       ["notes.txt", "texts/notes.txt"]]}
    assert (root / "texts/b.txt").read_text() == "b.txt" and (root / ".hidden.txt").exists()  # hidden: stays
    copied = await files.call("copy_or_move", {"mode": "copy", "source": "texts/a*", "destination": "backup/"})
    assert copied.content == {"copied": [["texts/a.txt", "backup/a.txt"]]}
    # a '.' pattern: hidden too
    assert (await files.call("copy_or_move", {"mode": "copy", "source": ".*.txt", "destination": "backup"})).ok
    assert (root / "backup/.hidden.txt").read_text() == ".hidden.txt"
    # 'move *' into a folder of the same folder moves everything else into it, never the folder itself
    everything = await files.call("copy_or_move", {"mode": "move", "source": "*", "destination": "backup"})
    assert everything.ok and sorted(src for src, _ in everything.content["moved"]) == ["c.docx", "sub", "texts"]
    assert sorted(os.listdir(root)) == [".hidden.txt", "backup"]
    assert (root / "backup/texts/a.txt").exists() and (root / "backup/sub/inner.txt").exists()
    (root / "a[1].txt").write_text("literal")  # an existing name with pattern characters is itself
    assert (await files.call("copy_or_move", {"mode": "copy",
                                              "source": "a[1].txt", "destination": "backup"})).content == {
        "source": "a[1].txt", "destination": "backup/a[1].txt"}


async def test_a_folder_source_with_a_pattern_takes_its_matching_names(files: FilesApplication, root: Path) -> None:
    for name in ("a.txt", "b.txt", "c.docx"):
        (root / name).write_text(name)
    # the model's own call: the workspace root (absolute) as the source; the pattern says which names
    moved = await files.call("copy_or_move", {"mode": "move",
                                              "source": str(root), "destination": "notes", "pattern": "*.txt"})
    assert moved.ok, moved.error
    assert sorted(os.listdir(root / "notes")) == ["a.txt", "b.txt", "notes.txt"] and (root / "c.docx").exists()
    copied = await files.call("copy_or_move", {"mode": "copy", "source": "notes", "destination": "backup",
                                               "pattern": ".txt"})  # '*.txt'
    assert copied.ok and sorted(os.listdir(root / "backup")) == ["a.txt", "b.txt", "notes.txt"]
    not_folder = await files.call("copy_or_move", {"mode": "copy",
                                                   "source": "c.docx", "destination": "x", "pattern": "*.txt"})
    assert not not_folder.ok and "needs a folder as the source; 'c.docx' is not one (it is a file); the folders " \
                                 "are '.' (the workspace itself), 'backup', 'notes'" in not_folder.error
    named_app = await files.call("copy_or_move", {"mode": "move",
                                                  "source": "files", "destination": "notes", "pattern": "*.txt"})
    assert not named_app.ok and "'files' is not one (it does not exist); the folders are '.'" in named_app.error
    # a source that is the pattern already needs none besides: one for every name, or the same one
    for n, pattern in enumerate((".*", "*.txt", ".txt")):
        again = await files.call("copy_or_move", {"mode": "copy",
                                                  "source": str(root / "notes" / "*.txt"), "destination": f"copies/{n}",
                                          "pattern": pattern})
        assert again.ok and len(again.content["copied"]) == 3, (pattern, again.error)
    other = await files.call("copy_or_move", {"mode": "copy",
                                              "source": "notes/*.txt", "destination": "c", "pattern": "a*"})
    assert not other.ok and "needs a folder as the source" in other.error  # two different filters: said so
    (root / "a.txt").write_text("again")
    assert files.is_sensitive("copy_or_move", {"mode": "move",
                                               "source": ".", "destination": "notes", "pattern": "*.txt",
                                       "overwrite": True})  # it would replace notes/a.txt ...
    assert not files.is_sensitive("copy_or_move", {"mode": "move",
                                                   "source": ".", "destination": "fresh", "pattern": "*.txt",
                                           "overwrite": True})  # ... and nothing in a new folder


@pytest.mark.parametrize(
    ("arguments", "why"),
    [
        ({"source": "*.txt", "destination": "notes.txt"}, "'notes.txt' is a file"),
        ({"source": "*.pdf", "destination": "out"}, "nothing in '.' matches '*.pdf'; it has 'a.txt', 'b.txt', "),
        ({"source": "sub/*.csv", "destination": "out"}, "nothing in 'sub' matches '*.csv'; it has 'inner.txt'"),
        ({"source": "*/inner.txt", "destination": "out"}, "does not exist; the workspace has 'sub/inner.txt'"),
        ({"source": "*.txt", "destination": "texts"}, "'texts/b.txt' already exists; pass overwrite=true"),
        ({"source": "s*", "destination": "sub/deeper"}, "cannot move folder 'sub' into itself"),
        ({"source": "*.txt", "destination": "."}, "already there"),
    ],
)
async def test_a_pattern_moves_all_or_nothing(files: FilesApplication, root: Path, arguments, why: str) -> None:
    for name in ("a.txt", "b.txt"):
        (root / name).write_text(name)
    (root / "texts").mkdir()
    (root / "texts/b.txt").write_text("older b")
    before = snapshot(root.parent)
    refused = await files.call("copy_or_move", {"mode": "move", **arguments})
    assert not refused.ok and why in refused.error, refused.error
    assert snapshot(root.parent) == before  # not one file moved, though a.txt and notes.txt were free
    if arguments["source"] == "*.txt" and arguments["destination"] == "texts":
        assert refused.error.endswith("nothing was moved")
    assert not files.is_sensitive("copy_or_move", {"mode": "move",
                                                   **arguments, "overwrite": "already exists" not in why})


async def test_a_pattern_needs_approval_only_when_it_replaces_a_file(files: FilesApplication, root: Path) -> None:
    (root / "texts").mkdir()
    assert not files.is_sensitive("copy_or_move", {"mode": "move",
                                                   "source": "*.txt", "destination": "texts", "overwrite": True})
    assert not files.is_sensitive("copy_or_move", {"mode": "copy",
                                                   "source": "*.txt", "destination": "new", "overwrite": True})
    (root / "texts/notes.txt").write_text("older")
    arguments = {"source": "*.txt", "destination": "texts", "overwrite": True}
    assert all(files.is_sensitive("copy_or_move", {"mode": mode, **arguments}) for mode in ("copy", "move"))
    assert (await files.call("copy_or_move", {"mode": "copy",
                                              **arguments})).content == {"copied": [["notes.txt", "texts/notes.txt"]]}
    assert (root / "texts/notes.txt").read_text() == "hello\n"


@pytest.mark.parametrize("mode", ["copy", "move"])
@pytest.mark.parametrize("source", ["ROOT", ".", "./", "sub/.."])
async def test_the_workspace_root_itself_is_refused_at_once_not_held_for_approval(
    files: FilesApplication, root: Path, mode: str, source: str
) -> None:
    arguments = {"mode": mode, "source": str(root) if source == "ROOT" else source, "destination": "notes",
                 "overwrite": True}
    before = snapshot(root.parent)
    assert not files.is_sensitive("copy_or_move", arguments)  # nothing will run: no approval to ask for
    refused = await files.call("copy_or_move", arguments)
    assert not refused.ok and "the workspace root itself" in refused.error and "'*.txt'" in refused.error
    assert snapshot(root.parent) == before


@pytest.mark.parametrize(
    "arguments",
    [
        {"source": "missing.txt", "destination": "notes.txt", "overwrite": True},
        {"source": "../outside/secret.txt", "destination": "notes.txt", "overwrite": True},
        {"source": "notes.txt", "destination": "../outside/secret.txt", "overwrite": True},
        {"source": "*.pdf", "destination": "sub", "overwrite": True},
    ],
)
async def test_a_call_refused_anyway_is_not_sensitive(files: FilesApplication, arguments) -> None:
    for mode in ("copy", "move"):
        assert not files.is_sensitive("copy_or_move", {"mode": mode, **arguments})
        assert not (await files.call("copy_or_move", {"mode": mode, **arguments})).ok


async def test_a_folder_destination_or_a_pattern_never_reaches_out_through_a_link(
    files: FilesApplication, root: Path
) -> None:
    make_escape_links(root)  # sub/nested_link_out points at the secret outside
    (root / "nested_link_out").write_text("pwned")
    before = snapshot(root.parent)
    for mode in ("copy", "move"):
        into = await files.call("copy_or_move", {"mode": mode, "source": "nested_link_out", "destination": "sub",
                                                 "overwrite": True})
        assert not into.ok and "outside the workspace root" in into.error
        matches = await files.call("copy_or_move", {"mode": mode, "source": "*link_out", "destination": "taken",
                                                    "overwrite": True})
        assert not matches.ok and "outside the workspace root" in matches.error
    assert snapshot(root.parent) == before
    assert (root.parent / "outside" / "secret.txt").read_text() == "top secret"


async def test_the_names_of_matching_files_are_written_into_a_text_file(files: FilesApplication, root: Path) -> None:
    for name in ("plan.docx", "reports/march.docx", "reports/2024/annual.docx", "notes.txt", "reports/a.xlsx"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(name)
    call = {"path": ".", "pattern": "*.docx", "recursive": True, "into": "docx_files.txt"}
    assert not files.is_sensitive("write_file_names", call)
    done = await files.call("write_file_names", call)
    assert done.ok, done.error
    assert (root / "docx_files.txt").read_text() == "plan.docx\nreports/march.docx\nreports/2024/annual.docx\n"
    assert done.content["count"] == 3 and done.content["path"] == "docx_files.txt"
    # the same list again is found written; another one into the file needs overwrite, which needs approval;
    # the list never names itself
    again = await files.call("write_file_names", call)
    assert again.ok and again.content["unchanged"] is True
    other = await files.call("write_file_names", {**call, "pattern": "*.xlsx"})
    assert not other.ok and "already exists" in (other.error or "")
    assert files.is_sensitive("write_file_names", {**call, "pattern": "*", "overwrite": True})
    every = await files.call("write_file_names", {**call, "pattern": "*.txt", "overwrite": True})
    assert every.ok and (root / "docx_files.txt").read_text() == "notes.txt\nsub/inner.txt\n"  # not itself
    # a file is no folder of names: the error says how a text is written
    into_file = await files.call("write_file_names", {"path": "plan.docx", "pattern": "East", "into": "answer.txt"})
    assert not into_file.ok and "call write_file with that text" in into_file.error
    assert not (root / "answer.txt").exists()
    folder = await files.call("write_file_names", {"path": "reports", "pattern": "*", "into": "reports/list.txt"})
    assert folder.ok and (root / "reports/list.txt").read_text() == "a.xlsx\nmarch.docx\n"
    # which names is always said: a call without a pattern writes nothing
    unsaid = await files.call("write_file_names", {"path": "reports", "into": "reports/all.txt"})
    assert not unsaid.ok and "pattern" in (unsaid.error or "") and not (root / "reports/all.txt").exists()


async def test_a_pattern_matching_nothing_in_its_folder_says_where_it_matches(files: FilesApplication,
                                                                             root: Path) -> None:
    for name in ("q1.xlsx", "q2.xlsx"):
        (root / name).write_text(name)
    (root / "backup").mkdir()
    # the 1.5B AppAgent made backup, then copied '*.xlsx' out of it into itself
    refused = await files.call("copy_or_move", {"mode": "copy",
                                                "source": "backup", "pattern": "*.xlsx", "destination": "backup"})
    assert refused.error == ("copy_or_move: nothing in 'backup' matches '*.xlsx'; it has no entries; '.' has "
                             "'q1.xlsx', 'q2.xlsx': the source for those is '*.xlsx'")
    (root / "backup" / "old").mkdir()
    (root / "backup" / "q3.xlsx").write_text("q3")
    inner = await files.call("copy_or_move", {"mode": "copy", "source": "backup/old/*.xlsx", "destination": "x"})
    assert "; 'backup' has 'q3.xlsx': the source for those is 'backup/*.xlsx'" in inner.error
    # from the workspace itself, only the workspace is looked at (never the folder above it)
    (root.parent / "outside" / "leak.pdf").write_text("x")
    top = await files.call("copy_or_move", {"mode": "copy", "source": "*.pdf", "destination": "x"})
    assert top.error.startswith("copy_or_move: nothing in '.' matches '*.pdf'") and "leak" not in top.error
