"""files: list, read, write, copy or move, rename by pattern and delete inside the workspace root.

Nothing is ever overwritten unless the call says `overwrite: true`, and such a call on an existing
target is sensitive (it needs the person's approval first); without it, creation is exclusive
(O_EXCL for files; a moved file is hard-linked, where the file system can), so an unapproved call can
never destroy data even if a file appears in between. Folders are never replaced. Every delete is
sensitive.

Each changing tool declares its effects (the paths it would change, after links are followed), and
whether a call is sensitive follows from them (approval): a write through a link to podium.toml, or a
rename of podium.toml away or of another file into its place, changes a protected path.

copy_or_move behaves like cp or mv, as its required `mode` says (what becomes of the source is a choice
the call makes, never a default), every target checked before anything is touched (file_transfer).
Only regular files are read or copied: a FIFO, a device or a socket is refused, never opened.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path, PurePath
from typing import Any, Literal

from pydantic import Field

from podium.apps import approval, archives, csv_tables, text_edit
from podium.apps.approval import declared
from podium.apps.base import LEFT_OUT, Change, Effect, Tool
from podium.apps.file_transfer import Transfer, store
from podium.apps.tooling import (
    BY_PATTERN,
    SOURCE_GONE,
    Args,
    Content,
    ToolApplication,
    ToolError,
    ToolSpec,
    excluding,
    listed_folder,
    other_path,
    subfolders,
    written_path,
)
from podium.apps.workspace import CONFIG_NAME, Workspace, is_regular, open_regular

MAX_LISTED = 2000
# Names no one gives a folder: make_folder refuses them (they are files to write).
FILE_SUFFIXES = frozenset({".txt", ".md", ".csv", ".json", ".docx", ".xlsx", ".pdf", ".html", ".xml", ".log",
                           ".yaml", ".yml", ".toml", ".ini", ".py", ".doc", ".xls", ".pptx", ".odt", ".ods"})
DEFAULT_READ_BYTES = 200_000
CARRIED_BUDGET = 10_000  # entries of a copied folder looked through for configuration files
CONFIG_FILE = CONFIG_NAME
_NEW_NAME = "a destination no file has yet (a new name or folder) replaces nothing and needs no approval"


class ListArgs(Args):
    path: str = listed_folder("folder, relative to the workspace root")
    pattern: str | None = Field(None, description="keep the names that match: a glob on the whole name "
                                "('*.docx'), or else a regular expression searched in the name ('\\.txt$', 'report')")
    recursive: bool = subfolders()


class NamesArgs(ListArgs):
    # Required: a list written into a file is always of a chosen set of names. Optional, the small model
    # left it out and wrote every name of the folder where the request asked for its documents.
    pattern: str = Field(description="which names: a glob on the whole name ('*.docx'; '*' for every file), or "
                         "else a regular expression searched in the name")
    into: str = written_path("the text file to write the names into, one per line")
    overwrite: bool = Field(False, description="replace an existing file (needs approval)")


class LinesArgs(Args):
    path: str = other_path("the text file whose lines are taken")
    contains: str = Field(min_length=1, description="the text a line holds to be written")
    into: str = written_path("the text file to write those lines into, in their order")
    without: bool = Field(False, description="true: write the lines that do not hold it")
    match_case: bool = Field(False, description="true: 'Refund' does not find 'refund'")
    overwrite: bool = Field(False, description="replace an existing file (needs approval)")


class ReadArgs(Args):
    # a table file is read as the table it is (read_csv: rows of values, numbers as numbers), which the
    # tools that take data take and measure; as text it is characters to copy by hand
    path: str = other_path("text file, relative to the workspace root", *csv_tables.CSV_SUFFIXES)
    max_bytes: int = Field(DEFAULT_READ_BYTES, ge=1, le=10_000_000)


class WriteArgs(Args):
    path: str = written_path("file, relative to the workspace root")
    content: Content
    overwrite: bool = Field(False, description="replace an existing file (needs approval)")


class FolderArgs(Args):
    path: str


class CopyOrMoveArgs(Args):
    # Two tools, copy and move, made a small planner choose between them by name, and it declared copy for
    # "move" requests; one tool leaves the choice to this argument, written right after the subtask's own verb.
    mode: Literal["copy", "move"] = Field(description="copy: the source stays where it is (like cp); move: it "
                                                      "is no longer where it was (like mv, also a rename)",
                                          json_schema_extra={SOURCE_GONE: "move"})
    source: str = Field(description="a file or folder, or a pattern on the names of one folder ('*.txt', "
                        "'reports/*.xlsx')")
    destination: str = Field(description="the new path, or a folder to put it in under its own name (an existing "
                             "folder, or a path ending in '/'); for a pattern, the folder that receives every "
                             "match (created if missing)")
    overwrite: bool = Field(False, description="replace existing destination files (needs approval)")
    # The 1.5B model names the folder as the source ("move the .txt files" -> the workspace root) and
    # fills every argument its schema offers: offered this one, it says which names.
    pattern: str | None = Field(None, description="with a folder source: only the names in it that match, "
                                                  "e.g. '*.txt'")


class RenameArgs(Args):
    folder: str = "."
    # Searched, as `rename 's/^draft_/final_/'` does: the model's own call was ^draft_ -> final_.
    pattern: str = Field(description="regular expression searched in each name of the folder, e.g. '^draft_'",
                         json_schema_extra={BY_PATTERN: Change.MOVE.value})
    replacement: str = Field(description=r"what replaces the first match, with \1 or \g<name> for groups")
    dry_run: bool = False


class DeleteArgs(Args):
    path: str
    recursive: bool = Field(False, description="required to delete a folder that is not empty")


class FilesApplication(ToolApplication):
    name = "files"

    def __init__(self, workspace: Workspace, owned: Mapping[str, str | None] | None = None) -> None:
        """`owned`: file types ('.docx') another application writes -> its name (None: not enabled)."""
        self.workspace = workspace
        self.transfer = Transfer(workspace)
        self.owned = {suffix.lower(): app for suffix, app in (owned or {}).items()}
        # no absolute path: a prompt that shows one is the same for no two workspaces (no prompt cache serves it),
        # and a model that saw it writes paths from it
        self.description = "Files and folders inside the workspace (paths relative to it)"
        super().__init__()

    def _specs(self) -> list[ToolSpec]:
        # Tools that declare their effects exactly: a call of one needs approval when an effect is destructive.
        more = [*text_edit.specs(self), *csv_tables.specs(self), *archives.specs(self)]
        return [
            ToolSpec("list_files", "List a folder (names, kinds, sizes).", ListArgs, self._list, True),
            ToolSpec("read_file", "Read a text file.", ReadArgs, self._read, True),
            ToolSpec("write_file", "Write a text file (creates folders).", WriteArgs, self._write,
                     unapproved=_NEW_NAME, effects=declared(self._write_effects)),
            ToolSpec("make_folder", "Create a folder (and its parents).", FolderArgs, self._mkdir,
                     effects=declared(self._mkdir_effects), new_only=True, empty_part=True),
            # Handed a listing, the 1.5B AppAgent wrote docx_files.txt as "" or "\n", three times: copying a
            # tool's output into another call is what it cannot do, so the tool writes the names itself.
            ToolSpec("write_file_names", "Write the names of the files in a folder (recursive: its subfolders "
                     "too) that match a pattern into a text file, one per line.", NamesArgs, self._write_names,
                     unapproved=_NEW_NAME, effects=declared(self._names_effects), writes_names=True),
            # The lines kept are the tool's to take: a model that types them again copies or drops some.
            ToolSpec("write_matching_lines", "Write the lines of a text file that hold a text (with without: those "
                     "that do not) into a text file, in their order.", LinesArgs, self._write_lines,
                     unapproved=_NEW_NAME, effects=declared(self._lines_effects), reshapes=True),
            ToolSpec("copy_or_move", "Copy or move a file or folder to a new path or into a folder: mode 'copy' "
                     "keeps the source where it is (like cp), mode 'move' takes it away (like mv, a rename too); a "
                     "pattern source takes every match into the folder, or nothing if any target is taken.",
                     CopyOrMoveArgs, self._transfer, unapproved=_NEW_NAME, effects=declared(self._transfer_effects)),
            ToolSpec("rename_pattern", "Rename the entries of a folder whose whole name matches a regular "
                     "expression; refuses any rename that would collide and then renames nothing.",
                     RenameArgs, self._rename_pattern, effects=declared(self._rename_effects)),
            ToolSpec("delete", "Delete a file or folder.", DeleteArgs, self._delete,
                     effects=declared(self._delete_effects)),
            *more,
        ]

    def tools(self) -> list[Tool]:
        # read_file is offered only the files another application does not own: it cannot read a package
        return [excluding(tool, self.owned) for tool in super().tools()]

    def check_type(self, path: str, resolved: Path | None = None) -> None:
        """Refuse to write text into a file of a type another application owns (.docx, .xlsx): such a file
        holds a package, not text, and a "document" of plain text is no document."""
        for suffix in {PurePath(path).suffix.lower(), *([resolved.suffix.lower()] if resolved else [])}:
            if suffix in self.owned:
                owner = self.owned[suffix]
                use = (f"write it with the {owner} application's tools" if owner else
                       f"no enabled application writes {suffix} files")
                raise ToolError(f"{path!r} is a {suffix} file, not a text file: {use} (files may copy, move, rename "
                                "or delete it)")

    def _transfer(self, args: CopyOrMoveArgs) -> dict[str, Any]:
        copying = args.mode == "copy"
        self._check_transfer(self.transfer.plan(args, copying=copying).pairs)
        return self.transfer.run(args, copying=copying)

    def _check_transfer(self, pairs: tuple[tuple[Path, Path], ...]) -> None:
        """A copy keeps the bytes, and so their type: a text file copied to 'report.docx' is no document."""
        for source, target in pairs:
            if source.is_file() and source.suffix.lower() != target.suffix.lower():
                self.check_type(self.workspace.relative(target), target)

    def _sensitive(self, tool: str, args: Any) -> bool:
        return approval.sensitive(self._by_name[tool], args, self.workspace)

    # -- effects: what a call would change, planned exactly as it will run -----------------------
    def _write_effects(self, args: WriteArgs) -> tuple[Effect, ...]:
        return self._file_effect(args.path, args.content, args.overwrite)

    def _names_effects(self, args: NamesArgs) -> tuple[Effect, ...]:
        return self._file_effect(args.into, self._names_text(args)[0], args.overwrite)

    def _file_effect(self, path: str, content: str, overwrite: bool) -> tuple[Effect, ...]:
        """A text file written at `path`: KEEP when it holds the text already, CREATE where a write lands
        (through a link, at its target), REPLACE of an existing file (with overwrite; else refused)."""
        if _holds(self.workspace.resolve(path), content.encode("utf-8")):
            return (self.workspace.effect(self.workspace.resolve(path), Change.KEEP),)
        return approval.whole_file(self.workspace, self._writable_target(path, overwrite), overwrite, content)

    def _lines_effects(self, args: LinesArgs) -> tuple[Effect, ...]:
        return self._file_effect(args.into, self._lines_text(args)[0], args.overwrite)

    def _mkdir_effects(self, args: FolderArgs) -> tuple[Effect, ...]:
        path = self.workspace.resolve(args.path)
        if path.is_dir():
            return (self.workspace.effect(path, Change.KEEP),)  # there already
        if path.exists() or path.suffix.lower() in FILE_SUFFIXES:
            return ()  # refused
        return (self.workspace.effect(Path(os.path.realpath(path)), Change.CREATE),)

    def _transfer_effects(self, args: CopyOrMoveArgs) -> tuple[Effect, ...]:
        effects: list[Effect] = []
        copying = args.mode == "copy"
        for source, target in self.transfer.plan(args, copying=copying).pairs:
            if not copying:
                effects.append(self.workspace.effect(source, Change.MOVE))
            effects.append(self.workspace.effect(target, Change.REPLACE if os.path.lexists(target)
                                                 else Change.CREATE))
            if source.is_dir() and not source.is_symlink():
                effects += self._carried_configs(source, target)
        return tuple(effects)

    def _carried_configs(self, source: Path, target: Path) -> list[Effect]:
        """The configuration files a folder copied or moved to `target` puts there: each one is a podium.toml
        a run in that folder would read, so the call is protected like writing one by name (the target folder
        does not exist yet, so nothing else about it says so). Past CARRIED_BUDGET entries the folder is assumed
        to hold one, as the approval of a folder's move assumes."""
        found: list[Effect] = []
        seen = 0
        for folder, dirs, files in os.walk(source):  # links are not followed: a link is copied as a link
            seen += len(dirs) + len(files)
            if seen > CARRIED_BUDGET:
                return [self.workspace.effect(target / CONFIG_NAME, Change.CREATE)]
            if CONFIG_NAME in files or CONFIG_NAME in dirs:
                found.append(self.workspace.effect(target / os.path.relpath(folder, source) / CONFIG_NAME,
                                                   Change.CREATE))
        return found

    def _rename_effects(self, args: RenameArgs) -> tuple[Effect, ...]:
        folder, plan = self._rename_plan(args)
        if args.dry_run:
            return ()
        return tuple(effect for old, new in plan for effect in (
            self.workspace.effect(folder / old, Change.MOVE), self.workspace.effect(folder / new, Change.CREATE)))

    def _delete_effects(self, args: DeleteArgs) -> tuple[Effect, ...]:
        path = self._existing(args.path)
        if path.is_dir() and not path.is_symlink() and not args.recursive and any(path.iterdir()):
            return ()  # refused: not empty
        return (self.workspace.effect(path, Change.DELETE),)

    # -- read-only -----------------------------------------------------------------------------
    def _list(self, args: ListArgs) -> dict[str, Any]:
        folder = self.workspace.resolve(args.path, allow_root=True)
        if not folder.is_dir():
            raise ToolError(f"{args.path!r} is not a folder")
        entries: list[dict[str, Any]] = []
        walker = os.walk(folder) if args.recursive else [(str(folder), *_split(folder))]
        keep = _name_matcher(args.pattern)
        nested = False
        for top, dirs, files in walker:
            dirs.sort()
            nested = nested or bool(dirs)
            for name in sorted(dirs) + sorted(files):
                if not keep(name):
                    continue
                entries.append(self._entry(Path(top) / name))
                if len(entries) >= MAX_LISTED:
                    return {"folder": self.workspace.relative(folder), "entries": entries, "truncated": True,
                            LEFT_OUT: f"the entries past the first {MAX_LISTED}"}
        left = [f"the names not matching {args.pattern!r}"] if args.pattern else []
        if nested and not args.recursive:
            left.append("what the subfolders hold (recursive=true lists it)")
        return {"folder": self.workspace.relative(folder), "entries": entries, "truncated": False,
                **({LEFT_OUT: "; ".join(left)} if left else {})}

    def _entry(self, path: Path) -> dict[str, Any]:
        kind = "link" if path.is_symlink() else "folder" if path.is_dir() else "file"
        size = path.lstat().st_size if kind == "file" else None
        return {"path": self.workspace.relative(path), "kind": kind, "size": size}

    def _read(self, args: ReadArgs) -> dict[str, Any]:
        path = self._existing_file(args.path)
        with self.workspace.open_regular(path, args.path) as handle:
            data = handle.read(args.max_bytes + 1)
        truncated = len(data) > args.max_bytes
        data = data[: args.max_bytes]
        if path.suffix.lower() == ".zip" and data[:4] == b"PK\x03\x04":  # a zip's first entry, from what was read
            raise ToolError(f"{args.path!r} is a .zip archive: extract_archive extracts its files into a folder",
                            instead=("extract_archive",))
        if b"\x00" in data:
            raise ToolError(f"{args.path!r} is a binary file; use the documents or spreadsheets application "
                            "for .docx/.xlsx files")
        text, size = data.decode("utf-8", errors="replace"), path.stat().st_size
        return {"path": self.workspace.relative(path), "size": size, "text": text, "truncated": truncated,
                **({LEFT_OUT: f"the bytes past the first {args.max_bytes:,}"} if truncated else {})}

    # -- changes -------------------------------------------------------------------------------
    def _write(self, args: WriteArgs) -> dict[str, Any]:
        self.check_type(args.path, Path(os.path.realpath(self.workspace.resolve(args.path))))
        data = args.content.encode("utf-8")
        if _holds(self.workspace.resolve(args.path), data):
            # The 1.5B AppAgent wrote total.txt, then asked to write it again with overwrite=true: held
            # for approval as a replacement, refused in batch mode, and the subtask failed with its file made.
            return {"path": args.path, "bytes": len(data), "unchanged": True,
                    "note": "the file already holds exactly this: nothing written"}
        path = self._writable_target(args.path, args.overwrite)
        before = approval.text_of(path) if args.overwrite else None
        path.parent.mkdir(parents=True, exist_ok=True)
        store(path, data, args.overwrite)
        done: dict[str, Any] = {"path": self.workspace.relative(path), "bytes": len(data)}
        if before is not None:  # what the overwrite lost and put in its place, for whoever reads the result
            removed, added = approval.text_change(before, args.content)
            done.update(removed_lines=list(removed), added_lines=list(added))
        return done

    def _write_names(self, args: NamesArgs) -> dict[str, Any]:
        if self.workspace.resolve(args.path, allow_root=True).is_file():
            # The 1.5B AppAgent "wrote" a region's name into answer.txt as the names matching it in sales.docx.
            raise ToolError(f"{args.path!r} is a file, not a folder: write_file_names writes the names of a "
                            f"folder's files. To write a text (a name, a number) into {args.into!r}, call "
                            f"write_file with that text as its content")
        text, names, truncated = self._names_text(args)
        written = self._write(WriteArgs(path=args.into, content=text, overwrite=args.overwrite))
        return {**written, "names": names[:50], "count": len(names), "truncated": truncated}

    def _names_text(self, args: NamesArgs) -> tuple[str, list[str], bool]:
        """The file write_file_names writes, its names, and whether the listing was cut."""
        listing = self._list(args)
        folder = self.workspace.resolve(args.path, allow_root=True)
        into = self.workspace.resolve(args.into)
        # paths from the folder listed, as a person reads them; never the file being written
        names = [os.path.relpath(self.workspace.resolve(e["path"]), folder) for e in listing["entries"]
                 if e["kind"] == "file" and self.workspace.resolve(e["path"]) != into]
        return "".join(f"{n}\n" for n in names), names, listing["truncated"]

    def _write_lines(self, args: LinesArgs) -> dict[str, Any]:
        text, lines = self._lines_text(args)
        written = self._write(WriteArgs(path=args.into, content=text, overwrite=args.overwrite))
        return {**written, "lines": len(lines), "first_lines": lines[:20]}

    def _lines_text(self, args: LinesArgs) -> tuple[str, list[str]]:
        """The text write_matching_lines writes and its lines; none kept is refused (a word not in the file)."""
        self.check_type(args.into)
        _, text = text_edit.existing_text(self, args.path)
        lines = text_edit.matching_lines(text, args.contains, args.match_case, args.without)
        if not lines:
            which = "every line holds" if args.without else "no line holds"
            raise ToolError(f"{which} {args.contains!r} in {args.path!r}"
                            f"{'' if not args.match_case else ' in that case'}: nothing written")
        return "".join(f"{line}\n" for line in lines), lines

    def _mkdir(self, args: FolderArgs) -> dict[str, Any]:
        path = self.workspace.resolve(args.path)
        if path.exists() and not path.is_dir():
            raise ToolError(f"{args.path!r} exists and is not a folder")
        if not path.exists() and path.suffix.lower() in FILE_SUFFIXES:
            # Told to write the names into docx_files.txt, the 1.5B AppAgent made a folder of that name
            # first, and every write_file after it failed.
            raise ToolError(f"{args.path!r} is a file's name, not a folder's: write_file creates the file (and "
                            "the folders above it)")
        path.mkdir(parents=True, exist_ok=True)
        return {"path": self.workspace.relative(path)}

    def _rename_pattern(self, args: RenameArgs) -> dict[str, Any]:
        folder, plan = self._rename_plan(args)
        if not args.dry_run:
            for old, new in plan:
                os.rename(folder / old, folder / new)
        return {"folder": self.workspace.relative(folder), "renamed": [list(p) for p in plan], "dry_run": args.dry_run}

    def _rename_plan(self, args: RenameArgs) -> tuple[Path, list[tuple[str, str]]]:
        """The folder and its (old, new) names, checked whole; ToolError says why not."""
        folder = self.workspace.resolve(args.folder, allow_root=True)
        if not folder.is_dir():
            raise ToolError(f"{args.folder!r} is not a folder")
        try:
            regex = re.compile(args.pattern)
        except re.error as exc:
            raise ToolError(f"pattern {args.pattern!r} is not a valid regular expression: {exc}") from exc
        names = sorted(os.listdir(folder))
        plan: list[tuple[str, str]] = []
        for name in names:
            if regex.search(name) is None:
                continue
            try:
                new = regex.sub(args.replacement, name, count=1)
            except (re.error, IndexError) as exc:
                raise ToolError(f"replacement {args.replacement!r} is invalid: {exc}") from exc
            if new != name:
                plan.append((name, new))
        if not plan:
            shown = ", ".join(repr(n) for n in names[:8]) + (", ..." if len(names) > 8 else "")
            raise ToolError(f"no name in {self.workspace.relative(folder)!r} matches {args.pattern!r} (or the "
                            f"replacement leaves it as it is); the names there: {shown or 'none'}")
        self._check_rename_plan(folder, names, plan)
        return Path(os.path.realpath(folder)), plan

    def _check_rename_plan(self, folder: Path, names: list[str], plan: list[tuple[str, str]]) -> None:
        moving = {old for old, _ in plan}
        seen: set[str] = set()
        for old, new in plan:
            if not new or "/" in new or new in (".", "..") or "\x00" in new:
                raise ToolError(f"renaming {old!r} would give {new!r}, which is not a plain name; nothing renamed")
            if new in seen:
                raise ToolError(f"two entries would both be renamed to {new!r}; nothing renamed")
            if new in names and new not in moving:
                raise ToolError(f"renaming {old!r} to {new!r} would replace an existing entry; nothing renamed")
            seen.add(new)
        # A chain like a->b while b->c is order-dependent; refuse it rather than guess.
        if seen & moving:
            raise ToolError("the renames overlap (a new name is also an old name); rename in two steps")

    def _delete(self, args: DeleteArgs) -> dict[str, Any]:
        path = self._existing(args.path)
        if path.is_dir() and not path.is_symlink():
            if any(path.iterdir()) and not args.recursive:
                raise ToolError(f"folder {args.path!r} is not empty; pass recursive=true to delete it all")
            shutil.rmtree(path)
        else:
            path.unlink()
        return {"deleted": self.workspace.relative(path)}

    # -- helpers -------------------------------------------------------------------------------
    def _existing(self, path: str) -> Path:
        resolved = self.workspace.resolve(path)
        if not os.path.lexists(resolved):
            raise self.workspace.missing(path, " in the workspace")
        return resolved

    def _existing_file(self, path: str) -> Path:
        resolved = self._existing(path)
        if resolved.is_dir():
            raise ToolError(f"{path!r} is a folder; use list_files", instead=("list_files",))
        return Path(os.path.realpath(resolved))

    def _writable_target(self, path: str, overwrite: bool) -> Path:
        resolved = Path(os.path.realpath(self.workspace.resolve(path)))
        if resolved.is_dir():
            raise ToolError(f"{path!r} is a folder")
        if resolved.exists() and not overwrite:
            raise ToolError(f"{path!r} already exists: to change a part of it and keep the rest, call replace_text "
                            "(or append_at_end to add at its end); pass overwrite=true to replace it whole (needs "
                            "approval)")
        return resolved


