"""shell: run one allow-listed program at a time in the workspace root, without a shell.

The policy (shell_policy) decides what may run; this module runs it: in its own process group
(so a timeout kills everything it started), with stdin closed, a minimal environment (the
session's secrets are not passed on), a time limit and a cap on the output kept. A command whose
output passes the cap is stopped there: it said more than anyone will read.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from typing import Any

from pydantic import Field

from podium.apps.base import ToolResult
from podium.apps.lifecycle import group_members
from podium.apps.shell_policy import CommandRefused, ShellPolicy, Vetted
from podium.apps.tooling import Args, ToolApplication, ToolError, ToolSpec
from podium.apps.workspace import Workspace


class RunArgs(Args):
    command: str | list[str] = Field(
        description="one program and its arguments: a string split like a shell would (no pipes, "
        "redirections or substitutions), or a list of arguments"
    )
    timeout: float | None = Field(None, gt=0, description="seconds; at most the configured limit")


class ShellApplication(ToolApplication):
    name = "shell"

    def __init__(self, workspace: Workspace, policy: ShellPolicy | None = None) -> None:
        self.workspace = workspace
        self.policy = policy or ShellPolicy()
        self.description = f"Run one allow-listed program in {workspace.root} (no shell): " + ", ".join(
            sorted(self.policy.allow)
        )
        super().__init__()

    def _specs(self) -> list[ToolSpec]:
        return [
            ToolSpec(
                "run_command", "Run one allow-listed program and return its output.", RunArgs, self._run, blocking=False
            ),
        ]

    def _sensitive(self, tool: str, args: Any) -> bool:
        try:
            return not self.vet(args.command).read_only
        except ToolError:
            return False  # refused at call time: nothing runs

    def vet(self, command: str | list[str]) -> Vetted:
        return self.policy.vet(command, self.workspace.root)

    async def _run(self, args: RunArgs) -> dict[str, Any] | ToolResult:
        vetted = self.vet(args.command)
        limit = min(args.timeout or self.policy.timeout, self.policy.timeout)
        outcome = await run_vetted(
            vetted,
            cwd=str(self.workspace.root),
            timeout=limit,
            max_output=self.policy.max_output,
            search_path=self.policy.search_path,
        )
        program = vetted.argv[0]
        if outcome["timed_out"]:
            return ToolResult(outcome, f"{program} did not finish within {limit:g} s; it was killed")
        if outcome["truncated"]:
            return ToolResult(
                outcome,
                f"{program} wrote more than {self.policy.max_output} bytes; it was "
                "stopped and its output cut: narrow the command",
            )
        if outcome["exit_code"] != 0:
            return ToolResult(outcome, f"{program} exited with status {outcome['exit_code']}")
        return outcome


async def run_vetted(
    vetted: Vetted, *, cwd: str, timeout: float, max_output: int, search_path: tuple[str, ...]
) -> dict[str, Any]:
    env = {"PATH": os.pathsep.join(search_path), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "HOME": cwd, "TERM": "dumb"}
    try:
        process = await asyncio.create_subprocess_exec(
            vetted.argv[0],
            *vetted.argv[1:],
            executable=vetted.executable,
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
    timed_out = False
    try:
        await asyncio.wait_for(asyncio.gather(process.wait(), *readers), timeout)
    except TimeoutError:
        timed_out = True
    finally:
        _kill_group(process.pid)  # also whatever it left behind in its group
        for reader in readers:
            reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*readers, return_exceptions=True)
        await process.wait()
        await _until_group_gone(process.pid)
    return {
        "command": list(vetted.argv),
        "exit_code": process.returncode,
        "stdout": stdout.decode("utf-8", errors="replace"),
        "stderr": stderr.decode("utf-8", errors="replace"),
        "truncated": budget.exceeded,
        "timed_out": timed_out,
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
