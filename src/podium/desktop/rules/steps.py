"""The named rules that act on an AppAgent's step (ids in podium.desktop.rules.RULES). Each is a pure
function of the step's values, called only when its rule is in force; each returns what it decided, so
the host can record that it fired."""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable, Collection, Mapping, Sequence, Set
from typing import Any

from podium.desktop.host.artifacts import names, wants
from podium.desktop.host.catalog import AppInfo, ToolInfo
from podium.desktop.wire.messages import ActionResult, CallFacts, summarize
from podium.desktop.wire.prompts import EXAMPLE_ROW
from podium.desktop.wire.schemas import Action, AppOutput, AppStatus, HandsOn, SubtaskSpec

FAILED_CALL = "failed-call-not-rerun"
READ_AGAIN = "read-not-reread"
EXAMPLE_COPY = "no-example-copy"
COPY_QUESTION = "copy-is-question"
REPEAT_FINISH = "repeat-is-finish"
CONFIRM_CAUSE = "confirm-needs-cause"
READ_FINISH = "read-result-is-finish"
FAIL_QUESTION = "question-fail-after-error"
FAIL_DONE = "question-fail-when-done"
CONFIRM_UNPLANNED = "question-confirm-unplanned"
FINISH_UNPLANNED = "question-finish-unplanned"
VALUES_PLANNED = "quoted-values-planned"
FOLDER_BESIDE = "folder-beside-reads"
SOURCES_AS_DECLARED = "sources-as-declared"
RESULT_CONTENT = "result-ref-is-content"
FAIL_UNTRIED = "question-fail-untried"
STUCK_TOOL = "withhold-stuck-tool"
FORCE_TOOL = "force-missing-tool"
SAMPLE = "sample-after-no-progress"
PATH_FROM_DECLARATION = "path-from-declaration"
PART_FROM_DESCRIPTION = "part-from-description"
PART_JUST_ADDED = "part-just-added"
FOLDER_FROM_DECLARATION = "folder-from-declaration"
PLAN_READS = "plan-reads-without-model"
VERIFIED_FINISH = "verified-graph-is-finish"
PLAN_WRITES = "plan-writes-without-model"
OPEN_CHOICE = "open-choice-asked"
REF_AFTER_NOTHING = "ref-after-nothing-taken"
ERROR_NAMES_TOOL = "tool-its-error-names"
REACH_READS = "reach-declared-reads"
EMPTY_FIELDS = "empty-field-question"
TYPED_OVER = "typed-over-question"
ROWS_AS_NAMED = "rows-as-named"
CALL_AS_DATA = "call-is-not-data"
REQUEST_AS_DATA = "instruction-is-not-data"
REF_AFTER_CALL = "ref-after-call-as-data"
REF_AFTER_UNWRITTEN = "ref-after-unwritten"
UNHANDED_FAIL = "unhanded-is-failure"
NOTHING_FAIL = "nothing-taken-is-failure"
DIALOG_FAIL = "dialog-is-failure"
UNSAVED_FAIL = "unsaved-is-failure"
UNPLANNED_FAIL = "unplanned-finish-is-failure"
WHOLE_FAIL = "whole-is-failure"
HANDED_FIRST = "handed-data-first"
OPEN_FIRST = "open-before-acting"
COLUMNS_AS_NAMED = "columns-as-named"
DEFERRED = "deferred-calls-again"
COLUMNS = "columns"  # the argument of a tool that takes only some columns of a table (podium.apps.sheet_args)
OPEN = "open_file"  # a desktop program's tool that opens a workspace file in it (apps.desktop_apps)

_CALL = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\(")
_PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_.]*\}")
_LOOSE = re.compile(r"[\W_]+")
INSTRUCTION_CHARS = 24  # an instruction shorter than this, inside a longer text, may be a phrase of the data


