"""Checking a typed plan in code before anything runs: set operations on its declarations.

Each subtask declares the paths it reads and writes and the tools it expects to call; the workspace's
paths are known (the planner's DATA_COLLECTION lists them); the request names files. First the fixes
that are certain from types are made (podium.desktop.host.amend); then a plan is refused, with sentences
the planner can act on, when
- its graph is not one: duplicate or empty ids, unknown or later dependencies, cycles;
- a subtask names an application or a tool that does not exist, or no tool;
- it reads a path that neither exists nor is written by a subtask it waits for;
- a typed application is given a path of a type it cannot open;
- its tools change files and it declares no write, or it declares writes and its tools only read;
- two subtasks that do not wait for each other write the same path;
- a file the request names is left out: it does not exist and no subtask writes it, or it exists and no
  subtask reads or writes it;
- it writes a path the request never names and no other subtask reads. Subtasks of one application that
  write such paths one file each, where a pattern the request names covers them all ('final_*'), are
  first made one subtask that writes that pattern: the request asked for the set, not its members.
A subtask that reads files of several types, of which the request names some by their suffix ('the .txt
files'), reads only those: the others came with a listing of the workspace. One that reads a folder the
request never names reads the workspace instead: the planner picked it from the listing. One on the
application that opens any file that writes a text from files only other applications open, declaring no
changing tool, expects the tool that writes the names of files: their names are all it can take from them.
A subtask that changes files with a table or names handed to it, where none of its tools takes that kind
of data, is not refused: its AppAgent is told which of its application's tools put the data in (`unplaced`;
a chart is drawn over cells, so the rows go in first).
A choice its declarations leave open that only the request can settle (`open_choice`: a copy or a move of
what it only reads; a new file named only without its suffix, or a part of a named file) is no problem: the
planner may be asked it before anything runs (rule open-choice-asked), and `settle` applies the answer.
No check reads the meaning of a word: they compare paths, names and tool kinds.
"""

from __future__ import annotations

import graphlib
import posixpath
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from podium.desktop.host.amend import STRUCTURED, amend, before, one_path, opener_of, takes
from podium.desktop.host.artifacts import Kind, names
from podium.desktop.host.capability import covered, is_pattern
from podium.desktop.host.catalog import AppInfo, Catalog, file_names
from podium.desktop.host.verify import literals, own_sources
from podium.desktop.wire.messages import Choice, ChoiceKind
from podium.desktop.wire.schemas import HandsOn, SubtaskSpec, normal_path

SHOWN_FILES = 12  # how many workspace paths a problem lists


@dataclass(frozen=True, slots=True)
class PlanCheck:
    subtasks: tuple[SubtaskSpec, ...]  # the new subtasks, applications resolved, certain fixes made
    problems: tuple[str, ...]
    amended: tuple[str, ...] = ()  # the fixes made (podium.desktop.host.amend), one sentence each

    @property
    def ok(self) -> bool:
        return not self.problems


