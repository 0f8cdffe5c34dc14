"""A desktop run as an OpenTelemetry trace, recorded by the SDK's in-memory exporter: the tree of spans
(request > subtask > step > phase, model and tool calls under their phase), their attributes, no text
by default and the text with the opt-in, failures as span statuses."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from podium import telemetry
from podium.agent.backend import BaseBackend
from podium.apps.base import Tool, ToolResult
from podium.backends.scripted import Crash, Fail, Hang, Say, ScriptedBackend
from podium.desktop import HostConfig, HostSession
from podium.telemetry import Tracing
from tests.desktop.memapps import Documents, Spreadsheets, _params
from tests.desktop.scripting import app, assign, host, ref, step_of, sub, verifying
from tests.support import until

TABLE = [["Quarter", "Sales"], ["Q1", 10], ["Q2", 20]]
REQUEST = "Extract the table from report.docx and create a bar chart of it in budget.xlsx"
RESULT = "The table of report.docx is charted in budget.xlsx"
# Text that passed through the run (the request, the document, the plan, the answers): never in a span
# unless the person opts in.
TEXTS = (REQUEST, RESULT, "Quarterly report", "Quarter", "Sales", "Extract the table", "table extracted",
         "## Your subtask", "wrote 3 rows")
CONTENT_KEYS = {"gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions",
                "gen_ai.tool.call.arguments", "gen_ai.tool.call.result", "podium.request", "podium.result",
                "podium.subtask.description"}


class Traces:
    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider()
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))

    def tracing(self, **options: Any) -> Tracing:
        return Tracing(tracer_provider=self.provider, **options)

    @property
    def spans(self) -> tuple[ReadableSpan, ...]:
        return self.exporter.get_finished_spans()

    def children(self, parent: ReadableSpan, name: str | None = None) -> list[ReadableSpan]:
        found = [s for s in self.spans if s.parent is not None and s.parent.span_id == parent.context.span_id]
        return sorted((s for s in found if name is None or s.name == name), key=lambda s: s.start_time or 0)

    def one(self, name: str, **attributes: Any) -> ReadableSpan:
        (span,) = self.named(name, **attributes)
        return span

    def named(self, name: str, **attributes: Any) -> list[ReadableSpan]:
        return [s for s in self.spans if s.name == name
                and all((s.attributes or {}).get(k.replace("__", ".")) == v for k, v in attributes.items())]


@pytest.fixture
def traces() -> Iterator[Traces]:
    found = Traces()
    yield found
    found.provider.shutdown()


def seed_models(*, fail_planner: bool = False) -> tuple[ScriptedBackend, dict[str, ScriptedBackend]]:
    def planner(prompt: str) -> Say | Fail:
        if fail_planner:
            return Fail("the model server is down")
        if verifying(prompt):
            return Say(host("FINISH", RESULT), usage=(300, 20))
        return Say(assign(sub("1", "Extract the table from report.docx", "documents", reads=["report.docx"],
                              tools=["read_table"], hands_on="table"),
                          sub("2", "Write the rows of subtask 1 into budget.xlsx and create a bar chart of them",
                              "spreadsheets", "1", writes=["budget.xlsx"], tools=["write_rows", "add_chart"])),
                   usage=(400, 120))

    def documents(prompt: str) -> Say:
        if step_of(prompt) == 1:
            return Say(app("CONTINUE", ("read_table", {"path": "report.docx", "index": 0})), usage=(200, 30))
        return Say(app("FINISH", result=ref("1.read_table"), comment="table extracted"), usage=(250, 25))

    def spreadsheets(prompt: str) -> Say:
        if step_of(prompt) == 1:
            return Say(app("CONTINUE", ("write_rows", {"path": "budget.xlsx", "cell": "A1",
                                                       "rows": ref("1.read_table")}),
                           ("add_chart", {"path": "budget.xlsx", "kind": "bar", "range": "A1:B3",
                                          "title": "Sales"})), usage=(210, 60))
        return Say(app("FINISH", result="budget.xlsx has the data and a bar chart"), usage=(260, 20))

    return ScriptedBackend(planner), {"documents": ScriptedBackend(documents),
                                      "spreadsheets": ScriptedBackend(spreadsheets)}


async def run_seed(tracing: Any, apps: Sequence[Any] | None = None, **options: Any) -> Any:
    apps = apps or [Documents({"report.docx": {"paragraphs": ["Quarterly report"], "tables": [TABLE]}}),
                    Spreadsheets()]
    planner, app_models = seed_models(fail_planner=options.pop("fail_planner", False))
    async with await HostSession.start(list(apps), planner, app_models=app_models, tracing=tracing,
                                       **options) as hs:
        return await hs.run(REQUEST)


def everything(span: ReadableSpan) -> str:
    """Every value a span carries, as text: attributes, events' attributes, status description."""
    values = [*(span.attributes or {}).values(), span.status.description or ""]
    for event in span.events:
        values += [event.name, *(event.attributes or {}).values()]
    return json.dumps(values, default=str)


