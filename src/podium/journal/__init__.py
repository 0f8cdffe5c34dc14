"""Durable records of sessions: stores (SQLite default, PostgreSQL), resume after a crash, replay
without calling the model, copies of the files a run changed and their change log."""

from podium.journal.journal import InFlight, Journal, ReplayStep, in_flight, replay, resume
from podium.journal.liveness import Liveness, liveness
from podium.journal.store import (
    Change,
    Entry,
    JournalFull,
    JournalUnreadable,
    ProcessInfo,
    SessionRecord,
    SessionStatus,
    SqliteStore,
    Store,
    UnknownSession,
)

__all__ = ["Change", "Entry", "InFlight", "Journal", "JournalFull", "JournalUnreadable", "Liveness", "ProcessInfo",
           "ReplayStep", "SessionRecord", "SessionStatus", "SqliteStore", "Store", "UnknownSession", "in_flight",
           "liveness", "replay", "resume"]