def check_plan(subtasks: Iterable[SubtaskSpec], catalog: Catalog, request: str = "",
               files: Iterable[str] | None = None, kept: Mapping[str, SubtaskSpec] | None = None,
               configured: Catalog | None = None) -> PlanCheck:
    """Check a (re-)plan. `files`: the workspace's paths (None: no workspace is known, so paths are not
    checked against one); `kept`: subtasks already finished or running, which the plan may depend on (an
    entry reusing one of their ids is that subtask again, and is dropped); `configured`: every application,
    where `catalog` holds those the planner was offered (amend)."""
    kept = kept or {}
    listed = None if files is None else tuple(files)
    items = [s for s in subtasks if s.id not in kept]
    problems: list[str] = []
    if not items:
        problems.append("the plan has no new subtasks: list at least one subtask to ASSIGN, or answer FINISH if the "
                        "request is done")
    resolved: list[SubtaskSpec] = []
    for index, spec in enumerate(items):
        if any(spec.id == other.id for other in resolved):
            problems.append(f"two subtasks have the id {spec.id!r}: give each subtask its own id")
            continue
        if not spec.id.strip():
            problems.append(f"subtask number {index + 1} has an empty id")
        if not spec.description.strip():
            problems.append(f"subtask {spec.id!r} has no description: say what the application must do")
        spec, found = _application(spec, catalog)
        problems.extend(found)
        resolved.append(spec)
    fixes = amend(resolved, catalog, kept, listed, configured)
    resolved = list(fixes.subtasks)
    problems.extend(_graph(resolved, kept))
    everything = {**kept, **{s.id: s for s in resolved}}
    notes = list(fixes.notes)
    if not problems:
        resolved = [one_path(spec, catalog, notes) for spec in _by_pattern(resolved, request, everything, notes)]
        if listed is not None:
            resolved = _named_output(resolved, request, listed, kept, catalog, notes)
        written = {w for s in {**kept, **{s.id: s for s in resolved}}.values() for w in s.writes}
        resolved = [_reads_by_pattern(_named_types(spec, request, notes), request, catalog, written, notes)
                    for spec in resolved]
        if listed is not None:
            resolved = [_unnamed_folders(spec, request, catalog, listed, notes) for spec in resolved]
        resolved = [_names_only(spec, catalog, notes) for spec in resolved]
        everything = {**kept, **{s.id: s for s in resolved}}
    # a subtask the host added (a writer of a file the request names) may use any tool of its application
    free = fixes.any_tool | ({s.id for s in resolved} - {s.id for s in fixes.subtasks})
    for spec in resolved:
        problems.extend(_declarations(spec, catalog, listed, everything, spec.id in free))
    problems.extend(_conflicts(everything))
    if listed is not None:
        problems.extend(_request_files(request, listed, everything))
    problems.extend(_stray_writes(resolved, request, everything))
    return PlanCheck(tuple(resolved), tuple(dict.fromkeys(problems)), tuple(notes))


def unplanned_values(request: str, specs: Iterable[SubtaskSpec]) -> tuple[str, ...]:
    """The values the request sets in quotation marks that no subtask's description says (case, spacing and a
    closing full stop aside): what the person gave that the plan hands to no AppAgent."""
    def plain(text: str) -> str:
        return " ".join(text.split()).casefold()

    said = "\n".join(plain(spec.description) for spec in specs)
    return tuple(v for v in literals(request) if (p := plain(v).rstrip(".!?;:,")) and p not in said)


def folders_apart(specs: Iterable[SubtaskSpec], files: Iterable[str]) -> tuple[tuple[str, str, str], ...]:
    """(subtask, write, that write inside the folder of its reads) for each new folder a subtask writes at the
    workspace's top (a bare name with no type, that no file is in) where every path it reads is in one folder
    below the top: the request may put it there (a subfolder of the folder the files are in)."""
    files = tuple(files)
    found = []
    for spec in specs:
        folders = {posixpath.dirname(p.rstrip("/")) for p in spec.reads}
        if len(folders) != 1 or "" in folders:
            continue
        (folder,) = folders
        for w in spec.writes:
            name = w.strip("/")
            if name and "/" not in name and not posixpath.splitext(name)[1] \
                    and not any(f == name or f.startswith(f"{name}/") for f in files):
                found.append((spec.id, name, f"{folder}/{name}"))
    return tuple(found)


