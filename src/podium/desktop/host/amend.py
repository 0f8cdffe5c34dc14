"""What the host fixes in a plan itself, before checking it: the mistakes whose fix is certain from types.

A small planner often gets a declaration wrong in a way the catalogue settles without asking it again
(re-asked, it tends to repeat itself). Each amendment reads only declarations, paths and tool kinds:
- a subtask on a typed application whose every path is of another typed application's types runs on
  that application (the tools it declared that the other does not have are dropped; none left: any);
- a subtask whose declared tools only read, and that hands something on, writes nothing: what it declared
  it writes is the work of the subtasks it hands to;
- a subtask whose every write exists already does not expect a tool that only makes new paths (a new
  workbook, document or folder: on a path that exists it fails or replaces it);
- two new subtasks that write the same path and do not wait for each other run in the plan's order.
Every amendment is said, in words the trajectory keeps. What is not certain stays a problem for the
planner (podium.desktop.host.plan).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from podium.desktop.host.catalog import Catalog
from podium.desktop.wire.schemas import HandsOn, SubtaskSpec


@dataclass(frozen=True, slots=True)
class Amended:
    subtasks: tuple[SubtaskSpec, ...]
    notes: tuple[str, ...]  # one sentence per fix
    any_tool: frozenset[str]  # subtasks moved to another application with none of their tools left: any of its own


def amend(specs: Sequence[SubtaskSpec], catalog: Catalog, kept: Mapping[str, SubtaskSpec],
          files: Sequence[str] | None = None) -> Amended:
    """The plan's new subtasks with the certain fixes made. `files`: the workspace's paths (None: unknown)."""
    notes: list[str] = []
    moved = [_on_its_type(spec, catalog, notes) for spec in specs]
    any_tool = frozenset(new.id for old, new in zip(specs, moved, strict=True)
                         if new.application != old.application and not new.tools)
    fixed = [_existing(_reader(spec, catalog, notes), catalog, files, notes) for spec in moved]
    return Amended(tuple(_ordered(fixed, kept, notes)), tuple(notes), any_tool)


def _on_its_type(spec: SubtaskSpec, catalog: Catalog, notes: list[str]) -> SubtaskSpec:
    app = catalog.get(spec.application)
    paths = [p for p in (*spec.reads, *spec.writes) if p != "."]
    if app is None or not app.file_types or not paths or any(app.opens(p) for p in paths):
        return spec
    owners = {catalog.owner(p) for p in paths}
    if len(owners) != 1 or None in owners:
        return spec
    (owner,) = owners
    target = catalog.get(owner or "")
    if target is None:
        return spec
    tools = tuple(t for t in spec.tools if target.tool(t) is not None)
    notes.append(f"subtask {spec.id!r} runs on {owner}, which opens {', '.join(paths)} ({spec.application} does not)")
    return spec.model_copy(update={"application": owner, "tools": tools})


def _reader(spec: SubtaskSpec, catalog: Catalog, notes: list[str]) -> SubtaskSpec:
    app = catalog.get(spec.application)
    if app is None or not spec.writes or not spec.tools or spec.hands_on is HandsOn.NOTHING:
        return spec
    if any((info := app.tool(t)) is None or not info.read_only for t in spec.tools):
        return spec
    notes.append(f"subtask {spec.id!r} only reads ({', '.join(spec.tools)}) and hands on {spec.hands_on.value}: "
                 f"it writes nothing, not {', '.join(spec.writes)}")
    return spec.model_copy(update={"writes": ()})


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


def _ordered(specs: list[SubtaskSpec], kept: Mapping[str, SubtaskSpec], notes: list[str]) -> list[SubtaskSpec]:
    everything = {**kept, **{s.id: s for s in specs}}
    result: list[SubtaskSpec] = []
    for spec in specs:
        deps = list(spec.depends_on)
        for earlier in result:
            shared = sorted(set(earlier.writes) & set(spec.writes))
            if not shared or earlier.id in before(spec.id, everything) or spec.id in before(earlier.id, everything):
                continue
            deps.append(earlier.id)
            notes.append(f"subtask {spec.id!r} waits for {earlier.id!r}: both write {', '.join(shared)}")
        if deps != list(spec.depends_on):
            spec = spec.model_copy(update={"depends_on": tuple(deps)})
            everything[spec.id] = spec
        result.append(spec)
    return result


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
