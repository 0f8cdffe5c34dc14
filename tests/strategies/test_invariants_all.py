"""The core's invariant, run over every strategy of the library: with random interleavings of
tells, asks, completions (success, error, crash), stray and duplicate completions and stops, every
token receives exactly one terminal outcome, no result of a closed token reaches the strategy, and
no token is left pending once no turn is running.

It reuses the core's hypothesis machine (`tests.ensemble.test_invariants.SessionMachine`): its
completion rules, invariants and teardown, with each strategy plugged in instead of the probe.
Agents get a queue of one (max_pending_prompts=1) so rejections happen too. Stray completions are
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
from podium.ensemble.inputs import ErrorInput, Input, ResponseInput
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


def spec(name: str, backend: Any) -> AgentSpec:
    return AgentSpec(name, Behaviour(), {"backend": backend, "who": name, "max_pending_prompts": 1})


@dataclass(frozen=True)
class Case:
    strategy: Callable[[], Strategy[Any]]
    opts: Callable[[Any], dict[str, Any]]  # backend -> session options
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
    "switchboard": Case(Switchboard, lambda b: {"agents": [spec(n, b) for n in NAMES]},
                        lambda _p, pick: {"agent": NAMES[pick % 3]}),
    "pool": Case(Pool, lambda b: {"worker_template": spec("w", b), "worker_count": 2}),
    "pipeline": Case(Pipeline, lambda b: {"stages": [spec(n, b) for n in NAMES]}),
    "supervisor": Case(Supervisor, lambda b: {
        "coordinator": spec("boss", b), "worker_template": spec("w", b),
        "decomposer": lambda text: [f"{text}/{i}" for i in range(len(text) % 3)]}),
    "debate": Case(Debate, lambda b: {"agents": [spec("a", b), spec("b", b)], "rounds": 3}),
    "consensus": Case(Consensus, lambda b: {"agents": [spec(n, b) for n in NAMES], "rounds": 2,
                                            "verdict_parser": lambda text: (text[-1], "") if text else None}),
    "graph": Case(Graph, lambda b: {"agents": [spec(n, b) for n in NAMES]}, graph_request),
}


class FenceCheck:
    """A session recorder that flags any result handed to the strategy for a token already closed."""

    def __init__(self, machine: StrategyMachine) -> None:
        self.machine = machine

    def record(self, session: str, input: Input, ops: list[Op]) -> None:
        if isinstance(input, ResponseInput | ErrorInput) and input.token is not None:
            self.machine._check(input.token)


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

    def ensure_session(self, leave_open: bool = False) -> Session:
        if self.session is None or self.session.closed:
            self.backend = UniqueGates()
            self.session = self.run(Session.start(self.CASE.strategy(), recorder=FenceCheck(self),
                                                  **self.CASE.opts(self.backend)))
        return self.session

    def _submission(self, pick: int) -> tuple[str, dict[str, Any]]:
        prompt = f"p{next(self.prompts)}"
        return prompt, self.CASE.request(prompt, pick)

    @rule(pick=st.integers(0, 5))
    def tell(self, pick: int) -> None:  # type: ignore[override]
        session = self.ensure_session()
        prompt, opts = self._submission(pick)
        self.issued.add(session.tell(prompt, **opts))
        self.run()

    @rule(pick=st.integers(0, 5))
    def ask(self, pick: int) -> None:  # type: ignore[override]
        session = self.ensure_session()
        prompt, opts = self._submission(pick)
        before = session._tokens.last
        self.asks.append(self.loop.create_task(session.ask(prompt, timeout=None, **opts)))
        self.run()
        self.issued.add(f"{session.name}:{before + 1}")

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
