"""A handle on one sub-agent of a running session, for the people who operate and test it.

Strategies never see it (they name agents and return ops); a caller gets one with
`session.agent(name)` or `podium.whereis("<session>/<name>")`. It reads the agent's status and can
kill it: the agent goes down as if it had crashed, and the session runs its usual course (the
strategy's `handle_agent_down`, or the failure of the tokens that had work on it). A handle names the
agent it was made for: once that agent is gone, a fresh agent started under the same name is not it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from podium.agent.status import AgentState, AgentStatus
from podium.errors import Reason, ReasonKind

if TYPE_CHECKING:
    from podium.ensemble.runtime import AgentHandle


class SubAgent:
    __slots__ = ("_handle", "name", "session")

    def __init__(self, session: str, name: str, handle: AgentHandle) -> None:
        self.session = session
        self.name = name
        self._handle = handle

    @property
    def address(self) -> str:
        """Where it is registered: `<session>/<name>`."""
        return self._handle.name

    @property
    def alive(self) -> bool:
        return self._handle.alive

    def status(self) -> AgentStatus:
        """Its state (idle, processing, halted, stopped, down...), queue and current request."""
        return self._handle.status()

    @property
    def state(self) -> AgentState:
        return self._handle.status().state

    def interrupt(self) -> bool:
        """Abort its running turn (that request fails `interrupted`); False when none runs."""
        return self._handle.interrupt()

    def kill(self, detail: str = "killed") -> bool:
        """Take it down now, as a crash would (gen_agent's exit(:kill)); False if it was not running."""
        if not self._handle.alive:
            return False
        self._handle.kill(Reason(ReasonKind.KILLED, detail, self.address))
        return True

    def __repr__(self) -> str:
        return f"SubAgent({self.address!r}, {self.status().state.value})"