def phases(traces: Traces, step: ReadableSpan) -> list[str]:
    return [s.name for s in traces.children(step)]


async def test_a_run_is_one_trace_request_subtask_step_phase_with_model_and_tool_calls(traces: Traces) -> None:
    result = await run_seed(traces.tracing())
    assert result.ok, result
    spans = traces.spans
    assert len({s.context.trace_id for s in spans}) == 1  # one trace
    (request,) = [s for s in spans if s.parent is None]
    assert request.name == "request" and request.status.status_code is StatusCode.OK
    attrs = request.attributes or {}
    assert attrs["podium.status"] == "FINISH" and attrs["podium.request.token"] == result.token
    assert attrs["podium.steps"] == result.steps == 6
    assert attrs["gen_ai.usage.input_tokens"] == result.usage["input_tokens"] == 400 + 200 + 250 + 210 + 260 + 300
    assert attrs["gen_ai.usage.output_tokens"] == result.usage["output_tokens"]

    # the HostAgent's steps (plan, verify) and the subtasks hang from the request
    host_steps = traces.children(request, "step")
    assert [(s.attributes or {})["podium.step"] for s in host_steps] == [1, 2]
    assert all(phases(traces, s) == ["DATA_COLLECTION", "LLM_INTERACTION", "ACTION_EXECUTION"] for s in host_steps)
    assert [(s.attributes or {})["podium.step.status"] for s in host_steps] == ["ASSIGN", "FINISH"]
    subtasks = traces.children(request, "subtask")
    assert [((s.attributes or {})["podium.subtask.id"], (s.attributes or {})["podium.application"],
             (s.attributes or {})["podium.subtask.state"]) for s in subtasks] == [
        ("1", "documents", "FINISH"), ("2", "spreadsheets", "FINISH")]
    assert (subtasks[1].attributes or {})["podium.subtask.depends_on"] == ("1",)
    assert (subtasks[1].attributes or {})["podium.subtask.writes"] == ("budget.xlsx",)
    assert all(s.status.status_code is StatusCode.OK for s in subtasks)

    # an AppAgent step: PROPOSE (look, ask) and EXECUTE (run the calls) in one step span
    for subtask in subtasks:
        steps = traces.children(subtask, "step")
        assert [(s.attributes or {})["podium.step"] for s in steps] == [1, 2]
        assert phases(traces, steps[0]) == ["DATA_COLLECTION", "LLM_INTERACTION", "ACTION_EXECUTION"]
        assert phases(traces, steps[1]) == ["DATA_COLLECTION", "LLM_INTERACTION"]  # FINISH: nothing to run
        assert [(s.attributes or {})["podium.step.status"] for s in steps] == ["CONTINUE", "FINISH"]

    # the model calls: GenAI semantic conventions, one under each LLM_INTERACTION
    chats = [s for s in spans if s.name.startswith("chat ")]
    assert len(chats) == 6
    for chat in chats:
        parent = next(s for s in spans if s.context.span_id == chat.parent.span_id)  # type: ignore[union-attr]
        assert parent.name == "LLM_INTERACTION"
        a = chat.attributes or {}
        assert a["gen_ai.operation.name"] == "chat" and a["gen_ai.provider.name"] == a["gen_ai.system"] == "scripted"
        assert a["gen_ai.request.model"] == "scripted" and a["gen_ai.output.type"] == "json"
        assert a["gen_ai.request.max_tokens"] > 0 and a["gen_ai.request.temperature"] == 0.0
        assert chat.status.status_code is StatusCode.UNSET
    sheet_step = traces.children(subtasks[1], "step")[0]
    (think,) = traces.children(sheet_step, "LLM_INTERACTION")
    (chat,) = traces.children(think)
    assert (chat.attributes or {})["gen_ai.usage.input_tokens"] == 210
    assert (chat.attributes or {})["gen_ai.usage.output_tokens"] == 60
    assert (chat.attributes or {})["gen_ai.agent.name"] == "app-spreadsheets"

    # the tool calls, under the ACTION_EXECUTION that ran them: name, ok, the paths their effects name
    (act,) = traces.children(sheet_step, "ACTION_EXECUTION")
    assert (act.attributes or {})["podium.turn"] == "execute"
    tools = traces.children(act)
    assert [t.name for t in tools] == ["execute_tool write_rows", "execute_tool add_chart"]
    for tool in tools:
        a = tool.attributes or {}
        assert a["gen_ai.operation.name"] == "execute_tool" and a["podium.tool.ok"] is True
        assert a["podium.application"] == "spreadsheets" and a["podium.tool.paths"] == ("budget.xlsx",)
        assert len(a["podium.tool.changes"]) == 1 and a["gen_ai.tool.call.id"].startswith("2.")
    assert (sheet_step.attributes or {})["podium.step.calls"] == 2
    (read,) = [s for s in spans if s.name == "execute_tool read_table"]
    assert (read.attributes or {})["podium.tool.paths"] == ()  # a read changes nothing

    # every span lies within its parent's time
    by_id = {s.context.span_id: s for s in spans}
    for span in spans:
        if span.parent is not None:
            parent = by_id[span.parent.span_id]
            assert parent.start_time <= span.start_time <= span.end_time <= parent.end_time, (span.name, parent.name)

    # no text that passed through the run: only names, paths, statuses, counts, tokens
    for span in spans:
        carried = everything(span)
        assert not [t for t in TEXTS if t in carried], (span.name, carried)
        assert not CONTENT_KEYS & set(span.attributes or {})


