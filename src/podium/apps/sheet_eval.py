"""The value of a formula cell, computed the way a spreadsheet program would, for the common functions.

openpyxl writes a formula without its result, so a workbook a tool has just written holds none: a tool
that counts, filters or groups a column of `=C2*D2` would see no numbers, and a model would do the
arithmetic itself. This evaluator computes arithmetic, comparison and text operators, cell and range
references (on any sheet of the workbook) and the functions in `FUNCTIONS`; anything else (a
function it does not know, a defined name, an array) raises `CannotEvaluate`, and the caller says the
value is not known rather than guess. Errors are values, as in a spreadsheet ("#DIV/0!").

Pure: it reads the loaded workbook and never changes it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from podium.apps.sheet_cells import bounds, split_sheet
from podium.apps.sheet_functions import FUNCTIONS, Area, CannotEvaluate, FormulaError, as_text, compare, number_of, tidy
from podium.apps.tooling import ToolError

__all__ = ["Area", "CannotEvaluate", "Evaluator", "FormulaError"]


_PRECEDENCE = {"=": 1, "<>": 1, "<": 1, ">": 1, "<=": 1, ">=": 1, "&": 2, "+": 3, "-": 3, "*": 4, "/": 4, "^": 5}
_MAX_DEPTH = 200


class Evaluator:
    """Computes the cells of one loaded workbook (openpyxl, formulas as text); results are cached."""

    def __init__(self, workbook: Any) -> None:
        self.workbook = workbook
        self._values: dict[tuple[str, int, int], Any] = {}
        self._busy: set[tuple[str, int, int]] = set()

    def cell(self, sheet: str, row: int, col: int) -> Any:
        """The cell's value: its formula's result for a formula (CannotEvaluate when not known)."""
        key = (sheet, row, col)
        if key in self._values:
            return self._values[key]
        worksheet = self._sheet(sheet)
        inside = row <= worksheet.max_row and col <= worksheet.max_column
        raw = worksheet.cell(row=row, column=col).value if inside else None
        if not (isinstance(raw, str) and raw.startswith("=") and len(raw) > 1):
            return raw
        if key in self._busy or len(self._busy) > _MAX_DEPTH:
            raise CannotEvaluate(f"{sheet}!{col},{row} refers to itself")
        self._busy.add(key)
        try:
            value = self.formula(raw, sheet)
        finally:
            self._busy.discard(key)
        self._values[key] = value
        return value

    def known(self, sheet: str, row: int, col: int) -> tuple[bool, Any]:
        """(True, value), or (False, the formula) when its value cannot be computed here."""
        try:
            return True, self.cell(sheet, row, col)
        except CannotEvaluate:
            return False, self._sheet(sheet).cell(row=row, column=col).value

    def formula(self, text: str, sheet: str) -> Any:
        """The value of a formula ('=...') written on `sheet`."""
        from openpyxl.formula import Tokenizer

        try:
            items = [t for t in Tokenizer(text).items if t.type != "WHITE-SPACE"]
        except Exception as exc:
            raise CannotEvaluate(f"{text!r} does not parse: {exc}") from exc
        parser = _Parser(items)
        tree = parser.expression(0)
        if parser.at < len(items):
            raise CannotEvaluate(f"unexpected {items[parser.at].value!r} in {text!r}")
        return tidy(self._scalar(self._eval(tree, sheet)))

    # -- evaluation ----------------------------------------------------------------------------
    def _sheet(self, title: str) -> Any:
        if title not in self.workbook.sheetnames:
            raise CannotEvaluate(f"no sheet {title!r}")
        return self.workbook[title]

    def _eval(self, node: tuple[Any, ...], sheet: str) -> Any:
        kind = node[0]
        if kind == "value":
            return node[1]
        if kind == "ref":
            return self._area(node[1], sheet)
        if kind == "neg":
            value = number_of(self._scalar(self._eval(node[1], sheet)))
            return value if isinstance(value, FormulaError) else -value
        if kind == "pct":
            value = number_of(self._scalar(self._eval(node[1], sheet)))
            return value if isinstance(value, FormulaError) else value / 100
        if kind == "bin":
            return self._binary(node[1], self._scalar(self._eval(node[2], sheet)),
                                self._scalar(self._eval(node[3], sheet)))
        if kind == "call":
            function = FUNCTIONS.get(node[1])
            if function is None:
                raise CannotEvaluate(f"{node[1]} is not computed here")
            return function(self, [self._eval(arg, sheet) for arg in node[2]])
        raise CannotEvaluate(f"{kind} is not computed here")

    def _area(self, reference: str, sheet: str) -> Area:
        from openpyxl.utils.cell import get_column_letter

        named, address = split_sheet(reference)
        title = named if named is not None else sheet
        worksheet = self._sheet(title)
        address = address.replace("$", "").upper()
        if re.fullmatch(r"[A-Z]{1,3}:[A-Z]{1,3}", address):  # whole columns: as far as the sheet goes
            address = f"{address.split(':')[0]}1:{address.split(':')[1]}{worksheet.max_row}"
        elif re.fullmatch(r"[0-9]+:[0-9]+", address):
            low, high = address.split(":")
            address = f"A{low}:{get_column_letter(worksheet.max_column)}{high}"
        elif ":" not in address:
            address = f"{address}:{address}"
        try:
            min_col, min_row, max_col, max_row = bounds(address)
        except ToolError as exc:
            raise CannotEvaluate(f"{reference!r} is not a cell range (a defined name?)") from exc
        return Area(title, min_col, min_row, max_col, max_row)

    def values(self, value: Any) -> Iterator[Any]:
        """Every value an argument holds: a range's cells, row by row, or the value itself."""
        if isinstance(value, Area):
            for row in range(value.min_row, value.max_row + 1):
                for col in range(value.min_col, value.max_col + 1):
                    yield self.cell(value.sheet, row, col)
        else:
            yield value

    def _scalar(self, value: Any) -> Any:
        if isinstance(value, Area):
            if (value.min_col, value.min_row) != (value.max_col, value.max_row):
                raise CannotEvaluate("a range where one value is expected")
            return self.cell(value.sheet, value.min_row, value.min_col)
        return value

    def _binary(self, op: str, left: Any, right: Any) -> Any:
        for side in (left, right):
            if isinstance(side, FormulaError):
                return side
        if op == "&":
            return as_text(left) + as_text(right)
        if op in ("=", "<>", "<", ">", "<=", ">="):
            return compare(op, left, right)
        a, b = number_of(left), number_of(right)
        if isinstance(a, FormulaError) or isinstance(b, FormulaError):
            return a if isinstance(a, FormulaError) else b
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "/":
            return FormulaError("#DIV/0!") if b == 0 else a / b
        try:
            return float(a) ** b
        except (OverflowError, ZeroDivisionError, ValueError):
            return FormulaError("#NUM!")