def _plain_reader(tool: ToolInfo | None) -> bool:
    """A tool that only reads: it changes and computes nothing and needs no argument but the path."""
    if tool is None or not tool.read_only or tool.computes:
        return False
    schema = tool.schema
    return "path" in schema.get("properties", {}) and set(schema.get("required", [])) <= {"path"}


def planned_reads(spec: SubtaskSpec, app: AppInfo | None) -> tuple[CallFacts, ...]:
    """Rule plan-reads-without-model: the calls of a subtask whose plan determines them (it writes nothing,
    hands on what it reads, declares only plain reading tools): each declared tool on each file it reads."""
    if (app is None or spec.writes or not spec.reads or not spec.tools
            or spec.hands_on not in (HandsOn.TABLE, HandsOn.NAMES, HandsOn.TEXT)
            or not all(_plain_reader(app.tool(t)) for t in spec.tools)):
        return ()
    return tuple(CallFacts(function=tool, arguments={"path": path}, read_only=True)
                 for path in spec.reads for tool in spec.tools)


def open_first(spec: SubtaskSpec, app: AppInfo | None, tried: Collection[str], existing: Collection[str]
               ) -> tuple[str, ...]:
    """Rule open-before-acting: a subtask on a program that opens files, which declares an existing file of
    the program's type among what it reads or writes, is offered only `open_file` until it has tried it; what
    it then types goes into that file's window. `tried`: the tools its calls ran (or failed) so far; `existing`:
    the workspace's paths."""
    if app is None or app.tool(OPEN) is None or tried or not app.file_types:
        return ()
    return (OPEN,) if any(p in existing and app.opens(p) for p in (*spec.reads, *spec.writes)) else ()


def _table_writer(tool: ToolInfo | None) -> bool:
    """A tool that puts a table into a file and needs nothing but the path and the rows."""
    if tool is None or tool.read_only:
        return False
    schema = tool.schema
    rows = schema.get("properties", {}).get("rows", {})
    return set(schema.get("required", [])) == {"path", "rows"} and isinstance(rows, Mapping) \
        and rows.get("type") == "array"


def content_from_result(spec: SubtaskSpec, app: AppInfo | None, data: str, theirs: Collection[str],
                        made: Collection[str]) -> AppOutput | None:
    """Rule result-ref-is-content: the answer of a writer that hands nothing on and declares one write, a file
    (not a folder, no pattern) its application opens, and no changing tool but ones that take a text (no copy,
    no folder made), whose FINISH named data handed to it (`data`, the reference) as its result while its
    changes hold none of that data: its application's tool that writes a text file whole, on that file with that
    data, then FINISH. Never over a file the person has (`theirs`, unless the run made it: `made`)."""
    if app is None or spec.hands_on is not HandsOn.NOTHING or len(spec.writes) != 1:
        return None
    path = spec.writes[0]
    changing = [info for t in spec.tools if (info := app.tool(t)) is not None and not info.read_only]
    if not posixpath.splitext(path)[1] or "*" in path or not app.opens(path) or (path in theirs and path not in made) \
            or not all(any("content" in wants(v) for v in info.schema.get("properties", {}).values())
                       for info in changing):
        return None
    tool = next((t for t in app.tools if t.writes_text), None)
    if tool is None:
        return None
    arguments: dict[str, Any] = {"path": path, "content": {"ref": data}}
    if path in made and "overwrite" in tool.schema.get("properties", {}):
        arguments["overwrite"] = True  # what the run made is its own to write again
    return AppOutput(actions=(Action(function=tool.name, arguments=arguments),), status=AppStatus.FINISH,
                     result=f"{path} has the data named")


