"""Running the suite: every task through `podium run --batch` in a fresh folder, then its checker.

Each task gets its own temporary folder (the workspace, built by the task) and its own `podium` process
with a per-task timeout; on timeout the process group gets SIGTERM (podium then saves its record and
summary), then SIGKILL if it does not end. The checker runs on whatever the folder holds afterwards,
timeouts and crashes included: a run that did harm before it hung still fails its safety check.

Scripted replays: with `record_scripts`, each task's run is written, once it ended, as a script of its
model answers (`podium script SESSION -o DIR/<task>.json`, from the journal the run wrote to); with
`scripts`, each task is played from `DIR/<task>.json` (`--model scripted:...`) with no compensation rules: a
podium.toml beside the workspace with `[host] rules = "none"` and every other setting of the configuration
the task would have run with (its own podium.toml, or --config).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from . import folder_view
from .task import EndState, Family, RunInfo, Task
from .toml_text import toml_text

SCHEMA = 1
TERM_GRACE = 20.0  # seconds podium gets after SIGTERM to save its record before SIGKILL
LOG_TAIL = 1500  # characters of podium's output kept for a run that did not finish
TEXT_CHARS = 500


@dataclass(frozen=True, slots=True)
class Options:
    model: str
    podium: tuple[str, ...]  # the command that stands for `podium`
    timeout: float = 900.0
    config: str | None = None  # passed to podium as --config
    keep: Path | None = None  # keep every task's folder, summary and log here
    record_scripts: Path | None = None  # write each run's model answers here as <task>.json
    scripts: Path | None = None  # play each task from <task>.json here, with no compensation rules


@dataclass(frozen=True, slots=True)
class TaskResult:
    task: str
    category: str
    safety: bool
    passed: bool
    safe: bool | None
    reason: str
    status: str  # the run's: FINISH / FAIL / ERROR, or TIMEOUT / CRASHED when podium gave no summary
    exit_code: int | None
    steps: int | None
    model_calls: int | None
    tokens: int | None
    seconds: float
    family: str = Family.ORIGINAL.value
    original: str | None = None  # the task a reworded one rewords
    input_tokens: int | None = None
    output_tokens: int | None = None
    cached_tokens: int | None = None
    cache_share: float | None = None  # of the prompt tokens, the share a prompt cache served
    text: str = ""  # the run's final text (shortened)
    questions: list[str] = field(default_factory=list)
    session: str | None = None
    log_tail: str = ""
    kept: str | None = None
    script: str | None = None  # the script written from this run (record_scripts), or played (scripts)
    script_error: str = ""  # why none was written


def run_task(task: Task, options: Options) -> TaskResult:
    with tempfile.TemporaryDirectory(prefix=f"podium-task-{task.name}-") as tmp:
        root = Path(tmp)
        work = root / "work"
        work.mkdir()
        task.build(work)
        before = folder_view.snapshot(work)
        summary_path, log_path = root / "summary.json", root / "podium.log"
        # a task that brings its own configuration (its applications: a GUI program) is run with it
        config = str(work / "podium.toml") if (work / "podium.toml").is_file() else options.config
        model, script = options.model, None
        if options.scripts is not None:
            script = script_path(options.scripts, task.name)
            model = f"scripted:{script}"
            config = str(scripted_config(Path(config) if config else None, root / "podium-scripted.toml"))
        command = [*options.podium, "run", task.request, "--workdir", str(work), "--model", model,
                   "--batch", "--json-out", str(summary_path), *(["--yes"] if task.approves else [])]
        if config:
            command += ["--config", config]
        started = time.monotonic()
        exit_code, timed_out, crash = _execute(command, log_path, options.timeout)
        seconds = time.monotonic() - started
        summary = _read_summary(summary_path)
        run = RunInfo.from_summary(summary) if summary else RunInfo(status="CRASHED")
        if timed_out:
            run = replace(run, status="TIMEOUT")
        verdict = task.evaluate(EndState(work, before, run))
        log = log_path.read_text(encoding="utf-8", errors="replace") if log_path.exists() else ""
        finished = run.status == "FINISH" and exit_code == 0
        session = summary.get("session") if summary else None
        script_error = ""
        if options.record_scripts is not None:
            script, script_error = _record_script(options, session, config, script_path(options.record_scripts,
                                                                                         task.name))
        kept = _keep(options.keep, task.name, root) if options.keep else None
        return TaskResult(
            task=task.name, category=task.category.value, safety=task.is_safety, passed=verdict.passed,
            safe=verdict.safe, reason=verdict.reason, status=run.status, exit_code=exit_code, steps=run.steps,
            model_calls=run.model_calls, tokens=run.tokens, seconds=round(run.seconds or seconds, 2),
            family=task.family.value, original=task.original, input_tokens=run.input_tokens,
            output_tokens=run.output_tokens, cached_tokens=run.cached_tokens, cache_share=run.cache_share,
            text=run.text[:TEXT_CHARS], questions=list(run.questions), session=session,
            log_tail="" if finished else (crash or "") + log[-LOG_TAIL:], kept=kept,
            script=None if script is None else str(script), script_error=script_error)


def script_path(folder: Path, task: str) -> Path:
    """Where a task's script is: `<task>.json` in the scripts folder."""
    return (folder / f"{task}.json").resolve()


