"""The output schemas of the HostAgent and the AppAgent (pydantic models).

The HostAgent answers with the seed's 11 fields, spelled exactly as the seed spells them
(`Observation`, `Thought`, `Current Sub-Task`, `Message`, `ControlLabel`, `ControlText`, `Plan`,
`Status`, `Comment`, `Questions`, `Bash`), plus `Subtasks`: the dependency-ordered subtask graph the
seed promises and UFO² never builds. Each subtask is typed: besides its description and application it
declares the workspace paths it `reads` and `writes`, the `tools` of its application it expects to
call, and what it `hands_on` to the subtasks that depend on it. Those declarations, not the words, are
what the host checks, what bounds an AppAgent's changes, and what a FINISH is verified against.
The AppAgent answers with observation, thought, actions ({function, arguments}), status, plan,
comment and result; an argument or the result may be a reference to data it was handed
(`{"$ref": "1.read_table"}`), which the host resolves (podium.desktop.host.artifacts).

Parsing is lenient where small local models are sloppy and the meaning is not in doubt (a status in
lower case, a single string where a list is expected, arguments given as a JSON string, python-style
field names instead of the seed's); it is strict where guessing could do harm (an unknown status,
a missing status, an action without a function name).
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator, model_validator


class HostStatus(StrEnum):
    """The HostAgent's statuses: the keys of its state machine (see `podium.desktop.host.fsm`)."""

    CONTINUE = "CONTINUE"
    ASSIGN = "ASSIGN"
    FINISH = "FINISH"
    FAIL = "FAIL"
    ERROR = "ERROR"
    PENDING = "PENDING"
    CONFIRM = "CONFIRM"


class HandsOn(StrEnum):
    """What a subtask hands on to the subtasks that depend on it (the kinds of podium.desktop.host.artifacts)."""

    TABLE = "table"
    NUMBER = "number"
    NAMES = "names"
    TEXT = "text"
    NOTHING = "nothing"


class AppStatus(StrEnum):
    """The AppAgent's statuses, as its model reports them."""

    CONTINUE = "CONTINUE"
    FINISH = "FINISH"
    FAIL = "FAIL"
    ERROR = "ERROR"
    PENDING = "PENDING"
    CONFIRM = "CONFIRM"


def _names(*names: str) -> AliasChoices:
    return AliasChoices(*names)


def _status(value: Any) -> Any:
    # "finish", " Status.FINISH ", "FINISH." all mean FINISH; anything else stays for the enum to refuse.
    if isinstance(value, str):
        text = value.strip().strip(".").upper()
        return text.rsplit(".", 1)[-1]
    return value


def _string_list(value: Any) -> Any:
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, list | tuple):
        return [v if isinstance(v, str) else json.dumps(v) for v in value if v is not None and v != ""]
    return value


def _paths(value: Any) -> Any:
    # A path list: "a.xlsx" alone is a list of one; "./a.xlsx" and "a.xlsx" are the same path.
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        value = [value]
    if isinstance(value, list | tuple):
        return tuple(dict.fromkeys(normal_path(str(v)) for v in value if str(v).strip()))
    return value


def normal_path(path: str) -> str:
    """A workspace path as plans and effects compare it: POSIX, no "./", no trailing "/" (a folder)."""
    text = path.strip().replace("\\", "/")
    while text.startswith("./"):
        text = text[2:]
    return text.rstrip("/") or "."


def _text(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, list | dict):
        return json.dumps(value)
    return value


_LENIENT = ConfigDict(populate_by_name=True, extra="ignore", frozen=True, str_strip_whitespace=True)


