"""The HostAgent's step: the planner agent's backend runs one 4-phase step per prompt.

- DATA_COLLECTION: which applications are running (lifecycle), a desktop screenshot when there is a
  display, the workspace's file and folder NAMES (never their content: the plan is made from the
  request and the names), and the prompt (request, applications, subtasks so far and their results,
  answers, blackboard, why it is asked now, repair feedback).
- LLM_INTERACTION: ask the model under the grammar of a typed plan over these applications and files,
  and validate its answer against `HostOutput`.
- ACTION_EXECUTION: `Bash` launches an application through the lifecycle (never a shell); it waits
  when the status asks the person first (PENDING, CONFIRM).
- MEMORY_UPDATE: none here: the planner's steps are on the blackboard, in the host strategy's state.

The plan itself is checked by the host strategy, in code, where the whole graph is known.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from podium.agent.backend import Backend, Prompt, prompt_text
from podium.agent.events import Event
from podium.backends.structured import OutputErrors
from podium.desktop.host.catalog import Catalog
from podium.desktop.host.plan import named_by
from podium.desktop.shell.launch import Lifecycle, run_bash
from podium.desktop.shell.model_call import ModelAnswer, ModelFailed, Screenshots, StepBackend, think, usage_events
from podium.desktop.shell.phases import Middleware, Phase, PhaseFailed, run_pipeline
from podium.desktop.wire.grammar import MAX_LISTED, choice_schema, host_output_schema
from podium.desktop.wire.messages import BashReport, HostStepReport, HostStepRequest, StepFailure, decode_host_request
from podium.desktop.wire.prompts import CHOICE_SYSTEM, choice_user, host_system, host_user
from podium.desktop.wire.schemas import ChoiceOutput, HostOutput, HostStatus, normal_path
from podium.errors import ReasonKind

HOST_MAX_TOKENS = 768  # a plan is ~250 tokens; see APP_MAX_TOKENS
CHOICE_MAX_TOKENS = 96  # {"words": <at most CHOICE_WORDS characters>, "answer": "<option>"}
MAX_DEPTH = 3  # folders below the workspace root that are listed


def workspace_names(root: Path | None, limit: int = MAX_LISTED * 4) -> list[str]:
    """The workspace's files and folders (folders end in '/'), names only, hidden ones left out, sorted,
    at most `limit`: what the planner may see."""
    if root is None:
        return []
    found: list[str] = []
    for folder, dirs, files in os.walk(root):
        rel = Path(folder).relative_to(root)
        depth = len(rel.parts)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".")) if depth < MAX_DEPTH else []
        prefix = "" if depth == 0 else f"{rel.as_posix()}/"
        found += [f"{prefix}{d}/" for d in dirs] + [f"{prefix}{f}" for f in sorted(files) if not f.startswith(".")]
        if len(found) >= limit:
            break
    return sorted(found)[:limit]


class _Step:
    def __init__(self, request: HostStepRequest) -> None:
        self.request = request
        self.running: Mapping[str, bool] = {}
        self.files: list[str] = []
        self.prompt: Prompt | None = None
        self.answer: ModelAnswer | None = None
        self.output: HostOutput | None = None
        self.invalid: OutputErrors | None = None
        self.failure_kind: ReasonKind | None = None
        self.bash: BashReport | None = None
        self.screenshot: str | None = None
        self.chosen: str | None = None


class HostStepBackend(StepBackend):
    """Backend of the HostAgent's planner agent."""

    def __init__(self, model: Backend, catalog: Catalog, lifecycle: Lifecycle, *, workspace: Path | None = None,
                 screenshots: Screenshots | None = None, middleware: Sequence[Middleware[Any]] = (),
                 own: Sequence[str] = ()) -> None:
        """`own`: podium's own paths in the workspace (its configuration, its records): not the person's work,
        so not listed to the planner unless the request names one."""
        self.model = model
        self.catalog = catalog
        self.lifecycle = lifecycle
        self.workspace = workspace
        self.own = tuple(own)
        self.screenshots = screenshots
        self.middleware = tuple(middleware)

    async def prompt(self, session: Any, prompt: str | Prompt) -> AsyncIterator[Event]:  # type: ignore[override]
        step = _Step(decode_host_request(prompt_text(prompt)))
        phases = ((Phase.DATA_COLLECTION, self._collect), (Phase.LLM_INTERACTION, lambda s: self._think(session, s)),
                  (Phase.ACTION_EXECUTION, self._act))
        run = await run_pipeline(phases, step, self.middleware)
        for event in usage_events(step.answer):
            yield event
        failure = None if run.failed is None else StepFailure(
            phase=run.failed.phase, detail=run.failed.detail, kind=step.failure_kind)
        output = step.output
        report = HostStepReport(
            status=None if output is None or failure is not None else output.status,
            output=None if output is None else output.dump(),
            raw=step.answer.text if step.answer else "",
            invalid=None if step.invalid is None else step.invalid.message,
            failure=failure, bash=step.bash, running=dict(step.running),
            files=None if self.workspace is None or step.request.choice else tuple(normal_path(f) for f in step.files),
            errors=tuple(StepFailure(phase=e.phase, detail=e.detail) for e in run.errors if e is not run.failed),
            timings_ms={p.value: t for p, t in run.timings_ms.items()},
            screenshot=step.screenshot, chosen=step.chosen)
        yield Event.result(report.model_dump_json())

    async def _collect(self, step: _Step) -> None:
        if (choice := step.request.choice) is not None:  # a question on the plan, from the request alone
            step.prompt = Prompt(text=choice_user(step.request.request, choice), system=CHOICE_SYSTEM,
                                 schema=choice_schema(choice.options), temperature=step.request.temperature,
                                 max_tokens=CHOICE_MAX_TOKENS)
            return
        step.running = dict(await self.lifecycle.running())
        if self.screenshots is not None:
            step.screenshot = await self.screenshots.capture("host", step.request.step)
        step.files = [f for f in workspace_names(self.workspace)
                      if f.rstrip("/") not in self.own or named_by(f.rstrip("/"), step.request.request)]
        names = step.request.applications
        catalog = self.catalog.only(names) if names else self.catalog
        applications = tuple((a.name, a.tool_names) for a in catalog.apps)
        step.prompt = Prompt(text=host_user(step.request, step.files, step.running), system=host_system(catalog),
                             schema=host_output_schema(applications, (*step.files, "."),
                                                       may_confirm=step.request.may_confirm,
                                                       may_finish=step.request.may_finish,
                                                       may_ask=step.request.may_ask,
                                                       may_launch=tuple(n for n, _ in applications
                                                                        if not step.running.get(n))),
                             temperature=step.request.temperature, max_tokens=HOST_MAX_TOKENS)

    async def _think(self, session: Any, step: _Step) -> None:
        assert step.prompt is not None
        choice = step.request.choice
        try:
            if choice is not None:
                picked = await think(self.model, session, step.prompt, ChoiceOutput)
                step.answer, step.invalid = picked.answer, picked.invalid
                if picked.output is not None and picked.output.answer in choice.options:
                    step.chosen = picked.output.answer
                elif picked.output is not None:
                    step.invalid = OutputErrors(f"{picked.output.answer!r} is none of {', '.join(choice.options)}",
                                                picked.answer.text)
                return
            thought = await think(self.model, session, step.prompt, HostOutput)
        except ModelFailed as exc:
            step.failure_kind = exc.reason.kind
            raise PhaseFailed(f"the model failed: {exc.reason}") from exc
        step.answer, step.output, step.invalid = thought.answer, thought.output, thought.invalid

    async def _act(self, step: _Step) -> None:
        output = step.output
        if output is None or not output.bash.strip():
            return
        if output.status in (HostStatus.PENDING, HostStatus.CONFIRM):
            step.bash = BashReport(command=output.bash, ok=False,
                                   detail="not run: waiting for the person (ask again after the answer)")
            return
        try:
            outcome = await run_bash(output.bash, self.catalog, self.lifecycle)
        except Exception as exc:
            step.bash = BashReport(command=output.bash, ok=False, detail=f"launch failed: {type(exc).__name__}: {exc}")
            raise
        step.bash = BashReport(command=outcome.command, application=outcome.application, ok=outcome.ok,
                               detail=outcome.detail)
