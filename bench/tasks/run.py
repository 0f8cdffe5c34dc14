"""Run the desktop task suite through `podium run --batch` and report how many tasks end right.

    python bench/tasks/run.py --model local                       # the embedded default model
    python bench/tasks/run.py --model ollama:qwen2.5:7b --only seed_bar_chart sum_column
    python bench/tasks/run.py --model local --family reworded     # only the rewordings (or original, new)
    python bench/tasks/run.py --list                               # the tasks and what each checks
    python bench/tasks/run.py --model local --record-scripts DIR   # ... and write each run as DIR/<task>.json
    python bench/tasks/run.py --scripts bench/tasks/scripts        # play each task's script, no rules
    python bench/tasks/run.py --merge part1.json part2.json        # one table of a suite run in parts

Every task runs in a fresh temporary folder with its own `podium` process (--batch: questions get the
default answer, sensitive actions are refused, but for the edits in place a task's person approves with
--yes) and a per-task timeout; then its checker opens the files.
Prints a line per task as it ends, then the table (with each run's tokens read and written, and the share
of prompt tokens a prompt cache served where the run reports it), the totals per family (original,
reworded, new) and per category (tasks passed, safety tasks passed, false FINISH: the run said FINISH but
its checker failed; ERROR runs), the originals against their rewordings, and the overall totals; writes
everything as JSON (--json-out, default: a file in the temporary folder), after every task (with "complete":
false until the last one ended, so a run stopped part way keeps what it measured), with the revision of podium
it ran (the commit of the checkout its package is imported from; "-dirty" with local changes).

--merge REPORT... shows and writes (--json-out) one report of a suite run in parts: reports of the same
model, timeout and committed revision, each task in one of them only.

--record-scripts DIR writes, after each task, its run's model answers as the host took them to
DIR/<task>.json (`podium script`, from the journal the run wrote to: the default one, or the one --config
names). --scripts DIR plays each task from DIR/<task>.json (`--model scripted:...`) with no compensation
rules (`[host] rules = "none"` added to the configuration the task runs with); tasks without a script are
listed as such and left out of the totals, not counted as failures.
Exit code 0 when the suite ran (whatever the pass rate), 2 for a usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import sys
import tempfile
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench.tasks` importable from the repository root
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.tasks.runner import (
    MergeError,
    Options,
    TaskResult,
    false_finish,
    merge,
    report,
    revision,
    run_suite,
    script_path,
    totals,
    write_json,
)
from bench.tasks.suite import TASKS, select
from bench.tasks.task import Category, Family, Task
from rich.console import Console
from rich.table import Table

import podium as podium_package


def default_podium() -> list[str]:
    """The `podium` next to this Python (a virtualenv's), else on PATH, else the module."""
    beside = Path(sys.executable).parent / "podium"
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    found = shutil.which("podium")
    return [found] if found else [sys.executable, "-m", "podium.cli"]


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="bench/tasks/run.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", help="model spec for podium run (local, local:/path.gguf, openai:..., ...)")
    parser.add_argument("--only", nargs="+", default=[], metavar="NAME", help="run only these tasks")
    parser.add_argument("--family", nargs="+", default=[], choices=[f.value for f in Family],
                        help="run only the tasks of these families")
    parser.add_argument("--category", nargs="+", default=[], choices=[c.value for c in Category],
                        help="run only the tasks of these categories")
    parser.add_argument("--json-out", type=Path, help="where to write the JSON report")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per task (default 900)")
    parser.add_argument("--config", help="podium.toml to pass to podium run")
    parser.add_argument("--podium", help="the command standing for `podium` (default: the installed one)")
    parser.add_argument("--keep", type=Path, help="keep every task's folder, summary and log under this folder")
    parser.add_argument("--record-scripts", type=Path, metavar="DIR",
                        help="write each task's run as a script of its model answers, DIR/<task>.json")
    parser.add_argument("--scripts", type=Path, metavar="DIR",
                        help="play each task from its script DIR/<task>.json with no compensation rules "
                             "(instead of --model)")
    parser.add_argument("--list", action="store_true", help="list the tasks and exit")
    parser.add_argument("--merge", nargs="+", type=Path, default=[], metavar="REPORT",
                        help="show and write one report of these reports' tasks (a suite run in parts)")
    args = parser.parse_args(argv)
    if args.merge:
        if args.model or args.scripts is not None or args.only or args.family or args.category or args.list:
            parser.error("--merge reads reports: leave out --model, --scripts, --only, --family, --category, --list")
        return args
    if args.scripts is not None:
        if args.model:
            parser.error("--scripts plays each task's script: leave out --model")
        if not args.scripts.is_dir():
            parser.error(f"--scripts {args.scripts}: no such folder")
    elif not args.list and not args.model:
        parser.error("--model is required (e.g. --model local for the embedded default model)")
    if args.timeout <= 0:
        parser.error("--timeout must be a positive number of seconds")
    return args


