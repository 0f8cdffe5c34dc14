"""The cost of the sandbox: every shell command runs in bubblewrap, with limits set by prlimit inside.

Measured in one run, interleaved so that both see the same load:
- per command: the shell application's run_command on the same commands, sandboxed (the default) and with
  the configuration's opt-out (`sandbox = "off"`), median and p95 of each, and the difference;
- its share of a desktop run: the same request run through the HostAgent with a scripted model (no model
  latency at all: the worst case for the share), sandboxed and not; and, as arithmetic, the share of a run
  on the embedded model, whose steps take tens of seconds (README, the seed's example).

Target: at most 10 ms per command. Not run in CI (the tests run it once at a tiny size):

    .venv/bin/python bench/sandbox.py [--commands 200] [--runs 10]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

from podium.apps import sandbox as sandboxes
from podium.apps.registry import build_applications
from podium.apps.sandbox import Sandbox
from podium.apps.shell import ShellApplication
from podium.apps.workspace import Workspace
from podium.backends.scripted import Say, ScriptedBackend
from podium.desktop import batch, run_request

COMMANDS = ["cat notes.txt", "wc -l notes.txt", "ls -la", "grep -c budget notes.txt", "sort notes.txt"]
REQUEST = "Count the lines of notes.txt, list the folder and count the lines that mention the budget"
SEED_RUN_SECONDS = 291  # the seed's example on the embedded model, fastest of its runs (README, Performance)
SEED_COMMANDS = 6  # as if every one of its steps ran a command


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def folder() -> Path:
    root = Path(tempfile.mkdtemp(prefix="podium-bench-sandbox-"))
    (root / "notes.txt").write_text("".join(f"line {i}: the budget for item {i}\n" for i in range(200)))
    return root


async def per_command(rounds: int) -> dict[str, list[float]]:
    """Seconds per run_command, sandboxed and not, the two interleaved command by command."""
    workspace = Workspace.at(folder())
    shells = {"sandboxed": ShellApplication(workspace, sandbox=Sandbox()),
              "plain": ShellApplication(workspace, sandbox=Sandbox(enabled=False))}
    times: dict[str, list[float]] = {name: [] for name in shells}
    for warm in shells.values():  # the first start of each loads its program's pages
        await warm.call("run_command", {"command": "true"})
    for index in range(rounds):
        command = COMMANDS[index % len(COMMANDS)]
        for name, shell in (shells.items() if index % 2 else reversed(shells.items())):
            started = time.perf_counter()
            result = await shell.call("run_command", {"command": command})
            times[name].append(time.perf_counter() - started)
            assert result.ok, (name, command, result.error)
    return times


SCRIPTED_COMMANDS = ("wc -l notes.txt", "ls -la", "grep -c budget notes.txt")


def planner(prompt: str) -> Say:
    if "Every subtask has ended" in prompt:
        return Say(json.dumps({"Status": "FINISH", "Comment": "counted", "Subtasks": []}))
    return Say(json.dumps({"Status": "ASSIGN", "Comment": "one subtask", "Subtasks": [
        {"id": "1", "description": REQUEST, "application": "shell", "depends_on": [], "reads": ["notes.txt"],
         "writes": [], "tools": ["run_command"], "hands_on": "text"}]}))


def shell_agent(prompt: str) -> Say:
    """One command per step, then FINISH: the AppAgent's answers as a model would give them."""
    found = re.search(r"This is step (\d+) of the subtask", prompt)
    step = int(found.group(1)) if found else 1
    if step > len(SCRIPTED_COMMANDS):
        return Say(json.dumps({"status": "FINISH", "actions": [], "result": "the counts and the listing"}))
    return Say(json.dumps({"status": "CONTINUE", "actions": [
        {"function": "run_command", "arguments": {"command": SCRIPTED_COMMANDS[step - 1]}}]}))


async def desktop_runs(runs: int) -> dict[str, list[float]]:
    """Seconds per whole request through the HostAgent (scripted model), sandboxed and not, interleaved."""
    times: dict[str, list[float]] = {"sandboxed": [], "plain": []}
    for index in range(runs):
        for mode in (("sandboxed", "plain") if index % 2 else ("plain", "sandboxed")):
            apps = build_applications({"workspace": str(folder()), "enabled": ["shell"],
                                       "shell": {"sandbox": "on" if mode == "sandboxed" else "off"}})
            started = time.perf_counter()
            result = await run_request(REQUEST, list(apps.values()), ScriptedBackend(planner),
                                       app_models=ScriptedBackend(shell_agent), config=batch(max_steps=20))
            times[mode].append(time.perf_counter() - started)
            if not result.ok:
                raise SystemExit(f"the {mode} run failed: {result.reason}")
    return times


def report(commands: dict[str, list[float]], runs: dict[str, list[float]]) -> dict[str, float]:
    ms = {name: [t * 1000 for t in values] for name, values in commands.items()}
    median = {name: statistics.median(values) for name, values in ms.items()}
    p95 = {name: percentile(values, 0.95) for name, values in ms.items()}
    cost = median["sandboxed"] - median["plain"]
    run_median = {name: statistics.median(values) for name, values in runs.items()}
    scripted_share = (run_median["sandboxed"] - run_median["plain"]) / run_median["sandboxed"]
    seed_share = cost / 1000 * SEED_COMMANDS / SEED_RUN_SECONDS
    print(sandboxes.describe())
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")
    print(f"per command ({len(ms['plain'])} each, {', '.join(COMMANDS)}):")
    print("| measure | sandboxed | plain | difference | ratio | target |")
    print("|---|---|---|---|---|---|")
    print(f"| median | {median['sandboxed']:.1f} ms | {median['plain']:.1f} ms | {cost:.1f} ms | "
          f"{median['sandboxed'] / median['plain']:.2f}x | <= 10 ms: {'met' if cost <= 10 else 'MISSED'} |")
    print(f"| p95 | {p95['sandboxed']:.1f} ms | {p95['plain']:.1f} ms | {p95['sandboxed'] - p95['plain']:.1f} ms | "
          f"{p95['sandboxed'] / p95['plain']:.2f}x | |")
    print(f"desktop run, scripted model, 3 commands ({len(runs['plain'])} each): sandboxed "
          f"{run_median['sandboxed'] * 1000:.0f} ms, plain {run_median['plain'] * 1000:.0f} ms, the sandbox's share "
          f"{scripted_share:.1%}")
    print(f"desktop run on the embedded model ({SEED_COMMANDS} commands in {SEED_RUN_SECONDS} s): the sandbox's "
          f"share {seed_share:.4%}")
    return {"median_cost_ms": cost, "p95_sandboxed_ms": p95["sandboxed"], "scripted_share": scripted_share}


async def main(commands: int, runs: int) -> dict[str, float]:
    if not sandboxes.status().works:
        sys.exit(f"the sandbox is not available here: {sandboxes.status().problem}")
    return report(await per_command(commands), await desktop_runs(runs))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--commands", type=int, default=200)
    parser.add_argument("--runs", type=int, default=10)
    options = parser.parse_args()
    asyncio.run(main(options.commands, options.runs))

