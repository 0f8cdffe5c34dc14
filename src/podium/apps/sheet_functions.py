"""What sheet_eval computes with: error values, ranges, coercion, comparison, COUNTIF criteria, and the
functions it knows (FUNCTIONS, by name). Arguments arrive evaluated; a range arrives as an `Area`, read
through the evaluator (`ev.values`), so a function sees the computed values of formula cells too."""

from __future__ import annotations

import contextlib
import datetime as dt
import math
import re
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from podium.apps.sheet_eval import Evaluator


class CannotEvaluate(Exception):
    """The formula uses something the evaluator does not compute: its value is not known."""


@dataclass(frozen=True, slots=True)
class FormulaError:
    """An error value (#DIV/0!, #VALUE!, #REF!, #N/A): it flows through a formula like a value."""

    code: str

    def __str__(self) -> str:
        return self.code


@dataclass(frozen=True, slots=True)
class Area:
    sheet: str
    min_col: int
    min_row: int
    max_col: int
    max_row: int


def number_of(value: Any) -> Any:
    """A value used in arithmetic: empty is 0, TRUE 1, numeric text its number, other text #VALUE!."""
    if isinstance(value, FormulaError):
        return value
    if value is None:
        return 0
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float):
        return value
    if isinstance(value, str):
        try:
            return float(value.strip().replace(",", ""))
        except ValueError:
            return FormulaError("#VALUE!")
    raise CannotEvaluate(f"{type(value).__name__} values are not computed here")


# -- values ------------------------------------------------------------------------------------
def tidy(value: Any) -> Any:
    """A result as a spreadsheet shows it: 10.0 is 10, 0.1+0.2 is 0.3."""
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return FormulaError("#NUM!")
        value = round(value, 10)
        return int(value) if value.is_integer() and abs(value) < 1e15 else value
    return value


