"""The seed's example on a real model: how often does it end with the right file?

Each run builds a fresh folder (the quarterly example's report.docx and budget.xlsx, as the README's
first command makes them), runs the HostAgent in batch mode on "Extract the table from report.docx and
create a bar chart of it in budget.xlsx" with the real documents and spreadsheets applications, then
judges budget.xlsx with the task suite's checker of the same task: the table in the workbook, and a
native bar chart plotting its numbers. Target on the embedded default model: at least 4 passes in 5
runs. Not run in CI (minutes of CPU per run):

    .venv/bin/python bench/seed_local.py [--model local] [--runs 5] [--verbose]
"""

from __future__ import annotations

import argparse
import asyncio
import json
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
from podium.desktop import Progress, batch, run_request

if __package__ in (None, ""):  # run as a script: make `bench.tasks` importable from the repository root
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.tasks.suite import seed as seed_task
from bench.tasks.task import EndState

REQUEST = "Extract the table from report.docx and create a bar chart of it in budget.xlsx"


class Recording(BaseBackend):
    """Passes every call to `inner` and appends one JSON line per model call to `path`: the prompt, the
    raw answer, the seconds it took. What a small model really answers is what the orchestrator must
    be tolerant of: read these lines, not guesses."""

    def __init__(self, inner: Any, path: Path) -> None:
        self.inner = inner
        self.path = path

    async def start_session(self, opts: Any) -> Any:
        return await self.inner.start_session(opts)

    async def update_session(self, session: Any, terminal: Event) -> Any:
        return await self.inner.update_session(session, terminal)

    async def terminate_session(self, session: Any) -> None:
        await self.inner.terminate_session(session)

    async def prompt(self, session: Any, prompt: Any) -> Any:  # type: ignore[override]
        started = time.perf_counter()
        events = []
        async for event in self.inner.prompt(session, prompt):
            events.append(event)
            if event.terminal:  # the caller closes the stream at the terminal event: write before it
                self._write(prompt, events, started)
            yield event

    def _write(self, prompt: Any, events: list[Event], started: float) -> None:
        last = events[-1] if events else None
        usage = next((e.data for e in reversed(events) if e.kind.value == "usage"), {})
        line = {"system": getattr(prompt, "system", None), "user": prompt_text(prompt),
                "temperature": getattr(prompt, "temperature", None),
                "answer": "".join(e.data.get("text", "") for e in events if e.kind.value == "text"),
                "end": None if last is None else last.kind.value,
                "detail": None if last is None or last.kind.value != "error" else str(last.data.get("detail")),
                "seconds": round(time.perf_counter() - started, 1),
                "input_tokens": usage.get("input_tokens"), "output_tokens": usage.get("output_tokens")}
        with self.path.open("a") as log:
            log.write(json.dumps(line, default=str) + "\n")


def check(root: Path) -> tuple[bool, str]:
    """The task suite's checker of the seed's example (bench/tasks/suite/seed.py): the table in
    budget.xlsx and a native bar chart plotting its numbers (numbers, not text that looks like one)."""
    try:
        return True, seed_task.check(EndState(root, {}))
    except Exception as exc:  # Fail, or a file that does not open: the reason is the verdict
        return False, str(exc)


async def one_run(model: Any, verbose: bool) -> dict[str, Any]:
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

        started = time.perf_counter()
        result = await run_request(REQUEST, apps, model, config=batch(max_steps=30, max_subtask_steps=8),
                                   on_event=show)
        seconds = time.perf_counter() - started
        passed, why = check(root)
        if not result.ok:
            why = f"{result.status}: {result.reason}; {why}"
        return {"passed": passed, "why": why, "steps": result.steps, "seconds": seconds,
                "tokens": result.usage.get("input_tokens", 0) + result.usage.get("output_tokens", 0)}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="local", help="model spec (default: the embedded default model)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--log", type=Path, help="append every model call (prompt, raw answer, time) as JSON lines")
    args = parser.parse_args()
    model = backend_from_spec(args.model)
    if args.log is not None:
        model = Recording(model, args.log)
    rows = []
    print(f"{'run':>3} {'result':<6} {'steps':>5} {'tokens':>7} {'seconds':>8}  why")
    for n in range(1, args.runs + 1):
        row = await one_run(model, args.verbose)
        rows.append(row)
        print(f"{n:>3} {'pass' if row['passed'] else 'FAIL':<6} {row['steps']:>5} {row['tokens']:>7} "
              f"{row['seconds']:>7.1f}s  {row['why']}", flush=True)
    passes = sum(r["passed"] for r in rows)
    print(f"{passes} of {len(rows)} runs passed (target: at least 4 of 5) with model {args.model!r}")


if __name__ == "__main__":
    asyncio.run(main())
