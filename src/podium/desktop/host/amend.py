"""What the host fixes in a plan itself, before checking it: the mistakes whose fix is certain from types.

A small planner often gets a declaration wrong in a way the catalogue settles without asking it again
(re-asked, it tends to repeat itself). Each amendment reads only declarations, paths and tool kinds:
- a subtask on a typed application whose every path is of another typed application's types runs on
  that application, and one none of whose paths is a typed file runs on the one application that opens
  any file and names what it writes (the tools it declared that the other does not have are dropped; none
  left: any);
- a subtask on a typed application whose every write is a folder runs on the one application that opens any
  file, when that one takes files by their path (a copy into a folder moves files, not their content);
- a subtask on a typed application that reads the files of one application and writes those of another is
  split in two: a reader on the first that hands its data on, and the writer on the second, waiting for it;
- a subtask that hands data on, and declares writes only of files its application cannot open, that a
  subtask waiting for it writes, or that it reads with tools that only read, is a reader: it writes
  nothing, and the tools it declared that change files are dropped (that work is the subtask's it hands to);
- a subtask that writes with a table or names handed to it, on an application none of whose changing tools
  takes that data, runs on the one application that opens its paths and has tools that do;
- a subtask that names no file and changes none, on a typed application that opens none of the files the
  data handed to it comes from, runs on the application its givers read them with, reading them;
- a subtask that writes plain files with only a table or names handed to it, whose declared changing tools
  take none of that data while other tools of its application do, may use any tool of its application; one that
  writes its application's typed files so does not expect those of them that write cells of their own (a row):
  the data goes in with the tools that take it, and the tools that work over what is there (a chart over the
  rows) stay;
- a subtask on the application that opens any file, reading a file another application owns that a subtask it
  depends on reads and hands data on from, and writing no file of its type, does not read it (the data is handed);
- a subtask on the application that opens any file, writing one new file with only a number or a text handed to
  it, whose declared changing tools have no argument for content, writes with its one tool that writes a text
  file whole;
- a subtask that declares writes and only tools that read may use any tool of its application (the writes
  say what it changes; the capabilities bound it by them);
- (`one_path`, applied by the plan's checks once the subtasks of a pattern the request names are one) a subtask
  that takes one path to another (one read, one write, neither a pattern) with a tool that picks names by a
  pattern (a rename by a regular expression) expects its application's tool that takes one path to another
  instead: one name needs no pattern; where the pattern tool moves what it picks, the source is a write too;
- a subtask whose every write exists already does not expect a tool that only makes new paths (a new
  workbook, document or folder: on a path that exists it fails or replaces it);
- a subtask that declares tools changing the file they name (on an application of any file: editing the file
  they open), writes nothing and hands nothing on, reading one existing file its application opens, writes
  that file (an edit in place declared as a read; the request must still name it, and what it changes of the
  person's file still waits for their approval);
- a subtask that only one subtask waits for, on its application and writing what it writes (or more), is
  part of that one's work (one agent reads the same files and makes both changes);
- a subtask that writes nothing and hands content only to subtasks whose tools all take files by path (a copy,
  a move; besides them, the folder they go into may be made) is left out: they take the files, not what the
  files say; one of them naming its files and more reads only those;
- readers that hand data on to no subtask, beside exactly one writer of files with no source (none read, none
  handed), hand it to that writer: it waits for them (a plan that forgot the dependency, not the work);
- two new subtasks that write the same path and do not wait for each other run in the plan's order.
- a new subtask that names paths waits for another of a different application that writes files and hands
  nothing on only where their paths meet (one writes what the other reads or writes): a wait that carries
  neither data nor an order of changes to a file goes (independent work runs at once, and one's failure does
  not skip the other), and what the subtask still has to wait for through it, it waits for directly (a file
  changed earlier that it reads), unless that one hands data on (a direct wait would hand it that data).
- a subtask on a typed application that reads files of its type and of several other types besides (the
  workspace listed, not its sources) reads only the files its application opens;
- a subtask on a typed application that writes, with a changing tool of its own, a path with no type that is
  not in the workspace (a sheet named as a path), while it and the subtasks it waits for write one existing file
  of its type, writes that file;
- a subtask whose declared changing tools all act in a program and name no file (a dialog's), declaring
  writes of paths with no file type that are not in the workspace (the program's name, its form), declares
  none: what it changes is the program's state, which no path names (the sandbox bounds its actions).
Every amendment is said, in words the trajectory keeps. What is not certain stays a problem for the
planner (podium.desktop.host.plan).
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from podium.apps.base import Change
from podium.apps.tooling import FILE_TYPES
from podium.desktop.host.artifacts import Kind, accepted, alternatives, wants
from podium.desktop.host.capability import covered, is_pattern
from podium.desktop.host.catalog import AppInfo, Catalog, ToolInfo
from podium.desktop.host.verify import own_sources
from podium.desktop.wire.schemas import HandsOn, SubtaskSpec


@dataclass(frozen=True, slots=True)
class Amended:
    subtasks: tuple[SubtaskSpec, ...]
    notes: tuple[str, ...]  # one sentence per fix
    any_tool: frozenset[str]  # subtasks left with none of their tools (moved, or only readers declared): any


def amend(specs: Sequence[SubtaskSpec], catalog: Catalog, kept: Mapping[str, SubtaskSpec],
          files: Sequence[str] | None = None, configured: Catalog | None = None) -> Amended:
    """The plan's new subtasks with the certain fixes made. `files`: the workspace's paths (None: unknown);
    `configured`: every application of the session, where the planner was offered only some (`catalog`): a
    file is put into a folder by the application that takes files by their path, offered or not."""
    notes: list[str] = []
    specs = [_acting(_narrowed(spec, catalog, notes), catalog, files, notes) for spec in specs]
    planned = {**kept, **{spec.id: spec for spec in specs}}
    specs = [_part_written(spec, planned, catalog, files, notes) for spec in specs]
    readers = [_reader(spec, specs, catalog, notes) for spec in specs]
    typed = [_into_folders(_on_its_type(spec, catalog, notes), catalog, notes, configured) for spec in readers]
    placed = [*kept.values(), *typed]  # where each subtask runs: its givers' applications are known
    moved = [_to_taker(_to_its_data(_transfers(spec, placed, catalog, notes), placed, catalog, notes), placed,
                       catalog, notes) for spec in typed]
    taken = {*kept, *(s.id for s in specs)}
    split = [part for spec in moved for part in _split(spec, catalog, taken, notes)]
    every = [*kept.values(), *split]
    writing = _merged([_value_writer(_untaken(_typed_tools(_writer(_handed_reads(spec, every, catalog, notes),
                                                                   catalog, notes), catalog, notes), every,
                                              catalog, notes), every, catalog, files, notes)
                       for spec in split], catalog, notes)
    declared = {spec.id: spec.tools for spec in specs}
    fixed = [_existing(_edits_its_read(spec, catalog, files, notes), catalog, files, notes)
             for spec in _unread(_handed_to_writer(writing, kept, catalog, notes), catalog, notes)]
    # ordered, two writers of one file on one application may be one subtask's work
    final = _unchained(_merged(_ordered(fixed, kept, notes), catalog, notes), kept, notes)
    any_tool = frozenset(new.id for new in final if declared.get(new.id) and not new.tools)
    return Amended(tuple(final), tuple(notes), any_tool)


def _part_written(spec: SubtaskSpec, everything: Mapping[str, SubtaskSpec], catalog: Catalog,
                  files: Sequence[str] | None, notes: list[str]) -> SubtaskSpec:
    """A write with no type and no such path in the workspace, on an application whose files all have a type
    and by a tool of its own that changes them (a sheet named as a path; without one, a folder: _into_folders),
    where the existing files of its type that the subtask and those it waits for write are one: the part is that
    file's, and the subtask writes the file. (A file only read says nothing: files go into a folder whole.)"""
    app = catalog.get(spec.application)
    if app is None or not app.file_types or files is None or not any(t in app.changing for t in spec.tools):
        return spec
    parts = [w for w in spec.writes if w != "." and not posixpath.splitext(w)[1] and not is_pattern(w)
             and w not in files and not any(f.startswith(f"{w}/") for f in files)]
    if not parts:
        return spec
    chain = [spec, *(everything[d] for d in sorted(before(spec.id, everything)))]
    holders = list(dict.fromkeys(p for s in chain for p in s.writes if p in files and app.opens(p)))
    if len(holders) != 1:
        return spec
    (holder,) = holders
    notes.append(f"subtask {spec.id!r} writes {', '.join(parts)}, which {spec.application} cannot open: a part of "
                 f"{holder}, the one file of its type that it and the subtasks it waits for write")
    writes = tuple(dict.fromkeys(holder if w in parts else w for w in spec.writes))
    return spec.model_copy(update={"writes": writes})


