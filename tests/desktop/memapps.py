"""Small, real, in-memory applications for the desktop tests (podium.apps.base.Application).

They keep their data in memory, so a test can check what an action really did (or that it did not
run). `documents` holds documents with paragraphs and tables, `spreadsheets` workbooks with cells and
charts, `notes` plain notes. Every call is logged in `calls`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from podium.apps.base import Change, Effect, Tool, ToolResult


def _params(**props: str) -> dict[str, Any]:
    return {"type": "object", "properties": {k: {"type": v} for k, v in props.items()}, "required": list(props)}


class MemoryApp:
    name = "memory"
    description = "an in-memory application"
    sensitive_tools: frozenset[str] = frozenset()

    def __init__(self, *, running: bool = True, launch_error: str | None = None) -> None:
        self.running = running
        self.launches = 0
        self.launch_error = launch_error
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.gates: dict[str, asyncio.Event] = {}  # tool "wait" blocks on a named gate

    def tools(self) -> list[Tool]:
        return [Tool("wait", "wait until the named gate opens, then open the other one",
                     _params(gate="string", open="string"), read_only=True)]

    # What each changing tool does to the path it names (Application.effects); None: it does not say.
    changes: dict[str, Change] = {}

    def is_sensitive(self, tool: str, arguments: Mapping[str, Any]) -> bool:
        return tool in self.sensitive_tools

    def effects(self, tool: str, arguments: Mapping[str, Any]) -> tuple[Effect, ...] | None:
        listed = {t.name: t for t in self.tools()}
        if tool not in listed or listed[tool].read_only:
            return ()
        change = self.changes.get(tool)
        if change is None:
            return None
        path = str(arguments.get("path", arguments.get("title", "")))
        creates = change in (Change.ADD, Change.EDIT, Change.REPLACE) and not self.has(path)
        return (Effect(path, Change.CREATE if creates else change),)

    def has(self, path: str) -> bool:
        return False

    async def is_running(self) -> bool:
        return self.running

    async def launch(self) -> None:
        self.launches += 1
        if self.launch_error:
            raise RuntimeError(self.launch_error)
        self.running = True

    async def call(self, tool: str, arguments: Mapping[str, Any]) -> ToolResult:
        self.calls.append((tool, dict(arguments)))
        method = getattr(self, f"_{tool}", None)
        if method is None:
            return ToolResult(error=f"{self.name} has no tool {tool!r}")
        try:
            return ToolResult(await method(**arguments))
        except (KeyError, TypeError, ValueError) as exc:
            return ToolResult(error=f"{tool}: {exc}")

    async def _wait(self, gate: str, open: str) -> str:
        # Opening the other gate first, then waiting for ours: two calls in flight at the same time
        # both get through; one at a time, the first never does (the test's timeout says so).
        self.gates.setdefault(open, asyncio.Event()).set()
        await self.gates.setdefault(gate, asyncio.Event()).wait()
        return f"gate {gate} opened"


class Documents(MemoryApp):
    name = "documents"
    description = "Word documents (.docx): read and write paragraphs and tables"
    file_types = (".docx",)  # as the real application declares
    sensitive_tools = frozenset({"delete_document"})
    changes = {"write_paragraph": Change.ADD, "delete_document": Change.DELETE}

    def __init__(self, docs: dict[str, dict[str, Any]] | None = None, **kw: Any) -> None:
        super().__init__(**kw)
        self.docs = docs if docs is not None else {}

    def has(self, path: str) -> bool:
        return path in self.docs

    def tools(self) -> list[Tool]:
        return [*super().tools(),
                Tool("read_table", "the rows of a table", _params(path="string", index="integer"), read_only=True),
                Tool("write_paragraph", "append a paragraph", _params(path="string", text="string")),
                Tool("delete_document", "delete a document", _params(path="string"))]

    async def _read_table(self, path: str, index: int = 0) -> list[list[Any]]:
        return self.docs[path]["tables"][index]

    async def _write_paragraph(self, path: str, text: str) -> str:
        self.docs.setdefault(path, {"paragraphs": [], "tables": []})["paragraphs"].append(text)
        return "written"

    async def _delete_document(self, path: str) -> str:
        del self.docs[path]
        return f"deleted {path}"


class Spreadsheets(MemoryApp):
    name = "spreadsheets"
    description = "Excel workbooks (.xlsx): cells, formulas, charts"
    file_types = (".xlsx",)  # as the real application declares
    sensitive_tools = frozenset({"clear_sheet"})
    changes = {"write_rows": Change.ADD, "add_chart": Change.ADD, "clear_sheet": Change.EDIT}

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.books: dict[str, dict[str, Any]] = {}

    def has(self, path: str) -> bool:
        return path in self.books

    def tools(self) -> list[Tool]:
        return [*super().tools(),
                Tool("write_rows", "write rows starting at a cell",
                     _params(path="string", cell="string", rows="array")),
                Tool("add_chart", "add a chart over a range", _params(path="string", kind="string", range="string",
                                                                     title="string")),
                Tool("clear_sheet", "erase every cell", _params(path="string"))]

    def _book(self, path: str) -> dict[str, Any]:
        return self.books.setdefault(path, {"rows": [], "charts": []})

    async def _write_rows(self, path: str, cell: str, rows: list[list[Any]]) -> str:
        self._book(path)["rows"] = [list(r) for r in rows]
        return f"wrote {len(rows)} rows at {cell}"

    async def _add_chart(self, path: str, kind: str, range: str, title: str = "") -> str:
        self._book(path)["charts"].append({"kind": kind, "range": range, "title": title})
        return f"{kind} chart added"

    async def _clear_sheet(self, path: str) -> str:
        self._book(path)["rows"] = []
        return "cleared"


class Notes(MemoryApp):
    name = "notes"
    description = "plain text notes (.txt)"
    file_types = (".txt",)
    changes = {"write_note": Change.REPLACE}

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.notes: dict[str, str] = {}

    def has(self, path: str) -> bool:
        return path in self.notes

    def tools(self) -> list[Tool]:
        return [*super().tools(),
                Tool("write_note", "write a note", _params(title="string", text="string")),
                Tool("read_note", "read a note", _params(title="string"), read_only=True)]

    async def _write_note(self, title: str, text: str) -> str:
        self.notes[title] = text
        return f"note {title!r} saved"

    async def _read_note(self, title: str) -> str:
        return self.notes[title]
