"""The applications AppAgents drive, one module each behind `podium.apps.base.Application`.

    files          files.FilesApplication            list/read/write/copy/move/rename/delete in the workspace
    documents      documents.DocumentsApplication    .docx paragraphs and tables (python-docx)
    spreadsheets   spreadsheets.SpreadsheetsApplication  .xlsx cells, formulas, native charts (openpyxl)
    shell          shell.ShellApplication            one allow-listed program at a time, no shell
    <mcp name>     mcp_servers.McpApplication        the tools of an MCP server (stdio or streamable HTTP)
    <desktop name> desktop_apps.DesktopApplication   a configured desktop program, launched when needed

`registry.build_applications(config)` builds a session's set from its configuration; `lifecycle` and
`display` list processes and windows, launch and stop programs, and take screenshots. Adding an
application is one module implementing the interface (see tooling.ToolApplication for the helper).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from podium.apps.base import Application, Tool, ToolResult

if TYPE_CHECKING:
    from podium.apps.registry import Applications, build_applications

__all__ = ["Application", "Applications", "Tool", "ToolResult", "build_applications"]


def __getattr__(name: str) -> Any:
    # The registry pulls in python-docx, openpyxl and psutil: only when asked for.
    if name in ("Applications", "build_applications"):
        from podium.apps import registry

        return getattr(registry, name)
    raise AttributeError(f"module 'podium.apps' has no attribute {name!r}")
