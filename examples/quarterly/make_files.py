"""Create the quarterly example's input files: report.docx (a short report holding a table) and an empty
budget.xlsx, in the given folder (default: this script's folder).

    python examples/quarterly/make_files.py [FOLDER]

Then: podium run "Extract the table from report.docx and create a bar chart of it in budget.xlsx" \
          --workdir examples/quarterly
"""

from __future__ import annotations

import sys
from pathlib import Path

TABLE: tuple[tuple[str, ...], ...] = (
    ("Quarter", "Revenue", "Costs"),
    ("Q1", "1200", "800"),
    ("Q2", "1350", "870"),
    ("Q3", "1500", "910"),
    ("Q4", "1720", "980"),
)


def make_files(folder: str | Path) -> tuple[Path, Path]:
    """Write report.docx and budget.xlsx into `folder` (created if needed; existing ones replaced)."""
    import docx
    from openpyxl import Workbook

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    report = docx.Document()
    report.add_heading("Quarterly report", level=0)
    report.add_paragraph("Revenue and costs per quarter, in thousands of euros.")
    table = report.add_table(rows=len(TABLE), cols=len(TABLE[0]))
    table.style = report.styles["Table Grid"]
    for r, row in enumerate(TABLE):
        for c, text in enumerate(row):
            table.cell(r, c).text = text
    report.add_paragraph("Costs grew more slowly than revenue in every quarter.")
    report_path = folder / "report.docx"
    report.save(str(report_path))

    budget = Workbook()
    budget.active.title = "Budget"
    budget_path = folder / "budget.xlsx"
    budget.save(str(budget_path))
    return report_path, budget_path


def main(argv: list[str]) -> int:
    folder = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent
    for path in make_files(folder):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
