"""Plan checks in code: each returns a reason the planner can act on."""

from __future__ import annotations

import pytest

from podium.apps.base import Tool, ToolResult
from podium.desktop.catalog import AppInfo, Catalog, read_sources, reads_only
from podium.desktop.plan import check_plan, prohibitions
from podium.desktop.plan_repairs import (
    add_missing,
    add_unwritten,
    as_requested,
    compute_upstream,
    merge_chains,
    write_first,
)
from podium.desktop.schemas import SubtaskSpec
from podium.errors import ConfigError

CATALOG = Catalog((
    AppInfo("documents", "Word documents", (".docx",), ("word", "document")),
    AppInfo("spreadsheets", "Excel workbooks", (".xlsx", ".csv"), ("excel", "spreadsheet")),
    AppInfo("files", "the file system"),
))
REQUEST = "Extract the table from report.docx and create a bar chart of it in budget.xlsx"


def spec(id: str, description: str, application: str = "", depends_on: tuple[str, ...] = ()) -> SubtaskSpec:
    return SubtaskSpec(id=id, description=description, application=application, depends_on=depends_on)


def test_the_seed_plan_passes() -> None:
    check = check_plan([spec("1", "Extract the table from report.docx", "documents"),
                        spec("2", "Create a bar chart in budget.xlsx from the table", "spreadsheets", ("1",))],
                       CATALOG, REQUEST)
    assert check.ok and check.problems == ()
    assert [s.application for s in check.subtasks] == ["documents", "spreadsheets"]


def test_aliases_and_window_titles_are_resolved_to_application_names() -> None:
    check = check_plan([spec("1", "Read the table", "Microsoft Word - report.docx"),
                        spec("2", "Chart it", "Excel", ("1",))], CATALOG)
    assert check.ok, check.problems
    assert [s.application for s in check.subtasks] == ["documents", "spreadsheets"]


def test_a_missing_application_is_inferred_from_the_file_type() -> None:
    check = check_plan([spec("1", "Read notes.csv")], CATALOG)
    assert check.ok and check.subtasks[0].application == "spreadsheets"


def test_unknown_application() -> None:
    check = check_plan([spec("1", "Paint a picture", "photoshop")], CATALOG)
    assert check.problems == ("subtask '1' names unknown application 'photoshop': choose one of "
                              "documents, spreadsheets, files",)


def test_no_application_and_nothing_to_infer_it_from() -> None:
    assert "names no application" in check_plan([spec("1", "Tidy up")], CATALOG).problems[0]


def test_the_file_type_decides_the_application() -> None:
    # the files name one application: the plan is corrected, not re-asked
    check = check_plan([spec("1", "Extract the table from report.docx", "spreadsheets")], CATALOG)
    assert check.ok and check.subtasks[0].application == "documents"
    # mentioning files of two applications allows either
    assert check_plan([spec("1", "Chart the table of report.docx in budget.xlsx", "spreadsheets")], CATALOG).ok
    # an application that opens no particular file type may work on any file
    copy = check_plan([spec("1", "Copy report.docx and budget.xlsx into backup/", "files")], CATALOG)
    assert copy.ok and copy.subtasks[0].application == "files"
    # files of two applications, neither of them the one named: re-asked
    slides = Catalog((*CATALOG.apps, AppInfo("slides", "presentations", (".pptx",))))
    check = check_plan([spec("1", "Put the table of report.docx into budget.xlsx", "slides")], slides)
    assert check.problems == ("subtask '1' works on report.docx, budget.xlsx, which documents or spreadsheets "
                              "handles, but it names slides: assign it to documents or spreadsheets",)


def test_unknown_dependency_names_the_known_ids() -> None:
    check = check_plan([spec("1", "Read report.docx", "documents", ("7",))], CATALOG)
    assert check.problems == ("subtask '1' depends on unknown subtask '7' (known ids: 1)",)


def test_self_dependency() -> None:
    check = check_plan([spec("1", "Read report.docx", "documents", ("1",))], CATALOG)
    assert any("depends on itself" in p for p in check.problems)


def test_forward_dependency() -> None:
    check = check_plan([spec("1", "Chart it in budget.xlsx", "spreadsheets", ("2",)),
                        spec("2", "Read report.docx", "documents")], CATALOG)
    assert check.problems == ("subtask '1' depends on '2', which comes after it: list subtasks in the order "
                              "they must run",)


def test_cycle() -> None:
    check = check_plan([spec("1", "a.docx", "documents", ("3",)), spec("2", "b.docx", "documents", ("1",)),
                        spec("3", "c.docx", "documents", ("2",))], CATALOG)
    assert any(p.startswith("the dependencies form a cycle") for p in check.problems)


