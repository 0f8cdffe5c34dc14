"""Helpers to script the HostAgent's and the AppAgents' models: functions of the prompt that return
the JSON each agent would produce."""

from __future__ import annotations

import json
import re
from typing import Any


def assign(*subtasks: dict[str, Any], comment: str = "assigning", **fields: Any) -> str:
    return json.dumps({"Observation": "", "Thought": "", "Current Sub-Task": "", "Message": "", "ControlLabel": "",
                       "ControlText": "", "Plan": [s["description"] for s in subtasks], "Status": "ASSIGN",
                       "Comment": comment, "Questions": [], "Bash": "", "Subtasks": list(subtasks), **fields})


def host(status: str, comment: str = "", **fields: Any) -> str:
    return json.dumps({"Status": status, "Comment": comment, **fields})


def sub(id: str, description: str, application: str, *deps: str, message: str = "") -> dict[str, Any]:
    return {"id": id, "description": description, "application": application, "depends_on": list(deps),
            "message": message}


def app(status: str, *actions: tuple[str, dict[str, Any]], result: Any = None, comment: str = "",
        questions: list[str] | None = None) -> str:
    return json.dumps({"observation": "", "thought": "", "status": status, "comment": comment,
                       "actions": [{"function": f, "arguments": a} for f, a in actions],
                       "questions": questions or [], "result": result})


def step_of(prompt: str) -> int:
    """The step number of an AppAgent prompt ("This is step N of the subtask")."""
    match = re.search(r"This is step (\d+) of the subtask", prompt)
    return int(match.group(1)) if match else 0


def subtask_of(prompt: str) -> str:
    match = re.search(r"## Your subtask \(([^)]*)\)", prompt)
    return match.group(1) if match else ""


def verifying(prompt: str) -> bool:
    """The planner is asked to verify or re-plan (the graph has settled)."""
    return "Every subtask has ended" in prompt or "Re-plan:" in prompt or "no subtask has changed any file" in prompt
