"""Model backends behind the `Backend` protocol, and what goes around every one of them: model specs,
retries, structured output, prices and budgets.

Importing this package never imports openai, anthropic or llama_cpp: each backend imports its SDK when
it is first used, and the backend classes themselves load on first access.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from podium.backends.budget import Budget, BudgetedBackend
from podium.backends.chat import ChatSession, ToolSpec
from podium.backends.factory import backend_from_spec
from podium.backends.keys import Secret
from podium.backends.pricing import Price, PriceTable
from podium.backends.retry import Failure, RetryPolicy
from podium.backends.spec import ModelSpec, Provider, parse_spec
from podium.backends.structured import (
    NoJSONFound,
    OutputErrors,
    Structured,
    StructuredOutputError,
    ask_structured,
    extract_json,
    repair_prompt,
    schema_of,
    validate,
)

if TYPE_CHECKING:
    from podium.backends.anthropic_backend import AnthropicBackend
    from podium.backends.embedded import EmbeddedBackend
    from podium.backends.local_model import DEFAULT_MODEL, ModelIntegrityError, ensure_default_model
    from podium.backends.openai_compat import OpenAIBackend

_LAZY = {
    "OpenAIBackend": "podium.backends.openai_compat",
    "AnthropicBackend": "podium.backends.anthropic_backend",
    "EmbeddedBackend": "podium.backends.embedded",
    "DEFAULT_MODEL": "podium.backends.local_model",
    "ModelIntegrityError": "podium.backends.local_model",
    "ensure_default_model": "podium.backends.local_model",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'podium.backends' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


__all__ = [
    "DEFAULT_MODEL",
    "AnthropicBackend",
    "Budget",
    "BudgetedBackend",
    "ChatSession",
    "EmbeddedBackend",
    "Failure",
    "ModelIntegrityError",
    "ModelSpec",
    "NoJSONFound",
    "OpenAIBackend",
    "OutputErrors",
    "Price",
    "PriceTable",
    "Provider",
    "RetryPolicy",
    "Secret",
    "Structured",
    "StructuredOutputError",
    "ToolSpec",
    "ask_structured",
    "backend_from_spec",
    "ensure_default_model",
    "extract_json",
    "parse_spec",
    "repair_prompt",
    "schema_of",
    "validate",
]
