"""A FINISH is checked against what the files show, not against the model's words (OSWorld's lesson).

A subtask declared what it `writes`, which of its application's `tools` it expects to call and what it
`hands_on`. When its AppAgent answers FINISH, the host compares the declarations with the evidence its
calls left: the paths each successful change touched (with content digests measured around the call),
the tools that succeeded, the data read, and what the calls made and left empty (a new sheet, folder or
file holding nothing). What is missing is named; the FINISH is questioned once with
those names, and a FINISH that still lacks any of it ends the subtask FAIL: a run never reports done for a
file it never changed, a declared tool that never succeeded or data it never read.
"""

from __future__ import annotations

import fnmatch
import json
import posixpath
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from podium.apps.base import EMPTY_CELLS, OPEN_DIALOG, PLACES, READ_PART, Change
from podium.apps.hollow import WHOLE
from podium.desktop.blackboard import ArtifactEntry
from podium.desktop.host.artifacts import Artifact, Kind, figures, kind_of, named_rows, names
from podium.desktop.host.capability import covered, is_pattern
from podium.desktop.host.catalog import AppInfo
from podium.desktop.host.decide import scalars
from podium.desktop.host.state import SubtaskRecord
from podium.desktop.wire.messages import ActionResult, summarize
from podium.desktop.wire.schemas import HandsOn, SubtaskSpec, normal_path

_QUOTED = re.compile(r'"([^"]+)"')  # the strings of a call's text, among them the paths it names
_TYPED = re.compile(r"\.[A-Za-z]\w*$")  # a file's name by its type
_WORD = re.compile(r"-?\d+(?:\.\d+)?|\w+")  # a written text's numbers and words, each whole
# a span the person set in quotation marks: a value given to be written as it is (an apostrophe inside a word
# opens none)
_LITERAL = re.compile(r"\"([^\"\n]+)\"|\u201c([^\u201d\n]+)\u201d|\u2018([^\u2019\n]+)\u2019|(?<!\w)'([^'\n]+)'(?!\w)")
_NUMBER = re.compile(r"-?\d+(?:[.,]\d+)*%?")  # a cell that holds a number, however written
_LOOSE = re.compile(r"[\s.,;:!?'\"\u2018\u2019\u201c\u201d]+")


# the metadata of the fields of Missing that are asked about once each (Missing.soft_kinds)
_ASKED_ONCE = "asked_once"
ONCE = {_ASKED_ONCE: True}


