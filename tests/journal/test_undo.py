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
