"""The blocking facade and the shipped example work as documented."""

from __future__ import annotations

import runpy
import subprocess
import sys
from pathlib import Path

import pytest

from podium.agent import Completed
from podium.backends.scripted import ScriptedBackend
from podium.ensemble.strategies import Solo
from podium.ensemble.sync import SyncSession
from podium.errors import RunFailed, SessionClosed

ROOT = Path(__file__).resolve().parents[2]


def test_sync_session_runs_without_an_event_loop_of_the_callers() -> None:
    with SyncSession(Solo(), backend=ScriptedBackend(lambda p: f"<{p}>")) as session:
        assert session.ask("a").text == "<a>"
        token = session.tell("b")
        assert session.result(token).text == "<b>"
        token = session.tell("c")
        session.ask("d")  # the agent answers in order, so c is done too
        assert isinstance(session.poll(token), Completed)
        assert session.status()["agents"] == ["solo"]
    with pytest.raises(SessionClosed):
        session.tell("after stop")


def test_sync_session_raises_run_failed() -> None:
    from podium.backends.scripted import Fail

    with SyncSession(Solo(), backend=ScriptedBackend([Fail("nope")])) as session, pytest.raises(RunFailed):
        session.ask("x")


def test_the_round_robin_example_rotates_over_three_agents() -> None:
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "round_robin.py")], capture_output=True,
                         text=True, check=True, timeout=60).stdout
    lines = [line for line in out.splitlines() if line.startswith("question")]
    assert [line.split(" -> ")[1].split(":")[0] for line in lines] == [
        "scripted-1", "scripted-2", "scripted-3", "scripted-1", "scripted-2", "scripted-3"]
    assert "'next': 'worker-0'" in out


def test_the_example_strategy_is_importable_and_pure() -> None:
    module = runpy.run_path(str(ROOT / "examples" / "round_robin.py"))
    strategy = module["RoundRobin"]()
    state, specs = strategy.init({"backend": ScriptedBackend()})
    ops, state2 = strategy.handle_tell("p", {}, "t1", state)
    assert [type(op).__name__ for op in ops] == ["Dispatch"] and ops[0].agent == "worker-0"
    assert state.turn == 0 and state2.turn == 1  # the input state was not mutated
    assert [s.name for s in specs] == ["worker-0", "worker-1", "worker-2"]
