"""A private Xvfb server for the tests that show windows."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

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
    number = next(n for n in range(90, 300)
                  if not Path(f"/tmp/.X11-unix/X{n}").exists() and not Path(f"/tmp/.X{n}-lock").exists())
    server = subprocess.Popen([binary, f":{number}", "-screen", "0", size, "-nolisten", "tcp"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # Ready when it accepts a connection: its socket file appears before it listens, and a client
        # started in between (xmessage) fails with "can't open display".
        deadline = time.monotonic() + 30
        while not _accepts(f"/tmp/.X11-unix/X{number}"):
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"Xvfb :{number} did not start (status {server.poll()})")
            time.sleep(0.05)
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(timeout=10)
