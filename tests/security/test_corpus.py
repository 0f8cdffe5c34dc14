"""The attack corpus, against the real sandbox: every probe blocked with a clear error, none hangs (each
has its own time limit), none changes anything outside the workspace (a sentinel folder compared before
and after each probe and after all of them). The probes run in memory-capped child processes (harness)."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from podium.apps import sandbox
from tests.security.corpus import PROBES
from tests.security.harness import REPO, Outcome, run, sentinel, snapshot


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Outcome], bool]:
    assert sandbox.status().works, f"the corpus runs against the real sandbox: {sandbox.status().problem}"
    base = tmp_path_factory.mktemp("corpus")
    outside = sentinel(base)
    before = snapshot(outside)
    outcomes = run(sorted(PROBES), base)
    return outcomes, snapshot(outside) == before


@pytest.mark.parametrize("name", sorted(PROBES))
def test_probe_is_blocked(corpus: tuple[dict[str, Outcome], bool], name: str) -> None:
    outcome = corpus[0][name]
    assert not outcome.hung, outcome.message
    assert outcome.blocked, f"{name} got through ({outcome.layer}): {outcome.message}"
    assert outcome.message.strip(), "blocked without saying why"
    assert not outcome.outside_changed, "the sentinel folder outside the workspace changed"
    assert not outcome.pwned, f"the attack left its marker: {outcome.pwned}"


def test_nothing_outside_changed_after_the_whole_corpus(corpus: tuple[dict[str, Outcome], bool]) -> None:
    assert corpus[1]


def test_every_layer_is_exercised(corpus: tuple[dict[str, Outcome], bool]) -> None:
    layers = Counter(outcome.layer for outcome in corpus[0].values())
    assert {"policy", "sandbox", "approval", "limits", "tool"} <= set(layers), layers


def test_the_readme_gives_the_corpus_count() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    found = re.search(r"attack corpus of (\d+) probes", text)
    assert found is not None and int(found.group(1)) == len(PROBES), "README's security section: update the count"


def test_probe_groups_cover_the_issue_classes() -> None:
    groups = Counter(probe.group for probe in PROBES.values())
    for group in ("gnu", "paths", "bypass", "boundary", "privilege", "network", "limits", "bomb", "shape", "write",
                  "formula", "special", "approval", "config", "journal", "mcp", "cap"):
        assert groups[group] > 0, group
