"""The agents' instructions read ahead (podium.desktop.shell.heads): they are the system messages the
step runners send, so the heads kept ahead are the ones a run looks up."""

from __future__ import annotations

from typing import Any

from podium.backends.scripted import ScriptedBackend
from podium.desktop import run_request, warm
from podium.desktop.shell.heads import instructions
from tests.desktop.memapps import Documents, Spreadsheets
from tests.desktop.scripting import Spy
from tests.desktop.test_host_failures import TABLE, one_subtask_planner, reading


def apps() -> list[Any]:
    return [Documents({"report.docx": {"paragraphs": [], "tables": [TABLE]}}), Spreadsheets()]


async def test_the_instructions_read_ahead_are_the_system_messages_each_agent_is_sent() -> None:
    both = apps()
    host_model, docs_model = Spy(one_subtask_planner), Spy(reading)
    result = await run_request("Read the table of report.docx", both, host_model, app_models={"documents": docs_model})
    assert result.ok, result
    ahead = instructions(both)
    assert list(ahead) == ["host", "app-documents", "app-spreadsheets"]
    assert {p.system for p in host_model.seen} == {ahead["host"]}
    assert {p.system for p in docs_model.seen} == {ahead["app-documents"]}
    assert ahead["app-documents"] != ahead["app-spreadsheets"]


class Keeper(ScriptedBackend):
    """A model that keeps heads as the embedded one does, here only by recording what it was asked."""

    def __init__(self) -> None:
        super().__init__(lambda prompt: "")
        self.kept: list[str] = []

    async def keep_head(self, system: str) -> Any:
        from podium.backends.embedded import HeadKept

        written = system not in self.kept
        self.kept.append(system)
        return HeadKept(len(system) // 4, len(system) // 4 if written else 0, 0.1, written, True)


async def test_warm_reads_each_agents_head_with_the_model_that_agent_runs_on() -> None:
    both = apps()
    planner_model, docs_model = Keeper(), Keeper()
    done = await warm(both, planner_model, {"documents": docs_model, "spreadsheets": ScriptedBackend(reading)})
    ahead = instructions(both)
    assert [(w.agent, w.outcome) for w in done] == [("host", "kept"), ("app-documents", "kept"),
                                                    ("app-spreadsheets", "skipped")]
    assert planner_model.kept == [ahead["host"]] and docs_model.kept == [ahead["app-documents"]]
    again = await warm(both, planner_model, docs_model)  # one model for every AppAgent
    assert [(w.agent, w.outcome, w.read) for w in again] == [("host", "held", 0), ("app-documents", "held", 0),
                                                             ("app-spreadsheets", "kept", again[2].tokens)]
