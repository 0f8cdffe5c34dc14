"""A typed plan is checked by set operations on its declarations; each problem is a sentence to act on."""

from __future__ import annotations

from typing import Any

from podium.desktop.host import amend
from podium.desktop.host.capability import covered
from podium.desktop.host.catalog import AppInfo, Catalog, ToolInfo
from podium.desktop.host.plan import check_plan, data_takers, folders_apart, named_by, unplaced
from podium.desktop.wire.prompts import choice_user
from podium.desktop.wire.schemas import HandsOn, SubtaskSpec

CATALOG = Catalog((
    AppInfo("documents", "docs", (".docx",), (ToolInfo("read_table", True), ToolInfo("add_table", False))),
    AppInfo("spreadsheets", "sheets", (".xlsx",), (ToolInfo("read_sheet", True), ToolInfo("write_rows", False),
                                                   ToolInfo("add_chart", False))),
    AppInfo("files", "any file", (), (ToolInfo("list_files", True), ToolInfo("write_file", False),
                                      ToolInfo("copy_or_move", False))),
))
FILES = ("report.docx", "budget.xlsx", "notes", "notes/a.txt")
REQUEST = "Extract the table from report.docx and create a bar chart of it in budget.xlsx"


def spec(id: str = "1", application: str = "documents", *deps: str, **fields: Any) -> SubtaskSpec:
    base: dict[str, Any] = {"id": id, "description": f"subtask {id}", "application": application,
                            "depends_on": list(deps)}
    return SubtaskSpec.model_validate({**base, **fields})


SEED = [spec("1", reads=["report.docx"], tools=["read_table"], hands_on="table"),
        spec("2", "spreadsheets", "1", writes=["budget.xlsx"], tools=["write_rows", "add_chart"])]


def problems(*subtasks: SubtaskSpec, request: str = REQUEST, files: Any = FILES, **kw: Any) -> list[str]:
    return list(check_plan(subtasks, CATALOG, request, files, **kw).problems)


def test_the_seed_plan_passes() -> None:
    check = check_plan(SEED, CATALOG, REQUEST, FILES)
    assert check.ok and [s.id for s in check.subtasks] == ["1", "2"]


def test_the_graph_must_be_one() -> None:
    assert any("two subtasks have the id '1'" in p for p in problems(SEED[0], SEED[0]))
    assert any("depends on unknown subtask '9'" in p for p in problems(
        SEED[0], spec("2", "spreadsheets", "9", writes=["budget.xlsx"], tools=["write_rows"])))
    assert any("comes after it" in p for p in problems(
        spec("2", "spreadsheets", "1", writes=["budget.xlsx"], tools=["write_rows"]), *SEED[:1]))
    assert any("depends on itself" in p for p in problems(
        spec("1", reads=["report.docx"], tools=["read_table"], depends_on=["1"]), SEED[1]))
    assert any("no new subtasks" in p for p in problems())


def test_applications_and_tools_must_exist() -> None:
    found = problems(spec("1", "excel", reads=["report.docx"], tools=["read_table"]), SEED[1])
    assert any("unknown application 'excel': choose one of documents, spreadsheets, files" in p for p in found)
    found = problems(spec("1", reads=["report.docx"], tools=["add_chart"]), SEED[1])
    assert any("documents has no tool add_chart; its tools are read_table, add_table" in p for p in found)
    assert any("declares no tools" in p for p in problems(spec("1", reads=["report.docx"]), SEED[1]))


def test_reads_must_exist_or_be_written_before() -> None:
    found = problems(spec("1", reads=["invented.docx"], tools=["read_table"]), SEED[1])
    assert any("reads invented.docx, which is not in the workspace" in p and "report.docx" in p for p in found)
    # written by a subtask it waits for: fine
    assert problems(spec("1", "files", writes=["new.txt"], tools=["write_file"]),
                    spec("2", "files", "1", reads=["new.txt"], tools=["list_files"]),
                    request="Write new.txt and list it") == []
    # no workspace known: nothing to compare with
    assert check_plan([spec("1", reads=["anything.docx"], tools=["read_table"])], CATALOG, "", None).ok


def test_a_typed_application_opens_only_its_types() -> None:
    found = problems(SEED[0], spec("2", "documents", "1", reads=["report.docx", "budget.xlsx"],
                                   writes=["report.docx"], tools=["add_table"]))
    assert any("documents opens only .docx files, and budget.xlsx is not one: plan it on spreadsheets" in p
               for p in found)
    found = problems(spec("1", "files", reads=["report.docx"], writes=["copy.docx"], tools=["copy_or_move"]),
                     request="Copy report.docx to copy.docx")
    assert found == []  # an application of any file may move a .docx's bytes
    # a path of no type on a typed application, written by no tool of its own: a folder, or a sheet named as if
    # it were a file (with one of its tools and one file of its type, the sheet is that file's: amended)
    found = problems(spec("1", "spreadsheets", writes=["budget.xlsx", "Results"], tools=["read_sheet"]),
                     request="Sort budget.xlsx into a sheet Results")
    assert any("Results is not one: plan it on an application that opens any file; a part of a .xlsx file (a sheet, "
               "a table, a heading) is no path: declare the file that holds it (budget.xlsx)" in p
               for p in found), found


def test_tools_and_writes_must_agree() -> None:
    found = problems(SEED[0], spec("2", "spreadsheets", "1", tools=["write_rows"]))
    assert any("declares write_rows, which change files, and writes nothing" in p for p in found)
    # writes with only reading tools: the writes say what it changes, any tool of its application may
    check = check_plan([SEED[0], spec("2", "spreadsheets", "1", writes=["budget.xlsx"], tools=["read_sheet"])],
                       CATALOG, REQUEST, FILES)
    assert check.ok and check.subtasks[1].tools == ()
    assert "subtask '2' writes budget.xlsx: any tool of spreadsheets (read_sheet only read)" in check.amended


def test_parallel_writers_of_one_path_must_be_ordered() -> None:
    a = spec("1", "spreadsheets", writes=["budget.xlsx"], tools=["write_rows"])
    b = spec("2", "files", writes=["budget.xlsx"], tools=["copy_or_move"])
    # new subtasks run in the plan's order (amended); one already running cannot be reordered
    check = check_plan([a, b], CATALOG, "Fill budget.xlsx", FILES)
    assert check.ok and check.subtasks[1].depends_on == ("1",)
    assert any("both write budget.xlsx and neither waits for the other" in p
               for p in problems(b, request="Fill budget.xlsx", kept={"1": a}))
    assert not any("both write" in p for p in problems(spec("2", "files", "1", writes=["budget.xlsx"],
                                                            tools=["copy_or_move"]), request="Fill budget.xlsx",
                                                       kept={"1": a}))


def test_every_file_the_request_names_is_used() -> None:
    # two new files and one subtask whose work reaches neither: which holds what is the planner's to say
    assert any("the request names total.txt, which does not exist yet, and no subtask writes it" in p
               for p in problems(spec("1", "spreadsheets", reads=["budget.xlsx"], tools=["read_sheet"]),
                                 request="Sum budget.xlsx into total.txt and mean.txt"))
    assert any("the request names report.docx, and no subtask reads or writes it" in p
               for p in problems(spec("1", "spreadsheets", writes=["budget.xlsx"], tools=["add_chart"])))

    # an e-mail address or a web address in the request is no file of the workspace
    assert not problems(spec("1", "spreadsheets", reads=["budget.xlsx"], writes=["budget.xlsx"], tools=["add_chart"]),
                        request="Chart budget.xlsx and tell alice@example.org, see https://example.org/help.html")


def test_the_one_new_file_the_request_names_holds_the_work_that_reaches_no_file_and_no_subtask() -> None:
    request = "Sum budget.xlsx into total.txt"
    # a reader on an application that cannot open the file hands its data to a new writer on one that can
    check = check_plan([spec("1", "spreadsheets", reads=["budget.xlsx"], tools=["read_sheet"])], CATALOG, request,
                       FILES)
    assert check.ok, check.problems
    reader, writer = check.subtasks
    assert (reader.writes, reader.hands_on.value) == ((), "text")
    assert (writer.id, writer.application, writer.depends_on, writer.writes, writer.hands_on.value) == (
        "2", "files", ("1",), ("total.txt",), "nothing")
    assert any("the request names total.txt, which no subtask writes" in n for n in check.amended)
    # on an application that writes it, the subtask itself writes it, its data going there
    check = check_plan([spec("1", "files", reads=["notes"], tools=["list_files"], hands_on="names")], CATALOG,
                       "Which files are in notes? List them in listing.txt", FILES)
    assert check.ok and [(s.writes, s.hands_on.value) for s in check.subtasks] == [(("listing.txt",), "nothing")]
    # a subtask another waits for is no end: its data has a taker
    found = problems(spec("1", "spreadsheets", reads=["budget.xlsx"], tools=["read_sheet"], hands_on="table"),
                     spec("2", "documents", "1", reads=["report.docx"], writes=["report.docx"], tools=["add_table"]),
                     request="Put budget.xlsx into report.docx and sum it into total.txt")
    assert any("the request names total.txt, which does not exist yet" in p for p in found)


def test_a_write_nobody_asked_for_is_refused() -> None:
    found = problems(spec("1", "files", writes=["backup", "backup_list.txt"], tools=["copy_or_move", "write_file"]),
                     request="Copy every .xlsx file into a new folder named backup")
    assert any("writes backup_list.txt, which the request does not name and no subtask reads" in p for p in found)
    assert not any("writes backup," in p for p in found)
    # the re-plan is told which files the request names, so it has one to write instead
    found = problems(spec("1", "documents", reads=["clients.xlsx"], writes=["visit.docx"], tools=["add_paragraph"]),
                     request="Add Vega's email address to clients.xlsx")
    assert any(p.endswith("writes visit.docx, which the request does not name and no subtask reads: write only what "
                          "the request asks for; the files the request names: clients.xlsx") for p in found), found


