"""Consensus as pure functions: verdicts, abstention, thresholds, re-prompts, divergence, errors."""

from __future__ import annotations

import pytest

from podium.agent.backend import Prompt
from podium.ensemble.ops import Dispatch, Halt
from podium.ensemble.strategies.consensus import AtLeast, Ballot, Consensus, consensus_outcome, parse_verdict
from podium.errors import ConfigError, ReasonKind
from tests.strategies.strategy_driver import BOOM, Drive, dispatches, outcomes, resp, spec

NAMES = ("a", "b", "c")


def council(**opts) -> Drive:
    return Drive(Consensus(), agents=[spec(n) for n in NAMES], **opts)


def vote(d: Drive, agent: str, verdict: str, why: str = "because") -> list:
    return d.respond(agent, f"VERDICT: {verdict}\n{why}")


def test_parse_verdict() -> None:
    assert parse_verdict("Thinking...\nVerdict: Approve.\nIt is fine.") == ("approve", "Thinking...\n\nIt is fine.")
    assert parse_verdict("**VERDICT:** reject") == ("reject", "")
    assert parse_verdict("I am not sure") is None


@pytest.mark.parametrize(("opts", "message"), [
    ({"agents": [spec("a")]}, "at least 2"),
    ({"agents": [spec("a"), spec("b")], "threshold": "most"}, "threshold= must be"),
    ({"agents": [spec("a"), spec("b")], "threshold": AtLeast(3)}, r"1 <= k <= 2"),
    ({"agents": [spec("a"), spec("b")], "threshold": 0}, r"1 <= k <= 2"),
    ({"agents": [spec("a"), spec("b")], "rounds": 0}, "rounds= must be"),
    ({"agents": [spec("a"), spec("b")], "verdict_parser": 3}, "must be a function"),
])
def test_bad_options(opts, message) -> None:
    with pytest.raises(ConfigError, match=message):
        Consensus().init(opts)


def test_unanimous_in_the_first_round_names_verdict_count_round_and_entries() -> None:
    d = council(threshold="unanimous")
    t1, ops = d.tell("Ship it?")
    assert dispatches(ops) == [(n, "Ship it?", t1) for n in NAMES]
    assert vote(d, "a", "yes", "tests pass") == []
    assert d.status() == {"phase": "voting", "round": 1, "answered": 1, "voters": NAMES, "queued": 0}
    vote(d, "b", "yes", "docs done")
    ops = vote(d, "c", "Yes", "ok")
    assert outcomes(ops) == [(t1, "CONSENSUS: yes (3 of 3 agents, round 1, threshold unanimous)\n"
                                  "- a: yes — tests pass\n- b: yes — docs done\n- c: yes — ok")]
    outcome = consensus_outcome(ops[0].response)
    assert outcome.converged and outcome.verdict == "yes" and outcome.votes == 3 and outcome.round == 1


def test_an_unparseable_answer_abstains() -> None:
    d = council()  # majority: 2 of 3
    _t1, _ = d.tell("q")
    vote(d, "a", "no")
    d.respond("b", "I would rather not say")
    ops = vote(d, "c", "no")
    text = ops[0].response.text
    assert text.startswith("CONSENSUS: no (2 of 3 agents, round 1, threshold majority)")
    assert "- b: abstained" in text
    ballots = consensus_outcome(ops[0].response).ballots
    assert ballots[1] == Ballot("b", None, "")


def test_no_convergence_reprompts_each_agent_with_the_others_verdicts() -> None:
    d = council(threshold="unanimous")
    _t1, _ = d.tell(Prompt("Ship it?", temperature=0.0))
    vote(d, "a", "yes", "green")
    vote(d, "b", "no", "red")
    ops = d.respond("c", "hmm")
    assert [o.agent for o in ops if isinstance(o, Dispatch)] == list(NAMES)
    to_a = ops[0].prompt
    assert isinstance(to_a, Prompt) and to_a.temperature == 0.0  # the caller's settings are kept
    assert to_a.text.startswith("Ship it?\n\nRound 2.")
    assert "- b: no — red" in to_a.text and "- c: abstained" in to_a.text and "- a:" not in to_a.text
    assert d.status()["round"] == 2


def test_diverged_report_at_the_round_cap() -> None:
    d = council(threshold="unanimous", rounds=2)
    t1, _ = d.tell("q")
    for _ in range(2):
        vote(d, "a", "yes")
        vote(d, "b", "yes")
        ops = vote(d, "c", "no")
    assert outcomes(ops) == [(t1, "DIVERGED: no verdict reached unanimous after 2 round(s) (closest: yes, 2 of 3)\n"
                                  "- a: yes — because\n- b: yes — because\n- c: no — because")]
    assert not consensus_outcome(ops[0].response).converged


