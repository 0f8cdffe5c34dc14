"""`podium run`: one request through the HostAgent, with the applications of the configuration, in a
workspace folder, recorded in the journal.

Ctrl-C (or SIGTERM) stops it cleanly: the first one cancels the request (it ends FAIL, cancelled, and
its record is kept), a second one, or a request that does not end within a few seconds, stops the
agents at once. Either way the agents are stopped, the applications this run launched are closed,
and the record and the summary are saved before the process exits (130 for Ctrl-C, 143 for SIGTERM).
"""

from __future__ import annotations

import asyncio
import signal
import time
import uuid
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from podium.cli.config import PodiumConfig
from podium.cli.models import build_models, choose_models
from podium.cli.people import LineReader, TerminalPerson
from podium.cli.summary import RunSummary, failed_before_result
from podium.cli.view import RunView, make_view
from podium.desktop import HostSession, Progress, RunResult
from podium.errors import ConfigError, PodiumError

EXIT_SIGNAL = {signal.SIGINT: 130, signal.SIGTERM: 143}
GRACE = 10.0  # seconds a cancelled request may take to end before the agents are stopped at once


@dataclass(frozen=True, slots=True)
class RunOptions:
    request: str
    config: PodiumConfig
    workdir: Path | None = None
    model: str | None = None
    batch: bool = False
    yes: bool = False


def session_name() -> str:
    return f"run-{datetime.now():%Y%m%d-%H%M%S}-{uuid.uuid4().hex[:4]}"


def workspace_of(options: RunOptions) -> Path:
    """--workdir, else [apps] workspace (relative to the config file), else the current folder."""
    if options.workdir is not None:
        folder, what = options.workdir.expanduser(), f"--workdir {options.workdir}"
    elif "workspace" in options.config.apps:
        folder = options.config.folder / str(options.config.apps["workspace"])
        what = f"[apps] workspace in {options.config.where}"
    else:
        folder, what = Path.cwd(), "the current folder"
    if not folder.is_dir():
        raise ConfigError(f"{what}: {folder} is not a folder; create it or name another one")
    return folder.resolve()


def build_apps(options: RunOptions, workspace: Path) -> Any:
    from podium.apps import build_applications

    try:
        return build_applications({**options.config.apps, "workspace": str(workspace)}, base="/")
    except ConfigError as exc:
        raise ConfigError(f"[apps] in {options.config.where}: {exc}") from None


class _Stopper:
    """Signal handling for one run. While the request runs: the first signal cancels it (it ends with
    its record), a second one, or GRACE seconds without an end, cancels the work at once. While the
    run cleans up, a signal only says so; one more gives Python's own KeyboardInterrupt."""

    def __init__(self, view: RunView) -> None:
        self.view = view
        self.signal: signal.Signals | None = None
        self.host: HostSession | None = None
        self.work: asyncio.Future[Any] | None = None
        self.cleaning = False
        self._loop = asyncio.get_running_loop()
        self._count = 0
        self._installed: list[signal.Signals] = []
        self._force: asyncio.TimerHandle | None = None

    def install(self) -> None:
        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                self._loop.add_signal_handler(sig, self._on_signal, sig)
                self._installed.append(sig)
            except (RuntimeError, ValueError, NotImplementedError):  # not the main thread: nothing to do
                pass

    def uninstall(self) -> None:
        for sig in self._installed:
            self._loop.remove_signal_handler(sig)
        self._installed.clear()
        if self._force is not None:
            self._force.cancel()

    def _on_signal(self, sig: signal.Signals) -> None:
        self._count += 1
        self.signal = self.signal or sig
        if self.cleaning:
            self.view.note("[yellow]Still stopping the agents and closing what this run launched "
                           "(once more to quit without finishing that)[/]")
            self.uninstall()
        elif self._count == 1 and self.host is not None:
            self.view.note("[yellow]Interrupted: ending the request and keeping its record "
                           "(press Ctrl-C again to stop at once)[/]")
            self.host.cancel(f"interrupted ({sig.name})")
            self._force = self._loop.call_later(GRACE, self._stop_now)
        else:
            self.view.note("[yellow]Stopping now...[/]")
            self._stop_now()

    def _stop_now(self) -> None:
        if self.work is not None and not self.work.done():
            self.work.cancel()

    @property
    def interrupted(self) -> bool:
        return self.signal is not None