def test_duplicate_ids_and_empty_plans_and_descriptions() -> None:
    assert any("two subtasks have the id" in p for p in
               check_plan([spec("1", "a.docx", "documents"), spec("1", "b.docx", "documents")], CATALOG).problems)
    assert "the plan has no new subtasks" in check_plan([], CATALOG).problems[0]
    assert any("has no description" in p for p in check_plan([spec("1", " ", "documents")], CATALOG).problems)


def test_every_problem_is_reported_at_once() -> None:
    check = check_plan([spec("1", "report.docx", "documents", ("1",)), spec("2", "x", "nope", ("9",)),
                        spec("2", "y", "files")], CATALOG)
    assert len(check.problems) == 4, check.problems


def test_a_re_plan_may_depend_on_kept_subtasks_and_does_not_repeat_them() -> None:
    kept = {"1": spec("1", "Extract the table from report.docx", "documents")}
    check = check_plan([spec("1", "Extract the table from report.docx", "documents"),
                        spec("3", "Chart it in budget.xlsx", "spreadsheets", ("1",))], CATALOG, REQUEST, kept)
    assert check.ok and [s.id for s in check.subtasks] == ["3"]


@pytest.mark.parametrize(("request_text", "description", "forbidden"), [
    ("Chart the table in budget.xlsx but do not modify report.docx", "Update the title of report.docx", True),
    ("Chart the table in budget.xlsx but do not modify report.docx", "Read the table from report.docx", False),
    ("Chart the table in budget.xlsx but do not modify report.docx", "Read report.docx without changing it", False),
    ("Clean the folder. Never delete any files.", "Remove the old files", True),
    ("Clean the folder. Never delete any files.", "Move the old files to archive/", False),
    ("Make a chart without deleting anything", "Delete the empty sheet", True),
    ("Don't send the email, just draft it", "Send the email to Bob", True),
    ("Don't send the email, just draft it", "Draft the email to Bob", False),
])
def test_no_subtask_for_what_the_request_forbids(request_text: str, description: str, forbidden: bool) -> None:
    check = check_plan([spec("1", description, "files")], CATALOG, request_text)
    assert any("says not to do" in p for p in check.problems) is forbidden, check.problems


def test_prohibitions_are_parsed_from_the_request() -> None:
    (rule,) = prohibitions("Extract it, but do not modify report.docx.")
    verbs, objects, phrase = rule
    assert phrase == "modify report.docx" and objects == {"report.docx"} and "edit" in verbs
    assert prohibitions(REQUEST) == ()


class NotesApp:
    name = "notes"
    description = "in-memory notes"
    file_types = ("txt",)

    def tools(self) -> list[Tool]:
        return [Tool("write", "write a note")]

    def is_sensitive(self, tool: str, arguments: object) -> bool:
        return False

    async def call(self, tool: str, arguments: object) -> ToolResult:
        return ToolResult("ok")

    async def is_running(self) -> bool:
        return True

    async def launch(self) -> None:
        return None


def test_catalog_from_application_objects() -> None:
    catalog = Catalog.of([NotesApp()])
    (info,) = catalog.apps
    assert info == AppInfo("notes", "in-memory notes", (".txt",), (), ("write",), ("write",))
    assert catalog.resolve("", label="0") == "notes" and catalog.resolve("Notes") == "notes"
    assert catalog.resolve("unknown") is None and catalog.resolve("", label="5") is None
    assert catalog.app_for_type("TXT") == "notes"
    with pytest.raises(ConfigError, match="duplicate application names"):
        Catalog.of([NotesApp(), NotesApp()])


def test_resolve_prefers_a_named_application_to_a_file_type() -> None:
    assert CATALOG.resolve("Excel - report.docx") == "spreadsheets"
    assert CATALOG.resolve("report.docx") == "documents"


def test_a_subtask_writing_handed_on_data_into_a_plain_file_goes_to_the_application_that_writes_files() -> None:
    catalog = Catalog((*CATALOG.apps[:2], FILES))
    read = spec("1", "Read the content of meeting.docx", "documents")
    plan = [read, spec("2", "Write the content of meeting.docx into actions.txt", "documents", ("1",))]
    check = check_plan(plan, catalog)
    assert check.ok and [s.application for s in check.subtasks] == ["documents", "files"]
    # a subtask whose every file is one no typed application opens goes there too, data handed on or not
    plain = [spec("1", "Write a greeting into hello.txt", "documents"),
             spec("2", "Move the .txt files to notes", "documents", ("1",)),
             spec("3", "Add the .docx files to the list in docx_files.txt", "documents")]  # its file decides
    assert [s.application for s in check_plan(plain, catalog).subtasks] == ["files", "files", "files"]
    # into a file a typed application opens, or with no application that writes files, it stays
    stays = [read, spec("2", "Write the content into notes.docx", "documents", ("1",)),
             spec("3", "List the .docx files of the folder in report.docx", "documents")]
    assert [s.application for s in check_plan(stays, catalog).subtasks] == ["documents"] * 3
    assert [s.application for s in check_plan(plan, CATALOG).subtasks] == ["documents"] * 2


