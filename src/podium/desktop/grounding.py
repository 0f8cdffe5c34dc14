"""Numbers an agent writes or hands on must come from somewhere it was shown.

A small model copies numbers it never saw: the 1.5B AppAgent called column_totals (Amount: 3099.84) and
in the same answer wrote "The sum ... is 7095.0", which the next subtask wrote into total.txt. A number
is grounded when a tool's output, the request, the subtask's texts or the person's answers hold it, to
the precision it is written with (442.83 is 442.8342857143 rounded); one-digit whole numbers ("step
1", "3 May") always are. Formulas ('=SUM(B2:B5)') are the spreadsheet's arithmetic, not numbers.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

# "3,099.84" and "1,200" are one number each; "1,2" is two.
_NUMBER = re.compile(r"(?<![\d.])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d,])|\d+(?:\.\d+)?")
# The arguments of a change that hold what it writes (a path, a range or a sheet name only says where).
CONTENT_KEYS = frozenset({"content", "value", "values", "rows", "text", "paragraphs"})


def numbers(value: Any) -> list[Decimal]:
    """The numbers in a JSON-like value: its numbers, and the numbers written in its strings."""
    found: list[Decimal] = []
    for leaf in _leaves(value):
        if isinstance(leaf, bool) or leaf is None:
            continue
        if isinstance(leaf, int | float):
            if math.isfinite(leaf):
                found.append(Decimal(str(leaf)))
        elif isinstance(leaf, str) and not leaf.lstrip().startswith("="):
            found.extend(Decimal(m.group(0).replace(",", "")) for m in _NUMBER.finditer(leaf))
    return found


def _leaves(value: Any) -> Iterator[Any]:
    """The values of a JSON-like value that hold no others (strings, numbers...), in order."""
    if isinstance(value, Mapping):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from _leaves(item)
    else:
        yield value


def ungrounded(written: Any, seen: Iterable[Decimal]) -> list[str]:
    """The numbers of `written` that nothing in `seen` holds, as written (in order, once each)."""
    pool = frozenset(seen)
    missing: dict[str, None] = {}
    for number in numbers(written):
        if (number == number.to_integral_value() and abs(number) < 10) or number in pool:
            continue
        exponent = int(number.as_tuple().exponent)
        places = Decimal(1).scaleb(exponent) if exponent < 0 else Decimal(1)
        if not any(_rounds_to(x, places, number) for x in pool):
            missing[_shown(number)] = None
    return list(missing)


def names_data(text: str, data: Any, known: str = "") -> bool:
    """Whether `text` gives any of `data`'s values (a string of it as a whole phrase, or a number of two
    digits or more), but those `known` holds (a subtask's own words name its file). A read's result of
    "the paragraphs and tables of meeting.docx that read_document shows" names none: it points at the
    data, and the 1.5B AppAgent handed it wrote that sentence into actions.txt as the action items."""
    folded, known = text.casefold(), known.casefold()
    strings = (v.strip().casefold() for v in _leaves(data) if isinstance(v, str))
    if any(len(s) >= 3 and s not in known and re.search(rf"(?<!\w){re.escape(s)}(?!\w)", folded) for s in strings):
        return True
    given = {n for n in numbers(data) if abs(n) >= 10 or n != n.to_integral_value()}
    return any(n in given for n in numbers(text))


def replaced_header(rows: Any, data: Any) -> tuple[list[Any], list[Any]] | None:
    """(the header, the row of `rows` that stands in its place) where `rows` hold the body of a table in
    `data` (two rows or more, in order) under a row that is not that table's, and not its header: handed a
    document's blocks, the 1.5B AppAgent wrote its two paragraphs as the first row and the table's rows under
    them, without the table's header row. None if not so."""
    if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
        return None
    written = [_row_key(r) for r in rows]
    for table in _tables(data):
        keys = [_row_key(r) for r in table]
        body, size = keys[1:], len(keys) - 1
        for at in range(1, len(written) - size + 1):
            if written[at:at + size] == body and keys[0] not in written and written[at - 1] not in keys:
                return list(table[0]), rows[at - 1]
    return None


def _tables(value: Any) -> list[list[list[Any]]]:
    """The tables (three rows of cells or more, a header and two rows) in a JSON-like value."""
    found: list[list[list[Any]]] = []
    if isinstance(value, list | tuple):
        if len(value) >= 3 and all(isinstance(r, list) and r and not any(isinstance(c, list | dict) for c in r)
                                   for r in value):
            return [list(value)]
        for item in value:
            found.extend(_tables(item))
    elif isinstance(value, Mapping):
        for item in value.values():
            found.extend(_tables(item))
    return found


def _row_key(row: list[Any]) -> tuple[str, ...]:
    return tuple(str(c).strip().casefold() for c in row)


def written_content(arguments: Mapping[str, Any]) -> list[Any]:
    """What a change's arguments write (CONTENT_KEYS), not where."""
    return [v for k, v in arguments.items() if k in CONTENT_KEYS]


def _rounds_to(x: Decimal, places: Decimal, number: Decimal) -> bool:
    try:
        return x.quantize(places) == number
    except InvalidOperation:  # too many digits for the context: not this one
        return False


def _shown(number: Decimal) -> str:
    return format(number, "f")