def _holds(path: Path, data: bytes) -> bool:
    """Whether the path is a regular file whose bytes are exactly `data` (a FIFO is not read: never blocks)."""
    try:
        if not is_regular(path) or path.stat().st_size != len(data):
            return False
        with open_regular(path, path.name) as handle:
            return handle.read(len(data) + 1) == data
    except (OSError, ToolError):
        return False


def _name_matcher(pattern: str | None) -> Callable[[str], bool]:
    if not pattern:
        return lambda name: True
    # '\.txt$' from a model means a regular expression; '*.txt' is no valid one and stays a glob, and so does
    # '2022*', which is a valid one ('202' then any '2') that every name of the 2020s holds
    if any(c in pattern for c in "*?") and ".*" not in pattern and not any(c in pattern for c in _REGEX_ONLY):
        return lambda name: fnmatch.fnmatch(name, pattern)
    try:
        regex: re.Pattern[str] | None = re.compile(pattern)
    except re.error:
        regex = None
    return lambda name: fnmatch.fnmatch(name, pattern) or (regex is not None and regex.search(name) is not None)


_REGEX_ONLY = "\\^$+()|{}"


def _split(folder: Path) -> tuple[list[str], list[str]]:
    dirs, files = [], []
    for entry in os.scandir(folder):
        (dirs if entry.is_dir(follow_symlinks=False) else files).append(entry.name)
    return dirs, files
