"""The AppAgent's step as a pure machine: what runs, what is a repeat, what waits; the step memory; the
verifier; the named rules that act on a step."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from podium.apps.base import ENDED, OTHER_PARTS, READ_PART, TOOK_COLUMNS
from podium.apps.tooling import EDITED, INTO_PART
from podium.desktop.blackboard import ArtifactEntry
from podium.desktop.host.capability import HoldKind
from podium.desktop.host.catalog import AppInfo, ToolInfo
from podium.desktop.host.decide import (
    call_key,
    changed_nothing,
    decide,
    made,
    observed,
    progressed,
    reaffirmed,
    remember,
)
from podium.desktop.host.state import SubtaskRecord
from podium.desktop.host.verify import literals, missing
from podium.desktop.rules import RULES, SMALL_LOCAL, profile_rules, table
from podium.desktop.rules import steps as rules
from podium.desktop.wire.messages import ActionResult, CallFacts, EffectView
from podium.desktop.wire.prompts import EXAMPLE_ROW
from podium.desktop.wire.schemas import AppOutput, HandsOn, SubtaskSpec

SHEETS = AppInfo("spreadsheets", "", (".xlsx",), (ToolInfo("read_sheet", True), ToolInfo("write_rows", False),
                                                  ToolInfo("add_chart", False)))
ROWS = [["Quarter", "Revenue"], ["Q1", 120]]
SMALL = profile_rules(SMALL_LOCAL)


def record(**fields: Any) -> SubtaskRecord:
    spec = SubtaskSpec(id="2", description="Write the rows and chart them", application="spreadsheets",
                       writes=("budget.xlsx",), tools=("write_rows", "add_chart"))
    return SubtaskRecord(spec=spec, **fields)


def write(path: str = "budget.xlsx", change: str = "add", **arguments: Any) -> CallFacts:
    args = {"path": path, "rows": ROWS, **arguments}
    return CallFacts(function="write_rows", arguments=args, effects=(EffectView(path=path, change=change),))


def answer(status: str = "CONTINUE", n: int = 1, **fields: Any) -> AppOutput:
    actions = [{"function": "write_rows", "arguments": {}}] * n
    return AppOutput.model_validate({"status": status, "actions": actions, **fields})


def test_a_declared_change_runs() -> None:
    decision = decide(answer(), [write()], record(), active=frozenset(), created=(), protected=())
    assert decision.run == (0,) and decision.holds == () and decision.skipped == ()


def test_an_undeclared_or_destructive_change_waits_and_only_the_changes_before_it_run() -> None:
    decision = decide(answer(), [write("salaries.xlsx")], record(), active=frozenset(), created=(), protected=())
    assert [h.kind for h in decision.holds] == [HoldKind.UNDECLARED] and decision.run == (0,)
    # a change after the held one, on another path, does not depend on it: it runs, the held one waits
    decision = decide(answer(n=2), [write("salaries.xlsx"), write()], record(), active=frozenset(), created=(),
                      protected=())
    assert decision.holds == () and decision.run == (1,) and decision.skipped[0][0] == 0
    # on the same path (or inside it) it may depend on it: the person is asked about the whole step
    decision = decide(answer(n=2), [write(change="edit"), write(start="A10")], record(), active=frozenset(),
                      created=(), protected=())
    assert [h.kind for h in decision.holds] == [HoldKind.DESTRUCTIVE] and decision.run == (0, 1)
    unknown = CallFacts(function="press_keys", arguments={"keys": "ctrl+s"}, effects=None)
    decision = decide(answer(n=2), [unknown, write()], record(), active=frozenset(), created=(), protected=())
    assert [h.kind for h in decision.holds] == [HoldKind.UNKNOWN] and decision.run == (0, 1)
    # a change that needs no approval before it runs now; the held one is proposed again after it
    decision = decide(answer(n=2), [write(), write("salaries.xlsx")], record(), active=frozenset(), created=(),
                      protected=())
    assert decision.holds == () and decision.run == (0,)
    assert "needs the person's approval (it changes salaries.xlsx, which its subtask does not declare it writes)" \
        in decision.skipped[0][1]
    read = CallFacts(function="read_sheet", arguments={"path": "budget.xlsx"}, read_only=True)
    assert decide(answer(n=2), [read, write("salaries.xlsx")], record(), active=frozenset(), created=(),
                  protected=()).run == (0, 1)  # only a read before it: the whole step is asked about
    decision = decide(answer(), [write(change="edit")], record(), active=frozenset(), created=(), protected=())
    assert [h.kind for h in decision.holds] == [HoldKind.DESTRUCTIVE]
    # what the run made is its own
    assert decide(answer(), [write(change="edit")], record(), active=frozenset(), created=("budget.xlsx",),
                  protected=()).holds == ()
    # a change its plan declared only because data named it
    found = decide(answer(), [write()], record(untrusted=("budget.xlsx",)), active=frozenset(), created=(),
                   protected=()).holds
    assert [h.kind for h in found] == [HoldKind.BY_DATA]


def test_confirm_asks_before_its_calls_run() -> None:
    decision = decide(answer("CONFIRM"), [write()], record(), active=frozenset(), created=(), protected=())
    assert [h.kind for h in decision.holds] == [HoldKind.ASKED]
    # a small model's CONFIRM on calls that nothing holds (confirm-needs-cause) runs them; one that something
    # holds is asked about, naming both why the agent asked and what the checks found
    small = decide(answer("CONFIRM"), [write()], record(), active=SMALL, created=(), protected=())
    assert small.holds == () and small.run == (0,) and small.fired == (rules.CONFIRM_CAUSE,)
    held = decide(answer("CONFIRM"), [write(change="edit")], record(), active=SMALL, created=(), protected=())
    assert {h.kind for h in held.holds} == {HoldKind.ASKED, HoldKind.DESTRUCTIVE} and held.fired == ()


def test_the_same_change_is_not_made_twice() -> None:
    done = record(done=(call_key("write_rows", write().arguments),))
    decision = decide(answer(), [write()], done, active=frozenset(), created=(), protected=())
    assert decision.run == () and decision.skipped[0][2] is True and "already succeeded" in decision.skipped[0][1]
    # where the program shows a dialog, what is left there is said: its button
    dialog = "its dialog 'Fruit' is still open (its buttons: 3 'Cancel', 4 'OK')"
    shown = decide(answer(), [write()], replace(done, dialog=dialog), active=frozenset(), created=(), protected=())
    assert shown.skipped[0][1].endswith(f"do not repeat it; {dialog}: if your subtask confirms it, click its button")
    # nor twice in one answer (a file opened four times is four windows); a program's action, which names no
    # file, may be meant twice (a button pressed twice)
    twice = decide(answer(n=3), [write(), write(), write(path="other.xlsx")], record(), active=frozenset(),
                   created=(), protected=())
    assert twice.run == (0,) and twice.skipped[0][:2] == (1, "not run: the same write_rows call is earlier in this "
                                                             "answer")
    click = CallFacts(function="click", arguments={"control": 4}, effects=())
    assert decide(answer(n=2), [click, click], record(), active=frozenset(), created=(), protected=()).run == (0, 1)


def test_a_change_that_would_empty_what_the_subtask_wrote_is_not_run() -> None:
    names = CallFacts(function="write_file_names", arguments={"path": ".", "pattern": "*.none", "into": "list.txt"},
                      effects=(EffectView(path="list.txt", change="replace", removes=("Ada", "Bo"), empties=True),))
    filled = record(changed={"list.txt": EffectView(path="list.txt", change="create", after="l1")})
    decision = decide(answer(n=2), [names, write()], filled, active=frozenset(), created=("list.txt",), protected=())
    assert decision.run == () and "would leave list.txt empty" in decision.skipped[0][1]
    assert "did not run" in decision.skipped[1][1]  # what came after it may have relied on it
    # a file the subtask did not fill is not its work to keep: emptying the person's is the approval's to judge
    assert decide(answer(), [names], record(), active=frozenset(), created=(), protected=()).skipped == ()


def test_calls_that_cannot_run_are_not_run() -> None:
    unknown = CallFacts(function="explode", known=False)
    bad_ref = CallFacts(function="write_rows", error="unknown reference '9.x'; the references are: 1.read_table")
    decision = decide(answer(n=2), [bad_ref, unknown], record(), active=frozenset(), created=(), protected=())
    assert decision.run == () and "9.x" in decision.skipped[0][1]
    # a change after one that cannot run may depend on it: it does not run either; a read does not block
    assert "a change before it in this step did not run" in decision.skipped[1][1]
    read = CallFacts(function="read_sheet", arguments={"path": "budget.xlsx"}, read_only=True, error="no sheet Q9")
    assert decide(answer(n=2), [read, write()], record(), active=frozenset(), created=(), protected=()).run == (1,)
    decision = decide(answer(n=2), [unknown, write()], record(), active=frozenset(), created=(), protected=())
    assert decision.run == () and "no tool 'explode'" in decision.skipped[0][1]
    assert decision.blocked == (1,)  # never tried: an answer counting on it has not done it


def test_a_repeated_failure_refused_does_not_hold_back_what_follows_it() -> None:
    # the calls after it were proposed knowing it failed: they run (a dialog confirmed after a failed click)
    key = call_key("write_rows", write().arguments)
    failing = record(failed=((key, "sheet Q9 does not exist"),))
    chart = CallFacts(function="add_chart", arguments={"path": "budget.xlsx"},
                      effects=(EffectView(path="budget.xlsx", change="add"),))
    decision = decide(answer(n=2), [write(), chart], failing, active=SMALL, created=(), protected=())
    assert decision.run == (1,) and decision.fired == (rules.FAILED_CALL,) and decision.blocked == ()
    # without the rule the failure is tried again, and a change that fails holds back what follows at run time
    assert decide(answer(n=2), [write(), chart], failing, active=frozenset(), created=(), protected=()).run == (0, 1)


def test_a_confirmation_that_leaves_fields_empty_is_not_run_the_first_time() -> None:
    click = CallFacts(function="click", arguments={"control": 9}, unfilled=("Room",))
    decision = decide(answer(), [click], record(), active=SMALL, created=(), protected=())
    assert decision.run == () and decision.fired == (rules.EMPTY_FIELDS,)
    assert decision.warned == (call_key("click", {"control": 9}),)
    assert "confirm the dialog with 'Room' left empty" in decision.skipped[0][1]
    # proposed again, it is the agent's choice: it runs; without the rule it runs at once
    warned = record(warned=decision.warned)
    assert decide(answer(), [click], warned, active=SMALL, created=(), protected=()).run == (0,)
    assert decide(answer(), [click], record(), active=frozenset(), created=(), protected=()).run == (0,)


def test_text_typed_over_a_documents_lines_is_not_run_the_first_time() -> None:
    typed = CallFacts(function="set_text", arguments={"control": 4, "text": "eggs"},
                      erased=("milk", "bread", "tea", "jam"))
    decision = decide(answer(), [typed], record(), active=SMALL, created=(), protected=())
    assert decision.run == () and decision.fired == (rules.TYPED_OVER,)
    assert decision.warned == (call_key("set_text", typed.arguments),)
    why = decision.skipped[0][1]
    assert "4 of its lines ('milk', 'bread', 'tea' ...) would be gone" in why and "append: true" in why
    # proposed again, the whole text is replaced as asked; without the rule at once
    warned = record(warned=decision.warned)
    assert decide(answer(), [typed], warned, active=SMALL, created=(), protected=()).run == (0,)
    assert decide(answer(), [typed], record(), active=frozenset(), created=(), protected=()).run == (0,)
    # a call that leaves every line there (an append, a text that holds them) is not asked about
    kept = typed.model_copy(update={"erased": ()})
    assert decide(answer(), [kept], record(), active=SMALL, created=(), protected=()).run == (0,)


def test_rows_of_every_value_where_the_request_names_some_are_not_written_the_first_time() -> None:
    from podium.desktop.host.artifacts import Artifact, Kind, named_rows

    staff = [["Name", "Dept"], ["Ann", "Sales"], ["Bob", "IT"], ["Cy", "Sales"]]
    picks = named_rows([Artifact("1.read_sheet", Kind.TABLE, staff)], "Only the Sales people into budget.xlsx")
    every = write(rows=staff)
    decision = decide(answer(), [every], record(), active=SMALL, created=(), protected=(), picks=picks)
    assert decision.run == () and decision.fired == (rules.ROWS_AS_NAMED,)
    assert '{"ref": "1.read_sheet.where.Dept.Sales"}' in decision.skipped[0][1]
    # the rows named run; proposed again, every row is the agent's choice; without the rule it runs at once
    named = write(rows=[staff[0], staff[1], staff[3]])
    assert decide(answer(), [named], record(), active=SMALL, created=(), protected=(), picks=picks).run == (0,)
    warned = record(warned=decision.warned)
    assert decide(answer(), [every], warned, active=SMALL, created=(), protected=(), picks=picks).run == (0,)
    assert decide(answer(), [every], record(), active=frozenset(), created=(), protected=(), picks=picks).run == (0,)


def test_a_read_of_the_new_file_the_subtask_writes_is_not_run() -> None:
    absent = CallFacts(function="read_sheet", arguments={"path": "budget.xlsx"}, read_only=True, absent=True)
    decision = decide(answer(n=2), [absent, write()], record(), active=frozenset(), created=(), protected=())
    assert decision.run == (1,) and decision.fired == () and decision.failed_again == ("read_sheet",)
    assert "budget.xlsx does not exist yet and your subtask creates it" in decision.skipped[0][1]
    dotted = absent.model_copy(update={"arguments": {"path": "./budget.xlsx"}})
    assert decide(answer(), [dotted], record(), active=frozenset(), created=(), protected=()).run == ()
    # a missing file it does not write is the tool's to report
    other = absent.model_copy(update={"arguments": {"path": "q9.xlsx"}})
    assert decide(answer(), [other], record(), active=frozenset(), created=(), protected=()).run == (0,)


def test_a_tools_call_written_out_as_data_is_refused() -> None:
    tools = frozenset({"column_totals", "write_file"})
    text = CallFacts(function="write_file", arguments={"path": "total.txt", "content": "column_totals(data.csv)"})
    decision = decide(answer(), [text], record(), active=SMALL, created=(), protected=(), tools=tools)
    assert decision.run == () and decision.fired == (rules.CALL_AS_DATA,)
    assert "its content holds the call column_totals(...) written out, not data" in decision.skipped[0][1]
    template = text.model_copy(update={"arguments": {"path": "total.txt", "content": "Total hours: {sum}"}})
    decision = decide(answer(), [template], record(), active=SMALL, created=(), protected=(), tools=tools)
    assert decision.fired == (rules.CALL_AS_DATA,) and "holds the placeholder {sum}" in decision.skipped[0][1]
    data = template.model_copy(update={"arguments": {"path": "t.json", "content": '{"total": 33.25}'}})
    assert decide(answer(), [data], record(), active=SMALL, created=(), protected=(), tools=tools).run == (0,)
    # a template's placeholder, alone, is what a call looks for
    filling = template.model_copy(update={"function": "replace_text", "arguments": {
        "path": "letter.docx", "find": "{name}", "replace_with": "Ana"}})
    assert decide(answer(), [filling], record(), active=SMALL, created=(), protected=(), tools=tools).run == (0,)
    # the person's own words, text that calls no tool, or no rules: it runs
    asked = decide(answer(), [text], record(), active=SMALL, created=(), protected=(), tools=tools,
                   given="Write column_totals(data.csv) into total.txt")
    assert asked.run == (0,)
    prose = text.model_copy(update={"arguments": {"path": "t.txt", "content": "sum (of the hours) is 33"}})
    assert decide(answer(), [prose], record(), active=SMALL, created=(), protected=(), tools=tools).run == (0,)
    assert decide(answer(), [text], record(), active=frozenset(), created=(), protected=(), tools=tools).run == (0,)


def test_remember_folds_a_steps_results_into_the_record() -> None:
    facts = [CallFacts(function="read_sheet", arguments={"path": "budget.xlsx"}, read_only=True), write()]
    results = [ActionResult(function="read_sheet", arguments={"path": "budget.xlsx"}, ok=True, content=ROWS,
                            read_only=True),
               ActionResult(function="write_rows", arguments=write().arguments, ok=True, content="ok",
                            changes=(EffectView(path="budget.xlsx", change="create", before=None, after="d1"),))]
    after = remember(record(failed=((call_key("read_sheet", {"path": "x.xlsx"}), "boom"),)), facts, results)
    assert after.done == (call_key("write_rows", write().arguments),) and after.failed == ()
    assert after.changed["budget.xlsx"].after == "d1" and after.called == ("read_sheet", "write_rows")
    assert after.artifacts["2.read_sheet"].value == ROWS
    assert made(results) == ("budget.xlsx",)
    # a file written whole again loses what earlier calls put in it: they are no longer done (made again, they
    # run; the verifier no longer counts what they held)
    names = {"into": "list.txt", "pattern": "*"}
    replaced = remember(after, [], [ActionResult(function="write_file_names", arguments=names, ok=True, changes=(
        EffectView(path="list.txt", change="create", before=None, after="l1"),))])
    rows = ActionResult(function="write_rows", arguments={"path": "./list.txt", "rows": ROWS}, ok=True,
                        changes=(EffectView(path="list.txt", change="replace", before="l1", after="l2"),))
    again = remember(replaced, [], [rows])
    assert again.done == (call_key("write_rows", write().arguments), call_key("write_rows", rows.arguments))
    # a copy into a folder made another file there than the one copied again over itself: it stays done

    def copy(name: str, change: str, **more: Any) -> ActionResult:
        return ActionResult(function="copy_or_move", arguments={"source": name, "destination": "data", **more}, ok=True,
                            changes=(EffectView(path=f"data/{name}", change=change, after="c"),))
    both = remember(record(), [], [copy("a.csv", "create"), copy("b.csv", "create")])
    over = remember(both, [], [copy("a.csv", "replace", overwrite=True)])
    assert call_key("copy_or_move", {"source": "b.csv", "destination": "data"}) in over.done
    failed = remember(after, [write("x.xlsx")], [ActionResult(function="write_rows", arguments={"path": "x.xlsx"},
                                                              ok=False, error="no such sheet")])
    assert failed.failed[-1][1] == "no such sheet"
    not_run = remember(after, [], [ActionResult(function="write_rows", ok=False, ran=False, error="not run")])
    assert not_run.failed == ()


def test_what_data_collection_read_becomes_data() -> None:
    seen = [ActionResult(function="read_sheet", arguments={"path": "budget.xlsx"}, ok=True, content=ROWS,
                         read_only=True)]
    assert observed(record(), seen).artifacts["2.read_sheet"].value == ROWS


def test_the_verifier_names_what_a_finish_lacks() -> None:
    lacking = missing(record(), SHEETS)
    assert lacking.writes == ("budget.xlsx",) and lacking.tools == ("write_rows", "add_chart")
    assert lacking.text() == "budget.xlsx is unchanged; write_rows, add_chart were not called"
    done = record(changed={"budget.xlsx": EffectView(path="budget.xlsx", change="add")},
                  called=("write_rows", "add_chart"))
    assert not missing(done, SHEETS)
    # a change measured to leave the file as it was (the cells already held the values) wrote nothing
    same = record(changed={"budget.xlsx": EffectView(path="budget.xlsx", change="edit", before="d1", after="d1")},
                  called=("write_rows", "add_chart"))
    lacking = missing(same, SHEETS)
    assert lacking and lacking.kept == ("budget.xlsx",) and lacking.writes == () and lacking.asked_once
    assert not lacking.only_soft  # a small model writes the cells already there and calls the work done
    assert lacking.text() == "budget.xlsx is as before: your calls wrote what was there already"
    edited = same.changed["budget.xlsx"].model_copy(update={"after": "d2"})
    assert not missing(replace(same, changed={"budget.xlsx": edited}), SHEETS)
    # a declared tool that was called and failed is not demanded again (a plan may want a workbook created
    # that exists), but a FINISH without it is still questioned once
    wrote = record(changed={"budget.xlsx": EffectView(path="budget.xlsx", change="add")}, called=("write_rows",))
    charted = remember(wrote, [], [ActionResult(function="add_chart", ok=False, error="no such range", ran=True)])
    lacking = missing(charted, SHEETS)
    assert charted.tried == ("add_chart",) and lacking.tools == () and lacking.failed == ("add_chart",)
    # the question carries the tool's last error: what it says is what to change
    assert lacking and lacking.text() == "add_chart failed and never succeeded (last error: add_chart: no such range)"
    # a folder declared is written when anything inside it changed
    folder = SubtaskRecord(spec=SubtaskSpec(id="1", description="copy", application="files", writes=("backup",)),
                           changed={"backup/a.xlsx": EffectView(path="backup/a.xlsx", change="create")})
    assert not missing(folder, None)
    # a tool that only makes new paths is demanded even when the declared path is there: what is there may be
    # a file copied where a folder was to be made
    files = AppInfo("files", "", (), (ToolInfo("make_folder", False, new_only=True), ToolInfo("copy_or_move", False)))
    copied = SubtaskRecord(spec=SubtaskSpec(id="1", description="copy", application="files", writes=("notes",),
                                            tools=("make_folder", "copy_or_move")), called=("copy_or_move",),
                           changed={"notes": EffectView(path="notes", change="create")})
    assert missing(copied, files).tools == ("make_folder",)
    # a copy into the folder made it (cp into a new folder's name): the tool that only makes it is not demanded
    filled = replace(copied, changed={"notes/a.txt": EffectView(path="notes/a.txt", change="create")})
    assert not missing(filled, files)
    # a workbook another of its tools wrote into being is what the tool that only makes one would have made
    made_by = AppInfo("spreadsheets", "", (".xlsx",), (*SHEETS.tools, ToolInfo("create_workbook", False,
                                                                               new_only=True)))
    written = SubtaskRecord(spec=SubtaskSpec(id="1", description="write", application="spreadsheets",
                                             writes=("new.xlsx",), tools=("create_workbook", "write_rows")),
                            called=("write_rows",),
                            changed={"new.xlsx": EffectView(path="new.xlsx", change="edit", after="d2")})
    assert not missing(written, made_by)
    # not when it was there before the subtask changed it
    there = replace(written, changed={"new.xlsx": EffectView(path="new.xlsx", change="edit", before="d1",
                                                             after="d2")})
    assert missing(there, made_by).tools == ("create_workbook",)
    # what the calls made and left empty (a new sheet, a new folder) is named, and asked about like a kept write
    added = record(called=("write_rows", "add_chart"), changed={"budget.xlsx": EffectView(
        path="budget.xlsx", change="edit", before="d1", after="d2", hollow_before=("Old",), hollow=("Old", "Q3"))})
    lacking = missing(added, SHEETS)
    assert lacking.hollow == ("sheet 'Q3' of budget.xlsx",) and lacking.only_soft and lacking.asked_once
    assert lacking.text() == "sheet 'Q3' of budget.xlsx holds nothing: your calls made it and left it empty"
    filled = added.changed["budget.xlsx"].model_copy(update={"hollow": ("Old",)})
    assert not missing(replace(added, changed={"budget.xlsx": filled}), SHEETS)
    made = replace(copied, called=("make_folder", "copy_or_move"),
                   changed={"notes": EffectView(path="notes", change="create", hollow=("",))})
    assert missing(made, files).hollow == ("notes",)
    # a file copied into the folder it made fills it: the folder's own record still says empty
    into = replace(made, changed={**made.changed, "notes/a.txt": EffectView(path="notes/a.txt", change="create",
                                                                          after="a1")})
    assert missing(into, files).hollow == ()
    # the record keeps what a path held nothing in before its first change, and after its latest one
    merged = remember(added, [], [ActionResult(function="write_rows", ok=True, changes=(EffectView(
        path="budget.xlsx", change="edit", before="d2", after="d3", hollow_before=("Old", "Q3"), hollow=("Old",)),))])
    assert merged.changed["budget.xlsx"].hollow_before == ("Old",) and not missing(merged, SHEETS)
    reader = SubtaskRecord(spec=SubtaskSpec(id="1", description="read", application="spreadsheets",
                                            tools=("read_sheet",), hands_on="table"))
    assert missing(reader, SHEETS).hands_on == "table"
    assert not missing(observed(reader, [ActionResult(function="read_sheet", ok=True, content=ROWS,
                                                      read_only=True)]), SHEETS)
    # a table declared where the file read whole holds lines of text: that text is what there is to hand on
    conf = SubtaskRecord(spec=SubtaskSpec(id="1", description="read", application="files", reads=("server.conf",),
                                          tools=("read_file",), hands_on="table"))
    text = ActionResult(function="read_file", arguments={"path": "server.conf"}, ok=True, read_only=True,
                        content={"path": "server.conf", "text": "host = a\nport = 8080\n"})
    assert not missing(observed(conf, [text]), None)
    # not while a declared file is unread
    both = replace(conf, spec=conf.spec.model_copy(update={"reads": ("server.conf", "other.conf")}))
    assert missing(observed(both, [text]), None).hands_on == "table"
    # a computing tool the plan chose to derive what it hands on (a total, not the table): asked once, then
    # believed; a plain reader is served by any read of the data (DATA_COLLECTION's)
    stats = AppInfo("spreadsheets", "", (".xlsx",), (*SHEETS.tools, ToolInfo("list_sheets", True),
                                                     ToolInfo("column_totals", True, computes=True)))
    deriving = SubtaskRecord(spec=SubtaskSpec(id="1", description="read", application="spreadsheets",
                                              tools=("list_sheets", "column_totals"), hands_on="table"))
    seen = observed(deriving, [ActionResult(function="read_sheet", ok=True, content=ROWS, read_only=True)])
    lacking = missing(seen, stats)
    assert lacking.uncomputed == ("column_totals",) and lacking.asked_once and lacking.only_soft
    assert lacking.text() == "column_totals was not called"
    assert not missing(observed(seen, [ActionResult(function="column_totals", ok=True, content={"Revenue": 120},
                                                    read_only=True)]), stats)
    # a subtask that hands nothing on and writes nothing is not asked for its reads
    assert not missing(replace(seen, spec=seen.spec.model_copy(update={"hands_on": HandsOn.NOTHING})), stats).uncomputed
    # one that writes what its declared computing tool was to give (a total into a text file) is asked once too
    writer = replace(seen, spec=seen.spec.model_copy(update={"hands_on": HandsOn.NOTHING, "writes": ("hours.txt",)}))
    assert missing(writer, stats).uncomputed == ("column_totals",)


def test_rules_refuse_a_repeated_failure_the_examples_data_and_a_copied_value() -> None:
    key = call_key("write_rows", write().arguments)
    failing = record(failed=((key, "sheet Q9 does not exist"),))
    decision = decide(answer(), [write()], failing, active=SMALL, created=(), protected=())
    assert decision.run == () and decision.fired == (rules.FAILED_CALL,) and decision.failed_again == ("write_rows",)
    assert decide(answer(), [write()], failing, active=frozenset(), created=(), protected=()).run == (0,)
    example = write(rows=[["Region", "Total"], EXAMPLE_ROW])
    assert decide(answer(), [example], record(), active=SMALL, created=(), protected=()).fired == (rules.EXAMPLE_COPY,)
    copy = write().model_copy(update={"copies": (("C3", "555-0100", "C2", "Phone of Acme Corp"),)})
    decision = decide(answer(), [copy], record(), active=SMALL, created=(), protected=())
    assert decision.fired == (rules.COPY_QUESTION,)
    assert decision.questions == ("What is the Phone of Acme Corp in budget.xlsx? No file gives it; '555-0100' in C2 "
                                  "is another record's.",)
    given = decide(answer(), [copy], record(), active=SMALL, created=(), protected=(), given="use 555-0100")
    assert given.run == (0,)


def test_a_change_that_writes_its_instructions_out_is_refused() -> None:
    request = "Copy the tasks from the table in kickoff.docx into tasks.txt, a line for each."

    def text(content: str) -> CallFacts:
        return CallFacts(function="write_file", arguments={"path": "tasks.txt", "content": content},
                         effects=(EffectView(path="tasks.txt", change="create"),))

    def writer(description: str) -> SubtaskRecord:
        return SubtaskRecord(spec=SubtaskSpec(id="2", description=description, application="files",
                                              writes=("tasks.txt",), tools=("write_file",)))

    # the request written out, with other case and punctuation, or inside a longer text; the description too
    for content in (request, request.upper().rstrip("."), f"Tasks:\n{request}\n", "write the tasks of subtask 1"):
        decision = decide(answer(), [text(content)], writer("Write the tasks of subtask 1"),
                          active=SMALL, created=(), protected=(), request=request)
        assert decision.run == () and decision.fired == (rules.REQUEST_AS_DATA,), content
        assert "holds the words of your instructions" in decision.skipped[0][1]
    # the data itself, a value the request quotes, a short description as a phrase of the data, no rule: it runs
    quoting = "Write 'Draft the project charter' into tasks.txt"
    typing = "Type Call the plumber on Monday into notes.txt"
    for content, description, active in (("Draft the project charter\nSet up the shared drive", "Copy", SMALL),
                                         ("Call the plumber on Monday", "Call the plumber on Monday", SMALL),
                                         ("Draft the project charter", quoting, SMALL),
                                         ("Totals: 12 and 14", "Totals", SMALL),
                                         (request, "Copy", frozenset())):
        assert decide(answer(), [text(content)], writer(description), active=active, created=(),
                      protected=(), request={quoting: quoting, "Call the plumber on Monday": typing}.get(
                          description, request)).run == (0,), content


def test_an_identifier_no_one_gave_is_asked_for_not_made_up() -> None:
    made_up = write().model_copy(update={"copies": (("C4", "info@vega.example", "", "Email of Vega SA (C4)"),)})
    # not a rule: no model may put a record's address there from nowhere
    decision = decide(answer(), [made_up], record(), active=frozenset(), created=(), protected=())
    assert decision.run == () and decision.fired == ()
    assert "which neither the person's words nor any file read gives" in decision.skipped[0][1]
    assert decision.questions == ("What is the Email of Vega SA (C4) in budget.xlsx? No file gives it.",)
    # given by the person, or found in a file the run read (written otherwise: one identifier), it is written
    for given, data in (("Vega's address is INFO@vega.example", ""), ("", '[["Vega SA", "info@vega.example"]]')):
        assert decide(answer(), [made_up], record(), active=frozenset(), created=(), protected=(), given=given,
                      data=data).run == (0,)
    phone = write().model_copy(update={"copies": (("C3", "+44 20 7946 0018", "", "Phone of Acme Corp"),)})
    assert decide(answer(), [phone], record(), active=frozenset(), created=(), protected=(),
                  data='{"phone": "+442079460018"}').run == (0,)


def test_a_writer_does_not_read_the_same_again_until_its_files_change() -> None:
    read = CallFacts(function="read_sheet", arguments={"path": "budget.xlsx"}, read_only=True)
    seen = record(read=(call_key("read_sheet", {"path": "budget.xlsx"}),))
    decision = decide(answer(n=2), [read, write()], seen, active=SMALL, created=(), protected=())
    assert decision.run == (1,) and decision.fired == (rules.READ_AGAIN,)
    assert decision.failed_again == ("read_sheet",) and "read this already" in decision.skipped[0][1]
    # a new read, a read after a change, a reading subtask, or no rules: it runs
    other = read.model_copy(update={"arguments": {"path": "budget.xlsx", "sheet": "Q2"}})
    assert decide(answer(), [other], seen, active=SMALL, created=(), protected=()).run == (0,)
    # a change that changed something makes every read new again; one that changed nothing does not
    wrote = ActionResult(function="write_rows", arguments=write().arguments, ok=True,
                         changes=(EffectView(path="budget.xlsx", change="modified", before="a", after="b"),))
    changed = remember(seen, [write()], [wrote])
    assert changed.read == () and decide(answer(), [read], changed, active=SMALL, created=(), protected=()).run == (0,)
    reread = remember(changed, [read], [ActionResult(function="read_sheet", arguments=read.arguments, ok=True,
                                                    content=ROWS, read_only=True)])
    assert decide(answer(), [read], reread, active=SMALL, created=(), protected=()).fired == (rules.READ_AGAIN,)
    same = wrote.model_copy(update={"changes": (EffectView(path="budget.xlsx", change="modified", before="b",
                                                           after="b"),)})
    assert remember(reread, [write()], [same]).read == reread.read
    reader = replace(seen, spec=seen.spec.model_copy(update={"writes": ()}))
    assert decide(answer(), [read], reader, active=SMALL, created=(), protected=()).run == (0,)
    assert decide(answer(), [read], seen, active=frozenset(), created=(), protected=()).run == (0,)


def test_rules_that_read_a_continue_as_finish() -> None:
    assert rules.as_finish(answer(n=2), [], 2, ("budget.xlsx",), SMALL) == rules.REPEAT_FINISH
    assert rules.as_finish(answer(n=2), [], 1, ("budget.xlsx",), SMALL) is None
    # a subtask that declares no file (an action in a program's window) has nothing to verify a FINISH by
    assert rules.as_finish(answer(n=2), [], 2, (), SMALL) is None
    read = ActionResult(function="read_sheet", ok=True, content=ROWS, read_only=True)
    reading = answer(result="the rows")
    assert rules.as_finish(reading, [read], 0, (), SMALL) == rules.READ_FINISH
    assert rules.as_finish(reading, [read], 0, ("budget.xlsx",), SMALL) is None
    assert rules.as_finish(reading, [read], 0, (), frozenset()) is None
    # with no result, a step that only read again what was read before is done too; a new read is not
    silent = answer()
    assert rules.as_finish(silent, [read], 0, (), SMALL, learned=False) == rules.READ_FINISH
    assert rules.as_finish(silent, [read], 0, (), SMALL, learned=True) is None


def test_every_rule_is_named_with_a_why_and_a_profile() -> None:
    assert profile_rules("none") == frozenset()
    assert frozenset(RULES) == SMALL
    for rule in RULES.values():
        assert rule.id and rule.why.endswith(".") and rule.profiles
    assert table().count("\n") == len(RULES) + 1
    # the README shows the registry as it is: its table is this one, generated
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert table() in readme, "README.md's table of named rules is stale: paste podium.desktop.rules.table() there"


def test_a_change_that_found_its_work_done_is_no_progress() -> None:
    same = EffectView(path="budget.xlsx", change="add", before="d1", after="d1")
    new = EffectView(path="budget.xlsx", change="add", before="d1", after="d2")
    created = EffectView(path="chart.xlsx", change="create", before=None, after="d3")
    done = ActionResult(function="add_chart", ok=True, changes=(same,))
    assert changed_nothing(done) and not progressed([done], record())
    assert not changed_nothing(done.model_copy(update={"changes": (same, new)}))
    assert progressed([ActionResult(function="add_chart", ok=True, changes=(created,))], record())
    # a read is progress the first time, not when the same read is made again
    reading = ActionResult(function="read_sheet", arguments={"path": "b.xlsx"}, ok=True, read_only=True, content=ROWS)
    assert progressed([reading], record())
    assert not progressed([reading], remember(record(), [], [reading]))
    assert progressed([reading.model_copy(update={"arguments": {"path": "b.xlsx", "sheet": "Q2"}})],
                      remember(record(), [], [reading]))
    # unmeasured (no digests) is not taken for unchanged
    assert not changed_nothing(ActionResult(function="add_chart", ok=True,
                                            changes=(EffectView(path="budget.xlsx", change="add"),)))
    # a call that failed stays failed until something really changed
    key = call_key("write_rows", write().arguments)
    failing = record(failed=((key, "sheet Q9 does not exist"),))
    assert remember(failing, [], [done]).failed == failing.failed
    assert remember(failing, [], [done.model_copy(update={"changes": (new,)})]).failed == ()


def test_the_path_rule_takes_the_one_declared_file_of_the_applications_type() -> None:
    from podium.desktop.rules.steps import declared_target

    assert declared_target("Tickets", ("support.xlsx",), (".xlsx",)) == "support.xlsx"
    assert declared_target("report.docx", ("budget.xlsx", "notes.txt"), (".xlsx",)) == "budget.xlsx"
    assert declared_target("new.xlsx", ("budget.xlsx",), (".xlsx",)) is None  # a workbook: the model's choice
    assert declared_target("Tickets", ("a.xlsx", "b.xlsx"), (".xlsx",)) is None  # two: no telling which
    assert declared_target("Tickets", ("support.xlsx",), ()) is None  # an application of any file
    moved = write().model_copy(update={"rewritten": (rules.PATH_FROM_DECLARATION,)})
    assert rules.PATH_FROM_DECLARATION in decide(answer(), [moved], record(), active=SMALL, created=(),
                                                 protected=()).fired


def test_the_folder_rule_takes_the_one_folder_the_declared_reads_lie_in() -> None:
    from podium.desktop.rules.steps import declared_folder, read_places

    folders = {"exports", "a/b", "."}.__contains__
    places = read_places(("exports/2022*", "exports/readme.txt", "list.txt"), ("list.txt",), folders)
    assert places == {"exports"}
    for given in (None, "", ".", "./"):  # left to the top folder
        assert declared_folder(given, places) == "exports"
    assert declared_folder("archive", places) is None  # a folder named: the model's choice
    assert read_places(("exports/",), (), folders) == {"exports"}  # a folder read is the folder itself
    assert read_places(("a/b/c.csv", "a/b"), (), folders) == {"a/b"}
    assert declared_folder(None, read_places(("exports/x.csv", "notes.txt"), (), folders)) is None  # two places
    assert declared_folder(None, read_places((".",), (), folders)) is None  # the top folder itself
    assert declared_folder(None, frozenset()) is None  # nothing declared
    listed = write().model_copy(update={"rewritten": (rules.FOLDER_FROM_DECLARATION,)})
    assert rules.FOLDER_FROM_DECLARATION in decide(answer(), [listed], record(), active=SMALL, created=(),
                                                   protected=()).fired


def test_a_finish_is_asked_once_about_a_declared_source_none_of_whose_data_went_into_its_changes() -> None:
    north = [["Name", "City"], ["Ada", "Oslo"]]
    south = [["Name", "City"], ["Bea", "Rome"]]
    spec = SubtaskSpec(id="3", description="merge", application="spreadsheets", reads=("north.xlsx", "south.xlsx"),
                       writes=("all.xlsx",), tools=("merge_tables",))
    seen = observed(SubtaskRecord(spec=spec), [
        ActionResult(function="read_sheet", arguments={"path": p}, ok=True, content=rows, read_only=True)
        for p, rows in (("north.xlsx", north), ("south.xlsx", south))])
    made = EffectView(path="all.xlsx", change="create", after="d1")

    def after(*calls: dict[str, Any]) -> SubtaskRecord:
        return remember(seen, [], [ActionResult(function="merge_tables", arguments=c, ok=True, changes=(made,))
                                   for c in calls])

    # one source merged, by its path: the other's data is in none of the changes
    one = missing(after({"path": "all.xlsx", "source": "north.xlsx"}), SHEETS)
    assert one.unused == ("south.xlsx",) and one.asked_once and one.text() == (
        "nothing of south.xlsx, which your subtask reads, went into your changes")
    # its changes took the other source by its path: the one left out is work not done, not a question
    assert one.untaken and not one.only_soft and one.work == one
    # what it lacks is the other source, not a figure: its application's computing tools are not named
    totals = AppInfo("spreadsheets", "", (".xlsx",), (*SHEETS.tools, ToolInfo("column_totals", True, computes=True)))
    assert "column_totals" not in missing(after({"path": "all.xlsx", "source": "north.xlsx"}), totals).text()
    # by values only (a computation may take from a file what does not show): asked once, then believed
    retyped = missing(after({"path": "all.xlsx", "rows": north}), SHEETS)
    assert retyped.unused == ("south.xlsx",) and not retyped.untaken and retyped.only_soft and not retyped.work
    assert not missing(after({"path": "all.xlsx", "source": "north.xlsx"}, {"path": "all.xlsx",
                                                                         "source": "south.xlsx"}), SHEETS)
    # data retyped (or given by reference, resolved) counts; a header both files share proves nothing
    assert not missing(after({"path": "all.xlsx", "rows": [*north, south[1]]}), SHEETS)
    assert missing(after({"path": "all.xlsx", "rows": north}), SHEETS).unused == ("south.xlsx",)
    assert missing(after({"path": "all.xlsx", "text": "Bea lives in Rome."}), SHEETS).unused == ("north.xlsx",)
    # a value of a read (its sheet's name) found only where the text names the file read is none of its data
    sheeted = observed(SubtaskRecord(spec=spec), [ActionResult(
        function="read_sheet", arguments={"path": p}, ok=True, read_only=True, content={"sheet": sheet, "rows": rows})
        for p, sheet, rows in (("north.xlsx", "Oslo office", north), ("south.xlsx", "South", south))])
    named = remember(sheeted, [], [ActionResult(function="write_rows", ok=True, changes=(made,), arguments={
        "path": "all.xlsx", "rows": [*north, ["see south.xlsx"]]})])
    assert missing(named, SHEETS).unused == ("south.xlsx",)
    # a number the write's own call names ('33.25', in its text) is no path to blank out: the sum was taken
    hours = SubtaskSpec(id="2", description="sum", application="files", reads=("t.csv",), writes=("hours.txt",),
                        tools=("read_csv", "write_file"))
    table = [["Person", "Hours"], ["Ines", 7.5], ["Omar", 25.75]]
    summed = remember(observed(SubtaskRecord(spec=hours), [ActionResult(
        function="read_csv", arguments={"path": "t.csv"}, ok=True, read_only=True, content={"rows": table})]), [], [
        ActionResult(function="write_file", arguments={"path": "hours.txt", "content": "33.25"}, ok=True,
                     content={"path": "hours.txt", "bytes": 5},
                     changes=(EffectView(path="hours.txt", change="create", after="d1"),))])
    assert not missing(summed, None).unused

    def wrote(content: str) -> SubtaskRecord:
        return remember(observed(SubtaskRecord(spec=hours), [ActionResult(
            function="read_csv", arguments={"path": "t.csv"}, ok=True, read_only=True, content={"rows": table})]), [],
            [ActionResult(function="write_file", arguments={"path": "hours.txt", "content": content}, ok=True,
                          content={"path": "hours.txt", "bytes": len(content)},
                          changes=(EffectView(path="hours.txt", change="create", after="d1"),))])
    # a label that repeats a column's name took nothing of the table; the column names written out did
    assert missing(wrote("Total hours: "), None).unused == ("t.csv",)
    assert not missing(wrote("Person, Hours"), None).unused
    # a listed path counts by its name: a list of names writes it so
    listed = SubtaskSpec(id="1", description="list", application="files", reads=("exports",),
                         writes=("old.txt",), tools=("write_file",))
    entries = {"folder": "exports", "entries": [{"path": "exports/2021-a.csv"}, {"path": "exports/2022-b.csv"}]}
    listing = observed(SubtaskRecord(spec=listed), [ActionResult(function="list_files", arguments={"path": "exports"},
                                                                 ok=True, content=entries, read_only=True)])
    names = remember(listing, [], [ActionResult(function="write_file", ok=True, changes=(made,),
                                                arguments={"path": "old.txt", "content": "2021-a.csv\n"})])
    assert missing(names, None).unused == ()
    # a move by a pattern takes every file its names match; one named file of two leaves the other untaken
    moving = SubtaskSpec(id="1", description="move", application="files", reads=("a.txt", "b.txt"),
                         writes=("notes",), tools=("copy_or_move",))
    folder = EffectView(path="notes", change="create", after="d2")

    def moved(*sources: str) -> SubtaskRecord:
        return remember(SubtaskRecord(spec=moving), [], [ActionResult(
            function="copy_or_move", ok=True, changes=(folder,), arguments={"source": src, "destination": "notes"})
            for src in sources])
    assert missing(moved("*.txt"), None).unused == ()
    one_of_two = missing(moved("a.txt"), None)
    assert one_of_two.unused == ("b.txt",) and one_of_two.untaken
    # a rename by an expression names no file: the files it moved away took themselves, the others were not taken
    renaming = SubtaskSpec(id="1", description="rename", application="files", reads=("draft_*", "drafts.txt"),
                           writes=("final_*",), tools=("rename_pattern",))
    renamed = remember(SubtaskRecord(spec=renaming), [], [ActionResult(
        function="rename_pattern", ok=True, arguments={"pattern": "^draft_", "replacement": "final_", "folder": "."},
        changes=(EffectView(path="draft_a.txt", change="move"), EffectView(path="final_a.txt", change="create")))])
    by_expression = missing(renamed, None)
    assert by_expression.unused == ("drafts.txt",) and not by_expression.untaken and not by_expression.nothing
    assert missing(replace(renamed, spec=renaming.model_copy(update={"reads": ("draft_*",)})), None).unused == ()
    # a list written by a pattern of the top folder only: a source in a subfolder whose name fits the pattern
    # was meant and left out, work not done (not a question believed after once)
    listing = SubtaskSpec(id="1", description="list", application="files", reads=("a.xlsx", "sub/b.xlsx"),
                          writes=("list.txt",), tools=("write_file_names",))
    top_only = missing(remember(SubtaskRecord(spec=listing), [], [ActionResult(
        function="write_file_names", ok=True, changes=(EffectView(path="list.txt", change="create", after="d3"),),
        arguments={"into": "list.txt", "pattern": "*.xlsx"})]), None)
    assert top_only.unused == ("sub/b.xlsx",) and top_only.untaken and top_only.work == top_only
    # the names of the subfolder's files that match, written from that folder: it took them
    from_sub = missing(remember(SubtaskRecord(spec=listing.model_copy(update={"reads": ("sub/*.xlsx",)})), [], [
        ActionResult(function="write_file_names", ok=True, changes=(EffectView(path="list.txt", change="create",
                                                                               after="d3"),),
                     arguments={"into": "list.txt", "pattern": "*.xlsx", "path": "sub/"})]), None)
    assert from_sub.unused == ()
    # a listing with its subfolders: its result lists the names it took (the pattern names no file of them)
    recursive = missing(remember(SubtaskRecord(spec=listing), [], [ActionResult(
        function="write_file_names", ok=True, changes=(EffectView(path="list.txt", change="create", after="d3"),),
        arguments={"into": "list.txt", "pattern": "*.xlsx", "recursive": True},
        content={"path": "list.txt", "names": ["a.xlsx", "sub/b.xlsx"], "count": 2})]), None)
    assert recursive.unused == () and not recursive
    # a name a read returned is no name a change took
    read_only = missing(remember(SubtaskRecord(spec=listing), [], [
        ActionResult(function="list_files", ok=True, arguments={"path": ".", "recursive": True}, read_only=True,
                     content={"names": ["a.xlsx", "sub/b.xlsx"]}),
        ActionResult(function="write_file_names", ok=True, arguments={"into": "list.txt", "pattern": "*.xlsx"},
                     changes=(EffectView(path="list.txt", change="create", after="d3"),))]), None)
    assert read_only.unused == ("sub/b.xlsx",)
    # no change yet (the write itself is missing), a subtask that hands data on, or a file it edits: not asked
    assert missing(seen, SHEETS).unused == ()
    handing = replace(after({"path": "all.xlsx", "rows": north}),
                      spec=spec.model_copy(update={"hands_on": HandsOn.TABLE}))
    assert missing(handing, SHEETS).unused == ()
    editing = replace(after({"path": "north.xlsx", "rows": north}),
                      spec=spec.model_copy(update={"reads": ("north.xlsx",), "writes": ("north.xlsx",)}))
    assert missing(editing, SHEETS).unused == ()
    # what the file it writes was read holding after its change is no other source sharing the values
    outline = [["level", "text"], [1, "Introduction"], [1, "Holidays"]]
    contents = SubtaskSpec(id="2", description="contents", application="documents", reads=("handbook.docx",),
                           writes=("contents.docx",), tools=("add_table",))
    read = observed(SubtaskRecord(spec=contents), [ActionResult(
        function="document_outline", arguments={"path": "handbook.docx"}, ok=True, content={"headings": outline},
        read_only=True)])
    table = remember(read, [], [ActionResult(function="add_table", ok=True, arguments={
        "path": "contents.docx", "rows": outline}, changes=(EffectView(path="contents.docx", change="create"),))])
    reread = observed(table, [ActionResult(function="read_table", arguments={"path": "contents.docx"}, ok=True,
                                           content=outline, read_only=True)])
    assert missing(reread, None).unused == ()


def test_a_tool_that_only_adds_an_empty_part_is_not_demanded_where_other_calls_filled_the_file() -> None:
    sheets = AppInfo("spreadsheets", "", (".xlsx",), (ToolInfo("add_sheet", False, empty_part=True),
                                                      ToolInfo("sort_rows", False)))
    spec = SubtaskSpec(id="1", description="rank", application="spreadsheets", reads=("scores.xlsx",),
                       writes=("scores.xlsx",), tools=("add_sheet", "sort_rows"))
    sorted_into = SubtaskRecord(spec=spec, called=("sort_rows",), changed={"scores.xlsx": EffectView(
        path="scores.xlsx", change="edit", before="d1", after="d2")})
    assert not missing(sorted_into, sheets)  # the sort made the sheet it filled
    # a part they made and left empty, a file left as it was, or nothing changed: it is demanded
    empty = replace(sorted_into, changed={"scores.xlsx": EffectView(path="scores.xlsx", change="edit", before="d1",
                                                                    after="d2", hollow=("Ranking",))})
    assert missing(empty, sheets).tools == ("add_sheet",)
    same = replace(sorted_into, changed={"scores.xlsx": EffectView(path="scores.xlsx", change="edit", before="d1",
                                                                   after="d1")})
    assert missing(same, sheets).tools == ("add_sheet",)
    assert missing(replace(sorted_into, called=(), changed={}), sheets).tools == ("add_sheet", "sort_rows")


def test_an_edit_of_a_part_is_not_demanded_where_the_text_was_written_whole() -> None:
    edited = json.dumps({"type": "object", "properties": {"path": {"type": "string", EDITED: True}}})
    files = AppInfo("files", "", (), (ToolInfo("write_file", False), ToolInfo("replace_text", False, edited),
                                      ToolInfo("make_folder", False, new_only=True)))
    spec = SubtaskSpec(id="1", description="set the port", application="files", reads=("server.conf",),
                       writes=("server.conf",), tools=("write_file", "replace_text"))
    rewritten = EffectView(path="server.conf", change="replace", before="d1", after="d2", removes=("port = 8080",),
                           adds=("port = 9090",))
    whole = SubtaskRecord(spec=spec, called=("write_file",), changed={"server.conf": rewritten})
    assert not missing(whole, files)  # the rewrite holds the replacement
    # a part edited, a workbook replaced (no text diffed) or the file left as it was: the edit is still demanded
    appended = replace(whole, changed={"server.conf": rewritten.model_copy(update={"change": "edit"})})
    assert missing(appended, files).tools == ("replace_text",)
    untold = replace(whole, changed={"server.conf": rewritten.model_copy(update={"removes": (), "adds": ()})})
    assert missing(untold, files).tools == ("replace_text",)
    same = replace(whole, changed={"server.conf": rewritten.model_copy(update={"after": "d1"})})
    assert "replace_text" in missing(same, files).tools
    # and only for the files it declares: one of two rewritten leaves the edit demanded
    two = replace(whole, spec=spec.model_copy(update={"writes": ("server.conf", "client.conf")}), changed={
        "server.conf": rewritten, "client.conf": rewritten.model_copy(update={"path": "client.conf",
                                                                              "change": "edit"})})
    assert missing(two, files).tools == ("replace_text",)


def test_a_finish_after_a_failed_change_of_a_declared_write_is_questioned() -> None:
    made = EffectView(path="budget.xlsx", change="create", after="d1")
    rows = {"path": "budget.xlsx", "rows": ROWS}
    charted = made.model_copy(update={"change": "add", "before": "d1", "after": "d2"})
    wrote = remember(record(), [], [
        ActionResult(function="write_rows", arguments=rows, ok=True, changes=(made,)),
        ActionResult(function="add_chart", arguments={"path": "budget.xlsx"}, ok=True, changes=(charted,))])
    assert not missing(wrote, SHEETS)
    # then it tried to write other rows into it and failed: the last word on budget.xlsx is a failure
    other = {"path": "budget.xlsx", "rows": [["Total", 120]]}
    again = remember(wrote, [], [ActionResult(function="write_rows", arguments=other, ok=False,
                                              error="'budget.xlsx' already exists")])
    lacking = missing(again, SHEETS)
    assert lacking.unsettled == ("budget.xlsx",) and not lacking.only_soft
    assert "your last call to change budget.xlsx failed (write_rows: 'budget.xlsx' already exists)" in lacking.text()
    # a successful change after it settles it; a failed read says nothing about the file
    rewritten = made.model_copy(update={"before": "d2", "after": "d3"})
    settled = remember(again, [], [ActionResult(function="write_rows", arguments=other, ok=True,
                                                changes=(rewritten,))])
    assert not missing(settled, SHEETS)
    read = remember(wrote, [], [ActionResult(function="read_sheet", arguments={"path": "budget.xlsx"}, ok=False,
                                             error="no such sheet", read_only=True)])
    assert not missing(read, SHEETS).unsettled
    # the very call that succeeded, failing when made again, asked for work that is done
    twice = remember(wrote, [], [ActionResult(function="add_chart", arguments={"path": "budget.xlsx"}, ok=False,
                                              error="the chart is there already")])
    assert not missing(twice, SHEETS)
    # a tool the plan did not declare, failing once every declared one succeeded, was other work tried here
    stray = {"path": "budget.xlsx", "cell": "B2", "value": "Friday"}
    cells = replace(SHEETS, tools=(*SHEETS.tools, ToolInfo("set_cell", False)))
    extra = remember(wrote, [], [ActionResult(function="set_cell", arguments=stray, ok=False, error="no sheet")])
    assert not missing(extra, cells).unsettled
    # ... but while a declared one is still to succeed, it is the last word on the file
    half = remember(record(), [], [
        ActionResult(function="write_rows", arguments=rows, ok=True, changes=(made,)),
        ActionResult(function="set_cell", arguments=stray, ok=False, error="no sheet")])
    assert missing(half, cells).unsettled == ("budget.xlsx",)
    # a sheet added empty, failing because the call before it made that sheet (a sort into it): nothing unsettled
    sheets = replace(SHEETS, tools=(*SHEETS.tools, ToolInfo("add_sheet", False, empty_part=True)))
    added = remember(wrote, [], [ActionResult(function="add_sheet", arguments={"path": "budget.xlsx", "name": "Top"},
                                              ok=False, error="the workbook already has a sheet named 'Top'")])
    assert not missing(added, sheets).unsettled


def test_a_failed_change_that_a_later_call_of_its_tool_did_instead_is_that_work_done() -> None:
    wrong, right = {"path": "budget.xlsx", "sheet": "Hours Fee"}, {"path": "budget.xlsx", "sheet": "Hours"}
    totals = EffectView(path="budget.xlsx", change="add", before="d1", after="d2")
    failed = remember(record(), [], [ActionResult(function="add_totals_row", arguments=wrong, ok=False,
                                                  error="no sheet named 'Hours Fee'")])
    fixed = remember(failed, [], [ActionResult(function="add_totals_row", arguments=right, ok=True,
                                               changes=(totals,))])
    assert fixed.corrected == (call_key("add_totals_row", wrong),)
    # proposed again, the failed call is not run: the later call did its work, and a FINISH after it stands
    proposed = CallFacts(function="add_totals_row", arguments=wrong,
                         effects=(EffectView(path="budget.xlsx", change="add"),))
    again = decide(answer("FINISH", 0), [proposed], fixed, active=frozenset(), created=(), protected=())
    assert again.run == () and again.skipped[0][2] and "a later call on the same file succeeded" in again.skipped[0][1]
    refailed = remember(fixed, [], [ActionResult(function="add_totals_row", arguments=wrong, ok=False,
                                                 error="no sheet named 'Hours Fee'")])
    assert not missing(refailed, SHEETS).unsettled
    # a call of the same tool that differs in two arguments is other work: its failure still counts
    cell = {"path": "budget.xlsx", "cell": "B2", "value": 5}
    other = remember(record(), [], [ActionResult(function="set_cell", arguments=cell, ok=False, error="bad cell")])
    other = remember(other, [], [ActionResult(function="set_cell", arguments={**cell, "cell": "C3", "value": 7},
                                              ok=True, changes=(totals,))])
    assert other.corrected == ()


def test_a_call_its_application_said_would_change_nothing_is_done_by_another_tool_that_changed_its_file() -> None:
    """write_file refused for a file that exists (its declared effects: none), then replace_text edits that file:
    the declared write_file is not work left; a call that was to change something and failed still is."""
    conf = SubtaskSpec(id="1", description="edit", application="files", reads=("server.conf",),
                       writes=("server.conf",), tools=("write_file",))
    whole = {"path": "server.conf", "content": "port = 9090\n"}
    refused = CallFacts(function="write_file", arguments=whole, effects=(), taken=True)
    tried = remember(SubtaskRecord(spec=conf), [refused], [ActionResult(
        function="write_file", arguments=whole, ok=False, error="'server.conf' already exists")])
    assert tried.inert == (call_key("write_file", whole),)
    edit = {"path": "server.conf", "find": "8080", "replace_with": "9090"}
    edited = EffectView(path="server.conf", change="edit", before="d1", after="d2")
    done = remember(tried, [], [ActionResult(function="replace_text", arguments=edit, ok=True, changes=(edited,))])
    files = AppInfo("files", tools=(ToolInfo("write_file", False), ToolInfo("replace_text", False)))
    assert done.corrected == (call_key("write_file", whole),) and not missing(done, files)
    # a failure that was not that refusal (a chart over an empty range) is still the declared tool's work left
    meant = remember(SubtaskRecord(spec=conf), [refused.model_copy(update={"taken": False})], [ActionResult(
        function="write_file", arguments=whole, ok=False, error="disk full")])
    after = remember(meant, [], [ActionResult(function="replace_text", arguments=edit, ok=True, changes=(edited,))])
    assert missing(after, files).failed == ("write_file",)


def test_a_writer_is_asked_once_about_data_handed_to_it_that_none_of_its_changes_holds() -> None:
    from podium.desktop.blackboard import ArtifactEntry

    spec = SubtaskSpec(id="2", description="list them", application="files", writes=("dups.txt",),
                       tools=("write_file",), depends_on=("1",))
    given = [ArtifactEntry(name="1.read_sheet", kind="table", value=[["Name"], ["Ana Ruiz"], ["Tom Hale"]]),
             ArtifactEntry(name="1.read_sheet.repeated_rows", kind="table", value=[["Name"], ["Ana Ruiz"]])]
    made = EffectView(path="dups.txt", change="create", after="d1")

    def wrote(content: str) -> SubtaskRecord:
        return remember(SubtaskRecord(spec=spec), [], [ActionResult(
            function="write_file", arguments={"path": "dups.txt", "content": content}, ok=True, changes=(made,))])

    listing = missing(wrote("members.xlsx\n"), None, given)
    assert listing.unhanded == ("1",) and listing.asked_once and listing.only_soft and not listing.work
    assert "nothing of the data subtask 1 handed you went into your changes" in listing.text()
    assert not missing(wrote("Ana Ruiz\n"), None, given)
    assert not missing(wrote("members.xlsx\n"), None)  # nothing handed: nothing to ask
    # what a result repeats of its call's arguments (the path it read) is no data taken from the file
    echo = ArtifactEntry(name="1.read_sheet.path", kind="text", value="members.xlsx",
                         source='read_sheet({"path": "members.xlsx"})')
    assert missing(wrote("List the duplicate rows in members.xlsx"), None, [*given, echo]).unhanded == ("1",)
    # nor a value of the result found only in the name of the file read that the text names (the sheet Members)
    sheet = ArtifactEntry(name="1.read_sheet.sheet", kind="text", value="Members",
                          source='read_sheet({"path": "members.xlsx"})')
    assert missing(wrote("List the duplicate rows in members.xlsx"), None, [*given, sheet]).unhanded == ("1",)
    assert not missing(wrote("Members: Ana Ruiz"), None, [*given, sheet]).unhanded
    # nor is a value found in the name of the file written into ('name' in names_list.txt)
    named = spec.model_copy(update={"writes": ("names_list.txt",)})
    into = remember(SubtaskRecord(spec=named), [], [ActionResult(
        function="write_file", arguments={"path": "names_list.txt", "content": "members.xlsx"}, ok=True,
        changes=(EffectView(path="names_list.txt", change="create", after="d1"),))])
    assert missing(into, None, given).unhanded == ("1",)
    # held to the handed data (rule unhanded-is-failure), a writer with no source of its own lacks the work
    held = missing(wrote("members.xlsx\n"), None, given, hold_handed=True)
    assert held.handed_only and held.asked_once and not held.only_soft and held.work.unhanded == ("1",)
    # one that wrote a value the person set in quotation marks took it from their words: still only asked
    quoted = missing(wrote("Room 4B"), None, given, hold_handed=True, hold_data=True,
                     request="Put 'Room 4B' into dups.txt")
    assert quoted.unhanded == ("1",) and not quoted.handed_only and not quoted.nothing and not quoted.work
    # one that declares a source of its own may have written from it: still only asked
    reader = SubtaskRecord(spec=spec.model_copy(update={"reads": ("members.xlsx",)}))
    own = remember(reader, [], [ActionResult(function="write_file", arguments={"path": "dups.txt",
                                                                               "content": "members.xlsx\n"},
                                             ok=True, changes=(made,))])
    assert not missing(own, None, given, hold_handed=True).work
    # a table handed on from another file, none of it taken, where the changes took the writer's own source:
    # a merge that left the handed table out, work not done; handed from its own source, the same data
    team = [["Name", "Office"], ["Ines", "Lisbon"]]
    merger = SubtaskRecord(spec=spec.model_copy(update={"reads": ("a.xlsx",), "writes": ("all.xlsx",),
                                                        "tools": ("write_rows",)}))
    read_a = ActionResult(function="read_sheet", arguments={"path": "a.xlsx"}, ok=True, read_only=True,
                          content={"path": "a.xlsx", "rows": team})
    merged = remember(remember(merger, [], [read_a]), [], [ActionResult(
        function="write_rows", arguments={"path": "all.xlsx", "rows": team}, ok=True,
        changes=(EffectView(path="all.xlsx", change="create", after="d1"),))])
    csv_rows = [ArtifactEntry(name="1.read_csv.rows", kind="table", value=[["Name", "Office"], ["Maya", "Porto"]],
                              source='read_csv({"path": "b.csv"})')]
    left_out = missing(merged, None, csv_rows, handed_from=("b.csv",))
    assert left_out.unhanded == ("1",) and left_out.untaken and not left_out.only_soft
    assert left_out.work.unhanded == ("1",)
    assert not missing(merged, None, csv_rows, handed_from=("a.xlsx",)).untaken
    assert not missing(merged, None, csv_rows).untaken  # where it came from not known: asked once
    # the same of its own reads: a text that only names the file it read took nothing of its data
    csv = ActionResult(function="read_csv", arguments={"path": "members.csv"}, ok=True, read_only=True,
                       content={"path": "members.csv", "rows": [["Name"], ["Ana Ruiz"]]})
    from_csv = SubtaskRecord(spec=spec.model_copy(update={"reads": ("members.csv",), "depends_on": ()}))

    def wrote_from_csv(content: str) -> SubtaskRecord:
        return remember(remember(from_csv, [], [csv]), [], [ActionResult(
            function="write_file", arguments={"path": "dups.txt", "content": content}, ok=True, changes=(made,))])

    assert missing(wrote_from_csv("The duplicates of members.csv"), None).unused == ("members.csv",)
    assert not missing(wrote_from_csv("Ana Ruiz"), None)
    # held to its data (rule nothing-taken-is-failure), a writer whose changes hold nothing of any data it had,
    # handed or its own, lacks the work; one that took from any of it, or computed, is only asked
    for record, handed in ((wrote("members.xlsx\n"), given), (own, given),
                           (wrote_from_csv("The duplicates of members.csv"), [])):
        held = missing(record, None, handed, hold_data=True)
        assert held.nothing and not held.only_soft and held.work == held, record.spec
        assert "holds nothing of any data you had" in held.text()
        assert not missing(record, None, handed).nothing  # without the rule: a question, believed after
    assert not missing(wrote("Ana Ruiz\n"), None, given, hold_data=True)
    both = remember(remember(SubtaskRecord(spec=spec.model_copy(update={"reads": ("members.csv",)})), [], [csv]),
                    [], [ActionResult(function="write_file", arguments={"path": "dups.txt", "content": "Ana Ruiz"},
                                      ok=True, changes=(made,))])
    assert not missing(both, None, given, hold_data=True).nothing  # it took from its own source
    counting = AppInfo("files", "", (), (ToolInfo("write_file", False), ToolInfo("count_rows", True, computes=True)))
    counted = remember(remember(from_csv, [], [ActionResult(function="count_rows", arguments={"path": "members.csv"},
                                                            ok=True, read_only=True, content={"count": 7})]), [],
                       [ActionResult(function="write_file", arguments={"path": "dups.txt", "content": "yes"},
                                     ok=True, changes=(made,))])
    assert not missing(counted, counting, hold_data=True).nothing  # what a tool computed need not show
    # where nothing of its data went in, its application's computing tools it never called are named
    uncounted = missing(wrote_from_csv("The duplicates of members.csv"), counting, hold_data=True)
    assert uncounted.computers == ("count_rows",)
    assert uncounted.text().endswith("count_rows computes figures of a file's data (a sum, a count): write what "
                                     "it returns, by reference")
    assert "count_rows" not in missing(wrote_from_csv("Ana Ruiz"), counting).text()


TEXT_WRITE = json.dumps({"type": "object", "properties": {"path": {"type": "string"}, "content": {
    "type": "string", "contentMediaType": "text/plain"}}})
# a listing of the files a pattern matches, written by the tool itself: no argument takes data
NAMES_WRITE = json.dumps({"type": "object", "properties": {"into": {"type": "string"}, "path": {"type": "string"},
                                                           "pattern": {"type": "string"}}})


def test_a_computing_tool_that_ran_only_after_the_writers_last_change_is_work_not_done() -> None:
    files = AppInfo("files", "", (), (ToolInfo("write_file", False, TEXT_WRITE),
                                      ToolInfo("column_totals", True, computes=True)))
    spec = SubtaskSpec(id="2", description="Write the total", application="files", reads=("hours.csv",),
                       writes=("hours.txt",), tools=("write_file", "column_totals"))
    label = {"path": "hours.txt", "content": "Total hours: "}
    wrote = remember(SubtaskRecord(spec=spec), [], [ActionResult(
        function="write_file", arguments=label, ok=True,
        changes=(EffectView(path="hours.txt", change="create", after="d1"),))])
    totals = {"path": "hours.csv"}
    computed = remember(wrote, [], [ActionResult(
        function="column_totals", arguments=totals, ok=True, read_only=True,
        content={"columns": {"Hours": {"sum": 33.25, "count": 5, "mean": 6.65}}})])
    late = missing(computed, files)
    assert late.late == ("column_totals",) and late.asked_once and not late.only_soft and late.work
    assert "column_totals ran after your last change, and nothing it computed is in your changes" in late.text()
    # written after it, its number settles it; computed before the change that holds it, nothing is asked
    settled = remember(computed, [], [ActionResult(
        function="write_file", arguments={**label, "content": "Total hours: 33.25"}, ok=True,
        changes=(EffectView(path="hours.txt", change="replace", before="d1", after="d2"),))])
    assert not missing(settled, files).late
    assert not missing(wrote, files).late
    # a computing tool its plan did not declare, called after the last change, computed what the file still lacks
    undeclared = replace(computed, spec=spec.model_copy(update={"tools": ("write_file",)}))
    assert missing(undeclared, files).late == ("column_totals",) and not missing(undeclared, files).only_soft
    # before a change, an undeclared computation may have only guided it: nothing to ask
    first = remember(remember(SubtaskRecord(spec=undeclared.spec), [], [ActionResult(
        function="column_totals", arguments=totals, ok=True, read_only=True,
        content={"columns": {"Hours": {"sum": 33.25}}})]), [], [ActionResult(
            function="write_file", arguments={**label, "content": "Hours are over budget"}, ok=True,
            changes=(EffectView(path="hours.txt", change="create", after="d1"),))])
    assert not missing(first, files).late and not missing(first, files).unwritten


def test_a_computation_after_changes_whose_content_their_tools_made_is_asked_about_once() -> None:
    files = AppInfo("files", "", (), (ToolInfo("write_file_names", False, NAMES_WRITE, writes_names=True),
                                      ToolInfo("column_totals", True, computes=True)))
    spec = SubtaskSpec(id="2", description="List the files of 2022", application="files", reads=("exports",),
                       writes=("list.txt",), tools=("write_file_names",))
    listed = remember(SubtaskRecord(spec=spec), [], [ActionResult(
        function="write_file_names", arguments={"into": "list.txt", "path": "exports", "pattern": "2022*"}, ok=True,
        changes=(EffectView(path="list.txt", change="create", after="d1"),))])
    looked = remember(listed, [], [ActionResult(
        function="column_totals", arguments={"path": "exports/2022-01.csv"}, ok=True, read_only=True,
        content={"columns": {"visits": {"sum": 301, "count": 1}}})])
    # the listing is the tool's own work: no figure was left for the model to type, so the later look is a
    # question asked once, and a FINISH that stands by it is believed
    found = missing(looked, files)
    assert found.unwritten == ("column_totals",) and not found.late
    assert found.asked_once and found.only_soft and not found.work


def test_a_computation_none_of_whose_values_a_later_change_holds_is_asked_about_once() -> None:
    files = AppInfo("files", "", (), (ToolInfo("write_file", False), ToolInfo("column_totals", True, computes=True)))
    spec = SubtaskSpec(id="2", description="Write the total", application="files", reads=("hours.csv",),
                       writes=("hours.txt",), tools=("write_file", "column_totals"))
    computed = remember(SubtaskRecord(spec=spec), [], [ActionResult(
        function="column_totals", arguments={"path": "hours.csv"}, ok=True, read_only=True,
        content={"path": "hours.csv", "columns": {"Hours": {"column": "C", "sum": 33.25, "mean": 6.65}}})])

    def wrote(content: str) -> SubtaskRecord:
        return remember(computed, [], [ActionResult(
            function="write_file", arguments={"path": "hours.txt", "content": content}, ok=True,
            changes=(EffectView(path="hours.txt", change="create", after="d1"),))])

    label = missing(wrote("The total hours in hours.csv is "), files)
    assert label.unwritten == ("column_totals",) and not label.late
    # a figure may only have guided the change: asked once, then believed (it is no lack of declared work)
    assert label.asked_once and label.only_soft and not label.work
    assert "nothing column_totals computed is in your changes" in label.text()
    assert not missing(wrote("Total hours: 33.25"), files)
    # a short number computed is found as a whole word, not inside another
    counted = remember(SubtaskRecord(spec=spec), [], [ActionResult(
        function="column_totals", arguments={"path": "hours.csv"}, ok=True, read_only=True,
        content={"columns": {"Hours": {"count": 5, "sum": 33.25}}})])
    five = remember(counted, [], [ActionResult(function="write_file", arguments={"path": "hours.txt", "content": "5"},
                                               ok=True, changes=(EffectView(path="hours.txt", change="create"),))])
    assert not missing(five, files)
    fifty = remember(counted, [], [ActionResult(function="write_file", arguments={"path": "hours.txt",
                                                                                  "content": "50 hours"},
                                                ok=True, changes=(EffectView(path="hours.txt", change="create"),))])
    assert missing(fifty, files).unwritten == ("column_totals",)
    # what the result repeats of its call (the path it read) is no computed value
    assert missing(wrote("hours.csv"), files).unwritten == ("column_totals",)


def test_the_workspace_as_a_write_is_shown_by_a_programs_actions_not_by_a_file() -> None:
    dialog = AppInfo("dialog", "", (), (ToolInfo("observe", True), ToolInfo("set_text", False, names_its_writes=False),
                                        ToolInfo("click", False, names_its_writes=False)))
    spec = SubtaskSpec(id="1", description="Fill in the form and confirm it", application="dialog", writes=(".",),
                       tools=("set_text", "click"))
    confirmed = SubtaskRecord(spec=spec, called=("set_text", "click"))
    assert not missing(confirmed, dialog)
    # nothing done in the program: the workspace is unchanged, and so is the program
    assert missing(SubtaskRecord(spec=spec), dialog).writes == (".",)


def test_a_program_that_ended_with_a_failure_status_did_not_do_its_work() -> None:
    dialog = AppInfo("dialog", "", (), (ToolInfo("observe", True), ToolInfo("set_text", False, names_its_writes=False),
                                        ToolInfo("click", False, names_its_writes=False)))
    spec = SubtaskSpec(id="1", description="Set the slider to 65 and confirm", application="dialog", writes=(".",),
                       tools=("set_text", "click"))
    slider = remember(SubtaskRecord(spec=spec), [], [ActionResult(
        function="set_text", arguments={"control": 3, "text": "65"}, ok=True, content={"value": 65})])

    def clicked(status: int) -> SubtaskRecord:
        return remember(slider, [], [ActionResult(function="click", arguments={"control": 5}, ok=True,
                                                  content={"control": 5, "windows": [], ENDED: status})])
    cancelled = clicked(1)
    assert cancelled.ended == 1
    lacking = missing(cancelled, dialog)
    assert lacking.ended == 1 and not lacking.only_soft and not lacking.asked_once
    assert "ended with exit status 1" in lacking.text()
    assert not missing(clicked(0), dialog)  # confirmed
    assert slider.ended is None and not missing(slider, dialog).ended  # it runs on
    # a status another subtask's program reported is its own, and one that did not act in it is not judged
    assert not missing(replace(cancelled, called=()), dialog).ended


def test_a_change_that_took_columns_its_subtask_does_not_name_beside_some_it_does_is_asked_about() -> None:
    charts = AppInfo("spreadsheets", "", (".xlsx",), (ToolInfo("add_chart", False),))
    spec = SubtaskSpec(id="1", description="Create a line chart in regions.xlsx of the North and West columns",
                       application="spreadsheets", reads=("regions.xlsx",), writes=("regions.xlsx",),
                       tools=("add_chart",))
    added = EffectView(path="regions.xlsx", change="add", before="d1", after="d2")

    def charted(*columns: str, after: SubtaskRecord | None = None) -> SubtaskRecord:
        return remember(after or SubtaskRecord(spec=spec), [], [ActionResult(
            function="add_chart", arguments={"path": "regions.xlsx", "data": "A1:E5"}, ok=True, changes=(added,),
            content={"path": "regions.xlsx", TOOK_COLUMNS: list(columns)})])
    every = charted("North", "West", "South", "East")
    lacking = missing(every, charts)
    assert lacking.columns == (("add_chart", ("North", "West", "South", "East"), ("North", "West")),)
    assert lacking.only_soft and lacking.asked_once and not lacking.work
    assert "add_chart took the columns North, West, South, East, of which your subtask names only North, West" \
        in lacking.text()
    # made again over the named ones (the latest call of the tool on the file counts), or a description that
    # names all of them, or none (a chart of the table): nothing to ask
    assert not missing(charted("North", "West", after=every), charts)
    assert not missing(replace(every, spec=spec.model_copy(update={"description": "Chart regions.xlsx"})), charts)
    assert not missing(charted("North", "West"), charts)
    # a name within a text the call was given (the chart's title) refers to no column; quoted on its own, it does
    titled = remember(SubtaskRecord(spec=spec.model_copy(update={
        "description": "Create a bar chart titled 'North vs South' of the table's columns"})), [], [ActionResult(
            function="add_chart", arguments={"path": "regions.xlsx", "title": "North vs South"}, ok=True,
            changes=(added,), content={TOOK_COLUMNS: ["North", "West", "South", "East"]})])
    assert not missing(titled, charts)
    # a title that is a column's own name is that column's: the description's words name it
    named = remember(SubtaskRecord(spec=spec.model_copy(update={
        "description": "Add a bar chart of the South column of regions.xlsx"})), [], [ActionResult(
            function="add_chart", arguments={"path": "regions.xlsx", "title": "South"}, ok=True,
            changes=(added,), content={TOOK_COLUMNS: ["North", "West", "South", "East"]})])
    assert missing(named, charts).columns == (("add_chart", ("North", "West", "South", "East"), ("South",)),)
    quoted = spec.model_copy(update={"description": "Chart the 'North' and 'West' columns of regions.xlsx"})
    assert missing(replace(every, spec=quoted), charts).columns


def test_a_change_proposed_again_after_a_later_failure_on_its_file_settles_that_file() -> None:
    """write_file succeeded, a copy onto the same file failed (the last word on it), then the agent proposed the
    write again (skipped: done): it stands by what the file holds, and the failure no longer unsettles it."""
    spec = SubtaskSpec(id="2", description="list", application="files", writes=("tasks.txt",), depends_on=("1",))
    files = AppInfo("files", tools=(ToolInfo("write_file", False), ToolInfo("copy_or_move", False)))
    text = {"path": "tasks.txt", "content": "Draft\nInvite\n"}
    written = EffectView(path="tasks.txt", change="create", after="d1")
    wrote = remember(SubtaskRecord(spec=spec), [], [ActionResult(function="write_file", arguments=text, ok=True,
                                                                 changes=(written,))])
    onto = {"source": "kickoff.docx", "destination": "tasks.txt"}
    failed = remember(wrote, [], [ActionResult(function="copy_or_move", arguments=onto, ok=False,
                                               error="not a folder")])
    assert missing(failed, files).unsettled == ("tasks.txt",)
    again = CallFacts(function="write_file", arguments=text, effects=(EffectView(path="tasks.txt", change="keep"),))
    decision = decide(answer("FINISH", 0), [again], failed, active=frozenset(), created=(), protected=())
    assert decision.skipped[0][2]
    assert not missing(reaffirmed(failed, [again], decision), files).unsettled
    # a proposal that does not repeat a change of that file settles nothing
    other = CallFacts(function="write_file", arguments={"path": "x.txt", "content": "a"}, effects=())
    skipped = decide(answer("FINISH", 0), [other], failed, active=frozenset(), created=(), protected=())
    assert reaffirmed(failed, [other], skipped) is failed
    # a tool its plan declared that failed stays the work it was declared for (a chart over the rows written)
    declared = replace(failed, spec=spec.model_copy(update={"tools": ("write_file", "copy_or_move")}))
    assert reaffirmed(declared, [again], decision) is declared
    # the change made again in other words, which the application finds already made (the file as it was), stands
    # by the file the same way; one that changes the file again is new work, and settles nothing it did not do
    kept = ActionResult(function="write_file", arguments={**text, "overwrite": True}, ok=True,
                        changes=(EffectView(path="tasks.txt", change="replace", before="d1", after="d1"),))
    assert not missing(remember(failed, [], [kept]), files).unsettled
    assert missing(remember(declared, [], [kept]), files).unsettled == ("tasks.txt",)
    elsewhere = kept.model_copy(update={"arguments": {"path": "other.txt", "content": "x"}, "changes": (
        EffectView(path="other.txt", change="replace", before="d2", after="d2"),)})
    assert missing(remember(failed, [], [elsewhere]), files).unsettled == ("tasks.txt",)


def test_the_verifier_asks_once_about_a_text_file_typed_again_line_for_line_into_another() -> None:
    spec = SubtaskSpec(id="1", description="Write the refund lines of notes.txt into refunds.txt",
                       application="files", reads=("notes.txt",), writes=("refunds.txt",), tools=("write_file",))
    files = AppInfo("files", "", (), (ToolInfo("read_file", True), ToolInfo("write_file", False),
                                      ToolInfo("write_matching_lines", False, reshapes=True)))
    text = "03-01 Refund for order 12\n03-02 Password reset\n03-03 Refund of 4.50\n"
    read = ActionResult(function="read_file", arguments={"path": "notes.txt"}, ok=True, read_only=True,
                        content={"path": "notes.txt", "content": text})

    def wrote(content: str) -> ActionResult:
        return ActionResult(function="write_file", arguments={"path": "refunds.txt", "content": content}, ok=True,
                            changes=(EffectView(path="refunds.txt", change="create", after="d1"),))

    seen = remember(SubtaskRecord(spec=spec), [], [read])
    lacking = missing(remember(seen, [], [wrote(text)]), files)
    assert lacking.copied == (("refunds.txt", "notes.txt"),) and lacking.only_soft
    assert lacking.text().startswith("what your calls wrote into refunds.txt is the table of notes.txt, row for row "
                                     "in the same order: a copy, nothing new. If your subtask orders, filters, "
                                     "splits or computes those rows, do that with write_matching_lines")
    # some of its lines, or one line: new there
    assert not missing(remember(seen, [], [wrote("03-01 Refund for order 12\n03-03 Refund of 4.50\n")]), files)
    assert not missing(remember(seen, [], [wrote("3")]), files).copied


def test_the_verifier_asks_once_about_a_table_copied_as_it_was_into_the_file_it_came_from() -> None:
    scores = [["Name", "Score"], ["Dana", 71], ["Ben", 88], ["Farid", 93]]
    spec = SubtaskSpec(id="2", description="Add a sheet named Ranking", application="spreadsheets",
                       reads=("scores.xlsx",), writes=("scores.xlsx",), tools=("add_sheet", "read_sheet"))
    into = AppInfo("spreadsheets", "", (".xlsx",), (*SHEETS.tools, ToolInfo("add_sheet", False, empty_part=True),
                                                    ToolInfo("sort_rows", False, json.dumps(
        {"type": "object", "properties": {"target_sheet": {"type": "string", INTO_PART: True}}}), reshapes=True)))
    read = ActionResult(function="read_sheet", arguments={"path": "scores.xlsx", "sheet": "Sheet1"}, ok=True,
                        read_only=True, content=[["Scores 2024"], [], *scores])

    def wrote(rows: list[list[Any]], path: str = "scores.xlsx", sheet: str = "Ranking") -> ActionResult:
        return ActionResult(function="write_rows", arguments={"path": path, "sheet": sheet, "rows": rows}, ok=True,
                            changes=(EffectView(path=path, change="edit", before="d1", after="d2"),))

    seen = remember(SubtaskRecord(spec=spec), [], [read])
    # the rows under the title, typed again in their order (numbers as text too), into another sheet of the file
    copied = remember(seen, [], [wrote([[str(c) for c in r] for r in scores])])
    lacking = missing(copied, into)
    assert lacking.copied == (("scores.xlsx", "scores.xlsx"),)
    assert lacking.asked_once and lacking.only_soft and not lacking.work
    assert lacking.text() == ("what your calls wrote into scores.xlsx is a table it holds already, row for row in the "
                              "same order: a copy, nothing new. If your subtask orders, filters, splits or computes "
                              "those rows, do that with sort_rows; sort_rows (by target_sheet) write a table into a "
                              "sheet they name")
    # the application's tools that compute from a table are the other way to make something new of it
    counting = replace(into, tools=(*into.tools, ToolInfo("find_duplicates", True, computes=True)))
    assert "do that with sort_rows, find_duplicates;" in missing(copied, counting).text()
    # the rows in another order, or some of them: new data there
    ranked = [scores[0], scores[3], scores[2], scores[1]]
    assert not missing(remember(seen, [], [wrote(ranked)]), into).copied
    assert not missing(remember(seen, [], [wrote(scores[:3])]), into).copied
    # the copy sorted in place after it: the sort has the last word on that sheet, not the copy; the copy typed
    # again over the sort has it again
    sort = ActionResult(function="sort_rows", arguments={"path": "scores.xlsx", "sheet": "Ranking", "by": "Score",
                                                         "order": "descending"}, ok=True,
                        changes=(EffectView(path="scores.xlsx", change="edit", before="d2", after="d3"),))
    sorted_after = remember(copied, [], [sort])
    assert not missing(sorted_after, into).copied
    retyped = wrote([[str(c) for c in r] for r in scores]).model_copy(update={
        "arguments": {"path": "scores.xlsx", "sheet": "Ranking", "rows": scores, "start": "A1"},
        "changes": (EffectView(path="scores.xlsx", change="edit", before="d3", after="d4"),)})
    undone = missing(remember(sorted_after, [], [retyped]), into)
    assert undone.copied == (("scores.xlsx", "scores.xlsx"),)
    # typed again over the sort, it undid the sort: work undone, not a question a FINISH again answers
    assert undone.undone == (("scores.xlsx", "sort_rows"),) and not undone.only_soft and undone.work
    assert "typed again over what sort_rows had made of it: that undid its work; call sort_rows again" in undone.text()
    assert not missing(copied, into).undone and not missing(sorted_after, into).undone
    # a later change of another sheet of the file leaves the copy the last word on its own
    elsewhere = sort.model_copy(update={"arguments": {**sort.arguments, "sheet": "Sheet1"}})
    assert missing(remember(copied, [], [elsewhere]), into).copied
    # typed again into another workbook, read there or handed on from a reader: a copy of scores.xlsx
    other = replace(seen, spec=spec.model_copy(update={"writes": ("ranking.xlsx",)}))
    assert missing(remember(other, [], [wrote(scores, "ranking.xlsx", "Sheet1")]), into).copied == (
        ("ranking.xlsx", "scores.xlsx"),)
    handed = ArtifactEntry(name="1.read_sheet.rows", kind="table", value=scores,
                           source='read_sheet({"path": "scores.xlsx"})')
    writer = SubtaskRecord(spec=spec.model_copy(update={"reads": (), "writes": ("ranking.xlsx",),
                                                        "depends_on": ("1",)}))
    lacking = missing(remember(writer, [], [wrote(scores, "ranking.xlsx", "Sheet1")]), into, [handed])
    assert lacking.copied == (("ranking.xlsx", "scores.xlsx"),) and lacking.only_soft
    assert lacking.text().startswith("what your calls wrote into ranking.xlsx is the table of scores.xlsx, row for "
                                     "row in the same order: a copy, nothing new.")
    assert not missing(remember(writer, [], [wrote(ranked, "ranking.xlsx", "Sheet1")]), into, [handed]).copied
    # into a file of another type it is new there: a conversion (a CSV's rows into a workbook)
    csv = handed.model_copy(update={"source": 'read_csv({"path": "scores.csv"})'})
    assert not missing(remember(writer, [], [wrote(scores, "ranking.xlsx", "Sheet1")]), into, [csv]).copied
    # a read of the sheet the change wrote (a check of it) is not its source; a read of the source after the
    # change (the next step's observation) still is
    back = ActionResult(function="read_sheet", arguments={"path": "scores.xlsx", "sheet": "Ranking"}, ok=True,
                        read_only=True, content=scores)
    assert not missing(remember(remember(SubtaskRecord(spec=spec), [], [wrote(scores)]), [], [back]), into).copied
    assert missing(remember(remember(SubtaskRecord(spec=spec), [], [wrote(scores)]), [], [read]), into).copied
    # a read that names no sheet reads the active one, which its result says: the written sheet is no source
    # (a workbook of one sheet written, then observed), another is
    def active(sheet: str) -> ActionResult:
        return ActionResult(function="read_sheet", arguments={"path": "scores.xlsx"}, ok=True, read_only=True,
                            content={"path": "scores.xlsx", "sheet": sheet, "rows": scores})

    written = remember(SubtaskRecord(spec=spec), [], [wrote(scores)])
    assert not missing(remember(written, [], [active("Ranking")]), into).copied
    assert missing(remember(written, [], [active("Sheet1")]), into).copied == (("scores.xlsx", "scores.xlsx"),)
    # a change that names no part wrote where a read that names none reads (the active sheet)
    again = read.model_copy(update={"arguments": {"path": "scores.xlsx"}})
    unnamed = wrote(scores).model_copy(update={"arguments": {"path": "scores.xlsx", "rows": scores}})
    assert not missing(remember(remember(SubtaskRecord(spec=spec), [], [unnamed]), [], [again]), into).copied
    # where the result of a change that names no part says where it wrote (the sheet just added, now the active
    # one), that part is what it names: the rows a read of another sheet gave, copied there, are a copy
    def landed(sheet: str) -> ActionResult:
        return unnamed.model_copy(update={"content": {"path": "scores.xlsx", "sheet": sheet, "range": "A1:B4"}})

    source = active("Scores").model_copy(update={"content": {"path": "scores.xlsx", "sheet": "Scores",
                                                             "range": "A1:B4", "rows": scores}})
    assert missing(remember(remember(SubtaskRecord(spec=spec), [], [source]), [], [landed("Ranking")]),
                   into).copied == (("scores.xlsx", "scores.xlsx"),)
    assert not missing(remember(remember(SubtaskRecord(spec=spec), [], [source]), [], [landed("Scores")]),
                       into).copied
    assert not missing(remember(remember(SubtaskRecord(spec=spec), [], [source]), [], [
        landed("Ranking").model_copy(update={"arguments": {"path": "scores.xlsx", "rows": ranked}})]), into).copied


def test_a_part_of_a_file_the_subtask_names_and_its_reads_left_out_is_work_not_done() -> None:
    """The active sheet read where the description names another: what it hands on is the wrong table."""
    spec = SubtaskSpec(id="1", description="Read the Archive sheet of crm.xlsx", application="spreadsheets",
                       reads=("crm.xlsx",), tools=("read_sheet",), hands_on=HandsOn.TABLE)

    def read(sheet: str, others: list[str]) -> ActionResult:
        arguments = {"path": "crm.xlsx", **({"sheet": sheet} if sheet != "Active" else {})}
        return ActionResult(function="read_sheet", arguments=arguments, ok=True, read_only=True,
                            content={"path": "crm.xlsx", READ_PART: sheet, "rows": [["Customer"], ["Vega SA"]],
                                     OTHER_PARTS: others})

    active = remember(SubtaskRecord(spec=spec), [], [read("Active", ["Archive", "Notes"])])
    lacking = missing(active, SHEETS)
    assert lacking.unread == ("'Archive' of crm.xlsx",) and not lacking.only_soft and lacking.work.unread
    assert "your subtask names 'Archive' of crm.xlsx, which your reads left out" in lacking.text()
    assert not missing(remember(active, [], [read("Archive", ["Active", "Notes"])]), SHEETS)
    # a file the subtask writes is not read for what it hands on: a change names its sheet itself
    writer = spec.model_copy(update={"description": "Append a row to the Archive sheet of crm.xlsx",
                                     "writes": ("crm.xlsx",), "hands_on": HandsOn.NOTHING})
    appended = ActionResult(function="write_rows", arguments={"path": "crm.xlsx", "sheet": "Archive",
                                                              "rows": [["Kite Co"]]}, ok=True,
                            changes=(EffectView(path="crm.xlsx", change="add", before="d1", after="d2"),))
    assert not missing(remember(SubtaskRecord(spec=writer), [], [read("Active", ["Archive"]), appended]),
                       SHEETS).unread
    # a description that names no part of the file: the part the person's request names is asked about once
    vague = SubtaskRecord(spec=spec.model_copy(update={"description": "Read the customers of crm.xlsx"}))
    request = "Before I clear the Archive sheet of crm.xlsx, list its customers in gone.txt"
    lacking = missing(remember(vague, [], [read("Active", ["Archive", "Notes"])]), SHEETS, request=request)
    assert lacking.overlooked == ("'Archive' of crm.xlsx",) and lacking.only_soft and not lacking.work
    assert "the request names 'Archive' of crm.xlsx, which your reads left out" in lacking.text()
    # read, named by the description, two named, or none: nothing to ask
    for record, words in ((remember(vague, [], [read("Archive", ["Active", "Notes"])]), request),
                          (remember(active, [], [read("Active", ["Archive", "Notes"])]), request),
                          (remember(vague, [], [read("Active", ["Archive", "Notes"])]), "the Archive and Notes"),
                          (remember(vague, [], [read("Active", ["Archive", "Notes"])]), "crm.xlsx")):
        assert not missing(record, SHEETS, request=words).overlooked


def test_a_short_number_handed_on_and_a_sum_of_a_table_read_are_data_taken() -> None:
    from podium.desktop.blackboard import ArtifactEntry

    spec = SubtaskSpec(id="2", description="Write the count into open.txt", application="files",
                       writes=("open.txt",), tools=("write_file",), depends_on=("1",))
    count = ArtifactEntry(name="1.column_stats.count_matching", kind="number", value=6,
                          source='column_stats({"path": "t.xlsx", "column": "Status", "count_matching": "Open"})')

    def wrote(record: SubtaskRecord, path: str, content: str) -> SubtaskRecord:
        made = EffectView(path=path, change="create", after="d")
        return remember(record, [], [ActionResult(function="write_file", arguments={"path": path, "content": content},
                                                  ok=True, changes=(made,))])

    assert not missing(wrote(SubtaskRecord(spec=spec), "open.txt", "Open tickets: 6"), None, [count])
    total = ArtifactEntry(name="1.column_stats.count", kind="number", value=14, source=count.source)
    assert missing(wrote(SubtaskRecord(spec=spec), "open.txt", "Open tickets: 16"), None,
                   [count, total]).unhanded == ("1",)
    # a number that says where the data lies (the header's row) is none of it: a lone "1" written took nothing
    header = ArtifactEntry(name="1.column_totals.header_row", kind="number", value=1, source=count.source)
    assert missing(wrote(SubtaskRecord(spec=spec), "open.txt", "1"), None, [count, header]).unhanded == ("1",)
    assert not missing(wrote(SubtaskRecord(spec=spec), "open.txt", "6"), None, [count, header])
    # a writer that read a table itself and wrote the sum of one of its columns took from that file
    summed = SubtaskSpec(id="1", description="Add up the Hours of hours.csv into hours.txt", application="files",
                         reads=("hours.csv",), writes=("hours.txt",), tools=("read_csv", "write_file"))
    read = ActionResult(function="read_csv", arguments={"path": "hours.csv"}, ok=True, read_only=True,
                        content={"path": "hours.csv", "rows": [["Name", "Hours"], ["Ana", 7.5], ["Tom", 8.25]]})
    seen = remember(SubtaskRecord(spec=summed), [], [read])
    assert not missing(wrote(seen, "hours.txt", "15.75"), None)
    assert missing(wrote(seen, "hours.txt", "12"), None).unused == ("hours.csv",)


def test_the_sheet_a_description_names_is_one_of_several_by_its_whole_name_and_case() -> None:
    parts = ("Summary", "Q1", "Q2")
    assert rules.described_part("Add a row under the table of the Q2 sheet of plan.xlsx", parts) == "Q2"
    assert rules.described_part("Add a row to the summary of plan.xlsx", parts) is None  # a word, not the name
    assert rules.described_part("Copy the Q1 rows under Q2", parts) is None  # two named: not this rule's choice
    assert rules.described_part("Add a row to Q12 of plan.xlsx", parts) is None
    assert rules.described_part("Add a row to the Q2 sheet", ("Q2",)) is None  # one sheet: nothing to choose
    # naming none, the request given (for a read) chooses; naming one or two, the description is the word
    assert rules.described_part("Read plan.xlsx", parts, "the Q2 sheet of plan.xlsx") == "Q2"
    assert rules.described_part("Read the Q1 sheet", parts, "the Q2 sheet of plan.xlsx") == "Q1"
    assert rules.described_part("Read plan.xlsx", parts, "Q1 and Q2 of plan.xlsx") is None


def test_a_refused_call_is_done_by_the_tool_its_refusal_names_on_the_same_file() -> None:
    spec = SubtaskSpec(id="1", description="Add a Total column", application="spreadsheets",
                       writes=("o.xlsx",), tools=("set_formula",))
    cell = {"path": "o.xlsx", "cell": "D7", "formula": "=Qty*Price"}
    refused = ActionResult(function="set_formula", arguments=cell, ok=False, error=(
        "set_formula: =Qty*Price names columns by their headers; for a column computed on every row, call "
        "add_formula_column with its header and this formula"))
    tried = remember(SubtaskRecord(spec=spec), [], [refused])
    sheets = AppInfo("spreadsheets", tools=(ToolInfo("set_formula", False), ToolInfo("add_formula_column", False),
                                            ToolInfo("set_cell", False)))
    changed = (EffectView(path="o.xlsx", change="add", before="d1", after="d2"),)
    column = ActionResult(function="add_formula_column", ok=True, changes=changed,
                          arguments={"path": "o.xlsx", "header": "Total", "formula": "=Qty*Price"})
    done = remember(tried, [], [column])
    assert done.corrected == (call_key("set_formula", cell),) and not missing(done, sheets)
    # another tool the refusal did not name is other work: the declared one still failed
    typed = ActionResult(function="set_cell", ok=True, changes=changed,
                         arguments={"path": "o.xlsx", "cell": "D1", "value": "Total"})
    assert missing(remember(tried, [], [typed]), sheets).failed == ("set_formula",)


def test_data_named_as_a_result_is_written_only_into_a_file_by_a_writer_of_texts(tmp_path: Path) -> None:
    from podium.apps.files import FilesApplication
    from podium.apps.workspace import Workspace
    from podium.desktop.host.catalog import Catalog

    files = Catalog.of([FilesApplication(Workspace.at(tmp_path))]).apps[0]
    writer = SubtaskSpec(id="2", description="list", application="files", depends_on=("1",), writes=("names.txt",),
                         tools=("write_file",))
    answer = rules.content_from_result(writer, files, "1.read_sheet.rows.column.Name", (), ())
    assert answer is not None and answer.actions[0].function == "write_file"
    assert answer.actions[0].arguments == {"path": "names.txt", "content": {"ref": "1.read_sheet.rows.column.Name"}}
    # what the run made it writes again; the person's file, a folder, or a copier's work it leaves alone
    again = rules.content_from_result(writer, files, "1.x", ("names.txt",), ("names.txt",))
    assert again is not None and again.actions[0].arguments["overwrite"] is True
    copier = writer.model_copy(update={"writes": ("old_versions",), "tools": ("make_folder", "copy_or_move")})
    for spec, theirs in ((writer, ("names.txt",)), (writer.model_copy(update={"writes": ("old_versions",)}), ()),
                         (copier, ()), (copier.model_copy(update={"writes": ("old.txt",)}), ())):
        assert rules.content_from_result(spec, files, "1.x", theirs, ()) is None, spec


def test_a_finish_is_asked_once_about_paths_it_wrote_that_the_folders_listing_does_not_hold() -> None:
    files = AppInfo("files", "", (), (ToolInfo("list_files", True), ToolInfo("write_file", False),
                                      ToolInfo("copy_or_move", False)))
    spec = SubtaskSpec(id="2", description="list the 2022 files", application="files", reads=("exports",),
                       writes=("purge_list.txt",), tools=("write_file",))
    listing = {"folder": "exports", "entries": [{"path": "exports/2022-01-sales.csv", "kind": "file", "size": 27},
                                                {"path": "exports/2021-12-sales.csv", "kind": "file", "size": 27}]}
    seen = observed(SubtaskRecord(spec=spec), [ActionResult(function="list_files", arguments={"path": "exports"},
                                                            ok=True, content=listing, read_only=True)])
    made = EffectView(path="purge_list.txt", change="create", after="d1")

    def wrote(content: str) -> SubtaskRecord:
        return remember(seen, [], [ActionResult(function="write_file", ok=True, changes=(made,),
                                                arguments={"path": "purge_list.txt", "content": content})])

    invented = missing(wrote("exports/2022-01-sales.csv\nexports/2022-02-sales.csv\nExports/2022-03-sales.csv"),
                       files)
    assert invented.unlisted == ("exports/2022-02-sales.csv", "exports/2022-03-sales.csv")
    assert invented.asked_once and invented.only_soft and not invented.work
    assert "names exports/2022-02-sales.csv, exports/2022-03-sales.csv, which the folder's listing" in invented.text()
    assert not missing(wrote("exports/2022-01-sales.csv\n"), files)  # what the listing shows
    assert not missing(wrote("Files: exports/2022-01-sales.csv and notes/todo.txt"), files)  # another folder
    # a path given alone, as a copy's destination is, names what the call makes, not what a listing held
    copied = remember(seen, [], [ActionResult(function="copy_or_move", ok=True, changes=(
        EffectView(path="exports/2022-01-sales.bak", change="create", after="d2"),), arguments={
        "source": "exports/2022-01-sales.csv", "destination": "exports/2022-01-sales.bak"})])
    assert not missing(copied, files).unlisted


def test_a_value_the_request_quotes_written_with_other_case_or_punctuation_is_asked_about_once() -> None:
    request = "Append the paragraph 'Signed off by finance on 12 June.' to report.docx, the person's file."
    assert literals(request) == ("Signed off by finance on 12 June.",)
    assert literals('Put "Room 4B" in C3, \u201cHall A\u201d in C4 and \u2018Closed\u2019 in C5') == (
        "Room 4B", "Hall A", "Closed")
    spec = SubtaskSpec(id="1", description="Append the paragraph", application="documents", writes=("report.docx",),
                       tools=("add_paragraphs",))

    def wrote(text: str) -> SubtaskRecord:
        return remember(SubtaskRecord(spec=spec), [], [ActionResult(
            function="add_paragraphs", arguments={"path": "report.docx", "paragraphs": [text]}, ok=True,
            changes=(EffectView(path="report.docx", change="add", before="d1", after="d2"),))])

    lacking = missing(wrote("Signed off by finance on 12 June"), None, request=request)
    assert lacking.misquoted == (("Signed off by finance on 12 June.", "Signed off by finance on 12 June"),)
    assert lacking.asked_once and lacking.only_soft and not lacking.work
    assert lacking.text() == ("you wrote 'Signed off by finance on 12 June' where the request gives 'Signed off by "
                              "finance on 12 June.': write it exactly as given, in place of what you wrote (answer "
                              "FINISH again if it is meant to differ)")
    assert missing(wrote("signed off by Finance on 12  June."), None, request=request).misquoted
    # written as given (alone, or as a line of a longer text), or other words: nothing to ask
    for text in ("Signed off by finance on 12 June.", "Minutes\nSigned off by finance on 12 June.",
                 "Signed off by the board."):
        assert not missing(wrote(text), None, request=request), text
    # the file's name is no value written
    assert not missing(wrote("Signed off by finance on 12 June"), None, request="Add 'report.docx' to it").misquoted


def test_a_handed_table_written_whole_into_a_text_where_its_parts_were_offered_is_asked_about_once() -> None:
    members = [["Name", "Email", "Joined"], ["Ana Ruiz", "ana@mail.example", "2023-02-01"],
               ["Tom Hale", "tom@mail.example", "2022-11-15"], ["Ana Ruiz", "ana@mail.example", "2023-02-01"],
               ["Li Wei", "li@mail.example", 2024]]
    given = [ArtifactEntry(name="1.read_sheet", kind="table", value=members),
             ArtifactEntry(name="1.read_sheet.column.Name", kind="names", value=["Ana Ruiz", "Tom Hale", "Li Wei"]),
             ArtifactEntry(name="1.read_sheet.repeated_rows", kind="table", value=[members[0], members[1]]),
             ArtifactEntry(name="1.read_sheet.sum.Joined", kind="number", value=2024)]
    spec = SubtaskSpec(id="2", description="List the duplicates in duplicates.txt", application="files",
                       writes=("duplicates.txt",), depends_on=("1",), tools=("write_file",))

    def wrote(content: str, tool: str = "write_file", key: str = "content") -> SubtaskRecord:
        return remember(SubtaskRecord(spec=spec), [], [ActionResult(
            function=tool, arguments={"path": "duplicates.txt", key: content}, ok=True,
            changes=(EffectView(path="duplicates.txt", change="create", after="d1"),))])

    # every row again, in another order and format: the whole table, where its parts were at hand
    every = "Name,Email,Joined\nTom Hale,tom@mail.example,2022-11-15\nAna Ruiz,ana@mail.example,2023-02-01\n" \
            "Li Wei - li@mail.example - 2024\nAna Ruiz,ana@mail.example,2023-02-01\n"
    lacking = missing(wrote(every), None, given)
    assert lacking.whole == (("duplicates.txt", "1.read_sheet", ("1.read_sheet.repeated_rows",
                                                                  "1.read_sheet.column.Name")),)
    assert lacking.asked_once and lacking.only_soft and not lacking.work
    # held to the parts it was offered (rule whole-is-failure), standing by the whole table is work not done
    held = missing(wrote(every), None, given, hold_whole=True)
    assert held.held_whole and held.asked_once and not held.only_soft and held.work.whole == lacking.whole
    assert not missing(wrote("Ana Ruiz,ana@mail.example,2023-02-01\n"), None, given, hold_whole=True)
    assert lacking.text().startswith(
        'what you wrote into duplicates.txt is every row of the table {"ref": "1.read_sheet"}: if your subtask '
        'writes only some of its rows or cells, write that part by reference ({"ref": "1.read_sheet.repeated_rows"}, '
        '{"ref": "1.read_sheet.column.Name"}), else answer FINISH again')
    # a part of it (the rows that repeat), a row left out, or the rows of a small table: nothing to ask
    assert not missing(wrote("Ana Ruiz,ana@mail.example,2023-02-01\n"), None, given).whole
    assert not missing(wrote(every.replace("Li Wei", "Li")), None, given).whole
    # a row typed again with its last cell dropped is still that row; a column of the rows alone is a part
    assert missing(wrote(every.replace(",2022-11-15", "")), None, given).whole
    assert not missing(wrote("Ana Ruiz\nTom Hale\nAna Ruiz\nLi Wei\n"), None, given).whole
    small = [ArtifactEntry(name="1.read_sheet", kind="table", value=members[:3]), given[2]]
    assert not missing(wrote(every), None, small).whole
    # with no part offered, or written cell by cell (no text holds a row on a line), it is not asked either
    assert not missing(wrote(every), None, given[:1]).whole
    cells = remember(SubtaskRecord(spec=spec), [], [ActionResult(
        function="write_rows", arguments={"path": "duplicates.txt", "rows": members}, ok=True,
        changes=(EffectView(path="duplicates.txt", change="create", after="d1"),))])
    assert not missing(cells, None, given).whole


def test_the_verifier_fails_rows_written_with_another_rows_value_in_a_text_cell() -> None:
    """Rows typed again with an order given another order's region: rows of the data mixed up, named with the row
    and the value the data holds, and held to (not believed on a FINISH again); rows as the data has them, a value
    the request names, a number changed or a new value are none of that."""
    orders = [["Order", "Region", "Product", "Amount"], [5001, "North", "Desk", 240], [5002, "South", "Chair", 95],
              [5003, "East", "Lamp", 38], [5004, "North", "Shelf", 120]]
    spec = SubtaskSpec(id="2", description="split the orders by region", application="spreadsheets",
                       reads=("orders.xlsx",), writes=("orders.xlsx",), tools=("add_sheet", "write_rows"))
    into = AppInfo("spreadsheets", "", (".xlsx",), (*SHEETS.tools, ToolInfo("split_by_column", False, reshapes=True)))
    read = ActionResult(function="read_sheet", arguments={"path": "orders.xlsx", "sheet": "Orders"}, ok=True,
                        read_only=True, content=orders)

    def wrote(rows: list[list[Any]]) -> ActionResult:
        return ActionResult(function="write_rows", arguments={"path": "orders.xlsx", "sheet": "North", "rows": rows},
                            ok=True, changes=(EffectView(path="orders.xlsx", change="edit", before="d1", after="d2"),))

    seen = remember(SubtaskRecord(spec=spec), [], [read])
    mixed = [orders[0], orders[1], [5002, "North", "Chair", 95], orders[4]]
    lacking = missing(remember(seen, [], [wrote(mixed)]), into)
    assert lacking.mixed == ("(5002, Chair, 95) has Region 'North' there, 'South' in orders.xlsx",)
    assert lacking.work and not lacking.only_soft and not lacking.asked_once
    assert lacking.text().startswith("the rows your calls wrote mix up the rows of the table you had: (5002, Chair, "
                                     "95) has Region 'North' there, 'South' in orders.xlsx. Write each row as your "
                                     "data holds it, by reference where you can, or with split_by_column")
    # handed on by a reader rather than read: the same
    handed = ArtifactEntry(name="1.read_sheet.rows", kind="table", value=orders,
                           source='read_sheet({"path": "orders.xlsx"})')
    writer = SubtaskRecord(spec=spec.model_copy(update={"reads": (), "depends_on": ("1",)}))
    assert missing(remember(writer, [], [wrote(mixed)]), into, [handed]).mixed
    # the rows as the data holds them (a split done right), in any order
    assert not missing(remember(seen, [], [wrote([orders[0], orders[4], orders[1]])]), into).mixed
    # a value the request names is what it asks to change; a changed number, a new value, two cells changed
    assert not missing(remember(seen, [], [wrote(mixed)]), into,
                       request="Copy the orders, with order 5002 moved to North").mixed
    for row in ([5002, "South", "Chair", 99], [5002, "West", "Chair", 95], [5002, "North", "Desk", 95]):
        assert not missing(remember(seen, [], [wrote([orders[0], row])]), into).mixed
    # a row of another table it had is no mix-up (a merge of two workbooks that share a customer)
    other = ActionResult(function="read_sheet", arguments={"path": "more.xlsx"}, ok=True, read_only=True,
                         content=[orders[0], [5002, "North", "Chair", 95], [5009, "West", "Desk", 240]])
    assert not missing(remember(remember(seen, [], [other]), [], [wrote(mixed)]), into).mixed
    # a read of the sheet the rows went into (a look at what was written) does not make them the data's rows
    back = ActionResult(function="read_sheet", arguments={"path": "orders.xlsx", "sheet": "North"}, ok=True,
                        read_only=True, content=mixed)
    assert missing(remember(remember(seen, [], [wrote(mixed)]), [], [back]), into).mixed
    # rows written into a file the subtask does not declare it writes are not its work to check
    elsewhere = ActionResult(function="write_rows", arguments={"path": "other.xlsx", "rows": mixed}, ok=True,
                             changes=(EffectView(path="other.xlsx", change="edit", before="d1", after="d2"),))
    assert not missing(remember(seen, [], [elsewhere]), into).mixed


def test_a_declared_read_in_a_subfolder_is_below_the_folder_a_call_lists() -> None:
    reads = ("finance/q1.xlsx", "budget.xlsx")
    assert rules.reaches_below(".", reads, ()) and rules.reaches_below(None, ("**/*.xlsx",), ())
    assert rules.reaches_below("exports", ("exports/2022/a.csv",), ())
    # the folder's own files, another folder's, or a read that is also its write: nothing below
    assert not rules.reaches_below("finance", reads, ()) and not rules.reaches_below(".", ("budget.xlsx",), ())
    assert not rules.reaches_below("exports", ("exports", "exports/a.csv"), ())
    assert not rules.reaches_below(".", ("out/list.txt",), ("out/list.txt",))


def test_a_table_written_with_the_rows_of_values_the_request_does_not_name_is_work_not_done() -> None:
    staff = [["Name", "Dept", "Pay"], ["Ann", "Sales", 50], ["Bob", "IT", 60], ["Cy", "Sales", 55], ["Di", "HR", 40]]
    given = [ArtifactEntry(name="1.read_sheet", kind="table", value=staff, source='read_sheet({"path": "staff.xlsx"})')]
    spec = SubtaskSpec(id="2", description="Write the table of subtask 1 into team.xlsx", application="spreadsheets",
                       writes=("team.xlsx",), depends_on=("1",), tools=("write_rows",))
    request = "Make team.xlsx with only the Sales department's people from staff.xlsx"

    def wrote(rows: list[list[Any]]) -> SubtaskRecord:
        return remember(SubtaskRecord(spec=spec), [], [ActionResult(
            function="write_rows", arguments={"path": "team.xlsx", "rows": rows}, ok=True,
            changes=(EffectView(path="team.xlsx", change="create", after="d1"),))])

    every = missing(wrote(staff), None, given, request=request)
    assert every.unselected == (("team.xlsx", ("1.read_sheet.where.Dept.Sales",)),)
    assert not every.only_soft and every.work.unselected == every.unselected  # a FINISH again fails
    assert 'the rows it names are {"ref": "1.read_sheet.where.Dept.Sales"}' in every.text()
    # the rows of the value named, or of no value named, or a request that names none: nothing missing
    assert not missing(wrote([staff[0], staff[1], staff[3]]), None, given, request=request)
    assert not missing(wrote(staff), None, given, request="Copy staff.xlsx into team.xlsx").unselected
    # the rows of every value but one the request names (those it leaves out) hold none of its rows
    assert not missing(wrote([staff[0], staff[2], staff[4]]), None, given,
                       request="Put everyone but the Sales people into team.xlsx").unselected


def test_a_count_of_a_texts_lines_is_data_taken_from_the_file_and_a_made_up_one_is_not() -> None:
    spec = SubtaskSpec(id="1", description="Write how many lines log.txt has into lines.txt", application="files",
                       reads=("log.txt",), writes=("lines.txt",), tools=("read_file", "write_file"))
    read = ActionResult(function="read_file", arguments={"path": "log.txt"}, ok=True, read_only=True,
                        content={"path": "log.txt", "text": "a\nb\nc\nd\ne\nf\ng\n"})

    def wrote(content: str) -> SubtaskRecord:
        return remember(remember(SubtaskRecord(spec=spec), [], [read]), [], [ActionResult(
            function="write_file", arguments={"path": "lines.txt", "content": content}, ok=True,
            changes=(EffectView(path="lines.txt", change="create", after="d1"),))])

    assert not missing(wrote("7"), None)
    assert missing(wrote("14"), None).unused == ("log.txt",)


def test_a_change_that_brings_a_file_back_to_an_earlier_state_undoes_the_changes_between() -> None:
    spec = SubtaskSpec(id="1", description="Rank the runners on Results", application="spreadsheets",
                       writes=("race.xlsx",), tools=("write_rows", "sort_rows"))
    app = AppInfo("spreadsheets", tools=(ToolInfo("write_rows", False), ToolInfo("sort_rows", False)))

    def change(record: SubtaskRecord, tool: str, before: str, after: str, **arguments: Any) -> SubtaskRecord:
        return remember(record, [], [ActionResult(function=tool, arguments={"path": "race.xlsx", **arguments},
                                                  ok=True, changes=(EffectView(path="race.xlsx", change="edit",
                                                                               before=before, after=after),))])

    written = change(SubtaskRecord(spec=spec), "write_rows", "d0", "unsorted", sheet="Results")
    ranked = change(written, "sort_rows", "unsorted", "sorted", by="Minutes")
    assert not missing(ranked, app)
    # the table written again over its sort: the file holds what it held before the sort, which is undone
    again = change(ranked, "write_rows", "sorted", "unsorted", sheet="Results", start="A1")
    assert "sort_rows" not in again.called and missing(again, app).tools == ("sort_rows",)
    # sorted once more, the work stands again
    assert not missing(change(again, "sort_rows", "unsorted", "sorted", by="Minutes", order="ascending"), app)