def test_a_reader_that_writes_nothing_calls_no_tool_that_changes_files() -> None:
    plan = [spec("1", "spreadsheets", reads=["budget.xlsx"], tools=["read_sheet", "write_rows"], hands_on="table"),
            spec("2", "documents", "1", writes=["report.docx"], tools=["add_table"])]
    check = check_plan(plan, CATALOG, "Put the table of budget.xlsx into report.docx", FILES)
    assert check.ok, check.problems
    assert check.subtasks[0].tools == ("read_sheet",)
    assert check.amended == ("subtask '1' reads and hands on table, writing nothing: it calls none of write_rows",)
    # a program's actions change no file (they name none): setting a slider is what such a subtask is for
    program = Catalog((AppInfo("dialog", "a dialog", (), (ToolInfo("observe", True), ToolInfo(
        "set_text", False, names_its_writes=False), ToolInfo("click", False, names_its_writes=False))),))
    slider = [spec("1", "dialog", tools=["set_text"], hands_on="number"), spec("2", "dialog", "1", tools=["click"])]
    kept = check_plan(slider, program, "Set the volume to 65 and confirm", ())
    # and two subtasks in turn on a program, writing no file, are one agent's work on its state
    assert kept.ok and [(s.id, s.tools) for s in kept.subtasks] == [("2", ("click", "set_text"))], kept
    assert kept.amended == ("subtask '1' reads for '2' alone on dialog: '2' does both",)
    # a subtask that waits for itself is never merged into itself (nothing would be left): the plan goes back
    chain = [spec("1", "dialog", tools=["set_text"]), spec("2", "dialog", "1", tools=["set_text"]),
             spec("3", "dialog", "2", "3", tools=["click"])]
    looped = check_plan(chain, program, "Fill in the form and press OK", ())
    assert not looped.ok and any("subtask '3' depends on itself" in p for p in looped.problems), looped
    # what a program's actions change no path names: a write of its name or its form is none
    named = [spec("1", "dialog", writes=["dialog"], tools=["set_text"]),
             spec("2", "dialog", "1", writes=["visitor form"], tools=["click"])]
    form = check_plan(named, program, "Fill in the visitor form and confirm it", ())
    assert form.ok and [(s.id, s.writes) for s in form.subtasks] == [("2", ())], form
    assert form.amended[:2] == (
        "subtask '1' writes no file, not dialog: its tools act in the program and name none",
        "subtask '2' writes no file, not visitor form: its tools act in the program and name none")
    # no tool declared: any of the program's may run, and none of them names a file either
    loose = check_plan([spec("1", "dialog", writes=["visitor form"])], program, "Fill in the visitor form", ())
    assert loose.ok and (loose.subtasks[0].writes, loose.subtasks[0].tools) == ((), ("set_text", "click")), loose
    # and so where it declares only tools that read: its work is the program's actions
    waits = check_plan([spec("1", "dialog", writes=["visitor form"], tools=["observe"])], program,
                       "Fill in the visitor form", ())
    assert waits.ok and (waits.subtasks[0].writes, waits.subtasks[0].tools) == ((), ("observe", "set_text", "click"))
    # a file by its type, one in the workspace, or an application whose tools name what they write: as declared
    for writes, files in ((["visitor.txt"], ()), (["notes"], ("notes",))):
        typed = check_plan([spec("1", "dialog", writes=writes, tools=["click"])], program, "Confirm it", files)
        assert typed.subtasks[0].writes == tuple(writes), writes
    assert check_plan([spec("1", "files", writes=["backup"], tools=["make_folder"])], CATALOG, "Make backup",
                      FILES).subtasks[0].writes == ("backup",)
    # not so two readers in turn on an application of files: the first one's reading needs no model
    readers = [spec("1", "spreadsheets", reads=["budget.xlsx"], tools=["read_sheet"], hands_on="table"),
               spec("2", "spreadsheets", "1", tools=["column_totals"], hands_on="number"),
               spec("3", "files", "2", writes=["total.txt"], tools=["write_file"])]
    apart = check_plan(readers, CATALOG, "Write the total of budget.xlsx into total.txt", FILES)
    assert [s.id for s in apart.subtasks] == ["1", "2", "3"], apart
    # only changing tools declared: any tool (its empty writes bound it); no one waiting: still refused
    check = check_plan([plan[0].model_copy(update={"tools": ("write_rows",)}), plan[1]], CATALOG,
                       "Put the table of budget.xlsx into report.docx", FILES)
    assert check.ok and check.subtasks[0].tools == (), check.problems
    alone = check_plan(plan[:1], CATALOG, "Read budget.xlsx", FILES)
    assert any("declares write_rows, which change files, and writes nothing" in p for p in alone.problems)


def test_a_typed_reader_that_lists_the_whole_workspace_reads_the_files_of_its_type() -> None:
    files = ("q1.xlsx", "q2.xlsx", "readme.txt", "summary.docx")
    check = check_plan([spec("1", "spreadsheets", reads=list(files), tools=["read_sheet"], hands_on="table"),
                        spec("2", "files", "1", writes=["backup"], tools=["copy_or_move"])],
                       CATALOG, "Copy every .xlsx file into a new folder named backup", files)
    assert check.ok, check.problems
    assert check.subtasks[0].reads == ("q1.xlsx", "q2.xlsx")
    assert "subtask '1' reads only the .xlsx files spreadsheets opens (readme.txt, summary.docx dropped)" in \
        check.amended
    # one other type is a source of its own, kept: the planner is told to read it on its application
    seed = check_plan([spec("1", "spreadsheets", reads=["report.docx", "budget.xlsx"], writes=["budget.xlsx"],
                            tools=["write_rows", "add_chart"])], CATALOG, REQUEST, FILES)
    assert seed.subtasks[0].reads == ("report.docx", "budget.xlsx") and not seed.amended
    assert any("report.docx is not one: plan it on documents" in p for p in seed.problems), seed.problems


def test_files_listed_one_by_one_become_the_pattern_the_request_names_for_them() -> None:
    request = ("Rename every file whose name starts with 'draft_' so that it starts with 'final_' instead (for "
               "example draft_plan.txt becomes final_plan.txt).")
    check = check_plan([spec("1", "files", reads=["draft_budget.txt"], writes=["final_budget.txt"],
                             tools=["copy_or_move"]),
                        spec("2", "files", reads=["draft_plan.txt"], writes=["final_plan.txt"], tools=["copy_or_move"]),
                        spec("3", "files", reads=["drafts.txt"], writes=["final_drafts.txt"], tools=["copy_or_move"])],
                       CATALOG, request, ("draft_budget.txt", "draft_plan.txt", "drafts.txt"))
    assert check.ok, check.problems
    [one] = check.subtasks  # the request's example (final_plan.txt, named) is one of them
    assert one.writes == ("final_*",) and one.description == request and one.tools == ("copy_or_move",)
    # and reads the files of draft_* by that pattern too (a listing may miss one); drafts.txt, which it does
    # not cover and the request does not name, came with the listing: it is no source of the work
    assert one.reads == ("draft_*",)
    assert check.amended == ("subtasks '1', '2', '3' write files of final_* one by one, a pattern the request "
                             "names: subtask '1' writes final_*",
                             "subtask '1' reads files of draft_* one by one, a pattern the request names: it reads "
                             "draft_*, not drafts.txt (the request names none of them)")
    # a file the pattern leaves out stays a source where the request names it, or where a subtask writes it
    named = request.replace("instead", "instead, and keep drafts.txt as it is")
    assert check_plan([spec("1", "files", reads=["draft_budget.txt", "draft_plan.txt", "drafts.txt"],
                            writes=["final_*"], tools=["copy_or_move"])],
                      CATALOG, named, ("draft_budget.txt", "draft_plan.txt", "drafts.txt")).subtasks[0].reads == (
        "draft_*", "drafts.txt")
    listing = check_plan([spec("1", "files", writes=["drafts.txt"], tools=["write_file"]),
                          spec("2", "files", "1", reads=["draft_budget.txt", "draft_plan.txt", "drafts.txt"],
                               writes=["final_*"], tools=["copy_or_move"])],
                         CATALOG, request, ("draft_budget.txt", "draft_plan.txt"))
    assert listing.subtasks[-1].reads == ("draft_*", "drafts.txt"), listing
    # one subtask listing them; by their type; the longest start the request names
    for writes, request, pattern in ((["out/a.csv", "out/b.csv"], "Put the .csv files away", "out/*.csv"),
                                     (["keep_tmp_a.txt", "keep_tmp_b.txt"], "tmp_ files should begin with keep_",
                                      "keep_*")):
        check = check_plan([spec("1", "files", writes=writes, tools=["copy_or_move"])], CATALOG, request, FILES)
        assert check.ok and check.subtasks[0].writes == (pattern,), check
    # a later subtask waiting on merged ones waits on the one they became
    check = check_plan([spec("1", "files", writes=["out/a.csv"], tools=["copy_or_move"], hands_on="names"),
                        spec("2", "files", writes=["out/b.csv"], tools=["copy_or_move"], hands_on="names"),
                        spec("3", "documents", "1", "2", reads=["report.docx"], tools=["read_table"])],
                       CATALOG, "Put the .csv files away, then read report.docx", FILES)
    assert [(s.id, s.depends_on) for s in check.subtasks] == [("1", ()), ("3", ("1",))], check


def test_files_on_several_applications_are_told_the_pattern_the_request_names() -> None:
    request = "Rename every file whose name starts with 'draft_' so that it starts with 'final_' instead."
    found = problems(spec("1", "files", writes=["final_budget.txt"], tools=["copy_or_move"]),
                     spec("2", "documents", writes=["final_letter.docx"], tools=["add_table"]), request=request)
    assert [p for p in found if p.endswith("a pattern the request names covers them: final_* (writes name many "
                                            "files by a pattern)")] and not any("one subtask" in p for p in found)
    # and no pattern is offered that the request does not name
    found = problems(spec("1", "files", writes=["x1.txt", "x2.txt"], tools=["copy_or_move"]), request="Tidy up")
    assert found and not any("pattern" in p for p in found)


def test_a_path_is_named_by_its_name_stem_or_folder() -> None:
    assert named_by("total.txt", "Put the sum into total.txt.")
    assert named_by("budget.xlsx", "Update the budget workbook")  # its name without the suffix
    assert named_by("notes/a.txt", "Move them into the folder notes")
    assert named_by("*.txt", "Move all the .txt files")
    assert not named_by("total.txt", "Put the subtotal somewhere")
    assert not named_by("report.docx", "the report_2.docx file")


def test_a_replan_keeps_what_is_done() -> None:
    kept = {"1": SEED[0]}
    check = check_plan([SEED[0], SEED[1]], CATALOG, REQUEST, FILES, kept=kept)
    assert check.ok and [s.id for s in check.subtasks] == ["2"]


