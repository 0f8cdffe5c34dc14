"""Dispatch rejection on a real session, forced by an agent with a zero-size queue
(max_pending_prompts=0) that is busy, for every strategy: the rejected request fails
`dispatch_rejected` (named), nothing hangs, the session lives on and later work succeeds."""

from __future__ import annotations

import asyncio

import pytest

from podium.agent.behaviour import Behaviour
from podium.ensemble import AgentSpec, Session
from podium.ensemble.strategies.consensus import Consensus
from podium.ensemble.strategies.debate import Debate
from podium.ensemble.strategies.graph import Graph, Subtask
from podium.ensemble.strategies.pipeline import Pipeline
from podium.ensemble.strategies.pool import Pool
from podium.ensemble.strategies.supervisor import Supervisor
from podium.ensemble.strategies.switchboard import Switchboard
from podium.errors import ReasonKind, RunFailed
from tests.strategies.session_support import Inputs, busy_spec
from tests.support import GateBackend, until


def plain(name: str, backend: GateBackend) -> AgentSpec:
    return AgentSpec(name, Behaviour(), {"backend": backend})


def rejected_by(error: RunFailed, agent: str) -> bool:
    """The failure names the refusing agent and, somewhere down its causes, the overload."""
    reason = error.reason
    kinds = []
    while reason is not None:
        kinds.append(reason.kind)
        reason = reason.cause
    return error.reason.agent == agent and ReasonKind.OVERLOADED in kinds and (
        ReasonKind.DISPATCH_REJECTED in kinds)


async def test_switchboard_removes_only_the_rejected_token() -> None:
    gate = GateBackend()
    agents = [AgentSpec("a", Behaviour(), {"backend": gate, "max_pending_prompts": 0}), plain("b", gate)]
    async with Session.start(Switchboard(), agents=agents) as session:
        first = asyncio.ensure_future(session.ask("first", agent="a"))
        await until(lambda: "first" in gate.waiting)
        with pytest.raises(RunFailed) as refused:
            await session.ask("second", agent="a")
        assert refused.value.reason.kind is ReasonKind.DISPATCH_REJECTED and refused.value.reason.agent == "a"
        assert session.status()["pending_per_agent"] == {"a": 1, "b": 0}
        gate.succeed("first")
        assert (await first).text == "re: first"  # the earlier ask keeps its answer


async def test_pool_fails_the_rejected_token_and_frees_the_worker() -> None:
    gate = GateBackend()
    async with Session.start(Pool(), worker_template=busy_spec("w", gate), worker_count=1) as session:
        first = asyncio.ensure_future(session.ask("one"))
        await until(lambda: "one" in gate.waiting)
        gate.succeed("one")
        assert (await first).text == "re: one"
        await until(lambda: "follow-up" in gate.waiting)  # the worker keeps itself busy
        with pytest.raises(RunFailed) as refused:
            await session.ask("two")
        assert refused.value.reason.kind is ReasonKind.DISPATCH_REJECTED and refused.value.reason.agent == "w-1"
        assert session.status()["free"] == 1 and session.status()["busy"] == 0
        gate.succeed("follow-up")
        third = asyncio.ensure_future(session.ask("three"))
        await until(lambda: "three" in gate.waiting)
        gate.succeed("three")
        assert (await third).text == "re: three"


async def test_pipeline_aborts_the_run_naming_the_stage_and_admits_the_next() -> None:
    gate = GateBackend()
    stages = [plain("draft", gate), busy_spec("edit", gate)]
    async with Session.start(Pipeline(), stages=stages) as session:
        r1 = asyncio.ensure_future(session.ask("one"))
        await until(lambda: "one" in gate.waiting)
        r2, r3 = session.tell("two"), session.tell("three")
        gate.succeed("one")
        await until(lambda: "re: one" in gate.waiting)
        gate.succeed("re: one")
        assert (await r1).text == "re: re: one"
        await until(lambda: "two" in gate.waiting)  # run 2 admitted; edit is in its follow-up turn
        gate.succeed("two")
        with pytest.raises(RunFailed) as refused:
            await session.result(r2, timeout=5)
        assert refused.value.reason.kind is ReasonKind.STAGE_FAILED and rejected_by(refused.value, "edit")
        assert "stage 'edit' (2 of 2)" in refused.value.reason.detail
        await until(lambda: "three" in gate.waiting)  # the next run was admitted
        gate.succeed("follow-up")
        gate.succeed("three")
        await until(lambda: "re: three" in gate.waiting)
        gate.succeed("re: three")
        assert (await session.result(r3, timeout=5)).text == "re: re: three"


