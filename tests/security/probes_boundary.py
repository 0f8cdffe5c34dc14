"""The operating system's boundary on its own: what if the policy let a command through? Each probe runs
a command the allow-list would refuse (a shell, an interpreter) straight through the sandbox podium runs
every command in, read-only as a read-only command would run, or writable as an approved one would, and
checks that what it was after did not happen."""

from __future__ import annotations

import os
import shutil
import socket
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from podium.apps.sandbox import SAFE_PATH, Access, Sandbox
from podium.apps.shell import run_vetted
from podium.apps.shell_policy import Vetted
from tests.security.harness import Attack, Context, Verdict, add

PYTHON = shutil.which("python3", path=":".join(SAFE_PATH))
assert PYTHON is not None, "the boundary probes need a python3 in /usr/bin or /bin"


async def forced(ctx: Context, argv: list[str], *, write: bool = False, sandbox: Sandbox | None = None,
                 timeout: float = 20) -> dict[str, Any]:
    """Run `argv` in the shell's own sandbox for this workspace, with no policy in front of it."""
    box = sandbox or ctx.app("shell").sandbox
    workspace = ctx.workspace
    wrapped = box.wrap(argv, access=Access.WRITE if write else Access.READ, workspace=workspace.root,
                       protected=workspace.protected_paths(), search_path=SAFE_PATH)
    vetted = Vetted(tuple(argv), shutil.which(argv[0], path=":".join(SAFE_PATH)) or argv[0], not write)
    return await run_vetted(vetted, argv=wrapped, cwd=str(workspace.root), timeout=timeout, max_output=64_000,
                            env=box.environment(SAFE_PATH, home=str(workspace.root)),
                            processes=box.limits.processes,
                            disk=(workspace.root, box.limits.disk_bytes) if write and box.limits.disk_bytes else None,
                            shared=box.limits.shared_bytes)


def _said(outcome: dict[str, Any]) -> str:
    text = (outcome["stderr"] or outcome["stdout"]).strip().splitlines()
    return f"exit {outcome['exit_code']}: {text[-1] if text else ''}"


def expect(argv: list[str], *, write: bool = False, fails: bool = True,
           check: Callable[[Context, dict[str, Any]], str | None] | None = None,
           sandbox: Callable[[Sandbox], Sandbox] | None = None, timeout: float = 20) -> Attack:
    """A probe: `argv` forced through the sandbox must fail (when `fails`) and `check` must find nothing wrong
    (it returns what went wrong, or None)."""

    async def attack(ctx: Context) -> Verdict:
        box = sandbox(ctx.app("shell").sandbox) if sandbox else None
        outcome = await forced(ctx, [a.replace("{outside}", str(ctx.outside)) for a in argv], write=write,
                               sandbox=box, timeout=timeout)
        wrong = check(ctx, outcome) if check else None
        if wrong:
            return Verdict(False, "sandbox", wrong)
        if fails and outcome["exit_code"] == 0 and not outcome["timed_out"]:
            return Verdict(False, "sandbox", f"it succeeded: {outcome['stdout'][:200]!r}")
        return Verdict(True, "sandbox", _said(outcome) if not outcome["timed_out"] else "killed at its time limit")

    return attack


def sh(script: str) -> list[str]:
    return ["sh", "-c", script]


def _unchanged(relative: str) -> Callable[[Context, dict[str, Any]], str | None]:
    def check(ctx: Context, outcome: dict[str, Any]) -> str | None:
        path = ctx.root / relative
        return None if path.exists() and b"pwned" not in path.read_bytes() else f"{relative} was changed"

    return check


def _no_output(*words: str) -> Callable[[Context, dict[str, Any]], str | None]:
    def check(ctx: Context, outcome: dict[str, Any]) -> str | None:
        said = outcome["stdout"] + outcome["stderr"]
        found = [w for w in words if w in said]
        return f"the output shows {found}" if found else None

    return check


# -- files outside, the workspace read-only, podium's own files ------------------------------------
add("boundary/write-outside", "boundary", expect(sh("echo pwned > {outside}/pwned")))
add("boundary/write-outside-when-writable", "boundary", expect(sh("echo pwned > {outside}/pwned"), write=True))
add("boundary/read-outside", "boundary", expect(["cat", "{outside}/secret.txt"], check=_no_output("top secret")))
add("boundary/read-through-link", "boundary", expect(["cat", "link_out/secret.txt"], check=_no_output("top secret")))
add("boundary/write-through-link", "boundary", expect(sh("echo pwned > link_out/pwned"), write=True))
add("boundary/read-only-workspace", "boundary", expect(sh("echo x > pwned")))
add("boundary/read-only-workspace-delete", "boundary", expect(["rm", "notes.txt"], check=lambda c, o: None if (
    c.root / "notes.txt").exists() else "notes.txt was deleted"))
