"""The person at the terminal: answers the HostAgent's questions (PENDING) and approves or refuses
sensitive steps (CONFIRM).

Input is read without blocking the event loop (the live view, the agents and Ctrl-C keep working
while the person thinks): from a terminal or a pipe through the loop's reader, otherwise (a file, a
test's in-memory stdin) by a daemon thread, which never keeps the process alive at exit. End of input
means nobody is there: questions get the configured default answer, approvals are refused.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import io
import json
import os
import stat
import sys
import threading
from collections.abc import Sequence
from typing import TextIO

from rich.console import Console
from rich.markup import escape

from podium.cli.view import RunView
from podium.desktop import ApprovalRequest, Question

_YES = frozenset({"y", "yes"})
_NO = frozenset({"n", "no", ""})
_ATTEMPTS = 3


class LineReader:
    """`await readline()` -> a line without its newline, or None at end of input."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stdin
        self._fd = _pollable_fd(self.stream)
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._buffer = ""
        self._eof = False

    @property
    def interactive(self) -> bool:
        try:
            return self.stream.isatty()
        except (ValueError, AttributeError):
            return False

    async def readline(self) -> str | None:
        if self._fd is None:
            return await _in_daemon_thread(self.stream.readline)
        while "\n" not in self._buffer and not self._eof:
            chunk = await self._read_fd(self._fd)
            self._eof = not chunk
            self._buffer += self._decoder.decode(chunk, final=self._eof)
        if not self._buffer and self._eof:
            return None
        line, _, self._buffer = self._buffer.partition("\n")
        return line

    @staticmethod
    async def _read_fd(fd: int) -> bytes:
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()
        loop.add_reader(fd, lambda: ready.done() or ready.set_result(None))
        try:
            await ready
        finally:
            loop.remove_reader(fd)
        return os.read(fd, 4096)


def _pollable_fd(stream: TextIO) -> int | None:
    """The stream's descriptor when the event loop can wait on it (terminal, pipe, socket)."""
    try:
        fd = stream.fileno()
        mode = os.fstat(fd).st_mode
    except (OSError, ValueError, io.UnsupportedOperation, AttributeError):
        return None
    return fd if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) else None


async def _in_daemon_thread(read: object) -> str | None:
    loop = asyncio.get_running_loop()
    future: asyncio.Future[str | None] = loop.create_future()

    def work() -> None:
        try:
            line = read()  # type: ignore[operator]
            result = None if not line else str(line).rstrip("\r\n")
        except (OSError, ValueError, EOFError):
            result = None
        with contextlib.suppress(RuntimeError):  # the loop may be gone after an interrupt
            loop.call_soon_threadsafe(lambda: future.done() or future.set_result(result))

    threading.Thread(target=work, name="podium-stdin", daemon=True).start()
    return await future


class TerminalPerson:
    """The `ask_person` and `approve` hooks of a HostSession, at the terminal."""

    def __init__(self, console: Console, view: RunView, reader: LineReader, *, default_answer: str,
                 auto_approve: bool = False) -> None:
        self.console = console
        self.view = view
        self.reader = reader
        self.default_answer = default_answer
        self.auto_approve = auto_approve
        self._lock = asyncio.Lock()  # one interaction at a time, even with subtasks in parallel

    async def ask(self, question: Question) -> Sequence[str]:
        async with self._lock, _paused(self.view):
            who = _who(question.asked_by, question.subtask)
            self.console.print(f"\n[bold magenta]?[/] [bold]{escape(who)} asks[/]"
                               + (f": {escape(question.context)}" if question.context else ""))
            answers: list[str] = []
            for n, text in enumerate(question.questions, 1):
                self.console.print(f"  {n}. {escape(text)}")
                line = await self._input("  answer> ")
                if line is None:
                    self.console.print(f"  [dim](no input: answering {self.default_answer!r})[/]")
                    answers.append(self.default_answer)
                else:
                    answers.append(line.strip())
            return answers

    async def approve(self, request: ApprovalRequest) -> bool:
        async with self._lock, _paused(self.view):
            who = _who(request.asked_by, request.subtask, request.application)
            self.console.print(f"\n[bold yellow]![/] [bold]{escape(who)} wants to:[/] {escape(request.summary)}")
            for action in request.actions:
                arguments = json.dumps(action.arguments, ensure_ascii=False)
                shown = arguments if len(arguments) <= 300 else arguments[:297] + "..."
                self.console.print(f"    {escape(action.function)} {escape(shown)}", highlight=False)
            if self.auto_approve:
                self.console.print("  [green]approved[/] (--yes)")
                return True
            for _ in range(_ATTEMPTS):
                line = await self._input("  approve? [y/N]> ")
                if line is None:
                    self.console.print("  [red]refused[/] (no input)")
                    return False
                answer = line.strip().lower()
                if answer in _YES or answer in _NO:
                    approved = answer in _YES
                    self.console.print("  [green]approved[/]" if approved else "  [red]refused[/]")
                    return approved
                self.console.print("  please answer y or n")
            self.console.print("  [red]refused[/] (no clear answer)")
            return False

    async def _input(self, prompt: str) -> str | None:
        self.console.print(prompt, end="", markup=False, highlight=False)
        self.console.file.flush()
        line = await self.reader.readline()
        if line is None:
            self.console.print()
        elif not self.reader.interactive:
            # A terminal echoes what is typed; a pipe or a file does not, and the log would lose it.
            self.console.print(line, markup=False, highlight=False)
        return line


@contextlib.asynccontextmanager
async def _paused(view: RunView):  # type: ignore[no-untyped-def]
    with view.pause():
        yield


def _who(asked_by: str, subtask: str | None, application: str | None = None) -> str:
    name = "The HostAgent" if asked_by == "host" else f"The AppAgent {asked_by}"
    where = []
    if application:
        where.append(application)
    if subtask:
        where.append(f"subtask {subtask}")
    return f"{name} ({', '.join(where)})" if where else name
