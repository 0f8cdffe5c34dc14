"""Prefix reuse and prompt lookup on a real model (SmolLM2-135M): what a call reads, what it takes from the
cache, what it writes, and that reuse changes the time, not the answer."""

from __future__ import annotations

import asyncio
import json

import pytest

from podium.agent.backend import Prompt
from podium.agent.events import EventKind, Response
from podium.backends import backend_from_spec
from podium.backends.llama_decoder import MIN_BATCH, Decoder, Speculation, TurnStats
from podium.backends.llama_prompt import prepare
from podium.backends.prefix_cache import PrefixCache

from .conftest import collect

INSTRUCTIONS = ("You are an agent that works on office files. Answer with the action to take. "
                "Rules: read before writing; never invent numbers; name files exactly as the person wrote "
                "them; one action per answer; explain nothing. ") * 3


@pytest.fixture(scope="module")
def llama(small_model):
    """A model instance of this module's own: the backend's shared one belongs to the backend."""
    import llama_cpp

    model = llama_cpp.Llama(model_path=str(small_model), n_ctx=2048, n_threads=2, verbose=False)
    yield model
    model.close()


def decoder(llama, capacity: int = 64 * 2**20, **speculation) -> Decoder:
    return Decoder(llama, cache=PrefixCache(capacity) if capacity else None, n_batch=256,
                   speculation=Speculation(**speculation))


def run(dec: Decoder, messages, *, schema=None, max_tokens=24, speculate=False) -> tuple[str, TurnStats]:
    completion = prepare(dec.llama, messages, schema=schema, temperature=0.0, max_tokens=max_tokens, seed=1)
    stats = TurnStats()
    return "".join(dec.run(completion, stats, lambda: False, speculate=speculate)), stats


