"""The seed's example through the applications: the table in report.docx becomes data and a native bar
chart in budget.xlsx (what the HostAgent's AppAgents do, step by step, without a model)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import docx
from lxml import etree
from openpyxl import load_workbook

from podium.apps.registry import build_applications
from podium.apps.xlsx_package import Package, drawing_summary, resolve

SCRIPT = Path(__file__).parents[2] / "examples" / "quarterly" / "make_files.py"


def load_example():
    spec = importlib.util.spec_from_file_location("make_files", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_make_files_builds_the_inputs(tmp_path: Path) -> None:
    example = load_example()
    report, budget = example.make_files(tmp_path / "quarterly")
    table = docx.Document(str(report)).tables[0]
    assert [[c.text for c in row.cells] for row in table.rows] == [list(r) for r in example.TABLE]
    workbook = load_workbook(budget)
    assert workbook.sheetnames == ["Budget"] and workbook.active.max_row == 1 and workbook.active["A1"].value is None


def test_make_files_runs_as_a_script(tmp_path: Path) -> None:
    assert load_example().main(["make_files.py", str(tmp_path)]) == 0
    assert (tmp_path / "report.docx").exists() and (tmp_path / "budget.xlsx").exists()


async def test_table_to_bar_chart(tmp_path: Path) -> None:
    example = load_example()
    example.make_files(tmp_path)
    apps = build_applications({"workspace": str(tmp_path)})
    async with apps:
        table = await apps["documents"].call("read_table", {"path": "report.docx"})
        assert table.ok
        written = await apps["spreadsheets"].call(
            "write_rows", {"path": "budget.xlsx", "sheet": "Budget", "rows": table.content["rows"]}
        )
        assert written.content["range"] == "A1:C5"
        chart = await apps["spreadsheets"].call(
            "add_chart",
            {
                "path": "budget.xlsx",
                "sheet": "Budget",
                "kind": "bar",
                "data": written.content["range"],
                "title": "Revenue and costs per quarter",
            },
        )
        assert chart.ok, chart.error
    sheet = load_workbook(tmp_path / "budget.xlsx")["Budget"]
    assert [[c.value for c in row] for row in sheet["A1:C5"]] == [
        ["Quarter", "Revenue", "Costs"],
        ["Q1", 1200, 800],
        ["Q2", 1350, 870],
        ["Q3", 1500, 910],
        ["Q4", 1720, 980],
    ]
    data = (tmp_path / "budget.xlsx").read_bytes()
    assert drawing_summary(data)["Budget"]["charts"] == 1
    package = Package(data)
    drawing = package.drawing_of(package.sheets()["Budget"])[1]
    [chart_rel] = [r for r in package.rels(drawing) if r.type.endswith("/chart")]
    root = etree.fromstring(package.parts[resolve(chart_rel.target, drawing)])
    ns = {"c": "http://schemas.openxmlformats.org/drawingml/2006/chart"}
    assert root.find(".//c:barChart", ns) is not None
    assert root.xpath(".//c:ser/c:val//c:f/text()", namespaces=ns) == ["'Budget'!$B$2:$B$5", "'Budget'!$C$2:$C$5"]
    assert root.xpath(".//c:ser/c:cat//c:f/text()", namespaces=ns)[0] == "'Budget'!$A$2:$A$5"
