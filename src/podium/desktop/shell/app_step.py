"""The AppAgent's step runner: the backend of an AppAgent, the only place its application is touched.

Why a backend and not Behaviour callbacks: the host strategy only ever sees what a turn's backend
streamed (the agent's completion carries that response), and it must see the step's answer, the facts of
its calls and what they did. Each turn is one of two kinds (podium.desktop.wire.messages):

- PROPOSE: DATA_COLLECTION (make sure the application runs, take a screenshot when there is a display,
  look at the files the subtask declares, build the prompt) and LLM_INTERACTION (ask the model under the
  grammar of this step, validate the answer, and ask the application what each proposed call would do:
  its references resolved, whether it only reads, which paths it would change and how).
- EXECUTE: ACTION_EXECUTION: run exactly the calls the host sent, in order, stopping at the first failed
  change (the calls after it assumed it worked; a failed read changed nothing), measuring the content of
  every path a call declares before and after it, which is the evidence the host verifies a FINISH with.
  A batch runs at most once per intent: a batch sent again (after a crash) whose calls already ran reports
  what they did (`IntentLog`).

MEMORY_UPDATE is the host strategy's: nothing here remembers anything between turns.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from podium.agent.backend import Backend, Prompt, prompt_text
from podium.agent.events import Event
from podium.apps.base import Change
from podium.apps.hollow import hollow_parts
from podium.apps.tooling import ACTIVE_PART, EXISTING, LISTED_FOLDER, SUBFOLDERS
from podium.backends.structured import OutputErrors
from podium.desktop.host import artifacts
from podium.desktop.host.capability import covered
from podium.desktop.rules.steps import (
    FOLDER_FROM_DECLARATION,
    PART_FROM_DESCRIPTION,
    PART_JUST_ADDED,
    PATH_FROM_DECLARATION,
    REACH_READS,
    declared_folder,
    declared_target,
    described_part,
    reaches_below,
    read_places,
)
from podium.desktop.shell.host_step import workspace_names
from podium.desktop.shell.launch import Lifecycle
from podium.desktop.shell.model_call import ModelAnswer, ModelFailed, Screenshots, StepBackend, think, usage_events
from podium.desktop.shell.observe import documents_apart, jsonable, observation_lines, observe, unseen
from podium.desktop.shell.phases import Middleware, Phase, PhaseFailed, run_pipeline
from podium.desktop.wire.grammar import app_output_schema
from podium.desktop.wire.messages import (
    ActionResult,
    AppStepKind,
    AppStepReport,
    AppStepRequest,
    Call,
    CallFacts,
    EffectView,
    StepFailure,
    decode_app_request,
)
from podium.desktop.wire.prompts import app_system, app_user
from podium.desktop.wire.schemas import AppOutput, normal_path
from podium.errors import ReasonKind

# The argument by which a whole-file write asks to replace a file that exists (podium.apps: write_file, copy...).
OVERWRITE = "overwrite"


def _marked(tool: Any, marker: str) -> str | None:
    """The tool's argument whose schema carries this marker (apps.tooling), if any."""
    props = tool.parameters.get("properties", {}) if isinstance(tool.parameters, Mapping) else {}
    return next((n for n, spec in props.items() if isinstance(spec, Mapping) and spec.get(marker)), None)


def _active_part(tool: Any, resolved: Mapping[str, Any]) -> str | None:
    """The argument by which a call leaves its part (a sheet) to the active one (tooling.ACTIVE_PART), where it
    names none, in that argument or in a reference either ('H2!A1')."""
    argument = _marked(tool, ACTIVE_PART)
    if argument is None or resolved.get(argument) or any(isinstance(v, str) and "!" in v for v in resolved.values()):
        return None
    return argument


def _overwrites(tool: Any) -> bool:
    """Whether the tool writes whole files and takes OVERWRITE, and does more than make a new empty one (a
    workbook made again over one the run filled would lose its work)."""
    props = tool.parameters.get("properties") if isinstance(tool.parameters, Mapping) else None
    spec = props.get(OVERWRITE) if isinstance(props, Mapping) else None
    return isinstance(spec, Mapping) and spec.get("type") == "boolean" and not tool.new_only


