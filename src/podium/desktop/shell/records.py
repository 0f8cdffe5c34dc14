"""What a desktop run's record keeps so that its decisions can be re-derived later without a model
(`podium replay`): the applications' catalogue and the HostConfig, as JSON, under `STRATEGY_RECORD`.

The AgentSpecs are rebuilt with stand-ins for their behaviour and backend: replay feeds the recorded
responses back in, so no agent ever runs, and the journal compares objects that are not values (a
backend) by nothing more than their being there.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from typing import Any

from podium.agent.backend import BaseBackend
from podium.agent.behaviour import Behaviour
from podium.desktop.host.catalog import Catalog
from podium.desktop.host.state import JUDGE, OBSERVER, PLANNER, HostConfig
from podium.ensemble.ops import AgentSpec
from podium.errors import ConfigError

log = logging.getLogger("podium.desktop")
STRATEGY_RECORD = "host_strategy"
_VERSION = 2


def strategy_record(catalog: Catalog, config: HostConfig, *, judge: bool, observer: bool = True,
                    turn_timeout: float | None = None) -> dict[str, Any]:
    """The HostStrategy's options as JSON: every value it decides with, no live object."""
    return {"version": _VERSION, "config": dataclasses.asdict(config),
            "catalog": catalog.to_dict(), "judge": judge, "observer": observer,
            "turn_timeout": turn_timeout}


def keep_strategy_record(recorder: Any, session: str, catalog: Catalog, config: HostConfig, *, judge: bool,
                         turn_timeout: float | None) -> None:
    """Give the record to a recorder that keeps named values (podium.journal.Journal.keep); a failure to
    keep it is logged, never fatal: the run goes on, only its replay will lack it."""
    keep = getattr(recorder, "keep", None)
    if not callable(keep):
        return
    try:
        keep(session, STRATEGY_RECORD, strategy_record(catalog, config, judge=judge, turn_timeout=turn_timeout))
    except Exception:
        log.exception("session %s: could not keep the strategy's options for replay", session)


class _Replaying(BaseBackend):
    """Stands in for a backend during replay: it is never asked anything."""

    def prompt(self, session: Any, prompt: Any) -> Any:
        raise ConfigError("a replayed run calls no model")


def strategy_options(record: Mapping[str, Any]) -> dict[str, Any]:
    """HostStrategy options rebuilt from `strategy_record`'s JSON."""
    if not isinstance(record, Mapping) or record.get("version") != _VERSION:
        raise ConfigError("this run's record has no strategy options podium can read (recorded by another "
                          "version of podium?)")
    config = HostConfig(**{k: tuple(v) if isinstance(v, list) else v for k, v in record["config"].items()})
    catalog = Catalog.from_dict(record["catalog"])
    limits = {"turn_timeout": record.get("turn_timeout")}
    spec = lambda name: AgentSpec(name, Behaviour(), {"backend": _Replaying(), **limits})  # noqa: E731
    return {"planner": spec(PLANNER), "app_agents": {a.name: spec(f"app-{a.name}") for a in catalog.apps},
            "catalog": catalog, "config": config,
            "observer": AgentSpec(OBSERVER, Behaviour(), {"backend": _Replaying()}) if record.get("observer") else None,
            "judge": spec(JUDGE) if record.get("judge") else None}
