"""The recorder that writes sessions to a store, replay of a record, and resume after a crash."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from podium.ensemble.inputs import (
    AgentDownInput,
    AskInput,
    DispatchRejectedInput,
    ErrorInput,
    Input,
    ResponseInput,
    TellInput,
)
from podium.ensemble.ops import AgentSpec, Dispatch, Halt, Op, Reply, ReplyError, Start, Stop, Token
from podium.ensemble.runtime import AgentRuntime
from podium.ensemble.session import Session
from podium.ensemble.strategy import Strategy, decide
from podium.errors import PodiumError, Reason, ReasonKind
from podium.journal import codec
from podium.journal.files import read_regular, relative
from podium.journal.liveness import this_process
from podium.journal.store import Entry, SessionStatus, Store


class Journal:
    """A `Recorder`: every strategy input of a session and the ops it produced, durably, in order; and,
    for a run that changes files, copies of their bytes and the change log that `podium undo` and the
    report read.

    The change log's contract, for whoever runs a changing tool call (the desktop's executor):

        before = {p: journal.save_file(session, workspace / p) for p in paths}   # right before the call
        ...the call runs...
        for p in paths:                                                          # right after it
            journal.record_change(session, workspace, p, before[p], journal.save_file(session, workspace / p))

    Each write is durable when the method returns. The first change of a path in a run keeps its
    `before`; later ones only move `after`, so `before` is the file as it was before the run."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._seq: dict[str, int] = {}

    def opened(self, session: str, strategy: str) -> None:
        self.store.open_session(session, strategy)
        self.store.set_process(session, this_process())  # `podium sessions` tells a dead writer from a live one
        entries = self.store.entries(session)
        self._seq[session] = entries[-1].seq if entries else 0  # a resumed session numbers on

    def record(self, session: str, input: Input, ops: list[Op]) -> None:
        seq = self._seq.get(session, 0) + 1
        self._seq[session] = seq
        self.store.append(session, seq, codec.dumps(input), codec.dumps(ops))

    def closed(self, session: str, reason: Reason) -> None:
        status = SessionStatus.STOPPED if reason.kind is ReasonKind.STOPPED else SessionStatus.HALTED
        self.store.close_session(session, status, str(reason))
        self._seq.pop(session, None)

    def keep(self, session: str, key: str, value: Any) -> None:
        """Keep a named JSON value with the session's record (what replay or a report needs later)."""
        self.store.put(session, key, value)

    # -- copies of files and the change log ----------------------------------------------------------

    def save_bytes(self, session: str, data: bytes) -> str:
        """Keep `data` in the artifact store for `session`; returns its SHA-256 (hex). Raises JournalFull
        when the session's copies would pass the store's limit (nothing is then kept)."""
        return self.store.save_bytes(session, data)

    def save_file(self, session: str, path: str | Path) -> str | None:
        """Keep the current bytes of `path`; returns their SHA-256, or None when nothing is at `path`.
        Regular files only (a FIFO or a device raises PodiumError rather than block)."""
        data = read_regular(Path(path), self.store.max_session_bytes)  # type: ignore[attr-defined]
        return None if data is None else self.save_bytes(session, data)

    def record_change(self, session: str, workspace: str | Path, path: str | Path, before: str | None,
                      after: str | None) -> None:
        """Log that `path` (relative to `workspace`, or absolute inside it) changed from the bytes named
        `before` to those named `after` (None: absent). Both must have been saved for this session."""
        root = Path(workspace).resolve()
        self.store.record_change(session, str(root), relative(root, path), before, after)


@dataclass(frozen=True, slots=True)
class ReplayStep:
    seq: int
    input: Input
    ops: list[Op]
    state: Any
    matches: bool  # the strategy decided now what it decided then
    recorded: str = ""  # the ops it decided then (JSON text)
    error: str | None = None  # the strategy raised on this input now (the replay ends there)


def replay(strategy: Strategy[Any], opts: Mapping[str, Any], entries: list[Entry]) -> list[ReplayStep]:
    """Re-run a strategy over a recorded session without any agent or model: the recorded responses
    are fed back in. Each step says whether the strategy still decides the same ops; objects that are not
    values (a backend, a behaviour: recorded by type only) are not compared. A strategy that raises on an
    input (a record altered, or a strategy changed, so that an input no longer fits its state) diverges
    there, with the error, and the replay ends: the session would have halted."""
    state, _ = strategy.init(opts)
    steps = []
    for entry in entries:
        input = codec.loads(entry.input)
        try:
            ops, state = decide(strategy, input, state)
        except Exception as exc:
            steps.append(ReplayStep(entry.seq, input, [], state, False, entry.ops, f"{type(exc).__name__}: {exc}"))
            break
        same = codec.same_values(json.loads(codec.dumps(ops)), json.loads(entry.ops))
        steps.append(ReplayStep(entry.seq, input, ops, state, same, entry.ops))
    return steps


