"""`podium run`: exit codes, usage errors, batch mode, --yes, and the person answering at the prompt."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.cli.conftest import Invoke, read_json
from tests.cli.scripts import app, assign, host, sub, write_script

DELETE = "Delete old.txt"


def deleting(tmp_path: Path) -> Path:
    """The planner assigns one deletion (sensitive: held for approval); the files AppAgent then finishes."""
    return write_script(tmp_path / "delete.json", [
        assign(sub("1", DELETE, "files", writes=["old.txt"], tools=["delete"])),
        host("FINISH", "done with the deletion"),
    ], {"files": [app("CONTINUE", ("delete", {"path": "old.txt"})), app("FINISH", result="deleted old.txt"),
                  app("FINISH", result="deleted old.txt")]})  # a FINISH with old.txt unchanged is questioned once


def asking(tmp_path: Path) -> Path:
    """The planner needs to know something only the person knows, then finishes."""
    return write_script(tmp_path / "ask.json", [
        host("PENDING", "I need the colour", Questions=["Which colour should the chart be?"]),
        host("FINISH", "used the colour you gave"),
    ])


@pytest.fixture
def old_file(work: Path) -> Path:
    path = work / "old.txt"
    path.write_text("keep me unless approved")
    return path


def test_a_failed_request_exits_1_with_its_reason(cli: Invoke, work: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "fail.json", [host("FAIL", "there is no report.docx here")])
    result = cli("run", "Chart report.docx", "-w", str(work), "-m", f"scripted:{script}", "--batch")
    assert result.exit_code == 1
    assert "FAIL" in result.stdout and "there is no report.docx here" in result.stdout
    assert "Traceback" not in result.output


def test_a_model_that_fails_ends_the_run_with_exit_1(cli: Invoke, work: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "broken.json", [{"$fail": "the server said 500"}] * 6)
    out = tmp_path / "summary.json"
    result = cli("run", "anything", "-w", str(work), "-m", f"scripted:{script}", "--batch", "--json-out", str(out))
    assert result.exit_code == 1, result.output
    summary = read_json(out)
    assert summary["status"] in ("FAIL", "ERROR") and not summary["ok"] and summary["exit_code"] == 1
    assert "the server said 500" in (summary["reason"] or "")
    assert summary["model_calls"] >= 1


@pytest.mark.parametrize(("args", "message"), [
    (["run", "   "], "the request is empty"),
    (["run", "do it", "--workdir", "/no/such/folder"], "/no/such/folder is not a folder"),
    (["run", "do it", "--model", "gpt4"], "invalid model spec 'gpt4'"),
    (["run", "do it", "--model", "scripted"], "needs a script file"),
    (["run", "do it", "--model", "scripted:/no/such/script.json"], "no script file at /no/such/script.json"),
    (["run", "do it", "--config", "/no/such/podium.toml"], "/no/such/podium.toml: no such file"),
    (["run"], "Missing argument 'REQUEST'"),
    (["run", "do it", "--frobnicate"], "No such option"),
])
def test_usage_errors_exit_2_with_a_clear_message(cli: Invoke, args: list[str], message: str) -> None:
    result = cli(*args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.output


def test_a_usage_error_still_writes_the_json_summary(cli: Invoke, tmp_path: Path) -> None:
    out = tmp_path / "out" / "summary.json"
    result = cli("run", "do it", "--model", "nope:x", "--json-out", str(out))
    assert result.exit_code == 2
    summary = read_json(out)
    assert summary["exit_code"] == 2 and summary["status"] == "ERROR" and "nope" in summary["reason"]


def test_batch_answers_questions_with_the_configured_default(cli: Invoke, work: Path, tmp_path: Path) -> None:
    (tmp_path / "project" / "podium.toml").write_text('[host]\ndefault_answer = "use your judgement"\n')
    out = tmp_path / "summary.json"
    result = cli("run", "make a chart", "-w", str(work), "-m", f"scripted:{asking(tmp_path)}", "--batch",
                 "--json-out", str(out))
    assert result.exit_code == 0, result.output
    assert read_json(out)["questions"] == [{
        "question": "Which colour should the chart be?", "answer": "use your judgement", "asked_by": "host",
        "subtask": None, "answered_by": "default"}]
    assert "use your judgement" in result.stdout  # the person sees what was assumed


def test_batch_refuses_sensitive_actions(cli: Invoke, work: Path, old_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "summary.json"
    result = cli("run", DELETE, "-w", str(work), "-m", f"scripted:{deleting(tmp_path)}", "--batch",
                 "--json-out", str(out))
    assert old_file.read_text() == "keep me unless approved"
    summary = read_json(out)
    [approval] = summary["approvals"]
    assert approval["confirmation"].startswith("refused")
    # the AppAgent, told, went on and claimed it had deleted the file: its FINISH is checked against old.txt,
    # which is unchanged, and the run says it was not done, and why
    assert summary["status"] == "FAIL" and result.exit_code == 1
    assert summary["reason_kind"] == "refused" and "not done: refused (batch mode)" in summary["reason"]
    assert "refused" in result.stdout


def test_batch_with_yes_approves_sensitive_actions(cli: Invoke, work: Path, old_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "summary.json"
    result = cli("run", DELETE, "-w", str(work), "-m", f"scripted:{deleting(tmp_path)}", "--batch", "--yes",
                 "--json-out", str(out))
    assert result.exit_code == 0, result.output
    assert not old_file.exists()
    [approval] = read_json(out)["approvals"]
    assert approval["confirmation"].startswith("approved")


def test_a_question_is_answered_at_the_prompt(cli: Invoke, work: Path, tmp_path: Path) -> None:
    out = tmp_path / "summary.json"
    result = cli("run", "make a chart", "-w", str(work), "-m", f"scripted:{asking(tmp_path)}",
                 "--json-out", str(out), input="dark blue\n")
    assert result.exit_code == 0, result.output
    assert "Which colour should the chart be?" in result.stdout and "answer>" in result.stdout
    [qa] = read_json(out)["questions"]
    assert (qa["answer"], qa["answered_by"]) == ("dark blue", "person")


@pytest.mark.parametrize(("typed", "deleted"), [("y\n", True), ("yes\n", True), ("n\n", False), ("\n", False),
                                               ("maybe\nY\n", True), ("", False)])
def test_a_sensitive_action_waits_for_the_persons_approval(cli: Invoke, work: Path, old_file: Path,
                                                            tmp_path: Path, typed: str, deleted: bool) -> None:
    result = cli("run", DELETE, "-w", str(work), "-m", f"scripted:{deleting(tmp_path)}", input=typed)
    assert "delete" in result.stdout and '{"path": "old.txt"}' in result.stdout  # what would happen, shown
    assert old_file.exists() is not deleted
    if typed == "":
        assert "refused (no input)" in result.stdout


def test_yes_approves_without_asking(cli: Invoke, work: Path, old_file: Path, tmp_path: Path) -> None:
    result = cli("run", DELETE, "-w", str(work), "-m", f"scripted:{deleting(tmp_path)}", "--yes")
    assert result.exit_code == 0, result.output
    assert "approved (--yes)" in result.stdout and "approve? [y/N]" not in result.stdout
    assert not old_file.exists()


def test_secrets_from_the_environment_are_never_printed_nor_recorded(cli: Invoke, work: Path, tmp_path: Path,
                                                                      home: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-podium-test-7f3a9c"
    monkeypatch.setenv("PODIUM_TEST_SECRET", secret)
    server = Path(__file__).parent / "mcp_weather_server.py"
    (tmp_path / "project" / "podium.toml").write_text(
        '[apps]\nenabled = ["files"]\n\n[apps.mcp.weather]\n'
        f'command = "{sys.executable}"\nargs = ["{server}"]\nenv = {{ TOKEN = "$PODIUM_TEST_SECRET" }}\n'
        'read_only_tools = ["forecast"]\n')
    script = write_script(tmp_path / "s.json", [
        assign(sub("1", "Get the forecast", "weather", tools=["forecast"])), host("FINISH", "sunny")],
        {"weather": [app("CONTINUE", ("forecast", {"city": "Oslo"})), app("FINISH", result="sunny in Oslo")]})
    out = tmp_path / "summary.json"
    result = cli("run", "Weather in Oslo?", "-w", str(work), "-m", f"scripted:{script}", "--batch",
                 "--json-out", str(out))
    assert result.exit_code == 0, result.output
    shown = cli("show", "last", "--json").stdout
    assert "sunny in Oslo" in shown  # the MCP server really answered
    for text in (result.output, shown, out.read_text()):
        assert secret not in text
    for stored in home.glob("journal.db*"):
        assert secret.encode() not in stored.read_bytes()


def test_a_missing_api_key_is_a_usage_error_that_names_the_variable(cli: Invoke, work: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = cli("run", "anything", "-w", str(work), "-m", "openai:gpt-4.1-mini", "--batch")
    assert result.exit_code == 2
    assert "set OPENAI_API_KEY in the environment" in result.stderr and "api_key_env" in result.stderr
    assert not (work.parent / "home" / "journal.db").exists()  # nothing ran, nothing recorded
