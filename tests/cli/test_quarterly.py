"""The seed's example, end to end through the real `podium` command on the scripted model: report.docx's
table becomes data in budget.xlsx with a native bar chart over it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from openpyxl import load_workbook
from openpyxl.chart import BarChart

from tests.cli.conftest import Invoke, read_json

EXAMPLE = Path(__file__).parents[2] / "examples" / "quarterly"
REQUEST = "Extract the table from report.docx and create a bar chart of it in budget.xlsx"


def make_files(folder: Path) -> tuple[tuple[str, ...], ...]:
    spec = importlib.util.spec_from_file_location("make_files", EXAMPLE / "make_files.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.make_files(folder)
    return module.TABLE


def test_the_quarterly_example_end_to_end(cli: Invoke, work: Path) -> None:
    table = make_files(work)
    summary_file = work.parent / "summary.json"
    result = cli("run", REQUEST, "--workdir", str(work), "--config", str(EXAMPLE / "podium.toml"),
                 "--model", f"scripted:{EXAMPLE / 'scripted.json'}", "--batch", "--json-out", str(summary_file))
    assert result.exit_code == 0, result.output
    assert "FINISH" in result.stdout

    sheet = load_workbook(work / "budget.xlsx")["Budget"]
    values = [[cell.value for cell in row] for row in sheet.iter_rows()]
    header, *rows = table
    assert values == [list(header), *[[row[0], *map(int, row[1:])] for row in rows]]
    [chart] = sheet._charts
    assert isinstance(chart, BarChart)
    assert [s.val.numRef.f for s in chart.series] == ["'Budget'!$B$2:$B$5", "'Budget'!$C$2:$C$5"]
    assert (chart.series[0].cat.strRef or chart.series[0].cat.numRef).f == "'Budget'!$A$2:$A$5"

    summary = read_json(summary_file)
    assert summary["status"] == "FINISH" and summary["ok"] and summary["exit_code"] == 0
    assert summary["model_calls"] == 6
    assert summary["model_calls_by_role"] == {"planner": 2, "app:documents": 2, "app:spreadsheets": 2}
    assert summary["steps"] == 6 and summary["tokens"] == summary["input_tokens"] + summary["output_tokens"] > 0
    assert [s["state"] for s in summary["subtasks"]] == ["FINISH", "FINISH"]
    assert summary["session"] in result.stdout and summary["journal"] in result.stdout
    assert summary["models"]["apps"].keys() == {"documents", "spreadsheets"}  # the example's own config

