"""The --json-out summary of a run: what the run's usage says reaches it, cached prompt tokens included."""

from __future__ import annotations

from dataclasses import dataclass, field

from podium.cli.summary import RunSummary
from podium.desktop import RunResult


@dataclass
class Counted:
    """The two counts a summary takes from the run's models."""

    total_calls: int = 3
    roles: dict[str, int] = field(default_factory=lambda: {"planner": 2, "app:files": 1})

    def calls_by_role(self) -> dict[str, int]:
        return self.roles


def test_the_summary_says_how_many_prompt_tokens_a_cache_served() -> None:
    start = RunSummary(session="run-1", journal="journal.db", config=None, request="r", workdir="/w", mode="batch",
                       auto_approve=False, models={})
    result = RunResult("FINISH", "done", steps=3,
                       usage={"input_tokens": 1000, "output_tokens": 50, "cached_tokens": 700})
    summary = start.end(result, Counted(), 1.5, [], None, recorded=True).to_dict()  # type: ignore[arg-type]
    assert (summary["input_tokens"], summary["output_tokens"], summary["cached_tokens"]) == (1000, 50, 700)
    assert summary["tokens"] == 1050 and summary["model_calls"] == 3
