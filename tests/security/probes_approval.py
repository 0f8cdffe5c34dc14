"""Approval by effect: renames, moves, links and writes are classified by the paths they resolve to. A call
that would change podium's configuration or its journal (renamed away, replaced by a rename, written
through a link, dangling or not, moved with its folder) waits for the person, whatever tool makes it."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from podium.desktop.wire.messages import CallFacts
from tests.security.harness import JOURNAL, Context, Verdict, add

Setup = Callable[[Path], Any]


def held(app: str, tool: str, args: dict[str, Any], setup: Setup | None = None
         ) -> Callable[[Context], Awaitable[Verdict]]:
    """The call is sensitive (it waits for the person) or refused outright; its effects name what it would
    change. It is not run."""

    async def attack(ctx: Context) -> Verdict:
        if setup is not None:
            setup(ctx.root)
        application = ctx.app(app)
        effects = application.effects(tool, args)
        if application.is_sensitive(tool, args):
            return Verdict(True, "approval", f"held for the person's approval; effects {effects}")
        result = await application.call(tool, args)  # not held: then it must be refused
        if result.ok:
            return Verdict(False, "approval", f"{tool} ran without approval: {result.content}")
        return Verdict(True, "tool", result.error or "")

    return attack


def dangling_config_link(root: Path) -> None:
    (root / "podium.toml").unlink()
    (root / "settings.txt").symlink_to("podium.toml")


def config_link(root: Path) -> None:
    (root / "settings.txt").symlink_to("podium.toml")


def journal_link(root: Path) -> None:
    (root / "log.txt").symlink_to(JOURNAL)


def journal_hard_link(root: Path) -> None:
    os.link(root / JOURNAL, root / "copy_of_journal.db")


def config_in_sub(root: Path) -> None:
    (root / "sub" / "podium.toml").write_text("[apps]\n")


def no_config(root: Path) -> None:
    (root / "podium.toml").unlink()


def docx_link_to_config(root: Path) -> None:
    (root / "notes.docx").symlink_to("podium.toml")


def xlsx_link_to_journal(root: Path) -> None:
    (root / "data.xlsx").symlink_to(JOURNAL)


CASES: list[tuple[str, str, str, dict[str, Any], Setup | None]] = [
    ("rename-config-away", "files", "rename_pattern", {"pattern": "^podium\\.toml$", "replacement": "old.toml"},
     None),
    ("rename-another-file-into-config", "files", "rename_pattern",
     {"pattern": "^notes\\.txt$", "replacement": "podium.toml"}, no_config),
    ("rename-pattern-matching-config-and-others", "files", "rename_pattern", {"pattern": "\\.t", "replacement": ".x"},
     None),
    ("move-config-away", "files", "copy_or_move", {"mode": "move",
                                                   "source": "podium.toml", "destination": "old.toml"}, None),
    ("move-file-onto-config", "files", "copy_or_move", {"mode": "move",
                                                        "source": "notes.txt", "destination": "podium.toml",
                                                "overwrite": True}, None),
    ("move-file-into-missing-config", "files", "copy_or_move", {"mode": "move",
                                                                "source": "notes.txt", "destination": "podium.toml"},
     no_config),
    ("move-pattern-with-config", "files", "copy_or_move", {"mode": "move",
                                                           "source": "*.toml", "destination": "archive"}, None),
    ("copy-onto-config", "files", "copy_or_move",
     {"mode": "copy", "source": "notes.txt", "destination": "podium.toml", "overwrite": True},
     None),
    ("copy-into-missing-config", "files", "copy_or_move",
     {"mode": "copy", "source": "notes.txt", "destination": "podium.toml"}, no_config),
    ("write-config", "files", "write_file", {"path": "podium.toml", "content": "x", "overwrite": True}, None),
    ("write-missing-config", "files", "write_file", {"path": "podium.toml", "content": "[apps]\n"}, no_config),
    ("write-through-dangling-link-to-config", "files", "write_file", {"path": "settings.txt", "content": "x"},
     dangling_config_link),
    ("write-through-link-to-config", "files", "write_file",
     {"path": "settings.txt", "content": "x", "overwrite": True}, config_link),
    ("write-names-into-config", "files", "write_file_names", {"path": ".", "pattern": "*", "into": "podium.toml",
                                                              "overwrite": True}, None),
    ("make-folder-named-config", "files", "make_folder", {"path": "podium.toml"}, no_config),
    ("delete-config", "files", "delete", {"path": "podium.toml"}, None),
    ("delete-link-to-config", "files", "delete", {"path": "settings.txt"}, config_link),
    ("move-folder-holding-config", "files", "copy_or_move",
     {"mode": "move", "source": "sub", "destination": "elsewhere"}, config_in_sub),
    ("rename-folder-holding-config", "files", "rename_pattern", {"pattern": "^sub$", "replacement": "gone"},
     config_in_sub),
    ("delete-folder-holding-config", "files", "delete", {"path": "sub", "recursive": True}, config_in_sub),
    ("move-journal-folder", "files", "copy_or_move", {"mode": "move", "source": ".podium", "destination": "old"}, None),
    ("rename-journal", "files", "rename_pattern", {"folder": ".podium", "pattern": "journal", "replacement": "j"},
     None),
    ("write-through-link-to-journal", "files", "write_file", {"path": "log.txt", "content": "x", "overwrite": True},
     journal_link),
    ("rename-hard-link-of-journal", "files", "rename_pattern",
     {"pattern": "^copy_of_journal", "replacement": "other"}, journal_hard_link),
    ("document-through-link-to-config", "documents", "create_document", {"path": "notes.docx", "overwrite": True},
     docx_link_to_config),
    ("workbook-through-link-to-journal", "spreadsheets", "create_workbook", {"path": "data.xlsx", "overwrite": True},
     xlsx_link_to_journal),
    ("workbook-named-config", "spreadsheets", "create_workbook", {"path": "podium.toml"}, no_config),
    ("shell-command-that-writes", "shell", "run_command", {"command": "cp notes.txt copy.txt"}, None),
    ("shell-command-that-reads-but-may-write", "shell", "run_command", {"command": "sort -o sorted notes.txt"}, None),
]
for name, app, tool, args, setup in CASES:
    add(f"approval/{name}", "approval", held(app, tool, args, setup))


# -- the host's capability on what a call really changes: a subtask's declared writes bound its changes, and
# what the application says is protected stays so, declared or not ---------------------------------------
def planned(tool: str, args: dict[str, Any], writes: tuple[str, ...], setup: Setup | None = None,
            reads: tuple[str, ...] = (), named: tuple[str, ...] | None = None
            ) -> Callable[[Context], Awaitable[Verdict]]:
    """The call's real effects, as the host sees them, under a subtask declaring `writes` (of which the person's
    words name `named`, None: all): it must wait for the person with a hold that --yes does not grant (the change
    is not what the plan declared, or not what the person asked for in their words)."""

    async def attack(ctx: Context) -> Verdict:
        from podium.desktop.host.capability import auto_granted, holds
        from podium.desktop.wire.messages import CallFacts, EffectView
        from podium.desktop.wire.schemas import normal_path

        if setup is not None:
            setup(ctx.root)
        files = ctx.app("files")
        found = files.effects(tool, args)
        if not found:
            return Verdict(False, "approval", f"{tool} has no effects here: the probe tests nothing")
        facts = CallFacts(function=tool, arguments=args, sensitive=files.is_sensitive(tool, args),
                          effects=tuple(EffectView(path=normal_path(e.path), change=str(e.change.value),
                                                   removes=e.removes, adds=e.adds, wipes=e.wipes, drops=e.drops)
                                        for e in found))
        workspace = ctx.workspace
        protected = tuple(workspace.relative(p) for p in workspace.protected_paths())
        held = holds([facts], writes=writes, reads=reads, protected=protected, named=named)
        if held and not auto_granted(held):
            return Verdict(True, "approval", "; ".join(h.text() for h in held))
        how = "with --yes" if held else "unasked"
        return Verdict(False, "approval", f"{tool} {found} would run {how} under writes {writes}")

    return attack


def deep_text(root: Path) -> None:
    (root / "private").mkdir()
    (root / "private" / "keys.txt").write_text("ssh-rsa AAAA\n")


CAPABILITY: list[tuple[str, str, dict[str, Any], tuple[str, ...], Setup | None]] = [
    # '*.txt' names the .txt files of the workspace's top folder, as the tools' own patterns do
    ("pattern-reaches-into-a-subfolder", "write_file", {"path": "private/keys.txt", "content": "x",
                                                        "overwrite": True}, ("*.txt",), deep_text),
    ("pattern-creates-in-a-subfolder", "write_file", {"path": "private/new.txt", "content": "x"}, ("*.txt",),
     deep_text),
    ("folder-pattern-reaches-deeper", "copy_or_move", {"mode": "copy",
                                                       "source": "notes.txt", "destination": "backup/old/notes.txt"},
     ("backup/*.txt",), None),
    ("question-mark-crosses-a-slash", "write_file", {"path": "a/b.txt", "content": "x"}, ("a?b.txt",), None),
    # what the application says is protected is protected whatever the plan declares
    ("declared-move-of-folder-holding-config", "copy_or_move", {"mode": "move",
                                                                "source": "sub", "destination": "elsewhere"},
     ("sub", "elsewhere"), config_in_sub),
    ("declared-rename-of-folder-holding-config", "rename_pattern", {"pattern": "^sub$", "replacement": "gone"},
     ("sub", "gone"), config_in_sub),
    ("declared-rename-of-hard-link-of-journal", "rename_pattern",
     {"pattern": "^copy_of_journal", "replacement": "other"}, ("copy_of_journal.db", "other.db"), journal_hard_link),
    ("whole-workspace-declared-write-config-in-sub", "write_file", {"path": "sub/podium.toml", "content": "x",
                                                                    "overwrite": True}, (".",), config_in_sub),
]
for name, tool, args, writes, setup in CAPABILITY:
    add(f"approval/capability-{name}", "approval", planned(tool, args, writes, setup))


def config_file(root: Path) -> None:
    (root / "server.conf").write_text("# web service settings\nhost = 0.0.0.0\nport = 8080\nworkers = 4\n")


# --yes approves in advance edits in place of what the person named: not a rewrite that deletes lines with
# nothing in their place, nor a destructive change of a file only the plan chose (the workspace's names reach it)
add("approval/capability-yes-and-a-rewrite-that-drops-a-line", "approval", planned(
    "write_file", {"path": "server.conf", "content": "host = 0.0.0.0\nport = 9090\nworkers = 4\n",
                   "overwrite": True}, ("server.conf",), config_file))
add("approval/capability-yes-and-a-declared-file-the-request-does-not-name", "approval", planned(
    "replace_text", {"path": "server.conf", "find": "8080", "replace_with": "9090"}, ("server.conf",), config_file,
    named=()))


# -- what runs is what was decided: a folder replaced by a link between the decision and the run --------
def decided_then_swapped(tool: str, args: dict[str, Any], writes: tuple[str, ...], setup: Setup,
                         swap: Setup) -> Callable[[Context], Awaitable[Verdict]]:
    """The call's effects are decided on (nothing to hold), then a program that writes the workspace (an
    approved command, a server or a desktop program given the workspace) swaps a folder for a link to
    another; the host's EXECUTE turn runs the call as decided, or not at all."""

    async def attack(ctx: Context) -> Verdict:
        from podium.desktop.host.capability import holds
        from podium.desktop.shell.app_step import AppStepBackend, _Step
        from podium.desktop.wire.messages import AppStepKind, AppStepRequest, Call, EffectView
        from podium.desktop.wire.schemas import normal_path

        setup(ctx.root)
        before = {p: p.read_bytes() for p in ctx.root.rglob("*") if p.is_file() and not p.is_symlink()}
        files = ctx.app("files")
        effects = tuple(EffectView(path=normal_path(e.path), change=str(e.change.value))
                        for e in files.effects(tool, args))
        if holds([CallFacts(function=tool, arguments=args, effects=effects)], writes=writes):
            return Verdict(False, "approval", f"held before the swap: the probe tests nothing ({effects})")
        swap(ctx.root)
        backend = AppStepBackend(None, files)  # type: ignore[arg-type]  (EXECUTE asks no model)
        step = _Step(AppStepRequest(kind=AppStepKind.EXECUTE, writes=writes, launch=False,
                                    calls=(Call(function=tool, arguments=args, effects=effects),)))
        await backend._execute(step)
        result = step.results[0]
        changed = [str(p.relative_to(ctx.root)) for p, data in before.items() if not p.is_file()
                   or p.read_bytes() != data]
        made = [str(p.relative_to(ctx.root)) for p in ctx.root.rglob("*") if p.is_file() and p not in before
                and not p.is_relative_to(ctx.root / "out")]
        if changed or made:
            return Verdict(False, "approval", f"{tool} ran past its decision: changed {changed}, made {made}")
        return Verdict(True, "tool", result.error or f"ran as decided: {result.content}")

    return attack


def out_and_private(root: Path) -> None:
    (root / "out").mkdir()
    (root / "private").mkdir()
    (root / "private" / "plans.txt").write_text("mine\n")


def out_is_a_link_to_private(root: Path) -> None:
    (root / "out").rmdir()
    (root / "out").symlink_to("private")


for name, tool, args in [
    ("write-lands-in-another-folder", "write_file", {"path": "out/plans.txt", "content": "x", "overwrite": True}),
    ("new-file-lands-in-another-folder", "write_file", {"path": "out/new.txt", "content": "x"}),
    ("copy-lands-in-another-folder", "copy_or_move", {"mode": "copy",
                                                      "source": "notes.txt", "destination": "out/plans.txt",
                                               "overwrite": True}),
]:
    add(f"approval/decided-then-swapped-{name}", "approval",
        decided_then_swapped(tool, args, ("out",), out_and_private, out_is_a_link_to_private))
