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
  changes nothing: the rest runs). If any of them is sensitive (or the model said CONFIRM), NONE runs: they
  are returned as `held`, and run only when the host sends them back approved (`RUN_APPROVED`).
- MEMORY_UPDATE: remember the step (bounded), which is how a reused AppAgent keeps its memory.
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import AsyncIterator, Mapping, Sequence
from decimal import Decimal
from typing import Any

from podium.agent.backend import Backend, BaseBackend, Prompt, prompt_text
from podium.agent.events import Event
from podium.backends.structured import OutputErrors
from podium.desktop.catalog import ARITHMETIC, TOOL_WORK, reads_only, types_named, without_locators, work_named
from podium.desktop.grammar import app_output_schema
from podium.desktop.grounding import numbers, ungrounded, written_content
from podium.desktop.lifecycle import Lifecycle
from podium.desktop.messages import (
    ActionResult,
    AppStepKind,
    AppStepReport,
    AppStepRequest,
    StepFailure,
    decode_app_request,
    summarize,
)
from podium.desktop.model_call import ModelAnswer, ModelFailed, Screenshots, call_model, usage_events
from podium.desktop.observe import files_of, jsonable, observation_lines, observe
from podium.desktop.pipeline import Middleware, Phase, PhaseFailed, run_pipeline
from podium.desktop.prompts import EXAMPLE_ROW, app_system, app_user, copies_example
from podium.desktop.schemas import Action, AppOutput, AppStatus
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
        self.screenshot: str | None = None
        self.nudge: str | None = None
        self.observed: list[ActionResult] = []


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
            results=tuple(step.results), held=step.held,
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
                             schema=app_output_schema(tools, req.must_act or req.must_call,
                                                      req.asked if req.must_act else ()),
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
        seen.update(numbers([step.request.model_dump(include=_GIVEN), [r.content for r in step.observed if r.ok]]))
        # Checked only where the work is arithmetic a tool does ("Increase every price by 10%" is not)
        checked = seen if not approved and _arithmetic(step.request) else None
        guessed = any(_guessed(a, tools, checked) for a in output.actions)
        if not approved and not guessed and (
                output.status is AppStatus.CONFIRM
                or any(app.is_sensitive(a.function, a.arguments) for a in output.actions)):
            step.held = output.actions  # nothing runs before the person approves
            return
        known = set(tools)
        done = step.memory.done if step.memory.done.subtask == step.request.subtask_id else DoneCalls()
        for index, action in enumerate(output.actions):
            tool = tools.get(action.function)
            if tool is not None and not tool.read_only:  # before the repeat checks: they see the call made
                action = _named_type(_own_file(app, action, step.request), step.request)
            repeated = None if tool is None or step.request.kind is AppStepKind.RUN_APPROVED else \
                done.repeated(action, tool.read_only)
            if repeated is not None:  # the rest of the step still runs: the repeat did no harm
                step.results.append(ActionResult(function=action.function, arguments=action.arguments,
                                                 ok=False, error=repeated, skipped=True, read_only=tool.read_only))
                continue
            if tool is not None and not tool.read_only and step.request.kind is not AppStepKind.RUN_APPROVED \
                    and getattr(app, "file_types", ()) and reads_only(step.request.description):
                # Given the whole request, the 1.5B AppAgent of "Read the table from report.docx" went on to
                # put the table into budget.xlsx with the document's add_table. Not run, and taken as a
                # repeat (skipped): the host reads a step of nothing but those as the reading's FINISH.
                # (Only where a change is a change of a file: a shell computes with run_command.)
                step.results.append(ActionResult(
                    function=action.function, arguments=action.arguments, ok=False, skipped=True, ran=False,
                    read_only=False, error=f"not run: your subtask only reads ({step.request.description}); it "
                                           f"changes nothing: answer FINISH with what you read as the result"))
                continue
            failed_before = None if tool is None or step.request.kind is AppStepKind.RUN_APPROVED else \
                done.failed_before(action)
            if failed_before is not None:  # a failure, as if it ran: nothing has changed that could fix it
                step.results.append(ActionResult(function=action.function, arguments=action.arguments,
                                                 ok=False, error=failed_before, read_only=tool.read_only,
                                                 ran=False))
            elif tool is not None and tool.read_only and (elsewhere := _foreign_read(app, action, step.request)):
                step.results.append(ActionResult(function=action.function, arguments=action.arguments, ok=False,
                                                 read_only=True, ran=False, error=elsewhere))
            elif tool is not None and not tool.read_only and (unasked := _unasked(step.request, action.function)):
                step.results.append(ActionResult(
                    function=action.function, arguments=action.arguments, ok=False, read_only=False, ran=False,
                    error=f"not run: neither your subtask nor the request asks for {unasked}; do only what "
                          f"your subtask asks"))
            elif tool is not None and copies_example(action.arguments):
                step.results.append(ActionResult(
                    function=action.function, arguments=action.arguments, ok=False, read_only=tool.read_only,
                    ran=False, error=f"not run: {json.dumps(EXAMPLE_ROW)} is the data of the example in your "
                                     f"instructions, not of your subtask; use the data your subtask was given "
                                     f"or has read"))
            elif guess := _guessed(action, tools, checked):
                step.results.append(ActionResult(
                    function=action.function, arguments=action.arguments, ok=False, read_only=False,
                    ran=False, error=f"not run: {', '.join(guess)} is in no tool output, input or text of your "
                                     f"subtask; write only numbers a tool returned (a tool computes sums and "
                                     f"totals) or the request gives"))
            elif guessed and app.is_sensitive(action.function, action.arguments):
                step.results.append(ActionResult(
                    function=action.function, arguments=action.arguments, ok=False, read_only=False, ran=False,
                    error="not run: it needs the person's approval, asked when no call of the step guesses"))
            elif action.function not in known:
                step.results.append(ActionResult(
                    function=action.function, arguments=action.arguments, ok=False,
                    error=f"unknown tool {action.function!r}; the tools are: {', '.join(sorted(known))}"))
            else:
                try:
                    result = await app.call(action.function, action.arguments)
                    content = jsonable(result.content)
                    if result.ok:
                        seen.update(numbers(content))
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
                return

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


