"""The scheduling of a subtask graph, as a pure value: `GraphSchedule`.

It knows which subtasks are ready, running, done, failed or skipped, and does no dispatching, so
any strategy can keep one in its state and drive it: the `Graph` strategy does, one per request,
and so can the desktop orchestrator's host strategy. `podium.ensemble.strategies.graph`
re-exports every name of this module.
"""

from __future__ import annotations

import graphlib
import heapq
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import cached_property
from types import MappingProxyType
from typing import Any

from podium.agent.backend import Prompt
from podium.errors import ConfigError, PodiumError, Reason, ReasonKind


class FailurePolicy(StrEnum):
    """What a failed subtask does to the rest of its graph.

    FAIL: the whole graph fails at once; nothing more is started.
    SKIP: the failed subtask's dependants (transitively) are skipped; independent branches go on.
    """

    FAIL = "fail"
    SKIP = "skip"


class SubtaskStatus(StrEnum):
    WAITING = "waiting"  # some dependency is not done yet
    READY = "ready"  # every dependency is done; not started
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    SKIPPED = "skipped"  # can never run: a dependency failed or was skipped, or the graph failed


@dataclass(frozen=True, slots=True)
class Subtask:
    """One node of a graph: what to ask (`prompt`), whom (`agent`), after what (`depends_on`).

    `agent` may be None when the driver has a default agent. `data` carries whatever else a
    driver needs (the desktop orchestrator keeps its application and tips there).
    """

    id: str
    prompt: str | Prompt
    agent: str | None = None
    depends_on: tuple[str, ...] = ()
    data: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}), hash=False)

    def __post_init__(self) -> None:
        # Callers write lists; a tuple keeps the value immutable and comparable.
        if isinstance(self.depends_on, str):
            object.__setattr__(self, "depends_on", (self.depends_on,))
        elif not isinstance(self.depends_on, tuple):
            object.__setattr__(self, "depends_on", tuple(self.depends_on))
        if not isinstance(self.data, MappingProxyType):
            object.__setattr__(self, "data", MappingProxyType(dict(self.data)))


@dataclass(frozen=True, slots=True)
class SubtaskOutcome:
    """Where one subtask ended up: its result when done, its reason when failed or skipped."""

    subtask: Subtask
    status: SubtaskStatus
    result: Any = None
    reason: Reason | None = None

    @property
    def id(self) -> str:
        return self.subtask.id


class GraphInvalid(ConfigError):
    """The subtask graph cannot run: every problem found is listed, nothing was started."""

    def __init__(self, problems: Iterable[str]) -> None:
        self.problems = tuple(problems)
        super().__init__("invalid subtask graph: " + "; ".join(self.problems)
                         + ". Fix the subtasks (ids, depends_on, agent) and submit the graph again.")

    @property
    def reason(self) -> Reason:
        return Reason(ReasonKind.PLAN_INVALID, str(self))


class ScheduleError(PodiumError, ValueError):
    """A transition the schedule does not allow (unknown id, or a subtask already finished)."""


def graph_problems(subtasks: Iterable[Subtask], agents: Iterable[str] | None = None,
                   default_agent: str | None = None) -> tuple[str, ...]:
    """Every reason `subtasks` cannot run, in a stable order; empty when the graph is valid.

    `agents`, when given, is the set of agent names a subtask may name; a subtask without an agent
    then needs `default_agent`.
    """
    items = list(subtasks)
    problems: list[str] = []
    if not items:
        return ("the graph has no subtasks",)
    known_agents = None if agents is None else frozenset(agents)
    ids: dict[str, Subtask] = {}
    for position, item in enumerate(items):
        if not isinstance(item, Subtask):
            problems.append(f"item {position} is a {type(item).__name__}, expected a Subtask")
            continue
        if not isinstance(item.id, str) or not item.id:
            problems.append(f"item {position} has an empty or non-string id {item.id!r}")
            continue
        if item.id in ids:
            problems.append(f"duplicate subtask id {item.id!r}")
            continue
        ids[item.id] = item
        if not isinstance(item.prompt, str | Prompt):
            problems.append(f"subtask {item.id!r}: prompt must be a str or a Prompt, "
                            f"not {type(item.prompt).__name__}")
        if known_agents is not None:
            agent = item.agent if item.agent is not None else default_agent
            if agent is None:
                problems.append(f"subtask {item.id!r} names no agent and there is no default agent")
            elif agent not in known_agents:
                problems.append(f"subtask {item.id!r} names unknown agent {agent!r} "
                                f"(known: {', '.join(sorted(known_agents))})")
    for item in ids.values():
        for dep in item.depends_on:
            if dep not in ids:
                problems.append(f"subtask {item.id!r} depends on unknown subtask {dep!r}")
    if not problems:
        sorter = graphlib.TopologicalSorter({i: s.depends_on for i, s in ids.items()})
        try:
            sorter.prepare()
        except graphlib.CycleError as exc:
            cycle = exc.args[1]
            problems.append("dependency cycle " + " -> ".join(reversed(cycle)))
    return tuple(problems)