def open_choice(spec: SubtaskSpec, catalog: Catalog, request: str = "",
                files: tuple[str, ...] | None = None) -> Choice | None:
    """The choice a subtask's declarations leave open, which only the request can settle:
    - SOURCE: it declares a tool whose option may take its source away (ToolInfo.source_choice) and reads
      sources it does not write. A copy and a move have the same reads and destination; only the sources'
      declaration tells them apart.
    - PART: it writes a new file the request names only by its name without the suffix ("a new sheet called
      Results" planned as Results.xlsx), beside a file of that type the request names and it reads or writes,
      in an application whose tools write into a part of a file: a part of that file, or a file of its own."""
    app = catalog.get(spec.application)
    if app is None:
        return None
    sources = tuple(p for p in spec.reads if not covered(p, spec.writes))
    for name in spec.tools if sources else ():
        tool = app.tool(name)
        if tool is not None and (found := tool.source_choice) is not None:
            return Choice(subtask=spec.id, tool=name, argument=found.argument, options=found.options,
                          gone=found.gone, meaning=found.meaning, sources=sources)
    # an application that writes tables into parts it names has parts; they are called what its tools call them
    part = next((name for t in app.tools if (name := t.active_part)), None) \
        if any(t.into_part for t in app.tools) else None
    if part is None or files is None:
        return None
    named = {normal_path(n) for n in file_names(request)}
    for path in spec.writes:
        if path in files or path in named or is_pattern(path) or not named_by(path, request):
            continue
        suffix = posixpath.splitext(path)[1]
        within = next((p for p in (*spec.reads, *spec.writes) if p in files and p in named
                       and posixpath.splitext(p)[1].lower() == suffix.lower()), None)
        if within is not None:
            # asked with the part first: a small model answers as the request's words say more often than with
            # the file first
            return Choice(kind=ChoiceKind.PART, subtask=spec.id, argument=part, options=(part, "file"), gone=part,
                          sources=(path,), within=within)
    return None


def settle(spec: SubtaskSpec, choice: Choice, picked: str) -> tuple[SubtaskSpec, str]:
    """The subtask with its open choice settled as `picked`, and what its AppAgent is told of it. The option that
    takes the sources away makes them writes; a part of a file the request names writes that file."""
    if picked != choice.gone:
        return spec, ""
    if choice.kind is ChoiceKind.SOURCE:
        return spec.model_copy(update={"writes": (*spec.writes, *choice.sources)}), ""
    stem = posixpath.splitext(posixpath.basename(choice.sources[0]))[0]
    writes = tuple(dict.fromkeys(choice.within if w in choice.sources else w for w in spec.writes))
    return spec.model_copy(update={"writes": writes}), f"{stem} is a {choice.argument} of {choice.within}, not a file"


def _application(spec: SubtaskSpec, catalog: Catalog) -> tuple[SubtaskSpec, list[str]]:
    name = spec.application.strip()
    app = catalog.resolve(name) if name else None
    if app is None:
        what = f"names unknown application {name!r}" if name else "names no application"
        return spec, [f"subtask {spec.id!r} {what}: choose one of {', '.join(catalog.names)}"]
    if app != spec.application:
        spec = spec.model_copy(update={"application": app})
    return spec, []


def _graph(specs: list[SubtaskSpec], kept: Mapping[str, SubtaskSpec]) -> list[str]:
    problems = []
    position = {s.id: i for i, s in enumerate(specs)}
    for spec in specs:
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
                problems.append(f"subtask {spec.id!r} depends on {dep!r}, which comes after it: list subtasks in the "
                                "order they must run")
    ids = set(position)
    sorter = graphlib.TopologicalSorter({s.id: [d for d in s.depends_on if d in ids and d != s.id] for s in specs})
    try:
        sorter.prepare()
    except graphlib.CycleError as exc:
        problems.append("the dependencies form a cycle " + " -> ".join(reversed(exc.args[1]))
                        + ": a subtask cannot wait for itself")
    return problems


def _shown(files: tuple[str, ...]) -> str:
    listed = ", ".join(files[:SHOWN_FILES]) or "none"
    return listed + (f" ... ({len(files)} in all)" if len(files) > SHOWN_FILES else "")


