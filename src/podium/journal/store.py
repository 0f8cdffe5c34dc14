"""Where session records live: every strategy input with its ops, in order, and named artifacts
(the blackboard, the subtask graph, the trajectory...). SQLite by default; PostgreSQL in `postgres.py`.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

from podium.errors import PodiumError


class SessionStatus(StrEnum):
    RUNNING = "running"  # still running, or the process died: resumable
    STOPPED = "stopped"
    HALTED = "halted"


@dataclass(frozen=True, slots=True)
class SessionRecord:
    name: str
    strategy: str
    status: SessionStatus
    started_at: float
    ended_at: float | None
    close_reason: str
    steps: int


@dataclass(frozen=True, slots=True)
class Entry:
    """One strategy input and the ops it produced, as JSON text (decode with `podium.journal.codec`)."""

    seq: int
    at: float
    input: str
    ops: str


class UnknownSession(PodiumError, KeyError):
    def __str__(self) -> str:
        return str(self.args[0])


class Store(Protocol):
    def open_session(self, name: str, strategy: str) -> None: ...

    def append(self, name: str, seq: int, input: str, ops: str) -> None: ...

    def close_session(self, name: str, status: SessionStatus, reason: str) -> None: ...

    def entries(self, name: str) -> list[Entry]: ...

    def sessions(self) -> list[SessionRecord]: ...

    def session(self, name: str) -> SessionRecord: ...

    def put(self, name: str, key: str, value: Any) -> None: ...

    def get(self, name: str, key: str, default: Any = None) -> Any: ...

    def close(self) -> None: ...


SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    name TEXT PRIMARY KEY, strategy TEXT NOT NULL, status TEXT NOT NULL,
    started_at DOUBLE PRECISION NOT NULL, ended_at DOUBLE PRECISION, close_reason TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS entries (
    session TEXT NOT NULL REFERENCES sessions(name) ON DELETE CASCADE, seq INTEGER NOT NULL,
    at DOUBLE PRECISION NOT NULL, input TEXT NOT NULL, ops TEXT NOT NULL, PRIMARY KEY (session, seq));
CREATE TABLE IF NOT EXISTS artifacts (
    session TEXT NOT NULL REFERENCES sessions(name) ON DELETE CASCADE, key TEXT NOT NULL,
    value TEXT NOT NULL, PRIMARY KEY (session, key));
"""


class _SqlStore:
    """The queries, written once with `?` placeholders; subclasses own the connection."""

    path: Any

    def _run(self, sql: str, args: tuple[Any, ...] = ()) -> Any:
        raise NotImplementedError

    def open_session(self, name: str, strategy: str) -> None:
        row = self._run("SELECT status FROM sessions WHERE name = ?", (name,)).fetchone()
        if row is None:
            self._run("INSERT INTO sessions (name, strategy, status, started_at) VALUES (?, ?, ?, ?)",
                      (name, strategy, SessionStatus.RUNNING.value, time.time()))
        elif row[0] != SessionStatus.RUNNING.value:
            raise PodiumError(f"the journal already holds a finished session named {name!r}; choose another name")

    def append(self, name: str, seq: int, input: str, ops: str) -> None:
        self._run("INSERT INTO entries (session, seq, at, input, ops) VALUES (?, ?, ?, ?, ?)",
                  (name, seq, time.time(), input, ops))

    def close_session(self, name: str, status: SessionStatus, reason: str) -> None:
        self._run("UPDATE sessions SET status = ?, ended_at = ?, close_reason = ? WHERE name = ?",
                  (status.value, time.time(), reason, name))

    def entries(self, name: str) -> list[Entry]:
        self.session(name)
        rows = self._run("SELECT seq, at, input, ops FROM entries WHERE session = ? ORDER BY seq", (name,))
        return [Entry(*row) for row in rows.fetchall()]

    def sessions(self) -> list[SessionRecord]:
        rows = self._run(_SESSIONS + " ORDER BY s.started_at DESC").fetchall()
        return [_record(row) for row in rows]

    def session(self, name: str) -> SessionRecord:
        row = self._run(_SESSIONS + " WHERE s.name = ?", (name,)).fetchone()
        if row is None or row[0] is None:
            raise UnknownSession(f"no recorded session named {name!r} in {self.path}")
        return _record(row)

    def put(self, name: str, key: str, value: Any) -> None:
        self._run("INSERT INTO artifacts (session, key, value) VALUES (?, ?, ?) "
                  "ON CONFLICT (session, key) DO UPDATE SET value = excluded.value", (name, key, json.dumps(value)))

    def get(self, name: str, key: str, default: Any = None) -> Any:
        row = self._run("SELECT value FROM artifacts WHERE session = ? AND key = ?", (name, key)).fetchone()
        return default if row is None else json.loads(row[0])

    def keys(self, name: str) -> list[str]:
        return [r[0] for r in self._run("SELECT key FROM artifacts WHERE session = ? ORDER BY key", (name,)).fetchall()]

    def __iter__(self) -> Iterator[SessionRecord]:
        return iter(self.sessions())


class SqliteStore(_SqlStore):
    """A store in one SQLite file (WAL): safe to read from another process while a session writes."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()  # one connection, possibly used by a sync facade's thread too
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")  # durable at each commit against a process crash
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(SCHEMA.replace("DOUBLE PRECISION", "REAL"))

    def _run(self, sql: str, args: tuple[Any, ...] = ()) -> sqlite3.Cursor:
        with self._lock:
            return self._db.execute(sql, args)

    def close(self) -> None:
        with self._lock:
            self._db.close()


_SESSIONS = ("SELECT s.name, s.strategy, s.status, s.started_at, s.ended_at, s.close_reason, "
             "(SELECT COUNT(*) FROM entries e WHERE e.session = s.name) FROM sessions s")


def _record(row: tuple[Any, ...] | Mapping[str, Any]) -> SessionRecord:
    values = tuple(row.values()) if isinstance(row, Mapping) else row
    name, strategy, status, started, ended, reason, steps = values
    return SessionRecord(name, strategy, SessionStatus(status), started, ended, reason, int(steps))
