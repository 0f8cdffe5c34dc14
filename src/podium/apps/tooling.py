"""Shared plumbing for applications whose tools are plain Python methods.

Each tool's arguments are a pydantic model: the model is both the JSON schema the model sees and the
validator of what comes back, so the two cannot drift apart. Every failure of a call comes back as a
`ToolResult` with an error that says what failed and what to do; a call never raises to the agent.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Iterable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from podium.apps.base import Effect, Tool, ToolResult
from podium.errors import PodiumError


class ToolError(PodiumError):
    """A tool call failed in a way the caller can act on; the message says what and what to do. `instead`: the
    tools of the same application that do what the call was after, where the message sends the caller to them
    (a value, not only words, so that a host can offer them)."""

    def __init__(self, message: str, *, instead: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.instead = instead


class Args(BaseModel):
    """Base of every tool's arguments: unknown arguments are an error, not silently ignored."""

    model_config = ConfigDict(extra="forbid")


# A string argument that carries content (a file's text, a paragraph, a replacement), as opposed to one that
# names or labels something (a path, a sheet, a title, a style). The schema says so in JSON Schema's own
# words, so that data read earlier (a table, a list of names) can be passed there by reference and nowhere
# else (podium.desktop.host.artifacts).
Content = Annotated[str, Field(json_schema_extra={"contentMediaType": "text/plain"})]
# The schema keyword naming the file types a path argument opens: the AppAgent's grammar offers there only the
# workspace's files of those types and the paths its subtask declares (podium.desktop.wire.grammar).
FILE_TYPES = "x-file-types"
# Its opposite: a path argument that names an existing file of none of these types (a text file, where
# .docx and .xlsx hold packages that another application reads).
NOT_FILE_TYPES = "x-not-file-types"
# A path argument that only reads: the grammar offers there only files that exist (every typed path of a
# read-only tool is one already).
EXISTING = "x-existing"
# A path argument naming the file a changing tool opens, changes and saves (ToolSpec.edits): the grammar offers
# there only files that exist and may be written, so a call cannot edit a file no call has made yet (a new
# one is made by the application's tools that create).
EDITED = "x-edited"
# The last part of an application's choice key (tool, argument, other, NUMBER_TEXT): with the argument among
# the values, `other` is the text of one number (a slider's value), so the grammar cannot write anything else
# there (podium.desktop.wire.grammar).
NUMBER_TEXT = "x-number-text"
# A path argument naming a text file the tool writes, new or not, of any type its application owns: where
# nobody can approve a change (batch mode) and the subtask may write only named files, the grammar offers
# there only those (a call that writes elsewhere would only be refused).
WRITTEN = "x-written"
# A place in a file that may start with the name of one of its parts and '!' (a range, 'Data!A1:C5'): the value is
# the pattern of the place alone (what follows the '!'); the grammar offers as that prefix only the parts of the
# files the subtask may open (podium.desktop.wire.grammar), so a call cannot name a sheet that is not there.
PARTED = "x-parted"
# An argument naming a part of the file (a sheet) the tool writes a table into, made if missing: what fills a
# part that another call made and left empty (podium.desktop.host.verify names these tools).
INTO_PART = "x-into-part"
# An optional argument naming the sheet a call changes, the active one when omitted (the rule
# part-from-description names it for a call that omits it where its subtask names one of the file's sheets).
ACTIVE_PART = "x-active-part"
# A folder argument a tool reads, the workspace's top folder when omitted (the rule folder-from-declaration
# names it for a call that omits it where every file its subtask declares it reads lies in one other folder).
LISTED_FOLDER = "x-listed-folder"
# The flag of such a tool under which the call reaches into the folder's subfolders too (the rule
# reach-declared-reads sets it for a call whose subtask declares reading what lies in them).
SUBFOLDERS = "x-subfolders"
# An argument that is code the tool runs (a command line, its argv): data handed on is never passed there by
# reference (podium.desktop.host.artifacts), so what a file or a tool result says cannot become a command.
CODE = "x-code"
# On a required choice argument (a Literal without default): the option under which the call takes its
# `source` away (a move). Only the request can say which option it wants, and only the option that takes the
# source away makes the source a write (podium.desktop.host.capability), so a plan that declares the tool and
# only reads its sources left that choice open.
SOURCE_GONE = "x-source-gone"
# An argument that picks the entries a call works on by a pattern over their names (a regular expression), its
# value what the call does to them (a Change: "move" for a rename): the tool is for sets of names, and a single
# path it is given is another tool's (podium.desktop.host.amend).
BY_PATTERN = "x-by-pattern"


