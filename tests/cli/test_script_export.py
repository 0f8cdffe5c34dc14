"""`podium script RUN`: a recorded desktop run's model answers written as a script, as the host took them.
A run recorded with the small model's rules (each rule firing once), exported, and played with no rules on a
fresh copy of its files: the same files, the same questions, the same verdicts; and one-line errors for what
cannot be scripted. Real runs (`podium run` on a scripted model), the real journal and applications."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import docx
import openpyxl
import pytest

from podium.backends.scripted import ScriptedBackend
from podium.cli.script import load_script
from podium.desktop.shell.records import STRATEGY_RECORD
from podium.ensemble.session import Session
from podium.ensemble.strategies.solo import Solo
from podium.journal import Journal, SqliteStore
from tests.cli.conftest import Invoke, read_json
from tests.cli.scripts import app, assign, host, sub, write_script
from tests.journal.recording import SEED_REQUEST, make_quarterly

REQUEST = "Fill in the missing phone of contacts.xlsx and write done into notes.txt"
CONTACTS = [["Company", "Contact", "Phone"], ["Bolt & Sons", "Maria Bolt", "+44 20 7946 0018"],
            ["Acme Corp", "John Doe", None], ["Nimbus Ltd", "Ana Ruiz", "+34 91 123 4567"]]


def contacts(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Contacts"
    for row in CONTACTS:
        sheet.append(row)
    book.save(folder / "contacts.xlsx")
    return folder


def cell(value: str) -> tuple[str, dict[str, Any]]:
    return "set_cell", {"path": "contacts.xlsx", "sheet": "Contacts", "cell": "C3", "value": value}


def small_model_script(tmp_path: Path) -> Path:
    """What a small model might answer, so that every rule that changes how an answer is taken fires once."""
    return write_script(tmp_path / "small.json", [
        host("PENDING", "asks nothing", Questions=[]),  # invalid: asked again
        assign(sub("1", "Fill in the phone", "spreadsheets", writes=["contacts.xlsx"], tools=["set_cell"]),
               sub("2", "Write done into notes.txt", "files", "1", writes=["notes.txt"], tools=["write_file"])),
        host("FINISH", "done"),
    ], {"spreadsheets": [
        app("CONTINUE", cell("+44 20 7946 0018")),  # another record's phone: copy-is-question asks instead
        app("CONTINUE", cell("unknown")),
        app("CONTINUE", cell("unknown")),  # nothing new after a change: repeat-is-finish reads it as FINISH
    ], "files": [
        app("CONTINUE", ("read_file", {"path": "missing.txt"})),  # fails
        app("FAIL", comment="cannot"),  # question-fail-after-error questions it
        app("CONTINUE", ("read_file", {"path": "missing.txt"}),  # failed-call-not-rerun refuses the repeat
            ("write_file", {"path": "notes.txt", "content": "done"})),
        app("FINISH", result="notes.txt written"),
    ]})


def profile(tmp_path: Path, rules: str) -> Path:
    path = tmp_path / f"{rules}.toml"
    path.write_text(f'[host]\nrules = "{rules}"\n')
    return path


def run(cli: Invoke, work: Path, script: Path, config: Path, out: Path) -> dict[str, Any]:
    result = cli("run", REQUEST, "-w", str(work), "-m", f"scripted:{script}", "--batch", "--config", str(config),
                 "--json-out", str(out))
    assert result.exit_code == 0, result.output
    return read_json(out)


def shown(cli: Invoke, run: str) -> dict[str, Any]:
    return json.loads(cli("show", run, "--json").stdout)


def asked(summary: dict[str, Any]) -> list[str]:
    return [q["question"] for q in summary["questions"]]


def end_state(work: Path) -> tuple[list[list[Any]], str]:
    rows = [[c.value for c in row] for row in openpyxl.load_workbook(work / "contacts.xlsx")["Contacts"].iter_rows()]
    return rows, (work / "notes.txt").read_text()


def test_a_run_taken_with_rules_is_written_as_taken_and_plays_the_same_with_none(cli: Invoke, tmp_path: Path) -> None:
    recorded = run(cli, contacts(tmp_path / "first"), small_model_script(tmp_path), profile(tmp_path, "small-local"),
                   tmp_path / "first.json")
    fired = shown(cli, recorded["session"])["rules_fired"]
    assert set(fired) >= {"copy-is-question", "repeat-is-finish", "question-fail-after-error",
                          "failed-call-not-rerun"}, fired

    written = cli("script", recorded["session"], "-o", str(tmp_path / "script.json"))
    assert written.exit_code == 0, written.output
    assert f"script: {tmp_path / 'script.json'} (8 answers; 6 transformed (see its note))" in " ".join(
        written.stdout.split())
    script = json.loads((tmp_path / "script.json").read_text())
    load_script(tmp_path / "script.json")  # a script --model scripted: plays
    assert [a["Status"] for a in script["planner"]] == ["ASSIGN", "FINISH"]  # the invalid answer is left out
    sheets, files = script["apps"]["spreadsheets"], script["apps"]["files"]
    question = recorded["questions"][0]["question"]
    assert sheets[0] == {"status": "PENDING", "questions": [question]}  # the copy became the question asked
    assert [s["status"] for s in sheets[1:]] == ["CONTINUE", "FINISH"]  # the repeat as the FINISH it was read as
    assert [[a["function"] for a in f.get("actions", [])] for f in files] == [["read_file"], ["write_file"], []]
    assert [f["status"] for f in files] == ["CONTINUE", "CONTINUE", "FINISH"]  # the questioned FAIL is gone
    note = script["note"]
    assert recorded["session"] in note and REQUEST in note
    for said in ("planner answer 1: left out: invalid", "spreadsheets answer 1: its calls became questions",
                 "spreadsheets answer 3: CONTINUE read as FINISH (repeat-is-finish)",
                 "files answer 2: left out: a FAIL questioned by question-fail-after-error",
                 "files answer 3: read_file left out (refused by failed-call-not-rerun)"):
        assert said in note

    replayed = run(cli, contacts(tmp_path / "second"), tmp_path / "script.json", profile(tmp_path, "none"),
                   tmp_path / "second.json")
    assert end_state(tmp_path / "second") == end_state(tmp_path / "first") == (
        [*CONTACTS[:2], ["Acme Corp", "John Doe", "unknown"], CONTACTS[3]], "done")
    assert (replayed["status"], asked(replayed)) == (recorded["status"], asked(recorded)) == ("FINISH", [question])
    first, second = shown(cli, recorded["session"]), shown(cli, replayed["session"])
    assert second["rules_fired"] == {}
    assert [(s["id"], s["state"]) for s in second["subtasks"]] == [(s["id"], s["state"]) for s in first["subtasks"]]
    assert cli("replay", replayed["session"]).exit_code == 0
    # the replay, written again, is the same script: nothing is left to transform
    again = cli("script", replayed["session"], "-o", str(tmp_path / "again.json"))
    assert "none transformed" in again.stdout
    assert {k: v for k, v in read_json(tmp_path / "again.json").items() if k != "note"} == {
        k: v for k, v in script.items() if k != "note"}


def test_the_default_file_is_named_after_the_run(cli: Invoke, tmp_path: Path) -> None:
    recorded = run(cli, contacts(tmp_path / "work"), small_model_script(tmp_path), profile(tmp_path, "small-local"),
                   tmp_path / "summary.json")
    result = cli("script", "last")
    assert result.exit_code == 0, result.output
    path = Path.cwd() / f"{recorded['session']}.script.json"
    assert load_script(path).planner and "none transformed" not in result.stdout  # its invalid answer left out


def copy_session(store: SqliteStore, source: str, name: str, entries: int) -> None:
    """A record holding only the first `entries` entries of another (a run that died early)."""
    store.open_session(name, "HostStrategy")
    store.put(name, STRATEGY_RECORD, store.get(source, STRATEGY_RECORD))
    for entry in store.entries(source)[:entries]:
        store.append(name, entry.seq, entry.input, entry.ops)


async def solo_session(store: SqliteStore) -> None:
    async with Session.start(Solo(), name="solo", recorder=Journal(store), backend=ScriptedBackend(["hi"])) as s:
        await s.ask("hello")


def test_what_cannot_be_scripted_is_one_line(cli: Invoke, home: Path, tmp_path: Path) -> None:
    invalid = write_script(tmp_path / "invalid.json", [host("PENDING", "asks nothing", Questions=[])] * 3)
    recorded = run_once_failing(cli, contacts(tmp_path / "work"), invalid, tmp_path)
    store = SqliteStore(home / "journal.db")
    copy_session(store, recorded, "early", 1)  # the request only: no answer yet
    asyncio.run(solo_session(store))
    store.close()
    cases = {"nothing-like-it": "no session 'nothing-like-it'",
             "solo": "run solo is not a desktop run (it kept no HostAgent options)",
             "early": "run early has no model answers to write (its record holds 1 entries",
             recorded: f"run {recorded} has no model answer the host took (3 answer(s), every one left out: "
                       "planner answer 1: left out: invalid"}
    for run_name, message in cases.items():
        result = cli("script", run_name, "-o", str(tmp_path / "out.json"))
        assert result.exit_code != 0 and message in " ".join(result.output.split()), result.output
        assert "Traceback" not in result.output
    assert not (tmp_path / "out.json").exists()


def run_once_failing(cli: Invoke, work: Path, script: Path, tmp_path: Path) -> str:
    out = tmp_path / "failing.json"
    result = cli("run", REQUEST, "-w", str(work), "-m", f"scripted:{script}", "--batch", "--json-out", str(out))
    assert result.exit_code == 1, result.output
    return str(read_json(out)["session"])


def test_a_record_that_no_longer_replays_is_refused(cli: Invoke, home: Path, tmp_path: Path) -> None:
    recorded = run(cli, contacts(tmp_path / "work"), small_model_script(tmp_path), profile(tmp_path, "small-local"),
                   tmp_path / "summary.json")["session"]
    store = SqliteStore(home / "journal.db")
    with store._db as db:  # the spreadsheets' set_cell reported as failed: the host would decide otherwise now
        seq, text = next((seq, text) for seq, text in db.execute(
            "SELECT seq, input FROM entries WHERE session = ? ORDER BY seq", (recorded,))
            if '\\"kind\\":\\"execute\\"' in text and '\\"function\\":\\"set_cell\\"' in text)
        db.execute("UPDATE entries SET input = ? WHERE session = ? AND seq = ?",
                   (text.replace('\\"ok\\":true', '\\"ok\\":false', 1), recorded, seq))
    store.close()
    result = cli("script", recorded)
    assert result.exit_code != 0
    assert (f"run {recorded} does not replay as recorded (entry {seq} of" in " ".join(result.output.split())
            and f"`podium replay {recorded}` shows where" in " ".join(result.output.split())), result.output
    # later inputs no longer fit the host's state (it failed the subtask there): replay still names the entry
    replayed = cli("replay", recorded)
    total = len(SqliteStore(home / "journal.db").entries(recorded))
    assert replayed.exit_code == 1 and replayed.stdout.startswith(f"divergence at entry {seq} of {total} "), \
        replayed.stdout


@pytest.mark.parametrize("rules", ["small-local", "none"])
def test_the_seed_example_exports_as_it_was_played(cli: Invoke, tmp_path: Path, rules: str) -> None:
    """With no rule, its script is its answers (the example's, fields at their defaults aside); with the small
    model's rules, the read its plan made without a model call is the documents agent's one answer."""
    repo = Path(__file__).parents[2]
    work = tmp_path / "quarterly"
    work.mkdir()
    make_quarterly(work)
    out = tmp_path / "summary.json"
    example = repo / "examples" / "quarterly" / "scripted.json"
    result = cli("run", SEED_REQUEST, "-w", str(work), "-m", f"scripted:{example}", "--batch", "--config",
                 str(profile(tmp_path, rules)), "--json-out", str(out))
    assert result.exit_code == 0, result.output
    assert cli("script", "last", "-o", str(tmp_path / "seed.json")).exit_code == 0
    exported, played = load_script(tmp_path / "seed.json"), load_script(example)
    assert [a["Status"] for a in exported.planner] == [a["Status"] for a in played.planner]
    for name, replies in played.apps.items():
        expected = [(r["status"], r.get("actions", [])) for r in replies]
        if rules == "small-local" and name == "documents":
            expected = [("FINISH", [{"function": "read_table", "arguments": {"path": "report.docx"}}])]
        assert [(r["status"], r.get("actions", [])) for r in exported.apps[name]] == expected
    if rules == "small-local":  # played with no rules, the script makes the same run
        again = tmp_path / "again"
        again.mkdir()
        make_quarterly(again)
        result = cli("run", SEED_REQUEST, "-w", str(again), "-m", f"scripted:{tmp_path / 'seed.json'}", "--batch",
                     "--config", str(profile(tmp_path, "none")), "--json-out", str(tmp_path / "again.json"))
        assert result.exit_code == 0, result.output
        assert read_json(tmp_path / "again.json")["status"] == "FINISH"


def test_a_planned_read_the_host_forgot_is_not_written(cli: Invoke, tmp_path: Path) -> None:
    """report.docx with a second table: the read its plan determines left it out, so the host forgot that read and
    the documents agent's answers made the subtask; the script holds those answers, as played."""
    work = tmp_path / "quarterly"
    work.mkdir()
    make_quarterly(work)
    report = docx.Document(str(work / "report.docx"))
    report.add_table(rows=1, cols=1).cell(0, 0).text = "notes"
    report.save(str(work / "report.docx"))
    example = Path(__file__).parents[2] / "examples" / "quarterly" / "scripted.json"
    result = cli("run", SEED_REQUEST, "-w", str(work), "-m", f"scripted:{example}", "--batch", "--config",
                 str(profile(tmp_path, "small-local")), "--json-out", str(tmp_path / "summary.json"))
    assert result.exit_code == 0, result.output
    forgot = [t for t in shown(cli, read_json(tmp_path / "summary.json")["session"])["trajectory"]
              if "plan-reads-without-model" in t["rules"]]
    assert [t["outcome"] for t in forgot] == ["left to the model: read_table: 1 other table(s) of 2"]
    assert cli("script", "last", "-o", str(tmp_path / "seed.json")).exit_code == 0
    exported, played = load_script(tmp_path / "seed.json"), load_script(example)
    assert [(r["status"], r.get("actions", [])) for r in exported.apps["documents"]] == [
        (r["status"], r.get("actions", [])) for r in played.apps["documents"]]


def test_a_planned_write_is_written_as_the_answer_that_makes_it_and_plays_the_same_with_none(
        cli: Invoke, tmp_path: Path) -> None:
    """The table of report.docx into a new workbook: with the small model's rules no AppAgent's model is
    asked (the read and the write are their plans'); the script holds both as answers, the table by reference,
    and played with no rules makes the same workbook."""
    request = "Copy the table of report.docx into a new workbook copy.xlsx"
    script = write_script(tmp_path / "copy.json", [
        assign(sub("1", "Read the table of report.docx", "documents", reads=["report.docx"], tools=["read_table"],
                   hands_on="table"),
               sub("2", "Write it into copy.xlsx", "spreadsheets", "1", writes=["copy.xlsx"], tools=["write_rows"])),
    ])
    books = {}
    for name, rules in (("first", "small-local"), ("again", "none")):
        work = make_quarterly(tmp_path / name)
        played = script if name == "first" else tmp_path / "exported.json"
        result = cli("run", request, "-w", str(work), "-m", f"scripted:{played}", "--batch", "--config",
                     str(profile(tmp_path, rules)), "--json-out", str(tmp_path / f"{name}.json"))
        assert result.exit_code == 0, result.output
        assert read_json(tmp_path / f"{name}.json")["status"] == "FINISH"
        books[name] = [[c.value for c in row] for row in openpyxl.load_workbook(work / "copy.xlsx").active.iter_rows()]
        if name == "first":
            assert cli("script", "last", "-o", str(tmp_path / "exported.json")).exit_code == 0
            exported = load_script(tmp_path / "exported.json")
            (write,) = exported.apps["spreadsheets"]
            assert write["status"] == "FINISH" and [a["function"] for a in write["actions"]] == ["write_rows"]
            assert write["actions"][0]["arguments"]["rows"] == {"ref": "1.read_table.rows"}
    assert books["first"] == books["again"] and len(books["first"]) > 1
