"""Agents as Ray actors, on this machine or across a Ray cluster (optional extra `ray`).

    session = await Session.start(strategy, runtime=RayRuntime(address="auto"), ...)

Agents run inside Ray actor processes, each hosting the same asyncio agent as the local runtime: by
default one agent per actor (named by the agent's address, `<session>/<name>`, so `ray.get_actor`
finds it), or `agents_per_actor=K` agents packed into each actor process (a Ray worker process costs
tens of MB: two hundred agents need not be two hundred processes). The session sees the same
`AgentHandle` as ever: a dispatch is decided here and now (the handle mirrors the agent's mailbox
bounds, in count and bytes, so a full queue is refused at once, as locally), its completion comes back
when the remote turn ends, and an agent that crashes, is killed, or whose actor process dies is an
agent down. Behaviours and backends travel to the actor by pickling: use ones that can be pickled
(module-level classes, no open connections).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

from podium.agent.actor import Agent
from podium.agent.backend import Prompt
from podium.agent.limits import AgentLimits
from podium.agent.outcomes import Completion
from podium.agent.sizes import payload_size
from podium.agent.status import AgentState, AgentStatus, OnComplete
from podium.ensemble.ops import AgentSpec
from podium.errors import AgentNotRunning, ConfigError, Overloaded, Reason, ReasonKind, StartFailed

log = logging.getLogger("podium.runtime.ray")

try:
    import ray
except ImportError as exc:  # optional extra
    raise ImportError("podium.runtime.ray needs Ray: pip install 'podium[ray]'") from exc

RAY_OPTIONS = frozenset({"resources", "num_cpus", "num_gpus", "memory", "scheduling_strategy", "runtime_env",
                         "max_restarts", "max_concurrency"})


@ray.remote(num_cpus=0)
class _AgentHost:
    """The Ray actor around one or several podium agents, by address."""

    def __init__(self) -> None:
        self.agents: dict[str, Agent] = {}

    async def start(self, address: str, behaviour: Any, opts: Mapping[str, Any]) -> None:
        agent = Agent(address, behaviour, opts)
        self.agents[address] = agent
        try:
            await agent.ready()
        except BaseException:
            self.agents.pop(address, None)
            raise

    async def prompt(self, address: str, prompt: str | Prompt) -> Completion:
        agent = self.agents.get(address)
        if agent is None:
            return Completion(address, 0, None, Reason(ReasonKind.AGENT_NOT_RUNNING, "not on this host", address))
        done: asyncio.Future[Completion] = asyncio.get_running_loop().create_future()
        try:
            agent.tell_with_completion(prompt, done.set_result)
        except (Overloaded, AgentNotRunning) as exc:
            return Completion(address, 0, None, exc.reason)
        completion = await done
        if not agent.alive:  # it went down: the host lets go of it (the driver hears of it from this completion)
            self.agents.pop(address, None)
        return completion

    def notify(self, address: str, event: Any) -> None:
        self.agents[address].notify(event)

    def interrupt(self, address: str) -> bool:
        agent = self.agents.get(address)
        return agent is not None and agent.interrupt()

    def status(self, address: str) -> AgentStatus | None:
        agent = self.agents.get(address)
        return None if agent is None else agent.status()

    async def stop(self, address: str, reason: Reason) -> None:
        agent = self.agents.pop(address, None)
        if agent is not None:
            cleanup = agent.stop(reason)
            if cleanup is not None:
                await cleanup

    def kill(self, address: str, reason: Reason) -> None:
        agent = self.agents.pop(address, None)
        if agent is not None:
            agent.kill(reason)


class _Host:
    """The driver's side of one host actor: how many agents it holds, how many it may."""

    __slots__ = ("actor", "agents", "capacity")

    def __init__(self, actor: Any, capacity: int) -> None:
        self.actor = actor
        self.capacity = capacity
        self.agents = 0


