"""The seed's example on a real model: how often does it end with the right file?

Each run builds a fresh folder (report.docx holding a table, an empty budget.xlsx), runs the HostAgent in
batch mode on "Extract the table from report.docx and create a bar chart of it in budget.xlsx" with the
real documents and spreadsheets applications, then opens budget.xlsx: it passes when the sheet holds the
table's values and the workbook holds a native bar chart. Target on the embedded default model: at least
4 passes in 5 runs. Not run in CI (minutes of CPU per run):

    .venv/bin/python bench/seed_local.py [--model local] [--runs 5] [--verbose]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

import docx
import openpyxl

from podium.agent.backend import BaseBackend, prompt_text
from podium.agent.events import Event
from podium.apps.documents import DocumentsApplication
from podium.apps.spreadsheets import SpreadsheetsApplication
from podium.apps.workspace import Workspace
from podium.backends import backend_from_spec
from podium.desktop import Progress, run_request
from podium.desktop.host_session import batch

TABLE = [["Quarter", "Revenue"], ["Q1", "120"], ["Q2", "135"], ["Q3", "150"], ["Q4", "160"]]
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


def make_folder(root: Path) -> None:
    document = docx.Document()
    document.add_paragraph("Quarterly report")
    table = document.add_table(rows=len(TABLE), cols=2)
    for r, row in enumerate(TABLE):
        for c, text in enumerate(row):
            table.cell(r, c).text = text
    document.save(str(root / "report.docx"))
    openpyxl.Workbook().save(str(root / "budget.xlsx"))


def check(root: Path) -> tuple[bool, str]:
    path = root / "budget.xlsx"
    try:
        workbook = openpyxl.load_workbook(path)
    except Exception as exc:
        return False, f"budget.xlsx does not open: {exc}"
    values = {str(cell.value).strip() for sheet in workbook.worksheets for row in sheet.iter_rows()
              for cell in row if cell.value is not None}
    missing = [v for row in TABLE for v in row if v not in values]
    if missing:
        return False, f"budget.xlsx lacks {missing[:4]}"
    with zipfile.ZipFile(path) as package:
        charts = [package.read(n).decode() for n in package.namelist() if re.match(r"xl/charts/chart\d+\.xml", n)]
    if not any("barChart" in xml for xml in charts):
        return False, f"no bar chart in budget.xlsx ({len(charts)} chart(s))"
    return True, "table data and a bar chart"


async def one_run(model: Any, verbose: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="podium-seed-") as folder:
        root = Path(folder)
        make_folder(root)
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
