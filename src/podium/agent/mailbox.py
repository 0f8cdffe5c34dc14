"""What waits for an agent: its mailbox of prompts, the one self-chained prompt, and notifications.

The bounds apply to what waits, never to what starts: a request sent to an idle agent starts at once
whatever the limits (gen_agent handles a call to an idle agent without queueing it), so an agent with
a zero-size mailbox still takes work sent from its own completion. A self-chained prompt
(`PromptAgain`) has its own slot, outside the mailbox: it neither takes a mailbox slot nor can be
refused. A refusal queues nothing.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

from podium.agent.backend import Prompt
from podium.agent.events import Response
from podium.agent.limits import AgentLimits
from podium.agent.sizes import payload_size
from podium.agent.status import OnComplete


class Request:
    """One accepted prompt and how its single outcome is delivered (a callback, a future, or the
    agent's own result store for `tell`)."""

    __slots__ = ("done", "future", "on_complete", "prompt", "ref", "size", "store")

    def __init__(self, ref: int, prompt: str | Prompt, on_complete: OnComplete | None = None,
                 future: asyncio.Future[Response] | None = None, store: bool = False) -> None:
        self.ref = ref
        self.prompt = prompt
        self.on_complete = on_complete
        self.future = future
        self.store = store
        self.done = False
        self.size = 0  # bytes counted against the mailbox while it waits (0: it started at once)


class Mailbox:
    __slots__ = ("chain", "limits", "note_bytes", "notes", "prompt_bytes", "prompts")

    def __init__(self, limits: AgentLimits) -> None:
        self.limits = limits
        self.prompts: deque[Request] = deque()
        self.prompt_bytes = 0
        self.chain: Request | None = None  # the self-chained prompt, which runs before the mailbox
        self.notes: deque[tuple[Any, int]] = deque()  # (event, bytes counted for it)
        self.note_bytes = 0

    def put(self, request: Request, waits: bool) -> str | None:
        """Queue a prompt. `waits`: it cannot start at once (a turn runs, or work is ahead of it).
        Returns None, or why it was refused."""
        if waits:
            limits = self.limits
            if len(self.prompts) >= limits.max_prompts:
                return f"prompt queue full ({limits.max_prompts} prompts)"
            size = payload_size(request.prompt)
            if self.prompt_bytes + size > limits.max_prompt_bytes:
                return (f"prompt queue full: {size:,} bytes would exceed {limits.max_prompt_bytes:,} "
                        f"({self.prompt_bytes:,} queued)")
            request.size = size
            self.prompt_bytes += size
        self.prompts.append(request)
        return None

    def put_front(self, request: Request) -> None:
        """Put back a request that was taken but did not run (pre_turn halted the agent)."""
        self.prompts.appendleft(request)
        self.prompt_bytes += request.size  # `take` had let go of it

    def take(self) -> Request | None:
        """The next prompt to run: the self-chained one, else the oldest in the mailbox."""
        chain = self.chain
        if chain is not None:
            self.chain = None
            return chain
        if not self.prompts:
            return None
        request = self.prompts.popleft()
        if request.size:
            self.prompt_bytes -= request.size
        return request

    def remove(self, ref: int) -> Request | None:
        """Take one waiting prompt out (interrupt_request); None when no such prompt waits."""
        if self.chain is not None and self.chain.ref == ref:
            request, self.chain = self.chain, None
            return request
        for request in self.prompts:
            if request.ref == ref:
                self.prompts.remove(request)
                self.prompt_bytes -= request.size
                return request
        return None

    def put_note(self, event: Any, waits: bool) -> str | None:
        """Queue a notification; None, or why it was refused."""
        size = 0
        if waits:
            limits = self.limits
            if len(self.notes) >= limits.max_notes:
                return f"notification queue full ({limits.max_notes} notifications)"
            size = payload_size(event)
            if self.note_bytes + size > limits.max_note_bytes:
                return (f"notification queue full: {size:,} bytes would exceed {limits.max_note_bytes:,} "
                        f"({self.note_bytes:,} queued)")
            self.note_bytes += size
        self.notes.append((event, size))
        return None

    def take_note(self) -> Any:
        event, size = self.notes.popleft()
        self.note_bytes -= size
        return event

    def drain(self) -> list[Request]:
        """Every waiting prompt, the chained one first; the mailbox is left empty."""
        requests = [] if self.chain is None else [self.chain]
        requests.extend(self.prompts)
        self.chain = None
        self.prompts.clear()
        self.prompt_bytes = 0
        return requests
