"""The AppAgent's step: the backend of an AppAgent runs one 4-phase step per prompt.

Why a backend and not Behaviour callbacks: the host strategy only ever sees what a turn's backend
streamed (the agent's completion carries that response), and it must see the step's actions, held
actions, timings and errors. So the whole step runs here, through `run_pipeline`, and the turn's
result is the step's report:

- DATA_COLLECTION: make sure the application runs (launch it through the lifecycle if not), list its
  tools, take a screenshot when a display is there, build the prompt (subtask, tips, dependency
  results, memory, answers, blackboard, repair feedback).
- LLM_INTERACTION: ask the model (structured output schema, the temperature the host chose) and
  validate its answer against `AppOutput`.
- ACTION_EXECUTION: run the chosen tool calls in order, stopping at the first failed change (a failed read
  changes nothing: the rest runs). If any of them is sensitive, or changes a file or folder that only data
  named (step_guards.from_data: a file's content is not the person) or one the request only reads from,
  or the model said CONFIRM, NONE runs:
  they are returned as `held`, and run only when the host sends them back approved (`RUN_APPROVED`).
- MEMORY_UPDATE: remember the step (bounded), which is how a reused AppAgent keeps its memory.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import AsyncIterator, Mapping, Sequence
from decimal import Decimal
from typing import Any

from podium.agent.backend import Backend, BaseBackend, Prompt, prompt_text
from podium.agent.events import Event
from podium.backends.structured import OutputErrors
from podium.desktop.grammar import app_output_schema
from podium.desktop.grounding import numbers
from podium.desktop.lifecycle import Lifecycle
from podium.desktop.messages import (
    ActionResult,
    AppStepKind,
    AppStepReport,
    AppStepRequest,
    Hold,
    StepFailure,
    decode_app_request,
    summarize,
)
from podium.desktop.model_call import ModelAnswer, ModelFailed, Screenshots, call_model, usage_events
from podium.desktop.observe import jsonable, observation_lines, observe
from podium.desktop.pipeline import Middleware, Phase, PhaseFailed, run_pipeline
from podium.desktop.prompts import app_system, app_user
from podium.desktop.schemas import Action, AppOutput, AppStatus
from podium.desktop.step_guards import (
    GIVEN,
    arithmetic,
    copy_questions,
    declined,
    guessed,
    holds,
    named_type,
    only_reads,
    own_file,
    paths,
    with_header,
)
from podium.desktop.tolerance import DoneCalls, read_app_output
from podium.errors import ReasonKind

# A step's answer is 50-260 tokens; a model that runs on (a string it cannot close) is cut here and
# re-asked, instead of writing for minutes up to the backend's own limit.
APP_MAX_TOKENS = 512


class AppMemory:
    """An AppAgent's memory of its steps, across subtasks: the newest `size` entries, and the calls that
    succeeded in the current subtask (its id, call keys) so an identical change is not made twice."""

    def __init__(self, inner: Any, size: int) -> None:
        self.inner = inner
        self.items: deque[str] = deque(maxlen=size)
        self.done = DoneCalls()
        self.seen: set[Decimal] = set()  # every number its tools have returned (grounding.py)
        self.outputs: deque[str] = deque(maxlen=size)  # what its tools returned, as text (step_guards.from_data)
        self.made: set[str] = set()  # the paths its own changes made or changed (step_guards.from_data)
        # (subtask, tools) whose failed call a step asked for again, unchanged: not offered in the steps after
        self.stuck: tuple[str, frozenset[str]] = ("", frozenset())


class _Step:
    def __init__(self, request: AppStepRequest, memory: AppMemory) -> None:
        self.request = request
        self.memory = memory
        self.prompt: Prompt | None = None
        self.answer: ModelAnswer | None = None
        self.output: AppOutput | None = None
        self.invalid: OutputErrors | None = None
        self.failure_kind: ReasonKind | None = None
        self.results: list[ActionResult] = []
        self.held: tuple[Action, ...] = ()
        self.holds: tuple[Hold, ...] = ()
        self.screenshot: str | None = None
        self.nudge: str | None = None
        self.observed: list[ActionResult] = []
        self.stuck: set[str] = set()  # tools whose call this step repeated after it had failed


class AppStepBackend(BaseBackend):
    """Backend of one application's AppAgent; `model` is the model backend it asks."""

    def __init__(self, model: Backend, application: Any, *, lifecycle: Lifecycle | None = None,
                 screenshots: Screenshots | None = None, middleware: Sequence[Middleware[Any]] = (),
                 memory_size: int = 30) -> None:
        self.model = model
        self.application = application
        self.lifecycle = lifecycle
        self.screenshots = screenshots
        self.middleware = tuple(middleware)
        self.memory_size = memory_size

    async def start_session(self, opts: Mapping[str, Any]) -> AppMemory:
        return AppMemory(await self.model.start_session(opts), self.memory_size)

    async def terminate_session(self, session: AppMemory) -> None:
        await self.model.terminate_session(session.inner)

    async def prompt(self, session: AppMemory, prompt: str | Prompt) -> AsyncIterator[Event]:  # type: ignore[override]
        step = _Step(decode_app_request(prompt_text(prompt)), session)
        phases = ((Phase.DATA_COLLECTION, self._collect), (Phase.LLM_INTERACTION, self._think),
                  (Phase.ACTION_EXECUTION, self._act), (Phase.MEMORY_UPDATE, self._remember))
        run = await run_pipeline(phases, step, self.middleware)
        for event in usage_events(step.answer):
            yield event
        output = step.output
        status = output.status if output is not None else None
        if step.request.kind is AppStepKind.RUN_APPROVED and run.ok:
            status = AppStatus.CONTINUE  # the approved actions ran; the model sees their results next step
        failure = None if run.failed is None else StepFailure(
            phase=run.failed.phase, detail=run.failed.detail, kind=step.failure_kind)
        report = AppStepReport(
            status=status if failure is None else None,
            output=None if output is None else output.dump(),
            raw=step.answer.text if step.answer else "",
            invalid=None if step.invalid is None else step.invalid.message,
            failure=failure,
            results=tuple(step.results), held=step.held, holds=step.holds,
            errors=tuple(StepFailure(phase=e.phase, detail=e.detail) for e in run.errors if e is not run.failed),
            timings_ms={p.value: t for p, t in run.timings_ms.items()},
            screenshot=step.screenshot, nudge=step.nudge, observed=tuple(step.observed))
        yield Event.result(report.model_dump_json())

    # -- the four phases --------------------------------------------------------------------------

    async def _collect(self, step: _Step) -> None:
        app = self.application
        if not await app.is_running():
            if self.lifecycle is not None:
                await self.lifecycle.launch(app.name)
            else:
                await app.launch()
        if step.request.kind is AppStepKind.RUN_APPROVED:
            return
        tools = app.tools()
        if self.screenshots is not None:
            step.screenshot = await self.screenshots.capture(f"app-{app.name}", step.request.step)
        sensitive = [t.name for t in tools if not t.read_only and _always_sensitive(app, t.name)]
        req = step.request
        # The subtask's own files; the request's only when the subtask names none (a terse plan).
        step.observed = await observe(app, (req.description, req.tips)) or await observe(app, (req.request,))
        step.prompt = Prompt(text=app_user(req, _recent(step.memory), observation_lines(step.observed)),
                             system=app_system(app.name, app.description, tools, sensitive),
                             schema=app_output_schema(_offered(tools, req, step.memory),
                                                      req.must_act or req.must_call, req.asked if req.must_act else ()),
                             temperature=req.temperature,
                             max_tokens=APP_MAX_TOKENS)

    async def _think(self, step: _Step) -> None:
        if step.request.kind is AppStepKind.RUN_APPROVED:
            step.output = AppOutput(status=AppStatus.CONTINUE, actions=step.request.actions,
                                    comment="running the actions the person approved")
            return
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
        parsed, step.nudge = read_app_output(step.answer.text, has_tools=bool(self.application.tools()))
        if isinstance(parsed, OutputErrors):
            step.invalid = parsed
        else:
            step.output = parsed

    async def _act(self, step: _Step) -> None:
        output = step.output
        if output is None or not output.actions:
            return
        app = self.application
        tools = {t.name: t for t in app.tools()}
        approved = step.request.kind is AppStepKind.RUN_APPROVED
        seen = step.memory.seen
        seen.update(numbers([step.request.model_dump(include=GIVEN), [r.content for r in step.observed if r.ok]]))
        # Checked only where the work is arithmetic a tool does ("Increase every price by 10%" is not)
        checked = seen if not approved and arithmetic(step.request) else None
        guess = any(guessed(a, tools.get(a.function), checked) for a in output.actions)
        # the data: what others read, what the application showed and returned; not the agent's own calls
        shown = json.dumps([step.request.model_dump(include={"inputs", "blackboard"}),
                            [r.content for r in step.observed], list(step.memory.outputs)], default=str)
        done = step.memory.done if step.memory.done.subtask == step.request.subtask_id else DoneCalls()
        # A change made already in this subtask, asked again, is a repeat (not run), not a change to approve:
        # the 1.5B AppAgent copied into backup, repeated the copy with overwrite=true, and batch mode's
        # refusal of that failed the subtask with its work done.
        fresh = output.model_copy(update={"actions": [a for a in output.actions if a.function not in tools or
                                                      done.repeated(a, tools[a.function].read_only) is None]})
        if not approved and not guess and (why := holds(fresh, app, tools, step.request, shown,
                                                          step.memory.made)):
            step.held, step.holds = output.actions, why  # nothing runs before the person approves
            return
        for index, action in enumerate(output.actions):
            tool = tools.get(action.function)
            if tool is not None and not tool.read_only:  # before the repeat checks: they see the call made
                action = with_header(named_type(own_file(app, action, step.request), step.request, tool),
                                     step.request)
            repeated = None if tool is None or approved else done.repeated(action, tool.read_only)
            if repeated is not None:  # the rest of the step still runs: the repeat did no harm
                step.results.append(ActionResult(function=action.function, arguments=action.arguments,
                                                 ok=False, error=repeated, skipped=True, read_only=tool.read_only))
                continue
            if tool is not None and not tool.read_only and not approved and (why := only_reads(app, step.request)):
                # Taken as a repeat (skipped): the host reads a step of nothing but those as the reading's FINISH.
                step.results.append(ActionResult(function=action.function, arguments=action.arguments, ok=False,
                                                 skipped=True, ran=False, read_only=False, error=why))
                continue
            failed_before = None if tool is None or approved else done.failed_before(action)
            if failed_before is not None:  # a failure, as if it ran: nothing has changed that could fix it
                step.stuck.add(action.function)
                step.results.append(ActionResult(function=action.function, arguments=action.arguments,
                                                 ok=False, error=failed_before, read_only=tool.read_only,
                                                 ran=False))
            elif tool is None:
                step.results.append(ActionResult(
                    function=action.function, arguments=action.arguments, ok=False,
                    error=f"unknown tool {action.function!r}; the tools are: {', '.join(sorted(tools))}"))
            elif why := declined(app, action, tool, step.request, checked, guess):
                step.results.append(ActionResult(function=action.function, arguments=action.arguments, ok=False,
                                                 read_only=tool.read_only, ran=False, error=why))
            else:
                try:
                    result = await app.call(action.function, action.arguments)
                    content = jsonable(result.content)
                    if result.ok:
                        seen.update(numbers(content))
                        step.memory.outputs.append(json.dumps(content, default=str)[:4000])
                        if not tool.read_only:
                            step.memory.made.update(paths(action))
                    # A change the application found already made ({"unchanged": true}) is a repeat.
                    same = result.ok and isinstance(content, dict) and content.get("unchanged") is True
                    step.results.append(ActionResult(function=action.function, arguments=action.arguments,
                                                     ok=result.ok, content=content, skipped=same,
                                                     error=result.error, read_only=tool.read_only))
                except Exception as exc:  # a tool's bug is the step's recorded failure, not the agent's
                    step.results.append(ActionResult(function=action.function, arguments=action.arguments,
                                                     ok=False, error=f"{type(exc).__name__}: {exc}",
                                                     read_only=tool.read_only))
            # A failed change stops the step: the calls after it assumed it worked. A failed read
            # changed nothing, and the later calls were written before it ran: they still run.
            if not step.results[-1].ok and (tool is None or not tool.read_only):
                for skipped in output.actions[index + 1:]:
                    step.results.append(ActionResult(function=skipped.function, arguments=skipped.arguments,
                                                     ok=False, error="not run: an earlier action failed",
                                                     ran=False))
                break
        if not approved and not output.questions:
            # A record's value that only another record holds is the person's to give: the step asks.
            refused = [Action(function=r.function, arguments=r.arguments) for r in step.results
                       if not r.ok and not r.ran and not r.skipped and not r.read_only]
            asked = {qa.question for qa in step.request.answers}
            if refused and (questions := [q for q in copy_questions(app, refused, step.request) if q not in asked]):
                step.output = output.model_copy(update={"status": AppStatus.PENDING, "questions": tuple(questions)})

    def _remember(self, step: _Step) -> None:
        req, output = step.request, step.output
        if output is None:
            return
        read_only = {t.name: t.read_only for t in self.application.tools()}
        step.memory.done = step.memory.done.after(req.subtask_id, [
            (Action(function=r.function, arguments=r.arguments), read_only.get(r.function, False))
            for r in step.results if r.ok], [
            (Action(function=r.function, arguments=r.arguments), r.error or "failed")
            for r in step.results if not r.ok and not r.skipped and r.ran])
        # withheld until a change succeeds (then a failed call may work: DoneCalls): the 1.5B AppAgent, its
        # write_file_names withheld, tried read_file, then went back to write_file_names
        subtask, stuck = step.memory.stuck
        kept = stuck if subtask == req.subtask_id and not any(r.ok and not r.read_only for r in step.results) \
            else frozenset()
        step.memory.stuck = (req.subtask_id, kept | step.stuck)
        line = f"- subtask {req.subtask_id or 'direct'} step {req.step}: {output.status.value}"
        if output.thought:
            line += f"; thought: {summarize(output.thought, 200)}"
        for r in step.results:
            shown = f"{r.function}({summarize(r.arguments, 150)})"
            line += f"\n  {shown} -> " + (f"ok: {summarize(r.content, 1500)}" if r.ok else f"error: {r.error}")
        if step.held:
            line += f"\n  held for the person's approval: {', '.join(a.function for a in step.held)}"
        if output.result not in (None, ""):
            line += f"\n  result: {summarize(output.result, 500)}"
        step.memory.items.append(line)


def _recent(memory: AppMemory, shown: int = 6, full: int = 2) -> list[str]:
    """The memory as the prompt shows it: the latest `shown` steps, the older of them shortened. Every
    step's tool output in full would soon be most of a small model's prompt (and its time)."""
    items = list(memory.items)[-shown:]
    return [summarize(i, 400) for i in items[:-full]] + items[-full:]


def _always_sensitive(app: Any, tool: str) -> bool:
    try:
        return bool(app.is_sensitive(tool, {}))
    except Exception:  # the check needs real arguments: the model learns it when the action is held
        return False


def _offered(tools: list[Any], req: AppStepRequest, memory: AppMemory) -> list[Any]:
    """The tools the next answer may call: not one whose failed call a step of the subtask made again
    unchanged since its last successful change (told "it already failed ... call something else", the 1.5B
    AppAgent sent the same write_file_names on a file three steps running, and its subtask ended without
    progress), unless none would be left."""
    subtask, stuck = memory.stuck
    if subtask != req.subtask_id or not stuck:
        return tools
    return [t for t in tools if t.name not in stuck] or tools
