"""The commands on recorded runs: sessions, show, report, replay, resume, undo, script.

RUN is a run's name, a unique prefix of it, or `last`. Each works against the journal podium.toml names
(a SQLite file or a PostgreSQL server); a journal that cannot be read is one line, exit 1.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated, Any

import typer

from podium.cli.app import ConfigOption, _err, _out, _print_outcome, _user_errors, _write_json, app
from podium.errors import ConfigError

RunArgument = Annotated[str, typer.Argument(help="The run: its name, a unique prefix of it, or 'last'.",
                                            metavar="RUN", show_default=False)]


class _journal:
    """The journal the configuration names, opened for reading; a SQLite file must exist already."""

    def __init__(self, config: Path | None) -> None:
        self.config = config
        self.store: Any = None

    def __enter__(self) -> Any:
        from podium.cli.config import load_config
        from podium.cli.journal_store import journal_exists, journal_where, open_journal

        settings = load_config(self.config)
        if not journal_exists(settings):
            raise ConfigError(f"no journal at {journal_where(settings)} yet: `podium run` records its runs there")
        self.store = open_journal(settings)
        return self.store

    def __exit__(self, *exc: object) -> None:
        self.store.close()


@app.command()
@_user_errors
def sessions(
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="Show at most this many, newest first.")] = 20,
    as_json: Annotated[bool, typer.Option("--json", help="Print them as a JSON array, newest first.")] = False,
    config: ConfigOption = None,
) -> None:
    """List the recorded runs, newest first; a run whose process is gone is marked interrupted."""
    from podium.cli.config import load_config
    from podium.cli.journal_store import journal_exists, journal_where
    from podium.cli.records import list_sessions, session_rows

    settings = load_config(config)
    if not journal_exists(settings):
        if as_json:
            print("[]")
        else:
            _out().print(f"No sessions recorded yet (no journal at {journal_where(settings)}).")
        return
    with _journal(config) as store:
        if as_json:
            print(json.dumps(session_rows(store, limit)[0], indent=1, ensure_ascii=False))
        else:
            list_sessions(store, _out(), limit)


@app.command()
@_user_errors
def show(
    session: RunArgument,
    as_json: Annotated[bool, typer.Option("--json", help="Print the record as JSON.")] = False,
    config: ConfigOption = None,
) -> None:
    """Show one recorded run: result, subtask graph, questions, blackboard, trajectory."""
    from podium.cli.records import show_session

    with _journal(config) as store:
        show_session(store, session, _out(), as_json=as_json)


@app.command()
@_user_errors
def report(
    run: RunArgument,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="The HTML file to write (default: "
                                                "RUN.html in the current folder).", show_default=False)] = None,
    config: ConfigOption = None,
) -> None:
    """Write one self-contained HTML page about a run: its graph, steps, tool calls, file diffs."""
    from podium.cli.records import resolve
    from podium.journal.report import write_report

    with _journal(config) as store:
        record = resolve(store, run)
        path = write_report(store, record.name, output or Path.cwd() / f"{record.name}.html")
    _out().print(f"report: {path}")


@app.command()
@_user_errors
def replay(run: RunArgument, config: ConfigOption = None) -> None:
    """Derive every decision of a recorded desktop run again, without a model; print the first divergence."""
    from podium.cli.replay import replay_run

    with _journal(config) as store:
        same = replay_run(store, run, _out())
    raise typer.Exit(0 if same else 1)


@app.command()
@_user_errors
def undo(
    run: RunArgument,
    force: Annotated[bool, typer.Option("--force", help="Also overwrite files changed since the run by "
                                        "someone else.")] = False,
    config: ConfigOption = None,
) -> None:
    """Put every file the run changed back as it was before the run; remove the files it created."""
    from podium.cli.undo import undo_run

    with _journal(config) as store:
        undo_run(store, run, _out(), force=force)


@app.command()
@_user_errors
def resume(
    run: RunArgument,
    model: Annotated[str | None, typer.Option("--model", "-m", help="Model spec for every agent (default: the "
                                              "one the run was started with).", show_default=False)] = None,
    batch: Annotated[bool, typer.Option("--batch", help="Nobody answers: questions get the configured default "
                                        "answer, sensitive actions are refused (unless --yes).")] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Approve sensitive actions automatically.")] = False,
    json_out: Annotated[Path | None, typer.Option("--json-out", help="Write the run's summary as JSON to this "
                                                  "file.", show_default=False)] = None,
    config: ConfigOption = None,
) -> None:
    """Continue a run whose process died: what it had done stays done, what was in flight runs again."""
    from podium.cli.config import load_config
    from podium.cli.run import RunOptions, execute

    options = RunOptions("", load_config(config), None, model, batch, yes, resume=run)
    summary = asyncio.run(execute(options, _out(), announce=_err()))
    if json_out is not None:
        _write_json(json_out, summary.to_dict())
    _print_outcome(_out(), summary)
    raise typer.Exit(summary.exit_code)


@app.command()
@_user_errors
def script(
    run: RunArgument,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="The script file to write (default: "
                                                "RUN.script.json in the current folder).", show_default=False)] = None,
    config: ConfigOption = None,
) -> None:
    """Write a desktop run's model answers, as the host took them, as a script for --model scripted:FILE."""
    from podium.cli.script_export import export_script

    with _journal(config) as store:
        exported = export_script(store, run)
    path = exported.write(output or Path.cwd() / f"{exported.run}.script.json")
    changed = f"{len(exported.changes)} transformed (see its note)" if exported.changes else "none transformed"
    _out().print(f"script: {path} ({exported.answers} answers; {changed})")