def file_path(description: str, *types: str, existing: bool = False, default: Any = ...) -> Any:
    """A path argument that names a file of these types ('.xlsx'); `existing`: one that is read, so it
    must exist."""
    extra: dict[str, Any] = {FILE_TYPES: list(types)}
    if existing:
        extra[EXISTING] = True
    return Field(default, description=description, json_schema_extra=extra)


def written_path(description: str) -> Any:
    """A path argument naming the text file the tool writes (WRITTEN)."""
    return Field(description=description, json_schema_extra={WRITTEN: True})


def into_part(description: str) -> Any:
    """An optional argument naming the part (a sheet) the tool writes its table into (INTO_PART)."""
    return Field(None, description=description, json_schema_extra={INTO_PART: True})


def active_part(description: str) -> Any:
    """An optional argument naming the sheet a call works on; the active one when omitted (ACTIVE_PART)."""
    return Field(None, description=description, json_schema_extra={ACTIVE_PART: True})


def listed_folder(description: str) -> Any:
    """A folder argument the tool reads, the workspace's top folder when omitted (LISTED_FOLDER)."""
    return Field(".", description=description, json_schema_extra={LISTED_FOLDER: True})


def subfolders() -> Any:
    """The flag of a folder-reading tool that takes its subfolders in too (SUBFOLDERS); off when omitted. It has
    no description of its own: a planned tool's arguments are described to the model one by one, and a longer
    listing there changed which pattern a small model wrote."""
    return Field(False, json_schema_extra={SUBFOLDERS: True})


def other_path(description: str, *types: str) -> Any:
    """A path argument that names an existing file of none of these types (an application fills them in
    with `excluding` when they depend on which other applications are enabled)."""
    return Field(description=description, json_schema_extra={NOT_FILE_TYPES: list(types)})


def excluding(tool: Tool, types: Iterable[str]) -> Tool:
    """The tool with these file types added to each of its NOT_FILE_TYPES path arguments."""
    props = tool.parameters.get("properties")
    if not isinstance(props, Mapping):
        return tool
    changed = {name: {**spec, NOT_FILE_TYPES: sorted({*spec[NOT_FILE_TYPES], *types})}
               for name, spec in props.items() if isinstance(spec, Mapping) and NOT_FILE_TYPES in spec}
    if not changed:
        return tool
    return replace(tool, parameters={**tool.parameters, "properties": {**props, **changed}})


Handler = Callable[[Any], Any | Awaitable[Any]]
# The paths a valid call would change (podium.apps.base.Effect), found before it runs; may read the files.
Effects = Callable[[Any], Iterable[Effect]]


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    description: str
    args: type[Args]
    handler: Handler
    read_only: bool = False
    # Blocking handlers (file and process I/O) run in a worker thread so the event loop stays free.
    blocking: bool = True
    unapproved: str = ""  # Tool.unapproved
    effects: Effects | None = None  # None on a changing tool: its effects are not known (treated as sensitive)
    names_its_writes: bool = True  # Tool.names_its_writes
    new_only: bool = False  # Tool.new_only
    computes: bool = False  # Tool.computes
    empty_part: bool = False  # Tool.empty_part
    writes_names: bool = False  # Tool.writes_names
    reshapes: bool = False  # Tool.reshapes
    describes: bool = False  # Tool.describes
    edits: bool = False  # its `path` names a file that must exist: it opens it, changes it and saves it (EDITED)

    def tool(self) -> Tool:
        schema = schema_of(self.args)
        props = schema.get("properties", {})
        if self.edits and "path" in props:
            schema = {**schema, "properties": {**props, "path": {**props["path"], EDITED: True}}}
        return Tool(self.name, self.description, schema, self.read_only, self.unapproved,
                    self.names_its_writes, self.new_only, self.computes, self.empty_part, self.writes_names,
                    self.reshapes, self.describes)


def holding(lock: AbstractContextManager[Any], spec: ToolSpec) -> ToolSpec:
    """`spec` whose handler and effects run while `lock` is held (a library whose state no two threads may
    use at once); the handler is a plain function, not a coroutine."""
    def handler(args: Any) -> Any:
        with lock:
            return spec.handler(args)

    def effects(args: Any) -> Iterable[Effect]:
        assert spec.effects is not None
        with lock:
            return tuple(spec.effects(args))

    return replace(spec, handler=handler, effects=None if spec.effects is None else effects)


