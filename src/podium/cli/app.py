"""The `podium` command (Typer + Rich).

Exit codes: 0 the request finished (FINISH); 1 it failed (FAIL / ERROR) or the command failed; 2 a usage
or configuration error (the message says what and where; no traceback); 130 interrupted by Ctrl-C
(143 by SIGTERM).
"""

from __future__ import annotations

import asyncio
import functools
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from podium.cli.doctor import doctor
from podium.cli.warm import warm_command
from podium.errors import ConfigError, PodiumError

F = TypeVar("F", bound=Callable[..., Any])

app = typer.Typer(
    name="podium",
    help="Run requests on your desktop's applications with a HostAgent and its AppAgents; "
         "inspect the recorded sessions.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("podium")
    except PackageNotFoundError:
        return "unknown"


def _show_version(value: bool) -> None:
    if value:
        print(f"podium {_version()}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_show_version, is_eager=True,
                                          help="Show the version and exit.")] = False,
) -> None:
    """Run requests on your desktop's applications with a HostAgent and its AppAgents; inspect the
    recorded sessions."""


ConfigOption = Annotated[Path | None, typer.Option("--config", help="podium.toml to use (default: ./podium.toml, "
                                                   "then the user's config folder)", show_default=False)]


def _out() -> Console:
    return _console(Console(highlight=False))


def _err() -> Console:
    return _console(Console(stderr=True, highlight=False))


def _console(console: Console) -> Console:
    # In a log or a pipe, a long line stays one line (grep finds it); a terminal wraps as usual.
    console.soft_wrap = not console.is_terminal
    return console


def _user_errors(command: F) -> F:
    """ConfigError: exit 2; another PodiumError: exit 1; both with a one-line message, no traceback."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except ConfigError as exc:
            _err().print(f"[red]error:[/] {escape(str(exc))}")
            raise typer.Exit(2) from None
        except PodiumError as exc:
            _err().print(f"[red]error:[/] {escape(str(exc))}")
            raise typer.Exit(1) from None

    return wrapper  # type: ignore[return-value]


@app.command()
@_user_errors
def run(
    request: Annotated[str, typer.Argument(help="What to do, in plain words.", metavar="REQUEST",
                                                 show_default=False)],
    workdir: Annotated[Path | None, typer.Option("--workdir", "-w", help="The workspace folder the applications "
                                                 "work in (default: [apps] workspace, else the current folder).",
                                                 show_default=False)] = None,
    model: Annotated[str | None, typer.Option("--model", "-m", help="Model spec for every agent: local, "
                                              "openai:MODEL, ollama:MODEL, anthropic:MODEL, "
                                              "openai-compatible:URL#MODEL, scripted:FILE.json "
                                              "(default: [models] in podium.toml, else local).",
                                              show_default=False)] = None,
    batch: Annotated[bool, typer.Option("--batch", help="Nobody answers: questions get the configured default "
                                        "answer, sensitive actions are refused (unless --yes).")] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Approve sensitive actions automatically.")] = False,
    json_out: Annotated[Path | None, typer.Option("--json-out", help="Write the run's summary (status, steps, "
                                                  "model calls, tokens, cost, seconds...) as JSON to this file.",
                                                  show_default=False)] = None,
    config: ConfigOption = None,
) -> None:
    """Run one request with the HostAgent, live, and record it in the journal."""
    from podium.cli.config import load_config
    from podium.cli.run import RunOptions, execute
    from podium.cli.summary import usage_error_summary

    out, err = _out(), _err()
    try:
        options = RunOptions(request, load_config(config), workdir, model, batch, yes)
        summary = asyncio.run(execute(options, out, announce=err))
    except ConfigError as exc:
        if json_out is not None:
            _write_json(json_out, usage_error_summary(request, str(exc)))
        raise
    if json_out is not None:
        summary.write(json_out)
    _print_outcome(out, summary)
    raise typer.Exit(summary.exit_code)


def _write_json(path: Path, body: dict[str, Any]) -> None:
    import json

    path.expanduser().parent.mkdir(parents=True, exist_ok=True)
    path.expanduser().write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")


def _print_outcome(out: Console, summary: Any) -> None:
    from podium.cli.view import STATE_STYLES

    style = STATE_STYLES.get(summary.status, "bold")
    head, why = summary.headline()
    label, _, text = head.partition("  ")
    out.print(f"\n[{style} bold]{label}[/]  {escape(text)}")
    for line in why:
        out.print(f"  {escape(line)}")
    if summary.evaluation is not None:
        verdict = summary.evaluation
        out.print(f"[bold]judge[/] complete: {escape(str(verdict.get('complete')))}"
                  + (f" · {escape(str(verdict['reason']))}" if verdict.get("reason") else ""))
    for approval in summary.approvals:
        out.print(f"[dim]step {approval['step']}: {escape(str(approval['action']))} -> "
                  f"{escape(str(approval['confirmation']))}[/]")
    assumed = Counter((str(q["question"]), str(q["answer"]), str(q["answered_by"]))
                      for q in summary.questions if q.get("answered_by") != "person")
    for (question, answer, by), times in list(assumed.items())[:5]:
        again = f" ({times} times)" if times > 1 else ""
        out.print(f"[dim]question {escape(question)!r} answered {escape(answer)!r} ({by}){again}[/]")
    if len(assumed) > 5:
        out.print(f"[dim]... and {len(assumed) - 5} more questions answered without you (podium show)[/]")
    cost = "" if summary.cost is None else f" · cost ${summary.cost:.4f}"
    out.print(f"[dim]steps {summary.steps} · model calls {summary.model_calls} · tokens {summary.input_tokens:,} "
              f"in / {summary.output_tokens:,} out{cost} · {summary.seconds:.1f} s[/]")
    if summary.stopped_programs:
        out.print(f"[dim]closed what this run launched: {', '.join(summary.stopped_programs)}[/]")
    if summary.recorded:
        out.print(f"record: session [cyan]{summary.session}[/] in {summary.journal}  "
                  f"(podium show {summary.session})")
    else:
        out.print("[yellow]this run was not recorded[/]")
    if summary.report:
        out.print(f"report: {summary.report}")


@app.command()
@_user_errors
def apps(
    workdir: Annotated[Path | None, typer.Option("--workdir", "-w", help="The workspace folder.",
                                                 show_default=False)] = None,
    connect: Annotated[bool, typer.Option("--connect", help="Connect the MCP servers to list their tools.")] = False,
    config: ConfigOption = None,
) -> None:
    """List the configured applications and what runs (processes, windows when there is a display)."""
    from podium.cli.apps_list import list_apps
    from podium.cli.config import load_config
    from podium.cli.run import RunOptions

    options = RunOptions("", load_config(config), workdir)
    asyncio.run(list_apps(options, _out(), connect=connect))


app.command()(_user_errors(doctor))
app.command("warm")(_user_errors(warm_command))


def main() -> None:
    """The console script's entry point."""
    app()


# The commands on recorded runs (sessions, show, report, replay, resume, undo) register themselves on `app`.
from podium.cli import record_commands  # noqa: E402, F401
