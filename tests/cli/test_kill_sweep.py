"""Exactly once across a power cut: a scripted desktop run that changes a document and a workbook is killed
with SIGKILL right before each of its journal's writes in turn (one process per kill point), continued with
`podium resume`, and must end with the files of the uninterrupted run: no paragraph, row or chart twice."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import docx
import openpyxl

from tests.cli.scripts import app, assign, host, sub, write_script

REPO = Path(__file__).parents[2]
KILLER = Path(__file__).with_name("kill_at_write.py")
NOTHING_TO_RESUME = ("holds no sessions", "did not keep what a resume needs", "has no request left waiting",
                     "there is nothing to resume")
REQUEST = "Add the paragraph 'Approved.' to minutes.docx, and the row Travel 300 under the table of budget.xlsx " \
          "with a bar chart of it"


def make_workspace(folder: Path) -> Path:
    folder.mkdir(parents=True)
    document = docx.Document()
    document.add_paragraph("Minutes of the meeting")
    document.save(str(folder / "minutes.docx"))
    book = openpyxl.Workbook()
    book.active.title = "Budget"
    for row in (["Item", "Amount"], ["Rent", 1200], ["Food", 450]):
        book.active.append(row)
    book.save(folder / "budget.xlsx")
    return folder


def script(path: Path) -> Path:
    """Replies that reach the end wherever a restart begins them again: a change asked again is a repeat of
    one already made, and an extra FINISH is harmless."""
    plan = assign(sub("1", "Add the paragraph to minutes.docx", "documents", writes=["minutes.docx"],
                      tools=["add_paragraphs"]),
                  sub("2", "Add the row and a chart to budget.xlsx", "spreadsheets", writes=["budget.xlsx"],
                      tools=["append_rows", "add_chart"]))
    docs = [app("CONTINUE", ("add_paragraphs", {"path": "minutes.docx", "paragraphs": ["Approved."]})),
            *[app("FINISH", result="added")] * 4]
    sheets = [app("CONTINUE", ("append_rows", {"path": "budget.xlsx", "sheet": "Budget", "rows": [["Travel", 300]]}),
                  ("add_chart", {"path": "budget.xlsx", "sheet": "Budget", "kind": "bar", "data": "A1:B4",
                                 "title": "Budget"})),
              *[app("FINISH", result="added")] * 4]
    return write_script(path, [plan, *[host("FINISH", "done")] * 4], {"documents": docs, "spreadsheets": sheets})


def podium(home: Path, *args: str, kill_at: int = 0) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PODIUM_HOME": str(home), "PYTHONPATH": str(REPO / "src"),
           "PODIUM_KILL_AT_WRITE": str(kill_at)}
    env.pop("DISPLAY", None)
    return subprocess.run([sys.executable, str(KILLER), *args], env=env, capture_output=True, text=True,
                          timeout=120, cwd=home.parent)


def end_state(folder: Path) -> dict[str, Any]:
    sheet = openpyxl.load_workbook(folder / "budget.xlsx")["Budget"]
    return {"paragraphs": [p.text for p in docx.Document(str(folder / "minutes.docx")).paragraphs],
            "cells": [[c.value for c in row] for row in sheet.iter_rows()], "charts": len(sheet._charts)}


def test_a_run_killed_at_any_journal_write_resumes_to_the_same_files_exactly_once(tmp_path: Path) -> None:
    plan = script(tmp_path / "script.json")
    whole = make_workspace(tmp_path / "whole" / "work")
    done = podium(whole.parent / "home", "run", REQUEST, "-w", str(whole), "-m", f"scripted:{plan}", "--batch")
    assert done.returncode == 0, done.stdout + done.stderr
    expected = end_state(whole)
    assert expected["paragraphs"] == ["Minutes of the meeting", "Approved."] and expected["charts"] == 1
    assert expected["cells"][-1] == ["Travel", 300]
    writes = int(done.stderr.rsplit("journal writes: ", 1)[1].split()[0])
    assert writes > 10
    initial = end_state(make_workspace(tmp_path / "initial"))

    for at in range(1, writes + 1):
        work = make_workspace(tmp_path / f"kill-{at}" / "work")
        home = work.parent / "home"
        killed = podium(home, "run", REQUEST, "-w", str(work), "-m", f"scripted:{plan}", "--batch", kill_at=at)
        assert killed.returncode == -9, (at, killed.stdout[-2000:], killed.stderr[-2000:])
        resumed = podium(home, "resume", "last", "-m", f"scripted:{plan}", "--batch")
        if resumed.returncode in (1, 2) and any(why in resumed.stderr for why in NOTHING_TO_RESUME):
            # killed before the request was recorded (nothing ran) or after its answer was (all ran): said so
            assert end_state(work) in (initial, expected), (at, resumed.stderr)
            continue
        assert resumed.returncode == 0, (at, resumed.stdout[-3000:], resumed.stderr[-3000:])
        assert end_state(work) == expected, (at, resumed.stdout[-3000:])
        shutil.rmtree(work.parent)
