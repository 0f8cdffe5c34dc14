"""The workspace root: the one folder the file-touching applications may read and change.

Every path an agent gives is resolved physically (symlinks followed, `..` applied after them) and
refused when it ends up outside the root, before anything is touched. The last component is kept
as given (not followed) so that deleting or renaming a symlink acts on the link, never on its
target; a symlink whose target leaves the root is refused outright.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePath

from podium.apps.tooling import ToolError


class PathRefused(ToolError):
    """A path leaves the workspace root (or is otherwise unusable); nothing was touched."""


@dataclass(frozen=True, slots=True)
class Workspace:
    root: Path

    @classmethod
    def at(cls, root: str | os.PathLike[str]) -> Workspace:
        real = Path(os.path.realpath(root))
        if not real.is_dir():
            raise ToolError(f"workspace root {str(root)!r} is not an existing folder")
        return cls(real)

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
