"""copy and move, planned whole before anything is touched (like cp and mv, and all or nothing).

A destination that is a folder receives the source under its own name, and a source may be a pattern on the
names of one folder ('reports/*.xlsx'). The plan is also what the call's effects are: it lists exactly the
targets the call will write. A copy streams (a large file is never held in memory) and copies only regular
files, folders and links: a FIFO, a device or a socket, alone or in a folder, is refused before anything is
copied.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Protocol

from podium.apps.tooling import ToolError
from podium.apps.workspace import PathRefused, Workspace, atomic_save, open_regular


class TransferArgs(Protocol):
    """What a copy or move call gives (files.CopyArgs)."""

    source: str
    pattern: str | None
    destination: str
    overwrite: bool


@dataclass(frozen=True, slots=True)
class Plan:
    """A copy or move, checked whole: (source, target) pairs (the sources are one folder's entries, so
    no two share a target), and whether the source was a pattern (`many`: results list every pair)."""

    pairs: tuple[tuple[Path, Path], ...]
    many: bool


# Patterns a model writes for "every name": a source pattern needs none of them besides.
EVERY = ("*", ".*", "*.*", "**", ".+", "all")


class Transfer:
    """copy and move inside one workspace."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    def run(self, args: TransferArgs, *, copying: bool) -> dict[str, Any]:
        plan, one = self.plan(args, copying=copying), copy_one if copying else move_one
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

    def plan(self, args: TransferArgs, *, copying: bool) -> Plan:
        verb = "copy" if copying else "move"
        sources, many = self._sources(self._given(args), verb)
        # The root is a fine folder to copy into ('.'), but an empty destination is still a mistake.
        destination = self.workspace.resolve(args.destination, allow_root=bool(args.destination.strip()))
        into = many or destination.is_dir() or args.destination.rstrip().endswith("/") or _typeless_new(
            sources, destination)
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
        return Plan(tuple(pairs), many)

    def _given(self, args: TransferArgs) -> str:
        """The source as one path or pattern: a folder and a `pattern` ('.txt' meaning '*.txt') joined."""
        pattern = (args.pattern or "").strip()
        if not pattern:
            return args.source
        if pattern.startswith(".") and not any(char in pattern for char in "*?[") and pattern != ".":
            pattern = f"*{pattern}"
        last = os.path.basename(args.source.rstrip("/"))
        if any(char in last for char in "*?[") and pattern in (last, *EVERY):
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
        if verb == "copy":
            _only_plain(source, rel(source))
        if verb == "copy" and not folder:
            target = Path(os.path.realpath(target))  # overwriting through a link writes its file, as before
            kinds = source.suffix.lower(), target.suffix.lower()
            if all(kinds) and kinds[0] != kinds[1]:
                # a copy keeps the bytes: meeting.docx copied to actions.txt is a Word file with a .txt name
                raise ToolError(f"copy keeps the bytes: {rel(source)!r} would stay a {kinds[0]} file named "
                                f"{rel(target)!r}; a {kinds[1]} file is made by the tools that write that type "
                                "(write_file for text)")
        if os.path.lexists(target):
            if folder or target.is_dir():
                raise ToolError(f"{rel(target)!r} already exists and folders are never replaced; pick a new path")
            if not overwrite:
                raise ToolError(f"{rel(target)!r} already exists; pass overwrite=true to replace it "
                                "(needs approval), or pick a new path")
        return target


def _typeless_new(sources: list[Path], destination: Path) -> bool:
    """A new name without a type for a file that has one names a folder to make: `cp q1.xlsx backup` with no
    backup yet would otherwise make a workbook named "backup", its type lost, which no one means."""
    return (len(sources) == 1 and sources[0].suffix != "" and not sources[0].is_dir() and destination.suffix == ""
            and not os.path.lexists(destination))


def copy_one(overwrite: bool, source: Path, target: Path) -> None:
    if source.is_dir() and not source.is_symlink():
        # refuses an existing target itself; a special file that appeared since the plan is refused too
        shutil.copytree(source, target, symlinks=True, copy_function=_copy_regular)
        return
    with open_regular(source, source.name) as handle:
        store(target, handle, overwrite)
    shutil.copystat(source, target)


def move_one(overwrite: bool, source: Path, target: Path) -> None:
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


def store(path: Path, data: bytes | BinaryIO, overwrite: bool) -> None:
    """Write `data` (bytes, or a file read to its end in chunks) to `path`: replacing it atomically with
    overwrite, else created exclusively (never replaces a file that appeared meanwhile)."""
    def write(handle: BinaryIO) -> None:
        if isinstance(data, bytes):
            handle.write(data)
        else:
            shutil.copyfileobj(data, handle, 1 << 20)

    if overwrite:
        def save(tmp: Path) -> None:
            with open(tmp, "wb") as handle:
                write(handle)

        atomic_save(path, save)
    else:
        with open(path, "xb") as handle:
            write(handle)


def _copy_regular(source: str, target: str) -> None:
    with open_regular(Path(source), os.path.basename(source)) as handle, open(target, "xb") as out:
        shutil.copyfileobj(handle, out, 1 << 20)
    shutil.copystat(source, target)


def _only_plain(source: Path, shown: str) -> None:
    """Refuse a copy whose source is, or holds, a FIFO, a device or a socket (reading one blocks or never
    ends); links are copied as links, so where they point does not matter here."""
    def check(path: Path, name: str) -> None:
        mode = path.lstat().st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode)):
            raise PathRefused(f"{name!r} is not a regular file (a FIFO, a device or a socket): it is not copied, "
                              "and nothing was copied")

    if source.is_symlink():
        if not os.path.isdir(source):
            with open_regular(source, source.name):  # the file a copy would read through the link
                pass
        return
    check(source, shown)
    if source.is_dir():
        for folder, dirs, files in os.walk(source):
            for name in dirs + files:
                check(Path(folder) / name, posixpath.join(shown, os.path.relpath(Path(folder) / name, source)))
