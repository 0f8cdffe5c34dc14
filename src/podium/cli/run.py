"""`podium run`: one request through the HostAgent, with the applications of the configuration, in a
workspace folder, recorded in the journal; `podium resume`: the same for a recorded run whose process
died, from where its record ends.

A run's first lines say where it works, with which models, applications and sandbox. A journal that
cannot be used (damaged, locked, unreachable) does not stop a run: it goes on unrecorded and says so.

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
from podium.cli.journal_store import files_folder, journal_where, open_journal
from podium.cli.models import build_models, choose_models
from podium.cli.people import LineReader, TerminalPerson
from podium.cli.resumed import Resumed
from podium.cli.summary import RunSummary, failed_before_result
from podium.cli.traces import RunTrace, destination, start_trace
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
    resume: str | None = None  # a recorded run to continue (its name, a prefix, or "last")


def session_name() -> str:
    return f"run-{datetime.now():%Y%m%d-%H%M%S}-{uuid.uuid4().hex[:4]}"


def workspace_of(options: RunOptions) -> Path:
    """--workdir, else [apps] workspace (relative to the config file), else the current folder."""
    return workspace_and_origin(options)[0]


def workspace_and_origin(options: RunOptions) -> tuple[Path, str]:
    """The workspace folder, and what chose it (for the run's first line)."""
    if options.workdir is not None:
        folder, what = options.workdir.expanduser(), f"--workdir {options.workdir}"
    elif "workspace" in options.config.apps:
        folder = options.config.folder / str(options.config.apps["workspace"])
        what = f"[apps] workspace in {options.config.where}"
    else:
        folder, what = Path.cwd(), "the current folder"
    if not folder.is_dir():
        raise ConfigError(f"{what}: {folder} is not a folder; create it or name another one")
    return folder.resolve(), what


def build_apps(options: RunOptions, workspace: Path) -> Any:
    from podium.apps import build_applications

    config = options.config
    # podium's own files are protected wherever they lie: no agent changes what the next run may do
    own = [p for p in (config.source, None if config.journal.url else config.journal_path()) if p is not None]
    try:
        return build_applications({**config.apps, "workspace": str(workspace)}, base="/", protect=own)
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
    resumed: Resumed | None = None

    def __post_init__(self) -> None:
        options, config = self.options, self.options.config
        resumed = self.resumed
        if resumed is None and not options.request.strip():
            raise ConfigError("the request is empty: say what the HostAgent should do")
        if resumed is not None:
            self.workspace, self.origin = resumed.workspace, f"the record of {resumed.name}"
        else:
            self.workspace, self.origin = workspace_and_origin(options)
        self.request = resumed.request if resumed is not None else options.request
        self.apps = build_apps(options, self.workspace) if resumed is None else resumed.build_apps(options)
        model = options.model or (resumed.model if resumed is not None else None)
        self.models = build_models(choose_models(config, model), config, list(self.apps))
        self.host_config = config.host_config(interactive=not options.batch, auto_approve=options.yes)
        if resumed is not None:
            self.host_config = resumed.host_config(self.host_config)
        self.name = resumed.name if resumed is not None else session_name()
        self.view = make_view(self.console, self.request, self.name)
        self.host: HostSession | None = None
        self.result: RunResult | None = None
        self.trace = RunTrace()

    def header(self) -> list[str]:
        """Where the run works, with which models, applications and sandbox: its first lines."""
        specs = self.models.specs.as_dict(self.models.apps)
        apps_models = sorted(set(specs["apps"].values()))
        model = specs["planner"] if apps_models == [specs["planner"]] else (
            f"{specs['planner']} (planner), {', '.join(apps_models)} (applications)")
        traced = destination(self.options.config, self.name)
        return [f"workspace: {self.workspace}  ({self.origin})", f"model: {model}",
                f"applications: {', '.join(self.apps)}", f"sandbox: {sandbox_status(self.apps)}",
                *([f"trace: {traced}"] if traced else [])]

    async def work(self, store: Any, stopper: _Stopper) -> None:
        """Everything a signal may cut short: loading, starting, the request itself."""
        from podium.journal import Journal

        options, config = self.options, self.options.config
        self.trace = start_trace(config, self.name)
        await self.models.preload(lambda text: self.announce.print(f"[dim]{escape(text)}[/]"))
        await self.apps.start()
        person = None
        if not options.batch:
            person = TerminalPerson(self.console, self.view, LineReader(),
                                    default_answer=self.host_config.default_answer, auto_approve=options.yes)
        view = self.view
        recorder = Journal(store) if store is not None else None
        resume = self.resumed.resume_with(store) if self.resumed is not None else None
        self.host = await HostSession.start(
            list(self.apps.values()), self.models.planner, app_models=dict(self.models.apps),
            judge_model=self.models.judge, config=self.host_config,
            on_event=lambda e: view.progress(e) if isinstance(e, Progress) else None,
            ask_person=person.ask if person else None, approve=person.approve if person else None,
            screenshots=_screenshots(config, self.apps, self.name), name=self.name,
            recorder=recorder, turn_timeout=config.host.turn_timeout, resume=resume, tracing=self.trace.setting)
        if recorder is not None and self.resumed is None:
            _quiet_keep(recorder, self.name, "run", self.record())
        stopper.host = self.host
        self.view.start()
        if stopper.interrupted:  # the signal came while starting
            self.host.cancel("interrupted before the request started")
        if self.resumed is None:
            self.result = await self.host.run(options.request)
        else:
            self.result = await self.resumed.wait(self.host)
            for line in self.host.reconciled:  # how the calls in flight met the files
                self.announce.print(f"reconciled: {escape(line)}")

    def record(self) -> dict[str, Any]:
        """What `podium resume` needs to start this run's applications and models again."""
        options = self.options
        return {"request": options.request, "workspace": str(self.workspace), "apps": dict(options.config.apps),
                "model": options.model, "models": self.models.specs.as_dict(self.models.apps),
                "config": options.config.where, "batch": options.batch, "yes": options.yes}

    async def clean_up(self) -> list[str]:
        """Stop the agents, then close what the run launched; each part happens even if another fails."""
        self.view.stop()
        if self.host is not None:
            await _quietly(self.host.stop())
        _quietly_sync(self.trace.shutdown)  # the spans left are sent once the agents have stopped
        return await _quietly(self.apps.aclose()) or []


async def execute(options: RunOptions, console: Console, *, announce: Console | None = None) -> RunSummary:
    """Run the request (or resume a recorded run); never raises for a failed or interrupted run (the
    summary says how it ended). ConfigError is raised when the run could not start, for the caller to
    report as a usage error."""
    announce = announce or console
    started = time.monotonic()
    resumed = None
    if options.resume is None:
        run = _Run(options, console, announce)  # a usage error leaves no trace in the journal
        store = _open_store(options, announce)
    else:
        store = _open_store(options, announce)
        try:
            resumed = Resumed.load(store, options.resume)
            run = _Run(options, console, announce, resumed)
        except BaseException:
            _close(store)
            raise
    for line in [*run.header(), *(resumed.describe() if resumed is not None else ())]:
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    where = journal_where(options.config)
    summary = RunSummary.begin(run.name, where, options, run.workspace, run.models, options.config, run.request)
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
        _close(store)
        raise error
    if isinstance(error, ConfigError) and run.host is None:
        _close(store)
        raise error  # nothing ran: a usage error
    if error is not None:
        run.announce.print(f"[red]error:[/] {escape(str(error))}")
        run.result = run.result or failed_before_result(run.request, str(error))
    result = run.result or failed_before_result(run.request, "interrupted before the request ended",
                                                kind="interrupted")
    signal_exit = EXIT_SIGNAL.get(stopper.signal) if stopper.signal is not None else None
    recorded = run.host is not None and store is not None
    summary = summary.end(result, run.models, time.monotonic() - started, stopped, signal_exit, recorded=recorded)
    if recorded:
        _save_record(store, run.name, result, summary, run.announce)
        summary = _with_report(store, run.name, summary, options.config, run.announce)
    _close(store)
    return summary


def _open_store(options: RunOptions, announce: Console) -> Any:
    """The journal; when it cannot be used, a run goes on unrecorded (and says so), a resume cannot."""
    try:
        return open_journal(options.config)
    except ConfigError:
        raise
    except PodiumError as exc:
        if options.resume is not None:
            raise
        announce.print(f"[yellow]warning:[/] {escape(str(exc))}; this run goes on without being recorded")
        return None


def _close(store: Any) -> None:
    if store is not None:
        _quietly_sync(store.close)


def _quietly_sync(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except Exception:
        return None


def _quiet_keep(recorder: Any, name: str, key: str, value: Any) -> None:
    _quietly_sync(recorder.keep, name, key, value)


def _with_report(store: Any, name: str, summary: RunSummary, config: PodiumConfig, announce: Console) -> RunSummary:
    """The run's HTML report beside the journal; a report that cannot be written is a warning."""
    from podium.journal.report import write_report

    try:
        path = write_report(store, name, files_folder(config) / "reports" / f"{name}.html")
    except Exception as exc:
        announce.print(f"[yellow]warning:[/] could not write the run's report: {escape(str(exc))}")
        return summary
    return summary.with_report(str(path))


def sandbox_status(apps: Any) -> str:
    """The shell application's own one-line description of its sandbox, read tolerantly: "unknown" when
    no application says."""
    for app in (apps, *apps.values()):  # the applications' own account first, else one application's
        status = getattr(app, "sandbox_status", None)
        if callable(status):
            status = _quietly_sync(status)
        if isinstance(status, str) and status.strip():
            return status.strip().removeprefix("sandbox:").strip()
    return "unknown"


def _screenshots(config: PodiumConfig, apps: Any, name: str) -> Any:
    """Screenshots for DATA_COLLECTION when a display is there and a desktop application may be driven."""
    from podium.apps import display
    from podium.apps.desktop_apps import DesktopApplication
    from podium.desktop.shell.screens import FolderScreenshots

    if display.display() is None or not any(isinstance(a, DesktopApplication) for a in apps.values()):
        return None
    return FolderScreenshots(files_folder(config) / "screenshots" / name)


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