# -- chains on one application ---------------------------------------------------------------------------

def test_a_chain_on_one_application_becomes_one_subtask() -> None:
    plan = [SubtaskSpec(id="1", description="Read the table of report.docx", application="documents"),
            SubtaskSpec(id="2", description="Write the rows into budget.xlsx.", application="spreadsheets",
                        depends_on=("1",), message="call write_rows"),
            SubtaskSpec(id="3", description="Chart them in budget.xlsx", application="spreadsheets",
                        depends_on=("2",), message="call add_chart"),
            SubtaskSpec(id="4", description="Mention the chart in report.docx", application="documents",
                        depends_on=("3",))]
    merged = merge_chains(plan)
    assert [(s.id, s.application, s.depends_on, parts) for s, parts in merged] == [
        ("1", "documents", (), ()),
        ("2", "spreadsheets", ("1",), ("Write the rows into budget.xlsx.", "Chart them in budget.xlsx")),
        ("4", "documents", ("2",), ())]
    assert merged[1][0].description == "Write the rows into budget.xlsx; then Chart them in budget.xlsx"
    assert merged[1][0].message == "call write_rows Then call add_chart"


def test_a_longer_chain_keeps_every_part_in_order() -> None:
    plan = [SubtaskSpec(id=str(i), description=f"step {i}", application="spreadsheets",
                        depends_on=(str(i - 1),) if i > 1 else ()) for i in range(1, 5)]
    ((spec, parts),) = merge_chains(plan)
    assert spec.id == "1" and parts == ("step 1", "step 2", "step 3", "step 4")


def test_a_part_that_writes_back_what_the_part_before_read_from_the_same_file_is_dropped() -> None:
    plan = [SubtaskSpec(id="1", description="Read the data from traffic.xlsx", application="spreadsheets"),
            SubtaskSpec(id="2", description="Write the rows of subtask 1 into traffic.xlsx",
                        application="spreadsheets", depends_on=("1",), message="call write_rows"),
            SubtaskSpec(id="3", description="Create a line chart in traffic.xlsx", application="spreadsheets",
                        depends_on=("2",), message="call add_chart")]
    ((spec, parts),) = merge_chains(plan)
    assert parts == ("Read the data from traffic.xlsx", "Create a line chart in traffic.xlsx")
    assert spec.message == "call add_chart"
    # written into another file, or read by a part that also changes something: every part stays
    elsewhere = [plan[0], plan[1].model_copy(update={"description": "Write the rows of subtask 1 into t2.xlsx"})]
    assert merge_chains(elsewhere)[0][1] == ("Read the data from traffic.xlsx", "Write the rows of subtask 1 into "
                                                                                  "t2.xlsx")
    sorting = [plan[0].model_copy(update={"description": "Read traffic.xlsx and sort it"}), plan[1]]
    assert len(merge_chains(sorting)[0][1]) == 2
    # a last part that only saves the file again ("with the updated content") is dropped too; one that
    # writes something of its own stays
    def doc(id: str, description: str, after: tuple[str, ...] = ()) -> SubtaskSpec:
        return SubtaskSpec(id=id, description=description, application="documents", depends_on=after)

    memo = [doc("1", "Read the memo.docx"), doc("2", "Add the paragraph 'Moved to Friday.' to the memo.docx", ("1",)),
            doc("3", "Write the memo.docx with the updated content", ("2",))]
    assert merge_chains(memo)[0][1] == ("Read the memo.docx", "Add the paragraph 'Moved to Friday.' to the memo.docx")
    signed = [*memo[:2], doc("3", "Write the signature into memo.docx", ("2",))]
    assert len(merge_chains(signed)[0][1]) == 3


LEDGER = "Reset ledger.xlsx: replace every amount in the Amount column with 0."
LEDGER_PLAN = [spec("1", "Read the table of ledger.xlsx", "spreadsheets"),
               spec("2", "Write the rows of subtask 1 with 0s", "spreadsheets", ("1",)),
               spec("3", "Add the sum of the amounts under the rows in ledger.xlsx", "spreadsheets", ("2",))]


def test_a_last_subtask_doing_work_the_request_never_asks_for_is_left_out_and_said() -> None:
    check = check_plan(LEDGER_PLAN, CATALOG, LEDGER)
    assert check.ok and [s.id for s in check.subtasks] == ["1", "2"]
    assert check.dropped == ("subtask 3 ('Add the sum of the amounts under the rows in ledger.xlsx') left out: "
                             "the request asks for no sum",)
    # asked for in other words ("total", "add up"), the same subtask stays
    for request in ("In ledger.xlsx, put the total of the amounts under them", "Add up the amounts in ledger.xlsx",
                    "Put the sums of the amounts under them in ledger.xlsx"):
        assert [s.id for s in check_plan(LEDGER_PLAN, CATALOG, request).subtasks] == ["1", "2", "3"]


