"""Comparing values the way a person reads them: "1,200", "1200" and 1200.0 are the same number; names
compare without case or surrounding spaces."""

from __future__ import annotations

import datetime
import re
from typing import Any

_NUMBER = re.compile(r"[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|[+-]?\.\d+")
_NUMBER_IN_TEXT = re.compile(r"(?<![\w.])[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w])")


def number(value: Any) -> float | None:
    """The number a cell or text holds, or None (booleans are not numbers)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        text = value.strip().replace("\u00a0", "")
        for symbol in ("€", "$", "£"):
            text = text.replace(symbol, "")
        text = text.strip()
        if _NUMBER.fullmatch(text):
            return float(text.replace(",", ""))
    return None


def numbers_in(text: str) -> list[float]:
    """Every number written in a text ("Total: 1,234.50 euros" -> [1234.5])."""
    return [float(m.group(0).replace(",", "")) for m in _NUMBER_IN_TEXT.finditer(text)]


def words(value: Any) -> str:
    """A value as normalised text: stripped, spaces collapsed, case folded; whole numbers without '.0'; a
    date (or a date and time at midnight: what a spreadsheet stores for a date) as YYYY-MM-DD."""
    n = number(value)
    if n is not None:
        return str(int(n)) if n.is_integer() else repr(n)
    if value is None:
        return ""
    if isinstance(value, datetime.datetime) and value.time() == datetime.time():
        return value.date().isoformat()
    if isinstance(value, datetime.date | datetime.datetime):
        return value.isoformat()
    return " ".join(str(value).split()).casefold()


def same(a: Any, b: Any) -> bool:
    na, nb = number(a), number(b)
    if na is not None and nb is not None:
        return abs(na - nb) <= 1e-6 * max(1.0, abs(na), abs(nb))
    return words(a) == words(b)


def same_row(found: list[Any], wanted: list[Any]) -> bool:
    """A found row equals the wanted one; trailing empty cells in the found row do not count."""
    trimmed = list(found)
    while trimmed and (trimmed[-1] is None or str(trimmed[-1]).strip() == ""):
        trimmed.pop()
    return len(trimmed) == len(wanted) and all(same(x, y) for x, y in zip(trimmed, wanted, strict=True))


def title_matches(found: str | None, wanted: str) -> bool:
    """Chart titles: same words, ignoring case, spaces and quotes around them."""
    def norm(text: str) -> str:
        return " ".join(text.strip().strip("'\"\u2018\u2019\u201c\u201d").split()).casefold()

    return found is not None and norm(found) == norm(wanted)
