"""A private desktop session for the GUI tests: Xvfb, a D-Bus session bus with the accessibility bus
behind it, and a home of its own (so a program's settings and session files start empty).

It changes `os.environ` for its lifetime (programs launched by the code under test inherit it) and
restores it after. Every process it started is stopped by its pid. When the programs are missing it
fails as root (CI installs them: scripts/test) and skips otherwise.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests import xserver

NEEDED = {"Xvfb": "xvfb", "dbus-daemon": "dbus", "xdotool": "xdotool", "mousepad": "mousepad", "zenity": "zenity"}
LAUNCHER = "/usr/libexec/at-spi-bus-launcher"
ISOLATED = ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR", "DISPLAY",
            "DBUS_SESSION_BUS_ADDRESS", "AT_SPI_BUS_ADDRESS", "NO_AT_BRIDGE", "GTK_MODULES", "GSETTINGS_BACKEND")


def require_programs() -> None:
    missing = [package for program, package in NEEDED.items() if shutil.which(program) is None]
    if not os.path.exists(LAUNCHER):
        missing.append("at-spi2-core")
    if missing:
        message = f"the GUI tests need the Debian packages {sorted(set(missing))} (scripts/test installs them)"
        if os.geteuid() == 0:
            pytest.fail(message)
        pytest.skip(message)


@contextmanager
def desktop_session(root: Path, size: str = "1600x1200x24") -> Iterator[dict[str, str]]:
    require_programs()
    saved = {name: os.environ.get(name) for name in ISOLATED}
    home = root / "home"
    runtime = root / "run"
    for folder in (home / ".config", home / ".local/share", home / ".cache", runtime):
        folder.mkdir(parents=True, exist_ok=True)
    runtime.chmod(0o700)
    # podium stops what it launched with SIGTERM, which mousepad takes for a crash: without this, the next
    # launch in the session opens with a "restore the previous session?" question first
    settings = home / ".config/glib-2.0/settings"
    settings.mkdir(parents=True, exist_ok=True)
    (settings / "keyfile").write_text("[org/xfce/mousepad/preferences/file]\nsession-restore='never'\n")
    with xserver.xvfb(size) as display:
        env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
               "XDG_DATA_HOME": str(home / ".local/share"), "XDG_CACHE_HOME": str(home / ".cache"),
               "XDG_RUNTIME_DIR": str(runtime), "DISPLAY": display,
               # settings in a file of this home, not a dconf daemon: a checker can read them
               "GSETTINGS_BACKEND": "keyfile"}
        bus = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address=1"],
                               stdout=subprocess.PIPE, env={**os.environ, **env}, text=True)
        try:
            assert bus.stdout is not None
            address = bus.stdout.readline().strip()
            if not address:
                pytest.fail(f"dbus-daemon did not start (status {bus.poll()})")
            env["DBUS_SESSION_BUS_ADDRESS"] = address
            for name in ISOLATED:
                os.environ.pop(name, None)
            os.environ.update(env)
            yield env
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
            # the accessibility bus launcher it started goes with the session bus it watches
            bus.terminate()
            try:
                bus.wait(timeout=10)
            except subprocess.TimeoutExpired:
                bus.kill()
                bus.wait()
