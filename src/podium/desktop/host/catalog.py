"""What the host knows about the applications: names, descriptions, file types, tools.

Pure metadata taken from the `Application` objects once, so the host strategy can check a typed plan
(a declared tool exists and changes files or not; a path's type is one its application opens) and
resolve references against a tool's parameters, without touching the applications.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from podium.apps.tooling import ACTIVE_PART, BY_PATTERN, CODE, EDITED, EXISTING, FILE_TYPES, INTO_PART, SOURCE_GONE
from podium.desktop.host.artifacts import TAKES, Kind, wants
from podium.errors import ConfigError

_FILE = re.compile(r"[\w\-./\\]*\w\.([A-Za-z][A-Za-z0-9]{1,4})\b")
# An e-mail address or a URL ("alice@example.org", "https://host/a.html") names no file of the workspace.
_ADDRESS = re.compile(r"\S*(?:@|://)\S*")
SUMMARY_CHARS = 200  # the most of a tool's description the planner is shown
_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)\.(?:\s|$)")


@dataclass(frozen=True, slots=True)
class SourceChoice:
    """A tool's required choice of what becomes of its source: its `options`, of which `gone` takes it away."""

    argument: str
    options: tuple[str, ...]
    gone: str
    meaning: str = ""


@dataclass(frozen=True, slots=True)
class ToolInfo:
    name: str
    read_only: bool
    parameters: str = "{}"  # JSON of its parameter schema (a string: the value stays hashable and frozen)
    unapproved: str = ""  # how to do its work without approval (Tool.unapproved)
    names_its_writes: bool = True  # Tool.names_its_writes
    new_only: bool = False  # Tool.new_only
    computes: bool = False  # Tool.computes
    empty_part: bool = False  # Tool.empty_part
    summary: str = ""  # the first sentence of Tool.description: what the planner is told the tool does
    writes_names: bool = False  # Tool.writes_names
    reshapes: bool = False  # Tool.reshapes
    describes: bool = False  # Tool.describes

    @property
    def writes_named(self) -> bool:
        """It changes the files its arguments name (a file tool)."""
        return not self.read_only and self.names_its_writes

    @property
    def acts(self) -> bool:
        """It changes what a program holds, or what a command decides when it runs, naming no file it writes."""
        return not self.read_only and not self.names_its_writes

    @property
    def edits(self) -> bool:
        """It opens the file its `path` names, changes a part of it and saves it (apps.tooling.EDITED)."""
        path = self.schema.get("properties", {}).get("path")
        return not self.read_only and isinstance(path, dict) and bool(path.get(EDITED))

    @property
    def needs_file(self) -> bool:
        """Its `path` names a file that must exist (apps.tooling.EXISTING, EDITED): it cannot make one."""
        path = self.schema.get("properties", {}).get("path")
        return not self.read_only and isinstance(path, dict) and bool(path.get(EXISTING) or path.get(EDITED))

    @property
    def writes_text(self) -> bool:
        """It writes a text file whole, at its `path`, from its `content` (a text, or data by reference), and
        needs nothing else."""
        props = self.schema.get("properties", {})
        return self.writes_named and not self.new_only and set(self.schema.get("required", [])) == {
            "path", "content"} and "content" in wants(props.get("content"))

    @property
    def takes_files(self) -> tuple[str, tuple[str, ...], int] | None:
        """(argument, file types, most) where it changes its `path` from the existing files one list argument
        names and needs nothing else: a call a subtask's declared reads and write determine (a merge)."""
        schema = self.schema
        found = [(name, spec) for name, spec in schema.get("properties", {}).items() if isinstance(spec, dict)
                 and spec.get("type") == "array" and isinstance(spec.get("items"), dict)
                 and spec["items"].get(EXISTING)]
        if self.read_only or len(found) != 1 or not set(schema.get("required", [])) <= {"path", found[0][0]}:
            return None
        name, spec = found[0]
        return name, tuple(spec["items"].get(FILE_TYPES) or ()), int(spec.get("maxItems") or 1)

    @property
    def into_part(self) -> str | None:
        """The argument naming the part (a sheet) it writes a table into (apps.tooling.INTO_PART), if any."""
        props = self.schema.get("properties", {})
        return next((name for name, spec in props.items() if isinstance(spec, dict) and spec.get(INTO_PART)), None)

    @property
    def active_part(self) -> str | None:
        """The argument naming the part (a sheet) it works on, the active one when omitted (ACTIVE_PART): the
        word for a part of its files."""
        props = self.schema.get("properties", {})
        return next((name for name, spec in props.items() if isinstance(spec, dict) and spec.get(ACTIVE_PART)), None)

    @property
    def by_pattern(self) -> str | None:
        """What it does to the entries it picks by a pattern over their names (apps.tooling.BY_PATTERN: a Change's
        value), if it picks them so."""
        return next((str(spec[BY_PATTERN]) for spec in self.schema.get("properties", {}).values()
                     if isinstance(spec, dict) and spec.get(BY_PATTERN)), None)

    @property
    def source_choice(self) -> SourceChoice | None:
        """Its required argument whose option decides whether the call takes its source away (SOURCE_GONE)."""
        required = set(self.schema.get("required", []))
        for name, spec in self.schema.get("properties", {}).items():
            if isinstance(spec, dict) and name in required and spec.get(SOURCE_GONE) in spec.get("enum", ()):
                return SourceChoice(name, tuple(spec["enum"]), spec[SOURCE_GONE], spec.get("description", ""))
        return None

    def takes(self, kind: Kind) -> bool:
        """Whether it writes data of this kind, taken by reference: an argument of content, rows, a list or
        a number takes it. A name, a label or a pattern (a plain string) may be given a text or a number too, but a
        figure handed on is not written there (a folder's listing by a pattern, a path)."""
        return not self.read_only and any(
            kind in TAKES[shape] for spec in self.schema.get("properties", {}).values()
            if not (isinstance(spec, Mapping) and spec.get(CODE))  # a command line is code, never data
            for shape in wants(spec) if shape not in ("string", "literal"))

    @property
    def schema(self) -> dict[str, Any]:
        value = json.loads(self.parameters)
        return value if isinstance(value, dict) else {}