def test_unasked_work_is_kept_when_needed_and_questioned_when_it_is_all_the_plan() -> None:
    needed = [*LEDGER_PLAN, spec("4", "Write the sum of subtask 3 into ledger.xlsx", "spreadsheets", ("3",))]
    assert [s.id for s in check_plan(needed, CATALOG, LEDGER).subtasks] == ["1", "2", "3"]
    alone = check_plan([spec("1", "Create a bar chart of ledger.xlsx", "spreadsheets")], CATALOG, LEDGER)
    assert not alone.ok and alone.problems == (
        "subtask 1 ('Create a bar chart of ledger.xlsx') left out: the request asks for no chart: plan what the "
        "request asks for",)
    assert [s.id for s in alone.subtasks] == ["1"] and alone.dropped == ()


def test_a_file_name_asks_for_no_work() -> None:
    request = "Write the names of the .docx files into total.txt"
    plan = [spec("1", "List the .docx files", "files"), spec("2", "Write the names into total.txt", "files", ("1",)),
            spec("3", "Write the total of subtask 1 into count.txt", "files", ("1",))]
    assert [s.id for s in check_plan(plan, CATALOG, request).subtasks] == ["1", "2"]


@pytest.mark.parametrize(("text", "only"), [
    ("List all files in the current folder and its subfolders", True),
    ("Read the table of report.docx", True),
    ("Compute the total of the Amount column in expenses.xlsx", True),
    ("List the .docx files and write their names into list.txt", False),
    ("Put the rows into budget.xlsx", False),
    ("", False),
])
def test_a_text_that_only_reads(text: str, only: bool) -> None:
    assert reads_only(text) is only


def test_only_a_chain_is_merged() -> None:
    a = SubtaskSpec(id="a", description="Write x.xlsx", application="spreadsheets")
    # two dependants of one subtask: they may run after it in either order, or in parallel on other apps
    fork = [a, SubtaskSpec(id="b", description="Chart x.xlsx", application="spreadsheets", depends_on=("a",)),
            SubtaskSpec(id="c", description="Note it in r.docx", application="documents", depends_on=("a",))]
    assert merge_chains(fork) == tuple((s, ()) for s in fork)
    # a dependant that also waits for another subtask
    join = [a, SubtaskSpec(id="d", description="Read r.docx", application="documents"),
            SubtaskSpec(id="e", description="Chart x.xlsx", application="spreadsheets", depends_on=("a", "d"))]
    assert merge_chains(join) == tuple((s, ()) for s in join)
    # independent subtasks on one application, and a chain across applications
    loose = [a, SubtaskSpec(id="f", description="Write y.xlsx", application="spreadsheets"),
             SubtaskSpec(id="g", description="Note it in r.docx", application="documents", depends_on=("f",))]
    assert merge_chains(loose) == tuple((s, ()) for s in loose)
    # a re-plan never rewrites a subtask that already ran
    later = [a, SubtaskSpec(id="h", description="Chart x.xlsx", application="spreadsheets", depends_on=("a",))]
    assert merge_chains(later, {"a": a}) == tuple((s, ()) for s in later)
    assert len(merge_chains(later)) == 1


@pytest.mark.parametrize(("request_text", "offered"), [
    (REQUEST, ("documents", "spreadsheets")),  # every file is of a typed application
    ("Chart the table of report.docx", ("documents", "spreadsheets")),  # typed ones stay: the chart needs one
    ("Sum report.docx's table into total.txt", ("documents", "spreadsheets", "files")),  # .txt: nobody's type
    ("Move everything into a folder named old", ("documents", "spreadsheets", "files")),  # no file named
    ("Use files to copy report.docx into old/", ("documents", "spreadsheets", "files")),  # named by name
])
def test_the_planner_is_offered_the_generic_applications_only_when_the_request_may_need_them(
        request_text: str, offered: tuple[str, ...]) -> None:
    assert CATALOG.needed_by(request_text) == offered
    assert CATALOG.only(offered).names == offered


SHEETS = AppInfo("spreadsheets", changing=("create_workbook", "add_sheet", "write_rows", "set_cell", "append_rows",
                                           "add_chart"))
DOCS = AppInfo("documents", changing=("create_document", "add_paragraphs", "add_table", "set_table_cell"))
FILES = AppInfo("files", changing=("write_file", "make_folder", "copy", "move", "rename_pattern", "delete"))