@dataclass(frozen=True, slots=True)
class Missing:
    writes: tuple[str, ...] = ()  # declared writes no successful change touched
    tools: tuple[str, ...] = ()  # declared changing tools never called
    hands_on: str = ""  # the declared kind of data, when none was read
    failed: tuple[str, ...] = ()  # declared changing tools called that never succeeded (a plan may be wrong
    # to want one: creating a workbook that exists fails, and the other tools do the work)
    # declared writes whose changes left them as they were (they held it already)
    kept: tuple[str, ...] = field(default=(), metadata=ONCE)
    errors: tuple[str, ...] = ()  # the last error of each tool in `failed`, which says what to change
    # what its calls made and left holding nothing: a folder, a sheet, a file
    hollow: tuple[str, ...] = field(default=(), metadata=ONCE)
    # declared tools that compute from what they read (Tool.computes), never called by a subtask that hands
    # data on: the plan chose them to derive what it hands on (a column's total, not the table it is in)
    uncomputed: tuple[str, ...] = field(default=(), metadata=ONCE)
    # declared reads (not among its writes) that no change of a subtask that hands nothing on took anything from:
    # not named by one, none of their own values in one (a merge that took one of its two sources)
    unused: tuple[str, ...] = field(default=(), metadata=ONCE)
    # whether its changes took another declared source by its path: then one left out is work not done (a
    # merge of one of two workbooks), not a question about a source a computation may have used unseen; so too
    # a table handed on from other files, none of it taken, where its changes took one of its own sources
    untaken: bool = False
    # declared writes its calls changed, then tried to change again and failed: the last word on them is a
    # failure, so what they hold is not what the agent last meant them to (with that call's error)
    unsettled: tuple[str, ...] = ()
    unsettled_errors: tuple[str, ...] = ()
    # the subtasks that handed it data none of which went into its changes (it hands nothing on): as an unused
    # read, a question about it, asked once
    unhanded: tuple[str, ...] = field(default=(), metadata=ONCE)
    # that data is its only declared source and is held to (rule unhanded-is-failure): then what it wrote came
    # from nowhere, and `unhanded` is work not done, not a question
    handed_only: bool = False
    # the files the subtasks it depends on read for it, of which its changes took nothing while they took from
    # another of them (a copy of one of three documents): as an unused read, a question asked once
    left: tuple[str, ...] = field(default=(), metadata=ONCE)
    # its program's dialog still open after its calls acted in the program (a form filled in, an item chosen,
    # and neither confirmed): a question asked once, a FINISH again leaves it open
    dialog: str = field(default="", metadata=ONCE)
    # computing tools of a writer (declared or not) that ran only after its last change, none of their numbers in
    # any of its changes: computed and not written (a total worked out after the file got its label without it)
    late: tuple[str, ...] = field(default=(), metadata=ONCE)
    # declared computing tools of a writer that ran before one of its changes, nothing they computed in any of its
    # changes: asked once (a figure may only have guided the change: a threshold, a choice); late ones are in `late`
    unwritten: tuple[str, ...] = field(default=(), metadata=ONCE)
    # the tools of its application that write a table into a part they name (`into`: that argument), for a
    # part it made empty: the ones that fill it
    fillers: tuple[tuple[str, str], ...] = ()
    # (declared write, the file the table came from) where a change put into it a table the subtask had, row for
    # row in the same order: read from another part of the same file, or from (or handed on from) another file of
    # its type. A copy of what is there, no new data; a question asked once (a copy may be what was asked)
    copied: tuple[tuple[str, str], ...] = field(default=(), metadata=ONCE)
    # the exit status of its program where an action of its closed it and the program ended with a failure (a
    # dialog cancelled): what the program was for was not done, and the program is gone
    ended: int = 0
    # (tool, the columns its change took, those of them its subtask's description names) where it names some
    # and not the others: a question asked once (a chart of two of a table's four columns drawn over all four)
    columns: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = field(default=(), metadata=ONCE)
    # the parts of a file it reads from (not one it writes) that its description names and none of its reads
    # took, where they took others ("'Archive' of crm.xlsx", the active sheet read): what it has is not what
    # it was to read
    unread: tuple[str, ...] = ()
    # its changes hold nothing of any data it had (every declared source unused, every subtask that handed it
    # data unused) and no tool of its computed anything: what it wrote came from none of it, work not done (rule
    # nothing-taken-is-failure)
    nothing: bool = False
    # paths in a text its changes wrote that name an entry of a folder a listing it had shows, and that the
    # listing does not hold (nor its own changes made): names made up, not read; a question asked once
    unlisted: tuple[str, ...] = field(default=(), metadata=ONCE)
    # its application's tools that compute from what a file holds (Tool.computes), none of them called: named
    # where its changes hold nothing of its data (a figure of a table is theirs to work out, not the model's)
    computers: tuple[str, ...] = ()
    # (the value the request gives in quotation marks, what a change wrote instead): the same words but for
    # case, spacing or punctuation (a full stop left out), where no change wrote it as given; asked once
    misquoted: tuple[tuple[str, str], ...] = field(default=(), metadata=ONCE)
    # the part of a file it reads from that the person's request names, where its description names none of
    # that file's parts and its reads took others (a planner's paraphrase dropped "the Archive sheet"): asked once
    overlooked: tuple[str, ...] = field(default=(), metadata=ONCE)
    # its application's tools that write a table's rows in another shape (Tool.reshapes): named with a copy, as
    # the way to order, filter or split what was typed again as it was
    reshapers: tuple[str, ...] = ()
    # rows its changes wrote into a declared write that are rows of a table it had save one text cell, which
    # holds another row's value of that column (an order given another order's region): rows mixed up, data
    # made up from what it was given, never what a request asks (a value the request names aside)
    mixed: tuple[str, ...] = ()
    # (declared write, the table handed on, the references to parts of it the subtask was offered) where a change
    # wrote into a text every row of that table, each on a line of its own: the whole table where its parts were
    # at hand (the rows that repeat, a column's cells); a question asked once (an export of it may be the work)
    whole: tuple[tuple[str, str, tuple[str, ...]], ...] = field(default=(), metadata=ONCE)
    # held to the parts it was offered (rule whole-is-failure): then `whole` is work not done once asked about
    held_whole: bool = False
    # (declared write, the references to the rows the text names) where a change wrote into it rows of a table it
    # had with a value the request or its description names under a column of a few repeating values and rows
    # with the column's other values: the whole table where the person named the part it is about (the Sales
    # department's people asked for, every department's written). Rows cannot be taken back out of it by
    # writing the right ones: work not done
    unselected: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # `dialog` where it declares no file it writes, so what it does is what that dialog confirms (rule
    # dialog-is-failure): work not done once asked about
    held_dialog: bool = False
    # (declared write, tool) where a copy of a table was typed into a part of it over what that reshaping tool had
    # made of the part (rows sorted, then typed again unsorted): done work undone, not a question
    undone: tuple[tuple[str, str], ...] = ()
    # the numbers of its program's documents whose text its actions changed, where it declares no file it
    # writes, changed none, and no later subtask of that program saves one: a change the program holds only
    # until it stops with the run; a question asked once
    unsaved: tuple[str, ...] = field(default=(), metadata=ONCE)
    # held to it (rule unsaved-is-failure): then `unsaved` is work not done once asked about
    held_unsaved: bool = False

    @property
    def computing(self) -> tuple[str, ...]:
        """The computing tools named as the way to its work: where its changes took nothing of a source (not
        for a merge that took one of its sources: what it lacks is the other, not a figure)."""
        if (self.nothing or self.unused or self.unhanded) and not (self.untaken or self.left):
            return self.computers
        return ()

    def __bool__(self) -> bool:
        return bool(self.writes or self.tools or self.hands_on or self.failed or self.kept or self.hollow
                    or self.uncomputed or self.unused or self.unsettled or self.unhanded or self.left or self.dialog
                    or self.late or self.unwritten or self.copied or self.ended or self.columns or self.unread
                    or self.unlisted or self.misquoted or self.overlooked or self.mixed or self.whole
                    or self.unselected or self.unsaved or self.undone)

    @property
    def asked_once(self) -> bool:
        """What is asked about once even after another question: writes that left their files as they were,
        parts the calls made and left empty, computing tools not called."""
        return bool(self.soft_kinds)

    @property
    def soft_kinds(self) -> tuple[str, ...]:
        """The kinds of what is asked once that it holds: each is asked about once, a kind found after another
        was asked about (a copy written after an empty sheet was questioned) as well."""
        return tuple(f.name for f in fields(self) if f.metadata.get(_ASKED_ONCE) and getattr(self, f.name))

    @property
    def only_soft(self) -> bool:
        """All that is missing is content in what the calls made empty, or a declared computing tool: asked once,
        an agent that answers FINISH again made it empty on purpose (an empty sheet or folder asked for), or
        had what it hands on without that tool, and is believed. A write that left its file as it was is not
        believed so: a small model writes the cells already there and calls the work done."""
        return bool(self.hollow or self.uncomputed or self.unused or self.unhanded or self.left
                    or self.dialog or self.unwritten or self.copied or self.columns or self.unlisted
                    or self.misquoted or self.overlooked or self.whole or self.unsaved) and not (
            self.writes or self.tools or self.hands_on or self.failed or self.kept or self.untaken
            or self.unsettled or self.late or self.ended or self.unread or (self.unhanded and self.handed_only)
            or self.nothing or self.mixed or (self.whole and self.held_whole) or (self.dialog and self.held_dialog)
            or self.unselected or (self.unsaved and self.held_unsaved) or self.undone)

    def text(self) -> str:
        parts = []
        if self.writes:
            parts.append(f"{', '.join(self.writes)} {'is' if len(self.writes) == 1 else 'are'} unchanged")
        if self.kept:
            parts.append(f"{', '.join(self.kept)} {'is' if len(self.kept) == 1 else 'are'} as before: your calls "
                         "wrote what was there already")
        if self.hollow:
            parts.append(f"{', '.join(self.hollow)} {'holds' if len(self.hollow) == 1 else 'hold'} nothing: your calls "
                         "made it and left it empty")
        if self.copied:
            what = "; ".join(f"what your calls wrote into {target} is " + (
                "a table it holds already" if source == target else f"the table of {source}")
                for target, source in self.copied)
            tools = (*self.reshapers, *self.computers)
            how = f" with {', '.join(tools)}" if tools else ""
            parts.append(f"{what}, row for row in the same order: a copy, nothing new. If your subtask orders, "
                         f"filters, splits or computes those rows, do that{how}")
        for target, tool in self.undone:
            parts.append(f"what your calls wrote into {target} last is the table as it was, typed again over what "
                         f"{tool} had made of it: that undid its work; call {tool} again")
        if self.mixed:
            tools = (*self.reshapers, *self.computers)
            how = f", or with {', '.join(tools)}" if tools else ""
            more = f" (and {len(self.mixed) - 1} more)" if len(self.mixed) > 1 else ""
            parts.append(f"the rows your calls wrote mix up the rows of the table you had: {self.mixed[0]}{more}. "
                         f"Write each row as your data holds it, by reference where you can{how}")
        for target, refs in self.unselected:
            parts.append(f"what your calls wrote into {target} holds rows of a table whose values the request names "
                         f"together with the rows of its other values: the rows it names are "
                         f"{', '.join(json.dumps({'ref': r}) for r in refs)}, and only those belong there")
        for target, table, offered in self.whole:
            refs = ", ".join(json.dumps({"ref": name}) for name in offered)
            parts.append(f"what you wrote into {target} is every row of the table {json.dumps({'ref': table})}: if "
                         f"your subtask writes only some of its rows or cells, write that part by reference ({refs}), "
                         "else answer FINISH again")
        if self.fillers and (self.copied or self.mixed or any(h.startswith("sheet ") for h in self.hollow)):
            parts.append(", ".join(f"{tool} (by {into})" for tool, into in self.fillers)
                         + " write a table into a sheet they name")
        if self.tools or self.uncomputed:
            both = (*self.tools, *self.uncomputed)
            parts.append(f"{', '.join(both)} {'was' if len(both) == 1 else 'were'} not called")
        if self.failed:
            last = f" (last error: {'; '.join(self.errors)})" if self.errors else ""
            parts.append(f"{', '.join(self.failed)} failed and never succeeded{last}")
        if self.hands_on:
            parts.append(f"no {self.hands_on} was read to hand on")
        if self.unread:
            parts.append(f"your subtask names {', '.join(self.unread)}, which your reads left out while they read "
                         "other parts of the file: read it by its name")
        if self.overlooked:
            parts.append(f"the request names {', '.join(self.overlooked)}, which your reads left out while they "
                         "read other parts of the file: read it by its name if your subtask reads it (answer FINISH "
                         "again if not)")
        if self.unused:
            parts.append(f"nothing of {', '.join(self.unused)}, which your subtask reads, went into your changes")
        if self.unhanded:
            which = ", ".join(f"subtask {d}" for d in self.unhanded)
            parts.append(f"nothing of the data {which} handed you went into your changes")
        if self.nothing:
            parts.append("what you wrote holds nothing of any data you had: write what your subtask asks for, "
                         "made of that data")
        if self.computing:
            one = len(self.computing) == 1
            parts.append(f"{', '.join(self.computing)} {'computes' if one else 'compute'} figures of a file's data "
                         f"(a sum, a count): write what {'it returns' if one else 'they return'}, by reference")
        if self.left:
            parts.append(f"nothing of {', '.join(self.left)}, which the subtasks yours depends on read for it, went "
                         "into your changes, while another of those files did")
        if self.dialog and self.held_dialog:
            parts.append(f"{self.dialog}: your subtask writes no file, so what it does is what that dialog "
                         "confirms: confirm it with its button")
        elif self.dialog:
            parts.append(f"{self.dialog}: confirm it with its button if your subtask is to, or answer FINISH "
                         "again to leave it open")
        if self.unsaved:
            these = "s " + ", ".join(self.unsaved) if len(self.unsaved) > 1 else " " + self.unsaved[0]
            parts.append(f"your actions changed the text of control{these}, and no file your subtask writes keeps "
                         "it: the change is lost when the run ends. Undo it if your subtask is not to change that "
                         "text, and do its work with the program's menus, buttons or dialogs"
                         + ("" if self.held_unsaved else " (answer FINISH again if that text is the work)"))
        if self.late:
            it = "it" if len(self.late) == 1 else "they"
            parts.append(f"{', '.join(self.late)} ran after your last change, and nothing {it} computed is in your "
                         f"changes: write what {it} computed, by reference")
        if self.unwritten:
            it = "it" if len(self.unwritten) == 1 else "they"
            parts.append(f"nothing {', '.join(self.unwritten)} computed is in your changes: if your subtask writes "
                         f"what {it} computed, write that by reference (a FINISH again says it does not)")
        for tool, took, named in self.columns:
            parts.append(f"{tool} took the columns {', '.join(took)}, of which your subtask names only "
                         f"{', '.join(named)}: if only those belong, call {tool} again with just them (its columns), "
                         "else answer FINISH again")
        if self.unlisted:
            parts.append(f"what you wrote names {', '.join(self.unlisted[:5])}, which the folder's listing you had "
                         "does not hold: write only paths the listing shows (answer FINISH again if those are "
                         "meant to be new)")
        for given, wrote in self.misquoted:
            parts.append(f"you wrote {wrote!r} where the request gives {given!r}: write it exactly as given, "
                         "in place of what you wrote (answer FINISH again if it is meant to differ)")
        if self.ended:
            parts.append(f"your program ended with exit status {self.ended} after your last action: it was "
                         "cancelled or it failed, so what it was for is not done")
        if self.unsettled:
            parts.append(f"your last call to change {', '.join(self.unsettled)} failed "
                         f"({'; '.join(self.unsettled_errors)}), so it does not hold what that call was to write")
        return "; ".join(parts)

    @property
    def work(self) -> Missing:
        """What is missing of the declared work itself (an unused read is a question about it, not a lack,
        unless its changes took the other sources by their paths)."""
        if self.untaken or self.nothing:
            return self
        return replace(self, unused=(), unhanded=self.unhanded if self.handed_only else (), left=(),
                       dialog=self.dialog if self.held_dialog else "",
                       unsaved=self.unsaved if self.held_unsaved else (),
                       copied=(), columns=(), unwritten=(), unlisted=(), misquoted=(), overlooked=(),
                       whole=self.whole if self.held_whole else ())


