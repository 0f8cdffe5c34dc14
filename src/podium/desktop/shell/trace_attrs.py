"""What the spans of a desktop run's trace say of what they stand for (podium.desktop.shell.trace_tree):
the request's outcome, a subtask's plan, a step's answer and calls, a question or an approval asked.
Names, paths, states, counts and tokens; the text that passed through (the request, descriptions,
questions, summaries) only with `Tracing(content=True)`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from opentelemetry.trace import Status, StatusCode

from podium.desktop.person import ApprovalRequest, Question
from podium.desktop.shell.phases import Phase
from podium.desktop.shell.trace_calls import INPUT_TOKENS, OUTPUT_TOKENS, content, fail
from podium.telemetry import Tracing


def value_of(info: Any, name: str, default: Any = None) -> Any:
    """A field of a Progress' subtask, an outcome's subtask mapping, or a step's request."""
    return info.get(name, default) if isinstance(info, Mapping) else getattr(info, name, default)



def describe_outcome(span: Any, outcome: Any, setting: Tracing) -> None:
    """The request span's end: its status (OK only for FINISH), reason kind, steps and tokens."""
    status = str(value_of(outcome, "status") or "")
    kind = value_of(outcome, "reason_kind")
    if status:
        span.set_attribute("podium.status", status)
    if kind:
        span.set_attribute("podium.reason_kind", str(kind))
    if value_of(outcome, "steps") is not None:
        span.set_attribute("podium.steps", int(value_of(outcome, "steps")))
    usage = value_of(outcome, "usage") or {}
    for key, attribute in (("input_tokens", INPUT_TOKENS), ("output_tokens", OUTPUT_TOKENS)):
        if usage.get(key) is not None:
            span.set_attribute(attribute, int(usage[key]))
    if usage.get("cost") is not None:
        span.set_attribute("podium.cost", float(usage["cost"]))
    text = value_of(outcome, "text")
    if text and setting.content:
        span.set_attribute("podium.result", content(setting, text))
    if status == "FINISH":
        span.set_status(Status(StatusCode.OK))
    else:
        fail(span, setting, str(kind or status.lower() or "unknown"), str(value_of(outcome, "reason") or kind))


def describe_subtask(span: Any, info: Any, setting: Tracing) -> None:
    """What the plan says of a subtask, from a Progress, an outcome or its step's request (whichever
    opened the span says less: a step's request does not name what the subtask depends on)."""
    if value_of(info, "application"):
        span.set_attribute("podium.application", str(value_of(info, "application")))
    for name in ("depends_on", "writes"):
        if value_of(info, name) is not None:
            span.set_attribute(f"podium.subtask.{name}", [str(v) for v in value_of(info, name)])
    if setting.content and value_of(info, "description"):
        span.set_attribute("podium.subtask.description", content(setting, value_of(info, "description")))


def describe_step(span: Any, phase: Phase, ctx: Any) -> None:
    """What the step's context says after a phase: the answer's status and size, the calls' outcome.
    Never its text."""
    if phase is Phase.LLM_INTERACTION:
        output = getattr(ctx, "output", None)
        status = getattr(output, "status", None)
        if status is not None:
            span.set_attribute("podium.step.status", str(getattr(status, "value", status)))
        for name in ("actions", "subtasks"):
            items = getattr(output, name, None)
            if isinstance(items, tuple | list):
                span.set_attribute(f"podium.step.{name}", len(items))
        span.set_attribute("podium.step.invalid_output", getattr(ctx, "invalid", None) is not None)
    elif phase is Phase.ACTION_EXECUTION:
        results = getattr(ctx, "results", None)
        if isinstance(results, list | tuple) and results:
            span.set_attribute("podium.step.calls", len(results))
            span.set_attribute("podium.step.calls_failed", sum(1 for r in results if not r.ok))


def asked(event: Question | ApprovalRequest, setting: Tracing) -> tuple[str, dict[str, Any]]:
    """The span event of a question or an approval asked of the person: its name and attributes."""
    attributes: dict[str, Any] = {"podium.id": event.id, "podium.asked_by": event.asked_by}
    if isinstance(event, Question):
        attributes["podium.questions"] = len(event.questions)
        if setting.content:
            attributes["podium.questions.text"] = [content(setting, q) for q in event.questions]
        return "question", attributes
    attributes["podium.application"] = event.application or ""
    attributes["podium.tools"] = [a.function for a in event.actions]
    if setting.content:
        attributes["podium.summary"] = content(setting, event.summary)
        attributes["podium.reasons"] = [content(setting, r) for r in event.reasons]
    return "approval requested", attributes
