"""The shell application running real programs, and a corpus of bypasses that must all be refused."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import psutil
import pytest

from podium.apps.shell import ShellApplication
from podium.apps.shell_policy import DEFAULT_ALLOW, DEFAULT_READ_ONLY, CommandRefused, ShellPolicy
from podium.apps.workspace import Workspace
from podium.errors import ConfigError

# A configured search path may hold an interpreter's folder (here: the one running the tests).
PYTHON_PATH = (str(Path(sys.executable).parent), "/usr/bin", "/bin")


@pytest.fixture
def shell(workspace: Workspace) -> ShellApplication:
    return ShellApplication(workspace, ShellPolicy(allow=DEFAULT_ALLOW | {"sleep", "yes", "tar", "rsync"}))


async def test_runs_in_the_workspace_root(shell: ShellApplication, root: Path) -> None:
    result = await shell.call("run_command", {"command": "ls"})
    assert result.ok and result.content["stdout"].split() == ["notes.txt", "sub"]
    pwd = await shell.call("run_command", {"command": ["pwd"]})
    assert pwd.content["stdout"].strip() == str(root.resolve())
    quoted = await shell.call("run_command", {"command": "grep -r 'inner' sub"})
    assert quoted.content["stdout"] == "sub/inner.txt:inner\n"


async def test_failure_keeps_output_and_says_status(shell: ShellApplication) -> None:
    result = await shell.call("run_command", {"command": "ls missing"})
    assert result.error == ("ls exited with status 2 (it ran sandboxed: the workspace read-only, the rest of the "
                            "file system read-only or absent, no network)")
    assert "missing" in result.content["stderr"]


async def test_environment_carries_no_secrets(workspace: Workspace, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-should-not-leak")
    app = ShellApplication(workspace, ShellPolicy(allow=DEFAULT_ALLOW | {"printenv"}))
    result = await app.call("run_command", {"command": "printenv"})
    assert result.ok and "sk-should-not-leak" not in result.content["stdout"]
    assert "PATH=/usr/local/bin:/usr/bin:/bin" in result.content["stdout"]


async def test_timeout_kills_the_whole_process_group(workspace: Workspace, root: Path) -> None:
    # The program starts a child (one that even leaves the process group) and waits: the timeout must kill
    # the child too, not just the program. Its pid inside the sandbox is not the machine's: it is found by
    # its own arguments.
    marker = f"{60 + os.getpid() % 1000 / 1000:.3f}"
    (root / "spawn.py").write_text(
        "import os, subprocess, sys, time\n"
        f"child = subprocess.Popen(['sleep', '{marker}'], start_new_session=True)\n"
        "print(child.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    policy = ShellPolicy(
        allow=DEFAULT_ALLOW | {"python3"}, interpreters=frozenset({"python3"}), timeout=3, search_path=PYTHON_PATH
    )
    result = await ShellApplication(workspace, policy).call("run_command", {"command": "python3 spawn.py"})
    assert result.content["timed_out"] and "did not finish within 3 s" in result.error
    assert result.content["stdout"].split()  # the child was started

    def alive() -> list[int]:
        return [p.pid for p in psutil.process_iter(["cmdline", "status"])
                if p.info["cmdline"] == ["sleep", marker] and p.info["status"] != psutil.STATUS_ZOMBIE]

    for _ in range(100):  # the kernel ends a process namespace's members right after its first process
        if not alive():
            break
        await asyncio.sleep(0.02)
    assert alive() == []


async def test_timeout_argument_cannot_exceed_configured_limit(workspace: Workspace) -> None:
    app = ShellApplication(workspace, ShellPolicy(allow=DEFAULT_ALLOW | {"sleep"}, timeout=0.3))
    result = await app.call("run_command", {"command": "sleep 5", "timeout": 100})
    assert result.content["timed_out"]


async def test_output_cap_stops_the_program(workspace: Workspace) -> None:
    app = ShellApplication(workspace, ShellPolicy(allow=DEFAULT_ALLOW | {"yes"}, max_output=1000, timeout=10))
    result = await app.call("run_command", {"command": "yes"})
    assert result.content["truncated"] and not result.content["timed_out"]
    assert len(result.content["stdout"]) == 1000 and "more than 1000 bytes" in result.error


@pytest.mark.parametrize(
    ("command", "sensitive"),
    [
        ("ls -la", False),
        ("cat notes.txt", False),
        ("find . -name '*.txt'", False),
        ("sort notes.txt", False),
        ("sort -o out.txt notes.txt", True),
        ("sort --output=out.txt notes.txt", True),
        # GNU getopt: abbreviated long options, short options in a cluster with an attached value
        ("sort --out=out.txt notes.txt", True),
        ("sort -uoout.txt notes.txt", True),
        ("date -us 2001-01-01", True),
        ("date --se=2001-01-01", True),
        ("date +%s", False),
        ("uniq notes.txt out", True),
        ("rm notes.txt", True),
        ("mkdir x", True),
        ("cp notes.txt b", True),
        ("mv notes.txt b", True),
        ("touch x", True),
        ("sleep 1", True),
    ],
)
def test_anything_not_read_only_is_sensitive(shell: ShellApplication, command: str, sensitive: bool) -> None:
    assert shell.is_sensitive("run_command", {"command": command}) is sensitive


def test_refused_commands_are_not_sensitive_they_never_run(shell: ShellApplication) -> None:
    assert shell.is_sensitive("run_command", {"command": "bash -c 'rm -rf /'"}) is False


# -- the security corpus ------------------------------------------------------------------------
BYPASSES = {
    # shells and interpreters running inline code
    "sh -c": "sh -c 'cat /etc/passwd'",
    "bash -c": "bash -c ls",
    "bash -xc cluster": ["bash", "-xc", "ls"],
    "dash": "dash",
    "zsh": "zsh -c ls",
    "python -c": "python -c 'import os'",
    "python3 -c": "python3 -c 1",
    "python3.11": "python3.11 -c 1",
    "python3 -m": "python3 -m http.server",
    "perl -e": "perl -e 'system(1)'",
    "ruby -e": "ruby -e 1",
    "node -e": "node -e 1",
    "php -r": "php -r 1",
    "awk system": "awk 'BEGIN{system(\"ls\")}'",
    "sed e command": "sed e notes.txt",
    "git (hooks, aliases)": "git status",
    "less (!cmd)": "less notes.txt",
    "vim": "vim notes.txt",
    "make": "make",
    # programs that run other programs
    "env": "env ls",
    "env -i": ["env", "-i", "sh"],
    "xargs": "xargs rm",
    "nohup": "nohup ls",
    "timeout": "timeout 1 ls",
    "nice": "nice ls",
    "sudo": "sudo ls",
    "setsid": "setsid ls",
    "stdbuf": "stdbuf -o0 ls",
    "busybox": "busybox sh",
    "strace": "strace ls",
    "watch": "watch ls",
    "ssh": "ssh localhost ls",
    "xdg-open": "xdg-open notes.txt",
    # find and friends
    "find -exec": "find . -exec cat {} +",
    "find -execdir": "find . -execdir ls {} ;",
    "find -execdir list": ["find", ".", "-execdir", "ls", "{}", "+"],
    "find -ok": ["find", ".", "-ok", "rm", "{}", "+"],
    "find -delete": "find . -delete",
    "find -fprint": "find . -fprint out.txt",
    "tar --to-command": "tar --to-command=sh -xf a.tar",
    "tar -I": "tar -I sh -xf a.tar",
    "tar cluster I": "tar -xIf sh a.tar",
    "tar old-style cluster": "tar xIf sh a.tar",
    "tar checkpoint-action": "tar --checkpoint=1 --checkpoint-action=exec=sh -cf a.tar notes.txt",
    "sort --compress-program": "sort --compress-program=sh notes.txt",
    "rsync -e": "rsync -e sh a b",
    # shell metacharacters, quoted or not
    "semicolon": "ls; rm notes.txt",
    "quoted semicolon": "ls 'a;b'",
    "pipe": "cat notes.txt | sh",
    "or": "ls || rm notes.txt",
    "and": "ls && rm notes.txt",
    "background": "sleep 10 &",
    "redirect out": "ls > out.txt",
    "redirect in": "cat < notes.txt",
    "append": "ls >> out.txt",
    "backticks": "echo `id`",
    "command substitution": "echo $(id)",
    "variable": "echo $HOME",
    "subshell": "(ls)",
    "newline": "ls\nrm notes.txt",
    "carriage return": "ls\rrm notes.txt",
    "metachar in list arg": ["ls", "$(id)"],
    "pipe in list arg": ["echo", "a|b"],
    "nul byte": ["ls", "a\x00b"],
    # path tricks for the program
    "./ls": "./ls",
    "/tmp/ls": "/tmp/ls",
    "../bin/ls": "../bin/ls",
    "/bin/ls absolute": "/bin/ls",
    "/usr/bin/env absolute": "/usr/bin/env sh",
    "sub/ls": "sub/ls",
    "option as program": "--help",
    "dot": ".",
    # not allowed at all
    "not in allow-list": "curl http://127.0.0.1",
    "rm not allowed here": "shred notes.txt",
    "empty": "",
    "only spaces": "   ",
    "unbalanced quotes": "ls 'notes.txt",
    # arguments naming paths outside the root
    "cat /etc/passwd": "cat /etc/passwd",
    "cat ../outside": "cat ../outside/secret.txt",
    "ls ..": "ls ..",
    "grep -r /": "grep -r root /",
    "option value outside": "grep --file=/etc/passwd notes.txt",
    "short option attached": "grep -f/etc/passwd notes.txt",
    "home": "ls ~",
    "symlink out": "cat link_out/secret.txt",
    "cp out": "cp notes.txt ../outside/x",
    "cp -t dir outside": "cp -t /tmp notes.txt",
    "after --": "ls -- /etc",
    "find from /": "find / -name passwd",
    "climb through sub": "cat sub/../../outside/secret.txt",
    "another user's home": "ls ~root",
    "find -fls": "find . -fls out.txt",
    "find -okdir": ["find", ".", "-okdir", "rm", "{}", ";"],
    "tar --use-compress-program": "tar --use-compress-program=sh -cf a.tar notes.txt",
    "rsync --rsh": "rsync --rsh=sh a b",
    "rsync cluster -ae": "rsync -ae sh a b",
    "brace+dollar": "echo ${PATH}",
    "python versioned -c": "python3.12 -c 1",
    "perl versioned": "perl5.36 -e 1",
    "awk variant": "gawk 1 notes.txt",
    "sed in place": "sed -i s/a/b/ notes.txt",
}


@pytest.mark.parametrize("command", list(BYPASSES.values()), ids=list(BYPASSES))
async def test_bypass_is_refused_and_nothing_runs(shell: ShellApplication, root: Path, command) -> None:
    (root / "link_out").symlink_to(root.parent / "outside")
    with pytest.raises(CommandRefused):
        shell.vet(command)
    before = sorted(os.listdir(root)), sorted(os.listdir(root.parent / "outside"))
    result = await shell.call("run_command", {"command": command})
    assert not result.ok and result.content is None, result
    assert (sorted(os.listdir(root)), sorted(os.listdir(root.parent / "outside"))) == before


async def test_interpreter_allowed_explicitly_still_refuses_inline_code(workspace: Workspace, root: Path) -> None:
    python = "python3"
    policy = ShellPolicy(allow=DEFAULT_ALLOW | {python}, interpreters=frozenset({python}), search_path=PYTHON_PATH)
    app = ShellApplication(workspace, policy)
    for command in ("python3 -c 1", "python3 -Ic 1", "python3 -m http.server", ["python3", "--command=1"]):
        with pytest.raises(CommandRefused, match="inline code"):
            app.vet(command)
    (root / "hello.py").write_text("print('hi')\n")
    assert (await app.call("run_command", {"command": "python3 hello.py"})).content["stdout"] == "hi\n"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"allow": DEFAULT_ALLOW | {"env"}}, "run other programs"),
        ({"allow": DEFAULT_ALLOW | {"xargs"}}, "run other programs"),
        ({"allow": DEFAULT_ALLOW | {"bash"}}, "interpreter"),
        ({"allow": DEFAULT_ALLOW | {"python3"}}, "interpreter"),
        ({"search_path": ("bin",)}, "absolute"),
        ({"timeout": 0}, "positive"),
    ],
)
def test_bad_policy_is_a_config_error(options, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        ShellPolicy(**options)


def test_program_is_resolved_only_on_the_safe_path(workspace: Workspace, root: Path) -> None:
    fake = root / "bin"
    fake.mkdir()
    (fake / "ls").write_text("#!/bin/sh\necho pwned\n")
    (fake / "ls").chmod(0o755)
    vetted = ShellApplication(workspace).vet("ls")
    assert vetted.executable in ("/usr/local/bin/ls", "/usr/bin/ls", "/bin/ls")
    assert vetted.read_only and {"ls", "cat"} <= DEFAULT_READ_ONLY