def as_text(value: Any) -> str:
    """A value as text, as a spreadsheet shows it: TRUE/FALSE, 3.0 as '3', 0.1+0.2 as '0.3', a date (at
    midnight) in ISO form."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, dt.datetime) and value.time() == dt.time():
        return value.date().isoformat()
    if isinstance(value, dt.date | dt.datetime | dt.time):
        return value.isoformat()
    return str(tidy(value))


def compare(op: str, left: Any, right: Any) -> bool:
    a, b = _order(left, right), _order(right, left)
    return {"=": a == b, "<>": a != b, "<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[op]


def _order(value: Any, other: Any) -> tuple[int, Any]:
    """A spreadsheet orders numbers before text before logical values, text ignoring case; an empty
    cell is 0 beside a number and "" beside anything else."""
    if isinstance(value, bool):
        return (2, value)
    if isinstance(value, int | float):
        return (0, value)
    if value is None:
        return (0, 0) if isinstance(other, int | float) and not isinstance(other, bool) else (1, "")
    return (1, str(value).casefold())


def matches(value: Any, criterion: Any) -> bool:
    """Whether a cell meets a COUNTIF-style criterion: 10, "Paid", ">=10", "<>x", "A*" (wildcards)."""
    if not isinstance(criterion, str):
        return compare("=", value, criterion) if value is not None else criterion in ("", None)
    found = re.match(r"(<=|>=|<>|<|>|=)?(.*)", criterion, re.S)
    op, operand = (found.group(1) or "="), found.group(2) if found else criterion
    target: Any = operand
    with contextlib.suppress(ValueError):
        target = float(operand.replace(",", "")) if operand.strip() else operand
    if isinstance(target, str) and op in ("=", "<>") and any(ch in target for ch in "*?"):
        pattern = re.escape(target).replace(r"\*", ".*").replace(r"\?", ".")
        hit = isinstance(value, str) and re.fullmatch(pattern, value, re.I | re.S) is not None
        return hit if op == "=" else not hit
    if isinstance(target, float) and not isinstance(value, int | float):
        return op == "<>"  # text is never equal, greater or less than a number in a criterion
    if isinstance(target, str) and target == "":
        blank = value in (None, "")
        return blank if op == "=" else not blank
    return compare(op, value, target)


# -- functions ---------------------------------------------------------------------------------
def _numbers(ev: Evaluator, args: list[Any]) -> list[float]:
    """The numbers of the arguments, as SUM takes them: a range's text and empty cells are skipped, a
    number typed as an argument counts; an error anywhere is the result."""
    found = []
    for arg in args:
        for value in ev.values(arg):
            if isinstance(value, FormulaError):
                raise _Propagate(value)
            if isinstance(value, int | float) and not isinstance(value, bool):
                found.append(value)
            elif not isinstance(arg, Area) and isinstance(value, bool | str):
                number = number_of(value)
                if isinstance(number, FormulaError):
                    raise _Propagate(number)
                found.append(number)
    return found


class _Propagate(Exception):
    """Carries an error value out of an argument list."""

    def __init__(self, error: FormulaError) -> None:
        self.error = error


def _aggregate(reduce: Callable[[list[float]], Any], empty: Any = 0) -> Callable[[Evaluator, list[Any]], Any]:
    def function(ev: Evaluator, args: list[Any]) -> Any:
        try:
            numbers = _numbers(ev, args)
        except _Propagate as stop:
            return stop.error
        return reduce(numbers) if numbers else empty
    return function


def _one(ev: Evaluator, args: list[Any], index: int, default: Any = None) -> Any:
    return ev._scalar(args[index]) if index < len(args) else default


def _rounding(mode: Callable[[float], float]) -> Callable[[Evaluator, list[Any]], Any]:
    def function(ev: Evaluator, args: list[Any]) -> Any:
        value, digits = number_of(_one(ev, args, 0)), number_of(_one(ev, args, 1, 0))
        if isinstance(value, FormulaError) or isinstance(digits, FormulaError):
            return value if isinstance(value, FormulaError) else digits
        scale = 10 ** int(digits)
        return mode(value * scale) / scale
    return function


def _half_up(x: float) -> float:
    return math.floor(abs(x) + 0.5 + 1e-9) * (1 if x >= 0 else -1)


def _if(ev: Evaluator, args: list[Any]) -> Any:
    test = number_of(_one(ev, args, 0))
    if isinstance(test, FormulaError):
        return test
    chosen = 1 if test != 0 else 2
    return _one(ev, args, chosen, chosen == 1)  # IF(test) alone is TRUE or FALSE


def _logical(ev: Evaluator, args: list[Any]) -> list[bool]:
    """The truth values AND and OR weigh: numbers and logical values (text and empty cells are skipped)."""
    return [bool(v) for a in args for v in ev.values(a) if isinstance(v, bool | int | float)]


def _conditional(reduce: Callable[[list[float]], Any]) -> Callable[[Evaluator, list[Any]], Any]:
    """SUMIF / AVERAGEIF / COUNTIF: the range, the criterion, and the range to add (default: the first)."""
    def function(ev: Evaluator, args: list[Any]) -> Any:
        tested = list(ev.values(args[0]))
        criterion = _one(ev, args, 1)
        taken = list(ev.values(args[2])) if len(args) > 2 else tested
        picked = [v for t, v in zip(tested, taken, strict=False) if matches(t, criterion)]
        return reduce(picked)
    return function


def _count_if(values: list[Any]) -> int:
    return len(values)


def _numeric(values: list[Any]) -> list[float]:
    return [v for v in values if isinstance(v, int | float) and not isinstance(v, bool)]


def _average(numbers: list[float]) -> Any:
    return sum(numbers) / len(numbers) if numbers else FormulaError("#DIV/0!")


def _text_function(change: Callable[..., str]) -> Callable[[Evaluator, list[Any]], Any]:
    def function(ev: Evaluator, args: list[Any]) -> Any:
        values = [_one(ev, args, i) for i in range(len(args))]
        error = next((v for v in values if isinstance(v, FormulaError)), None)
        return error if error is not None else change(*values)
    return function


FUNCTIONS: dict[str, Callable[[Evaluator, list[Any]], Any]] = {
    "SUM": _aggregate(sum),
    "PRODUCT": _aggregate(math.prod),
    "AVERAGE": _aggregate(_average, FormulaError("#DIV/0!")),
    "MIN": _aggregate(min),
    "MAX": _aggregate(max),
    "MEDIAN": _aggregate(statistics.median, FormulaError("#NUM!")),
    "COUNT": lambda ev, args: sum(isinstance(v, int | float) and not isinstance(v, bool)
                                  for a in args for v in ev.values(a)),
    "COUNTA": lambda ev, args: sum(v not in (None, "") for a in args for v in ev.values(a)),
    "COUNTBLANK": lambda ev, args: sum(v in (None, "") for a in args for v in ev.values(a)),
    "COUNTIF": _conditional(_count_if),
    "SUMIF": _conditional(lambda values: sum(_numeric(values))),
    "AVERAGEIF": _conditional(lambda values: _average(_numeric(values))),
    "ROUND": _rounding(_half_up),
    "ROUNDUP": _rounding(lambda x: math.ceil(abs(x) - 1e-9) * (1 if x >= 0 else -1)),
    "ROUNDDOWN": _rounding(math.trunc),
    "ABS": lambda ev, args: abs(v) if not isinstance(v := number_of(_one(ev, args, 0)), FormulaError) else v,
    "INT": lambda ev, args: math.floor(v) if not isinstance(v := number_of(_one(ev, args, 0)), FormulaError) else v,
    "IF": _if,
    "IFERROR": lambda ev, args: _one(ev, args, 1) if isinstance(_one(ev, args, 0), FormulaError) else _one(ev, args, 0),
    "AND": lambda ev, args: all(_logical(ev, args)),
    "OR": lambda ev, args: any(_logical(ev, args)),
    "NOT": lambda ev, args: number_of(_one(ev, args, 0)) == 0,
    "TRUE": lambda ev, args: True,
    "FALSE": lambda ev, args: False,
    "CONCAT": lambda ev, args: "".join(as_text(v) for a in args for v in ev.values(a)),
    "CONCATENATE": _text_function(lambda *values: "".join(as_text(v) for v in values)),
    "LEN": _text_function(lambda v: len(as_text(v))),
    "UPPER": _text_function(lambda v: as_text(v).upper()),
    "LOWER": _text_function(lambda v: as_text(v).lower()),
    "PROPER": _text_function(lambda v: as_text(v).title()),
    "TRIM": _text_function(lambda v: " ".join(as_text(v).split())),
    "LEFT": _text_function(lambda v, n=1: as_text(v)[: int(n)]),
    "RIGHT": _text_function(lambda v, n=1: as_text(v)[-int(n):] if int(n) else ""),
    "MID": _text_function(lambda v, start, n: as_text(v)[int(start) - 1: int(start) - 1 + int(n)]),
}