def _declarations(spec: SubtaskSpec, catalog: Catalog, files: tuple[str, ...] | None,
                  everything: Mapping[str, SubtaskSpec], moved: bool = False) -> list[str]:
    app = catalog.get(spec.application)
    if app is None:
        return []
    problems = []
    unknown = [t for t in spec.tools if app.tool(t) is None]
    if unknown:
        problems.append(f"subtask {spec.id!r}: {spec.application} has no tool {', '.join(unknown)}; its tools are "
                        f"{', '.join(app.tool_names)}")
    if not spec.tools and app.tools and not moved:
        problems.append(f"subtask {spec.id!r} declares no tools: list the tools of {spec.application} it will call")
    earlier = [w for dep in before(spec.id, everything) for w in everything[dep].writes]
    for path in spec.reads if files is not None else ():
        if path not in files and not covered(path, files) and not covered(path, earlier) and path != "." \
                and not (is_pattern(path) and any(covered(f, (path,)) for f in files)):
            problems.append(f"subtask {spec.id!r} reads {path}, which is not in the workspace and no subtask it "
                            f"waits for writes it; the workspace has: {_shown(files)}")
    for path in (*spec.reads, *spec.writes):
        if posixpath.isabs(path) or path == ".." or path.startswith("../"):
            problems.append(f"subtask {spec.id!r}: {path} is outside the workspace; give paths relative to it")
        elif app.file_types and not app.opens(path) and path != ".":
            owner = catalog.owner(path)
            other = f"plan it on {owner}" if owner else "plan it on an application that opens any file"
            if not posixpath.splitext(path)[1]:  # no type: a folder, or a part of a file named as a path
                own = [f for f in files or () if app.opens(f)]
                among = f" ({_shown(tuple(own))})" if own else ""
                other += (f"; a part of a {'/'.join(app.file_types)} file (a sheet, a table, a heading) is no path: "
                          f"declare the file that holds it{among}")
            problems.append(f"subtask {spec.id!r}: {spec.application} opens only {', '.join(app.file_types)} files, "
                            f"and {path} is not one: {other}")
    changing = [t for t in spec.tools if t in app.changing]
    named = [t for t in changing if (info := app.tool(t)) is not None and info.writes_named]
    if named and not spec.writes:
        problems.append(f"subtask {spec.id!r} declares {', '.join(named)}, which change files, and writes "
                        "nothing: list in writes the paths it changes")
    return problems




def data_takers(spec: SubtaskSpec, app: AppInfo | None, everything: Mapping[str, SubtaskSpec]) -> tuple[str, ...]:
    """For a subtask that writes files, declares no tool and no source of its own, only data handed to it: its
    application's tools that change files taking that data by reference (none: no such subtask). Its work is
    made of that data, so one of them is its first successful change."""
    if app is None or spec.tools or not spec.writes or own_sources(spec):
        return ()
    if not all(posixpath.splitext(w.rstrip("/"))[1] for w in spec.writes):
        return ()  # a folder is filled with files (a copy, a move), not with data
    return handed_takers(spec, app, everything)


def handed_takers(spec: SubtaskSpec, app: AppInfo, everything: Mapping[str, SubtaskSpec]) -> tuple[str, ...]:
    """Its application's tools that change files taking the kinds of data the subtasks it waits for hand on."""
    kinds = {Kind(everything[d].hands_on.value) for d in spec.depends_on
             if d in everything and everything[d].hands_on is not HandsOn.NOTHING}
    return tuple(t.name for t in app.tools if not t.read_only and any(t.takes(k) for k in kinds))


@dataclass(frozen=True, slots=True)
class Unplaced:
    """Data handed to a subtask that none of its planned tools takes, and its application's tools that do."""

    subtask: str  # the dependency that hands it on
    data: HandsOn
    tools: tuple[str, ...]