async def test_content_is_recorded_only_when_the_person_opts_in(traces: Traces) -> None:
    result = await run_seed(traces.tracing(content=True, max_content_chars=2000))
    assert result.ok
    request = traces.one("request")
    assert (request.attributes or {})["podium.request"] == REQUEST
    assert (request.attributes or {})["podium.result"] == RESULT
    (sheets,) = traces.named("subtask", podium__subtask__id="2")
    assert (sheets.attributes or {})["podium.subtask.description"].startswith("Write the rows of subtask 1")
    chats = [s for s in traces.spans if s.name.startswith("chat ")]
    for chat in chats:
        a = chat.attributes or {}
        (message,) = json.loads(a["gen_ai.input.messages"])
        assert message["role"] == "user" and message["parts"][0]["type"] == "text"
        assert json.loads(a["gen_ai.system_instructions"])[0]["content"]
        (answer,) = json.loads(a["gen_ai.output.messages"])
        assert answer["role"] == "assistant" and json.loads(answer["parts"][0]["content"])  # the JSON it wrote
    # the AppAgent's prompt holds the document's table (the file text): there only with the opt-in
    assert any("Quarter" in (c.attributes or {})["gen_ai.input.messages"] for c in chats)
    (write,) = traces.named("execute_tool write_rows")
    a = write.attributes or {}
    assert json.loads(a["gen_ai.tool.call.arguments"]) == {"path": "budget.xlsx", "cell": "A1", "rows": TABLE}
    assert json.loads(a["gen_ai.tool.call.result"]) == "wrote 3 rows at A1"
    # a text longer than the limit is cut, and says so; the messages stay JSON
    texts = [json.loads(v)[0] for c in chats for k, v in (c.attributes or {}).items() if k in CONTENT_KEYS]
    parts = [t.get("content") or t["parts"][0]["content"] for t in texts]
    long = [p for p in parts if p.endswith("more characters]")]
    assert long and all(len(p) < 2000 + 40 for p in long)