def _narrowed(spec: SubtaskSpec, catalog: Catalog, notes: list[str]) -> SubtaskSpec:
    """A subtask on a typed application that reads files of its type and of several other types besides
    listed the workspace rather than its sources: it reads the files its application opens."""
    app = catalog.get(spec.application)
    if app is None or not app.file_types or not any(app.opens(p) for p in spec.reads):
        return spec
    foreign = [p for p in spec.reads if p != "." and not app.opens(p)]
    if len({posixpath.splitext(p)[1].lower() for p in foreign}) < 2:
        return spec  # one other type is a source of its own (a document's table for a workbook): split later
    notes.append(f"subtask {spec.id!r} reads only the {', '.join(app.file_types)} files {spec.application} opens "
                 f"({', '.join(foreign)} dropped)")
    return spec.model_copy(update={"reads": tuple(p for p in spec.reads if p not in foreign)})


def _acting(spec: SubtaskSpec, catalog: Catalog, files: Sequence[str] | None, notes: list[str]) -> SubtaskSpec:
    app = catalog.get(spec.application)
    if app is None or files is None or not spec.writes:
        return spec
    # no changing tool declared: any of its application's may run, and where none of them names a file, none
    # writes one
    declared = [info for t in spec.tools if (info := app.tool(t)) is not None and not info.read_only]
    changing = declared or [t for t in app.tools if not t.read_only]
    if not changing or any(t.names_its_writes for t in changing) \
            or any(w == "." or w in files or posixpath.splitext(w.rstrip("/"))[1] for w in spec.writes):
        return spec
    notes.append(f"subtask {spec.id!r} writes no file, not {', '.join(spec.writes)}: its tools act in the program "
                 "and name none")
    tools = spec.tools if declared else tuple(dict.fromkeys((*spec.tools, *(t.name for t in changing))))
    return spec.model_copy(update={"writes": (), "tools": tools})


def _on_its_type(spec: SubtaskSpec, catalog: Catalog, notes: list[str]) -> SubtaskSpec:
    app = catalog.get(spec.application)
    paths = [p for p in (*spec.reads, *spec.writes) if p != "."]
    if app is None or not app.file_types or not paths or any(app.opens(p) for p in paths):
        return spec
    owners = {catalog.owner(p) for p in paths}
    if owners == {None}:  # no path is a typed file: the one application that opens any file and names its writes
        owners = {_plain(catalog)}
    if len(owners) != 1 or None in owners:
        return spec
    (owner,) = owners
    target = catalog.get(owner or "")
    if target is None:
        return spec
    tools = tuple(t for t in spec.tools if target.tool(t) is not None)
    notes.append(f"subtask {spec.id!r} runs on {owner}, which opens {', '.join(paths)} ({spec.application} does not)")
    return spec.model_copy(update={"application": owner, "tools": tools})


