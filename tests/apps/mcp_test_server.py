"""A small real MCP server for the tests: `python mcp_test_server.py [--http PORT] [--fail]`.

Written with the SDK's high-level server (FastMCP, called MCPServer since mcp 2).
"""

from __future__ import annotations

import sys

try:  # mcp >= 2
    from mcp.server.mcpserver import MCPServer as Server
    from mcp.server.mcpserver.exceptions import ToolError
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import FastMCP as Server  # type: ignore[no-redef]
    from mcp.server.fastmcp.exceptions import ToolError  # type: ignore[no-redef]

from mcp.types import ToolAnnotations

server = Server("podium-test")
NOTES: list[str] = []


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def shout(text: str) -> str:
    """Upper-case a text."""
    return text.upper()


@server.tool()
def remember(note: str) -> str:
    """Store a note (a change: not read-only)."""
    NOTES.append(note)
    return f"{len(NOTES)} note(s)"


@server.tool()
def broken() -> str:
    """Always fails."""
    raise ToolError("this tool is broken on purpose")


if __name__ == "__main__":
    if "--fail" in sys.argv:
        print("configuration missing: cannot start", file=sys.stderr)
        sys.exit(3)
    if "--http" in sys.argv:
        port = int(sys.argv[sys.argv.index("--http") + 1])
        try:
            server.run("streamable-http", host="127.0.0.1", port=port)
        except TypeError:  # mcp 1.x takes host and port as settings
            server.settings.host, server.settings.port = "127.0.0.1", port
            server.run("streamable-http")
    else:
        server.run()
