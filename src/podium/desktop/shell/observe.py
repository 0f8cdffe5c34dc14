"""What an AppAgent sees of its application before it decides: the DATA_COLLECTION observation.

UFO²'s AppAgent looks at the application (screenshot, controls) before every step. For applications that
work on files, the equivalent is the current state of the files its subtask declares it reads and
writes, as the application itself shows them: the tool the application names as its `observer`
(read_sheet), else the first read-only tool whose only required argument is `path` (read the
document...). An application whose observer needs no argument at all (a window's controls) is observed
as it is. A small model then knows what budget.xlsx holds instead of guessing, and a reading subtask
often has what it hands on at the first step. Only read-only tools run here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from podium.apps.base import DOCUMENTS
from podium.apps.tooling import FILE_TYPES, NOT_FILE_TYPES
from podium.desktop.wire.messages import ActionResult, summarize

MAX_FILES = 3
MAX_CHARS = 1500  # per file: what the prompt of a 1.5B model can afford
MAX_WINDOW_CHARS = 6000  # an application's whole window (its numbered controls): cut, a dialog's buttons go


def _required(tool: Any) -> list[str]:
    params = getattr(tool, "parameters", None) or {}
    return list(params.get("required", ())) if isinstance(params, dict) else []


def observer_tool(tools: Sequence[Any], preferred: str | None = None, *, needs: tuple[str, ...] = ("path",)
                  ) -> Any | None:
    """The read-only tool named `preferred`, else the first read-only tool whose required arguments are
    exactly `needs`; None if the application has none."""
    usable = [t for t in tools if getattr(t, "read_only", False) and tuple(_required(t)) == needs]
    return next((t for t in usable if t.name == preferred), usable[0] if usable else None)


def opens(app: Any, path: str) -> bool:
    types = tuple(getattr(app, "file_types", ()) or ())
    return "." in path.rpartition("/")[2] and (not types or path.lower().endswith(types))


async def observe(app: Any, paths: Iterable[str], text: str = "", request: str = "") -> list[ActionResult]:
    """What the application's read-only observer returned for each declared path it opens (or its error),
    or for the application itself when its observer takes no argument. A sheet `text` (the subtask) names
    is the one seen, else one the `request` names."""
    tools = app.tools()
    preferred = getattr(app, "observer", None)
    bare = observer_tool(tools, preferred, needs=())
    if bare is not None and bare.name == preferred:
        return [await _look(app, bare, {})]
    tool = observer_tool(tools, preferred)
    if tool is None:
        return []
    fallback = observer_tool(tools)
    seen = []
    for path in _there(app, paths, tool)[:MAX_FILES]:
        look = await _look(app, tool, {"path": path})
        if not look.ok and fallback is not None and fallback is not tool:
            look = await _look(app, fallback, {"path": path})  # a sheet too big to read whole still has a listing
        elif (sheet := _sheet_named(look, tool, text) or _sheet_named(look, tool, request)) is not None:
            look = await _look(app, tool, {"path": path, "sheet": sheet})
        seen.append(look)
    return seen


def _there(app: Any, paths: Iterable[str], tool: Any) -> list[str]:
    """The paths the application opens and its observer `tool` reads that are files now (one the subtask will
    create has nothing to see; a document is no text to read: a files application takes it by its path)."""
    root = getattr(getattr(app, "workspace", None), "root", None)
    return [p for p in dict.fromkeys(paths) if opens(app, p) and _reads(tool, p)
            and (root is None or (root / p).is_file())]


def _reads(tool: Any, path: str) -> bool:
    """Whether the tool's `path` takes a file of this type (tooling.FILE_TYPES, NOT_FILE_TYPES)."""
    params = getattr(tool, "parameters", None) or {}
    spec = (params.get("properties") or {}).get("path") or {} if isinstance(params, dict) else {}
    types = tuple(t.lower() for t in spec.get(FILE_TYPES) or ())
    others = tuple(t.lower() for t in spec.get(NOT_FILE_TYPES) or ())
    name = path.lower()
    return (not types or name.endswith(types)) and not (others and name.endswith(others))


def unseen(app: Any, paths: Iterable[str]) -> list[str]:
    """The declared files that exist and that `observe` left out (it shows the first MAX_FILES), as a prompt
    line: a model shown some of its files takes them for all of them (a list of three of four names)."""
    tool = observer_tool(app.tools(), getattr(app, "observer", None))
    rest = _there(app, paths, tool)[MAX_FILES:] if tool is not None else []
    if not rest:
        return []
    return [f"- not shown, {len(rest)} more of your subtask's files (read them with a tool): "
            + summarize(", ".join(rest), MAX_CHARS)]


def _sheet_named(seen: ActionResult, tool: Any, text: str) -> str | None:
    """Another sheet the observation lists (`other_sheets`) whose name the subtask's description holds, if
    the tool takes a `sheet`: that sheet is the one to see."""
    params = getattr(tool, "parameters", None) or {}
    others = seen.content.get("other_sheets") if seen.ok and isinstance(seen.content, dict) else None
    if not isinstance(others, list) or "sheet" not in (params.get("properties") or {}):
        return None
    return next((s for s in others if isinstance(s, str) and s.strip()
                 and re.search(rf"(?<!\w){re.escape(s)}(?!\w)", text)), None)


async def _look(app: Any, tool: Any, arguments: dict[str, Any]) -> ActionResult:
    try:
        result = await app.call(tool.name, arguments)
        content, documents = documents_apart(result.content)
        return ActionResult(function=tool.name, arguments=arguments, ok=result.ok, content=jsonable(content),
                            error=result.error, read_only=True, documents=documents)
    except Exception as exc:  # an observation that fails is shown, never fatal
        return ActionResult(function=tool.name, arguments=arguments, ok=False, read_only=True,
                            error=f"{type(exc).__name__}: {exc}")


def observation_lines(seen: Sequence[ActionResult]) -> list[str]:
    """One prompt line per file: `tool({"path": ...}) -> ok: what it returned` (or the error); a window's
    controls are shown at more length than a file."""
    return [f"- {r.function}({json.dumps(r.arguments)}) -> "
            + summarize(f"ok: {_text(r.content)}" if r.ok else f"error: {r.error}",
                        MAX_CHARS if r.arguments else MAX_WINDOW_CHARS) for r in seen]


def documents_apart(content: Any) -> tuple[Any, dict[str, str]]:
    """The content without its documents' digests (apps.base.DOCUMENTS), which are the host's and not the
    model's to read, and those digests."""
    if not isinstance(content, dict) or not isinstance(documents := content.get(DOCUMENTS), dict):
        return content, {}
    return {k: v for k, v in content.items() if k != DOCUMENTS}, {str(k): str(v) for k, v in documents.items()}


def jsonable(value: Any) -> Any:
    """`value` if JSON can carry it, else its text (reports travel as JSON)."""
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return str(value)


def _text(content: Any) -> str:
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False, default=str)