def _into_folders(spec: SubtaskSpec, catalog: Catalog, notes: list[str],
                  configured: Catalog | None = None) -> SubtaskSpec:
    """A subtask on a typed application whose every write is a folder (a path with no file type), or a file it
    reads under its own name in another folder, puts files into folders, which no typed application does: unless
    it declares a tool of its own that makes files of another type (an export into a folder), it runs on the one
    application that opens any file, when that one takes files by their path (a copy, a move), and the files it
    reads go there whole."""
    every = configured or catalog
    app, plain = catalog.get(spec.application), every.get(_plain(every) or "")
    if app is None or plain is None or not app.file_types or not spec.writes \
            or not all(_put_into_folder(w, spec.reads) for w in spec.writes) \
            or not any("source" in t.schema.get("properties", {}) for t in plain.tools if t.writes_named) \
            or any(_converts(info, app) for t in spec.tools if t in app.changing and (info := app.tool(t))):
        return spec
    notes.append(f"subtask {spec.id!r} runs on {plain.name}: it only puts files into folders "
                 f"({', '.join(spec.writes)}), which {spec.application} does not do, and {plain.name} takes files by "
                 "their path")
    return spec.model_copy(update={"application": plain.name,
                                   "tools": tuple(t for t in spec.tools if plain.tool(t) is not None)})


def _put_into_folder(write: str, reads: Sequence[str]) -> bool:
    """A folder (a path with no file type, not the workspace, no pattern), or a file read, by its own name, in
    another folder below the workspace's top (a file of a folder written at the top may be a new version of it)."""
    if write == "." or "*" in write:
        return False
    if not posixpath.splitext(write)[1]:
        return True
    folder, name = posixpath.split(write)
    return bool(folder) and any(posixpath.split(r)[1] == name and posixpath.dirname(r) != folder for r in reads)


def _converts(tool: ToolInfo, app: AppInfo) -> bool:
    """Whether it makes files of a type its application does not open (an export into a folder): a tool that
    makes only its own application's files, by a path the plan would name, makes none in a folder it names."""
    own = {t.lower() for t in app.file_types}
    return any(isinstance(spec, dict) and any(isinstance(t, str) and t.lower() not in own
                                              for t in spec.get(FILE_TYPES, ()))
               for spec in tool.schema.get("properties", {}).values())


# Data only a tool's data argument can take: a number or a text fits any text argument.
STRUCTURED = (HandsOn.TABLE, HandsOn.NAMES)


def takes(tool: ToolInfo, kind: Kind) -> bool:
    """Whether one of the tool's arguments takes data of this kind by reference."""
    return any(kind in accepted(schema) for schema in tool.schema.get("properties", {}).values())


def _to_taker(spec: SubtaskSpec, specs: Sequence[SubtaskSpec], catalog: Catalog, notes: list[str]) -> SubtaskSpec:
    """A subtask that writes with data handed to it, on an application none of whose tools that change files
    takes that data, runs on the one application that opens its paths and has tools that do. A tool that does
    not name what it changes (a command) takes none: what it changes is decided by its line, which is code, and
    its other arguments are settings (a number handed to a shell writer goes into its file by a tool that
    writes values, not into the command's timeout)."""
    app = catalog.get(spec.application)
    given = {Kind(d.hands_on) for d in specs if d.id in spec.depends_on and d.hands_on != HandsOn.NOTHING}
    # one that names no file ('.': the workspace as a whole) has no file to take the data to elsewhere
    if app is None or all(w == "." for w in spec.writes) or not given:
        return spec

    def able(info: AppInfo) -> bool:
        return all(any(takes(t, kind) for t in info.tools if t.writes_named)
                   for kind in given)

    if able(app):
        return spec
    paths = [p for p in (*spec.reads, *spec.writes) if p != "."]
    fit = [a for a in catalog.apps if a.name != app.name and all(a.opens(p) for p in paths) and able(a)]
    if len(fit) != 1:
        return spec
    (target,) = fit
    notes.append(f"subtask {spec.id!r} runs on {target.name}: it writes with the "
                 f"{' and '.join(sorted(k.value for k in given))} handed to it, which no tool of "
                 f"{app.name} takes")
    return spec.model_copy(update={"application": target.name,
                                   "tools": tuple(t for t in spec.tools if target.tool(t) is not None)})


def _transfers(spec: SubtaskSpec, specs: Sequence[SubtaskSpec], catalog: Catalog, notes: list[str]) -> SubtaskSpec:
    """A subtask that reads nothing itself and declares only tools that take a file from a `source` path (a copy,
    a move) transfers the files the subtasks it depends on read: those files, not their content, are its input."""
    app = catalog.get(spec.application)
    if app is None or any(r != "." for r in spec.reads) or not spec.depends_on or not _transfer_tools(spec, catalog):
        return spec
    sources = tuple(dict.fromkeys(p for d in specs if d.id in spec.depends_on for p in d.reads
                                  if p != "." and app.opens(p)))
    if not sources:
        return spec
    notes.append(f"subtask {spec.id!r} reads {', '.join(sources)}: its tools ({', '.join(spec.tools)}) take files, and "
                 "these are the ones the subtasks it depends on read")
    return spec.model_copy(update={"reads": sources})


