"""What the HostAgent tells the person, and what the person (or the shell) tells the HostAgent.

Out (forwarded by the host strategy to its observer agent, which hands them to the caller's callback):
- `Question`: PENDING. Answer with `session.notify(Answer(question.id, ("...",)))`.
- `ApprovalRequest`: CONFIRM, for a sensitive step that has NOT run. Answer with
  `session.notify(Approval(request.id, approved=True | False))`.
- `Progress`: a snapshot after every change (host state, every subtask's state, step, tokens, cost).
- `RunFinished`: the request is over; carries the outcome (also in `status()["host"]["last"]`).

In (through `Session.notify`):
- `Answer`, `Approval` as above; an id that is not waiting (already answered, unknown) is ignored.
- `Elapsed(seconds, token)`: the shell's clock. The strategy has no clock; the shell sends this when a
  run's wall-time limit passes (or whenever it likes), and the strategy compares.
- `Cancel(detail, token)`: end the run now with FAIL (cancelled), keeping its record.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from podium.desktop.wire.schemas import Action


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    questions: tuple[str, ...]
    asked_by: str  # "host" or the AppAgent's name
    subtask: str | None = None
    context: str = ""  # the asker's comment: why it asks
    token: str | None = None


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    id: str
    summary: str  # what would happen, in a sentence
    asked_by: str
    subtask: str | None = None
    application: str | None = None
    actions: tuple[Action, ...] = ()  # the held tool calls (none of them has run)
    token: str | None = None
    reasons: tuple[str, ...] = ()  # why each waits for approval (podium.desktop.host.capability.Hold.text)


@dataclass(frozen=True, slots=True)
class Answer:
    id: str
    answers: tuple[str, ...]  # one per question, in order; fewer means the rest are "no answer"

    def __post_init__(self) -> None:
        if isinstance(self.answers, str):
            object.__setattr__(self, "answers", (self.answers,))
        else:
            object.__setattr__(self, "answers", tuple(self.answers))


@dataclass(frozen=True, slots=True)
class Approval:
    id: str
    approved: bool
    comment: str = ""


@dataclass(frozen=True, slots=True)
class Elapsed:
    seconds: float
    token: str | None = None  # the run it is about; None: whatever run is active


@dataclass(frozen=True, slots=True)
class Cancel:
    detail: str = "cancelled by the caller"
    token: str | None = None


@dataclass(frozen=True, slots=True)
class SubtaskProgress:
    id: str
    description: str
    application: str
    state: str
    depends_on: tuple[str, ...] = ()
    steps: int = 0
    agent: str | None = None
    writes: tuple[str, ...] = ()  # what its plan declares it changes, shown before anything runs


@dataclass(frozen=True, slots=True)
class Progress:
    token: str | None
    host_state: str
    subtasks: tuple[SubtaskProgress, ...]
    current: str  # what is happening now, in a few words
    steps: int
    input_tokens: int
    output_tokens: int
    cost: float | None
    waiting_for: tuple[str, ...] = ()  # ids of questions / approvals waiting for the person


@dataclass(frozen=True, slots=True)
class RunFinished:
    token: str
    outcome: dict[str, Any] = field(default_factory=dict)


HostEventOut = Question | ApprovalRequest | Progress | RunFinished