def test_data_handed_to_a_writer_that_no_planned_tool_takes_is_named_with_the_tools_that_do(tmp_path: Any) -> None:
    from podium.apps import build_applications
    from podium.desktop.wire.messages import AppStepRequest, PlacingView
    from podium.desktop.wire.prompts import app_user

    real = Catalog.of(build_applications({"workspace": str(tmp_path), "enabled": ["documents", "spreadsheets"]})
                      .values())
    read = spec("1", reads=["report.docx"], tools=["read_table"], hands_on="table")
    chart_only = spec("2", "spreadsheets", "1", writes=["budget.xlsx"], tools=["create_workbook", "add_chart"])
    plan = {"1": read, "2": chart_only}
    assert check_plan([read, chart_only], real, REQUEST, FILES).ok  # not refused: its AppAgent is told
    (gap,) = unplaced(chart_only, real.get("spreadsheets"), plan)
    assert gap.subtask == "1" and gap.data == "table" and gap.tools[:2] == ("write_rows", "append_rows")
    # a chart's range, a title and its columns' names are no place for a table; rows are
    assert unplaced(SEED[1], real.get("spreadsheets"), {"1": read, "2": SEED[1]}) == ()
    # a number fits any text; a subtask that writes nothing puts nothing in
    counted = read.model_copy(update={"hands_on": "number"})
    assert unplaced(chart_only, real.get("spreadsheets"), {**plan, "1": counted}) == ()
    assert unplaced(chart_only.model_copy(update={"writes": ()}), real.get("spreadsheets"), plan) == ()
    # a subtask that writes only a folder fills it with files, not with the data it was handed
    files = Catalog.of(build_applications({"workspace": str(tmp_path), "enabled": ["files"]}).values())
    copier = spec("2", "files", "1", writes=["old_versions"], tools=["copy_or_move"])
    assert unplaced(copier, files.get("files"), {"1": read, "2": copier}) == ()
    # a plain-text file is the answer itself (a total, the repeated rows), not a place for a table to go first
    into_text = copier.model_copy(update={"writes": ("notes.txt",), "tools": ("make_folder",)})
    assert unplaced(into_text, files.get("files"), {"1": read, "2": into_text}) == ()
    shown = app_user(AppStepRequest(description="chart it", writes=("budget.xlsx",),
                                    placing=(PlacingView(subtask="1", data="table", tools=gap.tools),)))
    assert ("Subtask 1 handed you a table, and none of your planned tools takes it: first put it in budget.xlsx with "
            "write_rows or append_rows") in shown


def test_a_writer_handed_single_values_is_told_a_text_may_join_words_and_them() -> None:
    from podium.desktop.wire.messages import AppStepRequest, ArtifactView
    from podium.desktop.wire.prompts import app_user

    total = ArtifactView(name="1.read_csv.rows.sum.Hours", kind="number", value=33.25, source="the sum of 'Hours'")
    table = ArtifactView(name="1.read_csv", kind="table", value=[["Hours"], [33.25]], source="read_csv")
    parts = 'A text that joins your words and data is a list of parts: strings, and {"ref": "<name>"} for data.'
    assert parts in app_user(AppStepRequest(description="write it", writes=("hours.txt",), artifacts=(total,)))
    assert parts not in app_user(AppStepRequest(description="write it", writes=("hours.txt",), artifacts=(table,)))
    assert parts not in app_user(AppStepRequest(description="hand it on", artifacts=(total,)))


def test_a_writer_made_only_of_handed_data_is_given_the_tools_that_take_it(tmp_path: Any) -> None:
    from podium.apps import build_applications

    files = Catalog.of(build_applications({"workspace": str(tmp_path), "enabled": ["files"]}).values()).get("files")
    read = spec("1", "spreadsheets", reads=["members.xlsx"], tools=["read_sheet"], hands_on="table")
    writer = spec("2", "files", "1", writes=["dups.txt"])
    plan = {"1": read, "2": writer}
    takers = data_takers(writer, files, plan)
    assert "write_file" in takers and "append_at_end" in takers
    assert files is not None and all(not files.tool(t).read_only for t in takers)  # type: ignore[union-attr]
    assert "write_file_names" not in takers and "copy_or_move" not in takers  # they take paths, not data
    # declared tools, a source of its own, a folder to fill, or nothing handed: its plan says what it uses
    assert data_takers(writer.model_copy(update={"tools": ("write_file_names",)}), files, plan) == ()
    assert data_takers(writer.model_copy(update={"reads": ("notes.txt",)}), files, plan) == ()
    assert data_takers(writer.model_copy(update={"writes": ("archive",)}), files, plan) == ()
    keeps = spec("1", "spreadsheets", reads=["members.xlsx"], tools=["read_sheet"])
    assert data_takers(writer, files, {**plan, "1": keeps}) == ()
    # a figure handed on is data too: a number fits the text of a file
    total = spec("1", "spreadsheets", reads=["members.xlsx"], tools=["column_stats"], hands_on="number")
    by_number = data_takers(writer, files, {**plan, "1": total})
    assert "write_file" in by_number and "append_at_end" in by_number
    # ... written as content, not as a listing's pattern or a path
    assert not {"write_file_names", "copy_or_move", "make_folder", "rename_pattern", "delete"} & set(by_number)


def test_the_planned_tools_are_shown_with_every_argument_its_default_and_meaning(tmp_path: Any) -> None:
    from podium.apps import build_applications
    from podium.desktop.wire.messages import AppStepRequest
    from podium.desktop.wire.prompts import app_system, app_user

    sheets = build_applications({"workspace": str(tmp_path), "enabled": ["spreadsheets"]})["spreadsheets"]
    tools = {t.name: t for t in sheets.tools()}
    req = AppStepRequest(description="rank them", writes=("scores.xlsx",), tools=("sort_rows", "add_chart"))
    shown = app_user(req, (), [tools["sort_rows"], tools["add_chart"]])
    detail = shown.split("## The arguments of your planned tools", 1)[1].split("\n\n", 1)[0]
    sort_line, chart_line = detail.strip().splitlines()[1:]
    assert sort_line.startswith("- sort_rows: path (string)")
    assert ('order ("ascending"|"descending"): ascending: lowest (or A, or earliest) first; descending: highest '
            '(or Z, or latest) first') in sort_line
    assert "columns (list of string, optional): only these columns of the data as series" in chart_line
    # the system prompt names an optional argument only; it is the same for every subtask (a cache serves it)
    system = app_system(sheets.name, sheets.description, list(tools.values()))
    assert "sheet?" in system and "sheet with the table" not in system
    assert "## The arguments" not in app_user(req)


def test_a_writer_free_to_use_any_tool_keeps_that_freedom_in_the_subtask_it_joins() -> None:
    # a writer declaring only a reading tool may use any tool; joined to the writer after it on the same file
    # (which declared one tool), the two may still use any: the declared one alone cannot do the first's work
    plan = [spec("1", "spreadsheets", reads=["budget.xlsx"], tools=["read_sheet"], hands_on="table"),
            spec("2", "spreadsheets", "1", writes=["budget.xlsx"], tools=["read_sheet"]),
            spec("3", "spreadsheets", "2", writes=["budget.xlsx"], tools=["write_rows"])]
    check = check_plan(plan, CATALOG, "Put a total line under the table of budget.xlsx", FILES)
    assert check.ok, check.problems
    (only,) = check.subtasks
    assert (only.id, only.writes, only.tools) == ("3", ("budget.xlsx",), ())
    assert "subtask '2' writes budget.xlsx: any tool of spreadsheets (read_sheet only read)" in check.amended


def test_a_part_named_as_a_path_is_written_in_the_one_file_of_its_type_the_subtask_uses() -> None:
    plan = [spec("1", "spreadsheets", reads=["budget.xlsx"], writes=["budget.xlsx"], tools=["write_rows"]),
            spec("2", "spreadsheets", "1", writes=["Ranking"], tools=["write_rows"])]
    check = check_plan(plan, CATALOG, "Rank budget.xlsx's rows on a new sheet called Ranking", FILES)
    assert check.ok, check.problems
    assert [s.writes for s in check.subtasks] == [("budget.xlsx",)]  # one writer of budget.xlsx, then merged
    assert "subtask '2' writes Ranking, which spreadsheets cannot open: a part of budget.xlsx, the one file of its " \
        "type that it and the subtasks it waits for write" in check.amended
    # no changing tool of its own (a folder a copy fills), a file only read (copied into a folder whole), two
    # files of its type, or none: not certain
    folder = [spec("1", "spreadsheets", reads=["budget.xlsx"], writes=["Ranking", "budget.xlsx"],
                   tools=["read_sheet"])]
    assert "Ranking" in check_plan(folder, CATALOG, "x", FILES).subtasks[0].writes
    read = [spec("1", "spreadsheets", reads=["budget.xlsx"], writes=["Ranking"], tools=["write_rows"])]
    assert not any("budget.xlsx" in s.writes for s in check_plan(read, CATALOG, "x", FILES).subtasks)
    two = [spec("1", "spreadsheets", reads=["budget.xlsx", "b.xlsx"], writes=["Ranking", "budget.xlsx", "b.xlsx"],
                tools=["write_rows"])]
    assert not check_plan(two, CATALOG, "x", (*FILES, "b.xlsx")).ok
    none = [spec("1", "spreadsheets", writes=["Ranking"], tools=["write_rows"])]
    assert not check_plan(none, CATALOG, "x", FILES).ok