def stable_order(subtasks: Iterable[Subtask]) -> tuple[Subtask, ...]:
    """A topological order that keeps the caller's order wherever dependencies allow it.

    Among the subtasks whose dependencies are all placed, the one listed first goes next; so a
    list already in dependency order comes back unchanged. Assumes a valid graph.
    """
    items = list(subtasks)
    position = {s.id: i for i, s in enumerate(items)}
    sorter = graphlib.TopologicalSorter({s.id: s.depends_on for s in items})
    sorter.prepare()
    heap: list[int] = []
    order: list[Subtask] = []
    while sorter.is_active():
        for ready_id in sorter.get_ready():
            heapq.heappush(heap, position[ready_id])
        index = heapq.heappop(heap)
        order.append(items[index])
        sorter.done(items[index].id)
    return tuple(order)


@dataclass(frozen=True)
class GraphSchedule:
    """The state of one subtask graph, as an immutable value.

    Build with `GraphSchedule.build(subtasks)` (validates everything first and raises
    `GraphInvalid`), then drive it: `ready()` lists what may start, `start(*ids)` marks subtasks
    running, `complete(id, result)` / `fail(id, reason)` record their ends. Every transition
    returns a new schedule. `outcomes()` gives every subtask's end in the stable order (see
    `stable_order`); `inputs(id)` the outcomes of a subtask's dependencies.
    """

    subtasks: tuple[Subtask, ...]
    on_failure: FailurePolicy = FailurePolicy.FAIL
    running: frozenset[str] = frozenset()
    results: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    failures: Mapping[str, Reason] = field(default_factory=lambda: MappingProxyType({}))
    agents: frozenset[str] | None = None
    default_agent: str | None = None

    @classmethod
    def build(cls, subtasks: Iterable[Subtask], *, on_failure: FailurePolicy | str = FailurePolicy.FAIL,
              agents: Iterable[str] | None = None, default_agent: str | None = None) -> GraphSchedule:
        """Validate `subtasks` (ids, dependencies, cycles and, when `agents` is given, agent names)
        and return a schedule with nothing started. Raises `GraphInvalid` listing every problem."""
        items = tuple(subtasks)
        known = None if agents is None else frozenset(agents)
        problems = graph_problems(items, known, default_agent)
        try:
            policy = FailurePolicy(on_failure)
        except ValueError:
            problems += (f"on_failure must be one of {[p.value for p in FailurePolicy]}, not {on_failure!r}",)
        if problems:
            raise GraphInvalid(problems)
        return cls(stable_order(items), policy, agents=known, default_agent=default_agent)

    # -- derived views ---------------------------------------------------------------------

    @cached_property
    def _index(self) -> Mapping[str, Subtask]:
        return {s.id: s for s in self.subtasks}

    @cached_property
    def _statuses(self) -> Mapping[str, SubtaskStatus]:
        statuses: dict[str, SubtaskStatus] = {}
        graph_failed = self.on_failure is FailurePolicy.FAIL and bool(self.failures)
        blocked = {SubtaskStatus.FAILED, SubtaskStatus.SKIPPED}
        for subtask in self.subtasks:  # dependencies come first in the stable order
            sid = subtask.id
            if sid in self.results:
                status = SubtaskStatus.DONE
            elif sid in self.failures:
                status = SubtaskStatus.FAILED
            elif sid in self.running:
                status = SubtaskStatus.RUNNING
            elif graph_failed:
                status = SubtaskStatus.SKIPPED
            else:
                deps = [statuses[d] for d in subtask.depends_on]
                if any(d in blocked for d in deps):
                    status = SubtaskStatus.SKIPPED
                elif all(d is SubtaskStatus.DONE for d in deps):
                    status = SubtaskStatus.READY
                else:
                    status = SubtaskStatus.WAITING
            statuses[sid] = status
        return statuses

    def subtask(self, sid: str) -> Subtask:
        try:
            return self._index[sid]
        except KeyError:
            raise ScheduleError(f"no subtask {sid!r} in this graph") from None

    def status(self, sid: str) -> SubtaskStatus:
        self.subtask(sid)
        return self._statuses[sid]

    def agent_of(self, sid: str) -> str | None:
        """The agent a subtask runs on: its own, else the schedule's default agent."""
        agent = self.subtask(sid).agent
        return agent if agent is not None else self.default_agent

    def _with(self, status: SubtaskStatus) -> frozenset[str]:
        return frozenset(i for i, st in self._statuses.items() if st is status)

    @property
    def done(self) -> frozenset[str]:
        return frozenset(self.results)

    @property
    def failed(self) -> frozenset[str]:
        return frozenset(self.failures)

    @property
    def skipped(self) -> frozenset[str]:
        return self._with(SubtaskStatus.SKIPPED)

    @property
    def waiting(self) -> frozenset[str]:
        return self._with(SubtaskStatus.WAITING)

    @property
    def finished(self) -> bool:
        """Nothing more will start: all done, or the graph failed (FAIL), or every subtask is
        done, failed or skipped (SKIP). Under FAIL, subtasks still running when another fails are
        abandoned: their ends may still be recorded but change nothing."""
        if self.on_failure is FailurePolicy.FAIL and self.failures:
            return True
        active = (SubtaskStatus.WAITING, SubtaskStatus.READY, SubtaskStatus.RUNNING)
        return not any(st in active for st in self._statuses.values())

    @property
    def succeeded(self) -> bool:
        return len(self.results) == len(self.subtasks)

    def ready(self) -> tuple[Subtask, ...]:
        """Subtasks that may start now (dependencies all done, not started), in stable order.
        Empty once a FAIL-policy graph has failed."""
        if self.on_failure is FailurePolicy.FAIL and self.failures:
            return ()
        statuses = self._statuses
        return tuple(s for s in self.subtasks if statuses[s.id] is SubtaskStatus.READY)

    def inputs(self, sid: str) -> tuple[SubtaskOutcome, ...]:
        """The outcomes of `sid`'s dependencies, in its `depends_on` order."""
        return tuple(self.outcome(dep) for dep in self.subtask(sid).depends_on)

    def outcome(self, sid: str) -> SubtaskOutcome:
        subtask = self.subtask(sid)
        status = self._statuses[sid]
        reason = self.failures.get(sid)
        if status is SubtaskStatus.SKIPPED:
            reason = self._skip_reason(subtask)
        return SubtaskOutcome(subtask, status, self.results.get(sid), reason)

    def outcomes(self) -> tuple[SubtaskOutcome, ...]:
        """Every subtask's outcome, in stable order (topological, caller's order where free)."""
        return tuple(self.outcome(s.id) for s in self.subtasks)

    def _skip_reason(self, subtask: Subtask) -> Reason:
        statuses = self._statuses
        for dep in subtask.depends_on:
            if statuses[dep] in (SubtaskStatus.FAILED, SubtaskStatus.SKIPPED):
                return Reason(ReasonKind.CANCELLED, f"skipped: dependency {dep!r} {statuses[dep].value}")
        first = next(iter(self.failures))
        return Reason(ReasonKind.CANCELLED, f"skipped: the graph failed at subtask {first!r}")

    def counts(self) -> dict[str, int]:
        """How many subtasks are in each status (for status reports)."""
        counts = {status.value: 0 for status in SubtaskStatus}
        for status in self._statuses.values():
            counts[status.value] += 1
        return counts

    # -- transitions -------------------------------------------------------------------------

    def start(self, *sids: str) -> GraphSchedule:
        """Mark ready subtasks running."""
        for sid in sids:
            if self.status(sid) is not SubtaskStatus.READY:
                raise ScheduleError(f"subtask {sid!r} cannot start: it is {self._statuses[sid].value}")
        return replace(self, running=self.running | frozenset(sids))

    def complete(self, sid: str, result: Any) -> GraphSchedule:
        """Record a running (or ready) subtask's result."""
        self._check_open(sid, "complete")
        return replace(self, running=self.running - {sid},
                       results=MappingProxyType({**self.results, sid: result}))

    def fail(self, sid: str, reason: Reason) -> GraphSchedule:
        """Record a running (or ready) subtask's failure; the policy decides what it does to the rest."""
        self._check_open(sid, "fail")
        return replace(self, running=self.running - {sid},
                       failures=MappingProxyType({**self.failures, sid: reason}))

    def retry(self, sid: str) -> GraphSchedule:
        """Forget a failure so the subtask (and the dependants it blocked) may run again."""
        if self.status(sid) is not SubtaskStatus.FAILED:
            raise ScheduleError(f"subtask {sid!r} cannot be retried: it is {self._statuses[sid].value}")
        return replace(self, failures=MappingProxyType({k: v for k, v in self.failures.items() if k != sid}))

    def extend(self, subtasks: Iterable[Subtask]) -> GraphSchedule:
        """Add subtasks (they may depend on existing ones); the whole graph is validated again.
        The existing subtasks keep their order."""
        combined = (*self.subtasks, *subtasks)
        problems = graph_problems(combined, self.agents, self.default_agent)
        if problems:
            raise GraphInvalid(problems)
        return replace(self, subtasks=stable_order(combined))

    def _check_open(self, sid: str, verb: str) -> None:
        status = self.status(sid)
        if status not in (SubtaskStatus.RUNNING, SubtaskStatus.READY):
            raise ScheduleError(f"cannot {verb} subtask {sid!r}: it is {status.value}")
