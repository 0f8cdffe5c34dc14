"""`podium warm`: read each agent's instructions once with the embedded model and keep their states on
disk (podium.desktop.shell.heads), so that the first request on this machine starts after them as every
later one does. Run once after installing or upgrading podium, or after changing the applications a
configuration offers; a head kept already is not read again.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

if TYPE_CHECKING:
    from podium.desktop import Warmed

_SAID = {"kept": "read and kept", "held": "kept already", "skipped": "not an embedded model: nothing to keep"}


async def _warm(config: Path | None, workdir: Path | None, model: str | None, out: Console) -> list[Warmed]:
    from podium.cli.config import load_config
    from podium.cli.models import build_models, choose_models
    from podium.cli.run import RunOptions, build_apps, workspace_of
    from podium.desktop import warm

    loaded = load_config(config)
    options = RunOptions("", loaded, workdir, model)
    apps = build_apps(options, workspace_of(options))
    models = build_models(choose_models(loaded, model), loaded, list(apps))
    await models.preload(lambda text: out.print(f"[dim]{escape(text)}[/]"))
    await apps.start()  # an MCP server's tools are part of its AppAgent's instructions
    try:
        return await warm(list(apps.values()), models.planner.inner,
                          {name: backend.inner for name, backend in models.apps.items()})
    finally:
        await apps.aclose()


def warm_command(
    model: Annotated[str | None, typer.Option("--model", "-m", help="Model spec (default: [models] in "
                                              "podium.toml, else local).", show_default=False)] = None,
    workdir: Annotated[Path | None, typer.Option("--workdir", "-w", help="The workspace folder (default: [apps] "
                                                 "workspace, else the current folder).", show_default=False)] = None,
    config: Annotated[Path | None, typer.Option("--config", help="podium.toml to use (default: ./podium.toml, "
                                                "then the user's config folder)", show_default=False)] = None,
) -> None:
    """Read each agent's instructions once and keep their states on disk, so that the first request
    starts after them as later ones do (run after installing, upgrading, or changing the applications)."""
    from podium.cli.app import _out

    out = _out()
    started = time.perf_counter()
    done = asyncio.run(_warm(config, workdir, model, out))
    for one in done:
        cost = f"{one.tokens:,} tokens" + (f", {one.read:,} read in {one.seconds:.1f} s" if one.read else "")
        said = f"not kept: {one.error}" if one.error else _SAID[one.outcome]
        out.print(f"[bold]{escape(one.agent)}[/]  {escape(said)}" + (f" ({cost})" if one.tokens else ""))
    read = sum(one.read for one in done)
    out.print(f"[dim]{read:,} tokens read in {time.perf_counter() - started:.1f} s; every request now starts "
              "after these instructions[/]")