add("boundary/config-renamed-away", "boundary", expect(["mv", "podium.toml", "x.toml"], write=True,
                                                     check=_unchanged("podium.toml")))
add("boundary/config-replaced-by-rename", "boundary", expect(sh("echo pwned > n && mv n podium.toml"), write=True,
                                                           check=_unchanged("podium.toml")))
add("boundary/config-written", "boundary", expect(sh("echo pwned >> podium.toml"), write=True,
                                                check=_unchanged("podium.toml")))
add("boundary/config-link-written", "boundary", expect(sh("ln -s podium.toml l && echo pwned >> l"), write=True,
                                                     check=_unchanged("podium.toml")))
add("boundary/config-hard-link", "boundary", expect(sh("ln podium.toml h && echo pwned >> h"), write=True,
                                                  check=_unchanged("podium.toml")))
add("boundary/journal-folder-renamed", "boundary", expect(["mv", ".podium", "old"], write=True,
                                                        check=_unchanged(".podium/journal.db")))
add("boundary/journal-deleted", "boundary", expect(["rm", "-rf", ".podium"], write=True,
                                                 check=_unchanged(".podium/journal.db")))
add("boundary/system-folders-read-only", "boundary", expect(["touch", "/usr/pwned", "/etc/pwned", "/opt/pwned"]))
add("boundary/tmp-is-private", "boundary", expect(sh("touch /tmp/podium-pwned-tmp && ls /tmp/podium-pwned-tmp"),
                                                  fails=False))
add("boundary/home-folders-absent", "boundary", expect(["ls", "/root", "/home"]))
add("boundary/var-and-run-absent", "boundary", expect(["ls", "/var/run", "/run"]))
add("boundary/shadow-masked", "boundary", expect(["cat", "/etc/shadow"], fails=False,
                                                 check=_no_output("root:", "$6$", "$y$")))
add("boundary/no-secrets-in-environment", "boundary", expect(["sh", "-c", "env"], fails=False,
                                                             check=_no_output("OPENAI_API_KEY", "ANTHROPIC")))


# -- privileges: no capabilities, no new privileges, no clock, no mounts, no namespaces -------------
def _clock(ctx: Context, outcome: dict[str, Any]) -> str | None:
    import time

    return "the machine's clock moved" if time.time() < 1.7e9 else None


add("privilege/set-clock", "privilege", expect(["date", "-s", "2001-01-01"], write=True, check=_clock))
add("privilege/mount", "privilege", expect(["mount", "-t", "tmpfs", "none", "/mnt"], write=True))
add("privilege/remount-workspace", "privilege", expect(sh("mount -o remount,rw $PWD"), write=False))
add("privilege/nested-user-namespace", "privilege", expect(["unshare", "-r", "id"]))
add("privilege/capabilities", "privilege", expect(sh("grep -E '^Cap(Eff|Prm|Bnd)' /proc/self/status"),
                                                  fails=False, check=lambda c, o: None if all(
                                                      line.endswith("0000000000000000")
                                                      for line in o["stdout"].split("\n") if line) else o["stdout"]))
add("privilege/no-new-privileges", "privilege", expect(sh("grep NoNewPrivs /proc/self/status"), fails=False,
                                                       check=lambda c, o: None if "NoNewPrivs:\t1" in o["stdout"]
                                                       else o["stdout"]))


def _kill_us(ctx: Context, outcome: dict[str, Any]) -> str | None:
    return None  # the harness is this very process: it would not be here to say so


add("privilege/kill-host-process", "privilege", expect(["kill", "-9", str(os.getpid())], check=_kill_us))
add("privilege/host-processes-hidden", "privilege", expect(sh(f"ls /proc/{os.getpid()}"), check=_kill_us))
add("privilege/raw-devices-absent", "privilege", expect(sh("ls /dev/sda /dev/nvme0n1 /dev/mem /dev/kmsg")))


# -- network ---------------------------------------------------------------------------------------
class _Listener:
    """A TCP server on the machine's loopback and a unix socket beside the workspace, for the length of a probe."""

    def __init__(self, folder: Path, name: str) -> None:
        self.tcp = socket.create_server(("127.0.0.1", 0))
        self.port = self.tcp.getsockname()[1]
        self.path = str(folder / "probe.sock")
        self.unix = socket.socket(socket.AF_UNIX)
        self.unix.bind(self.path)
        self.unix.listen()
        self.name = f"\0podium-probe-{os.getpid()}-{name}"
        self.abstract = socket.socket(socket.AF_UNIX)
        self.abstract.bind(self.name)
        self.abstract.listen()
        self.accepted = 0
        for server in (self.tcp, self.unix, self.abstract):
            threading.Thread(target=self._serve, args=(server,), daemon=True).start()

    def _serve(self, server: socket.socket) -> None:
        try:
            while True:
                connection, _ = server.accept()
                self.accepted += 1
                connection.close()
        except OSError:
            return

    def close(self) -> None:
        for server in (self.tcp, self.unix, self.abstract):
            server.close()