def _own_file(app: Any, action: Action, request: AppStepRequest) -> Action:
    """A change's `path` of a file type its application does not open replaced by the one file of its
    type the subtask names: told to "write the rows of subtask 1 into the first sheet of inventory.xlsx",
    the 1.5B AppAgent called write_rows on inventory.docx, the file it read from, and again after the
    error. (A read of another application's file is left to fail: that is what it wanted to read.)"""
    if not _foreign_path(app, action):
        return action
    own = files_of(app, (request.description,))
    if len(own) != 1:
        return action
    return action.model_copy(update={"arguments": {**action.arguments, "path": own[0]}})


# What a step is given (the request, its subtask, the inputs' tool outputs, the person's answers); not the
# inputs' result texts: they are a model's words, and may be the guess itself.
_GIVEN = {"description": True, "done_parts": True, "tips": True, "request": True, "answers": True,
          "inputs": {"__all__": {"outputs"}}}


def _arithmetic(request: AppStepRequest) -> bool:
    """Whether the subtask or the request asks for arithmetic a tool does (a sum, an average, a sort)."""
    return bool(work_named(" ".join((request.request, request.description, *request.done_parts)), ARITHMETIC))


def _guessed(action: Action, tools: Mapping[str, Any], seen: set[Decimal] | None) -> list[str]:
    """The numbers a change writes that nothing the AppAgent was shown holds (grounding.py), where
    the work is arithmetic: a number no tool returned is then the model's own sum, or a guess."""
    tool = tools.get(action.function)
    if seen is None or tool is None or tool.read_only:
        return []
    return ungrounded(written_content(action.arguments), seen)


def _foreign_read(app: Any, action: Action, request: AppStepRequest) -> str:
    """Why a read of another application's file is not made, when the subtask was handed what was read
    from it: the 1.5B documents AppAgent told to "Write the rows of subtask 1 to the end of
    catalogue.docx" read prices.xlsx (an error), again, and gave up, with the rows in its prompt."""
    path = _foreign_path(app, action)
    if not request.inputs or not path:
        return ""
    shown = ", ".join(r.subtask for r in request.inputs)
    return (f"not run: {path} is not a {'/'.join(app.file_types)} file, so {app.name} cannot open it; what "
            f"subtask {shown} read is under 'Results of the subtasks yours depends on': use it from there")


def _foreign_path(app: Any, action: Action) -> str:
    """The call's `path`, when it is a file of a type its (typed) application does not open; else ""."""
    path = action.arguments.get("path")
    types = tuple(getattr(app, "file_types", ()) or ())
    if not isinstance(path, str) or "." not in path or not types or path.lower().endswith(types):
        return ""
    return path


_EXCEPT = re.compile(r"\b(?:except|but not|other than|apart from|excluding|not)\b", re.IGNORECASE)


def _named_type(action: Action, request: AppStepRequest) -> Action:
    """A change's pattern that takes every name ('*', 'reports/*') narrowed to the one file type the
    subtask or the request names: told to "Copy every .xlsx file in this folder into a new folder named
    backup", the 1.5B AppAgent listed '*.xlsx' and then copied '*' (the document and the note too)."""
    texts = f"{request.description} {request.request}"
    types = types_named(texts)
    if len(types) != 1 or _EXCEPT.search(texts):
        return action
    narrowed = {}
    for key in ("source", "pattern"):
        value = action.arguments.get(key)
        if isinstance(value, str):
            head, slash, last = value.strip().rpartition("/")
            if last == "*":
                narrowed[key] = f"{head}{slash}*{types[0]}"
    return action.model_copy(update={"arguments": {**action.arguments, **narrowed}}) if narrowed else action


def _unasked(request: AppStepRequest, tool: str) -> str:
    """The work a changing tool does that neither the request nor the subtask's own words ask for ("" if
    asked): the 1.5B AppAgent told to add a Total row also drew a line chart of the invoices. (Not the
    planner's tips: told to fill in a missing phone number, the AppAgent added the new sheet they named.)"""
    texts = " ".join((request.request, request.description, *request.done_parts))
    asked = set(work_named(without_locators(texts), TOOL_WORK))
    return " or ".join(w for w in work_named(tool.replace("_", " "), TOOL_WORK) if w not in asked)


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
