"""The session keeps the reference's promises where it once deviated (reference/gen_agent.md §1-4):
work sent to an agent from its own completion, a token whose agent died while its other work was out,
tokens across restarts, byte limits on what waits, the capture of a long turn; and the operator's
surface: the running sessions, a handle on one sub-agent, killing it."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import pytest

import podium
from podium import telemetry
from podium.agent import Behaviour, Response
from podium.agent.backend import BaseBackend
from podium.agent.events import Event
from podium.backends.scripted import Crash, Hang, Say, ScriptedBackend
from podium.ensemble import AgentSpec, Dispatch, Reply, ReplyError, Session, Strategy
from podium.ensemble.strategies import Consensus, Debate, Pool, Solo, Switchboard
from podium.errors import AgentNotRunning, Reason, ReasonKind, RunFailed
from podium.telemetry import Telemetry
from tests.strategies.session_support import Inputs
from tests.support import GateBackend, until

KIB = 1024


def spec(name: str, backend: Any, **opts: Any) -> AgentSpec:
    return AgentSpec(name, Behaviour(), {"backend": backend, **opts})


# --------------------------------------------------------------------------- 1. zero-size mailboxes


async def test_a_pool_of_one_worker_with_no_mailbox_serves_every_queued_prompt() -> None:
    backend = ScriptedBackend([Say("one", delay=0.01), "two", "three"])
    async with Session.start(Pool(worker_template=spec("w", backend, max_pending_prompts=0), worker_count=1)) as s:
        tokens = [s.tell(p) for p in ("p1", "p2", "p3")]
        answers = [(await s.result(t, timeout=10)).text for t in tokens]
    assert answers == ["one", "two", "three"]  # the 2nd and 3rd went to the worker from its completions


async def test_consensus_round_two_and_debate_reach_agents_with_no_mailbox() -> None:
    votes = iter(["yes", "no", "yes", "yes"])  # round 1 splits, round 2 agrees
    backend = ScriptedBackend(lambda prompt: next(votes))
    agents = [spec(n, backend, max_pending_prompts=0) for n in ("a", "b")]
    async with Session.start(Consensus(agents=agents, verdict_parser=lambda t: (t, ""))) as s:
        reply = await s.ask("agree?", timeout=10)
    assert reply.text.startswith("CONSENSUS: yes (2 of 2 agents, round 2")
    debaters = [spec(n, ScriptedBackend(lambda p: f"{p}!"), max_pending_prompts=0) for n in ("pro", "con")]
    async with Session.start(Debate(agents=debaters, rounds=4, reply="last")) as s:
        assert (await s.ask("motion", timeout=10)).text == "motion!!!!"


# --------------------------------------------------------------------------- 2. no token hangs


@dataclass(frozen=True)
class JoinState:
    owed: Mapping[str, frozenset[str]]
    answers: Mapping[str, tuple[str, ...]]


class Join(Strategy[JoinState]):
    """Sends each request to agents a and b and replies when both have answered. No
    handle_agent_down: it cannot know that an agent died."""

    def init(self, opts: Mapping[str, Any]) -> Any:
        return JoinState({}, {}), [spec("a", opts["a"]), spec("b", opts["b"])]

    def handle_tell(self, prompt: Any, opts: Any, token: str, s: JoinState) -> Any:
        return [Dispatch("a", prompt, token), Dispatch("b", prompt, token)], replace(
            s, owed={**s.owed, token: frozenset("ab")}, answers={**s.answers, token: ()})

    def handle_response(self, agent: str, response: Response, s: JoinState) -> Any:
        token = next(t for t, owed in s.owed.items() if agent in owed)
        owed, answers = s.owed[token] - {agent}, (*s.answers[token], response.text)
        if owed:
            return [], replace(s, owed={**s.owed, token: owed}, answers={**s.answers, token: answers})
        rest = {t: o for t, o in s.owed.items() if t != token}
        return [Reply(token, Response(" + ".join(sorted(answers))))], replace(s, owed=rest)

    def handle_error(self, agent: str, reason: Reason, s: JoinState) -> Any:
        token = next(t for t, owed in s.owed.items() if agent in owed)
        return [ReplyError(token, reason)], replace(s, owed={t: o for t, o in s.owed.items() if t != token})


async def test_a_join_whose_agent_crashed_fails_once_the_other_answers() -> None:
    crash, answer = asyncio.Event(), asyncio.Event()
    a = ScriptedBackend([Crash("a died", signal=crash)])
    b = ScriptedBackend([Say("b's answer", signal=answer)])
    async with Session.start(Join(a=a, b=b)) as session:
        token = session.tell("question")
        crash.set()
        await until(lambda: session.agents() == ["b"])
        assert session.poll(token).__class__.__name__ == "Pending"  # b's work is still out
        answer.set()
        with pytest.raises(RunFailed) as failed:
            await session.result(token, timeout=10)
    assert failed.value.reason.kind is ReasonKind.AGENT_DOWN and failed.value.reason.agent == "a"
    assert "a died" in str(failed.value.reason)


async def test_a_token_the_strategy_completes_without_the_dead_agent_is_not_failed() -> None:
    """A race: the first answer closes the token; a's death does not fail it while b can answer."""

    class Race(Join):
        def handle_response(self, agent: str, response: Response, s: JoinState) -> Any:
            token = next(t for t, owed in s.owed.items() if agent in owed)
            return [Reply(token, response)], replace(s, owed={t: o for t, o in s.owed.items() if t != token})

    crash = asyncio.Event()
    a = ScriptedBackend([Crash("a died", signal=crash)])
    b = ScriptedBackend([Say("b wins", delay=0.05)])
    async with Session.start(Race(a=a, b=b)) as session:
        token = session.tell("question")
        crash.set()
        assert (await session.result(token, timeout=10)).text == "b wins"