async def test_supervisor_fails_the_run_when_the_coordinator_refuses_and_recovers() -> None:
    gate = GateBackend()
    async with Session.start(Supervisor(), coordinator=busy_spec("boss", gate), worker_template=plain("w", gate),
                             decomposer=lambda text: [f"part of {text}"]) as session:
        r1 = asyncio.ensure_future(session.ask("one"))
        await until(lambda: "one" in gate.waiting)
        gate.succeed("one")
        await until(lambda: "part of re: one" in gate.waiting)
        gate.succeed("part of re: one")
        assert (await r1).text == "re: part of re: one"
        await until(lambda: "follow-up" in gate.waiting)
        with pytest.raises(RunFailed) as refused:
            await session.ask("two")
        assert refused.value.reason.kind is ReasonKind.STAGE_FAILED and rejected_by(refused.value, "boss")
        assert session.status()["phase"] == "idle"
        gate.succeed("follow-up")
        r3 = asyncio.ensure_future(session.ask("three"))
        await until(lambda: "three" in gate.waiting)
        gate.succeed("three")
        await until(lambda: "part of re: three" in gate.waiting)
        gate.succeed("part of re: three")
        assert (await r3).text == "re: part of re: three"


async def test_debate_fails_the_debate_when_a_debater_refuses() -> None:
    gate = GateBackend()
    async with Session.start(Debate(), agents=[busy_spec("pro", gate), plain("con", gate)], rounds=3) as session:
        debate = asyncio.ensure_future(session.ask("motion"))
        await until(lambda: "motion" in gate.waiting)
        gate.succeed("motion")  # pro answers, then starts its follow-up turn
        await until(lambda: "re: motion" in gate.waiting)
        gate.succeed("re: motion")  # con answers; turn 3 goes back to the busy pro
        with pytest.raises(RunFailed) as refused:
            await debate
        assert refused.value.reason.kind is ReasonKind.STAGE_FAILED and rejected_by(refused.value, "pro")
        assert "turn 3" in refused.value.reason.detail
        assert not session.closed and session.status()["phase"] == "idle"


async def test_consensus_drops_the_answer_a_peer_gave_to_the_refused_question() -> None:
    ga, gb = GateBackend(), GateBackend()
    inputs = Inputs()
    async with Session.start(Consensus(), agents=[plain("a", ga), busy_spec("b", gb)], recorder=inputs,
                             verdict_parser=lambda text: ("yes", text)) as session:
        q1 = asyncio.ensure_future(session.ask("q1"))
        await until(lambda: "q1" in ga.waiting and "q1" in gb.waiting)
        ga.succeed("q1")
        gb.succeed("q1")
        assert (await q1).text.startswith("CONSENSUS: yes (2 of 2")
        await until(lambda: "follow-up" in gb.waiting)
        with pytest.raises(RunFailed) as refused:
            await session.ask("q2")
        assert refused.value.reason.kind is ReasonKind.FAILED and rejected_by(refused.value, "b")
        await until(lambda: "q2" in ga.waiting)  # a accepted q2 before b refused it
        before = len(inputs.results_from("a"))
        ga.succeed("q2")
        await until(lambda: session.status()["in_flight"] == 0)
        assert len(inputs.results_from("a")) == before  # a's answer to q2 never reached the strategy
        gb.succeed("follow-up")
        q3 = asyncio.ensure_future(session.ask("q3"))
        await until(lambda: "q3" in ga.waiting and "q3" in gb.waiting)
        ga.succeed("q3")
        gb.succeed("q3")
        assert (await q3).text.startswith("CONSENSUS: yes (2 of 2 agents, round 1")


async def test_graph_fails_the_request_whose_subtask_was_refused() -> None:
    gate = GateBackend()
    async with Session.start(Graph(), agents=[busy_spec("x", gate), plain("y", gate)]) as session:
        r1 = asyncio.ensure_future(session.ask("", subtasks=[Subtask("a", "one", "x")]))
        await until(lambda: "one" in gate.waiting)
        gate.succeed("one")
        assert (await r1).text == "[a] re: one"
        await until(lambda: "follow-up" in gate.waiting)
        with pytest.raises(RunFailed) as refused:
            await session.ask("", subtasks=[Subtask("a", "two", "x"), Subtask("b", "other", "y")])
        assert refused.value.reason.kind is ReasonKind.DISPATCH_REJECTED and refused.value.reason.agent == "x"
        assert "subtask 'a'" in refused.value.reason.detail
        gate.succeed("follow-up")
        if "other" in gate.waiting:  # y may have accepted its subtask before x refused: its result is fenced
            gate.succeed("other")
        await until(lambda: session.status()["in_flight"] == 0)
        assert session.status()["runs"] == {} and session.status()["busy"] == ()
        r3 = asyncio.ensure_future(session.ask("", subtasks=[Subtask("a", "three", "x")]))
        await until(lambda: "three" in gate.waiting)
        gate.succeed("three")
        assert (await r3).text == "[a] re: three"
