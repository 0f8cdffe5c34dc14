"""Approval by effect, not by tool name: whether a call needs the person's yes follows from the paths it
would change (its `Effect`s, found before it runs, after links are followed) and from nothing else but an
application's own few actions (closing a program).

A call needs approval when it
- changes a protected path (podium's configuration, the journal's files, a folder holding one, anything
  outside the workspace), whatever the change: renaming podium.toml away, renaming another file into its
  place, writing through a link that points at it;
- or may lose what an existing path holds: an EDIT, a REPLACE or a DELETE of a path that exists. The source
  of a move or a rename is a MOVE: its content goes on at the new path, so nothing is lost.
A call whose effects are not known (None) needs approval unless its tool only reads.
"""

from __future__ import annotations

import difflib
import functools
import os
import re
import stat
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from podium.apps.base import Change, Effect
from podium.apps.tooling import Effects, ToolError, ToolSpec
from podium.apps.workspace import Workspace


def needs_approval(effects: Iterable[Effect], workspace: Workspace) -> bool:
    for effect in effects:
        path = workspace.at_path(effect)
        if workspace.is_protected(path):
            return True
        if effect.change.destructive and os.path.lexists(path):
            return True
    return False


def whole_file(workspace: Workspace, path: Path, overwrite: bool, content: str | None = None
               ) -> tuple[Effect, ...]:
    """The effect of writing a whole file at `path`: a CREATE where there is none, a REPLACE of one that is
    there (with overwrite; without it the call is refused and has none), with the lines it removes and
    adds where both are text (`content`: what is written)."""
    if path.exists():
        if not overwrite:
            return ()
        replaced = workspace.effect(path, Change.REPLACE)
        before = text_of(path)
        if content is None or before is None:
            return (replaced,)
        return (with_text(replaced, before, content),)
    return (workspace.effect(path, Change.CREATE),)


def with_text(effect: Effect, before: str, after: str) -> Effect:
    """A change of a text file with what the person approving it is shown it lose: the lines it removes and
    adds, whether it wipes the text, the lines it drops, and whether it leaves it empty."""
    removes, adds = text_change(before, after)
    return replace(effect, removes=removes, adds=adds, wipes=wipes(before, after), drops=dropped(before, after),
                   empties=bool(before.strip()) and not after.strip())


# What of a change the person is shown: a few lines on each side, each cut short; a change is approved
# from what it loses, and a page of it would hide that.
SHOWN_LINES = 6
SHOWN_CHARS = 120
_READ_LIMIT = 1_000_000


def text_change(before: str, after: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The lines `after` removes from `before` and the lines it adds, each side at most SHOWN_LINES (the
    rest counted), each line at most SHOWN_CHARS."""
    removed: list[str] = []
    added: list[str] = []
    for line in difflib.ndiff(before.splitlines(), after.splitlines()):
        if line.startswith("- "):
            removed.append(line[2:])
        elif line.startswith("+ "):
            added.append(line[2:])
    return _shown(removed), _shown(added)


WIPED_FROM = 2  # lines a text has for a rewrite of it to count as wiping it (one line edited is an edit)


def wipes(before: str, after: str) -> bool:
    """Whether `after` keeps less than half of the lines of `before` (one of WIPED_FROM lines or more) where
    they were: what is left of the file is not the file with a change, but another text."""
    old = before.splitlines()
    if len(old) < WIPED_FROM:
        return False
    kept = sum(1 for line in difflib.ndiff(old, after.splitlines()) if line.startswith("  "))
    return kept * 2 < len(old)


def dropped(before: str, after: str) -> tuple[str, ...]:
    """The lines of `before` that `after` removes with nothing in their place (blank lines aside), at most
    SHOWN_LINES of them shown: where a block of lines is replaced by fewer, its last ones. A change of a part
    keeps the line count; a rewrite that drops a line deletes what the person had, unasked or not."""
    old = [line for line in before.splitlines() if line.strip()]
    new = [line for line in after.splitlines() if line.strip()]
    lost: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag in ("delete", "replace") and (i2 - i1) > (j2 - j1):
            lost.extend(old[i1 + (j2 - j1):i2])
    return _shown(lost)


def _shown(lines: list[str]) -> tuple[str, ...]:
    cut = [line if len(line) <= SHOWN_CHARS else f"{line[:SHOWN_CHARS - 1]}…" for line in lines[:SHOWN_LINES]]
    if len(lines) > SHOWN_LINES:
        cut.append(more_lines(len(lines) - SHOWN_LINES))
    return tuple(cut)


def more_lines(count: int) -> str:
    """The last item of a list of shown lines that leaves `count` out."""
    return f"(and {count} more lines)"


def counts_more(item: str) -> bool:
    """Whether a shown line is the count more_lines makes, not a line of the file."""
    return _MORE.fullmatch(item) is not None


_MORE = re.compile(r"\(and \d+ more lines\)")


def text_of(path: Path) -> str | None:
    """A regular file's text when it is UTF-8 text of at most a megabyte; None otherwise (a package, a
    binary, a FIFO, which is never opened)."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > _READ_LIMIT:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if b"\x00" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def sensitive(spec: ToolSpec, args: Any, workspace: Workspace) -> bool:
    """Whether a VALID call of `spec` needs approval, from its effects (see the module docstring)."""
    if spec.read_only:
        return False
    if spec.effects is None:
        return True
    try:
        found = tuple(spec.effects(args))
    except Exception:  # an effects function failing on odd input: not known, so asked (never waved through)
        return True
    return needs_approval(found, workspace)


def declared(effects: Callable[[Any], Iterable[Effect] | None]) -> Effects:
    """An effects function made safe to ask: a call it finds refused (ToolError, OSError: the call will fail
    the same way and change nothing) has no effects."""

    @functools.wraps(effects)
    def asked(args: Any) -> Iterable[Effect]:
        try:
            return tuple(effects(args) or ())
        except (ToolError, OSError):
            return ()

    return asked
