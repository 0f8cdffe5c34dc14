"""The operating system's boundary around every program podium starts: bubblewrap (`bwrap`).

Argument checks cannot contain a program: every program has its own option grammar (GNU tools take
`--out=` for `--output`, `-uo<path>` for `-u -o <path>`), so the allow-list of the shell only states
what is meant to run, and this module makes sure that whatever runs stays in bounds. A `Sandbox` is a
value built from the configuration; `Sandbox.wrap()` turns one command into the argv that runs it
confined:

- the system folders (/usr, /etc, /opt, the /bin and /lib links) read-only, with the credential files
  of /etc masked; everything else (home folders, /var, /run, /mnt, /srv, other projects) absent;
  a private, size-limited /tmp, which is also HOME; a fresh /dev (read-only but for its devices and a
  size-limited /dev/shm) and /proc;
- the workspace read-only, writable, or absent (`Access`), and the protected paths inside it (the
  configuration, the journal) read-only even when the workspace is writable: a write fails with EROFS,
  a rename or a delete with EBUSY (they are mount points, and so are the folders holding them);
- new namespaces for users, processes, IPC, host name and network (loopback only, unless the
  configuration allows the network); no capabilities at all, so no clock, no mounts, no raw sockets;
  no new privileges (set-uid programs do not elevate); no nested user namespaces;
- resource limits (`Limits`) set inside the sandbox by util-linux's prlimit before the program starts:
  CPU time, address space, file size, open files, processes, no core dumps;
- for a desktop program (`display=True`), its X display: the one socket of $DISPLAY (/tmp/.X11-unix/XN,
  not the other displays') and the authority file, nothing else of /tmp; and the sockets it is given
  (`sockets`: its D-Bus proxies, desktop_bus.py), bound read-only where it will look for them. X11 itself
  isolates nothing between the clients of one display (any client can read another's windows and send it
  keys): the display is the person's desktop, given to a program that is to be seen on it. A remote display
  (host:N, over TCP) is out of reach, since there is no network.

Why bubblewrap and not Landlock: bubblewrap is the distributions' own package (Flatpak's sandbox, the one
Anthropic's sandboxed shell and OpenAI's Codex CLI use on Linux), works on every kernel since 3.8, hides
paths (Landlock can only deny access, and a denied path still shows its name and size), gives network and
process isolation in the same step, and needs no Python binding. Why no seccomp filter: bwrap takes one
only as a compiled BPF program, which would mean podium assembling BPF per architecture by hand (where a
slip in the architecture check is a silent hole) or a C library and its binding; what a filter would add
here is small, because the dangerous system calls already fail for other reasons: mount, clock, module and
raw-socket calls need capabilities that are all dropped, the network namespace has no route out, nested
user namespaces are disabled by bwrap itself, and no sandboxed program has a terminal to inject keys into.
What remains is the kernel's own attack surface (io_uring, userfaultfd, keyrings), which a filter would
narrow; that is a possible next step, not a boundary this design relies on.

Linux does not apply a process-count limit (RLIMIT_NPROC) to root, so `watch()` also counts a sandbox's
processes and ends it past the limit. The file size limit bounds each file, not how many: `watch()` also ends a
command once the workspace's file system has lost more than `Limits.disk_bytes` of its free space since it
started (a quota of its own needs a file system with quotas, or privileges podium does not have), and once the
machine's shared memory (memfd, SysV segments, tmpfs) has grown by more than `Limits.shared_bytes`, which no
resource limit counts (a cgroup would; podium runs without the privileges to make one).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import re
import resource
import shutil
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from podium.apps.tooling import ToolError

SAFE_PATH = ("/usr/local/bin", "/usr/bin", "/bin")
# System folders shown read-only: the programs, their libraries and their configuration.
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
# Credentials a process running as root could read even without capabilities (it owns them).
MASKED_FILES = ("/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers",
                "/etc/security/opasswd")
MASKED_FOLDERS = ("/etc/ssh", "/etc/ssl/private", "/etc/sudoers.d")
HOME = "/tmp"
INSTALL = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)"


class SandboxUnavailable(ToolError):
    """A command must run sandboxed and the sandbox cannot be made here; nothing was run."""


class Access(StrEnum):
    """What a sandboxed program may do with the workspace."""

    NONE = "none"  # it is not there
    READ = "read"  # it is there, read-only: a write fails harmlessly, whatever the program's options
    WRITE = "write"  # writable, except the protected paths in it


@dataclass(frozen=True, slots=True)
class Limits:
    """Resource limits of one sandboxed program (None: no limit). Each process gets the CPU time, address
    space, file size and open files; the process count is the whole sandbox's."""

    cpu_seconds: int | None = 60
    memory_bytes: int | None = 2 << 30
    file_size_bytes: int | None = 1 << 30
    processes: int | None = 64
    open_files: int | None = 1024
    tmp_bytes: int = 256 << 20  # the private /tmp (also HOME), in memory
    # what one command may take of the workspace's disk: the free space its file system may lose while it runs
    disk_bytes: int | None = 2 << 30
    # the shared memory (memfd, SysV, tmpfs) the machine may gain while one command runs: not address space,
    # so RLIMIT_AS does not bound it; above the private /tmp and /dev/shm, which count in it too
    shared_bytes: int | None = 1 << 30

    def __post_init__(self) -> None:
        for name in ("cpu_seconds", "memory_bytes", "file_size_bytes", "processes", "open_files", "tmp_bytes",
                     "disk_bytes", "shared_bytes"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"sandbox limit {name} must be positive, got {value}")

    def prlimit_options(self) -> list[str]:
        # Never above what podium itself runs under: a limit can only be lowered without capabilities.
        def capped(kind: int, value: int | None) -> int | None:
            hard = resource.getrlimit(kind)[1]
            return value if hard == resource.RLIM_INFINITY or value is None else min(value, hard)

        # CPU: SIGXCPU at the soft limit (exit status 152, told apart from a kill), SIGKILL a second later.
        cpu_hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
        cpu = None if self.cpu_seconds is None else f"{self.cpu_seconds}:{self.cpu_seconds + 1}"
        if cpu is not None and cpu_hard != resource.RLIM_INFINITY:
            cpu = f"{min(self.cpu_seconds or 0, cpu_hard)}:{min((self.cpu_seconds or 0) + 1, cpu_hard)}"
        pairs = (("--cpu", cpu), ("--as", capped(resource.RLIMIT_AS, self.memory_bytes)),
                 ("--fsize", capped(resource.RLIMIT_FSIZE, self.file_size_bytes)),
                 ("--nproc", capped(resource.RLIMIT_NPROC, self.processes)),
                 ("--nofile", capped(resource.RLIMIT_NOFILE, self.open_files)), ("--core", 0))
        return [f"{option}={value}" for option, value in pairs if value is not None]


