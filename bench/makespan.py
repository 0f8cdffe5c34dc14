"""Makespan of the HostAgent's subtask graphs, against the critical path and against one-at-a-time.

Random subtask graphs run on the real host strategy and session with scripted models that take a fixed,
known time per step (ScriptedBackend delays), so the ideal schedule is known exactly:

- lower bound: planner steps (plan + verify) + max(longest dependency chain, busiest AppAgent's total work).
  With one subtask per application the second term never binds and the bound is the critical path.
- policy: the host's own scheduling policy simulated with zero overhead (how much of the gap is the
  policy, how much the runtime).
- one at a time (what UFO² does: one AppAgent works at a time): the same subtasks, measured in the same
  run with every subtask made to depend on the previous one; its excess over the ideal serial time gives
  the runtime's overhead per step (prompt building, JSON, validation, session, agents).

Target: makespan within 1.1x of the lower bound. Not run in CI:

    .venv/bin/python bench/makespan.py [--graphs 5] [--subtasks 12] [--seed 1] [--step 0.05]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import statistics
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from podium.apps.base import Tool, ToolResult
from podium.backends.scripted import Say, ScriptedBackend
from podium.desktop import HostConfig, run_request


class Lane:
    """The smallest real application: one tool that does nothing (the model's latency is the work)."""

    description = "a lane of work"

    def __init__(self, name: str) -> None:
        self.name = name

    def tools(self) -> list[Tool]:
        return [Tool("work", "do one step of work", read_only=True)]

    def is_sensitive(self, tool: str, arguments: Mapping[str, Any]) -> bool:
        return False

    async def call(self, tool: str, arguments: Mapping[str, Any]) -> ToolResult:
        return ToolResult("done")

    async def is_running(self) -> bool:
        return True

    async def launch(self) -> None:
        return None


@dataclass(frozen=True)
class Node:
    id: str
    app: str
    deps: tuple[str, ...]
    steps: tuple[float, ...]  # the model's latency of each AppAgent step

    @property
    def work(self) -> float:
        return sum(self.steps)


def random_graph(rng: random.Random, n: int, apps: int, edge_p: float, step: float) -> list[Node]:
    nodes = []
    for i in range(n):
        deps = tuple(f"t{j}" for j in range(i) if rng.random() < edge_p)
        steps = tuple(step * rng.choice((1, 1.5, 2)) for _ in range(rng.randint(1, 3)))
        nodes.append(Node(f"t{i}", f"lane{rng.randrange(apps)}", deps, steps))
    return nodes


def chained(nodes: list[Node]) -> list[Node]:
    """The same subtasks, one at a time."""
    return [Node(n.id, n.app, (nodes[i - 1].id,) if i else (), n.steps) for i, n in enumerate(nodes)]


def bounds(nodes: list[Node]) -> tuple[float, float]:
    finish: dict[str, float] = {}
    for node in nodes:  # ids are topologically ordered
        finish[node.id] = node.work + max((finish[d] for d in node.deps), default=0.0)
    load: dict[str, float] = {}
    for node in nodes:
        load[node.app] = load.get(node.app, 0.0) + node.work
    return max(finish.values()), max(load.values())


def simulate(nodes: list[Node]) -> float:
    """The host's own policy with zero overhead: ready subtasks start as soon as their application's
    AppAgent is free, the longest chain of dependants first (by count: the host knows no durations)."""
    children: dict[str, list[str]] = {n.id: [] for n in nodes}
    for n in nodes:
        for d in n.deps:
            children[d].append(n.id)
    depth: dict[str, int] = {}
    for n in reversed(nodes):
        depth[n.id] = 1 + max((depth[c] for c in children[n.id]), default=0)
    by_id = {n.id: n for n in nodes}
    done: dict[str, float] = {}
    busy: dict[str, float] = {}  # app -> time it frees up
    running: dict[str, float] = {}  # id -> finish time
    now = 0.0
    while len(done) < len(nodes):
        ready = [n for n in nodes if n.id not in done and n.id not in running and all(d in done for d in n.deps)]
        for n in sorted(ready, key=lambda n: -depth[n.id]):
            if busy.get(n.app, 0.0) <= now and not any(by_id[r].app == n.app for r in running):
                running[n.id] = now + n.work
                busy[n.app] = running[n.id]
        now = min(running.values())
        for rid in [r for r, t in running.items() if t <= now]:
            done[rid] = running.pop(rid)
    return max(done.values())


def _field(pattern: str, text: str) -> str:
    match = re.search(pattern, text)
    return match.group(1) if match else ""


async def run_graph(nodes: list[Node], planner_step: float) -> float:
    by_id = {n.id: n for n in nodes}
    plan = json.dumps({"Status": "ASSIGN", "Comment": "go", "Subtasks": [
        {"id": n.id, "description": f"do {n.id}", "application": n.app, "depends_on": list(n.deps),
         "tools": ["work"], "hands_on": "text"} for n in nodes]})
    finish = json.dumps({"Status": "FINISH", "Comment": "all done"})

    def planner(prompt: str) -> Say:
        return Say(finish if "Every subtask has ended" in prompt else plan, delay=planner_step)

    def worker(prompt: str) -> Say:
        node = by_id[_field(r"## Your subtask \(([^)]*)\)", prompt)]
        step = int(_field(r"This is step (\d+) of the subtask", prompt))
        last = step >= len(node.steps)
        body = {"status": "FINISH" if last else "CONTINUE", "actions": [{"function": "work", "arguments": {}}],
                "result": f"{node.id} done" if last else None}
        return Say(json.dumps(body), delay=node.steps[step - 1])

    apps = sorted({n.app for n in nodes})
    config = HostConfig(max_steps=10_000, max_subtask_steps=100)
    started = time.perf_counter()
    result = await run_request("run the graph", [Lane(a) for a in apps], ScriptedBackend(planner),
                               app_models={a: ScriptedBackend(worker) for a in apps}, config=config,
                               turn_timeout=None)
    elapsed = time.perf_counter() - started
    if not result.ok:
        raise SystemExit(f"the run failed: {result.reason}")
    return elapsed


async def scenario(title: str, args: argparse.Namespace, apps: int | None) -> list[dict[str, float]]:
    rng = random.Random(args.seed)
    rows = []
    print(f"\n{title}")
    print(f"{'graph':>5} {'lower bd':>9} {'crit path':>9} {'policy':>8} {'makespan':>9} {'ratio':>6} "
          f"{'one-at-a-time':>13} {'speed-up':>8} {'overhead/step':>13}")
    for g in range(args.graphs):
        nodes = random_graph(rng, args.subtasks, apps or args.subtasks, args.edges, args.step)
        if apps is None:  # one application per subtask: the dependency chain is the only constraint
            nodes = [Node(n.id, f"lane{i}", n.deps, n.steps) for i, n in enumerate(nodes)]
        path, load = bounds(nodes)
        overhead = 2 * args.planner
        lower = overhead + max(path, load)
        policy = overhead + simulate(nodes)
        makespan = await run_graph(nodes, args.planner)
        serial = await run_graph(chained(nodes), args.planner)
        steps = sum(len(n.steps) for n in nodes) + 2
        per_step = (serial - overhead - sum(n.work for n in nodes)) / steps
        row = {"lower": lower, "path": overhead + path, "policy": policy, "makespan": makespan,
               "ratio": makespan / lower, "serial": serial, "speedup": serial / makespan, "per_step": per_step}
        rows.append(row)
        print(f"{g:>5} {lower:>8.3f}s {row['path']:>8.3f}s {policy:>7.3f}s {makespan:>8.3f}s {row['ratio']:>6.3f} "
              f"{serial:>12.3f}s {row['speedup']:>7.2f}x {per_step * 1000:>10.2f} ms")
    ratios = [r["ratio"] for r in rows]
    print(f"makespan / lower bound: median {statistics.median(ratios):.3f}, worst {max(ratios):.3f} "
          f"(target <= 1.10); makespan / the policy's own zero-overhead schedule: median "
          f"{statistics.median(r['makespan'] / r['policy'] for r in rows):.3f}; speed-up over one at a time: "
          f"median {statistics.median(r['speedup'] for r in rows):.2f}x")
    return rows


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graphs", type=int, default=5)
    parser.add_argument("--subtasks", type=int, default=12)
    parser.add_argument("--apps", type=int, default=4, help="applications in the shared-applications scenario")
    parser.add_argument("--edges", type=float, default=0.2, help="probability of each possible dependency")
    parser.add_argument("--step", type=float, default=0.05, help="model latency of one AppAgent step (s)")
    parser.add_argument("--planner", type=float, default=0.05, help="model latency of one planner step (s)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"{args.graphs} random graphs of {args.subtasks} subtasks, 1-3 steps each of {args.step}-"
          f"{2 * args.step}s, planner steps {args.planner}s, dependency probability {args.edges}")
    await scenario("one application per subtask (bound = critical path)", args, None)
    await scenario(f"{args.apps} applications shared by the subtasks (one AppAgent each, one subtask at a time)",
                   args, args.apps)


if __name__ == "__main__":
    asyncio.run(main())
