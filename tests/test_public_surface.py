"""The public surface: one import gives the core names, and stays light."""

from __future__ import annotations

import subprocess
import sys

import podium


def test_import_podium_pulls_in_no_optional_or_heavy_dependency() -> None:
    code = ("import sys, podium, podium.ensemble.strategies, podium.backends, podium.journal\n"
            "heavy = ('ray', 'llama_cpp', 'openai', 'anthropic', 'mcp', 'psycopg', 'opentelemetry')\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_core_names_are_exported() -> None:
    for name in ("Session", "Strategy", "Dispatch", "Reply", "ReplyError", "Start", "Stop", "Forward", "Halt",
                 "Behaviour", "Backend", "Response", "Event", "Solo", "Switchboard", "Pool", "Pipeline",
                 "Supervisor", "Debate", "Consensus", "Graph"):
        assert hasattr(podium, name), name
    assert set(podium.__all__) <= set(dir(podium))


def test_what_callers_catch_and_strategies_receive_is_exported() -> None:
    from podium import errors
    from podium.ensemble import inputs

    for name in ("Overloaded", "AgentNotRunning", "StartFailed", "SessionClosed", "AgentCrashed", "RunFailed",
                 "ConfigError", "PodiumError"):
        assert getattr(podium, name) is getattr(errors, name) and name in podium.__all__
        assert issubclass(getattr(podium, name), podium.PodiumError)
    for name in ("TellInput", "AskInput", "ResponseInput", "ErrorInput", "NotifyInput", "AgentDownInput",
                 "DispatchRejectedInput"):
        assert getattr(podium, name) is getattr(inputs, name) and name in podium.__all__
    for name in ("sessions", "find_session", "whereis", "SubAgent"):
        assert name in podium.__all__