def test_fixes_certain_from_types_are_made_and_said() -> None:
    # as a small planner writes a merge: an .xlsx read on the documents application, a reader declaring the
    # workbook a later subtask writes, two writers of one path in no order
    plan = [spec("1", reads=["budget.xlsx"], tools=["read_table"], hands_on="table"),
            spec("2", "spreadsheets", reads=["budget.xlsx"], writes=["out.xlsx"], tools=["read_sheet"],
                 hands_on="table"),
            spec("3", "spreadsheets", "1", writes=["out.xlsx"], tools=["write_rows"]),
            spec("4", "spreadsheets", "2", writes=["out.xlsx"], tools=["add_chart"])]
    check = check_plan(plan, CATALOG, "Chart budget.xlsx into out.xlsx", FILES)
    assert check.ok, check.problems
    # each reader, on the application of the one writer that waits for it, is part of that writer's work; the
    # two writers of out.xlsx, ordered, are one
    (only,) = check.subtasks
    assert (only.id, only.reads, only.depends_on) == ("4", ("budget.xlsx",), ())
    assert only.tools == ("add_chart", "read_sheet", "write_rows")
    assert only.description == "subtask 1; then subtask 3; then subtask 2; then subtask 4"
    assert check.amended == (
        "subtask '2' reads and hands on table: it writes nothing (out.xlsx is written by the subtasks it hands to, "
        "not of its type, or read with tools that only read)",
        "subtask '1' runs on spreadsheets, which opens budget.xlsx (documents does not)",
        "subtask '1' reads for '3' alone on spreadsheets: '3' does both",
        "subtask '2' reads for '4' alone on spreadsheets: '4' does both",
        "subtask '4' waits for '3': both write out.xlsx",
        "subtask '3' writes out.xlsx for '4' alone on spreadsheets: '4' does both")
    # a chain of one application's subtasks on one file (read, change, "write the file") is one subtask
    chain = [spec("1", reads=["report.docx"], tools=["read_table"], hands_on="table"),
             spec("2", "documents", "1", writes=["report.docx"], tools=["add_table"]),
             spec("3", "documents", "2", writes=["report.docx"], tools=["add_table"])]
    check = check_plan(chain, CATALOG, "Put the table of report.docx in it again", FILES)
    assert check.ok and [(s.id, s.description, s.depends_on) for s in check.subtasks] == [
        ("3", "subtask 1; then subtask 2; then subtask 3", ())]
    assert check.amended[-1] == "subtask '2' writes report.docx for '3' alone on documents: '3' does both"
    # one that writes what the next does not is its own
    other = [*chain[:2], chain[2].model_copy(update={"writes": ("other.docx",)})]
    assert [s.id for s in check_plan(other, CATALOG, "Table of report.docx in other.docx", FILES).subtasks] == \
        ["2", "3"]
    # a reader that more than one subtask waits for hands its data on
    shared = [spec("1", "spreadsheets", reads=["budget.xlsx"], tools=["read_sheet"], hands_on="table"),
              spec("2", "spreadsheets", "1", writes=["out.xlsx"], tools=["write_rows"]),
              spec("3", "documents", "1", writes=["report.docx"], tools=["add_table"])]
    check = check_plan(shared, CATALOG, "Put budget.xlsx into out.xlsx and report.docx", FILES)
    assert check.ok and [s.id for s in check.subtasks] == ["1", "2", "3"] and not check.amended
    # a reader declaring the document a later subtask of another application writes, and a tool that changes
    # files it has no business calling: it reads, and the later subtask writes
    sheet_to_doc = [spec("1", "spreadsheets", reads=["budget.xlsx"], writes=["report.docx"],
                         tools=["read_sheet", "write_rows"], hands_on="table"),
                    spec("2", "documents", "1", writes=["report.docx"], tools=["add_table"])]
    check = check_plan(sheet_to_doc, CATALOG, "Put the table of budget.xlsx into report.docx", FILES)
    assert check.ok, check.problems
    assert check.subtasks[0].writes == () and check.subtasks[0].tools == ("read_sheet",)
    assert "it writes nothing nor calls write_rows" in check.amended[0]
    # a subtask handing data on that declares as a write the file it reads with tools that only read
    rows = [spec("1", "spreadsheets", reads=["members.xlsx"], writes=["members.xlsx"], tools=["read_sheet"],
                 hands_on="table"),
            spec("2", "files", "1", writes=["duplicates.txt"], tools=["write_file"])]
    check = check_plan(rows, CATALOG, "List the duplicate rows of members.xlsx in duplicates.txt",
                       (*FILES, "members.xlsx"))
    assert check.ok and check.subtasks[0].writes == () and check.subtasks[0].reads == ("members.xlsx",)
    # a last subtask that hands data on to nobody and writes a file of another application's type does that
    # write: it runs on that application, its write kept
    last = [spec("1", "spreadsheets", reads=["members.xlsx"], tools=["read_sheet"], hands_on="table"),
            spec("2", "documents", "1", writes=["members.xlsx"], tools=["add_table"], hands_on="text")]
    check = check_plan(last, CATALOG, "Add the missing email to members.xlsx", (*FILES, "members.xlsx"))
    assert check.ok, check.problems
    (kept,) = check.subtasks  # on spreadsheets, it is then one with the read it waits for
    assert (kept.application, kept.writes) == ("spreadsheets", ("members.xlsx",))
    assert not any("it writes nothing" in note for note in check.amended)
    # declaring a tool that changes, or handing to nobody, it may mean the write
    sorting = [rows[0].model_copy(update={"tools": ("read_sheet", "write_rows")}), rows[1]]
    assert check_plan(sorting, CATALOG, "Sort members.xlsx, list it in duplicates.txt",
                      (*FILES, "members.xlsx")).subtasks[0].writes == ("members.xlsx",)
    # a subtask none of whose paths is a typed file runs on the one application that opens any file
    listing = check_plan([spec("1", reads=["notes"], writes=["notes/list.txt"], tools=["read_table"])], CATALOG,
                         "List the notes into notes/list.txt", FILES)
    assert listing.ok and listing.subtasks[0].application == "files" and listing.subtasks[0].tools == ()
    assert listing.amended == ("subtask '1' runs on files, which opens notes, notes/list.txt (documents does not)",)
    # what is not certain stays a problem: reads of two typed applications in one subtask
    assert any("spreadsheets opens only .xlsx files, and report.docx is not one" in p
               for p in problems(spec("1", "spreadsheets", reads=["report.docx", "budget.xlsx"],
                                      writes=["notes/a.txt"], tools=["read_sheet"]), *SEED))


def test_a_subtask_reading_one_applications_files_and_writing_anothers_is_split() -> None:
    # a workbook's column into a text file, planned as one subtask of the documents application
    plan = [spec("1", "documents", reads=["budget.xlsx"], writes=["notes/total.txt"],
                 tools=["read_table", "write_file"]),
            spec("2", "files", "1", reads=["notes/total.txt"], tools=["list_files"])]
    check = check_plan(plan, CATALOG, "Total budget.xlsx into notes/total.txt", FILES)
    assert check.ok, check.problems
    reader, writer, after = check.subtasks
    assert (reader.id, reader.application, reader.reads, reader.writes, reader.tools, reader.hands_on.value) == (
        "1r", "spreadsheets", ("budget.xlsx",), (), ("read_sheet",), "text")
    assert (writer.id, writer.application, writer.depends_on, writer.reads, writer.writes, writer.tools) == (
        "1", "files", ("1r",), (), ("notes/total.txt",), ("write_file",))
    assert after.depends_on == ("1",)  # what waited for the subtask waits for its writer
    assert check.amended == ("subtask '1' reads budget.xlsx (spreadsheets) and writes notes/total.txt (files): "
                             "subtask '1r' reads on spreadsheets and hands on text, then '1' writes on files",)
    # a declared hand-on is kept, the reader's id is free, and a writer with none of its tools may use any
    taken = [spec("1r", "files", reads=["notes"], tools=["list_files"], hands_on="names"),
             spec("1", "spreadsheets", "1r", reads=["report.docx"], writes=["budget.xlsx"], tools=["read_table"],
                  hands_on="table")]
    check = check_plan(taken, CATALOG, "Put the table of report.docx into budget.xlsx, with notes", FILES)
    assert check.ok, check.problems
    assert [(s.id, s.application, s.hands_on.value, s.tools) for s in check.subtasks] == [
        ("1r", "files", "names", ("list_files",)), ("1r2", "documents", "table", ("read_table",)),
        ("1", "spreadsheets", "nothing", ())]
    assert check.subtasks[2].depends_on == ("1r", "1r2")
    # a reader that declared none of its application's tools reads with those that read, not those that compute
    computing = Catalog((*CATALOG.apps[:1], AppInfo("spreadsheets", "sheets", (".xlsx",), (
        ToolInfo("read_sheet", True), ToolInfo("column_totals", True, computes=True), ToolInfo("write_rows", False))),
        *CATALOG.apps[2:]))
    undeclared = [spec("1", "spreadsheets", reads=["budget.xlsx"], writes=["notes/total.txt"], tools=["write_file"])]
    check = check_plan(undeclared, computing, "Copy budget.xlsx's rows into notes/total.txt", FILES)
    assert [(s.id, s.tools) for s in check.subtasks] == [("1r", ("read_sheet",)), ("1", ("write_file",))]


def test_a_subtask_of_a_typed_application_that_writes_only_folders_puts_files_there_on_files(tmp_path: Any) -> None:
    from podium.apps import build_applications

    real = Catalog.of(build_applications({"workspace": str(tmp_path),
                                          "enabled": ["files", "documents", "spreadsheets"]}).values())
    files = ("letter.docx", "prices.xlsx")
    plan = [spec("1", "documents", reads=["letter.docx"], writes=["old"]),
            spec("2", "spreadsheets", reads=["prices.xlsx"], writes=["old"], tools=["copy_or_move"])]
    check = check_plan(plan, real, "Copy letter.docx and prices.xlsx into a new folder old", files)
    assert check.ok, check.problems
    # both on files (one after the other, then one subtask: one agent copies both), nothing read for their content
    assert [(s.application, s.reads, s.writes) for s in check.subtasks] == [
        ("files", ("letter.docx", "prices.xlsx"), ("old",))]
    assert "subtask '1' runs on files: it only puts files into folders (old), which documents does not do, and " \
           "files takes files by their path" in check.amended
    # tools of its own that write only its own type's files by the path they are given write none in a folder:
    # the files go there whole (planned with a document's tools, a copy of each document)
    planned = [spec(str(n), "documents", reads=[name], writes=["old"], tools=["add_paragraphs", "add_table"])
               for n, name in enumerate(("letter.docx", "minutes.docx"), 1)]
    check = check_plan(planned, real, "Copy the documents into a new folder old", (*files, "minutes.docx"))
    assert [(s.application, s.reads, s.writes) for s in check.subtasks] == [
        ("files", ("letter.docx", "minutes.docx"), ("old",))]
    # a tool of its own that makes files of another type in a folder keeps it where it is; a file written is no
    # folder
    export = spec("1", "spreadsheets", reads=["prices.xlsx"], writes=["csv"], tools=["export_csv"])
    assert check_plan([export], real, "Export prices.xlsx into a folder csv", files).subtasks[0].application == \
        "spreadsheets"
    # a file it reads, written under its own name in another folder, is put there whole too (a backup), whatever
    # tool of its own it declared; one written in its own folder, or under another name, is no copy
    backup = spec("1", "documents", reads=["letter.docx"], writes=["backup/letter.docx"], tools=["insert_table_row"])
    check = check_plan([backup], real, "Keep a copy of letter.docx in a folder named backup", files)
    assert [(s.application, s.reads, s.writes) for s in check.subtasks] == [
        ("files", ("letter.docx",), ("backup/letter.docx",))]
    # offered only the applications of the request's file types, the planner could not name files: the host moves
    # the copy there all the same, files being configured
    typed = real.only(("documents", "spreadsheets"))
    assert check_plan([backup], typed, "Keep a copy of letter.docx in a folder named backup", files
                      ).subtasks[0].application == "documents"
    check = check_plan([backup], typed, "Keep a copy of letter.docx in a folder named backup", files, configured=real)
    assert check.ok and [s.application for s in check.subtasks] == ["files"]
    renamed = spec("1", "documents", reads=["letter.docx"], writes=["backup/reply.docx"], tools=["add_paragraphs"])
    assert check_plan([renamed], real, "Write a reply to letter.docx as backup/reply.docx", files
                      ).subtasks[-1].application == "documents"
    table = spec("1", "documents", reads=["letter.docx"], writes=["old/letter.txt"])
    assert [s.application for s in check_plan([table], real, "Put letter.docx into old/letter.txt",
                                              files).subtasks] == ["documents", "files"]