def missing(record: SubtaskRecord, app: AppInfo | None, given: Iterable[ArtifactEntry] = (),
            hold_handed: bool = False, handed_from: Iterable[str] = (), hold_data: bool = False,
            request: str = "", hold_whole: bool = False, hold_dialog: bool = False, saved_later: bool = False,
            hold_unsaved: bool = False) -> Missing:
    """What the subtask's declarations ask for that its evidence does not show. `given`: the data handed to
    it by the subtasks it depends on that hand data on (flow.handed_data); `handed_from`: the files those
    subtasks declare they read; `request`: the person's words, whose quoted values a change is to write as
    given. `hold_handed`: a writer that declares no source of its own is held to that data
    (rule unhanded-is-failure); `hold_data`: a writer whose changes hold nothing of any data it had, computing
    nothing, lacks its work (rule nothing-taken-is-failure); `hold_whole`: a writer of a text holding every row of a
    table handed to it, where parts of it were offered, is held to those parts (rule whole-is-failure);
    `hold_dialog`: one that declares no file it writes is held to confirming the dialog it acted in (rule
    dialog-is-failure); `saved_later`: a later subtask of its program writes a file (what it leaves in a document
    may be saved then); `hold_unsaved`: one that declares no file it writes is held to leaving its program's
    documents as it found them (rule unsaved-is-failure)."""
    spec = record.spec
    # a path whose content was measured the same before and after is no evidence of a write
    touched = tuple(path for path, e in record.changed.items() if e.before is None or e.before != e.after)
    same = tuple(path for path in record.changed if path not in touched)

    def among(w: str, paths: tuple[str, ...]) -> bool:
        return any(covered(path, (w,)) or covered(w, (path,)) for path in paths)

    # a subtask that acted in its program (a tool that names no file it writes) changed what that program holds
    acted = app is not None and any((info := app.tool(t)) is not None and info.acts for t in record.called)
    # '.', the workspace as a whole, names no file to look at: a program's actions are its evidence (what a form
    # confirmed writes is the program's doing, after it closes)
    writes = tuple(w for w in spec.writes if not among(w, touched) and not among(w, same)
                   and not (w == "." and acted))
    kept = tuple(w for w in spec.writes if not among(w, touched) and among(w, same))
    changing = set(app.changing) if app is not None else set()
    unmet = [t for t in spec.tools if t in changing and t not in record.called]
    # a copy or a move into them made the folders a tool was to make; another of its tools created the
    # application's files it was to make (a workbook written into being)
    if _filled(spec.writes, touched) or _created(spec.writes, record, app):
        unmet = [t for t in unmet if app is None or (info := app.tool(t)) is None or not info.new_only]
    # a folder made empty holds what later calls put into it (a copy into it names the file, not the folder)
    filled = {path for path in record.changed if any(
        p.startswith(f"{path.rstrip('/')}/") and e.after is not None for p, e in record.changed.items())}
    hollow = tuple(path if part == WHOLE else f"sheet {part!r} of {path}" for path, e in record.changed.items()
                   for part in e.hollow if part not in e.hollow_before and not (part == WHOLE and path in filled))
    # an empty part (a sheet) for other calls to fill: where they changed every declared write and left nothing
    # they made empty, a part they made serves (a sort into a new sheet)
    if spec.writes and not writes and not kept and not hollow:
        unmet = [t for t in unmet if app is None or (info := app.tool(t)) is None or not info.empty_part]
    # a text written whole into every file it declares holds whatever edit of a part of it another declared
    # tool was to make (a line replaced, one appended); what the rewrite lost was the person's to approve
    if spec.writes and not writes and not kept and all(_rewritten(w, record) for w in spec.writes):
        unmet = [t for t in unmet if app is None or (info := app.tool(t)) is None or not info.edits]
    tools = tuple(t for t in unmet if t not in record.tried and t not in record.declined)  # refused: done without
    # a failed call that a later change did another way (record.corrected) is work done
    instead = {json.loads(key)[0] for key in record.corrected}
    failed = tuple(t for t in unmet if t in record.tried and t not in instead)
    hands = ""
    if spec.hands_on is not HandsOn.NOTHING:
        wanted = Kind(spec.hands_on.value)
        if not any(a.kind in _SERVES[wanted] for a in record.artifacts.values()) and not _given(record.result, wanted) \
                and not _read_whole(record):
            hands = spec.hands_on.value
    errors = tuple(error for tool in failed for error in _last_error(record, tool))
    uncomputed = ()
    # what it hands on or writes was to be computed by a tool its plan declared (a total)
    if app is not None and (spec.hands_on is not HandsOn.NOTHING or spec.writes):
        uncomputed = tuple(t for t in spec.tools if (info := app.tool(t)) is not None and info.computes
                       and t not in record.called and t not in record.tried)
    unused, untaken = _unused(record)
    given = tuple(e for e in given if not _placed(e))
    unhanded = _unhanded(record, given)
    # a part only added empty (a sheet) holds no content to settle: a failure to add it again (it is there: the
    # sort into it made it) leaves nothing another call did not fill
    adding = {t.name for t in app.tools if t.empty_part} if app is not None else set()
    unsettled, unsettled_errors = _unsettled(record, changing - adding, (*writes, *kept))
    # a value the person set in quotation marks, written as given, came from their words: the data handed to it
    # was not its only source (a plan that chained two independent edits through a read)
    quoted = bool(set(literals(request)) & set(_written(record)))
    own = own_sources(spec)
    handed_only = hold_handed and not own and not quoted
    # a table handed on from other files than its own sources, none of it in its changes, while they took one of
    # its own sources: a merge of that file and the handed table that left the table out, work not done
    handed_from = tuple(handed_from)
    untaken = untaken or (bool(unhanded) and not quoted and len(own) > len(unused) and bool(handed_from)
                          and not set(handed_from) & set(own)
                          and any(e.kind == Kind.TABLE.value and e.name.split(".", 1)[0] in unhanded for e in given))
    handers = {e.name.split(".", 1)[0] for e in given} & set(spec.depends_on)
    computed = app is not None and any((info := app.tool(t)) is not None and info.computes for t in record.called)
    nothing = hold_data and bool(unused or unhanded) and set(unused) == set(own) \
        and set(unhanded) == handers and not computed and not quoted
    left = _left(record, given, handed_from)
    # one source of several typed again as it was is a merge's first part where another source is left out: that
    # one is what is asked about
    copied = tuple(c for c in _copied(record, given) if c[0] == c[1] or not (unused or left))
    files = any(w != "." for w in spec.writes)
    # a document's text changed where no file it writes or changed keeps it: held by the program until it stops
    unsaved = () if files or touched or saved_later or not acted else tuple(
        number for number, (first, now) in record.documents.items() if first != now)
    return Missing(writes, tools, hands, failed, kept, errors, hollow, uncomputed, unused, untaken, unsettled,
                   unsettled_errors, unhanded, handed_only, left,
                   record.dialog if acted else "", *_unwritten(record, app),
                   tuple((t.name, into) for t in app.tools if (into := t.into_part)) if app is not None else (),
                   copied, (record.ended or 0) if acted else 0, _columns(record), _unread(record),
                   nothing, _unlisted(record, given),
                   tuple(t.name for t in app.tools if t.computes and t.name not in record.called
                         and t.name not in record.tried) if app is not None else (),
                   _misquoted(record, literals(request)), _overlooked(record, request),
                   tuple(t.name for t in app.tools if t.reshapes) if app is not None else (),
                   mixed=_mixed(record, given, request), whole=(whole := _whole(record, given)),
                   held_whole=hold_whole and bool(whole),
                   held_dialog=hold_dialog and acted and not files,
                   unselected=_unselected(record, given, f"{request}\n{spec.description}"),
                   unsaved=unsaved, held_unsaved=hold_unsaved and bool(unsaved), undone=_undone(record, app, given))