class RayAgentHandle:
    """The session's side of an agent living in a Ray actor."""

    def __init__(self, address: str, spec: AgentSpec, on_down: Callable[[Reason], None], host: _Host,
                 release: Callable[[_Host], None]) -> None:
        self.name = address
        self._on_down = on_down
        self._limits = AgentLimits.from_opts(spec.opts, address)
        self._sizes: deque[int] = deque()  # per request out, oldest first: the bytes it holds while it waits
        self._bytes = 0
        self._state = AgentState.STARTING
        self._next_ref = 0
        self._tasks: set[asyncio.Task[Any]] = set()
        self._host = host
        self._release = release
        opts = {k: v for k, v in spec.opts.items() if k != "ray_options"}
        started = host.actor.start.remote(address, spec.behaviour, opts)
        # An async actor may run a call before an earlier one whose arguments take longer to arrive (the
        # start's behaviour and backend): nothing else is sent to the agent before its start has ended.
        self._boot = asyncio.get_running_loop().create_task(self._wait_started(started))
        self._boot.add_done_callback(lambda boot: boot.cancelled() or boot.exception())  # retrieved

    @property
    def alive(self) -> bool:
        return self._state not in (AgentState.STOPPED, AgentState.DOWN)

    async def ready(self) -> None:
        await asyncio.shield(self._boot)

    async def _wait_started(self, started: Any) -> None:
        try:
            await started
        except Exception as exc:
            # Like a local agent whose init failed: down (a running session hears of it), StartFailed.
            self._down(Reason(ReasonKind.INIT_FAILED, _cause(exc), self.name))
            raise StartFailed(f"agent {self.name!r} failed to start on Ray: {_cause(exc)}") from exc
        if self._state is AgentState.STARTING:
            self._state = AgentState.IDLE

    def tell_with_completion(self, prompt: str | Prompt, on_complete: OnComplete) -> int:
        if not self.alive:
            raise AgentNotRunning(Reason(ReasonKind.AGENT_NOT_RUNNING, f"agent is {self._state.value}", self.name))
        # One request runs while the others wait in the remote mailbox: refuse here what it would refuse.
        size = 0
        if self._sizes:
            limits, waiting = self._limits, len(self._sizes) - 1
            size = payload_size(prompt)
            queued = self._bytes - self._sizes[0]
            if waiting >= limits.max_prompts:
                self._refuse(f"prompt queue full ({limits.max_prompts} prompts)")
            if queued + size > limits.max_prompt_bytes:
                self._refuse(f"prompt queue full: {size:,} bytes would exceed {limits.max_prompt_bytes:,} "
                             f"({queued:,} queued)")
        self._next_ref += 1
        ref = self._next_ref
        self._sizes.append(size)
        self._bytes += size
        self._spawn(self._await_completion(ref, prompt, on_complete))
        return ref

    def _refuse(self, why: str) -> None:
        raise Overloaded(Reason(ReasonKind.OVERLOADED, why, self.name))

    async def _await_completion(self, ref: int, prompt: str | Prompt, on_complete: OnComplete) -> None:
        try:
            if not self._boot.done():
                await asyncio.shield(self._boot)
            completion: Completion = await self._host.actor.prompt.remote(self.name, prompt)
            reason = completion.reason
            if reason is not None and reason.kind is ReasonKind.AGENT_DOWN:
                self._down(reason.cause or reason)
            completion = Completion(self.name, ref, completion.response, reason)
        except StartFailed as exc:
            reason = Reason(ReasonKind.AGENT_DOWN, str(exc), self.name)
            completion = Completion(self.name, ref, None, reason)
        except Exception as exc:  # the actor process died, or Ray lost it
            reason = Reason(ReasonKind.AGENT_DOWN, f"Ray actor lost: {_cause(exc)}", self.name)
            self._down(reason)
            completion = Completion(self.name, ref, None, reason)
        finally:
            # Before the completion goes out: work it sends back to this agent finds the room it left.
            if self._sizes:
                self._bytes -= self._sizes.popleft()
        on_complete(completion)

    def _down(self, reason: Reason) -> None:
        if self.alive:
            self._state = AgentState.DOWN
            self._release(self._host)
            self._on_down(reason)

    def notify(self, event: Any) -> None:
        if not self.alive:
            raise AgentNotRunning(Reason(ReasonKind.AGENT_NOT_RUNNING, f"agent is {self._state.value}", self.name))
        if self._boot.done():
            self._host.actor.notify.remote(self.name, event)
        else:
            self._spawn(self._notify_when_started(event))

    async def _notify_when_started(self, event: Any) -> None:
        with contextlib.suppress(StartFailed):
            await asyncio.shield(self._boot)
            self._host.actor.notify.remote(self.name, event)

    def interrupt(self) -> bool:
        if not self.alive or not self._sizes or not self._boot.done():
            return False
        self._host.actor.interrupt.remote(self.name)
        return True

    def status(self) -> AgentStatus:
        state = self._state
        if state is AgentState.IDLE and self._sizes:
            state = AgentState.PROCESSING
        return AgentStatus(self.name, state, max(len(self._sizes) - 1, 0), None, False, None)

    async def remote_status(self) -> AgentStatus | None:
        """The agent's full status, asked of the actor (its state included)."""
        return await self._host.actor.status.remote(self.name)

    def stop(self, reason: Reason | None = None) -> asyncio.Task[None] | None:
        if not self.alive:
            return None
        self._state = AgentState.STOPPED
        reason = reason or Reason(ReasonKind.STOPPED, "agent stopped", self.name)
        return self._spawn(self._stop(reason))

    async def _stop(self, reason: Reason) -> None:
        try:
            await asyncio.wait_for(self._host.actor.stop.remote(self.name, reason), timeout=30)
        except Exception as exc:
            log.warning("agent %s: clean stop on Ray failed (%s)", self.name, _cause(exc))
        self._release(self._host)

    def kill(self, reason: Reason | None = None) -> None:
        """Down now (the session hears of it at once); the agent is killed inside its actor."""
        if not self.alive:
            return
        reason = reason or Reason(ReasonKind.KILLED, "killed", self.name)
        self._host.actor.kill.remote(self.name, reason)
        self._down(reason)

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task