def test_an_edit_planned_on_an_application_that_cannot_open_its_file_runs_where_the_file_was_read(
        tmp_path: Any) -> None:
    from podium.apps import build_applications

    real = Catalog.of(build_applications({"workspace": str(tmp_path),
                                          "enabled": ["files", "documents", "spreadsheets"]}).values())
    plan = [spec("1", "files", reads=["server.conf"], tools=["read_file"], hands_on="table"),
            spec("2", "documents", "1", tools=["replace_text"]),
            spec("3", "files", "2", writes=["server.conf"], tools=["write_file"])]
    check = check_plan(plan, real, "In server.conf, change the port from 8080 to 9090.", ("server.conf",))
    assert check.ok, check.problems
    assert [(s.application, s.reads, s.writes, set(s.tools)) for s in check.subtasks] == [
        ("files", ("server.conf",), ("server.conf",), {"write_file", "replace_text", "read_file"})]
    assert any("subtask '2' runs on files, reading server.conf" in n for n in check.amended)
    # a changing tool the application of the file lacks, or one that does not edit the file it opens: not moved
    chart = [plan[0], spec("2", "documents", "1", tools=["add_paragraphs"]), plan[2]]
    assert not check_plan(chart, real, "x", ("server.conf",)).ok


def test_a_value_handed_to_a_writer_of_a_new_text_file_is_written_whole(tmp_path: Any) -> None:
    from podium.apps import build_applications

    real = Catalog.of(build_applications({"workspace": str(tmp_path), "enabled": ["files", "documents"]}).values())
    files = ("branches.docx", "notes.txt")
    request = "Which branch of branches.docx sold the most? Its name into best.txt"
    best = spec("1", "documents", reads=["branches.docx"], tools=["read_document"], hands_on="text")
    lister = spec("2", "files", "1", writes=["best.txt"], tools=["write_file_names"])
    check = check_plan([best, lister], real, request, files)
    assert check.ok, check.problems
    assert check.subtasks[1].tools == ("write_file",)
    assert check.amended[-1] == ("subtask '2' writes the text handed to it into best.txt with write_file: none of "
                                 "write_file_names takes it as content")
    # a tool that takes the value as content is the planner's choice; a file the person has is not written
    # whole; a table handed on goes where a table goes
    appending = lister.model_copy(update={"tools": ("append_at_end",)})
    there = lister.model_copy(update={"writes": ("notes.txt",)})
    table = best.model_copy(update={"hands_on": HandsOn.TABLE})
    for plan, wanted in (([best, appending], "append_at_end"), ([best, there], "write_file_names"),
                         ([table, lister], None)):
        tools = check_plan(plan, real, f"{request} or notes.txt", files).subtasks[1].tools
        assert "write_file" not in tools and (wanted is None or tools == (wanted,)), (plan, tools)


def test_a_reader_whose_content_only_a_copy_takes_is_left_out(tmp_path: Any) -> None:
    from podium.apps import build_applications

    real = Catalog.of(build_applications({"workspace": str(tmp_path),
                                          "enabled": ["files", "documents", "spreadsheets"]}).values())
    files = ("letter.docx", "minutes.docx", "todo.txt")
    reader = spec("1", "documents", reads=["letter.docx", "minutes.docx"], tools=["read_document"], hands_on="table")
    copy = spec("2", "files", "1", reads=["todo.txt"], writes=["old"], tools=["copy_or_move"])
    check = check_plan([reader, copy], real, "Copy the documents and todo.txt into a new folder old", files)
    assert check.ok, check.problems
    assert [(s.id, s.depends_on, s.reads) for s in check.subtasks] == [("2", (), ("todo.txt",))]
    assert any("whose tools (copy_or_move) take files by their path, not what they hold: it is left out" in n
               for n in check.amended)
    # a copier into a folder it makes, naming the reader's files and more (a listing): it copies the reader's
    everything = spec("2", "files", "1", reads=["letter.docx", "minutes.docx", "todo.txt"], writes=["old"],
                      tools=["copy_or_move", "make_folder"])
    check = check_plan([reader, everything], real, "Copy all the Word documents into a new folder old", files)
    assert check.ok, check.problems
    assert [(s.id, s.depends_on, s.reads) for s in check.subtasks] == [("2", (), ("letter.docx", "minutes.docx"))]
    assert check.amended[-1] == ("subtask '2' reads letter.docx, minutes.docx, the files subtask '1' read on "
                                 "documents, not todo.txt")
    # one that does not name them all keeps its own
    some = everything.model_copy(update={"reads": ("letter.docx", "todo.txt")})
    assert check_plan([reader, some], real, "Copy letter.docx and todo.txt into a new folder old",
                      files).subtasks[0].reads == ("letter.docx", "todo.txt")
    # names handed on may choose the files; content another tool takes is work
    chooser = reader.model_copy(update={"hands_on": "names"})
    assert [s.id for s in check_plan([chooser, copy], real, "Copy the right documents into old", files).subtasks
            ] == ["1", "2"]
    summary = spec("2", "files", "1", writes=["old/summary.txt"], tools=["write_file"])
    assert [s.id for s in check_plan([reader, summary], real, "Summarize the documents into old/summary.txt",
                                     files).subtasks] == ["1", "2"]


def test_a_subtask_writing_files_that_exist_does_not_expect_a_tool_that_only_makes_new_ones(tmp_path: Any) -> None:
    from podium.apps import build_applications

    real = Catalog.of(build_applications({"workspace": str(tmp_path), "enabled": ["spreadsheets"]}).values())
    read = spec("1", "spreadsheets", reads=["budget.xlsx"], tools=["read_sheet"], hands_on="table")
    chart = spec("2", "spreadsheets", "1", writes=["budget.xlsx"], tools=["create_workbook", "add_chart"])
    alone = chart.model_copy(update={"depends_on": ()})
    check = check_plan([alone], real, "Chart budget.xlsx", ("budget.xlsx",))
    assert check.ok and check.subtasks[0].tools == ("add_chart",)
    assert check.amended == ("subtask '2' does not expect create_workbook: budget.xlsx exists already",)
    # a new file is what such a tool is for
    new = alone.model_copy(update={"writes": ("chart.xlsx",)})
    assert check_plan([new], real, "Chart budget.xlsx in chart.xlsx", ("budget.xlsx",)).subtasks[0].tools == \
        ("create_workbook", "add_chart")
    # the table read from the file it charts is there already: nothing to put in first
    assert unplaced(chart, real.get("spreadsheets"), {"1": read, "2": chart}) == ()


def test_a_writer_handed_data_its_application_cannot_take_runs_where_a_tool_takes_it(tmp_path: Any) -> None:
    from podium.apps import build_applications

    real = Catalog.of(build_applications({"workspace": str(tmp_path),
                                          "enabled": ["files", "documents", "shell"]}).values())
    read = spec("1", "documents", reads=["sales.docx"], tools=["read_table"], hands_on="table")
    write = spec("2", "shell", "1", writes=["answer.txt"], tools=["run_command"])
    check = check_plan([read, write], real, "Write the best region of sales.docx into answer.txt", ("sales.docx",))
    assert check.ok, check.problems
    assert (check.subtasks[1].application, check.subtasks[1].tools) == ("files", ())
    assert check.amended == ("subtask '2' runs on files: it writes with the table handed to it, which no tool of "
                             "shell takes",)
    # a number or a text is no part of a command line either: a tool that writes values takes it
    for kind in ("number", "text"):
        said = read.model_copy(update={"hands_on": kind})
        moved = check_plan([said, write], real, "Write sales.docx's region into answer.txt", ("sales.docx",))
        assert moved.subtasks[1].application == "files", kind
        assert moved.amended == (f"subtask '2' runs on files: it writes with the {kind} handed to it, which no tool "
                                 "of shell takes", f"subtask '2' writes the {kind} handed to it into answer.txt with "
                                 "write_file: none of its tools takes it as content")
        assert moved.subtasks[1].tools == ("write_file",)
    # a shell subtask handed nothing, or writing nothing, stays
    alone = write.model_copy(update={"depends_on": ()})
    assert check_plan([alone], real, "Write the date into answer.txt", ()).subtasks[0].application == "shell"
    # nor does one that names no file it writes ('.': the workspace as a whole), as a program's form filler
    # does: there is no file to take the data to
    two = Catalog.of(build_applications({"workspace": str(tmp_path), "enabled": ["files", "shell"]}).values())
    anywhere = write.model_copy(update={"writes": (".",)})
    kept = check_plan([read.model_copy(update={"application": "files", "tools": ()}), anywhere], two,
                      "Fill the form with the table", ())
    assert kept.subtasks[1].application == "shell" and not kept.amended, kept



def test_a_copier_that_reads_nothing_copies_the_files_its_giver_read(tmp_path: Any) -> None:
    from podium.apps import build_applications

    real = Catalog.of(build_applications({"workspace": str(tmp_path), "enabled": ["files", "spreadsheets"]}).values())
    read = spec("1", "spreadsheets", reads=["q1.xlsx", "q2.xlsx"], tools=["read_sheet"], hands_on="table")
    copy = spec("2", "files", "1", writes=["backup"], tools=["copy_or_move"])
    check = check_plan([read, copy], real, "Copy every .xlsx file into a new folder named backup",
                       ("q1.xlsx", "q2.xlsx", "notes.txt"))
    assert check.ok, check.problems
    # the reader's table goes to no tool that takes it: the copier alone, with the files it read (by the
    # pattern the request names for them)
    (copier,) = check.subtasks
    assert copier.reads == ("*.xlsx",) and copier.depends_on == ()
    assert "subtask '2' reads q1.xlsx, q2.xlsx: its tools (copy_or_move) take files" in " ".join(check.amended)
    # one that names its own sources keeps them; one that declares a tool that writes data keeps its reader
    own = copy.model_copy(update={"reads": ("q1.xlsx",)})
    assert check_plan([read, own], real, "Copy q1.xlsx into backup", ("q1.xlsx", "q2.xlsx")).subtasks[0].reads == \
        ("q1.xlsx",)
    writer = copy.model_copy(update={"writes": ("list.txt",), "tools": ("write_file",)})
    assert check_plan([read, writer], real, "List them in list.txt", ("q1.xlsx", "q2.xlsx")).subtasks[1].reads == ()


def test_the_system_prompts_are_the_same_in_every_workspace(tmp_path: Any) -> None:
    """A system prompt that named the workspace's path would be served by no prompt cache in another folder, and
    a model shown an absolute path writes paths from it."""
    from podium.apps import build_applications
    from podium.desktop.wire.prompts import app_system, host_system

    def prompts(root: Any) -> list[str]:
        root.mkdir()
        apps = build_applications({"workspace": str(root)})
        return [host_system(Catalog.of(apps.values()))] + [
            app_system(app.name, app.description, app.tools()) for app in apps.values()]

    here, there = prompts(tmp_path / "one"), prompts(tmp_path / "two")
    assert here == there and not any(str(tmp_path) in p for p in here)