def agent(system: str, step: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": system}, {"role": "user", "content": step}]


def test_a_repeated_prefix_is_not_read_again_and_the_answer_is_the_same(llama):
    cold, _ = run(decoder(llama, capacity=0), agent(INSTRUCTIONS, "Step 2: the table was read. Next?"))
    dec = decoder(llama)
    _, first = run(dec, agent(INSTRUCTIONS, "Step 1: nothing done yet. Next?"))
    assert first.cached == 0 and first.prompt > 100 and first.read_ms > 0 and first.write_ms > 0
    text, second = run(dec, agent(INSTRUCTIONS, "Step 2: the table was read. Next?"))
    shared = len(llama.tokenize(INSTRUCTIONS.encode())) - 2
    assert second.cached >= min(shared, second.prompt - MIN_BATCH)
    assert second.prompt - second.cached <= MIN_BATCH + 10  # only the step was read
    assert text == cold


def test_a_new_process_starts_another_request_from_the_instructions_kept_as_a_head(llama, tmp_path):
    from podium.backends.prefix_disk import DiskPrefixes

    step = "Step 1: the person asks for {}. Files: report.docx, budget.xlsx, notes.txt, old/, drafts/. Next?"
    first, second = agent(INSTRUCTIONS, step.format("a chart")), agent(INSTRUCTIONS, step.format("a sum"))
    cold, _ = run(decoder(llama, capacity=0), second)

    def process() -> Decoder:  # its own memory; the disk is what processes share
        return Decoder(llama, cache=PrefixCache(64 * 2**20), n_batch=256, speculation=Speculation(),
                       disk=DiskPrefixes(tmp_path, 2**30, min_tokens=32))

    _, read = run(process(), first)
    assert read.cached == 0 and len(list(tmp_path.glob("*.head.prefix"))) == 1
    head = prepare(llama, second, schema=None, temperature=0.0, max_tokens=1, seed=1).head
    assert head >= len(llama.tokenize(INSTRUCTIONS.encode())) - 2
    text, warm = run(process(), second)  # a new process, another request, nothing of it in any memory
    assert warm.cached == head and text == cold  # the instructions are not read again, and nothing changes
    assert len(list(tmp_path.glob("*.head.prefix"))) == 1

    # states written before heads existed: a whole prompt holds the instructions, and no head does
    only_whole = process()
    run(only_whole, first)
    assert only_whole.persist() >= 1
    next(tmp_path.glob("*.head.prefix")).unlink()
    text, warm = run(process(), second)  # starts from the whole prompt, cut back to the instructions
    assert warm.cached == head and text == cold and len(list(tmp_path.glob("*.head.prefix"))) == 1


def test_instructions_read_ahead_are_the_head_a_first_call_would_keep(llama, tmp_path):
    from podium.backends.prefix_disk import DiskPrefixes

    request = agent(INSTRUCTIONS, "Step 1: the person asks for a chart. Files: report.docx, budget.xlsx. Next?")
    cold, _ = run(decoder(llama, capacity=0), request)

    def process(folder) -> Decoder:
        return Decoder(llama, cache=PrefixCache(64 * 2**20), n_batch=256, speculation=Speculation(),
                       disk=DiskPrefixes(folder, 2**30, min_tokens=32))

    ahead = prepare(llama, agent(INSTRUCTIONS, ""), schema=None, temperature=0.0, max_tokens=1, seed=1)
    stats = TurnStats()
    assert process(tmp_path / "ahead").keep_head(ahead, stats)
    assert stats.prompt == ahead.head and stats.cached == 0 and stats.read_ms > 0
    assert not process(tmp_path / "ahead").keep_head(ahead, TurnStats())  # kept already: nothing read
    run(process(tmp_path / "by-a-call"), request)  # a first call keeps the head as it reads the prompt
    (kept,), (by_call,) = (list((tmp_path / f).glob("*.head.prefix")) for f in ("ahead", "by-a-call"))
    assert kept.name == by_call.name and kept.read_bytes() == by_call.read_bytes()  # the same tokens and bits
    text, first = run(process(tmp_path / "ahead"), request)
    assert first.cached == ahead.head and text == cold
    assert not process(tmp_path / "none").keep_head(  # too short to be worth a file
        prepare(llama, agent("Be brief.", ""), schema=None, temperature=0.0, max_tokens=1, seed=1), TurnStats())


def test_agents_that_alternate_each_find_their_prefix_in_the_cache(llama):
    dec = decoder(llama)
    planner = agent("You plan work for other agents. " * 20, "Plan: chart the table.")
    writer = agent("You write rows into spreadsheets. " * 20, "Write the rows.")
    _, p1 = run(dec, planner)
    _, w1 = run(dec, writer)  # the planner's sequence is saved before it is cut
    assert p1.cached == 0 and w1.cached < 10
    _, p2 = run(dec, planner)
    assert p2.restored and p2.cached == p2.prompt - MIN_BATCH  # the end is read again, for its logits
    _, w2 = run(dec, writer)
    assert w2.restored and w2.cached == w2.prompt - MIN_BATCH
    stats = dec.cache.stats()
    assert stats.entries == 2 and stats.bytes <= stats.capacity


def test_a_prompt_read_from_a_restored_prefix_answers_exactly_as_one_read_from_scratch(llama):
    # the same bits, not merely the same greedy text: the answer is long and its steps must agree throughout
    messages = agent("You write long lists. " * 30, "List thirty office tasks, one a line.")
    cold, _ = run(decoder(llama, capacity=0), messages, max_tokens=96)
    dec = decoder(llama)
    run(dec, messages, max_tokens=96)  # read once: its prefix is cached
    run(dec, agent("Another agent entirely. " * 30, "Go."), max_tokens=4)  # and pushed out of the context
    warm, stats = run(dec, messages, max_tokens=96)
    assert stats.restored and stats.cached == stats.prompt - MIN_BATCH
    assert warm == cold


def test_the_cache_stays_within_its_bound(llama):
    one_state = 24 * 1024 * 200  # SmolLM2 keeps ~23 KB a token; room for about one 200-token prompt
    dec = decoder(llama, capacity=one_state)
    for n in range(4):
        run(dec, agent(f"Agent number {n}. " + "Keep to your own files. " * 30, "Go."), max_tokens=2)
    stats = dec.cache.stats()
    assert stats.bytes <= one_state and stats.entries <= 1 and stats.evicted >= 1


def test_a_shared_beginning_is_reused_by_another_agent(llama):
    dec = decoder(llama)
    shared = INSTRUCTIONS + "Application: "
    _, _docs = run(dec, agent(shared + "documents (.docx).", "Read report.docx."))
    _, sheets = run(dec, agent(shared + "spreadsheets (.xlsx).", "Write the rows into budget.xlsx."))
    assert sheets.cached >= min(len(llama.tokenize(shared.encode())) - 4, sheets.prompt - MIN_BATCH)


ROWS = [["Quarter", "Revenue", "Costs"], ["Q1", "12000", "8000"], ["Q2", "15000", "9500"],
        ["Q3", "17000", "10100"], ["Q4", "21000", "12500"]]
SCHEMA = {"type": "object", "properties": {"rows": {"type": "array", "items": {"type": "array",
                                                                               "items": {"type": "string"}}}},
          "required": ["rows"]}


def test_prompt_lookup_writes_a_copied_table_in_fewer_steps_under_the_grammar(llama):
    messages = agent("You copy tables exactly.",
                     f"read_document returned {json.dumps({'rows': ROWS})}. Answer with the same rows.")
    plain_text, plain = run(decoder(llama), messages, schema=SCHEMA, max_tokens=120)
    text, guessed = run(decoder(llama), messages, schema=SCHEMA, max_tokens=120, speculate=True)
    assert guessed.drafted > 0 and guessed.accepted > guessed.output // 3
    assert json.loads(text)["rows"]  # the grammar held under guessing: the answer is the schema's JSON
    assert guessed.output > 20 and plain.output > 20
    assert plain_text


def test_the_embedded_backend_reports_cache_and_time_in_its_usage(small_model):
    local = backend_from_spec(f"local:{small_model}", n_ctx=1024, n_threads=2, seed=7)
    system = "You answer in one word. " * 12 + "Tested for usage."

    async def twice() -> list[Response]:
        session = await local.start_session({"system": system})
        answers = []
        for question in ("Colour of the sky?", "Colour of grass?"):
            events = await collect(local, session, Prompt(question, max_tokens=4, temperature=0.0))
            assert events[-1].kind is EventKind.RESULT
            answers.append(Response.from_events(events))
        return answers

    _first, second = asyncio.run(twice())
    assert second.usage.cached_tokens > 40  # the system prompt, read once
    assert second.usage.read_ms > 0 and second.usage.write_ms > 0
    assert second.usage.input_tokens > second.usage.cached_tokens
    usage = next(e for e in second.events if e.kind is EventKind.USAGE)
    assert {"cached_tokens", "read_ms", "write_ms"} <= set(usage.data)


def test_a_sampled_answer_keeps_to_the_grammar_and_repeats_with_its_seed(llama):
    messages = agent("You copy tables exactly.", f"The table: {json.dumps(ROWS)}. Answer with its rows.")

    def sampled(seed: int) -> str:
        completion = prepare(llama, messages, schema=SCHEMA, temperature=0.9, max_tokens=80, seed=seed)
        return "".join(decoder(llama).run(completion, TurnStats(), lambda: False))

    first = sampled(11)
    assert first == sampled(11)
    assert "".join(first.split()).startswith('{"rows":[')  # the grammar's shape, whatever the spacing
