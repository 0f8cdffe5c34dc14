"""A blocking facade for scripts and notebooks: the session runs on an event loop in a background thread."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from podium.agent.backend import Prompt
from podium.agent.events import Response
from podium.agent.outcomes import PollResult
from podium.ensemble.ops import Token
from podium.ensemble.session import Session
from podium.ensemble.strategy import Strategy
from podium.errors import SessionClosed

T = TypeVar("T")


class SyncSession:
    """`with SyncSession(Solo(), backend=...) as session: session.ask("hi")` — no asyncio in sight."""

    def __init__(self, strategy: Strategy[Any], **opts: Any) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="podium-session", daemon=True)
        self._thread.start()
        async def start() -> Session:
            return await Session.start(strategy, **opts)

        try:
            self._session: Session = self._run(start())
        except BaseException:
            self._shutdown()
            raise

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        if self._loop.is_closed():
            coro.close()
            raise SessionClosed("the session has stopped")
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    def _call(self, fn: Callable[[], T]) -> T:
        async def call() -> T:
            return fn()

        return self._run(call())

    def tell(self, prompt: str | Prompt, **opts: Any) -> Token:
        return self._call(lambda: self._session.tell(prompt, **opts))

    def ask(self, prompt: str | Prompt, *, timeout: float | None = 30.0, **opts: Any) -> Response:
        return self._run(self._session.ask(prompt, timeout=timeout, **opts))

    def poll(self, token: Token) -> PollResult:
        return self._call(lambda: self._session.poll(token))

    def result(self, token: Token, timeout: float | None = None) -> Response:
        return self._run(self._session.result(token, timeout))

    def inbox(self) -> dict[Token, PollResult]:
        return self._call(self._session.inbox)

    def notify(self, event: Any) -> None:
        self._call(lambda: self._session.notify(event))

    def status(self) -> dict[str, Any]:
        return self._call(self._session.status)

    def stop(self) -> None:
        if self._thread.is_alive():
            try:
                self._run(self._session.stop())
            finally:
                self._shutdown()

    def _shutdown(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()

    def __enter__(self) -> SyncSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
