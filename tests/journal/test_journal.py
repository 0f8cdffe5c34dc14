"""Records, replay without the model, and resume after the process died."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from podium.agent import Behaviour, Event, Response, Usage
from podium.backends.scripted import ScriptedBackend
from podium.ensemble import AgentSpec, Dispatch, Reply, ReplyError, Session, Start
from podium.ensemble.inputs import AgentDownInput, ResponseInput, TellInput
from podium.ensemble.session import running_sessions
from podium.ensemble.strategies import Solo
from podium.errors import PodiumError, Reason, ReasonKind
from podium.journal import Journal, SessionStatus, SqliteStore, Store, UnknownSession, codec, replay, resume

ROOT = Path(__file__).resolve().parents[2]


def test_values_survive_the_codec() -> None:
    reason = Reason(ReasonKind.AGENT_DOWN, "gone", "w", Reason(ReasonKind.TASK_CRASHED, "segfault"))
    response = Response("hi", (Event.text("h"), Event.usage(1, 2), Event.result("hi")), Usage(1, 2, 0.5), 3.0, "s")
    values = [reason, response, TellInput("p", {"agent": "a", "tags": ("x", "y")}, "s:1"),
              ResponseInput("a", "s:1", response), AgentDownInput("a", reason, ("s:1", "s:2")),
              [Dispatch("a", "p", "s:1"), Reply("s:1", response), ReplyError("s:2", reason)]]
    for value in values:
        assert codec.loads(codec.dumps(value)) == value


def test_objects_that_are_not_values_are_recorded_by_type_only() -> None:
    class Keyed(ScriptedBackend):
        api_key = "sk-secret-123"

        def __repr__(self) -> str:
            return f"Keyed(api_key={self.api_key})"

    text = codec.dumps(Start("w", Solo(), {"backend": Keyed()}))  # type: ignore[arg-type]
    assert "sk-secret" not in text and "0x" not in text
    decoded = codec.loads(text)
    assert isinstance(decoded, Start) and isinstance(decoded.opts["backend"], codec.Opaque)


async def test_a_session_is_recorded_input_by_input(store: Store) -> None:
    async with Session.start(Solo(), name="rec", recorder=Journal(store), backend=ScriptedBackend(["a", "b"])) as s:
        await s.ask("one")
        await s.result(s.tell("two"))
    record = store.session("rec")
    assert record.status is SessionStatus.STOPPED and record.steps == 4 and record.strategy == "Solo"
    kinds = [json.loads(e.input)["$"] for e in store.entries("rec")]
    assert kinds == ["AskInput", "ResponseInput", "TellInput", "ResponseInput"]
    assert [r.name for r in store.sessions()] == ["rec"]
    with pytest.raises(UnknownSession, match="no recorded session named 'nope'"):
        store.session("nope")


async def test_replay_reproduces_every_decision_without_calling_the_model(store: Store) -> None:
    backend = ScriptedBackend(["first", "second", "third"])
    async with Session.start(Solo(), name="live", recorder=Journal(store), backend=backend) as session:
        for prompt in ("a", "b", "c"):
            await session.ask(prompt)
    silent = ScriptedBackend([])  # would fail any turn: replay must not need it
    steps = replay(Solo(), {"backend": silent}, store.entries("live"))
    assert all(step.matches for step in steps)
    replies = [op.response.text for step in steps for op in step.ops if isinstance(op, Reply)]
    assert replies == ["first", "second", "third"]
    assert list(silent.prompts) == []
    assert steps[-1].state.queue == ()


async def test_replay_detects_a_strategy_that_now_decides_otherwise(store: Store) -> None:
    async with Session.start(Solo(), name="s", recorder=Journal(store), backend=ScriptedBackend(["x"])) as session:
        await session.ask("a")
    other = AgentSpec("other", Behaviour(), {"backend": ScriptedBackend()})
    steps = replay(Solo(), {"agent": other}, store.entries("s"))
    assert [step.matches for step in steps] == [False, True]  # dispatched to "other" this time


CRASHING_SCRIPT = textwrap.dedent("""
    import asyncio, os, sys
    from podium.ensemble import Session
    from podium.ensemble.strategies import Solo
    from podium.journal import Journal, SqliteStore
    from podium.backends.scripted import ScriptedBackend, Hang

    async def main():
        store = SqliteStore(sys.argv[1])
        backend = ScriptedBackend(["done before the crash", Hang(), Hang()])
        session = await Session.start(Solo(), name="durable", recorder=Journal(store), backend=backend)
        print(session.tell("one"), flush=True)
        await asyncio.sleep(0.05)
        print(session.tell("two"), session.tell("three"), flush=True)
        await asyncio.sleep(0.05)
        os._exit(3)  # the process dies with two turns in flight

    asyncio.run(main())
""")


async def test_resume_after_the_process_died_finishes_the_work_in_flight(tmp_path: Path) -> None:
    db = tmp_path / "journal.db"
    script = tmp_path / "crash.py"
    script.write_text(CRASHING_SCRIPT)
    run = subprocess.run([sys.executable, str(script), str(db)], capture_output=True, text=True, timeout=60,
                         cwd=ROOT)
    assert run.returncode == 3, run.stderr
    first, rest = run.stdout.strip().split("\n")
    second, third = rest.split()
    store = SqliteStore(db)
    assert store.session("durable").status is SessionStatus.RUNNING  # it never closed

    backend = ScriptedBackend(lambda prompt: f"resumed {prompt}")
    session = await resume(Solo(), store, "durable", backend=backend)
    try:
        assert (await session.result(second)).text == "resumed two"
        assert (await session.result(third)).text == "resumed three"
        assert list(backend.prompts) == ["two", "three"]  # "one" was answered before: not asked again
        assert session.poll(first).__class__.__name__ == "NotFound"  # its caller got it before the crash
        assert session.tell("four") not in {first, second, third}  # the new incarnation mints tokens of its own
        await session.ask("five")
    finally:
        await session.stop()
    assert store.session("durable").status is SessionStatus.STOPPED
    with pytest.raises(PodiumError, match="only a session that did not end"):
        await resume(Solo(), store, "durable", backend=backend)


async def test_a_finished_session_name_cannot_be_reused_in_the_same_journal(store: Store) -> None:
    async with Session.start(Solo(), name="once", recorder=Journal(store), backend=ScriptedBackend(["x"])):
        pass
    with pytest.raises(PodiumError, match="already holds a finished session"):
        await Session.start(Solo(), name="once", recorder=Journal(store), backend=ScriptedBackend(["x"]))
    assert "once" not in running_sessions()  # the refused start left nothing running


async def test_artifacts_are_stored_per_session(store: Store) -> None:
    async with Session.start(Solo(), name="art", recorder=Journal(store), backend=ScriptedBackend(["x"])):
        store.put("art", "blackboard", {"questions": [["q", "a"]]})
        store.put("art", "blackboard", {"questions": [["q", "b"]]})
    assert store.get("art", "blackboard") == {"questions": [["q", "b"]]}
    assert store.get("art", "missing", default=[]) == []
    assert store.keys("art") == ["blackboard"]
