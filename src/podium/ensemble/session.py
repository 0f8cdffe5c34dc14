"""A session of sub-agents driven by a strategy: the imperative shell around the pure strategy.

All strategy inputs pass through `_step`, which runs synchronously: no await ever separates a
strategy callback from the application of its ops, so nothing can interleave with a batch, and an
input that arrives while one is being processed (a completion raised by a stop, say) waits in a
queue for its turn.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections import deque
from collections.abc import Awaitable, Generator
from functools import partial
from typing import Any

from podium import telemetry
from podium.agent.backend import Prompt
from podium.agent.events import Response, Usage
from podium.agent.outcomes import Completion, PollResult
from podium.agent.watchdog import wait_reply
from podium.ensemble import registry
from podium.ensemble.agents import AgentRecord
from podium.ensemble.inputs import (
    AgentDownInput,
    AskInput,
    DispatchRejectedInput,
    ErrorInput,
    Input,
    NotifyInput,
    Recorder,
    ResponseInput,
    TellInput,
)
from podium.ensemble.ops import Dispatch, Forward, Halt, Op, Reply, ReplyError, Start, Stop, Token
from podium.ensemble.runtime import AgentRuntime, LocalRuntime
from podium.ensemble.strategy import Strategy, decide
from podium.ensemble.subagent import SubAgent
from podium.ensemble.tokens import Run, Tokens
from podium.errors import (
    AgentNotRunning,
    ConfigError,
    Overloaded,
    Reason,
    ReasonKind,
    SessionClosed,
    StartFailed,
)
from podium.telemetry import Telemetry

log = logging.getLogger("podium.session")


class Session:
    """A running session. Start one with `await Session.start(strategy, **opts)` or
    `async with Session.start(strategy, **opts) as session:`."""

    def __init__(self, strategy: Strategy[Any], name: str, runtime: AgentRuntime, recorder: Recorder | None,
                 max_results: int) -> None:
        self.name = name
        self.strategy = strategy
        self._runtime = runtime
        self._recorder = recorder
        self._state: Any = None
        self._agents: dict[str, AgentRecord] = {}
        self._gens: dict[int, AgentRecord] = {}
        self._next_gen = 0
        self._tokens = Tokens(name, max_results)
        self._pending = self._tokens.pending  # the hot path reads it on every input
        self._queue: deque[Input] = deque()
        self._busy = False
        self._open = False
        self._closed = False
        self._close_reason: Reason | None = None
        self._cleanup: set[asyncio.Future[Any]] = set()
        self._close_waiters: list[asyncio.Future[None]] = []
        self._usage = Usage()
        self._agent_usage: dict[str, Usage] = {}
        self._orphans = self._tokens.orphans  # read after every input (see Tokens.lost)
        self._hears_downs = type(strategy).implements("handle_agent_down")
        self._what = f"session {name!r}"  # how a caller's timeout names it

    # ------------------------------------------------------------------ starting and stopping

    @classmethod
    def start(cls, strategy: Strategy[Any], *, name: str | None = None, runtime: AgentRuntime | None = None,
              recorder: Recorder | None = None, max_results: int = 10_000, **opts: Any) -> _Starting:
        """Start a session: `strategy.init(opts)`, then every start spec. If any agent fails to start,
        the agents already started are stopped and `StartFailed` is raised: nothing is left running."""
        return _Starting(cls._start(strategy, name, runtime, recorder, max_results, opts))

    @classmethod
    async def _start(cls, strategy: Strategy[Any], name: str | None, runtime: AgentRuntime | None,
                     recorder: Recorder | None, max_results: int, opts: dict[str, Any]) -> Session:
        if not isinstance(strategy, Strategy):
            raise ConfigError(f"Session.start needs a Strategy instance, got {strategy!r}")
        if name is None:
            name = f"session-{uuid.uuid4().hex[:8]}"  # unique across processes: records outlive them
        session = cls(strategy, name, runtime or LocalRuntime(), recorder, max_results)
        registry.claim(session)
        try:
            state, specs = strategy.init(opts)
            names = [spec.name for spec in specs]
            if len(set(names)) != len(names):
                raise ConfigError(f"session {name!r}: duplicate agent names in {names}")
        except BaseException:
            registry.release(session)
            raise
        session._state = state
        await session._launch(specs, "start")
        return session

    @classmethod
    async def _restore(cls, strategy: Strategy[Any], name: str, state: Any, agents: list[Any], pending: list[Token],
                       next_token: int, redispatch: list[Dispatch], runtime: AgentRuntime | None = None,
                       recorder: Recorder | None = None, max_results: int = 10_000) -> Session:
        """Rebuild a session from what a journal derived (see `podium.journal.resume`): the strategy's
        state, the live agents (started afresh), the still-pending tokens (their results become
        pollable), then the dispatches that were in flight are sent again. The new incarnation mints
        tokens of its own (`next_token` only keeps their numbers rising in the record)."""
        session = cls(strategy, name, runtime or LocalRuntime(), recorder, max_results)
        registry.claim(session)
        session._state = state
        session._tokens.last = next_token
        for token in pending:
            session._pending[token] = Run("tell")
        await session._launch(agents, "resume")
        session._busy = True
        try:
            session._apply(list(redispatch))
            while session._queue and not session._closed:
                session._step(session._queue.popleft())
        finally:
            session._busy = False
        return session

    async def _launch(self, specs: list[Any], what: str) -> None:
        """Start the agents and open the session; if any agent fails to start, stop the others and
        raise StartFailed: nothing is left running."""
        try:
            for spec in specs:
                self._start_agent(spec)
            failures = await asyncio.gather(*(a.handle.ready() for a in self._agents.values()),
                                            return_exceptions=True)
            errors = [f for f in failures if isinstance(f, BaseException)]
            if errors:
                raise StartFailed(f"session {self.name!r} did not {what}: {errors[0]}") from errors[0]
            self._opened()
        except BaseException:
            self._closed = True
            for agent in list(self._agents.values()):
                self._stop_agent(agent, Reason(ReasonKind.STOPPED, f"session {what} failed"))
            await self._drain_cleanup()
            registry.release(self)
            raise

    def _opened(self) -> None:
        self._open = True
        opened = getattr(self._recorder, "opened", None)
        if opened is not None:
            opened(self.name, type(self.strategy).__name__)
        telemetry.emit(Telemetry.SESSION_START, session=self.name, strategy=type(self.strategy).__name__,
                       agents=len(self._agents))

    async def stop(self) -> None:
        """Stop the session: pending tokens fail `stopped`, every agent stops, clean-up is awaited."""
        if not self._closed:
            self._close(Reason(ReasonKind.STOPPED, "session stopped"))
            telemetry.emit(Telemetry.SESSION_STOP, session=self.name, outcome="ok")
        await self._drain_cleanup()

    async def wait_closed(self) -> Reason:
        """Wait until the session has halted or stopped; returns why."""
        if not self._closed:
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._close_waiters.append(waiter)
            await waiter
        await self._drain_cleanup()
        assert self._close_reason is not None
        return self._close_reason

    async def __aenter__(self) -> Session:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def started(self) -> bool:
        """Every agent of its start specs is running and it takes requests (or did, until it closed)."""
        return self._open

    # ------------------------------------------------------------------ the caller's API

    def tell(self, prompt: str | Prompt, **opts: Any) -> Token:
        """Submit a prompt; returns its token at once (the reply may already have happened)."""
        token = self._mint(Run("tell"))
        self._feed(TellInput(prompt, opts, token))
        return token

    async def ask(self, prompt: str | Prompt, *, timeout: float | None = 30.0, **opts: Any) -> Response:
        """Submit a prompt and wait for the reply; raises RunFailed(reason) on an error reply or timeout.
        The timeout is the caller's: the run itself goes on and is closed by the strategy."""
        future: asyncio.Future[Response] = asyncio.get_running_loop().create_future()
        token = self._mint(Run("ask", future))
        self._feed(AskInput(prompt, opts, token))
        return await wait_reply(future, timeout, self._what)

    def poll(self, token: Token) -> PollResult:
        """Pending, Completed(response), Failed(reason) or NotFound. A completed result is consumed."""
        return self._tokens.poll(token)

    async def result(self, token: Token, timeout: float | None = None) -> Response:
        """Wait for a told token's reply and consume it; raises RunFailed on an error, KeyError if unknown."""
        return await self._tokens.result(token, timeout)

    def inbox(self) -> dict[Token, PollResult]:
        """Every completed tell result, oldest first; they are consumed."""
        return self._tokens.inbox()

    def notify(self, event: Any) -> None:
        """Send an event to the strategy's handle_notify."""
        self._check_open()
        self._feed(NotifyInput(event))

    def status(self) -> dict[str, Any]:
        status: dict[str, Any] = {
            "session": self.name,
            "strategy": type(self.strategy).__name__,
            "agents": sorted(self._agents),
            "pending_tokens": len(self._pending),
            "in_flight": sum(len(a.flights) for a in self._agents.values()),
            "closed": self._closed,
            "usage": {"session": self._usage, "agents": dict(self._agent_usage)},
        }
        if self._close_reason is not None:
            status["close_reason"] = self._close_reason
        try:
            status.update(self.strategy.handle_status(self._state))
        except Exception:
            log.exception("session %s: handle_status failed", self.name)
        return status

    def agents(self) -> list[str]:
        """The bare names of the running sub-agents."""
        return list(self._agents)

    def agent(self, name: str) -> SubAgent:
        """A handle on one running sub-agent, by bare name: its status, interrupt, kill.
        Raises AgentNotRunning when the session has no such agent."""
        agent = self._agents.get(name)
        if agent is None:
            raise AgentNotRunning(Reason(
                ReasonKind.UNKNOWN_AGENT, f"no agent {name!r} in session {self.name!r}; the agents are "
                f"{', '.join(sorted(self._agents)) or 'none'}", name))
        return SubAgent(self.name, name, agent.handle)

    def agent_status(self, name: str) -> Any:
        """The status of one sub-agent by bare name."""
        return self.agent(name).status()

    # ------------------------------------------------------------------ the one place

    def _mint(self, run: Run) -> Token:
        self._check_open()
        return self._tokens.mint(run)

    def _check_open(self) -> None:
        if self._closed or not self._open:
            raise SessionClosed(f"session {self.name!r} is closed" + (
                f" ({self._close_reason})" if self._close_reason else ""))

    def _feed(self, input: Input) -> None:
        if self._busy:
            self._queue.append(input)
            return
        self._busy = True
        try:
            self._step(input)
            while self._queue and not self._closed:
                self._step(self._queue.popleft())
        finally:
            self._busy = False
            if self._closed:
                self._queue.clear()

    def _step(self, input: Input) -> None:
        """Hand one input to the strategy, record it with the ops, apply the ops."""
        if self._closed:
            return
        strategy, state = self.strategy, self._state
        kind = type(input)
        if (kind is ResponseInput or kind is ErrorInput) and input.token is not None \
                and input.token not in self._pending:  # type: ignore[union-attr]
            # Run fencing: the run this result belonged to is closed.
            telemetry.emit(Telemetry.DISPATCH_FENCED, session=self.name, agent=input.agent, token=input.token)  # type: ignore[union-attr]
            return
        try:
            ops, new_state = decide(strategy, input, state)
        except Exception as exc:
            log.exception("session %s: strategy %s failed on %s", self.name, type(strategy).__name__, kind.__name__)
            self._halt(Reason(ReasonKind.STRATEGY_ERROR, f"{type(exc).__name__} in {kind.__name__}: {exc}"))
            return
        self._state = new_state
        if self._recorder is not None:
            try:
                self._recorder.record(self.name, input, ops)
            except Exception as exc:
                # Going on unrecorded would silently break the promise of resume and replay.
                log.exception("session %s: the recorder failed", self.name)
                self._halt(Reason(ReasonKind.FAILED, f"recording failed: {type(exc).__name__}: {exc}"))
                return
        self._apply(ops)
        if kind is AgentDownInput or kind is DispatchRejectedInput:
            self._after(input)
        if self._orphans:
            self._tokens.settle()

    def _after(self, input: Input) -> None:
        """The session's guarantees once the strategy had its say: no affected token stays pending."""
        kind = type(input)
        if kind is AgentDownInput:
            failure = Reason(ReasonKind.AGENT_DOWN, input.reason.detail, input.agent, input.reason)  # type: ignore[union-attr]
            self._tokens.lost(input.tokens, failure, orphans=not self._hears_downs)  # type: ignore[union-attr]
        elif kind is DispatchRejectedInput and input.token in self._pending:  # type: ignore[union-attr]
            self._tokens.close(input.token, None, Reason(  # type: ignore[union-attr]
                ReasonKind.DISPATCH_REJECTED, input.reason.detail, input.agent, input.reason))  # type: ignore[union-attr]

    def _apply(self, ops: list[Op]) -> None:
        for op in ops:
            if self._closed:
                return
            kind = type(op)
            if kind is Dispatch:
                rejected = self._dispatch(op)  # type: ignore[arg-type]
                if rejected is not None:
                    # A rejected scoped dispatch ends the batch; the strategy hears of it at once.
                    self._step(rejected)
                    return
            elif kind is Reply:
                self._reply(op.token, op.response, None)  # type: ignore[union-attr]
            elif kind is ReplyError:
                self._reply(op.token, None, op.reason)  # type: ignore[union-attr]
            elif kind is Start:
                self._op_start(op)  # type: ignore[arg-type]
            elif kind is Stop:
                agent = self._agents.get(op.name)  # type: ignore[union-attr]
                if agent is None:
                    self._op_failed(op, f"no agent {op.name!r}")  # type: ignore[union-attr]
                else:
                    self._stop_agent(agent, Reason(ReasonKind.STOPPED, "stopped by the strategy", agent.name))
            elif kind is Forward:
                self._forward(op)  # type: ignore[arg-type]
            elif kind is Halt:
                self._halt(op.reason)  # type: ignore[union-attr]
                return
            else:
                self._op_failed(op, "not an op")

    # ------------------------------------------------------------------ ops

    def _dispatch(self, op: Dispatch) -> DispatchRejectedInput | None:
        token = op.token
        if token is not None and token not in self._pending:
            return None  # an earlier op closed the run: skip silently
        agent = self._agents.get(op.agent)
        try:
            if agent is None:
                raise AgentNotRunning(Reason(ReasonKind.AGENT_NOT_RUNNING, f"no agent {op.agent!r}", op.agent))
            ref = agent.handle.tell_with_completion(op.prompt, agent.on_complete)
        except (Overloaded, AgentNotRunning) as exc:
            telemetry.emit(Telemetry.DISPATCH_REJECTED, session=self.name, agent=op.agent, token=token,
                           reason=exc.reason.kind)
            if token is None:
                log.warning("session %s: unscoped dispatch to %s rejected: %s", self.name, op.agent, exc.reason)
                return None
            return DispatchRejectedInput(op.agent, token, exc.reason)
        agent.flights[ref] = token
        if token is not None:
            run = self._pending[token]
            run.dispatches += 1
            run.flying += 1
        if telemetry.active():
            telemetry.emit(Telemetry.DISPATCH_START, session=self.name, agent=op.agent, token=token)
        return None

    def _reply(self, token: Token, response: Response | None, reason: Reason | None) -> None:
        if token not in self._pending:
            self._op_failed(Reply(token, response) if response is not None else ReplyError(token, reason),  # type: ignore[arg-type]
                            f"unknown token {token!r}")
            return
        self._tokens.close(token, response, reason)

    def _op_start(self, op: Start) -> None:
        if op.name in self._agents:
            self._op_failed(op, f"duplicate_sub_agent {op.name!r}")
            return
        try:
            self._start_agent(op)
        except Exception as exc:
            self._op_failed(op, f"{type(exc).__name__}: {exc}")

    def _start_agent(self, spec: Any) -> None:
        self._next_gen += 1
        gen = self._next_gen
        handle = self._runtime.start(f"{self.name}/{spec.name}", spec, partial(self._on_down, gen))
        agent = AgentRecord(spec.name, gen, handle, partial(self._on_completion, gen))
        self._agents[spec.name] = agent
        self._gens[gen] = agent

    def _stop_agent(self, agent: AgentRecord, reason: Reason) -> None:
        # Forget the agent first: its in-flight work is dropped and its down signal is not awaited.
        self._agents.pop(agent.name, None)
        self._gens.pop(agent.gen, None)
        self._land(agent)
        done = agent.handle.stop(reason)
        if done is not None:
            self._track(done)

    def _forward(self, op: Forward) -> None:
        agent = self._agents.get(op.agent)
        if agent is None:
            self._op_failed(op, f"no agent {op.agent!r}")
            return
        try:
            agent.handle.notify(op.event)
        except (Overloaded, AgentNotRunning) as exc:
            self._op_failed(op, str(exc))

    def _op_failed(self, op: Any, why: str) -> None:
        log.warning("session %s: %s failed: %s", self.name, type(op).__name__, why)
        telemetry.emit(Telemetry.OP_FAILED, session=self.name, op=type(op).__name__, why=why)

    def _halt(self, reason: Reason) -> None:
        telemetry.emit(Telemetry.SESSION_HALT, session=self.name, reason=reason.kind, outcome="halted")
        self._close(reason)

    def _close(self, reason: Reason) -> None:
        self._closed = True
        self._close_reason = reason
        failure = Reason(ReasonKind.HALTED, reason.detail, cause=reason) if reason.kind is not ReasonKind.STOPPED \
            else reason
        for token in list(self._pending):
            self._tokens.close(token, None, failure)
        self._orphans.clear()
        for agent in list(self._agents.values()):
            self._stop_agent(agent, Reason(ReasonKind.STOPPED, "session closed", agent.name))
        registry.release(self)
        closed = getattr(self._recorder, "closed", None)
        if closed is not None and self._open:
            try:
                closed(self.name, reason)
            except Exception:
                log.exception("session %s: the recorder failed to close the record", self.name)
        for waiter in self._close_waiters:
            if not waiter.done():
                waiter.set_result(None)
        self._close_waiters.clear()

    # ------------------------------------------------------------------ signals from agents

    def _on_completion(self, gen: int, completion: Completion) -> None:
        agent = self._gens.get(gen)
        if agent is None:
            return  # stopped or down: its work was dropped
        flights = agent.flights
        if agent.held is None and flights and completion.ref == next(iter(flights)):
            self._deliver(agent, completion)  # the usual case: the oldest dispatch landed, nothing was held
            return
        for ready in agent.in_order(completion):
            self._deliver(agent, ready)

    def _deliver(self, agent: AgentRecord, completion: Completion) -> None:
        token = agent.flights.pop(completion.ref)
        if token is not None and token in self._pending:
            self._pending[token].flying -= 1
        response = completion.response
        if response is not None and response.usage is not None:
            self._count(agent.name, token, response.usage)
        if telemetry.active():
            if response is not None:
                telemetry.emit(Telemetry.DISPATCH_STOP, session=self.name, agent=agent.name, token=token)
            else:
                telemetry.emit(Telemetry.DISPATCH_ERROR, session=self.name, agent=agent.name, token=token,
                               reason=completion.reason.kind)  # type: ignore[union-attr]
        if response is not None:
            self._feed(ResponseInput(agent.name, token, response))
        else:
            self._feed(ErrorInput(agent.name, token, completion.reason))  # type: ignore[arg-type]

    def _on_down(self, gen: int, reason: Reason) -> None:
        agent = self._gens.pop(gen, None)
        if agent is None or not self._open:
            return
        self._agents.pop(agent.name, None)
        tokens = tuple(dict.fromkeys(t for t in agent.flights.values() if t is not None))
        self._land(agent)
        self._feed(AgentDownInput(agent.name, reason, tokens))

    def _land(self, agent: AgentRecord) -> None:
        """Drop an agent's work in flight (it was stopped or went down)."""
        for token in agent.drop():
            run = self._pending.get(token)
            if run is not None:
                run.flying -= 1

    def _count(self, agent: str, token: Token | None, usage: Usage) -> None:
        self._usage = self._usage + usage
        self._agent_usage[agent] = self._agent_usage.get(agent, Usage()) + usage
        self._tokens.count(token, usage)

    # ------------------------------------------------------------------ clean-up

    def _track(self, awaitable: Awaitable[None]) -> None:
        future = asyncio.ensure_future(awaitable)
        self._cleanup.add(future)
        future.add_done_callback(self._cleanup.discard)

    async def _drain_cleanup(self) -> None:
        while self._cleanup:
            await asyncio.gather(*list(self._cleanup), return_exceptions=True)


class _Starting:
    """What `Session.start` returns: await it, or use it as an async context manager."""

    __slots__ = ("_coro", "_session")

    def __init__(self, coro: Any) -> None:
        self._coro = coro
        self._session: Session | None = None

    def __await__(self) -> Generator[Any, None, Session]:
        return self._coro.__await__()

    async def __aenter__(self) -> Session:
        self._session = await self._coro
        return self._session

    async def __aexit__(self, *exc: object) -> None:
        if self._session is not None:
            await self._session.stop()


running_sessions = registry.running_sessions  # kept where callers found it
