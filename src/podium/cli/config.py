"""podium.toml: models per agent role, backend settings, HostAgent policies, limits, prices, the
applications (with their MCP servers and allow-lists), where the journal lives, and telemetry.

Found in this order, and only the first one is read: `--config FILE`, `./podium.toml` (the project
folder), then the user's file (see `podium.cli.paths`). No file at all is fine: every key has a
default. Relative paths in a file are relative to the file's folder.

Secrets never go in the file: an `api_key` is refused (name an environment variable with
`api_key_env`); error messages name the file, the table and the key, never the value.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator, model_validator

from podium.apps.registry import BUILTINS
from podium.backends.pricing import PriceTable
from podium.backends.spec import Provider, parse_spec
from podium.cli import paths
from podium.desktop import HostConfig
from podium.errors import ConfigError
from podium.telemetry import MAX_CONTENT_CHARS

_STRICT = ConfigDict(extra="forbid", strict=True, frozen=True)
_SECRET_KEYS = frozenset({"api_key", "apikey", "key", "token", "password", "secret"})
# Models that cost nothing per token: they need no price for [limits] max_cost to hold.
_FREE_PROVIDERS = frozenset({Provider.LOCAL, Provider.SCRIPTED, Provider.OLLAMA})


def check_model_spec(spec: str) -> str:
    """A model spec as the CLI takes it: every backend spec, plus `scripted:PATH` (a script file)."""
    text = spec.strip()
    if text.lower().startswith("scripted"):
        _, _, path = text.partition(":")
        if not path.strip():
            raise ConfigError(f"invalid model spec {spec!r}: the scripted model needs a script file: "
                              "scripted:PATH.json (see podium.cli.script)")
        return text
    parse_spec(text)
    return text


def _as_value_error(check: Any, value: Any) -> Any:
    # pydantic reports a ValueError with the table and key it came from; a ConfigError would lose them.
    try:
        return check(value)
    except ConfigError as exc:
        raise ValueError(str(exc)) from None


class ModelsConfig(BaseModel):
    """Which model each agent role uses (model specs, see podium.backends.spec)."""

    model_config = _STRICT

    planner: str = "local"  # the HostAgent
    app: str | None = None  # every AppAgent; default: the planner's model
    judge: str | None = None  # the judge (when [host] evaluate = true); default: the planner's model
    per_app: dict[str, str] = Field(default_factory=dict)  # application name -> spec

    @field_validator("planner", "app", "judge")
    @classmethod
    def _spec(cls, value: str | None) -> str | None:
        return None if value is None else _as_value_error(check_model_spec, value)

    @field_validator("per_app")
    @classmethod
    def _specs(cls, value: dict[str, str]) -> dict[str, str]:
        return {name: _as_value_error(check_model_spec, spec) for name, spec in value.items()}


class HostOptions(BaseModel):
    """The HostAgent's policies (see podium.desktop.HostConfig)."""

    model_config = _STRICT

    evaluate: bool = False
    default_answer: str = "not available"  # batch mode's answer to every question
    temperature: float = 0.0
    retry_temperature: float = 0.7
    blackboard_chars: int = Field(4000, ge=1)
    rules: Literal["auto", "small-local", "none"] = "auto"  # named model-compensation rules (by model: auto)
    turn_timeout: float | None = Field(600.0, gt=0)  # seconds one model step may take


class Limits(BaseModel):
    """Every limit ends the request with FAIL and says which limit it was."""

    model_config = _STRICT

    max_steps: int = Field(100, ge=1)
    max_subtask_steps: int = Field(20, ge=1)
    max_wall_time: float | None = Field(None, gt=0)  # seconds
    max_tokens: int | None = Field(None, gt=0)
    max_cost: float | None = Field(None, gt=0)  # US dollars (needs [prices] for the models used)
    max_repairs: int = Field(2, ge=0)
    max_plan_retries: int = Field(2, ge=0)
    max_replans: int = Field(2, ge=0)


