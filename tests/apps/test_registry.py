"""Building a session's applications from a plain configuration mapping."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from podium.apps.base import Application
from podium.apps.desktop_apps import DesktopApplication
from podium.apps.mcp_servers import McpApplication
from podium.apps.registry import build_applications
from podium.errors import ConfigError
from tests.apps.test_mcp import SERVER


def test_defaults_give_the_four_builtins(root: Path) -> None:
    apps = build_applications({"workspace": str(root)})
    assert list(apps) == ["files", "documents", "spreadsheets", "shell"]
    assert all(isinstance(app, Application) for app in apps.values())
    assert apps.workspace.root == root.resolve()


def test_workspace_is_relative_to_base(root: Path) -> None:
    apps = build_applications({"workspace": "work", "enabled": ["files"]}, base=root.parent)
    assert apps.workspace.root == root.resolve() and list(apps) == ["files"]


async def test_shell_options_extend_the_defaults(root: Path) -> None:
    apps = build_applications({"workspace": str(root), "shell": {"allow": ["sleep"], "timeout": 5}})
    shell = apps["shell"]
    assert shell.is_sensitive("run_command", {"command": "sleep 0"})  # allowed, not read-only
    assert not shell.is_sensitive("run_command", {"command": "ls"})
    only = build_applications(
        {"workspace": str(root), "shell": {"allow": ["ls"], "read_only": ["ls"], "defaults": False}}
    )["shell"]
    assert "not in the shell allow-list" in (await only.call("run_command", {"command": "cat notes.txt"})).error


async def test_mcp_and_desktop_entries_and_lifetime(root: Path) -> None:
    config = {
        "workspace": str(root),
        "enabled": ["files"],
        "mcp": {"calc": {"command": sys.executable, "args": [SERVER]}},
        "desktop": {
            "editor": {"command": "xmessage -file", "window": "xmessage", "opens_files": True, "file_types": [".txt"]}
        },
    }
    apps = build_applications(config)
    assert isinstance(apps["calc"], McpApplication) and isinstance(apps["editor"], DesktopApplication)
    assert apps["editor"].config.command == ("xmessage", "-file") and apps["editor"].file_types == (".txt",)
    async with apps:
        assert (await apps.running())["calc"]
        assert (await apps["calc"].call("add", {"a": 1, "b": 2})).content["text"] == "3"
    assert not (await apps.running())["calc"]


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"workspace": "/nonexistent/podium"}, "workspace"),
        ({"enabled": ["browser"]}, "unknown built-in"),
        ({"colour": "blue"}, "colour"),
        ({"shell": {"allow": ["bash"]}}, "interpreter"),
        ({"shell": {"allow": ["xargs"]}}, "run other programs"),
        ({"shell": {"timeout": "soon"}}, "shell.timeout"),
        ({"mcp": {"files": {"command": "x"}}}, "two applications are named 'files'"),
        ({"mcp": {"m": {"url": "http://127.0.0.1:1/mcp", "command": "x"}}}, "exactly one"),
        ({"desktop": {"d": {"command": []}}}, "command"),
        ({"desktop": {"d": {"command": "x", "window": "("}}}, "window"),
        ({"desktop": {"d": {"command": "x", "colour": 1}}}, "desktop.d.colour"),
    ],
)
def test_bad_configuration_is_a_clear_config_error(root: Path, config, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        build_applications({"workspace": str(root), **config})