def schema_of(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema without pydantic's generated titles (noise in a prompt), and with the
    schemas of nested models written in place: a tool's schema is embedded in a larger one (the AppAgent's
    answer), where a "#/$defs/..." reference would point at that larger schema's root and resolve to
    nothing, and llama.cpp would build no grammar for the answer at all."""
    schema = model.model_json_schema()
    definitions = schema.pop("$defs", {})
    return _strip_titles(_inline(schema, definitions))


def _inline(node: Any, definitions: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        reference = node.get("$ref")
        if isinstance(reference, str) and reference.startswith("#/$defs/"):
            return _inline(definitions[reference.removeprefix("#/$defs/")], definitions)
        return {key: _inline(value, definitions) for key, value in node.items()}
    if isinstance(node, list):
        return [_inline(item, definitions) for item in node]
    return node


def _strip_titles(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            key: _strip_titles(value) for key, value in node.items() if not (key == "title" and isinstance(value, str))
        }
    if isinstance(node, list):
        return [_strip_titles(item) for item in node]
    return node


def describe_validation_error(tool: str, error: ValidationError) -> str:
    problems = []
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"]) or "arguments"
        problems.append(f"{where}: {item['msg']}")
    return f"invalid arguments for {tool!r}: " + "; ".join(problems)


class ToolApplication:
    """An Application whose tools are `ToolSpec`s; subclasses list them in `_specs()`."""

    name: str
    description: str

    def __init__(self) -> None:
        self._by_name = {spec.name: spec for spec in self._specs()}

    def _specs(self) -> list[ToolSpec]:
        raise NotImplementedError

    def _sensitive(self, tool: str, args: Any) -> bool:
        """Whether a VALID call needs the person's approval; default: every tool that is not read-only."""
        return not self._by_name[tool].read_only

    def tools(self) -> list[Tool]:
        return [spec.tool() for spec in self._by_name.values()]

    def copies(self, tool: str, arguments: Mapping[str, Any]) -> list[tuple[str, Any, str, str]]:
        """(where, value, where it is already, what it is) for each value a VALID call would copy from another
        record of the same file into an empty place meant for this record's own (an application that keeps
        records says; the AppAgent's step asks the person for the value instead). What it is names the
        value to ask for ("Phone of Acme Corp")."""
        spec = self._by_name.get(tool)
        if spec is None or spec.read_only:
            return []
        try:
            args = spec.args.model_validate(dict(arguments))
        except ValidationError:
            return []
        return self._copies(tool, args)

    def _copies(self, tool: str, args: Any) -> list[tuple[str, Any, str, str]]:
        return []

    def effects(self, tool: str, arguments: Mapping[str, Any]) -> tuple[Effect, ...] | None:
        """What a call would change (Application.effects): () for a read-only tool or a call that is not
        valid (it will be refused, and changes nothing); None when the tool does not say."""
        spec = self._by_name.get(tool)
        if spec is None or spec.read_only:
            return ()
        try:
            args = spec.args.model_validate(dict(arguments))
        except ValidationError:
            return ()
        return None if spec.effects is None else tuple(spec.effects(args))

    def is_sensitive(self, tool: str, arguments: Mapping[str, Any]) -> bool:
        spec = self._by_name.get(tool)
        if spec is None:
            return False  # the call itself will be refused as unknown: nothing runs
        try:
            args = spec.args.model_validate(dict(arguments))
        except ValidationError:
            return False  # refused at call time: nothing runs
        return self._sensitive(tool, args)

    async def call(self, tool: str, arguments: Mapping[str, Any]) -> ToolResult:
        spec = self._by_name.get(tool)
        if spec is None:
            known = ", ".join(sorted(self._by_name))
            return ToolResult(error=f"{self.name} has no tool {tool!r}; its tools are: {known}")
        try:
            args = spec.args.model_validate(dict(arguments))
        except ValidationError as exc:
            return ToolResult(error=describe_validation_error(tool, exc))
        try:
            if spec.blocking and not inspect.iscoroutinefunction(spec.handler):
                content = await asyncio.to_thread(spec.handler, args)
            else:
                content = spec.handler(args)
                if inspect.isawaitable(content):
                    content = await content
        except ToolError as exc:
            return ToolResult(error=f"{tool}: {exc}", instead=exc.instead)
        except OSError as exc:
            where = f" ({exc.filename})" if exc.filename else ""
            return ToolResult(error=f"{tool}: {exc.strerror or exc}{where}")
        except Exception as exc:  # a library failing on odd input must not take the agent's turn down
            return ToolResult(error=f"{tool} failed: {type(exc).__name__}: {exc}")
        # A handler may return a full ToolResult: content AND error (a command's output and its failure).
        return content if isinstance(content, ToolResult) else ToolResult(content=content)

    async def is_running(self) -> bool:
        return True  # a library-backed application is always available

    async def launch(self) -> None:
        return None
