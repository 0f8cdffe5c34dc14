"""A custom strategy in a dozen lines: round-robin over three agents, on the scripted backend.

    python examples/round_robin.py

Each prompt goes to the next agent in turn; each agent answers its prompts in order, so a FIFO of
tokens per agent is all the strategy needs to reply to the right caller.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from podium import AgentSpec, Behaviour, Dispatch, Reply, ReplyError, Response, Session, Strategy
from podium.backends.scripted import ScriptedBackend


@dataclass(frozen=True)
class State:
    names: tuple[str, ...]
    turn: int
    queues: Mapping[str, tuple[str, ...]]  # tokens in the order each agent got them


class RoundRobin(Strategy[State]):
    def init(self, opts: Mapping[str, Any]) -> tuple[State, list[AgentSpec]]:
        names = tuple(f"worker-{i}" for i in range(opts.get("n", 3)))
        specs = [AgentSpec(n, Behaviour(), {"backend": opts["backend"]}) for n in names]
        return State(names, 0, {n: () for n in names}), specs

    def handle_tell(self, prompt: Any, opts: Mapping[str, Any], token: str, s: State) -> Any:
        agent = s.names[s.turn % len(s.names)]
        queues = {**s.queues, agent: (*s.queues[agent], token)}
        return [Dispatch(agent, prompt, token)], replace(s, turn=s.turn + 1, queues=queues)

    def handle_response(self, agent: str, response: Response, s: State) -> Any:
        token, *rest = s.queues[agent]
        return [Reply(token, response)], replace(s, queues={**s.queues, agent: tuple(rest)})

    def handle_error(self, agent: str, reason: Any, s: State) -> Any:
        token, *rest = s.queues[agent]
        return [ReplyError(token, reason)], replace(s, queues={**s.queues, agent: tuple(rest)})

    def handle_status(self, s: State) -> Mapping[str, Any]:
        return {"next": s.names[s.turn % len(s.names)], "queued": {n: len(q) for n, q in s.queues.items()}}


async def main() -> None:
    # A scripted "model": it names the session that answered, so the rotation is visible.
    backend = ScriptedBackend(lambda prompt: f"answered {prompt!r}")
    async with Session.start(RoundRobin(), name="demo", backend=backend) as session:
        replies = await asyncio.gather(*(session.ask(f"question {i}") for i in range(6)))
        for i, reply in enumerate(replies):
            print(f"question {i} -> {reply.session_id}: {reply.text}")
        print("status:", {k: v for k, v in session.status().items() if k in ("agents", "next", "queued")})


if __name__ == "__main__":
    asyncio.run(main())
