"""What the host knows about the applications: names, descriptions, file types, aliases.

Pure metadata taken from the `Application` objects once, so the host strategy can check a plan (an
application inferred from a file type must match the one named) without touching the applications.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from podium.errors import ConfigError

# Used when an application does not declare `file_types` / `aliases` itself.
DEFAULT_FILE_TYPES: Mapping[str, tuple[str, ...]] = {
    "documents": (".docx", ".docm", ".odt", ".rtf"),
    "spreadsheets": (".xlsx", ".xlsm", ".xls", ".ods", ".csv"),
    "presentations": (".pptx", ".odp"),
}
DEFAULT_ALIASES: Mapping[str, tuple[str, ...]] = {
    "documents": ("document", "word", "microsoft word", "writer", "docx"),
    "spreadsheets": ("spreadsheet", "excel", "microsoft excel", "calc", "xlsx", "sheet", "workbook"),
    "presentations": ("presentation", "powerpoint", "impress", "pptx", "slides"),
    "files": ("file", "file manager", "explorer", "filesystem"),
    "shell": ("terminal", "command line", "bash", "console"),
}
_FILE = re.compile(r"[\w\-./\\]*\w\.([A-Za-z][A-Za-z0-9]{1,4})\b")
_EXTENSION = re.compile(r"(?<![\w/\\])\.([A-Za-z][A-Za-z0-9]{1,4})\b")  # ".txt files"
# Words of tool names that say nothing about which tool a text asks for: verbs most tools share, and
# the objects every tool of an application works on ("in the workbook budget.xlsx, add a chart").
_PLAIN_TOOL_WORDS = frozenset({"add", "create", "make", "write", "set", "read", "list", "get", "update", "append",
                               "new", "file", "document", "workbook", "pattern", "name"})
# A clause that starts with one of these reads: "Read the table of report.docx" asks for no add_table.
_READING = frozenset({"read", "extract", "get", "find", "list", "look", "open", "check", "count", "compute",
                      "calculate", "sum", "identify", "determine", "collect", "gather", "view", "see", "locate",
                      "search", "take", "fetch", "note", "inspect", "review"})
# A named thing the text only locates ("of the Schedule sheet", "in sheet Q2", "the Budget table", "the
# first sheet"): its noun asks for no tool (add_sheet) there.
_LOCATORS = re.compile(r"\bthe\s+(?:[A-Z0-9][\w\-]*\s+)+[a-z]+\b|\b(?:of|in|on|from)\s+(?:the\s+)?sheet\s+\S+"
                       r"|\bthe\s+(?:first|second|third|last|active|current|same|existing|only)\s+sheet\b"
                       r"|\b(?:in|of|from)\s+(?:this|the|that)\s+folder\b|\b(?:its|their)\s+subfolders\b")
# What a table's row is called in a request: "add the item Travel with the amount 300" is a row.
_ROW_WORDS = {"item": "row", "entry": "row", "record": "row"}
_CLAUSES = re.compile(r"[;,:]\s|\.\s|\.$|\band\b|\bthen\b")
# Verbs that ask for a change wherever they stand in a text ("List the files and write their names").
_CHANGING = frozenset({"write", "copy", "move", "rename", "delete", "remove", "create", "make", "add", "insert",
                       "put", "save", "set", "update", "append", "fill", "sort", "replace", "change", "edit",
                       "draw", "plot", "build", "generate", "store", "record", "enter", "type", "paste", "fix"})


@dataclass(frozen=True, slots=True)
class AppInfo:
    name: str
    description: str = ""
    file_types: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()  # tool names, for the planner's prompt
    changing: tuple[str, ...] = ()  # the tools that change something (not read-only)
    unapproved: tuple[tuple[str, str], ...] = ()  # (tool, how to do its work without approval): Tool.unapproved

    @classmethod
    def of(cls, app: Any) -> AppInfo:
        """From an `Application` (attributes `file_types` / `aliases` are optional)."""
        name = getattr(app, "name", None)
        if not isinstance(name, str) or not name:
            raise ConfigError(f"application {app!r} needs a non-empty string `name`")
        file_types = getattr(app, "file_types", None) or DEFAULT_FILE_TYPES.get(name, ())
        aliases = getattr(app, "aliases", None) or DEFAULT_ALIASES.get(name, ())
        try:
            listed = tuple(app.tools())
        except Exception as exc:  # an application that cannot list its tools is unusable
            raise ConfigError(f"application {name!r}: tools() failed: {exc}") from exc
        return cls(name, getattr(app, "description", "") or "",
                   tuple(t.lower() if t.startswith(".") else f".{t.lower()}" for t in file_types),
                   tuple(a.lower() for a in aliases), tuple(t.name for t in listed),
                   tuple(t.name for t in listed if not getattr(t, "read_only", False)),
                   tuple((t.name, t.unapproved) for t in listed if getattr(t, "unapproved", "")))

    def without_approval(self, tools: Iterable[str]) -> tuple[str, ...]:
        """How to do the work of `tools` with nothing that needs approval, one line per tool that says."""
        ways = dict(self.unapproved)
        return tuple(f"{tool}: {ways[tool]}" for tool in dict.fromkeys(tools) if tool in ways)

    def asked_for(self, text: str) -> tuple[str, ...]:
        """The changing tools a text's changing clauses name by their own words: "create a bar chart of it
        in budget.xlsx" names add_chart, "add a row labelled Total" write_rows (every word of the name but
        the plain ones: set_table_cell needs "table" and "cell"). Told what to do in words
        only, the 1.5B AppAgent wrote the rows again where its part asked for the chart; a tool named
        here can be asked for by name, and required (grammar.app_output_schema's `only`)."""
        wanted: set[str] = set()
        for clause in _CLAUSES.split(without_locators(text).lower()):
            words = re.findall(r"[a-z]+", clause)
            if words and words[0] not in _READING:
                wanted.update(_ROW_WORDS.get(w, singular(w)) for w in words)
                if _FILE.search(clause):  # "into total.txt" is a file by its name
                    wanted.add("file")
        named = {tool: self._words(tool) for tool in self.changing}
        hits = {tool: words for tool, words in named.items() if words and words <= wanted}
        # the most specific: "set the cell of the table" names set_table_cell, not add_table too, and "write
        # the names ... into docx_files.txt" write_file_names, not write_file
        return tuple(tool for tool, words in hits.items() if not any(words < other for other in hits.values()))

    def computing(self, text: str) -> tuple[str, ...]:
        """The tools, reading ones too, that do the arithmetic a text names: "Compute the sum of the values"
        names column_totals, "from the highest score to the lowest" sort_rows. Told to compute a sum, the
        1.5B AppAgent answered FINISH with "the rows that read_sheet shows", and the next subtask guessed."""
        found: list[str] = []
        for work in work_named(text, ARITHMETIC):
            doing = [t for t in self.tools if work in self.arithmetic(t)]
            # a sum to know is a reading tool's (column_totals); a change that sums (add_totals_row) is
            # asked for by its own words (asked_for), or it would be made where only an answer was wanted
            reading = [t for t in doing if t not in self.changing]
            found.extend(reading or doing)
        return tuple(dict.fromkeys(found))

    @staticmethod
    def arithmetic(tool: str) -> tuple[str, ...]:
        """The arithmetic work a tool's name says it does ("column_totals": a sum)."""
        return work_named(tool.replace("_", " "), ARITHMETIC)

    def pending(self, text: str, called: Iterable[str]) -> tuple[str, ...]:
        """The tools `text` names (asked_for, computing) that are still to call: a call of a tool with the
        same words counts for all of them ("add a row" names write_rows and append_rows; either does it)."""
        called = tuple(called)
        done = {self._words(tool) for tool in called}
        computed = {work for tool in called for work in self.arithmetic(tool)}
        asked = self.asked_for(text)
        # a computation is done by any tool that did its arithmetic (add_totals_row summed: column_totals
        # need not be called as well)
        computing = tuple(t for t in self.computing(text) if not set(self.arithmetic(t)) <= computed)
        named = dict.fromkeys((*asked, *computing))
        return tuple(t for t in named if t not in called and self._words(t) not in done)

    def _words(self, tool: str) -> frozenset[str]:
        """The words that name `tool`: those of its name but the plain ones. An application of no file
        type (files) has tools of only plain words: write_file is named by all of them, "write the sum
        into total.txt" (a file name is the word "file"); in a typed application the same rule would
        name create_workbook in every "create a chart in budget.xlsx"."""
        every = [singular(w) for w in tool.lower().split("_")]
        distinct = frozenset(w for w in every if w not in _PLAIN_TOOL_WORDS)
        return distinct if distinct or self.file_types else frozenset(every)


def without_locators(text: str) -> str:
    """`text` without the names it only uses to locate ("the Q2 sheet", "of sheet Costs")."""
    return _LOCATORS.sub(" ", text)


# Work that is never implied: a request that names none of a group's words does not ask for it.
WORK = (
    ("a sum", frozenset({"sum", "total", "subtotal", "add up", "=sum"})),
    ("an average", frozenset({"average", "mean"})),
    ("a chart", frozenset({"chart", "graph", "plot", "diagram"})),
    ("a sort", frozenset({"sort", "rank", "ranking", "highest", "lowest", "largest", "smallest"})),
)


# Work whose numbers a tool computes (column_totals, table_totals, sort_rows): grounding.py.
ARITHMETIC = tuple(group for group in WORK if group[0] != "a chart")


# A tool may do more than a plan's subtask is judged by: a new sheet is asked for only where a text
# says "sheet" for something other than to locate ("the Q2 sheet"); the 1.5B AppAgent told to "add the
# item Travel ... of the Q2 sheet" added a sheet named Travel.
TOOL_WORK = (*WORK, ("a new sheet", frozenset({"sheet", "worksheet"})))


def work_named(text: str, groups: tuple[tuple[str, frozenset[str]], ...] = WORK) -> tuple[str, ...]:
    """The kinds of work of `groups` a text names ("a sum", "a chart", ...)."""
    for name in file_names(text):  # "into total.txt" asks for no sum
        text = text.replace(name, " ")
    words = {singular(w) for w in re.findall(r"=?[a-z]+", text.lower())}
    if re.search(r"\badd(?:s|ed|ing)?\s+(?:\w+\s+)?up\b", text, re.IGNORECASE):
        words.add("add up")
    return tuple(name for name, group in groups if words & group)


def file_names(text: str) -> tuple[str, ...]:
    """The file names a text mentions ("report.docx", "data/q1.xlsx"), in order."""
    return tuple(m.group(0) for m in _FILE.finditer(text))


def types_named(text: str) -> tuple[str, ...]:
    """The file types a text names on their own (".txt files", "every .XLSX file"), as ".txt", in order."""
    return tuple(dict.fromkeys(f".{m.group(1).lower()}" for m in _EXTENSION.finditer(text)))


def asks_for_change(text: str) -> bool:
    """Whether a word of the text asks for a change ("Write the action items ... into actions.txt")."""
    return any(w in _CHANGING for w in re.findall(r"[a-z]+", text.lower()))


def reads_only(text: str) -> bool:
    """Whether a text asks only to look: it starts with a reading verb ("List all files in the folder
    and its subfolders") and no word of it asks for a change."""
    words = re.findall(r"[a-z]+", text.lower())
    return bool(words) and words[0] in _READING and not any(w in _CHANGING for w in words)


_QUESTION = frozenset({"what", "which", "who", "how", "when", "where", "whose"})


def read_sources(text: str) -> tuple[str, ...]:
    """The files a request names only to read from: in each sentence naming it, the sentence starts
    by reading or asking ("Compute the total of the Amount column in orders.xlsx and write it into
    total.txt", "Which region ... in sales.docx?") and no word asking for a change comes before it.
    ("In scores.xlsx, add a sheet" names a file to change.)"""
    verdicts: dict[str, bool] = {}
    for sentence in re.split(r"(?<=[.?!])\s+", text.strip()):
        first = next(iter(re.findall(r"[a-z]+", sentence.lower())), "")
        for match in _FILE.finditer(sentence):
            before = re.findall(r"[a-z]+", sentence[:match.start()].lower())
            source = (first in _READING or first in _QUESTION) and not any(w in _CHANGING for w in before)
            name = match.group(0)
            verdicts[name] = verdicts.get(name, True) and source
    return tuple(name for name, source in verdicts.items() if source)


def singular(word: str) -> str:
    """A plural noun as its singular, roughly ("rows" -> "row", "sums" -> "sum"; "class" stays)."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


@dataclass(frozen=True, slots=True)
class Catalog:
    """The applications of a session, in a stable order (ControlLabel is an index into it)."""

    apps: tuple[AppInfo, ...]

    def __post_init__(self) -> None:
        names = [a.name for a in self.apps]
        if len(set(names)) != len(names):
            raise ConfigError(f"duplicate application names: {names}")

    @classmethod
    def of(cls, apps: Iterable[Any]) -> Catalog:
        return cls(tuple(a if isinstance(a, AppInfo) else AppInfo.of(a) for a in apps))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.apps)

    def get(self, name: str) -> AppInfo | None:
        return next((a for a in self.apps if a.name == name), None)

    def resolve(self, text: str, label: str = "") -> str | None:
        """The application a model meant by `text` (a name, an alias, a window title such as
        "Microsoft Word - report.docx") or by `label` (its index in the catalogue); None if unsure."""
        wanted = " ".join(text.lower().split())
        if wanted:
            for app in self.apps:
                if wanted == app.name.lower() or wanted in app.aliases:
                    return app.name
            hits = self._named_in(wanted)
            by_file = self.apps_for_files(wanted)
            if len(hits) == 1:
                return hits.pop()
            if not hits and len(by_file) == 1:
                return next(iter(by_file))
        if label.strip().isdigit() and int(label) < len(self.apps):
            return self.apps[int(label)].name
        return None

    def app_for_type(self, extension: str) -> str | None:
        ext = extension.lower() if extension.startswith(".") else f".{extension.lower()}"
        return next((a.name for a in self.apps if ext in a.file_types), None)

    def apps_for_files(self, text: str) -> dict[str, tuple[str, ...]]:
        """application -> the file names in `text` whose type it handles."""
        found: dict[str, list[str]] = {}
        for match in _FILE.finditer(text):
            app = self.app_for_type(match.group(1))
            if app is not None:
                found.setdefault(app, []).append(match.group(0))
        return {app: tuple(files) for app, files in found.items()}

    def only(self, names: Iterable[str]) -> Catalog:
        """The applications named, in catalogue order."""
        wanted = set(names)
        return Catalog(tuple(a for a in self.apps if a.name in wanted))

    def needed_by(self, request: str) -> tuple[str, ...]:
        """The applications to offer the planner for `request`: the generic ones (no file types: files,
        shell, MCP servers) are left out when the request names files and an application of a type
        claims each of them (.docx: documents, ...), unless it names them by name or alias. A small model
        plans worse from a longer list: the 1.5B model put a spreadsheet subtask on files when offered
        four applications, not when offered the two of the files' types. Every typed application stays:
        "chart the table of report.docx" needs spreadsheets without naming a .xlsx."""
        owners = [self.app_for_type(m.group(1)) for m in _FILE.finditer(request)]
        if not owners or None in owners:
            return self.names
        named = self._named_in(" ".join(request.lower().split()))
        return tuple(a.name for a in self.apps if a.file_types or a.name in named)

    def _named_in(self, text: str) -> set[str]:
        """The applications whose name or an alias appears as a word in `text` (lower case)."""
        return {app.name for app in self.apps for word in (app.name.lower(), *app.aliases)
                if re.search(rf"\b{re.escape(word)}\b", text)}
