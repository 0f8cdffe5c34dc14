"""The prompts of the HostAgent, the AppAgents and the judge (pure functions of their inputs).

Each system prompt carries a worked example: small local models copy the shape of an example far more
reliably than they follow a description of a schema.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from podium.desktop.blackboard import QA, SubtaskResult
from podium.desktop.catalog import Catalog
from podium.desktop.messages import AppStepRequest, HostStepRequest, summarize

# The examples are deliberately NOT a benchmark's request: they show the shape (a dependency, results
# handed on, FINISH after checking), the model has to do the thinking for the task in front of it.
HOST_EXAMPLE: dict[str, Any] = {
    "Observation": "documents and spreadsheets are available; no subtask has run yet",
    "Thought": "The totals must be read from sales.xlsx before they can be written into summary.docx, "
               "so the second subtask depends on the first.",
    "Current Sub-Task": "Read the totals from sales.xlsx",
    "Message": "Read the sheet of sales.xlsx and return its rows",
    "ControlLabel": "1",
    "ControlText": "spreadsheets",
    "Plan": ["Read the totals from sales.xlsx", "Write the totals as a table into summary.docx"],
    "Status": "ASSIGN",
    "Comment": "Two subtasks: read, then write",
    "Questions": [],
    "Bash": "",
    "Subtasks": [
        {"id": "1", "description": "Read the totals from sales.xlsx", "application": "spreadsheets",
         "depends_on": [], "message": "Return the rows of the first sheet"},
        {"id": "2", "description": "Write the totals as a table into summary.docx", "application": "documents",
         "depends_on": ["1"], "message": "Use the rows from subtask 1's result"},
    ],
}
HOST_FINISH_EXAMPLE: dict[str, Any] = {
    "Observation": "Subtask 1 FINISH (rows read), subtask 2 FINISH (table written)",
    "Thought": "Every part of the request is done", "Current Sub-Task": "", "Message": "",
    "ControlLabel": "", "ControlText": "", "Plan": [], "Status": "FINISH",
    "Comment": "summary.docx now holds the totals of sales.xlsx", "Questions": [], "Bash": "", "Subtasks": [],
}
APP_EXAMPLE: tuple[dict[str, Any], dict[str, Any]] = (
    {"observation": "The subtask needs the rows of sales.xlsx", "thought": "read_sheet returns the rows",
     "actions": [{"function": "read_sheet", "arguments": {"path": "sales.xlsx"}}],
     "status": "CONTINUE", "plan": ["Return the rows as the result"], "comment": "", "questions": [],
     "result": None},
    {"observation": "read_sheet returned [[\"Region\", \"Total\"], [\"North\", 42]]", "thought": "I have the rows",
     "actions": [], "status": "FINISH", "plan": [], "comment": "Rows read", "questions": [],
     "result": [["Region", "Total"], ["North", 42]]},
)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def host_system(catalog: Catalog) -> str:
    names = ", ".join(catalog.names)
    types = "".join(f" {', '.join(a.file_types)} files belong to {a.name}." for a in catalog.apps if a.file_types)
    return f"""You are the HostAgent, the orchestrator of a desktop. You turn the person's request into \
subtasks, each done by the AppAgent of one application, and you decide when the request is done.

Answer with ONE JSON object and nothing else, with exactly these fields:
Observation, Thought, "Current Sub-Task", Message, ControlLabel, ControlText, Plan, Status, Comment, \
Questions, Bash, Subtasks.

Status is one of:
- ASSIGN: hand out work. Subtasks is the subtask graph: a list of {{"id", "description", "application", \
"depends_on", "message"}}.
- FINISH: every part of the request is done (check the subtask results first).
- FAIL: the request cannot be done; say why in Comment.
- PENDING: you need information only the person has; put your questions in Questions.
- CONFIRM: you need the person's approval before going on; say what in Comment.
- CONTINUE: you put an application to launch in Bash and want to look again.

Rules for Subtasks:
- application is exactly one of: {names}.{types}
- depends_on lists the ids of EARLIER subtasks whose results this one needs; independent subtasks have \
an empty depends_on so they run at the same time.
- message tells the AppAgent what you know: file names, cells, what to return.
- Subtasks already FINISH are done: do not repeat them; new subtasks get new ids and may depend on them.
- Never plan anything the request says not to do.

Example, for the request "Put the totals of sales.xlsx into a table in summary.docx":
{_json(HOST_EXAMPLE)}

