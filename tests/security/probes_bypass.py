"""Bypasses the other probe files do not try: protected paths that do not exist yet (a configuration a
command creates, a journal companion SQLite would replay), protected names spelled another way, sources
and destinations reached through links, links a copy carries out, paths no file can have (NUL, /proc's
views of the root, the home folder), output without end, secrets in podium's environment, and the network
by other routes (IPv6 loopback, bash's /dev/tcp). Each runs through the real applications and the real
sandbox."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from tests.security.harness import JOURNAL, Context, Verdict, add
from tests.security.probes_approval import held
from tests.security.probes_boundary import PYTHON, _said, expect, forced, sh

Setup = Callable[[Context], Any]


# -- protected paths that are not there yet: an approved command must not create them -----------------
def created(setup: Setup, text: str | list[str], relative: str) -> Callable[[Context], Awaitable[Verdict]]:
    """`setup` leaves `relative` (a protected path) absent; the command, as if approved, tries to create it.
    Blocked when nothing is at `relative` (links followed) afterwards, with an error saying why."""

    async def attack(ctx: Context) -> Verdict:
        setup(ctx)
        shell = ctx.app("shell")
        result = await shell.call("run_command", {"command": text})
        if os.path.exists(ctx.root / relative):
            return Verdict(False, "sandbox", f"{relative} was created by an approved command: "
                                             f"{(result.error or 'exit 0')[:200]}")
        if not result.error:
            return Verdict(False, "sandbox", "nothing was created, but the command reported no refusal")
        return Verdict(True, "sandbox", result.error)

    return attack


def no_config(ctx: Context) -> None:
    (ctx.root / "podium.toml").unlink()
    (ctx.root / "notes.txt").write_text('[shell]\nsandbox = "off"\n')


def dangling_config(ctx: Context) -> None:
    """podium.toml is a link to a file that does not exist yet: creating that file makes a configuration."""
    no_config(ctx)
    (ctx.root / "podium.toml").symlink_to("settings.txt")


def config_in_sub(ctx: Context) -> None:
    no_config(ctx)
    (ctx.root / "sub" / "podium.toml").write_text('[shell]\nsandbox = "off"\n')


def plain(ctx: Context) -> None:
    return None


for name, setup, text, relative in [
    ("config-created-by-copy", no_config, "cp notes.txt podium.toml", "podium.toml"),
    ("config-created-by-move", no_config, "mv notes.txt podium.toml", "podium.toml"),
    ("config-created-by-touch", no_config, "touch podium.toml", "podium.toml"),
    ("config-created-as-folder", no_config, "mkdir podium.toml", "podium.toml"),
    ("config-created-by-copying-a-folder-into-the-root", config_in_sub, "cp -r sub/. .", "podium.toml"),
    ("config-created-through-dangling-link", dangling_config, "cp notes.txt settings.txt", "podium.toml"),
    ("journal-wal-created", plain, f"cp notes.txt {JOURNAL}-wal", f"{JOURNAL}-wal"),
    ("journal-hot-rollback-created", plain, f"touch {JOURNAL}-journal", f"{JOURNAL}-journal"),
]:
    add(f"config/{name}", "config", created(setup, text, relative))


# -- protected names spelled another way: the files tools wait for the person -----------------------------
def drop_config(root: Path) -> None:
    (root / "podium.toml").unlink()


def config_in_folder(root: Path) -> None:
    (root / "incoming").mkdir()
    (root / "incoming" / "podium.toml").write_text('[shell]\nsandbox = "off"\n')


def linked_folder(root: Path) -> None:
    (root / "here").symlink_to(".")


for name, app, tool, args, setup in [
    ("dot-slash-config", "files", "write_file", {"path": "./podium.toml", "content": "x", "overwrite": True}, None),
    ("climb-back-to-config", "files", "write_file", {"path": "sub/../podium.toml", "content": "x",
                                                     "overwrite": True}, None),
    ("trailing-slash-config", "files", "delete", {"path": "podium.toml/"}, None),
    ("absolute-config", "files", "delete", {"path": "{root}/podium.toml"}, None),
    ("config-through-a-link-to-the-root", "files", "write_file", {"path": "here/podium.toml", "content": "x",
                                                                  "overwrite": True}, linked_folder),
    ("pattern-copy-brings-a-config", "files", "copy_or_move", {"mode": "copy", "source": "incoming/*",
                                                               "destination": "."}, lambda r: (
        drop_config(r), config_in_folder(r))),
    ("pattern-move-brings-a-config", "files", "copy_or_move", {"mode": "move", "source": "incoming/*.toml",
                                                               "destination": "."}, lambda r: (
        drop_config(r), config_in_folder(r))),
    ("folder-copy-brings-a-config", "files", "copy_or_move", {"mode": "copy", "source": "incoming",
                                                                        "destination": "sub"}, config_in_folder),
    ("journal-companion-written", "files", "write_file", {"path": f"{JOURNAL}-wal", "content": "x"}, None),
]:
    async def attack(ctx: Context, args: dict[str, Any] = args, app: str = app, tool: str = tool,
                     setup: Callable[[Path], Any] | None = setup) -> Verdict:
        given = {k: v.replace("{root}", str(ctx.root)) if isinstance(v, str) else v for k, v in args.items()}
        return await held(app, tool, given, setup)(ctx)

    add(f"approval/spelled-{name}", "approval", attack)


# -- paths out of the workspace by other routes ----------------------------------------------------------
def refused(app: str, tool: str, args: Callable[[Context], dict[str, Any]], setup: Setup = plain,
            secret: str = "top secret") -> Callable[[Context], Awaitable[Verdict]]:
    """The call fails, and what it answers shows no secret from outside."""

    async def attack(ctx: Context) -> Verdict:
        setup(ctx)
        result = await ctx.app(app).call(tool, args(ctx))
        said = str(result.content)
        if secret in said or "ssh-rsa" in said or "root:x:0:0" in said:
            return Verdict(False, "tool", f"{tool} showed what lies outside: {said[:200]}")
        if result.ok:
            return Verdict(False, "tool", f"{tool} succeeded: {said[:200]}")
        return Verdict(True, "tool", result.error or "")

    return attack


def link_in_sub(ctx: Context) -> None:
    (ctx.root / "sub" / "up").symlink_to(ctx.outside)


def relative_link_in_deep_folder(ctx: Context) -> None:
    """deep/a/l -> ../../sub points inside from where it is; copied one folder up it points outside."""
    (ctx.root / "deep" / "a").mkdir(parents=True)
    (ctx.root / "deep" / "a" / "l").symlink_to("../../sub")


def loop(ctx: Context) -> None:
    (ctx.root / "a").symlink_to("b")
    (ctx.root / "b").symlink_to("a")


def copied_then_read(source: str, destination: str, read: str, setup: Setup) -> Callable[[Context],
                                                                                         Awaitable[Verdict]]:
    """A copy carries a link along; reading through the copy must not reach outside."""

    async def attack(ctx: Context) -> Verdict:
        setup(ctx)
        files = ctx.app("files")
        copied = await files.call("copy_or_move", {"mode": "copy", "source": source, "destination": destination})
        result = await files.call("read_file", {"path": read})
        if result.ok:
            return Verdict(False, "tool", f"read through the copied link: {str(result.content)[:200]}")
        return Verdict(True, "tool", f"copy: {copied.error or 'done'}; read: {result.error}")

    return attack


for name, app, tool, args, setup in [
    ("absolute-outside", "files", "read_file", lambda c: {"path": str(c.outside / "secret.txt")}, plain),
    ("proc-self-root", "files", "read_file", lambda c: {"path": "/proc/self/root/etc/passwd"}, plain),
    ("proc-self-cwd", "files", "read_file", lambda c: {"path": "/proc/self/cwd/../outside/secret.txt"}, plain),
    ("home-tilde", "files", "read_file", lambda c: {"path": "~/.ssh/id_rsa"}, plain),
    ("home-tilde-other-user", "files", "read_file", lambda c: {"path": "~root/.bashrc"}, plain),
    ("nul-byte", "files", "read_file", lambda c: {"path": "notes.txt\x00/../../outside/secret.txt"}, plain),
    ("climb-after-a-link", "files", "read_file", lambda c: {"path": "sub/up/../outside/secret.txt"}, link_in_sub),
    ("through-link-in-sub", "files", "read_file", lambda c: {"path": "sub/up/secret.txt"}, link_in_sub),
    ("list-through-link", "files", "list_files", lambda c: {"path": "sub/up", "recursive": True}, link_in_sub),
    ("copy-into-link-out", "files", "copy_or_move", lambda c: {"mode": "copy", "source": "notes.txt",
                                                               "destination": "link_out/pwned.txt"}, plain),
    ("copy-into-folder-link-out", "files", "copy_or_move", lambda c: {"mode": "copy", "source": "notes.txt",
                                                                      "destination": "link_out"}, plain),
    ("move-from-outside", "files", "copy_or_move", lambda c: {"mode": "move", "source": "link_out/secret.txt",
                                                              "destination": "stolen.txt"}, plain),
    ("pattern-through-link-out", "files", "copy_or_move", lambda c: {"mode": "copy", "source": "link_out/*",
                                                                     "destination": "stolen"}, plain),
    ("document-outside", "documents", "read_document", lambda c: {"path": str(c.outside / "report.docx")}, plain),
    ("workbook-through-link", "spreadsheets", "read_sheet", lambda c: {"path": "link_out/budget.xlsx"}, plain),
    ("shell-proc-root", "shell", "run_command", lambda c: {"command": "cat /proc/self/root/etc/passwd"}, plain),
    ("shell-tilde-user", "shell", "run_command", lambda c: {"command": "ls ~root"}, plain),
]:
    add(f"paths/{name}", "paths", refused(app, tool, args, setup))

async def write_through_a_loop(ctx: Context) -> Verdict:
    """a -> b -> a: realpath gives up on a loop and returns a path inside; the write must land inside too (the
    harness checks the sentinel) or fail, never follow the loop somewhere else."""
    loop(ctx)
    result = await ctx.app("files").call("write_file", {"path": "a", "content": "x", "overwrite": True})
    landed = [p.name for p in ctx.root.iterdir() if p.is_file() and not p.is_symlink() and p.read_bytes() == b"x"]
    if result.ok and not landed:
        return Verdict(False, "tool", f"write_file said it wrote, but not in the workspace: {result.content}")
    return Verdict(True, "tool", result.error or f"written inside the workspace, at {landed}")


add("paths/write-through-a-symlink-loop", "paths", write_through_a_loop)
add("paths/copied-folder-carries-a-link-out", "paths", copied_then_read("sub", "sub2", "sub2/up/secret.txt",
                                                                        link_in_sub))
add("paths/copied-relative-link-retargeted", "paths", copied_then_read("deep/a", "a2", "a2/l/inner.txt",
                                                                       relative_link_in_deep_folder))


# -- the sandbox: output without end, secrets in the environment, the network by other routes ------------
async def endless_output(ctx: Context) -> Verdict:
    """printf (a read-only program, run unasked) padding a number to a gigabyte: stopped at the output cap."""
    import time

    started = time.monotonic()
    result = await ctx.app("shell").call("run_command", {"command": "printf %0900000000d 1"})
    taken = time.monotonic() - started
    kept = len((result.content or {}).get("stdout", ""))
    if result.ok or taken > 25 or kept > 64_000:
        return Verdict(False, "limits", f"{kept} bytes kept in {taken:.1f} s: {result.error}")
    return Verdict(True, "limits", result.error or "")


add("limits/endless-output", "limits", endless_output, timeout=60)


async def secret_in_environment(ctx: Context) -> Verdict:
    os.environ["ANTHROPIC_API_KEY"] = "sk-ant-podium-probe"
    os.environ["PODIUM_TOKEN"] = "podium-probe-token"
    try:
        outcome = await forced(ctx, ["sh", "-c", "env; cat /proc/1/environ"])
    finally:
        os.environ.pop("ANTHROPIC_API_KEY", None)
        os.environ.pop("PODIUM_TOKEN", None)
    said = outcome["stdout"] + outcome["stderr"]
    if "podium-probe" in said:
        return Verdict(False, "sandbox", f"a secret of podium's environment reached the sandbox: {said[:200]}")
    return Verdict(True, "sandbox", "the sandbox's environment holds none of podium's variables")


add("boundary/secrets-in-podium-environment", "boundary", secret_in_environment)


def network(script: str, family: str) -> Callable[[Context], Awaitable[Verdict]]:
    async def attack(ctx: Context) -> Verdict:
        import socket
        import threading

        server = socket.create_server(("::1" if family == "6" else "127.0.0.1", 0),
                                      family=socket.AF_INET6 if family == "6" else socket.AF_INET)
        port, accepted = server.getsockname()[1], []

        def serve() -> None:
            try:
                while True:
                    accepted.append(server.accept()[0].close())
            except OSError:
                return

        threading.Thread(target=serve, daemon=True).start()
        try:
            outcome = await forced(ctx, [a.replace("{port}", str(port)) for a in
                                         (["bash", "-c", script] if family == "tcp" else [PYTHON, "-c", script])])
        finally:
            server.close()
        if accepted or outcome["exit_code"] == 0:
            return Verdict(False, "sandbox", f"the connection was made ({family})")
        return Verdict(True, "sandbox", _said(outcome))

    return attack


add("network/ipv6-loopback", "network", network(
    "import socket; socket.create_connection(('::1', {port}), 3)", "6"))
add("network/bash-dev-tcp", "network", network("echo hi > /dev/tcp/127.0.0.1/{port}", "tcp"))


# bwrap's own /dev is an unsized tmpfs the sandbox's root may write: memory past the /tmp limit
def _small_tmp(box: Any) -> Any:
    return replace(box, limits=replace(box.limits, tmp_bytes=16 << 20, file_size_bytes=None))


add("limits/dev-in-memory", "limits", expect(sh("head -c 400000000 /dev/zero > /dev/fill"), sandbox=_small_tmp))
add("limits/dev-shm-in-memory", "limits", expect(sh("head -c 400000000 /dev/zero > /dev/shm/fill"),
                                                 sandbox=_small_tmp))
add("limits/dev-null-still-writable", "limits", expect(sh("echo x > /dev/null && echo x > /dev/shm/small"),
                                                       fails=False, check=lambda c, o: None if o["exit_code"] == 0
                                                       else f"/dev/null or /dev/shm refused a write: {_said(o)}"))


async def server_creates_config(ctx: Context) -> Verdict:
    """An untrusted server given the workspace writable, in a workspace without podium.toml, writes one: it is
    moved aside after the call (and again once the server ends), and the call says so."""
    from podium.apps.sandbox import Access
    from tests.security.probes_mcp import hostile

    (ctx.root / "podium.toml").unlink()
    app = hostile(ctx, Access.WRITE)
    async with app:
        result = await app.call("write", {"path": str(ctx.root / "podium.toml"), "text": '[shell]\nsandbox = "off"\n'})
        after_call = os.path.exists(ctx.root / "podium.toml")
    if after_call or os.path.exists(ctx.root / "podium.toml"):
        return Verdict(False, "sandbox", f"the server created podium.toml: {result.content or result.error}")
    return Verdict(True, "sandbox", result.error or "")


add("mcp/server-creates-a-missing-config", "mcp", server_creates_config)


# -- desktop programs allowed to write the workspace: the same absent protected paths ------------------------
def program_creates(script: str, relative: str, when: str, setup: Setup = plain) -> Callable[[Context],
                                                                                          Awaitable[Verdict]]:
    """A desktop program configured with `workspace = "write"` (a `sh -c script` standing for an editor, named
    so that no process on the machine passes for it, launched with no display to wait on) creates `relative`,
    a protected path absent when it was launched: while it runs and its application's next call is made
    (`when` "running"), after it ended by itself ("ended"), or as it is closed ("close"). Blocked when nothing
    is at `relative` after that call and the call failed naming it."""

    async def attack(ctx: Context) -> Verdict:
        import asyncio
        import uuid

        from podium.apps.registry import build_applications

        setup(ctx)
        target = ctx.root / relative
        apps = build_applications({"workspace": str(ctx.root), "enabled": [], "desktop": {"scribble": {
            "command": ["sh", "-c", script], "process": f"podium-probe-{uuid.uuid4().hex[:8]}",
            "workspace": "write"}}}, protect=[ctx.root / JOURNAL])
        app = apps["scribble"]

        async def until(done: Callable[[], bool]) -> None:
            for _ in range(100):
                if done():
                    return
                await asyncio.sleep(0.1)

        shown = os.environ.pop("DISPLAY", None)
        try:
            await app.launch()
            if when != "close":
                await until(lambda: os.path.lexists(target))  # it made it (no call has been made since)
            if when == "ended":
                await until(lambda: app.lifecycle.exit_status(app.config) is not None)
            result = await app.call("close" if when == "close" else "status", {})
            there = os.path.lexists(target)
        finally:
            await apps.aclose()
            if shown is not None:
                os.environ["DISPLAY"] = shown
        if there:
            return Verdict(False, "sandbox", f"a desktop program created {relative}: {result.error or result.content}")
        if relative not in (result.error or ""):
            return Verdict(False, "sandbox", f"{relative} is not there, but the call did not say it was refused: "
                                             f"{result.error or result.content}")
        return Verdict(True, "sandbox", result.error or "")

    return attack


def no_config_left(ctx: Context) -> None:
    (ctx.root / "podium.toml").unlink()


for name, script, relative, when, setup in [
    ("creates-a-config-while-it-runs", "echo '[shell]' > podium.toml; exec sleep 30", "podium.toml", "running",
     no_config_left),
    ("creates-a-config-and-ends", "sleep 1; cp notes.txt podium.toml", "podium.toml", "ended", no_config_left),
    ("creates-a-config-folder", "mkdir -p podium.toml/x; exec sleep 30", "podium.toml", "running", no_config_left),
    ("creates-a-journal-wal-as-it-is-closed", f"trap 'echo x > {JOURNAL}-wal; exit 0' TERM; "
                                              "while :; do sleep 0.2; done", f"{JOURNAL}-wal", "close", plain),
]:
    add(f"desktop/program-{name}", "desktop", program_creates(script, relative, when, setup), timeout=60)