def unplaced(spec: SubtaskSpec, app: AppInfo | None, everything: Mapping[str, SubtaskSpec]) -> tuple[Unplaced, ...]:
    """For a subtask that changes its application's own files: the tables and names handed to it that its
    planned tools cannot take. Only a typed file (a workbook, a document) is a place the data goes in first for
    the other tools to work on (a chart over the rows). A plain-text file is the answer itself: told to put the
    table in first, a small model writes the whole table where a figure of it was asked for, and its data is
    offered to it anyway (flow.handed). A folder is filled with files (a copy, a move), not with data."""
    if app is None or not app.file_types or not any(app.opens(w) for w in spec.writes):
        return ()
    found = []
    for dep in spec.depends_on:
        given = everything[dep].hands_on if dep in everything else HandsOn.NOTHING
        if given not in STRUCTURED or set(everything[dep].reads) & set(spec.writes):
            continue  # nothing structured, or read from the file it writes: the data is there already
        kind = Kind(given.value)
        if any(takes(info, kind) for t in spec.tools if (info := app.tool(t)) is not None):
            continue
        able = tuple(t.name for t in app.tools if not t.read_only and takes(t, kind))
        if able:
            found.append(Unplaced(dep, given, able))
    return tuple(found)


def _conflicts(everything: Mapping[str, SubtaskSpec]) -> list[str]:
    problems = []
    specs = list(everything.values())
    for i, first in enumerate(specs):
        for second in specs[i + 1:]:
            shared = [w for w in first.writes
                      if covered(w, second.writes) or any(covered(o, (w,)) for o in second.writes)]
            ordered = first.id in before(second.id, everything) or second.id in before(first.id, everything)
            if shared and not ordered:
                problems.append(f"subtasks {first.id!r} and {second.id!r} both write {', '.join(shared)} and neither "
                                f"waits for the other: make {second.id!r} depend on {first.id!r}")
    return problems


def _unwritten(request: str, files: tuple[str, ...], everything: Mapping[str, SubtaskSpec]) -> list[str]:
    """The paths the request names that do not exist and that no subtask writes."""
    writes = [p for s in everything.values() for p in s.writes]
    return [path for path in map(normal_path, file_names(request))
            if not _exists(path, files) and not covered(path, writes) and not _named_write(path, writes)]


def _exists(path: str, files: tuple[str, ...]) -> bool:
    return path in files or any(f.rpartition("/")[2] == path for f in files)


def _named_output(specs: list[SubtaskSpec], request: str, files: tuple[str, ...], kept: Mapping[str, SubtaskSpec],
                  catalog: Catalog, notes: list[str]) -> list[SubtaskSpec]:
    """One new file the request names that no subtask writes, and one new subtask whose work reaches no file
    and no other subtask (it writes nothing, none waits for it): what that subtask finds is what the file is
    to hold. It writes the file when its application opens it; else a subtask on the application that does
    writes it with what it hands on. Anything less certain (two such files, two such subtasks) stays a
    problem for the planner."""
    everything = {**kept, **{s.id: s for s in specs}}
    missing = _unwritten(request, files, everything)
    ends = [s for s in specs if not s.writes and not any(s.id in o.depends_on for o in everything.values())]
    opener = catalog.get(opener_of(missing[:1], catalog) or "")
    if len(missing) != 1 or len(ends) != 1 or opener is None:
        return specs
    (path,), (end,) = missing, ends
    if end.application == opener.name:
        notes.append(f"subtask {end.id!r} writes nothing and no subtask waits for it, and the request names "
                     f"{path}, which no subtask writes: {end.id!r} writes it")
        return [s.model_copy(update={"writes": (path,), "hands_on": HandsOn.NOTHING}) if s is end else s
                for s in specs]
    taken = {*everything}
    wid = next(str(n) for n in range(len(taken) + 1, len(taken) + 100) if str(n) not in taken)
    hands = end.hands_on if end.hands_on is not HandsOn.NOTHING else HandsOn.TEXT
    writer = SubtaskSpec(id=wid, description=f"Write into {path} what subtask {end.id} hands on",
                         application=opener.name, depends_on=(end.id,), writes=(path,))
    notes.append(f"subtask {end.id!r} writes nothing and no subtask waits for it, and the request names {path}, "
                 f"which no subtask writes: {end.id!r} hands on {hands.value}, and subtask {wid!r} "
                 f"({opener.name}) writes it into {path}")
    return [*(s.model_copy(update={"hands_on": hands}) if s is end else s for s in specs), writer]


