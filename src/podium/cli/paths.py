"""Where podium keeps its files on this machine: the user's configuration and the journal.

    PODIUM_HOME set     $PODIUM_HOME/podium.toml          $PODIUM_HOME/journal.db
    otherwise           $XDG_CONFIG_HOME/podium/...       $XDG_DATA_HOME/podium/journal.db
                        (~/.config/podium/podium.toml)     (~/.local/share/podium/journal.db)

PODIUM_HOME puts both in one folder: a test (or a second installation) is then fully separate from
the user's own settings and records.
"""

from __future__ import annotations

import os
from pathlib import Path

CONFIG_NAME = "podium.toml"
JOURNAL_NAME = "journal.db"


def _env_dir(name: str) -> Path | None:
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser() if value else None


def podium_home() -> Path | None:
    return _env_dir("PODIUM_HOME")


def user_config_file() -> Path:
    home = podium_home()
    if home is not None:
        return home / CONFIG_NAME
    base = _env_dir("XDG_CONFIG_HOME") or Path.home() / ".config"
    return base / "podium" / CONFIG_NAME


def default_journal_path() -> Path:
    home = podium_home()
    if home is not None:
        return home / JOURNAL_NAME
    base = _env_dir("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return base / "podium" / JOURNAL_NAME
