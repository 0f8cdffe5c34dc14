"""Undo from the change log, on real files: the seed's example (a .docx read, a .xlsx written and
charted) and a text file, with the log written the way the executor writes it."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from podium.journal import Journal, Store
from podium.journal.undo import UndoAction, UndoRefused, apply_undo, plan_undo
from tests.journal.recording import seed_run


def snapshot(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


async def test_undo_restores_the_seed_example_byte_for_byte(store: Store, tmp_path: Path) -> None:
    workspace = tmp_path / "quarterly"
    workspace.mkdir()
    from tests.journal.recording import make_quarterly

    make_quarterly(workspace)
    before = snapshot(workspace)
    result = await seed_run(store, workspace)
    assert result.status == "FINISH"
    assert snapshot(workspace)["budget.xlsx"] != before["budget.xlsx"]
    [change] = store.changes("seed")  # write_rows then add_chart: one entry, the first before, the last after
    assert change.path == "budget.xlsx" and change.before == before["budget.xlsx"]

    plan = plan_undo("seed", store.changes("seed"))
    assert [s.action for s in plan.steps] == [UndoAction.RESTORE] and not plan.conflicts
    apply_undo(plan, store)
    assert snapshot(workspace) == before
    assert plan_undo("seed", store.changes("seed")).work == ()  # undone: nothing left to do


async def test_files_changed_since_are_refused_unless_forced(store: Store, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    journal = Journal(store)
    journal.opened("r", "Test")
    notes, made = workspace / "notes.txt", workspace / "sub" / "made.txt"
    notes.write_text("original\n")
    before = journal.save_file("r", notes)
    notes.write_text("by the run\n")
    journal.record_change("r", workspace, "notes.txt", before, journal.save_file("r", notes))
    made.parent.mkdir()
    made.write_text("new")
    journal.record_change("r", workspace, "sub/made.txt", None, journal.save_file("r", made))

    notes.write_text("edited by the person afterwards\n")
    plan = plan_undo("r", store.changes("r"))
    assert [s.change.path for s in plan.conflicts] == ["notes.txt"]
    with pytest.raises(UndoRefused, match=r"1 file\(s\) changed since run 'r' by someone else: notes.txt"):
        apply_undo(plan, store)
    assert made.exists() and notes.read_text() == "edited by the person afterwards\n"  # nothing was done

    apply_undo(plan, store, force=True)
    assert notes.read_text() == "original\n" and not made.exists()


async def test_a_deleted_file_is_written_back_and_a_corrupt_copy_stops_everything(store: Store,
                                                                                 tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    journal = Journal(store)
    journal.opened("r", "Test")
    gone, kept = workspace / "gone.txt", workspace / "kept.txt"
    gone.write_bytes(b"\x00deleted by the run")
    kept.write_text("v1")
    journal.record_change("r", workspace, "gone.txt", journal.save_file("r", gone), None)
    gone.unlink()
    v1 = journal.save_file("r", kept)
    kept.write_text("v2")
    journal.record_change("r", workspace, "kept.txt", v1, journal.save_file("r", kept))
    [deleted, changed] = plan_undo("r", store.changes("r")).steps
    assert deleted.action is UndoAction.RECREATE and changed.action is UndoAction.RESTORE
    apply_undo(plan_undo("r", store.changes("r")), store)
    assert gone.read_bytes() == b"\x00deleted by the run" and kept.read_text() == "v1"


async def test_folders_the_run_made_go_with_its_files_and_one_it_removed_comes_back(store: Store,
                                                                                    tmp_path: Path) -> None:
    """The executor logs a folder a batch makes (backup/, backup/2024/) with the FOLDER mark; undo removes
    such a folder once the run's files in it are gone, keeps one where someone else put a file, and makes a
    folder the run removed again (its files come back from their copies)."""
    from podium.journal.files import FOLDER

    workspace = tmp_path / "ws"
    (workspace / "old").mkdir(parents=True)
    journal = Journal(store)
    journal.opened("r", "Test")
    kept = workspace / "old" / "kept.txt"
    kept.write_text("the person's\n")
    was = journal.save_file("r", kept)
    kept.unlink()
    (workspace / "old").rmdir()  # the run removed old/ and what it held
    journal.record_change("r", workspace, "old/kept.txt", was, None)
    journal.record_change("r", workspace, "old", FOLDER, None)
    for folder in ("backup", "backup/2024", "shared"):
        (workspace / folder).mkdir()
        journal.record_change("r", workspace, folder, None, FOLDER)
    for name in ("backup/2024/q1.xlsx", "shared/list.txt"):
        (workspace / name).write_text(name)
        journal.record_change("r", workspace, name, None, journal.save_file("r", workspace / name))
    (workspace / "shared" / "mine.txt").write_text("put there by someone else")

    plan = plan_undo("r", store.changes("r"))
    assert not plan.conflicts
    done = apply_undo(plan, store)
    assert {s.change.path: s.action for s in done if s.action in (UndoAction.REMOVE_FOLDER,
                                                                    UndoAction.RECREATE_FOLDER)} == {
        "backup/2024": UndoAction.REMOVE_FOLDER, "backup": UndoAction.REMOVE_FOLDER, "old": UndoAction.RECREATE_FOLDER}
    assert sorted(p.relative_to(workspace).as_posix() for p in workspace.rglob("*")) == [
        "old", "old/kept.txt", "shared", "shared/mine.txt"]
    assert kept.read_text() == "the person's\n"
    left = plan_undo("r", store.changes("r")).work  # only the folder someone else still uses
    assert [(s.change.path, s.action) for s in left] == [("shared", UndoAction.REMOVE_FOLDER)]