def _record_script(options: Options, session: str | None, config: str | None, path: Path) -> tuple[Path | None, str]:
    """`podium script SESSION -o PATH` against the journal the run wrote to: (the script, or why none)."""
    if not session:
        return None, "the run left no record to write a script from"
    command = [*options.podium, "script", session, "--output", str(path)]
    if config:
        command += ["--config", config]
    try:
        done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300,
                              env={**os.environ, "NO_COLOR": "1"})
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"podium script did not run: {exc}"
    if done.returncode != 0:
        return None, " ".join((done.stdout + done.stderr).split())[-LOG_TAIL:] or f"exit code {done.returncode}"
    return path, ""


def scripted_config(base: Path | None, path: Path) -> Path:
    """Write at `path` the configuration a script is played with: `base`'s settings (the task's own
    podium.toml, or --config; none: the defaults) with `[host] rules = "none"`. Relative paths of `base`
    that podium reads relative to its file ([journal] path, [apps] workspace) are made absolute, since the
    new file lives elsewhere."""
    data: dict[str, Any] = {}
    if base is not None:
        data = tomllib.loads(base.read_text(encoding="utf-8"))
        folder = base.resolve().parent
        for table, key in (("journal", "path"), ("apps", "workspace")):
            value = data.get(table, {}).get(key)
            if isinstance(value, str) and not Path(value).expanduser().is_absolute():
                data[table][key] = str(folder / value)
    data["host"] = {**data.get("host", {}), "rules": "none"}
    path.write_text(toml_text(data), encoding="utf-8")
    return path


def _execute(command: list[str], log_path: Path, timeout: float) -> tuple[int | None, bool, str | None]:
    """Run podium in its own process group: (exit code, timed out, why it could not start)."""
    with open(log_path, "wb") as log:
        try:
            process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                       start_new_session=True, env={**os.environ, "NO_COLOR": "1"})
        except OSError as exc:
            return None, False, f"could not start {command[0]!r}: {exc}\n"
        try:
            return process.wait(timeout=timeout), False, None
        except subprocess.TimeoutExpired:
            _signal_group(process, signal.SIGTERM)
            try:
                process.wait(timeout=TERM_GRACE)
            except subprocess.TimeoutExpired:
                _signal_group(process, signal.SIGKILL)
                process.wait()
            return process.returncode, True, None


def _signal_group(process: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, sig)  # the group this run started (start_new_session), nothing else


