"""Reading a workbook as a checker needs it: cells (formulas as written), tables found wherever they are,
and the native charts read straight from the package's XML (kind, title, the ranges of every series),
independent of the library that wrote them."""

from __future__ import annotations

import io
import re
import warnings
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import formula
from .task import Fail
from .values import number, same, same_row

_KINDS = {
    "barChart": "bar", "bar3DChart": "bar", "lineChart": "line", "line3DChart": "line", "pieChart": "pie",
    "pie3DChart": "pie", "doughnutChart": "pie", "ofPieChart": "pie", "areaChart": "area", "area3DChart": "area",
    "scatterChart": "scatter", "radarChart": "radar", "bubbleChart": "bubble", "stockChart": "stock",
    "surfaceChart": "surface", "surface3DChart": "surface",
}
_REF = re.compile(r"^(?:(?P<sheet>'(?:[^']|'')+'|[^'!]+)!)?(?P<area>\$?[A-Z]{1,3}\$?\d+(?::\$?[A-Z]{1,3}\$?\d+)?)$")


def load(data: bytes | Path, name: str) -> Any:
    """A workbook with formulas as written (not cached results)."""
    from openpyxl import load_workbook

    try:
        raw = data.read_bytes() if isinstance(data, Path) else data
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return load_workbook(io.BytesIO(raw))
    except FileNotFoundError:
        raise Fail(f"{name} is missing") from None
    except (zipfile.BadZipFile, KeyError, OSError, ValueError) as exc:
        raise Fail(f"{name} is not a readable .xlsx workbook ({exc})") from None


def sheet(workbook: Any, name: str, file: str) -> Any:
    """A sheet by name, ignoring case and spaces (people and models vary there)."""
    for title in workbook.sheetnames:
        if title.strip().casefold() == name.strip().casefold():
            return workbook[title]
    raise Fail(f"{file} has no sheet {name!r} (sheets: {workbook.sheetnames})")


def rows(ws: Any) -> list[list[Any]]:
    if not hasattr(ws, "iter_rows"):
        return []  # a chartsheet
    return [list(r) for r in ws.iter_rows(values_only=True)]


def cells(workbook: Any) -> Iterator[tuple[str, str, Any]]:
    """(sheet, coordinate, value) of every non-empty cell."""
    for ws in workbook.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if cell.value is not None and str(cell.value).strip() != "":
                    yield ws.title, cell.coordinate, cell.value


def find_table(workbook: Any, table: Sequence[Sequence[Any]], sheets: Sequence[str] | None = None) -> str | None:
    """Where `table` (header first) stands in the workbook, as rows in order at the same columns, or None.
    Its position does not matter; its content and order do."""
    width = len(table[0])
    for ws in workbook.worksheets:
        if sheets is not None and ws.title.casefold() not in {s.casefold() for s in sheets}:
            continue
        grid = rows(ws)
        for r, row in enumerate(grid):
            for c in range(len(row)):
                if not same(row[c], table[0][0]):
                    continue
                window = [g[c:c + width] + [None] * max(0, c + width - len(g)) for g in grid[r:r + len(table)]]
                if len(window) == len(table) and all(same_row(w, list(t)) for w, t in zip(window, table, strict=True)):
                    return f"{ws.title}!{_coordinate(r, c)}"
    return None


def _coordinate(r: int, c: int) -> str:
    from openpyxl.utils.cell import get_column_letter

    return f"{get_column_letter(c + 1)}{r + 1}"


def changed_cells(before: Any, after: Any, ignore_sheets: Sequence[str] = ()) -> list[str]:
    """Every cell of `before` whose value or formula is not the same in `after`, and every sheet that went
    missing. New cells and new sheets are not changes."""
    changes: list[str] = []
    skip = {s.casefold() for s in ignore_sheets}
    for name in before.sheetnames:
        if name.casefold() in skip:
            continue
        if name not in after.sheetnames:
            changes.append(f"sheet {name!r} is gone")
            continue
        old, new = before[name], after[name]
        if not hasattr(old, "iter_rows"):
            continue
        for row in old.iter_rows():
            for cell in row:
                if cell.value is None:
                    continue
                now = new[cell.coordinate].value
                kept = now == cell.value if _is_formula(cell.value) or _is_formula(now) else same(now, cell.value)
                if not kept:
                    changes.append(f"{name}!{cell.coordinate}: {cell.value!r} became {now!r}")
    return changes


def new_cells(before: Any, after: Any) -> list[tuple[str, str, Any]]:
    """(sheet, coordinate, value) of every non-empty cell of `after` that was empty (or absent) before."""
    found = []
    for name, coordinate, value in cells(after):
        old = before[name][coordinate].value if name in before.sheetnames else None
        if old is None or str(old).strip() == "":
            found.append((name, coordinate, value))
    return found


def _is_formula(value: Any) -> bool:
    return isinstance(value, str) and value.startswith("=")


@dataclass(frozen=True, slots=True)
class Records:
    """A table found by its header: the rows under it, each cut down to the header's columns in the
    header's order (other columns, and the table's position, do not matter)."""

    sheet: str
    header_row: int  # 1-based
    rows: tuple[tuple[Any, ...], ...]

    @property
    def where(self) -> str:
        return f"{self.sheet}!row {self.header_row}"


