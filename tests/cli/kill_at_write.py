"""`python tests/cli/kill_at_write.py ARGS...` is `podium ARGS...` that SIGKILLs itself right before its
journal's N-th write (N from $PODIUM_KILL_AT_WRITE; 0: never, and the number of writes is printed to stderr at
the end). No clean-up of any kind runs: what a power cut leaves."""

from __future__ import annotations

import atexit
import os
import signal
import sys

from podium.cli import main
from podium.journal.store import SqliteStore

WRITES = ("open_session", "append", "close_session", "put", "set_process", "save_bytes", "record_change")
AT = int(os.environ.get("PODIUM_KILL_AT_WRITE", "0"))
count = 0


def _counted(write):  # type: ignore[no-untyped-def]
    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        global count
        count += 1
        if count == AT:
            os.kill(os.getpid(), signal.SIGKILL)
        return write(*args, **kwargs)

    return counted


for name in WRITES:
    setattr(SqliteStore, name, _counted(getattr(SqliteStore, name)))
atexit.register(lambda: print(f"journal writes: {count}", file=sys.stderr))
sys.exit(main())
