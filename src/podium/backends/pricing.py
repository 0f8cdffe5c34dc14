"""Prices per model, applied to usage events. Prices come from configuration, never from a table baked in
here that would silently go stale: a model without a price is counted in tokens only (cost None)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from podium.agent.events import Event, EventKind
from podium.errors import ConfigError


@dataclass(frozen=True, slots=True)
class Price:
    """US dollars per million input and output tokens."""

    input_per_mtok: float
    output_per_mtok: float

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        return (input_tokens * self.input_per_mtok + output_tokens * self.output_per_mtok) / 1_000_000


def _price(model: str, value: Any) -> Price:
    if isinstance(value, Price):
        return value
    try:
        if isinstance(value, Mapping):
            price = Price(float(value["input"]), float(value["output"]))
        else:
            price = Price(float(value[0]), float(value[1]))
    except (KeyError, IndexError, TypeError, ValueError):
        raise ConfigError(f"price of {model!r}: expected {{input = USD per 1M tokens, output = USD per 1M "
                          f"tokens}}, got {value!r}") from None
    for amount in (price.input_per_mtok, price.output_per_mtok):
        if not math.isfinite(amount) or amount < 0:
            raise ConfigError(f"price of {model!r}: prices must be finite and >= 0, got {value!r}")
    return price


@dataclass(frozen=True, slots=True)
class PriceTable:
    """Model name -> Price. A model id a server reports with a date suffix (gpt-4.1-mini-2025-04-14)
    takes the price of the longest configured name it starts with."""

    prices: Mapping[str, Price] = field(default_factory=dict)

    @classmethod
    def from_config(cls, config: Mapping[str, Any] | None) -> PriceTable:
        """From the `[prices]` table of podium.toml: `"gpt-4.1-mini" = { input = 0.4, output = 1.6 }`
        (a pair [input, output] works too)."""
        if not config:
            return cls()
        if not isinstance(config, Mapping):
            raise ConfigError(f"[prices] must be a table of model = {{input, output}}, got {config!r}")
        return cls({str(model): _price(str(model), value) for model, value in config.items()})

    def lookup(self, model: str | None) -> Price | None:
        if not model:
            return None
        names = [model]
        if ":" in model:  # a spec such as openai:gpt-4.1-mini
            names.append(model.split(":", 1)[1])
        for name in names:
            if name in self.prices:
                return self.prices[name]
        best: str | None = None
        for key in self.prices:
            if any(name.startswith(key) for name in names) and (best is None or len(key) > len(best)):
                best = key
        return None if best is None else self.prices[best]

    def cost(self, model: str | None, input_tokens: int, output_tokens: int) -> float | None:
        price = self.lookup(model)
        return None if price is None else price.cost(input_tokens, output_tokens)

    def price_event(self, event: Event, model: str | None = None) -> Event:
        """The usage event with its cost set (unchanged if it has one, or if the model has no price)."""
        if event.kind is not EventKind.USAGE or event.data.get("cost") is not None:
            return event
        model = model or event.data.get("model")
        cost = self.cost(model, int(event.data.get("input_tokens", 0)), int(event.data.get("output_tokens", 0)))
        if cost is None:
            return event
        return Event(event.kind, {**event.data, "cost": cost}, event.timestamp)


NO_PRICES = PriceTable()
