"""A session: the seed's guarantees (tokens, run fencing, rejection, agent down, halt, namespacing)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import pytest

from podium import telemetry
from podium.agent import Behaviour, Completed, Failed, NotFound, Pending, Response
from podium.agent.outcomes import Completion
from podium.backends.scripted import Crash, ScriptedBackend
from podium.ensemble import AgentSpec, Dispatch, Halt, Reply, ReplyError, Session, Start, Stop, Strategy
from podium.ensemble.session import running_sessions
from podium.ensemble.strategies import Solo
from podium.errors import ConfigError, Reason, ReasonKind, RunFailed, SessionClosed, StartFailed
from podium.telemetry import Telemetry
from tests.support import GateBackend, settle, until


async def test_solo_answers_asks_and_tells() -> None:
    async with Session.start(Solo(), backend=ScriptedBackend(lambda p: p.upper())) as session:
        assert (await session.ask("hi")).text == "HI"
        token = session.tell("there")
        assert (await session.result(token)).text == "THERE"
        assert session.poll(token) == NotFound()  # consumed


async def test_poll_and_inbox_consume_completed_tell_results() -> None:
    backend = GateBackend()
    async with Session.start(Solo(), backend=backend) as session:
        a, b = session.tell("a"), session.tell("b")
        assert session.poll(a) == Pending()
        await until(lambda: "a" in backend.waiting)
        backend.succeed("a")
        await until(lambda: "b" in backend.waiting)
        backend.fail("b", "nope")
        await until(lambda: session.status()["pending_tokens"] == 0)
        inbox = session.inbox()
        assert list(inbox) == [a, b]
        assert isinstance(inbox[a], Completed) and inbox[a].response.text == "re: a"
        assert isinstance(inbox[b], Failed) and inbox[b].reason.detail == "nope"
        assert session.inbox() == {} and session.poll(a) == NotFound()


async def test_tokens_are_unique_and_minted_by_the_session() -> None:
    async with Session.start(Solo(), backend=ScriptedBackend(lambda p: p)) as session:
        tokens = {session.tell(str(i)) for i in range(50)}
        assert len(tokens) == 50
        await until(lambda: session.status()["pending_tokens"] == 0)


# --------------------------------------------------------------------------- run fencing


@dataclass(frozen=True)
class RaceState:
    agents: tuple[str, ...]
    current: str | None = None
    seen: tuple[str, ...] = ()  # every response/error text the strategy was handed


class Race(Strategy[RaceState]):
    """Sends each prompt to every agent; the first answer (or error) closes the run."""

    def init(self, opts: Mapping[str, Any]) -> Any:
        names = tuple(opts["names"])
        return RaceState(names), [AgentSpec(n, Behaviour(), {"backend": opts["backend"]}) for n in names]

    def handle_tell(self, prompt: Any, opts: Any, token: str, s: RaceState) -> Any:
        return [Dispatch(a, prompt, token) for a in s.agents], replace(s, current=token)

    def handle_response(self, agent: str, response: Response, s: RaceState) -> Any:
        ops = [Reply(s.current, response)] if s.current else []
        return ops, replace(s, current=None, seen=(*s.seen, response.text))

    def handle_error(self, agent: str, reason: Reason, s: RaceState) -> Any:
        ops = [ReplyError(s.current, reason)] if s.current else []
        return ops, replace(s, current=None, seen=(*s.seen, f"error {reason.detail}"))

    def handle_status(self, s: RaceState) -> Mapping[str, Any]:
        return {"seen": s.seen}


class OneGatePerAgent(GateBackend):
    """Tags each prompt with the agent's session id so two agents' turns can be told apart."""

    async def start_session(self, opts: Mapping[str, Any]) -> dict[str, Any]:
        self.count = getattr(self, "count", 0) + 1
        return {"who": f"agent{self.count}"}

    async def prompt(self, session: Any, prompt: Any) -> Any:  # type: ignore[override]
        async for event in super().prompt(session, f"{session['who']}:{prompt}"):
            yield event


async def test_a_late_success_from_a_closed_run_never_reaches_the_strategy() -> None:
    backend = OneGatePerAgent()
    async with Session.start(Race(), backend=backend, names=["a", "b"]) as session:
        first = session.tell("run1")
        await until(lambda: len(backend.waiting) == 2)
        backend.succeed("agent1:run1")
        await until(lambda: session.poll(first) != Pending())
        second = session.tell("run2")
        await until(lambda: "agent1:run2" in backend.waiting)
        backend.succeed("agent2:run1")  # late: run1 is closed
        await settle()
        assert session.poll(second) == Pending()  # the late answer did not close run2
        backend.succeed("agent1:run2")
        result = await session.result(second)
        assert result.text == "re: agent1:run2"
        assert session.status()["seen"] == ("re: agent1:run1", "re: agent1:run2")


async def test_a_late_error_from_a_closed_run_does_not_abort_the_next() -> None:
    backend = OneGatePerAgent()
    async with Session.start(Race(), backend=backend, names=["a", "b"]) as session:
        first = session.tell("run1")
        await until(lambda: len(backend.waiting) == 2)
        backend.succeed("agent1:run1")
        await until(lambda: session.poll(first) != Pending())
        second = session.tell("run2")
        await until(lambda: "agent1:run2" in backend.waiting)
        backend.fail("agent2:run1", "late failure")
        await settle()
        assert session.poll(second) == Pending()
        backend.succeed("agent2:run2")
        assert (await session.result(second)).text == "re: agent2:run2"
        assert all("late failure" not in seen for seen in session.status()["seen"])


async def test_a_duplicate_completion_is_ignored() -> None:
    backend = GateBackend()
    async with Session.start(Solo(), backend=backend) as session:
        t1 = session.tell("one")
        await until(lambda: "one" in backend.waiting)
        agent = session._agents["solo"]
        ref = next(iter(agent.flights))
        backend.succeed("one")
        await until(lambda: session.poll(t1) != Pending())
        t2 = session.tell("two")
        # The same completion delivered again must not close the next run.
        agent.on_complete(Completion(agent.handle.name, ref, Response("stale"), None))
        assert session.poll(t2) == Pending()
        await until(lambda: "two" in backend.waiting)
        backend.succeed("two")
        assert (await session.result(t2)).text == "re: two"


# --------------------------------------------------------------------------- rejection


async def test_solo_keeps_the_earlier_ask_when_a_dispatch_is_rejected() -> None:
    backend = GateBackend()
    async with Session.start(Solo(), backend=backend, max_pending_prompts=0) as session:
        first = asyncio.ensure_future(session.ask("first"))
        await until(lambda: "first" in backend.waiting)
        with pytest.raises(RunFailed) as rejected:
            await session.ask("second")
        reason = rejected.value.reason
        assert reason.kind is ReasonKind.DISPATCH_REJECTED and reason.agent == "solo"
        assert reason.cause is not None and reason.cause.kind is ReasonKind.OVERLOADED
        assert session.status()["queued_tokens"] == 1
        backend.succeed("first")
        assert (await first).text == "re: first"
        assert session.status()["queued_tokens"] == 0


class ToNamed(Strategy[tuple[str, ...]]):
    """Dispatches to whatever agent the caller names, closing tokens FIFO; no optional callbacks."""

    def init(self, opts: Mapping[str, Any]) -> Any:
        return (), [AgentSpec("known", Behaviour(), {"backend": opts["backend"]})]

    def handle_tell(self, prompt: Any, opts: Any, token: str, s: tuple[str, ...]) -> Any:
        return [Dispatch(opts.get("agent", "known"), prompt, token), Reply("never-issued", Response("x"))], (*s, token)

    def handle_response(self, agent: str, response: Response, s: tuple[str, ...]) -> Any:
        return [Reply(s[0], response)], s[1:]


async def test_dispatch_to_an_unknown_agent_is_a_rejection_not_a_crash() -> None:
    async with Session.start(ToNamed(), backend=ScriptedBackend(lambda p: p)) as session:
        with pytest.raises(RunFailed) as rejected:
            await session.ask("x", agent="ghost")
        assert rejected.value.reason.kind is ReasonKind.DISPATCH_REJECTED
        assert rejected.value.reason.cause.kind is ReasonKind.AGENT_NOT_RUNNING  # type: ignore[union-attr]
        assert not session.closed


async def test_a_rejection_ends_the_op_batch(caplog: pytest.LogCaptureFixture) -> None:
    async with Session.start(ToNamed(), backend=ScriptedBackend(lambda p: p)) as session:
        with caplog.at_level(logging.WARNING), pytest.raises(RunFailed):
            await session.ask("x", agent="ghost")
        assert "never-issued" not in caplog.text  # the op after the rejected dispatch was not applied


async def test_an_op_failure_is_logged_and_the_batch_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    async with Session.start(ToNamed(), backend=ScriptedBackend(lambda p: p)) as session:
        with caplog.at_level(logging.WARNING):
            assert (await session.ask("x")).text == "x"
        assert "unknown token 'never-issued'" in caplog.text


# --------------------------------------------------------------------------- agent down, halt


async def test_solo_halts_when_its_agent_dies_and_every_caller_gets_an_answer() -> None:
    backend = ScriptedBackend([Crash("gone")])
    async with Session.start(Solo(), backend=backend) as session:
        with pytest.raises(RunFailed) as failed:
            await session.ask("x")
        assert failed.value.reason.kind is ReasonKind.HALTED
        assert failed.value.reason.root().detail == "AgentCrashed: gone"
        assert session.closed
        with pytest.raises(SessionClosed):
            session.tell("more")


async def test_without_handle_agent_down_the_dead_agents_tokens_fail_agent_down() -> None:
    backend = ScriptedBackend([Crash("gone")])
    async with Session.start(ToNamed(), backend=backend) as session:
        with pytest.raises(RunFailed) as failed:
            await session.ask("x")
        assert failed.value.reason.kind is ReasonKind.AGENT_DOWN and failed.value.reason.agent == "known"
        assert not session.closed and session.status()["agents"] == []


@dataclass(frozen=True)
class ControlState:
    backend: Any
    pending: tuple[str, ...] = ()


class Control(Strategy[ControlState]):
    """Obeys commands sent with notify; for halt, stop and start."""

    def init(self, opts: Mapping[str, Any]) -> Any:
        return ControlState(opts["backend"]), [AgentSpec("w", Behaviour(), {"backend": opts["backend"]})]

    def handle_tell(self, prompt: Any, opts: Any, token: str, s: ControlState) -> Any:
        return [Dispatch("w", prompt, token)], replace(s, pending=(*s.pending, token))

    def handle_response(self, agent: str, response: Response, s: ControlState) -> Any:
        return [Reply(s.pending[0], response)], replace(s, pending=s.pending[1:])

    def handle_notify(self, event: Any, s: ControlState) -> Any:
        if event == "halt":
            return [Halt(Reason(ReasonKind.FAILED, "asked to halt"))], s
        if event == "restart":
            return [Stop("w"), Start("w", Behaviour(), {"backend": s.backend})], s
        if event == "explode":
            raise RuntimeError("strategy bug")
        return [], s


async def test_halt_fails_every_pending_token_and_stops_the_agents() -> None:
    backend = GateBackend()
    session = await Session.start(Control(), backend=backend)
    tokens = [session.tell(f"p{i}") for i in range(3)]
    await until(lambda: "p0" in backend.waiting)
    agent = session._agents["w"].handle
    session.notify("halt")
    for token in tokens:
        outcome = session.poll(token)
        assert isinstance(outcome, Failed) and outcome.reason.kind is ReasonKind.HALTED
    reason = await session.wait_closed()
    assert reason.detail == "asked to halt"
    assert not agent.alive
    assert session.name not in running_sessions()


async def test_a_raising_strategy_halts_the_session_with_strategy_error() -> None:
    backend = GateBackend()
    session = await Session.start(Control(), backend=backend)
    token = session.tell("x")
    session.notify("explode")
    outcome = session.poll(token)
    assert isinstance(outcome, Failed) and outcome.reason.cause.kind is ReasonKind.STRATEGY_ERROR  # type: ignore[union-attr]
    assert "strategy bug" in outcome.reason.detail
    await session.stop()


async def test_stop_drops_in_flight_work_and_a_restarted_agent_serves_new_runs() -> None:
    backend = GateBackend()
    async with Session.start(Control(), backend=backend) as session:
        session.tell("old")
        await until(lambda: "old" in backend.waiting)
        session.notify("restart")
        await settle()
        assert session.status()["in_flight"] == 0
        fresh = session.tell("new")
        await until(lambda: "new" in backend.waiting)
        backend.succeed("new")
        # The Control strategy closes FIFO, so the dropped "old" run answers with the new text;
        # what matters here is that the restarted agent works and nothing of the old one leaks in.
        await until(lambda: session.status()["pending_tokens"] == 1)
        assert session.poll(fresh) == Pending()


async def test_stop_fails_pending_tokens_and_closes_the_session() -> None:
    backend = GateBackend()
    session = await Session.start(Solo(), backend=backend)
    token = session.tell("x")
    await session.stop()
    outcome = session.poll(token)
    assert isinstance(outcome, Failed) and outcome.reason.kind is ReasonKind.STOPPED
    with pytest.raises(SessionClosed):
        session.tell("y")


# --------------------------------------------------------------------------- starting


async def test_two_sessions_with_the_same_bare_names_are_isolated() -> None:
    async with Session.start(Solo(), name="left", backend=ScriptedBackend(lambda p: "L")) as left, \
            Session.start(Solo(), name="right", backend=ScriptedBackend(lambda p: "R")) as right:
        assert (await left.ask("x")).text == "L"
        assert (await right.ask("x")).text == "R"
        assert left.agent_status("solo").name == "left/solo"
        assert right.agent_status("solo").name == "right/solo"


async def test_a_session_name_in_use_is_refused_and_free_again_after_stop() -> None:
    session = await Session.start(Solo(), name="unique", backend=ScriptedBackend())
    with pytest.raises(StartFailed, match="already running"):
        await Session.start(Solo(), name="unique", backend=ScriptedBackend())
    await session.stop()
    again = await Session.start(Solo(), name="unique", backend=ScriptedBackend())
    await again.stop()


class BadInit(Behaviour[None]):
    def init_agent(self, opts: Any) -> Any:
        raise ValueError("missing model file")


class Terminating(Behaviour[None]):
    stopped: list[str] = []

    def init_agent(self, opts: Any) -> Any:
        return {}, None

    def terminate_agent(self, reason: Reason, state: None) -> None:
        Terminating.stopped.append(reason.kind.value)


class Three(Strategy[None]):
    def init(self, opts: Mapping[str, Any]) -> Any:
        backend = opts["backend"]
        return None, [AgentSpec("ok1", Terminating(), {"backend": backend}),
                      AgentSpec("bad", BadInit(), {"backend": backend}),
                      AgentSpec("ok2", Terminating(), {"backend": backend})]

    def handle_tell(self, prompt: Any, opts: Any, token: str, s: None) -> Any:
        return [], s

    def handle_response(self, agent: str, response: Response, s: None) -> Any:
        return [], s


async def test_a_failing_start_spec_fails_the_session_and_leaves_nothing_running() -> None:
    Terminating.stopped = []
    with pytest.raises(StartFailed, match="missing model file"):
        await Session.start(Three(), name="doomed", backend=ScriptedBackend())
    assert Terminating.stopped == ["stopped", "stopped"]
    assert "doomed" not in running_sessions()
    session = await Session.start(Solo(), name="doomed", backend=ScriptedBackend())  # the name is free
    await session.stop()


async def test_bad_options_are_clear_errors() -> None:
    with pytest.raises(ConfigError, match="Solo needs"):
        await Session.start(Solo())
    with pytest.raises(ConfigError, match="Strategy instance"):
        await Session.start(Solo)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- status, usage, telemetry


async def test_status_merges_session_fields_with_the_strategy_and_counts_usage() -> None:
    backend = GateBackend()
    async with Session.start(Solo(), backend=backend) as session:
        session.tell("abc")
        await until(lambda: "abc" in backend.waiting)
        status = session.status()
        assert status["agents"] == ["solo"] and status["pending_tokens"] == 1 and status["in_flight"] == 1
        assert status["agent"] == "solo" and status["queued_tokens"] == 1
        backend.succeed("abc")
        await until(lambda: session.status()["pending_tokens"] == 0)
        usage = session.status()["usage"]
        assert usage["session"].input_tokens == 3 and usage["agents"]["solo"].output_tokens == 4


async def test_telemetry_reports_lifecycle_without_prompt_or_response_text() -> None:
    events: list[tuple[Telemetry, Mapping[str, Any]]] = []
    detach = telemetry.attach(lambda e, m: events.append((e, m)))
    try:
        async with Session.start(Solo(), backend=ScriptedBackend(lambda p: "secret answer")) as session:
            await session.ask("secret prompt")
    finally:
        detach()
    kinds = [e for e, _ in events]
    for expected in (Telemetry.SESSION_START, Telemetry.TOKEN_START, Telemetry.DISPATCH_START,
                     Telemetry.DISPATCH_STOP, Telemetry.TOKEN_STOP, Telemetry.SESSION_STOP):
        assert expected in kinds
    assert "secret" not in repr(events)


async def test_ask_times_out_on_the_caller_side_and_the_run_is_still_closed_later() -> None:
    backend = GateBackend()
    async with Session.start(Solo(), backend=backend) as session:
        with pytest.raises(RunFailed) as late:
            await session.ask("slow", timeout=0.01)
        assert late.value.reason.kind is ReasonKind.TIMEOUT
        assert session.status()["pending_tokens"] == 1
        backend.succeed("slow")
        await until(lambda: session.status()["pending_tokens"] == 0)


class Legacy(Strategy[tuple[str, ...]]):
    """Uses the tokenless dispatch: results are never fenced, rejections only logged."""

    def init(self, opts: Mapping[str, Any]) -> Any:
        return (), [AgentSpec("w", Behaviour(), {"backend": opts["backend"], "max_pending_prompts": 0})]

    def handle_tell(self, prompt: Any, opts: Any, token: str, s: tuple[str, ...]) -> Any:
        return [Dispatch("w", prompt), Dispatch("w", prompt), Reply(token, Response("sent"))], s

    def handle_response(self, agent: str, response: Response, s: tuple[str, ...]) -> Any:
        return [], (*s, response.text)

    def handle_status(self, s: tuple[str, ...]) -> Mapping[str, Any]:
        return {"heard": s}


async def test_tokenless_dispatch_is_unfenced_and_its_rejection_only_logged(caplog: pytest.LogCaptureFixture) -> None:
    async with Session.start(Legacy(), backend=ScriptedBackend(lambda p: p)) as session:
        with caplog.at_level(logging.WARNING):
            assert (await session.ask("x")).text == "sent"  # the batch went on past the rejection
        await until(lambda: session.status()["heard"] == ("x",))
        assert "unscoped dispatch to w rejected" in caplog.text


async def test_completions_that_overtake_an_earlier_dispatch_are_delivered_in_dispatch_order() -> None:
    backend = GateBackend()
    async with Session.start(Solo(), backend=backend) as session:
        first, second = session.tell("one"), session.tell("two")
        await until(lambda: "one" in backend.waiting)
        agent = session._agents["solo"]
        ref_one, ref_two = list(agent.flights)
        # A runtime that delivers out of order: the answer to the second dispatch arrives first.
        agent.on_complete(Completion(agent.handle.name, ref_two, Response("answer two"), None))
        assert session.poll(first) == Pending() and session.poll(second) == Pending()
        backend.succeed("one")
        await until(lambda: session.status()["pending_tokens"] == 0)
        assert (await session.result(first)).text == "re: one"  # Solo's FIFO stayed right
        assert (await session.result(second)).text == "answer two"
        assert ref_one < ref_two


@dataclass(frozen=True)
class RetryState:
    backend: Any
    token: str | None = None
    prompt: Any = None
    restarts: int = 0


class RetryOnCrash(Strategy[RetryState]):
    """Restarts a dead agent and gives the run to the new one: the run must not be failed meanwhile."""

    def init(self, opts: Mapping[str, Any]) -> Any:
        return RetryState(opts["backend"]), [AgentSpec("w", Behaviour(), {"backend": opts["backend"]})]

    def handle_tell(self, prompt: Any, opts: Any, token: str, s: RetryState) -> Any:
        return [Dispatch("w", prompt, token)], replace(s, token=token, prompt=prompt)

    def handle_response(self, agent: str, response: Response, s: RetryState) -> Any:
        return [Reply(s.token, response)], replace(s, token=None)  # type: ignore[arg-type]

    def handle_agent_down(self, agent: str, reason: Reason, s: RetryState) -> Any:
        ops = [Start("w", Behaviour(), {"backend": s.backend}), Dispatch("w", s.prompt, s.token)]
        return ops, replace(s, restarts=s.restarts + 1)

    def handle_status(self, s: RetryState) -> Mapping[str, Any]:
        return {"restarts": s.restarts}


async def test_a_run_the_strategy_retries_on_a_restarted_agent_is_not_failed() -> None:
    backend = ScriptedBackend([Crash("first try dies"), "second try works"])
    async with Session.start(RetryOnCrash(), backend=backend) as session:
        assert (await session.ask("job")).text == "second try works"
        assert session.status()["restarts"] == 1
