"""The README's table of built-in strategies is what a user tries first: every row's constructor, with its
options as the table names them, starts a session that answers; and every option the table names is one
the strategy knows."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import podium
from podium import AgentSpec, Behaviour, Session, Subtask
from podium.backends.scripted import ScriptedBackend
from podium.ensemble.strategies import AtLeast, graph_outcomes
from podium.errors import ConfigError

README = Path(__file__).resolve().parents[2] / "README.md"


def table_rows() -> list[tuple[str, list[str]]]:
    """(strategy, option names) of each row of the table under '### Built-in strategies'."""
    section = README.read_text(encoding="utf-8").split("### Built-in strategies", 1)[1].split("\n### ", 1)[0]
    rows = []
    for line in section.splitlines():
        for call in re.findall(r"`([A-Z]\w+)\(([^`]*)\)`", line.split(" | ")[0]):
            name, args = call
            rows.append((name, re.findall(r"(\w+)=", args)))
    return rows


def test_the_table_lists_every_built_in_strategy_with_options_it_knows() -> None:
    rows = table_rows()
    assert {name for name, _ in rows} == {"Solo", "Switchboard", "Pool", "Pipeline", "Supervisor", "Debate",
                                          "Consensus", "Graph"}
    for name, options in rows:
        cls = getattr(podium, name)
        with pytest.raises(ConfigError) as unknown:  # the error lists the options the strategy knows
            cls(not_an_option=1).init({})
        known = re.search(r"the options are (.*)$", str(unknown.value))
        # Solo's error names its forms instead: agent=, or backend= (with behaviour= and name=)
        known_names = set(known.group(1).split(", ")) if known else {"agent", "backend", "behaviour", "name"}
        assert set(options) <= known_names, (name, options, known_names)


def echo(name: str, text: str = "") -> AgentSpec:
    backend = ScriptedBackend(lambda prompt: text or f"{name}: {prompt}")
    return AgentSpec(name, Behaviour(), {"backend": backend})


async def ask(strategy: Any, prompt: str = "question", **opts: Any) -> str:
    async with Session.start(strategy) as session:
        return (await session.ask(prompt, timeout=10, **opts)).text


async def test_every_row_of_the_table_runs_as_written() -> None:
    assert await ask(podium.Solo(agent=echo("solo"))) == "solo: question"
    assert await ask(podium.Solo(backend=ScriptedBackend(lambda p: p.upper()))) == "QUESTION"
    assert await ask(podium.Switchboard(agents=[echo("billing"), echo("support")]), agent="support") == \
        "support: question"
    assert await ask(podium.Pool(worker_template=echo("w"), worker_count=3)) == "w: question"
    assert await ask(podium.Pipeline(stages=[echo("draft"), echo("edit")])) == "edit: draft: question"
    supervisor = podium.Supervisor(coordinator=echo("boss", "a\nb"), worker_template=echo("w"),
                                   decomposer=lambda text: text.split("\n"),
                                   synthesizer=lambda results: " / ".join(text for _, text in results))
    assert await ask(supervisor) == "w: a / w: b"
    debate = podium.Debate(agents=[echo("a"), echo("b")], rounds=2, converge=lambda text: False, reply="last")
    assert await ask(debate, "motion") == "b: a: motion"
    consensus = podium.Consensus(agents=[echo("x", "yes"), echo("y", "yes")], threshold=AtLeast(2), rounds=3,
                                 verdict_parser=lambda text: (text, ""))
    assert (await ask(consensus)).startswith("CONSENSUS: yes (2 of 2")
    async with Session.start(podium.Graph(agents=[echo("a"), echo("b")])) as session:
        reply = await session.ask("plan", subtasks=[Subtask("s", "first", "a"), Subtask("t", "then", "b", ["s"])])
    assert [o.id for o in graph_outcomes(reply)] == ["s", "t"]
