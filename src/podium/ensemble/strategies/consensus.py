"""Consensus: N agents vote on a question, round after round, until enough of them agree."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from podium.agent.backend import Prompt, prompt_text
from podium.agent.events import Response
from podium.ensemble.ops import AgentSpec, Dispatch, Halt, Op, Reply, ReplyError, Token
from podium.ensemble.strategies._support import Options, call_user, composed, evolve, result_data
from podium.ensemble.strategy import Result, Strategy
from podium.errors import Reason, ReasonKind

Queued = tuple[Token, str | Prompt]
VerdictParser = Callable[[str], tuple[str, str] | None]

_VERDICT_LINE = re.compile(r"^\s*\**\s*verdict\s*\**\s*[:=]\s*(?P<verdict>.+?)\s*$", re.IGNORECASE | re.MULTILINE)


def parse_verdict(text: str) -> tuple[str, str] | None:
    """The default verdict parser: the first line `VERDICT: <verdict>` (any case) gives the verdict
    (lower-cased, trailing punctuation dropped); the rest of the text is the rationale. No such
    line: None (the agent abstains)."""
    match = _VERDICT_LINE.search(text)
    if match is None:
        return None
    verdict = match.group("verdict").strip().strip("*").strip().rstrip(".!").lower()
    if not verdict:
        return None
    rationale = (text[:match.start()] + text[match.end():]).strip()
    return verdict, rationale


@dataclass(frozen=True, slots=True)
class AtLeast:
    """Converged when at least `k` agents give the same verdict."""

    k: int


Threshold = str | AtLeast  # "unanimous" | "majority" | AtLeast(k)


def required_votes(threshold: Threshold, n: int) -> int:
    if threshold == "unanimous":
        return n
    if threshold == "majority":
        return n // 2 + 1
    assert isinstance(threshold, AtLeast)
    return threshold.k


def describe(threshold: Threshold) -> str:
    return f"at least {threshold.k}" if isinstance(threshold, AtLeast) else str(threshold)


@dataclass(frozen=True, slots=True)
class Ballot:
    """One agent's answer in one round: a verdict (with its rationale), an abstention (verdict
    None: the answer could not be parsed), or a failure (`error`)."""

    agent: str
    verdict: str | None = None
    rationale: str = ""
    error: Reason | None = None

    def render(self) -> str:
        if self.error is not None:
            return f"- {self.agent}: failed ({self.error.kind.value}" + (
                f": {self.error.detail})" if self.error.detail else ")")
        if self.verdict is None:
            return f"- {self.agent}: abstained" + (f" ({self.rationale})" if self.rationale else "")
        return f"- {self.agent}: {self.verdict}" + (f" — {self.rationale}" if self.rationale else "")


@dataclass(frozen=True, slots=True)
class ConsensusOutcome:
    """What a consensus reply carries under the result key "consensus"."""

    converged: bool
    verdict: str | None  # the agreed verdict, or (diverged) the most voted one
    votes: int
    of: int
    round: int
    threshold: str
    ballots: tuple[Ballot, ...]

    def render(self) -> str:
        if self.converged:
            head = (f"CONSENSUS: {self.verdict} ({self.votes} of {self.of} agents, round {self.round}, "
                    f"threshold {self.threshold})")
        else:
            closest = f"closest: {self.verdict}, {self.votes} of {self.of}" if self.verdict else "no verdict given"
            head = (f"DIVERGED: no verdict reached {self.threshold} after {self.round} round(s) ({closest})")
        return "\n".join([head, *(b.render() for b in self.ballots)])


def consensus_outcome(response: Response) -> ConsensusOutcome:
    """The structured outcome a Consensus reply carries (verdict, votes, round, every ballot)."""
    return result_data(response, "consensus")  # type: ignore[no-any-return]


def default_reprompt(question: str, agent: str, others: Sequence[Ballot], round: int) -> str:
    """The prompt of rounds after the first: the question again, with the other agents' last ballots."""
    lines = [question, "", f"Round {round}. The other agents answered in round {round - 1}:",
             *(b.render() for b in others), "",
             "Take their verdicts and reasons into account, then answer again in the same format."]
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class ConsensusRun:
    token: Token
    question: str | Prompt
    round: int
    waiting: tuple[str, ...]  # agents whose answer this round is awaited
    ballots: Mapping[str, Ballot]  # this round's
    responses: tuple[Response, ...] = ()  # every turn of the run, for usage


@dataclass(frozen=True, slots=True)
class ConsensusState:
    agents: tuple[str, ...]
    parser: VerdictParser
    threshold: Threshold
    rounds: int
    reprompt: Callable[[str, str, Sequence[Ballot], int], str | Prompt]
    down: frozenset[str] = frozenset()
    run: ConsensusRun | None = None
    queue: tuple[Queued, ...] = ()

    @property
    def live(self) -> tuple[str, ...]:
        return tuple(a for a in self.agents if a not in self.down)

    @property
    def required(self) -> int:
        return required_votes(self.threshold, len(self.agents))


