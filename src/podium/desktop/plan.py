"""Checking a plan in code before anything runs, and merging a re-plan with the work already done.

Small local models write plausible plans that are wrong in mechanical ways: an application that does
not exist, a dependency on a subtask that is not there or comes later, a .docx handed to the
spreadsheet, a step the request explicitly forbids. Each check returns a sentence the planner can act
on; the host feeds them back and asks again.
"""

from __future__ import annotations

import graphlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from podium.desktop.catalog import (
    ARITHMETIC,
    TOOL_WORK,
    AppInfo,
    Catalog,
    asks_for_change,
    file_names,
    reads_only,
    types_named,
    without_locators,
    work_named,
)
from podium.desktop.schemas import SubtaskSpec


@dataclass(frozen=True, slots=True)
class PlanCheck:
    """The plan with applications resolved (names normalised, missing ones inferred from file
    types), and every problem found; empty `problems` means the plan may run."""

    subtasks: tuple[SubtaskSpec, ...]
    problems: tuple[str, ...]
    dropped: tuple[str, ...] = ()  # why each subtask left out of `subtasks` was left out
    moved: tuple[str, ...] = ()  # which subtasks went to another application, and why

    @property
    def ok(self) -> bool:
        return not self.problems


def check_plan(subtasks: Iterable[SubtaskSpec], catalog: Catalog, request: str = "",
               kept: Mapping[str, SubtaskSpec] | None = None) -> PlanCheck:
    """Check a (re-)plan. `kept` holds subtasks already finished or running: the plan may depend on
    them, and an entry reusing one of their ids is that subtask again, so it is dropped."""
    kept = kept or {}
    items = [s for s in subtasks if s.id not in kept]
    problems: list[str] = []
    if not items:
        problems.append("the plan has no new subtasks: list at least one subtask to ASSIGN, "
                        "or answer with Status FINISH if the request is done")
    resolved: list[SubtaskSpec] = []
    position: dict[str, int] = {}
    for index, spec in enumerate(items):
        if spec.id in position:
            problems.append(f"two subtasks have the id {spec.id!r}: give each subtask its own id")
            continue
        position[spec.id] = index
        if not spec.id.strip():
            problems.append(f"subtask number {index + 1} has an empty id")
        if not spec.description.strip():
            problems.append(f"subtask {spec.id!r} has no description: say what the application must do")
        spec, app_problems = _resolve_application(spec, catalog)
        problems.extend(app_problems)
        resolved.append(spec)
    for spec in resolved:
        for dep in spec.depends_on:
            if dep == spec.id:
                problems.append(f"subtask {spec.id!r} depends on itself: remove {dep!r} from its depends_on")
            elif dep in kept:
                continue
            elif dep not in position:
                known = sorted({*position, *kept})
                problems.append(f"subtask {spec.id!r} depends on unknown subtask {dep!r} (known ids: "
                                f"{', '.join(known) or 'none'})")
            elif position[dep] > position[spec.id]:
                problems.append(f"subtask {spec.id!r} depends on {dep!r}, which comes after it: list "
                                f"subtasks in the order they must run")
    cycle = _cycle(resolved)
    if cycle:
        problems.append("the dependencies form a cycle " + " -> ".join(cycle)
                        + ": a subtask cannot wait for itself")
    problems.extend(_forbidden(resolved, request))
    resolved, moved = _to_the_data(resolved, catalog, kept)
    resolved, to_tool = _to_the_tool(resolved, catalog, request)
    moved += to_tool
    wanted, dropped = _drop_unasked(resolved, request)
    if resolved and not wanted:  # all of it unasked: the planner is told, not left with no plan
        problems.extend(f"{why}: plan what the request asks for" for why in dropped)
        wanted, dropped = resolved, ()
    return PlanCheck(tuple(wanted), tuple(dict.fromkeys(problems)), dropped, moved)


