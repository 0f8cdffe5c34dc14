"""podium: a runtime for ensembles of LLM agents, and a desktop orchestrator on top of it."""

from podium.agent import (
    Backend,
    BaseBackend,
    Behaviour,
    Completed,
    Continue,
    Event,
    EventKind,
    Failed,
    HaltAgent,
    NotFound,
    Pending,
    Proceed,
    Prompt,
    PromptAgain,
    Response,
    Skip,
    Usage,
    start_agent,
)
from podium.ensemble import AgentSpec, Dispatch, Forward, Halt, Reply, ReplyError, Session, Start, Stop, Strategy
from podium.ensemble.strategies import Solo
from podium.errors import PodiumError, Reason, ReasonKind, RunFailed

__version__ = "0.1.0"

__all__ = [
    "AgentSpec",
    "Backend",
    "BaseBackend",
    "Behaviour",
    "Completed",
    "Continue",
    "Dispatch",
    "Event",
    "EventKind",
    "Failed",
    "Forward",
    "Halt",
    "HaltAgent",
    "NotFound",
    "Pending",
    "PodiumError",
    "Proceed",
    "Prompt",
    "PromptAgain",
    "Reason",
    "ReasonKind",
    "Reply",
    "ReplyError",
    "Response",
    "RunFailed",
    "Session",
    "Skip",
    "Solo",
    "Start",
    "Stop",
    "Strategy",
    "Usage",
    "start_agent",
]
