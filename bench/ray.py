"""Agents on Ray: podium's RayRuntime against bare Ray actors, measured in the same run on a local Ray.

    python bench/ray.py                 # the three measures below, at full size
    python bench/ray.py --calls 20 --agents 2 --session-agents 6 --tells 60 --per-actor 3   # a smoke run

1. tell->reply round trip: `session.ask` through RayRuntime (Solo, zero-latency scripted backend, the
   agent in its own actor process) against a bare `await actor.echo.remote(text)`; best of 7 batches of
   sequential calls. Target: <= 1.5x.
2. starting N agents as actors: `Session.start` of N agents, one actor each, until every agent is
   ready, against creating N bare actors and awaiting one call on each.
3. load: a session of 200 agents (Pool, packed `--per-actor` agents per actor process) answering
   10,000 tells, every answer checked against its prompt: none may be lost. Baseline: the same
   10,000 requests as bare calls on as many bare actors, with as many in flight.

Not run in CI (a smoke run at a tiny size is, in tests/runtime/test_ray_bench.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as `python bench/ray.py`, this file's folder comes first on sys.path and would shadow the `ray` package.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import argparse  # noqa: E402
import asyncio  # noqa: E402
import gc  # noqa: E402
import time  # noqa: E402
from collections.abc import Awaitable, Callable, Mapping  # noqa: E402
from typing import Any  # noqa: E402

import ray  # noqa: E402
from podium import AgentSpec, Behaviour, Pool, Session, Solo, Strategy  # noqa: E402
from podium.backends.scripted import ScriptedBackend  # noqa: E402
from podium.runtime.ray import RayRuntime  # noqa: E402


def echo(prompt: str) -> str:
    return prompt


@ray.remote(num_cpus=0)
class Echo:
    async def echo(self, text: str) -> str:
        return text


async def best_us(call: Callable[[], Awaitable[object]], n: int, repeats: int = 7) -> float:
    """The best of `repeats` batches of the mean per-call cost of `n` sequential calls, in µs."""
    for _ in range(min(n, 50)):  # warm up
        await call()
    samples = []
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        for _ in range(n):
            await call()
        samples.append((time.perf_counter() - start) / n * 1e6)
    return min(samples)


async def round_trip(n: int, runtime: RayRuntime) -> tuple[float, float]:
    actor = Echo.remote()  # type: ignore[attr-defined]
    bare = await best_us(lambda: actor.echo.remote("ping"), n)
    ray.kill(actor)
    async with Session.start(Solo(backend=ScriptedBackend(echo)), runtime=runtime) as session:
        podium = await best_us(lambda: session.ask("ping", timeout=60), n)
    return podium, bare


class Idle(Strategy[None]):
    """Starts `n` agents that never get work: measures what starting them costs."""

    def init(self, opts: Mapping[str, Any]) -> Any:
        backend = opts["backend"]
        return None, [AgentSpec(f"a{i}", Behaviour(), {"backend": backend}) for i in range(opts["n"])]

    def handle_tell(self, prompt: Any, opts: Any, token: str, state: None) -> Any:
        return [], state

    def handle_response(self, agent: str, response: Any, state: None) -> Any:
        return [], state


async def start_cost(n: int, runtime: RayRuntime, rounds: int = 2) -> tuple[float, float]:
    """Seconds to have n agents ready as actors (podium), n bare actors answering a first call (bare);
    the best of `rounds`, alternating, so that neither pays alone for Ray warming up its worker pool."""
    podium, bare = float("inf"), float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        actors = [Echo.remote() for _ in range(n)]  # type: ignore[attr-defined]
        await asyncio.gather(*(a.echo.remote("ready?") for a in actors))
        bare = min(bare, time.perf_counter() - started)
        for actor in actors:
            ray.kill(actor)
        started = time.perf_counter()
        session = await Session.start(Idle(backend=ScriptedBackend(echo), n=n), runtime=runtime)
        podium = min(podium, time.perf_counter() - started)
        await session.stop()
    return podium, bare


async def load(agents: int, tells: int, per_actor: int) -> tuple[float, float, int]:
    """Seconds for `tells` tells to a Pool of `agents` packed `per_actor` to a process, and for the same
    requests as bare calls; the number of podium answers lost (missing or wrong)."""
    processes = -(-agents // per_actor)
    actors = [Echo.remote() for _ in range(processes)]  # type: ignore[attr-defined]
    await asyncio.gather(*(a.echo.remote("ready?") for a in actors))
    gate = asyncio.Semaphore(agents)  # as many in flight as the pool has workers

    async def one(i: int) -> str:
        async with gate:
            return await actors[i % processes].echo.remote(f"tell {i}")

    started = time.perf_counter()
    answers = await asyncio.gather(*(one(i) for i in range(tells)))
    bare = time.perf_counter() - started
    assert answers == [f"tell {i}" for i in range(tells)]
    for actor in actors:
        ray.kill(actor)

    runtime = RayRuntime(agents_per_actor=per_actor)
    worker = AgentSpec("w", Behaviour(), {"backend": ScriptedBackend(echo)})
    async with Session.start(Pool(worker_template=worker, worker_count=agents), runtime=runtime) as session:
        started = time.perf_counter()
        tokens = [session.tell(f"tell {i}") for i in range(tells)]
        results = await asyncio.gather(*(session.result(t, timeout=600) for t in tokens), return_exceptions=True)
        podium = time.perf_counter() - started
    lost = sum(1 for i, r in enumerate(results) if getattr(r, "text", None) != f"tell {i}")
    return podium, bare, lost


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300, help="sequential calls per batch (round trip)")
    parser.add_argument("--agents", type=int, default=16, help="agents started as actors (start cost)")
    parser.add_argument("--session-agents", type=int, default=200, help="agents of the load session")
    parser.add_argument("--tells", type=int, default=10_000, help="tells of the load session")
    parser.add_argument("--per-actor", type=int, default=50, help="agents per actor process in the load session")
    parser.add_argument("--cpus", type=int, default=2, help="CPUs of the local Ray instance")
    args = parser.parse_args()

    ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False, namespace="podium-bench")
    try:
        runtime = RayRuntime()
        trip, bare_trip = await round_trip(args.calls, runtime)
        start, bare_start = await start_cost(args.agents, runtime)
        busy, bare_busy, lost = await load(args.session_agents, args.tells, args.per_actor)
    finally:
        ray.shutdown()

    print(f"ray {ray.__version__}, python {sys.version.split()[0]}, local Ray with {args.cpus} CPUs\n")
    print("| measure | podium (RayRuntime) | bare Ray | ratio | target |")
    print("|---|---|---|---|---|")
    verdict = "ok" if trip / bare_trip <= 1.5 else "MISSED"
    print(f"| tell->reply round trip (best of 7 x {args.calls} calls) | {trip:,.0f} µs | {bare_trip:,.0f} µs | "
          f"{trip / bare_trip:.2f}x | <= 1.5x {verdict} |")
    per_agent = start / args.agents * 1000
    print(f"| start {args.agents} agents, one actor each (best of 2) | {start:.2f} s ({per_agent:,.0f} ms per agent) "
          f"| {bare_start:.2f} s | {start / bare_start:.2f}x | - |")
    processes = -(-args.session_agents // args.per_actor)
    verdict = "ok" if lost == 0 else "MISSED"
    print(f"| {args.tells:,} tells to {args.session_agents} agents ({processes} actor processes) | {busy:.2f} s "
          f"({args.tells / busy:,.0f}/s), {lost} lost | {bare_busy:.2f} s ({args.tells / bare_busy:,.0f}/s) | "
          f"{busy / bare_busy:.2f}x | none lost: {verdict} |")


if __name__ == "__main__":
    asyncio.run(main())
