"""The blackboard: what the HostAgent writes and every agent reads.

Categories, as in UFO²: questions (with their answers), requests (every request of the session),
trajectories (one entry per step: who, which subtask, what it did, the person's confirmation),
screenshots (path and metadata), plus the subtask results, which is how a later AppAgent reads an
earlier one's output.

It is an immutable value (every `add_*` returns a new blackboard), so it lives in the host strategy's
state and is journaled with it. The stored record keeps everything; `to_prompt` is what goes in front
of a model, and it is bounded: the oldest entries are dropped first and summarised by a count.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

_FROZEN = ConfigDict(frozen=True, extra="forbid")
ENTRY_CHARS = 600  # one entry never takes more than this in a prompt
PROMPT_CHARS = 4000

DEFAULT_ANSWER = "default"  # who answered a question in batch mode: nobody


class QA(BaseModel):
    model_config = _FROZEN

    question: str
    answer: str
    asked_by: str = "host"  # "host" or the AppAgent's name
    subtask: str | None = None
    answered_by: str = "person"  # "person", or DEFAULT_ANSWER in batch mode


class TrajectoryEntry(BaseModel):
    model_config = _FROZEN

    step: int
    agent: str
    status: str
    subtask: str | None = None
    action: str = ""  # what the step did, in a few words (tool calls, plan, launch)
    outcome: str = ""  # what came of it (tool results, errors)
    confirmation: str | None = None  # "approved" / "refused" when the person was asked
    timings_ms: dict[str, float] = Field(default_factory=dict)  # per pipeline phase
    error: str | None = None
    rules: tuple[str, ...] = ()  # the named rules (podium.desktop.rules) that fired at this step


class Screenshot(BaseModel):
    model_config = _FROZEN

    path: str
    agent: str
    step: int
    metadata: dict[str, Any] = Field(default_factory=dict)


class ArtifactEntry(BaseModel):
    """Data a subtask read or made, by name (podium.desktop.host.artifacts)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    name: str
    kind: str
    value: Any = None
    source: str = ""


class SubtaskResult(BaseModel):
    model_config = _FROZEN

    subtask: str
    application: str
    status: str
    description: str = ""
    result: Any = None
    artifacts: tuple[ArtifactEntry, ...] = ()  # what it hands on, by name
    named: str = ""  # the artifact its result named by reference (the first of `artifacts`), if it named one


