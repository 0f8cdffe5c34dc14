"""The report as one HTML page: inline CSS, inline SVG, screenshots as data: URLs, no network, no
external asset. Everything is readable with JavaScript off (prompts and answers fold with <details>);
the small script only adds "unfold all" / "fold all"."""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Mapping
from datetime import datetime
from html import escape
from pathlib import Path
from typing import Any

from podium.journal.files import FOLDER
from podium.journal.outcome import explain
from podium.journal.report.diffs import diff_file
from podium.journal.report.model import Report, Step
from podium.journal.report.svg import colour, phases_bar, subtask_graph, timeline

MAX_SCREENSHOT = 5 * 1024 * 1024
MAX_TEXT = 60_000  # characters of one prompt or answer shown

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#222;background:#fafafa}
main{max-width:1200px;margin:0 auto;padding:16px 24px 64px}
h1{font-size:20px;margin:8px 0}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
.status{display:inline-block;padding:2px 10px;border-radius:12px;color:#fff;font-weight:bold}
.muted{color:#666}.none{color:#888;font-style:italic}
table{border-collapse:collapse;width:100%;background:#fff}td,th{border:1px solid #ddd;padding:4px 6px;
vertical-align:top;text-align:left}th{background:#f0f0f0}
pre{white-space:pre-wrap;word-break:break-word;background:#f6f8fa;padding:8px;border-radius:4px;margin:4px 0;
max-height:480px;overflow:auto;font-size:12px}td pre{max-height:180px}
.scroll{overflow-x:auto;background:#fff;border:1px solid #ddd;padding:6px}
article.step{background:#fff;border:1px solid #ddd;border-left:6px solid #999;border-radius:4px;margin:10px 0;
padding:8px 12px}article.step h3{font-size:14px;margin:0 0 4px}
details summary{cursor:pointer;color:#1565c0}
.diff{font-family:ui-monospace,monospace;font-size:12px;background:#fff;border:1px solid #ddd;padding:6px}
.diff div{white-space:pre-wrap}.d-plus{background:#e8f5e9;color:#1b5e20}.d-minus{background:#ffebee;color:#b71c1c}
.d-change{background:#fff8e1;color:#6d4c00}.d-note{color:#666;font-style:italic}
img.shot{max-width:100%;border:1px solid #ccc;margin:6px 0}
.rules span{display:inline-block;background:#ede7f6;color:#4527a0;border-radius:10px;padding:0 8px;margin-right:4px}
.legend span{display:inline-block;margin-right:12px}.legend i{display:inline-block;width:12px;height:12px;
margin-right:4px;vertical-align:middle}
#fold{display:none}
"""
_SCRIPT = """
document.getElementById('fold').style.display='block';
document.getElementById('unfold-all').onclick=function(){document.querySelectorAll('details').forEach(function(d){d.open=true})};
document.getElementById('fold-all').onclick=function(){document.querySelectorAll('details').forEach(function(d){d.open=false})};
"""


def render(report: Report) -> str:
    r = report.record
    result = report.result
    status = str(result.get("status") or ("RUNNING" if r.status.value == "running" else r.status.value))
    body = [
        f"<header><h1>podium run {escape(r.name)}</h1>",
        f'<p><b>Request</b> {escape(report.request) or "<i>unknown</i>"}</p>',
        f'<p><span class="status" style="background:{colour(status)}">{escape(status)}</span> '
        f"{escape(_headline(result))}</p>",
        _reasons(result), _evaluation(result.get("evaluation")), _figures(report), "</header>",
        '<div id="fold"><button id="unfold-all">unfold all</button> <button id="fold-all">fold all</button></div>',
        "<h2>Subtask graph</h2>", _legend(), f'<div class="scroll">{subtask_graph(report.subtasks)}</div>',
        _subtask_table(report.subtasks),
        "<h2>Timeline</h2>", f'<div class="scroll">{timeline(report.steps, r.started_at)}</div>',
        f"<h2>Steps ({len(report.steps)})</h2>", *(_step(s, r.started_at) for s in report.steps),
        "<h2>Files changed</h2>", _changes(report),
        "<h2>Questions and approvals</h2>", _people(report),
        "<h2>Trajectory</h2>", _trajectory(report.trajectory),
    ]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; "
            "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">"
            f"<title>podium run {escape(r.name)}</title><style>{_CSS}</style></head><body><main>"
            + "\n".join(part for part in body if part) + f"</main><script>{_SCRIPT}</script></body></html>\n")


def _headline(result: Mapping[str, Any]) -> str:
    if not result:
        return "The run did not end in this record (its process stopped first)."
    return explain(result)[0]


def _reasons(result: Mapping[str, Any]) -> str:
    if not result:
        return ""
    return "".join(f'<p class="muted">{escape(line)}</p>' for line in explain(result)[1])


def _evaluation(verdict: Any) -> str:
    if not isinstance(verdict, Mapping):
        return ""
    scores = ", ".join(f"{k}: {v}" for k, v in (verdict.get("sub_scores") or {}).items())
    return (f'<p id="verdict"><b>Judge</b> complete: {escape(str(verdict.get("complete")))} · '
            f'{escape(str(verdict.get("reason") or ""))}{" · " + escape(scores) if scores else ""}</p>')


def _figures(report: Report) -> str:
    usage = report.result.get("usage") or {}
    summary = report.artifacts.get("summary") or {}
    parts = [f"steps {report.result.get('steps', len(report.steps))}",
             f"tokens {int(usage.get('input_tokens') or 0):,} in / {int(usage.get('output_tokens') or 0):,} out"]
    parts.append("cost unknown (no price)" if usage.get("cost") is None else f"cost ${usage['cost']:.4f}")
    if summary:
        parts += [f"model calls {summary.get('model_calls', 0)}", f"{summary.get('seconds', 0):.1f} s"]
        models = summary.get("models") or {}
        if models:
            parts.append(f"models {escape(json.dumps(models, ensure_ascii=False))}")
        parts.append(f"workspace {escape(str(summary.get('workdir', '')))}")
    started = datetime.fromtimestamp(report.record.started_at).strftime("%Y-%m-%d %H:%M:%S")
    return f'<p id="usage" class="muted">started {started} · ' + " · ".join(parts) + "</p>"


def _legend() -> str:
    states = ("FINISH", "CONTINUE", "WAITING", "PENDING", "FAIL", "SKIPPED")
    return '<p class="legend">' + "".join(f'<span><i style="background:{colour(s)}"></i>{s}</span>'
                                          for s in states) + "</p>"


def _table(headers: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    """A table of cells that are HTML already (escaped by the caller)."""
    head = "".join(f"<th>{h}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _subtask_table(subtasks: list[Mapping[str, Any]]) -> str:
    if not subtasks:
        return ""
    return _table(("id", "application", "state", "after", "subtask", "result / reason"), [
        (escape(str(s.get("id"))), escape(str(s.get("application"))),
         f'<b style="color:{colour(str(s.get("state")))}">{escape(str(s.get("state")))}</b>',
         escape(", ".join(s.get("depends_on") or []) or "-"), escape(str(s.get("description"))),
         escape(_short(s.get("reason") or s.get("result")))) for s in subtasks])


def _step(step: Step, started: float) -> str:
    body = step.body
    took = "" if step.answered_at is None else f" · {step.answered_at - step.sent_at:.2f} s"
    number = (step.trajectory or {}).get("step")
    label = f"trajectory step {number} · " if number is not None else ""
    subtask = f" · subtask {escape(step.subtask)}" if step.subtask else ""
    phases = " · ".join(f"{escape(k)} {v:.1f} ms" for k, v in step.timings.items())
    parts = [f'<article class="step" id="step-{step.number}" data-agent="{escape(step.agent)}" '
             f'style="border-left-color:{colour(step.status)}">',
             f"<h3>Step {step.number} · {escape(step.agent)}{subtask} · "
             f'<span style="color:{colour(step.status)}">{escape(step.status)}</span></h3>',
             f'<p class="muted">{label}sent at +{step.sent_at - started:.2f} s{took}</p>']
    if phases:
        parts.append(f'<p class="muted">{phases_bar(step.timings)} {phases}</p>')
    if step.rules:
        parts.append('<p class="rules">rules fired: ' + "".join(f"<span>{escape(r)}</span>" for r in step.rules)
                     + "</p>")
    if step.trajectory and step.trajectory.get("confirmation"):
        parts.append(f"<p><b>Person</b>: {escape(str(step.trajectory['confirmation']))}</p>")
    parts.append(_fold("prompt", step.prompt))
    answer = body.get("raw") if isinstance(body.get("raw"), str) else step.answer
    parts.append(_fold("answer", answer if step.error is None else step.error))
    calls = step.tool_calls
    if calls:
        parts.append("<table><tr><th>tool call</th><th>arguments</th><th>result</th></tr>" + "".join(
            f"<tr><td>{escape(str(c.get('function')))}{'' if c.get('ok') else ' <b style=color:#c62828>failed</b>'}"
            f"</td><td><pre>{escape(_json_text(c.get('arguments')))}</pre></td>"
            f"<td>{_fold('result', c.get('content') if c.get('ok') else c.get('error'))}</td></tr>"
            for c in calls) + "</table>")
    for error in body.get("errors") or ():
        parts.append(f'<p style="color:#c62828">{escape(_short(error, 400))}</p>')
    shot = _screenshot(body.get("screenshot"))
    if shot:
        parts.append(shot)
    parts.append("</article>")
    return "".join(parts)


def _fold(title: str, value: Any) -> str:
    text = value if isinstance(value, str) else _json_text(value)
    text = _pretty(text)
    if len(text) > MAX_TEXT:
        text = text[:MAX_TEXT] + f"\n… {len(text) - MAX_TEXT:,} more characters"
    return f"<details><summary>{escape(title)} ({len(text):,} characters)</summary><pre>{escape(text)}</pre></details>"


def _pretty(text: str) -> str:
    try:
        return json.dumps(json.loads(text), indent=1, ensure_ascii=False)
    except ValueError:
        return text


def _json_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, indent=1, ensure_ascii=False, default=str)


def _short(value: Any, limit: int = 200) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _screenshot(path: Any) -> str:
    if not isinstance(path, str) or not path:
        return ""
    file = Path(path)
    try:
        if not file.is_file() or os.path.getsize(file) > MAX_SCREENSHOT:
            return f'<p class="none">screenshot {escape(path)} is no longer there</p>'
        data = base64.b64encode(file.read_bytes()).decode("ascii")
    except OSError:
        return f'<p class="none">screenshot {escape(path)} could not be read</p>'
    return f'<img class="shot" alt="screenshot {escape(file.name)}" src="data:image/png;base64,{data}">'


def _changes(report: Report) -> str:
    if not report.changes:
        return '<p class="none">The change log holds no file change for this run.</p>'
    parts = []
    for change in report.changes:
        verb = "created" if change.before is None else "deleted" if change.after is None else "changed"
        if FOLDER in (change.before, change.after):
            parts.append(f'<section class="file" data-path="{escape(change.path)}"><h3>{escape(change.path)}/ '
                         f'<span class="muted">folder {verb}</span></h3></section>')
            continue
        missing = [report.unreadable[d] for d in (change.before, change.after) if d in report.unreadable]
        parts.append(f'<section class="file" data-path="{escape(change.path)}"><h3>{escape(change.path)} '
                     f'<span class="muted">{verb}</span></h3>')
        if missing:
            parts.append(f'<p style="color:#c62828">{escape(missing[0])}</p></section>')
            continue
        lines = diff_file(change.path, report.copies.get(change.before or ""), report.copies.get(change.after or ""))
        css = {"+": "d-plus", "-": "d-minus", "~": "d-change", "!": "d-note"}
        parts.append('<div class="diff">' + "".join(
            f'<div class="{css.get(line.sign, "")}">{escape(line.sign)} {escape(line.text)}</div>' for line in lines)
            + "</div></section>")
    return "".join(parts)


def _people(report: Report) -> str:
    questions = report.blackboard.get("questions") or []
    approvals = [t for t in report.trajectory if t.get("confirmation")]
    if not questions and not approvals:
        return '<p class="none">Nobody was asked anything.</p>'
    rows = [("question", escape(str(q.get("asked_by"))), escape(str(q.get("question"))),
             f'{escape(str(q.get("answer")))} <span class="muted">({escape(str(q.get("answered_by")))})</span>')
            for q in questions]
    rows += [("approval", escape(str(t.get("agent"))), escape(_short(t.get("action"), 400)),
              escape(str(t.get("confirmation")))) for t in approvals]
    return _table(("kind", "asked by", "what", "answer"), rows)


def _trajectory(entries: list[Mapping[str, Any]]) -> str:
    if not entries:
        return '<p class="none">No trajectory was saved (the run did not end cleanly).</p>'
    return _table(("step", "agent", "subtask", "status", "action", "outcome", "rules"), [
        (escape(str(t.get("step"))), escape(str(t.get("agent"))), escape(str(t.get("subtask") or "-")),
         escape(str(t.get("status"))), escape(_short(t.get("action"), 300)),
         escape(_short(t.get("error") or t.get("outcome"), 300)),
         escape(", ".join(str(r) for r in t.get("rules") or ()))) for t in entries])