def test_the_planner_reads_what_each_tool_does_and_a_record_keeps_every_field_of_the_catalogue(tmp_path: Any) -> None:
    from podium.apps import build_applications
    from podium.desktop.host.catalog import first_sentence
    from podium.desktop.wire.prompts import host_system

    real = Catalog.of(build_applications({"workspace": str(tmp_path)}).values())
    system = host_system(real)
    sheets = real.get("spreadsheets")
    assert sheets is not None
    for tool in sheets.tools:  # every tool on a line of its own, with its description's first sentence
        assert f"\n- {tool.name}: {tool.summary}\n" in system
    # a copy and a move are one tool: what becomes of the source is its AppAgent's required choice
    assert ("- copy_or_move: Copy or move a file or folder to a new path or into a folder: mode 'copy' keeps the "
            "source where it is (like cp), mode 'move' takes it away (like mv, a rename too).\n") in system
    # the first sentence, up to its first ';': the planner gets what a tool does, its AppAgent the details
    assert first_sentence("Add a column (e.g. A = B * C) to a table; returns the values. More.") == \
        "Add a column (e.g. A = B * C) to a table."
    assert first_sentence("") == ""
    long = first_sentence("Do " + "this and that " * 40)  # a remote server's page-long description: cut, on a word
    assert len(long) <= 205 and long.endswith(" ...") and "\n" not in first_sentence("Two\nlines")
    # replay rebuilds the catalogue from its record: with every field the strategy decides from (computes, ...)
    assert Catalog.from_dict(real.to_dict()) == real
    assert any(t.computes for a in real.apps for t in a.tools)
    older = {"apps": [{"name": "files", "tools": [{"name": "copy_or_move", "read_only": False}]}]}
    assert Catalog.from_dict(older).apps[0].tools[0] == ToolInfo("copy_or_move", False)


def test_a_changing_tool_whose_path_takes_no_type_the_subtask_writes_is_not_expected(tmp_path: Any) -> None:
    from podium.apps import build_applications

    real = Catalog.of(build_applications({"workspace": str(tmp_path), "enabled": ["files", "spreadsheets"]})
                      .values())
    read = spec("1", "spreadsheets", reads=["members.xlsx"], tools=["read_sheet"], hands_on="table")
    writer = spec("2", "files", "1", writes=["duplicates.txt"], tools=["write_csv_table"])
    check = check_plan([read, writer], real, "List the duplicate rows of members.xlsx in duplicates.txt",
                       ("members.xlsx",))
    assert check.ok, check.problems
    assert ("subtask '2' does not expect write_csv_table: it writes only .csv files, and duplicates.txt is not one"
            in check.amended)
    # left with none of its tools, its AppAgent may call any tool of its application (its writes bound it)
    assert [s.tools for s in check.subtasks if s.id == "2"] == [()]
    # a .csv write keeps it; so does a folder, which may hold files of any type
    for writes in (["duplicates.csv"], ["out"]):
        kept = writer.model_copy(update={"writes": tuple(writes)})
        check = check_plan([read, kept], real, f"List the duplicate rows of members.xlsx in {writes[0]}",
                           ("members.xlsx",))
        assert [s.tools for s in check.subtasks if s.id == "2"] == [("write_csv_table",)], check.amended


def test_a_subtask_naming_no_file_runs_where_the_data_handed_to_it_comes_from() -> None:
    read = spec("1", "spreadsheets", reads=["budget.xlsx"], tools=["read_sheet"], hands_on="table")
    pick = spec("2", "documents", "1", tools=["read_table"], hands_on="text")
    check = check_plan([read, pick], CATALOG, "Which quarter of budget.xlsx sold most?", ("budget.xlsx",))
    assert check.ok, check.problems
    moved = check.subtasks[1]
    assert (moved.application, moved.reads) == ("spreadsheets", ("budget.xlsx",))
    assert check.amended == ("subtask '2' runs on spreadsheets, reading budget.xlsx: it names no file, and documents "
                             "opens none of the files the data handed to it comes from",)
    # where its application opens those files, or it changes files of its own, it stays
    docs = spec("1", reads=["report.docx"], tools=["read_table"], hands_on="table")
    assert check_plan([docs, pick], CATALOG, "Which quarter of report.docx sold most?",
                      FILES).subtasks[1].application == "documents"
    adds = pick.model_copy(update={"tools": ("add_table",)})
    assert check_plan([read, adds], CATALOG, "Which quarter of budget.xlsx sold most?",
                      ("budget.xlsx",)).subtasks[1].application == "documents"


def test_a_plain_writer_whose_declared_tools_take_none_of_its_data_may_use_any(tmp_path: Any) -> None:
    from podium.apps import build_applications

    real = Catalog.of(build_applications({"workspace": str(tmp_path),
                                          "enabled": ["files", "spreadsheets"]}).values())
    read = spec("1", "spreadsheets", reads=["members.xlsx"], tools=["read_sheet"], hands_on="table")
    listing = spec("2", "files", "1", writes=["dups.txt"], tools=["write_file_names"])
    request = "Write the names that occur twice in members.xlsx into dups.txt"
    check = check_plan([read, listing], real, request, ("members.xlsx",))
    assert check.ok, check.problems
    assert check.subtasks[1].tools == ()
    assert check.amended == ("subtask '2' may use any tool of files: none of write_file_names takes the table "
                             "handed to it, which it writes with",)
    assert "write_file" in data_takers(check.subtasks[1], real.get("files"), {s.id: s for s in check.subtasks})
    # a declared tool that takes the data, or a source of its own: its declaration stands
    for kept in (listing.model_copy(update={"tools": ("write_file",)}),
                 listing.model_copy(update={"reads": ("names.txt",)})):
        assert check_plan([read, kept], real, request, ("members.xlsx", "names.txt")).subtasks[1].tools == kept.tools
    # a text handed on is written whole by the one tool that writes a text (_value_writer), not by any tool
    said = read.model_copy(update={"hands_on": "text"})
    assert check_plan([said, listing], real, request, ("members.xlsx",)).subtasks[1].tools == ("write_file",)


def test_a_plain_writer_does_not_read_the_typed_file_its_giver_reads_for_it(tmp_path: Any) -> None:
    from podium.apps import build_applications

    real = Catalog.of(build_applications({"workspace": str(tmp_path),
                                          "enabled": ["files", "spreadsheets"]}).values())
    read = spec("1", "spreadsheets", reads=["members.xlsx"], tools=["read_sheet"], hands_on="table")
    writer = spec("2", "files", "1", reads=["members.xlsx"], writes=["dups.txt"], tools=["write_file_names"])
    request = "Which rows in members.xlsx are duplicates? List them in dups.txt"
    check = check_plan([read, writer], real, request, ("members.xlsx",))
    assert check.ok, check.problems
    assert check.subtasks[1].reads == () and check.subtasks[1].tools == ()  # its data is the table handed to it
    assert check.amended[0] == ("subtask '2' does not read members.xlsx: the subtask it depends on reads it and "
                                "hands on the data")
    # a copy of the file takes it by its path; a giver that hands nothing on gives no data
    copier = writer.model_copy(update={"writes": ("old/members.xlsx",), "tools": ("copy_or_move",)})
    waited = read.model_copy(update={"hands_on": HandsOn.NOTHING})
    for plan in ([read, copier], [waited, writer]):
        assert check_plan(plan, real, f"{request} or old", ("members.xlsx",)).subtasks[-1].reads == ("members.xlsx",)


def test_a_typed_writer_handed_a_table_does_not_expect_a_tool_that_writes_a_row_of_its_own(tmp_path: Any) -> None:
    from podium.apps import build_applications

    real = Catalog.of(build_applications({"workspace": str(tmp_path),
                                          "enabled": ["documents", "spreadsheets"]}).values())
    read = spec("1", "spreadsheets", reads=["rates.xlsx"], tools=["read_sheet"], hands_on="table")
    row = spec("2", "documents", "1", reads=["proposal.docx"], writes=["proposal.docx"],
               tools=["insert_table_row", "format_text"])
    request = "At the bottom of proposal.docx, insert the Rates sheet from rates.xlsx as a table."
    check = check_plan([read, row], real, request, ("rates.xlsx", "proposal.docx"))
    assert check.ok, check.problems
    assert check.subtasks[1].tools == ("format_text",)  # what works over the document stays
    assert check.amended == ("subtask '2' does not expect insert_table_row: cells of their own, not the table handed "
                             "to it, which goes in with the tools that take it",)
    (placing,) = unplaced(check.subtasks[1], real.get("documents"), {s.id: s for s in check.subtasks})
    assert "add_table" in placing.tools
    # a tool that works over the rows once they are in (a chart over them) is still expected; so is one that
    # takes the table itself
    doc = spec("1", "documents", reads=["report.docx"], tools=["read_table"], hands_on="table")
    chart = spec("2", "spreadsheets", "1", writes=["chart.xlsx"], tools=["add_chart"])
    assert check_plan([doc, chart], real, "Chart the table of report.docx in chart.xlsx",
                      ("report.docx",)).subtasks[1].tools == ("add_chart",)
    table = row.model_copy(update={"tools": ("add_table",)})
    assert check_plan([read, table], real, request, ("rates.xlsx", "proposal.docx")).subtasks[1].tools == ("add_table",)
    # names handed on fit a row: its declaration stands
    names = spec("1", "spreadsheets", reads=["rates.xlsx"], tools=["read_sheet"], hands_on="names")
    assert check_plan([names, row], real, request, ("rates.xlsx", "proposal.docx")).subtasks[1].tools == row.tools


def test_reads_of_several_types_are_narrowed_to_the_types_the_request_names() -> None:
    files = ("data.xlsx", "monday.txt", "readme.md", "tuesday.txt")
    listing = SubtaskSpec(id="1", description="move", application="files", reads=files, writes=("notes",),
                          tools=("copy_or_move",))
    real = Catalog((AppInfo("files", "files", (), (ToolInfo("list_files", True), ToolInfo("copy_or_move", False))),))
    check = check_plan([listing], real, "Move all the .txt files into a folder named notes.", files)
    assert check.ok, check.problems
    # then those files, listed one by one, are read by the pattern the request names for them
    assert check.subtasks[0].reads == ("*.txt",)
    assert check.amended == ("subtask '1' reads monday.txt, tuesday.txt: of the files it lists, those of the type "
                             "the request names (.txt)",
                             "subtask '1' reads files of *.txt one by one, a pattern the request names: it reads "
                             "*.txt")
    # no type named, or every type it reads named (a file name is no type): every file it declared is read
    for request in ("Move the notes into a folder named notes.", "Put the .txt, .md and .xlsx files in notes.",
                    "Move monday.txt and data.xlsx into notes."):
        reads = check_plan([listing], real, request, files).subtasks[0].reads
        assert all(covered(f, reads) for f in files), (request, reads)