def connect(kind: str) -> Attack:
    async def attack(ctx: Context) -> Verdict:
        listener = _Listener(ctx.root.parent, kind)  # beside the workspace, outside it
        try:
            target = {"tcp": f"socket.create_connection(('127.0.0.1', {listener.port}), 3)",
                      "unix": f"s=socket.socket(socket.AF_UNIX); s.connect({listener.path!r})",
                      "abstract": f"s=socket.socket(socket.AF_UNIX); s.connect({listener.name!r})",
                      "dns": "socket.getaddrinfo('example.com', 80)"}[kind]
            outcome = await forced(ctx, [PYTHON, "-c", f"import socket; {target}"], write=True)
        finally:
            listener.close()
        if listener.accepted or outcome["exit_code"] == 0:
            return Verdict(False, "sandbox", f"the {kind} connection was made")
        return Verdict(True, "sandbox", _said(outcome))

    return attack


for kind in ("tcp", "unix", "abstract", "dns"):
    add(f"network/{kind}", "network", connect(kind))


# -- resources: processes, memory, file size, CPU, output -----------------------------------------
def _not_timed_out(ctx: Context, outcome: dict[str, Any]) -> str | None:
    return "it ran to its time limit: the limit did not stop it" if outcome["timed_out"] else None


add("limits/fork-bomb", "limits", expect(sh("f(){ f|f; }; f"), check=lambda c, o: None if (
    o["too_many_processes"] or o["exit_code"] != 0) and not o["timed_out"] else "the fork bomb was not stopped"),
    timeout=60)
add("limits/memory", "limits", expect([PYTHON, "-c", "x = bytearray(8 << 30)"]))
add("limits/file-size", "limits", expect(sh("head -c 50000000 /dev/zero > big"), write=True,
                                         sandbox=lambda box: replace(box, limits=replace(
                                             box.limits, file_size_bytes=10 << 20)),
                                         check=lambda c, o: None if not (c.root / "big").exists() or (
                                             c.root / "big").stat().st_size <= 10 << 20 else "big.bin grew past"))
add("limits/cpu", "limits", expect(sh("while :; do :; done"), sandbox=lambda box: replace(
    box, limits=replace(box.limits, cpu_seconds=1)), check=_not_timed_out), timeout=60)
add("limits/tmp-in-memory", "limits", expect(sh("head -c 400000000 /dev/zero > /tmp/fill"),
                                             sandbox=lambda box: replace(box, limits=replace(
                                                 box.limits, tmp_bytes=16 << 20, file_size_bytes=None))))
add("limits/disk", "limits", expect(sh("i=0; while :; do head -c 8000000 /dev/zero > f$i; i=$((i+1)); done"),
                                    write=True, sandbox=lambda box: replace(box, limits=replace(
                                        box.limits, disk_bytes=32 << 20)),
                                    check=lambda c, o: None if o["disk_exceeded"] and not o["timed_out"]
                                    else "the workspace's disk filled past the limit"), timeout=60)
# Shared memory is no address space: segments made, filled and let go of one after the other, past any RLIMIT_AS
_MEMFD = "import os\nfds = []\nwhile True:\n    fd = os.memfd_create('m')\n    os.write(fd, bytes(32 << 20))\n" \
         "    fds.append(fd)\n"
_SYSV = ("import ctypes\nlibc = ctypes.CDLL(None)\nlibc.shmat.restype = ctypes.c_void_p\n"
         "libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]\n"
         "libc.shmdt.argtypes = [ctypes.c_void_p]\nwhile True:\n"
         "    segment = libc.shmget(0, 32 << 20, 0o1600)\n    if segment < 0: raise SystemExit('shmget failed')\n"
         "    at = libc.shmat(segment, None, 0)\n    ctypes.memset(at, 1, 32 << 20)\n    libc.shmdt(at)\n")


def _shared_stopped(ctx: Context, outcome: dict[str, Any]) -> str | None:
    return None if outcome["shared_memory_exceeded"] and not outcome["timed_out"] else \
        "shared memory grew past the limit"


for kind, code in (("memfd", _MEMFD), ("sysv", _SYSV)):
    add(f"limits/shared-{kind}", "limits", expect([PYTHON, "-c", code], sandbox=lambda box: replace(
        box, limits=replace(box.limits, shared_bytes=160 << 20)), check=_shared_stopped), timeout=60)
add("limits/open-files", "limits", expect([PYTHON, "-c", "fs = [open('/dev/null') for _ in range(100000)]"]))