def list_tasks(console: Console, tasks: list[Task]) -> None:
    families = ", ".join(f"{sum(t.family is f for t in tasks)} {f.value}" for f in Family)
    table = Table(title=f"{len(tasks)} tasks ({sum(t.is_safety for t in tasks)} safety; {families})")
    for column in ("task", "kind", "family", "request", "checks"):
        table.add_column(column, overflow="fold")
    for task in tasks:
        kind = f"{task.category.value}{' (safety)' if task.is_safety else ''}"
        family = task.family.value + (f" of {task.original}" if task.original else "")
        table.add_row(task.name, kind, family, task.request, task.note)
    console.print(table)


def _cell(value: object) -> str:
    return "-" if value is None else str(value)


def _share(rate: float | None) -> str:
    return "-" if rate is None else f"{rate:.0%}"


def results_table(results: list[TaskResult], model: str) -> Table:
    table = Table(title=f"podium desktop tasks, model {model}")
    for column, justify in (("task", "left"), ("family", "left"), ("result", "left"), ("reason", "left"),
                            ("run", "left"), ("steps", "right"), ("model calls", "right"),
                            ("tokens read / written", "right"), ("cached", "right"), ("seconds", "right")):
        table.add_column(column, justify=justify, overflow="fold")  # type: ignore[arg-type]
    for r in results:
        mark = "pass" if r.passed else "FAIL"
        if r.safety:
            mark += " (safety" + (", HARM" if r.safe is False else "") + ")"
        run = r.status + (" (false FINISH)" if false_finish(r) else "")
        tokens = (_cell(r.tokens) if r.input_tokens is None and r.output_tokens is None
                  else f"{_cell(r.input_tokens)} / {_cell(r.output_tokens)}")
        table.add_row(r.task, r.family, mark, r.reason, run, _cell(r.steps), _cell(r.model_calls), tokens,
                      _share(r.cache_share), f"{r.seconds:.1f}")
    return table


def groups_table(results: list[TaskResult]) -> Table:
    """Per family, then per category: tasks and safety tasks passed, false FINISH and ERROR runs."""
    t = totals(results)
    table = Table(title="per family and category")
    for column, justify in (("group", "left"), ("tasks passed", "right"), ("safety passed", "right"),
                            ("false FINISH", "left"), ("ERROR runs", "left")):
        table.add_column(column, justify=justify, overflow="fold")  # type: ignore[arg-type]
    rows = [(f"family {name}", g) for name, g in t["by_family"].items()]
    rows += [(f"category {name}", g) for name, g in t["by_category"].items()]
    for name, g in rows:
        safety = f"{g['safety_passed']} / {g['safety_tasks']}" if g["safety_tasks"] else "-"
        table.add_row(name, f"{g['passed']} / {g['tasks']} ({_share(g['pass_rate'])})", safety,
                      _names(g["false_finish"]), _names(g["errors"]))
    return table


def _names(tasks: list[str]) -> str:
    return f"{len(tasks)}: {', '.join(tasks)}" if tasks else "0"


def totals_lines(results: list[TaskResult]) -> list[str]:
    t = totals(results)

    def pct(rate: float | None) -> str:
        return "n/a" if rate is None else f"{rate:.0%}"

    lines = [f"passed {t['passed']} of {t['tasks']} tasks ({pct(t['pass_rate'])}); "
             f"safety tasks: {t['safety_passed']} of {t['safety_tasks']} ({pct(t['safety_pass_rate'])})",
             f"no harm done in {t['safety_held']} of {t['safety_tasks']} safety tasks "
             f"({pct(t['safety_held_rate'])}); violations: {', '.join(t['safety_violations']) or 'none'}; "
             f"timeouts: {', '.join(t['timeouts']) or 'none'}",
             f"false FINISH (the run said FINISH, its checker failed): {_names(t['false_finish'])}; "
             f"ERROR runs: {_names(t['errors'])}"]
    pairs = t["rewordings"]
    if pairs["pairs"]:
        lines.append(f"originals against their rewordings ({pairs['pairs']} pairs): originals passed "
                     f"{pairs['originals_passed']}, rewordings passed {pairs['reworded_passed']}, gap "
                     f"{pairs['gap_points']:+.0f} points; only the original passed: "
                     f"{', '.join(pairs['only_original_passed']) or 'none'}")
    cache = "" if t["cache_share"] is None else f", {pct(t['cache_share'])} of the prompt tokens from cache"
    lines.append(f"{t['steps']} steps, {t['model_calls']} model calls, {t['tokens']} tokens "
                 f"({t['input_tokens']} read, {t['output_tokens']} written{cache}), {t['seconds']:.0f} s")
    return lines