# --------------------------------------------------------------------------- 3. tokens across restarts


async def test_tokens_never_repeat_across_restarts_of_a_session_name() -> None:
    seen: list[str] = []
    inputs = Inputs()
    for _ in range(3):
        async with Session.start(Solo(backend=ScriptedBackend(lambda p: p)), name="again", recorder=inputs) as s:
            seen += [s.tell("x"), s.tell("y")]
            await until(lambda s=s: s.status()["pending_tokens"] == 0)  # type: ignore[misc]
    assert len(set(seen)) == 6
    recorded = [i.token for i in inputs.seen if hasattr(i, "prompt")]
    assert recorded == seen  # one record of three incarnations: every token tells them apart


# --------------------------------------------------------------------------- 4. byte limits


async def test_queued_prompts_past_one_mib_are_refused_and_fail_dispatch_rejected() -> None:
    backend = ScriptedBackend([Hang()], default="done")
    async with Session.start(Solo(backend=backend)) as session:
        session.tell("keeps the agent busy")
        await until(lambda: session.agent("solo").status().current_request is not None)
        half = "x" * (512 * KIB)
        tokens = [session.tell(half) for _ in range(6)]
        outcomes = [session.poll(t) for t in tokens]
        assert [type(o).__name__ for o in outcomes] == ["Pending"] * 2 + ["Failed"] * 4
        reason = outcomes[2].reason  # type: ignore[union-attr]
        assert reason.kind is ReasonKind.DISPATCH_REJECTED and reason.cause.kind is ReasonKind.OVERLOADED
        assert "bytes" in reason.detail
        assert session.agent("solo").status().queued == 2


