"""podium: a runtime for ensembles of LLM agents, and a desktop orchestrator on top of it."""

from podium.agent import (
    AgentState,
    AgentStatus,
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
from podium.ensemble import (
    AgentDownInput,
    AgentSpec,
    AskInput,
    Dispatch,
    DispatchRejectedInput,
    ErrorInput,
    Forward,
    Halt,
    Input,
    NotifyInput,
    Reply,
    ReplyError,
    ResponseInput,
    Session,
    Start,
    Stop,
    Strategy,
    SubAgent,
    TellInput,
    Token,
    find_session,
    sessions,
    whereis,
)
from podium.ensemble.strategies import (
    AtLeast,
    Consensus,
    Debate,
    Graph,
    Pipeline,
    Pool,
    Solo,
    Subtask,
    Supervisor,
    Switchboard,
)
from podium.errors import (
    AgentCrashed,
    AgentNotRunning,
    ConfigError,
    Overloaded,
    PodiumError,
    Reason,
    ReasonKind,
    RunFailed,
    SessionClosed,
    StartFailed,
)

__version__ = "0.1.0"

__all__ = [
    # sessions and strategies
    "AgentSpec", "Session", "Strategy", "SubAgent", "Token", "find_session", "sessions", "whereis",
    # the ops a strategy returns
    "Dispatch", "Forward", "Halt", "Reply", "ReplyError", "Start", "Stop",
    # what a strategy receives
    "AgentDownInput", "AskInput", "DispatchRejectedInput", "ErrorInput", "Input", "NotifyInput", "ResponseInput",
    "TellInput",
    # the built-in strategies
    "AtLeast", "Consensus", "Debate", "Graph", "Pipeline", "Pool", "Solo", "Subtask", "Supervisor", "Switchboard",
    # one agent
    "AgentState", "AgentStatus", "Backend", "BaseBackend", "Behaviour", "Continue", "Event", "EventKind", "HaltAgent",
    "Proceed", "Prompt", "PromptAgain", "Response", "Skip", "Usage", "start_agent",
    # outcomes
    "Completed", "Failed", "NotFound", "Pending",
    # errors: values, and the exceptions callers catch
    "AgentCrashed", "AgentNotRunning", "ConfigError", "Overloaded", "PodiumError", "Reason", "ReasonKind",
    "RunFailed", "SessionClosed", "StartFailed",
]
