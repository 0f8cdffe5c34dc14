"""The sandbox: the argv it builds, what a command inside it can and cannot do, how podium behaves when
bubblewrap is missing or turned off, and the benchmark's smoke run."""

from __future__ import annotations

import asyncio
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from podium.apps import registry, sandbox
from podium.apps.sandbox import Access, Limits, Sandbox, Status
from podium.apps.shell import ShellApplication
from podium.apps.shell_policy import DEFAULT_ALLOW, ShellPolicy
from podium.apps.workspace import Workspace


def run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=30, env={"PATH": "/usr/bin:/bin"})


def test_this_machine_can_sandbox() -> None:
    found = sandbox.status()
    assert found.works, found.problem
    assert found.bwrap and found.prlimit and "--disable-userns" in found.options
    assert sandbox.describe().startswith(f"sandbox: bubblewrap {found.version}: the workspace is the only writable")


def test_read_only_commands_see_the_workspace_read_only(root: Path) -> None:
    argv = Sandbox().wrap(["sh", "-c", "cat notes.txt; echo x > new.txt"], access=Access.READ, workspace=root)
    done = run(argv)
    assert done.stdout == "hello\n" and "Read-only file system" in done.stderr and not (root / "new.txt").exists()


def test_writable_commands_keep_protected_paths_and_their_folders(root: Path) -> None:
    (root / ".podium").mkdir()
    (root / ".podium" / "journal.db").write_text("journal")
    (root / "podium.toml").write_text("[apps]\n")
    protected = Workspace.at(root, [root / ".podium" / "journal.db"]).protected_paths()
    script = ("echo new > new.txt; echo x >> podium.toml; mv podium.toml p.toml; mv .podium old; "
              "echo x >> .podium/journal.db; echo fine > .podium/other")
    done = run(Sandbox().wrap(["sh", "-c", script], access=Access.WRITE, workspace=root, protected=protected))
    assert (root / "new.txt").read_text() == "new\n" and (root / ".podium" / "other").read_text() == "fine\n"
    assert (root / "podium.toml").read_text() == "[apps]\n" and (root / ".podium" / "journal.db").read_text() == \
        "journal"
    assert done.stderr.count("Device or resource busy") == 2 and done.stderr.count("Read-only file system") == 2


def test_nothing_outside_the_workspace_is_there(root: Path) -> None:
    done = run(Sandbox().wrap(["sh", "-c", f"ls {root.parent / 'outside'}; ls /root /home; cat /etc/shadow"],
                              access=Access.READ, workspace=root))
    assert "No such file" in done.stderr and "secret" not in done.stdout and "root:" not in done.stdout


def test_workspace_absent_when_not_given(root: Path) -> None:
    done = run(Sandbox().wrap(["ls", str(root)], access=Access.NONE, workspace=root))
    assert done.returncode != 0 and "No such file" in done.stderr


def test_an_installation_outside_the_system_folders_is_shown(tmp_path: Path) -> None:
    # a venv's python links to an interpreter elsewhere (here: the one running the tests)
    venv_python = Path(sys.executable)
    argv = Sandbox().wrap(["python3", "-c", "import sys; print(sys.prefix)"], access=Access.NONE,
                          search_path=(str(venv_python.parent), "/usr/bin"), programs=(str(venv_python),))
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30,
                          env={"PATH": f"{venv_python.parent}:/usr/bin"})
    assert done.stdout.strip() == sys.prefix, done.stderr


def test_limits_are_never_above_what_podium_runs_under() -> None:
    # a limit can only be lowered without capabilities: asked for more than podium has, it gets what podium has
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    assert hard != resource.RLIM_INFINITY  # Linux bounds open files by fs.nr_open
    assert f"--nofile={hard}" in Limits(open_files=hard * 4).prlimit_options()
    assert "--cpu=60:61" in Limits().prlimit_options() and "--core=0" in Limits().prlimit_options()
    assert not any(o.startswith("--cpu") for o in Limits(cpu_seconds=None).prlimit_options())
    with pytest.raises(ValueError, match="positive"):
        Limits(processes=0)


