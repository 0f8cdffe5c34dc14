"""A desktop run as an OpenTelemetry trace: request > subtask > step > phase, and under each phase the
model and tool calls it made (podium.desktop.shell.trace_calls).

The host strategy is pure (no clock, no I/O), so the spans are made on the shell side, from what
already passes there:
- the request: `HostSession.run` says when it starts and ends; a request the session took over
  without `run` (a resumed run) starts at its first sign and ends with its `RunFinished`;
- subtasks: the `Progress` events (a span opens when a subtask leaves WAITING and ends when its state
  is final) or the subtask's first step, whichever comes first: they travel on different agents;
- steps and phases: the step pipeline's middleware hooks, whose context names the step (subtask and
  number, or the HostAgent's step). An AppAgent's step is two turns, PROPOSE then EXECUTE after the
  host's decision: both land in one step span, which ends when its last phase ended, once a later step
  of its subtask begins, or its subtask or request ends;
- model and tool calls: children of the phase their agent is in (one turn at a time per agent).

A phase that never ended (its agent went down, the session stopped) is ended as interrupted when its
agent's next phase begins, or by `close()`. Observing a run never breaks it: a failure here is logged.
What each span says of what it stands for is podium.desktop.shell.trace_attrs.
"""

from __future__ import annotations

import functools
import logging
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from opentelemetry.trace import Status, StatusCode, set_span_in_context

from podium.desktop.host.fsm import SUBTASK_FINAL, SubtaskState
from podium.desktop.host.state import PLANNER
from podium.desktop.person import ApprovalRequest, Progress, Question, RunFinished
from podium.desktop.shell.phases import Middleware, Phase
from podium.desktop.shell.trace_attrs import asked, describe_outcome, describe_step, describe_subtask, value_of
from podium.desktop.shell.trace_calls import TracedApplication, TracedBackend, content, fail
from podium.desktop.wire.messages import AppStepRequest, HostStepRequest
from podium.telemetry import Tracing

log = logging.getLogger("podium.desktop.tracing")
F = TypeVar("F", bound=Callable[..., Any])
Owner = tuple[str, str]  # whose phases: ("agent", PLANNER) or ("app", application name)
_FINAL = frozenset(s.value for s in SUBTASK_FINAL)
_WAITING, _SKIPPED, _FINISH = SubtaskState.WAITING.value, SubtaskState.SKIPPED.value, SubtaskState.FINISH.value


def agent_owner(agent: str) -> Owner:
    return ("agent", agent)


def app_owner(application: str) -> Owner:
    return ("app", application)


def _guarded(method: F) -> F:
    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return method(*args, **kwargs)
        except Exception:
            log.exception("tracing: %s failed", method.__name__)
            return None

    return wrapper  # type: ignore[return-value]


@dataclass(eq=False)
class _Step:
    span: Any
    number: int
    last_end: int | None = None  # when its latest phase ended (ns); None while one runs
    closing: bool = False  # to end once its running phase ends
    ended: bool = False


@dataclass(eq=False)
class _Subtask:
    id: str
    span: Any = None  # None: not started
    state: str = _WAITING
    steps: dict[int, _Step] = field(default_factory=dict)
    closed: bool = False


@dataclass(eq=False)
class _Request:
    span: Any
    token: str | None
    subtasks: dict[str, _Subtask] = field(default_factory=dict)
    host_steps: dict[int, _Step] = field(default_factory=dict)
    host_state: str = ""
    open: bool = True


@dataclass(eq=False)
class _Phase:
    span: Any
    step: _Step
    ctx: Any


