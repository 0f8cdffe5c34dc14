"""The HostAgent's step: the planner agent's backend runs one 4-phase step per prompt.

- DATA_COLLECTION: which applications are running (lifecycle), a desktop screenshot when there is a
  display, the prompt (request, applications, subtasks so far and their results, previous plan,
  answers, blackboard, why it is asked now, repair feedback).
- LLM_INTERACTION: ask the model and validate its answer against `HostOutput`.
- ACTION_EXECUTION: `Bash` launches an application through the lifecycle (never a shell); it waits
  when the status asks the person first (PENDING, CONFIRM).
- MEMORY_UPDATE: remember the step's thought and comment (bounded).

The plan itself is checked by the host strategy, in code, where the whole graph is known.
"""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from podium.agent.backend import Backend, BaseBackend, Prompt, prompt_text
from podium.agent.events import Event
from podium.backends.structured import OutputErrors
from podium.desktop.catalog import Catalog
from podium.desktop.grammar import host_output_schema
from podium.desktop.lifecycle import Lifecycle, run_bash
from podium.desktop.messages import (
    BashReport,
    HostStepReport,
    HostStepRequest,
    StepFailure,
    decode_host_request,
    summarize,
)
from podium.desktop.model_call import ModelAnswer, ModelFailed, Screenshots, call_model, parse_output, usage_events
from podium.desktop.pipeline import Middleware, Phase, PhaseFailed, run_pipeline
from podium.desktop.prompts import host_system, host_user
from podium.desktop.schemas import HostOutput, HostStatus
from podium.errors import ReasonKind

HOST_MAX_TOKENS = 768  # a plan is ~250 tokens; see APP_MAX_TOKENS


class HostMemory:
    def __init__(self, inner: Any, size: int) -> None:
        self.inner = inner
        self.items: deque[str] = deque(maxlen=size)


class _Step:
    def __init__(self, request: HostStepRequest, memory: HostMemory) -> None:
        self.request = request
        self.memory = memory
        self.running: Mapping[str, bool] = {}
        self.prompt: Prompt | None = None
        self.answer: ModelAnswer | None = None
        self.output: HostOutput | None = None
        self.invalid: OutputErrors | None = None
        self.failure_kind: ReasonKind | None = None
        self.bash: BashReport | None = None
        self.screenshot: str | None = None


class HostStepBackend(BaseBackend):
    """Backend of the HostAgent's planner agent."""

    def __init__(self, model: Backend, catalog: Catalog, lifecycle: Lifecycle, *,
                 screenshots: Screenshots | None = None, middleware: Sequence[Middleware[Any]] = (),
                 memory_size: int = 10) -> None:
        self.model = model
        self.catalog = catalog
        self.lifecycle = lifecycle
        self.screenshots = screenshots
        self.middleware = tuple(middleware)
        self.memory_size = memory_size

    async def start_session(self, opts: Mapping[str, Any]) -> HostMemory:
        return HostMemory(await self.model.start_session(opts), self.memory_size)

    async def terminate_session(self, session: HostMemory) -> None:
        await self.model.terminate_session(session.inner)

    async def prompt(self, session: HostMemory, prompt: str | Prompt) -> AsyncIterator[Event]:  # type: ignore[override]
        step = _Step(decode_host_request(prompt_text(prompt)), session)
        phases = ((Phase.DATA_COLLECTION, self._collect), (Phase.LLM_INTERACTION, self._think),
                  (Phase.ACTION_EXECUTION, self._act), (Phase.MEMORY_UPDATE, self._remember))
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
            errors=tuple(StepFailure(phase=e.phase, detail=e.detail) for e in run.errors if e is not run.failed),
            timings_ms={p.value: t for p, t in run.timings_ms.items()},
            screenshot=step.screenshot)
        yield Event.result(report.model_dump_json())

    async def _collect(self, step: _Step) -> None:
        step.running = dict(await self.lifecycle.running())
        if self.screenshots is not None:
            step.screenshot = await self.screenshots.capture("host", step.request.step)
        names = step.request.applications
        catalog = self.catalog.only(names) if names else self.catalog
        text = host_user(step.request, catalog, step.running)
        if step.memory.items:
            text = "## Your previous steps\n" + "\n".join(step.memory.items) + "\n\n" + text
        # Spelled out: without it the 1.5B planner's first Thought looped ("The request is not clear about
        # ...") to max_tokens, twice. (An AppAgent's prompt says its answer's shape in words, and leaves it out.)
        step.prompt = Prompt(text=text, system=host_system(catalog), schema=host_output_schema(catalog.names),
                             spell_schema=True,
                             temperature=step.request.temperature, max_tokens=HOST_MAX_TOKENS)

    async def _think(self, step: _Step) -> None:
        assert step.prompt is not None
        try:
            step.answer = await call_model(self.model, step.memory.inner, step.prompt)
        except ModelFailed as exc:
            step.invalid = exc.invalid_output()
            if step.invalid is not None:
                step.answer = ModelAnswer(exc.raw, exc.usage)
                return
            step.failure_kind = exc.reason.kind
            raise PhaseFailed(f"the model failed: {exc.reason}") from exc
        parsed = parse_output(HostOutput, step.answer.text)
        if isinstance(parsed, OutputErrors):
            step.invalid = parsed
        else:
            step.output = parsed

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

    def _remember(self, step: _Step) -> None:
        output = step.output
        if output is None:
            return
        line = f"- step {step.request.step}: {output.status.value}"
        if output.thought:
            line += f"; thought: {summarize(output.thought, 200)}"
        if output.comment:
            line += f"; comment: {summarize(output.comment, 200)}"
        if step.bash is not None:
            line += f"; Bash {step.bash.command!r}: {step.bash.detail}"
        step.memory.items.append(line)
