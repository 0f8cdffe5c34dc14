"""The HostAgent when things go wrong: malformed output, bad plans, crashes, limits, re-plans."""

from __future__ import annotations

import asyncio
from typing import Any

from podium.backends.scripted import Crash, Hang, Say, ScriptedBackend
from podium.desktop import HostConfig, HostSession, run_request
from podium.desktop.host.flow import REPLAN
from podium.desktop.shell.session import batch
from tests.desktop.memapps import Documents, Notes, Spreadsheets
from tests.desktop.scripting import Spy, app, assign, host, step_of, sub, subtask_of, verifying

TABLE = [["a", 1]]


def one_subtask_planner(prompt: str) -> str:
    if verifying(prompt):
        return host("FINISH", "done")
    return assign(sub("1", "Read the table of report.docx", "documents", reads=["report.docx"], tools=["read_table"]))


def reading(prompt: str) -> str:
    # the first step that is answered reads (a rejected answer before it is no step of the record)
    if "## Your previous steps" not in prompt:
        return app("CONTINUE", ("read_table", {"path": "report.docx"}))
    return app("FINISH", result=TABLE)


def docs() -> Documents:
    return Documents({"report.docx": {"paragraphs": [], "tables": [TABLE]}})


async def test_malformed_planner_output_is_repaired_greedy_first_then_sampling() -> None:
    answers = iter(["Sure! I will read the table for you.", '{"Status": "DONE"}'])

    def planner(prompt: str) -> str:
        return next(answers, None) or one_subtask_planner(prompt)

    model = Spy(planner)
    result = await run_request("Read the table of report.docx", [docs()], model,
                               app_models={"documents": ScriptedBackend(reading)})
    assert result.ok, result
    temps = [p.temperature for p in model.seen]
    assert temps == [0.0, 0.7, 0.7, 0.0]  # greedy, two sampled repairs, greedy again once valid
    second, third = model.seen[1].text, model.seen[2].text
    assert "Your previous answer was rejected" in second and "no JSON object" in second
    assert "Sure! I will read the table for you." in second
    assert "Status" in third and "DONE" in third
    assert all(p.schema is not None and "Subtasks" in p.schema["anyOf"][0]["properties"] for p in model.seen)
    trajectory = result.trajectory
    assert trajectory[0]["status"] == "ERROR" and "no JSON object" in trajectory[0]["error"]


async def test_planner_output_that_stays_malformed_is_a_clean_error() -> None:
    model = ScriptedBackend(lambda prompt: "I cannot produce JSON, sorry.")
    notes = Notes()
    result = await run_request("Write a note", [notes], model, config=HostConfig(max_repairs=2))
    assert result.status == "ERROR" and result.reason_kind == "invalid_output"
    assert "stayed invalid after 2 repair(s)" in (result.reason or "") and "I cannot produce JSON" in result.reason
    assert len(model.prompts) == 3 and notes.calls == []


async def test_app_output_repaired_then_when_it_stays_malformed_its_subtask_fails_and_the_planner_decides() -> None:
    bad = iter(["not json"])
    repaired = await run_request("Read the table", [docs()], ScriptedBackend(one_subtask_planner),
                                 app_models={"documents": ScriptedBackend(lambda p: next(bad, None) or reading(p))})
    assert repaired.ok and repaired.subtasks[0]["state"] == "FINISH"

    broken = ScriptedBackend(lambda prompt: '{"status": "MAYBE"}')
    result = await run_request("Read the table", [docs()], ScriptedBackend(one_subtask_planner),
                               app_models={"documents": broken}, config=HostConfig(max_repairs=1))
    # one AppAgent's malformed answers fail its subtask, not the run: the planner is asked, and its FINISH is
    # refused while the subtask failed, so the run ends FAIL with the subtask's reason
    (subtask,) = result.subtasks
    assert (subtask["state"], subtask["reason_kind"]) == ("FAIL", "invalid_output")
    assert result.status == "FAIL" and "AppAgent app-documents (subtask 1): the output stayed invalid" in (
        result.reason or "")
    assert len(broken.prompts) == 2
    assert "Your previous answer was rejected" in broken.prompts[1]


