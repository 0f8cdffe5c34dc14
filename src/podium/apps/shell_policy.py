"""What the shell application may run: a pure check from a command to a vetted argv, or a refusal.

This is a statement of intent, not the boundary: every program has its own option grammar, and no
check of arguments can know them all (GNU tools take `--out=` for `--output`, `-uo<path>` for
`-u -o <path>`). What keeps a command in bounds is the sandbox it runs in (sandbox.Sandbox: a
read-only command sees the workspace read-only, whatever its options say). The policy says what is
meant: which programs, which of them only read (they run read-only; the others need approval), and it
refuses what is plainly not meant, early and with a clear reason.

Commands never go through a shell (shell=False), so pipes, redirections and substitutions could
not work anyway; characters that would mean them in a shell are refused outright all the same,
quoted or not, because a command that is refused says more than one that silently does something
else. The program is a bare name from the allow-list, found only on a fixed safe PATH: `./ls`,
`/tmp/ls` or `../bin/ls` are refused. Programs that run other programs (env, xargs, nohup,
sudo...) are refused whatever the configuration says; interpreters (shells, python, perl, awk,
git, pagers, editors...) only when configuration names them explicitly, and even then their
inline-code flags (`-c`, `-e`...) are refused. Options are matched as GNU getopt reads them: a long
option by any unambiguous abbreviation (`--compress-prog`, `--out=`), a short one inside a cluster
(`-uo<path>`). Arguments that name a path outside the workspace root are refused, in an option's value
or a cluster's tail too, and every argument after `--` is a path.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from podium.apps.tooling import ToolError
from podium.errors import ConfigError

METACHARACTERS = frozenset(";|&><`$()\n\r\x00")
SAFE_PATH = ("/usr/local/bin", "/usr/bin", "/bin")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Run another program given as an argument: allowing one would allow everything.
LAUNCHERS = _words(
    "env xargs nice nohup timeout sudo su doas pkexec runuser setsid stdbuf chroot busybox toybox strace ltrace "
    "gdb valgrind watch time exec command builtin eval unshare nsenter flock parallel ionice taskset chrt "
    "script expect systemd-run at batch crontab ssh start-stop-daemon xdg-open gio sg newgrp capsh setpriv "
    "prlimit catchsegv rlwrap socat nc ncat netcat xterm x-terminal-emulator dbus-launch dbus-run-session "
    "fakeroot firejail bwrap proot ld.so ld-linux.so.2 ld-linux-x86-64.so.2"
)
# Run code given to them (or open a way to): refused unless configuration names them explicitly.
INTERPRETERS = _words(
    "sh bash dash zsh ksh mksh ash rbash csh tcsh fish yash elvish nu xonsh python python2 python3 pypy pypy3 "
    "ipython perl ruby irb node nodejs deno bun php lua luajit tclsh wish awk gawk mawk nawk sed ed ex vi vim "
    "nvim view emacs nano less more most pg man info git make cmake ninja R Rscript julia java jshell scala "
    "kotlin groovy osascript pwsh powershell erl escript guile racket sbcl clisp ghci runghc dotnet mono "
    "gdb-multiarch sqlite3 psql mysql"
)
_VERSIONED_INTERPRETER = re.compile(r"(python|pypy|perl|ruby|php|lua|node)[0-9.]*(-config)?")
# Inline-code flags per interpreter family: short-option letters, and long options.
_INLINE_SHORT = {"shell": "c", "python": "cm", "perl": "eE", "ruby": "e", "node": "ep", "php": "rR"}
_INLINE_LONG = {"--eval", "--print", "--command", "--exec", "--run", "--code"}
_SHELLS = _words("sh bash dash zsh ksh mksh ash rbash csh tcsh fish yash elvish nu xonsh")

# Options that make an otherwise harmless program run something, or write where it should not.
_FORBIDDEN_ARGS = {
    "find": ("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"),
    "tar": (
        "--to-command",
        "--checkpoint-action",
        "--use-compress-program",
        "-I",
        "--info-script",
        "--new-volume-script",
        "-F",
        "--rsh-command",
        "--rmt-command",
    ),
    "sort": ("--compress-program", "--files0-from"),
    "wc": ("--files0-from",),
    "du": ("--files0-from",),
    "rsync": ("-e", "--rsh", "--rsync-path"),
    "zip": ("-TT", "--unzip-command"),
    "rg": ("--pre",),
}
# Options that make a read-only program write (sensitive then, not refused).
_WRITING_ARGS = {"sort": ("-o", "--output"), "date": ("-s", "--set"), "touch": (), "uniq": ()}

DEFAULT_READ_ONLY = _words(
    "ls cat head tail wc grep sort uniq cut echo printf date pwd find stat file du df diff cmp basename "
    "dirname realpath md5sum sha256sum"
)
DEFAULT_ALLOW = DEFAULT_READ_ONLY | _words("mkdir cp mv rm touch")


class CommandRefused(ToolError):
    """The command is not allowed; it was not run."""


@dataclass(frozen=True, slots=True)
class Vetted:
    argv: tuple[str, ...]
    executable: str
    read_only: bool


@dataclass(frozen=True, slots=True)
class ShellPolicy:
    allow: frozenset[str] = DEFAULT_ALLOW
    read_only: frozenset[str] = DEFAULT_READ_ONLY
    interpreters: frozenset[str] = frozenset()
    search_path: tuple[str, ...] = SAFE_PATH
    timeout: float = 30.0
    max_output: int = 64_000
    confine_paths: bool = True

    def __post_init__(self) -> None:
        launchers = sorted(self.allow & LAUNCHERS)
        if launchers:
            raise ConfigError(
                f"shell allow-list names {launchers}: these run other programs, which would bypass the "
                "allow-list; remove them"
            )
        hidden = sorted(name for name in self.allow if is_interpreter(name) and name not in self.interpreters)
        if hidden:
            raise ConfigError(
                f"shell allow-list names the interpreter(s) {hidden}: they run any code; list them under "
                "'interpreters' as well if you really mean it"
            )
        for folder in self.search_path:
            if not os.path.isabs(folder):
                raise ConfigError(f"shell search path entry {folder!r} must be an absolute folder")
        if self.timeout <= 0 or self.max_output <= 0:
            raise ConfigError("shell timeout and max_output must be positive")

    def vet(self, command: str | Sequence[str], root: Path) -> Vetted:
        argv = split_command(command)
        program = argv[0]
        if "/" in program or program in (".", "..") or program.startswith("-"):
            raise CommandRefused(
                f"program {program!r} is a path; give the bare name of an allowed program (it is looked up "
                f"only in {':'.join(self.search_path)})"
            )
        if program in LAUNCHERS:
            raise CommandRefused(f"{program!r} runs other programs and is never allowed")
        if is_interpreter(program) and program not in self.interpreters:
            raise CommandRefused(
                f"{program!r} is an interpreter (it runs any code) and is not allowed; a person can allow it "
                "in the configuration ('interpreters')"
            )
        if program not in self.allow:
            raise CommandRefused(
                f"{program!r} is not in the shell allow-list ({', '.join(sorted(self.allow))}); a person can "
                "add it to the configuration"
            )
        _check_inline_code(program, argv[1:])
        _check_forbidden(program, argv[1:])
        if self.confine_paths:
            _check_paths(argv[1:], root)
        executable = shutil.which(program, path=os.pathsep.join(self.search_path))
        if executable is None:
            raise CommandRefused(f"{program!r} is not installed in {':'.join(self.search_path)}")
        read_only = program in self.read_only and not _writes(program, argv[1:])
        return Vetted(tuple(argv), executable, read_only)


def split_command(command: str | Sequence[str]) -> list[str]:
    if isinstance(command, str):
        _check_metacharacters(command)
        try:
            argv = shlex.split(command, comments=False, posix=True)
        except ValueError as exc:
            raise CommandRefused(f"cannot split the command: {exc} (check the quotes)") from exc
    else:
        argv = list(command)
        for arg in argv:
            if not isinstance(arg, str):
                raise CommandRefused(f"every argument must be a string, got {arg!r}")
            _check_metacharacters(arg)
    if not argv or argv[0] == "":
        raise CommandRefused("empty command")
    return argv


def is_interpreter(program: str) -> bool:
    return program in INTERPRETERS or _VERSIONED_INTERPRETER.fullmatch(program) is not None


def _check_metacharacters(text: str) -> None:
    found = sorted({ch for ch in text if ch in METACHARACTERS})
    if found:
        shown = " ".join(repr(ch) for ch in found)
        raise CommandRefused(
            f"the command contains shell metacharacter(s) {shown}; commands run without a shell, so pipes, "
            "redirections, sequencing and substitutions are refused: run one program at a time"
        )


def _family(program: str) -> str | None:
    if program in _SHELLS:
        return "shell"
    for family in ("python", "pypy", "perl", "ruby", "node", "php"):
        if program.startswith(family):
            return "python" if family == "pypy" else family
    if program in ("deno", "bun", "nodejs"):
        return "node"
    return None


def _check_inline_code(program: str, args: Sequence[str]) -> None:
    family = _family(program)
    if family is None:
        return
    letters = _INLINE_SHORT[family]
    for arg in args:
        if arg == "--":
            break
        if arg.split("=", 1)[0] in _INLINE_LONG or (
            arg.startswith("-") and not arg.startswith("--") and any(ch in letters for ch in arg[1:])
        ):
            raise CommandRefused(f"{program} {arg}: running inline code is refused; run a script file instead")


def _check_forbidden(program: str, args: Sequence[str]) -> None:
    forbidden = _FORBIDDEN_ARGS.get(program, ())
    for position, arg in enumerate(args):
        if arg == "--":
            break
        # tar also takes its first argument as an option cluster without a dash ("tar xIf ...").
        bare_cluster = program == "tar" and position == 0 and not arg.startswith("-")
        if any(names_option(arg, option, bare_cluster=bare_cluster) for option in forbidden):
            raise CommandRefused(f"{program} {arg}: this option runs other programs or reads a list of paths "
                                 "podium cannot check, and is refused")


def names_option(arg: str, option: str, *, bare_cluster: bool = False) -> bool:
    """Whether the argument `arg` gives `option` as GNU getopt reads it: a long option ('--output') exactly,
    with '=value', or abbreviated to any prefix ('--out', '--o=x'); a short one ('-o') alone, with its value
    attached ('-ofile') or inside a cluster ('-uo<path>'); find's single-dash words ('-exec') exactly.
    `bare_cluster`: a cluster without its dash (tar's first argument)."""
    if option.startswith("--"):
        name = arg.split("=", 1)[0]
        return arg.startswith("--") and len(name) > 2 and option.startswith(name)
    if len(option) > 2:  # a single-dash word: no abbreviations, no clusters
        return arg.split("=", 1)[0] == option
    if bare_cluster:
        return option[1] in arg
    return arg.startswith("-") and not arg.startswith("--") and option[1] in arg[1:]


def _check_paths(args: Sequence[str], root: Path) -> None:
    operands = False
    for arg in args:
        candidates = [arg]
        if arg == "--" and not operands:
            operands = True  # everything after it is an operand, '-'-named folders included
            continue
        if arg.startswith("-") and not operands:
            # a '-'-named path ('--/../../x' once a folder '--' exists), an option's value, or any tail of a
            # short-option cluster ('-uf/etc/passwd': -u, then -f with /etc/passwd)
            candidates = [arg] + ([arg.split("=", 1)[1]] if "=" in arg else [])
            if not arg.startswith("--"):
                candidates += [arg[i:] for i in range(2, len(arg))]
        for candidate in candidates:
            # a plain name is a path too when the workspace holds it: a link named notes.txt may point out
            if not ("/" in candidate or candidate.startswith("~") or candidate in ("..", ".")
                    or (candidate and "\x00" not in candidate and os.path.islink(root / candidate))):
                continue
            expanded = os.path.expanduser(candidate)
            real = Path(os.path.realpath(root / expanded))
            if real != root and not real.is_relative_to(root):
                raise CommandRefused(f"argument {arg!r} names a path outside the workspace root {str(root)!r}; refused")


def _writes(program: str, args: Sequence[str]) -> bool:
    """Whether a read-only program is asked to write (then it needs approval and runs writable); a form this
    misses runs read-only, where the write fails harmlessly."""
    if program == "uniq":  # `uniq IN OUT` writes OUT
        return len([a for a in args if not a.startswith("-")]) >= 2
    return any(names_option(a, option) for option in _WRITING_ARGS.get(program, ()) for a in args)
