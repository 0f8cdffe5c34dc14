"""Formulas and computed cells: one formula into a cell (set_formula), and a computed column, one formula
a row (add_formula_column: Total = Qty * Price).

A formula is written only when every function it calls is allowed (podium.apps.formulas) and every
reference is to what the workbook has (sheet_cells.check_formulas). In a computed column the model
writes the formula once, for the first data row, by cells ('=C2*D2') or by header names ('=[Qty] *
[Price]', or 'Qty' alone when it is a plain word), and the tool copies it down each row as a
spreadsheet program's fill does. The results come back computed (sheet_eval), so the next step has
the numbers without doing arithmetic.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import Field

from podium.apps.base import Change, Effect
from podium.apps.formulas import formula_problem
from podium.apps.sheet_args import Cell, PathArgs
from podium.apps.sheet_cells import (
    _REFERENCE,
    check_formulas,
    coordinate,
    filled,
    parse_cell,
    plain,
    sheet_named,
    split_sheet,
)
from podium.apps.sheet_functions import FormulaError
from podium.apps.sheet_view import MAX_SHOWN, Reader, SheetTable, table_of, totals_row
from podium.apps.tool_effects import declared, effect
from podium.apps.tooling import ToolError, ToolSpec, active_part


class FormulaArgs(PathArgs):
    sheet: str | None = active_part("sheet name; the active sheet when omitted")
    cell: Cell = Field(description="the cell, e.g. 'D7'")
    formula: str = Field(description="e.g. '=SUM(D2:D6)' or '=B2*C2'")


class ColumnArgs(PathArgs):
    sheet: str | None = active_part("sheet with the table; the active sheet when omitted")
    header: str = Field(description="the computed column's header, e.g. 'Total' (a column of that name is filled)")
    formula: str = Field(description="for the first data row, by cells ('=B2*C2') or headers ('=[Qty]*[Price]'); "
                                     "copied down every row")


def specs(app: Any) -> list[ToolSpec]:
    """The tools, over the spreadsheets application's load-change-save path (`app._edit`)."""
    return [
        ToolSpec("set_formula", "Write a formula into one cell and save; returns its computed value.", FormulaArgs,
                 lambda a: app._edit(a.path, lambda wb: set_formula(wb, a)),
                 effects=declared(lambda a: _cell_effects(app, a)), edits=True),
        ToolSpec("add_formula_column", "Add a column computed by one formula per row (e.g. Total = Qty * Price) "
                 "to a sheet's table and save; returns the values.", ColumnArgs,
                 lambda a: app._edit(a.path, lambda wb: add_formula_column(wb, a)),
                 effects=declared(lambda a: _column_effects(app, a)), edits=True,
                 unapproved="give a header the table does not have yet: the column is added after the others (a "
                            "header it has replaces that column's values)"),
    ]


def _formula_text(formula: str) -> str:
    text = formula.strip()
    return text if text.startswith("=") else f"={text}"


def _checked(workbook: Any, formula: str) -> None:
    problem = formula_problem(formula)
    if problem is not None:
        raise ToolError(problem)
    check_formulas(workbook, [[formula]])


def _target(workbook: Any, args: FormulaArgs) -> tuple[Any, int, int]:
    named, cell = split_sheet(args.cell)
    if named is not None and args.sheet is not None and named != args.sheet:
        raise ToolError(f"cell {args.cell!r} is on sheet {named!r} but sheet is {args.sheet!r}: give one sheet")
    col, row = parse_cell(cell, "cell")
    return sheet_named(workbook, named or args.sheet), col, row


def set_formula(workbook: Any, args: FormulaArgs) -> dict[str, Any]:
    formula = _formula_text(args.formula)
    sheet, col, row = _target(workbook, args)
    _by_headers(workbook, sheet.title, formula)
    _checked(workbook, formula)
    _not_circular(formula, sheet.title, col, row, "write it into a cell it does not refer to")
    done: dict[str, Any] = {"path": args.path, "sheet": sheet.title, "cell": coordinate(col, row), "formula": formula}
    _refuse_errors(workbook, sheet.title, {(row, col): formula})
    cell = sheet.cell(row=row, column=col)
    unchanged = cell.value == formula
    cell.value = formula
    known, value = Reader(workbook).raw(sheet.title, row, col)
    done |= {"value": plain(value)} if known else {"value_known": False}
    if unchanged:
        return {**done, "unchanged": True, "note": "the cell already holds this formula: nothing written"}
    return done


