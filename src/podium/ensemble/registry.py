"""The sessions running in this process, by name, and the lookup of one sub-agent by its address.

gen_agent registers every sub-agent as `<session>/<bare name>`; here the registry is the table of
running sessions, and `whereis("nightly/planner")` finds the agent through its session. A session is
registered while it starts and leaves the table when it stops or halts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from podium.ensemble.session import Session
    from podium.ensemble.subagent import SubAgent

_live: dict[str, Session] = {}


def claim(session: Session) -> None:
    """Reserve the session's name; StartFailed if a running session holds it."""
    from podium.errors import StartFailed

    if session.name in _live:
        raise StartFailed(f"a session named {session.name!r} is already running; stop it or choose another name")
    _live[session.name] = session


def release(session: Session) -> None:
    if _live.get(session.name) is session:
        del _live[session.name]


def sessions() -> list[Session]:
    """The sessions of this process that are running (started, not stopped or halted), oldest first."""
    return [s for s in _live.values() if not s.closed and s.started]


def find_session(name: str) -> Session | None:
    """The running session of that name, or None."""
    session = _live.get(name)
    return session if session is not None and not session.closed and session.started else None


def whereis(address: str) -> SubAgent | None:
    """The sub-agent registered as `<session>/<name>`, or None when no running session has it."""
    session_name, sep, agent = address.rpartition("/")
    session = find_session(session_name) if sep else None
    if session is None or agent not in session.agents():
        return None
    return session.agent(agent)


def running_sessions() -> dict[str, Session]:
    """The sessions of this process that have not stopped, by name (starting ones included)."""
    return dict(_live)