class _Parser:
    """Precedence climbing over openpyxl's formula tokens."""

    def __init__(self, items: list[Any]) -> None:
        self.items, self.at = items, 0

    def _peek(self) -> Any:
        return self.items[self.at] if self.at < len(self.items) else None

    def expression(self, least: int) -> tuple[Any, ...]:
        left = self._unary()
        while (token := self._peek()) is not None and token.type == "OPERATOR-INFIX" \
                and _PRECEDENCE.get(token.value, -1) >= least:
            op = token.value
            self.at += 1
            right = self.expression(_PRECEDENCE[op] + 1)  # left to right, "^" too, as spreadsheets do
            left = ("bin", op, left, right)
        return left

    def _unary(self) -> tuple[Any, ...]:
        token = self._peek()
        if token is not None and token.type == "OPERATOR-PREFIX":
            self.at += 1
            operand = self._unary()
            return ("neg", operand) if token.value == "-" else operand
        node = self._primary()
        while (token := self._peek()) is not None and token.type == "OPERATOR-POSTFIX":
            self.at += 1
            node = ("pct", node)
        return node

    def _primary(self) -> tuple[Any, ...]:
        token = self._peek()
        if token is None:
            raise CannotEvaluate("the formula ends too early")
        self.at += 1
        if token.type == "OPERAND":
            if token.subtype == "NUMBER":
                number = float(token.value)
                return ("value", int(number) if number.is_integer() and "." not in token.value else number)
            if token.subtype == "TEXT":
                return ("value", token.value[1:-1].replace('""', '"'))
            if token.subtype == "LOGICAL":
                return ("value", token.value.upper() == "TRUE")
            if token.subtype == "ERROR":
                return ("value", FormulaError(token.value))
            return ("ref", token.value)
        if token.type == "PAREN" and token.subtype == "OPEN":
            node = self.expression(0)
            self._expect("PAREN")
            return node
        if token.type == "FUNC" and token.subtype == "OPEN":
            name = token.value[:-1].upper().removeprefix("_XLFN.")
            args: list[tuple[Any, ...]] = []
            while (nxt := self._peek()) is not None and not (nxt.type == "FUNC" and nxt.subtype == "CLOSE"):
                if nxt.type == "SEP":
                    self.at += 1
                    continue
                args.append(self.expression(0))
            self._expect("FUNC")
            return ("call", name, args)
        raise CannotEvaluate(f"{token.value!r} is not computed here")

    def _expect(self, kind: str) -> None:
        token = self._peek()
        if token is None or token.type != kind or token.subtype != "CLOSE":
            raise CannotEvaluate("unbalanced parentheses")
        self.at += 1


