"""MCP servers as applications: a real server over stdio (and streamable HTTP on 127.0.0.1)."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import psutil
import pytest

from podium.apps.base import Application
from podium.apps.mcp_servers import McpApplication, McpServerConfig, server_config
from podium.errors import ConfigError, StartFailed

SERVER = str(Path(__file__).parent / "mcp_test_server.py")


def stdio_config(*extra: str, **options) -> McpServerConfig:
    return McpServerConfig(name="calc", command=sys.executable, args=(SERVER, *extra), **options)


async def test_stdio_server_tools_calls_and_sensitivity() -> None:
    app = McpApplication(stdio_config())
    assert isinstance(app, Application)
    assert not await app.is_running() and app.tools() == []
    async with app:
        assert await app.is_running()
        tools = {tool.name: tool for tool in app.tools()}
        assert set(tools) == {"add", "shout", "remember", "broken"}
        assert tools["add"].parameters["properties"].keys() == {"a", "b"}
        assert set(tools["add"].parameters["required"]) == {"a", "b"}
        assert tools["add"].read_only and not tools["remember"].read_only
        assert not app.is_sensitive("add", {"a": 1, "b": 2})
        assert app.is_sensitive("remember", {"note": "x"})
        assert app.is_sensitive("unknown", {})

        added = await app.call("add", {"a": 2, "b": 40})
        assert added.content == {"structured": {"result": 42}, "text": "42"}
        assert (await app.call("shout", {"text": "hi"})).content["text"] == "HI"
        # Two calls in flight at once on the one session.
        first, second = await asyncio.gather(app.call("remember", {"note": "a"}), app.call("remember", {"note": "b"}))
        assert {first.content["text"], second.content["text"]} == {"1 note(s)", "2 note(s)"}
        broken = await app.call("broken", {})
        assert not broken.ok and "broken on purpose" in broken.error
        invalid = await app.call("add", {"a": "not a number"})
        assert not invalid.ok and "valid integer" in invalid.error
        assert "has no tool" in (await app.call("nope", {})).error
    assert not await app.is_running()
    assert "not connected" in (await app.call("add", {"a": 1, "b": 1})).error


async def test_closing_stops_the_server_process() -> None:
    app = McpApplication(stdio_config())
    await app.launch()
    me = psutil.Process()
    servers = [p for p in me.children(recursive=True) if SERVER in " ".join(p.cmdline())]
    assert len(servers) == 1
    await app.aclose()
    servers[0].wait(timeout=10)
    assert not servers[0].is_running()


async def test_a_server_that_dies_is_reported_and_can_be_launched_again() -> None:
    app = McpApplication(stdio_config())
    await app.launch()
    [server] = [p for p in psutil.Process().children(recursive=True) if SERVER in " ".join(p.cmdline())]
    server.terminate()
    await asyncio.to_thread(server.wait, 10)
    failed = await app.call("add", {"a": 1, "b": 2})
    assert not failed.ok and "connection to the server is lost" in failed.error
    assert not await app.is_running()
    await app.launch()  # reconnects: a new server process
    assert await app.is_running() and (await app.call("add", {"a": 1, "b": 2})).content["text"] == "3"
    await app.aclose()


async def test_launch_and_close_from_different_tasks() -> None:
    # The SDK's task groups live in the owner task, so launching in one task and closing in another works.
    app = McpApplication(stdio_config())
    await asyncio.create_task(app.launch())
    assert (await asyncio.create_task(app.call("add", {"a": 1, "b": 1}))).ok
    await asyncio.create_task(app.aclose())
    assert not await app.is_running()


async def test_a_server_that_fails_to_start_says_why() -> None:
    app = McpApplication(stdio_config("--fail", connect_timeout=20))
    with pytest.raises(StartFailed, match="configuration missing"):
        await app.launch()
    assert not await app.is_running()


async def test_a_missing_program_says_so() -> None:
    app = McpApplication(McpServerConfig(name="ghost", command="/nonexistent/mcp-server"))
    with pytest.raises(StartFailed, match="ghost"):
        await app.launch()


async def test_read_only_list_and_confirm_overrides() -> None:
    async with McpApplication(stdio_config(read_only_tools=frozenset({"remember"}))) as app:
        assert not app.is_sensitive("remember", {"note": "x"})  # listed read-only by the person
        app.config = replace(app.config, confirm="all")
        assert app.is_sensitive("add", {"a": 1, "b": 2})
        app.config = replace(app.config, confirm="none")
        assert not app.is_sensitive("broken", {})


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def http_server() -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, SERVER, "--http", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if process.poll() is not None:
                pytest.fail(f"the HTTP MCP server exited with {process.returncode}")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


async def test_streamable_http_server(http_server: str) -> None:
    async with McpApplication(McpServerConfig(name="remote", url=http_server)) as app:
        assert {tool.name for tool in app.tools()} == {"add", "shout", "remember", "broken"}
        assert (await app.call("add", {"a": 2, "b": 3})).content["text"] == "5"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({}, "exactly one of"),
        ({"command": "x", "url": "http://127.0.0.1:1/mcp"}, "exactly one of"),
        ({"url": "ftp://host"}, "http://"),
        ({"command": "x", "confirm": "sometimes"}, "confirm"),
        ({"command": "x", "args": "--flag"}, "list of strings"),
        ({"command": "x", "colour": "blue"}, "unknown option"),
    ],
)
def test_bad_server_config_is_a_config_error(options, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        server_config("bad", options)


def test_env_values_can_come_from_the_environment(monkeypatch) -> None:
    monkeypatch.setenv("PODIUM_TEST_TOKEN", "s3cret")
    config = server_config("x", {"command": "srv", "env": {"TOKEN": "$PODIUM_TEST_TOKEN", "MODE": "fast"}})
    assert dict(config.env) == {"TOKEN": "s3cret", "MODE": "fast"}
