"""The tools the applications list: each changing tool of the table and text modules declares its effects,
and every description is short prompt text (a 1.5B model reads all of them at every step)."""

from __future__ import annotations

import json

from llama_cpp.llama_grammar import json_schema_to_gbnf

from podium.apps.documents import DocumentsApplication
from podium.apps.files import FilesApplication
from podium.apps.spreadsheets import SpreadsheetsApplication
from podium.apps.workspace import Workspace
from podium.desktop.wire.grammar import app_output_schema

NEW = {
    "files": {"replace_text", "append_at_end", "read_csv", "column_totals", "write_csv_table"},
    "documents": {"replace_text", "find_text", "insert_paragraph", "delete_paragraph", "document_outline",
                  "add_table_of_contents", "list_tables", "insert_table_row", "delete_table_row", "format_text",
                  "format_paragraphs"},
    "spreadsheets": {"set_formula", "add_formula_column", "column_stats", "group_totals", "filter_rows",
                     "find_duplicates", "remove_duplicate_rows", "split_by_column", "merge_tables", "rename_sheet",
                     "copy_sheet", "delete_sheet", "import_csv", "export_csv", "format_cells", "set_column_width",
                     "merge_cells", "freeze_panes"},
}


def test_new_tools_are_listed_and_declare_their_effects(workspace: Workspace) -> None:
    for app in (FilesApplication(workspace), DocumentsApplication(workspace), SpreadsheetsApplication(workspace)):
        listed = {tool.name for tool in app.tools()}
        assert NEW[app.name] <= listed, NEW[app.name] - listed
        for name in NEW[app.name]:
            spec = app._by_name[name]
            assert spec.read_only or spec.effects is not None, f"{app.name}.{name} declares no effects"


def test_descriptions_are_short(workspace: Workspace) -> None:
    for app in (FilesApplication(workspace), DocumentsApplication(workspace), SpreadsheetsApplication(workspace)):
        for tool in app.tools():
            if tool.name in NEW[app.name]:
                assert len(tool.description) <= 140, f"{app.name}.{tool.name}: {len(tool.description)} characters"
                for name, field in tool.parameters["properties"].items():
                    assert len(field.get("description", "")) <= 130, f"{app.name}.{tool.name}.{name}"


def test_every_application_answer_has_a_grammar(workspace: Workspace) -> None:
    """llama.cpp builds a grammar for the AppAgent's answer over all of an application's tools: a tool schema
    with a reference it cannot resolve would leave the whole answer unconstrained."""
    for app in (FilesApplication(workspace), DocumentsApplication(workspace), SpreadsheetsApplication(workspace)):
        for tool in app.tools():
            assert "$ref" not in json.dumps(tool.parameters), f"{app.name}.{tool.name}"
        assert "root ::=" in json_schema_to_gbnf(json.dumps(app_output_schema(app.tools(), [("1.t", "table")])))
