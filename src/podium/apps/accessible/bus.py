"""The connection to the accessibility bus, where applications publish their AT-SPI trees.

Why D-Bus directly, through dbus-fast, and not pyatspi/PyGObject's Atspi typelib: podium runs in any
CPython (a pyenv or venv build, not only the distribution's), and PyGObject from PyPI must be compiled
against the system's girepository and cairo headers (and its newest releases need a newer GLib than
Debian 12 has); Debian's python3-gi is built for Debian's own Python only. AT-SPI *is* a D-Bus protocol:
its interfaces (Accessible, Action, Text, EditableText, Value, Selection, Component) are documented
D-Bus interfaces that libatspi itself only wraps. dbus-fast is a maintained, asyncio-native D-Bus
library with wheels for every platform (no compiler, no system headers), so the tree is walked on
podium's own event loop with many calls in flight at once instead of one blocking round trip per
property, which is what makes observing a window fast (bench/gui.py).

The bus's address comes from `$AT_SPI_BUS_ADDRESS`, else from the session bus's `org.a11y.Bus` service
(which starts at-spi-bus-launcher and the registry daemon on demand, Debian package at-spi2-core).
Asking also sets `org.a11y.Status.IsEnabled`, which tells toolkits that check it (Qt, Chromium) to
expose their trees; GTK 3 exposes them whenever the bus is reachable and `NO_AT_BRIDGE` is not set.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from typing import Any

from podium.errors import PodiumError

Ref = tuple[str, str]  # (unique bus name of the application, object path): one accessible object
REGISTRY: Ref = ("org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root")
IFACE = "org.a11y.atspi."
CALL_TIMEOUT = 5.0  # a hung application must not hang the agent
# Calls in flight at once on one connection. dbus-fast treats a full socket buffer (EAGAIN) as a lost
# connection and disconnects, so a burst of thousands of calls must not reach the socket at once; 64
# small messages are a few kilobytes, and already overlap the round trips of a tree's level.
IN_FLIGHT = 64
GONE = frozenset({  # the object or its application no longer exists
    "org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.DBus.Error.ServiceUnknown",
    "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.UnknownMethod",
    "org.freedesktop.DBus.Error.Disconnected", "org.freedesktop.DBus.Error.NameHasNoOwner",
})


class AccessibilityUnavailable(PodiumError):
    """There is no accessibility bus to talk to; the message says what to install or start."""


class AtspiCallFailed(PodiumError):
    """One AT-SPI call failed; `gone` when the object or its application no longer exists."""

    def __init__(self, message: str, error_name: str = "") -> None:
        super().__init__(message)
        self.error_name = error_name

    @property
    def gone(self) -> bool:
        return self.error_name in GONE


def _dbus() -> Any:
    try:
        import dbus_fast
        import dbus_fast.aio
    except ImportError as exc:  # an optional extra: the rest of podium works without it
        raise AccessibilityUnavailable(
            "accessible applications need dbus-fast: pip install 'podium[gui]'") from exc
    return dbus_fast, dbus_fast.aio


class AtspiBus:
    """One connection to the accessibility bus, bound to the event loop that opened it."""

    def __init__(self, bus: Any, address: str) -> None:
        self._bus = bus
        self.address = address
        self.loop = asyncio.get_running_loop()
        self._slots = asyncio.Semaphore(IN_FLIGHT)

    @classmethod
    async def connect(cls) -> AtspiBus:
        _, aio = _dbus()
        address = await accessibility_address()
        try:
            bus = await asyncio.wait_for(aio.MessageBus(bus_address=address).connect(), CALL_TIMEOUT)
        except Exception as exc:  # refused, timed out, not a bus: all say the same to the person
            raise AccessibilityUnavailable(f"cannot connect to the accessibility bus at {address}: {exc}") from exc
        return cls(bus, address)

    @property
    def connected(self) -> bool:
        return bool(self._bus.connected) and self.loop is _running_loop()

    def close(self) -> None:
        if self._bus.connected:
            self._bus.disconnect()

    async def call(self, ref: Ref, interface: str, member: str, signature: str = "",
                   body: Sequence[Any] = (), timeout: float = CALL_TIMEOUT) -> list[Any]:
        """One method call; `interface` is short ("Accessible") for AT-SPI's own interfaces."""
        dbus_fast, _ = _dbus()
        full = interface if "." in interface else IFACE + interface
        message = dbus_fast.Message(destination=ref[0], path=ref[1], interface=full, member=member,
                                    signature=signature, body=list(body))
        try:
            async with self._slots:
                reply = await asyncio.wait_for(self._bus.call(message), timeout)
        except TimeoutError:
            raise AtspiCallFailed(f"{interface}.{member} on {ref[1]} got no answer within {timeout:g} s",
                                  "org.freedesktop.DBus.Error.NoReply") from None
        except Exception as exc:  # the connection itself failed
            raise AtspiCallFailed(f"{interface}.{member} on {ref[1]}: {exc}",
                                  "org.freedesktop.DBus.Error.Disconnected") from exc
        if reply.message_type == dbus_fast.MessageType.ERROR:
            detail = reply.body[0] if reply.body else reply.error_name
            raise AtspiCallFailed(f"{interface}.{member} on {ref[1]}: {detail}", reply.error_name or "")
        return list(reply.body)

    async def get(self, ref: Ref, interface: str, name: str) -> Any:
        """One property's value."""
        full = interface if "." in interface else IFACE + interface
        (variant,) = await self.call(ref, "org.freedesktop.DBus.Properties", "Get", "ss", (full, name))
        return variant.value

    async def set(self, ref: Ref, interface: str, name: str, signature: str, value: Any) -> None:
        dbus_fast, _ = _dbus()
        full = interface if "." in interface else IFACE + interface
        await self.call(ref, "org.freedesktop.DBus.Properties", "Set", "ssv",
                        (full, name, dbus_fast.Variant(signature, value)))

    async def applications(self) -> list[Ref]:
        """The root of every application registered on the bus."""
        (children,) = await self.call(REGISTRY, "Accessible", "GetChildren")
        return [(str(name), str(path)) for name, path in children]

    async def pid(self, bus_name: str) -> int | None:
        """The process behind an application's connection (None if the bus will not say)."""
        try:
            (pid,) = await self.call(("org.freedesktop.DBus", "/org/freedesktop/DBus"), "org.freedesktop.DBus",
                                     "GetConnectionUnixProcessID", "s", (bus_name,))
        except AtspiCallFailed:
            return None
        return int(pid)