def _request_files(request: str, files: tuple[str, ...], everything: Mapping[str, SubtaskSpec]) -> list[str]:
    problems = [f"the request names {path}, which does not exist yet, and no subtask writes it: add it to the "
                "writes of the subtask that makes it" for path in _unwritten(request, files, everything)]
    reads = [p for s in everything.values() for p in s.reads]
    writes = [p for s in everything.values() for p in s.writes]
    for name in file_names(request):
        path = normal_path(name)
        if _exists(path, files) and not any(_same(path, p) for p in (*reads, *writes)) \
                and not covered(path, (*reads, *writes)):
            problems.append(f"the request names {path}, and no subtask reads or writes it: add it to the reads or "
                            "writes of the subtask that uses it")
    return problems


def _same(named: str, path: str) -> bool:
    return path == named or path.rpartition("/")[2] == named.rpartition("/")[2]


def _named_write(path: str, writes: list[str]) -> bool:
    return any(_same(path, w) for w in writes)


def named_by(path: str, text: str) -> bool:
    """Whether a text names a path: the path, its file name, its name without the suffix, or a folder above
    it, as a whole name."""
    name = path.rpartition("/")[2]
    stem = name.rpartition(".")[0] if "." in name.strip(".") else name
    parts = [path, name, stem, *path.split("/")[:-1]]
    if any(part and part not in ("*", ".") and names(text, part.replace("*", "")) for part in parts):
        return True
    # files by their type: the type's own name ("the CSV files"), never the suffix of a file named ("log.txt")
    kind = name[2:] if name.startswith("*.") and "*" not in name[1:] else ""
    return bool(kind) and re.search(rf"(?<![\w.\-]){re.escape(kind)}(?![\w\-]|\.\w)", text, re.IGNORECASE) is not None


def _named_types(spec: SubtaskSpec, request: str, notes: list[str]) -> SubtaskSpec:
    """A subtask that declares reads of files of several types, of which the request names some by their suffix
    ('the .txt files'), reads only those (and what it writes): the others came with a listing of the workspace,
    and each source declared is one the verifier asks about when nothing of it went into the changes."""
    files = [r for r in spec.reads if posixpath.splitext(r)[1] and not covered(r, spec.writes)]
    types = {posixpath.splitext(r)[1].lower() for r in files}
    named = {t for t in types if named_by(f"*{t}", request)}
    if len(types) < 2 or not named or named == types:
        return spec
    reads = tuple(r for r in spec.reads if r not in files or posixpath.splitext(r)[1].lower() in named)
    notes.append(f"subtask {spec.id!r} reads {', '.join(reads)}: of the files it lists, those of the "
                 f"type{'s' if len(named) > 1 else ''} the request names ({', '.join(sorted(named))})")
    return spec.model_copy(update={"reads": reads})


def _strays(specs: list[SubtaskSpec], request: str, everything: Mapping[str, SubtaskSpec]) -> list[tuple[str, str]]:
    """(subtask id, path) of each write that the request does not name and no other subtask reads."""
    strays: list[tuple[str, str]] = []
    for spec in specs:
        for path in spec.writes:
            read_later = any(covered(r, (path,)) or covered(path, (r,))
                             for other in everything.values() if other.id != spec.id for r in other.reads)
            if not named_by(path, request) and not read_later:
                strays.append((spec.id, path))
    return strays


