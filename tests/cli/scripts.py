"""Builders for scripted-model files (`--model scripted:FILE.json`, see podium.cli.script)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def sub(id: str, description: str, application: str, *deps: str, reads: list[str] | None = None,
        writes: list[str] | None = None, tools: list[str] | None = None, hands_on: str = "nothing") -> dict[str, Any]:
    """One typed subtask: what it reads and writes, and the tools it will call."""
    return {"id": id, "description": description, "application": application, "depends_on": list(deps),
            "reads": reads or [], "writes": writes or [], "tools": tools or [], "hands_on": hands_on}


def assign(*subtasks: dict[str, Any]) -> dict[str, Any]:
    return {"Status": "ASSIGN", "Comment": "assigning", "Plan": [s["description"] for s in subtasks],
            "Subtasks": list(subtasks)}


def host(status: str, comment: str = "", **fields: Any) -> dict[str, Any]:
    return {"Status": status, "Comment": comment, **fields}


def app(status: str, *actions: tuple[str, dict[str, Any]], result: Any = None, comment: str = "",
        questions: list[str] | None = None) -> dict[str, Any]:
    return {"status": status, "comment": comment, "actions": [{"function": f, "arguments": a} for f, a in actions],
            "questions": questions or [], "result": result}


def write_script(path: Path, planner: list[Any], apps: dict[str, list[Any]] | None = None,
                 **extra: Any) -> Path:
    path.write_text(json.dumps({"planner": planner, "apps": apps or {}, **extra}), encoding="utf-8")
    return path
