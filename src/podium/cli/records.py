"""`podium sessions` and `podium show`: the recorded sessions of the journal.

A `podium run` leaves artifacts next to its journal entries (request, result, subtasks, blackboard,
trajectory, summary). A run whose process died before saving them still has its entries: the host
strategy forwarded every progress snapshot and the final outcome to its observer, and those ops are in
the record, so the subtask graph (and the outcome, if it was reached) is read back from them.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from podium.cli.view import STATE_STYLES
from podium.errors import ConfigError
from podium.journal import Liveness, SessionRecord, Store, UnknownSession, liveness

LATEST = ("last", "latest")


def _when(stamp: float | None) -> str:
    return "-" if stamp is None else datetime.fromtimestamp(stamp).strftime("%m-%d %H:%M:%S")


def _duration(record: SessionRecord) -> str:
    return "-" if record.ended_at is None else f"{record.ended_at - record.started_at:.1f} s"


def resolve(store: Any, ident: str) -> SessionRecord:
    """A session by its name, a unique prefix of it, or `last` (the newest)."""
    records = store.sessions()
    if ident in LATEST:
        if not records:
            raise ConfigError(f"the journal {store.path} holds no sessions yet")
        return records[0]
    exact = [r for r in records if r.name == ident]
    if exact:
        return exact[0]
    matches = [r for r in records if r.name.startswith(ident)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        shown = ", ".join(r.name for r in matches[:5])
        raise ConfigError(f"{ident!r} matches {len(matches)} sessions ({shown}); give more of the name")
    raise ConfigError(f"no session {ident!r} in {store.path}; `podium sessions` lists them")


_LIVENESS_STYLES = {Liveness.RUNNING: "cyan", Liveness.INTERRUPTED: "yellow bold", Liveness.UNKNOWN: "dim"}


def session_rows(store: Any, limit: int) -> tuple[list[dict[str, Any]], int]:
    """The newest `limit` sessions as plain values (what `podium sessions --json` prints), and how many
    there are in all."""
    records = store.sessions()
    rows = []
    for record in records[:limit]:
        outcome = _outcome(store, record.name)
        state = liveness(record)
        process = record.process
        rows.append({
            "session": record.name, "strategy": record.strategy, "record": state.value,
            "started_at": record.started_at, "ended_at": record.ended_at, "entries": record.steps,
            "status": outcome.get("status"), "reason": outcome.get("reason"),
            "request": store.get(record.name, "request") or outcome.get("request"),
            "pid": None if process is None else process.pid, "host": None if process is None else process.host,
            "resume": f"podium resume {record.name}" if state is Liveness.INTERRUPTED else None})
    return rows, len(records)


def list_sessions(store: Any, console: Console, limit: int) -> int:
    rows, total = session_rows(store, limit)
    if not rows:
        console.print(f"No sessions recorded yet in {store.path}.")
        return 0
    records = {r.name: r for r in store.sessions()[:limit]}
    table = Table(title=f"Sessions in {store.path}", title_justify="left", header_style="bold")
    for column in ("session", "started", "duration", "record", "outcome", "request"):
        table.add_column(column, overflow="fold" if column == "request" else "ellipsis",
                         no_wrap=column != "request", min_width=24 if column == "request" else None)
    interrupted = []
    for row in rows:
        record = records[row["session"]]
        state = Liveness(row["record"])
        status = str(row["status"] or "-")
        if state is Liveness.INTERRUPTED:
            interrupted.append(record.name)
        where = f"{state.value} ({row['host']})" if state is Liveness.UNKNOWN and row["host"] else state.value
        table.add_row(record.name, _when(record.started_at), _duration(record),
                      Text(where, _LIVENESS_STYLES.get(state, "")), Text(status, STATE_STYLES.get(status, "")),
                      escape(str(row["request"] or record.strategy)))
    console.print(table)
    if total > limit:
        console.print(f"[dim]{total - limit} older session(s) not shown (--limit)[/]")
    for name in interrupted:
        console.print(f"[yellow]{name}[/] was interrupted (its process is gone): [bold]podium resume {name}[/] "
                      "continues it, [bold]podium undo " + name + "[/] takes its changes back")
    return total


def _outcome(store: Store, name: str) -> Mapping[str, Any]:
    result = store.get(name, "result")
    if result is not None:
        return result
    finished, _ = _from_entries(store, name)
    return finished or {}


def _from_entries(store: Store, name: str) -> tuple[dict[str, Any] | None, Any]:
    """(the last RunFinished outcome, the last Progress) forwarded in the recorded ops."""
    from podium.desktop import Progress, RunFinished
    from podium.journal import codec

    finished, progress = None, None
    for entry in store.entries(name):
        if "RunFinished" not in entry.ops and "Progress" not in entry.ops:
            continue  # decoding every entry of a long run is wasted work
        for op in codec.loads(entry.ops):
            event = getattr(op, "event", None)
            if isinstance(event, RunFinished):
                finished = dict(event.outcome)
            elif isinstance(event, Progress):
                progress = event
    return finished, progress


def show_session(store: Store, ident: str, console: Console, *, as_json: bool = False) -> None:
    record = resolve(store, ident)
    name = record.name
    artifacts = {key: store.get(name, key) for key in store.keys(name)}
    result = artifacts.get("result")
    progress = None
    if result is None:
        result, progress = _from_entries(store, name)
    board = artifacts.get("blackboard") or (result or {}).get("blackboard") or {}
    trajectory = artifacts.get("trajectory") or board.get("trajectories") or []
    fired = rules_fired(trajectory)
    if as_json:
        body = {"session": name, "strategy": record.strategy, "record": record.status.value,
                "started_at": record.started_at, "ended_at": record.ended_at, "close_reason": record.close_reason,
                "entries": record.steps, "rules_fired": fired, **artifacts}
        if "result" not in artifacts and result is not None:
            body["result"] = result
        console.print_json(json.dumps(body, default=str))
        return

    state = liveness(record)
    if state is Liveness.INTERRUPTED:
        console.print(f"[yellow]interrupted[/]: its process is gone; [bold]podium resume {name}[/] continues it")
    console.print(f"[bold]{name}[/]  {record.strategy}  record {state.value}"
                  f"  started {_when(record.started_at)}  ended {_when(record.ended_at)}  {record.steps} entries")
    if record.close_reason:
        console.print(f"[dim]closed: {escape(record.close_reason)}[/]")
    request = artifacts.get("request") or (result or {}).get("request")
    if request:
        console.print(f"[bold]Request[/] {escape(str(request))}")
    summary = artifacts.get("summary") or {}
    if result is not None:
        status = str(result.get("status"))
        console.print(Text.assemble(("Result ", "bold"), (status, STATE_STYLES.get(status, "bold")), "  ",
                                    str(result.get("result") or result.get("text") or "")))
        if result.get("reason"):
            console.print(f"[bold]Reason[/] {escape(str(result['reason']))}")
        usage = result.get("usage") or {}
        figures = [f"steps {result.get('steps', 0)}",
                   f"tokens {usage.get('input_tokens', 0):,} in / {usage.get('output_tokens', 0):,} out"]
        if usage.get("cost") is not None:
            figures.append(f"cost ${usage['cost']:.4f}")
        if summary:
            figures += [f"model calls {summary.get('model_calls', 0)}", f"{summary.get('seconds', 0):.1f} s"]
        console.print("[dim]" + " · ".join(figures) + "[/]")
        console.print("[bold]Rules fired[/] " + (", ".join(f"{rule} {n}x" for rule, n in fired.items()) or "none"))
    elif progress is not None:
        console.print(f"[yellow]The run did not end in this record[/] (last state {progress.host_state}: "
                      f"{escape(progress.current)})")
    subtasks = list(artifacts.get("subtasks") or (result or {}).get("subtasks") or [])
    if not subtasks and progress is not None:
        subtasks = [{"id": s.id, "application": s.application, "state": s.state, "steps": s.steps,
                     "depends_on": list(s.depends_on), "description": s.description} for s in progress.subtasks]
    if subtasks:
        _subtask_table(console, subtasks)
    _questions(console, board.get("questions") or [])
    _results(console, board.get("results") or [])
    _trajectory(console, trajectory)


def rules_fired(trajectory: list[Mapping[str, Any]]) -> dict[str, int]:
    """How many steps each named rule (podium.desktop.rules) fired in, most first."""
    counts = Counter(rule for step in trajectory for rule in step.get("rules") or ())
    return dict(counts.most_common())


def _subtask_table(console: Console, subtasks: list[Mapping[str, Any]]) -> None:
    table = Table(title="Subtask graph", title_justify="left", header_style="bold")
    for column in ("id", "application", "state", "steps", "after", "subtask", "result / reason"):
        table.add_column(column, overflow="fold")
    for s in subtasks:
        state = str(s.get("state"))
        outcome = s.get("reason") or s.get("result")
        table.add_row(str(s.get("id")), str(s.get("application")), Text(state, STATE_STYLES.get(state, "")),
                      str(s.get("steps", 0)), ",".join(s.get("depends_on") or []) or "-",
                      escape(str(s.get("description", ""))), escape(_short(outcome)))
    console.print(table)


def _questions(console: Console, questions: list[Mapping[str, Any]]) -> None:
    if not questions:
        return
    table = Table(title="Questions", title_justify="left", header_style="bold")
    for column in ("asked by", "question", "answer", "answered by"):
        table.add_column(column, overflow="fold")
    for q in questions:
        table.add_row(str(q.get("asked_by")), escape(str(q.get("question"))), escape(str(q.get("answer"))),
                      str(q.get("answered_by")))
    console.print(table)


def _results(console: Console, results: list[Mapping[str, Any]]) -> None:
    if not results:
        return
    table = Table(title="Blackboard: subtask results", title_justify="left", header_style="bold")
    for column in ("subtask", "application", "status", "result"):
        table.add_column(column, overflow="fold")
    for r in results:
        table.add_row(str(r.get("subtask")), str(r.get("application")), str(r.get("status")),
                      escape(_short(r.get("result"))))
    console.print(table)


def _trajectory(console: Console, steps: list[Mapping[str, Any]]) -> None:
    if not steps:
        return
    table = Table(title="Trajectory", title_justify="left", header_style="bold")
    for column in ("step", "agent", "subtask", "status", "action", "outcome"):
        table.add_column(column, overflow="fold")
    for t in steps:
        action = str(t.get("action") or "")
        if t.get("confirmation"):
            action += f" [{t['confirmation']}]"
        outcome = t.get("error") or t.get("outcome")
        table.add_row(str(t.get("step")), str(t.get("agent")), str(t.get("subtask") or "-"), str(t.get("status")),
                      escape(_short(action, 160)), escape(_short(outcome, 160)))
    console.print(table)


def _short(value: Any, limit: int = 120) -> str:
    if value is None or value == "":
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


__all__ = ["LATEST", "UnknownSession", "list_sessions", "resolve", "show_session"]
