"""One agent's bounds, as gen_agent has them: what may wait (counts and bytes), what starts at once,
the self-chain's own slot, what a turn keeps of a long stream; and being killed."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from podium.agent import AgentState, Behaviour, Completion, Continue, PromptAgain, start_agent
from podium.agent.actor import Agent
from podium.agent.backend import BaseBackend
from podium.agent.events import Event
from podium.backends.scripted import Crash, Say, ScriptedBackend
from podium.errors import ConfigError, Overloaded, Reason, ReasonKind, RunFailed
from tests.support import GateBackend, settle, until

KIB = 1024


# --------------------------------------------------------------------------- a zero-size mailbox


async def test_a_zero_size_mailbox_takes_work_sent_from_its_own_completion() -> None:
    """The completion goes out once the agent is idle: a prompt sent from it starts at once."""
    backend = ScriptedBackend(lambda prompt: f"re: {prompt}")
    agent = await start_agent(backend=backend, max_pending_prompts=0)
    answers: list[str] = []
    refusals: list[str] = []

    def next_one(completion: Completion) -> None:
        assert completion.response is not None
        answers.append(completion.response.text)
        if len(answers) < 3:
            agent.tell_with_completion(f"prompt {len(answers) + 1}", next_one)
            try:  # a second prompt from the same completion has no room: the first one is running
                agent.tell_with_completion("one too many", next_one)
            except Overloaded as exc:
                refusals.append(exc.reason.detail)

    agent.tell_with_completion("prompt 1", next_one)
    await until(lambda: len(answers) == 3)
    assert answers == ["re: prompt 1", "re: prompt 2", "re: prompt 3"]
    assert refusals == ["prompt queue full (0 prompts)"] * 2
    assert list(backend.prompts) == ["prompt 1", "prompt 2", "prompt 3"]


class ChainOnce(Behaviour[bool]):
    def init_agent(self, opts: Any) -> tuple[dict[str, Any], bool]:
        return {}, False

    def handle_response(self, ref: int, response: Any, chained: bool) -> Any:
        return Continue(True) if chained else PromptAgain("follow-up", True)


async def test_a_self_chained_prompt_has_its_own_slot_outside_the_mailbox() -> None:
    backend = GateBackend()
    agent = await start_agent(ChainOnce(), backend=backend, max_pending_prompts=1)
    outcomes: list[Any] = []

    def from_completion(completion: Completion) -> None:
        # The follow-up is committed but has not started: the mailbox's one slot is still free...
        outcomes.append(agent.tell("queued"))
        try:  # ...and holds one prompt, not two
            agent.tell("no room")
        except Overloaded as exc:
            outcomes.append(exc.reason.kind)

    agent.tell_with_completion("start", from_completion)
    await until(lambda: "start" in backend.waiting)
    backend.succeed("start")
    await until(lambda: "follow-up" in backend.waiting)  # the chain runs ahead of the mailbox
    assert outcomes[1] is ReasonKind.OVERLOADED and agent.status().queued == 1
    backend.succeed("follow-up")
    await until(lambda: "queued" in backend.waiting)
    backend.succeed("queued")
    await until(lambda: agent.status().state is AgentState.IDLE)
    assert backend.seen == ["start", "follow-up", "queued"]


async def test_a_prompt_sent_from_a_completion_waits_behind_a_self_chain() -> None:
    """With no mailbox room, work sent while the agent is committed to its follow-up is refused."""
    backend = GateBackend()
    agent = await start_agent(ChainOnce(), backend=backend, max_pending_prompts=0)
    refused: list[Overloaded] = []

    def from_completion(completion: Completion) -> None:
        try:
            agent.tell("refused")
        except Overloaded as exc:
            refused.append(exc)

    agent.tell_with_completion("start", from_completion)
    await until(lambda: "start" in backend.waiting)
    backend.succeed("start")
    await until(lambda: "follow-up" in backend.waiting)
    assert len(refused) == 1


# --------------------------------------------------------------------------- byte limits


async def test_queued_prompts_are_capped_at_one_mib_by_default() -> None:
    backend = GateBackend()
    agent = await start_agent(backend=backend)
    agent.tell("busy")
    await until(lambda: "busy" in backend.waiting)
    half = "x" * (512 * KIB)
    agent.tell(half)
    agent.tell(half)  # 1 MiB queued: the limit, not past it
    with pytest.raises(Overloaded) as refused:
        agent.tell(half)
    assert refused.value.reason.kind is ReasonKind.OVERLOADED
    assert "1,048,576" in refused.value.reason.detail and "bytes" in refused.value.reason.detail
    with pytest.raises(Overloaded):
        agent.tell("small")  # 1 MiB waits: full, whatever the count
    assert agent.status().queued == 2  # the refused ones queued nothing
    backend.succeed("busy")
    await until(lambda: half in backend.waiting)  # one left the mailbox: 512 KiB of room
    with pytest.raises(Overloaded):
        agent.tell("é" * (256 * KIB + 1))  # counted in UTF-8 bytes: 2 per character
    agent.tell("é" * (256 * KIB))
    assert agent.status().queued == 2


async def test_the_byte_limit_is_an_option_and_counts_what_waits() -> None:
    backend = GateBackend()
    agent = await start_agent(backend=backend, max_pending_prompt_bytes=10)
    agent.tell("a prompt far longer than ten bytes: an idle agent starts it at once")
    await until(lambda: backend.waiting)
    agent.tell("0123456789")
    with pytest.raises(Overloaded):
        agent.tell("x")
    backend.succeed(next(iter(backend.waiting)))
    await until(lambda: "0123456789" in backend.waiting)  # it left the mailbox: room again
    agent.tell("0123456789")
    assert agent.status().queued == 1


async def test_queued_notifications_are_capped_in_bytes() -> None:
    backend = GateBackend()
    agent = await start_agent(backend=backend)
    agent.tell("busy")
    await until(lambda: "busy" in backend.waiting)
    big = {"payload": b"x" * (600 * KIB)}
    agent.notify(big)
    with pytest.raises(Overloaded) as refused:
        agent.notify(big)
    assert "notification queue full" in refused.value.reason.detail
    agent.notify({"small": 1})


async def test_an_idle_agent_handles_a_notification_at_once_even_with_a_zero_size_queue() -> None:
    seen: list[Any] = []

    class Listening(Behaviour[None]):
        def handle_event(self, event: Any, state: None) -> Any:
            seen.append(event)
            return Continue(state)

    agent = await start_agent(Listening(), backend=ScriptedBackend(), max_pending_notifications=0)
    agent.notify("hello")
    await until(lambda: seen == ["hello"])


async def test_bad_limits_are_clear_errors() -> None:
    for key, value in (("max_pending_prompt_bytes", -1), ("max_turn_events", 0), ("max_turn_bytes", "1MB")):
        with pytest.raises(ConfigError, match=key):
            await start_agent(backend=ScriptedBackend(), **{key: value})


# --------------------------------------------------------------------------- capture per turn


class Firehose(BaseBackend):
    """Streams `count` text deltas of `size` characters, a usage report at the end, then a result
    without text (the response text is the deltas)."""

    def __init__(self, count: int, size: int = 1) -> None:
        self.count = count
        self.size = size

    async def prompt(self, session: Any, prompt: Any) -> Any:  # type: ignore[override]
        for i in range(self.count):
            yield Event.text(str(i % 10) * self.size)
        yield Event.usage(3, self.count)
        yield Event.result()


async def test_a_long_stream_keeps_1000_events_and_the_whole_text() -> None:
    agent = await start_agent(backend=Firehose(5000))
    response = await agent.ask("go")
    assert len(response.events) == 1000
    assert response.events[-1].kind.value == "result"
    assert response.dropped_events == 5001 - 999  # the usage report was past the bound too
    assert response.text == "".join(str(i % 10) for i in range(5000))
    assert response.usage is not None and response.usage.output_tokens == 5000  # the last report, though dropped


async def test_a_turn_keeps_at_most_one_mib_of_events() -> None:
    agent = await start_agent(backend=Firehose(8, size=200 * KIB))
    response = await agent.ask("go")
    kept = [e for e in response.events if e.kind.value == "text"]
    assert len(kept) == 5 and sum(len(e.data["text"]) for e in kept) <= 1 << 20
    assert len(response.text) == 8 * 200 * KIB
    assert response.dropped_events == 4  # three text deltas and the usage report


async def test_the_capture_bounds_are_options() -> None:
    agent = await start_agent(backend=Firehose(50), max_turn_events=10)
    response = await agent.ask("go")
    assert len(response.events) == 10 and response.dropped_events == 42
    assert len(response.text) == 50


async def test_a_short_stream_keeps_every_event() -> None:
    agent = await start_agent(backend=ScriptedBackend([Say("hello world", chunks=3, usage=(5, 2))]))
    response = await agent.ask("hi")
    assert len(response.events) == 5 and response.dropped_events == 0


# --------------------------------------------------------------------------- kill, and crashes on cue


async def test_kill_takes_the_agent_down_like_a_crash() -> None:
    closed: list[Any] = []

    class Closing(GateBackend):
        async def terminate_session(self, session: Any) -> None:
            closed.append(session)

    downs: list[Reason] = []
    backend = Closing()
    agent = Agent("k", Behaviour(), {"backend": backend}, on_down=downs.append)
    await agent.ready()
    running = asyncio.ensure_future(agent.ask("running"))
    await until(lambda: "running" in backend.waiting)
    queued = agent.tell("queued")
    agent.kill()
    with pytest.raises(RunFailed) as failed:
        await running
    assert failed.value.reason.kind is ReasonKind.AGENT_DOWN
    assert failed.value.reason.root().kind is ReasonKind.KILLED
    assert agent.poll(queued).reason.kind is ReasonKind.AGENT_DOWN  # type: ignore[union-attr]
    assert [d.kind for d in downs] == [ReasonKind.KILLED]
    assert agent.status().state is AgentState.DOWN
    await until(lambda: closed)  # its backend session is closed, as on any way down
    agent.kill()  # killing a dead agent does nothing
    assert len(downs) == 1


async def test_a_scripted_crash_waits_for_its_signal() -> None:
    go = asyncio.Event()
    agent = await start_agent(backend=ScriptedBackend([Crash("on cue", signal=go)]))
    turn = asyncio.ensure_future(agent.ask("x"))
    await settle()
    assert agent.status().state is AgentState.PROCESSING  # nothing happens until the signal
    go.set()
    with pytest.raises(RunFailed) as failed:
        await turn
    assert failed.value.reason.kind is ReasonKind.AGENT_DOWN and "on cue" in failed.value.reason.detail
    assert not agent.alive


async def test_a_scripted_crash_after_a_delay() -> None:
    agent = await start_agent(backend=ScriptedBackend([Crash("later", delay=0.05)]))
    with pytest.raises(RunFailed) as failed:
        await agent.ask("x")
    assert failed.value.reason.kind is ReasonKind.AGENT_DOWN and "later" in failed.value.reason.detail


class HaltFirst(Behaviour[int]):
    """pre_turn halts the agent once, keeping the request for after resume()."""

    def init_agent(self, opts: Any) -> tuple[dict[str, Any], int]:
        return {}, 0

    def pre_turn(self, prompt: Any, halts: int) -> Any:
        from podium.agent import HaltAgent, Proceed

        return HaltAgent(halts + 1) if halts == 0 and prompt == "second" else Proceed(prompt, halts)


async def test_a_request_put_back_by_a_halt_still_counts_against_the_byte_limit() -> None:
    backend = GateBackend()
    agent = await start_agent(HaltFirst(), backend=backend, max_pending_prompt_bytes=12)
    agent.tell("first")
    await until(lambda: "first" in backend.waiting)
    agent.tell("second")  # 6 bytes wait
    backend.succeed("first")
    await until(lambda: agent.status().halted)  # "second" was taken, pre_turn halted: it waits again
    agent.tell("third!")  # 6 more: 12, the limit
    with pytest.raises(Overloaded):
        agent.tell("x")
    agent.resume()
    await until(lambda: "second" in backend.waiting)
    backend.succeed("second")
    await until(lambda: "third!" in backend.waiting)
    backend.succeed("third!")
    await until(lambda: agent.status().state is AgentState.IDLE and agent.status().queued == 0)
    agent.tell("idle again")  # nothing is left counted: an idle agent takes it, and the next fits
    agent.tell("0123456789ab")
