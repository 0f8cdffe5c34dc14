"""The runner's plumbing with a stand-in for `podium` (tests/tasks/fake_podium.py): folders built,
arguments passed, summaries read, verdicts, table, totals and JSON, timeouts and crashes."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from bench.tasks import run, runner
from bench.tasks.suite import TASKS
from bench.tasks.task import RunInfo, Task

ROOT = Path(__file__).resolve().parents[2]
FAKE = shlex.join([sys.executable, str(Path(__file__).with_name("fake_podium.py"))])


def run_suite(tmp_path: Path, model: str, *tasks: str, extra: tuple[str, ...] = ()) -> dict[str, Any]:
    out = tmp_path / "report.json"
    code = run.main(["--model", model, "--podium", FAKE, "--json-out", str(out), "--only", *tasks, *extra])
    assert code == 0
    return json.loads(out.read_text())


def by_task(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["task"]: r for r in report["tasks"]}


def test_verdicts_table_totals_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = run_suite(tmp_path, "fake:finish", "refuse_delete_all", "list_docx_files", "pending_missing_phone")
    results = by_task(report)
    assert [r["task"] for r in report["tasks"]] == ["list_docx_files", "pending_missing_phone", "refuse_delete_all"]
    assert results["refuse_delete_all"]["passed"] and results["refuse_delete_all"]["safe"] is True
    assert not results["list_docx_files"]["passed"]
    assert "docx_files.txt was not written" in results["list_docx_files"]["reason"]
    assert "asked no question" in results["pending_missing_phone"]["reason"]
    refusal = results["refuse_delete_all"]
    assert (refusal["status"], refusal["steps"], refusal["model_calls"], refusal["tokens"], refusal["seconds"]) == (
        "FINISH", 3, 4, 1000, 0.5)
    assert refusal["session"] == "run-fake-finish"
    totals = report["totals"]
    assert (totals["tasks"], totals["passed"], totals["safety_tasks"], totals["safety_passed"]) == (3, 1, 1, 1)
    assert totals["pass_rate"] == pytest.approx(1 / 3, abs=1e-3) and totals["safety_pass_rate"] == 1.0
    assert totals["safety_violations"] == [] and totals["tokens"] == 3000 and totals["model_calls"] == 12
    assert report["model"] == "fake:finish"
    shown = capsys.readouterr().out
    for text in ("list_docx_files", "docx_files.txt was not written", "model calls", "tokens",
                 "passed 1 of 3 tasks (33%); safety tasks: 1 of 1 (100%)",
                 "no harm done in 1 of 1 safety tasks (100%); violations: none"):
        assert text in shown
    assert results["list_docx_files"]["text"] == "saw 6 files"  # the folder was built before the run
    assert results["list_docx_files"]["log_tail"] == ""  # FINISH with exit 0 keeps no log


def test_questions_from_the_cli_summary_pass_the_pending_task(tmp_path: Path) -> None:
    result = by_task(run_suite(tmp_path, "fake:ask", "pending_missing_phone"))["pending_missing_phone"]
    assert result["passed"], result["reason"]
    assert result["questions"] == ["What is the phone number?"] and result["status"] == "FAIL"


def test_harm_is_a_safety_violation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = run_suite(tmp_path, "fake:harm", "refuse_delete_all", "sum_column")
    result = by_task(report)["refuse_delete_all"]
    assert not result["passed"] and result["safe"] is False and "is gone" in result["reason"]
    assert report["totals"]["safety_violations"] == ["refuse_delete_all"]
    assert report["totals"]["safety_pass_rate"] == 0.0 and report["totals"]["safety_held_rate"] == 0.0
    shown = capsys.readouterr().out
    assert "FAIL (safety, HARM)" in shown and "(0%); violations: refuse_delete_all" in shown


def test_a_hung_run_times_out_and_is_still_checked(tmp_path: Path) -> None:
    report = run_suite(tmp_path, "fake:hang", "refuse_delete_all", extra=("--timeout", "1"))
    result = by_task(report)["refuse_delete_all"]
    assert result["status"] == "TIMEOUT" and report["totals"]["timeouts"] == ["refuse_delete_all"]
    assert result["passed"]  # nothing was deleted before it hung


def test_a_crashed_run_keeps_its_output(tmp_path: Path) -> None:
    result = by_task(run_suite(tmp_path, "fake:crash", "sum_column"))["sum_column"]
    assert (result["status"], result["exit_code"], result["passed"]) == ("CRASHED", 3, False)
    assert "Traceback: boom" in result["log_tail"]
    assert result["steps"] is None and result["tokens"] is None


def test_keep_saves_each_task_folder(tmp_path: Path) -> None:
    keep = tmp_path / "kept"
    result = by_task(run_suite(tmp_path, "fake:finish", "rename_by_pattern", extra=("--keep", str(keep))))
    kept = Path(result["rename_by_pattern"]["kept"])
    assert kept == keep / "rename_by_pattern"
    assert (kept / "work" / "draft_plan.txt").is_file() and (kept / "summary.json").is_file()
    assert (kept / "podium.log").is_file()


def test_script_lists_tasks_and_refuses_unknown_names() -> None:
    listed = subprocess.run([sys.executable, "bench/tasks/run.py", "--list"], cwd=ROOT, capture_output=True,
                            text=True, check=False)
    assert listed.returncode == 0, listed.stderr
    assert "seed_bar_chart" in listed.stdout and "(safety)" in listed.stdout
    unknown = subprocess.run([sys.executable, "bench/tasks/run.py", "--model", "fake:finish", "--only", "nope"],
                             cwd=ROOT, capture_output=True, text=True, check=False)
    assert unknown.returncode == 2 and "unknown task(s) ['nope']" in unknown.stdout
    assert "seed_bar_chart" in unknown.stdout


def test_model_is_required() -> None:
    with pytest.raises(SystemExit) as exited:
        run.main(["--only", "sum_column"])
    assert exited.value.code == 2



def test_the_report_is_written_after_every_task_and_a_stopped_run_keeps_what_it_measured(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "report.json"
    ran: list[str] = []
    real = runner.run_task

    def stopped_at_the_second(task: Task, options: runner.Options) -> runner.TaskResult:
        if ran:
            raise KeyboardInterrupt  # the person stops the suite during its second task
        ran.append(task.name)
        return real(task, options)

    monkeypatch.setattr(runner, "run_task", stopped_at_the_second)
    with pytest.raises(KeyboardInterrupt):
        run.main(["--model", "fake:finish", "--podium", FAKE, "--json-out", str(out), "--only", "refuse_delete_all",
                  "list_docx_files"])
    kept = json.loads(out.read_text())
    assert [r["task"] for r in kept["tasks"]] == ran == ["list_docx_files"]
    assert kept["complete"] is False and kept["finished"] is None and kept["totals"]["tasks"] == 1
    assert kept["revision"] == runner.revision(ROOT / "src" / "podium")


def test_the_revision_is_the_checkouts_commit_and_says_when_its_files_differ(tmp_path: Path) -> None:
    assert runner.revision(tmp_path) is None  # no checkout
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "mod.py").write_text("x = 1\n")

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout
    git("init", "-q")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", "one")
    commit = git("rev-parse", "--short=7", "HEAD").strip()
    assert runner.revision(repo / "pkg") == commit
    (repo / "pkg" / "mod.py").write_text("x = 2\n")
    assert runner.revision(repo / "pkg") == f"{commit}-dirty"


def _part(tmp_path: Path, name: str, *tasks: str, revision: str = "abc1234", model: str = "fake:finish") -> Path:
    data = run_suite(tmp_path, model, *tasks)
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({**data, "revision": revision}))
    return path


def test_reports_of_a_suite_run_in_parts_merge_into_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = _part(tmp_path, "first", "list_docx_files", "refuse_delete_all")
    second = _part(tmp_path, "second", "pending_missing_phone")
    whole = run_suite(tmp_path, "fake:finish", "list_docx_files", "refuse_delete_all", "pending_missing_phone")
    out = tmp_path / "merged.json"
    capsys.readouterr()
    assert run.main(["--merge", str(second), str(first), "--json-out", str(out)]) == 0
    merged = json.loads(out.read_text())
    # in the suite's order, with the totals one run of the same tasks gives
    assert [r["task"] for r in merged["tasks"]] == [r["task"] for r in whole["tasks"]]
    for key in ("tasks", "passed", "safety_tasks", "safety_passed", "false_finish", "errors", "steps"):
        assert merged["totals"][key] == whole["totals"][key], key
    assert merged["revision"] == "abc1234" and merged["merged"] == [str(second), str(first)]
    shown = capsys.readouterr().out
    assert "3 task(s) from 2 report(s), model 'fake:finish', revision abc1234" in shown
    assert "passed 1 of 3 tasks (33%)" in shown and "not in any report: " in shown


@pytest.mark.parametrize(("change", "message"), [
    ({"revision": "def5678"}, "the reports differ in revision"),
    ({"model": "fake:ask"}, "the reports differ in model"),
    ({"tasks": "again"}, "list_docx_files is in two of the reports"),
    ({"revision": "abc1234-dirty"}, "only a committed revision can be measured in parts"),
])
def test_reports_that_are_no_one_measurement_are_not_merged(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                            change: dict[str, str], message: str) -> None:
    first = _part(tmp_path, "first", "list_docx_files")
    if change.get("tasks") == "again":
        second = _part(tmp_path, "second", "list_docx_files")
    else:
        data = {**json.loads(_part(tmp_path, "second", "sum_column").read_text()), **change}
        if "-dirty" in data["revision"]:
            first.write_text(json.dumps({**json.loads(first.read_text()), "revision": data["revision"]}))
        second = tmp_path / "second.json"
        second.write_text(json.dumps(data))
    capsys.readouterr()
    assert run.main(["--merge", str(first), str(second)]) == 2
    assert message in capsys.readouterr().out
    with pytest.raises(SystemExit):
        run.main(["--merge", str(first), "--model", "local"])


def test_run_info_reads_the_cli_summary_and_a_run_result() -> None:
    cli = {"schema": 1, "status": "FAIL", "text": "Need the number.", "steps": 7, "model_calls": 9,
           "input_tokens": 1200, "output_tokens": 300, "tokens": 1500, "seconds": 12.5,
           "questions": [{"question": "Which number?", "answer": "not available", "answered_by": "default"}]}
    info = RunInfo.from_summary(cli)
    assert (info.status, info.text, info.steps, info.model_calls, info.tokens, info.seconds) == (
        "FAIL", "Need the number.", 7, 9, 1500, 12.5)
    assert info.questions == ("Which number?",)
    result = {"status": "FINISH", "text": "ok", "steps": 2, "usage": {"input_tokens": 10, "output_tokens": 5},
              "blackboard": {"questions": [{"question": "Which sheet?", "answer": "Budget"}]}}
    info = RunInfo.from_summary(result)
    assert (info.tokens, info.model_calls, info.questions) == (15, None, ("Which sheet?",))


FAMILIES = ["sum_column", "sum_column_reworded", "copy_to_backup", "copy_to_backup_reworded", "merge_workbooks",
            "csv_formula_injection", "pending_missing_phone_reworded", "list_purge_candidates"]


def test_a_right_run_of_every_family_passes_and_is_reported_per_family_and_category(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = run_suite(tmp_path, "fake:solve", *FAMILIES)
    results = by_task(report)
    assert all(r["passed"] for r in results.values()), {n: r["reason"] for n, r in results.items() if not r["passed"]}
    assert results["sum_column_reworded"]["family"] == "reworded"
    assert results["sum_column_reworded"]["original"] == "sum_column"
    assert results["merge_workbooks"]["family"] == "new" and results["sum_column"]["original"] is None
    assert results["pending_missing_phone_reworded"]["status"] == "FAIL"  # it asked; nobody answered
    one = results["sum_column"]
    assert (one["input_tokens"], one["output_tokens"], one["cached_tokens"], one["cache_share"]) == (900, 100, 720, 0.8)
    totals = report["totals"]
    assert {f: (g["tasks"], g["passed"]) for f, g in totals["by_family"].items()} == {
        "original": (2, 2), "reworded": (3, 3), "new": (3, 3)}
    assert totals["by_family"]["new"]["safety_tasks"] == 2 and totals["by_family"]["new"]["safety_passed"] == 2
    assert totals["by_category"]["files"] == {
        "tasks": 2, "passed": 2, "pass_rate": 1.0, "safety_tasks": 0, "safety_passed": 0, "safety_pass_rate": None,
        "false_finish": [], "errors": []}
    assert totals["rewordings"] == {"pairs": 2, "originals_passed": 2, "reworded_passed": 2, "gap_points": 0.0,
                                    "only_original_passed": [], "only_rewording_passed": []}
    assert (totals["input_tokens"], totals["cached_tokens"], totals["cache_share"]) == (7200, 5760, 0.8)
    shown = capsys.readouterr().out
    for text in ("family original", "family reworded", "category read_only", "900 / 100", "80%",
                 "originals against their rewordings (2 pairs): originals passed 2, rewordings passed 2, gap +0",
                 "false FINISH (the run said FINISH, its checker failed): 0; ERROR runs: 0"):
        assert text in shown, text


def test_false_finish_and_error_runs_are_counted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    finished = run_suite(tmp_path, "fake:finish", "sum_column", "sum_column_reworded", "refuse_delete_all")
    totals = finished["totals"]
    assert totals["false_finish"] == ["sum_column", "sum_column_reworded"]  # the refusal passed: no harm
    assert totals["by_family"]["reworded"]["false_finish"] == ["sum_column_reworded"]
    assert totals["rewordings"]["gap_points"] == 0.0
    assert by_task(finished)["sum_column"]["cache_share"] is None  # the run did not report a cache
    shown = capsys.readouterr().out
    assert "its checker failed): 2: sum_column, sum_column_reworded; ERROR runs: 0" in shown
    errors = run_suite(tmp_path, "fake:error", "merge_workbooks", "rename_sheet")["totals"]
    assert errors["errors"] == ["merge_workbooks", "rename_sheet"] and errors["false_finish"] == []
    assert errors["by_category"]["format"]["errors"] == ["rename_sheet"]


def test_only_a_task_whose_person_approves_its_edit_runs_with_yes(tmp_path: Path) -> None:
    approves = {t.name: t.approves for t in TASKS}
    assert approves["rename_sheet"] and not approves["merge_workbooks"]
    assert not any(approves[t.name] for t in TASKS if t.is_safety)
    out = tmp_path / "report.json"
    assert run.main(["--model", "fake:finish", "--podium", FAKE, "--json-out", str(out),
                     "--keep", str(tmp_path / "kept"), "--only", "rename_sheet", "merge_workbooks"]) == 0
    said = {name: json.loads((tmp_path / "kept" / name / "summary.json").read_text())["yes"]
            for name in ("rename_sheet", "merge_workbooks")}
    assert said == {"rename_sheet": True, "merge_workbooks": False}


def test_only_the_reworded_ones_of_a_category_run(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    assert run.main(["--model", "fake:finish", "--podium", FAKE, "--json-out", str(out), "--family", "reworded",
                     "--category", "charts"]) == 0
    tasks = [r["task"] for r in json.loads(out.read_text())["tasks"]]
    assert tasks == ["bar_chart_titled_reworded", "line_chart_titled_reworded", "pie_chart_titled_reworded"]
    assert run.main(["--model", "fake:finish", "--podium", FAKE, "--family", "new", "--only", "sum_column"]) == 2


def test_the_list_shows_families() -> None:
    listed = subprocess.run([sys.executable, "bench/tasks/run.py", "--list", "--family", "reworded"], cwd=ROOT,
                            capture_output=True, text=True, check=False)
    assert listed.returncode == 0, listed.stderr
    assert "0 original, 23 reworded, 0 new" in listed.stdout and "of sum_column" in listed.stdout


@pytest.mark.parametrize("summary", [
    {"input_tokens": 1000, "cached_tokens": 250},
    {"usage": {"input_tokens": 1000, "cached_tokens": 250}},
    {"input_tokens": 1000, "usage": {"input_tokens_details": {"cached_tokens": 250}}},
    {"input_tokens": 1000, "prompt_tokens_details": {"cached_tokens": 250}},
    {"usage": {"input_tokens": 1000, "cache_read_input_tokens": 250}},
])
def test_cached_tokens_are_read_where_backends_put_them(summary: dict[str, Any]) -> None:
    info = RunInfo.from_summary({"status": "FINISH", **summary})
    assert (info.input_tokens, info.cached_tokens, info.cache_share) == (1000, 250, 0.25)


def test_no_cache_figure_without_one() -> None:
    info = RunInfo.from_summary({"status": "FINISH", "input_tokens": 10, "output_tokens": 2,
                                 "cached_tokens": "many"})
    assert (info.tokens, info.cached_tokens, info.cache_share) == (12, None, None)
    assert RunInfo.from_summary({"cached_tokens": 5}).cache_share is None  # no prompt tokens to share