# A step's answer is 50-260 tokens; a model that runs on is cut here and re-asked, instead of writing for
# minutes up to the backend's own limit.
APP_MAX_TOKENS = 512


class IntentLog(Protocol):
    """Where a batch of calls is recorded before and after it runs (the journal), so that a batch sent
    again runs at most once. `begun` returns the results of a batch that finished, or None."""

    def begin(self, intent: str, calls: Sequence[Call]) -> Sequence[ActionResult] | None: ...

    def done(self, intent: str, results: Sequence[ActionResult]) -> None: ...


class _Step:
    def __init__(self, request: AppStepRequest) -> None:
        self.request = request
        self.prompt: Prompt | None = None
        self.answer: ModelAnswer | None = None
        self.output: AppOutput | None = None
        self.invalid: OutputErrors | None = None
        self.failure_kind: ReasonKind | None = None
        self.facts: list[CallFacts] = []
        self.results: list[ActionResult] = []
        self.screenshot: str | None = None
        self.observed: list[ActionResult] = []


class AppStepBackend(StepBackend):
    """Backend of one application's AppAgent; `model` is the model backend it asks."""

    def __init__(self, model: Backend, application: Any, *, lifecycle: Lifecycle | None = None,
                 screenshots: Screenshots | None = None, middleware: Sequence[Middleware[Any]] = (),
                 intents: IntentLog | None = None) -> None:
        self.model = model
        self.application = application
        self.lifecycle = lifecycle
        self.screenshots = screenshots
        self.middleware = tuple(middleware)
        self.intents = intents
        workspace = getattr(application, "workspace", None)
        self.root: Path | None = getattr(workspace, "root", None)

    async def prompt(self, session: Any, prompt: str | Prompt) -> AsyncIterator[Event]:  # type: ignore[override]
        step = _Step(decode_app_request(prompt_text(prompt)))
        if step.request.kind is AppStepKind.EXECUTE:
            phases = ((Phase.ACTION_EXECUTION, self._execute),)
        else:
            phases = ((Phase.DATA_COLLECTION, self._collect),
                      (Phase.LLM_INTERACTION, lambda s: self._think(session, s)))
        run = await run_pipeline(phases, step, self.middleware)
        for event in usage_events(step.answer):
            yield event
        output = step.output
        failure = None if run.failed is None else StepFailure(
            phase=run.failed.phase, detail=run.failed.detail, kind=step.failure_kind)
        report = AppStepReport(
            kind=step.request.kind,
            status=output.status if output is not None and failure is None else None,
            output=None if output is None else output.dump(),
            raw=step.answer.text if step.answer else "",
            invalid=None if step.invalid is None else step.invalid.message,
            failure=failure, facts=tuple(step.facts), results=tuple(step.results), observed=tuple(step.observed),
            errors=tuple(StepFailure(phase=e.phase, detail=e.detail) for e in run.errors if e is not run.failed),
            timings_ms={p.value: t for p, t in run.timings_ms.items()}, screenshot=step.screenshot)
        yield Event.result(report.model_dump_json())

    # -- PROPOSE ------------------------------------------------------------------------------------

    async def _collect(self, step: _Step) -> None:
        app = self.application
        req = step.request
        await self._launch(req)
        tools = app.tools()
        if self.screenshots is not None:
            step.screenshot = await self.screenshots.capture(f"app-{app.name}", req.step)
            marked = getattr(app, "marked_screenshot", None)
            if step.screenshot and marked is not None:  # the controls' numbers drawn on it, for vision models
                shot = await marked(Path(step.screenshot).with_suffix(".marks.png"))
                step.screenshot = str(getattr(shot, "path", step.screenshot))
        # the sheet to see is one the subtask names, else one the person's request names
        step.observed = await observe(app, (*req.reads, *req.writes), req.description, req.request)
        given = [(a.name, a.kind) for a in req.artifacts]
        seen = [(f"{req.subtask_id}.{r.function}", kind.value) for r in step.observed if r.ok
                for kind in [artifacts.kind_of(r.content)] if kind is not None]
        refs = tuple(dict.fromkeys([*given, *seen]))
        offered = [] if req.ended is not None else [t for t in tools if not req.offered or t.name in req.offered]
        listed = [] if self.root is None else [p for p in workspace_names(self.root) if not p.endswith("/")]
        paths = None if self.root is None else (*listed, *req.reads, *req.writes)
        # what a call may read: the files there now (a declared read not yet made is no file to read)
        existing = None if self.root is None else (
            *listed, *(p for p in (*req.reads, *req.writes) if self._is_file(p)))
        writable = None if paths is None or req.writable is None else tuple(
            p for p in paths if covered(normal_path(p), req.writable))
        planned = [t for name in dict.fromkeys(req.tools) for t in tools if t.name == name]
        seen_lines = [*observation_lines(step.observed), *unseen(app, (*req.reads, *req.writes))] \
            if step.observed else []
        step.prompt = Prompt(text=app_user(req, seen_lines, planned),
                             system=instructions(app, tools),
                             schema=app_output_schema(offered, refs, must_act=req.must_act, may_ask=req.may_ask,
                                                      paths=paths, existing=existing, writable=writable,
                                                      by_ref=req.by_ref, choices=_choices(app, req.settled),
                                                      parts=_parts(app, existing or (), (*req.reads, *req.writes))),
                             temperature=req.temperature, max_tokens=APP_MAX_TOKENS)

    async def _think(self, session: Any, step: _Step) -> None:
        assert step.prompt is not None
        if step.request.planned is not None:  # the answer its plan gives: the model is not asked
            step.output = parsed = AppOutput.model_validate(step.request.planned)
        else:
            try:
                thought = await think(self.model, session, step.prompt, AppOutput)
            except ModelFailed as exc:
                step.failure_kind = exc.reason.kind
                raise PhaseFailed(f"the model failed: {exc.reason}") from exc
            step.answer, step.invalid = thought.answer, thought.invalid
            if thought.output is None:
                return
            step.output = parsed = thought.output
        data = {a.name: artifacts.Artifact(a.name, artifacts.Kind(a.kind), a.value, a.source)
                for a in step.request.artifacts}
        for result in step.observed:  # what DATA_COLLECTION read may be referred to as well
            if result.ok:
                base = f"{step.request.subtask_id}.{result.function}"
                data.update({a.name: a for a in artifacts.extract(base, result.content)})
        step.facts = []
        for action in parsed.actions:
            # the parts the answer's calls before this one add, by file: where a call that names none goes
            added = {e.path: e.makes for f in step.facts for e in f.effects or () if e.makes}
            earlier = [(f.function, f.arguments) for f in step.facts]
            step.facts.append(await self._facts(action.function, action.arguments, data, step.request, added,
                                                earlier))

    async def _facts(self, function: str, arguments: Mapping[str, Any], data: Mapping[str, artifacts.Artifact],
                     request: AppStepRequest, added: Mapping[str, str] | None = None,
                     earlier: Sequence[tuple[str, Mapping[str, Any]]] = ()) -> CallFacts:
        app = self.application
        tool = next((t for t in app.tools() if t.name == function), None)
        if tool is None:
            return CallFacts(function=function, arguments=dict(arguments), known=False)
        try:
            resolved = artifacts.resolve(arguments, data, tool.parameters)
        except artifacts.RefError as exc:
            return CallFacts(function=function, arguments=dict(arguments), read_only=tool.read_only, error=str(exc))
        rewritten: list[str] = []
        listed = self._declared_folder(tool, resolved, request) if FOLDER_FROM_DECLARATION in request.rules else None
        if listed is not None:
            resolved = {**resolved, listed[0]: listed[1]}
            rewritten.append(FOLDER_FROM_DECLARATION)
        folder, deep = _marked(tool, LISTED_FOLDER), _marked(tool, SUBFOLDERS)
        if REACH_READS in request.rules and folder is not None and deep is not None and not resolved.get(deep) \
                and reaches_below(resolved.get(folder), request.reads, request.writes):
            resolved = {**resolved, deep: True}
            rewritten.append(REACH_READS)
        # a read, which changes nothing, may take its sheet from the request where the description names none
        named_part = self._described_part(tool, resolved, request.description,
                                          request.request if tool.read_only else "") \
            if PART_FROM_DESCRIPTION in request.rules else None
        if named_part is not None:
            resolved = {**resolved, named_part[0]: named_part[1]}
            rewritten.append(PART_FROM_DESCRIPTION)
        elif PART_JUST_ADDED in request.rules and not tool.read_only and added \
                and (argument := _active_part(tool, resolved)) is not None \
                and isinstance(path := resolved.get("path"), str) and (part := added.get(normal_path(path))):
            resolved = {**resolved, argument: part}
            rewritten.append(PART_JUST_ADDED)
        if tool.read_only:
            path = resolved.get("path")
            absent = isinstance(path, str) and self.root is not None and self._digest(normal_path(path)) is None
            return CallFacts(function=function, arguments=resolved, read_only=True, absent=absent,
                             rewritten=tuple(rewritten))
        if PATH_FROM_DECLARATION in request.rules and "path" in resolved:
            given = resolved["path"]
            target = declared_target(given, request.writes, getattr(app, "file_types", ()) or ())
            path_spec = (tool.parameters.get("properties") or {}).get("path") or {}
            if target is not None and path_spec.get(EXISTING) and self._digest(normal_path(target)) is None:
                target = None  # a tool that opens a file that exists cannot open the one the subtask makes
            if target is not None:
                resolved = {**resolved, "path": target}
                rewritten.append(PATH_FROM_DECLARATION)
        effects = self._effects(function, resolved)
        if effects == () and request.created and _overwrites(tool) and not resolved.get(OVERWRITE):
            # Refused for a file that exists: where that is a file the run made, writing it again needs no
            # one's approval (capability), so it needs no flag asking for it either.
            again = {**resolved, OVERWRITE: True}
            replacing = self._effects(function, again) or ()
            if any(Change(e.change) is Change.REPLACE for e in replacing) and all(
                    Change(e.change) is not Change.REPLACE or covered(e.path, request.created) for e in replacing):
                resolved, effects = again, replacing
        # what the application refuses as a file made anew where one is (no overwrite) changes nothing
        taken = effects == () and _overwrites(tool) and not resolved.get(OVERWRITE)
        copies: tuple[tuple[str, Any, str, str], ...] = ()
        if hasattr(app, "copies"):
            try:
                copies = tuple(tuple(c) for c in app.copies(function, resolved))  # type: ignore[misc]
            except Exception:
                copies = ()
        # the fields a confirmation would leave empty, where the application can tell (a dialog's form)
        unfilled = tuple(app.unfilled(function, resolved, earlier)) if hasattr(app, "unfilled") else ()
        erased = tuple(app.erased(function, resolved)) if hasattr(app, "erased") else ()
        return CallFacts(function=function, arguments=resolved, sensitive=_sensitive(app, function, resolved),
                         effects=effects, copies=copies, rewritten=tuple(rewritten), taken=taken, unfilled=unfilled,
                         erased=erased)

    def _declared_folder(self, tool: Any, resolved: Mapping[str, Any], request: AppStepRequest
                         ) -> tuple[str, str] | None:
        """(argument, folder) of rule folder-from-declaration for a call that leaves a folder it reads
        (tooling.LISTED_FOLDER) to the workspace's top one."""
        argument = _marked(tool, LISTED_FOLDER)
        if argument is None or self.root is None:
            return None
        root = self.root
        places = read_places(request.reads, request.writes, lambda p: (root / normal_path(p)).is_dir())
        folder = declared_folder(resolved.get(argument), places)
        return None if folder is None else (argument, folder)

    def _described_part(self, tool: Any, resolved: Mapping[str, Any], description: str, request: str = ""
                        ) -> tuple[str, str] | None:
        """(argument, sheet) of rule part-from-description for a call that leaves its sheet to the active one
        (tooling.ACTIVE_PART) and names none in a reference either ('H2!A1')."""
        argument = _active_part(tool, resolved)
        path, parts_of = resolved.get("path"), getattr(self.application, "parts", None)
        if argument is None or not isinstance(path, str) or parts_of is None:
            return None
        try:
            parts = tuple(parts_of(path))
        except Exception:  # a file that cannot be read: the call says so itself
            return None
        part = described_part(description, parts, request)
        return None if part is None else (argument, part)

    def _effects(self, function: str, resolved: Mapping[str, Any]) -> tuple[EffectView, ...] | None:
        """What the call would change, as its application declares it (None: it does not say)."""
        declared = getattr(self.application, "effects", None)
        if declared is None:
            return None
        try:
            found = declared(function, resolved)
        except Exception:  # a query of the files that fails says nothing: the call is held as unknown
            return None
        if found is None:
            return None
        return tuple(EffectView(path=normal_path(e.path), change=str(e.change.value),
                                before=self._digest(normal_path(e.path)), removes=e.removes, adds=e.adds,
                                wipes=e.wipes, drops=e.drops, empties=e.empties, part=e.part, makes=e.makes)
                     for e in found)

    async def _launch(self, req: AppStepRequest) -> None:
        """Launched for its application's first step of the run; a program that has since closed itself (a
        dialog confirmed) is not started again: it would run its command anew (a new, empty dialog whose
        shell truncates the answer the first one wrote). Its tools say it is not running."""
        app = self.application
        if req.launch and not await app.is_running():
            if self.lifecycle is not None:
                await self.lifecycle.launch(app.name)
            else:
                await app.launch()

    # -- EXECUTE ------------------------------------------------------------------------------------

    async def _execute(self, step: _Step) -> None:
        req = step.request
        await self._launch(req)  # a first step its plan made runs without a PROPOSE turn
        if self.intents is not None:
            earlier = self.intents.begin(req.intent, req.calls)
            if earlier is not None:  # it ran before the agent went down: reported, not run twice
                step.results = list(earlier)
                return
        read_only = {t.name: t.read_only for t in self.application.tools()}
        earlier: set[str] = set()  # what the batch's calls before this one were decided to change
        for index, call in enumerate(req.calls):
            moved = self._moved(call, earlier) if not read_only.get(call.function, False) else None
            result = await self._run(call, read_only.get(call.function, False), req.writes) if moved is None \
                else ActionResult(function=call.function, arguments=call.arguments, ok=False, error=moved)
            earlier |= {e.path for e in call.effects}
            step.results.append(result)
            if not result.ok and not result.read_only and not call.changes_nothing:
                step.results += [ActionResult(function=c.function, arguments=c.arguments, ok=False, ran=False,
                                              read_only=read_only.get(c.function, False),
                                              error="not run: an earlier call failed")
                                 for c in req.calls[index + 1:]]
                break
        if self.intents is not None:
            self.intents.done(req.intent, step.results)

    def _moved(self, call: Call, earlier: set[str]) -> str | None:
        """Why a call must not run because what it would change now is not what was decided (None: it is):
        a path it did not name then (a folder replaced by a link since, by a program or a server that writes
        the workspace), or a loss where there was none, on a path no earlier call of the batch changed. The
        decision was made on the effects; the call runs only on them."""
        decided = {e.path: Change(e.change) for e in call.effects}
        query = getattr(self.application, "effects", None)
        if not decided or query is None:
            return None
        try:
            found = query(call.function, call.arguments)
        except Exception:
            found = None
        if found is None:
            return None
        for effect in found:
            path = normal_path(effect.path)
            was = decided.get(path)
            if path in earlier:
                continue
            if was is None or (effect.change.destructive and not was.destructive):
                return (f"not run: it would now {effect.change.value} {path}, which is not what was decided "
                        f"(the workspace changed since it was proposed); propose it again")
        return None

    async def _run(self, call: Call, read_only: bool, writes: Sequence[str] = ()) -> ActionResult:
        before = {e.path: self._digest(e.path) for e in call.effects}
        hollow = {e.path: self._hollow(e.path) for e in call.effects}
        # A change its application cannot name (a key pressed in a program, a command) is measured on the
        # files its subtask declares it writes: what changed there is the evidence of its work.
        watched = [] if read_only or call.effects or call.changes_nothing else [w for w in writes if w != "."]
        around = {w: self._digest(w) for w in watched}
        hollow |= {w: self._hollow(w) for w in watched}
        try:
            result = await self.application.call(call.function, call.arguments)
        except Exception as exc:  # a tool's bug is the step's recorded failure, not the agent's
            return ActionResult(function=call.function, arguments=call.arguments, ok=False, read_only=read_only,
                                error=f"{type(exc).__name__}: {exc}")
        changes = tuple(EffectView(path=e.path, change=e.change, before=before[e.path], after=self._digest(e.path),
                                   hollow_before=hollow[e.path], hollow=self._hollow(e.path), part=e.part,
                                   makes=e.makes)
                        for e in call.effects) if result.ok else ()
        if result.ok and watched:
            changes += tuple(EffectView(path=w, change=(Change.CREATE if was is None else Change.EDIT).value,
                                        before=was, after=now, hollow_before=hollow[w], hollow=self._hollow(w))
                             for w, was in around.items() if (now := self._digest(w)) != was)
        content, documents = documents_apart(result.content)
        return ActionResult(function=call.function, arguments=call.arguments, ok=result.ok,
                            content=jsonable(content), error=result.error, read_only=read_only,
                            changes=changes, instead=result.instead, documents=documents)

    def _is_file(self, path: str) -> bool:
        """Whether a workspace path names a regular file now (not followed out of the workspace)."""
        if self.root is None:
            return False
        try:
            return stat.S_ISREG(os.stat(self.root / normal_path(path)).st_mode)
        except (OSError, ValueError):
            return False

    def _hollow(self, path: str) -> tuple[str, ...]:
        return () if self.root is None else hollow_parts(self.root / path)

    def _digest(self, path: str) -> str | None:
        """The content digest of a workspace path (None: absent). Only regular files are read (a FIFO would
        block); a folder's digest is that of its names."""
        if self.root is None:
            return None
        full = self.root / path
        try:
            info = os.stat(full)
        except OSError:
            return None
        if stat.S_ISDIR(info.st_mode):
            try:
                names = sorted(os.listdir(full))
            except OSError:
                return "folder"
            return "dir:" + hashlib.sha256("\n".join(names).encode()).hexdigest()
        if not stat.S_ISREG(info.st_mode):
            return f"special:{stat.S_IFMT(info.st_mode)}"
        digest = hashlib.sha256()
        try:
            with open(full, "rb") as handle:
                for chunk in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(chunk)
        except OSError:
            return None
        return digest.hexdigest()