def _to_its_data(spec: SubtaskSpec, specs: Sequence[SubtaskSpec], catalog: Catalog, notes: list[str]
                 ) -> SubtaskSpec:
    """A subtask that names no file and declares no tool that changes files works on the data handed to it (a
    figure of it, a choice among its rows). On a typed application that opens none of the files that data came
    from, it has nothing to open and no tool that reads it: it runs on the one application its givers read
    those files with, reading them. So does one whose tools that change files all edit, on that application,
    the file they open (a replacement in a configuration file planned on the documents application): the
    file it edits is the one it reads there (_edits_its_read)."""
    app = catalog.get(spec.application)
    if app is None or not app.file_types or any(p != "." for p in (*spec.reads, *spec.writes)):
        return spec
    changing = [t for t in spec.tools if (info := app.tool(t)) is None or not info.read_only]
    givers = [d for d in specs if d.id in spec.depends_on and d.hands_on is not HandsOn.NOTHING]
    sources = list(dict.fromkeys(p for d in givers for p in d.reads if p != "."))
    owners = {d.application for d in givers}
    target = catalog.get(owners.pop()) if len(owners) == 1 else None
    if target is None or not sources or any(app.opens(p) for p in sources) \
            or not all(target.opens(p) for p in sources) \
            or any((info := target.tool(t)) is None or not info.edits for t in changing):
        return spec
    notes.append(f"subtask {spec.id!r} runs on {target.name}, reading {', '.join(sources)}: it names no file, and "
                 f"{spec.application} opens none of the files the data handed to it comes from")
    return spec.model_copy(update={"application": target.name, "reads": tuple(sources),
                                   "tools": tuple(t for t in spec.tools if target.tool(t) is not None)})


def _untaken(spec: SubtaskSpec, specs: Sequence[SubtaskSpec], catalog: Catalog, notes: list[str]) -> SubtaskSpec:
    """A subtask that writes files with no source of its own but a table or names handed to it, whose declared
    tools that change files take none of that data while other tools of its application do, declared tools for
    other work. Writing plain files (a folder's listing where rows were handed on), it may use any of its
    application's (rule handed-data-first then offers those that take the data). Writing its application's typed
    files, it does not expect those of them that write cells of their own (a row where a table was handed on: it
    would add a row of something else under the table put in): the data goes in with the tools
    that take it (plan.unplaced), and the tools that work over what the file holds stay (a chart over the rows)."""
    app = catalog.get(spec.application)
    if app is None or not spec.writes or not spec.tools or own_sources(spec) \
            or not all(posixpath.splitext(w.rstrip("/"))[1] for w in spec.writes):
        return spec
    typed = bool(app.file_types) and any(app.opens(w) for w in spec.writes)
    given = {Kind(d.hands_on.value) for d in specs if d.id in spec.depends_on and d.hands_on in STRUCTURED}
    changing = [info for t in spec.tools if (info := app.tool(t)) is not None and not info.read_only]
    if not given or not changing or any(takes(t, kind) for t in changing for kind in given) \
            or not any(takes(t, kind) for t in app.tools if not t.read_only for kind in given):
        return spec
    handed = " and ".join(sorted(k.value for k in given))
    if not typed:
        notes.append(f"subtask {spec.id!r} may use any tool of {spec.application}: none of "
                     f"{', '.join(t.name for t in changing)} takes the {handed} handed to it, which it writes with")
        return spec.model_copy(update={"tools": ()})
    valued = [t.name for t in changing if _writes_cells(t)]
    if not valued:
        return spec
    notes.append(f"subtask {spec.id!r} does not expect {', '.join(valued)}: cells of their own, not the {handed} "
                 "handed to it, which goes in with the tools that take it")
    return spec.model_copy(update={"tools": tuple(t for t in spec.tools if t not in valued)})


def _handed_reads(spec: SubtaskSpec, specs: Sequence[SubtaskSpec], catalog: Catalog, notes: list[str]
                  ) -> SubtaskSpec:
    """A subtask on the application that opens any file, reading a file another application owns that a
    subtask it depends on reads and hands data on from, writing files only, none of that type, and declaring no
    tool that takes a file by its path (no copy of it), does not read it: what it has of that file is the data
    handed to it (its own application reads no content of it), and the verifier holds its changes to that
    data."""
    app = catalog.get(spec.application)
    if app is None or app.file_types or not spec.writes or not spec.depends_on \
            or not all(posixpath.splitext(w.rstrip("/"))[1] for w in spec.writes) \
            or any("source" in info.schema.get("properties", {}) for t in spec.tools if (info := app.tool(t))):
        return spec  # a copy or a move takes the file by its path
    givers = [d for d in specs if d.id in spec.depends_on and HandsOn(d.hands_on) is not HandsOn.NOTHING]
    types = {posixpath.splitext(w)[1].lower() for w in spec.writes}
    handed = [r for r in spec.reads if catalog.owner(r) not in (None, app.name)
              and posixpath.splitext(r)[1].lower() not in types and any(r in d.reads for d in givers)]
    if not handed:
        return spec
    notes.append(f"subtask {spec.id!r} does not read {', '.join(handed)}: the subtask it depends on reads "
                 f"{'it' if len(handed) == 1 else 'them'} and hands on the data")
    return spec.model_copy(update={"reads": tuple(r for r in spec.reads if r not in handed)})


def _value_writer(spec: SubtaskSpec, specs: Sequence[SubtaskSpec], catalog: Catalog, files: Sequence[str] | None,
                  notes: list[str]) -> SubtaskSpec:
    """A subtask on the application that opens any file, writing one new file with only a number or a text
    handed to it, whose declared changing tools have no argument for content (a listing by a pattern, a copy),
    writes with its application's one tool that writes a text file whole."""
    app = catalog.get(spec.application)
    if app is None or app.file_types or files is None or len(spec.writes) != 1 or own_sources(spec):
        return spec
    path = spec.writes[0]
    given = {HandsOn(d.hands_on) for d in specs if d.id in spec.depends_on} - {HandsOn.NOTHING}
    if not posixpath.splitext(path)[1] or is_pattern(path) or path in files \
            or not given or not given <= {HandsOn.NUMBER, HandsOn.TEXT}:
        return spec
    changing = [info for t in spec.tools if (info := app.tool(t)) is not None and not info.read_only]
    writers = [t for t in app.tools if t.writes_text]
    if len(writers) != 1 or any("content" in wants(schema) for info in changing
                                for schema in info.schema.get("properties", {}).values()):
        return spec
    handed = " and ".join(sorted(g.value for g in given))
    notes.append(f"subtask {spec.id!r} writes the {handed} handed to it into {path} with {writers[0].name}: "
                 f"none of {', '.join(t.name for t in changing) or 'its tools'} takes it as content")
    return spec.model_copy(update={"tools": (writers[0].name,)})