def _to_the_data(specs: list[SubtaskSpec], catalog: Catalog, kept: Mapping[str, SubtaskSpec]
                 ) -> tuple[list[SubtaskSpec], tuple[str, ...]]:
    """The plan with each subtask that only reads or computes, on a typed application none of whose files
    it names (or on a generic one, when the typed one has the tool for its arithmetic and it has not),
    handed the data of one subtask on another typed application, moved to that application,
    where the data is (and a tool that computes on it may be): the 1.5B planner put "Calculate the total
    sales for each region" of sales.docx's table on spreadsheets, whose AppAgent tried column_totals on
    sales.docx until it gave up. (A subtask after it moves along: "Identify the region with the highest
    total".)"""
    apps = {**{sid: spec.application for sid, spec in kept.items()}, **{s.id: s.application for s in specs}}
    moved, out = [], []
    for spec in specs:
        here = catalog.get(spec.application)
        source = catalog.get(apps.get(spec.depends_on[0], "")) if len(spec.depends_on) == 1 else None
        if here is not None and source is not None and _computes_there(spec, here, source, catalog):
            moved.append(f"subtask {spec.id} moved from {here.name} to {source.name}: it computes on the data "
                         f"subtask {spec.depends_on[0]} read there")
            spec = spec.model_copy(update={"application": source.name})
            apps[spec.id] = source.name
        out.append(spec)
    return out, tuple(moved)


def _to_the_tool(specs: list[SubtaskSpec], catalog: Catalog, request: str
                 ) -> tuple[list[SubtaskSpec], tuple[str, ...]]:
    """The plan with each subtask whose work (a chart) no tool of its application does moved to the
    application that has one and owns a file the request names: the 1.5B planner put "Create a bar chart
    of the headcount data" of teams.xlsx on documents, whose AppAgent tried to create a document named
    after the chart's title. (Arithmetic stays: where the data is decides, _to_the_data.)"""
    owners = catalog.apps_for_files(request)
    moved, out = [], []
    for spec in specs:
        here = catalog.get(spec.application)
        for work in (w for w in work_named(spec.description) if w not in dict(ARITHMETIC)):
            if here is None or _does(here, work):
                continue
            target = next((a for a in catalog.apps if a.name in owners and _does(a, work)), None)
            if target is not None:
                moved.append(f"subtask {spec.id} moved from {here.name} to {target.name}: {here.name} has no tool "
                             f"for {work}")
                spec = spec.model_copy(update={"application": target.name})
                break
        out.append(spec)
    return out, tuple(moved)


def _does(app: AppInfo, work: str) -> bool:
    return any(work in work_named(tool.replace("_", " ")) for tool in app.tools)


def _computes_there(spec: SubtaskSpec, here: AppInfo, source: AppInfo, catalog: Catalog) -> bool:
    """Whether `spec`, planned on `here`, only reads or computes on what a subtask on `source` read."""
    if not source.file_types or source.name == here.name or not reads_only(spec.description) \
            or here.name in catalog.apps_for_files(spec.description):
        return False
    # A generic application (shell) keeps it only with a tool of its own for the arithmetic: the 1.5B
    # shell AppAgent handed a workbook's Amount column tried `sum $(awk ... orders.xlsx)` until it gave up.
    return bool(here.file_types) or (bool(source.computing(spec.description))
                                     and not here.computing(spec.description))