def test_a_folder_read_the_request_does_not_name_is_the_workspace() -> None:
    files = ("plan.docx", "reports/", "reports/2023/", "reports/2023/old.docx", "reports/march.docx")
    lister = SubtaskSpec(id="1", description="list", application="files", reads=("reports",),
                         writes=("docx_files.txt",), tools=("write_file_names",))
    real = Catalog((AppInfo("files", "files", (), (ToolInfo("list_files", True), ToolInfo("write_file_names", False))),
                    AppInfo("documents", "documents", (".docx",), (ToolInfo("read_document", True),))))
    check = check_plan([lister], real, "Put the names of every .docx file here and below into docx_files.txt.", files)
    assert check.ok, check.problems
    assert check.subtasks[0].reads == (".",)
    assert check.amended[-1] == "subtask '1' reads reports, which the request does not name: it reads the workspace"
    # a folder the request names, by its name or by a path in it, is the request's own
    for request in ("List the .docx files of the reports folder in docx_files.txt.",
                    "Write the names of reports/march.docx's neighbours into docx_files.txt."):
        assert check_plan([lister], real, request, files).subtasks[0].reads == ("reports",), request
    # a file is no folder
    named_file = lister.model_copy(update={"reads": ("reports/march.docx",)})
    assert check_plan([named_file], real, "List the .docx files in docx_files.txt.", files).subtasks[0].reads == (
        "reports/march.docx",)


def test_writes_listed_from_the_workspace_become_the_pattern_the_request_names() -> None:
    files = ("TMP-readme.txt", "old_tmp_notes.txt", "temp_list.txt", "tmp_invoice.txt", "tmp_scan1.txt",
             "tmp_scan2.txt", "tmpfile.txt")
    rename = SubtaskSpec(id="1", description="Rename files in the workspace", application="files", writes=files,
                         tools=("rename_pattern",))
    real = Catalog((AppInfo("files", "files", (), (ToolInfo("list_files", True), ToolInfo("rename_pattern", False))),))
    request = "Files beginning with tmp_ should begin with keep_ instead. Please rename them."
    check = check_plan([rename], real, request, files)
    assert check.ok, check.problems
    assert check.subtasks[0].writes == ("tmp_*",) and check.subtasks[0].description == request
    assert check.amended[-1] == ("subtask '1' writes files of tmp_* one by one, a pattern the request names: subtask "
                                 "'1' writes tmp_*, not TMP-readme.txt, old_tmp_notes.txt, temp_list.txt, tmpfile.txt "
                                 "(the request names none of them)")
    # a pattern that covers one file only is no set: the plan is refused, naming what the request names
    single = rename.model_copy(update={"writes": ("tmp_invoice.txt", "temp_list.txt")})
    assert not check_plan([single], real, request, files).ok


def test_files_read_one_by_one_are_read_by_the_pattern_the_request_names_for_them() -> None:
    # the planner's listing missed tmp_invoice.txt: read by the pattern, its rename is a declared change
    files = ("tmp_scan1.txt", "tmp_scan2.txt", "tmp_invoice.txt", "tmpfile.txt")
    real = Catalog((AppInfo("files", "files", (), (ToolInfo("list_files", True), ToolInfo("rename_pattern", False))),
                    AppInfo("documents", "docs", (".docx",), (ToolInfo("read_document", True),))))
    rename = SubtaskSpec(id="1", description="rename", application="files", writes=("keep_*",),
                         reads=("tmp_scan1.txt", "tmp_scan2.txt", "tmpfile.txt"), tools=("rename_pattern",))
    request = "Files beginning with tmp_ should begin with keep_ instead. Please rename them."
    check = check_plan([rename], real, request, files)
    assert check.ok, check.problems
    reads = check.subtasks[0].reads
    # tmpfile.txt, which the pattern leaves out and the request names neither by name nor by type, came with
    # the listing: no source of the work
    assert reads == ("tmp_*",) and covered("tmp_invoice.txt", reads)
    assert check.amended == ("subtask '1' reads files of tmp_* one by one, a pattern the request names: it reads "
                             "tmp_*, not tmpfile.txt (the request names none of them)",)
    # a typed application reads each file's content: its reads stay files
    docs = SubtaskSpec(id="1", description="read", application="documents", reads=("tmp_a.docx", "tmp_b.docx"),
                       tools=("read_document",), hands_on="text")
    assert check_plan([docs], real, "Read the tmp_ documents", ("tmp_a.docx", "tmp_b.docx")).subtasks[0].reads == (
        "tmp_a.docx", "tmp_b.docx")


def test_files_read_one_by_one_are_read_by_their_type_where_the_request_names_the_type_by_its_name() -> None:
    files = ("jan.csv", "feb.csv", "notes.txt")
    real = Catalog((AppInfo("files", "files", (), (ToolInfo("list_files", True), ToolInfo("copy_or_move", False))),))
    copy = SubtaskSpec(id="1", description="copy", application="files", writes=("archive",), reads=files,
                       tools=("copy_or_move",))
    check = check_plan([copy], real, "Please copy every CSV file here into a new folder called archive.", files)
    assert check.ok and check.subtasks[0].reads == ("*.csv",), check
    # a suffix is no type's name where it ends a file's name the request gives
    assert named_by("*.csv", "the csv files") and named_by("*.csv", "the .csv files")
    assert not named_by("*.log", "How many lines does log.txt have?") and not named_by("*.csv", "Read contacts.csv")


def test_a_subtask_that_changes_the_one_typed_file_it_reads_and_declares_no_write_writes_it(tmp_path: Any) -> None:
    from podium.apps import build_applications

    real = Catalog.of(build_applications({"workspace": str(tmp_path), "enabled": ["documents", "files"]}).values())
    edit = spec("1", "documents", reads=["contract.docx"], tools=["replace_text"])
    request = "Replace 'Northwind Traders' with 'Northwind Group' everywhere in contract.docx."
    check = check_plan([edit], real, request, ("contract.docx",))
    assert check.ok and check.subtasks[0].writes == ("contract.docx",)
    assert check.amended == ("subtask '1' declares replace_text, which changes the file named, and writes nothing: "
                             "it writes contract.docx, the one file of its types it reads",)
    # the request must still name what it writes
    assert not check_plan([edit], real, "Replace 'Northwind Traders' everywhere.", ("contract.docx",)).ok
    # not with two files of its type read, one that is not there yet, or a tool that only makes new files
    two = edit.model_copy(update={"reads": ("contract.docx", "offer.docx")})
    assert not check_plan([two], real, request, ("contract.docx", "offer.docx")).ok
    assert not check_plan([edit], real, request, ("offer.docx",)).ok
    new = edit.model_copy(update={"tools": ("create_document",)})
    assert check_plan([new], real, request, ("contract.docx",)).subtasks[0].writes == ()
    # on the application of any file, a tool that edits the file it opens: a configuration file edited in place
    conf = spec("1", "files", reads=["server.conf"], tools=["read_file", "replace_text"])
    edited = check_plan([conf], real, "In server.conf, change the port from 8080 to 9090.", ("server.conf",))
    assert edited.ok and edited.subtasks[0].writes == ("server.conf",)
    # not a copy: the file it reads is its source, not what it writes
    copy = conf.model_copy(update={"tools": ("copy_or_move",)})
    assert check_plan([copy], real, "Copy server.conf", ("server.conf",)).subtasks[0].writes == ()
    # nor one that hands data on: a reader that declared a tool too many
    reader = edit.model_copy(update={"hands_on": "text"})
    assert check_plan([reader], real, request, ("contract.docx",)).subtasks[0].writes == ()


def test_a_text_written_from_files_only_other_applications_open_expects_the_tool_that_writes_their_names() -> None:
    real = Catalog((AppInfo("files", "files", (), (ToolInfo("list_files", True), ToolInfo("write_file", False),
                                                   ToolInfo("write_file_names", False, writes_names=True))),
                    AppInfo("spreadsheets", "sheets", (".xlsx",), (ToolInfo("read_sheet", True),))))
    files = ("budget.xlsx", "finance/", "finance/q1.xlsx", "hr/", "hr/leave.xlsx", "notes.txt")
    lister = SubtaskSpec(id="1", description="list them", application="files", writes=("sheets.txt",),
                         reads=(".", "finance/q1.xlsx", "hr/leave.xlsx"))
    request = "I need every spreadsheet (.xlsx) anywhere under this folder listed in sheets.txt."
    check = check_plan([lister], real, request, files)
    assert check.ok, check.problems
    assert check.subtasks[0].tools == ("write_file_names",)
    assert check.amended[-1] == ("subtask '1' writes sheets.txt from finance/q1.xlsx, hr/leave.xlsx, which files "
                                 "cannot open: it expects write_file_names, their names being all it can take from "
                                 "them")
    # a changing tool declared, a file it can open among its sources, or data handed to it: the plan's choice
    declared = lister.model_copy(update={"tools": ("write_file",)})
    opened = lister.model_copy(update={"reads": (".", "notes.txt", "hr/leave.xlsx")})
    reader = SubtaskSpec(id="0", description="read", application="spreadsheets", reads=("hr/leave.xlsx",),
                         tools=("read_sheet",), hands_on="table")
    handed = lister.model_copy(update={"depends_on": ("0",), "reads": ()})
    both = "Put the names of notes.txt and hr/leave.xlsx into sheets.txt."
    for plan, asked in (([declared], request), ([opened], both), ([reader, handed], request)):
        check = check_plan(plan, real, asked, files)
        assert not any("expects write_file_names" in note for note in check.amended), check
        assert "write_file_names" not in check.subtasks[-1].tools, check