def _writes_cells(tool: ToolInfo) -> bool:
    """Whether a tool writes cells of its own: an argument of rows, or a list of cells (items that may be
    numbers), rather than texts, names, ranges and settings."""
    for schema in tool.schema.get("properties", {}).values():
        shapes = wants(schema)
        items = [option.get("items") for option in alternatives(schema) if option.get("type") == "array"]
        cells = any("number" in wants(i) for i in items if isinstance(i, Mapping))
        if "rows" in shapes or ("list" in shapes and cells):
            return True
    return False


def _plain(catalog: Catalog) -> str | None:
    """The one application that opens any file and names what it writes (None: none, or several)."""
    plain = [a.name for a in catalog.apps if not a.file_types
             and any(t.writes_named for t in a.tools)]
    return plain[0] if len(plain) == 1 else None


def opener_of(paths: Sequence[str], catalog: Catalog) -> str | None:
    """The one application that opens all these paths: their typed owner, or the plain one for untyped."""
    owners = {catalog.owner(p) for p in paths}
    if owners == {None}:
        return _plain(catalog)
    return owners.pop() if len(owners) == 1 and None not in owners else None


def _split(spec: SubtaskSpec, catalog: Catalog, taken: set[str], notes: list[str]) -> tuple[SubtaskSpec, ...]:
    """A subtask on a typed application that reads files of one application and writes files of another
    (a workbook's column into a text file) is two: a reader on the first, handing its data on, and the
    writer on the second, waiting for it. No one application can do both."""
    app = catalog.get(spec.application)
    reads = [p for p in spec.reads if p != "."]
    if app is None or not app.file_types or not reads or not spec.writes \
            or all(app.opens(p) for p in (*reads, *spec.writes)):
        return (spec,)
    source, target = opener_of(reads, catalog), opener_of(spec.writes, catalog)
    first, second = catalog.get(source or ""), catalog.get(target or "")
    if first is None or second is None or first.name == second.name:
        return (spec,)
    rid = next(f"{spec.id}{suffix}" for suffix in ("r", *(f"r{n}" for n in range(2, 100)), "-reader")
               if f"{spec.id}{suffix}" not in taken)
    taken.add(rid)
    # none declared: its reading tools, not those that compute (a computing tool declared asks for its result)
    looks = tuple(t for t in spec.tools if (info := first.tool(t)) is not None and info.read_only) \
        or tuple(t.name for t in first.tools if t.read_only and not t.computes)
    hands = spec.hands_on if spec.hands_on is not HandsOn.NOTHING else HandsOn.TEXT
    reader = spec.model_copy(update={
        "id": rid, "application": first.name, "depends_on": spec.depends_on, "reads": tuple(reads), "writes": (),
        "tools": looks, "hands_on": hands, "description": f"Read {', '.join(reads)} for: {spec.description}"})
    writer = spec.model_copy(update={
        "application": second.name, "depends_on": (*spec.depends_on, rid), "hands_on": HandsOn.NOTHING,
        "reads": tuple(p for p in reads if opener_of((p,), catalog) == second.name),
        "tools": tuple(t for t in spec.tools if second.tool(t) is not None)})
    notes.append(f"subtask {spec.id!r} reads {', '.join(reads)} ({first.name}) and writes {', '.join(spec.writes)} "
                 f"({second.name}): subtask {rid!r} reads on {first.name} and hands on {hands.value}, then "
                 f"{spec.id!r} writes on {second.name}")
    return reader, writer


def _writer(spec: SubtaskSpec, catalog: Catalog, notes: list[str]) -> SubtaskSpec:
    app = catalog.get(spec.application)
    if app is None or not spec.writes or not spec.tools or not app.changing:
        return spec
    if any(t in app.changing for t in spec.tools):
        return spec
    notes.append(f"subtask {spec.id!r} writes {', '.join(spec.writes)}: any tool of {spec.application} "
                 f"({', '.join(spec.tools)} only read)")
    return spec.model_copy(update={"tools": ()})


def _reader(spec: SubtaskSpec, specs: Sequence[SubtaskSpec], catalog: Catalog, notes: list[str]) -> SubtaskSpec:
    app = catalog.get(spec.application)
    if app is None or spec.hands_on is HandsOn.NOTHING:
        return spec
    waiting = [other for other in specs if spec.id in other.depends_on]
    if not spec.writes:  # it may change nothing (capability): a tool that changes files is no tool of its
        # (a program's actions and a command name no file: what they change is the program's state, or is found
        # when they run)
        changing = [t for t in spec.tools if (info := app.tool(t)) is not None and info.writes_named]
        if not changing or not waiting:
            return spec
        notes.append(f"subtask {spec.id!r} reads and hands on {spec.hands_on.value}, writing nothing: it calls "
                     f"none of {', '.join(changing)}")
        return spec.model_copy(update={"tools": tuple(t for t in spec.tools if t not in changing)})
    later = {w for other in waiting for w in other.writes}
    # declaring only tools that read, it cannot change the files it reads: naming them as writes is a slip
    looks = bool(waiting and spec.tools) and all((info := app.tool(t)) is not None and info.read_only
                                                 for t in spec.tools)
    # a write of a file it cannot open is a writer's that waits for it; with none waiting, the work is its own
    # (it moves to the application that opens the file)
    if not all(w in later or (waiting and app.file_types and not app.opens(w)) or (looks and w in spec.reads)
               for w in spec.writes):
        return spec
    changing = [t for t in spec.tools
                if (info := app.tool(t)) is None or info.writes_named]
    said = f" nor calls {', '.join(changing)}" if changing else ""
    notes.append(f"subtask {spec.id!r} reads and hands on {spec.hands_on.value}: it writes nothing{said} "
                 f"({', '.join(spec.writes)} {'is' if len(spec.writes) == 1 else 'are'} written by the subtasks "
                 "it hands to, not of its type, or read with tools that only read)")
    return spec.model_copy(update={"writes": (), "tools": tuple(t for t in spec.tools if t not in changing)})


