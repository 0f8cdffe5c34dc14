"""The seed's example on the project's real applications: a real report.docx in, a real budget.xlsx with
the table's data and a native bar chart out. The models are scripted; the files are not."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path
from typing import Any

import docx
import openpyxl

from podium.apps.documents import DocumentsApplication
from podium.apps.spreadsheets import SpreadsheetsApplication
from podium.apps.workspace import Workspace
from podium.backends.scripted import ScriptedBackend
from podium.desktop import run_request
from podium.desktop.shell.session import batch
from tests.desktop.scripting import Spy, app, assign, host, ref, step_of, sub, verifying

TABLE = [["Quarter", "Revenue"], ["Q1", "120"], ["Q2", "135"], ["Q3", "150"]]
REQUEST = "Extract the table from report.docx and create a bar chart of it in budget.xlsx"


def save_rows(path: Path, rows: list[list[Any]], sheet: str | None = None) -> None:
    """A workbook whose active sheet (named `sheet`, where given) holds these rows."""
    book = openpyxl.Workbook()
    if sheet is not None:
        book.active.title = sheet
    for row in rows:
        book.active.append(row)
    book.save(path)


def make_folder(root: Path) -> None:
    document = docx.Document()
    document.add_paragraph("Quarterly report")
    table = document.add_table(rows=len(TABLE), cols=2)
    for r, row in enumerate(TABLE):
        for c, text in enumerate(row):
            table.cell(r, c).text = text
    document.save(str(root / "report.docx"))
    workbook = openpyxl.Workbook()
    workbook.save(str(root / "budget.xlsx"))


def planner(prompt: str) -> str:
    if verifying(prompt):
        return host("FINISH", "budget.xlsx holds the table and a bar chart")
    return assign(sub("1", "Extract the table from report.docx", "documents", reads=["report.docx"],
                      tools=["read_table"], hands_on="table"),
                  sub("2", "Write the rows of subtask 1 into budget.xlsx and create a bar chart of them",
                      "spreadsheets", "1", writes=["budget.xlsx"], tools=["write_rows", "add_chart"]))


def copier(target: str) -> Any:
    """A planner that copies report.docx's table into `target` with write_rows alone."""
    def plan(prompt: str) -> str:
        if verifying(prompt):
            return host("FINISH", f"{target} holds the table")
        return assign(sub("1", "Extract the table from report.docx", "documents", reads=["report.docx"],
                          tools=["read_table"], hands_on="table"),
                      sub("2", f"Write the rows of subtask 1 into {target}", "spreadsheets", "1",
                          writes=[target], tools=["write_rows"]))
    return plan


def documents(prompt: str) -> str:
    if step_of(prompt) == 1:
        return app("CONTINUE", ("read_table", {"path": "report.docx", "index": 0}))
    return app("FINISH", result=ref("1.read_table.rows"), comment="table read")


def spreadsheets(prompt: str) -> str:
    if step_of(prompt) == 1:
        # the rows are subtask 1's data, by reference: never typed again
        return app("CONTINUE", ("write_rows", {"path": "budget.xlsx", "start": "A1", "rows": ref("1.read_table.rows")}),
                   ("add_chart", {"path": "budget.xlsx", "kind": "bar", "data": f"A1:B{len(TABLE)}",
                                  "title": "Revenue by quarter"}))
    return app("FINISH", result="budget.xlsx: data in A1, bar chart added")


async def test_the_seed_example_on_real_files(tmp_path: Path) -> None:
    make_folder(tmp_path)
    workspace = Workspace.at(tmp_path)
    apps = [DocumentsApplication(workspace), SpreadsheetsApplication(workspace)]
    result = await run_request(REQUEST, apps, ScriptedBackend(planner), app_models={
        "documents": ScriptedBackend(documents), "spreadsheets": ScriptedBackend(spreadsheets)})
    assert result.ok, (str(result.reason), [(t["action"], t["outcome"]) for t in result.trajectory])
    sheet = openpyxl.load_workbook(tmp_path / "budget.xlsx").active
    assert [[cell.value for cell in row] for row in sheet.iter_rows()] == [
        ["Quarter", "Revenue"], ["Q1", 120], ["Q2", 135], ["Q3", 150]]
    with zipfile.ZipFile(tmp_path / "budget.xlsx") as package:
        charts = [n for n in package.namelist() if n.startswith("xl/charts/chart")]
        assert len(charts) == 1
        xml = package.read(charts[0]).decode()
    assert "<barChart>" in xml and "Revenue by quarter" in xml


async def test_an_app_agent_is_shown_a_workbooks_rows_or_its_listing_when_too_big(tmp_path: Path) -> None:
    from podium.desktop.shell.observe import observe

    book = openpyxl.Workbook()
    book.active.title = "Prices"
    for row in [["Item", "Price"], ["Pen", 1.5]]:
        book.active.append(row)
    book.create_sheet("Notes")
    book.save(tmp_path / "prices.xlsx")
    big = openpyxl.Workbook()
    for _ in range(201):
        big.active.append(list(range(100)))  # 20,100 cells: more than read_sheet reads at once
    big.save(tmp_path / "big.xlsx")
    sheets = SpreadsheetsApplication(Workspace.at(tmp_path))
    (seen,) = await observe(sheets, ["prices.xlsx"], "Copy the Prices sheet of prices.xlsx")
    assert seen.function == "read_sheet" and seen.ok
    assert seen.content["rows"] == [["Item", "Price"], ["Pen", 1.5]] and seen.content["other_sheets"] == ["Notes"]
    book["Notes"].append(["Pens are sold in tens"])
    book.save(tmp_path / "prices.xlsx")
    # the sheet the texts name is the one shown (not the first); a name inside a word names none
    (named,) = await observe(sheets, ["prices.xlsx"], "Add a row under the last note of the Notes sheet")
    assert named.arguments == {"path": "prices.xlsx", "sheet": "Notes"}
    assert named.content["rows"] == [["Pens are sold in tens"]]
    # a subtask that names no sheet sees the one the person's request names
    (asked,) = await observe(sheets, ["prices.xlsx"], "Read prices.xlsx", "List the Notes sheet of prices.xlsx")
    assert asked.arguments == {"path": "prices.xlsx", "sheet": "Notes"}
    (first,) = await observe(sheets, ["prices.xlsx"], "Copy the FootNotes of prices.xlsx")
    assert first.arguments == {"path": "prices.xlsx"} and first.content["sheet"] == "Prices"
    (listed,) = await observe(sheets, ["big.xlsx", "absent.xlsx", "notes.docx"], "Chart big.xlsx")
    assert listed.function == "list_sheets" and listed.ok and listed.content["sheets"][0]["used_range"] == "A1:CV201"


async def test_the_files_an_observation_leaves_out_are_named_so_none_is_taken_for_all(tmp_path: Path) -> None:
    from podium.apps.files import FilesApplication
    from podium.desktop.shell.observe import MAX_FILES, observe, unseen

    names = [f"part{n}.txt" for n in range(MAX_FILES + 2)]
    for name in names:
        (tmp_path / name).write_text(name)
    files = FilesApplication(Workspace.at(tmp_path))
    # a file the subtask will write takes no place of one there: the first MAX_FILES that exist are shown
    declared = ["new.txt", *names]
    seen = await observe(files, declared)
    assert [r.arguments["path"] for r in seen] == names[:MAX_FILES]
    (line,) = unseen(files, declared)
    assert line == f"- not shown, 2 more of your subtask's files (read them with a tool): {names[-2]}, {names[-1]}"
    assert unseen(files, names[:MAX_FILES]) == []


