"""Data by reference: typed artifacts from tool results, and references resolved to what an argument wants."""

from __future__ import annotations

import pytest

from podium.desktop.host.artifacts import (
    Artifact,
    Kind,
    RefError,
    accepted,
    base_name,
    convert,
    delimited,
    extract,
    figures,
    kind_of,
    records,
    resolve,
    selections,
    unnamed_columns,
)

TABLE = [["Quarter", "Revenue"], ["Q1", 120], ["Q2", 80.5]]
ROWS = {"type": "array", "items": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "number"}]}}}
TEXT = {"type": "string", "contentMediaType": "text/plain"}  # content: a file's text (podium.apps.tooling.Content)
LABEL = {"type": "string"}  # a name, a title
RANGE = {"type": "string", "pattern": "^[A-Z]+[0-9]+:[A-Z]+[0-9]+$"}
CHOICE = {"type": "string", "enum": ["bar", "line"]}
NUMBER = {"type": "number"}
LINES = {"type": "array", "items": {"type": "string"}}


def test_kinds_of_values() -> None:
    assert kind_of(TABLE) is Kind.TABLE
    assert kind_of(["a.docx", "b.docx"]) is Kind.NAMES
    assert kind_of(3099.84) is Kind.NUMBER and kind_of(7) is Kind.NUMBER
    assert kind_of("East") is Kind.TEXT
    for nothing in (True, None, "", " ", [], {}, [1, "a"], [[1], {"x": 1}], float("nan")):
        assert kind_of(nothing) is None, nothing


def test_a_result_is_named_by_subtask_tool_and_key() -> None:
    found = {a.name: a for a in extract("1.read_document", {"paragraphs": ["Minutes", "Actions"],
                                                             "tables": [TABLE], "count": 2})}
    assert found["1.read_document.paragraphs"].kind is Kind.NAMES
    assert found["1.read_document.tables.0"].value == TABLE and found["1.read_document.tables.0"].kind is Kind.TABLE
    assert found["1.read_document.count"].value == 2
    assert "1.read_document" not in found  # a mapping is no artifact itself, its parts are
    (whole,) = extract("2.read_table", TABLE)
    assert whole.name == "2.read_table" and whole.kind is Kind.TABLE
    # what a read left out is for the host and the model, not data a subtask hands on
    partial = {a.name for a in extract("1.read_sheet", {"rows": TABLE, "other_sheets": ["Archive"],
                                                         "left_out": "the other sheets (Archive)"})}
    assert partial == {"1.read_sheet.rows", "1.read_sheet.other_sheets"}


def test_a_list_of_flat_records_is_a_table_under_their_keys() -> None:
    listing = {"folder": "reports", "entries": [{"path": "reports/a.docx", "kind": "file", "size": 3},
                                                {"path": "reports/2023", "kind": "folder"}]}
    found = {a.name: a for a in extract("1.list_files", listing)}
    entries = found["1.list_files.entries"]
    assert entries.kind is Kind.TABLE
    assert entries.value == [["path", "kind", "size"], ["reports/a.docx", "file", 3], ["reports/2023", "folder", None]]
    assert "1.list_files.entries.0" not in found  # the rows are in the table, not named one by one
    names = {a.name: a.value for a in figures(entries)}
    assert names["1.list_files.entries.column.path"] == ["reports/a.docx", "reports/2023"]
    # records with nested values, or other items among them, are no table
    assert records([{"path": "a", "tags": ["x"]}]) is None and records([{"path": "a"}, "b"]) is None
    assert records([]) is None and records([{}]) is None


def test_a_text_of_delimited_lines_is_a_table_too() -> None:
    read = {"path": "contacts.csv", "text": 'Name,Company,Orders\nAna,"Nimbus, Ltd",7\n\nKenji,Orbit,21\n'}
    found = {a.name: a for a in extract("1.read_file", read)}
    assert found["1.read_file.text"].kind is Kind.TEXT
    table = found["1.read_file.text.table"]
    assert table.kind is Kind.TABLE
    assert table.value == [["Name", "Company", "Orders"], ["Ana", "Nimbus, Ltd", "7"], ["Kenji", "Orbit", "21"]]
    assert {a.name: a.value for a in figures(table)}["1.read_file.text.table.sum.Orders"] == 28
    assert delimited("Name\tOrders\nAna\t7") == [["Name", "Orders"], ["Ana", "7"]]
    # prose, one line, or lines of different lengths are no table
    assert delimited("Dear Ana, thank you.\nSee you on Monday.") is None
    assert delimited("a,b") is None and delimited("a,b\nc,d,e") is None


