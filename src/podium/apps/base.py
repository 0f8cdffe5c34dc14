"""The one small interface every application behind an AppAgent implements.

An application knows nothing of agents: it names itself, lists its tools (JSON-schema parameters),
says which calls are sensitive (they need the person's approval BEFORE they run), runs a call, and
can tell whether it is running and launch itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable


class Change(StrEnum):
    """What a call does to one path of the workspace."""

    CREATE = "create"  # makes a path that does not exist yet
    ADD = "add"  # adds to an existing file and keeps all it holds (rows under a table, a chart, a paragraph)
    EDIT = "edit"  # changes or removes part of what an existing file holds (cells written over, text replaced)
    REPLACE = "replace"  # replaces an existing file's whole content
    DELETE = "delete"  # removes a path and what it holds
    MOVE = "move"  # the path goes away, its content lives on at another path (the source of a move or rename)
    KEEP = "keep"  # the path already holds what the call asks: it stays as it is (the call still does its work)

    @property
    def destructive(self) -> bool:
        """Whether what the path held before may be lost."""
        return self in (Change.EDIT, Change.REPLACE, Change.DELETE)


# A read's content key: what of its file the read did not return (another table or sheet, subfolders, what lay
# past a size limit), in words for the model. A read without it returned the file whole: the host may then
# take it as the read of that file its plan asked for, with no model to choose among the rest.
LEFT_OUT = "left_out"

# A program's observation key: the shown dialog (a modal window, a dialog, an alert, a file chooser) listed
# first, as {"window": title}, with "button": the number of its enabled default button (what Return presses)
# where the toolkit marks one. A FINISH that acted in the program and leaves it open is asked about (the host's
# verifier): a dialog filled in and left open did nothing yet.
OPEN_DIALOG = "open_dialog"

# A program's observation key, for the host and not the model: a digest of the text of each document shown (an
# editable text of many lines), by its control's number. A subtask that writes no file and leaves one of them
# changed holds its work in memory only: the program stops with the run, and the change with it (the verifier).
DOCUMENTS = "documents"

# An action's result key: the exit status of the program when the action closed its last window and the program
# ended (a dialog confirmed: 0; cancelled, or failed: another status). A program that ended with a failure did not
# do what its dialog was for, whatever the agent says (the host's verifier).
ENDED = "ended"

# A change's result key: the headers of the table columns it took, where it takes some or all of a table's
# columns (a chart's series). A subtask whose description names some of them and not the others is asked once
# whether the others belong (the host's verifier); a call of the same tool on the same file and part, made
# with fewer columns, replaces what it made (the application's own doing, not the person's).
TOOK_COLUMNS = "took_columns"

# A read's result keys: the part of its file it read (a sheet) and the file's other parts, which it did not. A
# subtask whose description names one of the others, and that never read it, is asked to (the host's verifier):
# the active sheet read where the person named another hands on the wrong table.
READ_PART = "sheet"
OTHER_PARTS = "other_sheets"

# A result's keys whose number says where something is (a table's header row, a paragraph's index, the control
# acted on, a process's id), not what a file holds: no data a later subtask takes, so never evidence, to the host's
# verifier, that a text a writer wrote came from it (a header on row 1 and a lone "1" written).
PLACES = frozenset({"header_row", "first_row", "row", "column", "index", "paragraph", "control", "pid"})

# A read's result key: the empty cells of a record (a row holding other values) under a named column, each as
# {"cell", "column", "row"} (the row's label). A subtask whose description names such a column and that leaves
# the file it writes as it was has the person asked for those values (the host's verifier): a value nobody gave
# is asked for, never made up, and a FINISH that wrote nothing is not the answer.
EMPTY_CELLS = "empty_cells"


@dataclass(frozen=True, slots=True)
class Effect:
    """One path a call would change, and how. `path` is relative to the workspace root, in POSIX form,
    after links are followed ("." is the root itself); a path outside the workspace is absolute."""

    path: str
    change: Change
    # The lines of text it removes and adds, where the path is a text file and the change is known in
    # full before it runs (a replacement, an overwrite): shown to the person asked to approve it.
    removes: tuple[str, ...] = ()
    adds: tuple[str, ...] = ()
    # Whether it leaves less than half of a text's lines in place (approval.wipes): a rewrite, not an edit
    wipes: bool = False
    # The non-blank lines it removes with nothing in their place (approval.dropped): a deletion within an edit
    drops: tuple[str, ...] = ()
    # Whether it leaves a text that held something holding nothing (blank)
    empties: bool = False
    # The one part of the file (a sheet) the change is confined to; "" the file as a whole, or not known
    part: str = ""
    # The part it adds to the file, new and empty or filled by the call itself (a sheet): the run's own after
    makes: str = ""


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    description: str
    parameters: Mapping[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    read_only: bool = False
    # How to do this tool's work with nothing that needs the person's approval ("give target_sheet ..."),
    # said to an AppAgent whose call of it batch mode refused; "" if there is no such way.
    unapproved: str = ""
    # Whether a call's arguments name what it changes (a file tool), rather than what it runs deciding it (a
    # command, a remote tool): only then can a plan be asked to name the paths it writes.
    names_its_writes: bool = True
    # Whether it only makes a path that is not there yet (a new empty workbook, document or folder): on a
    # path that exists it can only fail, replace it or do nothing.
    new_only: bool = False
    # Whether it computes data from what it reads (totals, statistics, duplicates) rather than reading it as
    # it is: a plan that declares one for a subtask wants its result, not the data it is computed from.
    computes: bool = False
    # Whether it only adds an empty part (a sheet to a file, a folder to the workspace) for other calls to fill:
    # where other calls of a subtask filled it, a part they made serves as well, and a part left empty is
    # filled by another tool, not made again.
    empty_part: bool = False
    # Whether it writes the names of the files a folder holds, not what they hold: the one thing an application
    # that cannot open a file (another application owns its type) can take from it into a text.
    writes_names: bool = False
    # Whether it writes a table's rows in another shape (ordered, filtered, split by a column's values, without
    # duplicates): the tool for what a table typed again as it was does not do.
    reshapes: bool = False
    # Whether it reads how a file is made up (its parts and their sizes), not the data they hold: what it returns
    # is what another read of the file takes its data by, never that data.
    describes: bool = False


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The outcome of one call: `content` is JSON-serialisable; `error` is set when the call failed, and
    `instead` names the tools its error sends the caller to (ToolError.instead)."""

    content: Any = None
    error: str | None = None
    instead: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.error is None


@runtime_checkable
class Application(Protocol):
    """`effects(tool, arguments) -> tuple[Effect, ...] | None` is optional: the paths a valid call would
    change, found before it runs (None: not known, so a changing call is treated as sensitive)."""

    name: str
    description: str

    def tools(self) -> list[Tool]: ...

    def is_sensitive(self, tool: str, arguments: Mapping[str, Any]) -> bool: ...

    async def call(self, tool: str, arguments: Mapping[str, Any]) -> ToolResult: ...

    async def is_running(self) -> bool: ...

    async def launch(self) -> None: ...
