"""Evaluating the formulas a checker meets, the way a spreadsheet program would, without one.

A run may write a total as =SUM(C2:C6), =C2+C3+C4, a computed column as =B2*C2, =PRODUCT(B2,C2) or
=(B2*C2), a reference to another sheet as =Q1!B5. The checker must accept each of these when its value is
right, so it evaluates them: numbers, cell references (with or without $, on this or another sheet), ranges
inside a function, + - * / with the usual precedence, unary signs, parentheses, and SUM, PRODUCT, MIN, MAX,
AVERAGE, COUNT, ABS, ROUND. An empty cell counts as 0 where a single cell is referenced (as in a spreadsheet);
functions over ranges skip text and empty cells. Anything else (text in arithmetic, a function it does not
know, a cycle) is not evaluated: `value` returns None and the checker then sees the formula's text, which
matches no number.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from .values import number

MAX_DEPTH = 30  # formulas referring to formulas; deeper means a cycle or something no task builds

_TOKEN = re.compile(r"""
    \s*(?:
      (?P<ref>(?:(?:'(?:[^']|'')+'|[A-Za-z_][\w.]*)!)?\$?[A-Za-z]{1,3}\$?\d+(?::\$?[A-Za-z]{1,3}\$?\d+)?)
    | (?P<number>\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+)
    | (?P<name>[A-Za-z][A-Za-z0-9.]*)(?=\s*\()
    | (?P<op>[-+*/(),])
    )""", re.VERBOSE)

_FUNCTIONS: dict[str, Callable[[list[float]], float]] = {
    "SUM": sum,
    "PRODUCT": lambda xs: _product(xs),
    "MIN": lambda xs: min(xs) if xs else 0.0,
    "MAX": lambda xs: max(xs) if xs else 0.0,
    "AVERAGE": lambda xs: sum(xs) / len(xs),
    "COUNT": lambda xs: float(len(xs)),
    "ABS": lambda xs: abs(xs[0]),
    "ROUND": lambda xs: round(xs[0], int(xs[1]) if len(xs) > 1 else 0),
}


class _Unevaluable(Exception):
    pass


def _product(values: list[float]) -> float:
    result = 1.0
    for v in values:
        result *= v
    return result


def is_formula(value: Any) -> bool:
    return isinstance(value, str) and value.startswith("=") and len(value) > 1


def value(workbook: Any, ws: Any, cell_value: Any, depth: int = 0) -> float | None:
    """The number a cell's value stands for: a number as it is, a formula evaluated, text that reads as a
    number as that number; None for anything else."""
    if not is_formula(cell_value):
        return number(cell_value)
    if depth > MAX_DEPTH:
        return None
    try:
        parser = _Parser(workbook, ws, _tokens(cell_value[1:]), depth)
        result = parser.expression()
        if parser.position != len(parser.tokens):
            return None
        return result
    except (_Unevaluable, ZeroDivisionError, ValueError, IndexError, KeyError):
        return None


def _tokens(text: str) -> list[tuple[str, str]]:
    tokens, position = [], 0
    text = text.rstrip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            raise _Unevaluable(text[position:])
        kind = match.lastgroup or ""
        tokens.append((kind, match.group(kind)))
        position = match.end()
    return tokens


class _Parser:
    """Recursive descent over the tokens; every method returns a number or raises _Unevaluable."""

    def __init__(self, workbook: Any, ws: Any, tokens: list[tuple[str, str]], depth: int) -> None:
        self.workbook, self.ws, self.tokens, self.depth = workbook, ws, tokens, depth
        self.position = 0

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def take(self, text: str | None = None) -> tuple[str, str]:
        token = self.peek()
        if token is None or (text is not None and token[1] != text):
            raise _Unevaluable(f"expected {text!r}")
        self.position += 1
        return token

    def expression(self) -> float:
        total = self.term()
        while (token := self.peek()) is not None and token[1] in "+-" and token[0] == "op":
            self.take()
            right = self.term()
            total = total + right if token[1] == "+" else total - right
        return total

    def term(self) -> float:
        result = self.factor()
        while (token := self.peek()) is not None and token[1] in "*/" and token[0] == "op":
            self.take()
            right = self.factor()
            result = result * right if token[1] == "*" else result / right
        return result

    def factor(self) -> float:
        token = self.take()
        kind, text = token
        if kind == "op" and text in "+-":
            inner = self.factor()
            return -inner if text == "-" else inner
        if kind == "op" and text == "(":
            inner = self.expression()
            self.take(")")
            return inner
        if kind == "number":
            return float(text)
        if kind == "ref":
            values = self.cells(text)
            if len(values) != 1:
                raise _Unevaluable(f"a range outside a function: {text}")
            found = values[0]
            if found is None or (isinstance(found, str) and not found.strip()):
                return 0.0
            n = value(self.workbook, self.sheet_of(text), found, self.depth + 1)
            if n is None:
                raise _Unevaluable(f"{text} is not a number")
            return n
        if kind == "name":
            return self.function(text.upper())
        raise _Unevaluable(text)

    def function(self, name: str) -> float:
        if name not in _FUNCTIONS:
            raise _Unevaluable(f"function {name}")
        self.take("(")
        arguments: list[float] = []
        while True:
            token = self.peek()
            if token is not None and token[0] == "ref" and self._argument_ends(1):
                self.take()
                sheet = self.sheet_of(token[1])
                for raw in self.cells(token[1]):  # as a spreadsheet does: text and empty cells skipped
                    if is_formula(raw):
                        n = value(self.workbook, sheet, raw, self.depth + 1)
                        if n is None:
                            raise _Unevaluable(f"{token[1]} holds a formula that cannot be evaluated")
                        arguments.append(n)
                    elif isinstance(raw, int | float) and not isinstance(raw, bool):
                        arguments.append(float(raw))
            else:
                arguments.append(self.expression())
            if self.take()[1] == ")":
                break
        return float(_FUNCTIONS[name](arguments))

    def _argument_ends(self, ahead: int) -> bool:
        following = self.tokens[self.position + ahead] if self.position + ahead < len(self.tokens) else None
        return following is not None and following[1] in ",)"

    def sheet_of(self, reference: str) -> Any:
        if "!" not in reference:
            return self.ws
        name = reference.rsplit("!", 1)[0]
        name = name[1:-1].replace("''", "'") if name.startswith("'") else name
        for title in self.workbook.sheetnames:
            if title.casefold() == name.casefold():
                return self.workbook[title]
        raise _Unevaluable(f"no sheet {name!r}")

    def cells(self, reference: str) -> Sequence[Any]:
        from openpyxl.utils.cell import range_boundaries

        ws = self.sheet_of(reference)
        if not hasattr(ws, "iter_rows"):
            raise _Unevaluable("a chartsheet")
        area = reference.rsplit("!", 1)[-1].replace("$", "").upper()
        min_col, min_row, max_col, max_row = range_boundaries(area)
        return [cell.value for row in ws.iter_rows(min_row=min_row, max_row=max_row, min_col=min_col,
                                                     max_col=max_col) for cell in row]
