"""podium's strategy shapes against the same shapes in LangGraph and AutoGen AgentChat, in one run.

    python bench/peers.py                 # needs the bench extra: langgraph, autogen-agentchat
    python bench/overhead.py --peers      # the same, after the core figures

Shapes, every agent or node answering at once (zero-latency work):
- a 3-stage chain: podium `Pipeline` of 3 agents; LangGraph 3-node chain; GraphFlow 3-agent chain;
- a 5-way fan-out and join: podium `Supervisor` (coordinator, 5 workers, synthesizer); LangGraph
  coordinator node, 5 parallel nodes, join node; GraphFlow the same 7 agents.
LangGraph runs `ainvoke` with async nodes and no checkpointer; GraphFlow runs `run(task=...)` on
one team (each run starts and stops its own runtime: that is how GraphFlow works).

Printed per shape: the median cost of one invocation (µs) and the ratio podium/peer. The target is
podium <= 1/4 of LangGraph for each shape. Not run in CI: absolute numbers depend on the machine,
the ratios measured in the same run are what we track.
"""

from __future__ import annotations

import argparse
import asyncio
import operator
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Annotated, Any, TypedDict

from podium.agent.behaviour import Behaviour
from podium.backends.scripted import ScriptedBackend
from podium.ensemble import AgentSpec, Session
from podium.ensemble.strategies.pipeline import Pipeline
from podium.ensemble.strategies.supervisor import Supervisor

Call = Callable[[], Awaitable[Any]]
FAN_OUT = 5
TARGET = 0.25  # podium at most a quarter of LangGraph's cost


# --------------------------------------------------------------------------- podium


def _agent(name: str, backend: ScriptedBackend) -> AgentSpec:
    return AgentSpec(name, Behaviour(), {"backend": backend})


async def podium_chain(stack: AsyncExitStack) -> Call:
    backend = ScriptedBackend(lambda prompt: "ok")
    session = await stack.enter_async_context(
        Session.start(Pipeline(), stages=[_agent(n, backend) for n in ("a", "b", "c")]))
    return lambda: session.ask("go")


async def podium_fan_out(stack: AsyncExitStack) -> Call:
    backend = ScriptedBackend(lambda prompt: "ok")
    parts = [f"part {i}" for i in range(FAN_OUT)]
    session = await stack.enter_async_context(Session.start(
        Supervisor(), coordinator=_agent("coordinator", backend), worker_template=_agent("w", backend),
        decomposer=lambda text: parts))
    return lambda: session.ask("go")


# --------------------------------------------------------------------------- LangGraph


class _ChainState(TypedDict):
    text: str


class _FanState(TypedDict):
    text: str
    parts: Annotated[list[str], operator.add]


async def langgraph_chain(stack: AsyncExitStack) -> Call:
    from langgraph.graph import END, START, StateGraph

    async def node(state: _ChainState) -> dict[str, str]:
        return {"text": "ok"}

    graph = StateGraph(_ChainState)
    for name in ("a", "b", "c"):
        graph.add_node(name, node)
    graph.add_edge(START, "a")
    graph.add_edge("a", "b")
    graph.add_edge("b", "c")
    graph.add_edge("c", END)
    app = graph.compile()
    return lambda: app.ainvoke({"text": "go"})


async def langgraph_fan_out(stack: AsyncExitStack) -> Call:
    from langgraph.graph import END, START, StateGraph

    async def coordinator(state: _FanState) -> dict[str, Any]:
        return {"text": "ok"}

    async def worker(state: _FanState) -> dict[str, Any]:
        return {"parts": ["ok"]}

    async def join(state: _FanState) -> dict[str, Any]:
        return {"text": "\n\n".join(state["parts"])}

    graph = StateGraph(_FanState)
    graph.add_node("coordinator", coordinator)
    graph.add_node("join", join)
    graph.add_edge(START, "coordinator")
    for i in range(FAN_OUT):
        graph.add_node(f"w{i}", worker)
        graph.add_edge("coordinator", f"w{i}")
        graph.add_edge(f"w{i}", "join")
    graph.add_edge("join", END)
    app = graph.compile()
    return lambda: app.ainvoke({"text": "go", "parts": []})


# --------------------------------------------------------------------------- AutoGen AgentChat


def _echo_agent(name: str) -> Any:
    from autogen_agentchat.agents import BaseChatAgent
    from autogen_agentchat.base import Response
    from autogen_agentchat.messages import TextMessage

    class Echo(BaseChatAgent):
        @property
        def produced_message_types(self) -> tuple[type, ...]:
            return (TextMessage,)

        async def on_messages(self, messages: Any, cancellation_token: Any) -> Response:
            return Response(chat_message=TextMessage(content="ok", source=self.name))

        async def on_reset(self, cancellation_token: Any) -> None:
            return None

    return Echo(name, description=name)