@dataclass
class _Run:
    """One run's parts, from the configuration to the clean-up."""

    options: RunOptions
    console: Console
    announce: Console

    def __post_init__(self) -> None:
        options, config = self.options, self.options.config
        if not options.request.strip():
            raise ConfigError("the request is empty: say what the HostAgent should do")
        self.workspace = workspace_of(options)
        self.apps = build_apps(options, self.workspace)
        self.models = build_models(choose_models(config, options.model), config, list(self.apps))
        self.host_config = config.host_config(interactive=not options.batch, auto_approve=options.yes)
        self.journal_path = config.journal_path()
        self.name = session_name()
        self.view = make_view(self.console, options.request, self.name)
        self.host: HostSession | None = None
        self.result: RunResult | None = None

    async def work(self, store: Any, stopper: _Stopper) -> None:
        """Everything a signal may cut short: loading, starting, the request itself."""
        from podium.journal import Journal

        options, config = self.options, self.options.config
        await self.models.preload(lambda text: self.announce.print(f"[dim]{escape(text)}[/]"))
        await self.apps.start()
        person = None
        if not options.batch:
            person = TerminalPerson(self.console, self.view, LineReader(),
                                    default_answer=self.host_config.default_answer, auto_approve=options.yes)
        view = self.view
        self.host = await HostSession.start(
            list(self.apps.values()), self.models.planner, app_models=dict(self.models.apps),
            judge_model=self.models.judge, config=self.host_config,
            on_event=lambda e: view.progress(e) if isinstance(e, Progress) else None,
            ask_person=person.ask if person else None, approve=person.approve if person else None,
            screenshots=_screenshots(config, self.apps, self.journal_path, self.name), name=self.name,
            recorder=Journal(store), turn_timeout=config.host.turn_timeout)
        stopper.host = self.host
        self.view.start()
        if stopper.interrupted:  # the signal came while starting
            self.host.cancel("interrupted before the request started")
        self.result = await self.host.run(options.request)

    async def clean_up(self) -> list[str]:
        """Stop the agents, then close what the run launched; each part happens even if another fails."""
        self.view.stop()
        if self.host is not None:
            await _quietly(self.host.stop())
        return await _quietly(self.apps.aclose()) or []


async def execute(options: RunOptions, console: Console, *, announce: Console | None = None) -> RunSummary:
    """Run the request; never raises for a failed or interrupted run (the summary says how it ended).
    ConfigError is raised when the run could not start, for the caller to report as a usage error."""
    from podium.journal import SqliteStore

    started = time.monotonic()
    run = _Run(options, console, announce or console)
    store = SqliteStore(run.journal_path)
    summary = RunSummary.begin(run.name, run.journal_path, options, run.workspace, run.models, options.config)
    stopper = _Stopper(run.view)
    stopper.install()
    work = stopper.work = asyncio.ensure_future(run.work(store, stopper))
    try:
        await asyncio.wait([work])  # the work may be cancelled by a signal; this task never is
    finally:
        stopper.cleaning = True
        stopped = await run.clean_up()
        stopper.uninstall()
    error = None if work.cancelled() else work.exception()
    if error is not None and not isinstance(error, PodiumError):
        store.close()
        raise error
    if isinstance(error, ConfigError) and run.host is None:
        store.close()
        raise error  # nothing ran: a usage error
    if error is not None:
        run.announce.print(f"[red]error:[/] {escape(str(error))}")
        run.result = run.result or failed_before_result(options.request, str(error))
    result = run.result or failed_before_result(options.request, "interrupted before the request ended",
                                                kind="interrupted")
    signal_exit = EXIT_SIGNAL.get(stopper.signal) if stopper.signal is not None else None
    summary = summary.end(result, run.models, time.monotonic() - started, stopped, signal_exit,
                          recorded=run.host is not None)
    if run.host is not None:
        _save_record(store, run.name, result, summary, run.announce)
    store.close()
    return summary


def _screenshots(config: PodiumConfig, apps: Any, journal_path: Path, name: str) -> Any:
    """Screenshots for DATA_COLLECTION when a display is there and a desktop application may be driven."""
    from podium.apps import display
    from podium.apps.desktop_apps import DesktopApplication
    from podium.desktop.shell.screens import FolderScreenshots

    if display.display() is None or not any(isinstance(a, DesktopApplication) for a in apps.values()):
        return None
    return FolderScreenshots(journal_path.parent / "screenshots" / name)


async def _quietly(awaitable: Any) -> Any:
    """Clean-up goes on when one part of it fails: the rest still has to happen."""
    try:
        return await awaitable
    except Exception:
        return None


def _save_record(store: Any, name: str, result: RunResult, summary: RunSummary, announce: Console) -> None:
    data = result.to_dict()
    artifacts = {"request": result.request or summary.request, "result": data, "subtasks": data["subtasks"],
                 "blackboard": data["blackboard"], "trajectory": data["blackboard"].get("trajectories", []),
                 "summary": summary.to_dict()}
    try:
        for key, value in artifacts.items():
            store.put(name, key, value)
    except Exception as exc:  # the run is over; losing the extras must not hide its outcome
        announce.print(f"[yellow]warning:[/] could not save the record's artifacts: {escape(str(exc))}")


