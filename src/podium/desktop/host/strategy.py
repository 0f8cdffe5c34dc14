"""The HostAgent as a pure `Strategy` over an ensemble session (the UFO² model, done as promised).

Agents of the session:
- `host`: the planner, i.e. the HostAgent's model behind a `HostStepBackend` (4-phase Host steps);
- `app-<application>`: one AppAgent per application behind an `AppStepBackend`, started on the first
  ASSIGN of a subtask on that application, cached and REUSED (with its memory) by later subtasks and
  requests, stopped with the session; one subtask at a time per AppAgent. One that goes down is
  replaced by a fresh generation (`app-<application>-<n>`) and its interrupted step retried there
  (`podium.desktop.host.restarts`); other AppAgents are untouched;
- `observer` (optional): receives `Question`, `ApprovalRequest`, `Progress` and `RunFinished` through
  `Forward` ops and hands them to the caller;
- `judge` (optional): the LLM judge of the evaluation at the end (off by default).

A request (tell / ask) is one run: the planner plans a typed subtask graph, ready subtasks run in
parallel on their AppAgents, every AppAgent step reports back here twice (its proposal, then what ran)
and every decision between is made here, and the host's FSM and each subtask's FSM move only through
`podium.desktop.host.fsm`. Requests that arrive while one runs wait their turn. The person
answers through `Session.notify(Answer(...))` / `notify(Approval(...))`; the shell's clock arrives as
`notify(Elapsed(...))`. Options of `Session.start(HostStrategy(), ...)`: `planner` (AgentSpec),
`app_agents` (application -> AgentSpec), `catalog` (Catalog), `config` (HostConfig), `observer`
(AgentSpec, optional), `judge` (AgentSpec, optional). `podium.desktop.HostSession` builds all of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from podium.agent.backend import Prompt, prompt_text
from podium.agent.events import Response
from podium.backends.structured import OutputErrors, validate
from podium.desktop.host.catalog import Catalog
from podium.desktop.host.flow import Result, finish_run, reply_and_close, start_run
from podium.desktop.host.fsm import HostEvent
from podium.desktop.host.people import resolve
from podium.desktop.host.planner import on_planner_report
from podium.desktop.host.restarts import on_app_down, on_planner_down
from podium.desktop.host.run import active, add_usage, budget_reason
from podium.desktop.host.state import JUDGE, OBSERVER, PLANNER, HostConfig, HostState, progress, status
from podium.desktop.host.subtask import on_app_error, on_app_report
from podium.desktop.person import Answer, Approval, Cancel, Elapsed
from podium.desktop.rules import profile_rules
from podium.desktop.wire.messages import decode_app_report, decode_host_report
from podium.ensemble.ops import AgentSpec, Forward, Op, ReplyError, Token
from podium.ensemble.strategy import Strategy
from podium.errors import ConfigError, Reason, ReasonKind


class Evaluation(BaseModel):
    """The judge's verdict (UFO²'s evaluation agent): complete yes / no / unsure, with reasons."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    reason: str = ""
    sub_scores: dict[str, str] = Field(default_factory=dict)
    complete: str

    @field_validator("complete", mode="before")
    @classmethod
    def _complete(cls, value: Any) -> Any:
        text = str(value).strip().lower()
        if text not in ("yes", "no", "unsure"):
            raise ValueError(f"complete must be yes, no or unsure, not {value!r}")
        return text

    @field_validator("sub_scores", mode="before")
    @classmethod
    def _scores(cls, value: Any) -> Any:
        return {str(k): str(v) for k, v in value.items()} if isinstance(value, Mapping) else {}