class SubtaskSpec(BaseModel):
    """One node of the subtask graph as the planner writes it."""

    model_config = _LENIENT

    id: str = Field(validation_alias=_names("id", "Id", "ID", "subtask_id"))
    description: str = Field(validation_alias=_names("description", "Description", "task", "subtask", "Sub-Task"))
    application: str = Field("", validation_alias=_names("application", "Application", "app", "ControlText"))
    depends_on: tuple[str, ...] = Field((), validation_alias=_names(
        "depends_on", "DependsOn", "dependencies", "deps", "after"))
    message: str = Field("", validation_alias=_names("message", "Message", "tips", "Tips", "hint"))
    reads: tuple[str, ...] = Field((), validation_alias=_names("reads", "Reads", "inputs"))
    writes: tuple[str, ...] = Field((), validation_alias=_names("writes", "Writes", "outputs"))
    tools: tuple[str, ...] = Field((), validation_alias=_names("tools", "Tools"))
    hands_on: HandsOn = Field(HandsOn.NOTHING, validation_alias=_names("hands_on", "HandsOn", "handsOn"))

    @field_validator("reads", "writes", mode="before")
    @classmethod
    def _path_list(cls, value: Any) -> Any:
        return _paths(value)

    @field_validator("tools", mode="before")
    @classmethod
    def _tool_list(cls, value: Any) -> Any:
        return tuple(dict.fromkeys(_string_list(value))) if not isinstance(value, tuple) else value

    @field_validator("hands_on", mode="before")
    @classmethod
    def _hands(cls, value: Any) -> Any:
        if value is None or value == "" or value == []:
            return HandsOn.NOTHING
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("id", mode="before")
    @classmethod
    def _id(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value

    @field_validator("depends_on", mode="before")
    @classmethod
    def _deps(cls, value: Any) -> Any:
        if value is None or value == "":
            return ()
        if isinstance(value, str | int):
            value = [value]
        if isinstance(value, list | tuple):
            return tuple(str(v) for v in value)
        return value

    @field_validator("application", "message", mode="before")
    @classmethod
    def _plain(cls, value: Any) -> Any:
        return _text(value)


class HostOutput(BaseModel):
    """The HostAgent's answer for one step; serialise with `dump()` to get the seed's field names."""

    model_config = _LENIENT

    observation: str = Field("", alias="Observation", validation_alias=_names("Observation", "observation"))
    thought: str = Field("", alias="Thought", validation_alias=_names("Thought", "thought"))
    current_subtask: str = Field("", alias="Current Sub-Task", validation_alias=_names(
        "Current Sub-Task", "current_subtask", "CurrentSubTask", "Current Subtask", "current_sub_task"))
    message: str = Field("", alias="Message", validation_alias=_names("Message", "message"))
    control_label: str = Field("", alias="ControlLabel", validation_alias=_names("ControlLabel", "control_label"))
    control_text: str = Field("", alias="ControlText", validation_alias=_names("ControlText", "control_text"))
    plan: tuple[str, ...] = Field((), alias="Plan", validation_alias=_names("Plan", "plan"))
    status: HostStatus = Field(alias="Status", validation_alias=_names("Status", "status"))
    comment: str = Field("", alias="Comment", validation_alias=_names("Comment", "comment"))
    questions: tuple[str, ...] = Field((), alias="Questions", validation_alias=_names("Questions", "questions"))
    bash: str = Field("", alias="Bash", validation_alias=_names("Bash", "bash"))
    subtasks: tuple[SubtaskSpec, ...] = Field((), alias="Subtasks", validation_alias=_names(
        "Subtasks", "subtasks", "SubTasks", "Sub-Tasks"))

    @field_validator("status", mode="before")
    @classmethod
    def _status(cls, value: Any) -> Any:
        return _status(value)

    @field_validator("plan", "questions", mode="before")
    @classmethod
    def _lists(cls, value: Any) -> Any:
        return _string_list(value)

    @field_validator("observation", "thought", "current_subtask", "message", "control_label", "control_text",
                     "comment", "bash", mode="before")
    @classmethod
    def _texts(cls, value: Any) -> Any:
        return _text(value)

    @field_validator("subtasks", mode="before")
    @classmethod
    def _graph(cls, value: Any) -> Any:
        return [] if value is None else value

    @model_validator(mode="after")
    def _consistent(self) -> HostOutput:
        # Only the contradictions that would make the host act wrongly are refused: asking without
        # a question leaves the person nothing to answer, and assigning nothing assigns nothing.
        if self.status is HostStatus.PENDING and not self.questions:
            raise ValueError("Status PENDING asks the person a question, and Questions is empty")
        if self.status is HostStatus.ASSIGN and not self.subtasks and not self.current_subtask:
            raise ValueError("Status ASSIGN needs Subtasks (the subtask graph) or a Current Sub-Task")
        return self

    def dump(self) -> dict[str, Any]:
        """JSON-ready, with the seed's field names."""
        return self.model_dump(mode="json", by_alias=True)


class ChoiceOutput(BaseModel):
    """The planner's answer to a Choice (podium.desktop.wire.messages): the request's words that settle it, then
    one of its options."""

    words: str = ""
    answer: str


class Action(BaseModel):
    """One call of an application tool."""

    model_config = _LENIENT

    function: str = Field(min_length=1, validation_alias=_names("function", "Function", "name", "tool"))
    arguments: dict[str, Any] = Field(default_factory=dict, validation_alias=_names(
        "arguments", "Arguments", "args", "parameters", "input"))

    @field_validator("arguments", mode="before")
    @classmethod
    def _arguments(cls, value: Any) -> Any:
        if value is None or value == "":
            return {}
        if isinstance(value, str):
            try:
                return json.loads(value)
            except json.JSONDecodeError as exc:
                raise ValueError(f"arguments must be a JSON object, got the string {value!r}") from exc
        return value


class AppOutput(BaseModel):
    """The AppAgent's answer for one step."""

    model_config = _LENIENT

    observation: str = Field("", validation_alias=_names("observation", "Observation"))
    thought: str = Field("", validation_alias=_names("thought", "Thought"))
    actions: tuple[Action, ...] = Field((), validation_alias=_names("actions", "Actions", "action", "Action"))
    status: AppStatus = Field(validation_alias=_names("status", "Status"))
    plan: tuple[str, ...] = Field((), validation_alias=_names("plan", "Plan"))
    comment: str = Field("", validation_alias=_names("comment", "Comment"))
    questions: tuple[str, ...] = Field((), validation_alias=_names("questions", "Questions"))
    result: Any = Field(None, validation_alias=_names("result", "Result"))

    @field_validator("status", mode="before")
    @classmethod
    def _status(cls, value: Any) -> Any:
        return _status(value)

    @field_validator("actions", mode="before")
    @classmethod
    def _actions(cls, value: Any) -> Any:
        if value is None:
            return []
        if isinstance(value, dict):
            return [value]
        return value

    @field_validator("plan", "questions", mode="before")
    @classmethod
    def _lists(cls, value: Any) -> Any:
        return _string_list(value)

    @field_validator("observation", "thought", "comment", mode="before")
    @classmethod
    def _texts(cls, value: Any) -> Any:
        return _text(value)

    @model_validator(mode="after")
    def _consistent(self) -> AppOutput:
        if self.status is AppStatus.PENDING and not self.questions:
            raise ValueError("status PENDING needs at least one entry in questions")
        return self

    def dump(self) -> dict[str, Any]:
        return self.model_dump(mode="json")