def merge_chains(subtasks: Iterable[SubtaskSpec], kept: Mapping[str, SubtaskSpec] | None = None
                 ) -> tuple[tuple[SubtaskSpec, tuple[str, ...]], ...]:
    """A checked plan with each chain of subtasks on one application made one subtask: B joins A when
    both name the same application, B needs only A, and nothing else needs A. Small models split "write
    the rows" and "chart them" into two subtasks of one AppAgent; each costs a subtask's worth of model
    calls (the second begins by rediscovering what the first did) and nothing runs in parallel anyway.
    Each subtask comes with its parts, the descriptions it was merged from (none if it was not): its
    AppAgent does them in order, one FINISH each."""
    kept = kept or {}
    specs = list(subtasks)
    parts: dict[str, tuple[str, ...]] = {}
    while True:
        needed_by: dict[str, list[str]] = {}
        for spec in specs:
            for dep in spec.depends_on:
                needed_by.setdefault(dep, []).append(spec.id)
        pair = next(((a, b) for b in specs for a in specs
                     if b.depends_on == (a.id,) and a.id != b.id and a.application == b.application
                     and needed_by.get(a.id) == [b.id] and a.id not in kept), None)
        if pair is None:
            return tuple((s, parts.get(s.id, ())) for s in specs)
        first, second = pair
        if second.id not in parts and _writes_back(first, second):
            joined = first  # the data is in the file already: writing it back is only a chance to spoil it
        else:
            parts[first.id] = (*parts.get(first.id, (first.description,)),
                               *parts.pop(second.id, (second.description,)))
            message = " Then ".join(m.strip() for m in (first.message, second.message) if m.strip())
            joined = first.model_copy(update={"description": f"{first.description.rstrip('. ')}; then "
                                                             f"{second.description}", "message": message})
        specs = [joined if s.id == first.id else
                 s.model_copy(update={"depends_on": tuple(dict.fromkeys(
                     first.id if d == second.id else d for d in s.depends_on))})
                 for s in specs if s.id != second.id]


def _writes_back(reader: SubtaskSpec, writer: SubtaskSpec) -> bool:
    """Whether `writer` only puts what `reader` read back into the files it was read from: the 1.5B
    planner copies its worked example's read / write / compute shape onto one-file requests ("Read the
    data from traffic.xlsx", "Write the rows of subtask 1 into traffic.xlsx", "Create a line chart"),
    and the AppAgent of the middle part, with nothing to copy, wrote the example's rows over the data."""
    read, written = file_names(reader.description), file_names(writer.description)
    return (reads_only(reader.description) and bool(written) and set(written) <= set(read)
            and re.search(rf"\bsubtask {re.escape(reader.id)}\b", writer.description) is not None)


def missing_work(request: str, descriptions: Iterable[str]) -> list[str]:
    """The work the request names that no description does: the 1.5B planner planned "Extract the table
    from report.docx and create a bar chart of it in budget.xlsx" as reading the table and writing its
    rows, and no chart. (Asked at FINISH, not of a plan: a planner may plan one subtask at a time.)"""
    planned = set(work_named(" ".join(descriptions)))
    return [f"the request asks for {work} and no subtask made {work.split()[-1]}"
            for work in work_named(request) if work not in planned]


_CLAUSE = re.compile(r"[;:]\s|\.\s|,\s|\band\b|\bthen\b")


def add_missing(planned: tuple[tuple[SubtaskSpec, tuple[str, ...]], ...], request: str, catalog: Catalog,
                kept: Iterable[str] = ()) -> tuple[tuple[tuple[SubtaskSpec, tuple[str, ...]], ...], tuple[str, ...]]:
    """A merged plan with the request's own words for work it names and no subtask does (missing_work)
    added as a last part of the last subtask on an application with a tool for it, and what was added
    (one note each). Asked at FINISH instead, the planner answers after the run is over; the request's
    clause ("create a bar chart of it in budget.xlsx") is the part an AppAgent can do."""
    notes = []
    texts = [*kept, *(t for spec, parts in planned for t in (spec.description, *parts))]
    planned_work = set(work_named(" ".join(texts)))
    for work in (w for w in work_named(request) if w not in planned_work):
        clause = next((c.strip() for c in _CLAUSE.split(request) if work in work_named(c)), "")
        apps = {a.name for a in catalog.apps if any(work in work_named(t.replace("_", " ")) for t in a.changing)}
        target = next((i for i in reversed(range(len(planned))) if planned[i][0].application in apps), None)
        if not clause or target is None:
            continue
        spec, parts = planned[target]
        clause = clause[0].upper() + clause[1:]
        joined = spec.model_copy(update={"description": f"{spec.description.rstrip('. ')}; then {clause}"})
        planned = (*planned[:target], (joined, (*(parts or (spec.description,)), clause)), *planned[target + 1:])
        notes.append(f"added to subtask {spec.id}: {clause!r} (no subtask made {work.split()[-1]})")
    return planned, tuple(notes)