class Consensus(Strategy[ConsensusState]):
    """Every agent answers the question; `verdict_parser(text)` reads each answer as
    (verdict, rationale), or None: that agent abstains. When one verdict reaches the threshold
    ("unanimous": all n agents, "majority": n // 2 + 1, `AtLeast(k)`: k) the reply names it; else
    each agent is asked again with the others' verdicts and rationales, up to `rounds` rounds, after
    which the reply is a DIVERGED report. Reply text: the verdict, k of n, the round, then each
    agent's entry; the result event's "consensus" holds a `ConsensusOutcome`. One question at a
    time; the others wait, in order.

    Options: `agents=[AgentSpec, ...]` (>= 2), `verdict_parser=` (pure; default `parse_verdict`, a
    "VERDICT: ..." line), `threshold=` "majority" (default) | "unanimous" | `AtLeast(k)` (or an int
    k), `rounds=` (default 3), `reprompt=` (pure; (question, agent, other ballots, round) -> prompt).

    An agent error is tolerated while the threshold is still reachable by the agents that did not
    fail this round; past that, the question fails (`failed`, naming the agent). A rejected dispatch
    fails the question (answers already given are dropped) and the next one starts. An agent going
    down while answering fails that question (`agent_down`); later questions go to the agents
    left, the dead one counting as failed; when too few are left to ever reach the threshold, the
    session halts.
    Status: `phase` (idle | voting), `round`, `answered`, `voters`, `queued`.
    """

    def init(self, opts: Mapping[str, Any]) -> tuple[ConsensusState, list[AgentSpec]]:
        o = Options("Consensus", opts, ("agents", "verdict_parser", "threshold", "rounds", "reprompt"))
        specs = o.specs("agents", at_least=2)
        n = len(specs)
        threshold = opts.get("threshold", "majority")
        if isinstance(threshold, int) and not isinstance(threshold, bool):
            threshold = AtLeast(threshold)
        if isinstance(threshold, AtLeast):
            if not isinstance(threshold.k, int) or not 1 <= threshold.k <= n:
                raise o.error(f"threshold AtLeast(k) needs 1 <= k <= {n} (the number of agents), got {threshold.k!r}")
        elif threshold not in ("unanimous", "majority"):
            raise o.error(f"threshold= must be 'unanimous', 'majority' or AtLeast(k), got {threshold!r}")
        state = ConsensusState(
            tuple(s.name for s in specs),
            o.function("verdict_parser", parse_verdict, "text -> (verdict, rationale) or None"),
            threshold,
            o.integer("rounds", 3, minimum=1),
            o.function("reprompt", default_reprompt, "(question, agent, other ballots, round) -> prompt"))
        return state, list(specs)

    def handle_tell(self, prompt: str | Prompt, opts: Mapping[str, Any], token: Token, state: ConsensusState
                    ) -> Result[ConsensusState]:
        if state.run is not None:
            return [], evolve(state, queue=(*state.queue, (token, prompt)))
        return self._begin([], token, prompt, state)

    def handle_response(self, agent: str, response: Response, state: ConsensusState
                        ) -> Result[ConsensusState]:
        run = state.run
        if run is None or agent not in run.waiting:
            return [], state
        parsed, error = call_user(state.parser, "verdict_parser", ReasonKind.INVALID_OUTPUT, response.text)
        if error is not None or parsed is None:
            ballot = Ballot(agent, None, "" if error is None else error.detail)
        elif (not isinstance(parsed, tuple) or len(parsed) != 2
              or not isinstance(parsed[0], str) or not isinstance(parsed[1], str)):
            ballot = Ballot(agent, None, f"verdict_parser returned {parsed!r:.80}, not (verdict, rationale)")
        else:
            ballot = Ballot(agent, parsed[0], parsed[1])
        run = evolve(run, responses=(*run.responses, response))
        return self._record(run, ballot, state)

    def handle_error(self, agent: str, reason: Reason, state: ConsensusState) -> Result[ConsensusState]:
        run = state.run
        if run is None or agent not in run.waiting:
            return [], state
        return self._record(run, Ballot(agent, error=reason), state)

    def handle_dispatch_rejected(self, agent: str, token: Token, reason: Reason, state: ConsensusState
                                 ) -> Result[ConsensusState]:
        run = state.run
        if run is None or run.token != token:
            return [], state
        rejected = Reason(ReasonKind.DISPATCH_REJECTED, reason.detail, agent, reason)
        failure = Reason(ReasonKind.FAILED, f"round {run.round}: agent {agent!r} refused the question",
                         agent, rejected)
        return self._advance([ReplyError(token, failure)], state)

    def handle_agent_down(self, agent: str, reason: Reason, state: ConsensusState) -> Result[ConsensusState]:
        if agent not in state.agents or agent in state.down:
            return [], state
        state = evolve(state, down=state.down | {agent})
        if len(state.live) < state.required:
            halt = Reason(ReasonKind.AGENT_DOWN,
                          f"consensus impossible: {len(state.live)} agent(s) left, threshold "
                          f"{describe(state.threshold)} needs {state.required}", agent, reason)
            ops: list[Op] = []
            if state.run is not None:
                ops.append(ReplyError(state.run.token, evolve(halt, kind=ReasonKind.FAILED)))
            ops.append(Halt(halt))
            return ops, evolve(state, run=None, queue=())
        run = state.run
        if run is None or agent not in run.waiting:
            return [], state
        # Its answer was in flight: the session fails the question anyway, so close it here, clearly.
        failure = Reason(ReasonKind.AGENT_DOWN, f"round {run.round}: agent {agent!r} went down while answering",
                         agent, reason)
        return self._advance([ReplyError(run.token, failure)], state)

    def handle_status(self, state: ConsensusState) -> Mapping[str, Any]:
        run = state.run
        return {"phase": "idle" if run is None else "voting", "round": 0 if run is None else run.round,
                "answered": 0 if run is None else len(run.ballots), "voters": state.live,
                "queued": len(state.queue)}

    # -- internals ---------------------------------------------------------------------------

    def _begin(self, ops: list[Op], token: Token, prompt: str | Prompt, state: ConsensusState
               ) -> Result[ConsensusState]:
        live = state.live
        ops += [Dispatch(a, prompt, token) for a in live]
        return ops, evolve(state, run=ConsensusRun(token, prompt, 1, live, MappingProxyType({})))

    def _advance(self, ops: list[Op], state: ConsensusState) -> Result[ConsensusState]:
        if not state.queue:
            return ops, evolve(state, run=None)
        (token, prompt), queue = state.queue[0], state.queue[1:]
        return self._begin(ops, token, prompt, evolve(state, queue=queue))

    def _record(self, run: ConsensusRun, ballot: Ballot, state: ConsensusState) -> Result[ConsensusState]:
        run = evolve(run, waiting=tuple(a for a in run.waiting if a != ballot.agent),
                      ballots=MappingProxyType({**run.ballots, ballot.agent: ballot}))
        failed = {b.agent for b in run.ballots.values() if b.error is not None} | state.down
        if ballot.error is not None and len(state.agents) - len(failed) < state.required:
            detail = (f"round {run.round}: {len(failed)} of {len(state.agents)} agents failed or are down, threshold "
                      f"{describe(state.threshold)} ({state.required}) can no longer be reached")
            return self._advance([ReplyError(run.token, Reason(ReasonKind.FAILED, detail, ballot.agent,
                                                               ballot.error))], state)
        if run.waiting:
            return [], evolve(state, run=run)
        return self._tally(run, state)

    def _tally(self, run: ConsensusRun, state: ConsensusState) -> Result[ConsensusState]:
        ballots = tuple(run.ballots.get(a, Ballot(a, error=Reason(ReasonKind.AGENT_DOWN, "down", a)))
                        for a in state.agents)
        counts = Counter(b.verdict for b in ballots if b.verdict is not None)
        winners = [v for v, c in counts.items() if c >= state.required]
        best = counts.most_common(1)[0] if counts else (None, 0)
        if len(winners) == 1 or run.round >= state.rounds:
            converged = len(winners) == 1
            verdict = winners[0] if converged else best[0]
            outcome = ConsensusOutcome(converged, verdict, counts[verdict] if verdict else 0, len(state.agents),
                                       run.round, describe(state.threshold), ballots)
            reply = composed(outcome.render(), run.responses, consensus=outcome)
            return self._advance([Reply(run.token, reply)], state)
        question = prompt_text(run.question)
        live = state.live
        ops: list[Op] = []
        for agent in live:
            others = [b for b in ballots if b.agent != agent]
            prompt, error = call_user(state.reprompt, "reprompt", ReasonKind.STRATEGY_ERROR,
                                      question, agent, others, run.round + 1)
            if error is None and not isinstance(prompt, str | Prompt):
                error = Reason(ReasonKind.STRATEGY_ERROR, f"reprompt must return a str or Prompt, got {prompt!r:.80}")
            if error is not None:
                return self._advance([ReplyError(run.token, error)], state)
            if isinstance(prompt, str) and isinstance(run.question, Prompt):
                prompt = evolve(run.question, text=prompt)  # keep the caller's per-turn settings
            ops.append(Dispatch(agent, prompt, run.token))  # type: ignore[arg-type]
        run = evolve(run, round=run.round + 1, waiting=live, ballots=MappingProxyType({}))
        return ops, evolve(state, run=run)
