"""Data by reference: what a subtask's tools returned, as typed artifacts that later calls name.

Every successful call of a subtask leaves artifacts on the blackboard, named after the subtask and the
tool (`1.read_table`; a part of a result by its key, `1.read_document.tables.0`; a second call of a tool
with other arguments `1.read_table_2`), each of one kind: a table (rows of cells), a number, names (a list
of texts) or a text. A list of flat records, such as a listing's entries, is a table under a header of
their keys, and a text of delimited lines is one too (`1.read_file.text.table`). A tool argument, or an
AppAgent's result, may be `{"ref": "1.read_table"}`: the host resolves it before the call runs, converted
to the type the argument wants (a table becomes rows, lines of text, or the text of a tab-separated
file). So a model never re-types a table or a number it was handed, and the grammar offers only
references that exist (LLMCompiler's `$1`, ReWOO's `#E1`).

Pure functions over JSON-like values; nothing here reads a file.
"""

from __future__ import annotations

import csv
import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from podium.apps.base import LEFT_OUT
from podium.apps.tooling import CODE
from podium.errors import PodiumError

REF = "ref"
_REF_KEYS = (REF, "$ref")  # "$ref" too: a model that knows JSON Schema writes it
MAX_DEPTH = 3  # parts of a result named by key: 1.read_document.tables.0
MAX_PARTS = 8  # list items named by index
LINES, WORDS = "lines", "words"  # a text's counts, named after it: 1.read_file.text.lines


class Kind(StrEnum):
    TABLE = "table"
    NUMBER = "number"
    NAMES = "names"
    TEXT = "text"


@dataclass(frozen=True, slots=True)
class Artifact:
    name: str
    kind: Kind
    value: Any
    source: str = ""  # the call that made it: read_table({"path": "report.docx"})

    def describe(self) -> str:
        """The kind and size, for a prompt: 'table, 5 rows x 3 columns'."""
        if self.kind is Kind.TABLE:
            return f"table, {len(self.value)} rows x {max((len(r) for r in self.value), default=0)} columns"
        if self.kind is Kind.NAMES:
            return f"names, {len(self.value)}"
        if self.kind is Kind.TEXT:
            return f"text, {len(self.value)} characters"
        return "number"


