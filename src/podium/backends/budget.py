"""Budgets: a ceiling on tokens and/or cost shared by every agent of a session, checked BEFORE each model
call so that a spent budget ends the run cleanly instead of paying for one more answer."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Mapping
from typing import Any

from podium.agent.backend import BaseBackend, Prompt
from podium.agent.events import Event, EventKind, Usage
from podium.errors import ConfigError, Reason, ReasonKind


class Budget:
    """What a session may spend. Mutable on purpose: one instance is shared by all the agents (and all the
    BudgetedBackends) of a session, and each turn's usage is charged to it as it streams in.

    A max_cost budget can only count turns whose model has a price; tokens of unpriced models are counted
    in `unpriced_tokens` so the gap is visible in status rather than silently ignored.
    """

    def __init__(self, max_tokens: int | None = None, max_cost: float | None = None) -> None:
        if max_tokens is not None and (not isinstance(max_tokens, int) or max_tokens <= 0):
            raise ConfigError(f"budget max_tokens must be a positive integer, got {max_tokens!r}")
        if max_cost is not None and (not math.isfinite(max_cost) or max_cost <= 0):
            raise ConfigError(f"budget max_cost must be a positive number of dollars, got {max_cost!r}")
        self.max_tokens = max_tokens
        self.max_cost = max_cost
        self.spent = Usage()
        self.unpriced_tokens = 0
        self.refused = 0

    @classmethod
    def from_config(cls, config: Mapping[str, Any] | None) -> Budget | None:
        """From a `[budget]` table: max_tokens = 200000, max_cost = 2.5 (either or both)."""
        if not config:
            return None
        unknown = set(config) - {"max_tokens", "max_cost"}
        if unknown:
            raise ConfigError(f"[budget] knows max_tokens and max_cost, not {', '.join(sorted(unknown))}")
        cost = config.get("max_cost")
        return cls(config.get("max_tokens"), None if cost is None else float(cost))

    def charge(self, usage: Usage) -> None:
        self.spent = self.spent + usage
        if usage.cost is None:
            self.unpriced_tokens += usage.total_tokens

    def exceeded(self) -> Reason | None:
        """Why no further model call may be made, or None while there is budget left."""
        if self.max_tokens is not None and self.spent.total_tokens >= self.max_tokens:
            return Reason(ReasonKind.BUDGET_EXCEEDED,
                          f"token budget spent: {self.spent.total_tokens} of {self.max_tokens} tokens used")
        if self.max_cost is not None and (self.spent.cost or 0.0) >= self.max_cost:
            return Reason(ReasonKind.BUDGET_EXCEEDED,
                          f"cost budget spent: ${self.spent.cost or 0.0:.4f} of ${self.max_cost:.4f}")
        return None

    def status(self) -> dict[str, Any]:
        return {"max_tokens": self.max_tokens, "max_cost": self.max_cost,
                "input_tokens": self.spent.input_tokens, "output_tokens": self.spent.output_tokens,
                "total_tokens": self.spent.total_tokens, "cost": self.spent.cost,
                "unpriced_tokens": self.unpriced_tokens, "refused_prompts": self.refused,
                "exceeded": self.exceeded() is not None}

    def __repr__(self) -> str:
        return (f"Budget(max_tokens={self.max_tokens}, max_cost={self.max_cost}, "
                f"spent={self.spent.total_tokens} tokens/${self.spent.cost or 0.0:.4f})")


class BudgetedBackend(BaseBackend):
    """Wraps a backend: refuses a prompt before calling the model once the budget is spent (terminal error
    event carrying Reason(BUDGET_EXCEEDED)), and charges every usage event that streams through."""

    def __init__(self, inner: Any, budget: Budget) -> None:
        self.inner = inner
        self.budget = budget

    async def start_session(self, opts: Mapping[str, Any]) -> Any:
        return await self.inner.start_session(opts)

    def prompt(self, session: Any, prompt: str | Prompt) -> AsyncIterator[Event]:
        return self._prompt(session, prompt)

    async def _prompt(self, session: Any, prompt: str | Prompt) -> AsyncIterator[Event]:
        reason = self.budget.exceeded()
        if reason is not None:
            self.budget.refused += 1
            yield Event.error(reason.detail, reason=reason)
            return
        async for event in self.inner.prompt(session, prompt):
            if event.kind is EventKind.USAGE:
                self.budget.charge(Usage.from_event(event))
            yield event

    async def update_session(self, session: Any, terminal: Event) -> Any:
        return await self.inner.update_session(session, terminal)

    async def terminate_session(self, session: Any) -> None:
        await self.inner.terminate_session(session)

    def __repr__(self) -> str:
        return f"BudgetedBackend({self.inner!r}, {self.budget!r})"