def as_requested(planned: tuple[tuple[SubtaskSpec, tuple[str, ...]], ...], request: str, catalog: Catalog,
                 kept: Iterable[str] = ()) -> tuple[tuple[tuple[SubtaskSpec, tuple[str, ...]], ...], tuple[str, ...]]:
    """A whole plan of one subtask on an application that opens no particular file type (files,
    shell), for a request that names no file another application opens, given as the request itself,
    and what was changed (one note). The request is then that application's whole job, and the person's
    words say it better than a small planner's paraphrase: the 1.5B planner split "Move all the .txt
    files into a folder named notes" into reading them, copying them and renaming them (the copy was done,
    the move was not), and cut "Write the names of all the .docx files ... into docx_files.txt" down
    to listing them. Its parts and tips described the paraphrase, so they go too."""
    request = request.strip()
    if len(planned) != 1 or any(True for _ in kept) or not request:
        return planned, ()
    spec, _parts = planned[0]
    app = catalog.get(spec.application)
    if app is None or app.file_types or catalog.apps_for_files(request) or spec.description.strip() == request:
        return planned, ()
    note = f"subtask {spec.id} is the request in its own words (planned as {spec.description!r})"
    return ((spec.model_copy(update={"description": request, "message": ""}), ()),), (note,)


# "the sum of the Amount column" in "Write the sum of the Amount column to total.txt": the arithmetic a
# clause asks for, up to where its result goes.
_COMPUTED = re.compile(r"\b(?:the\s+)?(?:sum|total|average|mean)\b.*?(?=\s+(?:to|into|in)\s+\S+\.\w+"
                       r"|\s*[,;:]|\.\s|\.?$)", re.IGNORECASE)


def compute_upstream(planned: tuple[tuple[SubtaskSpec, tuple[str, ...]], ...], catalog: Catalog
                     ) -> tuple[tuple[tuple[SubtaskSpec, tuple[str, ...]], ...], tuple[str, ...]]:
    """A merged plan in which a subtask asking for a sum or an average, on an application with no tool
    for it, handed the data of one subtask on an application that has one, gets that arithmetic done
    there first: a part "Compute <what it asks for>" added to the subtask it depends on. The 1.5B planner
    planned "Read the Amount column from expenses.xlsx" and "Write the sum of the Amount column to
    total.txt" (on files), whose AppAgent wrote a Ref number of the table as the sum."""
    index = {spec.id: i for i, (spec, _) in enumerate(planned)}
    out, notes = list(planned), []
    for spec, _ in planned:
        here = catalog.get(spec.application)
        source_at = index.get(spec.depends_on[0]) if len(spec.depends_on) == 1 else None
        if here is None or source_at is None or here.computing(spec.description):
            continue
        source, parts = out[source_at]
        there = catalog.get(source.application)
        phrase = _COMPUTED.search(spec.description)
        asked = set(work_named(spec.description, ARITHMETIC)) & {"a sum", "an average"}
        done = set(work_named(" ".join((source.description, *parts)), ARITHMETIC))
        if there is None or not there.file_types or phrase is None or not asked or asked <= done \
                or not there.computing(spec.description):
            continue
        part = f"Compute {phrase.group(0).strip()}"
        out[source_at] = (source.model_copy(update={"description": f"{source.description.rstrip('. ')}; then {part}"}),
                          (*(parts or (source.description,)), part))
        notes.append(f"subtask {source.id} computes it for subtask {spec.id} ({part!r}): {here.name} has no tool "
                     f"for {' or '.join(sorted(asked))}")
    return tuple(out), tuple(notes)


# The verbs of a clause that puts data into a file ("Write the table into budget.xlsx").
_WRITING = frozenset({"write", "copy", "put", "paste", "insert", "enter", "transfer", "fill", "store", "save"})