class Failing(Documents):
    """Documents whose `stamp` tool raises (a bug in the tool) and whose `read_table` fails on a missing file."""

    def tools(self) -> list[Tool]:
        return [*super().tools(), Tool("stamp", "stamp a document", _params(path="string"))]

    async def call(self, tool: str, arguments: Any) -> ToolResult:
        if tool == "stamp":
            raise RuntimeError(f"stamp broke on {arguments['path']} (secret text)")
        return await super().call(tool, arguments)


@pytest.mark.parametrize("content", [False, True])
async def test_a_failed_tool_call_is_an_error_span_with_its_kind(traces: Traces, content: bool) -> None:
    def planner(prompt: str) -> str:
        if verifying(prompt):
            return host("FAIL", "could not read it")
        return assign(sub("1", "Read missing.docx and stamp it", "documents", reads=["missing.docx"],
                          writes=["missing.docx"], tools=["read_table", "stamp"]))

    def documents(prompt: str) -> str:
        if step_of(prompt) == 1:
            return app("CONTINUE", ("read_table", {"path": "missing.docx", "index": 0}))
        if step_of(prompt) == 2:
            return app("CONTINUE", ("stamp", {"path": "missing.docx"}))
        return app("FAIL", comment="missing")

    async with await HostSession.start([Failing()], ScriptedBackend(planner),
                                       app_models={"documents": ScriptedBackend(documents)},
                                       config=HostConfig(interactive=False, auto_approve=True),
                                       tracing=traces.tracing(content=content)) as hs:
        result = await hs.run("Read missing.docx and stamp it")
    assert not result.ok
    (read,) = traces.named("execute_tool read_table")
    assert read.status.status_code is StatusCode.ERROR
    assert (read.attributes or {})["error.type"] == "tool_error" and (read.attributes or {})["podium.tool.ok"] is False
    (stamp,) = traces.named("execute_tool stamp")
    assert stamp.status.status_code is StatusCode.ERROR and (stamp.attributes or {})["error.type"] == "RuntimeError"
    if content:  # the tool's own message, which may quote a file, only with the opt-in
        assert "missing.docx" in (read.status.description or "")
        assert "secret text" in (stamp.status.description or "")
    else:
        assert read.status.description == "tool_error" and stamp.status.description == "RuntimeError"
        assert not any("secret text" in everything(s) for s in traces.spans)
    # the subtask failed, so did the request: both say so in their status
    (subtask,) = traces.named("subtask")
    assert subtask.status.status_code is StatusCode.ERROR
    assert (subtask.attributes or {})["podium.subtask.state"] == "FAIL"
    request = traces.one("request")
    assert request.status.status_code is StatusCode.ERROR and (request.attributes or {})["podium.status"] == "FAIL"


