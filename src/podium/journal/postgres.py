"""The journal in PostgreSQL (psycopg 3), for records shared by several machines or kept centrally.

    store = PostgresStore("postgresql://user@host/db")

Same tables and behaviour as the SQLite store; every write commits at once (autocommit), so a record
is durable as soon as `record` returns.
"""

from __future__ import annotations

import threading
from typing import Any

from podium.errors import ConfigError
from podium.journal.store import SCHEMA, _SqlStore


class PostgresStore(_SqlStore):
    def __init__(self, dsn: str) -> None:
        try:
            import psycopg
        except ImportError as exc:  # optional extra
            raise ConfigError("PostgresStore needs psycopg: pip install 'podium[postgres]'") from exc
        self._conn = psycopg.connect(dsn, autocommit=True)
        self._lock = threading.Lock()
        # Where, without the password, for error messages.
        info = self._conn.info
        self.path = f"postgresql://{info.user}@{info.host}:{info.port}/{info.dbname}"
        with self._lock:
            for statement in filter(str.strip, SCHEMA.split(";")):
                self._conn.execute(statement)  # type: ignore[arg-type]

    def _run(self, sql: str, args: tuple[Any, ...] = ()) -> Any:
        with self._lock:
            return self._conn.execute(sql.replace("?", "%s"), args)  # type: ignore[arg-type]

    def close(self) -> None:
        with self._lock:
            self._conn.close()
