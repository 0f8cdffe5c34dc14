"""The bound on what one turn keeps of its stream (gen_agent's per-turn capture limits).

A turn keeps the events of its stream until `max_turn_events` (the terminal event counted) or
`max_turn_bytes` would be passed; from then on the events are counted and dropped, and only what the
response needs of them is kept: the text deltas (the response text stays whole) and the last usage
report. The terminal event is always kept. A 5,000-event stream thus costs 1,000 events, not 5,001.
"""

from __future__ import annotations

from collections.abc import Sequence

from podium.agent.events import Event, EventKind, Response, Usage
from podium.agent.sizes import payload_size


def event_size(event: Event) -> int:
    return payload_size(event.data)


class Overflow:
    """What a turn streamed past its capture bound."""

    __slots__ = ("dropped", "text", "usage")

    def __init__(self) -> None:
        self.dropped = 0
        self.text: list[str] = []
        self.usage: Event | None = None

    def add(self, event: Event) -> None:
        self.dropped += 1
        if event.kind is EventKind.TEXT:
            self.text.append(event.data.get("text", ""))
        elif event.kind is EventKind.USAGE:
            self.usage = event

    def response(self, kept: Sequence[Event], terminal: Event, duration_ms: float,
                 session_id: str | None) -> Response:
        """The turn's response from the events kept, completed by what was dropped."""
        whole = Response.from_events((*kept, terminal), duration_ms, session_id)
        text = whole.text
        if terminal.data.get("text") is None:  # the text is the deltas: the kept ones, then the dropped
            text += "".join(self.text)
        usage = whole.usage if self.usage is None else Usage.from_event(self.usage)
        return Response(text, whole.events, usage, duration_ms, session_id, self.dropped)
