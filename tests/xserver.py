"""A private Xvfb server for the tests that show windows."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest


def _accepts(path: str) -> bool:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(path)
        except OSError:
            return False
    return True


@contextmanager
def xvfb(size: str = "640x480x24") -> Iterator[str]:
    """Start Xvfb on a free display number and yield its name (":N") once it accepts clients."""
    binary = shutil.which("Xvfb")
    if binary is None:
        pytest.fail("Xvfb is not installed (Debian packages: xvfb x11-apps x11-utils xdotool imagemagick)")
    # Xvfb picks a free display itself and writes its number to a pipe (-displayfd): a number chosen here
    # by looking for lock files races another server starting at the same time (a benchmark's, a test's).
    read_end, write_end = os.pipe()
    # -noreset: an X server resets when its last client leaves, and refuses connections meanwhile; the
    # readiness probe below is such a client, so the first program after it failed now and then with
    # "can't open display".
    server = subprocess.Popen([binary, "-displayfd", str(write_end), "-screen", "0", size, "-nolisten", "tcp",
                               "-noreset"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, pass_fds=(write_end,))
    os.close(write_end)
    try:
        with os.fdopen(read_end) as announced:  # one line, "N\n", once it listens; "" if it died first
            number = announced.readline().strip()
        if not number.isdigit():
            pytest.fail(f"Xvfb did not start (status {server.poll()})")
        # Ready when it accepts a connection: a client started before (xmessage) fails with "can't open display".
        deadline = time.monotonic() + 30
        while not _accepts(f"/tmp/.X11-unix/X{number}"):
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"Xvfb :{number} did not start (status {server.poll()})")
            time.sleep(0.05)
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(timeout=10)