async def test_the_files_application_is_shown_no_document_as_text_to_read(tmp_path: Path) -> None:
    """Its reader takes no .docx (another application's type): a copy takes one by its path, and an error
    shown for it reads as a reason not to."""
    from podium.apps import build_applications
    from podium.desktop.shell.observe import observe, unseen

    make_folder(tmp_path)
    (tmp_path / "todo.txt").write_text("milk\n", encoding="utf-8")
    apps = build_applications({"workspace": str(tmp_path)})
    try:
        files = apps["files"]
        seen = await observe(files, ["report.docx", "todo.txt"])
        assert [(r.function, r.arguments["path"], r.ok) for r in seen] == [("read_file", "todo.txt", True)]
        assert unseen(files, ["report.docx", "a.docx", "b.docx", "c.docx", "todo.txt"]) == []
        (document,) = await observe(apps["documents"], ["report.docx", "todo.txt"])
        assert document.arguments["path"] == "report.docx" and document.ok
    finally:
        await apps.aclose()


async def test_a_call_that_changes_nothing_and_fails_does_not_stop_its_batch(tmp_path: Path) -> None:
    """Creating a workbook that exists is refused and changes nothing (its effects are none), so the calls
    after it in the same answer still run; a failed call that may have changed something stops them."""
    make_folder(tmp_path)
    workspace = Workspace.at(tmp_path)

    def sheets(prompt: str) -> str:
        if step_of(prompt) == 1:
            return app("CONTINUE", ("create_workbook", {"path": "budget.xlsx"}),
                       ("write_rows", {"path": "budget.xlsx", "start": "A1", "rows": ref("1.read_table.rows")}),
                       ("add_chart", {"path": "budget.xlsx", "kind": "bar", "data": f"A1:B{len(TABLE)}",
                                      "title": "Revenue by quarter"}))
        return app("FINISH", result="done")

    apps = [DocumentsApplication(workspace), SpreadsheetsApplication(workspace)]
    result = await run_request(REQUEST, apps, ScriptedBackend(planner), app_models={
        "documents": ScriptedBackend(documents), "spreadsheets": ScriptedBackend(sheets)})
    assert result.ok, (str(result.reason), [(t["action"], t["outcome"]) for t in result.trajectory])
    step = next(t for t in result.trajectory if t["agent"] == "app-spreadsheets")
    assert "create_workbook: error" in step["outcome"] and "already exists" in step["outcome"]
    assert "write_rows: ok" in step["outcome"] and "add_chart: ok" in step["outcome"]
    sheet = openpyxl.load_workbook(tmp_path / "budget.xlsx").active
    assert sheet["A1"].value == "Quarter" and len(sheet._charts) == 1


async def test_a_changing_call_on_a_path_of_no_workbook_is_made_on_the_one_its_subtask_declares(tmp_path: Path) -> None:
    from podium.desktop import HostConfig

    make_folder(tmp_path)
    workspace = Workspace.at(tmp_path)

    def sheets(prompt: str) -> str:
        if step_of(prompt) == 1:
            rows = ref("1.read_table.rows")
            return app("CONTINUE", ("write_rows", {"path": "budget.xlsx", "start": "A1", "rows": rows}),
                       ("add_chart", {"path": "Sheet", "kind": "bar", "data": f"A1:B{len(TABLE)}",
                                      "title": "Revenue by quarter"}))
        return app("FINISH", result="done")

    apps = [DocumentsApplication(workspace), SpreadsheetsApplication(workspace)]
    result = await run_request(REQUEST, apps, ScriptedBackend(planner), app_models={
        "documents": ScriptedBackend(documents), "spreadsheets": ScriptedBackend(sheets)},
        config=HostConfig(rules="small-local"))
    assert result.ok, (str(result.reason), [(t["action"], t["outcome"]) for t in result.trajectory])
    step = next(t for t in result.trajectory if t["agent"] == "app-spreadsheets")
    assert "path-from-declaration" in step["rules"]
    assert 'add_chart({"path": "budget.xlsx"' in step["action"] and "add_chart: ok" in step["outcome"]
    with zipfile.ZipFile(tmp_path / "budget.xlsx") as package:
        assert any(n.startswith("xl/charts/chart") for n in package.namelist())


async def test_a_read_of_the_new_file_a_subtask_creates_is_not_run_and_the_agent_goes_on(tmp_path: Path) -> None:
    make_folder(tmp_path)
    workspace = Workspace.at(tmp_path)

    new_book = copier("chart.xlsx")

    def sheets(prompt: str) -> str:
        if step_of(prompt) == 1:
            return app("CONTINUE", ("read_sheet", {"path": "chart.xlsx"}))
        assert "chart.xlsx does not exist yet and your subtask creates it" in prompt
        return app("FINISH", ("write_rows", {"path": "chart.xlsx", "start": "A1", "rows": ref("1.read_table.rows")}),
                   result="chart.xlsx has the rows")

    apps = [DocumentsApplication(workspace), SpreadsheetsApplication(workspace)]
    result = await run_request("Copy the table of report.docx into a new chart.xlsx", apps, ScriptedBackend(new_book),
                               app_models={"documents": ScriptedBackend(documents),
                                           "spreadsheets": ScriptedBackend(sheets)})
    assert result.ok, (str(result.reason), [(t["action"], t["outcome"]) for t in result.trajectory])
    first = next(t for t in result.trajectory if t["agent"] == "app-spreadsheets")
    assert "read_sheet: not run" in first["outcome"]
    assert openpyxl.load_workbook(tmp_path / "chart.xlsx").active["B4"].value == 150


async def test_a_listing_left_to_the_top_folder_lists_the_one_folder_its_subtask_reads(tmp_path: Path) -> None:
    """Rule folder-from-declaration: the names written are those of the folder the subtask declares it reads."""
    from podium.apps.files import FilesApplication
    from podium.desktop import HostConfig

    (tmp_path / "exports").mkdir()
    for name in ("2022-01-sales.csv", "2022-06-returns.csv", "2023-01-sales.csv"):
        (tmp_path / "exports" / name).write_text("a,b\n", encoding="utf-8")
    (tmp_path / "2022-notes.txt").write_text("not an export\n", encoding="utf-8")
    request = "Which exports are from 2022? List them in purge_list.txt."

    def planner(prompt: str) -> str:
        if verifying(prompt):
            return host("FINISH", "listed")
        return assign(sub("1", "List the exports of 2022", "files", reads=["exports/2022*"],
                          writes=["purge_list.txt"], tools=["write_file_names"]))

    def files(prompt: str) -> str:
        if step_of(prompt) == 1:
            return app("CONTINUE", ("write_file_names", {"into": "purge_list.txt", "pattern": "2022*"}))
        return app("FINISH", result="purge_list.txt lists them")

    result = await run_request(request, [FilesApplication(Workspace.at(tmp_path))], ScriptedBackend(planner),
                               app_models={"files": ScriptedBackend(files)}, config=HostConfig(rules="small-local"))
    assert result.ok, (str(result.reason), [(t["action"], t["outcome"]) for t in result.trajectory])
    step = next(t for t in result.trajectory if t["agent"] == "app-files")
    assert "folder-from-declaration" in step["rules"]
    assert (tmp_path / "purge_list.txt").read_text(encoding="utf-8").split() == [
        "2022-01-sales.csv", "2022-06-returns.csv"]


