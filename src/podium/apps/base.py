"""The one small interface every application behind an AppAgent implements.

An application knows nothing of agents: it names itself, lists its tools (JSON-schema parameters),
says which calls are sensitive (they need the person's approval BEFORE they run), runs a call, and
can tell whether it is running and launch itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    description: str
    parameters: Mapping[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    read_only: bool = False
    # How to do this tool's work with nothing that needs the person's approval ("give target_sheet ..."),
    # said to an AppAgent whose call of it batch mode refused; "" if there is no such way.
    unapproved: str = ""


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The outcome of one call: `content` is JSON-serialisable; `error` is set when the call failed."""

    content: Any = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


@runtime_checkable
class Application(Protocol):
    name: str
    description: str

    def tools(self) -> list[Tool]: ...

    def is_sensitive(self, tool: str, arguments: Mapping[str, Any]) -> bool: ...

    async def call(self, tool: str, arguments: Mapping[str, Any]) -> ToolResult: ...

    async def is_running(self) -> bool: ...

    async def launch(self) -> None: ...