def write_first(planned: tuple[tuple[SubtaskSpec, tuple[str, ...]], ...], request: str, catalog: Catalog,
                kept: Mapping[str, SubtaskSpec] | None = None
                ) -> tuple[tuple[tuple[SubtaskSpec, tuple[str, ...]], ...], tuple[str, ...]]:
    """A merged plan in which a subtask that changes a file of its (typed) application with data read by
    one subtask on another typed application, and writes none of it there, first writes the rows: an
    application only sees its own files. The 1.5B planner planned the seed's request as "Extract the table
    from report.docx" and "Create a bar chart of the extracted table in budget.xlsx", whose AppAgent charted
    the range 'table', then an empty one, and gave up. The part added says which subtask's rows go into which
    file (the file the subtask names, else the request's one of that type)."""
    specs = {**(kept or {}), **{s.id: s for s, _ in planned}}
    apps = {sid: spec.application for sid, spec in specs.items()}
    out, notes = [], []
    for spec, parts in planned:
        here = catalog.get(spec.application)
        source = catalog.get(apps.get(spec.depends_on[0], "")) if len(spec.depends_on) == 1 else None
        texts = parts or (spec.description,)
        files = catalog.apps_for_files(texts[0]).get(spec.application) \
            or catalog.apps_for_files(request).get(spec.application) or ()
        if here is None or source is None or not here.file_types or not source.file_types \
                or source.name == here.name or not files or not reads_only(specs[spec.depends_on[0]].description):
            out.append((spec, parts))
            continue
        first = f"Write the rows of subtask {spec.depends_on[0]} into {files[0]} as a table, its header row first"
        writing = set(here.asked_for(first))
        if not writing or not here.asked_for(texts[0]) or writing & set(here.asked_for(texts[0])) \
                or any(clause.split()[:1] and clause.split()[0] in _WRITING
                       for clause in _CLAUSE.split(texts[0].lower())):
            out.append((spec, parts))  # nothing to add with, a reading part, or it writes the rows itself
            continue
        joined = spec.model_copy(update={"description": f"{first}; then {spec.description}"})
        out.append((joined, (first, *texts)))
        notes.append(f"subtask {spec.id} writes the rows of subtask {spec.depends_on[0]} into {files[0]} first: "
                     f"{spec.application} sees only its own files")
    return tuple(out), tuple(notes)


_SENTENCES = re.compile(r"(?<=[.?!])\s+")


def add_unwritten(planned: tuple[tuple[SubtaskSpec, tuple[str, ...]], ...], request: str, catalog: Catalog
                  ) -> tuple[tuple[tuple[SubtaskSpec, tuple[str, ...]], ...], tuple[str, ...]]:
    """A first plan with a subtask added for each file a sentence of the request asks to change and no
    subtask names, on the application that writes it, when the plan has none there: the sentence itself,
    after every subtask nothing else waits for (their results are its data). The 1.5B planner planned
    "Write the action items from the table in meeting.docx into actions.txt, one per line" as reading
    them, and finished twice; nothing wrote actions.txt."""
    named = " ".join(t for spec, parts in planned for t in (spec.description, spec.message, *parts)).casefold()
    notes = []
    for sentence in (s.strip() for s in _SENTENCES.split(request.strip())):
        if not asks_for_change(sentence):
            continue
        for name in file_names(sentence):
            app = _writer(name, sentence, catalog)
            if name.casefold() in named or app is None or any(spec.application == app for spec, _ in planned):
                continue
            waited_for = {dep for spec, _ in planned for dep in spec.depends_on}
            numbers = [int(spec.id) for spec, _ in planned if spec.id.isdigit()]
            added = SubtaskSpec(id=str(max(numbers, default=len(planned)) + 1), description=sentence,
                                application=app,
                                depends_on=tuple(spec.id for spec, _ in planned if spec.id not in waited_for))
            planned = (*planned, (added, ()))
            named += f" {sentence.casefold()}"
            notes.append(f"subtask {added.id} added on {app}: no subtask wrote {name} ({sentence!r})")
    return planned, tuple(notes)


def _writer(name: str, sentence: str, catalog: Catalog) -> str | None:
    """The application that writes file `name`: the one of its type, else a generic one with a tool the
    sentence asks for (write_file: "into actions.txt")."""
    typed = catalog.app_for_type(name.rpartition(".")[2])
    if typed is not None:
        return typed
    return next((a.name for a in catalog.apps if not a.file_types and a.asked_for(sentence)), None)