async def test_a_failed_model_call_fails_its_phase_and_step(traces: Traces) -> None:
    result = await run_seed(traces.tracing(), fail_planner=True)
    assert not result.ok
    chats = [s for s in traces.spans if s.name.startswith("chat ")]
    assert chats and all(c.status.status_code is StatusCode.ERROR for c in chats)
    assert {(c.attributes or {})["error.type"] for c in chats} == {"backend_error"}
    assert not any("server is down" in everything(s) for s in traces.spans)  # the backend's words: content
    thinking = traces.named("LLM_INTERACTION")
    assert thinking and all(s.status.status_code is StatusCode.ERROR for s in thinking)
    steps = traces.named("step")
    assert all((s.attributes or {})["podium.step.failed_phase"] == "LLM_INTERACTION" for s in steps)
    assert all(phases(traces, s) == ["DATA_COLLECTION", "LLM_INTERACTION"] for s in steps)  # fail-fast
    request = traces.one("request")
    assert request.status.status_code is StatusCode.ERROR
    assert (request.attributes or {})["podium.status"] in ("FAIL", "ERROR")


async def test_the_judge_model_call_hangs_from_the_request(traces: Traces) -> None:
    judge = ScriptedBackend(lambda p: Say(json.dumps({"complete": True, "reason": "done"}), usage=(90, 9)))
    result = await run_seed(traces.tracing(), config=HostConfig(interactive=False, evaluate=True), judge_model=judge)
    assert result.ok
    request = traces.one("request")
    (judged,) = [s for s in traces.spans if (s.attributes or {}).get("gen_ai.agent.name") == "judge"]
    assert judged.parent is not None and judged.parent.span_id == request.context.span_id
    assert (judged.attributes or {})["gen_ai.usage.input_tokens"] == 90


async def test_tracing_follows_the_process_wide_setting_unless_the_session_says(traces: Traces) -> None:
    assert (await run_seed(None)).ok
    assert traces.spans == ()  # off unless asked
    telemetry.enable_opentelemetry(tracer_provider=traces.provider)
    try:
        assert (await run_seed(None)).ok
        assert len(traces.named("request")) == 1
        assert (await run_seed(False)).ok
        assert len(traces.named("request")) == 1  # this session said no
    finally:
        telemetry.disable_opentelemetry()
    assert telemetry.tracing() is None and not telemetry.active()
    assert (await run_seed(None)).ok
    assert len(traces.named("request")) == 1


async def test_two_requests_of_one_session_are_two_traces(traces: Traces) -> None:
    planner, app_models = seed_models()
    docs = Documents({"report.docx": {"paragraphs": [], "tables": [TABLE]}})
    async with await HostSession.start([docs, Spreadsheets()], planner, app_models=app_models,
                                       tracing=traces.tracing()) as hs:
        first = await hs.run(REQUEST)
        second = await hs.run(REQUEST)
    assert first.ok and second.ok
    requests = traces.named("request")
    assert [(r.attributes or {})["podium.request.token"] for r in requests] == [first.token, second.token]
    assert len({r.context.trace_id for r in requests}) == 2
    for request in requests:  # each request's subtasks and steps in its own trace
        mine = [s for s in traces.spans if s.context.trace_id == request.context.trace_id]
        assert len([s for s in mine if s.name == "subtask"]) == 2
        assert len([s for s in mine if s.name.startswith("chat ")]) == 6


def test_tracing_takes_a_setting_true_or_false() -> None:
    from podium.desktop.shell.tracing import NO_TRACING, tracer_for
    from podium.errors import ConfigError

    assert tracer_for(False) is NO_TRACING and tracer_for(None) is NO_TRACING
    assert tracer_for(True).setting == Tracing()  # type: ignore[union-attr]
    with pytest.raises(ConfigError, match="Tracing, True or False"):
        tracer_for("yes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_content_chars"):
        Tracing(max_content_chars=0)


