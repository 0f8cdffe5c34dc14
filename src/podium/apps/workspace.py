"""The workspace root: the one folder the file-touching applications may read and change.

Every path an agent gives is resolved physically (symlinks followed, `..` applied after them) and
refused when it ends up outside the root, before anything is touched. The last component is kept
as given (not followed) so that deleting or renaming a symlink acts on the link, never on its
target; a symlink whose target leaves the root is refused outright.

A file is opened only if it is a regular file (`open_regular`): a FIFO named notes.txt would block a
reader forever (and the event loop with it), a device would read without end, a socket cannot be read.
The check is made on the path first, and again on the descriptor, which is opened non-blocking, so a
file swapped in between cannot block either.

Some paths are protected (`protected`: podium's own configuration, the journal's files, filled by the
registry): any change to them, or to a folder holding them, needs the person's approval, and sandboxed
commands see them read-only.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import BinaryIO

from podium.apps.base import Change, Effect
from podium.apps.tooling import ToolError

# podium's configuration file: wherever it sits in the workspace, podium run there reads it.
CONFIG_NAME = "podium.toml"
_KINDS = {stat.S_IFIFO: "a named pipe (FIFO)", stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device",
          stat.S_IFSOCK: "a socket", stat.S_IFDIR: "a folder"}


class PathRefused(ToolError):
    """A path leaves the workspace root (or is otherwise unusable); nothing was touched."""


@dataclass(frozen=True, slots=True)
class Workspace:
    root: Path
    # Physical paths (absolute, links followed) whose change always needs approval; see the module docstring.
    protected: frozenset[Path] = field(default=frozenset())

    @classmethod
    def at(cls, root: str | os.PathLike[str], protected: Iterable[str | os.PathLike[str]] = ()) -> Workspace:
        real = Path(os.path.realpath(root))
        if not real.is_dir():
            raise ToolError(f"workspace root {str(root)!r} is not an existing folder")
        return cls(real, frozenset(Path(os.path.realpath(path)) for path in protected))

    # -- protected paths and effects -----------------------------------------------------------
    def protected_paths(self) -> tuple[Path, ...]:
        """The protected paths inside the workspace, the configuration file at its root included (what a
        sandbox shows read-only even where the workspace is writable)."""
        inside = {path for path in self.protected if self._inside(path)}
        return tuple(sorted(inside | {self.root / CONFIG_NAME}))

    def is_protected(self, path: Path) -> bool:
        """Whether a change at `path` (physical) changes something protected: a path outside the workspace,
        a configuration file, a protected path, a folder holding one, or another name of a protected file
        (a hard link)."""
        if not self._inside(path) or path.name == CONFIG_NAME:
            return True
        if any(p == path or p.is_relative_to(path) for p in self.protected):
            return True
        try:
            held = path.lstat()
        except OSError:
            return False
        if stat.S_ISDIR(held.st_mode):
            return _holds_config(path)
        if held.st_nlink > 1:
            for other in self.protected:
                try:
                    found = other.stat()
                except OSError:
                    continue
                if (found.st_dev, found.st_ino) == (held.st_dev, held.st_ino):
                    return True
        return False

    def effect(self, path: Path, change: Change) -> Effect:
        """The Effect of `change` at the physical `path`: workspace-relative in POSIX form, absolute outside."""
        return Effect(self.relative(path) if self._inside(path) else path.as_posix(), change)

    def physical(self, path: str) -> Path:
        """`resolve(path)` with the last link followed too: where a write through `path` lands."""
        return Path(os.path.realpath(self.resolve(path)))

    def typed(self, path: str, suffix: str, expected: str) -> Path:
        """Where the file `path` names is, its links followed; ToolError unless both its name and that file
        end in `suffix` (a link named data.xlsx to the journal is no workbook). `expected` completes
        "'x' is not ..." ("a .docx path (only Word .docx files are supported)")."""
        named, resolved = self.resolve(path), self.physical(path)
        if named.suffix.lower() == suffix and resolved.suffix.lower() != suffix:
            raise ToolError(f"{path!r} is a link to {self._shown(resolved)!r}, which is not a {suffix} file")
        if resolved.suffix.lower() != suffix:
            raise ToolError(f"{path!r} is not {expected}{self.of_type(suffix)}")
        return resolved

    def at_path(self, effect: Effect) -> Path:
        """The physical path an Effect names."""
        return Path(effect.path) if effect.path.startswith("/") else self.root / effect.path

    # -- opening files -------------------------------------------------------------------------
    def open_regular(self, path: Path, name: str | None = None) -> BinaryIO:
        """`path` opened for reading, if it is a regular file (PathRefused otherwise, nothing blocks)."""
        return open_regular(path, name or self._shown(path))

    def read_bytes(self, path: Path, limit: int | None = None, name: str | None = None) -> bytes:
        """The bytes of the regular file `path`; a file of more than `limit` bytes is refused unread."""
        shown = name or self._shown(path)
        with self.open_regular(path, shown) as handle:
            size = os.fstat(handle.fileno()).st_size
            if limit is not None and size > limit:
                raise PathRefused(f"{shown!r} is {size:,} bytes; files over {limit:,} bytes are not opened")
            data = handle.read() if limit is None else handle.read(limit + 1)
        if limit is not None and len(data) > limit:
            raise PathRefused(f"{shown!r} grew past {limit:,} bytes while it was read; not opened")
        return data

    def _shown(self, path: Path) -> str:
        return self.relative(path) if self._inside(path) else str(path)

    def resolve(self, path: str, *, allow_root: bool = False) -> Path:
        """The physical path for `path` (relative to the root, or absolute inside it).

        Raises PathRefused when it leaves the root; `allow_root` admits the root itself (listing a
        folder, a folder to rename in), and then an empty path names it too: a model writes "" for
        "here" as readily as ".".
        """
        if not isinstance(path, str):
            raise PathRefused(f"path {path!r} is not text: give a path relative to the workspace root")
        if path.strip() == "":
            if allow_root:
                return self.root
            raise PathRefused("empty path: give a path relative to the workspace root")
        if "\x00" in path:
            raise PathRefused(f"path {path!r} contains a NUL byte")
        given = Path(os.path.expanduser(path)) if path.startswith("~") else Path(path)
        joined = given if given.is_absolute() else self.root / given
        parent = Path(os.path.realpath(joined.parent))
        name = joined.name
        # "x/.." or "." name no entry of their own: resolve them fully; otherwise keep the last name.
        candidate = Path(os.path.realpath(joined)) if name in ("", ".", "..") else parent / name
        if not self._inside(parent) and candidate != self.root:
            raise self._refusal(path)
        # The target, with every symlink followed, must stay inside too (a link pointing out).
        if not self._inside(Path(os.path.realpath(candidate))):
            raise self._refusal(path, link=candidate.is_symlink())
        if candidate == self.root and not allow_root:
            raise PathRefused(f"{path!r} is the workspace root itself; name a file or folder inside it")
        return candidate

    def missing(self, path: str, then: str = "") -> ToolError:
        """The error for a path that does not exist, naming the workspace's files of the same name: a
        model that wrote 'C:/Users/me/Documents/report.docx' or 'data/report.docx' for the top-level
        report.docx is told the path that works."""
        name = PurePath(path.replace("\\", "/")).name
        found: list[str] = []
        seen = 0
        for folder, dirs, files in os.walk(self.root):  # symlinked folders are not entered
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            seen += len(files) + len(dirs)
            if name in files or name in dirs:
                found.append(self.relative(Path(folder) / name))
            if len(found) >= 5 or seen > 5000:  # a hint, not a search engine
                break
        hint = f"; the workspace has {', '.join(map(repr, sorted(found)))}" if found else then
        return ToolError(f"{path!r} does not exist{hint}")

    def of_type(self, suffix: str) -> str:
        """'; the .docx files here: 'a.docx', 'b/c.docx'' (or that there is none), for an error on a path
        of another type or none: the 1.5B AppAgent asked to read a contact's phone read 'Acme Corp.xlsx'
        with the documents' tool, a file that exists nowhere."""
        found: list[str] = []
        seen = 0
        for folder, dirs, files in os.walk(self.root):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            seen += len(files) + len(dirs)
            found += [self.relative(Path(folder) / f) for f in sorted(files) if f.lower().endswith(suffix)]
            if len(found) >= 8 or seen > 5000:  # a hint, not a search engine
                break
        return f"; the {suffix} files here: {', '.join(map(repr, found[:8]))}" if found else \
            f"; there is no {suffix} file here"

    def relative(self, path: Path) -> str:
        """How to name `path` back to the agent: relative to the root, '/' separated."""
        rel = path.relative_to(self.root).as_posix()
        return rel if rel else "."

    def _inside(self, path: Path) -> bool:
        return path == self.root or path.is_relative_to(self.root)

    def _refusal(self, path: str, *, link: bool = False) -> PathRefused:
        why = "is a symlink pointing" if link else "resolves to a place"
        return PathRefused(
            f"path {path!r} {why} outside the workspace root {str(self.root)!r}; "
            "refused and nothing was touched: use a path inside the workspace"
        )


