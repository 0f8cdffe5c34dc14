"""files: list, read, write, copy, move, rename by pattern and delete inside the workspace root.

Nothing is ever overwritten unless the call says `overwrite: true`, and such a call on an existing
target is sensitive (it needs the person's approval first); without it, creation is exclusive
(O_EXCL), so an unapproved call can never destroy data even if a file appears in between. Every
delete is sensitive.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
from pathlib import Path
from typing import Any

from pydantic import Field

from podium.apps.tooling import Args, ToolApplication, ToolError, ToolSpec
from podium.apps.workspace import Workspace, atomic_save

MAX_LISTED = 2000
DEFAULT_READ_BYTES = 200_000
CONFIG_FILE = "podium.toml"


class ListArgs(Args):
    path: str = Field(".", description="folder, relative to the workspace root")
    pattern: str | None = Field(None, description="glob on names, e.g. '*.docx'")
    recursive: bool = False


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
    source: str
    destination: str = Field(description="the full new path (not a folder to put it in)")
    overwrite: bool = Field(False, description="replace an existing destination file (needs approval)")


class RenameArgs(Args):
    folder: str = "."
    pattern: str = Field(description="regular expression matched against whole names in the folder")
    replacement: str = Field(description=r"replacement, with \1 or \g<name> for groups")
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
            ToolSpec("write_file", "Write a text file (creates folders).", WriteArgs, self._write),
            ToolSpec("make_folder", "Create a folder (and its parents).", FolderArgs, self._mkdir),
            ToolSpec("copy", "Copy a file or folder to a new path.", CopyArgs, self._copy),
            ToolSpec("move", "Move or rename a file or folder to a new path.", CopyArgs, self._move),
            ToolSpec(
                "rename_pattern",
                "Rename the entries of a folder whose whole name matches a regular expression; refuses "
                "any rename that would collide and then renames nothing.",
                RenameArgs,
                self._rename_pattern,
            ),
            ToolSpec("delete", "Delete a file or folder.", DeleteArgs, self._delete),
        ]

    def _sensitive(self, tool: str, args: Any) -> bool:
        if tool == "delete":
            return True
        # podium's own configuration (allow-lists, models) may sit in the workspace: an agent must not
        # change what the next run is allowed to do without the person's yes.
        touched = [getattr(args, name, None) for name in ("path", "source", "destination")]
        if tool in ("write_file", "copy", "move") and any(
                isinstance(t, str) and Path(t).name == CONFIG_FILE for t in touched):
            return True
        if tool in ("write_file", "copy", "move") and args.overwrite:
            target = args.path if tool == "write_file" else args.destination
            try:
                return os.path.lexists(self.workspace.resolve(target))
            except ToolError:
                return False  # refused at call time: nothing runs
        return False

    # -- read-only -----------------------------------------------------------------------------
    def _list(self, args: ListArgs) -> dict[str, Any]:
        folder = self.workspace.resolve(args.path, allow_root=True)
        if not folder.is_dir():
            raise ToolError(f"{args.path!r} is not a folder")
        entries: list[dict[str, Any]] = []
        walker = os.walk(folder) if args.recursive else [(str(folder), *_split(folder))]
        for top, dirs, files in walker:
            dirs.sort()
            for name in sorted(dirs) + sorted(files):
                if args.pattern and not fnmatch.fnmatch(name, args.pattern):
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
            raise ToolError(
                f"{args.path!r} is a binary file; use the documents or spreadsheets application for .docx/.xlsx files"
            )
        return {
            "path": self.workspace.relative(path),
            "size": path.stat().st_size,
            "text": data.decode("utf-8", errors="replace"),
            "truncated": truncated,
        }

    # -- changes -------------------------------------------------------------------------------
    def _write(self, args: WriteArgs) -> dict[str, Any]:
        path = self._writable_target(args.path, args.overwrite)
        path.parent.mkdir(parents=True, exist_ok=True)
        data = args.content.encode("utf-8")
        if args.overwrite:
            _atomic_write(path, data)
        else:
            with open(path, "xb") as handle:  # exclusive: never replaces a file that appeared meanwhile
                handle.write(data)
        return {"path": self.workspace.relative(path), "bytes": len(data)}

    def _mkdir(self, args: FolderArgs) -> dict[str, Any]:
        path = self.workspace.resolve(args.path)
        if path.exists() and not path.is_dir():
            raise ToolError(f"{args.path!r} exists and is not a folder")
        path.mkdir(parents=True, exist_ok=True)
        return {"path": self.workspace.relative(path)}

    def _copy(self, args: CopyArgs) -> dict[str, Any]:
        source = self._existing(args.source)
        if source.is_dir() and not source.is_symlink():
            destination = self._new_target(args.destination)
            shutil.copytree(source, destination, symlinks=True)
        else:
            destination = self._writable_target(args.destination, args.overwrite)
            kinds = source.suffix.lower(), destination.suffix.lower()
            if all(kinds) and kinds[0] != kinds[1]:
                # a copy keeps the bytes: meeting.docx copied to actions.txt is a Word file with a .txt name
                raise ToolError(f"copy keeps the bytes: {args.source!r} would stay a {kinds[0]} file named "
                                f"{args.destination!r}; to put text into {args.destination!r}, write it with "
                                "write_file")
            destination.parent.mkdir(parents=True, exist_ok=True)
            if args.overwrite:
                _atomic_write(destination, source.read_bytes())
            else:
                with open(source, "rb") as src, open(destination, "xb") as dst:
                    shutil.copyfileobj(src, dst)
            shutil.copystat(source, destination)
        return {"source": self.workspace.relative(source), "destination": self.workspace.relative(destination)}

    def _move(self, args: CopyArgs) -> dict[str, Any]:
        source = self._existing(args.source)
        if source.is_dir() and not source.is_symlink():
            destination = self._new_target(args.destination)
            if destination.is_relative_to(source):
                raise ToolError(f"cannot move folder {args.source!r} into itself")
        else:
            destination = self.workspace.resolve(args.destination)
            if os.path.lexists(destination) and (destination.is_dir() or not args.overwrite):
                raise ToolError(
                    f"{args.destination!r} already exists; pass overwrite=true to replace a file "
                    "(needs approval), or pick a new path"
                )
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(source, destination)
        return {"source": self.workspace.relative(source), "destination": self.workspace.relative(destination)}

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
            if regex.fullmatch(name) is None:
                continue
            try:
                new = regex.sub(args.replacement, name, count=1)
            except (re.error, IndexError) as exc:
                raise ToolError(f"replacement {args.replacement!r} is invalid: {exc}") from exc
            if new != name:
                plan.append((name, new))
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

    def _new_target(self, path: str) -> Path:
        resolved = self.workspace.resolve(path)
        if os.path.lexists(resolved):
            raise ToolError(f"{path!r} already exists; pick a new path")
        return resolved

    def _writable_target(self, path: str, overwrite: bool) -> Path:
        resolved = Path(os.path.realpath(self.workspace.resolve(path)))
        if resolved.is_dir():
            raise ToolError(f"{path!r} is a folder")
        if resolved.exists() and not overwrite:
            raise ToolError(f"{path!r} already exists; pass overwrite=true to replace it (needs approval)")
        return resolved


def _split(folder: Path) -> tuple[list[str], list[str]]:
    dirs, files = [], []
    for entry in os.scandir(folder):
        (dirs if entry.is_dir(follow_symlinks=False) else files).append(entry.name)
    return dirs, files


def _atomic_write(path: Path, data: bytes) -> None:
    atomic_save(path, lambda tmp: tmp.write_bytes(data))
