"""Prompt-lookup decoding: guesses of the next tokens taken from the text itself, checked in one batch.

When an answer copies its prompt (a table re-typed from a document, a file name, a tool's arguments from
the worked example) the tokens that followed the last few written tokens where they occur earlier are a
good guess of what comes next. The model evaluates the guess in one batch and keeps the longest run its own
sampling agrees with, so the text is exactly what plain decoding writes; only the time changes. Nothing
else is needed: no draft model, no second context.

Guessing is not free on a CPU: evaluating 9 tokens at once costs about 3.5 times one token on two cores
(batching helps far less than on a GPU), so a guess pays only when most of it is accepted. Two rules
keep it where it wins:
- guess only after a match of at least `min_ngram` tokens (one matching token predicts little), and grow
  the guess while guesses are fully accepted, shrink it to what was accepted when not;
- measure: the time per written token of the steps that guessed against the steps that did not, in this
  answer; when guessing is slower, stop guessing for a while, then try again (the same answer can copy a
  table, then write prose).

Pure: the decoder feeds it tokens and timings; tested without a model.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from podium.backends.prefix_cache import Tokens


def find_draft(tokens: Tokens, *, limit: int, min_ngram: int = 3, max_ngram: int = 12) -> Tokens:
    """Up to `limit` tokens that followed the place where the end of `tokens` occurred before: the place
    sharing the longest run of tokens with the end (at least min_ngram, counted up to max_ngram), the
    latest of those on a tie. Empty when nothing matches that well."""
    n = len(tokens)
    if limit <= 0 or n <= min_ngram:
        return tokens[:0]
    # candidates: earlier positions holding the last token, with room for at least one token after them
    candidates = np.flatnonzero(tokens[: n - 1] == tokens[n - 1])
    if len(candidates) == 0:
        return tokens[:0]
    matched = np.ones(len(candidates), dtype=np.int64)
    alive = np.ones(len(candidates), dtype=bool)
    for back in range(1, max_ngram):
        where = candidates - back
        ok = alive & (where >= 0)
        ok[ok] = tokens[where[ok]] == tokens[n - 1 - back]
        if not ok.any():
            break
        matched += ok
        alive = ok
    best = int(matched.max())
    if best < min_ngram:
        return tokens[:0]
    position = int(candidates[np.flatnonzero(matched == best)[-1]])
    return tokens[position + 1: position + 1 + limit]


@dataclass(slots=True)
class DraftPolicy:
    """How many guessed tokens the next step checks (0: decode one token), from what the answer has
    shown so far. One per answer."""

    max_draft: int = 16
    min_draft: int = 2  # one guessed token rarely pays: a batch of 2 costs ~1.8 single steps on a CPU
    min_ngram: int = 3
    trial: int = 6  # guessing steps measured before the verdict
    backoff: int = 32  # tokens written without guessing before guessing is tried again
    length: int = 4
    # time (ms) and written tokens of the steps that guessed, and of those that did not
    guess_ms: float = 0.0
    guess_tokens: int = 0
    guess_steps: int = 0
    plain_ms: float = 0.0
    plain_tokens: int = 0
    written: int = 0
    paused_until: int = 0
    prior_ms: float | None = None  # time of a plain step measured before this answer, if any
    drafted: int = 0
    accepted: int = 0
    history: list[str] = field(default_factory=list)  # "on"/"off" switches, for tests and reports

    def allowed(self) -> int:
        """The longest guess to check now (0 while guessing is paused)."""
        return 0 if self.written < self.paused_until else self.length

    def observe(self, *, drafted: int, accepted: int, written: int, ms: float) -> None:
        """A step checked `drafted` guessed tokens (0: a plain step), `accepted` of them were right, it
        wrote `written` tokens in `ms` milliseconds."""
        self.written += written
        if drafted == 0:
            self.plain_ms += ms
            self.plain_tokens += written
            return
        self.drafted += drafted
        self.accepted += accepted
        self.guess_ms += ms
        self.guess_tokens += written
        self.guess_steps += 1
        if accepted == drafted:
            self.length = min(self.max_draft, self.length * 2)
        else:
            self.length = max(self.min_draft, min(self.max_draft, accepted + 1))
        if self.guess_steps >= self.trial and self._losing():
            self.paused_until = self.written + self.backoff
            self.backoff *= 2
            self.guess_ms = 0.0
            self.guess_tokens = self.guess_steps = 0
            self.history.append("off")

    def _losing(self) -> bool:
        if self.plain_tokens:
            plain_rate = self.plain_ms / self.plain_tokens
        elif self.prior_ms is not None:
            plain_rate = self.prior_ms
        else:
            return False  # nothing to compare with yet
        return self.guess_ms / max(self.guess_tokens, 1) > plain_rate
