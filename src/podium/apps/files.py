"""files: list, read, write, copy, move, rename by pattern and delete inside the workspace root.

Nothing is ever overwritten unless the call says `overwrite: true`, and such a call on an existing
target is sensitive (it needs the person's approval first); without it, creation is exclusive
(O_EXCL for files; a moved file is hard-linked, where the file system can), so an unapproved call can
never destroy data even if a file appears in between. Folders are never replaced. Every delete is
sensitive.

copy and move behave like cp and mv: a destination that is a folder receives the source under its
own name, and a source may be a pattern on the names of one folder ('reports/*.xlsx'). Every target
is checked before anything is touched (all or nothing), by the same plan that decides sensitivity.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from pydantic import Field

from podium.apps.tooling import Args, ToolApplication, ToolError, ToolSpec
from podium.apps.workspace import Workspace, atomic_save

MAX_LISTED = 2000
# Names no one gives a folder: make_folder refuses them (they are files to write).
FILE_SUFFIXES = frozenset({".txt", ".md", ".csv", ".json", ".docx", ".xlsx", ".pdf", ".html", ".xml", ".log",
                           ".yaml", ".yml", ".toml", ".ini", ".py", ".doc", ".xls", ".pptx", ".odt", ".ods"})
DEFAULT_READ_BYTES = 200_000
CONFIG_FILE = "podium.toml"
_NEW_NAME = "a destination no file has yet (a new name or folder) replaces nothing and needs no approval"


class ListArgs(Args):
    path: str = Field(".", description="folder, relative to the workspace root")
    pattern: str | None = Field(None, description="keep the names that match: a glob on the whole name "
                                "('*.docx'), or else a regular expression searched in the name ('\\.txt$', 'report')")
    recursive: bool = False


class NamesArgs(ListArgs):
    into: str = Field(description="the text file to write the names into, one per line")
    overwrite: bool = Field(False, description="replace an existing file (needs approval)")


class ReadArgs(Args):
    path: str
    max_bytes: int = Field(DEFAULT_READ_BYTES, ge=1, le=10_000_000)


class WriteArgs(Args):
    path: str
    content: str
    overwrite: bool = Field(False, description="replace an existing file (needs approval)")


class FolderArgs(Args):
    path: str


class CopyArgs(Args):
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
    pattern: str = Field(description="regular expression searched in each name of the folder, e.g. '^draft_'")
    replacement: str = Field(description=r"what replaces the first match, with \1 or \g<name> for groups")
    dry_run: bool = False


class DeleteArgs(Args):
    path: str
    recursive: bool = Field(False, description="required to delete a folder that is not empty")


class FilesApplication(ToolApplication):
    name = "files"

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.description = f"Files and folders inside the workspace {workspace.root}"
        super().__init__()

    def _specs(self) -> list[ToolSpec]:
        return [
            ToolSpec("list_files", "List a folder (names, kinds, sizes).", ListArgs, self._list, True),
            ToolSpec("read_file", "Read a text file.", ReadArgs, self._read, True),
            ToolSpec("write_file", "Write a text file (creates folders).", WriteArgs, self._write,
                     unapproved=_NEW_NAME),
            ToolSpec("make_folder", "Create a folder (and its parents).", FolderArgs, self._mkdir),
            # Handed a listing, the 1.5B AppAgent wrote docx_files.txt as "" or "\n", three times: copying a
            # tool's output into another call is what it cannot do, so the tool writes the names itself.
            ToolSpec("write_file_names", "Write the names of the files in a folder (recursive: its subfolders "
                     "too) that match a pattern into a text file, one per line.", NamesArgs, self._write_names,
                     unapproved=_NEW_NAME),
            ToolSpec("copy", "Copy a file or folder to a new path or into a folder (like cp); a pattern "
                     "source copies every match into the folder, or nothing if any target is taken.",
                     CopyArgs, partial(self._transfer, copying=True), unapproved=_NEW_NAME),
            ToolSpec("move", "Move or rename a file or folder to a new path or into a folder (like mv); a "
                     "pattern source moves every match into the folder, or nothing if any target is taken.",
                     CopyArgs, partial(self._transfer, copying=False), unapproved=_NEW_NAME),
            ToolSpec("rename_pattern", "Rename the entries of a folder whose whole name matches a regular "
                     "expression; refuses any rename that would collide and then renames nothing.",
                     RenameArgs, self._rename_pattern),
            ToolSpec("delete", "Delete a file or folder.", DeleteArgs, self._delete),
        ]

    def _sensitive(self, tool: str, args: Any) -> bool:
        if tool == "delete":
            return True
        try:  # what the call will touch, planned exactly as it will run
            if tool in ("copy", "move"):
                pairs = self._plan(args, copying=tool == "copy").pairs
            elif tool in ("write_file", "write_file_names"):
                target = self.workspace.resolve(args.path if tool == "write_file" else args.into)
                if tool == "write_file" and _holds(target, args.content.encode("utf-8")):
                    return False  # nothing would be lost: the call finds it done (`unchanged`)
                pairs = ((target, target),)
            else:
                return False
        except (ToolError, OSError):
            return False  # refused at call time: nothing runs, and the model learns why at once
        # podium's own configuration (allow-lists, models) may sit in the workspace: an agent must not
        # change what the next run is allowed to do without the person's yes.
        if any(path.name == CONFIG_FILE for pair in pairs for path in pair):
            return True
        return args.overwrite and any(os.path.lexists(target) for _, target in pairs)

    # -- read-only -----------------------------------------------------------------------------
    def _list(self, args: ListArgs) -> dict[str, Any]:
        folder = self.workspace.resolve(args.path, allow_root=True)
        if not folder.is_dir():
            raise ToolError(f"{args.path!r} is not a folder")
        entries: list[dict[str, Any]] = []
        walker = os.walk(folder) if args.recursive else [(str(folder), *_split(folder))]
        keep = _name_matcher(args.pattern)
        for top, dirs, files in walker:
            dirs.sort()
            for name in sorted(dirs) + sorted(files):
                if not keep(name):
                    continue
                entries.append(self._entry(Path(top) / name))
                if len(entries) >= MAX_LISTED:
                    return {"folder": self.workspace.relative(folder), "entries": entries, "truncated": True}
        return {"folder": self.workspace.relative(folder), "entries": entries, "truncated": False}

    def _entry(self, path: Path) -> dict[str, Any]:
        kind = "link" if path.is_symlink() else "folder" if path.is_dir() else "file"
        size = path.lstat().st_size if kind == "file" else None
        return {"path": self.workspace.relative(path), "kind": kind, "size": size}

    def _read(self, args: ReadArgs) -> dict[str, Any]:
        path = self._existing_file(args.path)
        with open(path, "rb") as handle:
            data = handle.read(args.max_bytes + 1)
        truncated = len(data) > args.max_bytes
        data = data[: args.max_bytes]
        if b"\x00" in data:
            raise ToolError(f"{args.path!r} is a binary file; use the documents or spreadsheets application "
                            "for .docx/.xlsx files")
        text, size = data.decode("utf-8", errors="replace"), path.stat().st_size
        return {"path": self.workspace.relative(path), "size": size, "text": text, "truncated": truncated}

    # -- changes -------------------------------------------------------------------------------
    def _write(self, args: WriteArgs) -> dict[str, Any]:
        data = args.content.encode("utf-8")
        if _holds(self.workspace.resolve(args.path), data):
            # The 1.5B AppAgent wrote total.txt, then asked to write it again with overwrite=true: held
            # for approval as a replacement, refused in batch mode, and the subtask failed with its file made.
            return {"path": args.path, "bytes": len(data), "unchanged": True,
                    "note": "the file already holds exactly this: nothing written"}
        path = self._writable_target(args.path, args.overwrite)
        path.parent.mkdir(parents=True, exist_ok=True)
        _store(path, data, args.overwrite)
        return {"path": self.workspace.relative(path), "bytes": len(data)}

    def _write_names(self, args: NamesArgs) -> dict[str, Any]:
        if self.workspace.resolve(args.path, allow_root=True).is_file():
            # The 1.5B AppAgent "wrote" a region's name into answer.txt as the names matching it in sales.docx.
            raise ToolError(f"{args.path!r} is a file, not a folder: write_file_names writes the names of a "
                            f"folder's files. To write a text (a name, a number) into {args.into!r}, call "
                            f"write_file with that text as its content")
        listing = self._list(args)
        folder = self.workspace.resolve(args.path, allow_root=True)
        into = self.workspace.resolve(args.into)
        # paths from the folder listed, as a person reads them; never the file being written
        names = [os.path.relpath(self.workspace.resolve(e["path"]), folder) for e in listing["entries"]
                 if e["kind"] == "file" and self.workspace.resolve(e["path"]) != into]
        written = self._write(WriteArgs(path=args.into, content="".join(f"{n}\n" for n in names),
                                        overwrite=args.overwrite))
        return {**written, "names": names[:50], "count": len(names), "truncated": listing["truncated"]}

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

    def _transfer(self, args: CopyArgs, *, copying: bool) -> dict[str, Any]:
        plan, one = self._plan(args, copying=copying), _copy_one if copying else _move_one
        done_verb, done = "copied" if copying else "moved", []
        for source, target in plan.pairs:
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                one(args.overwrite, source, target)
            except (OSError, ToolError) as exc:
                if not done:
                    raise
                # the plan found no obstacle, so this is the disk failing midway: say what already happened
                raise ToolError(f"{exc}; already {done_verb}: {done}") from exc
            done.append([self.workspace.relative(source), self.workspace.relative(target)])
        return {done_verb: done} if plan.many else {"source": done[0][0], "destination": done[0][1]}

    # -- copy and move: one plan, checked whole before anything is touched ------------------------
    def _plan(self, args: CopyArgs, *, copying: bool) -> _Plan:
        verb = "copy" if copying else "move"
        sources, many = self._sources(self._given(args), verb)
        # The root is a fine folder to copy into ('.'), but an empty destination is still a mistake.
        destination = self.workspace.resolve(args.destination, allow_root=bool(args.destination.strip()))
        into = many or destination.is_dir() or args.destination.rstrip().endswith("/")
        if into and os.path.lexists(destination) and not destination.is_dir():
            raise ToolError(f"{args.destination!r} is a file, not a folder to put {args.source!r} in: name a "
                            "folder (it is created if missing)")
        if many:
            sources = [s for s in sources if s != destination]  # 'move * into notes' leaves notes itself
            if not sources:
                raise ToolError(f"{args.source!r} only matches the destination folder {args.destination!r}")
        pairs: list[tuple[Path, Path]] = []
        for source in sources:
            # every final target goes through the workspace again: a name inside the folder may be a link out
            target = self.workspace.resolve(str(destination / source.name)) if into else destination
            try:
                pairs.append((source, self._check_target(source, target, verb, args.overwrite)))
            except ToolError as exc:
                if not many:
                    raise
                raise ToolError(f"{exc}; nothing was {'copied' if copying else 'moved'}") from exc
        return _Plan(tuple(pairs), many)

    def _given(self, args: CopyArgs) -> str:
        """The source as one path or pattern: a folder and a `pattern` ('.txt' meaning '*.txt') joined."""
        pattern = (args.pattern or "").strip()
        if not pattern:
            return args.source
        if pattern.startswith(".") and not any(char in pattern for char in "*?[") and pattern != ".":
            pattern = f"*{pattern}"
        last = os.path.basename(args.source.rstrip("/"))
        if any(char in last for char in "*?[") and pattern in (last, *_EVERY):
            # The source is the pattern already ('*.txt', and pattern '.*' or '*.txt' besides): the 1.5B
            # AppAgent filled both, and a move of every .txt file into notes failed on it twice.
            return args.source
        folder = self.workspace.resolve(args.source or ".", allow_root=True)
        if not folder.is_dir():
            # The 1.5B AppAgent gave its application's name ('files') as the source, twice: the error says
            # which folders there are, the workspace's own one first.
            where = "it does not exist" if not folder.exists() else "it is a file"
            folders = sorted(p.name for p in self.workspace.root.iterdir() if p.is_dir())[:10]
            raise ToolError(f"pattern {pattern!r} needs a folder as the source; {args.source!r} is not one ({where}); "
                            f"the folders are '.' (the workspace itself)"
                            + "".join(f", {name!r}" for name in folders))
        return f"{self.workspace.relative(folder)}/{pattern}"

    def _sources(self, given: str, verb: str) -> tuple[list[Path], bool]:
        """The paths `given` names, and whether it was a pattern (one folder's matching names)."""
        resolved = self.workspace.resolve(given, allow_root=bool(given.strip()))
        head, pattern = os.path.split(given)
        if resolved == self.workspace.root:
            raise ToolError(f"{given!r} is the workspace root itself, which {verb} cannot take whole; name the "
                            "files inside it, e.g. '*.txt' or 'report.docx' (a pattern takes every match)")
        if os.path.lexists(resolved):  # a file named 'a[1].txt' is itself
            return [resolved], False
        if not any(char in pattern for char in "*?["):  # nor is 'reports*/a.txt' one: the error names where a.txt is
            raise self.workspace.missing(given, " in the workspace")
        folder = self.workspace.resolve(head, allow_root=True)
        if not folder.is_dir():
            raise self.workspace.missing(head, " in the workspace")
        names = sorted(os.listdir(folder))
        hidden_too = pattern.startswith(".")  # like the shell: '*' leaves .hidden names alone
        matches = [n for n in names if fnmatch.fnmatch(n, pattern) and (hidden_too or not n.startswith("."))]
        if not matches:
            visible = [repr(n) for n in names if not n.startswith(".")]
            visible = visible[:8] + ["..."] * (len(visible) > 8)
            # The 1.5B AppAgent copied '*.xlsx' from the new, empty backup folder into itself: the error says
            # where the pattern does match.
            elsewhere = ""
            root = self.workspace.root  # (the root's parent is outside the workspace: never listed)
            for other in dict.fromkeys((folder.parent if folder != root else root, root)):  # nearer first
                if other != folder and other.is_dir() and (found := sorted(
                        n for n in os.listdir(other) if fnmatch.fnmatch(n, pattern) and not n.startswith("."))):
                    where = self.workspace.relative(other)
                    elsewhere = (f"; {where!r} has {', '.join(map(repr, found[:8]))}: the source for those is "
                                 f"{posixpath.join(where, pattern) if where != '.' else pattern!r}")
                    break
            raise ToolError(f"nothing in {self.workspace.relative(folder)!r} matches {pattern!r}; it has "
                            f"{', '.join(visible) or 'no entries'}{elsewhere}")
        return [self.workspace.resolve(str(folder / name)) for name in matches], True

    def _check_target(self, source: Path, target: Path, verb: str, overwrite: bool) -> Path:
        """The path to write for `source`, or the reason it must not be done."""
        rel = self.workspace.relative
        folder = source.is_dir() and not source.is_symlink()
        if target == source:
            raise ToolError(f"{rel(source)!r} is already there; name another path or folder")
        if folder and target.is_relative_to(source):
            raise ToolError(f"cannot {verb} folder {rel(source)!r} into itself ({rel(target)!r})")
        if verb == "copy" and not folder:
            target = Path(os.path.realpath(target))  # overwriting through a link writes its file, as before
            kinds = source.suffix.lower(), target.suffix.lower()
            if all(kinds) and kinds[0] != kinds[1]:
                # a copy keeps the bytes: meeting.docx copied to actions.txt is a Word file with a .txt name
                raise ToolError(f"copy keeps the bytes: {rel(source)!r} would stay a {kinds[0]} file named "
                                f"{rel(target)!r}; to put text into {rel(target)!r}, write it with write_file")
        if os.path.lexists(target):
            if folder or target.is_dir():
                raise ToolError(f"{rel(target)!r} already exists and folders are never replaced; pick a new path")
            if not overwrite:
                raise ToolError(f"{rel(target)!r} already exists; pass overwrite=true to replace it "
                                "(needs approval), or pick a new path")
        return target

    def _rename_pattern(self, args: RenameArgs) -> dict[str, Any]:
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
        if not args.dry_run:
            for old, new in plan:
                os.rename(folder / old, folder / new)
        return {"folder": self.workspace.relative(folder), "renamed": [list(p) for p in plan], "dry_run": args.dry_run}

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
            raise ToolError(f"{path!r} is a folder; use list_files")
        return Path(os.path.realpath(resolved))

    def _writable_target(self, path: str, overwrite: bool) -> Path:
        resolved = Path(os.path.realpath(self.workspace.resolve(path)))
        if resolved.is_dir():
            raise ToolError(f"{path!r} is a folder")
        if resolved.exists() and not overwrite:
            raise ToolError(f"{path!r} already exists; pass overwrite=true to replace it (needs approval)")
        return resolved


def _holds(path: Path, data: bytes) -> bool:
    """Whether the path is a file whose bytes are exactly `data`."""
    try:
        return path.is_file() and path.stat().st_size == len(data) and path.read_bytes() == data
    except OSError:
        return False


@dataclass(frozen=True, slots=True)
class _Plan:
    """A copy or move, checked whole: (source, target) pairs (the sources are one folder's entries, so
    no two share a target), and whether the source was a pattern (`many`: results list every pair)."""

    pairs: tuple[tuple[Path, Path], ...]
    many: bool


# Patterns a model writes for "every name": a source pattern needs none of them besides.
_EVERY = ("*", ".*", "*.*", "**", ".+", "all")


def _name_matcher(pattern: str | None) -> Callable[[str], bool]:
    if not pattern:
        return lambda name: True
    try:  # '\.txt' from a model means a regular expression; '*.txt' is no valid one and stays a glob
        regex: re.Pattern[str] | None = re.compile(pattern)
    except re.error:
        regex = None
    return lambda name: fnmatch.fnmatch(name, pattern) or (regex is not None and regex.search(name) is not None)


def _copy_one(overwrite: bool, source: Path, target: Path) -> None:
    if source.is_dir() and not source.is_symlink():
        shutil.copytree(source, target, symlinks=True)  # refuses an existing target itself
        return
    _store(target, source.read_bytes(), overwrite)
    shutil.copystat(source, target)


def _move_one(overwrite: bool, source: Path, target: Path) -> None:
    if overwrite or (source.is_dir() and not source.is_symlink()):
        shutil.move(source, target)  # a folder target was refused by the plan: folders are never replaced
        return
    try:  # rename() would replace a file that appeared since the plan; a hard link cannot
        os.link(source, target, follow_symlinks=False)
    except FileExistsError as exc:
        raise ToolError(f"{target.name!r} appeared meanwhile; nothing replaced") from exc
    except OSError:  # no hard links here (another file system): the plan's check is what there is
        shutil.move(source, target)
        return
    os.unlink(source)


def _split(folder: Path) -> tuple[list[str], list[str]]:
    dirs, files = [], []
    for entry in os.scandir(folder):
        (dirs if entry.is_dir(follow_symlinks=False) else files).append(entry.name)
    return dirs, files


def _store(path: Path, data: bytes, overwrite: bool) -> None:
    if overwrite:
        atomic_save(path, lambda tmp: tmp.write_bytes(data))
    else:
        with open(path, "xb") as handle:  # exclusive: never replaces a file that appeared meanwhile
            handle.write(data)
