"""Model specs: one string, parsed into a value, turned into a backend; and what importing costs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from podium.backends import (
    AnthropicBackend,
    Budget,
    BudgetedBackend,
    EmbeddedBackend,
    ModelSpec,
    OpenAIBackend,
    Provider,
    RetryPolicy,
    backend_from_spec,
    parse_spec,
)
from podium.backends.retry import retry_after_seconds
from podium.backends.scripted import ScriptedBackend
from podium.errors import ConfigError


@pytest.mark.parametrize("text, expected", [
    ("openai:gpt-4.1-mini", ModelSpec(Provider.OPENAI, model="gpt-4.1-mini")),
    ("ollama:qwen2.5", ModelSpec(Provider.OLLAMA, model="qwen2.5", base_url="http://127.0.0.1:11434/v1")),
    ("openai-compatible:http://10.0.0.5:8000/v1#Qwen/Qwen2.5-7B",
     ModelSpec(Provider.OPENAI_COMPATIBLE, model="Qwen/Qwen2.5-7B", base_url="http://10.0.0.5:8000/v1")),
    ("anthropic:claude-sonnet-4-5", ModelSpec(Provider.ANTHROPIC, model="claude-sonnet-4-5")),
    ("local", ModelSpec(Provider.LOCAL)),
    ("local:/models/x.gguf", ModelSpec(Provider.LOCAL, path=Path("/models/x.gguf"))),
    ("scripted", ModelSpec(Provider.SCRIPTED)),
])
def test_specs_parse_to_values_and_print_back(text, expected):
    spec = parse_spec(text)
    assert spec == expected
    assert parse_spec(str(spec)) == spec
    assert parse_spec(spec) is spec


@pytest.mark.parametrize("text, message", [
    ("gpt-4", "unknown provider 'gpt-4'"),
    ("openai", "needs a model name"),
    ("openai-compatible:http://host:8000/v1", "separated by '#'"),
    ("openai-compatible:ftp://host/v1#m", "not an http"),
    ("scripted:x", "takes nothing"),
])
def test_bad_specs_say_what_is_wrong_and_list_the_valid_forms(text, message):
    with pytest.raises(ConfigError, match=message) as caught:
        parse_spec(text)
    assert "openai-compatible:http://HOST:PORT/v1#MODEL" in str(caught.value)


def test_factory_builds_each_backend(monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-test-key")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key")
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    openai = backend_from_spec("openai:gpt-4.1-mini", timeout=5, retry=2)
    assert isinstance(openai, OpenAIBackend) and openai.base_url == "https://api.openai.com/v1"
    assert openai.timeout == 5 and openai.retry.max_attempts == 2
    ollama = backend_from_spec("ollama:qwen2.5")
    assert ollama.base_url == "http://127.0.0.1:11434/v1" and ollama.label == "ollama"
    assert isinstance(backend_from_spec("anthropic:claude-sonnet-4-5"), AnthropicBackend)
    local = backend_from_spec(f"local:{tmp_path / 'm.gguf'}", n_ctx=2048)
    assert isinstance(local, EmbeddedBackend) and local.n_ctx == 2048
    assert isinstance(backend_from_spec("local"), EmbeddedBackend)
    assert isinstance(backend_from_spec("scripted", script=["hi"]), ScriptedBackend)
    budgeted = backend_from_spec("openai:gpt-4.1-mini", budget=Budget(max_tokens=10))
    assert isinstance(budgeted, BudgetedBackend) and isinstance(budgeted.inner, OpenAIBackend)


def test_server_addresses_from_the_environment(monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9999")
    assert backend_from_spec("ollama:llama3").base_url == "http://127.0.0.1:9999/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1/")
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    assert backend_from_spec("openai:gpt-4.1").base_url == "http://127.0.0.1:8080/v1"


def test_keys_never_show_and_third_party_servers_never_get_the_openai_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-test-key")
    openai = backend_from_spec("openai:gpt-4.1-mini")
    assert "sk-openai-test-key" not in repr(openai) and "sk-openai-test-key" not in repr(vars(openai))
    other = backend_from_spec("openai-compatible:http://127.0.0.1:1234/v1#m")
    assert other._key.reveal() != "sk-openai-test-key"
    chosen = backend_from_spec("openai-compatible:http://127.0.0.1:1234/v1#m", api_key_env=["OPENAI_API_KEY"])
    assert chosen._key.reveal() == "sk-openai-test-key"


def test_missing_openai_key_and_unknown_settings_are_config_errors(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        backend_from_spec("openai:gpt-4.1-mini")
    with pytest.raises(ConfigError, match=r"unknown setting.*temprature"):
        backend_from_spec("ollama:qwen2.5", temprature=0.1)
    with pytest.raises(ConfigError, match="script"):
        backend_from_spec("scripted")


def test_retry_after_as_seconds_date_or_milliseconds():
    from datetime import UTC, datetime

    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert retry_after_seconds({"retry-after": "7"}) == 7.0
    assert retry_after_seconds({"retry-after": "Thu, 01 Jan 2026 12:00:30 GMT"}, now=now) == 30.0
    assert retry_after_seconds({"retry-after-ms": "1500"}) == 1.5
    assert retry_after_seconds({"retry-after": "soon"}) is None
    assert RetryPolicy(jitter=lambda: 0.0).delay(3, retry_after=9.0) == 9.0


def test_importing_backends_loads_no_sdk():
    code = ("import sys, podium, podium.backends; from podium.backends import backend_from_spec;"
            "backend_from_spec('local'); backend_from_spec('ollama:x');"
            "print(sorted(m for m in ('openai', 'anthropic', 'llama_cpp', 'rich') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