def unfilled(record: SubtaskRecord, paths: Iterable[str]) -> tuple[str, ...]:
    """Questions for the person about the empty cells its reads found in records of the files `paths` (declared
    writes its calls left as they were), under a column its description names: the values it was to fill in, that
    nothing it did gives."""
    paths = tuple(paths)
    asked = []
    for name, artifact in record.artifacts.items():
        base, _, key = name.rpartition(".")
        rows = artifact.value
        if key != EMPTY_CELLS or base not in record.names or not isinstance(rows, list) or not rows:
            continue
        path = json.loads(record.names[base])[1].get("path")
        if not isinstance(path, str) or not covered(normal_path(path), paths):
            continue
        header = list(rows[0])
        for row in rows[1:]:
            cell = dict(zip(header, row, strict=False))
            column, label = str(cell.get("column") or ""), str(cell.get("row") or "")
            if names(record.spec.description, column):
                of = f" of {label}" if label else ""
                asked.append(f"What is the {column}{of} ({cell.get('cell')}) in {path}? It is empty there.")
    return tuple(dict.fromkeys(asked))


_LISTED = "path"  # the column of a folder listing's entries (a list of records, each with its path)
_INNER_PATH = re.compile(r"[\w.\-]+(?:/[\w.\-]+)+")  # a path with a folder, inside a text


def _listed(reads: Iterable[Any]) -> set[str]:
    """The paths of the entries of the folder listings among `reads`: tables with a column of paths."""
    paths: set[str] = set()
    for read in reads:
        rows = read.value
        if getattr(read.kind, "value", read.kind) != Kind.TABLE.value or not rows or not isinstance(
                rows[0], list | tuple) or _LISTED not in rows[0]:
            continue
        at = list(rows[0]).index(_LISTED)
        paths.update(str(row[at]).casefold() for row in rows[1:] if isinstance(row, list | tuple) and len(row) > at)
    return paths


def _unlisted(record: SubtaskRecord, given: Iterable[ArtifactEntry]) -> tuple[str, ...]:
    """Paths inside a text its successful changes wrote (not a path given as an argument on its own, a copy's
    destination) in a folder a listing it had shows, that the listing does not hold and its changes did not make."""
    listed = _listed((*record.artifacts.values(), *given))
    folders = {posixpath.dirname(path) for path in listed} - {""}
    if not folders:
        return ()
    made = {path.casefold() for path in record.changed}
    texts = [str(v).casefold() for key in record.done for v in scalars(json.loads(key)[1])
             if isinstance(v, str) and any(c.isspace() for c in v.strip())]
    return tuple(dict.fromkeys(path for text in texts for path in _INNER_PATH.findall(text)
                               if posixpath.dirname(path) in folders and path not in listed and path not in made))


def _unread(record: SubtaskRecord) -> tuple[str, ...]:
    """The parts of a file it reads from that its description names by their whole name in their own letter
    case ("the Archive sheet", not "the archive"), where its reads of that file took others and never them."""
    return tuple(f"{part!r} of {path}" for path, (read, others) in record.parts.items()
                 if not covered(path, record.spec.writes)
                 for part in others if part not in read and names(record.spec.description, part, exact_case=True))


def _overlooked(record: SubtaskRecord, request: str) -> tuple[str, ...]:
    """The one part of a file it reads from (not one it writes) that the request names by its whole name in its
    own letter case, where its description names none of that file's parts and its reads took others."""
    found = []
    for path, (read, others) in record.parts.items():
        every = (*read, *others)
        if covered(path, record.spec.writes) or any(names(record.spec.description, p, exact_case=True) for p in every):
            continue
        named = [p for p in every if names(request, p, exact_case=True)]
        if len(named) == 1 and named[0] in others and named[0] not in read:
            found.append(f"{named[0]!r} of {path}")
    return tuple(found)


def _columns(record: SubtaskRecord) -> tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...]:
    """The changes that took columns of a table its description names some of, and others besides."""
    found = []
    for key, (took, given) in record.took.items():
        # what the call was given as a text of its own (a chart's title) names no column, unless it is a column's
        # name: then it is that column's, as the description's words are
        said = record.spec.description
        headers = {c.casefold().strip() for c in took}
        for text in sorted(given, key=len, reverse=True):
            if text.strip() and text.casefold().strip() not in headers:
                said = re.sub(re.escape(text), " ", said, flags=re.IGNORECASE)
        named = tuple(c for c in took if names(said, c))
        if named and len(named) < len(took):
            found.append((key.partition(" ")[0], took, named))
    return tuple(found)


