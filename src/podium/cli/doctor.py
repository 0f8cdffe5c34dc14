"""`podium doctor`: the embedded model on this machine. Which model and file, how long it takes to load,
how fast it reads a prompt and writes an answer here (a short real measurement, a few seconds), and what
the seed's request would cost at those speeds.

The estimate uses the seed's request as bench/seed_local.py measured it (SEED below: calls, tokens read,
the share the prefix cache served, tokens written); the speeds are this machine's, measured now.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from podium.errors import ConfigError


@dataclass(frozen=True, slots=True)
class RequestProfile:
    """What one request costs the model, in tokens, as measured on the default model."""

    calls: int
    read: int
    cached_share: float  # of `read`, served from the prefix cache
    written: int


# bench/seed_local.py on the default model (Qwen2.5-Coder-1.5B Q4_K_M), 2 cores: see the README's Performance.
# A first run after `podium warm`, and a later one, which starts from the states the first left on disk.
SEED = RequestProfile(calls=4, read=12_161, cached_share=0.81, written=531)
SEED_LATER = RequestProfile(calls=4, read=12_161, cached_share=0.99, written=531)

_READ_TEXT = ("A quarterly report lists revenue and costs for each region. The finance team checks the table, "
              "copies it into the budget workbook, and draws a bar chart of revenue against costs. ")
_WRITE_PROMPT = "Write the numbers from 1 to 200, separated by commas, and nothing else."


@dataclass(frozen=True, slots=True)
class Measurement:
    model: str
    file: Path | None
    file_bytes: int
    load_s: float
    threads: str
    read_tokens: int
    read_s: float
    written_tokens: int
    write_s: float
    cache_bytes: int

    @property
    def read_rate(self) -> float:
        return self.read_tokens / self.read_s if self.read_s > 0 else 0.0

    @property
    def write_rate(self) -> float:
        return self.written_tokens / self.write_s if self.write_s > 0 else 0.0

    def estimate(self, profile: RequestProfile) -> tuple[float, float]:
        """Seconds reading and writing `profile` at these speeds (the cache serving its usual share)."""
        fresh = profile.read * (1 - profile.cached_share)
        reading = fresh / self.read_rate if self.read_rate else float("inf")
        writing = profile.written / self.write_rate if self.write_rate else float("inf")
        return reading, writing


async def measure(spec: str, settings: dict[str, Any], *, read_tokens: int = 400,
                  write_tokens: int = 48) -> Measurement:
    """Load the model (timed), then read a fresh prompt of about `read_tokens` and write `write_tokens`."""
    from podium.agent.backend import Prompt
    from podium.agent.events import EventKind
    from podium.backends import backend_from_spec, parse_spec
    from podium.backends.embedded import EmbeddedBackend

    parsed = parse_spec(spec)
    if parsed.provider.value != "local":
        raise ConfigError(f"podium doctor measures the embedded model (local or local:/path/model.gguf), not {spec}")
    backend: EmbeddedBackend = backend_from_spec(spec, **settings)
    loaded = await backend.load()
    path = backend.model_path or backend._resolve()
    session = await backend.start_session({})

    async def usage(prompt: Prompt) -> dict[str, Any]:
        found: dict[str, Any] = {}
        async for event in backend.prompt(session, prompt):
            if event.kind is EventKind.USAGE:
                found = dict(event.data)
            elif event.kind is EventKind.ERROR:
                raise ConfigError(f"the model failed while being measured: {event.data.get('detail')}")
        return found

    # A text of its own (a nonce first), so that no cached prefix makes reading look faster than it is.
    words = f"{uuid.uuid4().hex}. " + _READ_TEXT * max(1, read_tokens // 35)
    read = await usage(Prompt(words, max_tokens=1, temperature=0.0))
    written = await usage(Prompt(f"{uuid.uuid4().hex[:6]}: {_WRITE_PROMPT}", max_tokens=write_tokens,
                                 temperature=0.0))
    fresh = int(read.get("input_tokens", 0)) - int(read.get("cached_tokens", 0))
    return Measurement(
        model=spec, file=path, file_bytes=path.stat().st_size if path.is_file() else 0,
        load_s=loaded.load_seconds, threads=loaded.threads.describe(), read_tokens=fresh,
        read_s=float(read.get("read_ms", 0.0)) / 1000, written_tokens=int(written.get("output_tokens", 0)),
        write_s=float(written.get("write_ms", 0.0)) / 1000,
        cache_bytes=0 if loaded.decoder.cache is None else loaded.decoder.cache.capacity)


def report(m: Measurement, out: Console) -> None:
    from podium.backends.machine import this_machine

    machine = this_machine()
    memory = f", {machine.available_bytes / 2**30:.1f} GB memory free" if machine.available_bytes else ""
    name = "local (the default model)" if m.model == "local" else "local"
    out.print(f"[bold]model[/]    {name}: {escape(str(m.file))} ({m.file_bytes / 2**20:,.0f} MB)")
    out.print(f"[bold]machine[/]  {machine.physical_cores} physical cores ({machine.logical_cores} logical){memory}; "
              f"{m.threads}")
    out.print(f"[bold]load[/]     {m.load_s:.1f} s")
    out.print(f"[bold]reading[/]  {m.read_rate:,.0f} tokens/s ({m.read_tokens} tokens in {m.read_s:.2f} s)")
    out.print(f"[bold]writing[/]  {m.write_rate:,.1f} tokens/s ({m.written_tokens} tokens in {m.write_s:.2f} s; "
              "answers that copy their prompt go faster with prompt lookup)")
    out.print(f"[bold]cache[/]    up to {m.cache_bytes / 2**20:,.0f} MB of evaluated prefixes"
              if m.cache_bytes else "[bold]cache[/]    off (cache_bytes = 0)")
    reading, writing = m.estimate(SEED)
    out.print(f"[bold]the seed's request[/] ({SEED.calls} model calls, {SEED.read:,} tokens read of which "
              f"{SEED.cached_share:.0%} from the cache, {SEED.written:,} written): about "
              f"{reading + writing:,.0f} s of model time here ({reading:,.0f} s reading, {writing:,.0f} s writing)")
    reading, writing = m.estimate(SEED_LATER)
    out.print(f"   and once its prompts' states are on disk ({SEED_LATER.cached_share:.0%} from the cache): about "
              f"{reading + writing:,.0f} s")


def doctor(
    model: Annotated[str | None, typer.Option("--model", "-m", help="The embedded model to measure: local or "
                                              "local:/path/model.gguf (default: [models] planner, else local).",
                                              show_default=False)] = None,
    config: Annotated[Path | None, typer.Option("--config", help="podium.toml to use (default: ./podium.toml, "
                                                "then the user's config folder)", show_default=False)] = None,
) -> None:
    """Measure the embedded model on this machine: file, load time, reading and writing speed, and what the
    seed's request would cost."""
    from podium.cli.app import _out
    from podium.cli.config import load_config
    from podium.cli.models import choose_models

    loaded = load_config(config)
    spec = choose_models(loaded, model).planner
    out = _out()
    started = time.perf_counter()
    out.print(f"Measuring {escape(spec)} (loading it, then a short prompt and answer)...")
    measured = asyncio.run(measure(spec, loaded.backend_settings("local")))
    report(measured, out)
    out.print(f"[dim]measured in {time.perf_counter() - started:.1f} s[/]")