def _drop_unasked(specs: list[SubtaskSpec], request: str) -> tuple[list[SubtaskSpec], tuple[str, ...]]:
    """The plan without the subtasks that only do work the request never asks for: the 1.5B planner
    copied its worked example's last subtask ("Add the sum of the prices under the rows") into "Reset
    ledger.xlsx: replace every amount with 0", and the AppAgent appended three =SUM rows to the ledger.
    Only a subtask nothing else needs is dropped (a later one may use its result); what it left out is
    said, for the record."""
    if not request.strip():  # nothing to compare with (a plan checked on its own)
        return specs, ()
    # A new sheet too (the planner added "Add a new sheet with the phone number" to "Fill in the missing
    # phone number of Acme Corp in contacts.xlsx"); a sheet a text only locates is none.
    asked = set(work_named(without_locators(request), TOOL_WORK))
    needed = {dep for spec in specs for dep in spec.depends_on}
    kept, dropped = [], []
    for spec in specs:
        unasked = [w for w in work_named(without_locators(spec.description), TOOL_WORK) if w not in asked]
        if unasked and spec.id not in needed:
            dropped.append(f"subtask {spec.id} ({spec.description!r}) left out: the request asks for no "
                           f"{' or '.join(w.split()[-1] for w in unasked)}")
        else:
            kept.append(spec)
    return kept, tuple(dropped)


def _resolve_application(spec: SubtaskSpec, catalog: Catalog) -> tuple[SubtaskSpec, list[str]]:
    problems: list[str] = []
    by_file = catalog.apps_for_files(spec.description)
    name = spec.application.strip()
    app = catalog.resolve(name) if name else None
    if not name:
        if len(by_file) == 1:
            app = next(iter(by_file))
        else:
            problems.append(f"subtask {spec.id!r} names no application: choose one of "
                            f"{', '.join(catalog.names)}")
    elif app is None:
        problems.append(f"subtask {spec.id!r} names unknown application {name!r}: choose one of "
                        f"{', '.join(catalog.names)}")
    named = catalog.get(app) if app is not None else None
    # An application that opens no particular file type (files, shell) may work on any file; one that
    # does (documents, spreadsheets) cannot open another's. When the files say which one it must be,
    # the plan is corrected here rather than re-asked: a small model asked again often gives up.
    if app is not None and by_file and app not in by_file and (named is None or named.file_types):
        if len(by_file) == 1:
            app = next(iter(by_file))
        else:
            files = ", ".join(f for fs in by_file.values() for f in fs)
            expected = " or ".join(sorted(by_file))
            problems.append(f"subtask {spec.id!r} works on {files}, which {expected} handles, but it names "
                            f"{app}: assign it to {expected}")
    writer = _plain_writer(spec, catalog) if named is not None and named.file_types else None
    if writer is not None:
        app = writer
    if app is not None and app != spec.application:
        spec = spec.model_copy(update={"application": app})
    return spec, problems


_INTO = re.compile(r"\b(?:into|to)\s+(?:(?:a|the|new|text|file)\s+)*(\S+)", re.IGNORECASE)


def _plain_writer(spec: SubtaskSpec, catalog: Catalog) -> str | None:
    """The generic application (one with write_file) for a subtask planned on a typed application that
    cannot open its files: every file it names (or, naming none, every file type) is one no typed
    application opens ("Write the .txt files to notes" on documents), or it puts handed-on data into
    such a file ("Write the content of meeting.docx into actions.txt" after the subtask that read the
    document). On the typed
    application it can only end in an error ('actions.txt' is not a .docx path)."""
    text = spec.description
    targets = [name for word in _INTO.findall(text) for name in file_names(word)] if spec.depends_on else []
    # The files it names decide; only without any, the file types it names (".txt files"): "Add the .docx
    # files to the list in docx_files.txt" writes a text file.
    types = [n.rsplit(".", 1)[1] for n in file_names(text)] or [t[1:] for t in types_named(text)]
    foreign = bool(types) and not any(catalog.app_for_type(t) for t in types)
    if not foreign and (not targets or any(catalog.apps_for_files(t) for t in targets)):
        return None
    return next((a.name for a in catalog.apps if not a.file_types and "write_file" in a.changing), None)


