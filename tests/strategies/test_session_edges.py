"""The strategies on a real session with scripted and gated backends: the edge cases of
reference/gen_agent.md §4 (worker loss, fencing of late sibling results, pool replacement,
supervisor output order, consensus abstention and divergence) and an end-to-end run of each."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator

import pytest

from podium import telemetry
from podium.agent.behaviour import Behaviour
from podium.agent.outcomes import Failed, NotFound
from podium.backends.scripted import Crash, Fail, ScriptedBackend
from podium.ensemble import AgentSpec, Session
from podium.ensemble.strategies.consensus import Consensus
from podium.ensemble.strategies.debate import Debate
from podium.ensemble.strategies.graph import Graph, Subtask, SubtaskStatus, graph_outcomes
from podium.ensemble.strategies.pipeline import Pipeline
from podium.ensemble.strategies.pool import Pool
from podium.ensemble.strategies.supervisor import Supervisor
from podium.ensemble.strategies.switchboard import Switchboard
from podium.errors import ReasonKind, RunFailed
from podium.telemetry import Telemetry
from tests.strategies.session_support import Inputs
from tests.support import GateBackend, until


def agent(name: str, backend) -> AgentSpec:
    return AgentSpec(name, Behaviour(), {"backend": backend})


@pytest.fixture
def closes() -> Iterator[Counter[str]]:
    """How many terminal outcomes each token got."""
    counts: Counter[str] = Counter()

    def on(event: Telemetry, meta) -> None:
        if event in (Telemetry.TOKEN_STOP, Telemetry.TOKEN_ERROR):
            counts[meta["token"]] += 1

    detach = telemetry.attach(on)
    yield counts
    detach()


def supervisor(gate: GateBackend, inputs: Inputs | None = None) -> object:
    return Session.start(Supervisor(), coordinator=agent("boss", gate), worker_template=agent("w", gate),
                         decomposer=lambda text: [f"{text} #{i}" for i in (1, 2, 3)], recorder=inputs)


async def test_supervisor_joins_in_subtask_order_whatever_the_arrival_order() -> None:
    gate = GateBackend()
    async with supervisor(gate) as session:
        run = asyncio.ensure_future(session.ask("job"))
        await until(lambda: "job" in gate.waiting)
        gate.succeed("job")
        parts = [f"re: job #{i}" for i in (1, 2, 3)]
        await until(lambda: all(p in gate.waiting for p in parts))  # all three in parallel
        assert session.status()["phase"] == "fanning_out" and session.status()["total"] == 3
        for part in reversed(parts):
            gate.succeed(part)
        reply = await run
        assert reply.text == "\n\n".join(f"re: {p}" for p in parts)
        await until(lambda: session.status()["agents"] == ["boss"])  # the workers were stopped


async def test_supervisor_worker_loss_fails_current_and_queued_tokens_exactly_once(closes) -> None:
    gate = GateBackend()
    inputs = Inputs()
    async with supervisor(gate, inputs) as session:
        current = session.tell("job")
        queued = [session.tell("next"), session.tell("later")]
        await until(lambda: "job" in gate.waiting)
        gate.succeed("job")
        await until(lambda: all(f"re: job #{i}" in gate.waiting for i in (1, 2, 3)))
        gate.succeed("re: job #1")  # one sibling already answered
        await until(lambda: session.status()["done"] == 1)
        gate.crash("re: job #2")
        await until(lambda: session.status()["pending_tokens"] == 0)
        for token in (current, *queued):
            outcome = session.poll(token)
            assert isinstance(outcome, Failed) and outcome.reason.kind is ReasonKind.WORKER_DOWN, outcome
            assert outcome.reason.agent == "w-2"
            assert session.poll(token) == NotFound()  # consumed, and never answered again
        await until(lambda: "re: job #3" not in gate.waiting)  # the sibling was stopped: its turn is cancelled
        status = session.status()
        assert status["phase"] == "idle" and status["in_flight"] == 0 and status["queued"] == 0
        assert not [i for i in inputs.results_from("w-3")]
        fresh = asyncio.ensure_future(session.ask("fresh"))
        await until(lambda: "fresh" in gate.waiting)
        gate.succeed("fresh")
        await until(lambda: all(f"re: fresh #{i}" in gate.waiting for i in (1, 2, 3)))
        for i in (1, 2, 3):
            gate.succeed(f"re: fresh #{i}")
        assert (await fresh).text.startswith("re: re: fresh #1")
    assert all(closes[t] == 1 for t in (current, *queued))


async def test_supervisor_worker_error_fences_the_late_sibling_and_the_next_run_is_clean() -> None:
    boss, workers = GateBackend(), GateBackend()
    inputs = Inputs()
    async with Session.start(Supervisor(), coordinator=agent("boss", boss), worker_template=agent("w", workers),
                             decomposer=lambda text: [f"{text} a", f"{text} b"], recorder=inputs) as session:
        first = asyncio.ensure_future(session.ask("one"))
        await until(lambda: "one" in boss.waiting)
        second = session.tell("two")
        boss.succeed("one")
        await until(lambda: "re: one a" in workers.waiting and "re: one b" in workers.waiting)
        workers.fail("re: one a", "bad input")
        with pytest.raises(RunFailed) as failed:
            await first
        assert failed.value.reason.kind is ReasonKind.STAGE_FAILED and failed.value.reason.agent == "w-1"
        assert failed.value.reason.cause.detail == "bad input"
        await until(lambda: "two" in boss.waiting)  # the queued run started at once
        boss.succeed("two")
        await until(lambda: "re: two a" in workers.waiting and "re: two b" in workers.waiting)
        await until(lambda: "re: one b" not in workers.waiting)  # the sibling was stopped with its run
        workers.succeed("re: two b")
        workers.succeed("re: two a")
        assert (await session.result(second, timeout=5)).text == "re: re: two a\n\nre: re: two b"
        assert [i.agent for i in inputs.seen if hasattr(i, "agent") and i.agent.startswith("w-")] == \
            ["w-1", "w-4", "w-3"]  # nothing of w-2 (the late sibling) ever reached the strategy


async def test_pool_replaces_a_dead_worker_and_the_queue_goes_on(closes) -> None:
    backend = ScriptedBackend([Crash("worker died"), "second", "third"])
    async with Session.start(Pool(), worker_template=agent("w", backend), worker_count=1) as session:
        first, second = session.tell("1"), session.tell("2")
        with pytest.raises(RunFailed) as failed:
            await session.result(first, timeout=5)
        assert failed.value.reason.kind is ReasonKind.WORKER_DOWN and failed.value.reason.agent == "w-1"
        assert (await session.result(second, timeout=5)).text == "second"  # served by the replacement
        assert session.status()["workers"] == ("w-2",) and session.status()["agents"] == ["w-2"]
        assert (await session.ask("3")).text == "third"
    assert closes[first] == 1 and closes[second] == 1


async def test_pool_without_replacement_halts_when_the_last_worker_dies() -> None:
    backend = ScriptedBackend([Crash("gone")])
    session = await Session.start(Pool(), worker_template=agent("w", backend), worker_count=1,
                                  replace_workers=False)
    with pytest.raises(RunFailed) as failed:
        await session.ask("x")
    assert failed.value.reason.kind is ReasonKind.WORKER_DOWN
    reason = await session.wait_closed()
    assert "pool exhausted" in reason.detail


async def test_consensus_abstention_counts_against_unanimity_and_diverges_at_the_cap() -> None:
    answers = {"a": "VERDICT: ship\ntests pass", "b": "hard to say", "c": "VERDICT: ship\nlooks good"}
    backends = {n: ScriptedBackend(lambda prompt, n=n: answers[n]) for n in answers}
    agents = [agent(n, backends[n]) for n in answers]
    async with Session.start(Consensus(), agents=agents, threshold="unanimous", rounds=2) as session:
        reply = await session.ask("Ship 1.0?")
        assert reply.text == ("DIVERGED: no verdict reached unanimous after 2 round(s) (closest: ship, 2 of 3)\n"
                              "- a: ship — tests pass\n- b: abstained\n- c: ship — looks good")
        second_round = backends["b"].prompts[1]
        assert second_round.startswith("Ship 1.0?\n\nRound 2.")
        assert "- a: ship — tests pass" in second_round and "- c: ship — looks good" in second_round
    async with Session.start(Consensus(), agents=[agent(n, backends[n]) for n in answers]) as session:
        reply = await session.ask("Ship 1.0?")  # majority: the abstention does not block it
        assert reply.text.startswith("CONSENSUS: ship (2 of 3 agents, round 1, threshold majority)")


async def test_consensus_tolerates_an_agent_error_while_the_threshold_is_reachable() -> None:
    backends = {"a": ScriptedBackend(lambda p: "VERDICT: yes"), "b": ScriptedBackend([Fail("quota")]),
                "c": ScriptedBackend(lambda p: "VERDICT: yes")}
    async with Session.start(Consensus(), agents=[agent(n, b) for n, b in backends.items()]) as session:
        reply = await session.ask("q")
        assert reply.text.startswith("CONSENSUS: yes (2 of 3") and "- b: failed (backend_error: quota)" in reply.text


async def test_switchboard_agent_down_fails_only_that_agents_tokens() -> None:
    gate = GateBackend()
    async with Session.start(Switchboard(), agents=[agent("a", gate), agent("b", gate)]) as session:
        ta1, ta2, tb = session.tell("a1", agent="a"), session.tell("a2", agent="a"), session.tell("b1", agent="b")
        await until(lambda: "a1" in gate.waiting and "b1" in gate.waiting)
        gate.crash("a1")
        for token in (ta1, ta2):
            with pytest.raises(RunFailed) as failed:
                await session.result(token, timeout=5)
            assert failed.value.reason.kind is ReasonKind.AGENT_DOWN and failed.value.reason.agent == "a"
        gate.succeed("b1")
        assert (await session.result(tb, timeout=5)).text == "re: b1"
        with pytest.raises(RunFailed) as gone:
            await session.ask("again", agent="a")
        assert gone.value.reason.kind is ReasonKind.UNKNOWN_AGENT and "down" in gone.value.reason.detail
        assert not session.closed


async def test_pipeline_three_stages_end_to_end() -> None:
    stages = [agent(n, ScriptedBackend(lambda p, n=n: f"{n}({p})")) for n in ("draft", "edit", "polish")]
    async with Session.start(Pipeline(), stages=stages) as session:
        tokens = [session.tell(f"t{i}") for i in range(3)]
        texts = [(await session.result(t, timeout=5)).text for t in tokens]
        assert texts == [f"polish(edit(draft(t{i})))" for i in range(3)]


async def test_debate_end_to_end_with_convergence() -> None:
    pro = ScriptedBackend(["for", "I agree now"])
    con = ScriptedBackend(["against", "I agree too"])
    async with Session.start(Debate(), agents=[agent("pro", pro), agent("con", con)], rounds=6,
                             converge=lambda text: "agree" in text) as session:
        reply = await session.ask("motion")
        assert reply.text == "[pro] for\n\n[con] against\n\n[pro] I agree now"
        assert list(con.prompts) == ["for"] and list(pro.prompts) == ["motion", "against"]


async def test_graph_runs_independent_subtasks_in_parallel_and_passes_results_on() -> None:
    gate = GateBackend()
    subtasks = [Subtask("a", "A", "x"), Subtask("b", "B", "y", ["a"]), Subtask("c", "C", "z", ["a"]),
                Subtask("d", "D", "x", ["b", "c"])]
    async with Session.start(Graph(), agents=[agent(n, gate) for n in "xyz"]) as session:
        run = asyncio.ensure_future(session.ask("", subtasks=subtasks))
        await until(lambda: "A" in gate.waiting)
        gate.succeed("A")
        b_prompt = "B\n\nResults of the subtasks this one depends on:\n\n[a] re: A"
        c_prompt = "C\n\nResults of the subtasks this one depends on:\n\n[a] re: A"
        await until(lambda: b_prompt in gate.waiting and c_prompt in gate.waiting)  # in parallel
        gate.succeed(c_prompt)
        gate.succeed(b_prompt)
        await until(lambda: len(gate.waiting) == 1)
        (d_prompt,) = gate.waiting
        assert d_prompt.startswith("D\n\n") and d_prompt.index("[b] re: B") < d_prompt.index("[c] re: C")
        gate.succeed(d_prompt)
        reply = await run
        assert [o.id for o in graph_outcomes(reply)] == ["a", "b", "c", "d"]
        assert all(o.status is SubtaskStatus.DONE for o in graph_outcomes(reply))


async def test_graph_invalid_graph_is_refused_before_anything_runs() -> None:
    backend = ScriptedBackend(lambda p: "ran")
    async with Session.start(Graph(), agents=[agent("x", backend)]) as session:
        with pytest.raises(RunFailed) as refused:
            await session.ask("", subtasks=[Subtask("a", "A", depends_on=["b"]), Subtask("b", "B", depends_on=["a"])])
        assert refused.value.reason.kind is ReasonKind.PLAN_INVALID and "cycle" in refused.value.reason.detail
        assert not backend.prompts
