"""`podium apps`: the applications the configuration makes available, and what runs on this machine
(processes of the configured desktop applications; top-level windows when there is a display; the
applications on the accessibility bus and their windows, which accessible applications act in)."""

from __future__ import annotations

import asyncio
import os
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from podium.cli.run import RunOptions, build_apps, workspace_of


def _kind(app: Any) -> str:
    from podium.apps.desktop_apps import DesktopApplication
    from podium.apps.mcp_servers import McpApplication

    if isinstance(app, McpApplication):
        return "mcp"
    if isinstance(app, DesktopApplication):
        return "desktop (accessible)" if getattr(app, "observer", None) == "observe" else "desktop"
    return "built-in"


async def _accessible(console: Console, wanted: bool) -> None:
    """The applications on the accessibility bus and their windows; said briefly when there is no bus."""
    try:
        from podium.apps.accessible.listing import running_applications
    except ImportError:  # pragma: no cover - the module is part of podium
        return
    found = await running_applications()
    if isinstance(found, str):
        if wanted:  # an accessible application is configured: say why it cannot work
            console.print(f"[dim]Accessible applications are not listed: {escape(found)}[/]")
        return
    listing = Table(title="Accessible applications (AT-SPI)", title_justify="left", header_style="bold")
    for column in ("application", "pid", "toolkit", "windows"):
        listing.add_column(column, overflow="fold")
    for app in found:
        windows = "; ".join(f"{w.title or '(untitled)'} ({w.role}{', active' if w.active else ''})"
                            for w in app.windows) or "-"
        listing.add_row(escape(app.name), str(app.pid or "-"), escape(app.toolkit), escape(windows))
    console.print(listing if found else "[dim]No application is on the accessibility bus.[/]")


async def list_apps(options: RunOptions, console: Console, *, connect: bool) -> None:
    from podium.apps import display
    from podium.apps.desktop_apps import DesktopApplication
    from podium.apps.lifecycle import find_processes

    workspace = workspace_of(options)
    apps = build_apps(options, workspace)
    if connect:
        await apps.start()
    try:
        table = Table(title=f"Applications ({options.config.where}; workspace {workspace})", title_justify="left",
                      header_style="bold")
        for column in ("name", "kind", "running", "tools", "description"):
            table.add_column(column, overflow="fold")
        for name, app in apps.items():
            kind = _kind(app)
            if kind == "mcp" and not connect:
                running, tools = "connects at run (--connect)", "-"
            else:
                running = "yes" if await app.is_running() else "no"
                tools = ", ".join(t.name for t in app.tools()) or "-"
            table.add_row(name, kind, running, tools, escape(app.description))
        console.print(table)
        shell = apps.get("shell")
        policy = getattr(shell, "policy", None)
        if policy is not None:
            allowed = ", ".join(sorted(policy.allow))
            console.print(f"[bold]shell[/] runs only: {escape(allowed)} [dim](read-only: "
                          f"{', '.join(sorted(policy.read_only)) or 'none'}; the others need approval)[/]")

        desktops = [a for a in apps.values() if isinstance(a, DesktopApplication)]
        if desktops:
            processes = Table(title="Running desktop applications", title_justify="left", header_style="bold")
            for column in ("application", "pid", "process", "command"):
                processes.add_column(column, overflow="fold")
            for app in desktops:
                found = await asyncio.to_thread(find_processes, app.config.process or app.config.program)
                for p in found:
                    processes.add_row(app.name, str(p.pid), p.name, escape(" ".join(p.cmdline)[:120]))
            console.print(processes if processes.row_count else "[dim]None of the desktop applications runs.[/]")
        if display.display() is None:
            console.print("[dim]No display ($DISPLAY is not set): windows are not listed.[/]")
        else:
            windows = await asyncio.to_thread(display.list_windows)
            listing = Table(title=f"Windows on {display.display()}", title_justify="left", header_style="bold")
            for column in ("id", "pid", "class", "title"):
                listing.add_column(column, overflow="fold")
            for w in windows:
                listing.add_row(w.id, str(w.pid or "-"), escape(w.wm_class), escape(w.title))
            console.print(listing if windows else "[dim]No top-level windows (or no tool to list them: "
                                                  "install wmctrl).[/]")
        wanted = any(_kind(a) == "desktop (accessible)" for a in apps.values())
        if wanted or os.environ.get("DBUS_SESSION_BUS_ADDRESS") or os.environ.get("AT_SPI_BUS_ADDRESS"):
            await _accessible(console, wanted)
    finally:
        await apps.aclose()
