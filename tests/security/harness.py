"""The attack corpus's harness.

Every probe attacks podium through its applications' own tools (no model needed), as a person's agent
could. The probes run in child processes whose address space is capped (RLIMIT_AS), so that a regression
fails the probe instead of eating the machine, and each probe has a time limit the parent enforces (a probe
that hangs, even in a thread the event loop cannot interrupt, is killed and reported as hung; the next
probes run in a new child). Each probe gets a fresh workspace beside a shared sentinel folder, `outside`,
which is compared before and after every probe, and no file named `pwned*` may appear anywhere the probe
could reach (the workspace, the sentinel, the machine's /tmp).

    python -m tests.security.harness BASE ID...     # the child: one JSON line per probe on stdout
"""

from __future__ import annotations

import asyncio
import dataclasses
import glob
import hashlib
import json
import os
import resource
import stat
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
MEMORY_CAP = 2 << 30  # the child's address space: a parser that runs away fails with MemoryError
CONFIG = "[apps]\nenabled = [\"files\", \"documents\", \"spreadsheets\", \"shell\"]\n"
JOURNAL = ".podium/journal.db"


@dataclass(frozen=True, slots=True)
class Verdict:
    """What happened to one attack: `blocked` (it did not get what it was after), by which `layer`
    (policy: refused before anything ran; sandbox: ran and failed in bounds; approval: held for the person;
    limits: refused by a file limit; tool: the tool refused it), and the error the agent saw."""

    blocked: bool
    layer: str
    message: str


@dataclass(slots=True)
class Context:
    root: Path  # the probe's own workspace
    outside: Path  # the sentinel folder beside it
    apps: dict[str, Any] = field(default_factory=dict)

    def app(self, name: str) -> Any:
        from podium.apps.registry import build_applications

        if "_workspace" not in self.apps:
            built = build_applications({"workspace": str(self.root)}, protect=[self.root / JOURNAL])
            self.apps |= dict(built)
            self.apps["_workspace"] = built.workspace
        return self.apps[name]

    @property
    def workspace(self) -> Any:
        self.app("files")
        return self.apps["_workspace"]


Attack = Callable[[Context], Awaitable[Verdict]]


@dataclass(frozen=True, slots=True)
class Probe:
    id: str
    group: str  # the class of attack (README's security section counts them)
    attack: Attack
    timeout: float = 30.0


PROBES: dict[str, Probe] = {}


def probe(id: str, group: str, timeout: float = 30.0) -> Callable[[Attack], Attack]:
    def register(attack: Attack) -> Attack:
        assert id not in PROBES, f"two probes are named {id!r}"
        PROBES[id] = Probe(id, group, attack, timeout)
        return attack

    return register


def add(id: str, group: str, attack: Attack, timeout: float = 30.0) -> None:
    probe(id, group, timeout)(attack)


# -- the world around a probe ----------------------------------------------------------------------
def prepare(base: Path, id: str) -> Context:
    """A fresh workspace for probe `id` (notes, a subfolder, podium.toml, a journal file, a link out)."""
    root = base / "probes" / id / "work"
    root.mkdir(parents=True)
    (root / "notes.txt").write_text("hello\n")
    (root / "sub").mkdir()
    (root / "sub" / "inner.txt").write_text("inner\n")
    (root / "podium.toml").write_text(CONFIG)
    (root / JOURNAL).parent.mkdir()
    (root / JOURNAL).write_bytes(b"SQLite format 3\x00" + bytes(100))
    (root / "link_out").symlink_to(base / "outside")
    return Context(root, base / "outside")


def sentinel(base: Path) -> Path:
    """The folder outside every workspace that no probe may change."""
    outside = base / "outside"
    if not outside.exists():
        outside.mkdir(parents=True)
        (outside / "secret.txt").write_text("top secret\n")
        (outside / "podium.toml").write_text(CONFIG)
        (outside / "nested").mkdir()
        (outside / "nested" / "keys.txt").write_text("ssh-rsa AAAA\n")
    return outside


def snapshot(folder: Path) -> dict[str, tuple[Any, ...]]:
    """Every entry under `folder`: kind, mode, size, content digest or link target."""
    seen: dict[str, tuple[Any, ...]] = {}
    for top, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = Path(top) / name
            info = path.lstat()
            kind = stat.S_IFMT(info.st_mode)
            if stat.S_ISREG(info.st_mode):
                detail: Any = hashlib.sha256(path.read_bytes()).hexdigest()
            elif stat.S_ISLNK(info.st_mode):
                detail = os.readlink(path)
            else:
                detail = None
            seen[str(path.relative_to(folder))] = (kind, stat.S_IMODE(info.st_mode), info.st_size, detail)
    return seen


