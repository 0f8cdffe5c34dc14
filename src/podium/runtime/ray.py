"""Agents as Ray actors, on this machine or across a Ray cluster (optional extra `ray`).

    session = await Session.start(strategy, runtime=RayRuntime(address="auto"), ...)

Each agent runs inside its own Ray actor process, hosting the same asyncio actor as the local runtime.
The session sees the same `AgentHandle` as ever: a dispatch is decided here and now (the handle keeps
the count of work it sent, so a full queue is refused at once, as locally), its completion comes back
when the remote turn ends, and a dead actor process is an agent down. Behaviours and backends travel
to the actor by pickling: use ones that can be pickled (module-level classes, no open connections).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from typing import Any

from podium.agent.actor import Agent
from podium.agent.backend import Prompt
from podium.agent.outcomes import Completion
from podium.agent.status import AgentState, AgentStatus, OnComplete
from podium.ensemble.ops import AgentSpec
from podium.errors import AgentNotRunning, ConfigError, Overloaded, Reason, ReasonKind, StartFailed

log = logging.getLogger("podium.runtime.ray")

try:
    import ray
except ImportError as exc:  # optional extra
    raise ImportError("podium.runtime.ray needs Ray: pip install 'podium[ray]'") from exc


@ray.remote(num_cpus=0)
class _AgentHost:
    """The Ray actor around one podium agent."""

    def __init__(self) -> None:
        self.agent: Agent | None = None

    async def start(self, address: str, behaviour: Any, opts: Mapping[str, Any]) -> None:
        self.agent = Agent(address, behaviour, opts)
        await self.agent.ready()

    async def prompt(self, prompt: str | Prompt) -> Completion:
        assert self.agent is not None
        done: asyncio.Future[Completion] = asyncio.get_running_loop().create_future()
        try:
            self.agent.tell_with_completion(prompt, done.set_result)
        except (Overloaded, AgentNotRunning) as exc:
            return Completion(self.agent.name, 0, None, exc.reason)
        return await done

    def notify(self, event: Any) -> None:
        assert self.agent is not None
        self.agent.notify(event)

    def interrupt(self) -> bool:
        return self.agent is not None and self.agent.interrupt()

    def status(self) -> AgentStatus | None:
        return None if self.agent is None else self.agent.status()

    async def stop(self, reason: Reason) -> None:
        if self.agent is not None:
            cleanup = self.agent.stop(reason)
            if cleanup is not None:
                await cleanup


class RayAgentHandle:
    """The session's side of an agent living in a Ray actor."""

    def __init__(self, address: str, spec: AgentSpec, on_down: Callable[[Reason], None],
                 actor_options: Mapping[str, Any]) -> None:
        self.name = address
        self._on_down = on_down
        self._max_prompts = int(spec.opts.get("max_pending_prompts", 1000))
        self._outstanding = 0
        self._state = AgentState.STARTING
        self._next_ref = 0
        self._tasks: set[asyncio.Task[Any]] = set()
        opts = {k: v for k, v in spec.opts.items() if k != "ray_options"}
        self._actor = _AgentHost.options(name=address, **actor_options).remote()  # type: ignore[attr-defined]
        self._started = self._actor.start.remote(address, spec.behaviour, opts)

    @property
    def alive(self) -> bool:
        return self._state not in (AgentState.STOPPED, AgentState.DOWN)

    async def ready(self) -> None:
        try:
            await self._started
        except Exception as exc:
            self._state = AgentState.DOWN
            raise StartFailed(f"agent {self.name!r} failed to start on Ray: {_cause(exc)}") from exc
        if self._state is AgentState.STARTING:
            self._state = AgentState.IDLE

    def tell_with_completion(self, prompt: str | Prompt, on_complete: OnComplete) -> int:
        if not self.alive:
            raise AgentNotRunning(Reason(ReasonKind.AGENT_NOT_RUNNING, f"agent is {self._state.value}", self.name))
        # One request may run while the others wait in the remote mailbox: refuse here what it would refuse.
        if self._outstanding >= 1 and self._outstanding - 1 >= self._max_prompts:
            raise Overloaded(Reason(ReasonKind.OVERLOADED, f"prompt queue full ({self._max_prompts})", self.name))
        self._next_ref += 1
        ref = self._next_ref
        self._outstanding += 1
        self._spawn(self._await_completion(ref, self._actor.prompt.remote(prompt), on_complete))
        return ref

    async def _await_completion(self, ref: int, pending: Any, on_complete: OnComplete) -> None:
        try:
            completion: Completion = await pending
            reason = completion.reason
            if reason is not None and reason.kind is ReasonKind.AGENT_DOWN:
                self._down(reason.cause or reason)
            completion = Completion(self.name, ref, completion.response, reason)
        except Exception as exc:  # the actor process died, or Ray lost it
            reason = Reason(ReasonKind.AGENT_DOWN, f"Ray actor lost: {_cause(exc)}", self.name)
            self._down(reason)
            completion = Completion(self.name, ref, None, reason)
        finally:
            self._outstanding -= 1
        on_complete(completion)

    def _down(self, reason: Reason) -> None:
        if self.alive:
            self._state = AgentState.DOWN
            self._on_down(reason)

    def notify(self, event: Any) -> None:
        if not self.alive:
            raise AgentNotRunning(Reason(ReasonKind.AGENT_NOT_RUNNING, f"agent is {self._state.value}", self.name))
        self._actor.notify.remote(event)

    def interrupt(self) -> bool:
        if not self.alive or self._outstanding == 0:
            return False
        self._actor.interrupt.remote()
        return True

    def status(self) -> AgentStatus:
        state = self._state
        if state is AgentState.IDLE and self._outstanding:
            state = AgentState.PROCESSING
        return AgentStatus(self.name, state, max(self._outstanding - 1, 0), None, False, None)

    async def remote_status(self) -> AgentStatus | None:
        """The agent's full status, asked of the actor (its state included)."""
        return await self._actor.status.remote()

    def stop(self, reason: Reason | None = None) -> asyncio.Task[None] | None:
        if not self.alive:
            return None
        self._state = AgentState.STOPPED
        reason = reason or Reason(ReasonKind.STOPPED, "agent stopped", self.name)
        return self._spawn(self._stop(reason))

    async def _stop(self, reason: Reason) -> None:
        try:
            await asyncio.wait_for(self._actor.stop.remote(reason), timeout=30)
        except Exception as exc:
            log.warning("agent %s: clean stop on Ray failed (%s); killing the actor", self.name, _cause(exc))
        ray.kill(self._actor)

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task