async def accessibility_address() -> str:
    """The accessibility bus's address: $AT_SPI_BUS_ADDRESS, else what the session bus's org.a11y.Bus says
    (which starts the bus on demand and tells toolkits to expose their trees)."""
    return os.environ.get("AT_SPI_BUS_ADDRESS") or await _address_from_session_bus()


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


async def _address_from_session_bus() -> str:
    dbus_fast, aio = _dbus()
    if not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        raise AccessibilityUnavailable(
            "no D-Bus session bus ($DBUS_SESSION_BUS_ADDRESS is not set), so no accessibility bus: run podium "
            "in a desktop session, or under `dbus-run-session -- podium ...` (Debian packages dbus, at-spi2-core)")
    try:
        session = await asyncio.wait_for(aio.MessageBus().connect(), CALL_TIMEOUT)
    except Exception as exc:
        raise AccessibilityUnavailable(f"cannot connect to the D-Bus session bus: {exc}") from exc
    try:
        # Toolkits that look at this flag (Qt, Chromium) expose their trees only when it is set.
        await session.call(dbus_fast.Message(
            destination="org.a11y.Bus", path="/org/a11y/bus", interface="org.freedesktop.DBus.Properties",
            member="Set", signature="ssv", body=["org.a11y.Status", "IsEnabled", dbus_fast.Variant("b", True)]))
        reply = await asyncio.wait_for(session.call(dbus_fast.Message(
            destination="org.a11y.Bus", path="/org/a11y/bus", interface="org.a11y.Bus", member="GetAddress")),
            CALL_TIMEOUT * 2)
    except TimeoutError as exc:
        raise AccessibilityUnavailable("the session bus's org.a11y.Bus did not answer") from exc
    except (EOFError, OSError) as exc:  # the bus went away while asked
        raise AccessibilityUnavailable(f"the D-Bus session bus closed the connection: {exc!r}") from exc
    finally:
        session.disconnect()
    if reply.message_type == dbus_fast.MessageType.ERROR:
        raise AccessibilityUnavailable(
            f"no accessibility bus on the session bus ({reply.error_name}): install at-spi2-core")
    return str(reply.body[0])