def _merged(specs: list[SubtaskSpec], catalog: Catalog, notes: list[str]) -> list[SubtaskSpec]:
    """Each subtask that only the one subtask waits for, on its own application, writing what it writes and
    more, becomes part of that subtask: one agent with one memory does both (its observation shows the
    files), where a hand-off inside one application adds a step, and a subtask that only reads or only
    "writes the file" again may start the other's work without its writes, or undo it. So do two subtasks
    in turn on a program that write no file: what they change is the program's state, which one agent sees
    whole (a form read by one and confirmed by the other was never filled in)."""
    result = list(specs)

    def joins(first: SubtaskSpec, then: SubtaskSpec) -> bool:
        if then.application != first.application:
            return False
        if then.writes:
            return set(first.writes) <= set(then.writes)
        app = catalog.get(then.application)
        return not first.writes and app is not None and any(t.acts for t in app.tools)

    while True:
        pair = next(((first, waiting[0]) for first in result
                     for waiting in [[s for s in result if first.id in s.depends_on]]
                     if len(waiting) == 1 and waiting[0].id != first.id and joins(first, waiting[0])), None)
        if pair is None:
            return result
        first, then = pair
        both = then.model_copy(update={
            "description": f"{first.description}; then {then.description}",
            "reads": tuple(dict.fromkeys((*first.reads, *then.reads))),
            "depends_on": tuple(dict.fromkeys((*first.depends_on, *(d for d in then.depends_on if d != first.id)))),
            # a subtask with no tools declared may use any of its application's (podium.desktop.host.plan): so
            # may the two together, where either may for what it writes
            "tools": tuple(dict.fromkeys((*then.tools, *first.tools)))
            if then.tools and (first.tools or not first.writes) else ()})
        what = "reads" if not first.writes else f"writes {', '.join(first.writes)}"
        notes.append(f"subtask {first.id!r} {what} for {then.id!r} alone on {then.application}: {then.id!r} does both")
        result = [both if s.id == then.id else s for s in result if s.id != first.id]


def _handed_to_writer(specs: list[SubtaskSpec], kept: Mapping[str, SubtaskSpec], catalog: Catalog,
                      notes: list[str]) -> list[SubtaskSpec]:
    """Readers that hand data on to no subtask, beside exactly one writer of files that has no source: no data
    of its own to read, none handed to it. What the readers hand on goes nowhere and the writer has nothing to
    write with, so that writer is where the data goes: it waits for them. A writer's application must have a
    tool that writes what they hand on (a table into rows, a text into a file), and no reader may wait for the
    writer (it would read what the writer made)."""
    everything = {**kept, **{s.id: s for s in specs}}
    waited = {d for s in everything.values() for d in s.depends_on}
    loose = [s for s in specs if s.hands_on is not HandsOn.NOTHING and not s.writes and s.id not in waited]

    def sourceless(spec: SubtaskSpec) -> bool:
        return bool(spec.writes) and all(posixpath.splitext(w.rstrip("/"))[1] for w in spec.writes) \
            and not own_sources(spec) \
            and all(everything[d].hands_on is HandsOn.NOTHING for d in before(spec.id, everything))

    writers = [s for s in specs if sourceless(s)]
    if not loose or len(writers) != 1:
        return specs
    (writer,) = writers
    app = catalog.get(writer.application)
    givers = [r for r in loose if writer.id not in before(r.id, everything) and app is not None
              and any(takes(t, Kind(r.hands_on.value)) for t in app.tools if t.writes_named)]
    if not givers:
        return specs
    notes.append(f"subtask {writer.id!r} waits for {', '.join(repr(r.id) for r in givers)}: it writes "
                 f"{', '.join(writer.writes)} with no source of its own, and the "
                 f"{' and '.join(dict.fromkeys(r.hands_on.value for r in givers))} "
                 f"{'they hand' if len(givers) > 1 else 'it hands'} on goes to no other subtask")
    linked = writer.model_copy(update={"depends_on": (*writer.depends_on, *(r.id for r in givers))})
    return _in_order([linked if s.id == writer.id else s for s in specs])


def _in_order(specs: list[SubtaskSpec]) -> list[SubtaskSpec]:
    """The subtasks in the plan's order, each moved after those it waits for where a new wait put one before."""
    result: list[SubtaskSpec] = []
    todo = list(specs)
    while todo:
        ids = {s.id for s in todo}
        ready = next((s for s in todo if not set(s.depends_on) & ids), todo[0])  # a cycle is the graph check's
        result.append(ready)
        todo.remove(ready)
    return result


def _transfer_tools(spec: SubtaskSpec, catalog: Catalog) -> bool:
    """Whether it declares tools that take a file by its `source` path (a copy, a move), and besides them only
    tools that add an empty part (the folder they go into), which take nothing."""
    app = catalog.get(spec.application)
    if app is None:
        return False
    infos = [app.tool(t) for t in spec.tools]
    taking = [i for i in infos if i is not None and "source" in i.schema.get("properties", {})]
    return bool(taking) and all(i is not None and (i in taking or i.empty_part) for i in infos)