async def test_a_listing_of_a_folder_whose_subfolders_hold_declared_reads_takes_them_in(tmp_path: Path) -> None:
    """Rule reach-declared-reads: a listing left to the top folder's own files, in a subtask that declares
    reading files in its subfolders, reaches into them (apps.tooling.SUBFOLDERS)."""
    from podium.apps.files import FilesApplication
    from podium.desktop import HostConfig

    for name in ("budget.xlsx", "finance/q1.xlsx", "hr/leave.xlsx", "archive/2023/q4.xlsx", "notes.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"")
    request = "I need every spreadsheet anywhere under this folder, one per line, in sheets.txt."

    def planner(prompt: str) -> str:
        if verifying(prompt):
            return host("FINISH", "listed")
        return assign(sub("1", "List every spreadsheet", "files", reads=["finance/q1.xlsx", "hr/leave.xlsx"],
                          writes=["sheets.txt"], tools=["write_file_names"]))

    def files(prompt: str) -> str:
        if step_of(prompt) == 1:
            return app("CONTINUE", ("write_file_names", {"into": "sheets.txt", "pattern": "*.xlsx"}))
        return app("FINISH", result="sheets.txt lists them")

    async def listed(profile: str) -> tuple[list[str], list[str]]:
        (tmp_path / "sheets.txt").unlink(missing_ok=True)
        result = await run_request(request, [FilesApplication(Workspace.at(tmp_path))], ScriptedBackend(planner),
                                   app_models={"files": ScriptedBackend(files)}, config=HostConfig(rules=profile))
        step = next(t for t in result.trajectory if t["agent"] == "app-files")
        return (tmp_path / "sheets.txt").read_text(encoding="utf-8").split(), step["rules"]

    names, fired = await listed("small-local")
    assert sorted(names) == ["archive/2023/q4.xlsx", "budget.xlsx", "finance/q1.xlsx", "hr/leave.xlsx"]
    assert "reach-declared-reads" in fired
    names, fired = await listed("none")  # the call as the model made it: the top folder's own
    assert names == ["budget.xlsx"] and "reach-declared-reads" not in fired


async def test_podiums_own_files_are_not_listed_to_the_planner_unless_the_request_names_them(tmp_path: Path) -> None:
    (tmp_path / "podium.toml").write_text("[host]\n", encoding="utf-8")
    (tmp_path / "shopping.txt").write_text("bread\n", encoding="utf-8")
    from podium.apps.files import FilesApplication

    for request, listed in [("Add eggs to the list", "shopping.txt"),
                            ("Show what podium.toml says", "podium.toml, shopping.txt")]:
        planner = ScriptedBackend(lambda prompt: host("FAIL", "nothing to do"))
        await run_request(request, [FilesApplication(Workspace.at(tmp_path))], planner)
        assert f"## Workspace files\n{listed}\n" in planner.prompts[0]


async def test_a_change_its_application_cannot_name_is_measured_on_the_declared_writes(tmp_path: Path) -> None:
    """A tool with no declared effects (a key pressed in a program, a command) leaves its evidence on the files
    its subtask declares it writes: the FINISH is believed because notes.txt changed."""
    from pydantic import Field

    from podium.apps.tooling import Args, ToolApplication, ToolSpec
    from podium.desktop import batch

    class SaveArgs(Args):
        keys: str = Field(description="keys to press")

    class Editor(ToolApplication):
        name = "editor"
        description = "a text editor"
        workspace = Workspace.at(tmp_path)

        def _specs(self) -> list[ToolSpec]:  # effects=None: it cannot say which files a key changes
            return [ToolSpec("press_keys", "Press keys.", SaveArgs, self._press, names_its_writes=False)]

        def _press(self, args: SaveArgs) -> dict[str, str]:
            (tmp_path / "notes.txt").write_text("eggs\n")
            return {"pressed": args.keys}

    def plan(prompt: str) -> str:
        if verifying(prompt):
            return host("FINISH", "saved")
        return assign(sub("1", "Type eggs and save notes.txt", "editor", writes=["notes.txt"], tools=["press_keys"]))

    def editor(prompt: str) -> str:
        if step_of(prompt) == 1:
            return app("CONTINUE", ("press_keys", {"keys": "ctrl+s"}))
        return app("FINISH", result="saved")

    result = await run_request("Type eggs into the editor and save it as notes.txt", [Editor()],
                               ScriptedBackend(plan), app_models={"editor": ScriptedBackend(editor)},
                               config=batch(auto_approve=True), workspace=tmp_path)
    assert result.ok, (str(result.reason), [(t["action"], t["outcome"]) for t in result.trajectory])
    assert [s["changed"] for s in result.subtasks] == [["notes.txt"]]


async def test_a_sheet_made_and_left_empty_is_questioned_then_filled(tmp_path: Path) -> None:
    """The verifier sees what the files hold: a FINISH after add_sheet alone names the empty sheet, and the
    agent fills it before its FINISH is believed."""
    book = openpyxl.Workbook()
    book.active.title = "Scores"
    book.active.append(["Name", "Score"])
    book.active.append(["Ada", 91])
    book.save(tmp_path / "scores.xlsx")
    workspace = Workspace.at(tmp_path)
    told: list[str] = []

    def plan(prompt: str) -> str:
        if verifying(prompt):
            return host("FINISH", "done")
        return assign(sub("1", "Add a sheet Ranking listing the scores", "spreadsheets", reads=["scores.xlsx"],
                          writes=["scores.xlsx"], tools=["add_sheet", "write_rows"]))

    def sheets(prompt: str) -> str:
        if step_of(prompt) == 1:
            return app("FINISH", ("add_sheet", {"path": "scores.xlsx", "name": "Ranking"}), result="added")
        if step_of(prompt) == 2:
            told.append(prompt)
            return app("FINISH", ("write_rows", {"path": "scores.xlsx", "sheet": "Ranking", "start": "A1",
                                                 "rows": [["Name", "Score"], ["Ada", 91]]}), result="filled")
        return app("FINISH", result="filled")

    result = await run_request("Rank the scores of scores.xlsx in a new sheet Ranking",
                               [SpreadsheetsApplication(workspace)], ScriptedBackend(plan),
                               app_models={"spreadsheets": ScriptedBackend(sheets)})
    assert result.ok, (str(result.reason), [(t["action"], t["outcome"]) for t in result.trajectory])
    assert told and "sheet 'Ranking' of scores.xlsx holds nothing: your calls made it and left it empty" in told[0]
    # with the tools of the application that write a table into a sheet they name
    assert ("sort_rows (by target_sheet), group_totals (by target_sheet), filter_rows (by target_sheet), "
            "remove_duplicate_rows (by target_sheet) write a table into a sheet they name") in told[0]
    ranking = openpyxl.load_workbook(tmp_path / "scores.xlsx")["Ranking"]
    assert ranking["A2"].value == "Ada"


async def test_a_sheet_left_empty_is_believed_from_a_finish_that_stands_by_itself_only(tmp_path: Path) -> None:
    """Asked about the empty sheet, an agent that answers FINISH alone is believed (an empty sheet may be what
    was asked); one that answers with writes that all found their work done answered with nothing, and fails."""

    async def run(second: str) -> Any:
        book = openpyxl.Workbook()
        book.active.title = "Scores"
        book.active.append(["Name", "Score"])
        book.active.append(["Ada", 91])
        book.save(tmp_path / "scores.xlsx")

        def plan(prompt: str) -> str:
            if verifying(prompt):
                return host("FINISH", "done")
            return assign(sub("1", "Add a sheet Ranking", "spreadsheets", reads=["scores.xlsx"],
                              writes=["scores.xlsx"], tools=["add_sheet"]))

        def sheets(prompt: str) -> str:
            if step_of(prompt) == 1:
                return app("FINISH", ("add_sheet", {"path": "scores.xlsx", "name": "Ranking"}), result="added")
            if second == "again":  # the rows Scores holds already: nothing written
                return app("FINISH", ("write_rows", {"path": "scores.xlsx", "sheet": "Scores", "start": "A1",
                                                     "rows": [["Name", "Score"], ["Ada", 91]]}), result="filled")
            return app("FINISH", result="an empty sheet Ranking, as asked")

        return await run_request("Add a sheet named Ranking to scores.xlsx", [SpreadsheetsApplication(
            Workspace.at(tmp_path))], ScriptedBackend(plan), app_models={"spreadsheets": ScriptedBackend(sheets)})

    believed = await run("alone")
    assert believed.ok, str(believed.reason)
    idle = await run("again")
    assert not idle.ok and "sheet 'Ranking' of scores.xlsx holds nothing" in str(idle.reason), str(idle.reason)


async def test_the_table_its_plan_puts_into_a_workbook_is_decided_on_by_the_workbooks_real_effects(
        tmp_path: Path) -> None:
    """With the small model's rules the table handed on goes into budget.xlsx by the plan's answer, no model
    call: on its empty sheet it runs (the file's own effects say it adds, and the plan declared the file);
    where the sheet holds data it would write over, the answer is forgotten without asking the person, and the
    first step is the model's."""
    from podium.desktop import HostConfig, batch

    for holding in (None, "Keep me"):
        root = tmp_path / ("empty" if holding is None else "holding")
        root.mkdir()
        make_folder(root)
        if holding is not None:
            book = openpyxl.load_workbook(root / "budget.xlsx")
            book.active["A1"] = holding
            book.save(root / "budget.xlsx")
        asked: list[str] = []
        beside = [app("CONTINUE", ("write_rows", {"path": "budget.xlsx", "start": "D1",
                                                  "rows": ref("1.read_table.rows")})), app("FINISH", result="done")]

        def sheets(prompt: str, asked: list[str] = asked, answers: list[str] = beside) -> str:
            asked.append(prompt)  # the model's own steps: the table beside what is there
            return answers[min(len(asked), len(answers)) - 1]

        workspace = Workspace.at(root)
        apps = [DocumentsApplication(workspace), SpreadsheetsApplication(workspace)]
        result = await run_request("Copy the table of report.docx into budget.xlsx", apps,
                                   ScriptedBackend(copier("budget.xlsx")),
                                   app_models={"documents": ScriptedBackend(documents),
                                               "spreadsheets": ScriptedBackend(sheets)},
                                   config=batch(HostConfig(rules="small-local")))
        assert result.ok, (str(result.reason), [(t["action"], t["outcome"]) for t in result.trajectory])
        first = next(t for t in result.trajectory if t["agent"] == "app-spreadsheets")
        assert first["rules"] == ["plan-writes-without-model"]
        sheet = openpyxl.load_workbook(root / "budget.xlsx").active
        if holding is None:  # the plan's answer ran, and was the subtask's only step
            assert "write_rows: ok" in first["outcome"] and first["status"] == "FINISH"
            assert sheet["A1"].value == "Quarter" and not asked
        else:
            assert first["outcome"].startswith("left to the model")
            assert not any(t["status"] in ("CONFIRM", "PENDING") for t in result.trajectory)  # nobody asked
            assert sheet["A1"].value == holding and sheet["D1"].value == "Quarter" and len(asked) == 2


async def test_with_the_rules_a_merge_its_plan_determines_runs_without_the_model(tmp_path: Path) -> None:
    """A subtask that reads two workbooks, writes a new one and declares merge_tables alone gets that call on
    those files as its answer: the rows of both under one header, no model call."""
    from podium.desktop import HostConfig

    for name, rows in (("north.xlsx", [["Customer", "City"], ["Nimbus", "Leeds"]]),
                       ("south.xlsx", [["City", "Customer"], ["Hull", "Bolt"]])):
        book = openpyxl.Workbook()
        book.active.title = "Customers"
        for row in rows:
            book.active.append(row)
        book.save(tmp_path / name)

    def merger(prompt: str) -> str:
        if verifying(prompt):
            return host("FINISH", "all.xlsx holds both lists")
        return assign(sub("1", "Merge the lists of north.xlsx and south.xlsx into all.xlsx", "spreadsheets",
                          reads=["north.xlsx", "south.xlsx"], writes=["all.xlsx"], tools=["merge_tables"]))

    asked: list[str] = []
    result = await run_request("Merge the customer lists in north.xlsx and south.xlsx into all.xlsx",
                               [SpreadsheetsApplication(Workspace.at(tmp_path))], ScriptedBackend(merger),
                               app_models={"spreadsheets": ScriptedBackend(lambda p: asked.append(p) or "")},
                               config=batch(HostConfig(rules="small-local")))
    assert result.ok, (str(result.reason), [(t["action"], t["outcome"]) for t in result.trajectory])
    first = next(t for t in result.trajectory if t["agent"] == "app-spreadsheets")
    assert first["rules"] == ["plan-writes-without-model"] and first["status"] == "FINISH" and not asked
    sheet = openpyxl.load_workbook(tmp_path / "all.xlsx")["Customers"]
    assert [list(r) for r in sheet.values] == [["Customer", "City"], ["Nimbus", "Leeds"], ["Bolt", "Hull"]]


async def test_the_value_a_reader_names_goes_into_the_new_text_file_its_plan_writes(tmp_path: Path) -> None:
    """With the small model's rules, the one value a reader named as its result (a column's sum) is written
    into the new text file its dependant declares, by the plan's answer and no model call; a text file the
    person has already, a reader that named no value, or one whose plan hands on a table (the value it named
    is one of its figures, which the writer chooses among), leaves the step to the model."""
    from podium.apps.files import FilesApplication
    from podium.desktop import HostConfig, batch

    def plan(prompt: str) -> str:
        if verifying(prompt):
            return host("FINISH", "total.txt holds the total")
        hands = "table" if "table" in str(root) else "number"
        return assign(sub("1", "Sum the Revenue column of budget.xlsx", "spreadsheets", reads=["budget.xlsx"],
                          tools=["column_totals"], hands_on=hands),
                      sub("2", "Write the total of subtask 1 into total.txt", "files", "1", writes=["total.txt"],
                          tools=["write_file"]))

    for case in ("named", "there", "unnamed", "table"):
        root = tmp_path / case
        root.mkdir()
        book = openpyxl.Workbook()
        for row in TABLE:
            book.active.append([row[0], row[1] if row[1] == "Revenue" else int(row[1])])
        book.save(root / "budget.xlsx")
        if case == "there":
            (root / "total.txt").write_text("mine\n")
        asked: list[str] = []

        def sheets(prompt: str, case: str = case) -> str:
            if step_of(prompt) == 1:
                return app("CONTINUE", ("column_totals", {"path": "budget.xlsx"}))
            return app("FINISH", result=ref("1.column_totals.columns.Revenue.sum") if case != "unnamed" else "summed")

        def files(prompt: str, asked: list[str] = asked) -> str:
            asked.append(prompt)
            return app("FINISH", ("write_file", {"path": "total.txt", "content": "Total: 405", "overwrite": True}),
                       result="written")

        workspace = Workspace.at(root)
        result = await run_request("Sum the Revenue column of budget.xlsx into total.txt",
                                   [SpreadsheetsApplication(workspace), FilesApplication(workspace)],
                                   ScriptedBackend(plan), app_models={"spreadsheets": ScriptedBackend(sheets),
                                                                      "files": ScriptedBackend(files)},
                                   config=batch(HostConfig(rules="small-local")))
        first = next(t for t in result.trajectory if t["agent"] == "app-files")
        if case == "named":
            assert result.ok, (str(result.reason), [(t["action"], t["outcome"]) for t in result.trajectory])
            assert first["rules"] == ["plan-writes-without-model"] and not asked
            assert (root / "total.txt").read_text() == "405"
        else:  # the model's step: the person's file is not written whole by the plan, nor a value not named
            assert "plan-writes-without-model" not in first["rules"] and asked, case


async def test_data_a_writer_names_as_its_result_instead_of_writing_it_is_written(tmp_path: Path) -> None:
    """With the small model's rules, a writer whose FINISH names handed data by reference and wrote none of it
    gets that data written into its declared file by its application's text writer; a path its giver's call
    repeats is no data to write, and without the rules the FINISH is questioned as before."""
    from podium.apps.files import FilesApplication
    from podium.desktop import HostConfig, batch

    def plan(prompt: str) -> str:
        if verifying(prompt):
            return host("FINISH", "names.txt holds the names")
        copier = "copier" in str(root)  # a copy into a folder: no text file to write the data into
        return assign(sub("1", "Read the people of people.xlsx", "spreadsheets", reads=["people.xlsx"],
                          tools=["read_sheet"], hands_on="table"),
                      sub("2", "Write the names of subtask 1 into names.txt", "files", "1",
                          writes=["old" if copier else "names.txt"],
                          tools=["make_folder", "copy_or_move"] if copier else ["write_file"]))

    for case, rules in (("column", "small-local"), ("path", "small-local"), ("column", "none"),
                        ("copier", "small-local")):
        root = tmp_path / f"{case}-{rules}"
        root.mkdir()
        book = openpyxl.Workbook()
        for row in (["Name", "City"], ["Ada", "Oslo"], ["Bea", "Rome"]):
            book.active.append(row)
        book.save(root / "people.xlsx")
        named = "1.read_sheet.path" if case == "path" else "1.read_sheet.rows.column.Name"
        asked: list[str] = []

        def sheets(prompt: str) -> str:
            if step_of(prompt) == 1:
                return app("CONTINUE", ("read_sheet", {"path": "people.xlsx"}))
            return app("FINISH", result="read")

        def files(prompt: str, asked: list[str] = asked, named: str = named) -> str:
            asked.append(prompt)
            return app("FINISH", result=ref(named))

        workspace = Workspace.at(root)
        result = await run_request("Write the names in people.xlsx into names.txt",
                                   [SpreadsheetsApplication(workspace), FilesApplication(workspace)],
                                   ScriptedBackend(plan), app_models={"spreadsheets": ScriptedBackend(sheets),
                                                                      "files": ScriptedBackend(files)},
                                   config=batch(HostConfig(rules=rules, max_subtask_steps=4)))
        fired = [r for t in result.trajectory if t["agent"] == "app-files" for r in t["rules"]]
        if case == "column" and rules == "small-local":
            assert result.ok, (str(result.reason), [(t["action"], t["outcome"]) for t in result.trajectory])
            assert "result-ref-is-content" in fired and len(asked) == 1
            assert (root / "names.txt").read_text() == "Ada\nBea"
        else:
            assert "result-ref-is-content" not in fired and not (root / "names.txt").exists(), (case, rules)
            assert not (root / "old").is_file()


async def test_a_writer_that_wrote_a_whole_table_and_names_a_part_of_it_as_its_result_gets_that_part(
        tmp_path: Path) -> None:
    """With the small model's rules, a writer whose text holds every row of the table handed to it, and whose
    FINISH (after the question about it) names by reference a part of that table it was offered, gets that part
    written in place of the whole; one that stands by the whole table fails."""
    from podium.apps.files import FilesApplication
    from podium.desktop import HostConfig, batch

    rows = [["Name", "Team"], ["Ada", "red"], ["Bea", "blue"], ["Ada", "red"], ["Cy", "red"], ["Dee", "blue"]]
    save_rows(tmp_path / "people.xlsx", rows)

    def plan(prompt: str) -> str:
        if verifying(prompt):
            return host("FINISH", "twice.txt lists them")
        return assign(sub("1", "Read the people of people.xlsx", "spreadsheets", reads=["people.xlsx"],
                          tools=["read_sheet"], hands_on="table"),
                      sub("2", "Write the rows of subtask 1 that repeat into twice.txt", "files", "1",
                          writes=["twice.txt"], tools=["write_file"]))

    def sheets(prompt: str) -> str:
        if step_of(prompt) == 1:
            return app("CONTINUE", ("read_sheet", {"path": "people.xlsx"}))
        return app("FINISH", result="read")

    def files(prompt: str, named: bool) -> str:
        if step_of(prompt) == 1:
            every = "\n".join(",".join(row) for row in rows)
            return app("CONTINUE", ("write_file", {"path": "twice.txt", "content": every}))
        return app("FINISH", result=ref("1.read_sheet.rows.repeated_rows") if named else "done")

    workspace = Workspace.at(tmp_path)
    for named in (True, False):
        (tmp_path / "twice.txt").unlink(missing_ok=True)
        result = await run_request("List the people of people.xlsx that appear twice in twice.txt",
                                   [SpreadsheetsApplication(workspace), FilesApplication(workspace)],
                                   ScriptedBackend(plan), app_models={
                                       "spreadsheets": ScriptedBackend(sheets),
                                       "files": ScriptedBackend(lambda prompt, named=named: files(prompt, named))},
                                   config=batch(HostConfig(rules="small-local", max_subtask_steps=5)))
        fired = [r for t in result.trajectory if t["agent"] == "app-files" for r in t["rules"]]
        if named:
            assert result.ok, (str(result.reason), [(t["action"], t["outcome"]) for t in result.trajectory])
            assert "result-ref-is-content" in fired
            assert (tmp_path / "twice.txt").read_text().splitlines() == ["Name\tTeam", "Ada\tred"]
        else:  # standing by the whole table, asked about once: not done (rule whole-is-failure)
            assert not result.ok and "every row of the table" in str(result.reason)
            assert "whole-is-failure" in [r for t in result.trajectory for r in t["rules"]]


async def test_a_file_the_run_made_is_written_again_without_the_overwrite_flag(tmp_path: Path) -> None:
    """What the run made is its own: a whole-file write over it needs no approval, so no flag either; a file
    the person had is still refused without it."""
    from podium.apps.files import FilesApplication

    (tmp_path / "notes.txt").write_text("mine\n")

    def plan(prompt: str) -> str:
        if verifying(prompt):
            return host("FINISH", "total.txt holds the total")
        return assign(sub("1", "Write the total into total.txt", "files", writes=["total.txt", "notes.txt"],
                          tools=["write_file"]))

    def files(prompt: str) -> str:
        step = step_of(prompt)
        if step == 1:
            return app("CONTINUE", ("write_file", {"path": "total.txt", "content": "Item\tAmount\npen\t42\n"}))
        if step == 2:
            return app("CONTINUE", ("write_file", {"path": "total.txt", "content": "42"}),
                       ("write_file", {"path": "notes.txt", "content": "42"}))
        return app("FINISH", result="42")

    result = await run_request("Write the total into total.txt and notes.txt",
                               [FilesApplication(Workspace.at(tmp_path))], ScriptedBackend(plan),
                               app_models={"files": ScriptedBackend(files)})
    second = [t for t in result.trajectory if t["agent"] == "app-files"][1]
    assert '"overwrite": true' in second["action"] and "write_file: ok" in second["outcome"], second
    assert (tmp_path / "total.txt").read_text() == "42"
    assert (tmp_path / "notes.txt").read_text() == "mine\n"  # the person's: refused without the flag
    assert "already exists" in second["outcome"]


async def test_a_row_for_the_sheet_its_subtask_names_goes_into_that_sheet(tmp_path: Path) -> None:
    """Rule part-from-description: the call names no sheet, the subtask names one of the workbook's."""
    from podium.desktop import HostConfig

    book = openpyxl.Workbook()
    book.active.title = "H1"
    for name in ("H1", "H2"):
        sheet = book[name] if name in book.sheetnames else book.create_sheet(name)
        sheet.append(["Item", "Cost"])
        sheet.append(["Rent", 900])
    book.save(tmp_path / "costs.xlsx")
    row = {"path": "costs.xlsx", "rows": [["Insurance", 640]]}

    def plan(prompt: str) -> str:
        if verifying(prompt):
            return host("FINISH", "added")
        return assign(sub("1", "Append Insurance, 640 below the last row of the H2 sheet of costs.xlsx",
                          "spreadsheets", writes=["costs.xlsx"], tools=["append_rows"]))

    def sheets(prompt: str) -> str:
        return app("CONTINUE", ("append_rows", row)) if step_of(prompt) == 1 else app("FINISH", result="added")

    async def run(rules: str) -> list[Any]:
        book.save(tmp_path / "costs.xlsx")
        result = await run_request("Append Insurance, 640 to the H2 sheet of costs.xlsx",
                                   [SpreadsheetsApplication(Workspace.at(tmp_path))], ScriptedBackend(plan),
                                   app_models={"spreadsheets": ScriptedBackend(sheets)}, config=HostConfig(rules=rules))
        step = next(t for t in result.trajectory if t["agent"] == "app-spreadsheets")
        saved = openpyxl.load_workbook(tmp_path / "costs.xlsx")
        return [step, [[c.value for c in r] for r in saved["H1"].iter_rows()],
                [[c.value for c in r] for r in saved["H2"].iter_rows()]]

    step, first, second = await run("small-local")
    assert "part-from-description" in step["rules"] and '"sheet": "H2"' in step["action"]
    assert first == [["Item", "Cost"], ["Rent", 900]] and second[-1] == ["Insurance", 640]
    # without the rule a call that names no sheet changes the active one, as its tool says
    step, first, second = await run("none")
    assert "part-from-description" not in step["rules"] and first[-1] == ["Insurance", 640]


async def test_a_read_that_names_no_sheet_reads_the_one_the_request_names(tmp_path: Path) -> None:
    """Rule part-from-description: the planner's description dropped the sheet; the person's request names it.
    A change is not moved so (the sheet a request names may be the source of a copy, not its target)."""
    from podium.desktop import HostConfig

    book = openpyxl.Workbook()
    book.active.title = "Active"
    book.active.append(["Customer"])
    book.active.append(["Nordwind"])
    archive = book.create_sheet("Archive")
    archive.append(["Customer"])
    archive.append(["Kestrel Print"])
    book.save(tmp_path / "crm.xlsx")
    request = "Before I clear the Archive sheet of crm.xlsx, tell me the customers on it"

    def plan(prompt: str) -> str:
        if verifying(prompt):
            return host("FINISH", "read")
        return assign(sub("1", "Read the customers of crm.xlsx", "spreadsheets", reads=["crm.xlsx"],
                          tools=["read_sheet"], hands_on="table"))

    def sheets(prompt: str) -> str:
        return app("CONTINUE", ("read_sheet", {"path": "crm.xlsx"})) if step_of(prompt) == 1 else \
            app("FINISH", result="read")

    async def run(rules: str) -> dict[str, Any]:
        result = await run_request(request, [SpreadsheetsApplication(Workspace.at(tmp_path))],
                                   ScriptedBackend(plan), app_models={"spreadsheets": ScriptedBackend(sheets)},
                                   config=HostConfig(rules=rules))
        # the model's read, after the one its plan made (the active sheet, the others left out)
        return [t for t in result.trajectory if t["agent"] == "app-spreadsheets" and "read_sheet" in t["action"]][-1]

    step = await run("small-local")
    assert "part-from-description" in step["rules"] and "Kestrel Print" in step["outcome"], step
    step = await run("none")
    assert "part-from-description" not in step["rules"] and "Nordwind" in step["outcome"], step


async def test_rows_written_after_a_sheet_added_in_the_same_answer_go_into_that_sheet(tmp_path: Path) -> None:
    """Rule part-just-added: an answer that adds a sheet and then writes rows naming none means the sheet it
    just added (the one a spreadsheet program shows once it is inserted), not the person's active sheet."""
    from podium.desktop import HostConfig

    book = openpyxl.Workbook()
    book.active.title = "Orders"
    orders = [["Order", "Region"], [1, "North"], [2, "South"], [3, "North"]]
    for row in orders:
        book.active.append(row)
    book.save(tmp_path / "orders.xlsx")
    north, south = [orders[0], orders[1], orders[3]], [orders[0], orders[2]]

    def plan(prompt: str) -> str:
        if verifying(prompt):
            return host("FINISH", "split")
        return assign(sub("1", "Split the orders of orders.xlsx into a sheet per region", "spreadsheets",
                          reads=["orders.xlsx"], writes=["orders.xlsx"], tools=["add_sheet", "write_rows"]))

    def sheets(prompt: str) -> str:
        return app("FINISH", ("add_sheet", {"path": "orders.xlsx", "name": "North"}),
                   ("write_rows", {"path": "orders.xlsx", "rows": north}),
                   ("add_sheet", {"path": "orders.xlsx", "name": "South"}),
                   ("write_rows", {"path": "orders.xlsx", "rows": south}), result="split") \
            if step_of(prompt) == 1 else app("FINISH", result="split")

    async def run(rules: str) -> openpyxl.Workbook:
        shutil.copy(tmp_path / "orders.xlsx", tmp_path / "kept.xlsx")
        await run_request("Split the orders in orders.xlsx into a sheet per region",
                          [SpreadsheetsApplication(Workspace.at(tmp_path))], ScriptedBackend(plan),
                          app_models={"spreadsheets": ScriptedBackend(sheets)}, config=HostConfig(rules=rules))
        done = openpyxl.load_workbook(tmp_path / "orders.xlsx")
        shutil.move(tmp_path / "kept.xlsx", tmp_path / "orders.xlsx")
        return done

    done = await run("small-local")
    assert [list(r) for r in done["North"].values] == north and [list(r) for r in done["South"].values] == south
    assert [list(r) for r in done["Orders"].values] == orders
    # without the rule the rows go to the active sheet, the person's, which batch mode does not let them change
    done = await run("none")
    assert [list(r) for r in done["Orders"].values] == orders and not list(done["North"].values)


async def test_a_path_is_not_made_the_declared_new_file_for_a_tool_that_opens_one_that_exists(
        tmp_path: Path) -> None:
    """Rule path-from-declaration: a save names the file its subtask makes; an open cannot open it."""
    from pydantic import Field

    from podium.apps.tooling import EXISTING, Args, ToolApplication, ToolSpec
    from podium.desktop.shell.app_step import AppStepBackend
    from podium.desktop.wire.messages import AppStepRequest

    class PathArgs(Args):
        path: str = Field(description="a file")

    class OpenArgs(Args):
        path: str = Field(description="a file that exists", json_schema_extra={EXISTING: True})

    class Editor(ToolApplication):
        name = "editor"
        description = "a text editor"
        file_types = (".txt",)
        workspace = Workspace.at(tmp_path)

        def _specs(self) -> list[ToolSpec]:
            return [ToolSpec("open_file", "Open a file.", OpenArgs, lambda a: {}, blocking=False),
                    ToolSpec("save", "Save as a file.", PathArgs, lambda a: {}, blocking=False)]

    (tmp_path / "podium.toml").write_text("")
    step = AppStepBackend(None, Editor())  # type: ignore[arg-type]  (no model is asked)
    request = AppStepRequest(rules=("path-from-declaration",), writes=("notes.txt",))
    opened = await step._facts("open_file", {"path": "podium.toml"}, {}, request)
    assert opened.arguments == {"path": "podium.toml"} and not opened.rewritten
    saved = await step._facts("save", {"path": "podium.toml"}, {}, request)
    assert saved.arguments == {"path": "notes.txt"} and saved.rewritten == ("path-from-declaration",)


async def test_a_chart_over_more_columns_than_its_subtask_names_is_drawn_again_over_those_alone(
        tmp_path: Path) -> None:
    """Rule columns-as-named: asked about the columns, a small model repeats its call; the rule makes it again
    over the columns named, and the chart it draws replaces the first."""
    from podium.desktop import HostConfig

    book = openpyxl.Workbook()
    book.active.title = "Sales"
    for row in (["Quarter", "North", "South", "East", "West"], ["Q1", 5, 6, 7, 8], ["Q2", 6, 7, 8, 9]):
        book.active.append(row)
    chart = {"path": "regions.xlsx", "kind": "line", "data": "A1:E3", "title": "Sales", "sheet": "Sales"}

    def plan(prompt: str) -> str:
        if verifying(prompt):
            return host("FINISH", "charted")
        return assign(sub("1", "Create a line chart in regions.xlsx of the North and West columns", "spreadsheets",
                          reads=["regions.xlsx"], writes=["regions.xlsx"], tools=["add_chart"]))

    def sheets(prompt: str) -> str:
        return app("FINISH", ("add_chart", chart), result="charted")

    async def run(rules: str) -> tuple[Any, bool, list[Any]]:
        book.save(tmp_path / "regions.xlsx")
        result = await run_request("Make a line chart in regions.xlsx of only the North and West columns",
                                   [SpreadsheetsApplication(Workspace.at(tmp_path))], ScriptedBackend(plan),
                                   app_models={"spreadsheets": ScriptedBackend(sheets)},
                                   config=HostConfig(rules=rules, max_subtask_steps=4))
        charts = openpyxl.load_workbook(tmp_path / "regions.xlsx")["Sales"]._charts
        fired = any("columns-as-named" in step.get("rules", ()) for step in result.trajectory)
        return result, fired, [[s.tx.strRef.f for s in c.series] for c in charts]

    result, fired, charts = await run("small-local")
    assert result.ok and fired, [(t["action"], t["outcome"]) for t in result.trajectory]
    assert charts == [["'Sales'!B1", "'Sales'!E1"]]  # one chart, over North and West alone
    # without the rule, the agent is asked about the columns once and believed when it stands by its chart
    result, fired, charts = await run("none")
    assert result.ok and not fired and len(charts) == 1 and len(charts[0]) == 4


async def test_a_record_value_its_subtask_leaves_unwritten_is_asked_of_the_person(tmp_path: Path) -> None:
    """A FINISH that leaves the workbook it writes as it was, over an empty cell of a record under a column its
    subtask names, is no answer: the person is asked for the value, with no compensation rules. An answer is
    written; in batch mode nobody answers, and the run fails instead of reporting done."""
    import asyncio
    from dataclasses import replace

    from podium.desktop import HostConfig, HostSession
    from podium.desktop.person import Question

    book = openpyxl.Workbook()
    book.active.title = "Contacts"
    for row in (["Company", "Contact", "Phone"], ["Bolt & Sons", "Maria Bolt", "+44 20 7946 0018"],
                ["Acme Corp", "John Doe", None]):
        book.active.append(row)
    asked: list[Question] = []

    def plan(prompt: str) -> str:
        if verifying(prompt):
            return host("FAIL" if "ended FAIL" in prompt else "FINISH", "done")
        return assign(sub("1", "Fill in the missing phone number of Acme Corp in contacts.xlsx", "spreadsheets",
                          reads=["contacts.xlsx"], writes=["contacts.xlsx"], tools=["set_cell"]))

    def sheets(prompt: str) -> str:
        if "A: +1 555 0100" in prompt:
            return app("FINISH", ("set_cell", {"path": "contacts.xlsx", "cell": "C3", "value": "+1 555 0100"}),
                       result="filled in")
        if step_of(prompt) == 1:
            return app("CONTINUE", ("read_sheet", {"path": "contacts.xlsx"}))
        return app("FINISH", result="contacts.xlsx has the rows")

    def person(question: Question) -> list[str]:
        asked.append(question)
        return ["+1 555 0100"] * len(question.questions)

    question = "What is the Phone of Acme Corp (C3) in contacts.xlsx? It is empty there."
    config = HostConfig(rules="none", max_subtask_steps=6)
    book.save(tmp_path / "contacts.xlsx")
    apps = [SpreadsheetsApplication(Workspace.at(tmp_path))]
    async with await HostSession.start(apps, ScriptedBackend(plan), ask_person=person,
                                       config=replace(config, interactive=True),
                                       app_models={"spreadsheets": ScriptedBackend(sheets)}) as session:
        result = await asyncio.wait_for(session.run("Fill in the missing phone number of Acme Corp in contacts.xlsx"),
                                        30)
    assert result.ok, [(t["action"], t["outcome"]) for t in result.trajectory]
    assert [q.questions for q in asked] == [(question,)]
    assert openpyxl.load_workbook(tmp_path / "contacts.xlsx")["Contacts"]["C3"].value == "+1 555 0100"
    # batch mode: the default answer gives no value, and a FINISH that still wrote nothing is a failure
    book.save(tmp_path / "contacts.xlsx")
    before = (tmp_path / "contacts.xlsx").read_bytes()
    result = await run_request("Fill in the missing phone number of Acme Corp in contacts.xlsx",
                               [SpreadsheetsApplication(Workspace.at(tmp_path))], ScriptedBackend(plan),
                               app_models={"spreadsheets": ScriptedBackend(sheets)}, config=config)
    (subtask,) = result.subtasks
    assert result.status == "FAIL" and "contacts.xlsx is unchanged" in subtask["reason"], subtask["reason"]
    assert [(q["question"], q["answered_by"]) for q in result.blackboard["questions"]] == [(question, "default")]
    assert (tmp_path / "contacts.xlsx").read_bytes() == before


async def test_a_sheet_the_run_added_to_the_persons_workbook_is_its_own_to_sort_in_batch_mode(tmp_path: Path) -> None:
    """A sort in place loses the order a sheet had: of the person's sheet, batch mode refuses it; of the sheet
    the run added and filled, nothing of the person's is lost, so it runs unasked."""
    rows = [["Name", "Score"], ["Ada", 71], ["Ben", 93], ["Cy", 85]]

    def workbook() -> None:
        save_rows(tmp_path / "scores.xlsx", rows, "Scores")

    def plan(prompt: str) -> str:
        if verifying(prompt):
            return host("FINISH", "done")
        return assign(sub("1", "Add a sheet Ranking listing the scores from highest to lowest", "spreadsheets",
                          reads=["scores.xlsx"], writes=["scores.xlsx"],
                          tools=["add_sheet", "write_rows", "sort_rows"]))

    def sheets(sheet: str) -> Any:
        def answer(prompt: str) -> str:
            if step_of(prompt) == 1:
                return app("CONTINUE", ("add_sheet", {"path": "scores.xlsx", "name": "Ranking"}),
                           ("write_rows", {"path": "scores.xlsx", "sheet": "Ranking", "start": "A1", "rows": rows}))
            if step_of(prompt) == 2:
                return app("FINISH", ("sort_rows", {"path": "scores.xlsx", "sheet": sheet, "by": "Score",
                                                    "order": "descending"}), result="ranked")
            return app("FINISH", result="ranked")
        return answer

    for sheet, sorted_ok in (("Ranking", True), ("Scores", False)):
        (tmp_path / "scores.xlsx").unlink(missing_ok=True)
        workbook()
        result = await run_request("Rank the scores of scores.xlsx in a new sheet Ranking",
                                   [SpreadsheetsApplication(Workspace.at(tmp_path))], ScriptedBackend(plan),
                                   app_models={"spreadsheets": ScriptedBackend(sheets(sheet))}, config=batch())
        book = openpyxl.load_workbook(tmp_path / "scores.xlsx")
        assert [[c.value for c in r] for r in book["Scores"].iter_rows()] == rows  # the person's sheet as it was
        ranked = [[c.value for c in r] for r in book["Ranking"].iter_rows()]
        if sorted_ok:
            assert result.ok, (str(result.reason), [(t["action"], t["outcome"]) for t in result.trajectory])
            assert ranked == [rows[0], rows[2], rows[3], rows[1]]
        else:
            assert ranked == rows
            assert any("sort_rows" in str(t["action"]) and "would delete, overwrite or replace what scores.xlsx "
                       "already holds" in str(t["action"]) for t in result.trajectory), result.trajectory


async def test_a_move_whose_sources_the_plan_only_reads_is_settled_from_the_request_before_it_runs(
        tmp_path: Path) -> None:
    """With the small model's rules, a plan whose subtask declares copy_or_move and only reads its sources is
    held while the planner answers, under a grammar of the mode's options, which mode the request asks for:
    "move" makes the sources writes, so the move runs under --yes; "copy", or an answer that is no option,
    leaves them reads, and a move of them is refused. Without the rule nothing is asked, and the move of files
    the plan only reads is refused."""
    from podium.apps.files import FilesApplication
    from podium.desktop import HostConfig, batch
    from podium.desktop.wire.prompts import CHOICE_SYSTEM

    for answer, rules in (("move", "small-local"), ("copy", "small-local"), ("sideways", "small-local"),
                          (None, "none")):
        root = tmp_path / f"{answer}-{rules}"
        root.mkdir()
        for name in ("a.txt", "b.txt", "keep.csv"):
            (root / name).write_text(f"{name}\n")

        def plan(prompt: str, answer: str | None = answer) -> str:
            if "say what becomes of" in prompt:
                return json.dumps({"words": "Put the .txt files into a folder notes", "answer": answer})
            if verifying(prompt):
                return host("FINISH", "the .txt files are in notes")
            return assign(sub("1", "Put the .txt files into notes", "files", reads=["*.txt"], writes=["notes"],
                              tools=["copy_or_move"]))

        def files(prompt: str) -> str:
            if step_of(prompt) == 1:
                return app("CONTINUE", ("copy_or_move", {"mode": "move", "source": "*.txt", "destination": "notes"}))
            return app("FINISH", result="moved")

        planner, mover = Spy(plan), Spy(files)
        result = await run_request("Put the .txt files into a folder notes.", [FilesApplication(Workspace.at(root))],
                                   planner, app_models={"files": mover},
                                   config=batch(HostConfig(rules=rules, max_subtask_steps=4), auto_approve=True))
        fired = [r for t in result.trajectory for r in t["rules"]]
        choices = [p for p in planner.seen if p.system == CHOICE_SYSTEM]
        moved = (root / "notes" / "a.txt").exists() and not (root / "a.txt").exists()
        assert ("open-choice-asked" in fired) == (rules == "small-local")
        if rules == "small-local":
            assert len(choices) == 1 and choices[0].schema is not None
            assert choices[0].schema["properties"]["answer"]["enum"] == ["copy", "move"]
            assert list(choices[0].schema["properties"]) == ["words", "answer"]  # the request's words first
            assert "*.txt" in choices[0].text and "Put the .txt files into a folder notes." in choices[0].text
            assert "Workspace files" not in choices[0].text  # the request and the plan, nothing listed or read
        else:
            assert not choices
        # the settled option is the only one the AppAgent's grammar offers; unsettled, both
        modes = {json.dumps(o) for p in mover.seen for o in _modes(p.schema)}
        assert modes == ({json.dumps([answer])} if answer in ("copy", "move") else {json.dumps(["copy", "move"])})
        if answer == "move":
            assert result.ok, (str(result.reason), [(t["action"], t["outcome"]) for t in result.trajectory])
            assert moved and (root / "notes" / "b.txt").read_text() == "b.txt\n" and (root / "keep.csv").exists()
        else:
            assert not result.ok and not moved and (root / "a.txt").read_text() == "a.txt\n"
        if answer == "sideways":
            assert any(t["outcome"].startswith("not settled") for t in result.trajectory)


def _modes(node: Any) -> list[Any]:
    """Every enum of a `mode` argument in a grammar's schema."""
    if isinstance(node, dict):
        found = [node["mode"]["enum"]] if isinstance(node.get("mode"), dict) and "enum" in node["mode"] else []
        return found + [m for value in node.values() for m in _modes(value)]
    if isinstance(node, list):
        return [m for value in node for m in _modes(value)]
    return []


async def test_a_new_sheet_planned_as_a_new_file_is_settled_from_the_request_before_it_runs(tmp_path: Path) -> None:
    """Rule open-choice-asked: a plan that writes Results.xlsx, which the request names only as "Results", beside
    race.xlsx, which it names and the subtask reads, is held while the planner answers whether Results is a file
    or a sheet of race.xlsx; "sheet" makes the subtask write race.xlsx, and its AppAgent is told which sheet."""
    from podium.desktop import HostConfig, batch

    rows = [["Runner", "Minutes"], ["Okafor", 41.5], ["Lindqvist", 38.25]]
    request = "Rank the runners in race.xlsx by their time, fastest first, on a new sheet called Results."
    for answer in ("sheet", "file"):
        root = tmp_path / answer
        root.mkdir()
        save_rows(root / "race.xlsx", rows, "Times")

        def plan(prompt: str, answer: str = answer) -> str:
            if "that name Results" in prompt:
                return json.dumps({"words": "on a new sheet called Results", "answer": answer})
            if verifying(prompt):
                return host("FINISH", "ranked")
            return assign(sub("1", "Rank the runners of race.xlsx into Results.xlsx", "spreadsheets",
                              reads=["race.xlsx"], writes=["Results.xlsx"], tools=["sort_rows"]))

        def sheets(prompt: str) -> str:
            if step_of(prompt) > 1:
                return app("FINISH", result="ranked")
            if "(Results is a sheet of race.xlsx, not a file)" in prompt:  # with the request, its one subtask
                return app("CONTINUE", ("sort_rows", {"path": "race.xlsx", "sheet": "Times", "by": "Minutes",
                                                      "order": "ascending", "target_sheet": "Results"}))
            return app("CONTINUE", ("write_rows", {"path": "Results.xlsx", "rows": rows}))

        result = await run_request(request, [SpreadsheetsApplication(Workspace.at(root))], ScriptedBackend(plan),
                                   app_models={"spreadsheets": ScriptedBackend(sheets)},
                                   config=batch(HostConfig(rules="small-local", max_subtask_steps=4),
                                                auto_approve=True))
        book = openpyxl.load_workbook(root / "race.xlsx")
        if answer == "sheet":
            assert result.ok, (str(result.reason), [(t["action"], t["outcome"]) for t in result.trajectory])
            assert [list(r) for r in book["Results"].values] == [rows[0], rows[2], rows[1]]
            assert not (root / "Results.xlsx").exists()
        else:
            assert book.sheetnames == ["Times"] and (root / "Results.xlsx").exists()
        assert any("which is Results? (sheet or file)" in t["action"] for t in result.trajectory)
