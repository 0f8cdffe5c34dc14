"""Agents' instructions read ahead of any request.

Every call of an agent starts with the same system message (its instructions, tools and worked examples),
and an embedded model keeps the state after it on disk as a *head* the first time it reads it
(podium.backends.prefix_disk), so later requests start after it. `warm` reads those heads at install
instead, for the applications a configuration offers: the planner's (its catalog of every application)
and each AppAgent's. The first request then reads only its own part of each prompt. The system messages
are those the step runners send (`instructions`), so the heads are the ones a run looks up.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from podium.agent.backend import Backend
from podium.desktop.host.catalog import Catalog
from podium.desktop.host.state import PLANNER
from podium.desktop.shell import app_step
from podium.desktop.shell.session import model_of_app
from podium.desktop.wire.prompts import host_system


def instructions(apps: Sequence[Any]) -> dict[str, str]:
    """Each agent's system message for these applications: the planner's, then one per AppAgent."""
    return {PLANNER: host_system(Catalog.of(apps)),
            **{f"app-{app.name}": app_step.instructions(app) for app in apps}}


@dataclass(frozen=True, slots=True)
class Warmed:
    """One agent's instructions: their tokens, how many were read now, the seconds it took, and what
    happened (`kept`: read and kept; `held`: kept before, or too short to be worth keeping; `skipped`:
    its model keeps no states on disk; `failed`: they could not be read, `error` says why)."""

    agent: str
    tokens: int
    read: int
    seconds: float
    outcome: str
    error: str = ""  # why they could not be read (outcome `failed`)


async def warm(apps: Sequence[Any], model: Backend,
               app_models: Backend | Mapping[str, Backend] | None = None) -> list[Warmed]:
    """Read and keep the heads of the planner (`model`) and of each application's AppAgent (its entry of
    `app_models`, else `app_models`, else `model`), as HostSession.start assigns them. A model that is
    not the embedded one (it has no `keep_head`) is skipped: a served model caches on its own side."""
    done = []
    for agent, system in instructions(apps).items():
        owner = model if agent == PLANNER else model_of_app(agent.removeprefix("app-"), model, app_models)
        keep = getattr(owner, "keep_head", None)
        if keep is None:
            done.append(Warmed(agent, 0, 0, 0.0, "skipped"))
            continue
        kept = await keep(system)
        outcome = "failed" if kept.error else "kept" if kept.written else "held" if kept.on_disk else "skipped"
        done.append(Warmed(agent, kept.tokens, kept.read, kept.seconds, outcome, kept.error))
    return done
