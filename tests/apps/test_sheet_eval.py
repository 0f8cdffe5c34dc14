"""sheet_eval: formula results computed as a spreadsheet program computes them, or said to be unknown."""

from __future__ import annotations

import pytest
from openpyxl import Workbook

from podium.apps.sheet_eval import CannotEvaluate, Evaluator, FormulaError
from podium.apps.sheet_functions import matches


@pytest.fixture
def book() -> Workbook:
    workbook = Workbook()
    sheet = workbook.active
    sheet.title = "Data"
    for row in [["Item", "Qty", "Price", "Total"], ["pen", 2, 3.5, "=B2*C2"], ["ink", 4, "1.25", "=B3*C3"],
                ["pad", None, 2, "=B4*C4"], ["Sum", "=SUM(B2:B4)", None, "=SUM(D2:D4)"]]:
        sheet.append(row)
    other = workbook.create_sheet("My data")
    other["A1"] = 10
    other["A2"] = "='My data'!A1*2+Data!B2"
    return workbook


@pytest.mark.parametrize(("formula", "value"), [
    ("=1+2*3", 7), ("=(1+2)*3", 9), ("=-2^2", 4), ("=2^3^2", 64), ("=10%*50", 5), ("=7/2", 3.5),
    ("=0.1+0.2", 0.3), ('="a"&"b"&1', "ab1"), ("=1<2", True), ('="B"="b"', True), ("=2<>2", False),
    ("=SUM(B2:B4)", 6), ("=AVERAGE(B2:B4)", 3), ("=MIN(D2:D4)", 0), ("=MAX(D2:D4)", 7), ("=MEDIAN(1,5,3,9)", 4),
    ("=COUNT(A1:D4)", 7), ("=COUNTA(A2:A4)", 3), ("=COUNTBLANK(B2:B4)", 1), ("=PRODUCT(2,3,4)", 24),
    ('=COUNTIF(A2:A4,"<>ink")', 2), ('=COUNTIF(B2:B4,">=2")', 2), ('=COUNTIF(A2:A4,"p*")', 2),
    ('=SUMIF(A2:A4,"pen",D2:D4)', 7), ('=AVERAGEIF(B2:B4,">1")', 3),
    ("=ROUND(2.675,2)", 2.68), ("=ROUND(-1.5,0)", -2), ("=ROUNDUP(1.21,1)", 1.3), ("=ROUNDDOWN(1.29,1)", 1.2),
    ("=ABS(-3)", 3), ("=INT(-1.5)", -2), ('=IF(D5>10,"big","small")', "big"), ("=IF(0,1)", False),
    ("=AND(1,TRUE)", True), ("=OR(0,FALSE)", False), ("=NOT(0)", True), ("=IFERROR(1/0,-1)", -1),
    ('=UPPER("ab")&LOWER("CD")', "ABcd"), ('=LEN(TRIM("  a  b "))', 3), ('=LEFT("report",3)', "rep"),
    ('=RIGHT("report",2)', "rt"), ('=MID("report",2,3)', "epo"), ('=CONCATENATE("Q",3)', "Q3"),
    ("=SUM(D:D)", 24), ("=D3", 5), ("=Data!B3*2", 8),
])
def test_values(book: Workbook, formula: str, value: object) -> None:
    assert Evaluator(book).formula(formula, "Data") == value


def test_cells_compute_through_other_formulas_and_sheets(book: Workbook) -> None:
    evaluator = Evaluator(book)
    assert evaluator.cell("Data", 5, 4) == 12  # =SUM(D2:D4) over three formulas, text "1.25" times 4 is 5
    assert evaluator.cell("My data", 2, 1) == 22
    assert evaluator.cell("Data", 1, 1) == "Item"  # a value is itself
    assert evaluator.cell("Data", 40, 40) is None  # outside the used area: empty, and nothing is added
    assert book["Data"].max_row == 5


def test_errors_are_values(book: Workbook) -> None:
    evaluator = Evaluator(book)
    assert evaluator.formula("=1/0", "Data") == FormulaError("#DIV/0!")
    assert evaluator.formula("=A2+1", "Data") == FormulaError("#VALUE!")  # "pen" + 1
    assert evaluator.formula("=SUM(1/0,2)", "Data") == FormulaError("#DIV/0!")
    assert str(evaluator.formula('=AVERAGE(A2:A4)', "Data")) == "#DIV/0!"


@pytest.mark.parametrize("formula", ['=WEBSERVICE("http://x")', "=SUM(Nope!A1)", "=MyName*2", "={1,2}",
                                     "=SUM(1,", "=VLOOKUP(1,A1:B2,2,0)"])
def test_what_is_not_computed_is_unknown(book: Workbook, formula: str) -> None:
    with pytest.raises(CannotEvaluate):
        Evaluator(book).formula(formula, "Data")


def test_a_cycle_is_unknown_not_endless(book: Workbook) -> None:
    book["Data"]["F1"] = "=F2+1"
    book["Data"]["F2"] = "=F1+1"
    known, formula = Evaluator(book).known("Data", 1, 6)
    assert (known, formula) == (False, "=F2+1")


@pytest.mark.parametrize(("value", "criterion", "hit"), [
    (5, ">4", True), (5, "<=4", False), ("Paid", "paid", True), ("Paid", "<>paid", False), ("Pending", "P*", True),
    ("Pe", "P?", True), (None, "", True), ("x", "", False), (3, 3, True), ("3", ">1", False), (None, ">0", False),
])
def test_criteria(value: object, criterion: object, hit: bool) -> None:
    assert matches(value, criterion) is hit
