"""The seams later layers plug into: the recorder sees every strategy input with its ops, agents are
started only through the runtime interface, and telemetry reaches the logging module."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest

from podium import telemetry
from podium.backends.scripted import Crash, ScriptedBackend
from podium.ensemble import AgentSpec, Dispatch, Reply, Session
from podium.ensemble.inputs import AgentDownInput, AskInput, Input, ResponseInput, TellInput
from podium.ensemble.ops import Halt, Op
from podium.ensemble.runtime import AgentHandle, LocalRuntime
from podium.ensemble.strategies import Solo
from podium.errors import Reason, RunFailed


class ListRecorder:
    def __init__(self) -> None:
        self.entries: list[tuple[str, Input, list[Op]]] = []

    def record(self, session: str, input: Input, ops: list[Op]) -> None:
        self.entries.append((session, input, ops))


async def test_the_recorder_sees_every_strategy_input_with_the_ops_it_produced() -> None:
    recorder = ListRecorder()
    async with Session.start(Solo(), name="rec", recorder=recorder, backend=ScriptedBackend(["a", "b"])) as session:
        await session.ask("one")
        await session.result(session.tell("two"))
    kinds = [type(i).__name__ for _, i, _ in recorder.entries]
    assert kinds == ["AskInput", "ResponseInput", "TellInput", "ResponseInput"]
    (_, ask, ask_ops), (_, answer, answer_ops) = recorder.entries[:2]
    assert isinstance(ask, AskInput) and ask.prompt == "one"
    assert ask_ops == [Dispatch("solo", "one", ask.token)]
    assert isinstance(answer, ResponseInput) and answer.token == ask.token
    assert answer_ops == [Reply(ask.token, answer.response)]
    assert all(name == "rec" for name, _, _ in recorder.entries)
    assert isinstance(recorder.entries[2][1], TellInput)


async def test_agent_down_is_recorded_with_the_tokens_it_affected() -> None:
    recorder = ListRecorder()
    async with Session.start(Solo(), recorder=recorder, backend=ScriptedBackend([Crash()])) as session:
        with pytest.raises(RunFailed):
            await session.ask("x")
    down = [(i, ops) for _, i, ops in recorder.entries if isinstance(i, AgentDownInput)]
    assert len(down) == 1
    event, ops = down[0]
    assert event.agent == "solo" and len(event.tokens) == 1 and isinstance(ops[0], Halt)


class CountingRuntime:
    """A second runtime: wraps the local one and counts what the session asks of it."""

    def __init__(self) -> None:
        self.inner = LocalRuntime()
        self.started: list[str] = []

    def start(self, address: str, spec: AgentSpec, on_down: Callable[[Reason], None]) -> AgentHandle:
        self.started.append(address)
        return self.inner.start(address, spec, on_down)


async def test_agents_are_started_through_the_runtime_interface_only() -> None:
    runtime = CountingRuntime()
    async with Session.start(Solo(), name="rt", runtime=runtime, backend=ScriptedBackend(["ok"])) as session:
        assert (await session.ask("x")).text == "ok"
    assert runtime.started == ["rt/solo"]


async def test_telemetry_to_logging_writes_structured_records(caplog: pytest.LogCaptureFixture) -> None:
    stop = telemetry.to_logging(logging.INFO)
    try:
        with caplog.at_level(logging.INFO, logger="podium.telemetry"):
            async with Session.start(Solo(), backend=ScriptedBackend(["hidden reply"])) as session:
                await session.ask("hidden prompt")
    finally:
        stop()
    records: list[Any] = [r for r in caplog.records if r.name == "podium.telemetry"]
    assert {r.podium_event for r in records} >= {"session.start", "token.start", "token.stop", "session.stop"}
    assert "hidden" not in caplog.text
    assert not telemetry.active()  # detached again: the hot path is back to one boolean test