async def test_an_app_agent_crash_mid_subtask_is_retried_on_a_fresh_agent_and_the_request_finishes() -> None:
    crashes = iter([Crash("segfault in the tool server")])

    def documents(prompt: str) -> Any:  # reads the table unless its own memory says it has
        if next(crashes, None) is not None:
            return Crash("segfault in the tool server")
        memory = prompt.split("## Your previous steps", 1)[1].split("\n\n## ", 1)[0] \
            if "## Your previous steps" in prompt else ""
        if "read_table(" in memory:
            return app("FINISH", result=TABLE)
        return app("CONTINUE", ("read_table", {"path": "report.docx"}))

    model = ScriptedBackend(documents)
    d = docs()
    async with await HostSession.start([d], ScriptedBackend(one_subtask_planner),
                                       app_models={"documents": model}) as hs:
        first = await asyncio.wait_for(hs.run("Read the table"), 10)
        assert first.ok, first
        (subtask,) = first.subtasks
        assert (subtask["state"], subtask["agent"], subtask["restarts"], subtask["result"]) == (
            "FINISH", "app-documents-2", 1, TABLE)
        assert d.calls == [("read_table", {"path": "report.docx"})]  # the crash came before any action
        (down,) = [t for t in first.trajectory if t["action"] == "agent down"]
        assert (down["agent"], down["subtask"], down["status"]) == ("app-documents", "1", "ERROR")
        assert "segfault" in down["error"] and "replaced by app-documents-2" in down["outcome"]
        # the step memory is the host's: the fresh agent is told, and shown what was done
        assert "(app-documents) went down" in model.prompts[1] and "your previous steps below" in model.prompts[1]
        assert hs.status()["host"]["agents"] == {"documents": "app-documents-2"}
        # the fresh agent is cached like any other: the next request reuses it, with its memory
        second = await asyncio.wait_for(hs.run("Read the table again"), 10)
        assert second.ok and second.subtasks[0]["agent"] == "app-documents-2"
        assert second.subtasks[0]["restarts"] == 0 and "Note from the HostAgent" not in model.prompts[-1]


async def test_the_token_budget_ends_the_request_before_the_next_model_call() -> None:
    def planner(prompt: str) -> Say:
        return Say(one_subtask_planner(prompt), usage=(300, 50))

    documents = ScriptedBackend(lambda prompt: Say(app("CONTINUE", ("read_table", {"path": "report.docx"})),
                                                   usage=(300, 50)))
    result = await run_request("Read the table", [docs()], ScriptedBackend(planner),
                               app_models={"documents": documents}, config=batch(max_tokens=1000))
    assert result.status == "FAIL" and result.reason_kind == "budget_exceeded"
    assert "1050 tokens used of max_tokens=1000" in (result.reason or "")
    assert len(documents.prompts) == 2  # 350 + 350 + 350 = 1050: no fourth call
    assert result.usage["input_tokens"] == 900


async def test_a_subtask_that_never_finishes_hits_its_step_limit() -> None:
    # a new change each step, never FINISH (a step that only repeated a read would be taken as its FINISH)
    documents = ScriptedBackend(lambda prompt: app("CONTINUE", ("write_paragraph", {
        "path": "report.docx", "text": f"line {step_of(prompt)}"})))
    def planner(prompt: str) -> str:  # a subtask that writes: one that only reads would change nothing
        return host("FINISH", "done") if verifying(prompt) else \
            assign(sub("1", "Write lines into report.docx", "documents", writes=["report.docx"],
                       tools=["write_paragraph"]))
    result = await run_request("Write lines into report.docx", [docs()], ScriptedBackend(planner),
                               app_models={"documents": documents}, config=batch(max_subtask_steps=3))
    assert result.status == "FAIL" and result.reason_kind == "limit_reached"
    assert "subtask 1 used all its 3 steps" in (result.reason or "") and len(documents.prompts) == 3


async def test_the_session_step_limit() -> None:
    planner = ScriptedBackend(lambda prompt: host("CONTINUE", "thinking"))
    result = await run_request("Think forever", [Notes()], planner, config=batch(max_steps=4))
    assert result.status == "FAIL" and "all its 4 steps" in (result.reason or "") and len(planner.prompts) == 4


async def test_wall_time_comes_from_the_shell_and_ends_a_hung_request() -> None:
    documents = ScriptedBackend(lambda prompt: Hang())
    result = await asyncio.wait_for(run_request(
        "Read the table", [docs()], ScriptedBackend(one_subtask_planner), app_models={"documents": documents},
        config=batch(max_wall_time=0.2)), 10)
    assert result.status == "FAIL" and result.reason_kind == "limit_reached"
    assert "wall time exhausted" in (result.reason or "")
    assert result.subtasks[0]["state"] == "FAIL"  # abandoned


