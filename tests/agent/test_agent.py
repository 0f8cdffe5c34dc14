"""One agent: the gen_agent process model (mailbox, one turn at a time, halt, interrupt, watchdog...)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from podium.agent import (
    AgentState,
    Behaviour,
    Completed,
    Completion,
    Continue,
    Failed,
    HaltAgent,
    NotFound,
    Pending,
    Proceed,
    PromptAgain,
    Skip,
    TurnResult,
    start_agent,
)
from podium.agent.backend import BaseBackend
from podium.agent.events import Event
from podium.backends.scripted import Crash, Fail, Hang, Raise, Say, ScriptedBackend
from podium.errors import AgentNotRunning, ConfigError, Overloaded, ReasonKind, RunFailed, StartFailed
from tests.support import GateBackend, settle, until


async def test_ask_returns_the_streamed_text_and_usage() -> None:
    agent = await start_agent(backend=ScriptedBackend([Say("hello world", chunks=3, usage=(5, 2))]))
    response = await agent.ask("hi")
    assert response.text == "hello world"
    assert [e.kind.value for e in response.events] == ["text", "text", "text", "usage", "result"]
    assert response.usage is not None and response.usage.total_tokens == 7
    assert response.session_id == "scripted-1"
    agent.stop()


async def test_requests_queue_behind_the_turn_in_flight_and_run_in_order() -> None:
    backend = GateBackend()
    agent = await start_agent(backend=backend)
    first = agent.tell("one")
    second = agent.tell("two")
    await until(lambda: "one" in backend.waiting)
    assert agent.status().state is AgentState.PROCESSING and agent.status().queued == 1
    assert backend.seen == ["one"]  # one turn at a time
    backend.succeed("one")
    await until(lambda: "two" in backend.waiting)
    backend.succeed("two")
    await until(lambda: agent.status().state is AgentState.IDLE)
    done_first, done_second = agent.poll(first), agent.poll(second)
    assert isinstance(done_first, Completed) and done_first.response.text == "re: one"
    assert isinstance(done_second, Completed) and done_second.response.text == "re: two"
    assert agent.poll(second) == NotFound()  # poll consumes a completed result


async def test_poll_reports_pending_then_completed_then_not_found() -> None:
    backend = GateBackend()
    agent = await start_agent(backend=backend)
    ref = agent.tell("x")
    assert agent.poll(ref) == Pending()
    await until(lambda: "x" in backend.waiting)
    backend.succeed("x")
    await until(lambda: agent.poll(ref) != Pending())
    assert agent.poll(ref) == NotFound()
    assert agent.poll(12345) == NotFound()


async def test_tell_results_are_bounded_and_the_oldest_is_evicted() -> None:
    agent = await start_agent(backend=ScriptedBackend(lambda p: p), max_tell_results=2)
    refs = [agent.tell(str(i)) for i in range(4)]
    await until(lambda: agent.status().state is AgentState.IDLE and agent.status().queued == 0)
    assert [type(agent.poll(r)).__name__ for r in refs] == ["NotFound", "NotFound", "Completed", "Completed"]


class Chaining(Behaviour[list[str]]):
    """Follows every answer to 'start' with a second turn of its own."""

    def init_agent(self, opts: Any) -> tuple[dict[str, Any], list[str]]:
        return {}, []

    def handle_response(self, ref: int, response: Any, state: list[str]) -> Any:
        state = [*state, response.text]
        if response.text == "re: start":
            return PromptAgain("follow-up", state)
        return Continue(state)


async def test_self_chained_prompt_runs_ahead_of_the_mailbox() -> None:
    backend = GateBackend()
    agent = await start_agent(Chaining(), backend=backend)
    agent.tell("start")
    agent.tell("queued")
    await until(lambda: "start" in backend.waiting)
    backend.succeed("start")
    await until(lambda: "follow-up" in backend.waiting)
    backend.succeed("follow-up")
    await until(lambda: "queued" in backend.waiting)
    backend.succeed("queued")
    await until(lambda: len(agent.status().agent_state) == 3)
    assert backend.seen == ["start", "follow-up", "queued"]
    assert agent.status().agent_state == ["re: start", "re: follow-up", "re: queued"]


class Halting(Behaviour[int]):
    def init_agent(self, opts: Any) -> tuple[dict[str, Any], int]:
        return {}, 0

    def handle_response(self, ref: int, response: Any, state: int) -> Any:
        return HaltAgent(state + 1) if "halt" in response.text else Continue(state + 1)

    def post_run(self, state: int) -> None:
        self.post_run_called = state


async def test_halt_freezes_queued_work_until_resume() -> None:
    behaviour = Halting()
    agent = await start_agent(behaviour, backend=ScriptedBackend(lambda p: p))
    agent.tell("please halt")
    later = agent.tell("later")
    await until(lambda: agent.status().halted)
    await settle()
    assert agent.status().state is AgentState.HALTED
    assert agent.poll(later) == Pending()
    assert behaviour.post_run_called == 1
    agent.resume()
    await until(lambda: agent.poll(later) != Pending())
    assert agent.status().agent_state == 2


async def test_interrupt_fails_the_running_turn_and_the_agent_goes_on() -> None:
    agent = await start_agent(backend=ScriptedBackend([Hang(), "after"]))
    task = asyncio.ensure_future(agent.ask("stuck"))
    await until(lambda: agent.status().state is AgentState.PROCESSING)
    assert agent.interrupt() is True
    with pytest.raises(RunFailed) as failed:
        await task
    assert failed.value.reason.kind is ReasonKind.INTERRUPTED
    assert (await agent.ask("next")).text == "after"
    assert agent.interrupt() is False  # nothing running


async def test_interrupt_request_drops_a_queued_request() -> None:
    backend = GateBackend()
    agent = await start_agent(backend=backend)
    agent.tell("running")
    queued = agent.tell("queued")
    assert agent.interrupt_request(queued) is True
    dropped = agent.poll(queued)
    assert isinstance(dropped, Failed) and dropped.reason.kind is ReasonKind.INTERRUPTED
    await until(lambda: "running" in backend.waiting)
    backend.succeed("running")
    await until(lambda: agent.status().state is AgentState.IDLE)
    assert "queued" not in backend.seen


async def test_watchdog_times_out_a_hung_turn() -> None:
    agent = await start_agent(backend=ScriptedBackend([Hang(), "fine"]), turn_timeout=0.05)
    with pytest.raises(RunFailed) as failed:
        await agent.ask("hang")
    assert failed.value.reason.kind is ReasonKind.TIMEOUT
    assert (await agent.ask("again")).text == "fine"


async def test_a_raising_backend_fails_the_turn_with_task_crashed_and_the_agent_survives() -> None:
    agent = await start_agent(backend=ScriptedBackend([Raise(ValueError("bad")), "ok"]))
    with pytest.raises(RunFailed) as failed:
        await agent.ask("x")
    assert failed.value.reason.kind is ReasonKind.TASK_CRASHED and "bad" in failed.value.reason.detail
    assert (await agent.ask("y")).text == "ok"


async def test_a_terminal_error_event_fails_the_turn_with_its_reason() -> None:
    agent = await start_agent(backend=ScriptedBackend([Fail("quota", ReasonKind.RATE_LIMITED)]))
    with pytest.raises(RunFailed) as failed:
        await agent.ask("x")
    assert failed.value.reason.kind is ReasonKind.RATE_LIMITED


class NoTerminal(BaseBackend):
    async def prompt(self, session: Any, prompt: Any) -> Any:  # type: ignore[override]
        yield Event.text("half an answer")


async def test_a_stream_without_terminal_event_fails_no_terminal_event() -> None:
    agent = await start_agent(backend=NoTerminal())
    with pytest.raises(RunFailed) as failed:
        await agent.ask("x")
    assert failed.value.reason.kind is ReasonKind.NO_TERMINAL_EVENT


async def test_a_crash_takes_the_agent_down_and_fails_every_pending_request() -> None:
    downs: list[Any] = []
    backend = ScriptedBackend([Crash("segfault")])
    from podium.agent.actor import Agent

    agent = Agent("a", Behaviour(), {"backend": backend}, on_down=downs.append)
    await agent.ready()
    completions: list[Completion] = []
    agent.tell_with_completion("first", completions.append)
    agent.tell_with_completion("second", completions.append)
    await until(lambda: len(completions) == 2)
    assert [c.reason.kind for c in completions] == [ReasonKind.AGENT_DOWN, ReasonKind.AGENT_DOWN]  # type: ignore[union-attr]
    assert downs and "segfault" in downs[0].detail
    assert agent.status().state is AgentState.DOWN
    with pytest.raises(AgentNotRunning):
        agent.tell("more")


class Raising(Behaviour[None]):
    def handle_response(self, ref: int, response: Any, state: None) -> Any:
        raise RuntimeError("callback bug")


async def test_a_raising_decision_callback_crashes_the_agent() -> None:
    agent = await start_agent(Raising(), backend=ScriptedBackend(["x"]))
    with pytest.raises(RunFailed) as failed:
        await agent.ask("x")
    assert failed.value.reason.kind is ReasonKind.AGENT_DOWN
    assert "callback bug" in failed.value.reason.detail
    assert not agent.alive


class Recording(Behaviour[dict[str, Any]]):
    def init_agent(self, opts: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        return {}, {"order": []}

    def handle_response(self, ref: int, response: Any, state: dict[str, Any]) -> Any:
        return Continue({**state, "order": [*state["order"], "response"], "from_turn": True})

    def handle_event(self, event: Any, state: dict[str, Any]) -> Any:
        return Continue({**state, "order": [*state["order"], event], "from_event": True})


async def test_notify_during_a_turn_is_deferred_and_keeps_both_state_changes() -> None:
    backend = GateBackend()
    agent = await start_agent(Recording(), backend=backend)
    agent.tell("x")
    await until(lambda: "x" in backend.waiting)
    agent.notify("e1")
    agent.notify("e2")
    await settle()
    assert agent.status().agent_state["order"] == []  # deferred while the turn runs
    backend.succeed("x")
    await until(lambda: len(agent.status().agent_state["order"]) == 3)
    state = agent.status().agent_state
    assert state["order"] == ["response", "e1", "e2"]  # arrival order, after the turn
    assert state["from_turn"] and state["from_event"]  # neither change overwrote the other


async def test_a_full_prompt_queue_refuses_and_queues_nothing() -> None:
    backend = GateBackend()
    agent = await start_agent(backend=backend, max_pending_prompts=0)
    agent.tell("accepted")  # an idle agent takes it at once
    with pytest.raises(Overloaded) as refused:
        agent.tell("refused")
    assert refused.value.reason.kind is ReasonKind.OVERLOADED
    await until(lambda: "accepted" in backend.waiting)
    assert agent.status().queued == 0  # the refused request was not queued
    backend.succeed("accepted")
    await until(lambda: agent.status().state is AgentState.IDLE)
    assert backend.seen == ["accepted"]


async def test_a_full_notification_queue_refuses() -> None:
    backend = GateBackend()
    agent = await start_agent(backend=backend, max_pending_notifications=1)
    agent.tell("busy")
    await until(lambda: "busy" in backend.waiting)
    agent.notify("one")
    with pytest.raises(Overloaded):
        agent.notify("two")


async def test_tell_with_completion_delivers_exactly_one_completion_per_request() -> None:
    backend = GateBackend()
    agent = await start_agent(backend=backend)
    seen: list[Completion] = []
    ok = agent.tell_with_completion("ok", seen.append)
    bad = agent.tell_with_completion("bad", seen.append)
    dropped = agent.tell_with_completion("dropped", seen.append)
    await until(lambda: "ok" in backend.waiting)
    backend.succeed("ok")
    await until(lambda: "bad" in backend.waiting)
    backend.fail("bad")
    await until(lambda: "dropped" in backend.waiting)
    agent.stop()
    await settle()
    assert [(c.ref, c.ok) for c in seen] == [(ok, True), (bad, False), (dropped, False)]
    assert seen[2].reason.kind is ReasonKind.STOPPED  # type: ignore[union-attr]


class Rewriting(Behaviour[None]):
    def pre_turn(self, prompt: Any, state: None) -> Any:
        if prompt == "skip me":
            return Skip(state)
        return Proceed(f"[{prompt}]", state)


async def test_pre_turn_rewrites_or_skips_a_prompt() -> None:
    backend = ScriptedBackend(lambda p: p)
    agent = await start_agent(Rewriting(), backend=backend)
    assert (await agent.ask("hello")).text == "[hello]"
    with pytest.raises(RunFailed) as skipped:
        await agent.ask("skip me")
    assert skipped.value.reason.kind is ReasonKind.CANCELLED
    assert list(backend.prompts) == ["[hello]"]


class AsyncPhases(Behaviour[list[str]]):
    """Every callback async, as a behaviour doing I/O would be."""

    async def init_agent(self, opts: Any) -> Any:
        await asyncio.sleep(0)
        return {}, []

    async def pre_turn(self, prompt: Any, state: list[str]) -> Any:
        await asyncio.sleep(0)
        return Proceed(prompt, [*state, "collect"])

    async def handle_response(self, ref: int, response: Any, state: list[str]) -> Any:
        await asyncio.sleep(0)
        return Continue([*state, "act"])

    async def post_turn(self, result: TurnResult, ref: int, state: list[str]) -> list[str]:
        await asyncio.sleep(0)
        return [*state, "remember" if result.ok else "failed"]


async def test_async_callbacks_are_awaited_in_phase_order() -> None:
    agent = await start_agent(AsyncPhases(), backend=ScriptedBackend(["a", Fail()]))
    await agent.ask("x")
    with pytest.raises(RunFailed):
        await agent.ask("y")
    assert agent.status().agent_state == ["collect", "act", "remember", "collect", "failed"]


class FailingInit(Behaviour[None]):
    def init_agent(self, opts: Any) -> Any:
        raise ValueError("no credentials")


async def test_a_failing_init_fails_the_start() -> None:
    with pytest.raises(StartFailed, match="no credentials"):
        await start_agent(FailingInit(), backend=ScriptedBackend())


async def test_missing_backend_and_bad_limits_are_clear_config_errors() -> None:
    with pytest.raises(ConfigError, match="backend"):
        await start_agent()
    with pytest.raises(ConfigError, match="max_pending_prompts"):
        await start_agent(backend=ScriptedBackend(), max_pending_prompts=-1)


async def test_stop_runs_terminate_and_closes_the_backend_session() -> None:
    closed: list[Any] = []

    class Closing(ScriptedBackend):
        async def terminate_session(self, session: Any) -> None:
            closed.append(session["session_id"])

    agent = await start_agent(backend=Closing(["x"]))
    await agent.stop()  # type: ignore[misc]
    assert closed == ["scripted-1"]
    assert agent.status().state is AgentState.STOPPED


async def test_a_starting_agent_takes_its_first_request_even_with_a_zero_size_queue() -> None:
    from podium.agent.actor import Agent

    agent = Agent("a", Behaviour(), {"backend": ScriptedBackend(["first"]), "max_pending_prompts": 0})
    assert agent.status().state is AgentState.STARTING
    ref = agent.tell("accepted while starting")
    with pytest.raises(Overloaded):
        agent.tell("a second one has no room")
    await agent.ready()
    await until(lambda: agent.status().state is AgentState.IDLE and agent.status().queued == 0)
    done = agent.poll(ref)
    assert isinstance(done, Completed) and done.response.text == "first"