# -- protected paths nothing is at yet -----------------------------------------------------------
# The sandbox shows an existing protected path read-only, but a mount needs something to mount over: one that
# does not exist (no podium.toml in the workspace, a journal's -wal or -journal between sessions) is writable
# like the rest of a writable workspace, and a podium.toml made there is the configuration the next run reads,
# a -wal or a hot -journal is what SQLite replays into the journal. Mounting a placeholder would leave it in
# the person's workspace, so whatever starts a sandboxed process that may write the workspace (the shell's
# command, an untrusted MCP server, a desktop program) takes `absent_protected` before it starts and undoes a
# creation there with `remove_created` after it ran.

# A protected path found absent -> (what a process would have to create to put something there, whether a
# link was there already).
Absent = dict[Path, tuple[Path, bool]]


def absent_protected(workspace: Workspace) -> Absent:
    """The protected paths nothing is at yet (links followed), each with what a process would have to create
    to put something there (its shallowest missing folder, or itself) and whether a link is there already."""
    absent: Absent = {}
    for path in workspace.protected_paths():
        if os.path.exists(path):
            continue
        made = path
        for folder in path.relative_to(workspace.root).parents:  # deepest first: the last missing is the top one
            if folder != Path(".") and not os.path.lexists(workspace.root / folder):
                made = workspace.root / folder
        absent[path] = (made, os.path.islink(path))
    return absent