async def test_an_invalid_plan_is_re_asked_with_the_reasons() -> None:
    # report.docx and budget.xlsx are of two applications' types: no fix is certain, the planner is asked
    plans = iter([assign(sub("1", "Read the table of report.docx", "spreadsheets", reads=["report.docx", "budget.xlsx"],
                             tools=["read_table"]),
                         sub("2", "Chart it", "photoshop", "7", tools=["chart"]))])

    def planner(prompt: str) -> str:
        return next(plans, None) or one_subtask_planner(prompt)

    model = Spy(planner)
    result = await run_request("Read the table of report.docx", [docs(), Spreadsheets()], model,
                               app_models={"documents": ScriptedBackend(reading)})
    assert result.ok, result
    feedback = model.seen[1].text
    assert "Your plan failed these checks" in feedback
    assert "spreadsheets has no tool read_table" in feedback
    assert "spreadsheets opens only .xlsx files, and report.docx is not one: plan it on documents" in feedback
    assert "unknown application 'photoshop'" in feedback and "unknown subtask '7'" in feedback
    assert model.seen[1].temperature == 0.7
    assert "Your answer was" not in feedback  # a small model shown its rejected plan copies it back


async def test_a_plan_that_stays_invalid_fails_with_plan_invalid() -> None:
    planner = ScriptedBackend(lambda prompt: assign(sub("1", "Read it", "documents", reads=["report.docx"],
                                                        tools=["add_chart"])))
    d = docs()
    result = await run_request("Read report.docx", [d], planner, config=batch(max_plan_retries=1))
    assert result.status == "FAIL" and result.reason_kind == "plan_invalid"
    assert "documents has no tool add_chart" in (result.reason or "") and d.calls == []
    assert len(planner.prompts) == 2


async def test_a_fail_in_the_words_of_the_re_plan_note_gives_the_subtasks_reasons() -> None:
    def planner(prompt: str) -> str:
        if "Re-plan:" in prompt:  # the 1.5B planner's answer: the note's own sentence
            return host("FAIL", REPLAN)
        return assign(sub("1", "Write the table into locked.xlsx", "spreadsheets", writes=["locked.xlsx"],
                          tools=["write_rows"]))

    result = await run_request("Copy the table into locked.xlsx", [Spreadsheets()], ScriptedBackend(planner),
                               app_models={"spreadsheets": ScriptedBackend(
                                   lambda p: app("FAIL", comment="locked.xlsx is read-only"))})
    assert result.status == "FAIL" and "Re-plan" not in (result.reason or "")
    assert "subtask 1 (Write the table into locked.xlsx) ended FAIL" in (result.reason or "")
    assert "locked.xlsx is read-only" in (result.reason or "")


async def test_re_planning_after_a_failed_subtask_keeps_the_finished_ones() -> None:
    sheets = Spreadsheets()
    d = docs()

    def planner(prompt: str) -> str:
        if "Re-plan:" in prompt:
            return assign(sub("3", "Write the table into other.xlsx", "spreadsheets", "1", writes=["other.xlsx"],
                              tools=["write_rows"]))
        if verifying(prompt):
            return host("FINISH", "done after a re-plan")
        return assign(sub("1", "Read the table of report.docx", "documents", reads=["report.docx"],
                          tools=["read_table"]),
                      sub("2", "Write the table into locked.xlsx", "spreadsheets", "1", writes=["locked.xlsx"],
                          tools=["write_rows"]))

    def spreadsheets(prompt: str) -> str:
        if subtask_of(prompt) == "2":
            return app("FAIL", comment="locked.xlsx is read-only")
        return app("FINISH", ("write_rows", {"path": "other.xlsx", "cell": "A1", "rows": TABLE}), result="ok")

    result = await run_request("Copy the table of report.docx into locked.xlsx or other.xlsx", [d, sheets],
                               ScriptedBackend(planner),
                               app_models={"documents": ScriptedBackend(reading),
                                           "spreadsheets": ScriptedBackend(spreadsheets)})
    assert result.ok, result
    assert [(s["id"], s["state"]) for s in result.subtasks] == [("1", "FINISH"), ("2", "FAIL"), ("3", "FINISH")]
    assert d.calls == [("read_table", {"path": "report.docx"})]  # subtask 1 ran once
    assert sheets.books["other.xlsx"]["rows"] == TABLE
    assert "read-only" in result.subtasks[1]["reason"]


