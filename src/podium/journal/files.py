"""Reading a workspace file's bytes for the journal's copies: regular files only, opened without blocking
(a FIFO named like a document must not hang the run), bounded."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from podium.errors import PodiumError

FOLDER = "folder"  # the change log's mark for a folder, where a file's is the SHA-256 of its bytes


def read_regular(path: Path, limit: int) -> bytes | None:
    """The bytes of `path`; None when nothing is there. A FIFO, a device, a socket or a folder, or a file
    larger than `limit`, raises PodiumError naming it."""
    try:
        info = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(info.st_mode):
        raise PodiumError(f"{path} is a symbolic link: the journal keeps copies of regular files only")
    if not stat.S_ISREG(info.st_mode):
        raise PodiumError(f"{path} is not a regular file: the journal keeps copies of regular files only")
    if info.st_size > limit:
        raise PodiumError(f"{path} has {info.st_size:,} bytes, more than the {limit:,} a copy may hold")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # replaced between the stat and the open
            raise PodiumError(f"{path} is not a regular file: the journal keeps copies of regular files only")
        chunks, size = [], 0
        while chunk := os.read(fd, 1 << 20):
            size += len(chunk)
            if size > limit:
                raise PodiumError(f"{path} grew past the {limit:,} bytes a copy may hold while it was read")
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def relative(workspace: Path, path: str | Path) -> str:
    """`path` (absolute, or relative to the workspace) as the change log names it: relative, forward
    slashes. A path outside the workspace is refused."""
    root = workspace.resolve()
    full = Path(path) if Path(path).is_absolute() else root / path
    full = Path(os.path.normpath(full))
    try:
        return full.relative_to(root).as_posix()
    except ValueError:
        raise PodiumError(f"{path} is outside the workspace {root}") from None
