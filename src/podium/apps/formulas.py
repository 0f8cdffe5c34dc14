"""Which spreadsheet formulas a tool may write: only functions that compute on the workbook's own cells.

A formula is live code in the person's spreadsheet program: `=WEBSERVICE(...)` or `=HYPERLINK("http://...?"&B2)`
sends the workbook's data elsewhere when the file is opened. So a formula is written only by tools whose job is
a formula, and only when every function it calls is on this allow-list (an allow-list: a list of what is
dangerous is never complete), and when it reaches nothing outside the workbook by other means (DDE, links
to other workbooks). Text from data that starts with "=" is written as text, never as a formula.
"""

from __future__ import annotations

import re

# Pure functions over cells and values: arithmetic, statistics, logic, lookup, text, dates.
ALLOWED = frozenset({
    "ABS", "AND", "AVERAGE", "AVERAGEA", "AVERAGEIF", "AVERAGEIFS", "CEILING", "CHOOSE", "COLUMN", "COLUMNS",
    "CONCAT", "CONCATENATE", "COUNT", "COUNTA", "COUNTBLANK", "COUNTIF", "COUNTIFS", "DATE", "DATEDIF", "DAY",
    "EDATE", "EOMONTH", "EXACT", "FALSE", "FIND", "FLOOR", "HLOOKUP", "HOUR", "IF", "IFERROR", "IFNA", "IFS",
    "INDEX", "INT", "ISBLANK", "ISERROR", "ISNUMBER", "ISTEXT", "LARGE", "LEFT", "LEN", "LOWER", "MATCH", "MAX",
    "MAXA", "MAXIFS", "MEDIAN", "MID", "MIN", "MINA", "MINIFS", "MINUTE", "MOD", "MODE", "MONTH", "NETWORKDAYS",
    "NOT", "OR", "PERCENTILE", "POWER", "PRODUCT", "PROPER", "QUARTILE", "RANK", "REPLACE", "REPT", "RIGHT",
    "ROUND", "ROUNDDOWN", "ROUNDUP", "ROW", "ROWS", "SEARCH", "SECOND", "SIGN", "SMALL", "SQRT", "STDEV",
    "STDEVP", "SUBSTITUTE", "SUBTOTAL", "SUM", "SUMIF", "SUMIFS", "SUMPRODUCT", "SWITCH", "TEXT", "TEXTJOIN",
    "TIME", "TODAY", "TRIM", "TRUE", "TRUNC", "UPPER", "VALUE", "VAR", "VARP", "VLOOKUP", "WEEKDAY", "XLOOKUP",
    "YEAR",
})
_CALL = re.compile(r"([A-Za-z_][A-Za-z0-9_.]*)\s*\(")
_STRING = re.compile(r'"(?:[^"]|"")*"')


def is_formula(value: object) -> bool:
    return isinstance(value, str) and value.startswith("=") and len(value) > 1


def refused_functions(formula: str) -> tuple[str, ...]:
    """The functions a formula calls that are not on the allow-list (none: it may be written). Function
    names inside string literals are text, not calls."""
    code = _STRING.sub('""', formula)
    names = (m.group(1).upper().removeprefix("_XLFN.").removeprefix("_XLWS.") for m in _CALL.finditer(code))
    return tuple(dict.fromkeys(n for n in names if n not in ALLOWED))


# Reaching outside the workbook without a function: DDE (`=cmd|'/c calc'!A1`) and links to other workbooks
# (`[1]Sheet1!A1`, `'C:\\[book.xlsx]Sheet1'!A1`).
_DDE = re.compile(r"\|")
_EXTERNAL = re.compile(r"\[\s*\d+\s*\]|\.xl[a-z]{0,2}\]|\[[^\]]*[/\\:][^\]]*\]", re.IGNORECASE)


def formula_problem(formula: str) -> str | None:
    """Why a formula may not be written (a sentence naming what it reaches and what to do), or None."""
    code = _STRING.sub('""', formula)
    if _DDE.search(code) or _EXTERNAL.search(code):
        return (f"the formula {formula!r} reaches outside the workbook (a DDE link to a program, or a link to "
                "another workbook), which is not allowed in a formula; compute the value another way")
    refused = refused_functions(formula)
    if not refused:
        return None
    return (f"the formula {formula!r} calls {', '.join(refused)}, which is not allowed in a formula (only "
            f"functions that compute on the workbook's cells are); compute the value another way")
