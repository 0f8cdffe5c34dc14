"""A session of agents driven by a pure strategy (the seed's Strategy behaviour)."""

from podium.ensemble.inputs import Input, Recorder
from podium.ensemble.ops import AgentSpec, Dispatch, Forward, Halt, Op, Reply, ReplyError, Start, Stop, Token
from podium.ensemble.runtime import AgentHandle, AgentRuntime, LocalRuntime
from podium.ensemble.session import Session
from podium.ensemble.strategy import Strategy

__all__ = [
    "AgentHandle", "AgentRuntime", "AgentSpec", "Dispatch", "Forward", "Halt", "Input", "LocalRuntime", "Op",
    "Recorder", "Reply", "ReplyError", "Session", "Start", "Stop", "Strategy", "Token",
]