async def test_a_failed_subtask_with_no_re_plan_left_fails_the_request_and_skips_its_dependants() -> None:
    def planner(prompt: str) -> str:
        return assign(sub("1", "Read the table of report.docx", "documents", reads=["report.docx"],
                          tools=["read_table"]),
                      sub("2", "Chart it in budget.xlsx", "spreadsheets", "1", writes=["budget.xlsx"],
                          tools=["add_chart"]))

    result = await run_request("Chart the table in budget.xlsx", [docs(), Spreadsheets()], ScriptedBackend(planner),
                               app_models={"documents": ScriptedBackend(lambda p: app("FAIL", comment="no table")),
                                           "spreadsheets": ScriptedBackend(reading)},
                               config=batch(max_replans=0))
    assert result.status == "FAIL" and "no re-plan left" in (result.reason or "")
    assert [s["state"] for s in result.subtasks] == ["FAIL", "SKIPPED"]


async def test_evaluation_by_a_judge_at_the_end() -> None:
    judge = ScriptedBackend(['{"reason": "the table was read", "sub_scores": {"read": "yes"}, "complete": "Yes"}'])
    result = await run_request("Read the table", [docs()], ScriptedBackend(one_subtask_planner),
                               app_models={"documents": ScriptedBackend(reading)}, judge_model=judge,
                               config=batch(evaluate=True))
    assert result.ok and result.evaluation == {"reason": "the table was read", "sub_scores": {"read": "yes"},
                                               "complete": "yes"}
    assert "Read the table" in judge.prompts[0] and "read_table" in judge.prompts[0]


async def test_requests_wait_their_turn_and_share_the_blackboard() -> None:
    async with await HostSession.start([docs()], ScriptedBackend(one_subtask_planner),
                                       app_models={"documents": ScriptedBackend(reading)}) as hs:
        first, second = hs.session.tell("first request"), hs.session.tell("second request")
        assert hs.status()["host"]["queued_requests"] == 1
        await asyncio.wait_for(hs.session.result(first), 10)
        await asyncio.wait_for(hs.session.result(second), 10)
        last = hs.status()["host"]["last"]
    assert last["request"] == "second request" and last["status"] == "FINISH"
    board = last["blackboard"]
    assert board["requests"] == ["first request", "second request"]
    ends = [i for i, t in enumerate(board["trajectories"]) if t["action"] == "end of request"]
    assert len(ends) == 2 and ends[0] < len(board["trajectories"]) // 2 + 1  # one after the other


async def test_cancel_ends_the_request_and_keeps_its_record() -> None:
    async with await HostSession.start([docs()], ScriptedBackend(one_subtask_planner),
                                       app_models={"documents": ScriptedBackend(lambda p: Hang())}) as hs:
        running = asyncio.ensure_future(hs.run("Read the table"))
        for _ in range(200):
            if hs.status()["host"].get("subtasks"):
                break
            await asyncio.sleep(0)
        hs.cancel("the person pressed Ctrl-C")
        result = await asyncio.wait_for(running, 10)
    assert result.status == "FAIL" and result.reason_kind == "cancelled" and "Ctrl-C" in (result.reason or "")
    assert result.blackboard["requests"] == ["Read the table"]


async def test_the_callers_timeout_cancels_the_request_and_returns_its_record() -> None:
    async with await HostSession.start([docs()], ScriptedBackend(one_subtask_planner),
                                       app_models={"documents": ScriptedBackend(lambda p: Hang())}) as hs:
        result = await asyncio.wait_for(hs.run("Read the table", timeout=0.2), 10)
        assert hs.status()["host"]["state"] == "idle"
    assert result.status == "FAIL" and result.reason_kind == "cancelled"
    assert "caller's timeout of 0.2s" in (result.reason or "") and result.subtasks[0]["state"] == "FAIL"


async def test_the_session_wide_step_limit_spans_requests() -> None:
    async with await HostSession.start([docs()], ScriptedBackend(one_subtask_planner),
                                       app_models={"documents": ScriptedBackend(reading)},
                                       config=batch(max_session_steps=6)) as hs:
        first = await hs.run("Read the table")
        second = await hs.run("Read it again")
        assert hs.status()["host"]["session_steps"] == 6
    assert first.ok and first.steps == 4
    assert second.status == "FAIL" and "the session used all its 6 steps" in (second.reason or "")
