"""Choosing each token of the embedded model's answer: the sampling chain, and the answer's grammar checked
lazily.

A grammar applied to every candidate costs 14-18 ms a token with Qwen's 152k-token vocabulary on two cores,
a third of a decoding step. Most of the time the token the model prefers is one the grammar allows anyway,
so the token is chosen first without the grammar, then checked alone against it; only when the grammar
refuses it is the choice made again over the whole vocabulary with the grammar applied (llama.cpp's own
common sampler does the same). Greedy decoding chooses exactly the same token either way. A sampled answer
(a retry, temperature > 0) applies the grammar first, as llama-cpp-python does: choosing twice would draw
other random numbers, and the same seed would no longer give the same answer as before.
"""

from __future__ import annotations

import ctypes
import math
from typing import Any

import numpy as np

from podium.backends.llama_prompt import Completion


class GrammarError(RuntimeError):
    """llama.cpp could not parse the answer's grammar."""


class Sampler:
    def __init__(self, llama: Any, completion: Completion) -> None:
        import llama_cpp.llama_cpp as native

        self._native = native
        self._vocab = native.llama_model_get_vocab(llama.model)
        self._n_vocab = llama.n_vocab()
        chain = native.llama_sampler_chain_init(native.llama_sampler_chain_default_params())
        grammar = None
        if completion.grammar is not None:
            grammar = native.llama_sampler_init_grammar(self._vocab, completion.grammar.encode(),
                                                        completion.grammar_root.encode())
            if not grammar:
                native.llama_sampler_free(chain)
                raise GrammarError("llama.cpp could not parse the grammar of the answer's JSON schema")
            if completion.temperature != 0.0:  # in the chain, before the choice (see above)
                native.llama_sampler_chain_add(chain, grammar)
                grammar = None
        if completion.temperature == 0.0:
            native.llama_sampler_chain_add(chain, native.llama_sampler_init_greedy())
        elif completion.temperature < 0.0:
            native.llama_sampler_chain_add(chain, native.llama_sampler_init_dist(completion.seed))
        else:
            for sampler in (native.llama_sampler_init_top_k(completion.top_k),
                            native.llama_sampler_init_typical(completion.typical_p, 1),
                            native.llama_sampler_init_top_p(completion.top_p, 1),
                            native.llama_sampler_init_min_p(completion.min_p, 1),
                            native.llama_sampler_init_temp(completion.temperature),
                            native.llama_sampler_init_dist(completion.seed)):
                native.llama_sampler_chain_add(chain, sampler)
        self._chain = chain
        self._grammar = grammar  # checked lazily, apart from the chain (greedy answers)
        self._one = (native.llama_token_data * 1)()
        self._one_array = native.llama_token_data_array(self._one, 1, -1, False)
        self._all: Any = None
        self.resampled = 0  # tokens the grammar refused and had chosen again

    def sample(self, ctx: Any, index: int) -> int:
        """The next token from the logits of the batch's `index`-th token, accepted by the grammar."""
        native = self._native
        token = int(native.llama_sampler_sample(self._chain, ctx, index))
        if self._grammar is None:
            return token
        if not self._allowed(token):
            token = self._with_grammar(ctx, index)
            self.resampled += 1
        native.llama_sampler_accept(self._grammar, token)
        return token

    def _allowed(self, token: int) -> bool:
        self._one[0].id = token
        self._one[0].logit = 0.0
        self._one[0].p = 0.0
        self._one_array.size = 1
        self._one_array.selected = -1
        self._one_array.sorted = False
        self._native.llama_sampler_apply(self._grammar, ctypes.byref(self._one_array))
        return not math.isinf(self._one[0].logit)

    def _with_grammar(self, ctx: Any, index: int) -> int:
        native = self._native
        if self._all is None:
            dtype = np.dtype([("id", np.intc), ("logit", np.single), ("p", np.single)], align=True)
            self._all = np.recarray((self._n_vocab,), dtype=dtype)
            self._all_array = native.llama_token_data_array(
                self._all.ctypes.data_as(native.llama_token_data_p), self._n_vocab, -1, False)
        logits = np.ctypeslib.as_array(native.llama_get_logits_ith(ctx, index), shape=(self._n_vocab,))
        self._all.id[:] = np.arange(self._n_vocab, dtype=np.intc)
        self._all.logit[:] = logits
        self._all.p[:] = 0.0
        self._all_array.size = self._n_vocab
        self._all_array.selected = -1
        self._all_array.sorted = False
        native.llama_sampler_apply(self._grammar, ctypes.byref(self._all_array))
        native.llama_sampler_apply(self._chain, ctypes.byref(self._all_array))
        selected = int(self._all_array.selected)
        if selected < 0:
            raise GrammarError("the grammar allows no token here")
        token = int(self._all[selected].id)
        native.llama_sampler_accept(self._chain, token)
        return token

    def close(self) -> None:
        if self._chain is not None:
            self._native.llama_sampler_free(self._chain)
            self._chain = None
        if self._grammar is not None:
            self._native.llama_sampler_free(self._grammar)
            self._grammar = None
