"""Application lifecycle as the HostAgent sees it: what is running, and launching what is not.

The HostAgent's `Bash` field never reaches a shell. It is read as "launch this application": the
command must name one application of the session (by its name, which the grammar offers, or a file of
its type), and that application's own `launch()` runs it. Anything else is refused with a reason the
planner can read, and nothing runs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from podium.desktop.host.catalog import Catalog

_SHELL_SYNTAX = re.compile(r"[;&|`<>]|\$\(|\$\{|\n")


@runtime_checkable
class Lifecycle(Protocol):
    """The small interface the desktop needs from the application-lifecycle layer."""

    async def running(self) -> Mapping[str, bool]: ...

    async def launch(self, app: str) -> None: ...


class AppsLifecycle:
    """Lifecycle over the `Application` objects themselves (is_running / launch)."""

    def __init__(self, apps: Sequence[Any]) -> None:
        self._apps = {app.name: app for app in apps}

    async def running(self) -> Mapping[str, bool]:
        return {name: bool(await app.is_running()) for name, app in self._apps.items()}

    async def launch(self, app: str) -> None:
        await self._apps[app].launch()


@dataclass(frozen=True, slots=True)
class BashOutcome:
    command: str
    application: str | None  # what was (or would have been) launched
    ok: bool
    detail: str


def bash_target(command: str, catalog: Catalog) -> tuple[str | None, str]:
    """The application a Bash command asks to launch, or (None, why it is refused)."""
    text = command.strip()
    if not text:
        return None, "empty command"
    if _SHELL_SYNTAX.search(text):
        return None, ("shell syntax (; & | ` < > $( ) is not allowed: Bash only launches one application "
                      f"({', '.join(catalog.names)}); nothing was run")
    app = catalog.resolve(text)
    if app is None:
        return None, (f"Bash only launches one of the applications {', '.join(catalog.names)}; "
                      f"{text!r} names none of them, so nothing was run")
    return app, f"launch {app}"


async def run_bash(command: str, catalog: Catalog, lifecycle: Lifecycle) -> BashOutcome:
    app, why = bash_target(command, catalog)
    if app is None:
        return BashOutcome(command, None, False, why)
    if (await lifecycle.running()).get(app):
        return BashOutcome(command, app, True, f"{app} is already running")
    await lifecycle.launch(app)
    return BashOutcome(command, app, True, f"launched {app}")
