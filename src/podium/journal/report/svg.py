"""The report's two pictures, as inline SVG (no script, no external asset): the subtask graph (columns by
dependency depth, so subtasks that can run in parallel share a column, one lane each; states coloured),
and the timeline of steps, one lane per agent."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

STATE_COLOURS = {"FINISH": "#2e7d32", "FAIL": "#c62828", "ERROR": "#b71c1c", "CONTINUE": "#f9a825",
                 "WAITING": "#9e9e9e", "PENDING": "#8e24aa", "CONFIRM": "#8e24aa", "SKIPPED": "#bdbdbd",
                 "ASSIGN": "#1565c0", "IN FLIGHT": "#ef6c00"}
PHASE_COLOURS = {"DATA_COLLECTION": "#90caf9", "LLM_INTERACTION": "#1e88e5", "ACTION_EXECUTION": "#43a047",
                 "MEMORY_UPDATE": "#fdd835"}
_BOX_W, _BOX_H, _GAP_X, _GAP_Y, _PAD = 210, 64, 70, 18, 12


def colour(state: str) -> str:
    return STATE_COLOURS.get(state, "#607d8b")


def depths(subtasks: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Each subtask's column: 0 without dependencies, else one past its deepest dependency."""
    ids = {str(s.get("id")) for s in subtasks}
    deps = {str(s.get("id")): [str(d) for d in s.get("depends_on") or () if str(d) in ids] for s in subtasks}
    found: dict[str, int] = {}

    def depth(sid: str, seen: frozenset[str]) -> int:
        if sid in found:
            return found[sid]
        if sid in seen:  # a cycle in a damaged record: drawn, not followed
            return 0
        found[sid] = 1 + max((depth(d, seen | {sid}) for d in deps[sid]), default=-1)
        return found[sid]

    for sid in deps:
        depth(sid, frozenset())
    return found


def subtask_graph(subtasks: Sequence[Mapping[str, Any]]) -> str:
    if not subtasks:
        return '<p class="none">No subtask graph was planned.</p>'
    column = depths(subtasks)
    lanes: dict[int, int] = {}
    place: dict[str, tuple[int, int]] = {}
    for s in subtasks:
        sid = str(s.get("id"))
        col = column[sid]
        place[sid] = (col, lanes.get(col, 0))
        lanes[col] = lanes.get(col, 0) + 1
    width = _PAD * 2 + (max(column.values()) + 1) * (_BOX_W + _GAP_X) - _GAP_X
    height = _PAD * 2 + max(lanes.values()) * (_BOX_H + _GAP_Y) - _GAP_Y

    def xy(sid: str) -> tuple[int, int]:
        col, lane = place[sid]
        return _PAD + col * (_BOX_W + _GAP_X), _PAD + lane * (_BOX_H + _GAP_Y)

    parts = [f'<svg id="subtask-graph" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" role="img" aria-label="subtask graph">',
             '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
             'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#555"/></marker></defs>']
    for s in subtasks:
        x, y = xy(str(s.get("id")))
        for dep in s.get("depends_on") or ():
            if str(dep) in place:
                dx, dy = xy(str(dep))
                parts.append(f'<path class="edge" d="M {dx + _BOX_W} {dy + _BOX_H / 2} C {dx + _BOX_W + _GAP_X / 2} '
                             f'{dy + _BOX_H / 2}, {x - _GAP_X / 2} {y + _BOX_H / 2}, {x} {y + _BOX_H / 2}" '
                             'fill="none" stroke="#555" stroke-width="1.5" marker-end="url(#arrow)"/>')
    for s in subtasks:
        sid, state = str(s.get("id")), str(s.get("state") or "WAITING")
        x, y = xy(sid)
        description = str(s.get("description") or "")
        short = description if len(description) <= 30 else description[:29] + "…"
        application = str(s.get("application"))
        title = f"subtask {sid} [{application}] {state}: {description}"
        parts.append(
            f'<g class="node" data-subtask="{escape(sid)}" data-state="{escape(state)}">'
            f'<title>{escape(title)}</title>'
            f'<rect x="{x}" y="{y}" width="{_BOX_W}" height="{_BOX_H}" rx="8" fill="#fff" '
            f'stroke="{colour(state)}" stroke-width="3"/>'
            f'<rect x="{x}" y="{y}" width="8" height="{_BOX_H}" rx="3" fill="{colour(state)}"/>'
            f'<text x="{x + 16}" y="{y + 20}" font-weight="bold">{escape(sid)} · {escape(application)}'
            f'</text><text x="{x + 16}" y="{y + 38}" fill="{colour(state)}" font-weight="bold">{escape(state)}'
            f' · {int(s.get("steps") or 0)} steps</text>'
            f'<text x="{x + 16}" y="{y + 55}" fill="#333">{escape(short)}</text></g>')
    parts.append("</svg>")
    return "".join(parts)


def timeline(steps: Sequence[Any], started: float) -> str:
    """`steps` are report Steps; one lane per agent, a bar per step from its dispatch to its answer."""
    if not steps:
        return '<p class="none">No step was recorded.</p>'
    agents = list(dict.fromkeys(s.agent for s in steps))
    end = max((s.answered_at or s.sent_at) for s in steps)
    span = max(end - started, 1e-3)
    label_w, width, lane_h = 130, 900, 26
    height = 24 + len(agents) * lane_h
    scale = (width - label_w - 10) / span
    parts = [f'<svg id="timeline" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" role="img" aria-label="timeline of steps per agent">']
    for i, agent in enumerate(agents):
        y = 20 + i * lane_h
        parts.append(f'<text x="4" y="{y + 15}" class="lane">{escape(agent)}</text>'
                     f'<line x1="{label_w}" y1="{y + lane_h - 2}" x2="{width - 4}" y2="{y + lane_h - 2}" '
                     'stroke="#eee"/>')
    for s in steps:
        y = 20 + agents.index(s.agent) * lane_h
        x = label_w + (s.sent_at - started) * scale
        w = max(((s.answered_at or end) - s.sent_at) * scale, 3)
        seconds = (s.answered_at or end) - s.sent_at
        parts.append(f'<a href="#step-{s.number}"><rect class="bar" data-step="{s.number}" x="{x:.1f}" y="{y + 3}" '
                     f'width="{w:.1f}" height="{lane_h - 8}" rx="3" fill="{colour(s.status)}">'
                     f'<title>step {s.number} · {escape(s.agent)} · {escape(s.status)} · {seconds:.2f} s</title>'
                     '</rect></a>')
    parts.append(f'<text x="{label_w}" y="12" class="axis">0 s</text>'
                 f'<text x="{width - 4}" y="12" text-anchor="end" class="axis">{span:.1f} s</text></svg>')
    return "".join(parts)


def phases_bar(timings: Mapping[str, float]) -> str:
    """The 4 phases of one step as a stacked bar, widths in proportion to their time."""
    total = sum(timings.values())
    if total <= 0:
        return ""
    parts, x = ['<svg class="phases" xmlns="http://www.w3.org/2000/svg" width="240" height="12">'], 0.0
    for phase, ms in timings.items():
        w = 240 * ms / total
        parts.append(f'<rect x="{x:.1f}" y="0" width="{w:.1f}" height="12" fill="{PHASE_COLOURS.get(phase, "#999")}">'
                     f'<title>{escape(phase)} {ms:.1f} ms</title></rect>')
        x += w
    parts.append("</svg>")
    return "".join(parts)
