"""The checkers' formula evaluator: every form a right answer may take comes to its value; what it cannot
evaluate comes to None (and so matches no number), never to a wrong number."""

from __future__ import annotations

from typing import Any

import pytest
from bench.tasks import formula, xlsx_view


def workbook() -> Any:
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Lines"
    for row in (["Item", "Qty", "Price"], ["Desk", 2, 240], ["Chair", 6, 95.5], ["Note", "three", 4]):
        ws.append(row)
    ws["E1"] = "=SUM(B2:B4)"  # text in the range is skipped
    ws["E2"] = "=E1*2"
    other = wb.create_sheet("Q 1")
    other["A1"] = 10
    other["A2"] = "=A1+Lines!B2"
    ws["F1"] = "=E2"
    ws["G1"] = "=G2"
    ws["G2"] = "=G1"  # a cycle
    return wb


@pytest.mark.parametrize(("text", "wanted"), [
    ("=B2*C2", 480), ("=C2*B2", 480), ("=PRODUCT(B2,C2)", 480), ("=PRODUCT(B2:C2)", 480), ("=(B2*C2)", 480),
    ("=$B$3*$C$3", 573), ("=B2+B3*C3", 575), ("=(B2+B3)*C3", 764), ("=-B2+10", 8), ("=B3/B2", 3),
    ("=SUM(B2:B4)", 8), ("=SUM(B2:B3, C2)", 248), ("=E1", 8), ("=E2", 16), ("=F1", 16),
    ("='Q 1'!A2", 12), ("=SUM('Q 1'!A1:A2)", 22), ("=ROUND(C3/7, 2)", 13.64), ("=AVERAGE(B2:B3)", 4),
    ("=MAX(C2:C4)-MIN(C2:C4)", 236), ("=B9", 0), ("= B2 * C2 ", 480), ("=lines!b2*c2", 480),
])
def test_right_forms_come_to_their_value(text: str, wanted: float) -> None:
    wb = workbook()
    assert formula.value(wb, wb["Lines"], text) == pytest.approx(wanted)


@pytest.mark.parametrize("text", [
    "=B4*C4",  # text in arithmetic
    "=VLOOKUP(A2,A1:C4,2)",  # a function it does not know
    "=G1",  # a cycle
    "=B2*",  # cut off
    "=Nowhere!A1",  # no such sheet
    "=B2:B3",  # a range outside a function
    '="a"&"b"',
    "=B2/0",
])
def test_what_it_cannot_evaluate_is_none(text: str) -> None:
    wb = workbook()
    assert formula.value(wb, wb["Lines"], text) is None


def test_evaluate_keeps_what_it_cannot_read_as_text() -> None:
    wb = workbook()
    assert xlsx_view.evaluate(wb, wb["Lines"], "=VLOOKUP(A2,A1:C4,2)") == "=VLOOKUP(A2,A1:C4,2)"
    assert xlsx_view.evaluate(wb, wb["Lines"], "plain") == "plain"
    assert xlsx_view.evaluate(wb, wb["Lines"], "=B2*C2") == 480

