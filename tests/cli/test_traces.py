"""[telemetry] in podium.toml: `podium run` on the seed's example (real documents and spreadsheets, the
scripted model) as an OpenTelemetry trace, to a JSON-lines file (in a real `podium` process) and to an
OTLP/HTTP collector on loopback."""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from podium.cli.config import parse_config
from podium.errors import ConfigError
from tests.cli.conftest import Invoke, read_json
from tests.cli.processes import kill_during_first_app_step
from tests.cli.scripts import app, assign, host, sub, write_script
from tests.cli.test_quarterly import EXAMPLE, REQUEST, make_files

CONFIG = '[apps]\nenabled = ["documents", "spreadsheets"]\n\n[telemetry]\notel = true\n'
# what the example's files and the run's answers hold: never in a span without content = true
TEXTS = ("Quarterly report", "Revenue", "1350", "Costs grew more slowly", REQUEST)


def strings(value: Any) -> Iterator[str]:
    """Every string in a span's JSON, keys and values: content would travel as text, while a
    duration or a token count may hold the same digits as a figure of the files."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def tree(spans: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Children by parent span id (the SDK's JSON of a span)."""
    children: dict[str, list[dict[str, Any]]] = {}
    for span in spans:
        children.setdefault(span.get("parent_id") or "", []).append(span)
    return children


def check_run_trace(spans: list[dict[str, Any]], session: str) -> None:
    """The trace of the seed's example: one request, its two subtasks with their steps and phases,
    a chat span in every LLM_INTERACTION, the spreadsheet tools with the path they changed."""
    assert len({s["context"]["trace_id"] for s in spans}) == 1
    children = tree(spans)
    (request,) = children[""]
    assert request["name"] == "request" and request["attributes"]["podium.status"] == "FINISH"
    assert request["status"]["status_code"] == "OK"
    assert request["resource"]["attributes"]["service.name"] == "podium"
    assert request["resource"]["attributes"]["podium.run"] == session
    below = children[request["context"]["span_id"]]
    subtasks = sorted((s for s in below if s["name"] == "subtask"), key=lambda s: s["attributes"]["podium.subtask.id"])
    assert [(s["attributes"]["podium.application"], s["attributes"]["podium.subtask.state"]) for s in subtasks] == [
        ("documents", "FINISH"), ("spreadsheets", "FINISH")]
    assert len([s for s in below if s["name"] == "step"]) == 2  # the HostAgent's: plan, verify
    for subtask in subtasks:
        steps = children[subtask["context"]["span_id"]]
        assert steps and {s["name"] for s in steps} == {"step"}
        for step in steps:
            assert {"DATA_COLLECTION", "LLM_INTERACTION"} <= {p["name"] for p in children[step["context"]["span_id"]]}
    chats = [s for s in spans if s["name"].startswith("chat ")]
    assert len(chats) == 6 and all(s["kind"] == "SpanKind.CLIENT" for s in chats)
    assert all(s["attributes"]["gen_ai.usage.input_tokens"] > 0 for s in chats)
    tools = {s["name"]: s for s in spans if s["name"].startswith("execute_tool ")}
    assert "execute_tool read_table" in tools
    changing = [s for s in tools.values() if s["attributes"].get("podium.tool.paths")]
    assert changing and {p for s in changing for p in s["attributes"]["podium.tool.paths"]} == {"budget.xlsx"}
    assert all(s["attributes"]["podium.tool.ok"] for s in tools.values())
    for span in spans:
        carried = list(strings([span["attributes"], span["events"], span["status"]]))
        assert not [t for t in TEXTS if any(t in text for text in carried)], span["name"]


