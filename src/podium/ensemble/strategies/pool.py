"""Pool: N interchangeable workers from one template; a free worker takes each request."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from podium.agent.backend import Prompt
from podium.agent.events import Response
from podium.ensemble.ops import AgentSpec, Dispatch, Halt, Op, Reply, ReplyError, Start, Token
from podium.ensemble.strategies._support import Options, evolve, from_template
from podium.ensemble.strategy import Result, Strategy
from podium.errors import Reason, ReasonKind

Queued = tuple[Token, str | Prompt]
Sent = tuple[str, Token, str | Prompt]  # a dispatch of the last batch: worker, token, prompt


@dataclass(frozen=True, slots=True)
class PoolState:
    template: AgentSpec
    workers: tuple[str, ...]  # live workers, oldest first
    free: tuple[str, ...]  # idle workers; the head takes the next request, a freed worker goes last
    busy: Mapping[str, Token]
    queue: tuple[Queued, ...] = ()  # requests waiting for a free worker, oldest first
    started: int = 0  # workers ever started: names new ones
    replace_workers: bool = True
    # The dispatches of the last batch of ops, in order: a rejected dispatch ends its batch (the session applies
    # nothing after it), so the ones after it never reached their workers and go back to the queue's head.
    sent: tuple[Sent, ...] = ()


class Pool(Strategy[PoolState]):
    """A pool of workers: each request goes to a free worker, else waits in a FIFO queue; a worker
    that finishes takes the oldest queued request. Idle workers rotate, so work spreads evenly.

    Options: `worker_template=AgentSpec(prefix, behaviour, opts)` (workers are named prefix-1..N),
    `worker_count=` (default 2), `replace_workers=` (default True).

    A turn error fails that request only. A worker that goes down fails its request `worker_down`
    and is replaced by a fresh worker (prefix-N+1...) that takes the next queued request; with
    `replace_workers=False` the pool shrinks and halts when no worker is left. A worker that fails
    to start (init_failed) is not replaced: its template cannot start. A rejected dispatch fails
    that request and frees the worker (it goes to the back of the rotation); the dispatches after it in
    the same batch, which the session did not apply, go back to the head of the queue.
    Status: `phase` (idle | working), `workers`, `free`, `busy`, `queued`.
    """

    def init(self, opts: Mapping[str, Any]) -> tuple[PoolState, list[AgentSpec]]:
        o = Options("Pool", opts, ("worker_template", "worker_count", "replace_workers"))
        template = o.spec("worker_template")
        assert template is not None
        count = o.integer("worker_count", 2, minimum=1)
        names = tuple(f"{template.name}-{i}" for i in range(1, count + 1))
        state = PoolState(template, names, names, MappingProxyType({}), (), count,
                          o.flag("replace_workers", True))
        return state, [from_template(template, n) for n in names]

    def handle_tell(self, prompt: str | Prompt, opts: Mapping[str, Any], token: Token, state: PoolState
                    ) -> Result[PoolState]:
        return _batch(*self._pump([], evolve(state, queue=(*state.queue, (token, prompt)))))

    def handle_response(self, agent: str, response: Response, state: PoolState) -> Result[PoolState]:
        token = state.busy.get(agent)
        if token is None:
            return [], state
        return _batch(*self._next(agent, [Reply(token, response)], state))

    def handle_error(self, agent: str, reason: Reason, state: PoolState) -> Result[PoolState]:
        token = state.busy.get(agent)
        if token is None:
            return [], state
        return _batch(*self._next(agent, [ReplyError(token, reason)], state))

    def handle_dispatch_rejected(self, agent: str, token: Token, reason: Reason, state: PoolState
                                 ) -> Result[PoolState]:
        ops: list[Op] = [ReplyError(token, Reason(ReasonKind.DISPATCH_REJECTED, reason.detail, agent, reason))]
        if state.busy.get(agent) != token:
            return ops, state
        sent = [(w, t) for w, t, _ in state.sent]
        if (agent, token) in sent:  # the dispatches after it in its batch were never applied
            dropped = state.sent[sent.index((agent, token)) + 1:]
            gone = {(w, t) for w, t, _ in dropped}
            state = evolve(state, queue=(*((t, p) for _, t, p in dropped), *state.queue),
                           busy=MappingProxyType({w: t for w, t in state.busy.items() if (w, t) not in gone}),
                           free=(*state.free, *(w for w, _, _ in dropped)))
        if reason.kind is ReasonKind.AGENT_NOT_RUNNING:
            # The worker is gone (its down signal may still be on its way): treat it as dead now.
            return _batch(*self._lose(agent, None, reason, state, ops))
        busy = MappingProxyType({w: t for w, t in state.busy.items() if w != agent})
        state = evolve(state, busy=busy, free=(*state.free, agent))
        if state.busy:
            # Another worker's completion will take the queue on; retrying the worker that just
            # refused would most likely fail the whole queue one request after the other.
            return _batch(*self._pump(ops, state, skip=agent))
        return _batch(*self._pump(ops, state))

    def handle_agent_down(self, agent: str, reason: Reason, state: PoolState) -> Result[PoolState]:
        if agent not in state.workers:
            return [], state  # already dropped (a rejection told us first)
        return _batch(*self._lose(agent, state.busy.get(agent), reason, state, []))

    def handle_status(self, state: PoolState) -> Mapping[str, Any]:
        return {"phase": "working" if state.busy else "idle", "workers": state.workers,
                "free": len(state.free), "busy": len(state.busy), "queued": len(state.queue)}

    # -- internals ---------------------------------------------------------------------------

    def _next(self, worker: str, ops: list[Op], state: PoolState) -> Result[PoolState]:
        """`worker` finished its request: it takes the oldest queued one, else goes idle."""
        busy = MappingProxyType({w: t for w, t in state.busy.items() if w != worker})
        return self._pump(ops, evolve(state, busy=busy, free=(*state.free, worker)))

    def _pump(self, ops: list[Op], state: PoolState, skip: str | None = None) -> Result[PoolState]:
        """Hand queued requests to free workers, oldest request to the first worker in rotation."""
        while state.queue:
            worker = next((w for w in state.free if w != skip), None)
            if worker is None:
                break
            (token, prompt), queue = state.queue[0], state.queue[1:]
            ops.append(Dispatch(worker, prompt, token))
            state = evolve(state, queue=queue, free=tuple(w for w in state.free if w != worker),
                            busy=MappingProxyType({**state.busy, worker: token}))
        return ops, state

    def _lose(self, worker: str, token: Token | None, reason: Reason, state: PoolState, ops: list[Op]
              ) -> Result[PoolState]:
        if token is not None:
            ops.append(ReplyError(token, Reason(ReasonKind.WORKER_DOWN, f"worker {worker!r} went down",
                                                worker, reason)))
        state = evolve(state, workers=tuple(w for w in state.workers if w != worker),
                        free=tuple(w for w in state.free if w != worker),
                        busy=MappingProxyType({w: t for w, t in state.busy.items() if w != worker}))
        if state.replace_workers and reason.kind is not ReasonKind.INIT_FAILED:
            name = f"{state.template.name}-{state.started + 1}"
            spec = from_template(state.template, name)
            ops.append(Start(spec.name, spec.behaviour, spec.opts))
            state = evolve(state, workers=(*state.workers, name), free=(*state.free, name),
                            started=state.started + 1)
        elif not state.workers:
            ops.append(Halt(Reason(ReasonKind.WORKER_DOWN, "pool exhausted: no worker is left", worker, reason)))
            return ops, state
        return self._pump(ops, state)


def _batch(ops: list[Op], state: PoolState) -> Result[PoolState]:
    """A handler's result, with its dispatches noted as the last batch's."""
    return ops, evolve(state, sent=tuple((op.agent, op.token, op.prompt) for op in ops
                                         if isinstance(op, Dispatch) and op.token is not None))
