"""The public entry point: a running HostAgent over the applications of a desktop.

    async with await HostSession.start(apps, model, on_event=show, ask_person=ask, approve=confirm) as host:
        result = await host.run("Extract the table from report.docx and chart it in budget.xlsx")
        print(result.status, result.text)
        json.dump(result.to_dict(), file)   # subtasks, trajectory, blackboard, usage: all serialisable

or, for one request, `await run_request(request, apps, model, ...)`.

- `on_event(event)` sees every `Progress` (host state, every subtask's state, step, tokens, cost),
  `Question`, `ApprovalRequest` and `RunFinished` as they happen (plain function or coroutine).
- `ask_person(question) -> answers` and `approve(request) -> bool` answer the person's part
  (plain functions or coroutines). Without them, answer from `on_event` with `host.answer(id, ...)` /
  `host.approve(id, yes)`, or run in batch mode (`HostConfig(interactive=False)`, the default when no
  hook is given): questions get `default_answer`, sensitive steps are refused (`auto_approve` grants them).
- The wall-time limit is kept here (the strategy has no clock): when it passes, the strategy is told.
- An agent that crashes is replaced by a fresh one and its interrupted step retried, at most
  `config.max_agent_restarts` times per subtask (per request for the planner); other AppAgents go on.
- `tracing=True` (or a `podium.telemetry.Tracing`) makes each request an OpenTelemetry trace: request >
  subtask > step > phase, model and tool calls (podium.desktop.shell.trace_tree).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from podium.agent.backend import Backend, BaseBackend
from podium.agent.behaviour import Behaviour, Continue
from podium.agent.outcomes import PENDING
from podium.desktop.host.catalog import Catalog
from podium.desktop.host.state import JUDGE, OBSERVER, PLANNER, HostConfig
from podium.desktop.host.strategy import HostStrategy
from podium.desktop.person import Answer, Approval, ApprovalRequest, Cancel, Elapsed, HostEventOut, Question
from podium.desktop.rules import AUTO, NONE
from podium.desktop.shell.app_step import AppStepBackend, IntentLog
from podium.desktop.shell.host_step import HostStepBackend
from podium.desktop.shell.intents import JournalIntents
from podium.desktop.shell.launch import AppsLifecycle, Lifecycle
from podium.desktop.shell.model_call import Screenshots
from podium.desktop.shell.phases import Middleware
from podium.desktop.shell.records import keep_strategy_record
from podium.desktop.shell.tracing import NO_TRACING, tracer_for
from podium.ensemble.ops import AgentSpec
from podium.ensemble.session import Session
from podium.errors import ConfigError, ReasonKind, RunFailed
from podium.telemetry import Tracing

log = logging.getLogger("podium.desktop")
OnEvent = Callable[[HostEventOut], Awaitable[None] | None]
AskPerson = Callable[[Question], Awaitable[Sequence[str]] | Sequence[str]]
Approve = Callable[[ApprovalRequest], Awaitable[bool] | bool]


@dataclass(frozen=True)
class RunResult:
    """How a request ended, with everything needed to inspect or replay it (all JSON-serialisable)."""

    status: str  # FINISH, FAIL or ERROR
    text: str
    reason: str | None = None
    reason_kind: str | None = None
    subtasks: tuple[Mapping[str, Any], ...] = ()
    steps: int = 0
    usage: Mapping[str, Any] = field(default_factory=dict)
    evaluation: Mapping[str, Any] | None = None
    blackboard: Mapping[str, Any] = field(default_factory=dict)
    request: str = ""
    token: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == "FINISH"

    @property
    def trajectory(self) -> list[Mapping[str, Any]]:
        return list(self.blackboard.get("trajectories", ()))

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "text": self.text, "reason": self.reason, "reason_kind": self.reason_kind,
                "subtasks": [dict(s) for s in self.subtasks], "steps": self.steps, "usage": dict(self.usage),
                "evaluation": None if self.evaluation is None else dict(self.evaluation),
                "blackboard": dict(self.blackboard), "request": self.request, "token": self.token}

    @classmethod
    def from_outcome(cls, outcome: Mapping[str, Any]) -> RunResult:
        return cls(status=outcome["status"], text=str(outcome.get("result") or ""), reason=outcome.get("reason"),
                   reason_kind=outcome.get("reason_kind"), subtasks=tuple(outcome.get("subtasks", ())),
                   steps=int(outcome.get("steps", 0)), usage=outcome.get("usage", {}),
                   evaluation=outcome.get("evaluation"), blackboard=outcome.get("blackboard", {}),
                   request=outcome.get("request", ""), token=outcome.get("token"))


class _Silent(BaseBackend):
    """The observer never takes a turn."""

    def prompt(self, session: Any, prompt: Any) -> Any:
        raise ConfigError("the observer agent takes no prompts")


class _Observer(Behaviour[Callable[[Any], None]]):
    """Hands every event the host strategy forwards to the HostSession (in the order sent)."""

    def init_agent(self, opts: Mapping[str, Any]) -> tuple[Mapping[str, Any], Callable[[Any], None]]:
        return {}, opts["sink"]

    def handle_event(self, event: Any, state: Callable[[Any], None]) -> Continue[Callable[[Any], None]]:
        state(event)
        return Continue(state)


class HostSession:
    def __init__(self, session: Session, config: HostConfig, on_event: OnEvent | None,
                 ask_person: AskPerson | None, approve: Approve | None) -> None:
        self.session = session
        self.config = config
        self._on_event = on_event
        self._ask_person = ask_person
        self._approve = approve
        self._tasks: set[asyncio.Task[Any]] = set()
        self._lock = asyncio.Lock()
        self.intents: IntentLog | None = None
        self._trace = NO_TRACING

    @property
    def reconciled(self) -> tuple[str, ...]:
        """How the batches of calls a resumed run sent again were reconciled with the files."""
        return tuple(getattr(self.intents, "reconciled", ()))

    @classmethod
    async def start(cls, apps: Sequence[Any], model: Backend, *,
                    app_models: Backend | Mapping[str, Backend] | None = None, judge_model: Backend | None = None,
                    config: HostConfig | None = None, on_event: OnEvent | None = None,
                    ask_person: AskPerson | None = None, approve: Approve | None = None,
                    lifecycle: Lifecycle | None = None, screenshots: Screenshots | None = None,
                    middleware: Sequence[Middleware[Any]] = (), name: str | None = None, recorder: Any = None,
                    turn_timeout: float | None = 600.0, workspace: str | os.PathLike[str] | None = None,
                    intents: IntentLog | None = None,
                    resume: Callable[..., Awaitable[Session]] | None = None,
                    tracing: Tracing | bool | None = None) -> HostSession:
        """Start the HostAgent's session: the planner and the observer now, AppAgents on first use.
        `model` is the HostAgent's model; `app_models` the AppAgents' (one for all, or per application;
        default: `model`); `judge_model` the evaluation's (default: `model`). `workspace`: the folder the
        planner lists (default: the applications' own workspace). A config whose `rules` is "auto" gets
        the profile of named rules the planner's model asks for (`model.rules_profile`), else none.
        `tracing`: each request an OpenTelemetry trace (podium.desktop.shell.tracing; default: the
        setting of `podium.telemetry.enable_opentelemetry`)."""
        if not apps:
            raise ConfigError("HostSession needs at least one application")
        catalog = Catalog.of(apps)
        if config is None:
            config = HostConfig(interactive=ask_person is not None or approve is not None)
        if config.rules == AUTO:
            config = replace(config, rules=_declared_profile(model) or NONE)
        root = Path(workspace) if workspace is not None else _workspace_of(apps)
        config = replace(config, protected=tuple(dict.fromkeys((*config.protected, *_protected(apps)))))
        lifecycle = lifecycle or AppsLifecycle(apps)
        if intents is None and root is not None and callable(getattr(recorder, "save_file", None)):
            intents = JournalIntents(recorder, root)  # exactly once, and the change log undo reads
        limits = {"turn_timeout": turn_timeout}
        trace = tracer_for(tracing)
        planner = AgentSpec(PLANNER, Behaviour(), {
            "backend": HostStepBackend(trace.model(model, PLANNER), catalog, lifecycle, workspace=root,
                                       screenshots=screenshots, middleware=trace.middleware(middleware),
                                       own=_protected(apps)), **limits})
        app_agents = {}
        for app in apps:
            app_model = model_of_app(app.name, model, app_models)
            app_agents[app.name] = AgentSpec(f"app-{app.name}", Behaviour(), {
                "backend": AppStepBackend(trace.model(app_model, f"app-{app.name}", app.name), trace.application(app),
                                          lifecycle=lifecycle, screenshots=screenshots,
                                          middleware=trace.middleware(middleware), intents=intents), **limits})
        host = cls.__new__(cls)
        observer = AgentSpec(OBSERVER, _Observer(), {"backend": _Silent(), "sink": lambda e: host._deliver(e)})
        judge = AgentSpec(JUDGE, Behaviour(), {"backend": trace.model(judge_model or model, JUDGE), **limits}
                          ) if config.evaluate else None
        opts = {"planner": planner, "app_agents": app_agents, "catalog": catalog, "config": config,
                "observer": observer, "judge": judge}
        # `resume`: continue a recorded session whose process died (podium.journal.resume over its store)
        session = await (resume(HostStrategy(), **opts) if resume is not None else
                         Session.start(HostStrategy(), name=name, recorder=recorder, **opts))
        keep_strategy_record(recorder, session.name, catalog, config, judge=judge is not None,
                             turn_timeout=turn_timeout)
        if isinstance(intents, JournalIntents):
            intents.bind(session.name)
        host.__init__(session, config, on_event, ask_person, approve)
        host.intents = intents
        host._trace = trace
        return host

    async def __aenter__(self) -> HostSession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # -- requests -----------------------------------------------------------------------------------

    async def run(self, request: str, *, timeout: float | None = None) -> RunResult:
        """Run one request to its end (FINISH, FAIL or ERROR); never raises for a failed request: the
        result says why. When `timeout` (seconds) passes first, the request is cancelled (FAIL, cancelled)
        and its record returned; `config.max_wall_time` is the same limit kept by the host's config."""
        if not request.strip():
            raise ConfigError("the request is empty: say what the HostAgent should do")
        async with self._lock:
            token = self.session.tell(request)
            self._trace.request_started(token, request)
            loop = asyncio.get_running_loop()
            started = time.monotonic()
            timer = None
            if self.config.max_wall_time is not None:
                timer = loop.call_later(self.config.max_wall_time, self._elapsed, token, started)
            try:
                try:
                    try:
                        await self.session.result(token, timeout=timeout)
                    except RunFailed as waited:
                        if waited.reason.kind is not ReasonKind.TIMEOUT or self.session.poll(token) != PENDING:
                            raise
                        # The caller stops waiting: end the request cleanly, so its record is complete.
                        self.session.notify(Cancel(f"no result within the caller's timeout of {timeout}s", token))
                        await self.session.result(token)
                except RunFailed as failed:
                    outcome = self._outcome(token)
                    if outcome is None:
                        return self._ended(token, RunResult(
                            status="ERROR", text=str(failed.reason), reason=str(failed.reason),
                            reason_kind=failed.reason.kind.value, request=request, token=token))
                    return self._ended(token, RunResult.from_outcome(outcome))
            finally:
                if timer is not None:
                    timer.cancel()
            outcome = self._outcome(token)
            assert outcome is not None, "a finished request leaves its outcome in the host's status"
            return self._ended(token, RunResult.from_outcome(outcome))

    def _ended(self, token: str, result: RunResult) -> RunResult:
        self._trace.request_ended(token, result)  # a request cut short is ended by its RunFinished, or by stop()
        return result

    def _elapsed(self, token: str, started: float) -> None:
        if not self.session.closed:
            self.session.notify(Elapsed(time.monotonic() - started, token))

    def _outcome(self, token: str) -> Mapping[str, Any] | None:
        host = self.session.status().get("host", {})
        last = host.get("last")
        return last if last is not None and last.get("token") == token else None

    # -- the person ----------------------------------------------------------------------------------

    def answer(self, question_id: str, *answers: str) -> None:
        self.session.notify(Answer(question_id, answers))

    def approve(self, request_id: str, approved: bool = True) -> None:
        self.session.notify(Approval(request_id, approved))

    def cancel(self, detail: str = "cancelled by the caller") -> None:
        """End the running request with FAIL (cancelled); its record is kept."""
        self.session.notify(Cancel(detail))

    def status(self) -> dict[str, Any]:
        """The session's status; `["host"]` has the host state and every subtask's state."""
        return self.session.status()

    async def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.session.stop()
        self._trace.close()

    # -- events from the observer --------------------------------------------------------------------

    def _deliver(self, event: Any) -> None:
        self._trace.event(event)
        if self._on_event is not None:
            self._spawn(self._on_event, event)
        if isinstance(event, Question) and self._ask_person is not None:
            self._spawn(self._answer_with_hook, event)
        elif isinstance(event, ApprovalRequest) and self._approve is not None:
            self._spawn(self._approve_with_hook, event)

    def _spawn(self, fn: Callable[..., Any], *args: Any) -> None:
        # The caller's callbacks run outside the observer agent: a bug in them must not take it down
        # (every later question would then wait for nobody).
        try:
            result = fn(*args)
        except Exception:
            log.exception("HostSession: the %s callback failed", getattr(fn, "__name__", "event"))
            return
        if inspect.isawaitable(result):
            task = asyncio.ensure_future(result)
            self._tasks.add(task)
            task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("HostSession: a callback failed", exc_info=task.exception())

    async def _answer_with_hook(self, question: Question) -> None:
        try:
            answers = self._ask_person(question)  # type: ignore[misc]
            if inspect.isawaitable(answers):
                answers = await answers
        except Exception:  # nobody could answer: the batch-mode answer, so the request goes on
            log.exception("HostSession: ask_person failed; answering %r", self.config.default_answer)
            answers = (self.config.default_answer,) * len(question.questions)
        if isinstance(answers, str):
            answers = (answers,)
        if not self.session.closed:
            self.session.notify(Answer(question.id, tuple(answers)))

    async def _approve_with_hook(self, request: ApprovalRequest) -> None:
        try:
            approved = self._approve(request)  # type: ignore[misc]
            if inspect.isawaitable(approved):
                approved = await approved
        except Exception:  # no yes was given: refused
            log.exception("HostSession: approve failed; the step is refused")
            approved = False
        if not self.session.closed:
            self.session.notify(Approval(request.id, bool(approved)))


def _protected(apps: Sequence[Any]) -> tuple[str, ...]:
    """The workspace paths the applications protect (podium's configuration, the journal's files), relative
    to the workspace as effects name them."""
    found: dict[str, None] = {}
    for app in apps:
        workspace = getattr(app, "workspace", None)
        paths = getattr(workspace, "protected_paths", None)
        if callable(paths):
            found.update(dict.fromkeys(workspace.relative(p) for p in paths()))
    return tuple(found)


def _declared_profile(model: Any) -> str | None:
    """The rules profile a backend declares, looked for through the wrappers that hold it as `inner`
    (budgets, call counters, tracing)."""
    seen = 0
    while model is not None and seen < 16:
        profile = getattr(model, "rules_profile", None)
        if isinstance(profile, str):
            return profile
        model, seen = getattr(model, "inner", None), seen + 1
    return None


def _workspace_of(apps: Sequence[Any]) -> Path | None:
    """The workspace the applications share (the first one that has one)."""
    for app in apps:
        root = getattr(getattr(app, "workspace", None), "root", None)
        if root is not None:
            return Path(root)
    return None


def model_of_app(application: str, model: Backend, app_models: Backend | Mapping[str, Backend] | None) -> Backend:
    """The model an application's AppAgent runs on: its entry of `app_models`, else `app_models` itself when it is
    one model for all, else the planner's `model`."""
    return app_models.get(application, model) if isinstance(app_models, Mapping) else (app_models or model)


async def run_request(request: str, apps: Sequence[Any], model: Backend, **options: Any) -> RunResult:
    """Start a HostSession, run one request, stop everything (AppAgents included), return the result."""
    async with await HostSession.start(apps, model, **options) as host:
        return await host.run(request)


def batch(config: HostConfig | None = None, **changes: Any) -> HostConfig:
    """A batch-mode config (nobody answers): `batch(auto_approve=True, max_steps=50)`."""
    return replace(config or HostConfig(), interactive=False, **changes)