def test_a_podium_process_writes_the_run_as_a_trace_beside_the_journal(tmp_path: Path) -> None:
    work = tmp_path / "work"
    make_files(work)
    config = tmp_path / "podium.toml"
    config.write_text(CONFIG, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    env.update(PODIUM_HOME=str(tmp_path / "home"), COLUMNS="200", PYTHONPATH=str(Path(__file__).parents[2] / "src"))
    env.pop("DISPLAY", None)
    summary = tmp_path / "summary.json"
    done = subprocess.run([sys.executable, "-m", "podium.cli", "run", REQUEST, "--workdir", str(work), "--config",
                           str(config), "--model", f"scripted:{EXAMPLE / 'scripted.json'}", "--batch",
                           "--json-out", str(summary)], capture_output=True, text=True, env=env, timeout=300,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    session = read_json(summary)["session"]
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("trace: ")]
    files = list((tmp_path / "home").rglob(f"traces/{session}.jsonl"))
    assert len(files) == 1 and line == f"trace: {files[0]} (no prompt, answer or file text)"
    spans = [json.loads(text) for text in files[0].read_text(encoding="utf-8").splitlines()]
    check_run_trace(spans, session)


@pytest.fixture
def collector() -> Iterator[tuple[str, list[tuple[str, bytes]]]]:
    """An OTLP/HTTP trace collector on loopback: keeps the path and body (protobuf) of every export."""
    received: list[tuple[str, bytes]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            received.append((self.path, self.rfile.read(int(self.headers["Content-Length"]))))
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            return None

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1/traces", received
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def test_the_run_goes_to_an_otlp_collector_with_content_on_request(cli: Invoke, work: Path, tmp_path: Path,
                                                                   collector: tuple[str, list[tuple[str, bytes]]],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    for name in [k for k in os.environ if k.startswith("OTEL_")]:
        monkeypatch.delenv(name)
    endpoint, received = collector
    make_files(work)
    config = tmp_path / "podium.toml"
    config.write_text(CONFIG + f'content = true\nendpoint = "{endpoint}"\n', encoding="utf-8")
    summary = tmp_path / "summary.json"
    result = cli("run", REQUEST, "--workdir", str(work), "--config", str(config), "--model",
                 f"scripted:{EXAMPLE / 'scripted.json'}", "--batch", "--json-out", str(summary))
    assert result.exit_code == 0, result.output
    assert f"trace: {endpoint} (with prompt, answer or file text)" in result.stdout
    assert received and {path for path, _ in received} == {"/v1/traces"}
    spans = []
    for _, body in received:
        export = ExportTraceServiceRequest()
        export.ParseFromString(body)
        for resource in export.resource_spans:
            service = {a.key: a.value.string_value for a in resource.resource.attributes}["service.name"]
            assert service == "podium"
            spans += [span for scope in resource.scope_spans for span in scope.spans]
    names = [span.name for span in spans]
    assert names.count("request") == 1 and names.count("subtask") == 2 and names.count("chat scripted") == 6
    (request,) = [s for s in spans if s.name == "request"]
    attributes = {a.key: a.value.string_value for a in request.attributes}
    assert attributes["podium.request"] == REQUEST and attributes["podium.status"] == "FINISH"
    (read,) = [s for s in spans if s.name == "execute_tool read_table"]
    result_text = {a.key: a.value.string_value for a in read.attributes}["gen_ai.tool.call.result"]
    assert "Revenue" in result_text and "1350" in result_text  # the document's table, because content = true
    assert read_json(summary)["status"] == "FINISH"


def test_a_run_without_telemetry_says_nothing_of_traces(cli: Invoke, work: Path, tmp_path: Path) -> None:
    make_files(work)
    result = cli("run", REQUEST, "--workdir", str(work), "--config", str(EXAMPLE / "podium.toml"), "--model",
                 f"scripted:{EXAMPLE / 'scripted.json'}", "--batch")
    assert result.exit_code == 0, result.output
    assert "trace:" not in result.stdout and not list(tmp_path.rglob("traces"))


@pytest.mark.parametrize(("text", "message"), [
    ("content = true", "[telemetry] content: traces are off; add otel = true"),
    ('file = "t.jsonl"\nendpoint = "http://127.0.0.1:4318/v1/traces"',
     "[telemetry] endpoint, file: traces are off; add otel = true"),
    ('otel = true\nendpoint = "127.0.0.1:4318"', "[telemetry] endpoint: an OTLP/HTTP traces URL"),
    ('otel = true\nendpoint = "https://me:hunter2@collector.example/v1/traces"',
     "OTEL_EXPORTER_OTLP_HEADERS"),
    ("otel = 1", "[telemetry] otel: Input should be a valid boolean (got a integer)"),
    ("otel = true\nexporter = \"zipkin\"", "[telemetry] exporter: unknown key; known keys here: otel, content"),
])
def test_telemetry_settings_are_checked(text: str, message: str) -> None:
    import tomllib

    with pytest.raises(ConfigError) as error:
        parse_config(tomllib.loads(f"[telemetry]\n{text}\n"))
    assert message in str(error.value) and "hunter2" not in str(error.value)


def test_a_trace_file_is_relative_to_the_config_file(tmp_path: Path) -> None:
    import tomllib

    from podium.cli.traces import destination

    config = parse_config(tomllib.loads('[telemetry]\notel = true\nfile = "runs/trace.jsonl"\n'), tmp_path / "x.toml")
    assert config.telemetry.otel and not config.telemetry.content
    assert destination(config, "run-1") == f"{tmp_path / 'runs' / 'trace.jsonl'} (no prompt, answer or file text)"
    assert destination(parse_config({}), "run-1") == ""


def test_a_resumed_run_is_traced_from_where_its_record_ends(cli: Invoke, home: Path, work: Path,
                                                           tmp_path: Path) -> None:
    plan = assign(sub("1", "Write the notes", "files", writes=["notes.txt"], tools=["write_file"]))
    name = kill_during_first_app_step(home, work, write_script(tmp_path / "hang.json", [plan],
                                                               {"files": [{"$hang": True}]}), "Write the notes")
    rest = write_script(tmp_path / "rest.json", [host("FINISH", "notes written")], {"files": [
        app("CONTINUE", ("write_file", {"path": "notes.txt", "content": "hello"})),
        app("FINISH", result="notes.txt written")]})
    config = tmp_path / "traced.toml"
    config.write_text('[telemetry]\notel = true\nfile = "resumed.jsonl"\n', encoding="utf-8")
    resumed = cli("resume", name, "-m", f"scripted:{rest}", "--batch", "--config", str(config))
    assert resumed.exit_code == 0, resumed.output
    assert f"trace: {tmp_path / 'resumed.jsonl'}" in resumed.stdout
    spans = [json.loads(line) for line in (tmp_path / "resumed.jsonl").read_text(encoding="utf-8").splitlines()]
    children = tree(spans)
    (request,) = children[""]
    attributes = request["attributes"]
    assert attributes["podium.resumed"] is True and attributes["podium.status"] == "FINISH"
    assert attributes["podium.request.token"]  # learnt from the run's own events
    (subtask,) = [s for s in children[request["context"]["span_id"]] if s["name"] == "subtask"]
    steps = children[subtask["context"]["span_id"]]
    assert [s["attributes"]["podium.step"] for s in steps] == [1, 2]  # the step in flight, sent again; the next
    (write,) = [s for s in spans if s["name"] == "execute_tool write_file"]
    assert write["attributes"]["podium.tool.paths"] == ["notes.txt"] and (work / "notes.txt").read_text() == "hello"
