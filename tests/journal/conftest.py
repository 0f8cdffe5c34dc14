"""A real PostgreSQL server for the journal tests: a private cluster started for the test run.

Set PODIUM_TEST_POSTGRES_DSN to use a server of your own instead. `scripts/test` installs the
`postgresql` package that provides initdb and pg_ctl.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from podium.journal import SqliteStore
from podium.journal.postgres import PostgresStore


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def postgres_dsn() -> Iterator[str]:
    dsn = os.environ.get("PODIUM_TEST_POSTGRES_DSN")
    if dsn:
        yield dsn
        return
    initdbs = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb")) or ([shutil.which("initdb")] if shutil.which(
        "initdb") else [])
    if not initdbs:
        pytest.fail("no PostgreSQL server binaries (initdb): run scripts/test, which installs the postgresql package, "
                    "or set PODIUM_TEST_POSTGRES_DSN")
    bindir = Path(initdbs[-1]).parent
    data = Path(tempfile.mkdtemp(prefix="podium-pg-"))
    # PostgreSQL refuses to run as root: as root, run it as the `postgres` user the package created.
    as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    if as_user:
        shutil.chown(data, "postgres", "postgres")
    port = _free_port()
    run = lambda *cmd: subprocess.run([*as_user, *cmd], check=True, capture_output=True, timeout=120)  # noqa: E731
    run(str(bindir / "initdb"), "-D", str(data / "db"), "-U", "postgres", "--auth=trust", "-E", "UTF8")
    run(str(bindir / "pg_ctl"), "-D", str(data / "db"), "-w", "-l", str(data / "log"),
        "-o", f"-h 127.0.0.1 -p {port} -k {data} -c fsync=off", "start")
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*as_user, str(bindir / "pg_ctl"), "-D", str(data / "db"), "-m", "immediate", "stop"],
                       capture_output=True, timeout=60)
        shutil.rmtree(data, ignore_errors=True)


@pytest.fixture
def postgres_store(postgres_dsn: str) -> Iterator[PostgresStore]:
    """A store in a database of its own, so each test starts empty."""
    import psycopg

    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_dsn, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")  # type: ignore[arg-type]
    store = PostgresStore(postgres_dsn.rsplit("/", 1)[0] + "/" + name)
    yield store
    store.close()


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SqliteStore | PostgresStore]:
    if request.param == "sqlite":
        sqlite = SqliteStore(tmp_path / "journal.db")
        yield sqlite
        sqlite.close()
    else:
        yield request.getfixturevalue("postgres_store")
