"""Arithmetic over a table of cell values, for tools: a small model adds up wrongly and picks the wrong
maximum, a tool does neither. Cells of a document table are texts ("1,200", "€ 3.50", "12%"): they
count as the numbers they write."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

_NUMBER = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|[-+]?\.\d+")
_DECORATION = re.compile(r"^[\s$€£¥]*|[\s%$€£¥]*$")
_SHOWN_ROWS = 50


def number(value: Any) -> int | float | None:
    """The number a cell holds or writes, or None: 1200, "1,200", "€ 3.50" and "12%" (12) are numbers;
    "Q1", "2024-01-03" and "" are not."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return value
    if not isinstance(value, str):
        return None
    text = _DECORATION.sub("", value.strip())
    if not text or _NUMBER.fullmatch(text) is None:
        return None
    parsed = float(text.replace(",", ""))
    return int(parsed) if parsed.is_integer() and "." not in text else parsed


def _is_label(value: Any) -> bool:
    return isinstance(value, str) and value.strip() != "" and number(value) is None


def _stats(numbers: list[int | float]) -> dict[str, Any]:
    total = sum(numbers)
    return {"sum": round(total, 10), "count": len(numbers), "min": min(numbers), "max": max(numbers),
            "mean": round(total / len(numbers), 10)}


def table_totals(rows: Sequence[Sequence[Any]]) -> dict[str, Any]:
    """Each numeric column's sum, count, min, max and mean, and each data row's total with the rows of
    the highest and the lowest total ("which region sold most over both quarters"). The header is the
    first row with two or more labels (a title above is skipped); a row is named by its first label.
    Raises ValueError when there is no header or no number under it."""
    rows = [list(row) for row in rows]
    width = max((len(row) for row in rows), default=0)
    top = next((i for i, row in enumerate(rows) if sum(_is_label(v) for v in row) >= min(2, width)), None)
    if top is None:
        raise ValueError("no header row (a row of two or more labels) in the table")
    header, data = rows[top], [row for row in rows[top + 1:] if any(str(v).strip() for v in row)]
    columns: dict[str, Any] = {}
    for c, name in enumerate(header):
        numbers = [n for row in data if c < len(row) and (n := number(row[c])) is not None]
        if numbers:
            key = str(name).strip() or f"column {c + 1}"
            columns[key] = {"column": c + 1, **_stats(numbers)}
    if not columns:
        raise ValueError(f"no column of numbers under the header row {top + 1}")
    totals = []
    for index, row in enumerate(data):
        numbers = [n for c, v in enumerate(row) if str(header[c] if c < len(header) else "").strip() in columns
                   and (n := number(v)) is not None]
        label = next((str(v).strip() for v in row if _is_label(v)), f"row {top + 2 + index}")
        if numbers:
            totals.append((label, round(sum(numbers), 10)))
    result: dict[str, Any] = {"header_row": top + 1, "data_rows": len(data), "columns": columns}
    if totals and len(columns) > 1:  # one column: its row totals are the column itself
        result["row_totals"] = [list(t) for t in totals[:_SHOWN_ROWS]]
        result["highest_row_total"] = max(totals, key=lambda t: t[1])[0]
        result["lowest_row_total"] = min(totals, key=lambda t: t[1])[0]
    return result
