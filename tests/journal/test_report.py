"""The report's contents from a record: screenshots inline, rules fired, a damaged copy shown as such, a
run cut short still drawn from its entries."""

from __future__ import annotations

import base64
import re
import sqlite3
from pathlib import Path
from types import SimpleNamespace

from podium.desktop.shell.screens import FolderScreenshots
from podium.journal import SqliteStore
from podium.journal.report import gather, render
from podium.journal.report.diffs import diff_file
from tests.journal.recording import seed_run

# a 1x1 PNG
PIXEL = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9aw"
                         "AAAABJRU5ErkJggg==")


def take(path: Path) -> SimpleNamespace:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(PIXEL)
    return SimpleNamespace(path=path)


async def test_screenshots_rules_and_a_damaged_copy(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "journal.db")
    await seed_run(store, tmp_path / "quarterly", screenshots=FolderScreenshots(tmp_path / "shots", take=take))
    trajectory = store.get("seed", "trajectory")
    trajectory[3] = {**trajectory[3], "rules": ["handed-table-header", "no-guessed-numbers"]}
    store.put("seed", "trajectory", trajectory)
    page = render(gather(store, "seed"))
    assert page.count('<img class="shot"') == 6 and base64.b64encode(PIXEL).decode() in page
    assert re.search(r'rules fired: <span>handed-table-header</span><span>no-guessed-numbers</span>', page)
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "") and "src=\"http" not in page

    [change] = store.changes("seed")
    with sqlite3.connect(tmp_path / "journal.db") as db:
        db.execute("UPDATE blobs SET data = ? WHERE digest = ?", (b"garbage", change.after))
    page = render(gather(store, "seed"))
    assert f"the copy {change.after[:12]} no longer has the bytes that were saved" in page  # the rest still shows
    assert page.count('<article class="step"') == 6
    store.close()


def test_a_run_cut_short_is_drawn_from_its_entries(tmp_path: Path) -> None:
    import asyncio

    store = SqliteStore(tmp_path / "journal.db")
    asyncio.run(seed_run(store, tmp_path / "quarterly"))
    for key in store.keys("seed"):  # what a killed process never saved
        store._run("DELETE FROM artifacts WHERE session = ? AND key = ?", ("seed", key))
    report = gather(store, "seed")
    assert [s["id"] for s in report.subtasks] == ["1", "2"] and len(report.steps) == 6
    assert "Extract the table from report.docx" in render(report)
    store.close()


def test_diffs_of_text_and_of_a_file_that_is_not_what_its_name_says() -> None:
    lines = diff_file("notes.txt", b"one\ntwo\n", b"one\nthree\n")
    assert [(line.sign, line.text) for line in lines if line.sign in "+-"] == [("-", "two"), ("+", "three")]
    [note] = diff_file("fake.xlsx", b"not a zip", b"still not")
    assert note.sign == "!" and "9 bytes -> 9 bytes" in note.text