@pytest.mark.parametrize(("app", "text", "asked"), [
    (SHEETS, "Create a bar chart of it in budget.xlsx", ("add_chart",)),
    # plural or not; two tools of the same words are both named (pending: either one does)
    (SHEETS, "In invoices.xlsx, add a row labelled Total under the invoices", ("write_rows", "append_rows")),
    # a sheet the text only locates asks for no new sheet
    (SHEETS, "Write 'Friday' into cell B2 of the Schedule sheet in plan.xlsx", ("set_cell",)),
    (SHEETS, "Add the item Travel under the last item in sheet Q2", ("write_rows", "append_rows")),  # an item: a row
    (SHEETS, "Add a sheet named Ranking that lists the students", ("add_sheet",)),
    (SHEETS, "Write the rows of subtask 1 into the first sheet of inventory.xlsx", ("write_rows", "append_rows")),
    (SHEETS, "Extract the table from report.docx and create a bar chart of it in budget.xlsx", ("add_chart",)),
    (SHEETS, "Read the chart data from traffic.xlsx", ()),  # a clause that reads names nothing
    (SHEETS, "Write the totals into the workbook budget.xlsx", ()),  # "workbook" is every tool's object
    (DOCS, "Add the table from prices.xlsx to the end of catalogue.docx", ("add_table",)),  # not set_table_cell
    (DOCS, "Set the cell under Total in the table of report.docx", ("set_table_cell",)),
    (DOCS, "Add the paragraph 'Approved.' at the end of minutes.docx", ("add_paragraphs",)),
    (FILES, "Move all the .txt files into a folder named notes", ("make_folder", "move")),
    (FILES, "Rename every file whose name starts with draft_", ("rename_pattern",)),
    # the files application's tools are all plain words: write_file is named by both, a file name being "file"
    (FILES, "Write the names of the .docx files into list.txt", ("write_file",)),
    (FILES, "Write the sum into the total", ()),
    # with a tool that writes the names itself, that one (and "in this folder" asks for no make_folder)
    (AppInfo("files", changing=(*FILES.changing, "write_file_names")),
     "Write the names of all the .docx files in this folder and its subfolders into docx_files.txt",
     ("write_file_names",)),
    (AppInfo("files", changing=(*FILES.changing, "write_file_names")), "Rename every file whose name starts with "
     "draft_", ("rename_pattern",)),
    (SHEETS, "Create a bar chart of it in budget.xlsx and write it", ("add_chart",)),  # typed: no create_workbook
])
def test_the_changing_tools_a_text_names(app: AppInfo, text: str, asked: tuple[str, ...]) -> None:
    assert app.asked_for(text) == asked


def test_a_named_tool_is_pending_until_it_or_a_tool_of_the_same_words_is_called() -> None:
    text = "Add a row labelled Total, then create a bar chart of the rows"
    assert SHEETS.pending(text, ()) == ("write_rows", "append_rows", "add_chart")
    assert SHEETS.pending(text, ("append_rows",)) == ("add_chart",)
    assert SHEETS.pending(text, ("add_chart", "write_rows")) == ()


def test_the_tools_doing_the_arithmetic_a_text_names_are_pending_too_reading_ones_included() -> None:
    sheets = AppInfo("spreadsheets", tools=("read_sheet", "column_totals", "write_rows", "append_rows", "sort_rows"),
                     changing=("write_rows", "append_rows", "sort_rows"))
    assert sheets.computing("Compute the sum of the values from subtask 1") == ("column_totals",)
    assert sheets.pending("Compute the sum of the values from subtask 1", ()) == ("column_totals",)
    assert sheets.pending("Compute the sum of the values", ("read_sheet", "column_totals")) == ()
    assert sheets.pending("Add a row with the totals of the Net column", ()) == (
        "write_rows", "append_rows", "column_totals")
    assert sheets.computing("List the students from the highest score to the lowest") == ("sort_rows",)
    assert sheets.computing("Read the Amount column") == ()
    assert AppInfo.arithmetic("table_totals") == ("a sum",) and AppInfo.arithmetic("read_table") == ()
    # a change that sums is asked for by its own words, not by every sum: a total to know is read
    totals = AppInfo("spreadsheets", tools=(*sheets.tools, "add_totals_row"),
                     changing=(*sheets.changing, "add_totals_row"))
    assert totals.computing("What is the total of the Amount column?") == ("column_totals",)
    row = "Add a row labelled Total under the invoices, with the totals of the Net and VAT columns"
    assert totals.pending(row, ()) == ("add_totals_row", "column_totals")
    assert totals.pending(row, ("add_totals_row",)) == ()  # it did the sum: column_totals is not wanted as well


