"""The core's invariant, run over every strategy of the library: with random interleavings of
tells, asks, completions (success, error, crash), kills, stray and duplicate completions and stops,
every token receives exactly one terminal outcome, no result of a closed token reaches the strategy,
no token is left pending once no turn is running, and only a busy agent refuses a dispatch.

It reuses the core's hypothesis machine (`tests.ensemble.test_invariants.SessionMachine`): its
completion rules, invariants and teardown, with each strategy plugged in instead of the probe.
Agents get a mailbox of one or of none (max_pending_prompts 1 or 0, chosen per session) so rejections
happen too, and so does the next round a strategy sends an agent from that agent's own completion
(Consensus, Debate, Pipeline, Pool), which a zero-size mailbox must take. Stray completions are
limited to what a runtime can produce (see `StrategyMachine.stray_completion`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import precondition, rule

from podium.agent.behaviour import Behaviour
from podium.ensemble import AgentSpec, Session, Strategy
from podium.ensemble.inputs import DispatchRejectedInput, ErrorInput, Input, ResponseInput
from podium.ensemble.ops import Op
from podium.ensemble.strategies.consensus import Consensus
from podium.ensemble.strategies.debate import Debate
from podium.ensemble.strategies.graph import Graph, Subtask
from podium.ensemble.strategies.pipeline import Pipeline
from podium.ensemble.strategies.pool import Pool
from podium.ensemble.strategies.supervisor import Supervisor
from podium.ensemble.strategies.switchboard import Switchboard
from tests.ensemble.test_invariants import KeyedGates, SessionMachine

NAMES = ("a", "b", "c")


class UniqueGates(KeyedGates):
    """Keyed gates where every agent session has its own key prefix, so workers started from one
    template (same options) never share a gate."""

    def __init__(self) -> None:
        super().__init__()
        self._ids = itertools.count(1)

    async def start_session(self, opts: Mapping[str, Any]) -> dict[str, Any]:
        return {"who": f"{opts['who']}#{next(self._ids)}"}


def spec(name: str, backend: Any, queue: int) -> AgentSpec:
    return AgentSpec(name, Behaviour(), {"backend": backend, "who": name, "max_pending_prompts": queue})


@dataclass(frozen=True)
class Case:
    strategy: Callable[[], Strategy[Any]]
    opts: Callable[[Any, int], dict[str, Any]]  # (backend, mailbox size) -> session options
    request: Callable[[str, int], dict[str, Any]] = lambda _prompt, _pick: {}  # per-request options


def graph_request(prompt: str, pick: int) -> dict[str, Any]:
    shapes = [
        [Subtask("s", f"{prompt}/s", "a")],
        [Subtask("s", f"{prompt}/s", "a"), Subtask("t", f"{prompt}/t", "b", ["s"]),
         Subtask("u", f"{prompt}/u", "a", ["s"]), Subtask("v", f"{prompt}/v", "c", ["t", "u"])],
        [Subtask("s", f"{prompt}/s", "b"), Subtask("t", f"{prompt}/t", "b"), Subtask("u", f"{prompt}/u", "c")],
    ]
    return {"subtasks": shapes[pick % 3], "on_failure": ("fail", "skip")[pick // 3 % 2]}


CASES = {
    "switchboard": Case(Switchboard, lambda b, q: {"agents": [spec(n, b, q) for n in NAMES]},
                        lambda _p, pick: {"agent": NAMES[pick % 3]}),
    "pool": Case(Pool, lambda b, q: {"worker_template": spec("w", b, q), "worker_count": 2}),
    "pipeline": Case(Pipeline, lambda b, q: {"stages": [spec(n, b, q) for n in NAMES]}),
    "supervisor": Case(Supervisor, lambda b, q: {
        "coordinator": spec("boss", b, q), "worker_template": spec("w", b, q),
        "decomposer": lambda text: [f"{text}/{i}" for i in range(len(text) % 3)]}),
    "debate": Case(Debate, lambda b, q: {"agents": [spec("a", b, q), spec("b", b, q)], "rounds": 3}),
    "consensus": Case(Consensus, lambda b, q: {"agents": [spec(n, b, q) for n in NAMES], "rounds": 2,
                                            "verdict_parser": lambda text: (text[-1], "") if text else None}),
    "graph": Case(Graph, lambda b, q: {"agents": [spec(n, b, q) for n in NAMES]}, graph_request),
}


class FenceCheck:
    """A session recorder that flags any result handed to the strategy for a token already closed."""

    def __init__(self, machine: StrategyMachine) -> None:
        self.machine = machine

    def record(self, session: str, input: Input, ops: list[Op]) -> None:
        if isinstance(input, ResponseInput | ErrorInput) and input.token is not None:
            self.machine._check(input.token)
        elif isinstance(input, DispatchRejectedInput):
            self.machine._check_rejection(input.agent, input.reason)


class StrategyMachine(SessionMachine):
    CASE: Case

    def __init__(self) -> None:
        super().__init__()
        self.prompts = itertools.count(1)

    def run(self, coro: Any = None) -> Any:
        result = super().run(coro)
        for _ in range(3):  # agents started mid-session (workers, replacements) need a few more rounds
            super().run()
        return result

    def ensure_session(self, leave_open: bool = False, queue: int = 1, deaf: bool = False) -> Session:
        if self.session is None or self.session.closed:
            self.backend = UniqueGates()
            self.session = self.run(Session.start(self.CASE.strategy(), recorder=FenceCheck(self),
                                                  **self.CASE.opts(self.backend, queue)))
        return self.session

    def _submission(self, pick: int) -> tuple[str, dict[str, Any]]:
        prompt = f"p{next(self.prompts)}"
        return prompt, self.CASE.request(prompt, pick)

    @rule(pick=st.integers(0, 5), queue=st.sampled_from([0, 1]))
    def tell(self, pick: int, queue: int) -> None:  # type: ignore[override]
        session = self.ensure_session(queue=queue)
        prompt, opts = self._submission(pick)
        session.tell(prompt, **opts)
        self.run()

    @rule(pick=st.integers(0, 5), queue=st.sampled_from([0, 1]))
    def ask(self, pick: int, queue: int) -> None:  # type: ignore[override]
        session = self.ensure_session(queue=queue)
        prompt, opts = self._submission(pick)
        self.asks.append(self.loop.create_task(session.ask(prompt, timeout=None, **opts)))
        self.run()

    @precondition(lambda self: self.session is not None and not self.session.closed)
    @rule(pick=st.integers(0, 9), ref=st.integers(1, 8), ok=st.booleans())
    def stray_completion(self, pick: int, ref: int, ok: bool) -> None:  # type: ignore[override]
        """A completion the runtime did not produce: a duplicate or a late one (for a ref no longer
        in flight), or the early end of the turn an agent is running (its oldest ref in flight).
        Never the completion of a request still queued behind another: an agent answers in order,
        and the strategies correlate results with requests by that order."""
        session = self.session
        assert session is not None
        names = sorted(session._agents)
        if not names:
            return
        record = session._agents[names[pick % len(names)]]
        if ref in record.flights and ref != min(record.flights):
            return
        self.inject_stray(record, ref, ok)

    @precondition(lambda self: self.session is not None and not self.session.closed)
    @rule()
    def halt(self) -> None:
        """The strategies do not halt on request: stop the session instead (every token fails `stopped`)."""
        self.run(self.session.stop())  # type: ignore[union-attr]


def _test_case(name: str) -> Any:
    machine = type(f"{name.title()}Machine", (StrategyMachine,), {"CASE": CASES[name]})
    machine.TestCase.settings = settings(
        max_examples=30, stateful_step_count=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    return machine.TestCase


TestSwitchboardInvariants = _test_case("switchboard")
TestPoolInvariants = _test_case("pool")
TestPipelineInvariants = _test_case("pipeline")
TestSupervisorInvariants = _test_case("supervisor")
TestDebateInvariants = _test_case("debate")
TestConsensusInvariants = _test_case("consensus")
TestGraphInvariants = _test_case("graph")