def _by_headers(workbook: Any, title: str, formula: str) -> None:
    """Refuse a one-cell formula that names columns of the sheet's table by their headers, saying how: a cell's
    formula refers to cells, and a column computed on every row is add_formula_column's (which takes headers)."""
    from openpyxl.formula import Tokenizer

    try:
        table = table_of(workbook, title)
        tokens = Tokenizer(formula).items
    except Exception:  # no table with a header, or no formula a spreadsheet reads: the usual checks say why
        return
    headers = {h.casefold(): h for h in table.header if h}
    named = []
    for token in tokens:
        if token.type == "OPERAND" and token.subtype == "RANGE" and not _REFERENCE.fullmatch(token.value):
            name = token.value[1:-1] if token.value.startswith("[") and token.value.endswith("]") else token.value
            if name.casefold() in headers and name not in workbook.defined_names:
                named.append(headers[name.casefold()])
    if named:
        from openpyxl.utils.cell import get_column_letter

        cells = ", ".join(f"{h} is column {get_column_letter(table.column(h))}" for h in dict.fromkeys(named))
        raise ToolError(f"{formula} names columns of the table on {title!r} by their headers ({cells}; data rows "
                        f"{table.header_row + 1}-{table.last_row}): a cell's formula refers to cells (e.g. "
                        f"{by_cells(formula, table, table.header_row + 1)} for row {table.header_row + 1}); for a "
                        "column computed on every row, call add_formula_column with its header and this formula, "
                        "which takes headers", instead=("add_formula_column",))


MAX_SAID = 4  # cells a refused formula's message shows


def _refuse_errors(workbook: Any, title: str, formulas: dict[tuple[int, int], str]) -> None:
    """Raise when every one of these formulas (by (row, column)) would compute an error, naming why with
    the first; the workbook is left as it was. A value the evaluator does not know is no error."""
    sheet = workbook[title]
    absent = [at for at in formulas if at not in sheet._cells]  # made only to be computed: not left behind
    held = {at: sheet.cell(row=at[0], column=at[1]).value for at in formulas}
    try:
        for (row, col), formula in formulas.items():
            sheet.cell(row=row, column=col).value = formula
        reader = Reader(workbook)
        found = [(at, value) for at in formulas if (known := reader.raw(title, *at))[0]
                 and isinstance(value := known[1], FormulaError)]
    finally:
        for (row, col), value in held.items():
            sheet.cell(row=row, column=col).value = value
        for at in absent:
            del sheet._cells[at]
    if found and len(found) == len(formulas):
        (row, col), error = found[0]
        raise ToolError(_erring(formulas[(row, col)], coordinate(col, row), error, Reader(workbook), title,
                                every=len(formulas) > 1))


def _erring(formula: str, cell: str, error: Any, reader: Reader, title: str, every: bool = False) -> str:
    """Why a formula whose value is an error is not written, with what the cells it refers to hold (text where
    a number was meant, an empty cell), so the next formula refers to the right ones. An error is no result a
    person asked for: the cell would show it in place of one."""
    from openpyxl.formula import Tokenizer

    said = []
    for token in Tokenizer(formula).items:
        if token.type == "OPERAND" and token.subtype == "RANGE" and _REFERENCE.fullmatch(token.value) \
                and ":" not in token.value and len(said) < MAX_SAID:
            col, row = parse_cell(token.value.replace("$", ""), "cell")
            said.append(f"{token.value} holds {reader.value(title, row, col)!r}")
    where = f"{formula} gives {error} in {cell}" + (" and in every row under it" if every else "")
    column = "" if every else "; for a column computed on every row of a table, add_formula_column"
    return (f"{where}{': ' + ', '.join(said) if said else ''}. A formula whose value is an error is not written: "
            f"refer to the cells that hold the values to compute (the table's header names its columns){column}")


