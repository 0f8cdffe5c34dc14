"""Prices applied to usage events, and budgets that stop a run before the next model call."""

from __future__ import annotations

import pytest

from podium import Session, Solo
from podium.agent.events import Event, EventKind, Usage
from podium.backends import Budget, BudgetedBackend, PriceTable, backend_from_spec
from podium.backends.scripted import Say, ScriptedBackend
from podium.errors import ConfigError, ReasonKind, RunFailed

from .conftest import collect
from .fakes import openai_stream

PRICES = PriceTable.from_config({"gpt-4.1-mini": {"input": 0.4, "output": 1.6}, "gpt-4.1": [2.0, 8.0]})


def test_price_table_costs_per_million_tokens_and_prefers_the_longest_name():
    assert PRICES.cost("gpt-4.1-mini", 1_000_000, 500_000) == pytest.approx(0.4 + 0.8)
    assert PRICES.cost("gpt-4.1-mini-2025-04-14", 1_000_000, 0) == pytest.approx(0.4)  # dated id
    assert PRICES.cost("gpt-4.1-2025-04-14", 0, 1_000_000) == pytest.approx(8.0)
    assert PRICES.cost("openai:gpt-4.1", 1_000_000, 0) == pytest.approx(2.0)  # a spec works too
    assert PRICES.cost("llama-3", 1000, 1000) is None  # unknown model: tokens only


def test_price_event_sets_the_cost_of_usage_events_only():
    priced = PRICES.price_event(Event.usage(1000, 1000, model="gpt-4.1-mini"))
    assert priced.data["cost"] == pytest.approx((1000 * 0.4 + 1000 * 1.6) / 1e6)
    unknown = Event.usage(5, 5, model="mystery")
    assert PRICES.price_event(unknown) is unknown
    text = Event.text("hi")
    assert PRICES.price_event(text, "gpt-4.1") is text


@pytest.mark.parametrize("bad", [{"input": 1}, {"input": -1, "output": 1}, "cheap", [1]])
def test_bad_prices_are_config_errors_naming_the_model(bad):
    with pytest.raises(ConfigError, match="price of 'm'"):
        PriceTable.from_config({"m": bad})


async def test_budget_refuses_the_prompt_before_calling_the_model_once_tokens_are_spent():
    budget = Budget(max_tokens=100)
    inner = ScriptedBackend([Say("one", usage=(60, 30)), Say("two", usage=(10, 5)), Say("three")])
    backend = BudgetedBackend(inner, budget)
    session = await backend.start_session({})
    assert (await collect(backend, session, "a"))[-1].kind is EventKind.RESULT  # 90 < 100
    assert (await collect(backend, session, "b"))[-1].kind is EventKind.RESULT  # 105: the turn ran
    refused = await collect(backend, session, "c")
    assert [e.kind for e in refused] == [EventKind.ERROR]
    assert refused[0].data["reason"].kind is ReasonKind.BUDGET_EXCEEDED
    assert "105 of 100 tokens" in refused[0].data["reason"].detail
    assert list(inner.prompts) == ["a", "b"]  # the model was never asked the third time
    assert budget.status()["refused_prompts"] == 1 and budget.status()["exceeded"] is True


async def test_a_cost_budget_is_shared_by_all_agents_of_a_session(fake_server):
    fake_server.default = lambda body: openai_stream(["ok"], usage=(1_000_000, 0))
    budget = Budget(max_cost=0.5)
    settings = {"prices": {"fake-model": {"input": 0.4, "output": 1.6}}, "budget": budget}
    first = backend_from_spec(f"openai-compatible:{fake_server.url}/v1#fake-model", **settings)
    second = backend_from_spec(f"openai-compatible:{fake_server.url}/v1#fake-model", **settings)
    assert (await collect(first, await first.start_session({}), "x"))[-1].kind is EventKind.RESULT  # $0.40
    assert (await collect(second, await second.start_session({}), "y"))[-1].kind is EventKind.RESULT  # $0.80
    refused = await collect(first, await first.start_session({}), "z")
    assert refused[-1].data["reason"].kind is ReasonKind.BUDGET_EXCEEDED
    assert len(fake_server.requests) == 2 and budget.spent.cost == pytest.approx(0.8)


async def test_unpriced_tokens_are_counted_visibly():
    budget = Budget(max_cost=1.0)
    budget.charge(Usage(10, 5))
    assert budget.status()["unpriced_tokens"] == 15 and budget.exceeded() is None


async def test_a_spent_budget_ends_a_session_run_with_budget_exceeded():
    budget = Budget(max_tokens=10)
    backend = backend_from_spec("scripted", script=[Say("first", usage=(8, 4)), "second"], budget=budget)
    async with await Session.start(Solo(), backend=backend) as session:
        assert (await session.ask("one")).text == "first"
        with pytest.raises(RunFailed) as caught:
            await session.ask("two")
    assert caught.value.reason.kind is ReasonKind.BUDGET_EXCEEDED


@pytest.mark.parametrize("config, message", [
    ({"max_tokens": 0}, "positive integer"), ({"max_cost": -1}, "positive number"),
    ({"max_tokenz": 5}, "max_tokenz"),
])
def test_bad_budgets_are_config_errors(config, message):
    with pytest.raises(ConfigError, match=message):
        Budget.from_config(config)
