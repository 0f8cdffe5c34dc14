"""shell: run one allow-listed program at a time in the workspace root, without a shell.

The policy (shell_policy) states what is meant to run; the sandbox (sandbox.Sandbox) is what keeps it in
bounds: a read-only command sees the workspace read-only, one that needs approval sees it writable (but
for its protected paths), nothing else is writable, there is no network, and CPU, memory, file size and
processes are limited. This module runs the command: in its own process group (so a timeout kills
everything it started), with stdin closed, a scrubbed environment (the session's secrets are not passed
on), a time limit and a cap on the output kept. A command whose output passes the cap is stopped there: it
said more than anyone will read.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from pathlib import Path
from typing import Any

from pydantic import Field

from podium.apps.base import Change, Effect, ToolResult
from podium.apps.lifecycle import group_members
from podium.apps.sandbox import Access, Breach, Sandbox, watch
from podium.apps.shell_policy import CommandRefused, ShellPolicy, Vetted
from podium.apps.tooling import CODE, Args, ToolApplication, ToolError, ToolSpec
from podium.apps.workspace import Workspace, absent_protected, created_refusal, remove_created

# Exit statuses of a sandboxed program killed by a limit's signal (128 + the signal).
_LIMIT_SIGNALS = {128 + signal.SIGXCPU: "its CPU time limit", 128 + signal.SIGXFSZ: "its file size limit"}


class RunArgs(Args):
    command: str | list[str] = Field(
        description="one program and its arguments: a string split like a shell would (no pipes, "
        "redirections or substitutions), or a list of arguments",
        json_schema_extra={CODE: True},
    )
    timeout: float | None = Field(None, gt=0, description="seconds; at most the configured limit")


class ShellApplication(ToolApplication):
    name = "shell"

    def __init__(self, workspace: Workspace, policy: ShellPolicy | None = None, sandbox: Sandbox | None = None
                 ) -> None:
        self.workspace = workspace
        self.policy = policy or ShellPolicy()
        self.sandbox = sandbox or Sandbox()
        self.description = "Run one allow-listed program in the workspace (no shell): " + ", ".join(
            sorted(self.policy.allow)
        )
        super().__init__()

    def _specs(self) -> list[ToolSpec]:
        return [
            ToolSpec(
                "run_command", "Run one allow-listed program and return its output.", RunArgs, self._run,
                blocking=False, effects=self._effects, names_its_writes=False,
            ),
        ]

    def _sensitive(self, tool: str, args: Any) -> bool:
        try:
            return bool(self._effects(args))
        except ToolError:
            return False  # refused at call time: nothing runs

    def _effects(self, args: RunArgs) -> tuple[Effect, ...]:
        """A read-only command changes nothing (in the sandbox it cannot: the workspace is read-only to it);
        any other may change anything in the workspace but its protected paths. A refused one changes nothing."""
        try:
            vetted = self.vet(args.command)
            self.sandbox.check()
        except ToolError:
            return ()
        return () if vetted.read_only else (Effect(".", Change.EDIT),)

    def vet(self, command: str | list[str]) -> Vetted:
        return self.policy.vet(command, self.workspace.root)

    def _installed(self, vetted: Vetted) -> tuple[str, ...]:
        """An interpreter the configuration allows runs with its installation (a venv, its standard library);
        other programs live in the system folders the sandbox shows anyway."""
        return (vetted.executable,) if vetted.argv[0] in self.policy.interpreters else ()

    async def _run(self, args: RunArgs) -> dict[str, Any] | ToolResult:
        vetted = self.vet(args.command)
        access = Access.READ if vetted.read_only else Access.WRITE
        argv = self.sandbox.wrap(vetted.argv, access=access, workspace=self.workspace.root,
                                 protected=self.workspace.protected_paths(), search_path=self.policy.search_path,
                                 programs=self._installed(vetted))
        limit = min(args.timeout or self.policy.timeout, self.policy.timeout)
        absent = absent_protected(self.workspace) if access is Access.WRITE else {}
        outcome = await run_vetted(
            vetted,
            argv=argv,
            cwd=str(self.workspace.root),
            timeout=limit,
            max_output=self.policy.max_output,
            env=self.sandbox.environment(self.policy.search_path, home=str(self.workspace.root)),
            processes=self.sandbox.limits.processes if self.sandbox.enabled else None,
            disk=(self.workspace.root, self.sandbox.limits.disk_bytes)
            if self.sandbox.enabled and access is Access.WRITE and self.sandbox.limits.disk_bytes else None,
            shared=self.sandbox.limits.shared_bytes if self.sandbox.enabled else None,
        )
        program = vetted.argv[0]
        moved = remove_created(self.workspace, absent)
        if moved:
            return ToolResult(outcome, created_refusal(program, moved, "command"))
        bounds = ""
        if self.sandbox.enabled:
            bounds = (f" (it ran sandboxed: the workspace {'read-only' if access is Access.READ else 'writable'}, "
                      "the rest of the file system read-only or absent, no network)")
        if outcome["timed_out"]:
            return ToolResult(outcome, f"{program} did not finish within {limit:g} s; it was killed")
        if outcome["too_many_processes"]:
            return ToolResult(outcome, f"{program} started more than {self.sandbox.limits.processes} processes; "
                                       "it was killed")
        if outcome["shared_memory_exceeded"]:
            return ToolResult(outcome, f"{program} took more than {(self.sandbox.limits.shared_bytes or 0) >> 20} MB "
                                       "of shared memory; it was killed")
        if outcome["disk_exceeded"]:
            return ToolResult(outcome, f"{program} wrote more than {(self.sandbox.limits.disk_bytes or 0) >> 20} MB "
                                       "to the workspace's disk; it was killed (what it wrote is still there)")
        if outcome["truncated"]:
            return ToolResult(
                outcome,
                f"{program} wrote more than {self.policy.max_output} bytes; it was "
                "stopped and its output cut: narrow the command",
            )
        if self.sandbox.enabled and outcome["exit_code"] in _LIMIT_SIGNALS:
            return ToolResult(outcome, f"{program} was stopped by {_LIMIT_SIGNALS[outcome['exit_code']]}{bounds}")
        if outcome["exit_code"] != 0:
            return ToolResult(outcome, f"{program} exited with status {outcome['exit_code']}{bounds}")
        return outcome


async def run_vetted(
    vetted: Vetted, *, argv: list[str], cwd: str, timeout: float, max_output: int, env: dict[str, str],
    processes: int | None = None, disk: tuple[str | Path, int] | None = None, shared: int | None = None,
) -> dict[str, Any]:
    """Run `argv` (the vetted command, or the sandbox's argv around it); `processes`: the sandbox's process
    limit, `disk`: (the workspace, the free space the command may take of its file system), and `shared`: the
    shared memory it may take, watched here (None: not watched; a command not sandboxed is not)."""
    sandboxed = argv != list(vetted.argv)
    try:
        process = await asyncio.create_subprocess_exec(
            argv[0],
            *argv[1:],
            executable=argv[0] if sandboxed else vetted.executable,
            cwd=cwd,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,  # its own process group: a kill reaches every child too
        )
    except OSError as exc:
        raise CommandRefused(f"cannot start {vetted.argv[0]}: {exc}") from exc
    budget = _Budget(max_output, process.pid)
    stdout, stderr = bytearray(), bytearray()
    readers = [
        asyncio.create_task(budget.read(process.stdout, stdout)),
        asyncio.create_task(budget.read(process.stderr, stderr)),
    ]
    finished = asyncio.gather(process.wait(), *readers)
    watcher = asyncio.create_task(watch(process.pid, processes if sandboxed else None,
                                        disk=disk if sandboxed else None, shared=shared if sandboxed else None))
    timed_out, breach = False, None
    try:
        done, _ = await asyncio.wait([finished, watcher], timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        timed_out, breach = not done, watcher.result() if watcher in done else None
    finally:
        _kill_group(process.pid)  # also whatever it left behind in its group
        for task in (finished, *readers, watcher):
            task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(finished, watcher, return_exceptions=True)
        await process.wait()
        if not sandboxed:
            # In the sandbox nothing outlives it: its processes die with bwrap's process namespace.
            await _until_group_gone(process.pid)
    return {
        "command": list(vetted.argv),
        "exit_code": process.returncode,
        "stdout": stdout.decode("utf-8", errors="replace"),
        "stderr": stderr.decode("utf-8", errors="replace"),
        "truncated": budget.exceeded,
        "timed_out": timed_out,
        "too_many_processes": breach is Breach.PROCESSES,
        "disk_exceeded": breach is Breach.DISK,
        "shared_memory_exceeded": breach is Breach.SHARED_MEMORY,
    }


class _Budget:
    """Output kept from both streams together; past the cap the process group is killed."""

    def __init__(self, limit: int, pid: int) -> None:
        self.limit, self.pid, self.used, self.exceeded = limit, pid, 0, False

    async def read(self, stream: asyncio.StreamReader | None, kept: bytearray) -> None:
        if stream is None:
            return
        # Read to the end even past the cap: a pipe left unread keeps the process from being reported
        # as finished (asyncio waits for its pipes to close), so the rest is read and dropped.
        while chunk := await stream.read(65536):
            room = max(self.limit - self.used, 0)
            kept += chunk[:room]
            self.used += min(len(chunk), room)
            if len(chunk) > room and not self.exceeded:
                self.exceeded = True
                _kill_group(self.pid)


async def _until_group_gone(pgid: int, limit: float = 2.0) -> None:
    """A killed process takes a moment to die: return once nothing of the group is left (or at `limit`)."""
    deadline = asyncio.get_running_loop().time() + limit
    while await asyncio.to_thread(group_members, pgid) and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.02)


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
