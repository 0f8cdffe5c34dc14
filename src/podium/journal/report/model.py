"""What a run's report shows, gathered from its record: the artifacts `podium run` saved, and every model
step paired from the journal's entries (the prompt the strategy dispatched, the answer that came back,
the tool calls with their results, the 4 phases' timings), the change log and the screenshots.

A record cut short (a killed process) still gives its steps: they come from the entries, not from the
artifacts a clean end writes.
"""

from __future__ import annotations

import json
from collections import defaultdict, deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from podium.journal import codec
from podium.journal.files import FOLDER
from podium.journal.store import Change, SessionRecord


@dataclass
class Step:
    """One dispatch to an agent and its answer; an AppAgent's step whose calls ran has a second turn (its
    EXECUTE), shown within it: the calls that ran and what they did."""

    number: int  # in the order the steps were sent
    agent: str
    token: str | None
    sent_at: float
    prompt: str
    answered_at: float | None = None
    answer: Any = None  # the step's JSON answer (decoded), or its text
    error: str | None = None  # the step failed instead of answering
    trajectory: Mapping[str, Any] | None = None  # the blackboard's entry for this step, when found
    executed: Any = None  # the answer of its EXECUTE turn (decoded), when its calls ran

    @property
    def body(self) -> Mapping[str, Any]:
        return self.answer if isinstance(self.answer, Mapping) else {}

    @property
    def status(self) -> str:
        if self.error is not None:
            return "ERROR"
        if self.answered_at is None:
            return "IN FLIGHT"
        return str(self.body.get("status") or (self.trajectory or {}).get("status") or "-")

    @property
    def subtask(self) -> str | None:
        prompt = _json(self.prompt)
        sid = prompt.get("subtask_id") if isinstance(prompt, Mapping) else None
        return str(sid) if sid is not None else (self.trajectory or {}).get("subtask")

    @property
    def ran(self) -> Mapping[str, Any]:
        return self.executed if isinstance(self.executed, Mapping) else {}

    @property
    def timings(self) -> Mapping[str, float]:
        timings = {**(self.body.get("timings_ms") or {}), **(self.ran.get("timings_ms") or {})} or \
            (self.trajectory or {}).get("timings_ms") or {}
        return {str(k): float(v) for k, v in timings.items()}

    @property
    def tool_calls(self) -> list[Mapping[str, Any]]:
        return [c for c in self.ran.get("results") or self.body.get("results") or () if isinstance(c, Mapping)]

    @property
    def rules(self) -> list[str]:
        return [str(r) for r in (self.trajectory or {}).get("rules") or ()]


@dataclass
class Report:
    record: SessionRecord
    artifacts: Mapping[str, Any]
    steps: list[Step]
    changes: list[Change]
    finished: Mapping[str, Any] | None  # the outcome the host forwarded, when the run reached it
    progress: Any = None  # the last Progress forwarded (for a run cut short)
    copies: dict[str, bytes] = field(default_factory=dict)  # digest -> bytes, for the diffs
    unreadable: dict[str, str] = field(default_factory=dict)  # digest -> why its bytes could not be read

    @property
    def result(self) -> Mapping[str, Any]:
        return self.artifacts.get("result") or self.finished or {}

    @property
    def request(self) -> str:
        return str(self.artifacts.get("request") or self.result.get("request") or "")

    @property
    def subtasks(self) -> list[Mapping[str, Any]]:
        found = self.artifacts.get("subtasks") or self.result.get("subtasks")
        if found:
            return list(found)
        if self.progress is not None:
            return [{"id": s.id, "application": s.application, "state": s.state, "steps": s.steps,
                     "depends_on": list(s.depends_on), "description": s.description} for s in self.progress.subtasks]
        return []

    @property
    def trajectory(self) -> list[Mapping[str, Any]]:
        return list(self.artifacts.get("trajectory") or self.blackboard.get("trajectories") or [])

    @property
    def blackboard(self) -> Mapping[str, Any]:
        return self.artifacts.get("blackboard") or self.result.get("blackboard") or {}


def gather(store: Any, name: str) -> Report:
    from podium.desktop import Progress, RunFinished
    from podium.ensemble.inputs import ErrorInput, ResponseInput
    from podium.ensemble.ops import Dispatch, Forward

    record = store.session(name)
    artifacts = {key: store.get(name, key) for key in store.keys(name)}
    steps: list[Step] = []
    waiting: dict[tuple[str, Any], deque[tuple[Step, bool]]] = defaultdict(deque)  # (step, its EXECUTE turn)
    finished, progress = None, None
    for entry in store.entries(name):
        input = codec.loads(entry.input)
        if type(input) is ResponseInput or type(input) is ErrorInput:
            queue = waiting.get((input.agent, input.token))
            if queue:
                step, execute = queue.popleft()
                step.answered_at = entry.at
                if type(input) is ErrorInput:
                    step.error = str(input.reason)
                elif execute:
                    step.executed = _json(input.response.text)
                else:
                    step.answer = _json(input.response.text)
        for op in codec.loads(entry.ops):
            if isinstance(op, Dispatch):
                text = str(getattr(op.prompt, "text", op.prompt))
                kind = _json(text).get("kind") if isinstance(_json(text), Mapping) else None
                earlier = next((s for s in reversed(steps) if s.agent == op.agent), None)
                if kind == "execute" and earlier is not None:  # the second turn of the same step
                    waiting[(op.agent, op.token)].append((earlier, True))
                    continue
                step = Step(len(steps) + 1, op.agent, op.token, entry.at, text)
                steps.append(step)
                waiting[(op.agent, op.token)].append((step, False))
            elif isinstance(op, Forward) and isinstance(op.event, RunFinished):
                finished = dict(op.event.outcome)
            elif isinstance(op, Forward) and isinstance(op.event, Progress):
                progress = op.event
    report = Report(record, artifacts, steps, store.changes(name), finished, progress)
    _join_trajectory(report)
    for change in report.changes:
        for digest in (change.before, change.after):
            if digest not in (None, FOLDER) and digest not in report.copies and digest not in report.unreadable:
                try:
                    report.copies[digest] = store.load_bytes(digest)
                except Exception as exc:  # a damaged copy is shown as such; the rest of the report stands
                    report.unreadable[digest] = str(exc)
    return report


def _join_trajectory(report: Report) -> None:
    """The blackboard's entry of each step: same agent, same phase timings (copied from the step's answer)."""
    by_agent: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for entry in report.trajectory:
        by_agent[str(entry.get("agent"))].append(entry)
    for step in report.steps:
        timings = {**(step.body.get("timings_ms") or {}), **(step.ran.get("timings_ms") or {})}
        if not timings:
            continue
        for entry in by_agent.get(step.agent, ()):
            if entry.get("timings_ms") == timings:
                step.trajectory = entry
                break


def _json(text: Any) -> Any:
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text
