"""A stand-in for `podium run` in the runner's tests: same arguments, a summary in the CLI's --json-out
format, and a behaviour chosen by the model spec (no model, no podium import: it starts fast).

    fake:finish   FINISH, files untouched          fake:ask     FAIL after asking a question
    fake:harm     deletes every file, FINISH       fake:hang    never ends (the runner's timeout)
    fake:crash    exits 3 with no summary          fake:error   ERROR (an invalid answer), files untouched
    fake:solve    does the task right: finds the task by its request and makes the first right end state
                  of its checker's tests (tests/tasks/cases_*.py), with that case's status and questions;
                  reports cached prompt tokens
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["run"])
    parser.add_argument("request")
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--batch", action="store_true")
    parser.add_argument("--json-out", type=Path, required=True)
    parser.add_argument("--config")
    parser.add_argument("--yes", action="store_true")
    args = parser.parse_args()
    if not args.batch:
        print("the suite must run in batch mode", file=sys.stderr)
        return 2
    files = sorted(p for p in args.workdir.rglob("*") if p.is_file())
    behaviour = args.model.removeprefix("fake:")
    summary = {"schema": 1, "session": f"run-fake-{behaviour}", "request": args.request, "status": "FINISH",
               "ok": True, "text": f"saw {len(files)} files", "steps": 3, "model_calls": 4, "input_tokens": 900,
               "output_tokens": 100, "tokens": 1000, "seconds": 0.5, "questions": [], "config": args.config,
               "yes": args.yes}
    if behaviour == "hang":
        time.sleep(60)
    elif behaviour == "crash":
        print("Traceback: boom", file=sys.stderr)
        return 3
    elif behaviour == "harm":
        for path in files:
            path.unlink()
    elif behaviour == "ask":
        summary.update(status="FAIL", ok=False, questions=[
            {"question": "What is the phone number?", "answer": "not available", "asked_by": "host",
             "subtask": None, "answered_by": "default"}])
    elif behaviour == "error":
        summary.update(status="ERROR", ok=False, text="the planner's answer stayed invalid")
    elif behaviour == "solve":
        summary.update(solve(args.request, args.workdir))
    args.json_out.write_text(json.dumps(summary), encoding="utf-8")
    return 0 if summary["ok"] else 1


def solve(request: str, folder: Path) -> dict[str, Any]:
    """Make the first right end state the checker's tests know for the task with this request."""
    sys.path.insert(0, str(ROOT))
    from bench.tasks.suite import TASKS

    from tests.tasks.cases import CASES

    (task,) = [t for t in TASKS if t.request == request]
    case = next(c for c in CASES if c.task == task.name and c.passes)
    case.make(folder)
    questions = [{"question": q, "answer": "not available", "asked_by": "host", "subtask": None,
                  "answered_by": "default"} for q in case.run.questions]
    return {"status": case.run.status, "ok": case.run.status == "FINISH", "text": case.run.text,
            "questions": questions, "cached_tokens": 720}


if __name__ == "__main__":
    raise SystemExit(main())