class Blackboard(BaseModel):
    model_config = _FROZEN

    questions: tuple[QA, ...] = ()
    requests: tuple[str, ...] = ()
    trajectories: tuple[TrajectoryEntry, ...] = ()
    screenshots: tuple[Screenshot, ...] = ()
    results: tuple[SubtaskResult, ...] = ()

    # -- writing (each returns a new blackboard) ----------------------------------------------

    def add_request(self, text: str) -> Blackboard:
        return self.model_copy(update={"requests": (*self.requests, text)})

    def add_questions(self, *entries: QA) -> Blackboard:
        return self.model_copy(update={"questions": (*self.questions, *entries)})

    def add_trajectory(self, *entries: TrajectoryEntry) -> Blackboard:
        return self.model_copy(update={"trajectories": (*self.trajectories, *entries)})

    def add_screenshot(self, *entries: Screenshot) -> Blackboard:
        return self.model_copy(update={"screenshots": (*self.screenshots, *entries)})

    def add_result(self, entry: SubtaskResult) -> Blackboard:
        """Record a subtask's result; a later result for the same subtask (after a re-plan) wins."""
        kept = tuple(r for r in self.results if r.subtask != entry.subtask)
        return self.model_copy(update={"results": (*kept, entry)})

    # -- reading -------------------------------------------------------------------------------

    def is_empty(self) -> bool:
        return not (self.questions or self.requests or self.trajectories or self.screenshots or self.results)

    def result_of(self, subtask: str) -> SubtaskResult | None:
        return next((r for r in self.results if r.subtask == subtask), None)

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    def to_json(self) -> str:
        return self.model_dump_json()

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Blackboard:
        return cls.model_validate(data)

    @classmethod
    def from_json(cls, text: str) -> Blackboard:
        return cls.model_validate_json(text)

    def to_prompt(self, max_chars: int = PROMPT_CHARS, *, shown_request: str | None = None,
                  shown_results: Collection[str] = (), own_subtask: str | None = None,
                  hidden_agents: Collection[str] = (), unanswered: bool = True) -> str:
        """The blackboard as prompt text, at most `max_chars` long; newest entries win.

        Entries are dropped oldest first, trajectories before screenshots, questions, results and
        requests (the most expendable first), and each section says how many it left out.
        What the reader's prompt already shows is left out, since every repeated token costs a small
        local model time and attention (and a failed call shown twice is copied twice): `shown_request`,
        the results of `shown_results` and their steps, and the steps of `own_subtask` (an AppAgent's
        own memory). The steps of `hidden_agents` are left out too, and with `unanswered` False the questions
        nobody answered (batch mode's default answer is no information, and a small model copies it as data).
        """
        if self.is_empty():
            return ""
        requests = [r for r in self.requests if r != shown_request]
        results = [r for r in self.results if r.subtask not in shown_results]
        shown = {*shown_results, own_subtask} - {None}
        steps = [t for t in self.trajectories if t.subtask not in shown and t.agent not in hidden_agents]
        sections = [
            _Section("Requests", [_clip(r) for r in requests], keep=1),
            _Section("Subtask results", [_result_line(r) for r in results], keep=1),
            _Section("Questions and answers", [_qa_line(q) for q in self.questions
                                               if unanswered or q.answered_by != DEFAULT_ANSWER], keep=1),
            _Section("Screenshots", [f"{s.path} (step {s.step}, {s.agent})" for s in self.screenshots]),
            _Section("Trajectory", [_step_line(t) for t in steps]),
        ]
        drop_order = [sections[i] for i in (4, 3, 2, 1, 0)]
        text = _render(sections)
        while len(text) > max_chars:
            victim = next((s for s in drop_order if s.can_drop()), None)
            if victim is None:
                break
            victim.drop_oldest()
            text = _render(sections)
        if len(text) > max_chars:  # even the essentials do not fit: cut, and say so
            marker = "\n[blackboard truncated]"
            text = text[: max_chars - len(marker)] + marker if max_chars > len(marker) else text[:max_chars]
        return text


class _Section:
    def __init__(self, title: str, lines: list[str], keep: int = 0) -> None:
        self.title = title
        self.lines = lines
        self.keep = keep  # entries never dropped (the newest), unless everything else is gone
        self.omitted = 0

    def can_drop(self) -> bool:
        return len(self.lines) > self.keep

    def drop_oldest(self) -> None:
        self.lines.pop(0)
        self.omitted += 1

    def render(self) -> str:
        if not self.lines and not self.omitted:
            return ""
        head = [f"## {self.title}"]
        if self.omitted:
            head.append(f"({self.omitted} earlier {'entry' if self.omitted == 1 else 'entries'} omitted)")
        return "\n".join(head + [f"- {line}" for line in self.lines])


def _render(sections: list[_Section]) -> str:
    return "\n\n".join(part for part in (s.render() for s in sections) if part)


def _clip(text: str, limit: int = ENTRY_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 15] + " ...[clipped]"


def _value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _result_line(r: SubtaskResult) -> str:
    body = f"subtask {r.subtask} ({r.application}) {r.status}"
    if r.description:
        body += f" [{r.description}]"
    if r.result not in (None, ""):
        body += f": {_value(r.result)}"
    if r.artifacts:
        body += f"; data: {', '.join(a.name for a in r.artifacts)}"
    return _clip(body)


def _qa_line(q: QA) -> str:
    who = f"{q.asked_by}" + (f", subtask {q.subtask}" if q.subtask else "")
    by = "" if q.answered_by == "person" else f" ({q.answered_by})"
    return _clip(f"Q ({who}): {q.question} A{by}: {q.answer}")


def _step_line(t: TrajectoryEntry) -> str:
    parts = [f"step {t.step} {t.agent}"]
    if t.subtask:
        parts.append(f"subtask {t.subtask}")
    parts.append(t.status)
    line = " ".join(parts)
    if t.action:
        line += f": {t.action}"
    if t.outcome:
        line += f" -> {t.outcome}"
    if t.confirmation:
        line += f" (person: {t.confirmation})"
    if t.error:
        line += f" [error: {t.error}]"
    return _clip(line, ENTRY_CHARS // 2)