def columns_as_named(app: AppInfo | None, done: Sequence[str], failed: Sequence[str],
                     columns: Sequence[tuple[str, tuple[str, ...], tuple[str, ...]]]) -> AppOutput | None:
    """Rule columns-as-named: the answer after a FINISH whose change took columns of a table of which its
    subtask's description names some and not the others (verify.Missing.columns): that change's last call
    again (`done`: the subtask's calls that changed files, as call keys) over only the columns named, where
    its tool takes columns and that call was neither made nor tried (`failed`) already, then FINISH. The
    application makes such a call in place of the one before it (a chart drawn again over fewer columns)."""
    actions = []
    for tool, _, named in columns:
        info = app.tool(tool) if app is not None else None
        made = [json.loads(key)[1] for key in done if json.loads(key)[0] == tool]
        if info is None or COLUMNS not in info.schema.get("properties", {}) or not made:
            continue
        arguments = {**made[-1], COLUMNS: list(named)}
        if arguments not in [*made, *(json.loads(key)[1] for key in failed)]:
            actions.append(Action(function=tool, arguments=arguments))
    if not actions:
        return None
    return AppOutput(actions=tuple(actions), status=AppStatus.FINISH, result="made over the columns named")


def planned_write(spec: SubtaskSpec, app: AppInfo | None, table: str | None, existing: Collection[str],
                  value: str | None = None) -> AppOutput | None:
    """Rule plan-writes-without-model: the answer of a first step its plan determines: a subtask that reads
    nothing but what it writes, writes one file its application opens, declares one tool, which needs nothing
    but the path and the data, and was handed exactly that data: one table (`table`, the reference to it) for
    a tool that puts a table into a file; for a tool that writes a new text file whole, the one value a
    subtask it depends on whose plan hands on a value named as its result (`value`: a number, names, a
    text). For a tool that changes its file from the files one argument lists (a merge), and needs nothing
    else, a subtask that hands nothing on and reads files of those types besides what it writes: those files
    (existing ones, no pattern), in the order declared. That tool on that file with that data, then FINISH.
    Whether the call may run is decided as for a model's (its effects, the capabilities). `existing`: the
    workspace's paths and what the run made (a tool that only creates is not tried on them; a text file there
    is the person's, not one to write whole)."""
    if app is None or len(spec.writes) != 1 or len(spec.tools) != 1:
        return None
    path, tool = spec.writes[0], app.tool(spec.tools[0])
    if tool is None or not app.opens(path):
        return None
    sources = [r for r in spec.reads if r != path]
    if (takes := tool.takes_files) is not None and sources and spec.hands_on is HandsOn.NOTHING \
            and len(sources) <= takes[2] \
            and all(r in existing and (not takes[1] or r.lower().endswith(takes[1])) for r in sources):
        return AppOutput(actions=(Action(function=tool.name, arguments={"path": path, takes[0]: sources}),),
                         status=AppStatus.FINISH, result=f"{path} has what {', '.join(sources)} hold")
    if sources:
        return None
    # Only a step that is the whole subtask is planned: a small model handed a subtask half done by calls it
    # did not choose reads the file again or writes the table a second time instead of going on.
    if table is not None and _table_writer(tool) and not (tool.new_only and path in existing):
        return AppOutput(actions=(Action(function=tool.name, arguments={"path": path, "rows": {"ref": table}}),),
                         status=AppStatus.FINISH, result=f"{path} has the table handed on")
    if value is not None and tool.writes_text and path not in existing:
        return AppOutput(actions=(Action(function=tool.name, arguments={"path": path, "content": {"ref": value}}),),
                         status=AppStatus.FINISH, result=f"{path} has the value handed on")
    return None


def planned_done(results: Sequence[ActionResult]) -> bool:
    """Whether every call of a first step its plan made worked, each read returning its file whole: what the
    planned step's FINISH stands on."""
    return all(r.ok and not r.left_out for r in results)


def declared_target(path: Any, writes: Sequence[str], file_types: Sequence[str]) -> str | None:
    """Rule path-from-declaration: the one declared write of the application's type a call's `path` stands
    for, when that path is not of the type; None when the rule does not apply."""
    if not isinstance(path, str) or not file_types or path.lower().endswith(tuple(file_types)):
        return None  # a file of the type, there or new: the model's to name
    ours = [w for w in writes if w.lower().endswith(tuple(file_types))]
    return ours[0] if len(ours) == 1 and ours[0] != path else None


