"""Repairs of a checked plan, before it runs: what a small planner's words leave out or get wrong in
a way the request itself shows. A chain on one application becomes one subtask with parts; work the
request names and no subtask does, a file it asks to write and no subtask names, rows that must be
written where they are charted, a sum asked of an application without a tool for it: each is added, in
the request's words where they say it, and noted in the trajectory. (plan.check_plan checks; these mend.)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from podium.desktop.catalog import ARITHMETIC, Catalog, asks_for_change, file_names, reads_only, work_named
from podium.desktop.schemas import SubtaskSpec


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
        if second.id not in parts and (_writes_back(first, second) or _saves_only(second, first)):
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


# The words of a part that only saves a file again ("Write the memo.docx with the updated content").
_SAVING = frozenset({"write", "save", "store", "the", "a", "with", "updated", "new", "changed", "content", "contents",
                     "changes", "data", "file", "back", "it", "to", "disk", "workbook", "document", "all", "its",
                     "and", "close", "again"})


def _saves_only(writer: SubtaskSpec, before: SubtaskSpec) -> bool:
    """Whether `writer` only saves again a file `before` names: the 1.5B planner ends a chain with "Write
    the memo.docx with the updated content" (every change tool saves), and that part's AppAgent wrote
    another paragraph, 'Friday.', under the one asked for."""
    named = file_names(writer.description)
    if not named or not set(named) <= set(file_names(before.description)):
        return False
    text = writer.description
    for name in named:
        text = text.replace(name, " ")
    return set(re.findall(r"[a-z]+", text.lower())) <= _SAVING


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
