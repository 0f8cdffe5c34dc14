"""The host strategy's shared moves: dispatching steps, scheduling the graph, limits, ending a request.

Every function is pure: it takes the state and returns `(ops, new_state)`. Nothing here awaits or
reads a clock; the HostAgent's whole life is a sequence of these values.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from podium.agent.backend import Prompt
from podium.agent.events import Event, EventKind, Response
from podium.desktop.blackboard import DEFAULT_ANSWER, ArtifactEntry, SubtaskResult
from podium.desktop.host import artifacts, verify
from podium.desktop.host.capability import covered
from podium.desktop.host.catalog import Catalog, file_names
from podium.desktop.host.fsm import HostEvent, SubtaskEvent, SubtaskState
from podium.desktop.host.plan import data_takers, open_choice, unplaced
from podium.desktop.host.run import (
    active,
    budget_reason,
    fire,
    record_step,
    run_of,
    step_limit_reason,
    update_subtask,
    with_run,
)
from podium.desktop.host.state import (
    JUDGE,
    OBSERVER,
    PLANNER,
    HostState,
    Proposal,
    Run,
    SubtaskRecord,
    subtask_dict,
    usage_dict,
)
from podium.desktop.person import RunFinished
from podium.desktop.rules import steps as rules
from podium.desktop.wire.messages import (
    AppStepKind,
    AppStepRequest,
    Call,
    CallFacts,
    Choice,
    HostStepRequest,
    InputView,
    PlacingView,
    SubtaskView,
    summarize,
)
from podium.desktop.wire.prompts import judge_prompt
from podium.desktop.wire.schemas import Action, AppOutput, AppStatus, HandsOn, HostStatus, normal_path
from podium.ensemble.ops import Dispatch, Forward, Op, Reply, ReplyError, Start
from podium.ensemble.strategies.graph import GraphSchedule, Subtask
from podium.errors import Reason, ReasonKind

Result = tuple[list[Op], HostState]
MAX_ARTIFACTS = 40  # references offered to one step (a table's figures take up to 30, its counts 12)
_ARGUMENT = re.compile(r':\s*"([^"]+)"')  # the string values of a call's text (its source)
MEMORY_SHOWN = 6  # earlier steps an AppAgent's prompt shows (the older of them shortened)


# -- the planner ----------------------------------------------------------------------------------

def views(run: Run) -> tuple[SubtaskView, ...]:
    return tuple(SubtaskView(id=r.spec.id, description=r.spec.description, application=r.spec.application,
                             depends_on=r.spec.depends_on, writes=r.spec.writes, state=r.state.value,
                             result=r.result, reason=None if r.reason is None else r.reason.detail)
                 for r in run.subtasks.values())


def planned(run: Run) -> bool:
    """Whether the planner has planned work in this run: subtasks of its plan, a plan its checks sent back, or an
    action it asked to confirm before planning (questioned)."""
    return bool(run.subtasks) or run.plan_retries > 0 or run.confirm_checked


def nothing_done(run: Run) -> bool:
    """Planned work of which no subtask has done any: a FINISH now is refused (planner._finish), so the grammar
    does not offer it."""
    return planned(run) and not any(r.state is SubtaskState.FINISH for r in run.subtasks.values())


def dispatch_planner(s: HostState, note: str = "", feedback: str = "", retry: bool = False,
                     preface: str = "") -> Result:
    """Ask the planner for its next step (checks the limits first: a limit ends the request).
    `preface` goes in front of the note for this step only (a re-ask after a restart keeps the note)."""
    limit = budget_reason(s) or step_limit_reason(s)
    if limit is not None:
        return finish_run(s, HostEvent.LIMIT, limit)
    run = run_of(s)
    t = s.config.retry_temperature if retry else s.config.temperature
    request = HostStepRequest(request=run.request, step=run.planner_steps + 1, applications=run.applications,
                              subtasks=views(run), plan=run.plan,
                              blackboard=s.blackboard.to_prompt(s.config.blackboard_chars, shown_request=run.request,
                                                                hidden_agents={PLANNER}),
                              answers=run.answers, note=f"{preface} {note}".strip(), feedback=feedback, temperature=t,
                              may_confirm=not run.confirmed_nothing and not (
                                  rules.CONFIRM_UNPLANNED in s.rules and run.confirm_checked and not run.subtasks),
                              may_finish=not nothing_done(run),
                              may_ask=run.may_ask,
                              choice=asked_choice(s))
    ops: list[Op] = []
    if s.planner_down:  # it went down earlier: a fresh one, started right before its step
        ops.append(Start(PLANNER, s.planner.behaviour, s.planner.opts))
        s = replace(s, planner_down=False)
    s = replace(s, session_steps=s.session_steps + 1)
    s = with_run(s, steps=run.steps + 1, planner_steps=run.planner_steps + 1, current="planner thinking",
                 planner_ask=(note, feedback, retry))
    return [*ops, Dispatch(PLANNER, Prompt(request.model_dump_json(), temperature=t), run.token)], s


def asked_choice(s: HostState) -> Choice | None:
    """The open choice of a held plan the planner settles next (Run.choosing's head)."""
    run = run_of(s)
    held = run.choosing
    if held is None:
        return None
    return next((choice for spec in held.specs if spec.id == held.asked[0]
                 and (choice := open_choice(spec, offered(s), run.request, run.files)) is not None), None)


# -- the AppAgents -------------------------------------------------------------------------------

def reserve_agent(s: HostState, app: str) -> tuple[HostState, str]:
    """A new generation of the application's AppAgent in the cache, started at its first step."""
    gen = s.generations.get(app, 0) + 1
    name = f"app-{app}" if gen == 1 else f"app-{app}-{gen}"
    s = replace(s, agents={**s.agents, app: name}, generations={**s.generations, app: gen},
                fresh=(*s.fresh, name))
    return s, name


def agent_for(s: HostState, app: str) -> tuple[list[Op], HostState, str]:
    """The application's AppAgent, started on first use and cached (reused with its memory)."""
    name = s.agents.get(app)
    if name is not None and name not in s.fresh:
        return [], s, name
    if name is None:
        s, name = reserve_agent(s, app)
    spec = s.app_specs[app]
    s = replace(s, fresh=tuple(n for n in s.fresh if n != name))
    return [Start(name, spec.behaviour, spec.opts)], s, name


def handed(s: HostState, record: SubtaskRecord) -> tuple[tuple[InputView, ...], tuple[ArtifactEntry, ...]]:
    """What a subtask is given: the results of the subtasks it depends on, and the data it may refer to
    (their tables, the figures of the columns the request or the subtask names, or of all, when it writes
    no typed file, their other data, then its own newest first), bounded."""
    inputs: list[InputView] = []
    tables: list[ArtifactEntry] = []
    measured: list[ArtifactEntry] = []
    selected: list[ArtifactEntry] = []
    rest: list[ArtifactEntry] = []
    text = f"{run_of(s).request}\n{record.spec.description}"
    # figures are for a subtask that hands on or writes plain text (a total, a name, a list); one that writes
    # a workbook or a document takes the table itself, and more references only distract its model
    measures = all(s.catalog.owner(w) is None for w in record.spec.writes)
    for dep in record.spec.depends_on:
        result = s.blackboard.result_of(dep)
        if result is None:
            continue
        inputs.append(InputView(subtask=dep, application=result.application, description=result.description,
                                status=result.status, result=result.result))
        for a in result.artifacts:
            if a.kind != artifacts.Kind.TABLE:
                rest.append(a)
                continue
            tables.append(a)
            table = artifacts.Artifact(a.name, artifacts.Kind.TABLE, a.value)
            if measures:
                measured.extend(_entries(artifacts.figures(table, text)))
            else:  # the rows of the values the text names are a table too, what such a writer takes
                selected.extend(_entries(artifacts.selections(table, text)))
    # of several tables, first the data over a description of how a file is made up (a list of its sheets), then
    # those read by the calls that named most of what the text names (the sheet the request names, over the
    # active one read before it)
    tables.sort(key=lambda a: (_describes(s.catalog, a),
                               -sum(artifacts.names(text, v) for v in set(_ARGUMENT.findall(a.source)))))
    if measures:  # what the givers' tools said of the columns the text does not name, where it names others
        unnamed = frozenset().union(*(artifacts.unnamed_columns(
            artifacts.Artifact(a.name, artifacts.Kind.TABLE, a.value), text) for a in tables))
        rest = [a for a in rest if not unnamed & set(a.name.split(".")[1:])]
    own = _entries(reversed(list(record.artifacts.values())))
    # a reader that hands on a value (a number, a name, a list), or a writer of plain text, chooses it among
    # the figures of what it read
    own_figures = _entries(own_figures_of(record, text, plain=measures))
    # What a subtask is given first is what its model takes most often (it takes the first fitting value it
    # sees): the tables, for a writer of a workbook or a document, after the rows of the values the text names
    # (artifacts.selections); their figures, for one that writes plain text or hands on a value (a total, a name,
    # the repeated rows), the whole table still offered after them; of its own reads, the figures (the counts of
    # values the text names first) before its tools' raw results.
    if not measures:
        selected.extend(_entries(f for a in record.artifacts.values() if a.kind is artifacts.Kind.TABLE
                                 for f in artifacts.selections(a, text)))
    first = [*measured, *tables] if measures else [*selected, *tables, *measured]
    given = [a for a in (*first, *rest, *own_figures, *own) if not _echo(a)]
    return tuple(inputs), tuple(dict((a.name, a) for a in given).values())[:MAX_ARTIFACTS]


def _describes(catalog: Catalog, entry: ArtifactEntry) -> bool:
    """Whether the call that made it describes a file's make-up (Tool.describes) in some application."""
    tool = entry.source.partition("(")[0].strip()
    return any(info.describes for app in catalog.apps if (info := app.tool(tool)) is not None)


def _entries(found: Iterable[artifacts.Artifact]) -> list[ArtifactEntry]:
    return [ArtifactEntry(name=f.name, kind=f.kind.value, value=f.value, source=f.source) for f in found]


def _echo(entry: ArtifactEntry) -> bool:
    """A text a result repeats of its call's own arguments (the path it read): what the call was given, not
    data it found. Offered as a reference, it is a file's name written where its data belongs."""
    return entry.kind == artifacts.Kind.TEXT.value and isinstance(entry.value, str) \
        and entry.value in _ARGUMENT.findall(entry.source)


def handed_data(s: HostState, record: SubtaskRecord, given: Iterable[ArtifactEntry]) -> tuple[ArtifactEntry, ...]:
    """Of what `handed` gave a subtask, the data of the subtasks it depends on that declared they hand data on
    (one that hands nothing on is waited for, not read from: its data is no input)."""
    subtasks = run_of(s).subtasks
    handing = {d for d in record.spec.depends_on
               if (dep := subtasks.get(d)) is not None and dep.spec.hands_on is not HandsOn.NOTHING}
    return tuple(a for a in given if a.name.split(".", 1)[0] in handing)


def missing_work(s: HostState, record: SubtaskRecord, given: Iterable[ArtifactEntry]) -> verify.Missing:
    """What the subtask's declarations ask for that its evidence does not show (verify.missing), with what the
    subtasks it depends on handed it (`given`: flow.handed's data) and the files they read for it."""
    subtasks = run_of(s).subtasks
    handed_from = [p for d in record.spec.depends_on if (dep := subtasks.get(d)) is not None
                   and dep.spec.hands_on is not HandsOn.NOTHING for p in dep.spec.reads]
    # a later subtask of the same program that writes a file may save what this one left in it
    saved_later = any(record.spec.id in r.spec.depends_on and r.spec.application == record.spec.application
                      and any(w != "." for w in r.spec.writes) for r in subtasks.values())
    return verify.missing(record, s.catalog.get(record.spec.application), handed_data(s, record, given),
                          hold_handed=rules.UNHANDED_FAIL in s.rules, handed_from=handed_from,
                          hold_data=rules.NOTHING_FAIL in s.rules, request=run_of(s).request,
                          hold_whole=rules.WHOLE_FAIL in s.rules, hold_dialog=rules.DIALOG_FAIL in s.rules,
                          saved_later=saved_later, hold_unsaved=rules.UNSAVED_FAIL in s.rules)


def own_figures_of(record: SubtaskRecord, text: str, plain: bool = False) -> tuple[artifacts.Artifact, ...]:
    """The figures of the tables a subtask read itself: all of them where it writes nothing and hands on a
    value; where it writes only plain text (`plain`: a total, a name, a list), those of the files it declares
    it reads (a folder's listing is no table of figures)."""
    spec = record.spec
    tables = [a for a in record.artifacts.values() if a.kind is artifacts.Kind.TABLE]
    if spec.writes and plain:
        files = {r for r in spec.reads if posixpath.splitext(r)[1]}
        tables = [a for a in tables if files & set(_ARGUMENT.findall(a.source))]
    elif spec.writes or spec.hands_on not in (HandsOn.NUMBER, HandsOn.TEXT, HandsOn.NAMES):
        return ()
    return tuple(f for a in tables for f in artifacts.figures(a, text))


def _memory(s: HostState, app: str) -> tuple[str, ...]:
    items = list(s.memory.get(app, ()))[-MEMORY_SHOWN:]
    return tuple([summarize(i, 400) for i in items[:-2]] + items[-2:])


def _limit(s: HostState, record: SubtaskRecord) -> Reason | None:
    limit = budget_reason(s) or step_limit_reason(s)
    if limit is None and record.steps >= s.config.max_subtask_steps:
        limit = Reason(ReasonKind.LIMIT_REACHED, f"subtask {record.spec.id} used all its {s.config.max_subtask_steps} "
                                                 f"steps (max_subtask_steps) without finishing")
    return limit


def dispatch_propose(s: HostState, sid: str, planned: bool = True, answer: AppOutput | None = None,
                     rule: str = rules.PLAN_WRITES) -> Result:
    """Send a subtask's next step to its AppAgent (checks the limits first); `planned`: a first step its plan
    determines may run without a model call (rules plan-reads-without-model, plan-writes-without-model);
    `answer`: the step's answer a rule (`rule`) determined, sent in place of the model's."""
    record = run_of(s).subtasks[sid]
    limit = _limit(s, record)
    if limit is not None:
        s = update_subtask(s, sid, SubtaskEvent.LIMIT, reason=limit)
        return finish_run(s, HostEvent.LIMIT, limit)
    if planned and not record.steps and (first := _planned_reads(s, record)) is not None:
        # FINISH once its calls worked (every read returned its file whole); else forgotten, and the step is
        # the model's (subtask._executed)
        rule, calls, result = first
        output = AppOutput(actions=tuple(Action(function=c.function, arguments=c.arguments) for c in calls),
                           status=AppStatus.FINISH, result=result)
        launch = _first_of_app(run_of(s), record)
        s = update_subtask(s, sid, steps=record.steps + 1)
        s = replace(s, session_steps=s.session_steps + 1)
        s = with_run(s, steps=run_of(s).steps + 1)
        return dispatch_execute(s, sid, Proposal(output, calls, tuple(range(len(calls))), fired=(rule,)),
                                launch=launch)
    if answer is None:
        answer = _planned_answer(s, record) if planned and not record.steps else None
    app = s.catalog.get(record.spec.application)
    ops, s, agent = agent_for(s, record.spec.application)
    run = run_of(s)
    inputs, given = handed(s, record)
    sampled = record.repairs > 0 or (record.sampled and rules.SAMPLE in s.rules)
    t = s.config.retry_temperature if sampled else s.config.temperature
    tools = app.tool_names if app is not None else ()
    specs = {other.spec.id: other.spec for other in run.subtasks.values()}
    only, narrowed = record.only, ""
    if not only and rules.HANDED_FIRST in s.rules:
        takers = data_takers(record.spec, app, specs)
        if takers and not set(takers) & set(record.called):
            only, narrowed = takers, rules.HANDED_FIRST
    if not only and rules.OPEN_FIRST in s.rules and run.files is not None:
        opening = rules.open_first(record.spec, app, (*record.called, *record.tried), (*run.files, *run.created))
        if opening:
            only, narrowed = opening, rules.OPEN_FIRST
    by_ref = record.by_ref and bool(given)
    if by_ref and not narrowed:
        narrowed = record.by_ref_rule or rules.REF_AFTER_CALL
    # a forced choice leaves out the tools stuck since, too; where that leaves none, the application's others
    # are the choice (a refusal that names another tool for the work), and only where there are none either,
    # the stuck ones
    offered = tuple(t for t in (only or tools) if t not in record.stuck) \
        or tuple(t for t in tools if t not in record.stuck) or only or tools
    writable = None if s.config.interactive else (
        *(w for w in record.spec.writes if w not in record.untrusted), *run.created)
    if writable == () and app is not None:
        # nobody to approve a change and nothing the subtask may change: a call of a tool that names the files it
        # changes could only be refused (a command or a program's action is bounded otherwise: the sandbox)
        offered = tuple(t for t in offered if (info := app.tool(t)) is not None and not info.writes_named) or offered
    placing = tuple(PlacingView(subtask=u.subtask, data=u.data, tools=u.tools)
                    for u in unplaced(record.spec, app, specs) if not set(u.tools) & set(record.called))
    # The one subtask of a plan is the whole request: its AppAgent is given the person's words, not the
    # planner's shorter paraphrase of them (which can leave a part out). Not so the one writer of several
    # subtasks: given the whole request, it sets out to do the others' reading too.
    whole = len(run.subtasks) == 1 and not run.replans
    request = AppStepRequest(
        kind=AppStepKind.PROPOSE, application=record.spec.application, subtask_id=sid, step=record.steps + 1,
        description=(run.request if whole else record.spec.description) + (f" ({record.said})" if record.said else ""),
        reads=record.spec.reads,
        writes=record.spec.writes,
        tools=record.spec.tools, hands_on=record.spec.hands_on, request=run.request, inputs=inputs, artifacts=given,
        placing=placing,
        memory=_memory(s, record.spec.application),
        # a question nobody answered is shown by the note that says so, not as an answer to copy
        answers=tuple(a for a in record.answers if a.answered_by != DEFAULT_ANSWER),
        # A quarter of the planner's share: an AppAgent's own work is in its memory and inputs; the
        # HostAgent's steps are left out (its plan is the subtask itself).
        blackboard=s.blackboard.to_prompt(max(1, s.config.blackboard_chars // 4), shown_request=run.request,
                                          own_subtask=sid, shown_results=set(record.spec.depends_on),
                                          hidden_agents={PLANNER}, unanswered=False),
        note=record.note, feedback=record.feedback,
        offered=offered if tuple(offered) != tuple(tools) else (),
        must_act=record.ended is None and (bool(record.only) or narrowed == rules.OPEN_FIRST), by_ref=by_ref,
        settled=record.settled,
        temperature=t, may_ask=record.may_ask, ended=record.ended,
        writable=writable,
        created=run.created,
        launch=_first_of_app(run, record),
        rules=tuple(sorted(s.rules)), planned=None if answer is None else answer.dump())
    s = update_subtask(s, sid, agent=agent, steps=record.steps + 1, planned=rule if answer else "",
                       narrowed=narrowed)
    s = replace(s, session_steps=s.session_steps + 1)
    s = with_run(s, steps=run.steps + 1, busy={**run.busy, agent: sid},
                 current=f"subtask {sid} step {record.steps + 1} on {agent}")
    return [*ops, Dispatch(agent, Prompt(request.model_dump_json(), temperature=t), run.token)], s


def _planned_reads(s: HostState, record: SubtaskRecord) -> tuple[str, tuple[CallFacts, ...], str] | None:
    """(rule, calls, result) of a first step of reads its plan determines (rule plan-reads-without-model): run
    without a PROPOSE turn (reads need no approval), or None."""
    app = s.catalog.get(record.spec.application)
    if rules.PLAN_READS in s.rules and (calls := rules.planned_reads(record.spec, app)):
        return rules.PLAN_READS, calls, f"{', '.join(record.spec.reads)} read"
    return None


def _planned_answer(s: HostState, record: SubtaskRecord) -> AppOutput | None:
    """The answer its plan gives for a subtask's first step of changes (rule plan-writes-without-model): sent
    in place of the model's, its calls' facts gathered and decided on as for a model's answer."""
    run = run_of(s)
    if rules.PLAN_WRITES not in s.rules or run.files is None:
        return None
    # only what a dependency's plan says it hands on: a table it merely saw (its own file, observed before it
    # changed it) is no table for this subtask's file
    tables = [a.name for dep in record.spec.depends_on
              if (other := run.subtasks.get(dep)) is not None and other.spec.hands_on is HandsOn.TABLE
              and (done := s.blackboard.result_of(dep)) is not None
              for a in done.artifacts if a.kind == artifacts.Kind.TABLE]
    # the one value the subtasks whose plan hands on a value named as their result (one that hands on a table
    # leaves the choice among its figures to the writer: a count it named need not be the one asked for)
    named = [done.named for dep in record.spec.depends_on
             if (other := run.subtasks.get(dep)) is not None
             and other.spec.hands_on in (HandsOn.NUMBER, HandsOn.TEXT, HandsOn.NAMES)
             and (done := s.blackboard.result_of(dep)) is not None and done.named
             and done.artifacts[0].kind != artifacts.Kind.TABLE]
    offered = {a.name for a in handed(s, record)[1]} if named else set()
    named = [n for n in named if n in offered]
    return rules.planned_write(record.spec, s.catalog.get(record.spec.application),
                               tables[0] if len(tables) == 1 else None, {*run.files, *run.created},
                               named[0] if len(named) == 1 else None)


def _first_of_app(run: Run, record: SubtaskRecord) -> bool:
    return not any(r.steps for r in run.subtasks.values() if r.spec.application == record.spec.application)


def dispatch_execute(s: HostState, sid: str, proposal: Proposal, launch: bool = False) -> Result:
    """Send the calls the host decided to run (their intent: journaled before they run)."""
    record = run_of(s).subtasks[sid]
    ops, s, agent = agent_for(s, record.spec.application)
    run = run_of(s)
    intent = proposal.intent or f"{sid}.{run.intents + 1}"  # sent again after a crash: the same intent
    app = s.catalog.get(record.spec.application)
    # a program's controls are no file: a GUI action that declares no effect still changes what the next acts on
    acts = {t.name for t in app.tools if not t.names_its_writes} if app is not None else set()
    calls = tuple(Call(function=(f := proposal.facts[i]).function, arguments=f.arguments, effects=f.effects or (),
                       changes_nothing=f.effects == () and f.function not in acts)
                  for i in proposal.run)
    request = AppStepRequest(kind=AppStepKind.EXECUTE, application=record.spec.application, subtask_id=sid,
                             step=record.steps, intent=intent, calls=calls, writes=record.spec.writes, launch=launch)
    s = update_subtask(s, sid, agent=agent, proposal=replace(proposal, intent=intent))
    s = with_run(s, intents=run.intents + (0 if proposal.intent else 1), busy={**run.busy, agent: sid},
                 current=f"subtask {sid} step {record.steps}: running {len(calls)} call(s) on {agent}")
    return [*ops, Dispatch(agent, Prompt(request.model_dump_json()), run.token)], s


def _downstream(schedule: GraphSchedule) -> dict[str, int]:
    # Longest chain of dependants below each subtask: starting the longest chain first shortens the
    # makespan when several ready subtasks compete for one application's AppAgent.
    below: dict[str, int] = {}
    children: dict[str, list[str]] = {t.id: [] for t in schedule.subtasks}
    for t in schedule.subtasks:
        for dep in t.depends_on:
            children[dep].append(t.id)
    for t in reversed(schedule.subtasks):  # dependants come later in the stable order
        below[t.id] = 1 + max((below[c] for c in children[t.id]), default=0)
    return below


def schedule_ready(s: HostState) -> Result:
    """Start every ready subtask whose AppAgent is free (one subtask per AppAgent at a time)."""
    ops: list[Op] = []
    run = run_of(s)
    if run.schedule is None:
        return ops, s
    depth = _downstream(run.schedule)
    for task in sorted(run.schedule.ready(), key=lambda t: -depth[t.id]):  # sorted() is stable
        run = run_of(s)
        app = run.subtasks[task.id].spec.application
        if s.agents.get(app) in run.busy:
            continue
        s = with_run(s, schedule=run.schedule.start(task.id))  # type: ignore[union-attr]
        s = update_subtask(s, task.id, SubtaskEvent.DISPATCH)
        more, s = dispatch_propose(s, task.id)
        ops += more
        if not active(s):
            break
    return ops, s


def named_data(record: SubtaskRecord, result: Any, text: str = "",
               given: Iterable[ArtifactEntry] = ()) -> artifacts.Artifact | None:
    """The data a subtask's result names by reference, if it names one: its own (its own figures too), or
    data handed to it (`given`, flow.handed: a figure of an input table a reader chose). `text`: the
    request and the description."""
    if not artifacts.is_ref(result):
        return None
    name = artifacts.ref_name(result)
    own = record.artifacts.get(name) or next((f for f in own_figures_of(record, text) if f.name == name), None)
    if own is not None:
        return own
    return next((artifacts.Artifact(g.name, artifacts.Kind(g.kind), g.value, g.source) for g in given
                 if g.name == name), None)


def quoted_data(record: SubtaskRecord, result: Any, text: str = "",
                given: Iterable[ArtifactEntry] = ()) -> artifacts.Artifact | None:
    """The one value of its data (its own, its figures, or handed to it) that a result in words of a subtask that
    hands on a value (a number, a text) sets in quotation marks ("the product that costs the most is 'Desk'"): what
    it hands on is that value, as if named by reference."""
    if record.spec.hands_on not in (HandsOn.NUMBER, HandsOn.TEXT) or not isinstance(result, str):
        return None
    quoted = set(verify.literals(result))
    pool = [*record.artifacts.values(), *own_figures_of(record, text),
            *(artifacts.Artifact(g.name, artifacts.Kind(g.kind), g.value, g.source) for g in given)]
    # what a result repeats of its call's arguments (the path it read) is what the call was given, not its data
    found = {a.name: a for a in pool if a.kind in (artifacts.Kind.TEXT, artifacts.Kind.NUMBER)
             and artifacts.said(a.value) in quoted and artifacts.said(a.value) not in _ARGUMENT.findall(a.source)}
    return next(iter(found.values())) if len({str(a.value) for a in found.values()}) == 1 else None


def handed_on(record: SubtaskRecord, result: Any, text: str = "",
              given: Iterable[ArtifactEntry] = ()) -> tuple[Any, tuple[ArtifactEntry, ...], str]:
    """A finished subtask's result (a reference resolved to its value), the data it hands on (what the result
    names, its own or handed to it, first; else all it read) and the name of what the result names ("")."""
    entries = tuple(_entries(record.artifacts.values()))
    given = tuple(given)
    chosen = named_data(record, result, text, given) or quoted_data(record, result, text, given)
    if chosen is not None:
        return chosen.value, (*_entries([chosen]), *(e for e in entries if e.name != chosen.name)), chosen.name
    if artifacts.is_ref(result):
        return f"(it named {artifacts.ref_name(result)}, which is none of its data)", entries, ""
    return result, entries, ""


def end_subtask(s: HostState, sid: str, agent: str | None, event: SubtaskEvent, *, result: Any = None,
                reason: Reason | None = None) -> HostState:
    """Record a subtask's end in its machine, the graph and the blackboard, and free its AppAgent."""
    record = run_of(s).subtasks[sid]
    text, given = f"{run_of(s).request}\n{record.spec.description}", handed(s, record)[1]
    value, data, named = handed_on(record, result, text, given)
    s = update_subtask(s, sid, event, result=value, reason=reason, proposal=None, holds=())
    record = run_of(s).subtasks[sid]
    schedule = run_of(s).schedule
    if schedule is not None and record.spec.id in {t.id for t in schedule.subtasks}:
        if record.state is SubtaskState.FINISH:
            schedule = schedule.complete(sid, value)
        elif schedule.status(sid).value in ("running", "ready"):
            schedule = schedule.fail(sid, reason or Reason(ReasonKind.FAILED, f"subtask {sid} failed"))
    busy = {a: t for a, t in run_of(s).busy.items() if a != agent}
    s = with_run(s, schedule=schedule, busy=busy, seen_data=True)
    if schedule is not None:  # dependants of a failure that will now never run
        for other, rec in run_of(s).subtasks.items():
            if rec.state is SubtaskState.WAITING and other in {t.id for t in schedule.subtasks} \
                    and schedule.status(other).value == "skipped":
                s = update_subtask(s, other, SubtaskEvent.SKIP, reason=schedule.outcome(other).reason)
    entry = SubtaskResult(subtask=sid, application=record.spec.application, status=record.state.value,
                          description=record.spec.description,
                          result=value if reason is None else reason.detail,
                          artifacts=data if record.state is SubtaskState.FINISH else (),
                          named=named if record.state is SubtaskState.FINISH else "")
    return replace(s, blackboard=s.blackboard.add_result(entry))


def in_flight(s: HostState) -> bool:
    """Whether a step of the request is out on an agent: the planner's (the host is in CONTINUE) or an
    AppAgent's (a busy subtask in CONTINUE). The session fails a run that a crash leaves with none."""
    run = run_of(s)
    return run.machine.state is HostStatus.CONTINUE or \
        any(run.subtasks[sid].state is SubtaskState.CONTINUE for sid in run.busy.values())


REPLAN = ("Re-plan: FINISH subtasks are kept; ASSIGN new subtasks (new ids) for what is left, or answer FAIL "
          "with the reason.")


def failures(s: HostState) -> str:
    """How the subtasks that failed ended, for a FAIL that gives no reason of its own."""
    return "; ".join(f"subtask {r.spec.id} ({r.spec.description}) ended {r.state.value}: "
                     f"{r.reason.detail if r.reason else 'no reason given'}"
                     for r in run_of(s).subtasks.values()
                     if r.state in (SubtaskState.FAIL, SubtaskState.ERROR, SubtaskState.SKIPPED))


def graph_idle(s: HostState) -> bool:
    schedule = run_of(s).schedule
    return schedule is None or schedule.finished


def unfinished(s: HostState) -> list[SubtaskRecord]:
    """The subtasks of the current graph that did not end FINISH."""
    run = run_of(s)
    ids = {t.id for t in run.schedule.subtasks} if run.schedule is not None else set()
    return [r for sid, r in run.subtasks.items() if sid in ids and r.state is not SubtaskState.FINISH]


def after_graph(s: HostState) -> Result:
    """Nothing is left to run: ask the planner to verify (all done) or to re-plan (failures)."""
    run = run_of(s)
    failed = unfinished(s)
    if not failed and rules.VERIFIED_FINISH in s.rules and not unmade(run):
        text = results_text(run)
        s = record_step(s, PLANNER, HostStatus.FINISH.value, action="FINISH: every subtask ended FINISH, each "
                        "checked against the files", outcome=text, fired=(rules.VERIFIED_FINISH,))
        return finish_run(s, HostEvent.VERIFIED, text=text)
    if not failed:
        return dispatch_planner(s, note="Every subtask has ended (see Subtasks so far). Compare the results with "
                                        "the request: answer FINISH if it is done, or ASSIGN new subtasks for what "
                                        "is still missing.")
    first = failed[0]
    if run.replans >= s.config.max_replans:
        reason = Reason(ReasonKind.FAILED, f"subtask {first.spec.id} ({first.spec.description}) ended "
                        f"{first.state.value}: {first.reason.detail if first.reason else 'no reason given'}; "
                        f"no re-plan left (max_replans={s.config.max_replans})", first.agent, first.reason)
        return finish_run(s, HostEvent.GIVE_UP, reason)
    lines = "; ".join(f"subtask {r.spec.id} ended {r.state.value}: {r.reason.detail if r.reason else '?'}"
                      for r in failed)
    s = with_run(s, replans=run.replans + 1)
    return dispatch_planner(s, note=f"{lines}. {REPLAN}")


def unmade(run: Run) -> list[str]:
    """The files the request names that did not exist when planned and that no change of the run made."""
    touched = [p for r in run.subtasks.values() for p in r.changed]
    if run.files is None:  # no workspace to compare with
        return []
    return [path for path in (normal_path(n) for n in file_names(run.request))
            if path not in run.files and not any(f.rpartition("/")[2] == path for f in run.files)
            and not covered(path, touched) and not any(p.rpartition("/")[2] == path for p in touched)]


def results_text(run: Run) -> str:
    """What the subtasks say they did, for a FINISH whose own words are not about this request."""
    return "; ".join(f"subtask {r.spec.id}: {summarize(r.result, 200)}" for r in run.subtasks.values()
                     if r.result not in (None, "")) or "every subtask ended FINISH"


def idle_out(s: HostState, sid: str, agent: str, idle: int, last: str) -> HostState:
    """A subtask whose AppAgent made no progress for max_idle_steps in a row ends: FINISH when all it declared
    is done (the steps after it were extra), else LIMIT, with what its evidence lacks."""
    record = run_of(s).subtasks[sid]
    # judged as its FINISH would be: with the data handed to it and the person's words
    missing = missing_work(s, record, handed(s, record)[1])
    if record.changed and not missing.work:
        return end_subtask(s, sid, agent, SubtaskEvent.STEP_FINISH, result=(
            f"its declared changes were made ({', '.join(sorted(record.changed))}); then {idle} steps without "
            "progress"))
    lacking = f"; {missing.text()}" if missing and record.changed else ""
    return end_subtask(s, sid, agent, SubtaskEvent.LIMIT, reason=Reason(
        ReasonKind.LIMIT_REACHED, f"AppAgent {agent} (subtask {sid}) made no progress: {idle} steps in a row without "
                                  f"a call that succeeded (max_idle_steps={s.config.max_idle_steps}){lacking}; last: "
                                  f"{summarize(last, 300)}", agent))


def settle(s: HostState) -> Result:
    """After a subtask ended: start what it unblocked, or hand back to the planner when all is idle.
    While the person is being asked the host state stays; the reply decides what comes next."""
    if run_of(s).machine.state is HostStatus.ASSIGN and graph_idle(s):
        return after_graph(fire(s, HostEvent.GRAPH_SETTLED))
    s = fire(s, HostEvent.SUBTASK_SETTLED)
    return schedule_ready(s)


# -- the end of a request -----------------------------------------------------------------------

def _abandon(s: HostState) -> HostState:
    for sid, record in run_of(s).subtasks.items():
        if not record.machine.final:
            s = update_subtask(s, sid, SubtaskEvent.ABANDON,
                               reason=record.reason or Reason(ReasonKind.CANCELLED, "the request ended first"))
    return with_run(s, busy={})


def outcome(s: HostState, reason: Reason | None, text: str) -> dict[str, Any]:
    run = run_of(s)
    return {
        "token": run.token,
        "request": run.request,
        "status": run.machine.state.value,
        "result": text,
        "reason": None if reason is None else str(reason),
        "reason_kind": None if reason is None else reason.kind.value,
        "steps": run.steps,
        "usage": usage_dict(run.usage),
        "created": list(run.created),
        "subtasks": [{**subtask_dict(r), "result": r.result, "reason": None if r.reason is None else r.reason.detail,
                      "reason_kind": None if r.reason is None else r.reason.kind.value}
                     for r in run.subtasks.values()],
        "evaluation": None,
        "blackboard": s.blackboard.to_dict(),
    }


def finish_run(s: HostState, event: HostEvent, reason: Reason | None = None, text: str = "") -> Result:
    """End the request: the host's final state, every unfinished subtask abandoned, the reply (after the
    judge, when evaluation is on), then the next queued request."""
    s = _abandon(fire(s, event))
    run = run_of(s)
    if not text:  # the planner's last words; the reason says what ended the run (podium.journal.outcome)
        text = run.comment or (str(reason) if reason else run.machine.state.value)
    s = record_step(s, PLANNER, run.machine.state.value, action="end of request",
                    outcome=text if reason is None else str(reason))
    result = outcome(s, reason, text)
    if s.judge and s.config.evaluate:
        board = s.blackboard
        trajectory = "\n".join(f"step {t.step} {t.agent} {t.status}: {t.action} -> {t.outcome}"
                               for t in board.trajectories[-60:])
        inputs = [InputView(subtask=r.subtask, application=r.application, description=r.description,
                            status=r.status, result=r.result) for r in board.results]
        prompt = Prompt(judge_prompt(board.requests, summarize(trajectory, 12000), inputs), temperature=0.0)
        s = with_run(s, evaluating=result, current="evaluating")
        return [Dispatch(JUDGE, prompt, run.token)], s
    return reply_and_close(s, result)


def reply_and_close(s: HostState, result: dict[str, Any]) -> Result:
    run = run_of(s)
    ops: list[Op] = []
    if s.observer:
        ops.append(Forward(OBSERVER, RunFinished(run.token, result)))
    if result["status"] == "FINISH":
        text = str(result["result"])
        # A fixed stamp: the strategy has no clock (a replay must decide the same reply).
        ops.append(Reply(run.token, Response(text, (Event(EventKind.RESULT, {"text": text, "outcome": result}, 0.0),),
                                             run.usage)))
    else:
        kind = ReasonKind(result["reason_kind"]) if result["reason_kind"] else ReasonKind.FAILED
        detail = result["reason"] or result["result"]
        if kind is not ReasonKind.BUDGET_EXCEEDED and kind is not ReasonKind.LIMIT_REACHED:
            detail = f"HostAgent {result['status']}: {detail}"
        ops.append(ReplyError(run.token, Reason(kind, detail)))
    s = replace(s, run=None, last=result)
    if s.queue:
        (token, request), *rest = s.queue
        more, s = start_run(replace(s, queue=tuple(rest)), token, request)
        ops += more
    return ops, s


def start_run(s: HostState, token: str, request: str) -> Result:
    offered = typed_apps(s.catalog, request) if "offer-typed-apps" in s.rules else s.catalog.names
    named = tuple(normal_path(n) for n in file_names(request))
    run = Run(token=token, request=request, applications=() if offered == s.catalog.names else offered,
              trusted=named)
    s = replace(s, run=run, blackboard=s.blackboard.add_request(request))
    return dispatch_planner(s)


def typed_apps(catalog: Catalog, request: str) -> tuple[str, ...]:
    """Rule offer-typed-apps: the applications that open the files the request names, when every such
    file has one (all of them otherwise)."""
    owners = [catalog.owner(name) for name in file_names(request)]
    if not owners or None in owners:
        return catalog.names
    return tuple(a.name for a in catalog.apps if a.file_types)


def offered(s: HostState) -> Catalog:
    """The applications the planner may plan with in this run."""
    names = run_of(s).applications
    return s.catalog.only(names) if names else s.catalog


def kept_specs(run: Run) -> dict[str, Any]:
    """Subtasks a re-plan keeps: the finished ones (and any still running)."""
    return {sid: r.spec for sid, r in run.subtasks.items() if r.state is SubtaskState.FINISH or r.machine.active}


def merge_schedule(run: Run, new: Iterable[Any]) -> GraphSchedule:
    """The graph after a (re-)plan: kept subtasks with their results, then the new ones."""
    kept = kept_specs(run)
    nodes = [Subtask(spec.id, spec.description, spec.application, spec.depends_on) for spec in kept.values()]
    nodes += [Subtask(spec.id, spec.description, spec.application, spec.depends_on) for spec in new]
    schedule = GraphSchedule.build(nodes, on_failure="skip")
    results = {sid: run.subtasks[sid].result for sid, r in run.subtasks.items()
               if r.state is SubtaskState.FINISH and sid in kept}
    running = frozenset(sid for sid, r in run.subtasks.items() if r.machine.active and sid in kept)
    return replace(schedule, results=results, running=running)
