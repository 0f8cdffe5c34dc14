"""Editing a text file in place (the files application): replace_text (find and replace, every occurrence)
and append_at_end (add a line at the end). write_file replaces a whole file; these change only what they
name, so a model never re-types a file to change a word of it.

A file of a type another application owns (.docx, .xlsx) is refused by the files application's check
(`app.check_type`): its bytes are no text to edit.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from pydantic import Field

from podium.apps import approval
from podium.apps.base import Change, Effect
from podium.apps.tool_effects import declared, effect
from podium.apps.tooling import Args, Content, ToolError, ToolSpec, other_path, written_path
from podium.apps.workspace import atomic_save

MAX_BYTES = 10_000_000


class ReplaceArgs(Args):
    path: str = other_path("text file, relative to the workspace root")
    find: str = Field(min_length=1, description="the exact text to find")
    replace_with: Content = Field(description="what replaces every occurrence ('' deletes it)")
    match_case: bool = Field(True, description="false: 'Total' also finds 'TOTAL' and 'total'")


class AppendArgs(Args):
    path: str = written_path("text file; created if missing")
    text: Content = Field(min_length=1, description="the text to add at the end, on a new line")


def specs(app: Any) -> list[ToolSpec]:
    # What append_at_end last added to each file, and the file's digest right after: the same text asked for
    # again while the file is as it left it is a repeated call (a small model repeats its last call), not
    # a second line (as spreadsheets' append_rows).
    appended: dict[Path, tuple[str, str]] = {}
    return [
        ToolSpec("replace_text", "Replace every occurrence of a text in a text file and save.", ReplaceArgs,
                 lambda a: replace_text(app, a), effects=declared(lambda a: _replace_effects(app, a)),
                 edits=True),
        ToolSpec("append_at_end", "Add text at the end of a text file, on a new line (creates the file).",
                 AppendArgs, lambda a: append_at_end(app, a, appended),
                 effects=declared(lambda a: _append_effects(app, a, appended))),
    ]


def _text_of(app: Any, path: str, *, existing: bool = True) -> tuple[Path, str | None]:
    """The file's real path and its text (None when it does not exist and need not)."""
    resolved = Path(app.workspace.resolve(path)).resolve()
    app.check_type(path, resolved)
    if not resolved.exists():
        if existing:
            raise app.workspace.missing(path, " in the workspace")
        return resolved, None
    if resolved.is_dir():
        raise ToolError(f"{path!r} is a folder, not a text file")
    if resolved.stat().st_size > MAX_BYTES:
        raise ToolError(f"{path!r} is larger than {MAX_BYTES // 1_000_000} MB: too large to edit as text")
    data = app.workspace.read_bytes(resolved, MAX_BYTES, path)  # a FIFO is refused, never waited on
    if b"\x00" in data:
        raise ToolError(f"{path!r} is a binary file, not text: it cannot be edited as text")
    try:
        return resolved, data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ToolError(f"{path!r} is not UTF-8 text ({exc.reason} at byte {exc.start}): it is not edited, "
                        "so nothing in it is lost") from exc


def existing_text(app: Any, path: str) -> tuple[Path, str]:
    resolved, text = _text_of(app, path)
    return resolved, text or ""


def matching_lines(text: str, contains: str, match_case: bool, without: bool = False) -> list[str]:
    """The lines of a text that hold `contains` (in any case unless `match_case`), or with `without` the others."""
    pattern = re.compile(re.escape(contains), 0 if match_case else re.IGNORECASE)
    return [line for line in text.splitlines() if bool(pattern.search(line)) != without]


def _pattern(args: ReplaceArgs) -> re.Pattern[str]:
    return re.compile(re.escape(args.find), 0 if args.match_case else re.IGNORECASE)


def _count(args: ReplaceArgs, text: str, path: str) -> int:
    found = len(_pattern(args).findall(text))
    if found == 0:
        other = len(re.findall(re.escape(args.find), text, re.IGNORECASE)) if args.match_case else 0
        hint = f"; it occurs {other} time(s) in another case: pass match_case=false" if other else ""
        raise ToolError(f"{args.find!r} does not occur in {path!r}{hint}; nothing was changed")
    return found


def replace_text(app: Any, args: ReplaceArgs) -> dict[str, Any]:
    resolved, text = existing_text(app, args.path)
    found = _count(args, text, args.path)
    changed = _pattern(args).sub(lambda _: args.replace_with, text)
    done = {"path": args.path, "replacements": found}
    if changed == text:
        return {**done, "unchanged": True, "note": "the replacement is the text found: nothing changed"}
    atomic_save(resolved, lambda tmp: tmp.write_bytes(changed.encode("utf-8")))
    return done


def _replace_effects(app: Any, args: ReplaceArgs) -> list[Effect]:
    _, text = existing_text(app, args.path)
    _count(args, text, args.path)
    changed = _pattern(args).sub(lambda _: args.replace_with, text)
    if changed == text:
        return []
    return [approval.with_text(effect(app.workspace, args.path, Change.EDIT), text, changed)]


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def append_at_end(app: Any, args: AppendArgs, appended: dict[Path, tuple[str, str]]) -> dict[str, Any]:
    resolved, text = _text_of(app, args.path, existing=False)
    addition = args.text if args.text.endswith("\n") else args.text + "\n"
    if text is not None and appended.get(resolved) == (addition, _digest(text)):
        return {"path": args.path, "unchanged": True, "note": "this text was just added and is there: not added "
                "again"}
    joined = addition if text is None else text + ("" if text == "" or text.endswith("\n") else "\n") + addition
    resolved.parent.mkdir(parents=True, exist_ok=True)
    atomic_save(resolved, lambda tmp: tmp.write_bytes(joined.encode("utf-8")))
    appended[resolved] = (addition, _digest(joined))
    done = {"path": args.path, "added_bytes": len(joined.encode("utf-8")) - len((text or "").encode("utf-8"))}
    return {**done, "created": True} if text is None else done


def _append_effects(app: Any, args: AppendArgs, appended: dict[Path, tuple[str, str]]) -> list[Effect]:
    resolved, text = _text_of(app, args.path, existing=False)
    addition = args.text if args.text.endswith("\n") else args.text + "\n"
    if text is not None and appended.get(resolved) == (addition, _digest(text)):
        return []
    return [effect(app.workspace, args.path, Change.ADD)]
