"""The embedded model's decoding loop: read only what is new, write with guesses checked in batches.

One `Decoder` per loaded model, used under the model's lock. It tracks the tokens whose KV state is in the
model's context (sequence 0) and, per call:
1. starts from the longest prefix of the prompt already evaluated: the context's own sequence, or a state
   kept in the PrefixCache (restored, then cut back), saving the context's sequence first when the new
   prompt would cut it (another agent's prompt is usually next in line for it);
2. reads the rest of the prompt in batches of n_batch tokens;
3. writes the answer token by token, or, where prompt lookup pays (see prompt_lookup), checks a guessed
   continuation in one batch and keeps what its sampling agrees with.
It counts what a call read, took from the cache and wrote, and the time spent reading and writing.
"""

from __future__ import annotations

import codecs
import ctypes
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from podium.backends.llama_prompt import Completion
from podium.backends.llama_sampling import Sampler
from podium.backends.prefix_cache import PrefixCache, common_prefix
from podium.backends.prefix_disk import DiskPrefixes
from podium.backends.prompt_lookup import DraftPolicy, find_draft

_RESTORE_MARGIN = 16  # tokens a stored state must add over the context's own prefix to be worth restoring
# llama.cpp's CPU kernels round differently for batches of 1 to 7 tokens than for 8 or more (logits differ by up
# to 0.4 on Qwen2.5-1.5B), while every batch of 8 or more gives the same bits wherever it starts. A prompt is
# therefore always read in batches of at least this many tokens: a prefix restored from the cache then yields
# exactly what reading the whole prompt from scratch yields, and a run does not change course because the
# cache was warm (greedy answers of a 1.5B model flip on such differences). 32 leaves room for other CPUs.
MIN_BATCH = 32


class Aborted(Exception):
    """The call was cancelled while the model was evaluating."""


class DecodeError(RuntimeError):
    """llama.cpp refused a batch (e.g. no room left in the context)."""


@dataclass(slots=True)
class TurnStats:
    """What one call cost. `cached` prompt tokens were not evaluated again."""

    prompt: int = 0
    cached: int = 0
    output: int = 0
    read_ms: float = 0.0
    write_ms: float = 0.0
    drafted: int = 0
    accepted: int = 0
    restored: bool = False
    finish: str = "length"
    switches: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Speculation:
    """Prompt-lookup settings; `enabled` False writes one token per step."""

    enabled: bool = True
    max_draft: int = 16
    min_ngram: int = 3


class _Text:
    """The answer's text as it grows, held back where it may be the start of a stop string."""

    def __init__(self, stops: tuple[str, ...]) -> None:
        self.stops = tuple(s for s in stops if s)
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="ignore")
        self.text = ""
        self.sent = 0
        self.stopped = False

    def add(self, piece: bytes) -> str:
        """The text that can be shown after `piece`; sets `stopped` when a stop string appeared."""
        self.text += self.decoder.decode(piece)
        for stop in self.stops:
            at = self.text.find(stop, max(0, self.sent - len(stop)))
            if at >= 0:
                self.text = self.text[:at]
                self.stopped = True
                return self.flush()
        hold = max((n for stop in self.stops for n in range(len(stop) - 1, 0, -1)
                    if self.text.endswith(stop[:n])), default=0)
        end = len(self.text) - hold
        out, self.sent = self.text[self.sent:end], max(self.sent, end)
        return out

    def flush(self) -> str:
        if not self.stopped:
            self.text += self.decoder.decode(b"", final=True)
        out, self.sent = self.text[self.sent:], len(self.text)
        return out