def test_a_second_call_of_a_tool_gets_its_own_name_and_the_same_call_keeps_it() -> None:
    taken = {"1.read_table": "call-a"}
    assert base_name("1", "read_table", taken, "call-a") == "1.read_table"
    assert base_name("1", "read_table", taken, "call-b") == "1.read_table_2"
    assert base_name("1", "read_table", {**taken, "1.read_table_2": "call-b"}, "call-c") == "1.read_table_3"


def test_references_are_resolved_to_what_each_argument_takes() -> None:
    data = {"1.read_table": Artifact("1.read_table", Kind.TABLE, TABLE),
            "2.column_totals.Revenue": Artifact("2.column_totals.Revenue", Kind.NUMBER, 200.5),
            "3.list_files": Artifact("3.list_files", Kind.NAMES, ["a.docx", "b.docx"])}
    params = {"type": "object", "properties": {"rows": ROWS, "content": TEXT, "value": NUMBER, "lines": LINES}}
    got = resolve({"rows": {"ref": "1.read_table"}, "content": {"$ref": "2.column_totals.Revenue"},
                   "value": {"ref": "2.column_totals.Revenue"}, "lines": {"ref": "3.list_files"}, "path": "x.xlsx"},
                  data, params)
    assert got == {"rows": TABLE, "content": "200.5", "value": 200.5, "lines": ["a.docx", "b.docx"],
                   "path": "x.xlsx"}
    # a table as the text of a file: tab-separated lines; names as lines of text
    assert resolve({"content": {"ref": "1.read_table"}}, data, {"properties": {"content": TEXT}}) == {
        "content": "Quarter\tRevenue\nQ1\t120\nQ2\t80.5"}
    assert resolve({"content": {"ref": "3.list_files"}}, data, {"properties": {"content": TEXT}}) == {
        "content": "a.docx\nb.docx"}


def test_a_text_given_as_parts_joins_its_words_and_the_values_referred_to() -> None:
    data = {"2.column_totals.Revenue": Artifact("2.column_totals.Revenue", Kind.NUMBER, 200.0),
            "2.max_label": Artifact("2.max_label", Kind.TEXT, "North")}
    params = {"properties": {"content": TEXT, "lines": LINES}}
    parts = ["Total revenue: ", {"ref": "2.column_totals.Revenue"}, ", highest in ", {"ref": "2.max_label"}]
    assert resolve({"content": parts}, data, params) == {"content": "Total revenue: 200, highest in North"}
    # a list where a list is taken stays one, and a list of words alone is no text made of parts
    assert resolve({"lines": ["a", {"ref": "2.max_label"}]}, data, params) == {"lines": ["a", "North"]}
    assert resolve({"content": ["a", "b"]}, data, params) == {"content": ["a", "b"]}
    with pytest.raises(RefError, match=r"unknown reference '2\.total'"):
        resolve({"content": ["Total: ", {"ref": "2.total"}]}, data, params)


def test_a_bad_reference_is_a_clear_error() -> None:
    data = {"1.read_table": Artifact("1.read_table", Kind.TABLE, TABLE)}
    with pytest.raises(RefError, match=r"unknown reference '1\.read_tabel'; the references are: 1\.read_table"):
        resolve({"rows": {"ref": "1.read_tabel"}}, data, {"properties": {"rows": ROWS}})
    with pytest.raises(RefError, match=r"1\.read_table is a table; this argument takes a number"):
        resolve({"value": {"ref": "1.read_table"}}, data, {"properties": {"value": NUMBER}})
    with pytest.raises(RefError, match=r"1\.read_table is a table; this argument takes a value written out"):
        resolve({"data": {"ref": "1.read_table"}}, data, {"properties": {"data": RANGE}})


def test_which_kinds_an_argument_takes_by_reference() -> None:
    assert accepted(ROWS) == {Kind.TABLE, Kind.NAMES}
    assert accepted(NUMBER) == {Kind.NUMBER}
    assert Kind.TABLE in accepted(TEXT) and Kind.NUMBER in accepted(TEXT)
    # a name or a title takes one value, not a table; a range, a cell or a choice is written, not passed
    assert accepted(LABEL) == {Kind.TEXT, Kind.NUMBER}
    assert accepted(RANGE) == frozenset() and accepted(CHOICE) == frozenset()
    assert accepted({"anyOf": [{"type": "string", "contentMediaType": "text/plain"}, {"type": "null"}]}) == \
        accepted(TEXT)
    # a list of strings takes names or lines, not a table (rows go where rows go)
    assert accepted(LINES) == {Kind.NAMES, Kind.TEXT}
    assert accepted({"type": "boolean"}) == frozenset() and accepted(None) == frozenset()


