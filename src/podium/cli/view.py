"""How a run shows its progress: a Rich Live view on a terminal (the subtask graph with each subtask's
state, what is happening now, steps, tokens and cost, time), plain lines when the output is a file or a
pipe (CI logs, the task runner), one line per change.

Both take the HostAgent's `Progress` snapshots; `pause()` lets a question or an approval use the
terminal without the live view drawing over it.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Protocol

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from podium.desktop import Progress

STATE_STYLES = {"WAITING": "dim", "CONTINUE": "yellow", "PENDING": "magenta", "CONFIRM": "magenta",
                "FINISH": "green", "FAIL": "red", "ERROR": "red", "SKIPPED": "dim strike"}


def tokens_line(progress: Progress | None, seconds: float) -> str:
    if progress is None:
        return f"{seconds:.1f} s"
    cost = "" if progress.cost is None else f" · cost ${progress.cost:.4f}"
    return (f"steps {progress.steps} · tokens {progress.input_tokens:,} in / {progress.output_tokens:,} out"
            f"{cost} · {seconds:.1f} s")


class RunView(Protocol):
    def start(self) -> None: ...

    def stop(self) -> None: ...

    def progress(self, event: Progress) -> None: ...

    def note(self, text: str) -> None: ...

    def pause(self) -> contextlib.AbstractContextManager[None]: ...


class LiveView:
    """The terminal view: redrawn in place a few times a second."""

    def __init__(self, console: Console, request: str, session: str) -> None:
        self.console = console
        self.request = request
        self.session = session
        self.latest: Progress | None = None
        self.started = time.monotonic()
        self._stopped = True
        self._live = Live(console=console, refresh_per_second=4, transient=False, get_renderable=self._render)

    def start(self) -> None:
        self.started = time.monotonic()
        self._stopped = False
        self._live.start()

    def stop(self) -> None:
        self._stopped = True
        self._live.stop()

    def progress(self, event: Progress) -> None:
        if event.token is None and self.latest is not None:  # the run is over: keep its last picture
            return
        self.latest = event

    def note(self, text: str) -> None:
        self._live.console.print(text)  # printed above the live area

    @contextlib.contextmanager
    def pause(self) -> Iterator[None]:
        self._live.stop()
        try:
            yield
        finally:
            if not self._stopped:  # a question cut short by the end of the run must not restart the view
                self._live.start()

    def _render(self) -> RenderableType:
        p = self.latest
        head = Text.assemble(("podium ", "bold"), (self.session, "cyan"), "  ", (self.request, "italic"))
        host = p.host_state if p else "starting"
        now = Text.assemble(("HostAgent ", "bold"), (host, STATE_STYLES.get(host, "bold blue")),
                            "  ", (p.current if p else "starting the agents", ""))
        parts: list[RenderableType] = [head, now]
        if p and p.subtasks:
            table = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold dim")
            for column in ("id", "application", "state", "steps", "after", "subtask"):
                table.add_column(column, no_wrap=column != "subtask", overflow="ellipsis")
            for s in p.subtasks:
                table.add_row(s.id, s.application, Text(s.state, STATE_STYLES.get(s.state, "")), str(s.steps),
                              ",".join(s.depends_on) or "-", escape(s.description))
            parts.append(table)
        if p and p.waiting_for:
            parts.append(Text(f"waiting for you: {', '.join(p.waiting_for)}", "magenta"))
        parts.append(Text(tokens_line(p, time.monotonic() - self.started), "dim"))
        return Group(*parts)


class LineView:
    """One line per change, for logs: the host's state and current step, and each subtask's new state."""

    def __init__(self, console: Console, request: str, session: str) -> None:
        self.console = console
        self.request = request
        self.session = session
        self.started = time.monotonic()
        self._last_line = ""
        self._states: dict[str, str] = {}

    def start(self) -> None:
        self.started = time.monotonic()
        self._line(f"podium {self.session}: {self.request}")

    def stop(self) -> None:
        return None

    def progress(self, event: Progress) -> None:
        if event.token is None:  # the idle snapshot after the run: the outcome is printed anyway
            return
        for s in event.subtasks:
            if self._states.get(s.id) != s.state:
                self._states[s.id] = s.state
                after = f" after {','.join(s.depends_on)}" if s.depends_on else ""
                self._line(f"  subtask {s.id} [{s.application}]{after} {s.state}: {s.description}")
        line = f"[{event.steps:>3}] {event.host_state}: {event.current}"
        if line != self._last_line:
            self._last_line = line
            self._line(f"{line}  ({tokens_line(event, time.monotonic() - self.started)})")

    def _line(self, text: str) -> None:
        # A log line is never wrapped nor read as markup: "[documents]" is text here.
        self.console.print(text, markup=False, highlight=False, soft_wrap=True)

    def note(self, text: str) -> None:
        self.console.print(text, soft_wrap=True)

    @contextlib.contextmanager
    def pause(self) -> Iterator[None]:
        yield


def make_view(console: Console, request: str, session: str) -> RunView:
    return LiveView(console, request, session) if console.is_terminal else LineView(console, request, session)