@dataclass
class _Plan:
    agents: dict[str, AgentSpec]
    pending: dict[Token, None]
    in_flight: Counter[tuple[str, Token]]
    prompts: dict[tuple[str, Token], Any]
    next_token: int


def _plan(strategy: Strategy[Any], opts: Mapping[str, Any], entries: list[Entry]) -> tuple[Any, _Plan]:
    """Rebuild the strategy's state and the session's books (agents, pending tokens, work in flight)
    from a record, applying the recorded ops the way the session applied them."""
    state, specs = strategy.init(opts)
    plan = _Plan({s.name: s for s in specs}, {}, Counter(), {}, 0)
    inputs = [codec.loads(e.input) for e in entries]
    for i, input in enumerate(inputs):
        kind = type(input)
        if kind is TellInput or kind is AskInput:
            plan.pending[input.token] = None
            plan.next_token = max(plan.next_token, int(input.token.rsplit(":", 1)[1]))
        elif kind is ResponseInput or kind is ErrorInput:
            if input.token is not None:
                plan.in_flight[(input.agent, input.token)] -= 1
        elif kind is AgentDownInput:
            plan.agents.pop(input.agent, None)
            for key in [k for k in plan.in_flight if k[0] == input.agent]:
                del plan.in_flight[key]
        elif kind is DispatchRejectedInput:
            plan.in_flight[(input.agent, input.token)] -= 1
        ops, state = decide(strategy, input, state)
        following = inputs[i + 1] if i + 1 < len(inputs) else None
        for op in ops:
            if _apply(plan, op, following):
                break
        if kind is AgentDownInput:
            for token in input.tokens:
                if not any(n > 0 for (_, t), n in plan.in_flight.items() if t == token):
                    plan.pending.pop(token, None)
        elif kind is DispatchRejectedInput:
            plan.pending.pop(input.token, None)
    return state, plan


def _apply(plan: _Plan, op: Op, following: Input | None) -> bool:
    """Apply one recorded op to the books; True when the batch ended there (a rejected dispatch)."""
    kind = type(op)
    if kind is Dispatch and op.token is not None and op.token in plan.pending:
        if type(following) is DispatchRejectedInput and (following.agent, following.token) == (op.agent, op.token):
            plan.in_flight[(op.agent, op.token)] += 1  # undone by the rejection that follows
            return True
        plan.in_flight[(op.agent, op.token)] += 1
        plan.prompts[(op.agent, op.token)] = op.prompt
    elif kind is Reply or kind is ReplyError:
        plan.pending.pop(op.token, None)
    elif kind is Start:
        plan.agents.setdefault(op.name, op)
    elif kind is Stop:
        plan.agents.pop(op.name, None)
        for key in [k for k in plan.in_flight if k[0] == op.name]:
            del plan.in_flight[key]
    elif kind is Halt:
        raise PodiumError("the recorded session halted; there is nothing to resume")
    return False


async def resume(strategy: Strategy[Any], store: Store, name: str, *, runtime: AgentRuntime | None = None,
                 **opts: Any) -> Session:
    """Continue a session whose process died: the strategy's state is rebuilt from the record (no model
    is called for what was already answered), its agents start afresh, the dispatches that were in flight
    are sent again, and the pending tokens can be polled under their old names.

    Pass the same strategy and options the session was started with."""
    record = store.session(name)
    if record.status is not SessionStatus.RUNNING:
        raise PodiumError(f"session {name!r} ended ({record.status.value}: {record.close_reason}); "
                          "only a session that did not end can be resumed")
    state, plan = _plan(strategy, opts, store.entries(name))
    redispatch = _redispatch(plan)
    return await Session._restore(strategy, name, state, list(plan.agents.values()), list(plan.pending),
                                  plan.next_token, redispatch, runtime=runtime, recorder=Journal(store))


def _redispatch(plan: _Plan) -> list[Dispatch]:
    # In the order they were first sent: strategies correlate an agent's answers by that order.
    return [Dispatch(agent, prompt, token) for (agent, token), prompt in plan.prompts.items()
            for _ in range(plan.in_flight[(agent, token)]) if token in plan.pending and agent in plan.agents]


@dataclass(frozen=True, slots=True)
class InFlight:
    """What a record left unfinished: the dispatches a resume sends again, the tokens still pending."""

    dispatches: tuple[Dispatch, ...]
    pending: tuple[Token, ...]


def in_flight(strategy: Strategy[Any], opts: Mapping[str, Any], entries: list[Entry]) -> InFlight:
    """What `resume` would send again and wait for, without starting anything."""
    _, plan = _plan(strategy, opts, entries)
    return InFlight(tuple(_redispatch(plan)), tuple(plan.pending))
