"""A session of agents driven by a pure strategy (the seed's Strategy behaviour)."""

from podium.ensemble.inputs import (
    AgentDownInput,
    AskInput,
    DispatchRejectedInput,
    ErrorInput,
    Input,
    NotifyInput,
    Recorder,
    ResponseInput,
    TellInput,
)
from podium.ensemble.ops import AgentSpec, Dispatch, Forward, Halt, Op, Reply, ReplyError, Start, Stop, Token
from podium.ensemble.registry import find_session, sessions, whereis
from podium.ensemble.runtime import AgentHandle, AgentRuntime, LocalRuntime
from podium.ensemble.session import Session
from podium.ensemble.strategy import Strategy
from podium.ensemble.subagent import SubAgent

__all__ = [
    "AgentDownInput", "AgentHandle", "AgentRuntime", "AgentSpec", "AskInput", "Dispatch", "DispatchRejectedInput",
    "ErrorInput", "Forward", "Halt", "Input", "LocalRuntime", "NotifyInput", "Op", "Recorder", "Reply", "ReplyError",
    "ResponseInput", "Session", "Start", "Stop", "Strategy", "SubAgent", "TellInput", "Token", "find_session",
    "sessions", "whereis",
]
