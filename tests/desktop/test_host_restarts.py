"""Crash recovery: a crashed agent is replaced by a fresh one and its interrupted step retried, within
`max_agent_restarts`; nothing else in the request notices. Pure strategy tests first, then real sessions."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from podium.agent.events import Response
from podium.apps.tooling import SOURCE_GONE
from podium.backends.scripted import Crash, ScriptedBackend
from podium.desktop import HostConfig, HostSession, run_request
from podium.desktop.host.catalog import AppInfo, Catalog, ToolInfo
from podium.desktop.person import Answer
from podium.desktop.shell.session import batch
from podium.desktop.wire.messages import HostStepReport
from podium.ensemble.ops import Forward, ReplyError, Start
from podium.errors import ConfigError, Reason, ReasonKind
from tests.desktop.memapps import Documents, Spreadsheets
from tests.desktop.scripting import app, assign, host, sub, subtask_of, verifying
from tests.desktop.test_host_strategy import (
    READ,
    SEED,
    STRATEGY,
    app_request,
    dispatches,
    executed,
    host_request,
    init,
    planner_says,
    proposes,
    ran,
    started,
)
from tests.desktop.test_host_strategy import sub as typed

DOWN = Reason(ReasonKind.AGENT_DOWN, "segfault")
TABLE = [["a", 1]]
PARALLEL = [typed("1", "documents", reads=["report.docx"], tools=["read_table"]),
            typed("2", "spreadsheets", writes=["budget.xlsx"], tools=["add_chart"])]
ONE = [typed("1", "documents", reads=["report.docx"], tools=["read_table"])]
READING = "Read the table of report.docx"


def ops_of(ops: list[Any]) -> list[tuple[str, str]]:
    return [(type(op).__name__, op.name if isinstance(op, Start) else op.agent) for op in ops
            if not isinstance(op, Forward)]


# -- the strategy, pure -------------------------------------------------------------------------


def test_an_app_agent_down_mid_step_is_replaced_and_the_step_retried_then_the_budget_ends_the_subtask() -> None:
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=SEED), started(max_replans=0))
    ops, s = STRATEGY.handle_agent_down("app-documents", DOWN, s)
    assert ops_of(ops) == [("Start", "app-documents-2"), ("Dispatch", "app-documents-2")]
    retry = app_request(dispatches(ops)[0])
    assert retry.subtask_id == "1" and dispatches(ops)[0].token == "t1"
    assert "(app-documents) went down (segfault)" in retry.note and "your previous steps below" in retry.note
    run = s.run
    assert run is not None and run.subtasks["1"].restarts == 1 and run.subtasks["1"].state.value == "CONTINUE"
    assert dict(run.busy) == {"app-documents-2": "1"} and dict(s.agents) == {"documents": "app-documents-2"}
    entry = s.blackboard.trajectories[-1]
    assert (entry.agent, entry.subtask, entry.action) == ("app-documents", "1", "agent down")
    assert "replaced by app-documents-2; retrying its interrupted step" in entry.outcome

    # the fresh agent goes down too: max_agent_restarts=1 is spent, the subtask fails, its dependant is
    # skipped, and with no re-plan left the request ends (not a hang)
    (error,), s = STRATEGY.handle_agent_down("app-documents-2", DOWN, s)
    assert isinstance(error, ReplyError) and error.token == "t1"
    assert "AppAgent app-documents-2 went down during subtask 1" in error.reason.detail
    assert "no restart left (max_agent_restarts=1)" in error.reason.detail
    outcome = STRATEGY.handle_status(s)["host"]["last"]
    assert [(t["id"], t["state"]) for t in outcome["subtasks"]] == [("1", "FAIL"), ("2", "SKIPPED")]
    assert outcome["subtasks"][0]["reason_kind"] == "agent_down"


def test_a_valid_step_of_the_fresh_agent_clears_the_note() -> None:
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=SEED), started())
    _, s = STRATEGY.handle_agent_down("app-documents", DOWN, s)
    ops, s = STRATEGY.handle_response("app-documents-2", proposes("CONTINUE", READ), s)
    assert ops_of(ops) == [("Dispatch", "app-documents-2")]
    ops, s = STRATEGY.handle_response("app-documents-2", executed(ran(READ, TABLE)), s)
    assert app_request(dispatches(ops)[0]).note == ""


def test_an_agent_down_while_its_calls_run_gets_the_same_intent_again() -> None:
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=SEED), started())
    (execute,), s = STRATEGY.handle_response("app-documents", proposes("CONTINUE", READ), s)
    ops, s = STRATEGY.handle_agent_down("app-documents", DOWN, s)
    again = app_request(dispatches(ops)[0])
    assert again.kind is app_request(execute).kind and again.intent == app_request(execute).intent == "1.1"
    assert again.calls == app_request(execute).calls


def test_a_parallel_sibling_is_untouched_by_its_neighbours_crash() -> None:
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=PARALLEL), started())
    sibling = s.run.subtasks["2"]  # type: ignore[union-attr]
    ops, s = STRATEGY.handle_agent_down("app-documents", DOWN, s)
    assert ops_of(ops) == [("Start", "app-documents-2"), ("Dispatch", "app-documents-2")]
    assert s.run is not None and s.run.subtasks["2"] == sibling
    assert dict(s.run.busy) == {"app-spreadsheets": "2", "app-documents-2": "1"}
    chart = proposes("FINISH", result="charted")
    ops, s = STRATEGY.handle_response("app-spreadsheets", chart, s)
    # budget.xlsx was never changed: the FINISH is questioned, the sibling's crash does not matter
    assert ops_of(ops) == [("Dispatch", "app-spreadsheets")] and s.run is not None
    assert "budget.xlsx is unchanged" in app_request(dispatches(ops)[0]).note


def test_an_agent_down_while_its_subtask_waits_for_the_person_costs_no_restart() -> None:
    s = started(interactive=True, max_agent_restarts=0)
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=SEED), s)
    _, s = STRATEGY.handle_response("app-documents", proposes("PENDING", questions=["Which table?"]), s)
    ops, s = STRATEGY.handle_agent_down("app-documents", DOWN, s)
    assert ops == [] and s.run is not None and s.run.subtasks["1"].state.value == "PENDING"
    assert s.run.subtasks["1"].restarts == 0 and s.fresh == ("app-documents-2",)
    assert "starts when the person has replied" in s.blackboard.trajectories[-1].outcome
    ops, s = STRATEGY.handle_notify(Answer("q1", ("the first",)), s)
    assert ops_of(ops) == [("Start", "app-documents-2"), ("Dispatch", "app-documents-2")] and s.fresh == ()
    request = app_request(dispatches(ops)[0])
    assert request.answers[0].answer == "the first" and "went down" in request.note


def test_a_crash_that_leaves_only_the_person_waiting_ends_the_request_rather_than_hanging() -> None:
    # The session fails a run that a crash leaves with nothing in flight; the host ends it first, cleanly.
    s = started(interactive=True, max_agent_restarts=0)
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=PARALLEL), s)
    _, s = STRATEGY.handle_response("app-spreadsheets", proposes("PENDING", questions=["Which sheet?"]), s)
    ops, s = STRATEGY.handle_agent_down("app-documents", DOWN, s)
    (error,) = [op for op in ops if isinstance(op, ReplyError)]
    assert error.reason.kind is ReasonKind.AGENT_DOWN and "during subtask 1" in error.reason.detail
    assert s.run is None and s.last is not None and s.last["status"] == "ERROR"


def test_the_planner_down_mid_step_is_restarted_and_asked_the_same_step_again() -> None:
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=ONE), started(READING))
    _, s = STRATEGY.handle_response("app-documents", proposes("FINISH", result=TABLE), s)  # the planner verifies
    before = s.run.planner_ask  # type: ignore[union-attr]
    assert "Every subtask has ended" in before[0]
    ops, after = STRATEGY.handle_agent_down("host", DOWN, s)
    assert ops_of(ops) == [("Start", "host"), ("Dispatch", "host")]
    request = host_request(dispatches(ops)[0])
    assert request.note.startswith("You were restarted after a crash") and before[0] in request.note
    assert after.run is not None and after.run.planner_restarts == 1 and after.run.planner_ask == before
    (error,), _ = STRATEGY.handle_agent_down("host", DOWN, after)
    assert isinstance(error, ReplyError) and error.reason.kind is ReasonKind.AGENT_DOWN
    assert "planner went down: segfault; no restart left (max_agent_restarts=1)" in error.reason.detail


def test_the_planner_down_while_subtasks_run_starts_fresh_at_its_next_step() -> None:
    _, s = STRATEGY.handle_response("host", planner_says("ASSIGN", Subtasks=ONE),
                                    started(READING, max_agent_restarts=0))
    ops, s = STRATEGY.handle_agent_down("host", DOWN, s)
    assert ops == [] and s.planner_down and s.run is not None and s.run.planner_restarts == 0
    ops, s = STRATEGY.handle_response("app-documents", proposes("FINISH", result=TABLE), s)
    assert ops_of(ops) == [("Start", "host"), ("Dispatch", "host")] and not s.planner_down


def test_the_restart_budget_is_validated() -> None:
    with pytest.raises(ConfigError, match="max_agent_restarts must be an integer >= 0"):
        HostConfig(max_agent_restarts=-1)


# -- real sessions --------------------------------------------------------------------------------


def memory_of(prompt: str) -> str:
    """The AppAgent's own memory section of its prompt (empty for a fresh agent)."""
    if "## Your previous steps" not in prompt:
        return ""
    return prompt.split("## Your previous steps", 1)[1].split("\n\n## ", 1)[0]


