"""Agents as Ray actors: the same session guarantees, with each agent in its own process (real Ray)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from podium.agent import Behaviour
from podium.agent.backend import BaseBackend
from podium.agent.events import Event
from podium.backends.scripted import Crash, Hang, ScriptedBackend
from podium.ensemble import AgentSpec, Session
from podium.ensemble.strategies import Solo
from podium.errors import ConfigError, ReasonKind, RunFailed

ray = pytest.importorskip("ray", reason="the `ray` extra is part of podium[test]")

from podium.runtime.ray import RayRuntime  # noqa: E402


@pytest.fixture(scope="module")
def runtime() -> Iterator[RayRuntime]:
    runtime = RayRuntime(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield runtime
    ray.shutdown()


class WherePid(BaseBackend):
    """Answers with the id of the process the turn ran in."""

    async def prompt(self, session: Any, prompt: Any) -> Any:  # type: ignore[override]
        yield Event.result(f"{prompt} from {os.getpid()}")


async def test_an_agent_runs_in_a_ray_actor_process(runtime: RayRuntime) -> None:
    async with Session.start(Solo(), name="ray-basic", runtime=runtime, backend=WherePid()) as session:
        reply = await session.ask("hello", timeout=60)
        text, _, pid = reply.text.rpartition(" from ")
        assert text == "hello" and int(pid) != os.getpid()
        token = session.tell("again")
        assert (await session.result(token, timeout=60)).text.startswith("again from ")
        assert session.status()["agents"] == ["solo"]


async def test_a_crash_in_the_actor_is_an_agent_down(runtime: RayRuntime) -> None:
    async with Session.start(Solo(), name="ray-crash", runtime=runtime, backend=ScriptedBackend([Crash("boom")])) as s:
        with pytest.raises(RunFailed) as failed:
            await s.ask("x", timeout=60)
        assert failed.value.reason.kind is ReasonKind.HALTED  # Solo halts when its agent dies
        assert "boom" in str(failed.value.reason)


async def test_a_killed_actor_process_is_an_agent_down(runtime: RayRuntime) -> None:
    session = await Session.start(Solo(), name="ray-kill", runtime=runtime, backend=ScriptedBackend([Hang()]))
    try:
        token = session.tell("hang")
        ray.kill(ray.get_actor("ray-kill/solo"))
        with pytest.raises(RunFailed) as failed:
            await session.result(token, timeout=60)
        assert failed.value.reason.kind is ReasonKind.HALTED
        assert failed.value.reason.root().kind is ReasonKind.AGENT_DOWN
    finally:
        await session.stop()


async def test_a_full_remote_queue_is_refused_at_once(runtime: RayRuntime) -> None:
    spec = AgentSpec("solo", Behaviour(), {"backend": ScriptedBackend([Hang()]), "max_pending_prompts": 0})
    async with Session.start(Solo(), name="ray-full", runtime=runtime, agent=spec) as session:
        session.tell("occupies the agent")
        with pytest.raises(RunFailed) as rejected:
            await session.ask("refused", timeout=60)
        assert rejected.value.reason.kind is ReasonKind.DISPATCH_REJECTED
        assert rejected.value.reason.cause.kind is ReasonKind.OVERLOADED  # type: ignore[union-attr]


async def test_unknown_ray_options_are_a_clear_error(runtime: RayRuntime) -> None:
    spec = AgentSpec("solo", Behaviour(), {"backend": ScriptedBackend(), "ray_options": {"colour": "red"}})
    with pytest.raises(ConfigError, match="unknown ray_options"):
        await Session.start(Solo(), name="ray-bad", runtime=runtime, agent=spec)
