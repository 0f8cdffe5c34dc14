"""The models of a run, one per agent role: the HostAgent (planner), each application's AppAgent, and
the judge. Specs come from `--model` (every role) or `[models]` in podium.toml; settings per provider
from `[backends.<provider>]`; prices from `[prices]`.

Every model is wrapped in a `Metered` backend that counts its calls, so a run can report how many
model calls it made per role (tokens and cost come from the run's own usage).
"""

from __future__ import annotations

import inspect
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from podium.agent.backend import BaseBackend, Prompt
from podium.agent.events import Event
from podium.backends import backend_from_spec, parse_spec
from podium.cli.config import PodiumConfig, check_model_spec
from podium.cli.script import Script, load_script
from podium.errors import ConfigError

PLANNER = "planner"
JUDGE = "judge"


def app_role(application: str) -> str:
    return f"app:{application}"


def _absolute(spec: str, base: Path) -> str:
    """`scripted:relative.json` read relative to `base` (the config file's folder, or the current one)."""
    spec = check_model_spec(spec)
    if spec.lower().startswith("scripted:"):
        path = Path(spec.split(":", 1)[1].strip()).expanduser()
        return f"scripted:{path if path.is_absolute() else (base / path).resolve()}"
    return spec


@dataclass(frozen=True, slots=True)
class RoleModels:
    """The model spec of each role."""

    planner: str
    app: str
    judge: str
    per_app: Mapping[str, str] = field(default_factory=dict)

    def for_app(self, application: str) -> str:
        return self.per_app.get(application, self.app)

    def as_dict(self, applications: Iterable[str] = ()) -> dict[str, Any]:
        return {PLANNER: self.planner, "apps": {name: self.for_app(name) for name in applications},
                JUDGE: self.judge}


def choose_models(config: PodiumConfig, override: str | None = None) -> RoleModels:
    """`--model SPEC` sets every role; otherwise [models] (app and judge default to the planner's)."""
    if override is not None:
        spec = _absolute(override, Path.cwd())
        config.check_costed({"every role (--model)": spec})
        return RoleModels(spec, spec, spec)
    models, base = config.models, config.folder
    planner = _absolute(models.planner, base)
    return RoleModels(planner, _absolute(models.app, base) if models.app else planner,
                      _absolute(models.judge, base) if models.judge else planner,
                      {name: _absolute(spec, base) for name, spec in models.per_app.items()})


class Metered(BaseBackend):
    """A backend that counts its calls under a role name and otherwise passes everything through."""

    def __init__(self, inner: Any, role: str, calls: Counter[str]) -> None:
        self.inner = inner
        self.role = role
        self.calls = calls

    async def start_session(self, opts: Mapping[str, Any]) -> Any:
        return await self.inner.start_session(opts)

    def prompt(self, session: Any, prompt: str | Prompt) -> AsyncIterator[Event]:
        self.calls[self.role] += 1
        return self.inner.prompt(session, prompt)

    async def update_session(self, session: Any, terminal: Event) -> Any:
        return await self.inner.update_session(session, terminal)

    async def terminate_session(self, session: Any) -> None:
        await self.inner.terminate_session(session)

    def __repr__(self) -> str:
        return f"Metered({self.inner!r}, {self.role!r})"


@dataclass
class Models:
    """The backends of one run, by role, and the count of calls each made."""

    specs: RoleModels
    planner: Metered
    apps: dict[str, Metered]
    judge: Metered
    calls: Counter[str]
    _unique: dict[str, Any]  # spec -> the backend every role naming it shares

    @property
    def total_calls(self) -> int:
        return sum(self.calls.values())

    def calls_by_role(self) -> dict[str, int]:
        return {role: self.calls[role] for role in [PLANNER, *map(app_role, self.apps), JUDGE] if self.calls[role]}

    async def preload(self, announce: Callable[[str], None]) -> None:
        """Load what loads slowly (an embedded model) before the run starts, saying so."""
        for spec, backend in self._unique.items():
            load = getattr(backend, "load", None)
            if load is not None and inspect.iscoroutinefunction(load):
                announce(f"Loading the model {spec} (the first time takes a while)...")
                await load()


def build_models(specs: RoleModels, config: PodiumConfig, applications: Iterable[str]) -> Models:
    """One backend per distinct spec (roles that name the same model share it), except scripted
    models: every role of a script plays its own part of the file."""
    calls: Counter[str] = Counter()
    shared: dict[str, Any] = {}
    scripts: dict[str, Script] = {}

    def backend(spec: str, role: str, application: str | None = None) -> Metered:
        if spec.lower().startswith("scripted:"):
            path = spec.split(":", 1)[1]
            script = scripts.get(path) or scripts.setdefault(path, load_script(path))
            return Metered(script.backend("app" if application else role, application), role, calls)
        if spec not in shared:
            shared[spec] = _real_backend(spec, config)
        return Metered(shared[spec], role, calls)

    planner = backend(specs.planner, PLANNER)
    apps = {name: backend(specs.for_app(name), app_role(name), name) for name in applications}
    judge = backend(specs.judge, JUDGE)
    return Models(specs, planner, apps, judge, calls, shared)


def _real_backend(spec: str, config: PodiumConfig) -> Any:
    provider = parse_spec(spec).provider.value
    settings = config.backend_settings(provider)
    if config.prices and "prices" not in settings:
        settings["prices"] = config.price_table()
    try:
        return backend_from_spec(spec, **settings)
    except ConfigError as exc:
        # Keys never go in podium.toml: point at the setting that names another variable instead.
        detail = str(exc).replace("pass api_key=... in the backend settings",
                                  f"name another variable with api_key_env in [backends.{provider}]")
        raise ConfigError(f"model {spec} ([backends.{provider}] in {config.where}): {detail}") from None
