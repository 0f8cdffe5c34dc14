"""The session's book of tokens: minting, the runs still pending, and the results waiting to be read.

Every caller gets exactly one answer: a token is closed once (`close`), and then either its asker's
future is resolved or its result waits here, in a bounded cache, for `poll`, `result` or `inbox`.

Tokens are opaque strings, unique across sessions and across the incarnations of one session name:
records outlive processes, so the session "nightly" started again must not hand out a token its
previous run already used. Each book draws a random incarnation id; a counter orders its tokens.
Nothing may parse a token.
"""

from __future__ import annotations

import asyncio
import secrets
from collections import OrderedDict
from typing import Literal

from podium import telemetry
from podium.agent.events import Response, Usage
from podium.agent.outcomes import NOT_FOUND, PENDING, Completed, Failed, PollResult
from podium.ensemble.ops import Token
from podium.errors import ConfigError, Reason, ReasonKind, RunFailed
from podium.telemetry import Telemetry

Kind = Literal["tell", "ask"]


class Run:
    """A pending token."""

    __slots__ = ("dispatches", "flying", "future", "kind", "orphaned", "usage", "waiters")

    def __init__(self, kind: Kind, future: asyncio.Future[Response] | None = None) -> None:
        self.kind = kind
        self.future = future  # an ask's caller waits on it
        self.waiters: list[asyncio.Future[None]] | None = None  # callers of result() on a tell
        self.dispatches = 0
        self.flying = 0  # dispatches of this token in flight right now
        self.usage: Usage | None = None
        # Set when an agent holding work of this token went down and the strategy cannot hear of it
        # (no handle_agent_down): the failure, and the dispatch count at that moment (see Tokens.lost).
        self.orphaned: tuple[Reason, int] | None = None


class Tokens:
    def __init__(self, session: str, max_results: int) -> None:
        self.session = session
        self.pending: dict[Token, Run] = {}
        self.results: OrderedDict[Token, PollResult] = OrderedDict()
        self.max_results = max_results
        self.last = 0  # the number of the last token minted
        self._prefix = f"{session}:{secrets.token_hex(6)}:"
        self.orphans: set[Token] = set()  # pending tokens marked by `lost`, until `settle` decides them

    def mint(self, run: Run) -> Token:
        self.last += 1
        token = f"{self._prefix}{self.last}"
        self.pending[token] = run
        if telemetry.active():
            telemetry.emit(Telemetry.TOKEN_START, session=self.session, token=token, kind=run.kind)
        return token

    def close(self, token: Token, response: Response | None, reason: Reason | None) -> None:
        """The one answer of a pending token: a response, or the reason it failed."""
        run = self.pending.pop(token)
        if run.kind == "ask":
            future = run.future
            if future is not None and not future.done():
                if reason is None:
                    future.set_result(response)  # type: ignore[arg-type]
                else:
                    future.set_exception(RunFailed(reason))
                    future.exception()  # a caller that timed out will never look
        else:
            self.results[token] = Completed(response) if reason is None else Failed(reason)  # type: ignore[arg-type]
            if len(self.results) > self.max_results:
                self.results.popitem(last=False)
            for waiter in run.waiters or ():
                if not waiter.done():
                    waiter.set_result(None)
        if telemetry.active():
            if reason is None:
                telemetry.emit(Telemetry.TOKEN_STOP, session=self.session, token=token, dispatches=run.dispatches,
                               usage=run.usage)
            else:
                telemetry.emit(Telemetry.TOKEN_ERROR, session=self.session, token=token, reason=reason.kind,
                               dispatches=run.dispatches)

    def lost(self, tokens: tuple[Token, ...], failure: Reason, *, orphans: bool) -> None:
        """The tokens that had work on an agent that went down, once the strategy had its say: each one
        with no work left in flight fails with `failure` (unless the strategy closed it or gave it work
        again). With `orphans` (the strategy cannot hear of downs), one whose other work is still out
        is marked: the strategy will never learn this part is lost, so once that work has landed nothing
        can complete the token, and `settle` fails it."""
        for token in tokens:
            run = self.pending.get(token)
            if run is None:
                continue
            if run.flying == 0:
                self.close(token, None, failure)
            elif orphans and run.orphaned is None:
                run.orphaned = (failure, run.dispatches)
                self.orphans.add(token)

    def settle(self) -> None:
        """Fail the marked tokens that have no work left in flight and were given none since the down;
        one the strategy gave new work is in its charge again."""
        for token in list(self.orphans):
            run = self.pending.get(token)
            if run is None:
                self.orphans.discard(token)
                continue
            failure, dispatches = run.orphaned  # type: ignore[misc]
            if run.dispatches > dispatches:
                run.orphaned = None
                self.orphans.discard(token)
            elif run.flying == 0:
                self.orphans.discard(token)
                self.close(token, None, failure)

    def count(self, token: Token | None, usage: Usage) -> None:
        run = self.pending.get(token) if token is not None else None
        if run is not None:
            run.usage = usage if run.usage is None else run.usage + usage

    def poll(self, token: Token) -> PollResult:
        if token in self.pending:
            return PENDING
        return self.results.pop(token, NOT_FOUND)

    async def result(self, token: Token, timeout: float | None) -> Response:
        run = self.pending.get(token)
        if run is not None:
            if run.kind != "tell":
                raise ConfigError(f"token {token} belongs to an ask; its caller receives the reply")
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            run.waiters = [*(run.waiters or ()), waiter]
            try:
                await asyncio.wait_for(waiter, timeout)
            except TimeoutError:
                raise RunFailed(Reason(ReasonKind.TIMEOUT, f"no reply within {timeout}s (token {token})")) from None
        outcome = self.results.pop(token, NOT_FOUND)
        if isinstance(outcome, Completed):
            return outcome.response
        if isinstance(outcome, Failed):
            raise RunFailed(outcome.reason)
        raise KeyError(f"unknown token {token!r} (never issued, or its result was already consumed)")

    def inbox(self) -> dict[Token, PollResult]:
        results = dict(self.results)
        self.results.clear()
        return results