def _by_pattern(specs: list[SubtaskSpec], request: str, everything: Mapping[str, SubtaskSpec],
                notes: list[str]) -> list[SubtaskSpec]:
    """Subtasks of one application writing files one by one that a pattern the request names covers, made
    one subtask that writes the pattern. When they were the whole plan, its description is the request. Their
    other writes the request does not name either (a listing's files the pattern leaves out) are dropped."""
    strays = _strays(specs, request, everything)
    pattern = _named_pattern([path for _, path in strays], request)
    if not pattern:
        return specs
    ids_with = {sid for sid, path in strays if covered(path, (pattern,))}
    apps = {s.application for s in specs if s.id in ids_with}
    # with them, the subtasks that write a file of the pattern the request names (its example)
    group = [s for s in specs if s.application in apps and s.writes
             and (s.id in ids_with or all(covered(w, (pattern,)) for w in s.writes))]
    ids = [s.id for s in group]
    if sum(covered(p, (pattern,)) for _, p in strays) < 2 or len(apps) != 1 \
            or any(sid not in ids for sid, _ in strays):
        return specs
    stray = {path for _, path in strays}
    left = tuple(dict.fromkeys(w for s in group for w in s.writes if w in stray and not covered(w, (pattern,))))
    first = group[0]
    whole = len(group) == len(specs) and not any(d not in ids for s in group for d in s.depends_on)
    merged = first.model_copy(update={
        "description": request if whole else "; ".join(s.description for s in group),
        "reads": tuple(dict.fromkeys(p for s in group for p in s.reads)),
        "writes": (pattern, *dict.fromkeys(w for s in group for w in s.writes
                                           if w not in stray and not covered(w, (pattern,)))),
        "tools": tuple(dict.fromkeys(t for s in group for t in s.tools)),
        "depends_on": tuple(dict.fromkeys(d for s in group for d in s.depends_on if d not in ids)),
        "hands_on": next((s.hands_on for s in group if s.hands_on is not HandsOn.NOTHING), HandsOn.NOTHING),
    })
    many = len(ids) > 1
    notes.append(f"subtask{'s' if many else ''} {', '.join(repr(i) for i in ids)} write{'' if many else 's'} files "
                 f"of {pattern} one by one, a pattern the request names: subtask {first.id!r} writes {pattern}"
                 + (f", not {', '.join(left)} (the request names none of them)" if left else ""))
    result = []
    for spec in specs:
        if spec.id == first.id:
            result.append(merged)
        elif spec.id not in ids:
            deps = tuple(dict.fromkeys(first.id if d in ids else d for d in spec.depends_on))
            result.append(spec.model_copy(update={"depends_on": deps}) if deps != spec.depends_on else spec)
    return result


def _reads_by_pattern(spec: SubtaskSpec, request: str, catalog: Catalog, written: set[str],
                      notes: list[str]) -> SubtaskSpec:
    """A subtask on the application that takes files by path (no file types of its own) that reads, one by
    one, files a pattern the request names covers ('tmp_*' for "files beginning with tmp_") reads that
    pattern: the request asked for the set, and a listing the planner copied may miss a member (whose rename
    would then be an undeclared change). The files it lists that the pattern leaves out came with that
    listing: those the request names neither by name nor by type and no subtask writes are dropped, as
    `_by_pattern` drops such writes (a source declared and left alone is one the verifier questions). A typed
    application reads each file's content and keeps them (its observation shows files, not a pattern)."""
    app = catalog.get(spec.application)
    if app is None or app.file_types:
        return spec
    files = [r for r in spec.reads if posixpath.splitext(r)[1] and not is_pattern(r)]
    pattern = _named_pattern(files, request)
    if not pattern:
        return spec
    left = tuple(r for r in files if not covered(r, (pattern,)) and not named_by(r, request)
                 and not named_by(f"*{posixpath.splitext(r)[1]}", request)
                 and not any(covered(r, (w,)) for w in written))
    reads = (pattern, *(r for r in spec.reads if not covered(r, (pattern,)) and r not in left))
    notes.append(f"subtask {spec.id!r} reads files of {pattern} one by one, a pattern the request names: it reads "
                 f"{pattern}" + (f", not {', '.join(left)} (the request names none of them)" if left else ""))
    return spec.model_copy(update={"reads": tuple(dict.fromkeys(reads))})


