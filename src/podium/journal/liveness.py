"""Whether a recorded session is still being written: a record left `running` by a process that is gone
(killed, crashed, the machine restarted) is interrupted, and can be resumed.

The journal keeps the pid, the host and the process's own start time of the writer; a pid now used by
another process (same number, other start time) is not mistaken for the writer.
"""

from __future__ import annotations

import os
import socket
from enum import StrEnum

import psutil

from podium.journal.store import ProcessInfo, SessionRecord, SessionStatus


class Liveness(StrEnum):
    RUNNING = "running"  # its process is alive on this machine
    INTERRUPTED = "interrupted"  # its process is gone: resumable
    UNKNOWN = "unknown"  # written on another machine (or before the journal kept the process): cannot tell
    STOPPED = "stopped"
    HALTED = "halted"


def this_process() -> ProcessInfo:
    try:
        started: float | None = psutil.Process(os.getpid()).create_time()
    except psutil.Error:
        started = None
    return ProcessInfo(os.getpid(), socket.gethostname(), started)


def liveness(record: SessionRecord) -> Liveness:
    if record.status is SessionStatus.STOPPED:
        return Liveness.STOPPED
    if record.status is SessionStatus.HALTED:
        return Liveness.HALTED
    process = record.process
    if process is None or process.host != socket.gethostname():
        return Liveness.UNKNOWN
    return Liveness.RUNNING if alive(process) else Liveness.INTERRUPTED


def alive(process: ProcessInfo) -> bool:
    try:
        found = psutil.Process(process.pid)
        if process.started is not None and abs(found.create_time() - process.started) > 1.0:
            return False  # the pid was reused by another process
        return found.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
    except psutil.Error:  # exists, but not ours to inspect: assume it is the writer
        return True
