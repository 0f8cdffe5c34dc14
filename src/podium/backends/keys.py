"""API keys: read from the usual environment variables, never shown in reprs, logs or error messages."""

from __future__ import annotations

import os
from collections.abc import Sequence

from podium.errors import ConfigError


class Secret:
    """A string that does not print itself. `reveal()` is the one way to get at the value."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def redact(self, text: str) -> str:
        """`text` with every occurrence of the secret masked (error bodies may echo a key back)."""
        if len(self._value) < 4:
            return text
        return text.replace(self._value, "***")

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)


def resolve_key(explicit: str | Secret | None, env_names: Sequence[str], *, required: bool,
                what: str, placeholder: str = "not-needed") -> Secret:
    """The key passed explicitly, else the first of `env_names` that is set.

    Servers that need no key (Ollama, llama.cpp) still get a placeholder: the SDKs refuse an empty one.
    """
    if isinstance(explicit, Secret):
        return explicit
    if explicit:
        return Secret(explicit)
    for name in env_names:
        value = os.environ.get(name, "").strip()
        if value:
            return Secret(value)
    if required:
        names = " or ".join(env_names) or "an API key"
        raise ConfigError(f"{what} needs an API key: set {names} in the environment, "
                          "or pass api_key=... in the backend settings")
    return Secret(placeholder)
