"""Checking a plan in code before anything runs (plan_repairs mends a checked plan; this finds what is wrong).

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
