"""One agent: a mailbox and one turn at a time (gen_agent's process model, on asyncio).

An idle agent owns no task: a task is created when work arrives and ends when the mailbox is empty,
so ten thousand idle agents cost only their objects. Every accepted request gets exactly one outcome.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping
from typing import Any

from podium import telemetry
from podium.agent.backend import Backend, BaseBackend, Prompt
from podium.agent.behaviour import (
    Behaviour,
    Continue,
    HaltAgent,
    Proceed,
    PromptAgain,
    Skip,
    TurnResult,
    callback_kinds,
)
from podium.agent.events import EventKind, Response
from podium.agent.outcomes import NOT_FOUND, PENDING, Completed, Completion, Failed, PollResult
from podium.agent.status import AgentState, AgentStatus, OnComplete
from podium.agent.watchdog import wait_reply, watchdog
from podium.errors import (
    AgentCrashed,
    AgentNotRunning,
    ConfigError,
    Overloaded,
    Reason,
    ReasonKind,
    RunFailed,
    StartFailed,
)
from podium.telemetry import Telemetry

log = logging.getLogger("podium.agent")

# Option keys the agent itself consumes; the rest of the options go to `Behaviour.init_agent`.
AGENT_OPTIONS = ("backend", "max_pending_prompts", "max_pending_notifications", "max_tell_results", "turn_timeout")


class _Request:
    __slots__ = ("done", "future", "on_complete", "prompt", "ref", "store")

    def __init__(self, ref: int, prompt: str | Prompt, on_complete: OnComplete | None = None,
                 future: asyncio.Future[Response] | None = None, store: bool = False) -> None:
        self.ref = ref
        self.prompt = prompt
        self.on_complete = on_complete
        self.future = future
        self.store = store
        self.done = False


class Agent:
    """A running agent. Create it with `start_agent` (standalone) or through a session's runtime."""

    __slots__ = (
        "_async", "_backend", "_cancel_reason", "_current", "_dog", "_halted", "_hooks", "_init_opts", "_interruptible",
        "_loop",
        "_max_notes", "_max_prompts", "_max_results", "_next_ref", "_notes", "_on_down", "_prompts",
        "_ready", "_results", "_session", "_state", "_status", "_stream_hook", "_task", "_turn_timeout",
        "_updates_session", "behaviour", "name",
    )

    def __init__(self, name: str, behaviour: Behaviour[Any], opts: Mapping[str, Any],
                 on_down: Callable[[Reason], None] | None = None) -> None:
        backend = opts.get("backend")
        if backend is None or not hasattr(backend, "prompt"):
            raise ConfigError(f"agent {name!r}: opts must hold 'backend' (a podium Backend), got {backend!r}")
        self.name = name
        self.behaviour = behaviour
        self._backend: Backend = backend
        self._max_prompts = _limit(opts, "max_pending_prompts", 1000, name)
        self._max_notes = _limit(opts, "max_pending_notifications", 1000, name)
        self._max_results = _limit(opts, "max_tell_results", 100, name)
        timeout = opts.get("turn_timeout", 600.0)
        if timeout is not None and (not isinstance(timeout, int | float) or timeout <= 0):
            raise ConfigError(f"agent {name!r}: turn_timeout must be a positive number of seconds or None")
        self._turn_timeout: float | None = timeout
        self._init_opts = {k: v for k, v in opts.items() if k not in AGENT_OPTIONS}
        self._dog = watchdog()
        self._async, self._hooks = callback_kinds(behaviour)
        self._stream_hook = "handle_stream_event" in self._hooks
        self._updates_session = getattr(type(backend), "update_session", None) is not BaseBackend.update_session
        self._on_down = on_down
        self._prompts: deque[_Request] = deque()
        self._notes: deque[Any] = deque()
        self._results: OrderedDict[int, PollResult] = OrderedDict()
        self._next_ref = 0
        self._current: _Request | None = None
        self._halted = False
        self._interruptible = False
        self._cancel_reason: Reason | None = None
        self._state: Any = None
        self._session: Any = None
        self._status = AgentState.STARTING
        # Bound to the loop it was started on, so that synchronous calls work even between loop runs.
        self._loop = asyncio.get_running_loop()
        self._ready: asyncio.Future[None] = self._loop.create_future()
        self._task: asyncio.Task[None] | None = self._loop.create_task(self._boot())

    # ---------------------------------------------------------------- public API

    async def ready(self) -> None:
        """Wait until init finished; raises StartFailed if it did not."""
        await asyncio.shield(self._ready)

    def tell_with_completion(self, prompt: str | Prompt, on_complete: OnComplete) -> int:
        """Queue a prompt; `on_complete` is called exactly once with its `Completion`."""
        return self._accept(_Request(self._ref(), prompt, on_complete=on_complete))

    def tell(self, prompt: str | Prompt) -> int:
        """Queue a prompt and return its ref at once; `poll(ref)` gives the outcome."""
        request = _Request(self._ref(), prompt, store=True)
        self._accept(request)
        self._results[request.ref] = PENDING
        return request.ref

    async def ask(self, prompt: str | Prompt, timeout: float | None = 30.0) -> Response:
        """Run a prompt and wait for its response; raises RunFailed with the reason on failure."""
        future: asyncio.Future[Response] = self._loop.create_future()
        self._accept(_Request(self._ref(), prompt, future=future))
        return await wait_reply(future, timeout, self.name)

    def poll(self, ref: int) -> PollResult:
        result = self._results.get(ref, NOT_FOUND)
        if result is not PENDING and result is not NOT_FOUND:
            del self._results[ref]
        return result

    def notify(self, event: Any) -> None:
        """Deliver an event to handle_event; deferred while a turn runs, so its state change survives."""
        self._check_alive()
        if len(self._notes) >= self._max_notes:
            reason = Reason(ReasonKind.OVERLOADED, f"notification queue full ({self._max_notes})", self.name)
            telemetry.emit(Telemetry.INPUT_REJECTED, agent=self.name, reason=reason.kind)
            raise Overloaded(reason)
        self._notes.append(event)
        self._wake()

    def interrupt(self) -> bool:
        """Abort the running turn (its request fails `interrupted`); False when no turn is running."""
        return self._cancel_turn(Reason(ReasonKind.INTERRUPTED, "interrupted", self.name))

    def interrupt_request(self, ref: int) -> bool:
        """Abort one request: interrupt it if running, drop it from the mailbox if queued."""
        if self._current is not None and self._current.ref == ref:
            return self.interrupt()
        for request in self._prompts:
            if request.ref == ref:
                self._prompts.remove(request)
                self._finish(request, None, Reason(ReasonKind.INTERRUPTED, "interrupted while queued", self.name))
                return True
        return False

    def resume(self) -> None:
        """Unfreeze a halted agent; its queued work runs again."""
        self._check_alive()
        if self._halted:
            self._halted = False
            self._wake()

    def status(self) -> AgentStatus:
        state = self._status
        if state in (AgentState.IDLE, AgentState.PROCESSING):
            state = AgentState.HALTED if self._halted else (
                AgentState.PROCESSING if self._current is not None else AgentState.IDLE)
        current = self._current.ref if self._current is not None else None
        return AgentStatus(self.name, state, len(self._prompts), current, self._halted, self._state)

    @property
    def alive(self) -> bool:
        return self._status not in (AgentState.STOPPED, AgentState.DOWN)

    def stop(self, reason: Reason | None = None) -> asyncio.Task[None] | None:
        """Stop now: pending requests fail `stopped`; returns the clean-up task (await it to be sure)."""
        if not self.alive:
            return None
        reason = reason or Reason(ReasonKind.STOPPED, "agent stopped", self.name)
        self._status = AgentState.STOPPED
        self._fail_all(reason)
        task = self._task
        if task is not None and task is not asyncio.current_task(self._loop):
            self._cancel_reason = reason
            task.cancel()
        return self._loop.create_task(self._cleanup(task, reason))

    # ---------------------------------------------------------------- internals

    def _ref(self) -> int:
        self._next_ref += 1
        return self._next_ref

    def _check_alive(self) -> None:
        if not self.alive:
            raise AgentNotRunning(Reason(ReasonKind.AGENT_NOT_RUNNING, f"agent is {self._status.value}", self.name))

    def _accept(self, request: _Request) -> int:
        self._check_alive()
        # A starting agent is not busy: the first request waits for init, then runs at once.
        running = self._task is not None and self._status is not AgentState.STARTING
        busy = running or self._halted or self._prompts
        if busy and len(self._prompts) >= self._max_prompts:
            reason = Reason(ReasonKind.OVERLOADED, f"prompt queue full ({self._max_prompts})", self.name)
            telemetry.emit(Telemetry.INPUT_REJECTED, agent=self.name, reason=reason.kind)
            raise Overloaded(reason)
        self._prompts.append(request)
        self._wake()
        return request.ref

    def _wake(self) -> None:
        if self._task is None and self._status is AgentState.IDLE and not self._halted:
            self._task = self._loop.create_task(self._run())

    async def _call(self, name: str, *args: Any) -> Any:
        result = getattr(self.behaviour, name)(*args)
        return (await result) if name in self._async else result

    async def _boot(self) -> None:
        try:
            backend_opts, state = await self._call("init_agent", self._init_opts)
            self._session = await self._backend.start_session(backend_opts)
            self._state = await self._call("pre_run", state)
        except asyncio.CancelledError:
            self._ready.set_exception(StartFailed(f"agent {self.name!r} stopped while starting"))
            self._ready.exception()  # retrieved: nobody may be waiting
            raise
        except Exception as exc:
            reason = Reason(ReasonKind.INIT_FAILED, f"{type(exc).__name__}: {exc}", self.name)
            self._ready.set_exception(StartFailed(f"agent {self.name!r} failed to start: {reason.detail}"))
            self._ready.exception()
            self._task = None
            self._go_down(reason)
            return
        self._status = AgentState.IDLE
        self._ready.set_result(None)
        await self._run()

    async def _run(self) -> None:
        try:
            while self._status is AgentState.IDLE:
                if self._halted:
                    break
                if self._notes:
                    event = self._notes.popleft()
                    decision = await self._call("handle_event", event, self._state)
                    self._apply(decision)
                elif self._prompts:
                    await self._turn(self._prompts.popleft())
                else:
                    break
        except asyncio.CancelledError:
            if self.alive:  # cancelled by somebody else than stop(): treat as a crash
                self._task = None
                self._go_down(Reason(ReasonKind.TASK_CRASHED, "agent task cancelled", self.name))
            raise
        except Exception as exc:
            # A decision callback or AgentCrashed: like a crashed process, the agent goes down.
            self._task = None
            self._go_down(Reason(ReasonKind.AGENT_DOWN, f"{type(exc).__name__}: {exc}", self.name))
            return
        finally:
            if self._task is asyncio.current_task(self._loop):
                self._task = None

    async def _turn(self, request: _Request) -> None:
        self._current = request
        state = self._state
        response: Response | None = None
        reason: Reason | None = None
        dog = self._dog if self._turn_timeout else None
        if dog is not None:
            dog.arm(self, self._turn_timeout, self._expire)  # type: ignore[arg-type]
        if telemetry.active():
            telemetry.emit(Telemetry.PROMPT_START, agent=self.name, ref=request.ref)
        started = time.perf_counter()
        self._interruptible = True
        stream = None
        try:
            if "pre_turn" in self._hooks:
                start = await self._call("pre_turn", request.prompt, state)
                prompt = start.prompt if type(start) is Proceed else None
                state = start.state
            else:
                start, prompt = None, request.prompt
            if prompt is not None:
                events = []
                terminal = None
                stream = self._backend.prompt(self._session, prompt)
                async for event in stream:
                    events.append(event)
                    if self._stream_hook:
                        state = await self._call("handle_stream_event", event, state)
                    if event.kind is EventKind.RESULT or event.kind is EventKind.ERROR:
                        terminal = event
                        break
                if terminal is None:
                    reason = Reason(ReasonKind.NO_TERMINAL_EVENT, "the backend ended the turn without a result",
                                    self.name)
                elif terminal.kind is EventKind.ERROR:
                    given = terminal.data.get("reason")
                    reason = given if isinstance(given, Reason) else Reason(
                        ReasonKind.BACKEND_ERROR, str(terminal.data.get("detail", "")), self.name)
                else:
                    session = self._session
                    sid = session.get("session_id") if isinstance(session, Mapping) else None
                    response = Response.from_events(events, (time.perf_counter() - started) * 1000.0, sid)
                    if self._updates_session:
                        self._session = await self._backend.update_session(session, terminal)
            elif type(start) is Skip:
                reason = Reason(ReasonKind.CANCELLED, "skipped by pre_turn", self.name)
            elif type(start) is HaltAgent:
                # Halting before the turn keeps the request: it runs after resume().
                self._interruptible = False
                self._current = None
                self._prompts.appendleft(request)
                self._apply(start)
                return
            else:
                raise TypeError(f"pre_turn returned {start!r}; expected Proceed, Skip or HaltAgent")
        except asyncio.CancelledError:
            cancel, self._cancel_reason = self._cancel_reason, None
            if cancel is None or cancel.kind is ReasonKind.STOPPED or not self.alive:
                raise
            asyncio.current_task(self._loop).uncancel()  # type: ignore[union-attr]
            reason = cancel
        except AgentCrashed:
            raise
        except Exception as exc:
            reason = Reason(ReasonKind.TASK_CRASHED, f"{type(exc).__name__}: {exc}", self.name)
        finally:
            self._interruptible = False
            if dog is not None:
                dog.disarm(self)
            if stream is not None and hasattr(stream, "aclose"):
                # Close it here: a generator left to the garbage collector is closed by a new task.
                await stream.aclose()
        hooks = self._hooks
        decision: Any = None  # None: the default callback, which continues with the state as it is
        if response is not None:
            if "handle_response" in hooks:
                decision = await self._call("handle_response", request.ref, response, state)
        else:
            if telemetry.active():
                telemetry.emit(Telemetry.PROMPT_ERROR, agent=self.name, ref=request.ref, reason=reason.kind)  # type: ignore[union-attr]
            if "handle_error" in hooks:
                decision = await self._call("handle_error", request.ref, reason, state)
        self._state = state if decision is None else decision.state
        if "post_turn" in hooks:
            self._state = await self._call("post_turn", TurnResult(response, reason), request.ref, self._state)
        self._current = None
        if type(decision) is PromptAgain:
            self._prompts.appendleft(_Request(self._ref(), decision.prompt))
        self._finish(request, response, reason)
        if decision is None:
            return
        if type(decision) is HaltAgent:
            await self._halt()
        elif type(decision) is not Continue and type(decision) is not PromptAgain:
            raise TypeError(f"callback returned {decision!r}; expected Continue, PromptAgain or HaltAgent")

    def _apply(self, decision: Any) -> None:
        kind = type(decision)
        if kind is Continue:
            self._state = decision.state
        elif kind is PromptAgain:
            self._state = decision.state
            self._prompts.appendleft(_Request(self._ref(), decision.prompt))
        elif kind is HaltAgent:
            self._state = decision.state
            self._halted = True  # post_run runs when the loop sees it (below) to keep _apply synchronous
            self._loop.create_task(self._post_run())
        else:
            raise TypeError(f"callback returned {decision!r}; expected Continue, PromptAgain or HaltAgent")

    async def _halt(self) -> None:
        self._halted = True
        await self._post_run()

    async def _post_run(self) -> None:
        telemetry.emit(Telemetry.AGENT_HALTED, agent=self.name)
        try:
            await self._call("post_run", self._state)
        except Exception:
            log.exception("agent %s: post_run failed", self.name)

    def _expire(self) -> None:
        self._cancel_turn(Reason(ReasonKind.TIMEOUT, f"turn exceeded {self._turn_timeout}s", self.name))

    def _cancel_turn(self, reason: Reason) -> bool:
        if not self._interruptible or self._task is None:
            return False
        self._cancel_reason = reason
        self._task.cancel()
        return True

    def _finish(self, request: _Request, response: Response | None, reason: Reason | None) -> None:
        if request.done:
            return
        request.done = True
        if request.on_complete is not None:
            try:
                request.on_complete(Completion(self.name, request.ref, response, reason))
            except Exception:  # the recipient's bug must not take this agent down
                log.exception("agent %s: completion handler failed", self.name)
        elif request.future is not None:
            if not request.future.done():
                if reason is None:
                    request.future.set_result(response)  # type: ignore[arg-type]
                else:
                    request.future.set_exception(RunFailed(reason))
        elif request.store:
            self._results[request.ref] = Completed(response) if reason is None else Failed(reason)  # type: ignore[arg-type]
            self._evict()
        if reason is None and telemetry.active():
            telemetry.emit(Telemetry.PROMPT_STOP, agent=self.name, ref=request.ref)

    def _evict(self) -> None:
        excess = len(self._results) - self._max_results
        if excess <= 0:
            return
        for ref in [r for r, v in self._results.items() if v is not PENDING][:excess]:
            del self._results[ref]

    def _fail_all(self, reason: Reason) -> None:
        requests = list(self._prompts)
        self._prompts.clear()
        if self._current is not None:
            requests.insert(0, self._current)
            self._current = None
        for request in requests:
            self._finish(request, None, reason)

    def _go_down(self, reason: Reason) -> None:
        if not self.alive:
            return
        self._status = AgentState.DOWN
        telemetry.emit(Telemetry.AGENT_DOWN, agent=self.name, reason=reason.kind)
        if self._on_down is not None:
            try:
                self._on_down(reason)
            except Exception:
                log.exception("agent %s: down handler failed", self.name)
        self._fail_all(Reason(ReasonKind.AGENT_DOWN, reason.detail, self.name, reason))
        self._loop.create_task(self._cleanup(None, reason))

    async def _cleanup(self, task: asyncio.Task[None] | None, reason: Reason) -> None:
        if task is not None and task is not asyncio.current_task(self._loop):
            with contextlib.suppress(BaseException):  # its own failure is already reported
                await task
        try:
            if self._ready.done() and self._ready.exception() is None:
                await self._call("terminate_agent", reason, self._state)
        except Exception:
            log.exception("agent %s: terminate_agent failed", self.name)
        try:
            if self._session is not None:
                await self._backend.terminate_session(self._session)
        except Exception:
            log.exception("agent %s: terminate_session failed", self.name)


def _limit(opts: Mapping[str, Any], key: str, default: int, name: str) -> int:
    value = opts.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ConfigError(f"agent {name!r}: {key} must be an integer >= 0, got {value!r}")
    return value


async def start_agent(behaviour: Behaviour[Any] | None = None, *, name: str = "agent", **opts: Any) -> Agent:
    """Start one standalone agent and wait until it is ready (raises StartFailed)."""
    agent = Agent(name, behaviour if behaviour is not None else Behaviour(), opts)
    try:
        await agent.ready()
    except StartFailed:
        raise
    return agent