def test_mounts_put_a_folder_before_what_lies_inside_it(tmp_path: Path) -> None:
    inside = tmp_path / "work"
    inside.mkdir()
    argv = Sandbox(read_paths=(str(tmp_path),)).wrap(["true"], access=Access.WRITE, workspace=inside)
    assert argv.index(str(tmp_path)) < argv.index(str(inside))
    assert argv[argv.index("--tmpfs", argv.index("--size")) + 1] == "/tmp"
    assert argv.index("/tmp") < argv.index(str(tmp_path))


def test_off_runs_the_command_as_it_is(root: Path) -> None:
    assert Sandbox(enabled=False).wrap(["ls", "-l"], access=Access.READ, workspace=root) == ["ls", "-l"]
    assert Sandbox(enabled=False).describe().startswith("sandbox: OFF")


async def test_without_bubblewrap_commands_are_refused_and_the_header_says_so(
        root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    missing = Status(None, "", False, "bubblewrap (bwrap) is not installed")
    monkeypatch.setattr(sandbox, "status", lambda: missing)
    shell = ShellApplication(Workspace.at(root))
    result = await shell.call("run_command", {"command": "ls"})
    assert not result.ok and result.content is None
    assert "bubblewrap (bwrap) is not installed" in result.error and "apt-get install bubblewrap" in result.error
    assert 'sandbox = "off"' in result.error
    assert not shell.is_sensitive("run_command", {"command": "rm notes.txt"})  # refused: nothing would run
    assert sandbox.describe().startswith("sandbox: unavailable, bubblewrap (bwrap) is not installed: commands are "
                                         "refused")
    # the configuration's explicit opt-out runs them unconfined, and the header says that too
    apps = registry.build_applications({"workspace": str(root), "shell": {"sandbox": "off"}})
    assert apps.sandbox_status().startswith("sandbox: OFF")
    assert (await apps["shell"].call("run_command", {"command": "ls"})).ok


def test_sandbox_status_names_what_runs_unconfined(root: Path) -> None:
    apps = registry.build_applications({"workspace": str(root), "desktop": {
        "viewer": {"command": ["xmessage", "hi"], "sandbox": "off"}}})
    line = apps.sandbox_status()
    assert line.startswith("sandbox: bubblewrap") and line.endswith('OFF for viewer (sandbox = "off" in the '
                                                                      "configuration)")
    only_docs = registry.build_applications({"workspace": str(root), "enabled": ["documents"]})
    assert only_docs.sandbox_status() == "sandbox: no application here starts programs"


async def test_a_command_past_the_process_limit_is_ended(root: Path) -> None:
    policy = ShellPolicy(allow=DEFAULT_ALLOW | {"sh"}, interpreters=frozenset({"sh"}), timeout=30)
    shell = ShellApplication(Workspace.at(root), policy, Sandbox(limits=Limits(processes=8)))
    # no inline code for an allowed shell: a script file in the workspace
    (root / "bomb.sh").write_text("f(){ f | f; }; f\n")
    started = asyncio.get_running_loop().time()
    result = await shell.call("run_command", {"command": "sh bomb.sh"})
    assert not result.ok and asyncio.get_running_loop().time() - started < 20
    assert result.content["too_many_processes"] or result.content["exit_code"] != 0
    if result.content["too_many_processes"]:
        assert result.error == "sh started more than 8 processes; it was killed"


async def test_a_command_that_fills_the_disk_is_ended(root: Path) -> None:
    policy = ShellPolicy(allow=DEFAULT_ALLOW | {"sh"}, interpreters=frozenset({"sh"}), timeout=30)
    shell = ShellApplication(Workspace.at(root), policy, Sandbox(limits=Limits(disk_bytes=32 << 20)))
    # files under the file size limit, one after the other, with no end
    (root / "fill.sh").write_text("i=0; while :; do head -c 8000000 /dev/zero > f$i.bin; i=$((i+1)); done\n")
    result = await shell.call("run_command", {"command": "sh fill.sh"})
    assert result.content["disk_exceeded"] and not result.content["timed_out"]
    assert result.error == ("sh wrote more than 32 MB to the workspace's disk; it was killed (what it wrote is "
                            "still there)")
    written = sum(f.stat().st_size for f in root.glob("f*.bin"))
    assert 32 << 20 < written < 1 << 30  # stopped soon after the limit, what it wrote kept
    # a command that writes less is not stopped
    (root / "small.sh").write_text("head -c 1000000 /dev/zero > small.bin\n")
    assert (await shell.call("run_command", {"command": "sh small.sh"})).ok


async def test_a_command_that_takes_shared_memory_is_ended(root: Path) -> None:
    policy = ShellPolicy(allow=DEFAULT_ALLOW | {"python3"}, interpreters=frozenset({"python3"}), timeout=30)
    shell = ShellApplication(Workspace.at(root), policy, Sandbox(limits=Limits(shared_bytes=96 << 20)))
    # memory files, each under the file size limit and none of it address space once written
    (root / "hog.py").write_text("import os\nfds = []\nwhile True:\n    fd = os.memfd_create('m')\n"
                                 "    os.write(fd, bytes(16 << 20))\n    fds.append(fd)\n")
    result = await shell.call("run_command", {"command": "python3 hog.py"})
    assert result.content["shared_memory_exceeded"] and not result.content["timed_out"]
    assert result.error == "python3 took more than 96 MB of shared memory; it was killed"


async def test_a_limit_says_which(root: Path) -> None:
    policy = ShellPolicy(allow=DEFAULT_ALLOW | {"sh"}, interpreters=frozenset({"sh"}), timeout=30)
    shell = ShellApplication(Workspace.at(root), policy, Sandbox(limits=Limits(cpu_seconds=1)))
    (root / "spin.sh").write_text("while :; do :; done\n")
    result = await shell.call("run_command", {"command": "sh spin.sh"})
    assert result.error.startswith("sh was stopped by its CPU time limit (it ran sandboxed")


def test_descendants_counts_a_process_tree() -> None:
    child = subprocess.Popen(["sh", "-c", "sleep 5 & sleep 5 & wait"])
    try:
        for _ in range(100):
            if sandbox.descendants(child.pid) >= 2:
                break
            asyncio.run(asyncio.sleep(0.02))
        assert sandbox.descendants(child.pid) == 2
        assert sandbox.descendants(os.getpid()) >= 3
    finally:
        child.kill()
        child.wait()


async def test_benchmark_smoke_run() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from bench import sandbox as bench

    measured = await bench.main(commands=4, runs=1)
    assert measured["median_cost_ms"] < 1000 and measured["p95_sandboxed_ms"] > 0


def test_a_desktop_program_sees_its_own_display_and_authority_and_no_other(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from tests import xserver

    authority = tmp_path / "cookie"
    authority.write_bytes(b"the display's cookie")
    with xserver.xvfb() as mine, xserver.xvfb() as other:
        monkeypatch.setenv("DISPLAY", mine)
        monkeypatch.setenv("XAUTHORITY", str(authority))
        shown = Sandbox(display=True)
        argv = shown.wrap(["sh", "-c", 'ls /tmp/.X11-unix; echo "$DISPLAY"; cat "$XAUTHORITY"'], access=Access.NONE)
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30,
                              env=shown.environment(["/usr/bin", "/bin"], home="/"))
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines() == [f"X{mine.lstrip(':')}", mine, "the display's cookie"]
        assert f"X{other.lstrip(':')}" not in done.stdout
        # a display over TCP has no socket to bind: nothing of /tmp is shown, the name is passed on
        monkeypatch.setenv("DISPLAY", "localhost:10.0")
        assert sandbox.x_display() == ([(str(authority), sandbox.X_AUTHORITY_INSIDE)],
                                       {"DISPLAY": "localhost:10.0", "XAUTHORITY": sandbox.X_AUTHORITY_INSIDE})