def read(path: str, prompt: str) -> str:
    if path in memory_of(prompt):
        return app("FINISH", result=TABLE)
    return app("CONTINUE", ("read_table", {"path": path}))


async def test_a_parallel_sibling_completes_while_its_neighbours_agent_crashes_and_queued_work_moves_on() -> None:
    docs = Documents({"report.docx": {"paragraphs": [], "tables": [TABLE]},
                      "summary.docx": {"paragraphs": [], "tables": [TABLE]}})
    sheets = Spreadsheets()
    gates: dict[str, asyncio.Event] = {}
    docs.gates = sheets.gates = gates

    def planner(prompt: str) -> str:
        if verifying(prompt):
            return host("FINISH", "both read, sheet done")
        return assign(sub("1", "Read the table of report.docx", "documents", reads=["report.docx"],
                          tools=["wait", "read_table"]),
                      sub("2", "Read the table of summary.docx", "documents", reads=["summary.docx"],
                          tools=["read_table"]),  # queued behind 1
                      sub("3", "Wait in budget.xlsx", "spreadsheets", reads=["budget.xlsx"], tools=["wait"]))

    crashed: list[bool] = []

    def documents(prompt: str) -> Any:
        memory = memory_of(prompt)
        if subtask_of(prompt) == "1":
            if "## Note from the HostAgent" in prompt:  # the fresh agent: let the sibling go on
                gates.setdefault("restarted", asyncio.Event()).set()
            elif not memory:  # first step: wait until the sibling's step is out on its own agent
                return app("CONTINUE", ("wait", {"gate": "sheets-busy", "open": "docs-busy"}))
            elif not crashed:
                crashed.append(True)
                return Crash("the documents tool server died")
            return read("report.docx", prompt)
        return read("summary.docx", prompt)

    def spreadsheets(prompt: str) -> str:
        if "wait(" in memory_of(prompt):
            return app("FINISH", result="filled")
        return app("CONTINUE", ("wait", {"gate": "restarted", "open": "sheets-busy"}))

    sheet_model = ScriptedBackend(spreadsheets)
    async with await HostSession.start([docs, sheets], ScriptedBackend(planner),
                                       app_models={"documents": ScriptedBackend(documents),
                                                   "spreadsheets": sheet_model}) as hs:
        result = await asyncio.wait_for(hs.run("Read report.docx and summary.docx, and look at budget.xlsx"), 10)
        assert hs.status()["host"]["agents"] == {"documents": "app-documents-2", "spreadsheets": "app-spreadsheets"}
    assert result.ok, result
    assert [(t["id"], t["state"], t["agent"], t["restarts"]) for t in result.subtasks] == [
        ("1", "FINISH", "app-documents-2", 1), ("2", "FINISH", "app-documents-2", 0),
        ("3", "FINISH", "app-spreadsheets", 0)]
    # the sibling's step was out during the crash (it waited for the restart) and ran exactly once, on
    # the same agent, which kept its memory
    assert sheets.calls == [("wait", {"gate": "restarted", "open": "sheets-busy"})]
    assert len(sheet_model.prompts) == 2 and "wait(" in memory_of(sheet_model.prompts[1])
    assert docs.calls == [("wait", {"gate": "sheets-busy", "open": "docs-busy"}),
                          ("read_table", {"path": "report.docx"}), ("read_table", {"path": "summary.docx"})]
    down = [t for t in result.trajectory if t["action"] == "agent down"]
    assert [(t["agent"], t["subtask"]) for t in down] == [("app-documents", "1")]
    assert "documents tool server died" in down[0]["error"]


