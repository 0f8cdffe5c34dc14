"""Evaluated prefixes on disk: what a later process finds, and what never passes for an entry."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from podium.backends.llama_decoder import MIN_BATCH
from podium.backends.prefix_cache import as_tokens
from podium.backends.prefix_disk import DiskPrefixes, model_folder


def test_a_later_process_finds_the_longest_stored_prefix(tmp_path):
    disk = DiskPrefixes(tmp_path, 10_000, min_tokens=4)
    assert disk.store(list(range(40)), b"s" * 100)
    assert disk.store([7] * 10, b"t" * 50)
    later = DiskPrefixes(tmp_path, 10_000, min_tokens=4)  # a new process reads the tokens only
    hit = later.lookup(as_tokens([*range(30), 99]))
    assert hit is not None and hit.common == 30 and later.read(hit) == b"s" * 100
    assert later.lookup(as_tokens([5] * 10)) is None


def test_an_entry_extended_by_a_new_one_is_replaced_and_a_covered_one_is_not_written(tmp_path):
    disk = DiskPrefixes(tmp_path, 10_000, min_tokens=4)
    disk.store(list(range(10)), b"a")
    disk.store(list(range(20)), b"b")
    assert len(disk) == 1 and len(list(tmp_path.glob("*.prefix"))) == 1
    assert not disk.store(list(range(15)), b"c")


def test_the_oldest_entries_go_past_the_bound(tmp_path):
    disk = DiskPrefixes(tmp_path, 700, min_tokens=4)
    disk.store([1] * 10, b"a" * 300)
    old = next(tmp_path.glob("*.prefix"))
    os.utime(old, (1, 1))  # used long ago
    disk.store([2] * 10, b"b" * 300)
    assert disk.lookup(as_tokens([2] * 10)) is not None and disk.lookup(as_tokens([1] * 10)) is None
    assert sum(p.stat().st_size for p in tmp_path.glob("*.prefix")) <= 700


def test_a_head_outlives_the_longer_entries_that_extend_it(tmp_path):
    disk = DiskPrefixes(tmp_path, 10_000, min_tokens=4)
    assert disk.store(list(range(10)), b"h" * 100, head=True)
    assert disk.holds_head(as_tokens(list(range(10)))) and not disk.holds_head(as_tokens(list(range(9))))
    assert disk.store([*range(10), 50, 51], b"a" * 120)  # one request after the instructions
    assert disk.store([*range(10), 60, 61], b"b" * 120)  # another: both keep the instructions' head
    later = DiskPrefixes(tmp_path, 10_000, min_tokens=4)
    hit = later.lookup(as_tokens([*range(10), 70]))
    assert len(later) == 3 and hit is not None and hit.common == 10
    assert not later.store(list(range(10)), b"h" * 100, head=True)  # held already


def test_an_entry_keeps_its_own_tokens_when_the_callers_buffer_changes(tmp_path):
    # the decoder hands its context's token buffer, which its next prompt overwrites
    disk = DiskPrefixes(tmp_path, 10_000, min_tokens=4)
    buffer = as_tokens(list(range(12)))
    assert disk.store(buffer[:10], b"h" * 100, head=True)
    buffer[:10] = 99
    assert disk.holds_head(as_tokens(list(range(10)))) and disk.covers(as_tokens(list(range(10))))
    assert disk.lookup(as_tokens([99] * 10)) is None
    assert not disk.store(list(range(10)), b"h" * 100)  # a plain entry of the same tokens is not written


def test_heads_go_last_past_the_bound(tmp_path):
    disk = DiskPrefixes(tmp_path, 700, min_tokens=4)
    disk.store([1] * 10, b"h" * 300, head=True)
    os.utime(next(tmp_path.glob("*.head.prefix")), (1, 1))  # the oldest file of all
    disk.store([2] * 10, b"a" * 300)
    disk.store([3] * 10, b"b" * 300)
    assert disk.lookup(as_tokens([1] * 10)) is not None and disk.lookup(as_tokens([2] * 10)) is None
    assert sum(p.stat().st_size for p in tmp_path.glob("*.prefix")) <= 700


def test_a_damaged_or_foreign_file_is_never_an_entry(tmp_path):
    disk = DiskPrefixes(tmp_path, 10_000, min_tokens=4)
    disk.store(list(range(10)), b"x" * 64)
    path = next(tmp_path.glob("*.prefix"))
    path.write_bytes(path.read_bytes()[:-10])  # cut short, as by a full disk
    (tmp_path / "other.prefix").write_bytes(b"not a prefix at all")
    assert len(DiskPrefixes(tmp_path, 10_000, min_tokens=4)) == 0
    assert list(tmp_path.glob("*.prefix")) == []


def test_a_file_that_vanished_is_a_miss(tmp_path):
    disk = DiskPrefixes(tmp_path, 10_000, min_tokens=4)
    disk.store(list(range(10)), b"x")
    hit = disk.lookup(as_tokens(list(range(10))))
    next(tmp_path.glob("*.prefix")).unlink()  # another process evicted it
    assert hit is not None and disk.read(hit) is None and len(disk) == 0


def test_each_model_file_and_library_version_has_its_own_folder(tmp_path):
    model = tmp_path / "m.gguf"
    model.write_bytes(b"weights")
    first = model_folder(tmp_path, model, "0.3.36")
    assert first == model_folder(tmp_path, model, "0.3.36")
    assert first != model_folder(tmp_path, model, "0.3.37")
    model.write_bytes(b"other weights")
    assert first != model_folder(tmp_path, model, "0.3.36")


def test_a_new_process_starts_from_what_the_last_one_read(small_model, tmp_path):
    script = textwrap.dedent(f"""
        import asyncio
        from podium.agent.backend import Prompt
        from podium.backends import backend_from_spec

        async def main():
            local = backend_from_spec("local:{small_model}", n_ctx=1024, n_threads=2)
            session = await local.start_session({{"system": "You answer office questions. " * 20}})
            async for event in local.prompt(session, Prompt("Which file holds the budget?", max_tokens=3,
                                                            temperature=0.0)):
                if event.kind.value == "usage":
                    print(event.data["cached_tokens"], event.data["input_tokens"])

        asyncio.run(main())
    """)
    env = {**os.environ, "PODIUM_CACHE_DIR": str(tmp_path)}

    def once() -> tuple[int, int]:
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
        assert out.returncode == 0, out.stderr[-2000:]
        cached, read = out.stdout.split()
        return int(cached), int(read)

    cold, prompt = once()
    warm, same = once()
    assert cold == 0 and same == prompt
    assert warm == prompt - MIN_BATCH  # the end is read again, for its logits
    assert list((tmp_path / "prefixes").rglob("*.prefix"))