@dataclass(frozen=True, slots=True)
class Status:
    """Whether bubblewrap can confine programs on this machine, and why not."""

    bwrap: str | None
    version: str
    works: bool
    problem: str  # "" when it works
    options: frozenset[str] = frozenset()  # the bwrap options this version knows (--disable-userns, --size)
    prlimit: str | None = None


@functools.cache
def status() -> Status:
    """Found once per process: a trial run of bwrap with the namespaces every command gets (a container
    or a kernel may refuse them even when the program is installed)."""
    bwrap = shutil.which("bwrap", path=os.pathsep.join(SAFE_PATH))
    if bwrap is None:
        return Status(None, "", False, "bubblewrap (bwrap) is not installed")
    prlimit = shutil.which("prlimit", path=os.pathsep.join((*SAFE_PATH, "/usr/sbin", "/sbin")))
    try:
        shown = subprocess.run([bwrap, "--version"], capture_output=True, text=True, timeout=10)
        helped = subprocess.run([bwrap, "--help"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError) as exc:
        return Status(bwrap, "", False, f"{bwrap} cannot be run: {exc}")
    version = shown.stdout.strip().removeprefix("bubblewrap").strip()
    options = frozenset(word for word in helped.stdout.split() if word.startswith("--"))
    if prlimit is None:
        return Status(bwrap, version, False, "prlimit (util-linux) is not installed: limits cannot be set",
                      options)
    trial = Sandbox().wrap(["true"], access=Access.NONE, search_path=SAFE_PATH, checked=Status(
        bwrap, version, True, "", options, prlimit))
    try:
        ran = subprocess.run(trial, capture_output=True, text=True, timeout=20, env={"PATH": ":".join(SAFE_PATH)})
    except (OSError, subprocess.SubprocessError) as exc:
        return Status(bwrap, version, False, f"bwrap failed to start: {exc}", options, prlimit)
    if ran.returncode != 0:
        said = (ran.stderr.strip().splitlines() or [f"exit status {ran.returncode}"])[-1]
        return Status(bwrap, version, False, f"bwrap cannot create the sandbox here ({said})", options, prlimit)
    return Status(bwrap, version, True, "", options, prlimit)


@dataclass(frozen=True, slots=True)
class Sandbox:
    """How the programs of one kind (shell commands, a desktop program, an MCP server) are confined.
    `enabled=False` is the configuration's explicit opt-out: they then run unconfined."""

    enabled: bool = True
    network: bool = False
    limits: Limits = field(default_factory=Limits)
    read_paths: tuple[str, ...] = ()  # more folders or files to show read-only (a program's own install)
    display: bool = False  # the X display (its socket and authority file), for desktop programs
    # With the sandbox's parent: a program outliving podium is killed (commands); a desktop program is not,
    # so that a stop's SIGTERM reaches it and it can close cleanly.
    die_with_parent: bool = True

    def check(self) -> Status:
        """The machine's status; raises SandboxUnavailable (what is missing and what to do) when this
        sandbox is on and cannot be made."""
        found = status()
        if self.enabled and not found.works:
            raise SandboxUnavailable(f"refused: programs run only sandboxed and {found.problem}; {INSTALL}, "
                                     "or turn the sandbox off in the configuration (sandbox = \"off\")")
        return found

    def wrap(self, argv: list[str] | tuple[str, ...], *, access: Access, workspace: Path | None = None,
             protected: Iterable[Path] = (), cwd: Path | None = None, search_path: Iterable[str] = SAFE_PATH,
             programs: Iterable[str] = (), sockets: Iterable[tuple[str, str]] = (), sync_fd: int | None = None,
             checked: Status | None = None) -> list[str]:
        """The argv that runs `argv` (its program a bare name found on `search_path` inside, or an absolute
        path) confined as this sandbox says; `argv` itself when the sandbox is off. `programs`: the absolute
        paths of the program as found outside, whose installation is shown read-only (a venv's python and
        the interpreter it links to). `sockets`: (outside, inside) pairs of sockets to bind read-only (a
        socket's connect needs no write access to its mount). `sync_fd`: a file descriptor bwrap keeps open
        while the sandbox runs (its other end sees it close when the sandbox ends). Raises
        SandboxUnavailable when it is on and cannot be made."""
        if not self.enabled:
            return list(argv)
        found = checked or self.check()
        assert found.bwrap is not None and found.prlimit is not None
        mounts = _Mounts()
        for system in SYSTEM:
            mounts.system(system)
        for masked in MASKED_FILES:
            if os.path.isfile(masked):
                mounts.add(masked, ["--ro-bind", "/dev/null", masked])
        for masked in MASKED_FOLDERS:  # an empty private tmpfs over them: nothing there to read
            if os.path.isdir(masked) and not os.path.islink(masked):
                mounts.add(masked, ["--tmpfs", masked])
        tmp = ["--size", str(self.limits.tmp_bytes), "--tmpfs", "/tmp"] if "--size" in found.options \
            else ["--tmpfs", "/tmp"]
        mounts.add("/tmp", tmp)
        for folder in search_path:
            mounts.read(folder)
        for path in self.read_paths:
            mounts.read(path)
        for program in programs:
            mounts.install(program)
        binds = [*(x_display()[0] if self.display else ()), *sockets]
        for outside, inside in binds:
            mounts.add(inside, ["--ro-bind", outside, inside])
        if self.network:
            mounts.read("/run/systemd/resolve")  # where /etc/resolv.conf points on systemd machines
        if workspace is not None and access is not Access.NONE:
            mounts.add(str(workspace), ["--bind" if access is Access.WRITE else "--ro-bind", str(workspace),
                                        str(workspace)])
            for path in protected:
                # (one that is a link out of the workspace is not shown there: its target stays absent)
                if path == workspace or not path.is_relative_to(workspace) or not os.path.exists(path) \
                        or not Path(os.path.realpath(path)).is_relative_to(workspace):
                    continue
                mounts.add(str(path), ["--ro-bind", str(path), str(path)])
                # Its folders become mount points of themselves (as writable as before): a folder holding a
                # protected file cannot be renamed or removed either (EBUSY), which would move the file.
                for folder in list(path.relative_to(workspace).parents)[:-1]:
                    where = str(workspace / folder)
                    mounts.add(where, ["--bind" if access is Access.WRITE else "--ro-bind", where, where])
        options = [found.bwrap, "--unshare-all", "--unshare-user", "--cap-drop", "ALL", "--proc", "/proc",
                   "--dev", "/dev"]
        if "--disable-userns" in found.options:
            options.append("--disable-userns")
        if self.network:
            options.append("--share-net")
        if self.die_with_parent:
            options.append("--die-with-parent")
        if sync_fd is not None:
            options += ["--sync-fd", str(sync_fd)]
        options += mounts.arguments()
        # bwrap's /dev is a tmpfs of its own with no size, writable by the sandbox's root: files written there
        # (or in its /dev/shm) live in the machine's memory past every limit /tmp has. /dev/shm gets a private
        # tmpfs of the /tmp size (where bwrap cannot size one, none: shared memory then fails), and /dev itself
        # is made read-only; its devices are mounts of their own, so /dev/null and the rest still take writes.
        if "--size" in found.options:
            options += ["--size", str(self.limits.tmp_bytes), "--tmpfs", "/dev/shm"]
        options += ["--remount-ro", "/dev"]
        inside = cwd if cwd is not None else workspace if workspace is not None and access is not Access.NONE \
            else Path(HOME)
        options += ["--chdir", str(inside), "--"]
        return [*options, found.prlimit, *self.limits.prlimit_options(), "--", *argv]

    def environment(self, search_path: Iterable[str], *, home: str, extra: Mapping[str, str] | None = None
                    ) -> dict[str, str]:
        """A scrubbed environment: no variable of podium's own process (keys, tokens) is passed on. HOME is
        the private /tmp inside the sandbox, `home` outside it."""
        env = {"PATH": os.pathsep.join(search_path), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TERM": "dumb",
               "HOME": HOME if self.enabled else home}
        if self.display:
            env |= x_display()[1] if self.enabled else {
                name: os.environ[name] for name in ("DISPLAY", "XAUTHORITY") if os.environ.get(name)}
        return env | dict(extra or {})

    def describe(self) -> str:
        """One line for a run's header: what confines programs, or that nothing does and why."""
        if not self.enabled:
            return "sandbox: OFF (the configuration's sandbox = \"off\"): programs run unconfined"
        found = status()
        if not found.works:
            return f"sandbox: unavailable, {found.problem}: commands are refused ({INSTALL}, or set sandbox = \"off\")"
        net = "network allowed" if self.network else "no network"
        return (f"sandbox: bubblewrap {found.version}: the workspace is the only writable path (for commands that "
                f"need approval), {net}, no capabilities, limits on CPU, memory, files and processes")


def describe(sandbox: Sandbox | None = None) -> str:
    """The one-line status of `sandbox` (default: the shell's default one) on this machine."""
    return (sandbox or Sandbox()).describe()


X_AUTHORITY_INSIDE = "/run/podium/Xauthority"


def x_display() -> tuple[list[tuple[str, str]], dict[str, str]]:
    """What a sandboxed program needs of the X display $DISPLAY names: the socket and authority file to bind
    ((outside, inside) pairs) and the variables naming them inside. Only a local display's socket is bound;
    the X server's abstract socket of the same name is out of reach (it lives in the network namespace)."""
    name = os.environ.get("DISPLAY", "")
    if not name:
        return [], {}
    binds, env = [], {"DISPLAY": name}
    local = re.fullmatch(r"(?:unix)?:(\d+)(?:\.\d+)?", name)
    if local is not None:
        socket = f"/tmp/.X11-unix/X{local.group(1)}"
        if os.path.exists(socket):
            binds.append((socket, socket))
    # Inside, HOME is the private /tmp: the authority a client would find in the real home is bound in.
    authority = os.environ.get("XAUTHORITY") or os.path.join(os.path.expanduser("~"), ".Xauthority")
    if os.path.isfile(authority):
        binds.append((os.path.realpath(authority), X_AUTHORITY_INSIDE))
        env["XAUTHORITY"] = X_AUTHORITY_INSIDE
    return binds, env


class _Mounts:
    """The mount arguments of one sandbox, kept so that a folder is mounted before what lies inside it
    (a later mount over a parent would hide what was put inside)."""

    def __init__(self) -> None:
        self._mounts: dict[str, list[str]] = {}

    def add(self, where: str, arguments: list[str]) -> None:
        self._mounts[where] = arguments

    def system(self, path: str) -> None:
        if os.path.islink(path):
            self.add(path, ["--symlink", os.readlink(path), path])
        elif os.path.isdir(path):
            self.add(path, ["--ro-bind", path, path])

    def read(self, path: str) -> None:
        """Show `path` read-only (where it really is), unless a system folder shows it already."""
        real = os.path.realpath(path)
        if not os.path.exists(real) or any(_within(real, system) and not os.path.islink(system)
                                           for system in SYSTEM if system in self._mounts):
            return
        self.add(real, ["--ro-bind", real, real])

    def install(self, program: str) -> None:
        """Show a program's folder, and its installation when the folder is a `bin` (the prefix holds its
        libraries: a venv's site-packages, an interpreter's standard library), for the path as given and
        for where its links lead."""
        for path in dict.fromkeys((os.path.abspath(program), os.path.realpath(program))):
            folder = os.path.dirname(path)
            self.read(os.path.dirname(folder) if os.path.basename(folder) == "bin" else folder)

    def arguments(self) -> list[str]:
        ordered = sorted(self._mounts, key=lambda where: len(Path(where).parts))  # stable: parents first
        return [argument for where in ordered for argument in self._mounts[where]]


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


# -- the process limit ---------------------------------------------------------------------------
def descendants(pid: int) -> int:
    """How many processes descend from `pid` (its sandbox's, however they forked or setsid'd), from the
    kernel's per-thread child lists: no scan of every process on the machine."""
    count, pending = 0, [pid]
    while pending:
        current = pending.pop()
        try:
            tasks = os.listdir(f"/proc/{current}/task")
        except OSError:
            continue
        for task in tasks:
            with contextlib.suppress(OSError), open(f"/proc/{current}/task/{task}/children") as listed:
                children = [int(child) for child in listed.read().split()]
                count += len(children)
                pending += children
    return count


class Breach(StrEnum):
    """The limit a running sandbox went past, which `watch` sees (the kernel enforces the others)."""

    PROCESSES = "processes"
    DISK = "disk"
    SHARED_MEMORY = "shared memory"


def shared_bytes() -> int:
    """The machine's shared memory in use (/proc/meminfo's Shmem: tmpfs files, memfd, SysV and POSIX
    segments); 0 where it cannot be read."""
    try:
        with open("/proc/meminfo", "rb") as meminfo:
            for line in meminfo:
                if line.startswith(b"Shmem:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def free_bytes(path: str | Path) -> int | None:
    """The bytes an unprivileged writer may still use on the file system holding `path` (None: it is gone)."""
    try:
        found = os.statvfs(path)
    except OSError:
        return None
    return found.f_bavail * found.f_frsize


async def watch(pid: int, limit: int | None, *, disk: tuple[str | Path, int] | None = None,
                shared: int | None = None, first: float = 0.05, every: float = 0.05) -> Breach:
    """Wait until the sandbox of bwrap's `pid` runs more than `limit` processes (bwrap's own reaper inside is
    not counted); with `disk` = (the workspace, bytes), until the workspace's file system has lost more than
    those bytes of its free space since the watch began; with `shared` (bytes), until the machine's shared
    memory has grown by more than that. Then say which (the caller kills it: a SysV segment dies with the
    sandbox's IPC namespace, a memfd with its last process). Runs until cancelled otherwise. Polling starts
    after `first` seconds: a short command costs nothing."""
    if limit is None and disk is None and shared is None:
        await asyncio.Event().wait()
    start = free_bytes(disk[0]) if disk is not None else None
    shared_start = shared_bytes() if shared is not None else 0
    await asyncio.sleep(first)
    while True:
        if limit is not None and descendants(pid) - 1 > limit:
            return Breach.PROCESSES
        if disk is not None and start is not None and (free := free_bytes(disk[0])) is not None \
                and start - free > disk[1]:
            return Breach.DISK
        if shared is not None and shared_bytes() - shared_start > shared:
            return Breach.SHARED_MEMORY
        await asyncio.sleep(every)