def test_at_least_k_and_a_tie_is_not_consensus() -> None:
    d = Drive(Consensus(), agents=[spec(n) for n in "abcd"], threshold=2, rounds=1)
    _t1, _ = d.tell("q")
    vote(d, "a", "x")
    vote(d, "b", "x")
    vote(d, "c", "y")
    ops = vote(d, "d", "y")
    assert ops[0].response.text.startswith("DIVERGED")


def test_an_error_is_tolerated_while_the_threshold_is_reachable() -> None:
    d = council()  # majority 2 of 3
    _t1, _ = d.tell("q")
    assert d.error("a", BOOM) == []
    vote(d, "b", "yes")
    ops = vote(d, "c", "yes")
    assert ops[0].response.text.startswith("CONSENSUS: yes (2 of 3")
    assert "- a: failed (backend_error: boom)" in ops[0].response.text


def test_an_error_that_makes_the_threshold_unreachable_fails_the_question() -> None:
    d = council(threshold="unanimous")
    t1, _ = d.tell("q")
    t2, _ = d.tell("q2")
    ops = d.error("b", BOOM)
    assert outcomes(ops) == [(t1, ReasonKind.FAILED)]
    assert ops[0].reason.agent == "b" and "can no longer be reached" in ops[0].reason.detail
    assert dispatches(ops) == [(n, "q2", t2) for n in NAMES]
    assert vote(d, "a", "late answer of q1? no: q2's") == []  # counted for q2, the current question


def test_a_rejection_fails_the_question_and_drops_the_accepted_answers() -> None:
    d = council()
    t1, _ = d.tell("q1")
    t2, _ = d.tell("q2")
    ops = d.reject("b", t1)
    assert outcomes(ops) == [(t1, ReasonKind.FAILED)]
    assert ops[0].reason.cause.kind is ReasonKind.DISPATCH_REJECTED
    assert dispatches(ops) == [(n, "q2", t2) for n in NAMES]
    assert d.status()["answered"] == 0


def test_agents_going_down_count_as_failed_and_too_few_left_halts() -> None:
    d = council()  # majority 2 of 3
    _t1, _ = d.tell("q")
    vote(d, "a", "yes")
    vote(d, "b", "no")
    assert d.down("b") == []  # it had answered: the question goes on
    ops = vote(d, "c", "yes")
    assert ops[0].response.text.startswith("CONSENSUS: yes (2 of 3")
    assert "- b: no" in ops[0].response.text
    _t2, ops = d.tell("q2")
    assert [a for a, _, _ in dispatches(ops)] == ["a", "c"]  # the dead agent is not asked
    vote(d, "a", "yes")
    ops = vote(d, "c", "yes")
    assert "- b: failed (agent_down" in ops[0].response.text  # it counts as failed
    t3, _ = d.tell("q3")
    ops = d.down("c")
    assert outcomes(ops) == [(t3, ReasonKind.FAILED)] and isinstance(ops[-1], Halt)


def test_an_agent_dying_while_answering_fails_that_question_and_the_next_starts() -> None:
    d = council()
    t1, _ = d.tell("q1")
    t2, _ = d.tell("q2")
    vote(d, "a", "yes")
    ops = d.down("b")
    assert outcomes(ops) == [(t1, ReasonKind.AGENT_DOWN)] and "went down while answering" in ops[0].reason.detail
    assert dispatches(ops) == [("a", "q2", t2), ("c", "q2", t2)]


def test_a_custom_parser_and_reprompt() -> None:
    d = council(verdict_parser=lambda t: (t.split()[0], "") if t else None,
                reprompt=lambda q, agent, others, rnd: f"{q} / {agent} / r{rnd} / {len(others)}",
                threshold="unanimous")
    t1, _ = d.tell("q")
    d.respond("a", "up")
    d.respond("b", "down")
    ops = d.respond("c", "up")
    assert dispatches(ops)[0] == ("a", "q / a / r2 / 2", t1)


def test_usage_of_every_turn_is_summed() -> None:
    d = council()
    d.tell("q")
    d.respond("a", resp("VERDICT: y", (1, 1)))
    ops = d.respond("b", resp("VERDICT: y", (2, 2)))
    assert ops == []
    ops = d.respond("c", resp("VERDICT: n", (3, 3)))
    assert ops[0].response.usage.total_tokens == 12