def declared_folder(given: Any, places: Collection[str]) -> str | None:
    """Rule folder-from-declaration: the folder a call that reads a folder and leaves it to the workspace's
    top one ("." or nothing) stands for, when every path its subtask declares it reads (and does not write)
    is or lies in one other folder; `places`: those folders ("" for the top one). None where the rule does
    not apply."""
    if given not in (None, "", ".", "./"):
        return None  # a folder named: the model's to name
    return next(iter(places)) if len(places) == 1 and "" not in places else None


def reaches_below(folder: Any, reads: Sequence[str], writes: Sequence[str]) -> bool:
    """Rule reach-declared-reads: whether a path its subtask declares it reads (and does not write), a file or
    a pattern, lies in a subfolder of `folder` (the workspace's top one for nothing or ".")."""
    top = posixpath.normpath(folder) if isinstance(folder, str) and folder.strip() else "."
    parents = (posixpath.dirname(posixpath.normpath(r)) for r in reads if r not in writes)
    return any(p not in ("", ".") if top == "." else p.startswith(f"{top}/") for p in parents)


def read_places(reads: Sequence[str], writes: Sequence[str], is_folder: Callable[[str], bool]) -> frozenset[str]:
    """The folders a subtask's declared reads (not its writes) are or lie in ("" for the top one)."""
    paths = (posixpath.normpath(r) for r in reads if r not in writes)
    return frozenset("" if p == "." else p for p in (p if is_folder(p) else posixpath.dirname(p) for p in paths))


def described_part(description: str, parts: Sequence[str], request: str = "") -> str | None:
    """Rule part-from-description: the one part of a file (a sheet of a workbook of several) that a subtask's
    description names by its whole name, in its own letter case ("the H2 sheet"), or, where it names none, the
    one the person's `request` names (given for a read: a planner's paraphrase drops "the Archive sheet");
    None where they name none or more than one."""
    named = [p for p in parts if names(description, p, exact_case=True)]
    if not named and request:
        named = [p for p in parts if names(request, p, exact_case=True)]
    return named[0] if len(parts) > 1 and len(named) == 1 else None


def called_in_data(arguments: Mapping[str, Any], tools: Set[str], given: str) -> tuple[str, str] | None:
    """Rule call-is-not-data: (argument, what stands in it) when a text argument of a change is a call of a
    tool written out ("column_totals(data.csv)") or holds a placeholder in its text ("Total: {sum}") that the
    person's words do not contain: the model wrote where its data should come from instead of the data."""
    for name, value in arguments.items():
        if not isinstance(value, str):
            continue
        found = _CALL.match(value)
        if found and found.group(1) in tools and value.strip().casefold() not in given.casefold():
            return name, f"the call {found.group(1)}(...) written out"
        hole = _PLACEHOLDER.search(value)
        # a placeholder alone may be what a template holds and a call looks for; inside text, it is a hole
        if hole and hole.group(0) != value.strip() and hole.group(0) not in given:
            return name, f"the placeholder {hole.group(0)}"
    return None


def instruction_in_data(arguments: Mapping[str, Any], request: str = "", description: str = "") -> str | None:
    """Rule instruction-is-not-data: the text argument of a change that is the person's request or the
    subtask's description written out (case, spacing and punctuation aside), or holds one long enough to be no
    phrase of the data: the model wrote what it was told to do where what that makes goes. A text the request
    holds as a part of it is the person's, dictated (a line to type, which a description may repeat)."""
    asked = _LOOSE.sub(" ", request).strip().casefold()
    said = [loose for text in (request, description) if (loose := _LOOSE.sub(" ", text).strip().casefold())]
    for name, value in arguments.items():
        if not isinstance(value, str):
            continue
        text = _LOOSE.sub(" ", value).strip().casefold()
        if not text or (text != asked and text in asked):
            continue
        if any(text == s or (len(s) >= INSTRUCTION_CHARS and s in text) for s in said):
            return name
    return None


