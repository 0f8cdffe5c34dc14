"""The journal `podium.toml` names: a SQLite file ([journal] path, default in the user's data folder) or
a PostgreSQL server ([journal] url, the password from the environment variable [journal] password_env).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from podium.cli import paths
from podium.cli.config import PodiumConfig
from podium.errors import ConfigError


def journal_where(config: PodiumConfig) -> str:
    """The journal's place, for messages (a URL never shows a password: the file holds none)."""
    return config.journal.url or str(config.journal_path())


def sqlite_path(config: PodiumConfig) -> Path | None:
    """The SQLite file, or None when the journal is a PostgreSQL server."""
    return None if config.journal.url else config.journal_path()


def files_folder(config: PodiumConfig) -> Path:
    """Where a run's files beside its record go (screenshots): next to a SQLite journal, else the user's
    data folder."""
    path = sqlite_path(config)
    return (path if path is not None else paths.default_journal_path()).parent


def journal_exists(config: PodiumConfig) -> bool:
    path = sqlite_path(config)
    return path is None or path.is_file()


def open_journal(config: PodiumConfig) -> Any:
    """The configured store, opened (a SQLite file is created when missing). JournalUnreadable when it
    cannot be used; ConfigError when the configuration cannot name it."""
    options = config.journal
    if options.url:
        from podium.journal.postgres import PostgresStore

        password = None
        if options.password_env:
            password = os.environ.get(options.password_env)
            if password is None:
                raise ConfigError(f"[journal] password_env in {config.where}: the environment variable "
                                  f"{options.password_env} is not set")
        return PostgresStore(options.url, password=password, max_session_bytes=options.max_run_bytes)
    from podium.journal import SqliteStore

    return SqliteStore(config.journal_path(), max_session_bytes=options.max_run_bytes)
