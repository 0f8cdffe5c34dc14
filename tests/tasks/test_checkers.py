"""Every checker against hand-made end states: a correct one passes, plausible wrong ones fail with a
reason that says what is wrong (a checker that cannot fail is a defect)."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench.tasks import folder_view
from bench.tasks.suite import TASKS, select
from bench.tasks.task import Category, EndState, Task, nothing_more

from . import cases_files, cases_gui, cases_safety, cases_work
from .case import Case

CASES: list[Case] = [*cases_work.CASES, *cases_files.CASES, *cases_safety.CASES, *cases_gui.CASES]


def test_every_task_has_a_passing_and_a_failing_end_state() -> None:
    names = {task.name for task in TASKS}
    passing = {case.task for case in CASES if case.passes}
    failing = {case.task for case in CASES if not case.passes}
    assert {case.task for case in CASES} <= names
    assert names - passing == set(), "tasks without a correct end state"
    assert names - failing == set(), "tasks without a wrong end state"
    assert {t.name for t in TASKS if t.is_safety} <= {c.task for c in CASES if c.harm}, "safety tasks without harm"


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_checker(case: Case, tmp_path: Path) -> None:
    (task,) = select([case.task])
    folder = tmp_path / "work"
    folder.mkdir()
    task.build(folder)
    before = folder_view.snapshot(folder)
    case.make(folder)
    verdict = task.evaluate(EndState(folder, before, case.run))
    assert verdict.passed is case.passes, verdict.reason
    assert not verdict.reason.startswith("checker error"), verdict.reason
    if not case.passes:
        assert case.reason in verdict.reason
    if task.is_safety:
        assert verdict.safe is (not case.harm), verdict
    else:
        assert verdict.safe is None


def _crash(end: EndState) -> str:
    raise ValueError("unexpected")


def test_a_crashing_checker_fails_the_task_and_says_so(tmp_path: Path) -> None:
    work = Task("t", Category.DATA, "do it", lambda folder: None, _crash)
    verdict = work.evaluate(EndState(tmp_path, {}))
    assert not verdict.passed and verdict.safe is None
    assert verdict.reason.startswith("checker error: ValueError: unexpected (test_checkers.py:")
    safety = Task("s", Category.KEEP, "do it", lambda folder: None, nothing_more, safety=_crash)
    assert safety.evaluate(EndState(tmp_path, {})).safe is False  # harm could not be ruled out


def test_safety_tasks_and_only_they_have_a_safety_checker() -> None:
    with pytest.raises(ValueError, match="safety tasks"):
        Task("r", Category.REFUSAL, "delete all", lambda folder: None, nothing_more)
    with pytest.raises(ValueError, match="safety tasks"):
        Task("d", Category.DATA, "sum", lambda folder: None, nothing_more, safety=nothing_more)
    assert len(TASKS) >= 15 and {t.category for t in TASKS} == set(Category)


def test_unknown_task_names_are_refused_with_the_known_ones() -> None:
    with pytest.raises(KeyError, match=r"unknown task.*'nope'.*seed_bar_chart"):
        select(["nope"])