async def test_a_crashed_agent_leaves_an_interrupted_phase_and_the_retry_is_the_next_step(traces: Traces) -> None:
    turns = iter([Crash("out of memory"), app("CONTINUE", ("read_table", {"path": "report.docx", "index": 0}))])
    planner, app_models = seed_models()
    app_models["documents"] = ScriptedBackend(
        lambda prompt: next(turns, app("FINISH", result=ref("1.read_table"), comment="table extracted")))
    docs = Documents({"report.docx": {"paragraphs": [], "tables": [TABLE]}})
    async with await HostSession.start([docs, Spreadsheets()], planner, app_models=app_models,
                                       tracing=traces.tracing()) as hs:
        result = await hs.run(REQUEST)
    assert result.ok, result
    (subtask,) = traces.named("subtask", podium__subtask__id="1")
    crashed_step, retry, finish = traces.children(subtask, "step")
    # the crashed turn: its phase never ended, and is closed as interrupted when the fresh agent begins
    assert phases(traces, crashed_step) == ["DATA_COLLECTION", "LLM_INTERACTION"]
    (crashed,) = traces.children(crashed_step, "LLM_INTERACTION")
    assert crashed.status.status_code is StatusCode.ERROR and (crashed.attributes or {})["error.type"] == "interrupted"
    (chat,) = traces.children(crashed)
    assert chat.status.status_code is StatusCode.ERROR and (chat.attributes or {})["error.type"] == "AgentCrashed"
    assert crashed.end_time <= traces.children(retry)[0].start_time  # type: ignore[operator]
    # the fresh AppAgent's retry, as the next step
    assert phases(traces, retry) == ["DATA_COLLECTION", "LLM_INTERACTION", "ACTION_EXECUTION"]
    assert [s.name for s in traces.children(traces.children(retry, "ACTION_EXECUTION")[0])] == [
        "execute_tool read_table"]
    assert (finish.attributes or {})["podium.step.status"] == "FINISH"


async def test_questions_and_approvals_are_events_on_their_subtask(traces: Traces) -> None:
    def planner(prompt: str) -> str:
        if verifying(prompt):
            return host("FINISH", "deleted")
        return assign(sub("1", "Delete old.docx", "documents", writes=["old.docx"], tools=["delete_document"]))

    def documents(prompt: str) -> str:
        if step_of(prompt) == 1:
            return app("CONTINUE", ("delete_document", {"path": "old.docx"}))
        return app("FINISH", result="old.docx deleted")

    asked: list[Any] = []

    def approve(request: Any) -> bool:
        asked.append(request)
        return True

    docs = Documents({"old.docx": {"paragraphs": ["secret minutes"], "tables": []}})
    async with await HostSession.start([docs], ScriptedBackend(planner),
                                       app_models={"documents": ScriptedBackend(documents)}, approve=approve,
                                       tracing=traces.tracing()) as hs:
        result = await hs.run("Delete old.docx")
    assert result.ok and asked and "old.docx" not in docs.docs
    (subtask,) = traces.named("subtask")
    (event,) = [e for e in subtask.events if e.name == "approval requested"]
    attributes = event.attributes or {}
    assert attributes["podium.id"] == asked[0].id and attributes["podium.tools"] == ("delete_document",)
    assert attributes["podium.application"] == "documents" and "podium.summary" not in attributes
    states = [(e.attributes or {})["podium.subtask.state"] for e in subtask.events if e.name == "subtask state"]
    assert states == ["CONTINUE", "CONFIRM", "CONTINUE", "FINISH"]  # it waited for the person in between
    (delete,) = traces.named("execute_tool delete_document")
    assert (delete.attributes or {})["podium.tool.changes"] == ("delete",)
    assert (delete.attributes or {})["podium.tool.paths"] == ("old.docx",)
    request = traces.one("request")
    assert [(e.attributes or {})["podium.host.state"] for e in request.events if e.name == "host state"][:2] == [
        "CONTINUE", "ASSIGN"]


