"""A hypothesis state machine drives a session with random interleavings of tells, asks, completions,
late and duplicate completions, agent crashes, rejections and halts, and checks the seed's promise:
every token receives exactly one terminal outcome, and no response of a closed token reaches the
strategy.

`SessionMachine` is reusable: subclass it with another `make_strategy` / `submit` to run the same
invariant over another strategy.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from podium import telemetry
from podium.agent import Behaviour, Response
from podium.agent.outcomes import Completion
from podium.ensemble import AgentSpec, Dispatch, Halt, Reply, ReplyError, Session, Start, Strategy
from podium.errors import Reason, ReasonKind
from podium.telemetry import Telemetry
from tests.support import GateBackend

AGENTS = ("a", "b", "c")


class KeyedGates(GateBackend):
    """Gates keyed by `<agent>:<prompt>`; the reply text is the prompt (the token) itself."""

    async def start_session(self, opts: Mapping[str, Any]) -> dict[str, Any]:
        return {"who": opts["who"]}

    async def prompt(self, session: Any, prompt: Any) -> Any:  # type: ignore[override]
        async for event in super().prompt(session, f"{session['who']}:{prompt}"):
            yield event


@dataclass(frozen=True)
class ProbeState:
    backend: Any
    fifo: Mapping[str, tuple[str, ...]]  # per agent, the tokens it was sent, in order
    leave_open: bool  # leave failed tokens for the session to close


class Probe(Strategy[ProbeState]):
    """Routes by `agent=`; `race=True` sends to two agents, the first answer wins. Pure, except for the
    test hook `check`, which looks at the session to prove fencing from the strategy's side."""

    check: Any = None

    def init(self, opts: Mapping[str, Any]) -> Any:
        backend = opts["backend"]
        specs = [AgentSpec(n, Behaviour(), {"backend": backend, "who": n, "max_pending_prompts": 1}) for n in AGENTS]
        return ProbeState(backend, {n: () for n in AGENTS}, opts["leave_open"]), specs

    def handle_tell(self, prompt: Any, opts: Any, token: str, s: ProbeState) -> Any:
        first = opts["agent"]
        targets = [first, AGENTS[(AGENTS.index(first) + 1) % len(AGENTS)]] if opts.get("race") else [first]
        fifo = dict(s.fifo)
        for agent in targets:
            fifo[agent] = (*fifo.get(agent, ()), token)
        return [Dispatch(a, token, token) for a in targets], replace(s, fifo=fifo)

    def _close(self, agent: str, token: str, s: ProbeState) -> ProbeState:
        assert s.fifo[agent] and s.fifo[agent][0] == token, (agent, token, s.fifo)  # agents answer in order
        return replace(s, fifo={a: tuple(t for t in q if t != token) for a, q in s.fifo.items()})

    def handle_response(self, agent: str, response: Response, s: ProbeState) -> Any:
        token = response.text.removeprefix("re: ").split(":", 1)[1]  # "<agent>:<token>"
        Probe.check(token)
        return [Reply(token, response)], self._close(agent, token, s)

    def handle_error(self, agent: str, reason: Reason, s: ProbeState) -> Any:
        token = s.fifo[agent][0]
        Probe.check(token)
        return [ReplyError(token, reason)], self._close(agent, token, s)

    def handle_dispatch_rejected(self, agent: str, token: str, reason: Reason, s: ProbeState) -> Any:
        fifo = {a: tuple(t for t in q if t != token) for a, q in s.fifo.items()}
        ops = [] if s.leave_open else [ReplyError(token, reason)]
        return ops, replace(s, fifo=fifo)

    def handle_agent_down(self, agent: str, reason: Reason, s: ProbeState) -> Any:
        fifo = {**s.fifo, agent: ()}
        # A raced token still queued on another agent will be answered there; the others are lost.
        lost = [t for t in s.fifo.get(agent, ()) if not any(t in q for q in fifo.values())]
        ops: list[Any] = [] if s.leave_open else [ReplyError(t, reason) for t in lost]
        ops.append(Start(agent, Behaviour(), {"backend": s.backend, "who": agent, "max_pending_prompts": 1}))
        return ops, replace(s, fifo=fifo)

    def handle_notify(self, event: Any, s: ProbeState) -> Any:
        return [Halt(Reason(ReasonKind.FAILED, str(event)))], s


class SessionMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.closes: Counter[str] = Counter()
        self.issued: set[str] = set()
        self.asks: list[asyncio.Future[Any]] = []
        self.violations: list[str] = []
        self.detach = telemetry.attach(self._on_telemetry)
        self.session: Session | None = None
        self.backend = KeyedGates()
        Probe.check = self._check

    def _on_telemetry(self, event: Telemetry, meta: Mapping[str, Any]) -> None:
        if event in (Telemetry.TOKEN_STOP, Telemetry.TOKEN_ERROR):
            self.closes[meta["token"]] += 1

    def _check(self, token: str) -> None:
        if self.session is None or token not in self.session._pending:
            self.violations.append(f"the strategy was handed a result of closed token {token}")

    def run(self, coro: Any = None) -> Any:
        result = self.loop.run_until_complete(coro) if coro is not None else None
        for _ in range(12):  # let every ready task run
            self.loop.run_until_complete(asyncio.sleep(0))
        return result

    def ensure_session(self, leave_open: bool) -> Session:
        if self.session is None or self.session.closed:
            self.backend = KeyedGates()
            self.session = self.run(Session.start(Probe(), backend=self.backend, leave_open=leave_open))
        return self.session

    # ------------------------------------------------------------------ rules

    @rule(agent=st.sampled_from(AGENTS), race=st.booleans(), leave_open=st.booleans())
    def tell(self, agent: str, race: bool, leave_open: bool) -> None:
        session = self.ensure_session(leave_open)
        self.issued.add(session.tell("p", agent=agent, race=race))
        self.run()

    @rule(agent=st.sampled_from(AGENTS), race=st.booleans(), leave_open=st.booleans())
    def ask(self, agent: str, race: bool, leave_open: bool) -> None:
        session = self.ensure_session(leave_open)
        before = session._tokens.last
        self.asks.append(self.loop.create_task(session.ask("p", agent=agent, race=race, timeout=None)))
        self.run()  # the ask's task runs and mints its token
        self.issued.add(f"{session.name}:{before + 1}")

    @precondition(lambda self: bool(self.backend.waiting))
    @rule(pick=st.integers(min_value=0), outcome=st.sampled_from(["succeed", "fail", "crash"]))
    def complete(self, pick: int, outcome: str) -> None:
        keys = sorted(self.backend.waiting)
        getattr(self.backend, outcome)(keys[pick % len(keys)])
        self.run()

    @precondition(lambda self: self.session is not None and not self.session.closed)
    @rule(agent=st.sampled_from(AGENTS), ref=st.integers(min_value=1, max_value=6), ok=st.booleans())
    def stray_completion(self, agent: str, ref: int, ok: bool) -> None:
        """A completion the runtime did not produce for a live turn: a duplicate, or a late one."""
        record = self.session._agents.get(agent)  # type: ignore[union-attr]
        if record is None:
            return
        self.inject_stray(record, ref, ok)

    def inject_stray(self, record: Any, ref: int, ok: bool) -> None:
        """Hand the session a completion for `ref` of an agent, twice."""
        token = record.flights.get(ref, "stale")
        completion = Completion(record.handle.name, ref, Response(f"{record.name}:{token}") if ok else None,
                                None if ok else Reason(ReasonKind.BACKEND_ERROR, "stray"))
        record.on_complete(completion)
        record.on_complete(completion)  # and its duplicate
        self.run()

    @precondition(lambda self: self.session is not None and not self.session.closed)
    @rule()
    def halt(self) -> None:
        self.session.notify("halt")  # type: ignore[union-attr]
        self.run()

    # ------------------------------------------------------------------ invariants

    @invariant()
    def no_result_of_a_closed_token_reached_the_strategy(self) -> None:
        assert not self.violations, self.violations

    @invariant()
    def no_token_closed_twice(self) -> None:
        twice = [t for t, n in self.closes.items() if n > 1]
        assert not twice, f"closed more than once: {twice}"

    @invariant()
    def no_token_hangs_once_no_turn_is_running(self) -> None:
        if self.session is not None and not self.backend.waiting:
            assert not self.session._pending, f"pending with no work left: {sorted(self.session._pending)}"

    @invariant()
    def a_halted_session_left_nothing_pending(self) -> None:
        if self.session is not None and self.session.closed:
            assert not self.session._pending

    def teardown(self) -> None:
        try:
            if self.session is not None:
                while self.backend.waiting:
                    for key in list(self.backend.waiting):
                        self.backend.succeed(key)
                    self.run()
                self.run(self.session.stop())
            missing = [t for t in self.issued if self.closes[t] != 1]
            assert not missing, f"tokens without exactly one outcome: {missing}"
            assert all(f.done() for f in self.asks), "an ask never returned"
            for future in self.asks:
                future.exception() if not future.cancelled() else None
        finally:
            self.detach()
            Probe.check = None
            self.loop.close()


SessionMachine.TestCase.settings = settings(
    max_examples=60, stateful_step_count=30, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TestSessionInvariants = SessionMachine.TestCase
