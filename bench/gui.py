"""Time to observe a GUI program's window (its numbered control list) and to act on a control, through the
accessibility tree, against a baseline measured in the same run.

A private desktop session is started (Xvfb, a D-Bus session bus, the accessibility bus; Debian packages
xvfb, dbus, at-spi2-core, xdotool, mousepad), mousepad is launched through the accessible application,
text is typed and its File > Save As dialog opened (a bigger tree: a file chooser), then:

- observe: the `observe` tool (the whole tree walked, controls numbered and listed), against the same walk
  with one call in flight at a time, as a blocking AT-SPI client (pyatspi, libatspi) makes them;
- act: the `set_text` tool on the editor's text (the number checked to be alive, the text set, read back,
  the windows listed after a settling pause of 150 ms), against the bare AT-SPI call that sets the text;
- launch: `launch()` until the program's window is accessible, then its stop, in its sandbox (bubblewrap,
  the session and accessibility buses through a filtering proxy started for the launch), against the same
  with the configuration's `sandbox = "off"`; and, of the sandboxed launch, the proxy's start alone (until
  it listens).

    .venv/bin/python bench/gui.py [--runs 30] [--launches 10] [--json-out FILE]

Not run in CI; tests/apps/test_gui_bench.py runs it at --runs 2.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.desktop_session import desktop_session  # noqa: E402

from podium.apps import desktop_bus  # noqa: E402
from podium.apps.accessible.app import AccessibleApplication  # noqa: E402
from podium.apps.accessible.bus import AtspiBus, accessibility_address  # noqa: E402
from podium.apps.accessible.tree import snapshot  # noqa: E402
from podium.apps.registry import build_applications  # noqa: E402


async def timed(runs: int, work: Callable[[], Awaitable[Any]]) -> list[float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        await work()
        times.append(time.perf_counter() - started)
    return times


def summary(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"median_ms": round(statistics.median(ordered) * 1000, 2), "p95_ms": round(p95 * 1000, 2)}


async def measure(runs: int, workspace: Path) -> dict[str, Any]:
    apps = build_applications({"workspace": str(workspace), "enabled": ["files"], "desktop": {
        "editor": {"command": ["mousepad"], "accessible": True, "startup_timeout": 60}}})
    editor = apps["editor"]
    assert isinstance(editor, AccessibleApplication)
    try:
        await editor.launch()
        first = await editor.call("observe", {})
        text = next(int(line.split(":")[0]) for line in first.content["controls"] if ": text [" in line)
        await editor.call("set_text", {"control": text, "text": "benchmark\n" * 20})
        await editor.call("menu", {"path": ["File", "Save As"]})
        await editor.call("wait_for", {"title": "Save As"})
        observed = await editor.observation()
        app_ref = await editor.application()
        text_ref = editor.ids.lookup(text)
        assert text_ref is not None
        serial = await AtspiBus.connect()
        serial._slots = asyncio.Semaphore(1)  # one call in flight at a time: a blocking client's walk

        async def observe() -> None:
            result = await editor.call("observe", {})
            assert result.ok, result.error

        async def walk_one_at_a_time() -> None:
            await snapshot(serial, app_ref)

        async def act() -> None:
            result = await editor.call("set_text", {"control": text, "text": "benchmark\n" * 20})
            assert result.ok, result.error

        async def bare_call() -> None:
            await serial.call(text_ref[0], "EditableText", "SetTextContents", "s", ("benchmark\n" * 20,))

        figures = {}
        for name, ours, theirs in (("observe", observe, walk_one_at_a_time), ("act", act, bare_call)):
            mine, base = [], []
            for _ in range(runs):  # interleaved, so load on the machine hits both alike
                mine += await timed(1, ours)
                base += await timed(1, theirs)
            figures[name] = {"podium": summary(mine), "baseline": summary(base),
                             "ratio": round(statistics.median(mine) / statistics.median(base), 2)}
        serial.close()
        return {"runs": runs, "nodes": len(observed.snapshot.nodes), "controls": len(observed.controls),
                "omitted": observed.omitted, **figures}
    finally:
        await apps.aclose()


async def launches(runs: int, workspace: Path) -> dict[str, Any]:
    """Seconds from launch() to an accessible window, and to stop it, sandboxed and not, interleaved."""
    editors = {}
    for mode in ("sandboxed", "plain"):
        apps = build_applications({"workspace": str(workspace), "enabled": [], "desktop": {"editor": {
            "command": ["mousepad"], "accessible": True, "workspace": "write", "startup_timeout": 60,
            "sandbox": "on" if mode == "sandboxed" else "off"}}})
        editors[mode] = apps
    times: dict[str, list[float]] = {"sandboxed": [], "plain": []}
    for index in range(runs):
        for mode in (("sandboxed", "plain") if index % 2 else ("plain", "sandboxed")):
            apps = editors[mode]
            started = time.perf_counter()
            await apps["editor"].launch()
            await apps.aclose()
            times[mode].append(time.perf_counter() - started)
    address = await accessibility_address()
    proxy: list[float] = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="podium-bench-bus-") as folder:
            started = time.perf_counter()
            found = await desktop_bus.start(desktop_bus.BusAccess(own=("org.xfce.mousepad",), accessibility=True),
                                            Path(folder), address)
            proxy.append(time.perf_counter() - started)
            assert found is not None
            with contextlib.suppress(ProcessLookupError):
                found.process.terminate()
            await found.aclose()
    sandboxed, plain = statistics.median(times["sandboxed"]), statistics.median(times["plain"])
    return {"runs": runs, "podium": summary(times["sandboxed"]), "baseline": summary(times["plain"]),
            "ratio": round(sandboxed / plain, 2), "cost_ms": round((sandboxed - plain) * 1000, 1),
            "proxy": summary(proxy)}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--launches", type=int, default=10)
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="podium-gui-bench-") as tmp:
        root = Path(tmp)
        (root / "work").mkdir()
        with desktop_session(root / "desktop"):
            result = asyncio.run(measure(args.runs, root / "work"))
            result["launch"] = asyncio.run(launches(args.launches, root / "work"))
    print(f"mousepad with its Save As dialog open: {result['nodes']} accessible objects walked, "
          f"{result['controls']} controls listed ({result['omitted']} left out), {args.runs} runs each")
    print(f"{'measure':<10} {'podium median / p95':>22} {'baseline median / p95':>24} {'ratio':>6}")
    for name, base in (("observe", "same walk, 1 call in flight"), ("act", "bare SetTextContents")):
        row = result[name]
        print(f"{name:<10} {row['podium']['median_ms']:>10.1f} / {row['podium']['p95_ms']:<9.1f}ms "
              f"{row['baseline']['median_ms']:>10.1f} / {row['baseline']['p95_ms']:<9.1f}ms {row['ratio']:>6.2f}x"
              f"  (baseline: {base})")
    launch = result["launch"]
    print(f"{'launch':<10} {launch['podium']['median_ms']:>10.1f} / {launch['podium']['p95_ms']:<9.1f}ms "
          f"{launch['baseline']['median_ms']:>10.1f} / {launch['baseline']['p95_ms']:<9.1f}ms {launch['ratio']:>6.2f}x"
          f"  (baseline: the same unsandboxed; {launch['runs']} each)")
    print(f"the sandbox's cost per launch: {launch['cost_ms']:.0f} ms (median), of which the bus proxy's start "
          f"{launch['proxy']['median_ms']:.1f} ms (median; p95 {launch['proxy']['p95_ms']:.1f} ms); "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=2) + "\n")
    return result


if __name__ == "__main__":
    main()
