"""One agent: a mailbox and one turn at a time (gen_agent's process model, on asyncio).

An idle agent owns no task: a task is created when work arrives and ends when the mailbox is empty,
so ten thousand idle agents cost only their objects. Every accepted request gets exactly one outcome.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import OrderedDict
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
from podium.agent.capture import Overflow, event_size
from podium.agent.events import Event, EventKind, Response
from podium.agent.limits import AGENT_OPTIONS, AgentLimits
from podium.agent.mailbox import Mailbox, Request
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

__all__ = ["AGENT_OPTIONS", "Agent", "start_agent"]


class Agent:
    """A running agent. Create it with `start_agent` (standalone) or through a session's runtime."""

    __slots__ = (
        "_async", "_backend", "_cancel_reason", "_current", "_dog", "_halted", "_hooks", "_init_opts",
        "_interruptible", "_limits", "_loop", "_mailbox", "_next_ref", "_on_down", "_prompts", "_ready", "_results",
        "_session", "_state", "_status", "_stream_hook", "_task", "_updates_session", "behaviour", "name",
    )

    def __init__(self, name: str, behaviour: Behaviour[Any], opts: Mapping[str, Any],
                 on_down: Callable[[Reason], None] | None = None) -> None:
        backend = opts.get("backend")
        if backend is None or not hasattr(backend, "prompt"):
            raise ConfigError(f"agent {name!r}: opts must hold 'backend' (a podium Backend), got {backend!r}")
        self.name = name
        self.behaviour = behaviour
        self._backend: Backend = backend
        self._limits = AgentLimits.from_opts(opts, name)
        self._init_opts = {k: v for k, v in opts.items() if k not in AGENT_OPTIONS}
        self._dog = watchdog()
        self._async, self._hooks = callback_kinds(behaviour)
        self._stream_hook = "handle_stream_event" in self._hooks
        self._updates_session = getattr(type(backend), "update_session", None) is not BaseBackend.update_session
        self._on_down = on_down
        self._mailbox = Mailbox(self._limits)
        self._prompts = self._mailbox.prompts  # read on every request
        self._results: OrderedDict[int, PollResult] = OrderedDict()
        self._next_ref = 0
        self._current: Request | None = None
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
        return self._accept(Request(self._ref(), prompt, on_complete=on_complete))

    def tell(self, prompt: str | Prompt) -> int:
        """Queue a prompt and return its ref at once; `poll(ref)` gives the outcome."""
        request = Request(self._ref(), prompt, store=True)
        self._accept(request)
        self._results[request.ref] = PENDING
        return request.ref

    async def ask(self, prompt: str | Prompt, timeout: float | None = 30.0) -> Response:
        """Run a prompt and wait for its response; raises RunFailed with the reason on failure."""
        future: asyncio.Future[Response] = self._loop.create_future()
        self._accept(Request(self._ref(), prompt, future=future))
        return await wait_reply(future, timeout, self.name)

    def poll(self, ref: int) -> PollResult:
        result = self._results.get(ref, NOT_FOUND)
        if result is not PENDING and result is not NOT_FOUND:
            del self._results[ref]
        return result

    def notify(self, event: Any) -> None:
        """Deliver an event to handle_event; deferred while a turn runs, so its state change survives.
        An idle agent handles it at once; one that must defer it refuses with `Overloaded` when its
        notification queue is full (`max_pending_notifications`, `max_pending_notification_bytes`)."""
        self._check_alive()
        mailbox = self._mailbox
        waits = self._current is not None or self._halted or mailbox.chain is not None or bool(mailbox.notes)
        why = mailbox.put_note(event, waits)
        if why is not None:
            self._refuse(why)
        self._wake()

    def interrupt(self) -> bool:
        """Abort the running turn (its request fails `interrupted`); False when no turn is running."""
        return self._cancel_turn(Reason(ReasonKind.INTERRUPTED, "interrupted", self.name))

    def interrupt_request(self, ref: int) -> bool:
        """Abort one request: interrupt it if running, drop it from the mailbox if queued."""
        if self._current is not None and self._current.ref == ref:
            return self.interrupt()
        request = self._mailbox.remove(ref)
        if request is None:
            return False
        self._finish(request, None, Reason(ReasonKind.INTERRUPTED, "interrupted while queued", self.name))
        return True

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

    def kill(self, reason: Reason | None = None) -> None:
        """Take the agent down at once, as a crash would (gen_agent's `exit(pid, :kill)`): the running
        turn is cancelled, every request fails `agent_down`, and the owner hears of it through its
        down handler (a session calls its strategy's `handle_agent_down`). Unlike `stop`, which is an
        orderly end its owner asked for."""
        if not self.alive:
            return
        task = self._task
        self._task = None
        self._go_down(reason or Reason(ReasonKind.KILLED, "killed", self.name), task)
        if task is not None and task is not asyncio.current_task(self._loop):
            task.cancel()

    # ---------------------------------------------------------------- internals

    def _ref(self) -> int:
        self._next_ref += 1
        return self._next_ref

    def _check_alive(self) -> None:
        if not self.alive:
            raise AgentNotRunning(Reason(ReasonKind.AGENT_NOT_RUNNING, f"agent is {self._status.value}", self.name))

    def _accept(self, request: Request) -> int:
        if self._status is AgentState.STOPPED or self._status is AgentState.DOWN:
            self._check_alive()
        # It waits when a turn runs, the agent is halted, or work is ahead of it; otherwise it starts at
        # once, whatever the limits (a starting agent is not busy: its first request runs after init).
        if self._current is not None or self._halted or self._mailbox.chain is not None or self._prompts:
            why = self._mailbox.put(request, True)
            if why is not None:
                self._refuse(why)
        else:
            self._prompts.append(request)
            self._wake()
        return request.ref

    def _refuse(self, why: str) -> None:
        reason = Reason(ReasonKind.OVERLOADED, why, self.name)
        telemetry.emit(Telemetry.INPUT_REJECTED, agent=self.name, reason=reason.kind)
        raise Overloaded(reason)

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
        mailbox = self._mailbox
        try:
            # The self-chained prompt first, then the notifications deferred during the turn, then the mailbox.
            while self._status is AgentState.IDLE and not self._halted:
                if mailbox.chain is None and mailbox.notes:
                    decision = await self._call("handle_event", mailbox.take_note(), self._state)
                    self._apply(decision)
                    continue
                request = mailbox.take()
                if request is None:
                    break
                await self._turn(request)
        except asyncio.CancelledError:
            if self.alive:  # cancelled by somebody else than stop() or kill(): treat as a crash
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

    async def _turn(self, request: Request) -> None:
        self._current = request
        state = self._state
        response: Response | None = None
        reason: Reason | None = None
        limits = self._limits
        dog = self._dog if limits.turn_timeout else None
        if dog is not None:
            dog.arm(self, limits.turn_timeout, self._expire)  # type: ignore[arg-type]
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
                events: list[Event] = []
                terminal = None
                overflow: Overflow | None = None
                kept_bytes, room = 0, limits.max_turn_events - 1  # the terminal event is always kept
                stream = self._backend.prompt(self._session, prompt)
                async for event in stream:
                    if self._stream_hook:
                        state = await self._call("handle_stream_event", event, state)
                    kind = event.kind
                    if kind is EventKind.RESULT or kind is EventKind.ERROR:
                        terminal = event
                        break
                    if overflow is None and len(events) < room:
                        size = event_size(event)
                        if kept_bytes + size <= limits.max_turn_bytes:
                            events.append(event)
                            kept_bytes += size
                            continue
                    if overflow is None:
                        overflow = Overflow()
                    overflow.add(event)
                if terminal is None:
                    reason = Reason(ReasonKind.NO_TERMINAL_EVENT, "the backend ended the turn without a result",
                                    self.name)
                elif terminal.kind is EventKind.ERROR:
                    given = terminal.data.get("reason")
                    reason = given if isinstance(given, Reason) else Reason(
                        ReasonKind.BACKEND_ERROR, str(terminal.data.get("detail", "")), self.name)
                else:
                    session = self._session
                    sid = session.get("session_id") if type(session) is dict or isinstance(session, Mapping) else None
                    duration = (time.perf_counter() - started) * 1000.0
                    if overflow is None:
                        events.append(terminal)
                        response = Response.from_events(events, duration, sid)
                    else:
                        response = overflow.response(events, terminal, duration, sid)
                    if self._updates_session:
                        self._session = await self._backend.update_session(session, terminal)
            elif type(start) is Skip:
                reason = Reason(ReasonKind.CANCELLED, "skipped by pre_turn", self.name)
            elif type(start) is HaltAgent:
                # Halting before the turn keeps the request: it runs after resume().
                self._interruptible = False
                self._current = None
                self._mailbox.put_front(request)
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
        kind = type(decision)
        if decision is not None and kind is not Continue and kind is not PromptAgain and kind is not HaltAgent:
            raise TypeError(f"callback returned {decision!r}; expected Continue, PromptAgain or HaltAgent")
        self._state = state if decision is None else decision.state
        if "post_turn" in hooks:
            self._state = await self._call("post_turn", TurnResult(response, reason), request.ref, self._state)
        # The agent is idle, or committed to its next step, before the completion goes out: work the
        # completion sends back to it starts at once, or waits behind the self-chained prompt or the halt.
        self._current = None
        if kind is PromptAgain:
            self._mailbox.chain = Request(self._ref(), decision.prompt)
        elif kind is HaltAgent:
            self._halted = True
        self._finish(request, response, reason)
        if kind is HaltAgent:
            await self._post_run()

    def _apply(self, decision: Any) -> None:
        kind = type(decision)
        if kind is Continue:
            self._state = decision.state
        elif kind is PromptAgain:
            self._state = decision.state
            self._mailbox.chain = Request(self._ref(), decision.prompt)
        elif kind is HaltAgent:
            self._state = decision.state
            self._halted = True  # post_run runs when the loop sees it (below) to keep _apply synchronous
            self._loop.create_task(self._post_run())
        else:
            raise TypeError(f"callback returned {decision!r}; expected Continue, PromptAgain or HaltAgent")

    async def _post_run(self) -> None:
        telemetry.emit(Telemetry.AGENT_HALTED, agent=self.name)
        try:
            await self._call("post_run", self._state)
        except Exception:
            log.exception("agent %s: post_run failed", self.name)

    def _expire(self) -> None:
        self._cancel_turn(Reason(ReasonKind.TIMEOUT, f"turn exceeded {self._limits.turn_timeout}s", self.name))

    def _cancel_turn(self, reason: Reason) -> bool:
        if not self._interruptible or self._task is None:
            return False
        self._cancel_reason = reason
        self._task.cancel()
        return True

    def _finish(self, request: Request, response: Response | None, reason: Reason | None) -> None:
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
        excess = len(self._results) - self._limits.max_results
        if excess <= 0:
            return
        for ref in [r for r, v in self._results.items() if v is not PENDING][:excess]:
            del self._results[ref]

    def _fail_all(self, reason: Reason) -> None:
        requests = self._mailbox.drain()
        if self._current is not None:
            requests.insert(0, self._current)
            self._current = None
        for request in requests:
            self._finish(request, None, reason)

    def _go_down(self, reason: Reason, task: asyncio.Task[None] | None = None) -> None:
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
        self._loop.create_task(self._cleanup(task, reason))

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


async def start_agent(behaviour: Behaviour[Any] | None = None, *, name: str = "agent", **opts: Any) -> Agent:
    """Start one standalone agent and wait until it is ready (raises StartFailed)."""
    agent = Agent(name, behaviour if behaviour is not None else Behaviour(), opts)
    await agent.ready()
    return agent
