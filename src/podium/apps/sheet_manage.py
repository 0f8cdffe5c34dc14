"""The sheets of a workbook: rename_sheet, copy_sheet and delete_sheet.

A rename does what a spreadsheet program does: every formula and defined name that refers to the sheet
is rewritten to the new name, and charts follow it (the spreadsheets application's save path grafts
their drawings back under the new name). A copy holds the cells, their looks, merged cells and column
widths (charts and pictures stay on the original: the result says so). A delete is refused while other
sheets' formulas or charts draw from the sheet: they would break; it is an EDIT of the workbook, so it
waits for the person's approval.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from podium.apps.base import Change, Effect
from podium.apps.sheet_args import PathArgs
from podium.apps.sheet_cells import sheet_named, split_sheet
from podium.apps.sheet_view import check_title
from podium.apps.tool_effects import declared, effect
from podium.apps.tooling import ToolError, ToolSpec
from podium.apps.xlsx_package import charts_referring, drawing_summary, quoted_sheet


class RenameArgs(PathArgs):
    sheet: str = Field(description="the sheet's current name")
    new_name: str


class CopyArgs(PathArgs):
    sheet: str = Field(description="the sheet to copy")
    new_name: str = Field(description="the copy's name")
    before: str | None = Field(None, description="put the copy before this sheet; after the original when omitted")


class DeleteArgs(PathArgs):
    sheet: str


def specs(app: Any) -> list[ToolSpec]:
    def edit(change: Any) -> Any:
        return lambda a: app._edit(a.path, lambda wb: change(wb, a))

    return [
        ToolSpec("rename_sheet", "Rename a sheet (formulas and charts that use it follow) and save.", RenameArgs,
                 edit(rename_sheet), effects=declared(lambda a: _rename_effects(app, a)), edits=True),
        ToolSpec("copy_sheet", "Copy a sheet (values, formulas, formatting) under a new name and save.", CopyArgs,
                 lambda a: _copy(app, a), effects=declared(lambda a: _copy_effects(app, a)), edits=True),
        ToolSpec("delete_sheet", "Delete a sheet and save.", DeleteArgs,
                 lambda a: app._edit(a.path, lambda wb: delete_sheet(wb, a, app._existing(a.path).read_bytes())),
                 effects=declared(lambda a: _delete_effects(app, a)), edits=True),
    ]


def _free_name(workbook: Any, name: str, but: str | None = None) -> str:
    title = check_title(name)
    clash = next((t for t in workbook.sheetnames if t.casefold() == title.casefold() and t != but), None)
    if clash is not None:
        raise ToolError(f"the workbook already has a sheet named {clash!r}; its sheets: {workbook.sheetnames}")
    return title


# -- rename ------------------------------------------------------------------------------------
def renamed_formula(formula: str, old: str, new: str) -> str:
    """A formula with every reference to sheet `old` naming `new` instead (text inside quotes untouched)."""
    from openpyxl.formula import Tokenizer

    try:
        tokens = Tokenizer(formula)
    except Exception:
        return formula  # not a formula a spreadsheet reads: left as it is
    changed = False
    for token in tokens.items:
        if token.type == "OPERAND" and token.subtype == "RANGE" and "!" in token.value:
            sheet, area = split_sheet(token.value)
            if sheet == old:
                token.value, changed = f"{quoted_sheet(new)}!{area}", True
    return tokens.render() if changed else formula


def rename_sheet(workbook: Any, args: RenameArgs) -> dict[str, Any]:
    sheet = sheet_named(workbook, args.sheet)
    old = sheet.title
    new = _free_name(workbook, args.new_name, but=old)
    done = {"path": args.path, "old_name": old, "sheet": new, "sheets": workbook.sheetnames}
    if new == old:
        return {**done, "unchanged": True, "note": f"the sheet is named {old!r} already"}
    updated = 0
    for other in workbook.worksheets:
        for row in _cells(other):
            for cell in row:
                if isinstance(cell.value, str) and cell.value.startswith("=") and old in cell.value:
                    value = renamed_formula(cell.value, old, new)
                    updated += value != cell.value
                    cell.value = value
    for defined in workbook.defined_names.values():
        if defined.attr_text and old in defined.attr_text:
            defined.attr_text = renamed_formula(f"={defined.attr_text}", old, new)[1:]
    sheet.title = new
    return {**done, "sheets": workbook.sheetnames, "formulas_updated": updated}


def _rename_effects(app: Any, args: RenameArgs) -> list[Effect]:
    workbook = app._peek(args.path)
    old = sheet_named(workbook, args.sheet).title
    if _free_name(workbook, args.new_name, but=old) == old:
        return []
    return [effect(app.workspace, args.path, Change.EDIT)]


# -- copy --------------------------------------------------------------------------------------
def copy_sheet(workbook: Any, args: CopyArgs) -> dict[str, Any]:
    source = sheet_named(workbook, args.sheet)
    if not hasattr(source, "iter_rows"):
        raise ToolError(f"{source.title!r} is a chart sheet: only worksheets are copied")
    existing = next((t for t in workbook.sheetnames if t.casefold() == check_title(args.new_name).casefold()), None)
    done = {"path": args.path, "sheet": source.title, "copy": check_title(args.new_name)}
    if existing is not None and _same_cells(source, workbook[existing]) and existing != source.title:
        return {**done, "copy": existing, "unchanged": True, "note": f"sheet {existing!r} is this copy already"}
    title = _free_name(workbook, args.new_name)
    before = sheet_named(workbook, args.before) if args.before else None
    copied = workbook.copy_worksheet(source)
    copied.title = title
    position = workbook.sheetnames.index(before.title) if before else workbook.sheetnames.index(source.title) + 1
    workbook.move_sheet(copied, offset=position - workbook.sheetnames.index(title))
    return {**done, "sheets": workbook.sheetnames}


def _copy_effects(app: Any, args: CopyArgs) -> list[Effect]:
    workbook = app._peek(args.path)
    source = sheet_named(workbook, args.sheet)
    existing = next((t for t in workbook.sheetnames if t.casefold() == check_title(args.new_name).casefold()), None)
    if existing is not None and existing != source.title and _same_cells(source, workbook[existing]):
        return []
    _free_name(workbook, args.new_name)
    if args.before:
        sheet_named(workbook, args.before)
    return [effect(app.workspace, args.path, Change.ADD)]


def _cells(sheet: Any) -> Any:
    """The sheet's cells, row by row, within its used area (iter_rows from A1 would add the cells above and
    left of it to a sheet that starts further in: a check must leave the workbook as it is)."""
    return sheet.iter_rows(min_row=sheet.min_row, max_row=sheet.max_row, min_col=sheet.min_column,
                           max_col=sheet.max_column)


def _same_cells(one: Any, other: Any) -> bool:
    if one.dimensions != other.dimensions:
        return False
    return [[c.value for c in row] for row in _cells(one)] == [[c.value for c in row] for row in _cells(other)]


def _copy(app: Any, args: CopyArgs) -> dict[str, Any]:
    result = app._edit(args.path, lambda wb: copy_sheet(wb, args))
    drawn = drawing_summary(app._existing(args.path).read_bytes()).get(args.sheet, {})
    if not result.get("unchanged") and any(drawn.values()):
        result["note"] = (f"the charts, pictures and shapes of {args.sheet!r} stay on it: a copy holds the cells "
                          "(add_chart draws a chart on the copy)")
    return result


# -- delete ------------------------------------------------------------------------------------
def _users(workbook: Any, title: str, data: bytes) -> list[str]:
    """Where other sheets use `title`: cells whose formulas refer to it, and sheets whose charts draw from it."""
    found = []
    for other in workbook.worksheets:
        if other.title == title:
            continue
        for row in _cells(other):
            for cell in row:
                if isinstance(cell.value, str) and cell.value.startswith("=") and title in cell.value \
                        and renamed_formula(cell.value, title, title + "\x00") != cell.value:
                    found.append(f"{other.title}!{cell.coordinate}")
    return found + [f"a chart on {name!r}" for name in charts_referring(data, title) if name != title]


def delete_sheet(workbook: Any, args: DeleteArgs, data: bytes | None = None) -> dict[str, Any]:
    sheet = sheet_named(workbook, args.sheet)
    if len(workbook.sheetnames) == 1:
        raise ToolError(f"{sheet.title!r} is the workbook's only sheet: a workbook needs one")
    users = _users(workbook, sheet.title, data or b"")
    if users:
        shown = ", ".join(users[:8]) + (", ..." if len(users) > 8 else "")
        raise ToolError(f"sheet {sheet.title!r} is used by {shown}: deleting it would break them; nothing was "
                        "deleted")
    workbook.remove(sheet)
    return {"path": args.path, "deleted": sheet.title, "sheets": workbook.sheetnames}


def _delete_effects(app: Any, args: DeleteArgs) -> list[Effect]:
    workbook = app._peek(args.path)
    sheet = sheet_named(workbook, args.sheet)
    if len(workbook.sheetnames) == 1 or _users(workbook, sheet.title, app._existing(args.path).read_bytes()):
        return []  # refused
    return [effect(app.workspace, args.path, Change.EDIT)]
