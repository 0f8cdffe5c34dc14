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


async def test_create_write_read_with_formulas(sheets: SpreadsheetsApplication, root: Path) -> None:
    assert (await sheets.call("create_workbook", {"path": "budget.xlsx", "sheets": ["Budget", "Other"]})).ok
    rows = [*TABLE, ["Total", "=SUM(B2:B4)", "=SUM(C2:C4)"]]
    written = await sheets.call("write_rows", {"path": "budget.xlsx", "sheet": "Budget", "rows": rows})
    assert written.content["range"] == "A1:C5"
    workbook = load_workbook(root / "budget.xlsx")
    assert workbook.sheetnames == ["Budget", "Other"]
    sheet = workbook["Budget"]
    assert [sheet["B2"].value, sheet["B3"].value, sheet["C4"].value] == [1200, 1350.5, 950]  # text became numbers
    assert sheet["B5"].value == "=SUM(B2:B4)"
    read = await sheets.call("read_sheet", {"path": "budget.xlsx", "sheet": "Budget", "range": "A4:C5"})
    assert read.content["rows"] == [["Q3", 1500, 950], ["Total", "=SUM(B2:B4)", "=SUM(C2:C4)"]]
    whole = await sheets.call("read_sheet", {"path": "budget.xlsx", "sheet": "Budget"})
    assert whole.content["range"] == "A1:C5" and len(whole.content["rows"]) == 5
    empty = await sheets.call("read_sheet", {"path": "budget.xlsx", "sheet": "Other"})
    assert empty.content["rows"] == [] and empty.content["range"] is None


async def test_write_at_a_cell_keeps_text_when_asked(sheets: SpreadsheetsApplication, root: Path) -> None:
    await sheets.call("create_workbook", {"path": "b.xlsx"})
    await sheets.call("write_rows", {"path": "b.xlsx", "start": "C3", "rows": [["'007", "1,200", "'it's"]]})
    sheet = load_workbook(root / "b.xlsx").active
    assert sheet["C3"].value == "007" and sheet["D3"].value == 1200 and sheet["E3"].value == "it's"
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

    package = check_package(root / "old.xlsx")
    assert original_chart in package.parts.values()  # byte for byte, not re-serialised
    titles = [" ".join(c.itertext()) for c in charts_in(root / "old.xlsx", "Sheet")]
    assert len(titles) == 2 and any("Made before" in t for t in titles) and any("New" in t for t in titles)
    reread = load_workbook(root / "old.xlsx").active
    assert [reread["A4"].value, reread["B5"].value] == ["c", 4] and len(reread._charts) == 2


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
    assert "no sheet named" in (await sheets.call("read_sheet", {"path": "e.xlsx", "sheet": "Nope"})).error
    assert "not a range" in (await sheets.call("read_sheet", {"path": "e.xlsx", "range": "hello"})).error
    bad_start = await sheets.call("write_rows", {"path": "e.xlsx", "start": "1A", "rows": [[1]]})
    assert "not a cell reference" in bad_start.error
    no_values = await sheets.call("add_chart", {"path": "e.xlsx", "kind": "bar", "data": "A1:A1", "title": "x"})
    assert "no values" in no_values.error
    wrong_kind = await sheets.call("add_chart", {"path": "e.xlsx", "kind": "radar3d", "data": "A1:B2", "title": "x"})
    assert "kind" in wrong_kind.error
    assert "already exists" in (await sheets.call("create_workbook", {"path": "e.xlsx"})).error
    assert sheets.is_sensitive("create_workbook", {"path": "e.xlsx", "overwrite": True})
    assert not sheets.is_sensitive("write_rows", {"path": "e.xlsx", "rows": [[1]]})
    await sheets.call("write_rows", {"path": "e.xlsx", "rows": [["kept", "7"]]})
    before = (root / "e.xlsx").read_bytes()
    assert not sheets.is_sensitive("write_rows", {"path": "e.xlsx", "rows": [["kept", 7, "new"]]})  # same values
    assert sheets.is_sensitive("write_rows", {"path": "e.xlsx", "start": "B1", "rows": [[8]]})  # replaces 7
    assert (root / "e.xlsx").read_bytes() == before
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
