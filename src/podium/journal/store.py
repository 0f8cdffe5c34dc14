"""Where session records live: every strategy input with its ops, in order; named artifacts (the
blackboard, the subtask graph, the trajectory...); the process that wrote the record; bytes by their
SHA-256 (bounded per session); and the change log of the workspace files a run changed.
SQLite by default; PostgreSQL in `postgres.py`.

A journal that cannot be read (not a database, damaged, locked by another process) raises
`JournalUnreadable` with one line that says which file and what to do; bytes that no longer hash to
their name raise it too, so a corrupt copy is never restored.
"""

from __future__ import annotations

import hashlib
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
from podium.journal.files import FOLDER

DEFAULT_MAX_SESSION_BYTES = 512 * 1024 * 1024  # file copies one session may keep in the artifact store


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
    process: ProcessInfo | None = None  # who wrote it last (None: a record from before podium kept it)


@dataclass(frozen=True, slots=True)
class ProcessInfo:
    """The process that opened (or resumed) a session: told apart from a reused pid by its start time."""

    pid: int
    host: str
    started: float | None  # the process's own start time (epoch seconds), None when unknown


@dataclass(frozen=True, slots=True)
class Change:
    """One workspace path a run changed: the SHA-256 of its bytes before the run's first change (None: the
    run created it) and after its latest change (None: the run deleted it). Both name bytes kept in the
    artifact store."""

    workspace: str  # the workspace folder, absolute
    path: str  # relative to the workspace, with forward slashes
    before: str | None
    after: str | None
    first_at: float
    last_at: float


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


class JournalUnreadable(PodiumError):
    """The journal cannot be used: not a database, damaged, locked, or an artifact whose bytes changed."""


class JournalFull(PodiumError):
    """A session's copies of files would pass the artifact store's limit."""


class Store(Protocol):
    def open_session(self, name: str, strategy: str) -> None: ...

    def append(self, name: str, seq: int, input: str, ops: str) -> None: ...

    def close_session(self, name: str, status: SessionStatus, reason: str) -> None: ...

    def entries(self, name: str) -> list[Entry]: ...

    def sessions(self) -> list[SessionRecord]: ...

    def session(self, name: str) -> SessionRecord: ...

    def put(self, name: str, key: str, value: Any) -> None: ...

    def get(self, name: str, key: str, default: Any = None) -> Any: ...

    def set_process(self, name: str, process: ProcessInfo) -> None: ...

    def save_bytes(self, name: str, data: bytes) -> str: ...

    def load_bytes(self, digest: str) -> bytes: ...

    def record_change(self, name: str, workspace: str, path: str, before: str | None, after: str | None) -> None: ...

    def changes(self, name: str) -> list[Change]: ...

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
CREATE TABLE IF NOT EXISTS processes (
    session TEXT PRIMARY KEY REFERENCES sessions(name) ON DELETE CASCADE, pid INTEGER NOT NULL, host TEXT NOT NULL,
    started DOUBLE PRECISION);
CREATE TABLE IF NOT EXISTS blobs (digest TEXT PRIMARY KEY, size BIGINT NOT NULL, data BYTEA NOT NULL);
CREATE TABLE IF NOT EXISTS session_blobs (
    session TEXT NOT NULL REFERENCES sessions(name) ON DELETE CASCADE, digest TEXT NOT NULL REFERENCES blobs(digest),
    PRIMARY KEY (session, digest));
CREATE TABLE IF NOT EXISTS changes (
    session TEXT NOT NULL REFERENCES sessions(name) ON DELETE CASCADE, workspace TEXT NOT NULL, path TEXT NOT NULL,
    before_sha TEXT, after_sha TEXT, first_at DOUBLE PRECISION NOT NULL, last_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (session, workspace, path));
