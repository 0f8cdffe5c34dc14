"""make_archive and extract_archive: .zip files of the files application, with the limits of its other tools.

An archive holds regular files only: a link is left out (where it points may be outside the workspace, or a
device), and so are podium's protected files and the archive itself. Entries are named from the folder
archived (`zip -r reports.zip reports` keeps `reports/` in each name).

Extracting checks every entry before it writes any: no absolute name, no `..`, no link, no more than
MAX_ENTRIES entries or MAX_BYTES bytes unpacked (a small archive can unpack into gigabytes). Each target is a
workspace path as any other tool's is (a folder that is a link out refuses it), created exclusively; a file
that is there already is replaced only with `overwrite` (a REPLACE, which waits for approval), and a
protected path is one the approval covers like any other write.
"""

from __future__ import annotations

import io
import os
import posixpath
import stat
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import Field

from podium.apps import approval
from podium.apps.approval import declared
from podium.apps.base import Change, Effect
from podium.apps.file_transfer import store
from podium.apps.tooling import Args, ToolError, ToolSpec
from podium.apps.workspace import Workspace, is_regular

MAX_ENTRIES = 10_000
MAX_BYTES = 200 * 1024 * 1024
_ZIP = ".zip"


class MakeArgs(Args):
    source: str = Field(description="the folder (or one file) to put into the archive; '.' for the workspace")
    into: str = Field(description="the .zip file to write, e.g. 'reports.zip'")
    pattern: str | None = Field(None, description="with a folder: only the files whose name matches this glob, "
                                                  "e.g. '*.log'")
    overwrite: bool = Field(False, description="replace an existing archive (needs approval)")


class ExtractArgs(Args):
    path: str = Field(description="the .zip file")
    into: str | None = Field(None, description="the folder to extract into (created if missing); the archive's "
                                               "own folder when omitted")
    overwrite: bool = Field(False, description="replace files that are there already (needs approval)")


def specs(app: Any) -> list[ToolSpec]:
    workspace: Workspace = app.workspace
    return [
        ToolSpec("make_archive", "Put a folder's files (or one file) into a new .zip archive.", MakeArgs,
                 lambda a: make_archive(workspace, a),
                 effects=declared(lambda a: _make_effects(workspace, a)),
                 unapproved="a new archive name replaces nothing and needs no approval"),
        ToolSpec("extract_archive", "Extract a .zip archive's files into a folder.", ExtractArgs,
                 lambda a: extract_archive(workspace, a),
                 effects=declared(lambda a: _extract_effects(workspace, a)),
                 unapproved="a folder with none of the archive's files in it yet needs no approval"),
    ]


# -- make --------------------------------------------------------------------------------------
def make_archive(workspace: Workspace, args: MakeArgs) -> dict[str, Any]:
    target = _archive(workspace, args.into, args.source)
    if target.exists() and not args.overwrite:
        raise ToolError(f"{args.into!r} exists already: give another name, or overwrite=true to replace it (needs "
                        "approval)")
    members, left = _members(workspace, args, target)
    if not members:
        raise ToolError(f"no file to archive in {args.source!r}" + (f" matching {args.pattern!r}" if args.pattern
                                                                     else "") + (f" ({left})" if left else ""))
    buffer, size = io.BytesIO(), 0
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, path in members:
            data = workspace.read_bytes(path, MAX_BYTES - size, name)
            size += len(data)
            archive.writestr(name, data)
    target.parent.mkdir(parents=True, exist_ok=True)
    store(target, buffer.getvalue(), args.overwrite)
    done: dict[str, Any] = {"archive": args.into, "files": len(members), "bytes": size,
                            "entries": [name for name, _ in members[:20]] + (["..."] if len(members) > 20 else [])}
    return done | ({"left_out": left} if left else {})


def _make_effects(workspace: Workspace, args: MakeArgs) -> tuple[Effect, ...]:
    target = _archive(workspace, args.into, args.source)
    if not _members(workspace, args, target)[0]:
        return ()  # refused
    return approval.whole_file(workspace, target, args.overwrite)


def _archive(workspace: Workspace, path: str, source: str = "") -> Path:
    if not path.lower().endswith(_ZIP):
        if source.lower().endswith(_ZIP):  # an archive put "into" a folder: what extracting it does
            raise ToolError(f"{source!r} is an archive already: extract_archive extracts it into {path!r}",
                            instead=("extract_archive",))
        raise ToolError(f"{path!r} is not a .zip path: archives are .zip files")
    target = workspace.physical(path)
    if target.is_dir():
        raise ToolError(f"{path!r} is a folder")
    return target