def remove_created(workspace: Workspace, absent: Absent) -> list[str]:
    """Undo what a process created at a protected path `absent_protected` found absent: it is moved aside under
    a name nothing reads ('podium.toml.refused'), not deleted, since a move may have brought the person's own
    file there. A new dangling link there counts: whatever later made its target would become the
    configuration. Called once the process has ended (every process of its sandbox with it, so nothing
    recreates it behind our back), and after each call to one that keeps running (what it makes again is
    moved aside again, to 'NAME.refused-1'...). Returns what was moved, as "'protected path' (moved aside to
    'aside')", workspace-relative. Nothing outside the workspace is touched, and no link is followed."""
    moved: list[str] = []
    for path, (made, was_link) in absent.items():
        if not (os.path.exists(path) or (not was_link and os.path.lexists(path))):
            continue
        # The protected paths are physical (their folders held no link when the workspace was made): a link among
        # their folders now is the process's redirect, and moving that link (never where it points) undoes it.
        folders = [workspace.root / f for f in reversed(path.relative_to(workspace.root).parents) if f != Path(".")]
        redirect = next((folder for folder in folders if os.path.islink(folder)), None)
        target = redirect or (made if os.path.lexists(made) else path)
        aside = target.with_name(f"{target.name}.refused")
        count = 1
        while os.path.lexists(aside):
            aside, count = target.with_name(f"{target.name}.refused-{count}"), count + 1
        os.rename(target, aside)  # renames the entry itself: a link stays a link
        moved.append(f"{workspace.relative(path)!r} (moved aside to {workspace.relative(aside)!r})")
    return moved


def created_refusal(who: str, moved: list[str], kind: str) -> str:
    """The error of a call after which `remove_created` moved `moved` aside: `who` created them, and no `kind`
    ("command", "server", "program") may."""
    return (f"refused: {who} created {', '.join(moved)}: podium protects that path (its configuration, which the "
            f"next run would read, or its journal's files), and no {kind} may create it")


def open_regular(path: Path, shown: str) -> BinaryIO:
    """`path` opened for reading if it is a regular file; else PathRefused naming it as `shown` and what it
    is. Checked on the path, then on the descriptor opened non-blocking: a FIFO swapped in between is
    refused too, and nothing ever waits on one."""
    try:
        before = os.stat(path)
    except FileNotFoundError:
        raise ToolError(f"{shown!r} does not exist") from None
    _must_be_regular(before.st_mode, shown)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        _must_be_regular(os.fstat(fd).st_mode, shown)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def is_regular(path: Path) -> bool:
    """Whether `path` (links followed) is a regular file; never blocks, never raises."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _must_be_regular(mode: int, shown: str) -> None:
    if not stat.S_ISREG(mode):
        kind = _KINDS.get(stat.S_IFMT(mode), "not a regular file")
        raise PathRefused(f"{shown!r} is {kind}, not a regular file: it is not opened")


def _holds_config(folder: Path, budget: int = 10_000) -> bool:
    """Whether a configuration file lies anywhere under `folder` (past `budget` entries: assumed so)."""
    seen = 0
    for _, dirs, files in os.walk(folder):
        seen += len(dirs) + len(files)
        if CONFIG_NAME in files or CONFIG_NAME in dirs or seen > budget:
            return True
    return False


def atomic_save(path: Path, write: Callable[[Path], None]) -> None:
    """Write `path` through `write(temporary_path)` and move it into place in one step.

    A crash or a failing writer leaves the old file (or none), never half of a new one; the
    replaced file's permissions are kept.
    """
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        write(tmp)
        if path.exists():
            os.chmod(tmp, stat.S_IMODE(path.stat().st_mode))
        else:
            os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _umask() -> int:
    # os.umask() can only be read by setting it, which races with other threads; Linux shows it here.
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    return 0o022