def test_a_new_sheet_the_request_never_asks_for_is_left_out_a_located_one_is_no_new_sheet() -> None:
    request = "Fill in the missing phone number of Acme Corp in contacts.xlsx"
    check = check_plan([spec("1", "Write the phone number into contacts.xlsx", "spreadsheets"),
                        spec("2", "Add a new sheet with the phone number", "spreadsheets", ("1",))], CATALOG, request)
    assert [s.id for s in check.subtasks] == ["1"]
    assert check.dropped == ("subtask 2 ('Add a new sheet with the phone number') left out: the request asks for "
                             "no sheet",)
    ranking = "In scores.xlsx, add a sheet named Ranking that lists the students"
    assert len(check_plan([spec("1", "Add a sheet named Ranking to scores.xlsx", "spreadsheets")], CATALOG,
                          ranking).subtasks) == 1
    located = check_plan([spec("1", "Write Friday into B2 of the Schedule sheet", "spreadsheets")], CATALOG,
                         "Write 'Friday' into cell B2 of the Schedule sheet in plan.xlsx")
    assert located.ok and located.dropped == ()


def test_a_subtask_that_computes_on_another_applications_data_moves_to_where_the_data_is() -> None:
    request = "Which region had the highest total sales in the table of sales.docx? Write it into answer.txt"
    check = check_plan([spec("1", "Read the sales data from sales.docx", "documents"),
                        spec("2", "Calculate the total sales for each region", "spreadsheets", ("1",)),
                        spec("3", "Identify the region with the highest total", "spreadsheets", ("2",)),
                        spec("4", "Write the region into answer.txt", "files", ("3",))], CATALOG, request)
    assert check.ok, check.problems
    assert [s.application for s in check.subtasks] == ["documents", "documents", "documents", "files"]
    assert check.moved == (
        "subtask 2 moved from spreadsheets to documents: it computes on the data subtask 1 read there",
        "subtask 3 moved from spreadsheets to documents: it computes on the data subtask 2 read there")
    # a subtask that writes, or names a file of its own application, stays where it is
    stays = check_plan([spec("1", "Read the table from report.docx", "documents"),
                        spec("2", "Write the rows of subtask 1 into budget.xlsx", "spreadsheets", ("1",)),
                        spec("3", "Compute the sum of the Amount column of budget.xlsx", "spreadsheets", ("2",))],
                       CATALOG, "Put the table of report.docx into budget.xlsx and sum its Amount column")
    assert [s.application for s in stays.subtasks] == ["documents", "spreadsheets", "spreadsheets"]
    assert stays.moved == ()


def test_a_sum_planned_on_the_shell_moves_to_the_application_with_the_tool_for_it() -> None:
    sheets = AppInfo("spreadsheets", "", (".xlsx",), tools=("read_sheet", "column_totals", "write_rows"))
    shell = AppInfo("shell", "", tools=("run_command",))
    files = AppInfo("files", "", tools=("read_file", "write_file"))
    catalog = Catalog((sheets, shell, files))
    request = "Compute the total of the Amount column in orders.xlsx and write it into total.txt."
    plan = [spec("1", "Read the Amount column from orders.xlsx", "spreadsheets"),
            spec("2", "Compute the total of the Amount column", "shell", ("1",)),
            spec("3", "Write the total to total.txt", "files", ("2",))]
    check = check_plan(plan, catalog, request)
    assert [s.application for s in check.subtasks] == ["spreadsheets", "spreadsheets", "files"]
    assert check.moved == ("subtask 2 moved from shell to spreadsheets: it computes on the data subtask 1 read "
                           "there",)
    # work no tool of the data's application computes (a count of words) stays on the shell
    counting = [plan[0], spec("2", "Count the words of the comments", "shell", ("1",))]
    assert [s.application for s in check_plan(counting, catalog, request).subtasks] == ["spreadsheets", "shell"]
    # and a generic application that has a tool for the sum keeps it
    summing = AppInfo("shell", "", tools=("run_command", "column_totals"))
    kept = check_plan(plan, Catalog((sheets, summing, files)), request)
    assert [s.application for s in kept.subtasks] == ["spreadsheets", "shell", "files"]