def pwned(*folders: Path) -> list[str]:
    """Marker files an attack meant to leave: in the probe's workspace, the sentinel, the machine's /tmp."""
    found = [str(p) for folder in folders for p in folder.rglob("pwned*")]
    return found + glob.glob("/tmp/pwned*") + glob.glob("/tmp/podium-pwned*")


# -- the child --------------------------------------------------------------------------------------
async def _run_one(base: Path, item: Probe) -> dict[str, Any]:
    outside = sentinel(base)
    before = snapshot(outside)
    context = prepare(base, item.id)
    started = time.monotonic()
    try:
        verdict = await item.attack(context)
    except MemoryError:
        verdict = Verdict(False, "crash", "MemoryError: the probe ran the harness out of memory")
    except Exception as exc:  # a probe the harness could not even carry out is a failure, with its reason
        verdict = Verdict(False, "crash", f"{type(exc).__name__}: {exc}")
    finally:
        for app in context.apps.values():
            if hasattr(app, "aclose"):
                await app.aclose()
    return {**dataclasses.asdict(verdict), "id": item.id, "seconds": round(time.monotonic() - started, 3),
            "outside_changed": snapshot(outside) != before, "pwned": pwned(context.root, outside)}


async def _child(base: Path, ids: list[str]) -> None:
    from tests.security import corpus  # noqa: F401  (registers the probes in this module, imported as such)

    for id in ids:
        print(json.dumps({"start": id}), flush=True)
        print(json.dumps(await _run_one(base, PROBES[id])), flush=True)


# -- the parent -------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Outcome:
    id: str
    blocked: bool
    layer: str
    message: str
    seconds: float
    hung: bool = False
    outside_changed: bool = False
    pwned: tuple[str, ...] = ()


def _cap_memory() -> None:  # in the child, before it execs Python
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def run(ids: Iterable[str], base: Path) -> dict[str, Outcome]:
    """Run the probes `ids` in memory-capped children, each within its own time limit."""
    from tests.security import corpus  # noqa: F401

    pending, results = list(ids), {}
    while pending:
        errors = base / f"child-{len(results)}.stderr"
        with open(errors, "w") as stderr:
            child = subprocess.Popen([sys.executable, "-m", "tests.security.harness", str(base), *pending],
                                     cwd=REPO, stdout=subprocess.PIPE, stderr=stderr, text=True,
                                     preexec_fn=_cap_memory, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
            try:
                done = _collect(child, pending, results)
            finally:
                if child.poll() is None:
                    child.kill()
                child.wait()
                assert child.stdout is not None
                child.stdout.close()
        pending = [id for id in pending if id not in results]
        if not done and pending:  # the child died during or before its next probe: that probe is the one
            said = errors.read_text(errors="replace").strip().splitlines()[-3:]
            results[pending[0]] = Outcome(pending[0], False, "crash", "the probe's process died: " + " | ".join(said),
                                          0.0)
            pending = pending[1:]
    return results


def _collect(child: subprocess.Popen[str], pending: list[str], results: dict[str, Outcome]) -> bool:
    """Read the child's lines, enforcing each probe's time limit; False when it stopped early."""
    import selectors

    assert child.stdout is not None
    selector = selectors.DefaultSelector()
    selector.register(child.stdout, selectors.EVENT_READ)
    current: str | None = None
    deadline = time.monotonic() + 60  # the child's start (imports) and then each probe's own limit
    buffer = ""
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            if current is not None:
                results[current] = Outcome(current, False, "hang", f"no answer within {PROBES[current].timeout:g} s "
                                           "(the probe hung and was killed)", PROBES[current].timeout, hung=True)
            return True
        if not selector.select(timeout=min(remaining, 1.0)):
            continue
        line = child.stdout.readline()
        if line == "":
            return current is None
        buffer = line.strip()
        if not buffer:
            continue
        message = json.loads(buffer)
        if "start" in message:
            current = message["start"]
            deadline = time.monotonic() + PROBES[current].timeout
            continue
        results[message["id"]] = Outcome(message["id"], message["blocked"], message["layer"], message["message"],
                                         message["seconds"], outside_changed=message["outside_changed"],
                                         pwned=tuple(message["pwned"]))
        current = None
        if len(results) >= len(pending) or all(id in results for id in pending):
            return True
        deadline = time.monotonic() + 60


if __name__ == "__main__":
    from tests.security import harness  # the registry the probes fill is that module's, not __main__'s

    asyncio.run(harness._child(Path(sys.argv[1]), sys.argv[2:]))