class RayRuntime:
    """Starts agents in Ray actors. Connects to `address` (a cluster, "auto", or None for a local Ray
    started here; StartFailed in one line when there is none to connect to).

    `agents_per_actor` (default 1) packs that many agents into each actor process. `actor_options`
    (e.g. `{"resources": {"gpu_node": 1}}`) apply to every actor; an agent's own `ray_options` in its
    spec override them and give it an actor of its own."""

    def __init__(self, address: str | None = None, *, namespace: str = "podium", agents_per_actor: int = 1,
                 actor_options: Mapping[str, Any] | None = None, **init_kwargs: Any) -> None:
        if not isinstance(agents_per_actor, int) or isinstance(agents_per_actor, bool) or agents_per_actor < 1:
            raise ConfigError(f"RayRuntime: agents_per_actor must be an integer >= 1, got {agents_per_actor!r}")
        unknown = set(actor_options or {}) - RAY_OPTIONS
        if unknown:
            raise ConfigError(f"RayRuntime: unknown actor_options {sorted(unknown)}; known: {sorted(RAY_OPTIONS)}")
        if not ray.is_initialized():
            try:
                ray.init(address=address, namespace=namespace, **init_kwargs)
            except (ConnectionError, TimeoutError, RuntimeError, ValueError) as exc:
                where = "a new local Ray instance" if address is None else f"Ray at address={address!r}"
                raise StartFailed(f"RayRuntime: could not connect to {where}: {_cause(exc)} (start a cluster "
                                  "with `ray start --head`, or pass address=None to start Ray here)") from None
        self._actor_options = dict(actor_options or {})
        self._per_actor = agents_per_actor
        self._open: _Host | None = None  # the shared host still taking agents

    def start(self, address: str, spec: AgentSpec, on_down: Callable[[Reason], None]) -> RayAgentHandle:
        if "backend" not in spec.opts:
            raise ConfigError(f"agent {spec.name!r}: opts must hold 'backend'")
        own = spec.opts.get("ray_options", {})
        unknown = set(own) - RAY_OPTIONS
        if unknown:
            raise ConfigError(f"agent {spec.name!r}: unknown ray_options {sorted(unknown)}; known: "
                              f"{sorted(RAY_OPTIONS)}")
        if self._per_actor == 1 or own:
            options = {**self._actor_options, **own}
            try:
                actor = _AgentHost.options(name=address, **options).remote()  # type: ignore[attr-defined]
            except ValueError:  # the name is still held by the actor of an agent of that name that just ended
                actor = _AgentHost.options(name=f"{address}#{uuid.uuid4().hex[:8]}", **options).remote()  # type: ignore[attr-defined]
            host = _Host(actor, 1)
        else:
            if self._open is None or self._open.agents >= self._open.capacity:
                actor = _AgentHost.options(name=f"podium-host-{uuid.uuid4().hex[:12]}",  # type: ignore[attr-defined]
                                           **self._actor_options).remote()
                self._open = _Host(actor, self._per_actor)
            host = self._open
        host.agents += 1
        return RayAgentHandle(address, spec, on_down, host, self._release)

    def _release(self, host: _Host) -> None:
        """An agent left its host; an empty host is killed (its process is freed)."""
        host.agents -= 1
        if host.agents <= 0:
            if host is self._open:
                self._open = None
            ray.kill(host.actor)


def _cause(exc: BaseException) -> str:
    """One line: the exception raised in the actor, when Ray wraps one (its own first line is its task)."""
    inner = getattr(exc, "cause", None)
    if isinstance(exc, ray.exceptions.RayTaskError) and isinstance(inner, BaseException):
        exc = inner
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"


__all__ = ["RayAgentHandle", "RayRuntime"]
