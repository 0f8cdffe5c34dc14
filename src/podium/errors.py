"""Error reasons (values) and the one exception hierarchy of podium.

A failure travels as a `Reason`: a small frozen value with a kind from a bounded set, so that
strategies, telemetry and the journal can match on it without parsing strings. Exceptions are
raised only at the public edges (a caller's `ask`, a refused request, a bad option).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class ReasonKind(StrEnum):
    """The bounded set of ways a request can fail."""

    TIMEOUT = "timeout"
    INTERRUPTED = "interrupted"
    OVERLOADED = "overloaded"
    HALTED = "halted"
    STOPPED = "stopped"
    DISPATCH_REJECTED = "dispatch_rejected"
    AGENT_DOWN = "agent_down"
    AGENT_NOT_RUNNING = "agent_not_running"
    WORKER_DOWN = "worker_down"
    UNKNOWN_AGENT = "unknown_agent"
    NO_AGENT_SPECIFIED = "no_agent_specified"
    INIT_FAILED = "init_failed"
    BACKEND_ERROR = "backend_error"
    NO_TERMINAL_EVENT = "no_terminal_event"
    TASK_CRASHED = "task_crashed"
    STRATEGY_ERROR = "strategy_error"
    STAGE_FAILED = "stage_failed"
    INVALID_REQUEST = "invalid_request"
    INVALID_OUTPUT = "invalid_output"
    BUDGET_EXCEEDED = "budget_exceeded"
    RATE_LIMITED = "rate_limited"
    LIMIT_REACHED = "limit_reached"
    REFUSED = "refused"
    FORBIDDEN = "forbidden"
    TOOL_ERROR = "tool_error"
    PLAN_INVALID = "plan_invalid"
    CANCELLED = "cancelled"
    FAILED = "failed"
    KILLED = "killed"  # taken down on purpose from outside (`kill`), as a crash would


@dataclass(frozen=True, slots=True)
class Reason:
    """Why a request failed. `agent` names where, `cause` chains the underlying reason."""

    kind: ReasonKind
    detail: str = ""
    agent: str | None = None
    cause: Reason | None = None

    def __str__(self) -> str:
        where = f"[{self.agent}]" if self.agent else ""
        text = f"{self.kind.value}{where}"
        if self.detail:
            text += f": {self.detail}"
        if self.cause is not None:
            text += f" <- {self.cause}"
        return text

    def root(self) -> Reason:
        """The innermost cause."""
        reason = self
        while reason.cause is not None:
            reason = reason.cause
        return reason


class PodiumError(Exception):
    """Base of every exception podium raises."""


class ConfigError(PodiumError, ValueError):
    """Invalid options or configuration; the message says which and what is expected."""


class RunFailed(PodiumError):
    """A request ended with an error reply; `reason` says why."""

    def __init__(self, reason: Reason) -> None:
        super().__init__(str(reason))
        self.reason = reason


class Overloaded(PodiumError):
    """A bounded queue is full: the request was refused and nothing was queued."""

    def __init__(self, reason: Reason) -> None:
        super().__init__(str(reason))
        self.reason = reason


class AgentNotRunning(PodiumError):
    """The named agent is not running (never started, stopped, or down)."""

    def __init__(self, reason: Reason) -> None:
        super().__init__(str(reason))
        self.reason = reason


class AgentCrashed(PodiumError):
    """Raised inside a backend or a behaviour callback to crash the agent: it goes down."""


class StartFailed(PodiumError):
    """An agent or a session could not start; nothing it started is left running."""


class SessionClosed(PodiumError):
    """The session has halted or stopped and takes no more requests."""


class UnknownAgent(PodiumError, KeyError):
    """No agent with that name."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else "unknown agent"