def _rewritten(declared: str, record: SubtaskRecord) -> bool:
    """Whether a text file this declared write covers had its whole content replaced (its lines diffed)."""
    return any(covered(path, (declared,)) and e.change == Change.REPLACE and (e.removes or e.adds)
               for path, e in record.changed.items())


def _copied(record: SubtaskRecord, given: Iterable[ArtifactEntry] = ()) -> tuple[tuple[str, str], ...]:
    """(declared write, source file) of each copy `_copy_calls` finds."""
    return tuple(dict.fromkeys((target, source) for target, source, _, _ in _copy_calls(record, given)))


def _copy_calls(record: SubtaskRecord, given: Iterable[ArtifactEntry] = ()
                ) -> list[tuple[str, str, str, frozenset[str]]]:
    """(declared write, source file, the change's call key, the parts it names) where a successful change put a
    table (an argument of rows) into the write, row for row and in the same order as a table the subtask had (the
    rows from its header on, title rows above it aside): one a read of the same file gave from a part the change
    does not name (it names a sheet, or its result says it wrote into one: the active sheet, where it named none),
    or one read from, or handed on from, another file of the same type (a workbook's rows typed again into a new
    workbook), unless a later change of the same part reworked it (`_superseded`). A table moved to a file of
    another type (a document's table into a workbook, a CSV's rows into a sheet) is new there: a conversion. So
    are the lines of a text file, written line for line into another (what was to be filtered, typed whole)."""
    spec = record.spec
    if not spec.writes or not record.done:
        return []
    reads = [(_read_names(record, a), rows) for a in record.artifacts.values()
             if a.kind is Kind.TABLE and (rows := _rows(a.value))]
    reads += [(set(_QUOTED.findall(e.source)), rows) for e in given
              if e.kind == Kind.TABLE.value and (rows := _rows(e.value))]
    reads += [(_read_names(record, a), rows) for a in record.artifacts.values()
              if a.kind is Kind.TEXT and len(rows := _lines(a.value)) >= 2]
    reads += [(set(_QUOTED.findall(e.source)), rows) for e in given
              if e.kind == Kind.TEXT.value and len(rows := _lines(e.value)) >= 2]
    found: list[tuple[str, str, str, frozenset[str]]] = []
    for key in record.done:
        args = json.loads(key)[1]
        named = {v for v in args.values() if isinstance(v, str)} if isinstance(args, dict) else set()
        # a sheet just added is the active one, so rows written naming no sheet land there, as the result says
        named |= {part.value for base, made in record.names.items() if made == key
                  and (part := record.artifacts.get(f"{base}.{READ_PART}")) is not None and isinstance(part.value, str)}
        targets = [w for w in spec.writes if any(covered(n, (w,)) for n in named)]
        tables = [rows for v in (args.values() if isinstance(args, dict) else ())
                  if len(rows := _rows(v)) >= 2 or len(rows := _lines(v)) >= 2]

        def same(read: list[tuple[str, ...]], tables: list[list[tuple[str, ...]]] = tables) -> bool:
            return any(read[i:] == rows for i in range(len(read) - 1) for rows in tables)

        for target in targets:
            # the part it writes into (a sheet), which a read of the same file must not name: a read of that part
            # is of what the change wrote; a change that names none wrote where a read naming none reads
            parts = {n for n in named if not covered(n, (target,))}
            if _superseded(record, key, target, parts):
                continue
            kind = posixpath.splitext(target)[1].lower()
            for quoted, read in reads:
                files = [q for q in quoted if _TYPED.search(q)]
                if any(covered(q, (target,)) for q in quoted):
                    if parts and not parts & quoted and same(read):
                        found.append((target, target, key, frozenset(parts)))
                elif kind and (source := next((q for q in files if posixpath.splitext(q)[1].lower() == kind),
                                              None)) and same(read):
                    found.append((target, normal_path(source), key, frozenset(parts)))
    return found


def _undone(record: SubtaskRecord, app: AppInfo | None, given: Iterable[ArtifactEntry]) -> tuple[tuple[str, str], ...]:
    """(declared write, tool) where a copy was typed into a part of it after that tool, which writes a table in
    another shape (Tool.reshapes), had changed the same part: the table as it was, over what the tool made of it.
    That undoes done work, whatever the request asked."""
    if app is None:
        return ()
    found = []
    for target, _, key, parts in _copy_calls(record, given):
        before, _ = _around(record, key, target)
        for earlier in before:
            tool = json.loads(earlier)[0]
            if (info := app.tool(tool)) is not None and info.reshapes and parts & _parts_named(earlier, target):
                found.append((target, tool))
    return tuple(dict.fromkeys(found))


def _superseded(record: SubtaskRecord, key: str, target: str, parts: set[str]) -> bool:
    """Whether another successful change of `target`, after the last one `key` made, names one of the same parts:
    what `key` wrote there is not the last word on it (rows written, then sorted in place)."""
    return any(parts & _parts_named(later, target) for later in _around(record, key, target)[1])


def _around(record: SubtaskRecord, key: str, target: str) -> tuple[list[str], list[str]]:
    """The other changes of `target` (call keys, in order) before the last one `key` made, and after it."""
    order = [made for path, made, _ in record.states if covered(path, (target,))]
    if key not in order:
        return [], []
    last = len(order) - 1 - order[::-1].index(key)
    return [k for k in order[:last] if k != key], [k for k in order[last + 1:] if k != key]


def _parts_named(key: str, target: str) -> set[str]:
    """The texts a call names besides `target` and its paths: the parts of it (a sheet) it acts on, among them."""
    args = json.loads(key)[1]
    return {v for v in args.values() if isinstance(v, str) and not covered(v, (target,))} \
        if isinstance(args, dict) else set()


def literals(text: str) -> tuple[str, ...]:
    """The values a text sets in quotation marks (double, curly, or single ones not inside a word), in order."""
    return tuple(dict.fromkeys(v.strip() for m in _LITERAL.finditer(text) for v in m.groups() if v and v.strip()))


def _loose(text: str) -> str:
    return _LOOSE.sub(" ", text).strip().casefold()


def _written(record: SubtaskRecord) -> list[str]:
    """The texts its successful changes wrote (each whole argument and each of its lines), paths aside."""
    return [line.strip() for key in record.done for v in scalars(json.loads(key)[1])
            if isinstance(v, str) and not covered(v, record.spec.writes) for line in (v, *v.splitlines())]


