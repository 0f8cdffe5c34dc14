"""What tracing a desktop run costs: the seed's example (real documents and spreadsheets applications on
files, the scripted model) run untraced, and traced to an OpenTelemetry SDK provider, in the same run.

    python bench/tracing.py             # 7 rounds of 5 runs of each variant
    python bench/tracing.py --runs 1 --rounds 1

Variants: untraced (the baseline); traced with no text (the default), to the SDK's in-memory exporter;
traced with the text (content=True), one span a line to a JSON-lines file, as `podium run` writes it.
The rounds alternate the variants, so that load from elsewhere hits them alike; each variant's figure
is its best round. Not run in CI: absolute numbers depend on the machine; the ratios are what we track.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib.util
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from podium.apps import build_applications
from podium.cli.script import load_script
from podium.desktop import HostSession, batch
from podium.telemetry import Tracing

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "quarterly"
REQUEST = "Extract the table from report.docx and create a bar chart of it in budget.xlsx"


def _make_files() -> Callable[[Path], Any]:
    spec = importlib.util.spec_from_file_location("make_files", EXAMPLE / "make_files.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.make_files  # type: ignore[no-any-return]


async def one_run(folder: Path, make_files: Callable[[Path], Any], tracing: Tracing | bool) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    make_files(folder)
    script = load_script(EXAMPLE / "scripted.json")
    apps = build_applications({"workspace": str(folder), "enabled": ["documents", "spreadsheets"]})
    await apps.start()
    try:
        app_models = {name: script.backend("app", name) for name in apps}
        async with await HostSession.start(list(apps.values()), script.backend("planner"), app_models=app_models,
                                           config=batch(), tracing=tracing) as host:
            result = await host.run(REQUEST)
        if not result.ok:
            raise SystemExit(f"the example's run failed: {result.reason}")
    finally:
        await apps.aclose()


async def main(runs: int, rounds: int) -> None:
    make_files = _make_files()
    root = Path(tempfile.mkdtemp(prefix="podium-bench-tracing-"))
    memory = InMemorySpanExporter()
    quiet = TracerProvider()
    quiet.add_span_processor(SimpleSpanProcessor(memory))
    lines = root / "trace.jsonl"
    handle = open(lines, "a", encoding="utf-8")  # noqa: SIM115 (closed at the end)
    to_file = TracerProvider()
    to_file.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter(
        out=handle, formatter=lambda span: span.to_json(indent=None) + "\n")))
    variants: dict[str, Tracing | bool] = {
        "untraced": False,
        "traced, no text (in memory)": Tracing(tracer_provider=quiet),
        "traced, with text (JSON lines file)": Tracing(content=True, tracer_provider=to_file),
    }
    best = {(name, clock): float("inf") for name in variants for clock in ("wall", "cpu")}
    try:
        for tracing in variants.values():  # warm up: imports, first file writes
            await one_run(root / "work", make_files, tracing)
        memory.clear()
        for _ in range(rounds):
            for name, tracing in variants.items():
                gc.collect()
                wall, cpu = time.perf_counter(), time.process_time()
                for _ in range(runs):
                    await one_run(root / "work", make_files, tracing)
                best[name, "wall"] = min(best[name, "wall"], (time.perf_counter() - wall) / runs * 1000)
                best[name, "cpu"] = min(best[name, "cpu"], (time.process_time() - cpu) / runs * 1000)
        spans = len(memory.get_finished_spans()) // (runs * rounds)
    finally:
        handle.close()
        shutil.rmtree(root, ignore_errors=True)
    print(f"the seed's example, scripted model, real documents and spreadsheets: best of {rounds} rounds "
          f"of {runs} runs; {spans} spans a traced run")
    print(f"{'variant':38} {'wall ms/run':>12} {'cpu ms/run':>12} {'wall ratio':>11} {'cpu ratio':>10}")
    for name in variants:
        wall, cpu = best[name, "wall"], best[name, "cpu"]
        print(f"{name:38} {wall:12.1f} {cpu:12.1f} {wall / best['untraced', 'wall']:10.2f}x "
              f"{cpu / best['untraced', 'cpu']:9.2f}x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="runs of each variant per round")
    parser.add_argument("--rounds", type=int, default=7, help="rounds (each variant's best is kept)")
    args = parser.parse_args()
    asyncio.run(main(args.runs, args.rounds))