def test_a_file_the_request_asks_to_write_and_no_subtask_names_gets_a_subtask_of_the_request_words() -> None:
    catalog = Catalog((AppInfo("documents", "", (".docx",), changing=("add_table",)), CATALOG.apps[1], FILES))
    request = "Write the action items from the table in meeting.docx into actions.txt, one per line."
    plan = ((spec("1", "Read the action items from the table in meeting.docx", "documents"), ()),)
    planned, notes = add_unwritten(plan, request, catalog)
    assert [(s.id, s.application, s.description, s.depends_on) for s, _ in planned] == [
        ("1", "documents", "Read the action items from the table in meeting.docx", ()),
        ("2", "files", request, ("1",))]
    assert notes == (f"subtask 2 added on files: no subtask wrote actions.txt ({request!r})",)
    # the added subtask waits for every subtask nothing else waits for
    two = ((spec("1", "Read the table of meeting.docx", "documents"), ()),
           (spec("3", "Read the Owner column of meeting.docx", "documents", ("1",)), ()),
           (spec("2", "Read the title of meeting.docx", "documents"), ()))
    assert add_unwritten(two, request, catalog)[0][-1][0].depends_on == ("3", "2")
    # a plan that names the file, or already works on the application that writes it, is left alone
    named = (plan[0], (spec("2", "Put the items into actions.txt", "files", ("1",)), ()))
    assert add_unwritten(named, request, catalog) == (named, ())
    on_files = (plan[0], (spec("2", "Write what subtask 1 read into the text file", "files", ("1",)), ()))
    assert add_unwritten(on_files, request, catalog) == (on_files, ())
    # a sentence that only asks, or a catalogue with nothing that writes the file, adds nothing
    assert add_unwritten(plan, "How many action items does meeting.docx list in actions.txt?", catalog) == (plan, ())
    assert add_unwritten(plan, request, Catalog(catalog.apps[:2])) == (plan, ())
    # a file of a typed application goes to that application
    chart = "Extract the table from report.docx and create a bar chart of it in budget.xlsx"
    only_read = ((spec("1", "Extract the table from report.docx", "documents"), ()),)
    assert [s.application for s, _ in add_unwritten(only_read, chart, catalog)[0]] == ["documents", "spreadsheets"]


def test_work_the_request_names_and_no_subtask_does_is_added_as_the_request_words_last_part() -> None:
    catalog = Catalog((DOCS, SHEETS))
    plan = merge_chains([spec("1", "Read the table from report.docx", "documents"),
                         spec("2", "Write the rows of subtask 1 into budget.xlsx", "spreadsheets", ("1",))])
    planned, notes = add_missing(plan, REQUEST, catalog)
    (read, ()), (write, parts) = planned
    assert read.description == "Read the table from report.docx"
    assert parts == ("Write the rows of subtask 1 into budget.xlsx", "Create a bar chart of it in budget.xlsx")
    assert write.description == "Write the rows of subtask 1 into budget.xlsx; then Create a bar chart of it in " \
                                "budget.xlsx"
    assert notes == ("added to subtask 2: 'Create a bar chart of it in budget.xlsx' (no subtask made chart)",)
    # planned already (here or in a kept subtask), or no application has a tool for it: nothing added
    assert add_missing(plan, REQUEST, catalog, ["Chart the rows in budget.xlsx"]) == (plan, ())
    assert add_missing(plan, REQUEST, Catalog((DOCS,))) == (plan, ())


def test_one_subtask_on_a_generic_application_is_the_request_in_its_own_words() -> None:
    move = "Move all the .txt files into a folder named notes."
    plan = merge_chains([spec("1", "Read all .txt files in the workspace", "files"),
                         spec("2", "Write the .txt files to the new folder named notes", "files", ("1",))])
    planned, notes = as_requested(plan, move, CATALOG)
    ((whole, parts),) = planned
    assert (whole.description, whole.message, parts, whole.application) == (move, "", (), "files")
    assert notes == ("subtask 1 is the request in its own words (planned as 'Read all .txt files in the "
                     "workspace; then Write the .txt files to the new folder named notes')",)
    # a typed application, a request naming a file another application opens, two subtasks, a re-plan,
    # or a subtask that already is the request: the plan stays
    on_sheet = merge_chains([spec("1", "Sort the rows", "spreadsheets")])
    assert as_requested(on_sheet, move, CATALOG) == (on_sheet, ())
    named = "Write the action items of meeting.docx into actions.txt"
    assert as_requested(plan, named, CATALOG) == (plan, ())
    two = merge_chains([spec("1", "List the .txt files", "files"), spec("2", "Sort the rows", "spreadsheets")])
    assert as_requested(two, move, CATALOG) == (two, ())
    assert as_requested(plan, move, CATALOG, ["List the files"]) == (plan, ())
    same = merge_chains([spec("1", move, "files")])
    assert as_requested(same, move, CATALOG) == (same, ())


@pytest.mark.parametrize(("request_text", "sources"), [
    ("Compute the total of the Amount column in orders.xlsx and write it into total.txt.", ("orders.xlsx",)),
    ("Extract the table from report.docx and create a bar chart of it in budget.xlsx", ("report.docx",)),
    ("Which region sold most in sales.docx? Write its name into answer.txt.", ("sales.docx",)),
    ("In scores.xlsx, add a sheet named Ranking", ()),
    ("Copy the table in inventory.docx into the first sheet of inventory.xlsx.", ()),
    ("Read report.docx. Then add its summary to report.docx.", ()),  # changed in another sentence
])
def test_the_files_a_request_names_only_to_read_from(request_text: str, sources: tuple[str, ...]) -> None:
    assert read_sources(request_text) == sources