async def test_a_notification_past_the_byte_limit_is_refused_and_reported() -> None:
    failed_ops: list[Mapping[str, Any]] = []
    detach = telemetry.attach(lambda event, meta: failed_ops.append(meta) if event is Telemetry.OP_FAILED else None)
    try:
        async with Session.start(Solo(backend=ScriptedBackend([Hang()]))) as session:
            session.tell("busy")
            await until(lambda: session.agent("solo").status().current_request is not None)
            session.notify(b"x" * (700 * KIB))
            assert failed_ops == []
            session.notify(b"x" * (700 * KIB))  # forwarded, refused by the agent: the op fails, visibly
            assert len(failed_ops) == 1 and "notification queue full" in failed_ops[0]["why"]
    finally:
        detach()


# --------------------------------------------------------------------------- 5. capture per turn


class Stream(BaseBackend):
    async def prompt(self, session: Any, prompt: Any) -> Any:  # type: ignore[override]
        for i in range(5000):
            yield Event.text(f"{i},")
        yield Event.result()


async def test_a_5000_event_turn_reaches_the_caller_with_1000_events_and_its_whole_text() -> None:
    async with Session.start(Solo(backend=Stream())) as session:
        response = await session.ask("stream")
    assert len(response.events) == 1000 and response.dropped_events == 4001
    assert response.text == "".join(f"{i}," for i in range(5000))


# --------------------------------------------------------------------------- the operator's surface


async def test_running_sessions_are_listed_and_found_by_name() -> None:
    backend = ScriptedBackend(lambda p: p)
    async with Session.start(Solo(backend=backend), name="listed-1") as one:
        async with Session.start(Solo(backend=backend), name="listed-2") as two:
            names = [s.name for s in podium.sessions()]
            assert names.index("listed-1") < names.index("listed-2")
            assert podium.find_session("listed-2") is two
        assert "listed-2" not in [s.name for s in podium.sessions()]
        assert podium.find_session("listed-1") is one
    assert podium.find_session("listed-1") is None


async def test_a_sub_agent_is_looked_up_by_address_and_killed() -> None:
    gate = GateBackend()
    agents = [spec("billing", gate), spec("support", gate)]
    async with Session.start(Switchboard(agents=agents), name="desk") as session:
        handle = podium.whereis("desk/billing")
        assert handle is not None and handle.address == "desk/billing" and handle.alive
        assert podium.whereis("desk/nobody") is None and podium.whereis("elsewhere/billing") is None
        running = asyncio.ensure_future(session.ask("invoice", agent="billing"))
        await until(lambda: "invoice" in gate.waiting)
        assert handle.status().current_request is not None
        assert handle.kill("operator") is True
        with pytest.raises(RunFailed) as failed:
            await running
        assert failed.value.reason.kind is ReasonKind.AGENT_DOWN  # the strategy's handle_agent_down ran
        assert failed.value.reason.root().kind is ReasonKind.KILLED
        assert not handle.alive and handle.kill() is False
        assert session.agents() == ["support"] and not session.closed
        with pytest.raises(AgentNotRunning, match="the agents are support"):
            session.agent("billing")
        support = session.agent("support")
        other = asyncio.ensure_future(session.ask("hello", agent="support"))
        await until(lambda: "hello" in gate.waiting)
        gate.succeed("hello")
        assert (await other).text == "re: hello"
        assert support.status().state.value == "idle"


# --------------------------------------------------------------------------- strategy options


async def test_options_given_to_the_strategy_and_to_start_merge_and_start_wins() -> None:
    backend = ScriptedBackend(lambda p: p.upper())
    strategy = Solo(backend=backend, name="first")
    async with Session.start(strategy, name="merged", behaviour=Behaviour()) as session:
        assert session.agents() == ["first"] and (await session.ask("hi")).text == "HI"
    pool = Pool(worker_template=spec("w", backend), worker_count=1)
    async with Session.start(pool, worker_count=3) as session:
        assert session.agents() == ["w-1", "w-2", "w-3"]
    with pytest.raises(podium.ConfigError, match="Switchboard: unknown option"):
        await Session.start(Switchboard(agnets=[]))