def find_records(workbook: Any, header: Sequence[str], sheets: Sequence[str] | None = None) -> list[Records]:
    """Every table whose header row holds all of `header` (in any order, anywhere on a sheet): the rows
    below it down to the first row empty in all those columns. Cells are evaluated formulas."""
    found = []
    wanted = {s.casefold() for s in sheets} if sheets is not None else None
    for ws in workbook.worksheets:
        if wanted is not None and ws.title.casefold() not in wanted:
            continue
        grid = rows(ws)
        for r, row in enumerate(grid):
            columns = [next((c for c, v in enumerate(row) if same(v, name)), None) for name in header]
            if any(c is None for c in columns):
                continue
            body: list[tuple[Any, ...]] = []
            for below in grid[r + 1:]:
                picked = tuple(evaluate(workbook, ws, below[c]) if c is not None and c < len(below) else None
                               for c in columns)
                if all(v is None or str(v).strip() == "" for v in picked):
                    break
                body.append(picked)
            found.append(Records(ws.title, r + 1, tuple(body)))
    return found


def same_records(found: Sequence[Sequence[Any]], wanted: Sequence[Sequence[Any]], ordered: bool = False) -> bool:
    """The same rows (values as a person reads them), in the same order or as a multiset."""
    if len(found) != len(wanted):
        return False
    if ordered:
        return all(same_row(list(f), list(w)) for f, w in zip(found, wanted, strict=True))
    left = [list(w) for w in wanted]
    for row in found:
        match = next((i for i, w in enumerate(left) if same_row(list(row), w)), None)
        if match is None:
            return False
        left.pop(match)
    return True


# -- charts ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Series:
    values: str | None  # the formula of its values, e.g. "'Data'!$B$2:$B$5"
    categories: str | None
    name: str | None


@dataclass(frozen=True, slots=True)
class Chart:
    part: str
    kinds: frozenset[str]  # bar, line, pie, ...
    title: str | None
    series: tuple[Series, ...]

    def describe(self) -> str:
        return f"{'/'.join(sorted(self.kinds)) or 'unknown'} chart titled {self.title!r}"

    def same_as(self, other: Chart) -> bool:
        return (self.kinds, self.title, self.series) == (other.kinds, other.title, other.series)


def charts(data: bytes | Path, name: str = "workbook") -> list[Chart]:
    """The native charts in an .xlsx package."""
    try:
        raw = data.read_bytes() if isinstance(data, Path) else data
        package = zipfile.ZipFile(io.BytesIO(raw))
    except FileNotFoundError:
        raise Fail(f"{name} is missing") from None
    except zipfile.BadZipFile as exc:
        raise Fail(f"{name} is not a zip package ({exc})") from None
    found = []
    for part in sorted(n for n in package.namelist() if re.fullmatch(r"xl/charts/chart\d+\.xml", n)):
        try:
            root = ET.fromstring(package.read(part))
        except ET.ParseError as exc:
            raise Fail(f"{name}: {part} is not valid XML ({exc})") from None
        found.append(_chart(part, root))
    return found


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _child(node: ET.Element, name: str) -> ET.Element | None:
    return next((c for c in node if _local(c.tag) == name), None)


def _formula(node: ET.Element | None) -> str | None:
    if node is None:
        return None
    for element in node.iter():
        if _local(element.tag) == "f" and element.text:
            return element.text.strip()
    return None


def _chart(part: str, root: ET.Element) -> Chart:
    chart = _child(root, "chart")
    kinds: set[str] = set()
    series: list[Series] = []
    title = None
    if chart is not None:
        title_node = _child(chart, "title")
        if title_node is not None:
            texts = [e.text or "" for e in title_node.iter() if _local(e.tag) in ("t", "v")]
            title = "".join(texts).strip() or None
        plot = _child(chart, "plotArea")
        for group in plot if plot is not None else ():
            kind = _KINDS.get(_local(group.tag))
            if kind is None:
                continue
            kinds.add(kind)
            for ser in (c for c in group if _local(c.tag) == "ser"):
                series.append(Series(_formula(_child(ser, "val")), _formula(_child(ser, "cat")),
                                     _formula(_child(ser, "tx"))))
    return Chart(part, frozenset(kinds), title, tuple(series))


def reference_values(workbook: Any, reference: str | None) -> list[Any]:
    """The values a chart formula like "'Data'!$B$2:$B$5" points at (formulas evaluated when simple)."""
    if not reference:
        return []
    match = _REF.match(reference.strip())
    if match is None:
        return []
    name = match.group("sheet")
    if name is None:
        return []
    name = name[1:-1].replace("''", "'") if name.startswith("'") else name
    if name not in workbook.sheetnames or not hasattr(workbook[name], "iter_rows"):
        return []
    ws = workbook[name]
    return [evaluate(workbook, ws, cell.value) for cell in area_cells(ws, match.group("area").replace("$", ""))]


def area_cells(ws: Any, area: str) -> list[Any]:
    """The cells of "B2:B5" (or of one cell, "B2"), row by row."""
    from openpyxl.utils.cell import range_boundaries

    min_col, min_row, max_col, max_row = range_boundaries(area)
    return [cell for row in ws.iter_rows(min_row=min_row, max_row=max_row, min_col=min_col, max_col=max_col)
            for cell in row]


def evaluate(workbook: Any, ws: Any, value: Any) -> Any:
    """A cell's value, a formula evaluated (bench/tasks/formula.py says which); a formula it cannot evaluate
    stays its text (a checker reading it will then not match)."""
    if not formula.is_formula(value):
        return value
    result = formula.value(workbook, ws, value)
    return value if result is None else result


def chart_over(workbook: Any, chart: Chart, values: Sequence[Any]) -> bool:
    """Whether one of the chart's series plots exactly `values`, in order. The cells must hold numbers:
    a spreadsheet program draws text that looks like a number as nothing."""
    for series in chart.series:
        found = [None if isinstance(v, str) else number(v) for v in reference_values(workbook, series.values)]
        if len(found) == len(values) and all(
                f is not None and same(f, v) for f, v in zip(found, values, strict=True)):
            return True
    return False