class RunTracer:
    """The spans of one HostSession's runs. `HostSession.start` wraps the models and applications with
    `model()` / `application()` and adds `middleware()`; the session reports requests and events."""

    def __init__(self, setting: Tracing) -> None:
        self.setting = setting
        self._tracer = setting.tracer()
        self._request: _Request | None = None  # the running request, else the latest one
        self._ended: deque[str] = deque(maxlen=256)  # tokens of ended requests: late events are ignored
        self._phases: dict[Owner, _Phase] = {}
        self._hooks = _Hooks(self)

    # -- wiring -----------------------------------------------------------------------------------

    def model(self, backend: Any, agent: str, application: str | None = None) -> TracedBackend:
        """The model `agent` asks (an AppAgent's: name its `application`)."""
        owner = app_owner(application) if application is not None else agent_owner(agent)
        return TracedBackend(backend, self, owner, agent)

    def application(self, app: Any) -> TracedApplication:
        return TracedApplication(app, self, app_owner(app.name))

    def middleware(self, middleware: Sequence[Middleware[Any]]) -> tuple[Middleware[Any], ...]:
        return (*middleware, self._hooks)

    # -- requests ---------------------------------------------------------------------------------

    @_guarded
    def request_started(self, token: str, request: str) -> None:
        if self._request is not None and self._request.open:
            self._finish(self._request, {"reason_kind": "superseded"})
        self._request = _Request(self._start_request(token, request), token)

    @_guarded
    def request_ended(self, token: str, outcome: Any) -> None:
        """`outcome`: the RunResult (or a mapping of its fields: status, text, reason, reason_kind...)."""
        req = self._request
        if req is not None and req.open and req.token in (None, token):
            self._finish(req, outcome)

    @_guarded
    def event(self, event: Any) -> None:
        """Every event the host strategy sends its observer."""
        if isinstance(event, Progress):
            self._progress(event)
        elif isinstance(event, RunFinished):
            req = self._request_of(event.token, create=False)
            if req is not None:
                self._finish(req, {"text": event.outcome.get("result"), **event.outcome})
        elif isinstance(event, Question | ApprovalRequest):
            req = self._request_of(event.token, create=False) if event.token else self._request
            if req is not None:
                sub = req.subtasks.get(event.subtask or "")
                on_subtask = sub is not None and sub.span is not None and not sub.closed
                name, attributes = asked(event, self.setting)
                (sub.span if on_subtask else req.span).add_event(name, attributes)  # type: ignore[union-attr]

    @_guarded
    def close(self) -> None:
        """End every span still open (the session stops)."""
        for phase in list(self._phases.values()):
            self._end_phase(phase, "interrupted", "the session stopped during this phase")
        req = self._request
        if req is not None and req.open:
            self._finish(req, {"reason_kind": "stopped", "reason": "the session stopped before the request ended"})

    def _start_request(self, token: str | None, request: str | None) -> Any:
        attributes: dict[str, Any] = {"podium.span": "request", "podium.resumed": request is None}
        if token is not None:
            attributes["podium.request.token"] = token
        if request is not None and self.setting.content:
            attributes["podium.request"] = content(self.setting, request)
        return self._tracer.start_span("request", attributes=attributes)

    def _request_of(self, token: str | None, *, create: bool = True) -> _Request | None:
        if token is None or token in self._ended:
            return None
        req = self._request
        if req is not None and req.open:
            if req.token is None:  # taken over: its token is learnt from its first event
                req.token = token
                req.span.set_attribute("podium.request.token", token)
            return req if req.token == token else None
        if req is None and create:  # a request this session took over (a resumed run)
            self._request = _Request(self._start_request(token, None), token)
            return self._request
        return None

    def _step_request(self) -> _Request:
        """The request a step belongs to: the running one, else the latest (a step that outlived it)."""
        if self._request is None:
            self._request = _Request(self._start_request(None, None), None)
        return self._request

    def _finish(self, req: _Request, outcome: Any) -> None:
        """`outcome`: a RunResult, or a mapping with its fields."""
        describe_outcome(req.span, outcome, self.setting)
        for item in value_of(outcome, "subtasks") or ():
            if isinstance(item, Mapping) and "id" in item:
                self._subtask_state(req, str(item["id"]), str(item.get("state", "")), item)
        now = time.time_ns()
        for sub in req.subtasks.values():  # still going: the request ended without it
            self._close_subtask(sub, now)
        for step in req.host_steps.values():
            self._end_step(step, now)
        req.span.end(end_time=now)
        req.open = False
        if req.token is not None:
            self._ended.append(req.token)

    # -- subtasks ---------------------------------------------------------------------------------

    def _progress(self, progress: Progress) -> None:
        req = self._request_of(progress.token)
        if req is None:
            return
        if progress.host_state != req.host_state:
            req.host_state = progress.host_state
            req.span.add_event("host state", {"podium.host.state": progress.host_state})
        for item in progress.subtasks:
            self._subtask_state(req, item.id, item.state, item)

    def _subtask_state(self, req: _Request, sid: str, state: str, info: Any) -> None:
        sub = req.subtasks.setdefault(sid, _Subtask(sid))
        if sub.closed or not state:
            return
        changed, sub.state = state != sub.state, state
        if sub.span is None:
            if state in (_WAITING, _SKIPPED):  # not started (yet, or ever)
                sub.closed = state == _SKIPPED
                return
            self._open_subtask(req, sub, info)
        else:
            describe_subtask(sub.span, info, self.setting)
        if changed:  # waiting for the person (PENDING, CONFIRM) shows as the time between two of these
            sub.span.add_event("subtask state", {"podium.subtask.state": state})
        sub.span.set_attribute("podium.subtask.state", state)
        if value_of(info, "steps") is not None:
            sub.span.set_attribute("podium.subtask.steps", int(value_of(info, "steps")))
        if value_of(info, "agent"):
            sub.span.set_attribute("podium.agent", str(value_of(info, "agent")))
        if state in _FINAL:
            self._close_subtask(sub, time.time_ns())

    def _open_subtask(self, req: _Request, sub: _Subtask, info: Any) -> None:
        sub.span = self._tracer.start_span("subtask", context=set_span_in_context(req.span), attributes={
            "podium.span": "subtask", "podium.subtask.id": sub.id})
        sub.closed = False
        describe_subtask(sub.span, info, self.setting)

    def _close_subtask(self, sub: _Subtask, now: int) -> None:
        if sub.closed:
            return
        sub.closed = True
        if sub.span is None:
            return
        for step in sub.steps.values():
            self._end_step(step, now)
        if sub.state == _FINISH:
            sub.span.set_status(Status(StatusCode.OK))
        elif sub.state in _FINAL and sub.state != _SKIPPED:
            sub.span.set_status(Status(StatusCode.ERROR, f"subtask {sub.state}"))
        sub.span.end(end_time=now)

    # -- steps and phases (the pipeline's hooks) ---------------------------------------------------

    @_guarded
    def phase_started(self, phase: Phase, ctx: Any) -> None:
        request = getattr(ctx, "request", None)
        if isinstance(request, AppStepRequest):
            req = self._step_request()
            sub = req.subtasks.setdefault(request.subtask_id, _Subtask(request.subtask_id))
            if sub.span is None:
                self._open_subtask(req, sub, request)
            owner, parent, steps = app_owner(request.application), sub.span, sub.steps
            attributes = {"podium.subtask.id": request.subtask_id, "podium.application": request.application}
        elif isinstance(request, HostStepRequest):
            req = self._step_request()
            owner, parent, steps = agent_owner(PLANNER), req.span, req.host_steps
            attributes = {"podium.agent": PLANNER}
        else:
            return  # a pipeline that is not a desktop step
        step = steps.get(request.step)
        if step is None:
            now = time.time_ns()
            for number in [n for n in steps if n < request.step]:  # a later step began: the earlier ones are over
                self._end_step(steps.pop(number), now)
            step = steps[request.step] = _Step(self._tracer.start_span(
                "step", context=set_span_in_context(parent),
                attributes={"podium.span": "step", "podium.step": request.step, **attributes}), request.step)
        stale = self._phases.pop(owner, None)
        if stale is not None:
            self._end_phase(stale, "interrupted", "the phase did not end: its agent went down or its turn was cut")
        attributes = {"podium.span": "phase", "podium.phase": phase.value}
        if isinstance(request, AppStepRequest):
            attributes["podium.turn"] = request.kind.value
        span = self._tracer.start_span(phase.value, context=set_span_in_context(step.span), attributes=attributes)
        step.last_end = None
        self._phases[owner] = _Phase(span, step, ctx)

    @_guarded
    def phase_ended(self, phase: Phase, ctx: Any, error: BaseException | None) -> None:
        request = getattr(ctx, "request", None)
        owner = app_owner(request.application) if isinstance(request, AppStepRequest) else agent_owner(PLANNER)
        current = self._phases.get(owner)
        if current is None or current.ctx is not ctx:
            return
        describe_step(current.step.span, phase, ctx)
        if error is None:
            self._end_phase(current)
            return
        failure = getattr(ctx, "failure_kind", None)
        kind = str(getattr(failure, "value", "") or type(error).__name__)
        current.step.span.set_attribute("podium.step.failed_phase", phase.value)
        fail(current.step.span, self.setting, kind, f"{phase.value} failed: {error}")
        self._end_phase(current, kind, f"{type(error).__name__}: {error}")

    def _end_phase(self, phase: _Phase, kind: str | None = None, message: str = "") -> None:
        owner = next((o for o, p in self._phases.items() if p is phase), None)
        if owner is not None:
            del self._phases[owner]
        if kind is not None:
            fail(phase.span, self.setting, kind, message)
        now = time.time_ns()
        phase.span.end(end_time=now)
        phase.step.last_end = now
        if phase.step.closing:
            self._end_step(phase.step, now)

    def _end_step(self, step: _Step, now: int) -> None:
        if step.ended:
            return
        if any(p.step is step for p in self._phases.values()):
            step.closing = True  # ends with its running phase
            return
        step.ended = True
        step.span.end(end_time=step.last_end or now)

    # -- calls --------------------------------------------------------------------------------------

    def start_call(self, owner: Owner, name: str, kind: Any, attributes: Mapping[str, Any],
                   start_time: int | None = None) -> Any:
        """A model or tool call's span, under the phase `owner` is in (else under the request)."""
        current = self._phases.get(owner)
        parent = current.span if current is not None else getattr(self._request, "span", None)
        context = set_span_in_context(parent) if parent is not None else None
        return self._tracer.start_span(name, context=context, kind=kind, attributes=dict(attributes),
                                       start_time=start_time)

    def planned_call(self, owner: Owner, tool: str, arguments: Mapping[str, Any]) -> tuple[Any, str] | None:
        """The call of the running EXECUTE turn this is (its effects), and its id (intent#n)."""
        current = self._phases.get(owner)
        request = getattr(getattr(current, "ctx", None), "request", None)
        calls = tuple(getattr(request, "calls", ()) or ())
        intent = str(getattr(request, "intent", "") or "")
        for same in (lambda c: c.arguments is arguments,
                     lambda c: c.function == tool and c.arguments == dict(arguments)):
            for index, call in enumerate(calls):
                if same(call):
                    return call, f"{intent}#{index + 1}"
        return None


class _Hooks(Middleware[Any]):
    def __init__(self, tracer: RunTracer) -> None:
        self.tracer = tracer

    def before(self, phase: Phase, ctx: Any) -> None:
        self.tracer.phase_started(phase, ctx)

    def after(self, phase: Phase, ctx: Any, elapsed_ms: float) -> None:
        self.tracer.phase_ended(phase, ctx, None)

    def on_error(self, phase: Phase, ctx: Any, error: BaseException) -> None:
        self.tracer.phase_ended(phase, ctx, error)