def test_data_handed_to_no_subtask_goes_to_the_one_writer_with_no_source(tmp_path: Any) -> None:
    from podium.apps import build_applications

    real = Catalog.of(build_applications({"workspace": str(tmp_path),
                                          "enabled": ["files", "documents", "spreadsheets"]}).values())
    request = "Put the answers of survey.csv into a new workbook, survey.xlsx."
    reader = spec("1", "files", reads=["survey.csv"], tools=["read_csv"], hands_on="table")
    writer = spec("2", "spreadsheets", writes=["survey.xlsx"], tools=["write_rows"])
    # listed before the reader it now waits for, it moves after it
    for plan in ([reader, writer], [writer, reader]):
        check = check_plan(plan, real, request, ("survey.csv",))
        assert check.ok, check.problems
        assert [(s.id, s.depends_on) for s in check.subtasks] == [("1", ()), ("2", ("1",))]
        assert check.amended[-1] == ("subtask '2' waits for '1': it writes survey.xlsx with no source of its own, "
                                     "and the table it hands on goes to no other subtask")
    # a writer with a source of its own, two writers with none, a reader some subtask takes from, a folder
    # written, a reader that waits for the writer: no data goes astray, or where it goes is not certain
    own = writer.model_copy(update={"reads": ("notes.xlsx",)})
    other = spec("3", "spreadsheets", writes=["other.xlsx"], tools=["write_rows"])
    taken = spec("3", "files", "1", writes=["copy.txt"], tools=["write_file"])
    folder = spec("2", "files", writes=["archive"], tools=["make_folder"])
    after = reader.model_copy(update={"depends_on": ("2",), "reads": ("survey.xlsx",)})
    files = ("survey.csv", "notes.xlsx")
    for plan in ([reader, own], [reader, writer, other], [reader, writer, taken], [reader, folder],
                 [writer, after]):
        check = check_plan(plan, real, f"{request} notes.xlsx other.xlsx copy.txt archive", files)
        assert not any("waits for" in n and "no source of its own" in n for n in check.amended), plan


def test_a_wait_that_carries_no_data_and_orders_no_file_goes() -> None:
    request = "Put 'Room 4B' into C3 of budget.xlsx; also add a table to report.docx"
    reader = spec("1", "documents", reads=["report.docx"], tools=["read_table"], hands_on="table")
    cell = spec("2", "spreadsheets", "1", writes=["budget.xlsx"], tools=["write_rows"])
    edit = spec("1", "documents", reads=["report.docx"], writes=["report.docx"], tools=["add_table"])
    table = spec("3", "documents", "2", reads=["report.docx"], writes=["report.docx"], tools=["add_table"])
    check = check_plan([edit, cell, table], CATALOG, request, FILES)
    assert check.ok, check.problems
    # the table no longer waits for the cell, which hands nothing on and writes no file of its (nor the cell for
    # the edit); it still comes after the earlier change of the document it changes, which it waited for through
    # the cell
    assert [(s.id, s.depends_on) for s in check.subtasks] == [("1", ()), ("2", ()), ("3", ("1",))]
    assert check.amended[-1] == ("subtask '3' does not wait for '2': no data and no file passes between them (it "
                                 "waits for '1' directly, which must come first)")
    # where what must come first hands data on, a direct wait would hand it that data: every wait stays
    check = check_plan([reader, cell, table], CATALOG, request, FILES)
    assert [(s.id, s.depends_on) for s in check.subtasks] == [("1", ()), ("2", ("1",)), ("3", ("2",))], check
    alone = spec("3", "documents", "2", writes=["notes.docx"], tools=["add_table"])
    check = check_plan([reader, cell, alone], CATALOG, f"{request} notes.docx", FILES)
    assert [(s.id, s.depends_on) for s in check.subtasks] == [("1", ()), ("2", ("1",)), ("3", ())], check
    # a wait stays for data handed on, for a file one writes and the other reads or writes, on one application,
    # for one that writes nothing (what it says is its result), for one that names no path (a program's actions
    # may act on what the other wrote); and where what must still come first hands on data of files the
    # waiting subtask does not name
    waits = [
        [reader, cell.model_copy(update={"depends_on": ()}),
         spec("3", "documents", "2", reads=["budget.xlsx"], writes=["report.docx"], tools=["add_table"])],
        [reader, cell, spec("3", "spreadsheets", "2", writes=["notes.xlsx"], tools=["add_chart"])],
        [reader, spec("2", "files", "1", reads=["notes/a.txt"], tools=["list_files"]),
         spec("3", "spreadsheets", "2", writes=["notes.xlsx"], tools=["write_rows"])],
        [reader, cell, spec("3", "files", "2", tools=["list_files"])],
        [spec("1", "documents", reads=["report.docx"], writes=["notes.docx"], tools=["add_table"],
              hands_on="table"), cell, spec("3", "files", "2", reads=["notes.docx"], writes=["notes/b.txt"],
                                             tools=["write_file"])],
    ]
    for plan in waits:
        notes: list[str] = []
        assert amend._unchained(plan, {}, notes) == plan and not notes, notes


def test_a_transfer_that_only_reads_its_sources_leaves_their_mode_open_until_settled(tmp_path: Any) -> None:
    from podium.apps.files import FilesApplication
    from podium.apps.workspace import Workspace
    from podium.desktop.host.plan import open_choice, settle

    catalog = Catalog.of([FilesApplication(Workspace.at(tmp_path))])
    spec = SubtaskSpec(id="1", description="Put the logs into old", application="files", reads=("*.log", "a.txt"),
                       writes=("old", "a.txt"), tools=("make_folder", "copy_or_move"))
    choice = open_choice(spec, catalog)
    assert choice is not None and (choice.tool, choice.argument, choice.options) == ("copy_or_move", "mode",
                                                                                   ("copy", "move"))
    assert choice.sources == ("*.log",) and "no longer where" in choice.meaning
    assert choice.gone == "move" and "say what becomes of *.log" in choice_user("Move the logs", choice)
    assert settle(spec, choice, "move") == (spec.model_copy(update={"writes": ("old", "a.txt", "*.log")}), "")
    assert settle(spec, choice, "copy") == (spec, "")
    assert open_choice(settle(spec, choice, "move")[0], catalog) is None  # settled: nothing left open
    # no transfer tool declared, or nothing only read: nothing to settle
    assert open_choice(spec.model_copy(update={"tools": ("make_folder",)}), catalog) is None
    assert open_choice(spec.model_copy(update={"reads": ()}), catalog) is None


def test_a_new_file_named_only_by_its_stem_beside_a_named_file_of_its_type_is_a_part_or_a_file(tmp_path: Any) -> None:
    from podium.apps.spreadsheets import SpreadsheetsApplication
    from podium.apps.workspace import Workspace
    from podium.desktop.host.plan import open_choice, settle
    from podium.desktop.wire.messages import ChoiceKind

    catalog = Catalog.of([SpreadsheetsApplication(Workspace.at(tmp_path))])
    request = "Rank the runners in race.xlsx by their time, fastest first, on a new sheet called Results."
    files = ("race.xlsx", "notes.txt")
    spec = SubtaskSpec(id="2", description="Write the times into Results.xlsx", application="spreadsheets",
                       reads=("race.xlsx",), writes=("Results.xlsx",), tools=("write_rows",))
    choice = open_choice(spec, catalog, request, files)
    assert choice is not None and choice.kind is ChoiceKind.PART and choice.options == ("sheet", "file")
    assert choice.sources == ("Results.xlsx",) and choice.within == "race.xlsx"
    asked = choice_user(request, choice)
    assert "name Results, with the words before it" in asked and "sheet: a sheet named Results in race.xlsx" in asked
    as_part, said = settle(spec, choice, "sheet")
    assert as_part.writes == ("race.xlsx",) and said == "Results is a sheet of race.xlsx, not a file"
    assert settle(spec, choice, "file") == (spec, "")
    assert open_choice(as_part, catalog, request, files) is None
    # a file the request names whole, one that exists, or no file of its type named beside it: nothing open
    assert open_choice(spec, catalog, request.replace("Results.", "Results.xlsx."), files) is None
    assert open_choice(spec, catalog, request, (*files, "Results.xlsx")) is None
    assert open_choice(spec.model_copy(update={"reads": ()}), catalog, request, files) is None
    assert open_choice(spec, catalog, request.replace("race.xlsx", "the race workbook"), files) is None


def test_one_path_renamed_with_a_tool_of_name_patterns_is_the_tool_that_takes_one_path(tmp_path: Any) -> None:
    from podium.apps.files import FilesApplication
    from podium.apps.workspace import Workspace
    from podium.desktop.host.plan import open_choice

    catalog = Catalog.of([FilesApplication(Workspace.at(tmp_path))])
    one = SubtaskSpec(id="1", description="Rename draft.txt to final.txt", application="files", reads=("draft.txt",),
                      writes=("final.txt",), tools=("rename_pattern",))
    check = check_plan([one], catalog, "Rename draft.txt to final.txt", ["draft.txt"])
    assert check.ok and check.subtasks[0].tools == ("copy_or_move",), check
    assert "copy_or_move, not rename_pattern, which picks names by a pattern" in check.amended[0]
    # a rename takes its source away: the plan chose so, so the source is a write (the verifier holds a copy short)
    assert check.subtasks[0].writes == ("final.txt", "draft.txt") and open_choice(check.subtasks[0], catalog) is None
    # a set of names (a pattern read), or several paths: the pattern is the work
    many = one.model_copy(update={"reads": ("draft_*.txt",), "writes": ("final_*.txt",)})
    assert check_plan([many], catalog, "Rename draft_*.txt to final_*", ["draft_a.txt"]).subtasks[0].tools == (
        "rename_pattern",)


def test_renames_one_by_one_of_a_pattern_the_request_names_stay_renames_by_that_pattern(tmp_path: Any) -> None:
    from podium.apps.files import FilesApplication
    from podium.apps.workspace import Workspace

    catalog = Catalog.of([FilesApplication(Workspace.at(tmp_path))])
    files = ["draft_budget.txt", "draft_letter.txt", "draft_plan.txt", "drafts.txt", "readme.txt"]
    request = ("Rename every file whose name starts with 'draft_' so that it starts with 'final_' instead (for "
               "example draft_plan.txt becomes final_plan.txt).")
    each = [SubtaskSpec(id=str(n), description=f"Rename {name} to final_{name}", application="files",
                        reads=(name,), writes=(f"final_{name}",), tools=("rename_pattern",))
            for n, name in enumerate(files, 1)]
    check = check_plan(each, catalog, request, files)
    assert check.ok, check.problems
    (one,) = check.subtasks
    assert one.tools == ("rename_pattern",) and one.writes == ("final_*",), one


def test_a_new_folder_at_the_top_apart_from_the_one_folder_a_subtask_reads_in_is_named_inside_it() -> None:
    def apart(reads: list[str], writes: str = "archive", files: tuple[str, ...] = ()) -> tuple[Any, ...]:
        return folders_apart([spec("1", "files", reads=reads, writes=[writes])], files)

    assert apart(["services/*.log"]) == (("1", "archive", "services/archive"),)
    assert apart(["logs/2024/a.log", "logs/2024/b.log"]) == (("1", "archive", "logs/2024/archive"),)
    # reads at the top or in two folders, a path or a typed file written, or a folder there already: as planned
    assert apart(["a.log"]) == apart(["x/a.log", "y/b.log"]) == apart(["services"]) == ()
    assert apart(["services/*.log"], "services/archive") == apart(["services/*.log"], "archive.txt") == ()
    assert apart(["services/*.log"], files=("archive/old.log",)) == ()