def _read_summary(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _keep(keep: Path, name: str, root: Path) -> str:
    target = keep / name
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(root, target, symlinks=True)
    return str(target)


def run_suite(tasks: Sequence[Task], options: Options,
              on_result: Callable[[int, Task, TaskResult], None] | None = None,
              on_start: Callable[[int, Task], None] | None = None) -> list[TaskResult]:
    results = []
    for number, task in enumerate(tasks, 1):
        if on_start is not None:
            on_start(number, task)
        result = run_task(task, options)
        results.append(result)
        if on_result is not None:
            on_result(number, task, result)
    return results


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def false_finish(result: TaskResult) -> bool:
    """The run told the person it finished while its checker says the work is not done (or harm was
    done): the worst answer a run can give."""
    return result.status == "FINISH" and not result.passed


def tally(results: Sequence[TaskResult]) -> dict[str, Any]:
    """Counts of one group of results: tasks and safety tasks passed, false FINISH and ERROR runs."""
    safety = [r for r in results if r.safety]
    passed, safety_passed = sum(r.passed for r in results), sum(r.passed for r in safety)
    return {
        "tasks": len(results), "passed": passed, "pass_rate": _rate(passed, len(results)),
        "safety_tasks": len(safety), "safety_passed": safety_passed,
        "safety_pass_rate": _rate(safety_passed, len(safety)),
        "false_finish": [r.task for r in results if false_finish(r)],
        "errors": [r.task for r in results if r.status == "ERROR"],
    }


def rewordings(results: Sequence[TaskResult]) -> dict[str, Any]:
    """Originals against their rewordings, over the pairs that both ran: how many of each passed, and the
    gap in points (originals minus rewordings)."""
    by_name = {r.task: r for r in results}
    pairs = [(by_name[r.original], r) for r in results if r.original is not None and r.original in by_name]
    originals = sum(o.passed for o, _ in pairs)
    reworded = sum(w.passed for _, w in pairs)
    gap = None if not pairs else round(100 * (originals - reworded) / len(pairs), 1)
    return {"pairs": len(pairs), "originals_passed": originals, "reworded_passed": reworded, "gap_points": gap,
            "only_original_passed": [w.task for o, w in pairs if o.passed and not w.passed],
            "only_rewording_passed": [w.task for o, w in pairs if w.passed and not o.passed]}


def totals(results: Sequence[TaskResult]) -> dict[str, Any]:
    safety = [r for r in results if r.safety]

    def total(name: str) -> int:
        return sum(getattr(r, name) or 0 for r in results)

    cached = [r for r in results if r.cached_tokens is not None and r.input_tokens]
    read_with_cache = sum(r.input_tokens or 0 for r in cached)
    families = [f.value for f in Family if any(r.family == f.value for r in results)]
    categories = list(dict.fromkeys(r.category for r in results))
    return {
        **tally(results),
        "safety_held": sum(r.safe is True for r in safety),  # no harm, whether or not the work was done
        "safety_held_rate": _rate(sum(r.safe is True for r in safety), len(safety)),
        "safety_violations": [r.task for r in safety if r.safe is False],
        "timeouts": [r.task for r in results if r.status == "TIMEOUT"],
        "steps": total("steps"), "model_calls": total("model_calls"), "tokens": total("tokens"),
        "input_tokens": total("input_tokens"), "output_tokens": total("output_tokens"),
        "cached_tokens": sum(r.cached_tokens or 0 for r in cached) if cached else None,
        "cache_share": _rate(sum(r.cached_tokens or 0 for r in cached), read_with_cache) if cached else None,
        "seconds": round(sum(r.seconds for r in results), 1),
        "by_family": {f: tally([r for r in results if r.family == f]) for f in families},
        "by_category": {c: tally([r for r in results if r.category == c]) for c in categories},
        "rewordings": rewordings(results),
    }


def revision(source: Path) -> str | None:
    """The commit of the git checkout holding `source` (podium's package), with "-dirty" where its files differ
    from that commit; None outside a checkout. What a report measured, so reports of one revision can be merged."""
    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(["git", "-C", str(source), *args], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    commit = git("rev-parse", "--short=7", "HEAD")
    if commit is None:
        return None
    return f"{commit}-dirty" if git("status", "--porcelain", "--untracked-files=no", "--", ".") else commit


def report(results: Sequence[TaskResult], options: Options, started: datetime,
           unscripted: Sequence[str] = (), *, measured: str | None = None, complete: bool = True) -> dict[str, Any]:
    """The JSON report; `unscripted`: the tasks a scripted replay left out for want of a script; `measured`:
    the revision of podium it ran (`revision`); `complete`: False while the suite still runs (a report written
    after each task, so a run stopped part way keeps what it measured)."""
    return {
        "schema": SCHEMA, "model": options.model, "podium": list(options.podium), "revision": measured,
        "timeout": options.timeout,
        "scripts": None if options.scripts is None else str(options.scripts), "unscripted": list(unscripted),
        "record_scripts": None if options.record_scripts is None else str(options.record_scripts),
        "started": started.isoformat(timespec="seconds"),
        "finished": datetime.now(UTC).isoformat(timespec="seconds") if complete else None,
        "complete": complete, "totals": totals(results), "tasks": [asdict(r) for r in results],
    }


class MergeError(ValueError):
    """Reports that do not make one measurement together."""


def merge(reports: Sequence[dict[str, Any]]) -> tuple[list[TaskResult], dict[str, Any]]:
    """The task results of several reports of one measurement (the suite run in parts, each part once): the
    same model, timeout and revision of podium, a known revision without local changes, and no task in two
    of them (a task run again is a second sample, not a part). With the fields the merged report keeps."""
    if not reports:
        raise MergeError("no report to merge")
    first = reports[0]
    for key in ("model", "revision", "timeout", "scripts"):
        values = {json.dumps(r.get(key)) for r in reports}
        if len(values) > 1:
            raise MergeError(f"the reports differ in {key}: {', '.join(sorted(values))}")
    measured = first.get("revision")
    if not measured or str(measured).endswith("-dirty"):
        raise MergeError(f"the reports measured {measured or 'an unknown revision'}: only a committed revision "
                         "can be measured in parts")
    results: list[TaskResult] = []
    seen: set[str] = set()
    for data in reports:
        for row in data.get("tasks", []):
            if row["task"] in seen:
                raise MergeError(f"{row['task']} is in two of the reports")
            seen.add(row["task"])
            results.append(TaskResult(**row))
    return results, {"model": first["model"], "revision": measured, "timeout": first["timeout"],
                     "scripts": first.get("scripts"),
                     "started": min(r["started"] for r in reports),
                     "finished": max((r.get("finished") or r["started"]) for r in reports),
                     "complete": all(r.get("complete", True) for r in reports)}


def write_json(data: dict[str, Any], path: Path) -> None:
    """Atomically, so a reader never sees half a report."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(partial, path)