"""


class _SqlStore:
    """The queries, written once with `?` placeholders; subclasses own the connection."""

    path: Any
    max_session_bytes: int = DEFAULT_MAX_SESSION_BYTES

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

    def set_process(self, name: str, process: ProcessInfo) -> None:
        self._run("INSERT INTO processes (session, pid, host, started) VALUES (?, ?, ?, ?) ON CONFLICT (session) "
                  "DO UPDATE SET pid = excluded.pid, host = excluded.host, started = excluded.started",
                  (name, process.pid, process.host, process.started))

    # -- bytes by their SHA-256 ------------------------------------------------------------------

    def save_bytes(self, name: str, data: bytes) -> str:
        """Keep `data` for session `name`; its SHA-256 (hex) names it. The same bytes are stored once and
        count once against the session's limit, `max_session_bytes`; past it, JournalFull says so."""
        digest = hashlib.sha256(data).hexdigest()
        if self._run("SELECT 1 FROM session_blobs WHERE session = ? AND digest = ?", (name, digest)).fetchone():
            return digest
        used = self.bytes_used(name)
        if used + len(data) > self.max_session_bytes:
            raise JournalFull(f"the journal {self.path} keeps at most {self.max_session_bytes:,} bytes of file copies "
                              f"per run; run {name!r} holds {used:,} and this copy needs {len(data):,} more "
                              "(raise [journal] max_run_bytes in podium.toml)")
        self._run("INSERT INTO blobs (digest, size, data) VALUES (?, ?, ?) ON CONFLICT (digest) DO NOTHING",
                  (digest, len(data), data))
        self._run("INSERT INTO session_blobs (session, digest) VALUES (?, ?) ON CONFLICT DO NOTHING", (name, digest))
        return digest

    def load_bytes(self, digest: str) -> bytes:
        """The bytes named `digest`, checked: bytes that no longer hash to it raise JournalUnreadable."""
        row = self._run("SELECT data FROM blobs WHERE digest = ?", (digest,)).fetchone()
        if row is None:
            raise JournalUnreadable(f"the journal {self.path} has no copy {digest[:12]}: it was removed or never "
                                    "saved")
        data = bytes(row[0])
        if hashlib.sha256(data).hexdigest() != digest:
            raise JournalUnreadable(f"the journal {self.path} is damaged: the copy {digest[:12]} no longer has the "
                                    "bytes that were saved")
        return data

    def bytes_used(self, name: str) -> int:
        row = self._run("SELECT COALESCE(SUM(b.size), 0) FROM session_blobs s JOIN blobs b ON b.digest = s.digest "
                        "WHERE s.session = ?", (name,)).fetchone()
        return int(row[0])

    # -- the change log ----------------------------------------------------------------------------

    def record_change(self, name: str, workspace: str, path: str, before: str | None, after: str | None) -> None:
        """Log a change of `path` (relative to `workspace`) by run `name`: the first change keeps its
        `before`, every later one only moves `after`. Both name bytes this session saved (or are None, or
        FOLDER: a folder, whose files are logged one by one)."""
        for digest in (before, after):
            if digest not in (None, FOLDER) and not self._run(
                    "SELECT 1 FROM session_blobs WHERE session = ? AND digest = ?", (name, digest)).fetchone():
                raise PodiumError(f"record_change({path!r}): {digest[:12]} is not a copy saved for run {name!r}; "
                                  "save the bytes first (save_bytes / save_file)")
        now = time.time()
        self._run("INSERT INTO changes (session, workspace, path, before_sha, after_sha, first_at, last_at) "
                  "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (session, workspace, path) "
                  "DO UPDATE SET after_sha = excluded.after_sha, last_at = excluded.last_at",
                  (name, workspace, path, before, after, now, now))

    def changes(self, name: str) -> list[Change]:
        self.session(name)
        rows = self._run("SELECT workspace, path, before_sha, after_sha, first_at, last_at FROM changes "
                         "WHERE session = ? ORDER BY first_at, path", (name,)).fetchall()
        return [Change(*row) for row in rows]

    def keys(self, name: str) -> list[str]:
        return [r[0] for r in self._run("SELECT key FROM artifacts WHERE session = ? ORDER BY key", (name,)).fetchall()]

    def __iter__(self) -> Iterator[SessionRecord]:
        return iter(self.sessions())


class SqliteStore(_SqlStore):
    """A store in one SQLite file (WAL): safe to read from another process while a session writes."""

    def __init__(self, path: str | Path, *, max_session_bytes: int = DEFAULT_MAX_SESSION_BYTES,
                 timeout: float = 3.0) -> None:
        self.path = Path(path)
        self.max_session_bytes = max_session_bytes
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()  # one connection, possibly used by a sync facade's thread too
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=timeout)
        except sqlite3.Error as exc:
            raise unreadable(self.path, exc) from None
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")  # durable at each commit against a process crash
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(SCHEMA.replace("DOUBLE PRECISION", "REAL").replace("BYTEA", "BLOB"))
            self._db.execute("SELECT COUNT(*) FROM sessions").fetchone()  # a damaged file fails here, not later
        except sqlite3.Error as exc:
            self._db.close()
            raise unreadable(self.path, exc) from None

    def _run(self, sql: str, args: tuple[Any, ...] = ()) -> sqlite3.Cursor:
        with self._lock:
            try:
                return self._db.execute(sql, args)
            except sqlite3.IntegrityError:
                raise  # a caller's mistake (a duplicate entry), not damage
            except sqlite3.Error as exc:
                raise unreadable(self.path, exc) from None

    def close(self) -> None:
        with self._lock:
            self._db.close()


def unreadable(path: Any, exc: BaseException) -> JournalUnreadable:
    """One line for a journal SQLite cannot use, saying what to do."""
    text = str(exc).strip() or type(exc).__name__
    if "locked" in text or "busy" in text:
        return JournalUnreadable(f"the journal {path} is locked by another process ({text}); try again when it is "
                                 "done")
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return JournalUnreadable(f"the journal {path} is damaged ({text}): move it aside (podium starts a new one) "
                                 "or name another in [journal] of podium.toml")
    return JournalUnreadable(f"the journal {path} cannot be used ({text})")


_SESSIONS = ("SELECT s.name, s.strategy, s.status, s.started_at, s.ended_at, s.close_reason, "
             "(SELECT COUNT(*) FROM entries e WHERE e.session = s.name), p.pid, p.host, p.started "
             "FROM sessions s LEFT JOIN processes p ON p.session = s.name")


def _record(row: tuple[Any, ...] | Mapping[str, Any]) -> SessionRecord:
    values = tuple(row.values()) if isinstance(row, Mapping) else row
    name, strategy, status, started, ended, reason, steps, pid, host, process_started = values
    process = None if pid is None else ProcessInfo(int(pid), str(host), process_started)
    return SessionRecord(name, strategy, SessionStatus(status), started, ended, reason, int(steps), process)