class HostStrategy(Strategy[HostState]):
    def init(self, opts: Mapping[str, Any]) -> tuple[HostState, list[AgentSpec]]:
        planner, apps, catalog = opts.get("planner"), opts.get("app_agents"), opts.get("catalog")
        config = opts.get("config", HostConfig())
        if not isinstance(planner, AgentSpec):
            raise ConfigError("HostStrategy needs option `planner`: the AgentSpec of the HostAgent's planner")
        if not isinstance(catalog, Catalog) or not catalog.apps:
            raise ConfigError("HostStrategy needs option `catalog`: a Catalog with at least one application")
        if not isinstance(apps, Mapping) or set(apps) != set(catalog.names) or \
                not all(isinstance(a, AgentSpec) for a in apps.values()):
            raise ConfigError(f"HostStrategy option `app_agents` must map every application of the catalog "
                              f"({', '.join(catalog.names)}) to an AgentSpec")
        if not isinstance(config, HostConfig):
            raise ConfigError(f"HostStrategy option `config` must be a HostConfig, got {config!r}")
        observer, judge = opts.get("observer"), opts.get("judge")
        specs = [AgentSpec(PLANNER, planner.behaviour, planner.opts)]
        if observer is not None:
            specs.append(AgentSpec(OBSERVER, observer.behaviour, observer.opts))
        if judge is not None:
            specs.append(AgentSpec(JUDGE, judge.behaviour, judge.opts))
        if config.evaluate and judge is None:
            raise ConfigError("HostConfig.evaluate is on but no `judge` AgentSpec was given")
        state = HostState(config=config, catalog=catalog, planner=planner, app_specs=dict(apps),
                          rules=profile_rules(config.rules), observer=observer is not None, judge=judge is not None)
        return state, specs

    # -- requests ----------------------------------------------------------------------------------

    def handle_tell(self, prompt: str | Prompt, opts: Mapping[str, Any], token: Token, state: HostState) -> Result:
        request = prompt_text(prompt).strip()
        if not request:
            return [ReplyError(token, Reason(ReasonKind.INVALID_REQUEST,
                                             "the request is empty: say what the HostAgent should do"))], state
        if state.run is not None:
            return [], replace(state, queue=(*state.queue, (token, request)))
        return self._progress(*start_run(state, token, request))

    # -- results -----------------------------------------------------------------------------------

    def handle_response(self, agent: str, response: Response, state: HostState) -> Result:
        if state.run is None:
            return [], state
        if agent == JUDGE:
            return self._progress(*self._judged(state, response))
        state = add_usage(state, response.usage)
        if not active(state):
            return [], state
        if agent == PLANNER:
            ops, state = on_planner_report(state, decode_host_report(response.text))
        else:
            ops, state = on_app_report(state, agent, decode_app_report(response.text))
        if active(state) and (limit := budget_reason(state)) is not None:
            more, state = finish_run(state, HostEvent.LIMIT, limit)
            ops += more
        return self._progress(ops, state)

    def handle_error(self, agent: str, reason: Reason, state: HostState) -> Result:
        if state.run is None:
            return [], state
        if agent == JUDGE:
            return self._progress(*self._judged(state, None, reason))
        if not active(state):
            return [], state
        if agent == PLANNER:
            return self._progress(*finish_run(state, HostEvent.BROKEN, Reason(
                reason.kind, f"the HostAgent's step failed: {reason.detail or reason.kind}", PLANNER, reason)))
        return self._progress(*on_app_error(state, agent, reason))

    def handle_agent_down(self, agent: str, reason: Reason, state: HostState) -> Result:
        if agent == OBSERVER:
            return [], replace(state, observer=False)
        if agent == JUDGE:
            state = replace(state, judge=False)
            if state.run is not None and state.run.evaluating is not None:
                return self._judged(state, None, reason)
            return [], state
        if agent == PLANNER:
            return self._progress(*on_planner_down(state, reason))
        return self._progress(*on_app_down(state, agent, reason))

    def handle_dispatch_rejected(self, agent: str, token: Token, reason: Reason, state: HostState) -> Result:
        if state.run is None or state.run.token != token or not active(state):
            return [], state
        return self._progress(*finish_run(state, HostEvent.BROKEN, Reason(
            ReasonKind.DISPATCH_REJECTED, f"could not hand the step to {agent}: {reason.detail or reason.kind}",
            agent, reason)))

    # -- the person and the shell ------------------------------------------------------------------

    def handle_notify(self, event: Any, state: HostState) -> Result:
        if isinstance(event, Answer):
            return self._progress(*resolve(state, event.id, answers=event.answers), state)
        if isinstance(event, Approval):
            return self._progress(*resolve(state, event.id, approved=event.approved), state)
        run = state.run
        if run is None or not active(state) or getattr(event, "token", None) not in (None, run.token):
            return [], state
        if isinstance(event, Elapsed):
            limit = state.config.max_wall_time
            if limit is not None and event.seconds >= limit:
                return self._progress(*finish_run(state, HostEvent.LIMIT, Reason(
                    ReasonKind.LIMIT_REACHED, f"wall time exhausted: {event.seconds:.1f}s elapsed of "
                                              f"max_wall_time={limit}s")))
            return [], state
        if isinstance(event, Cancel):
            return self._progress(*finish_run(state, HostEvent.GIVE_UP, Reason(ReasonKind.CANCELLED, event.detail)))
        return [], state

    def handle_status(self, state: HostState) -> Mapping[str, Any]:
        return {"host": status(state)}

    # -- helpers -----------------------------------------------------------------------------------

    def _progress(self, ops: list[Op], state: HostState, before: HostState | None = None) -> Result:
        if state.observer and state is not before:
            ops = [*ops, Forward(OBSERVER, progress(state))]
        return ops, state

    def _judged(self, state: HostState, response: Response | None, error: Reason | None = None) -> Result:
        run = state.run
        if run is None or run.evaluating is None:
            return [], state
        if response is not None:
            state = add_usage(state, response.usage)
            verdict = validate(Evaluation, response.text)
            evaluation = ({"complete": "unsure", "reason": f"the judge's answer was not valid: {verdict.message}",
                           "sub_scores": {}} if isinstance(verdict, OutputErrors) else verdict.model_dump())
        else:
            evaluation = {"complete": "unsure", "reason": f"the judge failed: {error}", "sub_scores": {}}
        return reply_and_close(state, {**run.evaluating, "evaluation": evaluation})