Example, once both subtasks are FINISH:
{_json(HOST_FINISH_EXAMPLE)}"""


def _subtask_lines(req: HostStepRequest) -> list[str]:
    lines = []
    for s in req.subtasks:
        deps = f" after {', '.join(s.depends_on)}" if s.depends_on else ""
        line = f"- {s.id} [{s.application}]{deps} {s.state}: {s.description}"
        if s.result not in (None, ""):
            line += f" -> result: {summarize(s.result)}"
        if s.reason:
            line += f" -> reason: {s.reason}"
        lines.append(line)
    return lines


def _answers(answers: Sequence[QA]) -> list[str]:
    return [f"- Q: {a.question} A: {a.answer}" for a in answers]


def host_user(req: HostStepRequest, catalog: Catalog, running: Mapping[str, bool]) -> str:
    parts = [f"## Request\n{req.request}", "## Applications (ControlLabel. name: description)"]
    parts.append("\n".join(
        f"{i}. {app.name}{' (running)' if running.get(app.name) else ''}: {app.description}"
        + (f" Tools: {', '.join(app.tools)}." if app.tools else "")
        for i, app in enumerate(catalog.apps)))
    if req.subtasks:
        parts.append("## Subtasks so far\n" + "\n".join(_subtask_lines(req)))
    if req.plan:
        parts.append("## Your previous plan\n" + "\n".join(f"- {p}" for p in req.plan))
    if req.answers:
        parts.append("## Answers from the person\n" + "\n".join(_answers(req.answers)))
    if req.blackboard:
        parts.append(f"## Blackboard\n{req.blackboard}")
    if req.note:
        parts.append(f"## Now\n{req.note}")
    if req.feedback:
        parts.append(f"## Your previous answer was rejected\n{req.feedback}\nCorrect it.")
    parts.append("Answer with the JSON object only.")
    return "\n\n".join(parts)


def _tool_line(tool: Any, sensitive: bool) -> str:
    params = getattr(tool, "parameters", {}) or {}
    props = params.get("properties", {}) if isinstance(params, Mapping) else {}
    required = set(params.get("required", ())) if isinstance(params, Mapping) else set()
    args = ", ".join(f"{name}{'' if name in required else '?'}: {spec.get('type', 'any')}"
                     if isinstance(spec, Mapping) else name for name, spec in props.items())
    flag = " (the person must approve it)" if sensitive else ""
    return f"- {tool.name}({args}): {tool.description}{flag}"


def app_system(application: str, description: str, tools: Sequence[Any],
               sensitive: Sequence[str] = ()) -> str:
    tool_lines = "\n".join(_tool_line(t, t.name in sensitive) for t in tools) or "- (no tools)"
    first, second = APP_EXAMPLE
    return f"""You are the AppAgent of the application "{application}": {description}
You complete ONE subtask by calling the application's tools, step by step.

Tools (arguments with ? are optional):
{tool_lines}

Answer with ONE JSON object and nothing else:
{{"observation", "thought", "actions": [{{"function", "arguments"}}], "status", "plan", "comment", \
"questions", "result"}}
status is one of:
- CONTINUE: run these actions, then show me their results (the usual status while working).
- FINISH: the subtask is done. Put in result what the person or the next subtask needs (data you read, \
the file you wrote). Actions listed with FINISH still run.
- FAIL: the subtask cannot be done; say why in comment.
- PENDING: you need information only the person has; put your questions in questions.
- CONFIRM: the actions change or delete something the person must approve first.
Use only the tools listed, with their argument names.

Example (a subtask "Read the totals from sales.xlsx" with a tool read_sheet), first step:
{_json(first)}
and once read_sheet has answered:
{_json(second)}"""


def _input_lines(inputs: Sequence[SubtaskResult]) -> list[str]:
    lines = []
    for r in inputs:
        line = f"- subtask {r.subtask} ({r.application}, {r.description}): {r.status}"
        if r.result not in (None, ""):
            line += f"\n  result: {summarize(r.result, 4000)}"
        if r.outputs:
            line += f"\n  tool outputs: {summarize(list(r.outputs), 4000)}"
        lines.append(line)
    return lines


def app_user(req: AppStepRequest, memory: Sequence[str]) -> str:
    parts = [f"## Overall request\n{req.request}" if req.request else "",
             f"## Your subtask ({req.subtask_id or 'direct'})\n{req.description}"]
    if req.tips:
        parts.append(f"## Tips from the HostAgent\n{req.tips}")
    if req.inputs:
        parts.append("## Results of the subtasks yours depends on\n" + "\n".join(_input_lines(req.inputs)))
    if memory:
        parts.append("## Your previous steps\n" + "\n".join(memory))
    if req.answers:
        parts.append("## Answers from the person\n" + "\n".join(_answers(req.answers)))
    if req.blackboard:
        parts.append(f"## Blackboard\n{req.blackboard}")
    if req.note:
        parts.append(f"## Note from the HostAgent\n{req.note}")
    if req.feedback:
        parts.append(f"## Your previous answer was rejected\n{req.feedback}\nCorrect it.")
    parts.append(f"This is step {req.step} of the subtask. Answer with the JSON object only.")
    return "\n\n".join(p for p in parts if p)


def judge_prompt(requests: Sequence[str], trajectory: str, results: Sequence[SubtaskResult]) -> str:
    return "\n\n".join([
        "You judge whether a desktop agent completed the person's request. Answer with ONE JSON object: "
        '{"reason": "...", "sub_scores": {"<aspect>": "yes|no|unsure"}, "complete": "yes|no|unsure"}.',
        "## Requests\n" + "\n".join(f"- {r}" for r in requests),
        "## Subtask results\n" + ("\n".join(_input_lines(results)) or "(none)"),
        f"## Trajectory\n{trajectory or '(empty)'}",
        "Answer with the JSON object only.",
    ])
