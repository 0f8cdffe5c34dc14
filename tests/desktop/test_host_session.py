"""The HostAgent end to end on a real session, with scripted models and real in-memory applications."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from podium.backends.scripted import ScriptedBackend
from podium.desktop import (
    ApprovalRequest,
    HostConfig,
    HostSession,
    Progress,
    Question,
    RunFinished,
    run_request,
)
from podium.desktop.blackboard import Blackboard
from podium.errors import ConfigError, RunFailed
from tests.desktop.memapps import Documents, Spreadsheets
from tests.desktop.scripting import app, assign, host, ref, step_of, sub, subtask_of, verifying
from tests.support import until

TABLE = [["Quarter", "Sales"], ["Q1", 10], ["Q2", 20]]
REQUEST = "Extract the table from report.docx and create a bar chart of it in budget.xlsx"


def seed_models(seen: dict[str, list[str]]) -> tuple[ScriptedBackend, dict[str, ScriptedBackend]]:
    def planner(prompt: str) -> str:
        seen.setdefault("host", []).append(prompt)
        if verifying(prompt):
            return host("FINISH", "The table of report.docx is charted in budget.xlsx")
        return assign(sub("1", "Extract the table from report.docx", "documents", reads=["report.docx"],
                          tools=["read_table"], hands_on="table"),
                      sub("2", "Write the rows of subtask 1 into budget.xlsx and create a bar chart of them",
                          "spreadsheets", "1", writes=["budget.xlsx"], tools=["write_rows", "add_chart"]))

    def documents(prompt: str) -> str:
        seen.setdefault("documents", []).append(prompt)
        if step_of(prompt) == 1:
            return app("CONTINUE", ("read_table", {"path": "report.docx", "index": 0}))
        return app("FINISH", result=ref("1.read_table"), comment="table extracted")

    def spreadsheets(prompt: str) -> str:
        seen.setdefault("spreadsheets", []).append(prompt)
        if step_of(prompt) == 1:
            # The table reaches this AppAgent as data it refers to: it is never typed out again.
            return app("CONTINUE", ("write_rows", {"path": "budget.xlsx", "cell": "A1", "rows": ref("1.read_table")}),
                       ("add_chart", {"path": "budget.xlsx", "kind": "bar", "range": "A1:B3", "title": "Sales"}))
        return app("FINISH", result="budget.xlsx has the data and a bar chart")

    return ScriptedBackend(planner), {"documents": ScriptedBackend(documents),
                                      "spreadsheets": ScriptedBackend(spreadsheets)}


async def test_the_seed_example() -> None:
    docs = Documents({"report.docx": {"paragraphs": ["Quarterly report"], "tables": [TABLE]}})
    sheets = Spreadsheets()
    seen: dict[str, list[str]] = {}
    events: list[Any] = []
    planner, app_models = seed_models(seen)
    async with await HostSession.start([docs, sheets], planner, app_models=app_models,
                                       on_event=events.append) as hs:
        result = await hs.run(REQUEST)
        status = hs.status()
        await until(lambda: any(isinstance(e, RunFinished) for e in events))
    assert result.ok, result
    assert result.text == "The table of report.docx is charted in budget.xlsx"
    # two subtasks, dependency ordered, two AppAgents
    assert [(s["id"], s["application"], s["state"], s["depends_on"]) for s in result.subtasks] == [
        ("1", "documents", "FINISH", []), ("2", "spreadsheets", "FINISH", ["1"])]
    assert {s["agent"] for s in result.subtasks} == {"app-documents", "app-spreadsheets"}
    assert {"app-documents", "app-spreadsheets"} <= set(status["agents"])
    # the effect on the real (in-memory) applications
    assert docs.calls == [("read_table", {"path": "report.docx", "index": 0})]
    assert sheets.books["budget.xlsx"] == {"rows": TABLE, "charts": [
        {"kind": "bar", "range": "A1:B3", "title": "Sales"}]}
    # the table was handed on by reference, and only after subtask 1 finished
    first_sheet_prompt = seen["spreadsheets"][0]
    data = first_sheet_prompt.split("## Data you can refer to", 1)[1]
    assert '{"ref": "1.read_table"}: table, 3 rows x 2 columns' in data and json.dumps(TABLE) in data
    assert "host ASSIGN" not in first_sheet_prompt
    board = Blackboard.from_dict(dict(result.blackboard))
    assert board.requests == (REQUEST,)
    assert board.result_of("1").result == TABLE  # type: ignore[union-attr]
    assert [a.name for a in board.result_of("1").artifacts] == ["1.read_table"]  # type: ignore[union-attr]
    agents = [t.agent for t in board.trajectories]
    assert agents.index("app-spreadsheets") > max(i for i, a in enumerate(agents) if a == "app-documents")
    steps = [t for t in board.trajectories if t.agent.startswith("app-")]
    assert {"DATA_COLLECTION", "LLM_INTERACTION", "ACTION_EXECUTION"} <= set(steps[0].timings_ms)
    # the planner verified at the end, seeing both results
    assert verifying(seen["host"][-1]) and "2 [spreadsheets] after 1 writes budget.xlsx FINISH" in seen["host"][-1]
    # the caller saw the plan's writes before anything ran, progress and the end; everything is JSON
    progress = [e for e in events if isinstance(e, Progress)]
    assert any(p.host_state == "ASSIGN" and [(s.state, s.writes) for s in p.subtasks] == [
        ("CONTINUE", ()), ("WAITING", ("budget.xlsx",))] for p in progress)
    (finished,) = [e for e in events if isinstance(e, RunFinished)]
    assert finished.outcome["status"] == "FINISH" and finished.outcome["token"] == result.token
    json.dumps(result.to_dict())


async def test_run_request_stops_everything_at_the_end() -> None:
    docs = Documents({"report.docx": {"paragraphs": [], "tables": [TABLE]}})
    planner, app_models = seed_models({})
    result = await run_request(REQUEST, [docs, Spreadsheets()], planner, app_models=app_models)
    assert result.ok and result.steps == 6  # plan, 2 + 2 app steps, verify


async def test_independent_subtasks_run_concurrently() -> None:
    # Each AppAgent's tool opens the other's gate and then waits on its own: both get through only if
    # the two subtasks are in flight at the same time. One at a time, the first would wait forever
    # (the test's timeout would end it).
    docs, sheets = Documents(), Spreadsheets()
    shared: dict[str, asyncio.Event] = {}
    docs.gates = sheets.gates = shared

    def planner(prompt: str) -> str:
        if verifying(prompt):
            return host("FINISH", "both done")
        return assign(sub("a", "Wait in documents", "documents", tools=["wait"]),
                      sub("b", "Wait in spreadsheets", "spreadsheets", tools=["wait"]))

    def worker(gate: str, other: str) -> Any:
        def script(prompt: str) -> str:
            if step_of(prompt) == 1:
                return app("CONTINUE", ("wait", {"gate": gate, "open": other}))
            return app("FINISH", result=f"{gate} done")
        return ScriptedBackend(script)

    async with await HostSession.start([docs, sheets], ScriptedBackend(planner), app_models={
            "documents": worker("docs", "sheets"), "spreadsheets": worker("sheets", "docs")}) as hs:
        result = await asyncio.wait_for(hs.run("Write the note and fill the budget"), 10)
    assert result.ok, result
    assert [s["state"] for s in result.subtasks] == ["FINISH", "FINISH"]
    assert docs.calls == [("wait", {"gate": "docs", "open": "sheets"})]
    assert sheets.calls == [("wait", {"gate": "sheets", "open": "docs"})]


async def test_two_subtasks_on_one_application_reuse_its_app_agent_and_memory() -> None:
    docs = Documents({"a.docx": {"paragraphs": [], "tables": [[["x"]]]}, "b.docx": {"paragraphs": [], "tables": []}})
    prompts: list[str] = []

    def planner(prompt: str) -> str:
        if verifying(prompt):
            return host("FINISH", "done")
        # (two subtasks wait for the reader, writing two files: with one, or one file, on its application,
        # the reader and the writers would be one subtask)
        return assign(sub("1", "Read the table of a.docx", "documents", reads=["a.docx"], tools=["read_table"]),
                      sub("2", "Write a paragraph into a.docx", "documents", "1", writes=["a.docx"],
                          tools=["write_paragraph"]),
                      sub("3", "Write a paragraph into b.docx", "documents", "1", writes=["b.docx"],
                          tools=["write_paragraph"]))

    def documents(prompt: str) -> str:
        prompts.append(prompt)
        if subtask_of(prompt) == "1":
            return (app("CONTINUE", ("read_table", {"path": "a.docx"})) if step_of(prompt) == 1
                    else app("FINISH", result=[["x"]]))
        if subtask_of(prompt) == "3":
            return app("FINISH", ("write_paragraph", {"path": "b.docx", "text": "the end"}), result="written")
        return app("FINISH", ("write_paragraph", {"path": "a.docx", "text": "one cell: x"}), result="written")

    async with await HostSession.start([docs], ScriptedBackend(planner),
                                       app_models={"documents": ScriptedBackend(documents)}) as hs:
        result = await hs.run("Summarise the table of a.docx in a.docx and b.docx")
        status = hs.status()
    assert result.ok
    assert {s["agent"] for s in result.subtasks} == {"app-documents"}
    assert [a for a in status["agents"] if a.startswith("app-")] == ["app-documents"]
    # the second subtask's first prompt remembers the first subtask's steps (same agent, same memory)
    second = next(p for p in prompts if subtask_of(p) == "2")
    assert "## Your previous steps" in second and "subtask 1 step 1: CONTINUE" in second
    assert 'read_table({"path": "a.docx"})' in second and 'read_table: ok [["x"]]' in second
    assert docs.docs["a.docx"]["paragraphs"] == ["one cell: x"] and docs.docs["b.docx"]["paragraphs"] == ["the end"]


async def test_questions_are_asked_and_the_answers_recorded() -> None:
    sheets = Spreadsheets()
    asked: list[Question] = []

    def planner(prompt: str) -> str:
        if verifying(prompt):
            return host("FINISH", "done")
        if "## Answers from the person" not in prompt:
            return host("PENDING", "I need the file name", Questions=["Which workbook?"])
        return assign(sub("1", "Write the totals into totals.xlsx", "spreadsheets", writes=["totals.xlsx"],
                          tools=["write_rows"]))

    def spreadsheets(prompt: str) -> str:
        if "A: Sheet2" not in prompt:
            return app("PENDING", questions=["Which sheet?"], comment="the workbook has two sheets")
        return app("FINISH", ("write_rows", {"path": "totals.xlsx", "cell": "A1", "rows": [[1]]}), result="ok")

    def ask_person(question: Question) -> list[str]:
        asked.append(question)
        return ["totals.xlsx"] if question.asked_by == "host" else ["Sheet2"]

    async with await HostSession.start([sheets], ScriptedBackend(planner), ask_person=ask_person,
                                       app_models={"spreadsheets": ScriptedBackend(spreadsheets)}) as hs:
        result = await asyncio.wait_for(hs.run("Write the totals"), 10)
    assert result.ok, result
    assert [(q.asked_by, q.questions, q.subtask) for q in asked] == [
        ("host", ("Which workbook?",), None), ("app-spreadsheets", ("Which sheet?",), "1")]
    qa = result.blackboard["questions"]
    assert [(q["question"], q["answer"], q["answered_by"]) for q in qa] == [
        ("Which workbook?", "totals.xlsx", "person"), ("Which sheet?", "Sheet2", "person")]
    assert sheets.books["totals.xlsx"]["rows"] == [[1]]


async def test_batch_mode_answers_questions_with_the_default() -> None:
    def planner(prompt: str) -> str:
        if "A (default): not available" in prompt or "A: not available" in prompt or verifying(prompt):
            return host("FAIL", "the person is not there to say which file")
        return host("PENDING", Questions=["Which file?"])

    result = await run_request("Open the file", [Documents()], ScriptedBackend(planner))
    assert result.status == "FAIL" and "not there" in (result.reason or "")
    assert [(q["answer"], q["answered_by"]) for q in result.blackboard["questions"]] == [("not available", "default")]


def _deleting_models(seen: list[str]) -> tuple[ScriptedBackend, dict[str, ScriptedBackend]]:
    def planner(prompt: str) -> str:
        if verifying(prompt):
            failed = "ended FAIL" in prompt
            return host("FAIL" if failed else "FINISH", "refused by the person" if failed else "deleted")
        return assign(sub("1", "Delete old.docx", "documents", writes=["old.docx"], tools=["delete_document"]))

    def documents(prompt: str) -> str:
        seen.append(prompt)
        if step_of(prompt) == 1:
            return app("CONTINUE", ("delete_document", {"path": "old.docx"}))
        return app("FINISH", result="deleted")

    return ScriptedBackend(planner), {"documents": ScriptedBackend(documents)}


async def test_confirm_approved_runs_the_action_after_the_yes() -> None:
    docs = Documents({"old.docx": {"paragraphs": [], "tables": []}})
    requests: list[ApprovalRequest] = []

    def approve(request: ApprovalRequest) -> bool:
        assert "old.docx" in docs.docs and docs.calls == []  # asked BEFORE the action ran
        requests.append(request)
        return True

    planner, app_models = _deleting_models([])
    async with await HostSession.start([docs], planner, app_models=app_models, approve=approve) as hs:
        result = await asyncio.wait_for(hs.run("Delete old.docx"), 10)
    assert result.ok, result
    (request,) = requests
    assert request.subtask == "1" and request.application == "documents"
    assert [(a.function, a.arguments) for a in request.actions] == [("delete_document", {"path": "old.docx"})]
    assert "old.docx" not in docs.docs
    assert any(t["confirmation"] == "approved" for t in result.trajectory)


async def test_confirm_refused_the_action_never_runs_and_the_subtask_fails() -> None:
    docs = Documents({"old.docx": {"paragraphs": [], "tables": []}})
    planner, app_models = _deleting_models([])
    async with await HostSession.start([docs], planner, app_models=app_models, approve=lambda r: False,
                                       config=HostConfig(interactive=True, max_replans=1)) as hs:
        result = await asyncio.wait_for(hs.run("Delete old.docx"), 10)
    assert result.status == "FAIL"
    assert "old.docx" in docs.docs and docs.calls == []
    (subtask,) = result.subtasks
    assert subtask["state"] == "FAIL" and "the person refused" in subtask["reason"]
    assert any(t["confirmation"] == "refused" for t in result.trajectory)


async def test_batch_mode_refuses_sensitive_actions() -> None:
    docs = Documents({"old.docx": {"paragraphs": [], "tables": []}})
    seen: list[str] = []
    planner, app_models = _deleting_models(seen)
    result = await run_request("Delete old.docx", [docs], planner, app_models=app_models)
    assert result.status == "FAIL" and "old.docx" in docs.docs and docs.calls == []
    assert any("refused (batch mode" in (t["confirmation"] or "") for t in result.trajectory)
    # the AppAgent was told and went on; it then claimed FINISH with nothing changed: the run says "not done"
    assert "Not run: documents: delete_document" in seen[1] and "delete, overwrite or replace" in seen[1]
    assert result.reason_kind == "refused" and "not done: refused (batch mode)" in (result.reason or "")


async def test_the_hosts_own_sensitive_step_waits_for_approval_before_bash_runs() -> None:
    sheets = Spreadsheets(running=False)
    approvals: list[ApprovalRequest] = []

    def planner(prompt: str) -> str:
        if verifying(prompt):
            return host("FINISH", "done")
        if "The person approved" in prompt and "launched spreadsheets" not in prompt:
            return host("CONTINUE", "launching", Bash="spreadsheets")
        if "launched spreadsheets" in prompt:
            return assign(sub("1", "Read budget.xlsx", "spreadsheets", tools=["wait"]))
        return host("CONFIRM", "Excel must be started", Bash="spreadsheets")

    def approve(request: ApprovalRequest) -> bool:
        assert sheets.launches == 0  # nothing launched before the yes
        approvals.append(request)
        return True

    result = await asyncio.wait_for(run_request(
        "Fill the budget", [sheets], ScriptedBackend(planner), approve=approve,
        app_models={"spreadsheets": ScriptedBackend(lambda p: app("FINISH", result="filled"))}), 10)
    assert result.ok, result
    (request,) = approvals
    assert request.asked_by == "host" and request.subtask is None and "Bash: spreadsheets" in request.summary
    assert sheets.launches == 1


async def test_refusing_the_hosts_own_step_fails_the_request() -> None:
    sheets = Spreadsheets(running=False)
    result = await asyncio.wait_for(run_request(
        "Fill the budget", [sheets], ScriptedBackend(lambda p: host("CONFIRM", "Excel must be started",
                                                                     Bash="spreadsheets")),
        approve=lambda request: False), 10)
    assert result.status == "FAIL" and result.reason_kind == "refused" and sheets.launches == 0


async def test_an_empty_request_is_refused_clearly() -> None:
    async with await HostSession.start([Documents()], ScriptedBackend([])) as hs:
        with pytest.raises(RunFailed, match="the request is empty"):
            await hs.session.ask("   ")
        with pytest.raises(ConfigError, match="the request is empty"):
            await hs.run("")


async def test_broken_callbacks_do_not_leave_a_question_waiting_forever() -> None:
    def on_event(event: object) -> None:
        raise RuntimeError("display bug")

    def ask_person(question: Question) -> list[str]:
        raise RuntimeError("terminal closed")

    def planner(prompt: str) -> str:
        if "A: not available" in prompt:
            return host("FAIL", "nobody answered")
        return host("PENDING", Questions=["Which file?"])

    result = await asyncio.wait_for(run_request("Open the file", [Documents()], ScriptedBackend(planner),
                                                on_event=on_event, ask_person=ask_person), 10)
    assert result.status == "FAIL" and "nobody answered" in (result.reason or "")


async def test_auto_rules_are_the_profile_the_planners_model_declares() -> None:
    from podium.backends.budget import Budget, BudgetedBackend
    from podium.backends.embedded import EmbeddedBackend
    from podium.desktop.rules import AUTO, NONE, SMALL_LOCAL

    class SmallModel(ScriptedBackend):
        rules_profile = EmbeddedBackend.rules_profile  # what the embedded model declares, without its weights

    assert EmbeddedBackend.rules_profile == SMALL_LOCAL
    local = BudgetedBackend(SmallModel([]), Budget(max_tokens=10))  # found through the wrapper
    apps = [Documents(), Spreadsheets()]
    for model, expected in ((local, SMALL_LOCAL), (ScriptedBackend([]), NONE)):
        session = await HostSession.start(apps, model=model, config=HostConfig(rules=AUTO))
        try:
            assert session.config.rules == expected
        finally:
            await session.stop()
