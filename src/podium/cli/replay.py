"""`podium replay RUN`: every decision of a recorded desktop run derived again from its record, with no
model and no application; the first step where the strategy now decides otherwise is printed with both
sides."""

from __future__ import annotations

import difflib
import json
from typing import Any

from rich.console import Console
from rich.markup import escape

from podium.cli.records import resolve
from podium.errors import ConfigError
from podium.journal import codec, replay


def replay_run(store: Any, ident: str, console: Console) -> bool:
    """True when every step decides as recorded."""
    from podium.desktop import HostStrategy
    from podium.desktop.shell.records import STRATEGY_RECORD, strategy_options

    record = resolve(store, ident)
    options = store.get(record.name, STRATEGY_RECORD)
    if options is None:
        raise ConfigError(f"run {record.name} kept no strategy options to replay with (not a desktop run, or "
                          "recorded by an older podium)")
    entries = store.entries(record.name)
    steps = replay(HostStrategy(), strategy_options(options), entries)
    for step in steps:
        if step.matches:
            continue
        console.print(f"[red]divergence[/] at entry {step.seq} of {len(entries)} ({type(step.input).__name__}"
                      f"{_who(step.input)}):")
        if step.error is not None:
            console.print(f"the strategy now fails on it: {escape(step.error)}", soft_wrap=True)
        recorded = _lines(json.loads(step.recorded))
        now = _lines(json.loads(codec.dumps(step.ops)))
        diff = list(difflib.unified_diff(recorded, now, "recorded", "replayed", n=2, lineterm=""))
        for line in diff[:60]:
            style = "red" if line.startswith("-") else "green" if line.startswith("+") else "dim"
            console.print(f"[{style}]{escape(line)}[/]", soft_wrap=True)
        if len(diff) > 60:
            console.print(f"[dim]... {len(diff) - 60} more lines[/]")
        return False
    console.print(f"no divergence: {len(steps)} entries of run {record.name} decided as recorded, no model called")
    return True


def _lines(value: Any) -> list[str]:
    return json.dumps(_expanded(value), indent=1, ensure_ascii=False, sort_keys=True).splitlines()


def _expanded(value: Any) -> Any:
    """JSON held in strings (a step's prompt is JSON text) opened up, so a diff points at the value."""
    if isinstance(value, str) and value[:1] in "{[":
        try:
            return _expanded(json.loads(value))
        except ValueError:
            return value
    if isinstance(value, dict):
        return {k: _expanded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_expanded(v) for v in value]
    return value


def _who(input: Any) -> str:
    agent = getattr(input, "agent", None)
    return f" from {agent}" if agent else ""