def _cell_effects(app: Any, args: FormulaArgs) -> list[Effect]:
    workbook = app._peek(args.path)
    sheet, col, row = _target(workbook, args)
    formula = _formula_text(args.formula)
    _checked(workbook, formula)
    _not_circular(formula, sheet.title, col, row, "write it into a cell it does not refer to")
    _refuse_errors(workbook, sheet.title, {(row, col): formula})
    held = sheet.cell(row=row, column=col).value if row <= sheet.max_row and col <= sheet.max_column else None
    if held == formula:
        return []
    return [effect(app.workspace, args.path, Change.EDIT if filled(held) else Change.ADD)]


# -- a computed column ---------------------------------------------------------------------------
def by_cells(formula: str, table: SheetTable, row: int) -> str:
    """The formula with each header name ('[Unit Price]', or a plain word such as Qty) replaced by that
    column's cell on `row`; cell references are left as they are."""
    from openpyxl.formula import Tokenizer

    try:
        tokens = Tokenizer(_bracketed(formula, table.header))
    except Exception as exc:
        raise ToolError(f"{formula!r} is not a formula a spreadsheet can read: {exc}") from exc
    for token in tokens.items:
        if token.type != "OPERAND" or token.subtype != "RANGE":
            continue
        name = token.value[1:-1] if token.value.startswith("[") and token.value.endswith("]") else token.value
        if token.value == name and (_REFERENCE.fullmatch(name) or "!" in name):
            continue  # a cell or a range
        col = table.column(name)
        token.value = coordinate(col, row)
    return tokens.render()


def _bracketed(formula: str, headers: tuple[str, ...]) -> str:
    """The formula with each header of several words written bare ('Unit Price') in brackets ('[Unit Price]'), as
    a person writes it: bare, a spreadsheet reads the space between its words as an operator. Text in quotes is
    left as it is."""
    names = sorted((h for h in headers if len(h.split()) > 1), key=len, reverse=True)
    if not names:
        return formula
    bare = re.compile("|".join(rf"(?<![\[\w]){re.escape(h)}(?![\w\]])" for h in names), re.IGNORECASE)
    parts = formula.split('"')
    return '"'.join(bare.sub(lambda m: f"[{m.group(0)}]", p) if i % 2 == 0 else p for i, p in enumerate(parts))


def _column_plan(workbook: Any, args: ColumnArgs) -> tuple[SheetTable, int, bool, list[int], int | None, str]:
    """The table, the column to fill, whether it is new, the data rows, the totals row, the first row's formula."""
    table = table_of(workbook, args.sheet)
    sheet = workbook[table.title]
    header = args.header.strip()
    if not header:
        raise ToolError("the computed column needs a header")
    existing = [c for c in table.columns if table.header[c - table.first_col].casefold() == header.casefold()]
    col = existing[0] if existing else table.last_col + 1
    closing = totals_row(sheet, table)
    last = closing - 1 if closing else table.last_row
    rows = [r for r in range(table.header_row + 1, last + 1)
            if any(filled(sheet.cell(row=r, column=c).value) for c in table.columns if c != col)]
    if not rows:
        raise ToolError(f"the table of {table.title!r} has a header row ({table.header_row}) and no data rows under it")
    first = by_cells(_formula_text(args.formula), table, rows[0])
    _checked(workbook, first)
    _not_circular(first, table.title, col, rows[0], f"{header!r} is the header of the column it would fill: give "
                                                     "the computed column a header of its own")
    others = _rows_referred(first)
    if others and rows[0] not in others:
        headers = ", ".join(f"[{h}]" for h in table.header if str(h).strip())
        raise ToolError(f"the formula is written for the first data row, {rows[0]}, and copied down: {first} refers "
                        f"to row {', '.join(map(str, sorted(others)))}, not to row {rows[0]}; write it with the cells "
                        f"of row {rows[0]} or by the table's headers ({headers})")
    return table, col, not existing, rows, closing, first