def test_a_tables_figures_are_numbers_and_labels_per_numeric_column_and_names_per_text_column() -> None:
    table = Artifact("1.read_sheet", Kind.TABLE, [
        ["Branch", "H1", "Max °C", "Note"],
        ["Leeds", 600, "1,200", "x"],
        ["Bristol", 575.5, 3, ""],
        ["York", None, 14, "y"]])
    found = {a.name: (a.kind, a.value) for a in figures(table)}
    assert found["1.read_sheet.sum.H1"] == (Kind.NUMBER, 1175.5)
    assert found["1.read_sheet.mean.H1"] == (Kind.NUMBER, 587.75)  # blank cells are not counted
    assert found["1.read_sheet.max_label.H1"] == (Kind.TEXT, "Leeds")
    assert found["1.read_sheet.min_label.H1"] == (Kind.TEXT, "Bristol")
    assert found["1.read_sheet.sum.Max_C"] == (Kind.NUMBER, 1217)  # "1,200" is a number; the key is a name
    assert not any(".Note" in name for name in found if ".column." not in name)  # a text column has no figures
    # but its cells, as names (one of them is blank); a numeric column has no names
    assert found["1.read_sheet.column.Branch"] == (Kind.NAMES, ["Leeds", "Bristol", "York"])
    assert found["1.read_sheet.column.Note"] == (Kind.NAMES, ["x", "y"])
    assert not any(name.startswith("1.read_sheet.column.H1") for name in found)
    # a figure resolves like any artifact: a number into a text argument
    assert convert(next(a for a in figures(table) if a.name.endswith("sum.H1")), {"type": "string"}) == "1175.5"


def test_a_header_may_have_a_title_and_blank_rows_above_it() -> None:
    table = Artifact("1.read_sheet.rows", Kind.TABLE, [
        ["Expenses, March 2024", None, None], [None, None, None], ["Ref", "Item", "Amount"],
        [1041, "Train", 120.5], [1042, "Ink", 89.99], [None, None, None]])
    found = {a.name: a.value for a in figures(table)}
    assert found["1.read_sheet.rows.sum.Amount"] == 210.49 and found["1.read_sheet.rows.sum.Ref"] == 2083
    assert found["1.read_sheet.rows.max_label.Amount"] == "Train"  # the first text column labels the rows
    assert found["1.read_sheet.rows.column.Item"] == ["Train", "Ink"]


def test_only_a_table_with_a_header_has_figures() -> None:
    assert figures(Artifact("1.t", Kind.TABLE, [[1, 2], [3, 4]])) == ()
    assert figures(Artifact("1.t", Kind.TABLE, [["A", "B"]])) == ()
    assert figures(Artifact("1.n", Kind.NAMES, ["a", "b"])) == ()
    assert [(a.name, a.value) for a in figures(Artifact("1.t", Kind.TABLE, [["A", "B"], ["x", "y"]]))] == [
        ("1.t.row_count", 1), ("1.t.column.A", ["x"]), ("1.t.column.B", ["y"])]


def test_with_two_numeric_columns_each_rows_total_is_measured_too() -> None:
    table = Artifact("1.read_table", Kind.TABLE, [["Region", "Q1", "Q2"], ["North", 500, 100], ["East", 300, 400],
                                                  ["West", 650, 0]])
    found = {a.name: a.value for a in figures(table)}
    assert found["1.read_table.max_label.Q1"] == "West"  # the largest of one column
    assert found["1.read_table.max_label.row_total"] == "East"  # the largest over both: 700
    assert (found["1.read_table.max.row_total"], found["1.read_table.min_label.row_total"]) == (700, "North")
    # each column's largest comes before its least, and each label says its value
    order = [a.name.split(".")[2] for a in figures(table) if a.name.endswith(".Q1")]
    assert order == ["sum", "mean", "max", "min", "max_label", "min_label"]
    # the rows' total first: a question about several columns at once is one about their total
    assert next(a.name for a in figures(table) if "_label." in a.name) == "1.read_table.max_label.row_total"
    sources = {a.name: a.source for a in figures(table)}
    assert sources["1.read_table.max_label.row_total"] == ("the 'Region' of the row with the highest (max) "
                                                             "'Q1 + Q2' (700)")
    # a text that names a column: what is said of the others is a distraction; one that names none, nothing is
    assert unnamed_columns(table, "the Q2 figures") == {"Q1"}
    assert unnamed_columns(table, "the best region") == frozenset()
    assert "1.read_table.max_label.row_total" not in {a.name for a in figures(Artifact(
        "1.read_table", Kind.TABLE, [["Region", "Q1"], ["North", 500]]))}