def _misquoted(record: SubtaskRecord, given: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """(value given, value written) for each quoted value of the request that no successful change wrote as it
    is (a whole argument, or a line of one), while one wrote the same words but for case, spacing or
    punctuation. A path is no value written: a file's name follows its own rules."""
    if not given or not record.done:
        return ()
    written = _written(record)
    found = []
    for value in given:
        if value in written or not _loose(value):
            continue
        near = next((w for w in written if w != value and _loose(w) == _loose(value)), None)
        if near is not None:
            found.append((value, near))
    return tuple(found)


def _mixed(record: SubtaskRecord, given: Iterable[ArtifactEntry], request: str) -> tuple[str, ...]:
    """Each row a successful change wrote into a declared write that is no row of a table the subtask had (read,
    or handed on) but one of them with a single text cell changed to a value another of its rows holds in that
    column, at least two other cells filled and alike: a row of the data with another row's value in it. A value
    the request names may be the change it asks for, and is left alone. A read of the part a change wrote (a
    look at what it wrote) is no source of that change's rows."""
    spec = record.spec
    tables = [(_read_names(record, a), a.source, rows) for a in record.artifacts.values()
              if a.kind is Kind.TABLE and len(rows := _raw_rows(a.value)) >= 3]
    tables += [(set(_QUOTED.findall(e.source)), e.source, rows) for e in given
               if e.kind == Kind.TABLE.value and len(rows := _raw_rows(e.value)) >= 3]
    if not spec.writes or not record.done or not tables:
        return ()
    found: list[str] = []
    for key in record.done:
        args = json.loads(key)[1]
        named = {v for v in args.values() if isinstance(v, str)} if isinstance(args, dict) else set()
        targets = [w for w in spec.writes if any(covered(n, (w,)) for n in named)]
        if not targets:
            continue
        parts = {n for n in named if not any(covered(n, (w,)) for w in targets)}
        sources = [(source, rows) for quoted, source, rows in tables
                   if not (parts & quoted and any(covered(q, (w,)) for q in quoted for w in targets))]
        for value in args.values():
            for written in _raw_rows(value):
                if any(written[0] == row for _, rows in sources for row, _ in rows):
                    continue
                for source, rows in sources:
                    if said := _swapped(written, rows, request):
                        file = next((q for q in _QUOTED.findall(source) if _TYPED.search(q)), "your data")
                        found.append(said.replace("{source}", file))
                        break
    return tuple(dict.fromkeys(found))


def _whole(record: SubtaskRecord, given: tuple[ArtifactEntry, ...]) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """(declared write, table, parts) for each table handed to the subtask (of three rows or more under its
    header) that a successful change wrote whole into a text naming a declared write, each row on a line of its
    own (`_holds_row`: its cells on that line, in any order or format), where parts of it were offered by
    reference (the rows that repeat, a column's cells: the tables and lists named after it)."""
    if not record.spec.writes or not record.done:
        return ()
    found: list[tuple[str, str, tuple[str, ...]]] = []
    for entry in given:
        rows = _rows(entry.value) if entry.kind == Kind.TABLE.value else []
        # its tables of rows first (the rows that repeat), then its columns' cells
        parts = tuple(e.name for kind in (Kind.TABLE.value, Kind.NAMES.value) for e in given
                      if e.name.startswith(f"{entry.name}.") and e.kind == kind)
        if len(rows) < 4 or not parts:
            continue
        for key in record.done:
            texts = [v for v in scalars(json.loads(key)[1]) if isinstance(v, str)]
            targets = [w for w in record.spec.writes if any(covered(t, (w,)) for t in texts)]
            # one text holds the rows, each on a line (cells written one by one into a sheet are no such text)
            if targets and any(all(any(_holds_row(line, row) for line in lines) for row in rows[1:])
                               for t in texts if len(lines := t.casefold().splitlines()) >= len(rows) - 1):
                found.append((targets[0], entry.name, parts))
                break
    return tuple(found)


def _unselected(record: SubtaskRecord, given: Iterable[ArtifactEntry], text: str
                ) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(declared write, the references to the rows `text` names) where a successful change wrote into a declared
    write, as an argument of rows, rows of a table the subtask had (read, or handed on) both with a value `text`
    names under a column of a few repeating values and with the column's other values (artifacts.named_rows)."""
    spec = record.spec
    if not spec.writes or not record.done:
        return ()
    picks = named_rows(tables_of(record, given), text)
    found: list[tuple[str, tuple[str, ...]]] = []
    for key in record.done if picks else ():
        args = json.loads(key)[1]
        if not isinstance(args, dict):
            continue
        named = {v for v in args.values() if isinstance(v, str)}
        found += [(target, pick.refs) for target in spec.writes if any(covered(n, (target,)) for n in named)
                  for pick in picks if any(pick.mixed_in(v) for v in args.values())]
    return tuple(dict.fromkeys(found))


def tables_of(record: SubtaskRecord, given: Iterable[ArtifactEntry]) -> list[Artifact]:
    """The tables a subtask has: those it read and those handed to it."""
    return [*(a for a in record.artifacts.values() if a.kind is Kind.TABLE),
            *(Artifact(e.name, Kind.TABLE, e.value, e.source) for e in given if e.kind == Kind.TABLE.value)]


def _holds_row(line: str, row: tuple[str, ...]) -> bool:
    """Whether a line of text holds a row: its first cell and more than half of its cells (a row typed again with
    a cell dropped at its end is still that row; one cell of a row of two or three is a list of that column)."""
    cells = [c for c in row if c]
    return bool(cells) and cells[0] in line and sum(c in line for c in cells) > len(cells) // 2


def _raw_rows(value: Any) -> list[tuple[tuple[str, ...], list[Any] | tuple[Any, ...]]]:
    """A table's rows, each as normalized text (as `_rows`) beside the row as it was; [] for what is none."""
    if not isinstance(value, list) or not all(isinstance(r, list | tuple) for r in value):
        return []
    return [(cells[0], row) for row in value if (cells := _rows([row]))]


def _swapped(written: tuple[tuple[str, ...], Any], rows: list[tuple[tuple[str, ...], Any]], request: str) -> str:
    """How a written row differs from the one row of a table it is but for a text cell that holds another row's
    value of that column ("" where no row is so near), with `{source}` to fill in; the row is none of the table's."""
    row, raw = written
    header = next((original for r, original in rows if len(r) == len(row)), ())
    for other, original in rows:
        apart = [i for i, (a, b) in enumerate(zip(row, other, strict=False)) if a != b]
        if len(other) != len(row) or len(apart) != 1:
            continue
        at = apart[0]
        new, old = row[at], other[at]
        if not new or not old or _NUMBER.fullmatch(new) or _NUMBER.fullmatch(old) \
                or sum(1 for i, cell in enumerate(row) if i != at and cell) < 2:
            continue
        value = str(raw[at]).strip()
        if names(request, value) or not any(len(r) > at and r[at] == new for r, _ in rows if r is not other):
            continue
        column = str(header[at]) if at < len(header) and header[at] not in (None, "") else f"column {at + 1}"
        rest = ", ".join(str(c) for i, c in enumerate(raw) if i != at and c not in (None, ""))
        return f"({rest}) has {column} {value!r} there, {str(original[at]).strip()!r} in {{source}}"
    return ""


def _read_names(record: SubtaskRecord, table: Artifact) -> set[str]:
    """What the read that gave a table names: the strings of its call (the file, a sheet asked for) and those its
    result says beside the table (the sheet it read, where the call named none: the active one)."""
    base = next((b for b in record.names if table.name == b or table.name.startswith(f"{b}.")), table.name)
    said = {a.value for a in record.artifacts.values() if a.name.startswith(f"{base}.") and isinstance(a.value, str)}
    return {*_QUOTED.findall(table.source), *said}


def _lines(value: Any) -> list[tuple[str, ...]]:
    """A text's non-blank lines as rows of one cell; [] for what is not a text."""
    return [(line.strip(),) for line in value.splitlines() if line.strip()] if isinstance(value, str) else []


def _rows(value: Any) -> list[tuple[str, ...]]:
    """A table's rows as normalized text (numbers as written in a cell, blank rows and trailing blanks left
    out); [] for what is not a list of rows."""
    if not isinstance(value, list) or not value or not all(isinstance(r, list | tuple) for r in value):
        return []
    rows = []
    for row in value:
        cells = [_cell_text(c) for c in row]
        while cells and not cells[-1]:
            cells.pop()
        if cells:
            rows.append(tuple(cells))
    return rows


def _cell_text(cell: Any) -> str:
    if cell is None or isinstance(cell, bool):
        return "" if cell is None else str(cell).casefold()
    if isinstance(cell, float) and cell.is_integer():
        return str(int(cell))
    return str(cell).strip().casefold()


def _read_whole(record: SubtaskRecord) -> bool:
    """Whether a successful read named each file the subtask declares it reads and one of them gave text: what
    those files hold is what there is to hand on. A table declared where a file holds lines of text (a
    configuration file) is the plan's guess at a kind, not data the agent left unread."""
    files = [r for r in record.spec.reads if posixpath.splitext(r)[1] and not is_pattern(r)]
    named = {p for a in record.artifacts.values() for p in _QUOTED.findall(a.source)}
    return bool(files) and all(any(covered(p, (r,)) for p in named) for r in files) and any(
        a.kind is Kind.TEXT and any(covered(p, tuple(files)) for p in _QUOTED.findall(a.source))
        for a in record.artifacts.values())


def _unwritten(record: SubtaskRecord, app: AppInfo | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The computing tools of a writer that hands nothing on, none of whose computed values (not those a result
    repeats of its call's arguments) is in any of its changes: those whose calls all ran after its last change
    (record.read holds what ran since: computed and never written, `late`), and the other declared ones."""
    spec = record.spec
    if app is None or not spec.writes or spec.hands_on is not HandsOn.NOTHING or not record.done:
        return (), ()
    written = "\n".join(str(v).casefold() for key in record.done for v in scalars(json.loads(key)[1]))
    words = set(_WORD.findall(written))
    late: list[str] = []
    unwritten: list[str] = []
    # a computing tool its plan did not declare counts once it ran after the last change: the agent chose to
    # compute what its file was still to hold (the label written first, the total worked out after). Where no
    # change took data (a listing, a sort or a copy made by its tool), no figure was left for the model to type:
    # what it computed after them is asked about once, as a declared one is.
    typed = any((info := app.tool(json.loads(key)[0])) is not None and any(info.takes(k) for k in Kind)
                for key in record.done)
    for tool in dict.fromkeys((*spec.tools, *record.called)):
        info = app.tool(tool)
        calls = {key for key in record.names.values() if json.loads(key)[0] == tool}
        if info is None or not info.computes or not calls:
            continue
        bases = [base for base, key in record.names.items() if key in calls]
        computed = [a for a in record.artifacts.values() if any(a.name == b or a.name.startswith(f"{b}.")
                                                                 for b in bases)]
        values = {text for a in computed for text in _values(a.value) - _values(_QUOTED.findall(a.source))}
        # a number computed is found however short (a count of 3), as a whole word
        numbers = {_number_text(v) for a in computed for v in scalars(a.value)} - {""}
        if values and not any(v in written for v in values) and not numbers & words:
            if calls <= set(record.read) and typed:
                late.append(tool)
            elif tool in spec.tools or calls <= set(record.read):
                unwritten.append(tool)
    return tuple(late), tuple(unwritten)


def open_dialog(seen: Iterable[ActionResult]) -> str:
    """What an observation says of the program's dialog in front (apps.base.OPEN_DIALOG)."""
    for result in seen:
        dialog = result.content.get(OPEN_DIALOG) if result.ok and isinstance(result.content, dict) else None
        if isinstance(dialog, dict):
            button, buttons = dialog.get("button"), dialog.get("buttons")
            said = [f"{number} {str(name)!r}" for number, name in buttons.items()] if isinstance(buttons, dict) else []
            return (f"its dialog {str(dialog.get('window', ''))!r} is still open"
                    + (f" (its buttons: {', '.join(said)})" if said else "")
                    + (f" (its default button is {button})" if isinstance(button, int) else ""))
    return ""


def documents(known: Mapping[str, tuple[str, str]], seen: Iterable[ActionResult]
              ) -> dict[str, tuple[str, str]]:
    """The documents an observation shows (ActionResult.documents): (the digest of each when first seen, its
    digest now); one no longer shown is gone (its window closed). A failed observation tells nothing."""
    looks = [result for result in seen if result.ok]
    if not looks:
        return dict(known)
    now = {number: digest for result in looks for number, digest in result.documents.items()}
    return {number: (known[number][0] if number in known else digest, digest) for number, digest in now.items()}


def _left(record: SubtaskRecord, given: tuple[ArtifactEntry, ...], sources: tuple[str, ...]) -> tuple[str, ...]:
    """Of the files its givers read for a writer that hands nothing on, those none of its changes took anything
    from (no change names the path, none holds a value only that file's data has), where they took from
    another: one file of several handled, the others forgotten."""
    sources = tuple(p for p in dict.fromkeys(sources) if p != "." and not covered(p, record.spec.writes))
    if len(sources) < 2 or not record.spec.writes or record.spec.hands_on is not HandsOn.NOTHING or not record.done:
        return ()
    left = tuple(p for p in sources if not _took(record, p, given))
    return left if len(left) < len(sources) else ()


def _took(record: SubtaskRecord, path: str, read: Iterable[Any]) -> bool:
    """Whether a subtask's successful changes took anything from a file: one names its path, or holds a value
    that only that file's data (among `read`: artifacts, each with the call that read it) has. Values shared
    with another file (a common header) prove nothing; what a file the subtask writes was read holding is no
    other file: it holds what the changes took. A file its changes moved away took itself: its content lives
    on at the other path (a rename by an expression, which names no file); so did a change whose result lists it
    among the names it took (a listing written by a pattern, subfolders and all, which names no file either)."""
    if any(_names(json.loads(key)[1], path) for key in record.done):
        return True
    if any(e.change == Change.MOVE.value and covered(p, (path,)) for p, e in record.changed.items()):
        return True
    read = list(read)
    made = {name for name, key in record.names.items() if key in record.done}
    if any(a.name.rpartition(".")[0] in made and getattr(a.kind, "value", a.kind) == Kind.NAMES.value
           and isinstance(a.value, list) and normal_path(path) in {normal_path(str(v)) for v in a.value}
           for a in read):
        return True
    read = [a for a in read if not _placed(a)]
    texts = _without(_wrote(record), (p for a in read for p in _QUOTED.findall(a.source)))
    own: set[str] = set()
    others: set[str] = set()
    numbers: set[str] = set()  # a number a computation returned is found however short, as a whole word
    for a in read:
        paths = _QUOTED.findall(a.source)
        values = _data(a, texts) - _values(paths)  # what a result repeats of its call's arguments is no data
        if any(covered(p, (path,)) for p in paths):
            own.update(values | _derived(a))
            if getattr(a.kind, "value", a.kind) == Kind.NUMBER.value:
                numbers.add(_number_text(a.value))
        elif not any(covered(p, record.spec.writes) for p in paths):
            others.update(values)
    return any(v in texts for v in own - others) or bool((numbers - {""}) & set(_WORD.findall(texts)))


def _placed(artifact: Any) -> bool:
    """Whether an artifact is a place its call reported (apps.base.PLACES: a header's row number), not data."""
    return str(artifact.name).rpartition(".")[2] in PLACES


def _names(arguments: Any, path: str) -> bool:
    """Whether a call's arguments name a file: its path, a pattern its path matches (a move of '*.txt'), or
    its folder and a pattern its name matches (a folder and a glob, as a list of its matching names takes them)."""
    given = [v for v in scalars(arguments) if isinstance(v, str)]
    if any(covered(v, (path,)) or (is_pattern(v) and covered(path, (v,))) for v in given):
        return True
    folder, name = posixpath.split(normal_path(path))
    return bool(folder) and folder in {normal_path(v) for v in given} and any(
        is_pattern(v) and fnmatch.fnmatchcase(name, v) for v in given)


def _unhanded(record: SubtaskRecord, given: Iterable[ArtifactEntry]) -> tuple[str, ...]:
    """The subtasks that handed data to a writer that hands nothing on, none of whose values (as _unused looks
    for them; not those a result repeats of its call's arguments, as the path it read) any of its successful
    changes holds."""
    if not record.spec.writes or record.spec.hands_on is not HandsOn.NOTHING or not record.done:
        return ()
    handed = [e for e in given if e.name.split(".", 1)[0] in record.spec.depends_on]
    # a path the data was read from, named in a text written, holds none of the data (a sheet's name is often
    # part of its workbook's)
    texts = _without(_wrote(record), (p for e in handed for p in _QUOTED.findall(e.source)))
    words = set(_WORD.findall(texts))
    by_subtask: dict[str, set[str]] = {}
    taken: set[str] = set()
    counted: set[str] = set()  # the subtasks that handed a number on
    # what the writer read of its own files besides (not those it writes)
    own = [(paths, _data(a, texts)) for a in record.artifacts.values() if not _placed(a)
           and (paths := _paths(a.source)) and not any(covered(p, record.spec.writes) for p in paths)]
    for entry in handed:
        dep = entry.name.split(".", 1)[0]
        # what a result repeats of its call's arguments (the path it read, the sheet) is no data of the file; a
        # value another file the writer read holds too (a header both share) proves nothing
        origin = _paths(entry.source)
        shared = set().union(*(values for paths, values in own if not paths & origin))
        values = _data(entry, texts) - _values(_QUOTED.findall(entry.source)) - shared
        by_subtask.setdefault(dep, set()).update(values)
        # a number handed on is its data however short (a count of 6), found as a whole word
        if entry.kind == Kind.NUMBER.value and (number := _number_text(entry.value)):
            counted.add(dep)
            if number in words:
                taken.add(dep)
    return tuple(dep for dep, values in by_subtask.items()
                 if (values or dep in counted) and dep not in taken and not any(v in texts for v in values))


def _paths(call: str) -> set[str]:
    """The paths a call's text names (a string is a path by its folder or its type's letters)."""
    return {normal_path(p) for p in _QUOTED.findall(call) if "/" in p or _TYPED.search(p)}


def _without(text: str, paths: Iterable[str]) -> str:
    """The text with each of these paths it names blanked out (a string is a path by its folder or its type's
    letters: '33.25' is a number)."""
    for path in sorted({p.casefold() for p in paths if "/" in p or _TYPED.search(p)}, key=len, reverse=True):
        text = text.replace(path, " ")
    return text


def _derived(read: Any) -> set[str]:
    """The figures of a table read (each number column's sum, mean, least and largest value): what a change
    that computed from the table holds of it."""
    if getattr(read.kind, "value", read.kind) != Kind.TABLE.value:
        return set()
    return _values([f.value for f in figures(Artifact(read.name, Kind.TABLE, read.value)) if f.kind is Kind.NUMBER])


def _number_text(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return ""
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _wrote(record: SubtaskRecord) -> str:
    """What its successful changes were given, as text to look for a read's values in; not the paths they
    write, whose names hold no data taken ('customer' is in archived_customers.txt whatever is written)."""
    return "\n".join(str(v).casefold() for key in record.done for v in scalars(json.loads(key)[1])
                     if not (isinstance(v, str) and covered(v, record.spec.writes)))


def _unsettled(record: SubtaskRecord, changing: set[str], untouched: tuple[str, ...]
               ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The declared writes its changes touched that a changing call named after its last successful change,
    and failed on (record.failed holds only those), with each one's last error. A failed call the same as one
    that succeeded before asked for work that is done (a totals row added twice in one answer), and so did one
    that a later call of its tool on the same path did instead (record.corrected): no doubt. Nor does a call of a
    tool its plan did not declare once every declared changing tool succeeded: the declared work is done, and
    the failed call was something else (another subtask's work tried in this file)."""
    spec = record.spec
    declared = [t for t in spec.tools if t in changing]
    done = bool(declared) and all(t in record.called for t in declared)
    found: dict[str, str] = {}
    for key, error in record.failed:
        tool, args = json.loads(key)
        if tool not in changing or key in record.done or key in record.corrected or (done and tool not in declared):
            continue
        named = [v for v in scalars(args) if isinstance(v, str)]
        for w in spec.writes:
            if w not in untouched and any(covered(n, (w,)) for n in named):
                found[w] = f"{tool}: {summarize(error, 300)}"
    return tuple(found), tuple(dict.fromkeys(found.values()))


def _unused(record: SubtaskRecord) -> tuple[tuple[str, ...], bool]:
    """The declared reads of a writer that hands nothing on from which none of its successful changes took
    anything: no change names the path, and none holds a value that only that file's data (as read by the
    subtask or its observation) has. Values shared with another file (a common header) prove nothing. With
    them, whether its changes named another of its sources by path, or a pattern an unused one's name fits."""
    spec = record.spec
    if not spec.writes or spec.hands_on is not HandsOn.NOTHING or not record.done:
        return (), False
    sources = own_sources(spec)
    if not sources:
        return (), False
    named = [v for key in record.done for v in scalars(json.loads(key)[1]) if isinstance(v, str)]
    unused = tuple(r for r in sources if not _took(record, r, record.artifacts.values()))
    # a change that took another source by its path, or that named a pattern an unused source's name fits (a
    # list of '*.xlsx' written from the top folder only), left that one out: work not done
    return unused, bool(unused) and (any(covered(n, (r,)) for r in sources for n in named) or any(
        is_pattern(n) and fnmatch.fnmatchcase(posixpath.basename(r.rstrip("/")), n) for r in unused for n in named))


def own_sources(spec: SubtaskSpec) -> list[str]:
    """Its declared reads that are not among its writes: what it takes data from besides what it was handed."""
    return [r for r in spec.reads if not covered(r, spec.writes) and not any(covered(w, (r,)) for w in spec.writes)]


def _data(read: Any, texts: str) -> set[str]:
    """A read's values (`_values`) as data a written text may hold. A table's header names its columns: a
    label written beside a figure ("Total hours:") repeats one of them without taking any of the table's data,
    so its header counts only where the text holds all of it (the column names written out)."""
    values = _values(read.value)
    rows = read.value if getattr(read.kind, "value", read.kind) == Kind.TABLE.value else None
    if not isinstance(rows, list) or len(rows) < 2 or not isinstance(rows[0], list | tuple):
        return values
    header = _values(rows[0])
    if all(h in texts for h in header):
        return values
    return values - (header - _values(rows[1:]))


def _values(value: Any) -> set[str]:
    """A read's values as text to look for (two characters at least: a lone digit or letter proves nothing); a
    listed path is looked for by its name too, as a list of names writes it."""
    out = set()
    for v in scalars(value):
        text = (str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)).strip().casefold()
        out.update(t for t in {text, posixpath.basename(text.rstrip("/"))} if len(t) >= 2)
    return out


def _filled(writes: tuple[str, ...], touched: tuple[str, ...]) -> bool:
    """Whether the writes name folders and a change landed inside each of them."""
    folders = [w.rstrip("/") for w in writes if not posixpath.splitext(w)[1] and not is_pattern(w)]
    return bool(folders) and all(
        any(p.startswith(f"{folder}/") for p in touched) for folder in folders)


def _created(writes: tuple[str, ...], record: SubtaskRecord, app: AppInfo | None) -> bool:
    """Whether the writes are files of the application's own types and its calls created every one (measured
    absent before its first change, present after): what a tool that only makes new files would have made is
    there, of the type it makes. (A path of no type, a folder to make, may have been created as a file: that is
    not taken for it.)"""
    return (app is not None and bool(app.file_types) and bool(writes)
            and all(app.opens(w) and posixpath.splitext(w)[1]
                    and (e := record.changed.get(w)) is not None and e.before is None and e.after is not None
                    for w in writes))


def _last_error(record: SubtaskRecord, tool: str) -> tuple[str, ...]:
    for key, error in reversed(record.failed):
        if json.loads(key)[0] == tool:
            return (f"{tool}: {summarize(error, 300)}",)
    return ()


# The data that serves as each declared kind: a list of names is a table of one column and a table's rows
# are a list (podium.desktop.host.artifacts.convert turns one into the other); any data can be told as text.
_SERVES: dict[Kind, frozenset[Kind]] = {
    Kind.TABLE: frozenset({Kind.TABLE, Kind.NAMES}),
    Kind.NAMES: frozenset({Kind.NAMES, Kind.TABLE}),
    Kind.TEXT: frozenset(Kind),
    Kind.NUMBER: frozenset({Kind.NUMBER}),
}


def _given(result: object, kind: Kind) -> bool:
    """Whether the result itself (a reference resolved) is data of the kind."""
    found = kind_of(result)
    return found is not None and found in _SERVES[kind]