def _unread(specs: list[SubtaskSpec], catalog: Catalog, notes: list[str]) -> list[SubtaskSpec]:
    """A subtask that writes nothing and hands on content (a table, a text, a number) only to subtasks that
    declare only tools taking files by their path is no step of the work: a copy or a move takes the file, not
    what it says. It is left out; what waited for it waits for what it waited for, and reads what it read if it
    names no file of its own, or only what it read of the files it names, where it names them all and more:
    the plan gave those to the application that opens them, and the others came with a listing.
    (One that hands on names may be choosing the files: it stays.)"""
    content = (HandsOn.TABLE, HandsOn.TEXT, HandsOn.NUMBER)
    for rid in [s.id for s in specs if not s.writes and s.hands_on in content]:
        reader = next(s for s in specs if s.id == rid)
        waiting = [s for s in specs if reader.id in s.depends_on]
        if not waiting or not all(_transfer_tools(s, catalog) for s in waiting):
            continue
        notes.append(f"subtask {reader.id!r} reads {', '.join(reader.reads) or 'nothing'} for "
                     f"{', '.join(repr(s.id) for s in waiting)}, whose tools ({', '.join(waiting[0].tools)}) take "
                     "files by their path, not what they hold: it is left out")
        specs = [s if reader.id not in s.depends_on else s.model_copy(update={
            "depends_on": tuple(dict.fromkeys((*(d for d in s.depends_on if d != reader.id), *reader.depends_on))),
            "reads": _transferred(s, reader, notes)}) for s in specs if s.id != reader.id]
    return specs


def _transferred(spec: SubtaskSpec, reader: SubtaskSpec, notes: list[str]) -> tuple[str, ...]:
    """What a copier reads once the reader it waited for is left out (`_unread`): the reader's files where it
    names none of its own (as `_transfers`), or of its own files only the reader's, where it names them all and
    more (the files the plan gave to the application that opens them)."""
    read = tuple(r for r in reader.reads if r != ".")
    if not any(r != "." for r in spec.reads):
        return read
    files = [r for r in spec.reads if posixpath.splitext(r)[1] and not is_pattern(r)]
    others = [r for r in files if r not in read]
    if not read or not others or not set(read) <= set(files):
        return spec.reads
    notes.append(f"subtask {spec.id!r} reads {', '.join(read)}, the files subtask {reader.id!r} read on "
                 f"{reader.application}, not {', '.join(others)}")
    return tuple(r for r in spec.reads if r not in others)


def _typed_tools(spec: SubtaskSpec, catalog: Catalog, notes: list[str]) -> SubtaskSpec:
    """Without the changing tools whose path takes only types none of the subtask's writes has (a .csv writer
    for a .txt file): called, they could only fail."""
    app = catalog.get(spec.application)
    # a folder (or a pattern of no type) may hold files of any type
    if app is None or not spec.writes or any(not posixpath.splitext(w)[1] for w in spec.writes):
        return spec
    wrong = []
    for name in spec.tools:
        info = app.tool(name)
        path = info.schema.get("properties", {}).get("path", {}) if info is not None and not info.read_only else {}
        types = tuple(t.lower() for t in path.get(FILE_TYPES, ()) if isinstance(t, str))
        if types and not any(w.lower().endswith(types) for w in spec.writes):
            wrong.append((name, types))
    if not wrong:
        return spec
    notes.extend(f"subtask {spec.id!r} does not expect {name}: it writes only {', '.join(types)} files, and "
                 f"{', '.join(spec.writes)} {'is' if len(spec.writes) == 1 else 'are'} not one"
                 for name, types in wrong)
    dropped = {name for name, _ in wrong}
    return spec.model_copy(update={"tools": tuple(t for t in spec.tools if t not in dropped)})


def _edits_its_read(spec: SubtaskSpec, catalog: Catalog, files: Sequence[str] | None, notes: list[str]
                    ) -> SubtaskSpec:
    """A subtask that declares tools changing the file they name (none that only makes a new one; on an
    application of any file, only those that edit the file they open), writes nothing and hands nothing on,
    reading one existing file its application opens: that file is what those tools change (an edit in place
    declared as a read). The write stays bounded like any: the request must name it, and changing what the
    person had waits for their approval."""
    app = catalog.get(spec.application)
    if app is None or files is None or spec.writes or spec.hands_on is not HandsOn.NOTHING:
        return spec
    changing = [info for t in spec.tools if t in app.changing and (info := app.tool(t)) is not None]
    ours = [r for r in spec.reads if app.opens(r) and posixpath.splitext(r)[1] and not is_pattern(r) and r in files]
    # on an application of any file, only tools that open the file they name and change it (not a copy's source)
    fits = (lambda info: info.writes_named and not info.new_only) if app.file_types else (lambda info: info.edits)
    if not changing or not all(fits(info) for info in changing) or len(ours) != 1:
        return spec
    notes.append(f"subtask {spec.id!r} declares {', '.join(info.name for info in changing)}, which "
                 f"change{'s' if len(changing) == 1 else ''} the file named, and writes nothing: it writes "
                 f"{ours[0]}, the one file {'of its types ' if app.file_types else ''}it reads")
    return spec.model_copy(update={"writes": (ours[0],)})


