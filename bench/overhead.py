"""Orchestration overhead of podium, against a bare asyncio baseline measured in the same run.

    python bench/overhead.py            # round trip + memory per idle agent
    python bench/overhead.py --peers    # also the strategy shapes against LangGraph / AutoGen (bench extra)

Not run in CI: absolute numbers depend on the machine; the ratios are what we track.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from podium import AgentSpec, Behaviour, Session, Solo, Strategy
from podium.backends.scripted import ScriptedBackend

Clock = Callable[[], float]
CLOCKS: dict[str, Clock] = {"wall": time.perf_counter, "cpu": time.process_time}


async def best_us(calls: dict[str, Callable[[], Awaitable[object]]], n: int, repeats: int = 7
                  ) -> dict[tuple[str, str], float]:
    """For each call and clock (wall time, and the process's CPU time), the best of `repeats` batches of
    the mean cost of `n` sequential calls, in µs. The batches of the different calls alternate, so that
    a burst of load from elsewhere on the machine hits them alike, and the best batch is the one least
    disturbed by it; CPU time leaves out the time the process waited for a core: on a machine shared
    with other work, it is the cost that does not move with the load."""
    for call in calls.values():
        for _ in range(min(n, 200)):  # warm up
            await call()
    best = {(name, clock): float("inf") for name in calls for clock in CLOCKS}
    for _ in range(repeats):
        for name, call in calls.items():
            gc.collect()
            starts = {clock: read() for clock, read in CLOCKS.items()}
            for _ in range(n):
                await call()
            for clock, read in CLOCKS.items():
                best[name, clock] = min(best[name, clock], (read() - starts[clock]) / n * 1e6)
    return best


async def round_trips(n: int) -> dict[tuple[str, str], float]:
    """µs per call of a Solo session's ask ("podium") and of a bare asyncio 2-queue request/reply ("bare"),
    by clock."""
    requests: asyncio.Queue[str] = asyncio.Queue()
    replies: asyncio.Queue[str] = asyncio.Queue()

    async def server() -> None:
        while True:
            replies.put_nowait(await requests.get())

    async def bare() -> str:
        requests.put_nowait("ping")
        return await replies.get()

    task = asyncio.create_task(server())
    backend = ScriptedBackend(lambda prompt: "pong")
    try:
        async with Session.start(Solo(), backend=backend) as session:
            return await best_us({"podium": lambda: session.ask("ping"), "bare": bare}, n)
    finally:
        task.cancel()


class _Idle(Strategy[None]):
    """Starts `n` agents that never get work: measures what an idle agent costs."""

    def init(self, opts):  # type: ignore[no-untyped-def]
        backend, behaviour = opts["backend"], Behaviour()
        return None, [AgentSpec(f"a{i}", behaviour, {"backend": backend}) for i in range(opts["n"])]

    def handle_tell(self, prompt, opts, token, state):  # type: ignore[no-untyped-def]
        return [], state

    def handle_response(self, agent, response, state):  # type: ignore[no-untyped-def]
        return [], state


async def memory_per_agent(n: int) -> float:
    backend = ScriptedBackend(lambda prompt: "pong")
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    session = await Session.start(_Idle(), backend=backend, n=n)
    await asyncio.sleep(0)  # let the boot tasks finish and be freed
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert len(session.status()["agents"]) == n
    await session.stop()
    return (after - before) / n


def row(name: str, podium_us: float, base_name: str, base_us: float, target: float) -> str:
    ratio = podium_us / base_us
    verdict = "ok" if ratio <= target else "MISSED"
    return f"| {name} | {podium_us:,.1f} µs | {base_name} {base_us:,.1f} µs | {ratio:.2f}x | <= {target}x {verdict} |"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=5000, help="calls per batch")
    parser.add_argument("--agents", type=int, default=10_000, help="idle agents for the memory figure")
    parser.add_argument("--peers", action="store_true", help="also measure LangGraph / AutoGen shapes")
    args = parser.parse_args()

    trips = await round_trips(args.n)
    memory = await memory_per_agent(args.agents)
    print(f"python {sys.version.split()[0]}, best of 7 batches of {args.n} sequential calls, podium's and the "
          "baseline's batches alternating\n")
    print("| measure | podium | baseline | ratio | target |")
    print("|---|---|---|---|---|")
    print(row("tell->reply round trip (Solo, zero-latency backend)", trips["podium", "wall"],
              "bare asyncio 2-queue", trips["bare", "wall"], 3.0))
    print(row("the same, CPU time per call", trips["podium", "cpu"], "bare asyncio 2-queue", trips["bare", "cpu"],
              3.0))
    verdict = "ok" if memory <= 10_240 else "MISSED"
    print(f"| memory per idle agent ({args.agents:,} in one session) | {memory / 1024:.2f} KB | - | - | "
          f"<= 10 KB {verdict} |")
    if args.peers:
        import peers  # bench/peers.py: the strategy shapes against LangGraph and AutoGen

        await peers.main(args.n)


if __name__ == "__main__":
    asyncio.run(main())
