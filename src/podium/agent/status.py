"""What an agent reports about itself, and the completion callback's type."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from podium.agent.outcomes import Completion


class AgentState(StrEnum):
    STARTING = "starting"
    IDLE = "idle"
    PROCESSING = "processing"
    HALTED = "halted"
    STOPPED = "stopped"
    DOWN = "down"


@dataclass(frozen=True, slots=True)
class AgentStatus:
    name: str
    state: AgentState
    queued: int
    current_request: int | None
    halted: bool
    agent_state: Any


OnComplete = Callable[[Completion], None]
