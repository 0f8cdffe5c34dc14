"""`backend_from_spec`: a model spec string (see podium.backends.spec) to a ready Backend."""

from __future__ import annotations

import os
from typing import Any

from podium.backends.budget import Budget, BudgetedBackend
from podium.backends.pricing import PriceTable
from podium.backends.retry import RetryPolicy
from podium.backends.spec import ModelSpec, Provider, parse_spec
from podium.errors import ConfigError

# Settings every network backend understands; the embedded one has its own (see EmbeddedBackend).
_NETWORK = {"api_key", "api_key_env", "base_url", "timeout", "retry", "prices", "default_headers"}
_LOCAL = {"n_ctx", "n_threads", "n_threads_batch", "n_batch", "seed", "timeout", "prices", "cache_dir",
          "progress", "max_tokens", "chat_format", "repack", "cache_bytes", "disk_cache_bytes", "prompt_lookup"}


def _check(spec: ModelSpec, settings: dict[str, Any], allowed: set[str]) -> None:
    unknown = set(settings) - allowed - {"budget"}
    if unknown:
        raise ConfigError(f"backend {spec}: unknown setting(s) {', '.join(sorted(unknown))}; "
                          f"known: {', '.join(sorted(allowed | {'budget'}))}")


def _prices(settings: dict[str, Any]) -> None:
    prices = settings.get("prices")
    if prices is not None and not isinstance(prices, PriceTable):
        settings["prices"] = PriceTable.from_config(prices)


def _retry(settings: dict[str, Any]) -> None:
    retry = settings.get("retry")
    if isinstance(retry, int) and not isinstance(retry, bool):  # retry = 3 in podium.toml: attempts
        if retry < 1:
            raise ConfigError(f"retry must be at least 1 attempt, got {retry}")
        settings["retry"] = RetryPolicy(max_attempts=retry)
    elif retry is not None and not isinstance(retry, RetryPolicy):
        raise ConfigError(f"retry must be a number of attempts or a RetryPolicy, got {retry!r}")


def backend_from_spec(spec: str | ModelSpec, **settings: Any) -> Any:
    """Build the backend a spec names. Settings: api_key, api_key_env, base_url, timeout (seconds),
    retry (attempts or RetryPolicy), prices (PriceTable or {model: {input, output}}), budget (a shared
    Budget: the backend is wrapped in a BudgetedBackend); local models also take n_ctx, n_threads,
    n_threads_batch, n_batch, seed, max_tokens, chat_format, cache_dir, progress, cache_bytes,
    disk_cache_bytes, prompt_lookup; `scripted` takes script."""
    parsed = parse_spec(spec)
    settings = dict(settings)
    budget = settings.pop("budget", None)
    if budget is not None and not isinstance(budget, Budget):
        raise ConfigError(f"budget must be a podium.backends.Budget shared by the session, got {budget!r}")
    backend = _build(parsed, settings)
    return backend if budget is None else BudgetedBackend(backend, budget)


def _build(spec: ModelSpec, settings: dict[str, Any]) -> Any:
    match spec.provider:
        case Provider.SCRIPTED:
            from podium.backends.scripted import ScriptedBackend

            if "script" not in settings and "default" not in settings:
                raise ConfigError("the scripted backend needs script=[...] (the replies, in order) or default=...")
            return ScriptedBackend(settings.pop("script", ()), **settings)
        case Provider.LOCAL:
            _check(spec, settings, _LOCAL)
            _prices(settings)
            from podium.backends.embedded import EmbeddedBackend

            return EmbeddedBackend(spec.path, **settings)
        case Provider.ANTHROPIC:
            _check(spec, settings, _NETWORK)
            _prices(settings)
            _retry(settings)
            from podium.backends.anthropic_backend import AnthropicBackend

            return AnthropicBackend(str(spec.model), **settings)
    _check(spec, settings, _NETWORK)
    _prices(settings)
    _retry(settings)
    from podium.backends.openai_compat import OpenAIBackend

    if spec.provider is Provider.OPENAI:
        settings.setdefault("base_url", os.environ.get("OPENAI_BASE_URL", "").strip() or None)
        return OpenAIBackend(str(spec.model), **settings)
    if spec.provider is Provider.OLLAMA:
        host = os.environ.get("OLLAMA_HOST", "").strip()
        base_url = settings.pop("base_url", None) or (_ollama_url(host) if host else spec.base_url)
        settings.setdefault("api_key_env", ())
        return OpenAIBackend(str(spec.model), base_url=base_url, key_required=False, label="ollama", **settings)
    # openai-compatible: a third-party server never gets OPENAI_API_KEY unless asked to (api_key_env).
    settings.setdefault("api_key_env", ())
    base_url = settings.pop("base_url", None) or spec.base_url
    return OpenAIBackend(str(spec.model), base_url=base_url, key_required=False, label="openai-compatible",
                         **settings)


def _ollama_url(host: str) -> str:
    """OLLAMA_HOST is host[:port] or a URL; the OpenAI-compatible API lives under /v1."""
    url = host if "://" in host else f"http://{host}"
    if url.count(":") < 2:
        url += ":11434"
    return url.rstrip("/") + "/v1"
