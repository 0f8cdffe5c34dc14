"""One agent (the GenAgent model): behaviour callbacks, the backend protocol, events and the actor."""

from podium.agent.actor import Agent, start_agent
from podium.agent.backend import Backend, BaseBackend, Prompt, prompt_text
from podium.agent.behaviour import Behaviour, Continue, HaltAgent, Proceed, PromptAgain, Skip, TurnResult
from podium.agent.events import Event, EventKind, Response, Usage
from podium.agent.outcomes import Completed, Completion, Failed, NotFound, Pending, PollResult
from podium.agent.status import AgentState, AgentStatus

__all__ = [
    "Agent", "AgentState", "AgentStatus", "Backend", "BaseBackend", "Behaviour", "Completed", "Completion",
    "Continue", "Event", "EventKind", "Failed", "HaltAgent", "NotFound", "Pending", "PollResult", "Proceed",
    "Prompt", "PromptAgain", "Response", "Skip", "TurnResult", "Usage", "prompt_text", "start_agent",
]
