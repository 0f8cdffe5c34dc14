"""The journal in PostgreSQL (psycopg 3), for records shared by several machines or kept centrally.

    store = PostgresStore("postgresql://user@host/db", password=os.environ["PODIUM_JOURNAL_PASSWORD"])

Same tables and behaviour as the SQLite store; every write commits at once (autocommit), so a record
is durable as soon as `record` returns. A server that cannot be reached, or refuses the login, raises
`JournalUnreadable` naming the server without the password.
"""

from __future__ import annotations

import threading
from typing import Any
from urllib.parse import urlsplit

from podium.errors import ConfigError
from podium.journal.store import DEFAULT_MAX_SESSION_BYTES, SCHEMA, JournalUnreadable, _SqlStore


class PostgresStore(_SqlStore):
    def __init__(self, dsn: str, *, password: str | None = None,
                 max_session_bytes: int = DEFAULT_MAX_SESSION_BYTES, connect_timeout: int = 10) -> None:
        try:
            import psycopg
        except ImportError as exc:  # optional extra
            raise ConfigError("PostgresStore needs psycopg: pip install 'podium[postgres]'") from exc
        self._errors, self._mistakes = psycopg.Error, psycopg.IntegrityError
        self.max_session_bytes = max_session_bytes
        self.path = _without_password(dsn)
        extra: dict[str, Any] = {"connect_timeout": connect_timeout}
        if password is not None:
            extra["password"] = password
        try:
            self._conn = psycopg.connect(dsn, autocommit=True, **extra)
        except psycopg.Error as exc:
            raise JournalUnreadable(f"the journal {self.path} cannot be reached: {_first_line(exc)}") from None
        self._lock = threading.Lock()
        # Where, without the password, for error messages.
        info = self._conn.info
        self.path = f"postgresql://{info.user}@{info.host}:{info.port}/{info.dbname}"
        for statement in filter(str.strip, SCHEMA.split(";")):
            self._run(statement)

    def _run(self, sql: str, args: tuple[Any, ...] = ()) -> Any:
        with self._lock:
            try:
                return self._conn.execute(sql.replace("?", "%s"), args)  # type: ignore[arg-type]
            except self._mistakes:
                raise  # a caller's mistake (a duplicate entry), not a broken journal
            except self._errors as exc:
                raise JournalUnreadable(f"the journal {self.path}: {_first_line(exc)}") from None

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def _without_password(dsn: str) -> str:
    parts = urlsplit(dsn)
    if parts.password is None:
        return dsn
    return parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", "@", 1)).geturl()


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