async def test_a_crash_mid_subtask_tells_the_fresh_agent_what_its_predecessor_had_read() -> None:
    crashes = iter([None, Crash("out of memory")])

    def documents(prompt: str) -> Any:
        return next(crashes, None) or read("report.docx", prompt)

    model = ScriptedBackend(documents)
    docs = Documents({"report.docx": {"paragraphs": [], "tables": [TABLE]}})
    result = await asyncio.wait_for(run_request(
        "Read the table", [docs], ScriptedBackend(lambda p: host("FINISH", "ok") if verifying(p) else assign(
            sub("1", "Read the table of report.docx", "documents", reads=["report.docx"], tools=["read_table"]))),
        app_models={"documents": model}), 10)
    assert result.ok and result.subtasks[0]["restarts"] == 1
    fresh = model.prompts[2]
    # the step memory is the host's: the fresh agent is shown what its predecessor read, and the data
    assert "(app-documents) went down (AgentCrashed: out of memory)" in fresh
    assert 'read_table({"path": "report.docx"})' in memory_of(fresh)
    assert '{"ref": "1.read_table"}' in fresh and docs.calls == [("read_table", {"path": "report.docx"})]


async def test_when_the_restarts_are_spent_the_subtask_fails_and_the_planner_is_told() -> None:
    docs_model = ScriptedBackend(lambda prompt: Crash("segfault in the tool server"))
    sheets = Spreadsheets()
    replans: list[str] = []

    def planner(prompt: str) -> str:
        if "Re-plan:" in prompt:
            replans.append(prompt)
            return host("FAIL", "the documents application keeps crashing")
        return assign(sub("1", "Read the table of report.docx", "documents", reads=["report.docx"],
                          tools=["read_table"]),
                      sub("2", "Chart it in budget.xlsx", "spreadsheets", "1", writes=["budget.xlsx"],
                          tools=["add_chart"]))

    async with await HostSession.start([Documents(), sheets], ScriptedBackend(planner),
                                       app_models={"documents": docs_model, "spreadsheets": ScriptedBackend([])},
                                       config=batch(max_agent_restarts=1)) as hs:
        result = await asyncio.wait_for(hs.run("Chart the table of report.docx in budget.xlsx"), 10)
        assert "documents" not in hs.status()["host"]["agents"]  # the next subtask would start a fresh one
    assert result.status == "FAIL" and "keeps crashing" in result.text
    assert len(docs_model.prompts) == 2 and sheets.calls == []  # one retry, and the dependant never ran
    first, second = result.subtasks
    assert (first["state"], first["reason_kind"], first["restarts"], second["state"]) == (
        "FAIL", "agent_down", 1, "SKIPPED")
    assert first["reason"].startswith("AppAgent app-documents-2 went down during subtask 1 (Read the table")
    assert "segfault in the tool server; no restart left (max_agent_restarts=1)" in first["reason"]
    assert len(replans) == 1 and "subtask 1 ended FAIL: AppAgent app-documents-2 went down" in replans[0]
    down = [t for t in result.trajectory if t["action"] == "agent down"]
    assert [t["agent"] for t in down] == ["app-documents", "app-documents-2"]
    assert down[-1]["outcome"] == "no restart left: the subtask fails"

    # no restart at all, and no re-plan: the request fails at once with the reason
    docs_model = ScriptedBackend(lambda prompt: Crash("segfault"))
    result = await asyncio.wait_for(run_request(
        "Chart the table of report.docx in budget.xlsx", [Documents(), Spreadsheets()], ScriptedBackend(planner),
        app_models={"documents": docs_model}, config=batch(max_agent_restarts=0, max_replans=0)), 10)
    assert result.status == "FAIL" and "no re-plan left" in (result.reason or "")
    assert "AppAgent app-documents went down during subtask 1" in (result.reason or "")
    assert len(docs_model.prompts) == 1


