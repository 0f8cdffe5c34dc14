"""Agents as Ray actors: the same session guarantees, with each agent in its own process (real Ray)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

import podium
from podium.agent import Behaviour
from podium.agent.backend import BaseBackend
from podium.agent.events import Event
from podium.backends.scripted import Crash, Hang, ScriptedBackend
from podium.ensemble import AgentSpec, Dispatch, Reply, ReplyError, Session, Start, Strategy
from podium.ensemble.strategies import Pool, Solo, Switchboard
from podium.errors import ConfigError, ReasonKind, RunFailed, StartFailed

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


# --------------------------------------------------------------------------- packing, kill, limits, errors


async def test_agents_packed_into_shared_actors_stay_isolated() -> None:
    """Three agents per actor process: four agents take two processes; a crash takes down one agent only."""
    packed = RayRuntime(agents_per_actor=3)
    agents = [AgentSpec(n, Behaviour(), {"backend": WherePid()}) for n in ("a", "b", "c")]
    agents.append(AgentSpec("d", Behaviour(), {"backend": ScriptedBackend([Crash("d broke")])}))
    async with Session.start(Switchboard(agents=agents), name="ray-packed", runtime=packed) as session:
        pids = {n: (await session.ask("pid?", agent=n, timeout=60)).text.rpartition(" ")[2] for n in "abc"}
        assert len(set(pids.values())) == 1 and int(pids["a"]) != os.getpid()  # a, b, c share one process
        with pytest.raises(RunFailed) as crashed:
            await session.ask("crash", agent="d", timeout=60)
        assert crashed.value.reason.kind is ReasonKind.AGENT_DOWN
        assert session.agents() == ["a", "b", "c"]
        assert (await session.ask("still there?", agent="a", timeout=60)).text.endswith(pids["a"])


async def test_a_killed_ray_agent_is_an_agent_down(runtime: RayRuntime) -> None:
    agents = [AgentSpec("hangs", Behaviour(), {"backend": ScriptedBackend([Hang()])}),
              AgentSpec("answers", Behaviour(), {"backend": WherePid()})]
    async with Session.start(Switchboard(agents=agents), name="ray-killed", runtime=runtime) as session:
        token = session.tell("wait", agent="hangs")
        assert session.agent("hangs").kill("operator")
        with pytest.raises(RunFailed) as failed:
            await session.result(token, timeout=60)
        assert failed.value.reason.kind is ReasonKind.AGENT_DOWN
        assert failed.value.reason.root().kind is ReasonKind.KILLED
        assert session.agents() == ["answers"]
        assert (await session.ask("ok?", agent="answers", timeout=60)).text.startswith("ok? from ")


async def test_a_zero_size_remote_mailbox_takes_work_from_its_own_completion(runtime: RayRuntime) -> None:
    worker = AgentSpec("w", Behaviour(), {"backend": ScriptedBackend(lambda p: p.upper()), "max_pending_prompts": 0})
    async with Session.start(Pool(worker_template=worker, worker_count=1), name="ray-zero", runtime=runtime) as s:
        tokens = [s.tell(p) for p in ("one", "two", "three")]
        assert [(await s.result(t, timeout=60)).text for t in tokens] == ["ONE", "TWO", "THREE"]


async def test_the_byte_limit_of_a_remote_mailbox_is_refused_at_once(runtime: RayRuntime) -> None:
    spec = AgentSpec("solo", Behaviour(), {"backend": ScriptedBackend([Hang()], default="ok")})
    async with Session.start(Solo(agent=spec), name="ray-bytes", runtime=runtime) as session:
        session.tell("occupies the agent")
        half = "x" * (512 * 1024)
        tokens = [session.tell(half) for _ in range(3)]
        refused = session.poll(tokens[2])
        assert refused.reason.kind is ReasonKind.DISPATCH_REJECTED  # type: ignore[union-attr]
        assert "bytes" in refused.reason.detail  # type: ignore[union-attr]
        assert [type(session.poll(t)).__name__ for t in tokens[:2]] == ["Pending", "Pending"]


NO_CLUSTER = """
import ray._private.services as services


def no_cluster():  # this machine runs no Ray cluster (other tests on it may run theirs)
    return []


no_cluster.cache_clear = lambda: None
services.find_gcs_addresses = no_cluster
from podium.runtime.ray import RayRuntime
RayRuntime(address="auto")
"""


def test_auto_without_a_cluster_is_a_one_line_podium_error(tmp_path: Any) -> None:
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"} | {"RAY_TMPDIR": str(tmp_path)}
    run = subprocess.run([sys.executable, "-c", NO_CLUSTER], capture_output=True, text=True, timeout=120, env=env)
    assert run.returncode == 1
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("podium.errors.StartFailed: RayRuntime: could not connect to Ray at address='auto': "
                           "ConnectionError: Could not find any running Ray instance.")
    assert "ray/_private" not in run.stderr  # no Ray traceback: podium's error says it all


def test_bad_runtime_options_are_clear_errors() -> None:
    with pytest.raises(ConfigError, match="agents_per_actor must be an integer >= 1"):
        RayRuntime(agents_per_actor=0)
    with pytest.raises(ConfigError, match="unknown actor_options"):
        RayRuntime(actor_options={"colour": "red"})


class Phoenix(Strategy[tuple[AgentSpec, tuple[str, ...]]]):
    """One agent, started again under the same name whenever it goes down."""

    def init(self, opts: Any) -> Any:
        return (opts["agent"], ()), [opts["agent"]]

    def handle_tell(self, prompt: Any, opts: Any, token: str, s: Any) -> Any:
        return [Dispatch(s[0].name, prompt, token)], (s[0], (*s[1], token))

    def handle_response(self, agent: str, response: Any, s: Any) -> Any:
        return [Reply(s[1][0], response)], (s[0], s[1][1:])

    def handle_agent_down(self, agent: str, reason: Any, s: Any) -> Any:
        spec = s[0]
        return [*(ReplyError(t, reason) for t in s[1]), Start(spec.name, spec.behaviour, spec.opts)], (spec, ())


async def test_an_agent_restarted_under_its_name_starts_in_a_new_actor(runtime: RayRuntime) -> None:
    """Ray may not have released the name of the dead agent's actor yet: the new one starts all the same."""
    backend = ScriptedBackend(lambda prompt: Crash("first life") if prompt == "crash" else prompt.upper())
    async with Session.start(Phoenix(agent=AgentSpec("w", Behaviour(), {"backend": backend})), name="ray-phoenix",
                             runtime=runtime) as session:
        with pytest.raises(RunFailed) as crashed:
            await session.ask("crash", timeout=60)
        assert crashed.value.reason.kind is ReasonKind.AGENT_DOWN
        assert (await session.ask("again", timeout=60)).text == "AGAIN"


class FailsToStart(Behaviour[None]):
    def init_agent(self, opts: Any) -> Any:
        raise RuntimeError("no licence")


async def test_an_agent_failing_to_start_on_ray_fails_the_session_start(runtime: RayRuntime) -> None:
    spec = AgentSpec("solo", FailsToStart(), {"backend": ScriptedBackend()})
    with pytest.raises(StartFailed, match="no licence"):
        await Session.start(Solo(agent=spec), name="ray-nostart", runtime=runtime)
    assert podium.find_session("ray-nostart") is None
