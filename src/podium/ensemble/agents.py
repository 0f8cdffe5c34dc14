"""The session's record of one started agent: its work in flight, in dispatch order."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from podium.agent.outcomes import Completion
from podium.ensemble.ops import Token
from podium.ensemble.runtime import AgentHandle


class AgentRecord:
    """`gen` tells apart two agents that share a name (one stopped, a new one started)."""

    __slots__ = ("flights", "gen", "handle", "held", "name", "on_complete")

    def __init__(self, name: str, gen: int, handle: AgentHandle, on_complete: Callable[[Completion], None]) -> None:
        self.name = name
        self.gen = gen
        self.handle = handle
        self.on_complete = on_complete
        self.flights: dict[int, Token | None] = {}  # ref -> token of the dispatch in flight, in dispatch order
        self.held: dict[int, Completion] | None = None  # completions that overtook an earlier dispatch

    def in_order(self, completion: Completion) -> Iterator[Completion]:
        """The completions to deliver now, oldest dispatch first: none for an unknown or duplicate ref,
        none while an earlier dispatch is still out (this one is held until it lands).

        Strategies correlate an agent's answers by the order of their dispatches; a runtime that
        delivers out of order (a remote one may) is put back in order here. The caller pops each
        delivered ref from `flights` before asking for the next."""
        flights = self.flights
        if completion.ref not in flights:
            return
        if len(flights) > 1 and completion.ref != next(iter(flights)):
            if self.held is None:
                self.held = {}
            self.held[completion.ref] = completion
            return
        yield completion
        while self.held and flights and next(iter(flights)) in self.held:
            yield self.held.pop(next(iter(flights)))

    def drop(self) -> list[Token]:
        """Drop the work in flight (the agent stopped or went down); the tokens it was for."""
        tokens = [t for t in self.flights.values() if t is not None]
        self.flights.clear()
        self.held = None
        return tokens