def _sensitive(app: Any, tool: str, arguments: Mapping[str, Any]) -> bool:
    try:
        return bool(app.is_sensitive(tool, arguments))
    except Exception:  # the application cannot tell: treated as sensitive, asked rather than run
        return True


def instructions(app: Any, tools: Sequence[Any] | None = None) -> str:
    """The AppAgent's system message: the same for every subtask and step of `app`, so that a prefix cache
    serves it (and podium.desktop.shell.heads can read it ahead)."""
    tools = app.tools() if tools is None else tools
    sensitive = [t.name for t in tools if not t.read_only and _always_sensitive(app, t.name)]
    return app_system(app.name, app.description, tools, sensitive)


def _always_sensitive(app: Any, tool: str) -> bool:
    try:
        return bool(app.is_sensitive(tool, {}))
    except Exception:  # the check needs real arguments: the model learns it when the call is held
        return False


def _parts(app: Any, existing: Sequence[str], declared: Sequence[str]) -> tuple[str, ...]:
    """The parts (sheets) of the files there now that the subtask declares it reads or writes, as its application
    reads them; none where it names no parts or cannot read one of those files (the grammar then names any)."""
    parts_of = getattr(app, "parts", None)
    if parts_of is None:
        return ()
    found: list[str] = []
    for path in dict.fromkeys(existing):
        if covered(normal_path(path), declared) and path.lower().endswith(tuple(getattr(app, "file_types", ()))):
            try:
                found.extend(parts_of(path))
            except Exception:  # a file it cannot read: the prefix stays open, the call says what is wrong
                return ()
    return tuple(dict.fromkeys(found))


def _choices(app: Any, settled: Sequence[tuple[str, str, str]] = ()) -> dict[tuple[str, ...], tuple[Any, ...]]:
    """The values the application says an argument may take now (a program's controls that take text), and the
    one option of each choice the request settled (tool, argument, option), as hashable tuples for the
    grammar's cache."""
    choices = getattr(app, "choices", None)
    own = {} if choices is None else {key: tuple(values) for key, values in choices().items()}
    return {**own, **{(tool, name): (option,) for tool, name, option in settled}}