class RefError(PodiumError):
    """A reference that names no artifact, or a value that cannot become what the argument wants."""


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def kind_of(value: Any) -> Kind | None:
    """The kind of a JSON-like value, or None when it is none of them (a mapping, a mixed list)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return Kind.NUMBER if math.isfinite(value) else None
    if isinstance(value, str):
        return Kind.TEXT if value.strip() else None
    if isinstance(value, list | tuple) and value:
        if all(isinstance(r, list | tuple) and all(_scalar(c) for c in r) for r in value):
            return Kind.TABLE
        if all(isinstance(v, str) for v in value):
            return Kind.NAMES
    return None


_KEY = re.compile(r"^[A-Za-z_][\w\-]{0,40}$")
_FILE_NAME = re.compile(r"[\w.\-/]*\w\.[A-Za-z]\w*")  # a path in a text, by its type's letters


def records(value: Any) -> list[list[Any]] | None:
    """A list of flat records (mappings of scalars: a listing's entries, a search's matches) as a table
    whose header row is their keys; None when the value is no such list."""
    if not isinstance(value, list | tuple) or not value or not all(
            isinstance(r, Mapping) and r and all(isinstance(k, str) and _scalar(v) for k, v in r.items())
            for r in value):
        return None
    header = list(dict.fromkeys(key for r in value for key in r))
    return [header, *([r.get(key) for key in header] for r in value)]


def delimited(text: str) -> list[list[str]] | None:
    """A text of delimited lines (a .csv or .tsv file's) as a table: two lines or more, each with the same
    number of fields, two or more; None when the text is no such table."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) < 2:
        return None
    for delimiter in (",", "\t", ";"):
        rows = list(csv.reader(lines, delimiter=delimiter))
        if len(rows[0]) >= 2 and all(len(row) == len(rows[0]) for row in rows):
            return [[cell.strip() for cell in row] for row in rows]
    return None


def _parts(name: str, value: Any, depth: int, listed: bool = False) -> Iterator[tuple[str, Kind, Any]]:
    kind = kind_of(value)
    if kind is None and (table := records(value)) is not None:
        value, kind = table, Kind.TABLE
    # Deep in a result, or in the items of a list, only tables and lists of names are data worth a name (a
    # document's blocks hold a text, a style, a position each: none of them is what a subtask hands on).
    if kind is not None and ((depth <= 1 and not listed) or kind in (Kind.TABLE, Kind.NAMES)
                             or (kind is Kind.NUMBER and not listed)):
        yield name, kind, value
        if kind is Kind.TEXT and (rows := delimited(value)) is not None:
            yield f"{name}.table", Kind.TABLE, rows
        if kind is Kind.TEXT and len(lines := value.splitlines()) >= 2:
            # how long a text is, counted: a model that counts a file's lines by eye gets them wrong
            yield f"{name}.{LINES}", Kind.NUMBER, len(lines)
            yield f"{name}.{WORDS}", Kind.NUMBER, len(value.split())
    if depth >= MAX_DEPTH:
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            # what a read left out is said to the host and the model, and is no data to hand on
            if isinstance(key, str) and _KEY.match(key) and not (depth == 0 and key == LEFT_OUT):
                yield from _parts(f"{name}.{key}", item, depth + 1, listed)
    elif isinstance(value, list | tuple) and kind is None:
        for index, item in enumerate(value[:MAX_PARTS]):
            yield from _parts(f"{name}.{index}", item, depth + 1, True)


def extract(base: str, content: Any, source: str = "") -> tuple[Artifact, ...]:
    """The artifacts of one call's result, named from `base` (`1.read_table`)."""
    return tuple(Artifact(name, kind, value, source) for name, kind, value in _parts(base, content, 0))


# Figures of a handed-on table: what a subtask that writes a number, a name or a list would otherwise compute
# or copy by hand from rows it was given (a 1.5B writer adds a column of eight numbers wrong, and copies a
# column's cells with others mixed in). Each is named after the table, the figure and the column's header:
# `1.read_sheet.sum.Amount`, `1.read_sheet.max_label.Total` (the first text column's cell in the row of the
# largest value), `1.read_table.column.Action` (a text column's cells, as names). With two numeric columns
# or more, each row's total is a column too (`row_total`), measured first: the largest row over several columns. A text
# column of a few repeating values has a count per value (`1.read_sheet.count.Status.Open`; first, the values
# the request or the subtask names); rows that appear more than once are a table (`1.read_sheet.repeated_rows`).
ROW_TOTAL = "row_total"
MAX_FIGURE_COLUMNS = 4
MAX_NAME_COLUMNS = 4
MAX_COUNTED_COLUMNS = 2
MAX_CATEGORIES = 6  # a text column with at most this many values that repeat has a count per value
MAX_TITLE_ROWS = 4  # rows a header may have above it (a title, a blank line)


def figures(table: Artifact, text: str = "") -> tuple[Artifact, ...]:
    """The figures of a table with a header row: how many rows it has; per numeric column (the first few, and the
    rows' totals), its sum, mean, least and largest value, and the labels of the rows that hold them; per text
    column, its cells as names. None for other data. Where `text` (the request, the subtask) names columns by their
    headers, only those columns are measured: the numbers of the others are only distractions."""
    columns = _columns(table)
    if columns is None:
        return ()
    header, body, cells, numbers = columns.header, columns.body, columns.cells, columns.numbers
    numeric, texts, width = columns.numeric, columns.texts, len(columns.header)
    label = next((i for i in range(width) if i not in numeric), None)
    named = {i for i in range(width) if names(text, header[i])}
    numeric = [i for i in numeric if i in named] if named & set(numeric) else numeric
    texts = [i for i in texts if i in named] if named & set(texts) else texts
    labels = [_cell(c) for c in cells[label]] if label is not None else [""] * len(body)
    measured = [(_key(header, i), header[i], numbers[i]) for i in numeric[:MAX_FIGURE_COLUMNS]]
    if len(numeric) >= 2:
        # first: the columns measured are those the text names, or all when it names none, and a question
        # about them all ("over both quarters") is one about their total; a small model takes the first that fits
        totals = [sum(v for i in numeric if (v := numbers[i][n]) is not None) for n in range(len(body))]
        measured.insert(0, (ROW_TOTAL, " + ".join(header[i] for i in numeric), [float(t) for t in totals]))
    found: list[Artifact] = []
    for key, name, values in measured:
        found.extend(_column_figures(f"{table.name}.{{}}.{key}", name, values, labels,
                                     header[label] if label is not None else ""))
    for i in texts[:MAX_NAME_COLUMNS]:
        found.append(Artifact(f"{table.name}.column.{_key(header, i)}", Kind.NAMES,
                              [c.strip() for c in cells[i] if not _blank(c)], f"the cells of {header[i]!r}"))
    asked: list[Artifact] = []  # the counts of values the text names, as it names a file: they come first
    for i in [i for i in texts if _categories(cells[i])][:MAX_COUNTED_COLUMNS]:
        counted = Counter(c.strip() for c in cells[i] if not _blank(c))
        for value, n in sorted(counted.items()):
            count = Artifact(f"{table.name}.count.{_key(header, i)}.{_key((value,), 0)}", Kind.NUMBER, n,
                             f"the rows whose {header[i]!r} is {value!r}")
            (asked if names(text, value) else found).append(count)
    # how many records there are is asked as often as any of their figures ("how many orders")
    rows = Artifact(f"{table.name}.row_count", Kind.NUMBER, len(body), "the number of rows under the header")
    found[:0] = [*asked, *selections(table, text), rows]
    seen: set[tuple[str, ...]] = set()
    repeated: dict[tuple[str, ...], list[Any]] = {}
    for row in body:
        key = tuple(_cell(c).strip().casefold() for c in row[:width])
        if key in seen:
            repeated.setdefault(key, list(row[:width]))
        seen.add(key)
    if repeated:
        found.append(Artifact(f"{table.name}.repeated_rows", Kind.TABLE, [header, *repeated.values()],
                              "the rows that appear more than once, each once"))
    return tuple(found)


def selections(table: Artifact, text: str) -> tuple[Artifact, ...]:
    """The rows of a table whose cell under a column of a few repeating values (a department, a status) is a value
    `text` names, header first, one table per value named (`1.read_sheet.where.Dept.Sales`): the part of the data
    a request that names one of those values is about, at hand by reference, so that no model types the table
    again with the other values' rows in it."""
    columns = _columns(table)
    if columns is None or not text:
        return ()
    text = _FILE_NAME.sub(" ", text)  # a file's name is no value of a cell (sales.xlsx names no Sales row)
    found = []
    for i in [i for i in columns.texts if _categories(columns.cells[i])]:
        named = [v for v in {c.strip() for c in columns.cells[i] if not _blank(c)} if names(text, v)]
        for value in sorted(named, key=lambda v: text.casefold().find(v.casefold())):  # as the text names them
            rows = [r for r in columns.body if i < len(r) and isinstance(r[i], str) and r[i].strip() == value]
            found.append(Artifact(f"{table.name}.where.{_key(columns.header, i)}.{_key((value,), 0)}",
                                  Kind.TABLE, [list(columns.header), *(list(r) for r in rows)],
                                  f"the rows whose {columns.header[i]!r} is {value!r}, header first"))
    return tuple(found)


@dataclass(frozen=True, slots=True)
class NamedRows:
    """Of a table, under one column of a few repeating values, the rows of the values a text names (`refs`: their
    tables, `selections`) and the rows of its other values, each row as its cells' text, case aside."""

    refs: tuple[str, ...]
    named: frozenset[tuple[str, ...]]
    others: frozenset[tuple[str, ...]]

    def mixed_in(self, value: Any) -> bool:
        """Whether rows (an argument of rows) hold both rows of the values named and rows of the others: the
        whole table where the text names a part of it."""
        rows = {_row_key(r) for r in value if isinstance(r, list | tuple)} if isinstance(value, list) else set()
        return bool(rows & self.named) and bool(rows & self.others)


def named_rows(tables: Iterable[Artifact], text: str) -> tuple[NamedRows, ...]:
    """For each table and each of its columns under which `text` names values (selections), the rows named and
    the others."""
    found = []
    for table in tables:
        by_column: dict[str, list[Artifact]] = {}
        for chosen in selections(table, text):
            by_column.setdefault(chosen.name.rsplit(".", 2)[-2], []).append(chosen)
        if not by_column:
            continue
        every = {_row_key(r) for r in table.value if isinstance(r, list | tuple)}
        for chosen in by_column.values():
            named = {_row_key(r) for c in chosen for r in c.value[1:]}
            header = _row_key(chosen[0].value[0])
            found.append(NamedRows(tuple(c.name for c in chosen), frozenset(named),
                                   frozenset(every - named - {header})))
    return tuple(found)


def said(value: Any) -> str:
    """A value as words say it (a whole number without its '.0')."""
    return _cell(value).strip()


def _row_key(row: Sequence[Any]) -> tuple[str, ...]:
    cells = [said(c).casefold() for c in row]
    while cells and not cells[-1]:
        cells.pop()
    return tuple(cells)


def _header(rows: Sequence[Sequence[Any]]) -> tuple[int | None, int]:
    """The index of a table's header row, the first row of names across its width (a title or a blank row
    may come first), or None; and the width."""
    width = max((max((i + 1 for i, c in enumerate(r) if not _blank(c)), default=0) for r in rows), default=0)
    top = next((n for n, r in enumerate(rows[:MAX_TITLE_ROWS + 1])
                if len(r) >= width and all(isinstance(c, str) and c.strip() for c in r[:width])), None)
    return top, width


def unnamed_columns(table: Artifact, text: str) -> frozenset[str]:
    """The headers (and their keys) of a table's numeric columns that `text` does not name, where it names
    another of them: what is said of those (their totals, their statistics) is only a distraction there."""
    columns = _columns(table)
    if columns is None:
        return frozenset()
    header, numeric = columns.header, columns.numeric
    named = [i for i in numeric if names(text, header[i])]
    return frozenset(n for i in numeric if named and i not in named for n in (header[i], _key(header, i)))


@dataclass(frozen=True, slots=True)
class _Columns:
    """A table with a header row and a body, column by column."""

    header: list[str]
    body: list[list[Any]]  # its rows under the header, blank ones left out
    cells: list[list[Any]]  # each column's cells
    numbers: list[list[float | None]]  # each column's cells as numbers
    numeric: list[int]  # the columns of numbers (blanks aside)
    texts: list[int]  # the columns of texts


def _columns(table: Artifact) -> _Columns | None:
    """A table with a header row and a body, column by column; None for other data."""
    rows = [list(r) for r in table.value] if table.kind is Kind.TABLE else []
    top, width = _header(rows)
    body = [r for r in rows[top + 1:] if any(not _blank(c) for c in r)] if top is not None and width else []
    if top is None or not body:
        return None
    header = [str(c).strip() for c in rows[top][:width]]
    cells = [[r[i] if i < len(r) else None for r in body] for i in range(width)]
    numbers = [[_number(c) for c in column] for column in cells]
    numeric = [i for i in range(width) if any(v is not None for v in numbers[i])
               and all(v is not None or _blank(c) for v, c in zip(numbers[i], cells[i], strict=True))]
    texts = [i for i in range(width) if i not in numeric
             and all(isinstance(c, str) or _blank(c) for c in cells[i]) and any(not _blank(c) for c in cells[i])]
    return _Columns(header, body, cells, numbers, numeric, texts)


def names(text: str, name: str, exact_case: bool = False) -> bool:
    """Whether a text names a column (or a file) by its whole name, case aside unless `exact_case`: an entity
    the person referred to, as a file name is, not the meaning of a word."""
    name = name.strip()
    return bool(name) and re.search(rf"(?<![\w.\-]){re.escape(name)}(?![\w\-])", text,
                                    0 if exact_case else re.IGNORECASE) is not None


def _categories(cells: Sequence[Any]) -> bool:
    """Whether a text column holds a few values that repeat (a status, a region), worth counting."""
    values = [c.strip() for c in cells if isinstance(c, str) and c.strip()]
    return 1 < len(set(values)) <= MAX_CATEGORIES and len(set(values)) < len(values)


def _column_figures(name: str, column: str, values: Sequence[float | None], labels: Sequence[str],
                    label: str) -> list[Artifact]:
    held = [(v, n) for n, v in enumerate(values) if v is not None]
    if not held:
        return []
    low, high = min(held), max(held, key=lambda h: h[0])
    total = sum(v for v, _ in held)
    found = [Artifact(name.format(figure), Kind.NUMBER, _tidy(value), f"{said} {column!r}")
             for figure, value, said in (("sum", total, "the sum (total) of"), ("mean", total / len(held),
                                         "the mean (average) of"), ("max", high[0], "the highest (max)"),
                                         ("min", low[0], "the lowest (min)"))]
    # Each label said with its value and the words a person asks for it with, so that one is not taken for the
    # other; the largest first, as a small model takes the first that fits and the largest is asked for more.
    for figure, (value, row), said in (("max_label", high, "highest (max)"), ("min_label", low, "lowest (min)")):
        if labels[row].strip():
            found.append(Artifact(name.format(figure), Kind.TEXT, labels[row],
                                  f"the {label!r} of the row with the {said} {column!r} ({_tidy(value)})"))
    return found


def _key(header: Sequence[str], index: int) -> str:
    return re.sub(r"\W+", "_", header[index]).strip("_") or f"column{index + 1}"


_THOUSANDS = re.compile(r"^[-+]?\d{1,3}(,\d{3})+(\.\d+)?$")


def _number(cell: Any) -> float | None:
    if isinstance(cell, bool) or cell is None:
        return None
    if isinstance(cell, int | float):
        return float(cell) if math.isfinite(cell) else None
    text = str(cell).strip()
    if _THOUSANDS.match(text):
        text = text.replace(",", "")
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _blank(cell: Any) -> bool:
    return cell is None or (isinstance(cell, str) and not cell.strip())


def _tidy(value: float) -> int | float:
    value = round(value, 10)
    return int(value) if value.is_integer() else value


def base_name(subtask: str, tool: str, taken: Mapping[str, str], call: str) -> str:
    """The name of a call's artifacts: `<subtask>.<tool>`, or `_2`, `_3`... when an earlier call of the
    tool with other arguments holds it (`taken`: base name -> the call that made it). The same call
    again takes its old name: its newer result replaces the older."""
    base = f"{subtask}.{tool}"
    n = 1
    name = base
    while name in taken and taken[name] != call:
        n += 1
        name = f"{base}_{n}"
    return name


def is_ref(value: Any) -> bool:
    return isinstance(value, Mapping) and len(value) == 1 and any(isinstance(value.get(k), str) for k in _REF_KEYS)


def ref_name(value: Mapping[str, Any]) -> str:
    return next(value[k] for k in _REF_KEYS if isinstance(value.get(k), str))


def refs_in(value: Any) -> list[str]:
    """The names a value refers to, in order."""
    if is_ref(value):
        return [ref_name(value)]
    if isinstance(value, Mapping):
        return [n for v in value.values() for n in refs_in(v)]
    if isinstance(value, list | tuple):
        return [n for v in value for n in refs_in(v)]
    return []


def resolve(arguments: Mapping[str, Any], artifacts: Mapping[str, Artifact],
            parameters: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """`arguments` with every reference replaced by its artifact's value, converted to the type the
    tool's parameter schema wants there. Raises RefError naming the unknown reference and the known."""
    props = (parameters or {}).get("properties", {}) if isinstance(parameters, Mapping) else {}
    return {key: _resolve(value, artifacts, props.get(key) if isinstance(props, Mapping) else None)
            for key, value in arguments.items()}


def _resolve(value: Any, artifacts: Mapping[str, Artifact], schema: Any) -> Any:
    if is_ref(value):
        name = ref_name(value)
        found = artifacts.get(name)
        if found is None:
            known = ", ".join(sorted(artifacts)) or "none"
            raise RefError(f"unknown reference {name!r}; the references are: {known}")
        return convert(found, schema)
    if joined(value, schema):
        return "".join(part if isinstance(part, str) else _resolve(part, artifacts, _STRING) for part in value)
    if isinstance(value, Mapping):
        props = schema.get("properties", {}) if isinstance(schema, Mapping) else {}
        return {k: _resolve(v, artifacts, props.get(k)) for k, v in value.items()}
    if isinstance(value, list | tuple):
        items = schema.get("items") if isinstance(schema, Mapping) else None
        return [_resolve(v, artifacts, items) for v in value]
    return value


_STRING = {"type": "string"}


def joined(value: Any, schema: Any) -> bool:
    """Whether `value` is a text given as parts (strings and references, at least one reference) where the
    argument takes a text: the parts are joined, each reference as its value's text."""
    return (isinstance(value, list | tuple) and "content" in wants(schema) and any(is_ref(v) for v in value)
            and all(isinstance(v, str) or is_ref(v) for v in value))


def alternatives(schema: Any) -> list[Mapping[str, Any]]:
    """The alternatives of a schema (anyOf / oneOf), without null."""
    if not isinstance(schema, Mapping):
        return []
    options = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(options, Sequence) and not isinstance(options, str):
        return [o for t in options for o in alternatives(t) if o.get("type") != "null"]
    return [schema]


def wants(schema: Any) -> tuple[str, ...]:
    """What a parameter schema takes, as shapes: 'rows' (a list of lists), 'list' (of scalars), 'array' (of
    anything), 'content' (a string marked contentMediaType: a text, a paragraph), 'string' (a name, a label),
    'literal' (a string with an enum or a pattern: a choice, a cell, a range), 'number'."""
    found = []
    for option in alternatives(schema):
        kind = option.get("type")
        if kind == "array":
            items = option.get("items")
            if not alternatives(items):
                found.append("array")  # any list: the value goes as it is
            else:
                found.append("rows" if any(t.get("type") == "array" for t in alternatives(items)) else "list")
        elif kind == "string":
            if "enum" in option or "pattern" in option or "const" in option:
                found.append("literal")
            elif "contentMediaType" in option or "contentMediaType" in schema:
                found.append("content")
            else:
                found.append("string")
        elif kind in ("number", "integer"):
            found.append("number")
    return tuple(dict.fromkeys(found))


# Which artifact kinds each shape of argument takes (and so which references the grammar offers there): data
# goes where a tool takes data; a name or a label takes a single value; a choice, a cell or a range is
# written by the model (a table passed as a chart's range is no range).
TAKES: Mapping[str, frozenset[Kind]] = {
    "rows": frozenset({Kind.TABLE, Kind.NAMES}),
    "array": frozenset({Kind.TABLE, Kind.NAMES}),
    "list": frozenset({Kind.NAMES, Kind.TEXT}),  # names, lines; a table's rows go where rows go
    "content": frozenset({Kind.TEXT, Kind.NUMBER, Kind.NAMES, Kind.TABLE}),
    "string": frozenset({Kind.TEXT, Kind.NUMBER}),
    "literal": frozenset(),
    "number": frozenset({Kind.NUMBER}),
}


_SAYS = {"rows": "rows", "array": "a list", "list": "a list", "content": "text", "string": "a name or a value",
         "literal": "a value written out (a choice, a cell, a range), not a reference", "number": "a number"}


def accepted(schema: Any) -> frozenset[Kind]:
    """The artifact kinds an argument of this schema can take by reference (none: no schema, or code)."""
    if isinstance(schema, Mapping) and schema.get(CODE):
        return frozenset()
    return frozenset(k for shape in wants(schema) for k in TAKES[shape])


def convert(artifact: Artifact, schema: Any = None) -> Any:
    """An artifact's value as the argument wants it (as it is, without a schema)."""
    if isinstance(schema, Mapping) and schema.get(CODE):
        raise RefError(f"{artifact.name} is data; this argument is code the tool runs (a command), which takes no "
                       "data by reference: write it out")
    shapes = wants(schema)
    value, kind = artifact.value, artifact.kind
    if not shapes:
        return value
    shape = next((s for s in shapes if kind in TAKES[s]), None)
    if shape is None:
        takes = " or ".join(_SAYS[s] for s in shapes)
        raise RefError(f"{artifact.name} is a {kind.value}; this argument takes {takes}")
    if shape == "array":
        return [list(r) for r in value] if kind is Kind.TABLE else list(value)
    if shape == "rows":
        return [list(r) for r in value] if kind is Kind.TABLE else [[v] for v in value]
    if shape == "list":
        return list(value) if kind is Kind.NAMES else value.splitlines()
    if shape in ("content", "string"):
        if kind is Kind.TABLE:
            return "\n".join("\t".join(_cell(c) for c in row) for row in value)
        if kind is Kind.NAMES:
            return "\n".join(value)
        return value if kind is Kind.TEXT else _cell(value)
    return value  # a number


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
