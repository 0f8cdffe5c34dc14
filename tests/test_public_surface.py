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
