"""Taking a run's file changes back, from its change log: every file it changed gets the bytes it had
before the run, every file it created is removed, and so is every folder it created once it is empty again
(a folder that holds files the run did not make is left); a folder it removed is made again.

A file changed since the run by someone else (its bytes are neither the run's last nor its first) is
not overwritten: the plan lists it as a conflict and nothing is done unless the caller forces it. A
copy that no longer hashes to its name stops the undo before anything is written.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from podium.errors import PodiumError
from podium.journal.files import FOLDER, read_regular
from podium.journal.store import Change

_READ_LIMIT = 1 << 34  # the store's own limit bounds what a run saved; this only guards the hash of today's file


class UndoAction(StrEnum):
    RESTORE = "restore"  # write the bytes it had before the run
    REMOVE = "remove"  # the run created it
    RECREATE = "recreate"  # the run deleted it: write it back
    REMOVE_FOLDER = "remove_folder"  # the run created the folder: removed once what the run put in it is gone
    RECREATE_FOLDER = "recreate_folder"  # the run removed the folder: made again
    NOTHING = "nothing"  # it already is as it was before the run


@dataclass(frozen=True, slots=True)
class UndoStep:
    change: Change
    action: UndoAction
    conflict: bool  # changed since the run by someone else: left alone unless forced
    now: str | None  # SHA-256 of what is there now (None: nothing)

    @property
    def file(self) -> Path:
        return Path(self.change.workspace) / self.change.path


@dataclass(frozen=True, slots=True)
class UndoPlan:
    session: str
    steps: tuple[UndoStep, ...]

    @property
    def conflicts(self) -> tuple[UndoStep, ...]:
        return tuple(s for s in self.steps if s.conflict)

    @property
    def work(self) -> tuple[UndoStep, ...]:
        return tuple(s for s in self.steps if s.action is not UndoAction.NOTHING)


class UndoRefused(PodiumError):
    def __init__(self, plan: UndoPlan) -> None:
        self.plan = plan
        files = ", ".join(s.change.path for s in plan.conflicts)
        super().__init__(f"{len(plan.conflicts)} file(s) changed since run {plan.session!r} by someone else: {files}; "
                         "nothing was undone (--force overwrites them)")


def digest_of(path: Path) -> str | None:
    data = read_regular(path, _READ_LIMIT)
    return None if data is None else hashlib.sha256(data).hexdigest()


def plan_undo(session: str, changes: list[Change]) -> UndoPlan:
    steps = []
    for change in changes:
        file = Path(change.workspace) / change.path
        if FOLDER in (change.before, change.after):
            steps.append(_folder_step(change, _inside(change, file)))
            continue
        now = digest_of(_inside(change, file))
        if now == change.before:
            action = UndoAction.NOTHING
        elif change.before is None:
            action = UndoAction.REMOVE
        elif now is None:
            action = UndoAction.RECREATE
        else:
            action = UndoAction.RESTORE
        steps.append(UndoStep(change, action, action is not UndoAction.NOTHING and now != change.after, now))
    return UndoPlan(session, tuple(steps))


def _folder_step(change: Change, folder: Path) -> UndoStep:
    there = folder.is_dir() and not folder.is_symlink()
    now = FOLDER if there else None
    if change.before is None and there:
        return UndoStep(change, UndoAction.REMOVE_FOLDER, False, now)
    if change.before == FOLDER and not os.path.lexists(folder):
        return UndoStep(change, UndoAction.RECREATE_FOLDER, False, now)
    return UndoStep(change, UndoAction.NOTHING, False, now)


def apply_undo(plan: UndoPlan, store: Any, *, force: bool = False) -> list[UndoStep]:
    """Carry the plan out; returns the steps done. Without `force`, a plan with conflicts is refused
    whole (UndoRefused lists them). Every copy is read and checked before the first file is touched."""
    if plan.conflicts and not force:
        raise UndoRefused(plan)
    files = [s for s in plan.work if s.action not in _FOLDER_ACTIONS]
    copies = {s.change.before: store.load_bytes(s.change.before) for s in files if s.change.before is not None}
    done = []
    for step in (s for s in plan.work if s.action is UndoAction.RECREATE_FOLDER):  # before the files they held
        _inside(step.change, step.file).mkdir(parents=True, exist_ok=True)
        done.append(step)
    for step in files:
        file = _inside(step.change, step.file)
        if step.action is UndoAction.REMOVE:
            file.unlink(missing_ok=True)
        else:
            _write_atomically(file, copies[step.change.before])
        done.append(step)
    made = [s for s in plan.work if s.action is UndoAction.REMOVE_FOLDER]
    for step in sorted(made, key=lambda s: s.change.path.count("/"), reverse=True):  # the deepest first
        folder = _inside(step.change, step.file)
        if folder.is_dir() and not any(folder.iterdir()):  # what someone else put in it stays, and it with it
            folder.rmdir()
            done.append(step)
    return done


_FOLDER_ACTIONS = (UndoAction.REMOVE_FOLDER, UndoAction.RECREATE_FOLDER)


def _inside(change: Change, file: Path) -> Path:
    """The file, after checking that no folder on the way is a link out of the workspace."""
    root = Path(change.workspace).resolve()
    parent = file.parent.resolve() if file.parent.exists() else Path(os.path.normpath(file.parent))
    if parent != root and root not in parent.parents:
        raise PodiumError(f"{change.path}: its folder now leads outside the workspace {root}; not touched")
    return parent / file.name


def _write_atomically(file: Path, data: bytes) -> None:
    """A reader sees the old bytes or the new, never half; a link at `file` is replaced, not followed."""
    file.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = file.stat(follow_symlinks=False).st_mode & 0o777 if not file.is_symlink() else None
    except FileNotFoundError:
        mode = None
    if mode is None:  # a new file gets what any program's would: 0666 less the umask
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    fd, temp = tempfile.mkstemp(prefix=f".{file.name}.", suffix=".undo", dir=file.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, file)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