def refusal(fact: CallFacts, failed: str | None, active: frozenset[str], given: str, tools: Set[str] = frozenset(),
            instructions: Sequence[str] = ()) -> tuple[str, str, tuple[str, ...]] | None:
    """(rule, why the call is not run, questions for the person) when a rule in force refuses it. `tools`: the
    names of every application's tools; `instructions`: the person's request and the subtask's description."""
    if REQUEST_AS_DATA in active and not fact.read_only \
            and (where := instruction_in_data(fact.arguments, *instructions[:2])) is not None:
        return REQUEST_AS_DATA, (f"not run: its {where} holds the words of your instructions, not what they ask "
                                 "for: write the data your subtask makes, from what it was handed or read (by "
                                 "reference where it has one)"), ()
    if CALL_AS_DATA in active and not fact.read_only:
        called = called_in_data(fact.arguments, tools, given)
        if called is not None:
            name, stand_in = called
            return CALL_AS_DATA, (f"not run: its {name} holds {stand_in}, not data: nothing fills it in, and a "
                                  "tool runs only as one of your actions. Give the data itself: a value you were "
                                  "handed or read, by reference ({\"ref\": ...}), after the call that computes it "
                                  "has run"), ()
    if FAILED_CALL in active and failed is not None:
        return FAILED_CALL, (f"not run: it already failed with these same arguments in this subtask "
                             f"({summarize(failed, 200)}) and would fail again; call something else"), ()
    if EXAMPLE_COPY in active and not fact.read_only and _has_example(fact.arguments):
        return EXAMPLE_COPY, (f"not run: {EXAMPLE_ROW} is the data of the example in your instructions, not of "
                              "your subtask; use the data your subtask was given or has read"), ()
    if COPY_QUESTION in active and not fact.read_only:
        copies = [c for c in fact.copies if c[2] and str(c[1]).strip().casefold() not in given.casefold()]
        if copies:
            found = "; ".join(f"{where} would get {value!r}, already in {source}" for where, value, source, _ in copies)
            file = fact.arguments.get("path")
            place = f" in {file}" if isinstance(file, str) else ""
            asked = tuple(f"What is the {what}{place}? No file gives it; {value!r} in {source} is another record's."
                          for _, value, source, what in copies)
            return COPY_QUESTION, (f"not run: {found}: another record's value is not this one's; the person is asked "
                                   "for it"), asked
    return None


def _has_example(value: Any) -> bool:
    if isinstance(value, Mapping):
        return any(_has_example(v) for v in value.values())
    if isinstance(value, list):
        return value == EXAMPLE_ROW or any(_has_example(v) for v in value)
    return False


def as_finish(output: AppOutput, results: Sequence[ActionResult], repeats: int, writes: Sequence[str],
              active: frozenset[str], *, learned: bool = True) -> str | None:
    """The rule that reads a CONTINUE as FINISH, if one does: every call proposing nothing new (`repeats`
    counts them: repeat-is-finish) in a subtask that declares what it writes, or a subtask that writes nothing
    whose reads worked and whose answer gives a result, or whose reads all repeat reads made before (`learned`
    False: read-result-is-finish). A FINISH a rule reads is one the files can verify: a repeated action in a
    program's window, in a subtask that declares no file, leaves nothing to check it against."""
    if output.status is not AppStatus.CONTINUE:
        return None
    if REPEAT_FINISH in active and writes and repeats and repeats == len(output.actions):
        return REPEAT_FINISH
    if READ_FINISH in active and not writes and (output.result not in (None, "") or not learned) and results \
            and all(r.ok and r.read_only for r in results):
        return READ_FINISH
    return None