@dataclass(frozen=True, slots=True)
class AppInfo:
    name: str
    description: str = ""
    file_types: tuple[str, ...] = ()
    tools: tuple[ToolInfo, ...] = ()

    @classmethod
    def of(cls, app: Any) -> AppInfo:
        """From an `Application` (`file_types` is optional: an application without it opens any file)."""
        name = getattr(app, "name", None)
        if not isinstance(name, str) or not name:
            raise ConfigError(f"application {app!r} needs a non-empty string `name`")
        try:
            listed = tuple(app.tools())
        except Exception as exc:  # an application that cannot list its tools is unusable
            raise ConfigError(f"application {name!r}: tools() failed: {exc}") from exc
        types = getattr(app, "file_types", None) or ()
        return cls(name, getattr(app, "description", "") or "",
                   tuple(t.lower() if t.startswith(".") else f".{t.lower()}" for t in types),
                   tuple(ToolInfo(t.name, bool(getattr(t, "read_only", False)),
                                  json.dumps(getattr(t, "parameters", None) or {}, sort_keys=True, default=str),
                                  getattr(t, "unapproved", "") or "", bool(getattr(t, "names_its_writes", True)),
                                  bool(getattr(t, "new_only", False)), bool(getattr(t, "computes", False)),
                                  bool(getattr(t, "empty_part", False)),
                                  first_sentence(getattr(t, "description", "") or ""),
                                  writes_names=bool(getattr(t, "writes_names", False)),
                                  reshapes=bool(getattr(t, "reshapes", False)),
                                  describes=bool(getattr(t, "describes", False)))
                         for t in listed))

    @property
    def tool_names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.tools)

    @property
    def changing(self) -> tuple[str, ...]:
        """The tools that change something (not read-only)."""
        return tuple(t.name for t in self.tools if not t.read_only)

    def tool(self, name: str) -> ToolInfo | None:
        return next((t for t in self.tools if t.name == name), None)

    def opens(self, path: str) -> bool:
        """Whether the application can open a file of this path's type (one without file types: any)."""
        return not self.file_types or path.lower().endswith(self.file_types)

    def without_approval(self, tools: Iterable[str]) -> tuple[str, ...]:
        """How to do the work of `tools` with nothing that needs approval, one line per tool that says."""
        ways = {t.name: t.unapproved for t in self.tools if t.unapproved}
        return tuple(f"{tool}: {ways[tool]}" for tool in dict.fromkeys(tools) if tool in ways)



def first_sentence(text: str) -> str:
    """A description's first sentence up to its first ';' ("e.g." and the like end nothing): what the tool does,
    without the details its AppAgent reads in its full description."""
    match = _SENTENCE_END.search(text)
    head = " ".join((text[:match.start()] if match else text).split(";")[0].split()).rstrip(".")
    if len(head) > SUMMARY_CHARS:  # a remote server's description may be a page long
        return head[:SUMMARY_CHARS].rsplit(" ", 1)[0] + " ..."
    return f"{head}." if head else ""


def file_names(text: str) -> tuple[str, ...]:
    """The file names a text mentions ("report.docx", "data/q1.xlsx"), in order, once each."""
    return tuple(dict.fromkeys(m.group(0).replace("\\", "/") for m in _FILE.finditer(_ADDRESS.sub(" ", text))))


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

    def only(self, names: Iterable[str]) -> Catalog:
        """The applications named, in catalogue order."""
        wanted = set(names)
        return Catalog(tuple(a for a in self.apps if a.name in wanted))

    def owner(self, path: str) -> str | None:
        """The application of a typed file (.docx: documents), or None when no typed application opens it."""
        lower = path.lower()
        return next((a.name for a in self.apps if a.file_types and lower.endswith(a.file_types)), None)

    def resolve(self, text: str, label: str = "") -> str | None:
        """The application a model meant by `text` (its name, or a window title naming a file of one
        application's type) or by `label` (its index in the catalogue); None if unsure."""
        wanted = text.strip().lower()
        by_name = next((a.name for a in self.apps if a.name.lower() == wanted), None)
        if by_name is not None:
            return by_name
        owners = {self.owner(name) for name in file_names(text)} - {None}
        if len(owners) == 1:
            return owners.pop()
        if label.strip().isdigit() and int(label) < len(self.apps):
            return self.apps[int(label)].name
        return None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (what a record keeps to rebuild the catalogue for replay): every field, so the replayed
        strategy decides from the same values as the recorded one."""
        return {"apps": [asdict(a) for a in self.apps]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Catalog:
        return cls(tuple(AppInfo(**{**a, "file_types": tuple(a.get("file_types", ())),
                                    "tools": tuple(ToolInfo(**t) for t in a.get("tools", ()))})
                         for a in data.get("apps", ())))
