"""The figures of one run, for people (printed at the end) and programs (`--json-out FILE`, and the
`summary` artifact of the session's record).

The JSON object (schema 1):

    session, journal, config        where the record is; which configuration was used
    request, workdir, mode          mode: "batch" or "interactive"; auto_approve: --yes
    models                          {"planner": spec, "apps": {name: spec}, "judge": spec}
    status, ok, exit_code           FINISH / FAIL / ERROR; ok is status == FINISH; the process's exit code
    interrupted                     true when Ctrl-C or SIGTERM ended it
    text, reason, reason_kind       the HostAgent's final text; why it did not finish (kind: podium.errors.ReasonKind)
    steps                           Host + App steps
    model_calls, model_calls_by_role
    input_tokens, output_tokens, tokens, cost   (cost null when a model has no price)
    cached_tokens                               of input_tokens, those a prompt cache served
    seconds                         wall time of the whole command
    subtasks                        [{id, description, application, depends_on, state, steps, result, reason}]
    questions                       [{question, answer, asked_by, subtask, answered_by}]
    approvals                       [{step, agent, subtask, action, confirmation}] (approved / refused, and by whom)
    stopped_programs                programs this run launched and closed at the end
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from podium.desktop import RunResult

if TYPE_CHECKING:
    from podium.cli.config import PodiumConfig
    from podium.cli.models import Models
    from podium.cli.run import RunOptions

SCHEMA = 1


def failed_before_result(request: str, detail: str, kind: str = "failed") -> RunResult:
    """A result for a run that ended without the HostAgent's own (start failure, forced stop)."""
    return RunResult(status="ERROR" if kind != "interrupted" else "FAIL", text=detail, reason=detail,
                     reason_kind=kind, request=request)


@dataclass(frozen=True, slots=True)
class RunSummary:
    session: str
    journal: str
    config: str
    request: str
    workdir: str
    mode: str
    auto_approve: bool
    models: dict[str, Any]
    status: str = "RUNNING"
    exit_code: int = 1
    interrupted: bool = False
    text: str = ""
    reason: str | None = None
    reason_kind: str | None = None
    steps: int = 0
    model_calls: int = 0
    model_calls_by_role: dict[str, int] = field(default_factory=dict)
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0  # of input_tokens, those a prompt cache served (not read again)
    cost: float | None = None
    seconds: float = 0.0
    subtasks: list[dict[str, Any]] = field(default_factory=list)
    questions: list[dict[str, Any]] = field(default_factory=list)
    approvals: list[dict[str, Any]] = field(default_factory=list)
    stopped_programs: list[str] = field(default_factory=list)
    recorded: bool = False
    evaluation: dict[str, Any] | None = None  # the judge's verdict, when evaluation was asked for
    report: str | None = None  # the run's HTML report

    @classmethod
    def begin(cls, session: str, journal: str, options: RunOptions, workdir: Path, models: Models,
              config: PodiumConfig, request: str | None = None) -> RunSummary:
        return cls(session=session, journal=journal, config=config.where, request=request or options.request,
                   workdir=str(workdir), mode="batch" if options.batch else "interactive",
                   auto_approve=options.yes, models=models.specs.as_dict(models.apps))

    def end(self, result: RunResult, models: Models, seconds: float, stopped: list[str], signal_exit: int | None,
            *, recorded: bool) -> RunSummary:
        usage = dict(result.usage)
        board = dict(result.blackboard)
        approvals = [{k: t.get(k) for k in ("step", "agent", "subtask", "action", "confirmation")}
                     for t in board.get("trajectories", ()) if t.get("confirmation")]
        code = signal_exit if signal_exit is not None else 0 if result.ok else 1
        return replace(
            self, status=result.status, exit_code=code, interrupted=signal_exit is not None, text=result.text,
            reason=result.reason, reason_kind=result.reason_kind, steps=result.steps,
            model_calls=models.total_calls, model_calls_by_role=models.calls_by_role(),
            input_tokens=int(usage.get("input_tokens") or 0), output_tokens=int(usage.get("output_tokens") or 0),
            cached_tokens=int(usage.get("cached_tokens") or 0), cost=usage.get("cost"), seconds=round(seconds, 3),
            subtasks=[{k: s.get(k) for k in ("id", "description", "application", "depends_on", "state", "steps",
                                             "result", "reason")} for s in result.subtasks],
            questions=[dict(q) for q in board.get("questions", ())], approvals=approvals,
            stopped_programs=list(stopped), recorded=recorded,
            evaluation=None if result.evaluation is None else dict(result.evaluation))

    def with_report(self, path: str) -> RunSummary:
        return replace(self, report=path)

    def headline(self) -> tuple[str, list[str]]:
        """The result line and the lines that explain it (podium.journal.outcome.explain)."""
        from podium.journal.outcome import explain

        label = "INTERRUPTED" if self.interrupted else self.status
        head, why = explain({"status": self.status, "result": self.text, "reason": self.reason,
                             "reason_kind": self.reason_kind, "subtasks": self.subtasks})
        return f"{label}  {head}", why

    @property
    def ok(self) -> bool:
        return self.status == "FINISH" and not self.interrupted

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def to_dict(self) -> dict[str, Any]:
        body = {name: getattr(self, name) for name in self.__dataclass_fields__}
        return {"schema": SCHEMA, **body, "ok": self.ok, "tokens": self.tokens}

    def write(self, path: Path) -> None:
        """Atomically: a reader never sees half a file."""
        path = path.expanduser()
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
        partial.write_text(json.dumps(self.to_dict(), indent=2, ensure_ascii=False, default=str) + "\n",
                           encoding="utf-8")
        os.replace(partial, path)


def usage_error_summary(request: str, detail: str) -> dict[str, Any]:
    """What --json-out holds when the run could not start (a usage or configuration error)."""
    return {"schema": SCHEMA, "request": request, "status": "ERROR", "ok": False, "exit_code": 2,
            "interrupted": False, "text": detail, "reason": detail, "reason_kind": "invalid_request",
            "steps": 0, "model_calls": 0, "input_tokens": 0, "output_tokens": 0, "tokens": 0, "cost": None,
            "seconds": 0.0, "recorded": False}