def _not_circular(formula: str, title: str, col: int, row: int, fix: str) -> None:
    """Refuse a formula that refers to the cell it goes into: its value would depend on itself (a circular
    reference, which a spreadsheet program shows as an error in place of a value)."""
    from openpyxl.formula.tokenizer import Token, Tokenizer
    from openpyxl.utils.cell import range_boundaries

    for token in Tokenizer(formula).items:
        if token.type != Token.OPERAND or token.subtype != Token.RANGE:
            continue
        named, _, reference = token.value.rpartition("!")
        if named and named.strip("'") != title:
            continue
        try:
            low_col, low_row, high_col, high_row = range_boundaries(reference.replace("$", ""))
        except (ValueError, TypeError):
            continue  # a defined name
        if low_col is not None and high_col is not None and low_col <= col <= high_col \
                and (low_row is None or high_row is None or low_row <= row <= high_row):
            cell = coordinate(col, row)
            raise ToolError(f"{formula} in {cell} refers to {token.value}, which includes {cell}: its value would "
                            f"depend on itself (a circular reference); {fix}")


def _rows_referred(formula: str) -> set[int]:
    """The rows of a formula's relative cell references (a '$' row is fixed: a rate cell, a constant)."""
    from openpyxl.formula.tokenizer import Token, Tokenizer

    found: set[int] = set()
    for token in Tokenizer(formula).items:
        if token.type == Token.OPERAND and token.subtype == Token.RANGE:
            for part in token.value.rsplit("!", 1)[-1].split(":"):
                if (match := _CELL.fullmatch(part)) is not None and not match.group(1):
                    found.add(int(match.group(2)))
    return found


_CELL = re.compile(r"\$?[A-Za-z]{1,3}(\$?)(\d+)")


def add_formula_column(workbook: Any, args: ColumnArgs) -> dict[str, Any]:
    from openpyxl.formula.translate import Translator
    from openpyxl.utils.cell import get_column_letter

    table, col, new, rows, closing, first = _column_plan(workbook, args)
    sheet = workbook[table.title]
    letter = get_column_letter(col)
    origin = coordinate(col, rows[0])
    wanted = {r: Translator(first, origin=origin).translate_formula(coordinate(col, r)) for r in rows}
    _refuse_errors(workbook, table.title, {(r, col): f for r, f in wanted.items()})
    if closing:
        wanted[closing] = f"=SUM({letter}{rows[0]}:{letter}{rows[-1]})"
    if new:
        head = sheet.cell(row=table.header_row, column=col)
        head.value = args.header.strip()
        head._style = sheet.cell(row=table.header_row, column=table.last_col)._style  # the header's look
    unchanged = not new and all(sheet.cell(row=r, column=col).value == f for r, f in wanted.items())
    for r, formula in wanted.items():
        sheet.cell(row=r, column=col).value = formula
    reader = Reader(workbook)
    values = [reader.value(table.title, r, col) for r in rows]
    done: dict[str, Any] = {"path": args.path, "sheet": table.title, "column": letter, "header": args.header.strip(),
                            "cells": f"{letter}{rows[0]}:{letter}{rows[-1]}", "first_formula": first}
    done["values"] = values[:MAX_SHOWN]
    if len(values) > MAX_SHOWN:
        done["values_total"] = len(values)
    if closing:
        done["total"] = {"cell": coordinate(col, closing), "value": reader.value(table.title, closing, col)}
    if reader.unknown:
        done["note"] = (f"{len(reader.unknown)} value(s) are computed only by a spreadsheet program: their "
                        "formulas are shown")
    if unchanged:
        return {**done, "unchanged": True, "note": "the column already holds these formulas: nothing written"}
    return done


def _column_effects(app: Any, args: ColumnArgs) -> list[Effect]:
    from openpyxl.formula.translate import Translator

    workbook = app._peek(args.path)
    table, col, new, rows, closing, first = _column_plan(workbook, args)
    origin = coordinate(col, rows[0])
    _refuse_errors(workbook, table.title, {(r, col): Translator(first, origin=origin).translate_formula(
        coordinate(col, r)) for r in rows})
    if new:
        return [effect(app.workspace, args.path, Change.ADD)]
    sheet = workbook[table.title]
    held = {r: sheet.cell(row=r, column=col).value for r in (*rows, *([closing] if closing else []))}
    if all(v == Translator(first, origin=origin).translate_formula(coordinate(col, r)) for r, v in held.items()
           if r != closing):
        return []  # the column holds these formulas already
    return [effect(app.workspace, args.path, Change.EDIT if any(filled(v) for v in held.values()) else Change.ADD)]
