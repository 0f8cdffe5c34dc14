"""What a caller gets back: one `Completion` per accepted request, and the answers of `poll`."""

from __future__ import annotations

from dataclasses import dataclass

from podium.agent.events import Response
from podium.errors import Reason


@dataclass(frozen=True, slots=True)
class Completion:
    """The single completion of an accepted `tell_with_completion` request."""

    agent: str
    ref: int
    response: Response | None = None
    reason: Reason | None = None

    @property
    def ok(self) -> bool:
        return self.reason is None


@dataclass(frozen=True, slots=True)
class Pending:
    pass


@dataclass(frozen=True, slots=True)
class Completed:
    response: Response


@dataclass(frozen=True, slots=True)
class Failed:
    reason: Reason


@dataclass(frozen=True, slots=True)
class NotFound:
    pass


PollResult = Pending | Completed | Failed | NotFound
PENDING = Pending()
NOT_FOUND = NotFound()