def _names_only(spec: SubtaskSpec, catalog: Catalog, notes: list[str]) -> SubtaskSpec:
    """A subtask on the application that opens any file, handed nothing, that writes one text file from files
    of types only other applications own, and declares no tool that changes files, expects its application's
    tool that writes the names of files: it cannot open those files, so their names are all it can take from
    them (a text retyped from a listing holds its other entries too)."""
    app = catalog.get(spec.application)
    if app is None or app.file_types or spec.depends_on or len(spec.writes) != 1:
        return spec
    path = spec.writes[0]
    namers = tuple(t.name for t in app.tools if t.writes_names)
    if is_pattern(path) or not posixpath.splitext(path)[1] or catalog.owner(path) is not None or not namers \
            or any((info := app.tool(t)) is not None and not info.read_only for t in spec.tools):
        return spec
    files = [r for r in own_sources(spec) if posixpath.splitext(r)[1]]
    if not files or any(catalog.owner(r) is None for r in files):
        return spec
    notes.append(f"subtask {spec.id!r} writes {path} from {', '.join(files)}, which {spec.application} cannot "
                 f"open: it expects {', '.join(namers)}, their names being all it can take from them")
    return spec.model_copy(update={"tools": (*spec.tools, *namers)})


def _unnamed_folders(spec: SubtaskSpec, request: str, catalog: Catalog, files: tuple[str, ...],
                     notes: list[str]) -> SubtaskSpec:
    """A subtask on the application that takes files by path that reads a folder of the workspace the request
    does not name reads the workspace ('.') instead: which folder the work covers is the person's to say, and
    one the planner picked from the listing narrows it (the files of a type in this folder and its subfolders,
    listed from one subfolder). Reads grant nothing: the wider one only lets the work see what it covers."""
    app = catalog.get(spec.application)
    if app is None or app.file_types:
        return spec

    def folder(path: str) -> bool:
        path = normal_path(path).rstrip("/")
        return f"{path}/" in files or any(f.startswith(f"{path}/") for f in files)

    unnamed = [r for r in spec.reads if r != "." and not is_pattern(r) and folder(r) and not named_by(r, request)
               and not covered(r, spec.writes)]
    if not unnamed:
        return spec
    notes.append(f"subtask {spec.id!r} reads {', '.join(unnamed)}, which the request does not name: it reads the "
                 "workspace")
    reads = tuple(dict.fromkeys("." if r in unnamed else r for r in spec.reads))
    return spec.model_copy(update={"reads": reads})


def _stray_writes(specs: list[SubtaskSpec], request: str, everything: Mapping[str, SubtaskSpec]) -> list[str]:
    named = [normal_path(name) for name in file_names(request)]
    # the files it may write instead, so that a re-plan has a path to put there, not only one to leave out
    instead = f"; the files the request names: {', '.join(named)}" if named else ""
    strays = _strays(specs, request, everything)
    pattern = _named_pattern([path for _, path in strays], request)
    # a plan that lists many files one by one, where the request names them by what their names share
    instead += f"; a pattern the request names covers them: {pattern} (writes name many files by a pattern)" \
        if pattern else ""
    return [f"subtask {sid!r} writes {path}, which the request does not name and no subtask reads: write only what "
            f"the request asks for{instead}" for sid, path in strays]


def _named_pattern(paths: list[str], request: str) -> str:
    """A pattern on names that the request names ('final_' in "so that it starts with 'final_'"), made from what
    the names of two or more of the paths in one folder share (a start, a type): of those, the one that covers
    the most of them, the longest first. The others are paths the pattern leaves out (a listing's)."""
    found: list[tuple[int, int, str]] = []
    for folder in dict.fromkeys(posixpath.dirname(p) for p in paths):
        base = [posixpath.basename(p) for p in paths if posixpath.dirname(p) == folder]
        candidates = {f"{name[:k]}*" for name in base for k in range(2, len(name) + 1)}
        candidates |= {f"*{kind}" for name in base if (kind := posixpath.splitext(name)[1])}
        for candidate in candidates:
            count = sum(covered(name, (candidate,)) for name in base)
            if count >= 2 and named_by(candidate, request):
                found.append((count, len(candidate), posixpath.join(folder, candidate)))
    return max(found)[2] if found else ""