class Decoder:
    def __init__(self, llama: Any, *, cache: PrefixCache | None, n_batch: int,
                 speculation: Speculation = Speculation(), disk: DiskPrefixes | None = None) -> None:
        import llama_cpp.llama_cpp as native

        self._native = native
        self.llama = llama
        self.ctx = llama.ctx
        self.cache = cache
        self.disk = disk
        self.n_batch = n_batch
        self.speculation = speculation
        self.n_ctx = int(llama.n_ctx())
        self._memory = native.llama_get_memory(self.ctx)
        self._vocab = native.llama_model_get_vocab(llama.model)
        self._batch = native.llama_batch_init(max(n_batch, speculation.max_draft + 1), 0, 1)
        self._ids = np.zeros(self.n_ctx + 1, dtype=np.int32)  # the tokens whose state is in the context
        self._n = 0
        self._clean = 0  # leading tokens read as a prompt (answers are written one token a batch: kept apart)
        self._piece = ctypes.create_string_buffer(256)
        self.plain_ms: float | None = None  # a plain step's time, measured: the baseline guesses must beat
        self._clear()

    # -- the context's sequence ------------------------------------------------------------------

    @property
    def live(self) -> np.ndarray:
        return self._ids[: self._n]

    def _clear(self) -> None:
        self._native.llama_memory_seq_rm(self._memory, 0, -1, -1)
        self._n = self._clean = 0
        self.llama.n_tokens = 0  # the Llama object's own view of the context: empty, so it never reuses ours

    def _cut(self, n: int) -> None:
        if n < self._n:
            self._native.llama_memory_seq_rm(self._memory, 0, n, -1)
            self._n = n
        self._clean = min(self._clean, self._n)

    def _resync(self) -> None:
        """After a failed or aborted evaluation: keep what llama.cpp still holds, of what we know."""
        held = int(self._native.llama_memory_seq_pos_max(self._memory, 0)) + 1
        self._cut(max(0, min(self._n, held)))

    def _save(self) -> None:
        """Keep the context's sequence in the cache, up to what was read as a prompt."""
        if self.cache is None:
            return
        self._cut(self._clean)
        if self._n < self.cache.min_tokens or self.cache.covers(self.live):
            return
        if int(self._native.llama_state_seq_get_size(self.ctx, 0)) > self.cache.capacity:
            return
        state = self._state()
        if state is not None:
            self.cache.store(self.live, state)  # kept as it is: a copy would double a state's memory for a while

    def _state(self) -> bytearray | None:
        """The context's sequence as a state blob (None when llama.cpp gives none)."""
        native = self._native
        size = int(native.llama_state_seq_get_size(self.ctx, 0))
        state = bytearray(size)
        view = (ctypes.c_uint8 * size).from_buffer(state)
        written = int(native.llama_state_seq_get_data(self.ctx, view, size, 0))
        del view  # the bytearray can be resized only once nothing else looks into it
        if not 0 < written <= size:
            return None
        del state[written:]
        return state

    def _keeps_head(self, prompt: np.ndarray, start: int, head: int) -> bool:
        """Whether this call should stop at the end of the system message to keep its state on disk: a
        head not kept yet (a whole prompt that holds it may be evicted any time), long enough to keep, and
        what is read on either side of it read in batches of MIN_BATCH or more (so the answer is the same as
        when the prompt is read in one go)."""
        return (self.disk is not None and head >= self.disk.min_tokens and not 0 < head - start < MIN_BATCH
                and len(prompt) - head >= MIN_BATCH and not self.disk.holds_head(prompt[:head]))

    def _persist_head(self) -> None:
        """Write the context's sequence, a system message just read, to disk as a head: what the next
        process's calls with the same instructions start from, whatever their requests."""
        state = self._state()
        if state is not None and self.disk is not None:
            self.disk.store(self.live, state, head=True)

    def keep_head(self, completion: Completion, stats: TurnStats) -> bool:
        """Read the prompt's system message alone and keep its state on disk as a head, as a call's first
        reading of it would (the same batches, so the same bits); False when there is no disk cache, the
        message is too short to keep, or its head is kept already. `stats` says what was read."""
        prompt = np.asarray(completion.tokens[: completion.head], dtype=np.int32)
        stats.prompt = len(prompt)
        if len(prompt) >= self.n_ctx:
            raise DecodeError(f"the instructions have {len(prompt)} tokens, more than the context's {self.n_ctx}: "
                              "raise n_ctx in [backends.local]")
        if self.disk is None or len(prompt) < self.disk.min_tokens or self.disk.holds_head(prompt):
            return False
        started = time.perf_counter()
        try:
            start = stats.cached = self._start(prompt, stats)
            self._decode(prompt[start:], all_logits=False, cancelled=lambda: False)
            self._clean = self._n
            self._persist_head()
        finally:
            self.llama.n_tokens = 0
        stats.read_ms = (time.perf_counter() - started) * 1000
        return True

    def _restore(self, tokens: np.ndarray, state: bytes | bytearray) -> bool:
        native = self._native
        buffer = (ctypes.c_uint8 * len(state)).from_buffer_copy(state)
        if int(native.llama_state_seq_set_data(self.ctx, buffer, len(state), 0)) != len(state):
            self._clear()
            return False
        self._ids[: len(tokens)] = tokens
        self._n = self._clean = len(tokens)
        return True

    def close(self) -> None:
        """Free the batch (the model itself belongs to its Llama object)."""
        if self._batch is not None:
            self._native.llama_batch_free(self._batch)
            self._batch = None

    def persist(self) -> int:
        """Write the cache's states to disk for later processes (the context's sequence first joins the
        cache); how many were written."""
        if self.disk is None or self.cache is None:
            return 0
        self._save()
        return sum(self.disk.store(tokens, state) for tokens, state in self.cache.items())

    def _start(self, prompt: np.ndarray, stats: TurnStats) -> int:
        """Bring the context to the longest prefix of `prompt` that is known; its length."""
        own = min(common_prefix(self.live, prompt), self._clean)
        hit = self.cache.lookup(prompt) if self.cache is not None else None
        stored = self.disk.lookup(prompt) if self.disk is not None else None
        if stored is not None and stored.common > max(own, hit.common if hit else 0) + _RESTORE_MARGIN:
            state = self.disk.read(stored) if self.disk is not None else None
            if state is not None:
                self._save()
                if self._restore(stored.tokens, state):
                    stats.restored = True
                    own = stored.common
                else:
                    own = 0
                hit = None
        if hit is not None and hit.common > own + _RESTORE_MARGIN:
            self._save()
            if self._restore(hit.tokens, hit.state):
                stats.restored = True
                own = hit.common
            else:
                own = 0
        elif own < self._n:
            self._save()
        start = min(own, max(len(prompt) - MIN_BATCH, 0))  # the rest is read in one batch of MIN_BATCH or more
        self._cut(start)
        return start

    # -- evaluation --------------------------------------------------------------------------------

    def _decode(self, tokens: np.ndarray | list[int], *, all_logits: bool, cancelled: Callable[[], bool]) -> None:
        native, batch = self._native, self._batch
        for chunk in self._chunks(tokens):
            if cancelled():
                raise Aborted
            n = len(chunk)
            if self._n + n > self.n_ctx:
                raise DecodeError(f"the prompt and answer need more than the context's {self.n_ctx} tokens")
            batch.n_tokens = n
            for i in range(n):
                batch.token[i] = int(chunk[i])
                batch.pos[i] = self._n + i
                batch.n_seq_id[i] = 1
                batch.seq_id[i][0] = 0
                batch.logits[i] = all_logits
            batch.logits[n - 1] = True
            code = int(native.llama_decode(self.ctx, batch))
            if code != 0:
                self._resync()
                if code == 2 or cancelled():
                    raise Aborted
                raise DecodeError(f"llama_decode failed with code {code}")
            self._ids[self._n: self._n + n] = chunk
            self._n += n

    def _chunks(self, tokens: np.ndarray | list[int]) -> list[Any]:
        """`tokens` in batches of n_batch, the last one made at least MIN_BATCH long (see MIN_BATCH)."""
        step = self.n_batch
        chunks = [tokens[begin: begin + step] for begin in range(0, len(tokens), step)]
        if len(chunks) > 1 and len(chunks[-1]) < MIN_BATCH:
            moved = MIN_BATCH - len(chunks[-1])
            whole = len(tokens) - len(chunks[-1]) - moved
            chunks[-2:] = [tokens[whole - len(chunks[-2]) + moved: whole], tokens[whole:]]
        return chunks

    def _piece_of(self, token: int) -> bytes:
        n = int(self._native.llama_token_to_piece(self._vocab, token, self._piece, len(self._piece), 0, False))
        if n < 0:  # a longer piece than the buffer: grow it once
            self._piece = ctypes.create_string_buffer(-n)
            n = int(self._native.llama_token_to_piece(self._vocab, token, self._piece, len(self._piece), 0, False))
        return self._piece.raw[:max(n, 0)]

    # -- one call ----------------------------------------------------------------------------------

    def run(self, completion: Completion, stats: TurnStats, cancelled: Callable[[], bool],
            speculate: bool | None = None) -> Iterator[str]:
        """The answer's text, piece by piece; `stats` is filled in as it goes."""
        prompt = np.asarray(completion.tokens, dtype=np.int32)
        if len(prompt) == 0:
            raise DecodeError("the prompt is empty")
        if len(prompt) >= self.n_ctx:
            raise DecodeError(f"the prompt has {len(prompt)} tokens, more than the context's {self.n_ctx}: "
                              "raise n_ctx in [backends.local] or shorten the prompt")
        stats.prompt = len(prompt)
        room = self.n_ctx - len(prompt)
        limit = room if not completion.max_tokens or completion.max_tokens <= 0 else min(completion.max_tokens, room)
        started = time.perf_counter()
        sampler = Sampler(self.llama, completion)
        try:
            start = self._start(prompt, stats)
            stats.cached = start
            head = completion.head
            if self._keeps_head(prompt, start, head):
                if start < head:
                    self._decode(prompt[start:head], all_logits=False, cancelled=cancelled)
                else:  # a whole prompt held it: cut back to it, read what followed again
                    self._cut(head)
                    stats.cached = head
                self._persist_head()
                start = head
            self._decode(prompt[start:], all_logits=False, cancelled=cancelled)
            self._clean = self._n
            read_done = time.perf_counter()
            stats.read_ms = (read_done - started) * 1000
            yield from self._write(completion, sampler, stats, limit, cancelled,
                                   self.speculation.enabled if speculate is None else speculate)
            stats.write_ms = (time.perf_counter() - read_done) * 1000
        except Aborted:
            return
        finally:
            sampler.close()
            self.llama.n_tokens = 0

    def _write(self, completion: Completion, sampler: Sampler, stats: TurnStats, limit: int,
               cancelled: Callable[[], bool], speculate: bool) -> Iterator[str]:
        native, ctx = self._native, self.ctx
        policy = DraftPolicy(max_draft=self.speculation.max_draft, min_ngram=self.speculation.min_ngram,
                             prior_ms=self.plain_ms) if speculate else None
        text = _Text(completion.stop)
        written: list[int] = []
        drafts: list[int] = []
        first = True  # the first token's logits are the prompt's last token's, not a step's batch
        decode_ms = 0.0
        finish = None
        while True:
            sampling = time.perf_counter()
            new: list[int] = []
            for i in range(len(drafts) + 1):
                token = sampler.sample(ctx, -1 if first else i)
                if native.llama_vocab_is_eog(self._vocab, token) or completion.stops_at([*written, *new, token]):
                    finish = "eog"
                    break
                new.append(token)
                piece = text.add(self._piece_of(token))
                if piece:
                    yield piece
                if text.stopped:
                    finish = "stop"
                    break
                if len(written) + len(new) >= limit:
                    finish = "length"
                    break
                if i < len(drafts) and token == drafts[i]:
                    continue
                break
            # the context holds the step's batch [previous token, *drafts]: keep the drafts that were right
            kept = min(len(drafts), len(new) if finish == "eog" else max(len(new) - 1, 0))
            self._cut(self._n - len(drafts) + kept)
            written.extend(new)
            if not first:
                ms = decode_ms + (time.perf_counter() - sampling) * 1000
                if policy is not None:
                    policy.observe(drafted=len(drafts), accepted=kept, written=len(new), ms=ms)
                if not drafts and len(new) == 1:  # a plain step: the baseline guesses must beat
                    self.plain_ms = ms if self.plain_ms is None else 0.8 * self.plain_ms + 0.2 * ms
            stats.drafted += len(drafts)
            stats.accepted += kept
            if finish is not None:
                break
            if cancelled():
                raise Aborted
            pending = new[-1]  # chosen, not evaluated yet
            guess = min(policy.allowed() if policy is not None else 0, limit - len(written) - 1,
                        self.n_ctx - self._n - 2)
            drafts = []
            if guess > 0:
                history = np.append(self.live, np.int32(pending))
                drafts = [int(t) for t in find_draft(history, limit=guess, min_ngram=self.speculation.min_ngram)]
            decoding = time.perf_counter()
            self._decode([pending, *drafts], all_logits=bool(drafts), cancelled=cancelled)
            decode_ms = (time.perf_counter() - decoding) * 1000
            first = False
        tail = text.flush()
        if tail:
            yield tail
        stats.output = len(written)
        stats.finish = "length" if finish == "length" else "stop"
        if policy is not None:
            stats.switches = list(policy.history)