def _members(workspace: Workspace, args: MakeArgs, target: Path) -> tuple[list[tuple[str, Path]], str]:
    """(entry name, file) of every file archived, and what was left out, said in words."""
    source = workspace.resolve(args.source, allow_root=True)
    if not source.exists():
        raise workspace.missing(args.source)
    if source.is_file():
        return [(source.name, source)], ""
    base = source if source == workspace.root else source.parent
    members, links = [], 0
    for folder, dirs, files in os.walk(source):
        links += sum(Path(folder, d).is_symlink() for d in dirs)
        dirs[:] = sorted(d for d in dirs if not Path(folder, d).is_symlink())
        for name in sorted(files):
            path = Path(folder, name)
            if path.is_symlink() or not is_regular(path):
                links += 1
                continue
            if path == target or workspace.is_protected(path):
                continue
            if args.pattern and not Path(name).match(args.pattern):
                continue
            members.append((Path(os.path.relpath(path, base)).as_posix(), path))
            if len(members) > MAX_ENTRIES:
                raise ToolError(f"{args.source!r} holds more than {MAX_ENTRIES:,} files: archive a smaller folder")
    return members, f"{links} link(s) or special file(s) left out" if links else ""


# -- extract -----------------------------------------------------------------------------------
def extract_archive(workspace: Workspace, args: ExtractArgs) -> dict[str, Any]:
    archive, folder, entries = _checked(workspace, args)
    written = []
    with archive:
        for info, target in entries:
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(info) as data:
                store(target, data, args.overwrite)  # read no further than its declared size
            written.append(workspace.relative(target))
    return {"archive": args.path, "into": workspace.relative(folder) if folder != workspace.root else ".",
            "files": len(written), "written": written[:20] + (["..."] if len(written) > 20 else [])}


def _extract_effects(workspace: Workspace, args: ExtractArgs) -> list[Effect]:
    archive, _, entries = _checked(workspace, args)
    archive.close()
    return [workspace.effect(target, Change.REPLACE if target.exists() else Change.CREATE)
            for info, target in entries if not info.is_dir()]


def _checked(workspace: Workspace, args: ExtractArgs) -> tuple[zipfile.ZipFile, Path, list[tuple[Any, Path]]]:
    """The open archive, the folder, and each entry with its target; a ToolError for anything unsafe, before
    a byte is written."""
    path = _archive(workspace, args.path)
    if not path.exists():
        raise workspace.missing(args.path)
    into = args.into if args.into is not None else posixpath.dirname(args.path.replace("\\", "/"))
    folder = workspace.resolve(into, allow_root=True)
    if folder.exists() and not folder.is_dir():
        raise ToolError(f"{into!r} is a file, not a folder to extract into")
    try:
        archive = zipfile.ZipFile(io.BytesIO(workspace.read_bytes(path, MAX_BYTES, args.path)))
    except zipfile.BadZipFile as exc:
        raise ToolError(f"{args.path!r} is not a readable .zip archive: {exc}") from None
    try:
        entries = list(_targets(workspace, archive, folder, args))
    except BaseException:
        archive.close()
        raise
    return archive, folder, entries


def _targets(workspace: Workspace, archive: zipfile.ZipFile, folder: Path, args: ExtractArgs
             ) -> Iterator[tuple[zipfile.ZipInfo, Path]]:
    infos = archive.infolist()
    if len(infos) > MAX_ENTRIES:
        raise ToolError(f"{args.path!r} holds {len(infos):,} entries; more than {MAX_ENTRIES:,} are not extracted")
    if sum(i.file_size for i in infos) > MAX_BYTES:
        raise ToolError(f"{args.path!r} unpacks into more than {MAX_BYTES:,} bytes: not extracted")
    taken = []
    for info in infos:
        name = info.filename.replace("\\", "/")
        parts = [p for p in name.split("/") if p not in ("", ".")]
        if name.startswith("/") or ".." in parts or (parts and ":" in parts[0]) or not parts:
            raise ToolError(f"{args.path!r} holds an entry named {info.filename!r}, which points outside the folder "
                            "it is extracted into: nothing was extracted")
        if stat.S_ISLNK(info.external_attr >> 16):
            raise ToolError(f"{args.path!r} holds a link ({info.filename!r}): links are not extracted, and nothing "
                            "was")
        target = workspace.resolve(str(Path(os.path.relpath(folder, workspace.root), *parts)))
        # a folder entry goes into a folder that is there; a file replaces a file, and only with overwrite
        clash = not target.is_dir() if info.is_dir() else target.is_dir() or not args.overwrite
        if target.exists() and clash:
            taken.append(workspace.relative(target))
            continue
        yield info, target
    if taken:
        shown = ", ".join(taken[:8]) + (", ..." if len(taken) > 8 else "")
        raise ToolError(f"extracting {args.path!r} would replace {shown}: give another folder (into), or "
                        "overwrite=true to replace them (needs approval); nothing was extracted")
