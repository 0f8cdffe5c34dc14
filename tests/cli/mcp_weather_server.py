"""A tiny real MCP server (stdio) for the CLI tests: `python mcp_weather_server.py`."""

from __future__ import annotations

try:  # mcp >= 2
    from mcp.server.mcpserver import MCPServer as Server
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import FastMCP as Server  # type: ignore[no-redef]

server = Server("podium-cli-test")


@server.tool()
def forecast(city: str) -> str:
    """Tomorrow's weather in a city."""
    return f"sunny in {city}"


@server.tool()
def warn(city: str) -> str:
    """Send a storm warning for a city."""
    return f"warned {city}"


if __name__ == "__main__":
    server.run()
