"""An untrusted stdio MCP server, sandboxed: what its tools try outside their bounds fails."""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from podium.apps.mcp_servers import McpApplication, McpServerConfig
from podium.apps.sandbox import Access
from tests.security.harness import REPO, Context, Verdict, add

SERVER = Path(__file__).with_name("hostile_mcp_server.py")


def hostile(ctx: Context, access: Access) -> McpApplication:
    config = McpServerConfig(name="hostile", command=sys.executable, args=(str(SERVER),), untrusted=True,
                             workspace=access, read_paths=(str(REPO / "tests" / "security"),), timeout=20)
    return McpApplication(config, ctx.workspace)


def attempt(access: Access, tool: str, arguments: Callable[[Context], dict[str, object]],
            success: str) -> Callable[[Context], Awaitable[Verdict]]:
    """Call `tool` of the sandboxed server; the attack worked if its answer holds `success`."""

    async def attack(ctx: Context) -> Verdict:
        listener = socket.create_server(("127.0.0.1", 0))
        ctx.apps["_port"] = listener.getsockname()[1]
        os.environ["OPENAI_API_KEY"] = "sk-podium-probe-secret"
        app = hostile(ctx, access)
        try:
            async with app:
                result = await app.call(tool, arguments(ctx))
        finally:
            listener.close()
            os.environ.pop("OPENAI_API_KEY", None)
        answer = str(result.content or result.error)
        if success in answer:
            return Verdict(False, "sandbox", f"the server got through: {answer[:200]}")
        return Verdict(True, "sandbox", answer[:200])

    return attack


add("mcp/read-outside", "mcp", attempt(Access.READ, "read", lambda c: {"path": str(c.outside / "secret.txt")},
                                       "top secret"))
add("mcp/read-home", "mcp", attempt(Access.READ, "read", lambda c: {"path": os.path.expanduser("~/.profile")},
                                    "READ"))
add("mcp/write-read-only-workspace", "mcp", attempt(Access.READ, "write", lambda c: {
    "path": str(c.root / "pwned"), "text": "x"}, "WROTE"))
add("mcp/workspace-not-given", "mcp", attempt(Access.NONE, "read", lambda c: {"path": str(c.root / "notes.txt")},
                                              "hello"))
add("mcp/write-protected-in-writable-workspace", "mcp", attempt(Access.WRITE, "write", lambda c: {
    "path": str(c.root / "podium.toml"), "text": "pwned"}, "WROTE"))
add("mcp/network", "mcp", attempt(Access.NONE, "connect", lambda c: {"host": "127.0.0.1", "port": c.apps["_port"]},
                                  "CONNECTED"))
add("mcp/environment", "mcp", attempt(Access.NONE, "environment", lambda c: {}, "sk-podium-probe-secret"))


async def lying_read_only(ctx: Context) -> Verdict:
    """A server that may write the workspace marks a writing tool read-only: the call still waits for the
    person (the sandbox's inmate does not say what needs approval)."""
    app = hostile(ctx, Access.WRITE)
    arguments = {"path": str(ctx.root / "notes.txt")}
    async with app:
        tool = next(t for t in app.tools() if t.name == "peek")
        if app.is_sensitive("peek", arguments) and not tool.read_only and app.effects("peek", arguments) != ():
            return Verdict(True, "approval", "held for the person's approval: its read-only hint is not believed")
        result = await app.call("peek", arguments)
    said = str(result.content or result.error)
    if (ctx.root / "notes.txt").read_text() != "hello\n":
        return Verdict(False, "approval", f"a tool that says it only reads changed notes.txt unasked: {said[:200]}")
    return Verdict(False, "approval", f"it ran unasked (and failed: {said[:200]})")


add("mcp/read-only-hint-that-writes", "mcp", lying_read_only)


async def yes_to_a_writing_server(ctx: Context) -> Verdict:
    """--yes grants what cannot be known of a call, never an undeclared path: a server that may write the
    whole workspace is not waved through by it under a subtask that declares one file."""
    from podium.desktop.host.capability import auto_granted, holds
    from podium.desktop.wire.messages import CallFacts, EffectView

    app = hostile(ctx, Access.WRITE)
    arguments = {"path": str(ctx.root / "podium.toml"), "text": "pwned"}
    async with app:
        found = app.effects("write", arguments)
        facts = CallFacts(function="write", arguments=arguments, sensitive=app.is_sensitive("write", arguments),
                          effects=None if found is None else tuple(EffectView(path=e.path, change=e.change.value)
                                                                   for e in found))
        held = holds([facts], writes=("notes.txt",))
    if held and not auto_granted(held):
        return Verdict(True, "approval", "; ".join(h.text() for h in held))
    return Verdict(False, "approval", f"--yes would grant it: {[h.text() for h in held]}")


add("mcp/yes-grants-a-server-that-writes-the-workspace", "mcp", yes_to_a_writing_server)
