"""A chat request for the embedded model, turned into what its decoder needs: the prompt's tokens, the
grammar of the answer, the sampling settings and when to stop.

llama-cpp-python knows every chat template (the GGUF's own Jinja template, or a named format); podium runs
its own decoding loop (prefix reuse, prompt lookup) and must not diverge from what that library would have
sent the model. So the request goes through the library's own create_chat_completion, with a stand-in for
the model that records the completion it is asked for instead of running it: same template, same tokens,
same stop conditions. The grammar is given to it: the library's own for the schema plus the number bounds
a grammar can hold (podium.backends.json_grammar).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from podium.backends.json_grammar import gbnf
from podium.backends.prefix_cache import common_prefix

StopCheck = Callable[[Any, Any], bool]  # (tokens so far, logits) -> stop


@dataclass(frozen=True, slots=True)
class Completion:
    tokens: tuple[int, ...]
    max_tokens: int | None
    stop: tuple[str, ...] = ()
    stop_check: StopCheck | None = None
    grammar: str | None = None  # GBNF
    grammar_root: str = "root"
    temperature: float = 0.2
    top_k: int = 40
    top_p: float = 0.95
    min_p: float = 0.05
    typical_p: float = 1.0
    seed: int = 0
    head: int = 0  # leading tokens that are the system message: the part other requests share

    def stops_at(self, tokens: Sequence[int]) -> bool:
        """The chat format's own stop rule (its end-of-turn token), on the tokens written so far."""
        if self.stop_check is None:
            return False
        return bool(self.stop_check(np.asarray(tokens, dtype=np.intc), np.empty(0, dtype=np.single)))


class _Recorder:
    """Stands in for a Llama inside create_chat_completion: everything is the model's, except that the
    completion asked for is recorded, not run."""

    def __init__(self, llama: Any) -> None:
        self._llama = llama
        self.request: dict[str, Any] | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._llama, name)

    def create_completion(self, **request: Any) -> Any:
        self.request = request
        return iter(())


def _grammar(schema: Mapping[str, Any]) -> Any:
    """The schema's grammar, or one for any JSON where it cannot be converted (as llama-cpp-python does)."""
    from llama_cpp.llama_grammar import JSON_GBNF, LlamaGrammar

    try:
        return LlamaGrammar.from_string(gbnf(json.dumps(schema)), verbose=False)
    except Exception:  # any failure to convert: any JSON, validated after decoding
        return LlamaGrammar.from_string(JSON_GBNF, verbose=False)


def prepare(llama: Any, messages: Sequence[Mapping[str, Any]], *, schema: Mapping[str, Any] | None,
            temperature: float | None, max_tokens: int | None, seed: int | None) -> Completion:
    options: dict[str, Any] = {"messages": [dict(m) for m in messages], "max_tokens": max_tokens, "stream": True}
    if temperature is not None:
        options["temperature"] = temperature
    if seed is not None:
        options["seed"] = seed
    if schema is not None:  # our grammar, not the chat handler's: it holds number bounds (json_grammar)
        options["grammar"] = _grammar(schema)
    request = _record(llama, options)
    tokens = _tokens(llama, request)
    stop = request.get("stop") or ()
    grammar = request.get("grammar")
    # llama-cpp-python's own rule, kept so that sampled answers repeat from run to run as they did: a given
    # seed is used, else the next one in a chain that starts from the model's seed.
    given_seed = request.get("seed")
    seed = int(given_seed) if given_seed is not None else random.Random(llama._seed).randint(0, 2**32)
    llama.set_seed(seed)
    return Completion(
        tokens=tokens, max_tokens=request.get("max_tokens"),
        stop=(stop,) if isinstance(stop, str) else tuple(stop),
        stop_check=request.get("stopping_criteria"),
        grammar=None if grammar is None else grammar._grammar,
        grammar_root="root" if grammar is None else grammar._root,
        temperature=float(request.get("temperature", 0.2)), top_k=int(request.get("top_k", 40)),
        top_p=float(request.get("top_p", 0.95)), min_p=float(request.get("min_p", 0.05)),
        typical_p=float(request.get("typical_p", 1.0)),
        seed=seed % 2**32, head=_head(llama, messages, tokens))


def _record(llama: Any, options: dict[str, Any]) -> dict[str, Any]:
    from llama_cpp import Llama

    recorder = _Recorder(llama)
    Llama.create_chat_completion(recorder, **options)  # type: ignore[arg-type]
    if recorder.request is None:  # a chat handler that runs the model some other way (e.g. multimodal ones)
        raise RuntimeError(f"the chat format {llama.chat_format!r} is not supported by the embedded backend")
    return recorder.request


def _tokens(llama: Any, request: Mapping[str, Any]) -> tuple[int, ...]:
    prompt = request["prompt"]
    return tuple(prompt) if not isinstance(prompt, str) else tuple(llama.tokenize(prompt.encode(), special=True))


def _head(llama: Any, messages: Sequence[Mapping[str, Any]], tokens: tuple[int, ...]) -> int:
    """How many leading tokens of the prompt the system message makes, as the chat template renders it:
    what the prompt shares with the system message rendered alone (0 without a system message)."""
    if len(messages) < 2 or messages[0].get("role") != "system":
        return 0
    alone = _tokens(llama, _record(llama, {"messages": [dict(messages[0])], "max_tokens": 1, "stream": True}))
    return common_prefix(np.asarray(tokens, dtype=np.int32), np.asarray(alone, dtype=np.int32))
