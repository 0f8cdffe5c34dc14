"""Helpers to script the HostAgent's and the AppAgents' models: functions of the prompt that return
the JSON each agent would produce."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from podium.agent.backend import Prompt
from podium.backends.scripted import ScriptedBackend


def assign(*subtasks: dict[str, Any], comment: str = "assigning", **fields: Any) -> str:
    return json.dumps({"Observation": "", "Thought": "", "Status": "ASSIGN", "Subtasks": list(subtasks),
                       "Comment": comment, **fields})


def host(status: str, comment: str = "", **fields: Any) -> str:
    return json.dumps({"Status": status, "Comment": comment, **fields})


def sub(id: str, description: str, application: str, *deps: str, reads: Sequence[str] = (),
        writes: Sequence[str] = (), tools: Sequence[str] = (), hands_on: str = "nothing",
        message: str = "") -> dict[str, Any]:
    """One typed subtask of a plan."""
    return {"id": id, "description": description, "application": application, "reads": list(reads),
            "writes": list(writes), "tools": list(tools), "depends_on": list(deps), "hands_on": hands_on,
            "message": message}


def app(status: str, *actions: tuple[str, dict[str, Any]], result: Any = None, comment: str = "",
        questions: list[str] | None = None) -> str:
    return json.dumps({"observation": "", "thought": "", "status": status, "comment": comment,
                       "actions": [{"function": f, "arguments": a} for f, a in actions],
                       "questions": questions or [], "result": result})


def ref(name: str) -> dict[str, str]:
    """Data by reference, as an AppAgent writes it."""
    return {"ref": name}


def step_of(prompt: str) -> int:
    """The step number of an AppAgent prompt ("This is step N of the subtask")."""
    match = re.search(r"This is step (\d+) of the subtask", prompt)
    return int(match.group(1)) if match else 0


def subtask_of(prompt: str) -> str:
    match = re.search(r"## Your subtask \(([^)]*)\)", prompt)
    return match.group(1) if match else ""


def noted(prompt: str) -> str:
    """What the HostAgent noted for this AppAgent step ('' if nothing)."""
    match = re.search(r"## Note from the HostAgent\n(.*?)(?:\n\n|$)", prompt, re.S)
    return match.group(1) if match else ""


def verifying(prompt: str) -> bool:
    """The planner is asked to verify or re-plan (the graph has settled)."""
    return "Every subtask has ended" in prompt or "Re-plan:" in prompt or "You answered FINISH, but" in prompt


class Spy(ScriptedBackend):
    """A scripted model that also records every Prompt it gets (temperature, schema, system message)."""

    def __init__(self, script: Any) -> None:
        super().__init__(script)
        self.seen: list[Prompt] = []

    async def prompt(self, session: Any, prompt: Any):  # type: ignore[override]
        self.seen.append(prompt)
        async for event in super().prompt(session, prompt):
            yield event
