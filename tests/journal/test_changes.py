"""The artifact store (bytes by SHA-256, bounded per run), the change log, the writer's process, and
journals that cannot be read: against SQLite and a real PostgreSQL server."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from podium.errors import PodiumError
from podium.journal import (
    Journal,
    JournalFull,
    JournalUnreadable,
    Liveness,
    SessionStatus,
    SqliteStore,
    Store,
    liveness,
)
from podium.journal.postgres import PostgresStore

ROOT = Path(__file__).resolve().parents[2]


def test_bytes_are_kept_by_their_sha256_once(store: Store) -> None:
    journal = Journal(store)
    journal.opened("r", "Test")
    data = b"\x00binary\xffbytes" * 100
    digest = journal.save_bytes("r", data)
    assert digest == hashlib.sha256(data).hexdigest()
    assert journal.save_bytes("r", data) == digest  # the same bytes: stored once, counted once
    assert store.load_bytes(digest) == data
    assert store.bytes_used("r") == len(data)  # type: ignore[attr-defined]


def test_a_run_past_its_limit_gets_a_clear_error_and_keeps_nothing(store: Store) -> None:
    store.max_session_bytes = 1000  # type: ignore[attr-defined]
    journal = Journal(store)
    journal.opened("big", "Test")
    journal.save_bytes("big", b"a" * 600)
    with pytest.raises(JournalFull, match=r"at most 1,000 bytes .* run 'big' holds 600 .* 500 more .*max_run_bytes"):
        journal.save_bytes("big", b"b" * 500)
    assert store.bytes_used("big") == 600  # type: ignore[attr-defined]
    journal.opened("other", "Test")
    journal.save_bytes("other", b"b" * 500)  # the limit is per run


def test_the_change_log_keeps_the_first_before_and_the_latest_after(store: Store, tmp_path: Path) -> None:
    journal = Journal(store)
    journal.opened("run", "Test")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    notes = workspace / "notes.txt"
    notes.write_text("one")
    for text in ("two", "three"):  # two changes of one file, the way the executor records them
        before = journal.save_file("run", notes)
        notes.write_text(text)
        journal.record_change("run", workspace, "notes.txt", before, journal.save_file("run", notes))
    before = journal.save_file("run", workspace / "new.txt")
    assert before is None
    (workspace / "new.txt").write_text("created")
    created = journal.save_file("run", workspace / "new.txt")
    journal.record_change("run", workspace, workspace / "new.txt", None, created)
    gone = journal.save_file("run", notes)
    notes.unlink()
    journal.record_change("run", workspace, "notes.txt", gone, None)

    changes = {c.path: c for c in store.changes("run")}
    assert set(changes) == {"notes.txt", "new.txt"}
    assert store.load_bytes(changes["notes.txt"].before) == b"one"  # type: ignore[arg-type]
    assert changes["notes.txt"].after is None  # deleted at the end
    assert changes["new.txt"].before is None and store.load_bytes(changes["new.txt"].after) == b"created"  # type: ignore[arg-type]
    assert changes["notes.txt"].workspace == str(workspace.resolve())


def test_a_change_must_name_bytes_saved_for_the_run(store: Store, tmp_path: Path) -> None:
    journal = Journal(store)
    journal.opened("run", "Test")
    with pytest.raises(PodiumError, match="not a copy saved for run 'run'"):
        journal.record_change("run", tmp_path, "a.txt", "ab" * 32, None)
    with pytest.raises(PodiumError, match="outside the workspace"):
        journal.record_change("run", tmp_path / "ws", "../a.txt", None, None)


def test_a_fifo_is_refused_without_blocking(store: Store, tmp_path: Path) -> None:
    journal = Journal(store)
    journal.opened("run", "Test")
    fifo = tmp_path / "notes.txt"
    os.mkfifo(fifo)
    with pytest.raises(PodiumError, match="not a regular file"):
        journal.save_file("run", fifo)


def test_a_corrupt_copy_is_never_returned(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "journal.db")
    journal = Journal(store)
    journal.opened("run", "Test")
    digest = journal.save_bytes("run", b"the original bytes")
    with sqlite3.connect(tmp_path / "journal.db") as db:
        db.execute("UPDATE blobs SET data = ? WHERE digest = ?", (b"the original byteS", digest))
    with pytest.raises(JournalUnreadable, match=rf"damaged: the copy {digest[:12]} no longer has the bytes"):
        store.load_bytes(digest)
    store.close()


def test_a_corrupt_copy_in_postgres_is_never_returned(postgres_store: PostgresStore) -> None:
    journal = Journal(postgres_store)
    journal.opened("run", "Test")
    digest = journal.save_bytes("run", b"the original bytes")
    postgres_store._run("UPDATE blobs SET data = ? WHERE digest = ?", (b"changed", digest))
    with pytest.raises(JournalUnreadable, match="no longer has the bytes"):
        postgres_store.load_bytes(digest)


def test_the_writer_process_is_recorded_and_a_dead_one_is_interrupted(tmp_path: Path) -> None:
    db = tmp_path / "journal.db"
    script = textwrap.dedent("""
        import os, sys
        from podium.journal import Journal, SqliteStore
        Journal(SqliteStore(sys.argv[1])).opened("killed", "Test")
        print(os.getpid(), flush=True)
        os._exit(9)
    """)
    run = subprocess.run([sys.executable, "-c", script, str(db)], capture_output=True, text=True, timeout=60,
                         cwd=ROOT)
    assert run.returncode == 9, run.stderr
    store = SqliteStore(db)
    journal = Journal(store)
    journal.opened("alive", "Test")
    killed, here = store.session("killed"), store.session("alive")
    assert killed.status is SessionStatus.RUNNING and killed.process is not None
    assert killed.process.pid == int(run.stdout)
    assert liveness(killed) is Liveness.INTERRUPTED
    assert liveness(here) is Liveness.RUNNING and here.process.pid == os.getpid()  # type: ignore[union-attr]
    store.set_process("alive", here.process.__class__(here.process.pid, "another-host", None))  # type: ignore[union-attr]
    assert liveness(store.session("alive")) is Liveness.UNKNOWN
    store.close()


@pytest.mark.parametrize("damage", ["random bytes", "truncated", "empty header"])
def test_a_damaged_sqlite_journal_gives_one_clear_error(tmp_path: Path, damage: str) -> None:
    db = tmp_path / "journal.db"
    store = SqliteStore(db)
    journal = Journal(store)
    for n in range(40):
        journal.opened(f"s{n}", "Test")
        journal.save_bytes(f"s{n}", os.urandom(4000))
    store.close()
    raw = db.read_bytes()
    if damage == "random bytes":
        db.write_bytes(os.urandom(len(raw)))
    elif damage == "truncated":
        db.write_bytes(raw[: len(raw) // 3])
    else:
        db.write_bytes(b"\x00" * 100 + raw[100:])
    for extra in (tmp_path / "journal.db-wal", tmp_path / "journal.db-shm"):
        extra.unlink(missing_ok=True)
    with pytest.raises(JournalUnreadable, match=rf"the journal {db} is damaged \(.*\): move it aside"):
        opened = SqliteStore(db)
        for record in opened.sessions():  # a truncated file may open and fail on the pages it lost
            opened.entries(record.name)
            opened.changes(record.name)


def test_a_locked_sqlite_journal_says_so(tmp_path: Path) -> None:
    db = tmp_path / "journal.db"
    SqliteStore(db).close()
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""
        import sqlite3, sys, time
        db = sqlite3.connect(sys.argv[1], isolation_level=None)
        db.execute("PRAGMA locking_mode=EXCLUSIVE")
        db.execute("BEGIN EXCLUSIVE")
        db.execute("INSERT INTO sessions (name, strategy, status, started_at) VALUES ('x', 'T', 'running', 0)")
        print("locked", flush=True)
        time.sleep(60)
    """), str(db)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with pytest.raises(JournalUnreadable, match=rf"the journal {db} is locked by another process"):
            SqliteStore(db, timeout=0.2)
    finally:
        holder.kill()
        holder.wait()


def test_an_unreachable_postgres_server_is_one_line() -> None:
    with pytest.raises(JournalUnreadable, match=r"the journal postgresql://me@127.0.0.1:1/db cannot be reached"):
        PostgresStore("postgresql://me:secret@127.0.0.1:1/db", connect_timeout=2)
