"""The seed's example on a real model: does it end with the right file, and what did it cost?

Each run builds a fresh folder (the quarterly example's report.docx and budget.xlsx, as the README's
first command makes them), runs the HostAgent in batch mode on "Extract the table from report.docx and
create a bar chart of it in budget.xlsx" with the real documents and spreadsheets applications, then
judges budget.xlsx with the task suite's checker of the same task: the table in the workbook, and a
native bar chart plotting its numbers. Per run it reports the model calls, the prompt tokens read (and
how many of them came from the embedded model's prefix cache), the tokens written, the seconds the model
spent reading and writing, and the seconds spent in podium itself (wall time less the model's).

`--compare` measures the embedded model as shipped against its baseline in the same invocation: the same
model and threads with no prefix cache and no prompt lookup (what a call cost before them: only the
model's own last sequence is reused), each configuration in its own process, runs interleaved, and
prints the ratios. `--warm` first reads the agents' instructions ahead in a process of its own, as
`podium warm` does at install (podium.desktop.shell.heads), and reports what that cost: the runs that
follow are then a first run on a machine where podium was installed. Not run in CI (minutes of CPU per
run):

    .venv/bin/python bench/seed_local.py [--model local] [--runs 5] [--compare] [--warm] [--verbose]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from podium.agent.backend import BaseBackend, prompt_text
from podium.agent.events import Event
from podium.apps.documents import DocumentsApplication
from podium.apps.spreadsheets import SpreadsheetsApplication
from podium.apps.workspace import Workspace
from podium.backends import backend_from_spec
from podium.desktop import Progress, batch, run_request, warm

if __package__ in (None, ""):  # run as a script: make `bench.tasks` importable from the repository root
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.tasks.suite import seed as seed_task
from bench.tasks.task import EndState

REQUEST = "Extract the table from report.docx and create a bar chart of it in budget.xlsx"


class Metered(BaseBackend):
    """Passes every call to `inner`, adds up what each call's usage event says (calls, tokens read, from
    cache, written, milliseconds reading and writing) and, with `log`, appends one JSON line per call: the
    prompt, the raw answer, the seconds it took. What a small model really answers is what the
    orchestrator must be tolerant of: read these lines, not guesses."""

    def __init__(self, inner: Any, log: Path | None = None) -> None:
        self.inner = inner
        self.log = log
        self.totals: dict[str, float] = {}

    def reset(self) -> dict[str, float]:
        totals, self.totals = self.totals, {key: 0 for key in USAGE}
        return totals

    async def start_session(self, opts: Any) -> Any:
        return await self.inner.start_session(opts)

    async def update_session(self, session: Any, terminal: Event) -> Any:
        return await self.inner.update_session(session, terminal)

    async def terminate_session(self, session: Any) -> None:
        await self.inner.terminate_session(session)

    async def prompt(self, session: Any, prompt: Any) -> Any:  # type: ignore[override]
        started = time.perf_counter()
        events = []
        self.totals["calls"] = self.totals.get("calls", 0) + 1
        async for event in self.inner.prompt(session, prompt):
            events.append(event)
            if event.kind.value == "usage":
                for key in USAGE[1:]:
                    self.totals[key] = self.totals.get(key, 0) + float(event.data.get(key) or 0)
            if event.terminal and self.log is not None:  # the caller closes the stream at the terminal event
                self._write(prompt, events, started)
            yield event

    def _write(self, prompt: Any, events: list[Event], started: float) -> None:
        assert self.log is not None
        last = events[-1] if events else None
        usage = next((e.data for e in reversed(events) if e.kind.value == "usage"), {})
        line = {"system": getattr(prompt, "system", None), "user": prompt_text(prompt),
                "temperature": getattr(prompt, "temperature", None),
                "answer": "".join(e.data.get("text", "") for e in events if e.kind.value == "text"),
                "end": None if last is None else last.kind.value,
                "detail": None if last is None or last.kind.value != "error" else str(last.data.get("detail")),
                "seconds": round(time.perf_counter() - started, 1),
                **{key: usage.get(key) for key in USAGE[1:]}}
        with self.log.open("a") as out:
            out.write(json.dumps(line, default=str) + "\n")


USAGE = ("calls", "input_tokens", "cached_tokens", "output_tokens", "read_ms", "write_ms", "draft_tokens",
         "accepted_tokens")


def check(root: Path) -> tuple[bool, str]:
    """The task suite's checker of the seed's example (bench/tasks/suite/seed.py): the table in
    budget.xlsx and a native bar chart plotting its numbers (numbers, not text that looks like one)."""
    try:
        return True, seed_task.check(EndState(root, {}))
    except Exception as exc:  # Fail, or a file that does not open: the reason is the verdict
        return False, str(exc)


async def one_run(model: Metered, verbose: bool, max_steps: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="podium-seed-") as folder:
        root = Path(folder)
        seed_task.build(root)
        workspace = Workspace.at(root)
        apps = [DocumentsApplication(workspace), SpreadsheetsApplication(workspace)]
        last: list[str] = []

        def show(event: Any) -> None:
            if isinstance(event, Progress):
                line = f"  {event.host_state:<8} {event.current:<40} " + " ".join(
                    f"{s.id}:{s.state}" for s in event.subtasks)
                if verbose and (not last or last[-1] != line):
                    print(line, flush=True)
                last.append(line)

        model.reset()
        started = time.perf_counter()
        result = await run_request(REQUEST, apps, model, config=batch(max_steps=max_steps,
                                                                       max_subtask_steps=min(8, max_steps)),
                                   on_event=show)
        seconds = time.perf_counter() - started
        used = model.reset()
        passed, why = check(root)
        if not result.ok:
            why = f"{result.status}: {result.reason}; {why}"
        model_s = (used["read_ms"] + used["write_ms"]) / 1000
        return {"passed": passed, "why": why, "steps": result.steps, "calls": int(used["calls"]),
                "read": int(used["input_tokens"]), "cached": int(used["cached_tokens"]),
                "written": int(used["output_tokens"]), "read_s": round(used["read_ms"] / 1000, 1),
                "write_s": round(used["write_ms"] / 1000, 1), "podium_s": round(max(seconds - model_s, 0.0), 1),
                "seconds": round(seconds, 1), "guessed": int(used["draft_tokens"]),
                "kept": int(used["accepted_tokens"]),
                "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


HEADER = (f"{'config':<9} {'run':>3} {'result':<6} {'steps':>5} {'calls':>5} {'read':>7} {'cached':>7} "
          f"{'written':>7} {'read s':>7} {'write s':>7} {'podium s':>8} {'seconds':>8} {'RSS MB':>7}  why")


def show_row(config: str, n: int, row: dict[str, Any]) -> str:
    share = f"{row['cached'] / row['read']:.0%}" if row["read"] else "-"
    return (f"{config:<9} {n:>3} {'pass' if row['passed'] else 'FAIL':<6} {row['steps']:>5} {row['calls']:>5} "
            f"{row['read']:>7} {row['cached']:>7} {row['written']:>7} {row['read_s']:>7} {row['write_s']:>7} "
            f"{row['podium_s']:>8} {row['seconds']:>8} {row['peak_rss_mb']:>7}  {share} from cache; {row['why']}")


BASELINE = {"cache_bytes": 0, "prompt_lookup": False}


async def run_here(args: argparse.Namespace, settings: dict[str, Any]) -> list[dict[str, Any]]:
    inner = backend_from_spec(args.model, **settings) if args.model.startswith("local") else \
        backend_from_spec(args.model)
    model = Metered(inner, args.log)
    rows = []
    for _ in range(args.runs):
        rows.append(await one_run(model, args.verbose, args.max_steps))
    return rows


async def warm_here(args: argparse.Namespace) -> dict[str, Any]:
    """Read the seed's agents' instructions ahead (podium warm) and say what it cost."""
    inner = backend_from_spec(args.model)
    with tempfile.TemporaryDirectory(prefix="podium-seed-") as folder:
        workspace = Workspace.at(Path(folder))
        started = time.perf_counter()
        done = await warm([DocumentsApplication(workspace), SpreadsheetsApplication(workspace)], inner)
    return {"agents": [(w.agent, w.outcome, w.tokens, w.read) for w in done],
            "read": sum(w.read for w in done), "read_s": round(sum(w.seconds for w in done), 1),
            "seconds": round(time.perf_counter() - started, 1)}


def child(args: argparse.Namespace, config: str) -> dict[str, Any]:
    """One run in a fresh process (each configuration loads its own model: the process's model is
    shared and its settings are those of the first backend to load it)."""
    command = [sys.executable, __file__, "--model", args.model, "--runs", "1", "--max-steps", str(args.max_steps),
               "--config", config, "--json"]
    out = subprocess.run(command, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"the {config} run failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])[0]


def summary(name: str, rows: list[dict[str, Any]]) -> dict[str, float]:
    total = {key: sum(float(r[key]) for r in rows) / len(rows) for key in
             ("seconds", "read", "cached", "written", "read_s", "write_s", "podium_s", "calls", "peak_rss_mb",
              "guessed", "kept")}
    total["passed"] = sum(r["passed"] for r in rows)
    return total


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="local", help="model spec (default: the embedded default model)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--max-steps", type=int, default=30, help="steps per request (the smoke test uses 2)")
    parser.add_argument("--compare", action="store_true",
                        help="also run the embedded model without prefix cache and prompt lookup, interleaved")
    parser.add_argument("--warm", action="store_true",
                        help="first read the agents' instructions ahead, as podium warm does at install")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--log", type=Path, help="append every model call (prompt, raw answer, time) as JSON lines")
    parser.add_argument("--config", choices=["podium", "baseline", "warm"], default="podium", help=argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # child: print the rows as JSON
    args = parser.parse_args()
    if args.json and args.config == "warm":
        print(json.dumps([await warm_here(args)]))
        return
    if args.json:
        rows = await run_here(args, BASELINE if args.config == "baseline" else {})
        print(json.dumps(rows))
        return
    configs = ["podium", "baseline"] if args.compare else ["podium"]
    results: dict[str, list[dict[str, Any]]] = {c: [] for c in configs}
    if args.warm:
        ahead = child(args, "warm")
        print(f"podium warm: {ahead['read']:,} tokens read in {ahead['read_s']} s ({ahead['seconds']} s in all, "
              f"the model's loading included): " + ", ".join(f"{a} {o} ({t:,} tokens)" for a, o, t, _ in
                                                             ahead["agents"]), flush=True)
    print(HEADER, flush=True)
    for n in range(1, args.runs + 1):
        for config in configs:
            if args.compare:
                row = child(args, config)
            else:
                row = (await run_here(argparse.Namespace(**{**vars(args), "runs": 1}), {}))[0]
            results[config].append(row)
            print(show_row(config, n, row), flush=True)
    for config, rows in results.items():
        mean = summary(config, rows)
        share = mean["cached"] / mean["read"] if mean["read"] else 0.0
        print(f"{config}: {int(mean['passed'])} of {len(rows)} runs passed; per run {mean['seconds']:.1f} s, "
              f"{mean['calls']:.1f} model calls, {mean['read']:.0f} tokens read ({share:.0%} from cache), "
              f"{mean['written']:.0f} written, {mean['read_s']:.1f} s reading, {mean['write_s']:.1f} s writing, "
              f"{mean['podium_s']:.1f} s in podium, peak RSS {mean['peak_rss_mb']:.0f} MB; prompt lookup kept "
              f"{mean['kept']:.0f} of {mean['guessed']:.0f} guessed tokens")
    if args.compare:
        fast, slow = summary("podium", results["podium"]), summary("baseline", results["baseline"])
        ratios = ", ".join(f"{label} x{slow[key] / fast[key]:.2f}" for key, label in
                           (("seconds", "end to end"), ("read_s", "reading"), ("write_s", "writing"))
                           if fast[key] > 0)
        print(f"baseline / podium: {ratios}")


if __name__ == "__main__":
    asyncio.run(main())
