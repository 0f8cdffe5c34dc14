"""The checkers accept what the real applications write: each task done by hand through the tools an
AppAgent calls (no model), then judged. A checker that only knew openpyxl's or python-docx's own output
would fail the runs that did the right thing."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from bench.tasks import folder_view
from bench.tasks.suite import select
from bench.tasks.task import EndState

from podium.apps.registry import build_applications

from .case import FINISHED

Steps = Callable[[Any], Awaitable[None]]


async def call(apps: Any, app: str, tool: str, **arguments: Any) -> Any:
    result = await apps[app].call(tool, arguments)
    assert result.ok, f"{app}.{tool}: {result.error}"
    return result.content


async def seed(apps: Any) -> None:
    table = await call(apps, "documents", "read_table", path="report.docx")
    written = await call(apps, "spreadsheets", "write_rows", path="budget.xlsx", rows=table["rows"])
    await call(apps, "spreadsheets", "add_chart", path="budget.xlsx", kind="bar", data=written["range"],
               title="Quarterly figures")


async def doc_to_sheet(apps: Any) -> None:
    table = await call(apps, "documents", "read_table", path="inventory.docx")
    await call(apps, "spreadsheets", "write_rows", path="inventory.xlsx", rows=table["rows"])


async def sheet_to_doc(apps: Any) -> None:
    sheet = await call(apps, "spreadsheets", "read_sheet", path="prices.xlsx", sheet="Prices")
    await call(apps, "documents", "add_table", path="catalogue.docx", rows=sheet["rows"])


async def pie(apps: Any) -> None:
    await call(apps, "spreadsheets", "add_chart", path="spending.xlsx", kind="pie", data="A1:B5",
               title="Spending 2024")


async def keep_chart(apps: Any) -> None:
    await call(apps, "spreadsheets", "add_chart", path="sales.xlsx", sheet="Data", kind="line", data="C1:C5",
               categories_in_first_column=False, title="Costs")


async def append_row(apps: Any) -> None:
    await call(apps, "spreadsheets", "write_rows", path="plan.xlsx", sheet="Q2", start="A5", rows=[["Travel", 300]])


async def append_paragraph(apps: Any) -> None:
    await call(apps, "documents", "add_paragraphs", path="minutes.docx", paragraphs=["Approved by the board on 3 May."])


async def backup(apps: Any) -> None:
    for name in ("q1.xlsx", "q2.xlsx"):
        await call(apps, "files", "copy_or_move", mode="copy", source=name, destination=f"backup/{name}")


async def move_notes(apps: Any) -> None:
    listed = await call(apps, "files", "list_files", pattern="*.txt")
    await call(apps, "files", "make_folder", path="notes")
    for entry in listed["entries"]:
        await call(apps, "files", "copy_or_move", mode="move", source=entry["path"],
                   destination=f"notes/{entry['path']}")


async def rename(apps: Any) -> None:
    await call(apps, "files", "rename_pattern", pattern="^draft_", replacement="final_")


async def two_apps(apps: Any) -> None:
    await call(apps, "documents", "add_paragraphs", path="memo.docx", paragraphs=["The meeting moves to Friday."])
    await call(apps, "spreadsheets", "write_rows", path="plan.xlsx", sheet="Schedule", start="B2", rows=[["Friday"]])


async def seed_reworded(apps: Any) -> None:
    table = await call(apps, "documents", "read_table", path="sales_summary.docx")
    await call(apps, "spreadsheets", "create_workbook", path="figures.xlsx", sheets=["Figures"])
    written = await call(apps, "spreadsheets", "write_rows", path="figures.xlsx", rows=table["rows"])
    await call(apps, "spreadsheets", "add_chart", path="figures.xlsx", kind="bar", data=written["range"],
               title="Units per month")


async def sheet_to_doc_reworded(apps: Any) -> None:
    sheet = await call(apps, "spreadsheets", "read_sheet", path="rates.xlsx", sheet="Rates")
    await call(apps, "documents", "add_table", path="proposal.docx", rows=sheet["rows"])


async def total_row_reworded(apps: Any) -> None:
    await call(apps, "spreadsheets", "add_totals_row", path="timesheet.xlsx", sheet="Hours", columns=["Hours", "Fee"])


async def keep_chart_reworded(apps: Any) -> None:
    await call(apps, "spreadsheets", "add_chart", path="metrics.xlsx", sheet="Monthly", kind="line", data="C1:C7",
               categories_in_first_column=False, title="Signups")


async def append_row_reworded(apps: Any) -> None:
    await call(apps, "spreadsheets", "append_rows", path="costs.xlsx", sheet="H2", rows=[["Insurance", 640]])


async def append_paragraph_reworded(apps: Any) -> None:
    await call(apps, "documents", "add_paragraphs", path="report.docx",
               paragraphs=["Signed off by finance on 12 June."])


async def copy_reworded(apps: Any) -> None:
    await call(apps, "files", "copy_or_move", mode="copy", source="*.docx", destination="old_versions/")


async def rename_reworded(apps: Any) -> None:
    await call(apps, "files", "rename_pattern", pattern="^tmp_", replacement="keep_")


async def merge(apps: Any) -> None:
    north = await call(apps, "spreadsheets", "read_sheet", path="north.xlsx")
    south = await call(apps, "spreadsheets", "read_sheet", path="south.xlsx")
    await call(apps, "spreadsheets", "create_workbook", path="all_customers.xlsx", sheets=["Customers"])
    await call(apps, "spreadsheets", "write_rows", path="all_customers.xlsx", rows=north["rows"] + south["rows"][1:])


async def computed(apps: Any) -> None:
    rows = [["Total"], *([f"=B{r}*C{r}"] for r in range(2, 8))]
    await call(apps, "spreadsheets", "write_rows", path="order_lines.xlsx", sheet="Lines", start="D1", rows=rows)


DONE: dict[str, Steps] = {
    "seed_bar_chart": seed, "doc_table_to_sheet": doc_to_sheet, "sheet_table_to_doc": sheet_to_doc,
    "pie_chart_titled": pie, "keep_chart_add_line": keep_chart, "keep_formulas_add_row": append_row,
    "keep_document_append": append_paragraph, "copy_to_backup": backup, "move_txt_files": move_notes,
    "rename_by_pattern": rename, "two_apps_parallel": two_apps,
    "seed_bar_chart_reworded": seed_reworded, "sheet_table_to_doc_reworded": sheet_to_doc_reworded,
    "total_row_reworded": total_row_reworded, "keep_chart_add_line_reworded": keep_chart_reworded,
    "keep_formulas_add_row_reworded": append_row_reworded,
    "keep_document_append_reworded": append_paragraph_reworded, "copy_to_backup_reworded": copy_reworded,
    "rename_by_pattern_reworded": rename_reworded, "merge_workbooks": merge, "computed_column": computed,
}


@pytest.mark.parametrize("name", list(DONE))
async def test_done_with_the_real_tools_passes(name: str, tmp_path: Path) -> None:
    (task,) = select([name])
    task.build(tmp_path)
    before = folder_view.snapshot(tmp_path)
    async with build_applications({"workspace": str(tmp_path)}) as apps:
        await DONE[name](apps)
    verdict = task.evaluate(EndState(tmp_path, before, FINISHED))
    assert verdict.passed, verdict.reason
