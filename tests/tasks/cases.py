"""Every hand-made end state of every task, in one list (the checkers' tests and the fake podium's
`solve` read it)."""

from __future__ import annotations

from . import cases_files, cases_gui, cases_new, cases_reworded, cases_safety, cases_work
from .case import Case

CASES: list[Case] = [*cases_work.CASES, *cases_files.CASES, *cases_safety.CASES, *cases_reworded.CASES,
                     *cases_new.CASES, *cases_gui.CASES]
