"""A hypothesis state machine drives a session with random interleavings of tells, asks, completions,
late and duplicate completions, agent crashes and kills, rejections and halts, and checks the seed's
promise: every token receives exactly one terminal outcome, no response of a closed token reaches the
strategy, nothing stays pending once no turn runs, and only a busy agent refuses a dispatch.

What it varies, besides the order of events:
- the agents' mailboxes: size 0 or 1 (`queue`), so rejections happen, and so does work an agent is
  sent from its own completion (a `chain` request: its second step goes to the agent that answered
  the first, which must take it even with a zero-size mailbox);
- the shape of a request (`mode`): one agent, a race of two (the first answer wins), a join of two
  (the reply waits for both: a crash of one in the middle must not leave the token hanging), or a
  chain of two steps on one agent;
- the strategy: `Probe` handles agent downs itself (and restarts the agent), `Deaf` leaves them to
  the session (no handle_agent_down), which must then fail what the dead agent held, even when the
  token still had work elsewhere.

`SessionMachine` is reusable: subclass it with another `ensure_session` / `tell` / `ask` to run the
same invariants over another strategy (tests/strategies/test_invariants_all.py does).
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
from podium.agent import AgentState, Behaviour, Response
from podium.agent.outcomes import Completion
from podium.ensemble import AgentSpec, Dispatch, Halt, Reply, ReplyError, Session, Start, Strategy
from podium.errors import Reason, ReasonKind
from podium.telemetry import Telemetry
from tests.support import GateBackend

AGENTS = ("a", "b", "c")
MODES = ("single", "race", "join", "chain")


class KeyedGates(GateBackend):
    """Gates keyed by `<agent>:<prompt>`; the reply text is that key itself."""

    async def start_session(self, opts: Mapping[str, Any]) -> dict[str, Any]:
        return {"who": opts["who"]}

    async def prompt(self, session: Any, prompt: Any) -> Any:  # type: ignore[override]
        async for event in super().prompt(session, f"{session['who']}:{prompt}"):
            yield event


@dataclass(frozen=True)
class ProbeState:
    backend: Any
    queue: int  # the agents' max_pending_prompts
    fifo: Mapping[str, tuple[str, ...]]  # per agent, the prompts it was sent, in order
    modes: Mapping[str, str]  # token -> its request's shape
    owed: Mapping[str, frozenset[str]]  # a join's token -> the agents whose answer it still waits for
    leave_open: bool  # leave failed tokens for the session to close


def step_prompt(token: str, step: int) -> str:
    return token if step == 1 else f"{token}|{step}"


def parse_prompt(prompt: str) -> tuple[str, int]:
    token, _, step = prompt.partition("|")
    return token, int(step or 1)


class Probe(Strategy[ProbeState]):
    """Routes by `agent=`; `mode=` shapes the request (see the module's docstring). Pure, except for the
    test hooks `check` and `check_rejection`, which look at the session to prove fencing and that
    only a busy agent refuses, from the strategy's side."""

    check: Any = None
    check_rejection: Any = None

    def init(self, opts: Mapping[str, Any]) -> Any:
        backend, queue = opts["backend"], opts["queue"]
        specs = [self.spec(n, backend, queue) for n in AGENTS]
        return ProbeState(backend, queue, {n: () for n in AGENTS}, {}, {}, opts["leave_open"]), specs

    @staticmethod
    def spec(name: str, backend: Any, queue: int) -> AgentSpec:
        return AgentSpec(name, Behaviour(), {"backend": backend, "who": name, "max_pending_prompts": queue})

    def handle_tell(self, prompt: Any, opts: Any, token: str, s: ProbeState) -> Any:
        first, mode = opts["agent"], opts["mode"]
        targets = [first, AGENTS[(AGENTS.index(first) + 1) % len(AGENTS)]] if mode in ("race", "join") else [first]
        fifo = dict(s.fifo)
        for agent in targets:
            fifo[agent] = (*fifo.get(agent, ()), token)
        owed = {**s.owed, token: frozenset(targets)} if mode == "join" else s.owed
        return [Dispatch(a, token, token) for a in targets], replace(
            s, fifo=fifo, modes={**s.modes, token: mode}, owed=owed)

    def _pop(self, agent: str, token: str, s: ProbeState) -> tuple[int, ProbeState]:
        """The step of the agent's oldest request, which this answer must belong to (agents answer in order)."""
        assert s.fifo[agent] and parse_prompt(s.fifo[agent][0])[0] == token, (agent, token, s.fifo)
        return parse_prompt(s.fifo[agent][0])[1], replace(s, fifo={**s.fifo, agent: s.fifo[agent][1:]})

    def _close(self, token: str, s: ProbeState) -> ProbeState:
        """The token is answered: no agent's later result for it will reach us (the session fences it)."""
        return replace(s, fifo={a: tuple(p for p in q if parse_prompt(p)[0] != token) for a, q in s.fifo.items()},
                       owed={t: o for t, o in s.owed.items() if t != token})

    def handle_response(self, agent: str, response: Response, s: ProbeState) -> Any:
        token, _ = parse_prompt(response.text.removeprefix("re: ").split(":", 1)[1])  # "<agent>:<prompt>"
        Probe.check(token)
        step, s = self._pop(agent, token, s)
        mode = s.modes[token]
        if mode == "chain" and step == 1:  # the second step goes to the agent that just answered
            nxt = step_prompt(token, 2)
            return [Dispatch(agent, nxt, token)], replace(s, fifo={**s.fifo, agent: (*s.fifo[agent], nxt)})
        if mode == "join":
            owed = s.owed[token] - {agent}
            if owed:
                return [], replace(s, owed={**s.owed, token: owed})
        return [Reply(token, response)], self._close(token, s)

    def handle_error(self, agent: str, reason: Reason, s: ProbeState) -> Any:
        token, _ = parse_prompt(s.fifo[agent][0])
        Probe.check(token)
        return [ReplyError(token, reason)], self._close(token, s)

    def handle_dispatch_rejected(self, agent: str, token: str, reason: Reason, s: ProbeState) -> Any:
        Probe.check_rejection(agent, reason)
        ops = [] if s.leave_open else [ReplyError(token, reason)]
        return ops, self._close(token, s)

    def handle_agent_down(self, agent: str, reason: Reason, s: ProbeState) -> Any:
        held = {parse_prompt(p)[0] for p in s.fifo.get(agent, ())}
        s = replace(s, fifo={**s.fifo, agent: ()})
        elsewhere = {parse_prompt(p)[0] for q in s.fifo.values() for p in q}
        # A race still out on another agent will be answered there. The session fails what the dead
        # agent held alone when left open; a join's token still has work elsewhere: we must fail it.
        lost = sorted(t for t in held if s.modes[t] == "join" or t not in elsewhere)
        ops: list[Any] = [ReplyError(t, reason) for t in lost if not s.leave_open or t in elsewhere]
        for token in lost:
            s = self._close(token, s)
        ops.append(Start(agent, Behaviour(), self.spec(agent, s.backend, s.queue).opts))
        return ops, s

    def handle_notify(self, event: Any, s: ProbeState) -> Any:
        return [Halt(Reason(ReasonKind.FAILED, str(event)))], s


class Deaf(Probe):
    """The probe without handle_agent_down: the session alone deals with a dead agent's tokens, and
    the dead agent is not replaced."""

    handle_agent_down = Strategy.handle_agent_down  # type: ignore[assignment]


class SessionMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.closes: Counter[str] = Counter()
        self.issued: set[str] = set()  # every token minted, as telemetry reports it
        self.asks: list[asyncio.Future[Any]] = []
        self.violations: list[str] = []
        self.detach = telemetry.attach(self._on_telemetry)
        self.session: Session | None = None
        self.backend = KeyedGates()
        Probe.check = self._check
        Probe.check_rejection = self._check_rejection

    def _on_telemetry(self, event: Telemetry, meta: Mapping[str, Any]) -> None:
        if event is Telemetry.TOKEN_START:
            self.issued.add(meta["token"])
        elif event in (Telemetry.TOKEN_STOP, Telemetry.TOKEN_ERROR):
            self.closes[meta["token"]] += 1

    def _check(self, token: str) -> None:
        if self.session is None or token not in self.session._pending:
            self.violations.append(f"the strategy was handed a result of closed token {token}")

    def _check_rejection(self, agent: str, reason: Reason) -> None:
        """Only a busy agent (a turn running, work queued, halted) may refuse for a full mailbox."""
        record = self.session._agents.get(agent) if self.session is not None else None
        if reason.kind is not ReasonKind.OVERLOADED or record is None:
            return
        status = record.handle.status()
        if status.current_request is None and status.queued == 0 and status.state is not AgentState.HALTED:
            self.violations.append(f"idle agent {agent} refused a dispatch: {reason}")

    def run(self, coro: Any = None) -> Any:
        result = self.loop.run_until_complete(coro) if coro is not None else None
        for _ in range(12):  # let every ready task run
            self.loop.run_until_complete(asyncio.sleep(0))
        return result

    def ensure_session(self, leave_open: bool = False, queue: int = 1, deaf: bool = False) -> Session:
        if self.session is None or self.session.closed:
            self.backend = KeyedGates()
            strategy = Deaf() if deaf else Probe()
            self.session = self.run(Session.start(strategy, backend=self.backend, leave_open=leave_open,
                                                  queue=queue))
        return self.session

    # ------------------------------------------------------------------ rules

    @rule(agent=st.sampled_from(AGENTS), mode=st.sampled_from(MODES), leave_open=st.booleans(),
          queue=st.sampled_from([0, 1]), deaf=st.booleans())
    def tell(self, agent: str, mode: str, leave_open: bool, queue: int, deaf: bool) -> None:
        session = self.ensure_session(leave_open, queue, deaf)
        session.tell("p", agent=agent, mode=mode)
        self.run()

    @rule(agent=st.sampled_from(AGENTS), mode=st.sampled_from(MODES), leave_open=st.booleans(),
          queue=st.sampled_from([0, 1]), deaf=st.booleans())
    def ask(self, agent: str, mode: str, leave_open: bool, queue: int, deaf: bool) -> None:
        session = self.ensure_session(leave_open, queue, deaf)
        self.asks.append(self.loop.create_task(session.ask("p", agent=agent, mode=mode, timeout=None)))
        self.run()

    @precondition(lambda self: bool(self.backend.waiting))
    @rule(pick=st.integers(min_value=0), outcome=st.sampled_from(["succeed", "fail", "crash"]))
    def complete(self, pick: int, outcome: str) -> None:
        keys = sorted(self.backend.waiting)
        getattr(self.backend, outcome)(keys[pick % len(keys)])
        self.run()

    @precondition(lambda self: self.session is not None and not self.session.closed)
    @rule(pick=st.integers(min_value=0))
    def kill(self, pick: int) -> None:
        """An operator kills a sub-agent at any moment (idle, mid-turn, with work queued)."""
        names = sorted(self.session.agents())  # type: ignore[union-attr]
        if names:
            handle = self.session.agent(names[pick % len(names)])  # type: ignore[union-attr]

            async def kill() -> bool:  # from the loop, as an operator's code runs (a restart starts an agent)
                return handle.kill("killed by the test")

            assert self.run(kill())
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
    def no_result_of_a_closed_token_reached_the_strategy_and_only_busy_agents_refused(self) -> None:
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
            Probe.check = Probe.check_rejection = None
            self.loop.close()


SessionMachine.TestCase.settings = settings(
    max_examples=80, stateful_step_count=30, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TestSessionInvariants = SessionMachine.TestCase