class JournalOptions(BaseModel):
    """Where runs are recorded: a SQLite file (`path`, the default), or a PostgreSQL server a team shares
    (`url`, with the password read from the environment variable `password_env`, never from the file)."""

    model_config = _STRICT

    path: str | None = None
    url: str | None = None
    password_env: str | None = None
    max_run_bytes: int = Field(512 * 1024 * 1024, ge=1)  # copies of the files one run changed

    @field_validator("url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value)
        if parts.scheme not in ("postgresql", "postgres"):
            raise ValueError("[journal] url: a PostgreSQL URL, postgresql://USER@HOST:PORT/DATABASE "
                             "(a SQLite journal is named with path = \"FILE\")")
        if parts.password is not None:
            raise ValueError("[journal] url: the password does not belong in the config file; name the "
                             "environment variable that holds it with password_env = \"MY_VARIABLE\"")
        return value

    @model_validator(mode="after")
    def _one_place(self) -> JournalOptions:
        if self.path is not None and self.url is not None:
            raise ValueError("[journal]: give path (a SQLite file) or url (a PostgreSQL server), not both")
        if self.password_env is not None and self.url is None:
            raise ValueError("[journal] password_env: only a PostgreSQL url takes a password")
        return self


class TelemetryOptions(BaseModel):
    """Each run as an OpenTelemetry trace (podium.cli.traces): `otel` turns it on; `content` adds the text
    that passed through (prompts, answers, tool arguments and results, file text); `endpoint` an OTLP/HTTP
    collector, `file` a JSON-lines file (relative to the config file)."""

    model_config = _STRICT

    otel: bool = False
    content: bool = False
    endpoint: str | None = None
    file: str | None = None
    max_content_chars: int = Field(MAX_CONTENT_CHARS, ge=1)

    @field_validator("endpoint")
    @classmethod
    def _endpoint(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError("[telemetry] endpoint: an OTLP/HTTP traces URL, http://HOST:4318/v1/traces")
        if parts.password is not None:
            raise ValueError("[telemetry] endpoint: credentials do not belong in the config file; give them as "
                             "headers in the environment variable OTEL_EXPORTER_OTLP_HEADERS")
        return value

    @model_validator(mode="after")
    def _only_with_otel(self) -> TelemetryOptions:
        given = [key for key in ("content", "endpoint", "file") if getattr(self, key)]
        if given and not self.otel:  # else silently nothing would be traced
            raise ValueError(f"[telemetry] {', '.join(given)}: traces are off; add otel = true")
        return self


class PodiumConfig(BaseModel):
    """The whole file. `source` is where it was read from (None: built-in defaults)."""

    model_config = _STRICT

    models: ModelsConfig = Field(default_factory=ModelsConfig)
    backends: dict[str, dict[str, Any]] = Field(default_factory=dict)  # provider -> settings
    host: HostOptions = Field(default_factory=HostOptions)
    limits: Limits = Field(default_factory=Limits)
    prices: dict[str, Any] = Field(default_factory=dict)
    apps: dict[str, Any] = Field(default_factory=dict)  # the applications registry's configuration
    journal: JournalOptions = Field(default_factory=JournalOptions)
    telemetry: TelemetryOptions = Field(default_factory=TelemetryOptions)
    _source: Path | None = PrivateAttr(None)

    @property
    def source(self) -> Path | None:
        return self._source

    @field_validator("backends")
    @classmethod
    def _backends(cls, value: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        known = [p.value for p in Provider]
        for provider, settings in value.items():
            if provider not in known:
                raise ValueError(f"unknown provider [backends.{provider}]; the providers are {', '.join(known)}")
            for key in settings:
                if key.lower() in _SECRET_KEYS:
                    raise ValueError(
                        f"[backends.{provider}] {key}: secrets do not belong in the config file; put the key in "
                        "an environment variable (OPENAI_API_KEY, ANTHROPIC_API_KEY) or name your own with "
                        "api_key_env = \"MY_VARIABLE\"")
        return value

    @field_validator("prices")
    @classmethod
    def _prices(cls, value: dict[str, Any]) -> dict[str, Any]:
        _as_value_error(PriceTable.from_config, value)  # says which model's price is wrong
        return value

    @model_validator(mode="after")
    def _across_tables(self) -> PodiumConfig:
        """What one table says about another: silent mistakes otherwise (a limit never enforced, a
        per-application model never used)."""
        known = self.application_names()
        for name in self.models.per_app:
            if name not in known:
                raise ValueError(f"[models.per_app] {name}: no application of that name in this configuration; "
                                 f"the applications are {', '.join(sorted(known))}")
        models = self.models
        roles = {"the planner": models.planner, "the AppAgents": models.app or models.planner,
                 "the judge": models.judge or models.planner,
                 **{f"the {name} AppAgent": spec for name, spec in models.per_app.items()}}
        _as_value_error(self.check_costed, roles)
        return self

    def application_names(self) -> set[str]:
        """The applications this configuration has: the enabled built-ins, its MCP servers and its
        desktop programs (as `podium.apps.build_applications` names them)."""
        apps = self.apps if isinstance(self.apps, Mapping) else {}
        enabled = apps.get("enabled", BUILTINS)
        names = {str(n) for n in enabled} if isinstance(enabled, list | tuple) else set(BUILTINS)
        for table in ("mcp", "desktop"):
            if isinstance(apps.get(table), Mapping):
                names |= {str(n) for n in apps[table]}
        return names

    def check_costed(self, roles: Mapping[str, str]) -> None:
        """With [limits] max_cost set, every model that bills per token must have a price, else its
        cost would be unknown and the limit silently not enforced. `roles` maps who uses a model
        ("the planner") to its spec. Raises ConfigError naming the role, the model and the fix."""
        if self.limits.max_cost is None:
            return
        table = self.price_table()
        for role, spec in roles.items():
            if spec.lower().startswith("scripted"):
                continue
            parsed = parse_spec(spec)
            if parsed.provider in _FREE_PROVIDERS or table.lookup(parsed.model) is not None:
                continue
            raise ConfigError(
                f"[limits] max_cost = {self.limits.max_cost} cannot be enforced: [prices] has no price for "
                f"{spec} (the model of {role}); add \"{parsed.model}\" = {{ input = ..., output = ... }} "
                "(US dollars per 1M tokens; 0 for a model that costs nothing) or remove max_cost")

    # -- derived values ------------------------------------------------------------------------

    @property
    def folder(self) -> Path:
        """What relative paths in the file are relative to (the current folder without a file)."""
        return self.source.parent if self.source is not None else Path.cwd()

    @property
    def where(self) -> str:
        return str(self.source) if self.source is not None else "the built-in defaults"

    def journal_path(self) -> Path:
        if self.journal.path:
            path = Path(self.journal.path).expanduser()
            return path if path.is_absolute() else self.folder / path
        return paths.default_journal_path()

    def price_table(self) -> PriceTable:
        return PriceTable.from_config(self.prices)

    def backend_settings(self, provider: str) -> dict[str, Any]:
        return dict(self.backends.get(provider, {}))

    def host_config(self, *, interactive: bool, auto_approve: bool) -> HostConfig:
        limits, host = self.limits, self.host
        return HostConfig(
            max_steps=limits.max_steps, max_subtask_steps=limits.max_subtask_steps,
            max_wall_time=limits.max_wall_time, max_tokens=limits.max_tokens, max_cost=limits.max_cost,
            max_repairs=limits.max_repairs, max_plan_retries=limits.max_plan_retries,
            max_replans=limits.max_replans, temperature=host.temperature,
            retry_temperature=host.retry_temperature, interactive=interactive,
            default_answer=host.default_answer, auto_approve=auto_approve, evaluate=host.evaluate,
            blackboard_chars=host.blackboard_chars, rules=host.rules)


def find_config(explicit: str | Path | None = None) -> Path | None:
    """The file to read: `explicit` (which must exist), ./podium.toml, else the user's; None if none."""
    if explicit is not None:
        path = Path(explicit).expanduser()
        if not path.is_file():
            raise ConfigError(f"--config {path}: no such file")
        return path
    for candidate in (Path.cwd() / paths.CONFIG_NAME, paths.user_config_file()):
        if candidate.is_file():
            return candidate
    return None


def load_config(explicit: str | Path | None = None) -> PodiumConfig:
    path = find_config(explicit)
    if path is None:
        return PodiumConfig()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read it: {exc}") from None
    return parse_config(data, path)


def parse_config(data: Mapping[str, Any], source: Path | None = None) -> PodiumConfig:
    """Validate a parsed TOML document; every problem is reported, each with its table and key."""
    where = str(source) if source is not None else "configuration"
    try:
        config = PodiumConfig.model_validate(dict(data))
    except ValidationError as exc:
        problems = [_problem(error) for error in exc.errors()]
        raise ConfigError(f"{where}: " + ("\n  ".join(["invalid configuration:", *problems]))) from None
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    config._source = source
    return config


def _problem(error: Mapping[str, Any]) -> str:
    loc = [str(part) for part in error["loc"]]
    table, key = loc[:-1], loc[-1] if loc else ""
    # every top-level key is a table: [limits], not limits
    top = f"[{key}]" if key in PodiumConfig.model_fields else key
    place = f"[{'.'.join(table)}] {key}" if table else top
    kind = error["type"]
    if kind == "extra_forbidden":
        known = _known_keys(table)
        hint = f"; known keys here: {', '.join(known)}" if known else ""
        return f"{place}: unknown key{hint}"
    if kind == "missing":
        return f"{place}: required"
    message = str(error["msg"])
    if kind == "value_error":
        message = message.removeprefix("Value error, ")
        return message if message.startswith("[") else f"{place}: {message}"
    # The value itself is not repeated: it might be a secret typed in the wrong place.
    got = type(error.get("input")).__name__ if "input" in error else ""
    return f"{place}: {message}" + (f" (got a {_toml_type(got)})" if got else "")


def _toml_type(python_type: str) -> str:
    return {"str": "string", "int": "integer", "float": "float", "bool": "boolean", "dict": "table",
            "list": "array"}.get(python_type, python_type)


def _known_keys(table: list[str]) -> list[str]:
    model: type[BaseModel] = PodiumConfig
    for part in table:
        field = model.model_fields.get(part)
        annotation = getattr(field, "annotation", None)
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return []
        model = annotation
    return list(model.model_fields)
