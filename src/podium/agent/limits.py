"""An agent's bounds: what may wait in its mailbox, and what one turn keeps of its stream.

The defaults are gen_agent's: 1,000 queued prompts and 1,000 queued notifications, each queue capped
at 1 MiB; a turn keeps at most 1,000 events and 1 MiB of them. A full queue refuses with `Overloaded`
and queues nothing; a turn past its capture bound goes on, keeping its response text whole.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from podium.errors import ConfigError

MIB = 1 << 20

# Option keys the agent itself consumes; the rest of the options go to `Behaviour.init_agent`.
AGENT_OPTIONS = (
    "backend", "max_pending_prompts", "max_pending_notifications", "max_pending_prompt_bytes",
    "max_pending_notification_bytes", "max_tell_results", "max_turn_events", "max_turn_bytes", "turn_timeout",
)


@dataclass(frozen=True, slots=True)
class AgentLimits:
    max_prompts: int = 1000
    max_prompt_bytes: int = MIB
    max_notes: int = 1000
    max_note_bytes: int = MIB
    max_results: int = 100
    max_turn_events: int = 1000  # the terminal event included
    max_turn_bytes: int = MIB  # of the events before the terminal one (which is always kept)
    turn_timeout: float | None = 600.0

    @classmethod
    def from_opts(cls, opts: Mapping[str, Any], name: str) -> AgentLimits:
        if not any(key in opts for key in AGENT_OPTIONS[1:]):
            return DEFAULT_LIMITS  # shared: ten thousand agents need not hold ten thousand copies
        timeout = opts.get("turn_timeout", 600.0)
        if timeout is not None and (not isinstance(timeout, int | float) or isinstance(timeout, bool)
                                    or timeout <= 0):
            raise ConfigError(f"agent {name!r}: turn_timeout must be a positive number of seconds or None")
        return cls(
            _count(opts, "max_pending_prompts", 1000, name, 0),
            _count(opts, "max_pending_prompt_bytes", MIB, name, 0),
            _count(opts, "max_pending_notifications", 1000, name, 0),
            _count(opts, "max_pending_notification_bytes", MIB, name, 0),
            _count(opts, "max_tell_results", 100, name, 0),
            _count(opts, "max_turn_events", 1000, name, 1),
            _count(opts, "max_turn_bytes", MIB, name, 0),
            timeout,
        )


DEFAULT_LIMITS = AgentLimits()


def _count(opts: Mapping[str, Any], key: str, default: int, name: str, minimum: int) -> int:
    value = opts.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise ConfigError(f"agent {name!r}: {key} must be an integer >= {minimum}, got {value!r}")
    return value
