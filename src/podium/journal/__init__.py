"""Durable records of sessions: stores (SQLite default, PostgreSQL), resume after a crash, replay
without calling the model."""

from podium.journal.journal import Journal, ReplayStep, replay, resume
from podium.journal.store import Entry, SessionRecord, SessionStatus, SqliteStore, Store, UnknownSession

__all__ = ["Entry", "Journal", "ReplayStep", "SessionRecord", "SessionStatus", "SqliteStore", "Store",
           "UnknownSession", "replay", "resume"]