async def test_a_planner_crash_is_restarted_once_and_a_later_request_gets_a_fresh_planner() -> None:
    steps = iter([Crash("planner died"), Crash("planner died again"), Crash("planner died once more")])
    seen: list[str] = []

    def planner(prompt: str) -> Any:
        seen.append(prompt)
        return next(steps, None) or host("FINISH", "nothing to do")

    async with await HostSession.start([Documents()], ScriptedBackend(planner)) as hs:
        first = await asyncio.wait_for(hs.run("Say hello"), 10)
        assert first.status == "ERROR" and first.reason_kind == "agent_down"
        assert "planner went down: AgentCrashed: planner died again; no restart left" in (first.reason or "")
        second = await asyncio.wait_for(hs.run("Say hello again"), 10)
    assert second.ok, second  # a fresh planner for the new request, which is restarted once more
    assert "You were restarted after a crash" in seen[1] and "You were restarted after a crash" in seen[3]
    assert [t["action"] for t in second.trajectory if t["agent"] == "host"][-3:] == [
        "planner down", "FINISH", "end of request"]


def test_the_planner_down_while_it_settles_a_choice_is_asked_the_same_choice_again() -> None:
    mode = {"type": "string", "enum": ["copy", "move"], "description": "copy keeps it; move takes it",
            SOURCE_GONE: "move"}
    schema = {"type": "object", "properties": {"mode": mode, "source": {"type": "string"},
                                               "destination": {"type": "string"}},
              "required": ["mode", "source", "destination"]}
    files = AppInfo("files", "the file system", (), (ToolInfo("copy_or_move", False, json.dumps(schema)),))
    _, s = STRATEGY.handle_ask("Move a.txt into old", {}, "t1", init(catalog=Catalog((files,)), rules="small-local"))
    plan = [typed("1", "files", reads=["a.txt"], writes=["old"], tools=["copy_or_move"])]
    (asked,), s = STRATEGY.handle_response("host", planner_says("ASSIGN", files=("a.txt",), Subtasks=plan), s)
    choice = host_request(asked).choice
    assert choice is not None and choice.sources == ("a.txt",) and choice.options == ("copy", "move")
    ops, s = STRATEGY.handle_agent_down("host", DOWN, s)
    assert ops_of(ops) == [("Start", "host"), ("Dispatch", "host")]
    assert host_request(dispatches(ops)[0]).choice == choice
    chosen = Response(HostStepReport(chosen="move", raw='{"words": "Move a.txt", "answer": "move"}').model_dump_json())
    ops, s = STRATEGY.handle_response("host", chosen, s)
    first = app_request(dispatches(ops)[0])
    assert first.writes == ("old", "a.txt") and first.settled == (("copy_or_move", "mode", "move"),)