class RayRuntime:
    """Starts each agent in a Ray actor. Connects to `address` (a cluster, "auto", or None for a local
    Ray started here); `actor_options` (e.g. `{"resources": {"gpu_node": 1}}`) apply to every agent, and
    an agent's own `ray_options` in its spec override them."""

    def __init__(self, address: str | None = None, *, namespace: str = "podium",
                 actor_options: Mapping[str, Any] | None = None, **init_kwargs: Any) -> None:
        if not ray.is_initialized():
            ray.init(address=address, namespace=namespace, **init_kwargs)
        self._actor_options = dict(actor_options or {})

    def start(self, address: str, spec: AgentSpec, on_down: Callable[[Reason], None]) -> RayAgentHandle:
        if "backend" not in spec.opts:
            raise ConfigError(f"agent {spec.name!r}: opts must hold 'backend'")
        unknown = set(spec.opts.get("ray_options", {})) - {"resources", "num_cpus", "num_gpus", "memory",
                                                           "scheduling_strategy", "runtime_env", "max_restarts"}
        if unknown:
            raise ConfigError(f"agent {spec.name!r}: unknown ray_options {sorted(unknown)}")
        options = {**self._actor_options, **spec.opts.get("ray_options", {})}
        return RayAgentHandle(address, spec, on_down, options)


def _cause(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"


__all__ = ["RayAgentHandle", "RayRuntime"]