def _existing(spec: SubtaskSpec, catalog: Catalog, files: Sequence[str] | None, notes: list[str]) -> SubtaskSpec:
    app = catalog.get(spec.application)
    if app is None or files is None or not spec.writes or not all(w in files for w in spec.writes):
        return spec
    making = [t for t in spec.tools if (info := app.tool(t)) is not None and info.new_only]
    if not making or len(making) == len(spec.tools):
        return spec
    notes.append(f"subtask {spec.id!r} does not expect {', '.join(making)}: {', '.join(spec.writes)} "
                 f"{'exists' if len(spec.writes) == 1 else 'exist'} already")
    return spec.model_copy(update={"tools": tuple(t for t in spec.tools if t not in making)})


def one_path(spec: SubtaskSpec, catalog: Catalog, notes: list[str]) -> SubtaskSpec:
    """One path taken to another with a tool that picks entries by a pattern over their names: the application's
    tool that takes one path to another (a source choice) does it, with no pattern to write. Made once the subtasks
    that take the members of a pattern the request names one by one are one subtask of that pattern
    (podium.desktop.host.plan): what is left takes one path."""
    app = catalog.get(spec.application)
    if app is None or len(spec.reads) != 1 or len(spec.writes) != 1 or "." in (*spec.reads, *spec.writes) \
            or any(is_pattern(p) for p in (*spec.reads, *spec.writes)):
        return spec
    patterned = {t: info.by_pattern for t in spec.tools if (info := app.tool(t)) is not None and info.by_pattern}
    taking = [t.name for t in app.tools if t.source_choice is not None]
    if not patterned or not taking:
        return spec
    # a tool that moves what it picks (a rename) was chosen to take the source away: its path is a write too
    gone = Change.MOVE.value in patterned.values()
    notes.append(f"subtask {spec.id!r} takes one path, {spec.reads[0]}, to {spec.writes[0]}: {', '.join(taking)}, "
                 f"not {', '.join(patterned)}, which picks names by a pattern"
                 + (f"; it takes {spec.reads[0]} away, as {', '.join(patterned)} would" if gone else ""))
    return spec.model_copy(update={
        "tools": tuple(dict.fromkeys(taking[0] if t in patterned else t for t in spec.tools)),
        "writes": (*spec.writes, spec.reads[0]) if gone else spec.writes})


def _ordered(specs: list[SubtaskSpec], kept: Mapping[str, SubtaskSpec], notes: list[str]) -> list[SubtaskSpec]:
    everything = {**kept, **{s.id: s for s in specs}}
    result: list[SubtaskSpec] = []
    for spec in specs:
        for earlier in reversed(result):  # the latest first: a chain, not every pair
            shared = sorted(set(earlier.writes) & set(spec.writes))
            if not shared or earlier.id in before(spec.id, everything) or spec.id in before(earlier.id, everything):
                continue
            spec = spec.model_copy(update={"depends_on": (*spec.depends_on, earlier.id)})
            everything[spec.id] = spec
            notes.append(f"subtask {spec.id!r} waits for {earlier.id!r}: both write {', '.join(shared)}")
        result.append(spec)
    return result


def _meet(a: str, b: str) -> bool:
    """Whether two declared paths may name a file in common (a pattern may meet any other)."""
    return a == b or covered(a, (b,)) or covered(b, (a,)) or is_pattern(a) or is_pattern(b)


def _ordering(earlier: SubtaskSpec, later: SubtaskSpec) -> bool:
    """Whether the order of two subtasks matters to a file: one writes what the other reads or writes."""
    return any(_meet(w, p) for w in earlier.writes for p in (*later.reads, *later.writes)) \
        or any(_meet(r, w) for r in earlier.reads for w in later.writes)


def _unchained(specs: list[SubtaskSpec], kept: Mapping[str, SubtaskSpec], notes: list[str]) -> list[SubtaskSpec]:
    """Each new subtask that names paths, without the waits that carry nothing: on another application, for one
    that writes files and hands nothing on, where no path of theirs meets (one that names none, a program's
    actions, may act on what the other wrote: its waits stay). What it waited for through such a wait and must
    still come first (an order of changes to a file), it waits for directly; where that one hands data on,
    every wait stays (a direct wait would hand the subtask that data)."""
    everything = {**kept, **{s.id: s for s in specs}}
    new = {s.id for s in specs}
    result: dict[str, SubtaskSpec] = {}
    for spec in specs:
        def carries(dep: SubtaskSpec, spec: SubtaskSpec = spec) -> bool:
            return dep.hands_on is not HandsOn.NOTHING or not dep.writes or not (spec.reads or spec.writes) \
                or dep.application == spec.application or _ordering(dep, spec)

        keep = [d for d in spec.depends_on if d not in new or carries(everything[d])]
        if len(keep) == len(spec.depends_on):
            result[spec.id] = spec
            continue
        reached = {*keep, *(a for d in keep for a in before(d, {**everything, **result}))}
        need = [a for a in sorted(before(spec.id, everything)) if a in new and a not in reached
                and _ordering(everything[a], spec)]
        # waiting directly for one that hands data on would hand it that data, which the verifier holds it to
        if any(everything[a].hands_on is not HandsOn.NOTHING for a in need):
            result[spec.id] = spec
            continue
        dropped = [d for d in spec.depends_on if d not in keep]
        notes.append(f"subtask {spec.id!r} does not wait for {', '.join(repr(d) for d in dropped)}: no data and no "
                     "file passes between them" + (f" (it waits for {', '.join(repr(a) for a in need)} "
                                                  "directly, which must come first)" if need else ""))
        result[spec.id] = spec.model_copy(update={"depends_on": (*keep, *need)})
    return [result[s.id] for s in specs]


def before(sid: str, everything: Mapping[str, SubtaskSpec]) -> set[str]:
    """Every subtask `sid` waits for, directly or not."""
    seen: set[str] = set()
    todo = list(everything[sid].depends_on) if sid in everything else []
    while todo:
        dep = todo.pop()
        if dep not in seen and dep in everything:
            seen.add(dep)
            todo.extend(everything[dep].depends_on)
    return seen
