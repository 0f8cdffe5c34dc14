"""mcp: any MCP server (stdio or streamable HTTP) as an Application, through the official `mcp` SDK.

The SDK's transports and ClientSession are anyio task groups, which must be entered and exited by
the same task. So one owner task per server enters them all, lists the tools, and then only waits
to be told to close; calls are made from any task through the session it holds (requests are
plain messages on its streams). `launch()` starts the owner and waits until the tools are listed
(or raises StartFailed with the server's own error output); `aclose()` ends it, which closes the
session and stops a stdio server's process.

MCP tools are sensitive unless the server marks them read-only (`readOnlyHint`) or the
configuration lists them as read-only; `confirm = "all"` / `"none"` override that. An untrusted server
that may write the workspace is not taken at its word: its hints are the party the sandbox contains
speaking for itself, so only the configuration's `read_only_tools` are read-only there. What a tool
changes is not known (`effects()` is None), except that a read-only one changes nothing.

A stdio server the configuration marks `untrusted = true` runs in the sandbox (sandbox.Sandbox): the
workspace absent unless `workspace = "read"` or `"write"`, no network unless `network = true`, its own
folder (`cwd`) and `read_paths` read-only, a scrubbed environment (only its configured `env`), limits.
Without bubblewrap such a server is not started, and the error says why.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from podium.apps.base import Change, Effect, Tool, ToolResult
from podium.apps.limits import MAX_RESULT_CHARS, within
from podium.apps.sandbox import SAFE_PATH, Access, Limits, Sandbox, SandboxUnavailable
from podium.apps.workspace import Absent, Workspace, absent_protected, created_refusal, remove_created
from podium.errors import ConfigError, StartFailed

Confirm = Literal["writes", "all", "none"]
# A server lives as long as the session: no CPU-time limit; memory, files and processes bounded.
SERVER_LIMITS = Limits(cpu_seconds=None, memory_bytes=4 << 30, processes=128)


@dataclass(frozen=True, slots=True)
class McpServerConfig:
    """One server: either `command` (+ args, env, cwd) for stdio, or `url` for streamable HTTP."""

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    description: str = ""
    read_only_tools: frozenset[str] = frozenset()
    confirm: Confirm = "writes"
    timeout: float = 60.0
    connect_timeout: float = 30.0
    untrusted: bool = False  # run a stdio server in the sandbox
    network: bool = False  # an untrusted server's network
    workspace: Access = Access.NONE  # what an untrusted server may do with the workspace
    read_paths: tuple[str, ...] = ()  # more read-only folders for an untrusted server (its installation)

    def __post_init__(self) -> None:
        if (self.command is None) == (self.url is None):
            raise ConfigError(f"MCP server {self.name!r}: give exactly one of 'command' (stdio) or 'url' (HTTP)")
        if self.url is not None and not self.url.startswith(("http://", "https://")):
            raise ConfigError(f"MCP server {self.name!r}: url {self.url!r} must start with http:// or https://")
        if self.confirm not in ("writes", "all", "none"):
            raise ConfigError(f"MCP server {self.name!r}: confirm must be 'writes', 'all' or 'none'")
        if self.timeout <= 0 or self.connect_timeout <= 0:
            raise ConfigError(f"MCP server {self.name!r}: timeouts must be positive")
        if self.untrusted and self.command is None:
            raise ConfigError(f"MCP server {self.name!r}: untrusted applies to a stdio server (command); a server "
                              "at a url runs elsewhere, and its tools' calls need approval anyway")

    @property
    def believes_hints(self) -> bool:
        """Whether the server's own `readOnlyHint` makes a tool read-only (run without approval): not for an
        untrusted server that can write the workspace, whose word is what the sandbox is there to doubt."""
        return not (self.untrusted and self.workspace is Access.WRITE)

    @property
    def sandbox(self) -> Sandbox | None:
        """The sandbox an untrusted stdio server runs in (None: trusted, it runs as configured)."""
        if not self.untrusted:
            return None
        return Sandbox(network=self.network, limits=SERVER_LIMITS,
                       read_paths=(*self.read_paths, *([self.cwd] if self.cwd else [])))


class McpApplication:
    """The tools of one MCP server; connect with `launch()` (or `async with`), end with `aclose()`."""

    def __init__(self, config: McpServerConfig, workspace: Workspace | None = None) -> None:
        self.config = config
        self.workspace = workspace
        self.name = config.name
        where = config.url or " ".join([config.command or "", *config.args])
        self.description = config.description or f"MCP server {config.name} ({where})"
        self._tools: dict[str, Tool] = {}
        self._session: Any = None
        self._owner: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._closing = asyncio.Event()
        self._failure: BaseException | None = None
        self._broken = False  # the connection was lost (the server died): not running any more
        self._errlog: Any = None
        # The protected paths absent when a server that may write the workspace started (workspace.absent_protected)
        self._absent: Absent = {}

    # -- Application ---------------------------------------------------------------------------
    def tools(self) -> list[Tool]:
        return list(self._tools.values())

    def is_sensitive(self, tool: str, arguments: Mapping[str, Any]) -> bool:
        if self.config.confirm != "writes":
            return self.config.confirm == "all"
        known = self._tools.get(tool)
        return not (known is not None and known.read_only)

    def effects(self, tool: str, arguments: Mapping[str, Any]) -> tuple[Effect, ...] | None:
        """A read-only tool changes nothing. Another tool of an untrusted server may change whatever its
        sandbox lets it: the whole workspace when it is writable (as a shell command that writes), so that
        neither --yes nor a plan's declared writes stand for what it does; what a trusted server's tool
        does is its own business (None)."""
        known = self._tools.get(tool)
        if known is not None and known.read_only:
            return ()
        if self.config.untrusted and self.config.workspace is Access.WRITE and self.workspace is not None:
            return (Effect(".", Change.EDIT),)
        return None

    async def is_running(self) -> bool:
        return self._session is not None and self._owner is not None and not self._owner.done() and not self._broken

    async def launch(self) -> None:
        """Connect (again, after the server went away or was closed); StartFailed says why it cannot."""
        if await self.is_running():
            return
        if self._owner is not None:
            await self.aclose()
            self._ready, self._closing = asyncio.Event(), asyncio.Event()
            self._owner, self._failure, self._broken, self._tools = None, None, False, {}
        if self.config.sandbox is not None:
            self._confined(self.config.sandbox)  # refused before anything starts, with the reason
        if self.workspace is not None and self.config.sandbox is not None and self.config.workspace is Access.WRITE:
            self._absent = absent_protected(self.workspace)
        # The server's stderr, kept to explain a failed start; closed by aclose().
        self._errlog = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")  # noqa: SIM115
        self._owner = asyncio.create_task(self._own(), name=f"mcp:{self.name}")
        try:
            await asyncio.wait_for(self._ready.wait(), self.config.connect_timeout)
        except TimeoutError:
            output = self._server_output()
            await self.aclose()
            raise StartFailed(
                f"MCP server {self.name!r} did not answer within {self.config.connect_timeout:g} s{output}"
            ) from None
        if self._session is None:
            failure, output = self._failure, self._server_output()
            await self.aclose()
            raise StartFailed(f"MCP server {self.name!r} could not be started: {_describe(failure)}{output}") from (
                failure
            )

    async def call(self, tool: str, arguments: Mapping[str, Any]) -> ToolResult:
        session = self._session
        if session is None:
            return ToolResult(error=f"MCP server {self.name!r} is not connected; launch it first")
        if tool not in self._tools:
            return ToolResult(error=f"MCP server {self.name!r} has no tool {tool!r}; it has {sorted(self._tools)}")
        try:
            result = await asyncio.wait_for(session.call_tool(tool, dict(arguments)), self.config.timeout)
        except TimeoutError:
            return ToolResult(error=f"{self.name}.{tool} gave no answer within {self.config.timeout:g} s")
        except Exception as exc:
            self._broken = not await _answers_ping(session)
            gone = "; the connection to the server is lost (launch it again)" if self._broken else ""
            return ToolResult(error=f"{self.name}.{tool} failed: {_describe(exc)}{gone}")
        moved = self._undo_created()
        if moved:
            return ToolResult(error=created_refusal(f"{self.name}.{tool}", moved, "server"))
        return _tool_result(result)

    def _undo_created(self) -> list[str]:
        """Move aside what the server created at a protected path that was absent when it started: its sandbox
        shows only existing protected paths read-only (a mount needs something to mount over). Checked after each
        call and once the server has ended, so that no run after this one reads a configuration it made."""
        if not self._absent or self.workspace is None:
            return []
        return remove_created(self.workspace, self._absent)

    # -- connection lifetime -------------------------------------------------------------------
    async def aclose(self) -> None:
        self._closing.set()
        if self._owner is not None and not self._owner.done():
            with contextlib.suppress(asyncio.CancelledError):
                try:
                    await asyncio.wait_for(asyncio.shield(self._owner), 10)
                except TimeoutError:
                    self._owner.cancel()
                    await asyncio.gather(self._owner, return_exceptions=True)
        self._session = None
        with contextlib.suppress(OSError):  # the server has ended: what it made at an absent protected path goes aside
            self._undo_created()
        if self._errlog is not None:
            self._errlog.close()
            self._errlog = None

    async def __aenter__(self) -> McpApplication:
        await self.launch()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def _own(self) -> None:
        """Enter the transport and session, list tools, then wait for close: all in this one task."""
        from mcp import ClientSession

        try:
            async with contextlib.AsyncExitStack() as stack:
                streams = await stack.enter_async_context(self._transport())
                session = await stack.enter_async_context(ClientSession(streams[0], streams[1]))
                await session.initialize()
                self._tools = await _list_tools(session, self.config.read_only_tools, self.config.believes_hints)
                self._session = session
                self._ready.set()
                await self._closing.wait()
                self._session = None
        except BaseException as exc:  # kept for launch() to report; the task itself ends quietly
            self._failure = exc
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            self._session = None
            self._ready.set()

    def _transport(self) -> contextlib.AbstractAsyncContextManager[Any]:
        if self.config.url is not None:
            from mcp.client import streamable_http

            open_http = (
                getattr(streamable_http, "streamable_http_client", None) or streamable_http.streamablehttp_client
            )
            if self.config.headers:
                from mcp.shared._httpx_utils import create_mcp_http_client  # the SDK's own defaults

                return open_http(self.config.url, http_client=create_mcp_http_client(headers=dict(self.config.headers)))
            return open_http(self.config.url)
        from mcp import StdioServerParameters, stdio_client

        assert self.config.command is not None
        command, args, env = self.config.command, list(self.config.args), dict(self.config.env) or None
        sandbox = self.config.sandbox
        if sandbox is not None:
            command, args, env = self._confined(sandbox)
        parameters = StdioServerParameters(command=command, args=args, env=env, cwd=self.config.cwd)
        return stdio_client(parameters, errlog=self._errlog)

    def _confined(self, sandbox: Sandbox) -> tuple[str, list[str], dict[str, str]]:
        """The bwrap command, its arguments and the environment that run this server sandboxed."""
        assert self.config.command is not None
        program = shutil.which(self.config.command)
        if program is None:
            raise StartFailed(f"MCP server {self.name!r}: program {self.config.command!r} not found")
        program = os.path.abspath(program)
        workspace, access = self.workspace, self.config.workspace
        if workspace is None:
            access = Access.NONE
        try:
            argv = sandbox.wrap(
                [program, *self.config.args], access=access, workspace=workspace.root if workspace else None,
                protected=workspace.protected_paths() if workspace else (),
                cwd=Path(self.config.cwd) if self.config.cwd else None,
                search_path=SAFE_PATH, programs=(program,))
        except SandboxUnavailable as exc:
            raise StartFailed(f"MCP server {self.name!r}: {exc}") from None
        # bwrap passes its environment on: only what the configuration gives the server, and no home of ours
        return argv[0], argv[1:], sandbox.environment(SAFE_PATH, home="/", extra=self.config.env)

    def _server_output(self) -> str:
        if self._errlog is None or self._errlog.closed:
            return ""
        with contextlib.suppress(OSError, ValueError):
            self._errlog.flush()
            self._errlog.seek(0)
            text = self._errlog.read()[-2000:].strip()
            if text:
                return f"; the server said:\n{text}"
        return ""


async def _answers_ping(session: Any) -> bool:
    try:
        await asyncio.wait_for(session.send_ping(), 5)
    except Exception:
        return False
    return True


async def _list_tools(session: Any, read_only: frozenset[str], hints: bool = True) -> dict[str, Tool]:
    tools: dict[str, Tool] = {}
    cursor = None
    while True:
        if cursor is None:
            listing = await session.list_tools()
        else:
            from mcp.types import PaginatedRequestParams

            listing = await session.list_tools(params=PaginatedRequestParams(cursor=cursor))
        for tool in listing.tools:
            annotations = getattr(tool, "annotations", None)
            hint = _field(annotations, "read_only_hint", "readOnlyHint") if annotations is not None and hints else None
            schema = _field(tool, "input_schema", "inputSchema") or {"type": "object", "properties": {}}
            tools[tool.name] = Tool(
                tool.name, tool.description or "", schema, read_only=bool(hint) or tool.name in read_only,
                names_its_writes=False,
            )
        cursor = _field(listing, "next_cursor", "nextCursor")
        if not cursor:
            return tools


def _tool_result(result: Any) -> ToolResult:
    blocks = list(getattr(result, "content", None) or [])
    texts = [block.text for block in blocks if getattr(block, "type", None) == "text"]
    others = [
        block.model_dump(mode="json", exclude_none=True) for block in blocks if getattr(block, "type", None) != "text"
    ]
    text, cut = within("\n".join(texts), MAX_RESULT_CHARS)
    if cut:
        text += f"\n[cut: the server answered more than {MAX_RESULT_CHARS:,} characters]"
    if _field(result, "is_error", "isError"):
        return ToolResult(content=others or None, error=text or "the MCP tool reported an error")
    structured = _field(result, "structured_content", "structuredContent")
    if structured is not None:
        return ToolResult(content={"structured": structured, "text": text})
    if others:
        return ToolResult(content={"text": text, "content": others})
    return ToolResult(content=text)


def _field(obj: Any, name: str, legacy: str) -> Any:
    # mcp 2 names fields in snake_case; mcp 1 used the wire's camelCase.
    value = getattr(obj, name, None)
    return value if value is not None else getattr(obj, legacy, None)


def _describe(exc: BaseException | None) -> str:
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    if exc is None:
        return "unknown error"
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_describe(e) for e in exc.exceptions)
    if isinstance(exc, FileNotFoundError):
        return f"program not found ({exc.filename or exc})"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def server_config(name: str, options: Mapping[str, Any]) -> McpServerConfig:
    """A McpServerConfig from a plain mapping (a table of podium.toml); unknown keys are an error."""
    known = {
        "command",
        "args",
        "env",
        "cwd",
        "url",
        "headers",
        "description",
        "read_only_tools",
        "confirm",
        "timeout",
        "connect_timeout",
        "untrusted",
        "network",
        "workspace",
        "read_paths",
    }
    unknown = sorted(set(options) - known)
    if unknown:
        raise ConfigError(f"MCP server {name!r}: unknown option(s) {unknown}; known: {sorted(known)}")
    values = dict(options)
    args = values.get("args", ())
    if isinstance(args, str) or not all(isinstance(a, str) for a in args):
        raise ConfigError(f"MCP server {name!r}: args must be a list of strings")
    values["args"] = tuple(args)
    values["read_only_tools"] = frozenset(values.get("read_only_tools", ()))
    values["read_paths"] = tuple(values.get("read_paths", ()))
    if "workspace" in values:
        try:
            values["workspace"] = Access(values["workspace"])
        except ValueError:
            raise ConfigError(f"MCP server {name!r}: workspace must be 'none', 'read' or 'write'") from None
    for key in ("env", "headers"):
        mapping = values.get(key, {})
        if not isinstance(mapping, Mapping) or not all(isinstance(v, str) for v in mapping.values()):
            raise ConfigError(f"MCP server {name!r}: {key} must be a table of strings")
        # "$NAME" values come from the environment, so secrets stay out of the config file.
        values[key] = {k: os.environ.get(v[1:], "") if v.startswith("$") else v for k, v in mapping.items()}
    return McpServerConfig(name=name, **values)
