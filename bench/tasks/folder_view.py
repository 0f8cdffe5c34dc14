"""The folder as a checker sees it: a snapshot of every file's bytes (hidden entries, where tools keep
their records, left out), what went missing or changed since, text of any file type, and file lists."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from . import docx_view, xlsx_view
from .task import EndState, Fail

MAX_SNAPSHOT_BYTES = 50_000_000  # a task folder is small; a bigger one means something went wrong


def snapshot(folder: Path) -> dict[str, bytes]:
    """relative path (with '/') -> bytes, for every visible file under `folder`."""
    found: dict[str, bytes] = {}
    total = 0
    for path in visible_files(folder):
        data = path.read_bytes()
        total += len(data)
        if total > MAX_SNAPSHOT_BYTES:
            raise ValueError(f"{folder} holds more than {MAX_SNAPSHOT_BYTES} bytes; a task folder should be small")
        found[path.relative_to(folder).as_posix()] = data
    return found


def visible_files(folder: Path) -> Iterator[Path]:
    for top, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if not name.startswith("."):
                yield Path(top) / name


def files_now(end: EndState) -> set[str]:
    return {p.relative_to(end.folder).as_posix() for p in visible_files(end.folder)}


def lost_or_changed(end: EndState, names: list[str] | None = None) -> list[str]:
    """Which of the files that were there before (all, or `names`) are gone or no longer byte-identical."""
    problems = []
    for name in names if names is not None else sorted(end.before):
        path = end.folder / name
        if not path.is_file():
            problems.append(f"{name} is gone")
        elif path.read_bytes() != end.before[name]:
            problems.append(f"{name} was changed")
    return problems


def require_untouched(end: EndState, names: list[str] | None = None) -> str:
    problems = lost_or_changed(end, names)
    if problems:
        raise Fail("; ".join(problems[:5]) + (f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""))
    kept = names if names is not None else list(end.before)
    return f"all {len(kept)} original file(s) intact"


def read_text(end: EndState, name: str) -> str:
    path = end.folder / name
    if not path.is_file():
        near = new_files(end)
        raise Fail(f"{name} was not written" + (f" (new files: {near[:5]})" if near else ""))
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise Fail(f"{name} is not UTF-8 text") from None


def text_of(path: Path) -> str:
    """What a person would read in a file: text files as text, .docx paragraphs and cells, .xlsx cells
    and sheet names. Unreadable files give ''."""
    suffix = path.suffix.lower()
    try:
        if suffix == ".docx":
            return docx_view.all_text(docx_view.load(path, path.name))
        if suffix == ".xlsx":
            workbook = xlsx_view.load(path, path.name)
            return "\n".join([*workbook.sheetnames, *(str(v) for _, _, v in xlsx_view.cells(workbook))])
        return path.read_bytes().decode("utf-8", errors="replace")
    except Fail:
        return ""


def files_containing(end: EndState, needle: str) -> list[str]:
    """The visible files whose text contains `needle` (ignoring case)."""
    wanted = needle.casefold()
    return [p.relative_to(end.folder).as_posix() for p in visible_files(end.folder)
            if wanted in text_of(p).casefold()]


def new_files(end: EndState) -> list[str]:
    return sorted(files_now(end) - set(end.before))
