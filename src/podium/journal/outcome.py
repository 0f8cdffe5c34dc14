"""The honest line about how a run ended: its status and what really ended it.

A run that did not finish is headed by the limit, the refusal, the cancellation (a reason of its own
kind), else by the failed subtask and why; the planner's last comment, which may claim what never
happened ("FAIL notes.txt rewritten" when nothing was written), comes below, said to be its comment.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_PLANNERS_WORD = (None, "", "failed")  # a reason of these kinds is only the planner's own comment


def explain(outcome: Mapping[str, Any]) -> tuple[str, list[str]]:
    """(the headline, the lines that explain it) for a run's outcome (status, reason, reason_kind, result
    or text, subtasks)."""
    status = str(outcome.get("status") or "-")
    text = str(outcome.get("result") or outcome.get("text") or "")
    if status == "FINISH":
        return text, []
    reason = str(outcome.get("reason") or "")
    failed = [s for s in outcome.get("subtasks") or () if s.get("state") in ("FAIL", "ERROR")]
    why = [f"subtask {s.get('id')} [{s.get('application')}] {s.get('state')}: "
           f"{s.get('reason') or s.get('result') or 'no reason given'}" for s in failed]
    if reason and outcome.get("reason_kind") not in _PLANNERS_WORD:
        head = reason
    elif why:
        head = why.pop(0)
    else:
        head = f"the HostAgent ended the request with {status} and no failed subtask to show for it"
    comment = text or (reason if outcome.get("reason_kind") in _PLANNERS_WORD else "")
    if comment and comment != head:
        why.append(f"the HostAgent's last comment: {comment}")
    return head, why