async def test_a_request_the_session_took_over_is_traced_from_its_first_sign(traces: Traces) -> None:
    # A resumed run's request was told by the process that died: no `run()` here starts it.
    planner, app_models = seed_models()
    docs = Documents({"report.docx": {"paragraphs": [], "tables": [TABLE]}})
    async with await HostSession.start([docs, Spreadsheets()], planner, app_models=app_models,
                                       tracing=traces.tracing()) as hs:
        token = hs.session.tell(REQUEST)
        await hs.session.result(token)
        await until(lambda: len(traces.named("request")) == 1, rounds=2000)
    request = traces.one("request")
    attributes = request.attributes or {}
    assert attributes["podium.resumed"] is True and attributes["podium.request.token"] == token
    assert attributes["podium.status"] == "FINISH" and request.status.status_code is StatusCode.OK
    assert [s.parent.span_id for s in traces.named("subtask")] == [request.context.span_id] * 2  # type: ignore[union-attr]
    assert len(traces.named("step")) == 6 and {s.context.trace_id for s in traces.spans} == {request.context.trace_id}


async def test_stopping_the_session_mid_step_ends_every_span(traces: Traces) -> None:
    planner, app_models = seed_models()
    asked: list[str] = []
    app_models["documents"] = ScriptedBackend(lambda prompt: asked.append(prompt) or Hang())
    docs = Documents({"report.docx": {"paragraphs": [], "tables": [TABLE]}})
    hs = await HostSession.start([docs, Spreadsheets()], planner, app_models=app_models, tracing=traces.tracing())
    running = asyncio.ensure_future(hs.run(REQUEST))
    provider = traces.provider
    await until(lambda: asked, rounds=20000)  # the documents AppAgent now waits for its model
    await hs.stop()
    running.cancel()
    await asyncio.gather(running, return_exceptions=True)
    provider.force_flush()
    request = traces.one("request")
    assert request.status.status_code is StatusCode.ERROR and (request.attributes or {})["error.type"] == "stopped"
    (thinking,) = [s for s in traces.named("LLM_INTERACTION") if (s.attributes or {}).get("podium.turn") == "propose"]
    assert (thinking.attributes or {})["error.type"] == "interrupted"
    (subtask,) = traces.named("subtask")
    assert traces.children(subtask, "step") and subtask.end_time is not None


class Unreachable(BaseBackend):
    """A model backend that fails before it streams anything."""

    def prompt(self, session: Any, prompt: Any) -> Any:
        raise RuntimeError("cannot reach the model at 10.0.0.7 (secret detail)")


async def test_a_backend_that_fails_before_streaming_still_ends_its_span(traces: Traces) -> None:
    async with await HostSession.start([Documents()], Unreachable(), tracing=traces.tracing()) as hs:
        result = await hs.run("Read report.docx")
    assert not result.ok
    chats = [s for s in traces.spans if s.name.startswith("chat ")]
    assert chats and all(c.status.status_code is StatusCode.ERROR for c in chats)
    assert {(c.attributes or {})["error.type"] for c in chats} == {"RuntimeError"}
    assert {(c.attributes or {})["gen_ai.provider.name"] for c in chats} == {"unreachable"}
    assert not any("secret detail" in everything(s) for s in traces.spans)
    assert traces.one("request").end_time is not None


def test_the_provider_and_model_are_read_through_wrappers(monkeypatch: pytest.MonkeyPatch) -> None:
    from collections import Counter

    from podium.backends import backend_from_spec
    from podium.backends.budget import Budget, BudgetedBackend
    from podium.cli.models import Metered
    from podium.desktop.shell.trace_calls import model_identity

    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    cases = {"openai:gpt-4.1-mini": ("openai", "gpt-4.1-mini"), "ollama:qwen2.5": ("ollama", "qwen2.5"),
             "openai-compatible:http://127.0.0.1:9/v1#smol": ("openai-compatible", "smol"),
             "anthropic:claude-sonnet-4-5": ("anthropic", "claude-sonnet-4-5"),
             "local:/models/tiny.gguf": ("llama.cpp", "tiny.gguf"), "local": ("llama.cpp", "llama.cpp")}
    for spec, identity in cases.items():
        backend = Metered(BudgetedBackend(backend_from_spec(spec), Budget(max_tokens=10)), "planner", Counter())
        assert model_identity(backend) == identity, spec
    assert model_identity(ScriptedBackend()) == ("scripted", "scripted")