def show(console: Console, results: list[TaskResult], model: str) -> None:
    console.print(results_table(results, model))
    console.print(groups_table(results))
    for line in totals_lines(results):
        console.print(line)


def merge_reports(console: Console, paths: list[Path], json_out: Path | None) -> int:
    try:
        reports = [json.loads(path.read_text(encoding="utf-8")) for path in paths]
        results, fields = merge(reports)
    except (OSError, ValueError, KeyError, TypeError) as exc:  # MergeError is a ValueError
        why = str(exc) if isinstance(exc, MergeError) else f"not a report of this runner: {exc!r}"
        console.print(f"error: {why}")
        return 2
    order = {t.name: i for i, t in enumerate(TASKS)}
    results.sort(key=lambda r: order.get(r.task, len(order)))
    console.print(f"{len(results)} task(s) from {len(paths)} report(s), model {fields['model']!r}, "
                  f"revision {fields['revision']}")
    show(console, results, fields["model"])
    ran = {r.task for r in results}
    missing = [t.name for t in TASKS if t.name not in ran]
    if missing:
        console.print(f"not in any report: {_names(missing)}")
    if json_out is not None:
        write_json({"schema": reports[0].get("schema"), **fields, "merged": [str(p) for p in paths],
                    "totals": totals(results), "tasks": [asdict(r) for r in results]}, json_out)
        console.print(f"JSON report: {json_out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    # Piped output (a log, CI) gets a wide table rather than Rich's 80 columns.
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 160)
    if args.merge:
        return merge_reports(console, args.merge, args.json_out)
    try:
        tasks = select(args.only, [Family(f) for f in args.family], [Category(c) for c in args.category])
    except KeyError as exc:
        console.print(f"error: {exc.args[0]}")
        return 2
    if args.list:
        list_tasks(console, tasks)
        return 0
    if not tasks:
        console.print("error: no task matches --only, --family and --category together")
        return 2
    unscripted: list[str] = []
    model = args.model
    if args.scripts is not None:
        unscripted = [t.name for t in tasks if not script_path(args.scripts, t.name).is_file()]
        tasks = [t for t in tasks if t.name not in unscripted]
        model = f"scripted:{args.scripts.resolve()} (rules none)"
        if unscripted:
            console.print(f"no script in {args.scripts} for {len(unscripted)} task(s), left out: "
                          f"{', '.join(unscripted)}")
        if not tasks:
            console.print(f"error: {args.scripts} holds no script of the tasks selected")
            return 2
    podium = shlex.split(args.podium) if args.podium else default_podium()
    options = Options(model=model, podium=tuple(podium), timeout=args.timeout, config=args.config,
                      keep=args.keep.resolve() if args.keep else None,
                      record_scripts=args.record_scripts.resolve() if args.record_scripts else None,
                      scripts=args.scripts.resolve() if args.scripts else None)
    started = datetime.now(UTC)
    json_out = args.json_out or Path(tempfile.gettempdir()) / f"podium-tasks-{started:%Y%m%d-%H%M%S}.json"
    measured = revision(Path(podium_package.__file__).parent)
    console.print(f"{len(tasks)} task(s), model {model!r}, podium: {shlex.join(podium)} (revision "
                  f"{measured or 'unknown'}), timeout {args.timeout:.0f} s per task")
    results: list[TaskResult] = []

    def started_one(number: int, task: Task) -> None:
        console.print(f"[{number}/{len(tasks)}] {task.name} ...", end=" ")

    def ended_one(number: int, task: Task, result: TaskResult) -> None:
        console.print(f"{'pass' if result.passed else 'FAIL'} ({result.status}, {result.seconds:.0f} s): "
                      f"{result.reason}")
        results.append(result)
        write_json(report(results, options, started, unscripted, measured=measured, complete=False), json_out)
        if options.record_scripts is not None:
            console.print(f"  script: {result.script}" if result.script else
                          f"  no script written: {result.script_error}")

    run_suite(tasks, options, on_result=ended_one, on_start=started_one)
    show(console, results, model)
    if unscripted:
        console.print(f"left out for want of a script: {_names(unscripted)}")
    write_json(report(results, options, started, unscripted, measured=measured), json_out)
    console.print(f"JSON report: {json_out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
