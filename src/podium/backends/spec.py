"""Model specs: one string names a model the same way in the API, the CLI and podium.toml.

    openai:gpt-4.1-mini                          OpenAI (key from OPENAI_API_KEY)
    ollama:qwen2.5                               Ollama's OpenAI-compatible API on this machine
    openai-compatible:http://HOST:PORT/v1#MODEL  any server speaking the OpenAI chat API
    anthropic:claude-sonnet-4-5                  Anthropic (key from ANTHROPIC_API_KEY)
    local                                        the embedded default model (llama-cpp-python, CPU)
    local:/path/model.gguf                       any GGUF file, embedded
    scripted                                     the scripted backend (tests and demos)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from urllib.parse import urlsplit

from podium.errors import ConfigError

OLLAMA_BASE_URL = "http://127.0.0.1:11434/v1"


class Provider(StrEnum):
    OPENAI = "openai"
    OLLAMA = "ollama"
    OPENAI_COMPATIBLE = "openai-compatible"
    ANTHROPIC = "anthropic"
    LOCAL = "local"
    SCRIPTED = "scripted"


# What each provider needs after the colon; used in error messages so a typo is fixed in one go.
_FORMS = {
    Provider.OPENAI: "openai:MODEL (e.g. openai:gpt-4.1-mini)",
    Provider.OLLAMA: "ollama:MODEL (e.g. ollama:qwen2.5)",
    Provider.OPENAI_COMPATIBLE: "openai-compatible:http://HOST:PORT/v1#MODEL",
    Provider.ANTHROPIC: "anthropic:MODEL (e.g. anthropic:claude-sonnet-4-5)",
    Provider.LOCAL: "local or local:/path/model.gguf",
    Provider.SCRIPTED: "scripted",
}


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """A parsed model spec. `str(spec)` gives back the canonical string."""

    provider: Provider
    model: str | None = None
    base_url: str | None = None
    path: Path | None = None

    def __str__(self) -> str:
        match self.provider:
            case Provider.OPENAI_COMPATIBLE:
                return f"{self.provider}:{self.base_url}#{self.model}"
            case Provider.LOCAL:
                return "local" if self.path is None else f"local:{self.path}"
            case Provider.SCRIPTED:
                return "scripted"
            case _:
                return f"{self.provider}:{self.model}"

    @property
    def is_default_local(self) -> bool:
        return self.provider is Provider.LOCAL and self.path is None


def _bad(spec: str, why: str) -> ConfigError:
    forms = "\n  ".join(_FORMS.values())
    return ConfigError(f"invalid model spec {spec!r}: {why}. Valid forms:\n  {forms}")


def parse_spec(spec: str | ModelSpec) -> ModelSpec:
    """Parse a model spec string (a `ModelSpec` passes through unchanged)."""
    if isinstance(spec, ModelSpec):
        return spec
    if not isinstance(spec, str):
        raise ConfigError(f"a model spec is a string such as 'openai:gpt-4.1-mini', got {type(spec).__name__}")
    text = spec.strip()
    head, sep, rest = text.partition(":")
    try:
        provider = Provider(head.lower())
    except ValueError:
        raise _bad(spec, f"unknown provider {head!r}") from None
    rest = rest.strip()
    match provider:
        case Provider.LOCAL:
            return ModelSpec(provider, path=Path(rest).expanduser() if rest else None)
        case Provider.SCRIPTED:
            if rest:
                raise _bad(spec, "'scripted' takes nothing after it (pass the script as a setting)")
            return ModelSpec(provider)
        case Provider.OPENAI_COMPATIBLE:
            url, _, model = rest.rpartition("#")
            if not url or not model:
                raise _bad(spec, "the server URL and the model are both required, separated by '#'")
            parts = urlsplit(url)
            if parts.scheme not in ("http", "https") or not parts.netloc:
                raise _bad(spec, f"{url!r} is not an http(s) URL")
            return ModelSpec(provider, model=model.strip(), base_url=url.rstrip("/"))
        case _:
            if not sep or not rest:
                raise _bad(spec, f"{provider} needs a model name after the colon")
            base_url = OLLAMA_BASE_URL if provider is Provider.OLLAMA else None
            return ModelSpec(provider, model=rest, base_url=base_url)
