"""Run as a desktop program inside podium's sandbox by tests/apps/test_accessible_sandbox.py: it tries what a
hostile GUI program would try, writes what happened to report.json in its working folder (the workspace),
then becomes a zenity window, so that it is launched, seen and observed like any accessible program.

It reads its targets from probe.json (written by the test): paths outside the workspace, a TCP port and an
abstract socket the test listens on, the real buses' sockets, and the D-Bus names the test serves on them.
Each attempt is recorded as {"what", "ok", "detail"}: ok means the operation succeeded.
"""

import asyncio
import json
import os
import socket
import sys


def attempt(report: list, what: str, action) -> None:
    try:
        detail = action()
        report.append({"what": what, "ok": True, "detail": repr(detail)[:300]})
    except Exception as exc:  # every failure is the finding
        report.append({"what": what, "ok": False, "detail": f"{type(exc).__name__}: {exc}"[:300]})


def write(path: str) -> str:
    with open(path, "w") as out:
        out.write("written from inside the sandbox\n")
    return path


def connect_tcp(host: str, port: int) -> str:
    with socket.create_connection((host, port), timeout=3):
        return "connected"


def connect_unix(address: str) -> str:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(3)
        probe.connect(address)
        return "connected"


async def bus_attempts(report: list, targets: dict) -> None:
    from dbus_fast import Message, MessageType
    from dbus_fast.aio import MessageBus

    async def call(bus, destination, path, interface, member, signature="", body=()):
        reply = await asyncio.wait_for(bus.call(Message(destination=destination, path=path, interface=interface,
                                                        member=member, signature=signature, body=list(body))), 5)
        if reply.message_type == MessageType.ERROR:
            raise RuntimeError(f"{reply.error_name}: {reply.body[0] if reply.body else ''}")
        return reply.body

    results = {}

    async def step(what, coroutine):
        try:
            value = await coroutine
            report.append({"what": what, "ok": True, "detail": repr(value)[:300]})
            results[what] = value
        except Exception as exc:
            report.append({"what": what, "ok": False, "detail": f"{type(exc).__name__}: {exc}"[:300]})

    bus_iface, bus_path = "org.freedesktop.DBus", "/org/freedesktop/DBus"
    session = None
    await step("session: connect", _connect(MessageBus, os.environ["DBUS_SESSION_BUS_ADDRESS"]))
    session = results.get("session: connect")
    if session is not None:
        await step("session: list names", call(session, bus_iface, bus_path, bus_iface, "ListNames"))
        await step("session: call the secret service",
                   call(session, targets["secret"], "/org/podium/Secret", "org.podium.Secret", "Reveal"))
        await step("session: own its own name",
                   call(session, bus_iface, bus_path, bus_iface, "RequestName", "su", (targets["own"], 4)))
        await step("session: own another name",
                   call(session, bus_iface, bus_path, bus_iface, "RequestName", "su", ("org.freedesktop.secrets", 4)))
        await step("session: start a service",
                   call(session, bus_iface, bus_path, bus_iface, "StartServiceByName", "su", ("org.a11y.Bus", 0)))
        await step("session: ask for the accessibility bus",
                   call(session, "org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus", "GetAddress"))
    await step("accessibility: connect", _connect(MessageBus, os.environ["AT_SPI_BUS_ADDRESS"]))
    a11y = results.get("accessibility: connect")
    if a11y is not None:
        registry, root = "org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root"
        await step("accessibility: list the applications",
                   call(a11y, registry, root, "org.a11y.atspi.Accessible", "GetChildren"))
        await step("accessibility: call another application",
                   call(a11y, targets["a11y_peer"], "/org/podium/Peer", "org.podium.Peer", "Reveal"))
        await step("accessibility: the events listened for",
                   call(a11y, registry, "/org/a11y/atspi/registry", "org.a11y.atspi.Registry", "GetRegisteredEvents"))
    for bus in (session, a11y):
        if bus is not None:
            bus.disconnect()


async def _connect(message_bus, address):
    return await asyncio.wait_for(message_bus(bus_address=address).connect(), 5)


def main() -> None:
    with open("probe.json") as given:
        targets = json.load(given)
    report: list = []
    attempt(report, "write in the workspace", lambda: write("inside.txt"))
    attempt(report, "write outside the workspace", lambda: write(targets["outside"]))
    attempt(report, "write into the system", lambda: write("/usr/podium-probe"))
    attempt(report, "write to its private /tmp", lambda: write(targets["tmp_name"]))
    attempt(report, "see the real session bus", lambda: os.stat(targets["session_socket"]))
    attempt(report, "see the real accessibility bus", lambda: os.stat(targets["a11y_socket"]))
    attempt(report, "tcp to the host's loopback", lambda: connect_tcp("127.0.0.1", targets["port"]))
    attempt(report, "tcp to the internet", lambda: connect_tcp("192.0.2.1", 80))
    attempt(report, "an abstract socket of the host", lambda: connect_unix("\0" + targets["abstract"]))
    attempt(report, "signal the test's process", lambda: os.kill(targets["test_pid"], 0))
    attempt(report, "the bus variables", lambda: {name: os.environ.get(name) for name in (
        "DBUS_SESSION_BUS_ADDRESS", "AT_SPI_BUS_ADDRESS", "DISPLAY")})
    asyncio.run(bus_attempts(report, targets))
    with open("report.json", "w") as out:
        json.dump(report, out, indent=1)
    sys.stdout.flush()
    os.execv("/usr/bin/zenity", ["zenity", "--info", "--title", "probe done", "--text", "the probe is done"])


if __name__ == "__main__":
    main()
