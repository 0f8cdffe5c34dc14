"""Retries with exponential backoff and jitter, and the mapping of failures to `Reason` values.

A backend turns whatever went wrong into a `Failure` (what kind, whether another try may help, how long
the server asked us to wait); `stream_with_retries` does the rest. A stream is retried only while it has
not yielded anything: once text reached the agent, a second attempt would duplicate it, so a failure
after that ends the turn with a terminal error event instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from podium.agent.events import Event
from podium.errors import Reason, ReasonKind

Sleep = Callable[[float], Awaitable[None]]


class StreamCut(Exception):
    """The server ended a stream before saying the model had finished (retryable before any event)."""


@dataclass(frozen=True, slots=True)
class Failure:
    """One failed attempt, classified."""

    kind: ReasonKind
    detail: str
    retryable: bool = False
    retry_after: float | None = None

    def reason(self) -> Reason:
        return Reason(self.kind, self.detail)

    def event(self, **data: object) -> Event:
        """The terminal error event that ends a turn with this failure."""
        return Event.error(self.detail, reason=self.reason(), **data)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How often and how long to wait between attempts.

    The delay before attempt n+1 is base_delay * 2**(n-1), capped at max_delay, of which the upper half
    is random (`jitter()` in [0, 1)) so that agents failing together do not retry together. A server's
    Retry-After wins when given, up to max_retry_after; asking for longer fails at once (rate_limited)
    rather than hanging an agent for minutes.
    """

    max_attempts: int = 4
    base_delay: float = 0.5
    max_delay: float = 30.0
    max_retry_after: float = 120.0
    jitter: Callable[[], float] = field(default=random.random, repr=False)
    sleep: Sleep = field(default=asyncio.sleep, repr=False)

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        if retry_after is not None:
            return max(0.0, retry_after)
        ceiling = min(self.max_delay, self.base_delay * 2 ** (attempt - 1))
        return ceiling / 2 + self.jitter() * ceiling / 2


NO_RETRY = RetryPolicy(max_attempts=1)


def retry_after_seconds(headers: Mapping[str, str] | None, now: datetime | None = None) -> float | None:
    """Seconds a server asked us to wait (Retry-After as seconds or as an HTTP date, or retry-after-ms)."""
    if not headers:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def failure_from_status(status: int, message: str, headers: Mapping[str, str] | None = None,
                        where: str = "the model server") -> Failure:
    """Classify an HTTP error status the same way for every backend."""
    retry_after = retry_after_seconds(headers)
    if status == 429:
        return Failure(ReasonKind.RATE_LIMITED, f"{where} is rate limiting requests (429): {message}",
                       retryable=True, retry_after=retry_after)
    if status in (401, 403):
        return Failure(ReasonKind.FORBIDDEN,
                       f"{where} refused the credentials ({status}): {message}; check the API key")
    if status == 408:
        return Failure(ReasonKind.TIMEOUT, f"{where} timed out the request (408): {message}",
                       retryable=True, retry_after=retry_after)
    if status == 409:
        return Failure(ReasonKind.BACKEND_ERROR, f"{where} reported a conflict (409): {message}",
                       retryable=True, retry_after=retry_after)
    if status >= 500:
        return Failure(ReasonKind.BACKEND_ERROR, f"{where} failed ({status}): {message}",
                       retryable=True, retry_after=retry_after)
    return Failure(ReasonKind.INVALID_REQUEST, f"{where} rejected the request ({status}): {message}")


async def stream_with_retries(attempt: Callable[[], AsyncIterator[Event]],
                              classify: Callable[[BaseException], Failure],
                              policy: RetryPolicy) -> AsyncIterator[Event]:
    """Run `attempt()` until it streams to the end, retrying failures that happen before its first event.

    Always ends with exactly one terminal event: the attempt's own, or an error event carrying a Reason.
    """
    number = 0
    while True:
        number += 1
        emitted = False
        try:
            # aclosing: an interrupted turn closes the attempt (and its HTTP stream) now, not at GC time.
            async with contextlib.aclosing(attempt()) as events:
                async for event in events:
                    emitted = True
                    yield event
                    if event.terminal:
                        return
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            failure = classify(exc)
            out_of_tries = number >= policy.max_attempts
            if emitted or not failure.retryable or out_of_tries:
                if failure.retryable and out_of_tries and policy.max_attempts > 1:
                    failure = Failure(failure.kind, f"{failure.detail} (gave up after {number} attempts)")
                yield failure.event(attempts=number)
                return
            wait = policy.delay(number, failure.retry_after)
            if failure.retry_after is not None and failure.retry_after > policy.max_retry_after:
                yield Failure(failure.kind, f"{failure.detail} (the server asks to wait "
                              f"{failure.retry_after:.0f} s, more than the {policy.max_retry_after:.0f} s "
                              "allowed)").event(attempts=number)
                return
            await policy.sleep(wait)
            continue
        # The attempt ended without a terminal event: a bug in the backend, never the server's doing.
        yield Event.error("the backend stream ended without a result",
                          reason=Reason(ReasonKind.NO_TERMINAL_EVENT, "backend stream ended early"))
        return
