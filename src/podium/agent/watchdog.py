"""One timer per event loop for every running turn's deadline.

Arming a timer per turn would cost a timer handle per turn; here a turn only records its deadline,
and the single timer is rescheduled only when a new deadline is earlier than the one it waits for.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any
from weakref import WeakKeyDictionary

from podium.agent.events import Response
from podium.errors import Reason, ReasonKind, RunFailed

_watchdogs: WeakKeyDictionary[asyncio.AbstractEventLoop, Watchdog] = WeakKeyDictionary()


class Watchdog:
    __slots__ = ("_deadlines", "_handle", "_loop", "_when")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._deadlines: dict[object, tuple[float, Callable[..., None], tuple[Any, ...]]] = {}
        self._handle: asyncio.TimerHandle | None = None
        self._when = 0.0

    def arm(self, key: object, timeout: float, expire: Callable[..., None], *args: Any) -> None:
        """Call `expire(*args)` after `timeout` seconds unless `disarm(key)` comes first."""
        deadline = self._loop.time() + timeout
        self._deadlines[key] = (deadline, expire, args)
        if self._handle is None or deadline < self._when:
            self._schedule(deadline)

    def disarm(self, key: object) -> None:
        self._deadlines.pop(key, None)

    def _schedule(self, when: float) -> None:
        if self._handle is not None:
            self._handle.cancel()
        self._when = when
        self._handle = self._loop.call_at(when, self._fire)

    def _fire(self) -> None:
        self._handle = None
        now = self._loop.time()
        expired = [k for k, (deadline, _, _) in self._deadlines.items() if deadline <= now]
        for key in expired:
            _, expire, args = self._deadlines.pop(key)
            expire(*args)
        if self._deadlines:
            self._schedule(min(deadline for deadline, _, _ in self._deadlines.values()))


_last: Watchdog | None = None  # the last one asked for: nearly always the running loop's


def watchdog() -> Watchdog:
    """The watchdog of the running loop."""
    global _last
    loop = asyncio.get_running_loop()
    dog = _last
    if dog is not None and dog._loop is loop:  # no weak-reference lookup on every caller's wait
        return dog
    dog = _watchdogs.get(loop)
    if dog is None:
        dog = _watchdogs[loop] = Watchdog(loop)
    _last = dog
    return dog


async def wait_reply(future: asyncio.Future[Response], timeout: float | None, what: str) -> Response:
    """Await a reply future with a caller-side timeout (lighter than asyncio.wait_for: no extra task)."""
    if timeout is None or future.done():
        return await future
    dog = watchdog()
    dog.arm(future, timeout, _time_out, future, timeout, what)
    try:
        return await future
    finally:
        dog.disarm(future)


def _time_out(future: asyncio.Future[Response], timeout: float, what: str) -> None:
    if not future.done():
        future.set_exception(RunFailed(Reason(ReasonKind.TIMEOUT, f"no reply from {what} within {timeout}s")))