def test_a_change_on_data_read_by_another_application_writes_the_rows_there_first() -> None:
    sheets = AppInfo("spreadsheets", "", (".xlsx",), changing=SHEETS.changing)
    catalog = Catalog((AppInfo("documents", "", (".docx",), changing=DOCS.changing), sheets))
    read = (spec("1", "Extract the table from report.docx", "documents"), ())
    chart = (spec("2", "Create a bar chart of the extracted table", "spreadsheets", ("1",)), ())
    planned, notes = write_first((read, chart), REQUEST, catalog)
    first = "Write the rows of subtask 1 into budget.xlsx as a table, its header row first"
    assert planned[1][1] == (first, "Create a bar chart of the extracted table")
    assert planned[1][0].description == f"{first}; then Create a bar chart of the extracted table"
    assert notes == ("subtask 2 writes the rows of subtask 1 into budget.xlsx first: spreadsheets sees only its "
                     "own files",)
    # a subtask that writes the rows itself, one that only reads, and data from its own application: unchanged
    for unchanged in ((spec("2", "Write the rows of subtask 1 into budget.xlsx, then chart them", "spreadsheets",
                            ("1",)), ()),
                      (spec("2", "Write the table into budget.xlsx and add a bar chart over it", "spreadsheets",
                            ("1",)), ()),
                      (spec("2", "Read the Budget sheet of budget.xlsx", "spreadsheets", ("1",)), ())):
        assert write_first((read, unchanged), REQUEST, catalog) == ((read, unchanged), ())
    own = (spec("1", "Read the table of budget.xlsx", "spreadsheets"), ())
    assert write_first((own, chart), REQUEST, catalog) == ((own, chart), ())
    assert write_first((read, chart), "Chart the table of report.docx", catalog) == ((read, chart), ())  # no file


def test_a_chart_planned_on_an_application_without_a_chart_tool_moves_to_the_one_with_the_file() -> None:
    docs = AppInfo("documents", "", (".docx",), tools=("read_table", "add_table", "table_totals"))
    sheets = AppInfo("spreadsheets", "", (".xlsx",), tools=("read_sheet", "add_chart"))
    catalog = Catalog((docs, sheets))
    request = "Create a bar chart of the headcount per team in teams.xlsx, titled 'Headcount by team'."
    plan = [spec("1", "Read the headcount data from teams.xlsx", "spreadsheets"),
            spec("2", "Create a bar chart of the headcount data", "documents", ("1",))]
    check = check_plan(plan, catalog, request)
    assert [s.application for s in check.subtasks] == ["spreadsheets", "spreadsheets"]
    assert check.moved == ("subtask 2 moved from documents to spreadsheets: documents has no tool for a chart",)
    # no file of the charting application named: it stays (and its AppAgent says what it cannot do)
    assert [s.application for s in check_plan(plan, catalog, "Chart the table of report.docx").subtasks] == [
        "spreadsheets", "documents"]
    # arithmetic is not moved by this rule (but by where its data is)
    sums = [plan[0], spec("2", "Compute the sum of the headcount", "documents", ("1",))]
    assert check_plan(sums, Catalog((AppInfo("documents", "", (".docx",), tools=("read_table",)), sheets)),
                      request).moved == ("subtask 2 moved from documents to spreadsheets: it computes on the data "
                                         "subtask 1 read there",)


def test_a_sum_asked_of_an_application_without_a_tool_for_it_is_computed_where_the_data_was_read() -> None:
    sheets = AppInfo("spreadsheets", "", (".xlsx",), tools=("read_sheet", "column_totals", "write_rows"),
                     changing=("write_rows",))
    files = AppInfo("files", "", tools=("read_file", "write_file"), changing=("write_file",))
    catalog = Catalog((sheets, files))
    read = (spec("1", "Read the Amount column from expenses.xlsx", "spreadsheets"), ())
    write = (spec("2", "Write the sum of the Amount column to total.txt", "files", ("1",)), ())
    planned, notes = compute_upstream((read, write), catalog)
    assert planned[0][1] == ("Read the Amount column from expenses.xlsx", "Compute the sum of the Amount column")
    assert planned[0][0].description == ("Read the Amount column from expenses.xlsx; then Compute the sum of the "
                                         "Amount column")
    assert planned[1] == write
    assert notes == ("subtask 1 computes it for subtask 2 ('Compute the sum of the Amount column'): files has no "
                     "tool for a sum",)
    # already computed there, or nothing to compute, or no tool for it there either: unchanged
    computed = (spec("1", "Compute the total of the Amount column of expenses.xlsx", "spreadsheets"), ())
    assert compute_upstream((computed, write), catalog) == ((computed, write), ())
    copy = (spec("2", "Write the rows to rows.txt", "files", ("1",)), ())
    assert compute_upstream((read, copy), catalog) == ((read, copy), ())
    bare = Catalog((AppInfo("spreadsheets", "", (".xlsx",), tools=("read_sheet",)), files))
    assert compute_upstream((read, write), bare) == ((read, write), ())
