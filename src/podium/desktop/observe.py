"""What an AppAgent sees of its application before it decides: the DATA_COLLECTION observation.

UFO²'s AppAgent looks at the application (screenshot, controls) before every step. For applications
that work on files, the equivalent is the current state of the files its subtask names, as the
application itself shows them: the tool the application names as its `observer` (read_sheet), else
the first read-only tool whose only required argument is `path` (read the document...). A small model
then knows that budget.xlsx exists and which cells it uses instead of guessing (creating a workbook
that exists, charting a range that is empty), and a reading subtask often has its answer at the first
step. Only read-only tools run here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from podium.desktop.catalog import AppInfo, Catalog
from podium.desktop.messages import ActionResult, summarize

MAX_FILES = 3
MAX_CHARS = 1500  # per file: what the prompt of a 1.5B model can afford


def observer_tool(tools: Sequence[Any], preferred: str | None = None) -> Any | None:
    """The read-only tool named `preferred`, else the first read-only tool that needs nothing but a
    `path`; None if the application has none."""
    usable = []
    for tool in tools:
        params = getattr(tool, "parameters", None) or {}
        required = list(params.get("required", ())) if isinstance(params, dict) else []
        if getattr(tool, "read_only", False) and required == ["path"]:
            usable.append(tool)
    return next((t for t in usable if t.name == preferred), usable[0] if usable else None)


def files_of(app: Any, texts: Iterable[str]) -> list[str]:
    """The files named in `texts` that the application handles (by file type), first mention first."""
    catalog = Catalog((AppInfo.of(app),))
    found: dict[str, None] = {}
    for text in texts:
        for names in catalog.apps_for_files(text).values():
            found.update(dict.fromkeys(names))
    return list(found)[:MAX_FILES]


async def observe(app: Any, texts: Iterable[str]) -> list[ActionResult]:
    """What the read-only tool returned for each file of the subtask (or its error)."""
    tools = app.tools()
    preferred = observer_tool(tools, getattr(app, "observer", None))
    if preferred is None:
        return []
    fallback = observer_tool(tools)
    texts = tuple(texts)
    seen = []
    for path in files_of(app, texts):
        seen.append(await _look(app, preferred, path))
        if not seen[-1].ok and fallback is not None and fallback is not preferred:
            seen[-1] = await _look(app, fallback, path)  # a sheet too big to read whole still has a listing
        elif (sheet := _sheet_named(seen[-1], preferred, texts)) is not None:
            # "under the last item of the Q2 sheet": shown the first sheet (a summary of formulas), the 1.5B
            # AppAgent wrote over Q2's last row. The sheet the texts name is the one to see.
            seen[-1] = await _look(app, preferred, path, sheet)
    return seen


def _sheet_named(seen: ActionResult, tool: Any, texts: Sequence[str]) -> str | None:
    """Another sheet the observation lists (`other_sheets`) that the texts name as a word, if the tool
    takes a `sheet`; the first such one."""
    params = getattr(tool, "parameters", None) or {}
    others = seen.content.get("other_sheets") if seen.ok and isinstance(seen.content, dict) else None
    if not isinstance(others, list) or "sheet" not in (params.get("properties") or {}):
        return None
    text = " ".join(texts)
    return next((s for s in others if isinstance(s, str) and s.strip()
                 and re.search(rf"(?<!\w){re.escape(s)}(?!\w)", text)), None)


async def _look(app: Any, tool: Any, path: str, sheet: str | None = None) -> ActionResult:
    arguments = {"path": path} if sheet is None else {"path": path, "sheet": sheet}
    try:
        result = await app.call(tool.name, arguments)
        return ActionResult(function=tool.name, arguments=arguments, ok=result.ok,
                            content=jsonable(result.content), error=result.error)
    except Exception as exc:  # an observation that fails is shown, never fatal
        return ActionResult(function=tool.name, arguments=arguments, ok=False, error=f"{type(exc).__name__}: {exc}")


def observation_lines(seen: Sequence[ActionResult]) -> list[str]:
    """One prompt line per file: `tool({"path": ...}) -> ok: what it returned` (or the error)."""
    return [f"- {r.function}({json.dumps(r.arguments)}) -> "
            + summarize(f"ok: {_text(r.content)}" if r.ok else f"error: {r.error}", MAX_CHARS) for r in seen]


def jsonable(value: Any) -> Any:
    """`value` if JSON can carry it, else its text (reports travel as JSON)."""
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return str(value)


def _text(content: Any) -> str:
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False, default=str)