async def autogen_chain(stack: AsyncExitStack) -> Call:
    from autogen_agentchat.teams import DiGraphBuilder, GraphFlow

    agents = [_echo_agent(n) for n in ("a", "b", "c")]
    builder = DiGraphBuilder()
    for agent in agents:
        builder.add_node(agent)
    builder.add_edge(agents[0], agents[1]).add_edge(agents[1], agents[2])
    flow = GraphFlow(builder.get_participants(), graph=builder.build())
    return lambda: flow.run(task="go")


async def autogen_fan_out(stack: AsyncExitStack) -> Call:
    from autogen_agentchat.teams import DiGraphBuilder, GraphFlow

    coordinator, join = _echo_agent("coordinator"), _echo_agent("join")
    builder = DiGraphBuilder()
    builder.add_node(coordinator).add_node(join)
    for i in range(FAN_OUT):
        worker = _echo_agent(f"w{i}")
        builder.add_node(worker).add_edge(coordinator, worker).add_edge(worker, join)
    flow = GraphFlow(builder.get_participants(), graph=builder.build())
    return lambda: flow.run(task="go")


# --------------------------------------------------------------------------- measuring


@dataclass
class Measure:
    name: str
    build: Callable[[AsyncExitStack], Awaitable[Call]]
    call: Call | None = None
    samples: list[float] = field(default_factory=list)

    @property
    def median_us(self) -> float:
        return statistics.median(self.samples) * 1e6


async def _sample(measure: Measure, seconds: float, at_least: int) -> None:
    """Time single invocations back to back for about `seconds` (and at least `at_least` of them)."""
    assert measure.call is not None
    call, samples, clock = measure.call, measure.samples, time.perf_counter
    deadline = clock() + seconds
    count = 0
    while count < at_least or clock() < deadline:
        start = clock()
        await call()
        samples.append(clock() - start)
        count += 1


async def run(seconds: float = 1.0, rounds: int = 3) -> dict[str, dict[str, float]]:
    """Measure every shape; rounds interleave the frameworks so drift on a busy machine hits all of
    them alike. Returns {shape: {framework: median µs}}."""
    shapes = {
        "3-stage chain": [Measure("podium Pipeline", podium_chain), Measure("LangGraph", langgraph_chain),
                          Measure("AutoGen GraphFlow", autogen_chain)],
        f"{FAN_OUT}-way fan-out + join": [Measure("podium Supervisor", podium_fan_out),
                                          Measure("LangGraph", langgraph_fan_out),
                                          Measure("AutoGen GraphFlow", autogen_fan_out)],
    }
    async with AsyncExitStack() as stack:
        for measures in shapes.values():
            for measure in measures:
                measure.call = await measure.build(stack)
                for _ in range(20):  # warm up: imports, caches, first-run allocations
                    await measure.call()
        for _ in range(rounds):
            for measures in shapes.values():
                for measure in measures:
                    await _sample(measure, seconds / rounds, at_least=10)
    return {shape: {m.name.split(" ")[0] if m.name.startswith("podium") else m.name: m.median_us
                    for m in measures} for shape, measures in shapes.items()}


def table(results: dict[str, dict[str, float]]) -> str:
    lines = ["| shape | podium | LangGraph | podium / LangGraph | AutoGen GraphFlow | podium / AutoGen | target |",
             "|---|---|---|---|---|---|---|"]
    for shape, cost in results.items():
        ours, lg, ag = cost["podium"], cost["LangGraph"], cost["AutoGen GraphFlow"]
        verdict = "ok" if ours / lg <= TARGET else "MISSED"
        lines.append(f"| {shape} | {ours:,.0f} µs | {lg:,.0f} µs | {ours / lg:.2f}x | {ag:,.0f} µs | "
                     f"{ours / ag:.2f}x | <= {TARGET}x LangGraph {verdict} |")
    return "\n".join(lines)


async def main(n: int | None = None, seconds: float = 3.0) -> dict[str, dict[str, float]]:
    """Print the table. `n` is accepted for bench/overhead.py's sake; sampling is time-bound (each
    framework gets the same wall time per shape, so slow peers are not run thousands of times)."""
    results = await run(seconds)
    import autogen_agentchat
    import langgraph.version

    print(f"\npython {sys.version.split()[0]}, langgraph {langgraph.version.__version__}, "
          f"autogen-agentchat {autogen_agentchat.__version__}; median of single invocations, "
          f"{seconds:g} s per framework and shape, interleaved\n")
    print(table(results))
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="sampling time per framework and shape")
    args = parser.parse_args()
    asyncio.run(main(seconds=args.seconds))