def test_a_column_of_repeating_values_is_counted_and_repeated_rows_are_a_table() -> None:
    table = Artifact("1.read_sheet", Kind.TABLE, [
        ["Ticket", "Status", "Name"], [1, "Open", "Ann"], [2, "Closed", "Bo"], [3, "Open", "Cy"],
        [4, "On hold", "Di"], [2, "closed", "bo"], [1, "Open", "Ann"]])
    found = {a.name: a.value for a in figures(table)}
    assert (found["1.read_sheet.count.Status.Open"], found["1.read_sheet.count.Status.On_hold"]) == (3, 1)
    unique = Artifact("1.t", Kind.TABLE, [["Name", "Team"], ["Ann", "A"], ["Bo", "B"], ["Cy", "A"]])
    assert [a.name for a in figures(unique) if ".count." in a.name] == ["1.t.count.Team.A", "1.t.count.Team.B"]
    # a value the text names is counted first, before every other figure (a small model takes the first)
    asked = figures(table, "How many tickets are still open?")
    assert asked[0].name == "1.read_sheet.count.Status.Open" and asked[0].value == 3
    # rows equal to an earlier one (case aside), each once, under the header
    assert found["1.read_sheet.repeated_rows"] == [
        ["Ticket", "Status", "Name"], [2, "closed", "bo"], [1, "Open", "Ann"]]


def test_columns_a_text_names_are_the_only_ones_measured() -> None:
    table = Artifact("1.column_totals", Kind.TABLE, [["Trip", "Place", "Nights", "Cost"], [301, "Lyon", 2, 486.4],
                                                     [302, "Porto", 3, 712]])
    named = {a.name for a in figures(table, "Add up the cost column of trips.xlsx")}
    assert "1.column_totals.sum.Cost" in named
    assert not any(".Trip" in n or ".Nights" in n or "row_total" in n for n in named)
    assert "1.column_totals.column.Place" in named  # no text column is named: all of them
    # a name inside another word is not the column's
    assert "1.column_totals.sum.Trip" in {a.name for a in figures(table, "Write the trips' costly part")}


def test_the_rows_of_a_value_the_text_names_are_a_table_of_their_own() -> None:
    staff = Artifact("1.read_sheet", Kind.TABLE, [["Name", "Dept", "Pay"], ["Ann", "Sales", 50], ["Bob", "IT", 60],
                                                  ["Cy", "Sales", 55], ["Di", "HR", 40]])
    chosen = selections(staff, "Put only the Sales people of staff.xlsx into team.xlsx")
    assert [(a.name, a.kind, a.value) for a in chosen] == [
        ("1.read_sheet.where.Dept.Sales", Kind.TABLE, [["Name", "Dept", "Pay"], ["Ann", "Sales", 50],
                                                       ["Cy", "Sales", 55]])]
    # each value named, in the order the text names them; a file's name names no value (sales.xlsx)
    assert [a.name for a in selections(staff, "the HR and the Sales rows")] == [
        "1.read_sheet.where.Dept.HR", "1.read_sheet.where.Dept.Sales"]
    assert not selections(staff, "Copy staff.xlsx into sales.xlsx")
    # a column whose values do not repeat is no category: a name is a row, not a part of the table
    assert not selections(staff, "Give Ann a raise")
    # among the figures, after the counts of the values named
    names_ = [a.name for a in figures(staff, "How many Sales people are there?")]
    assert names_[:2] == ["1.read_sheet.count.Dept.Sales", "1.read_sheet.where.Dept.Sales"]


def test_a_text_of_several_lines_has_its_lines_and_words_counted() -> None:
    found = {a.name: (a.kind, a.value) for a in extract("1.read_file", {"path": "log.txt", "text": "a b\nc\n\nd\n"})}
    assert found["1.read_file.text.lines"] == (Kind.NUMBER, 4) and found["1.read_file.text.words"] == (Kind.NUMBER, 4)
    # a text of one line is its own count: nothing to add
    assert not any(n.endswith((".lines", ".words")) for n in {a.name for a in extract("1.read_file", {"text": "x"})})


def test_a_tables_row_count_comes_before_its_columns_figures() -> None:
    # "how many orders": the records under the header, not a count of one of their values
    orders = [["Order", "Customer", "Amount"], [1, "C1", 10], [2, "C2", 20], [3, "C1", 30]]
    found = figures(Artifact("1.read_sheet.rows", Kind.TABLE, orders))
    assert (found[0].name, found[0].value) == ("1.read_sheet.rows.row_count", 3)
    assert {a.name: a.value for a in found}["1.read_sheet.rows.count.Customer.C1"] == 2