def _cycle(specs: list[SubtaskSpec]) -> tuple[str, ...]:
    ids = {s.id for s in specs}
    sorter = graphlib.TopologicalSorter({s.id: [d for d in s.depends_on if d in ids and d != s.id] for s in specs})
    try:
        sorter.prepare()
    except graphlib.CycleError as exc:
        return tuple(reversed(exc.args[1]))
    return ()


# -- "do not ..." -----------------------------------------------------------------------------

_NEGATION = re.compile(
    r"\b(?:do not|don't|dont|does not|doesn't|never|must not|mustn't|should not|shouldn't|without|avoid"
    r"|no need to|not to)\s+(.+?)(?=[.,;:!?](?:\s|$)|\s+(?:and|but|then|so|because|while|instead)\b|$)",
    re.IGNORECASE)
_WORD = re.compile(r"[\w\-./\\]+")
_STOP = frozenset({"a", "an", "the", "any", "anything", "something", "everything", "it", "its", "this",
    "that", "these", "those", "them", "my", "your", "our", "their", "his", "her", "to", "of", "in", "on",
    "at", "by", "for", "from", "into", "onto", "with", "be", "is", "are", "was", "or", "and", "else",
    "other", "others", "all", "more", "me", "us", "i", "you", "we", "he", "she", "they", "just", "only",
    "even", "yet", "also", "either", "way", "what", "which"})
_SYNONYMS = (
    frozenset({"modify", "change", "edit", "update", "alter", "touch", "write", "rewrite", "overwrite"}),
    frozenset({"delete", "remove", "erase", "trash", "drop", "wipe", "clear"}),
    frozenset({"send", "email", "mail", "share", "post", "upload", "forward"}),
    frozenset({"close", "quit", "exit", "kill", "terminate"}),
    frozenset({"install", "setup", "download"}),
    frozenset({"rename", "move"}),
)


def _stem(word: str) -> str:
    word = word.lower().strip("'\"()[]")
    if "." in word.strip("."):  # a file name is matched whole
        return word
    for suffix, repl in (("ies", "y"), ("ied", "y"), ("ying", "y"), ("ing", ""), ("ed", ""), ("es", ""),
                         ("s", ""), ("e", "")):
        if word.endswith(suffix) and len(word) - len(suffix) + len(repl) >= 3:
            return word[: len(word) - len(suffix)] + repl
    return word


def _verb_group(stem: str) -> frozenset[str]:
    for group in _SYNONYMS:
        if stem in {_stem(w) for w in group}:
            return frozenset(_stem(w) for w in group)
    return frozenset({stem})


def prohibitions(request: str) -> tuple[tuple[frozenset[str], frozenset[str], str], ...]:
    """What the request says not to do: (verb stems, object stems, the phrase) for each 'do not ...'."""
    found = []
    for match in _NEGATION.finditer(request):
        phrase = match.group(1).strip()
        words = [_stem(w) for w in _WORD.findall(phrase) if w.lower() not in _STOP]
        if not words:
            continue
        verb, *objects = words
        found.append((_verb_group(verb), frozenset(objects), phrase))
    return tuple(found)


def _forbidden(specs: list[SubtaskSpec], request: str) -> list[str]:
    rules = prohibitions(request)
    problems = []
    for spec in specs:
        # Only what the subtask does: its own "without changing X" is not a violation, nor are tips.
        doing = _NEGATION.sub(" ", spec.description)
        stems = {_stem(w) for w in _WORD.findall(doing)}
        for verbs, objects, phrase in rules:
            if stems & (verbs - objects) and (not objects or stems & objects):
                problems.append(f"subtask {spec.id!r} ({spec.description!r}) does what the request says not to "
                                f"do ({phrase!r}): remove it or change it")
    return problems
