"""The embedded backend: a GGUF model run in this process on the CPU by llama-cpp-python (optional extra
`local`, imported lazily). No server, no key, no network: `podium run` works on a fresh machine.

One model instance per file is shared by every agent and backend of the process (a 1.5B model is ~1 GB
of weights); a lock serialises generation on it, and generation runs in a worker thread so the event loop
keeps serving the other agents. Structured output (Prompt.schema) is constrained by a grammar llama.cpp
builds from the JSON schema, so even a small model answers in the right shape.

Decoding is podium's own loop (llama_decoder): the prompt's known prefix comes from the model's context or
a cache of evaluated prefixes shared by all agents (prefix_cache), only the rest is read, and answers that
copy their prompt are written several tokens a step (prompt_lookup). Each call's usage says how many
prompt tokens came from the cache and how long reading and writing took.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import os
import threading
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from podium.agent.backend import BaseBackend, Prompt
from podium.agent.events import Event
from podium.backends.chat import ChatSession, assistant_message, setting
from podium.backends.json_grammar import gbnf
from podium.backends.llama_decoder import DecodeError, Decoder, Speculation, TurnStats
from podium.backends.llama_prompt import prepare
from podium.backends.local_model import Progress, default_cache_dir, ensure_default_model
from podium.backends.machine import ThreadSettings, choose_threads, this_machine
from podium.backends.prefix_cache import PrefixCache
from podium.backends.prefix_disk import DiskPrefixes, model_folder
from podium.backends.pricing import NO_PRICES, PriceTable
from podium.backends.retry import Failure
from podium.backends.structured import OutputErrors, validate_schema
from podium.errors import ConfigError, ReasonKind


@dataclass(slots=True)
class _Loaded:
    llama: Any
    lock: threading.Lock
    # One thread per model: queued turns wait here instead of holding threads of the loop's default pool.
    executor: ThreadPoolExecutor
    decoder: Decoder
    threads: ThreadSettings
    load_seconds: float = 0.0
    # The running turn's cancel flag, read by llama.cpp between the steps of its computation: a prompt of
    # a few thousand tokens takes half a minute to evaluate on two cores, and an interrupted turn (Ctrl-C,
    # a watchdog, a cancelled request) must not hold the model, or the process's exit, that long.
    abort: threading.Event | None = None
    callback: Any = None  # the ctypes callback, kept alive as long as llama.cpp may call it

    def watch_aborts(self) -> None:
        import llama_cpp.llama_cpp as native

        def aborted(_: Any) -> bool:
            flag = self.abort
            return flag is not None and flag.is_set()

        self.callback = native.ggml_abort_callback(aborted)
        native.llama_set_abort_callback(self.llama.ctx, self.callback, None)


_models: dict[Path, _Loaded] = {}
_models_lock = threading.Lock()
_params_lock = threading.Lock()


@contextlib.contextmanager
def _model_params(repack: bool) -> Iterator[None]:
    """llama-cpp-python's Llama() takes no switch for llama.cpp's weight repacking ("extra buffer
    types"), so its default model params are adjusted while one model loads. Repacking is off by
    default: on CPUs that report AMX under a hypervisor that does not allow it, the repacked kernels
    die of SIGILL, taking the whole process with them."""
    import llama_cpp.llama_cpp as native

    with _params_lock:
        defaults = native.llama_model_default_params

        def adjusted() -> Any:
            params = defaults()
            params.use_extra_bufts = repack
            return params

        native.llama_model_default_params = adjusted
        try:
            yield
        finally:
            native.llama_model_default_params = defaults


def _close_all() -> None:
    """Free the shared models at exit, while llama_cpp's module globals still exist (Llama.__del__ run
    later, during interpreter teardown, fails noisily)."""
    with _models_lock:
        for loaded in _models.values():
            loaded.executor.shutdown(wait=False, cancel_futures=True)
            if loaded.lock.acquire(timeout=5):  # never free a model under a running generation
                with contextlib.suppress(Exception):
                    loaded.decoder.persist()  # a cache is never worth a failed exit
                with contextlib.suppress(Exception):
                    loaded.decoder.close()
                    loaded.llama.close()
        _models.clear()


@dataclass(frozen=True, slots=True)
class HeadKept:
    """What keeping one agent's instructions cost: their tokens, how many were read now (0 when kept
    already), the seconds reading, whether a head was written, and whether a disk cache exists at all."""

    tokens: int
    read: int
    seconds: float
    written: bool
    on_disk: bool
    error: str = ""  # why they could not be read (longer than the context)


DEFAULT_CACHE_BYTES = 768 * 2**20  # ~27k tokens of Qwen2.5-1.5B state: the seed's agents' prompts, several times
DEFAULT_DISK_CACHE_BYTES = 2**30  # what later processes start from (prefix_disk)
PROMPT_LOOKUP = Speculation()


def load_shared(path: Path, *, n_ctx: int, n_threads: int | None, chat_format: str | None,
                repack: bool = False, n_threads_batch: int | None = None, n_batch: int | None = None,
                cache_bytes: int = DEFAULT_CACHE_BYTES, speculation: Speculation = PROMPT_LOOKUP,
                disk_folder: Path | None = None, disk_cache_bytes: int = 0) -> _Loaded:
    """The process-wide model instance for `path`, loaded on first use (later settings are ignored)."""
    path = path.resolve()
    with _models_lock:
        loaded = _models.get(path)
        if loaded is not None:
            return loaded
        # OpenMP threads that spin while waiting steal the cores the event loop, the other agents and
        # the applications need (and collapse when cores are shared): wait passively unless told otherwise.
        # Read once, when llama.cpp's OpenMP runtime starts, i.e. at the first import below.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        try:
            import llama_cpp
        except ImportError:
            raise ConfigError("the local backend needs llama-cpp-python: pip install 'podium[local]'") from None
        if not path.is_file():
            raise ConfigError(f"local model {path} does not exist: name a GGUF file (local:/path/model.gguf)")
        threads = choose_threads(this_machine(), n_threads=n_threads, n_threads_batch=n_threads_batch,
                                 n_batch=n_batch)
        for name, value in (("cache_bytes", cache_bytes), ("disk_cache_bytes", disk_cache_bytes)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ConfigError(f"[backends.local] {name} must be a number of bytes >= 0, got {value!r}")
        started = time.perf_counter()
        with _model_params(repack):
            try:
                llama = llama_cpp.Llama(model_path=str(path), n_ctx=n_ctx, n_threads=threads.n_threads,
                                        n_threads_batch=threads.n_threads_batch, n_batch=threads.n_batch,
                                        n_ubatch=threads.n_batch, chat_format=chat_format, verbose=False)
            except (ValueError, RuntimeError) as exc:
                raise ConfigError(f"llama.cpp could not load {path}: {exc} (is it a GGUF model?)") from exc
        seconds = time.perf_counter() - started
        if not _models:
            atexit.register(_close_all)
        cache = PrefixCache(cache_bytes) if cache_bytes > 0 else None
        disk = None
        if cache is not None and disk_folder is not None and disk_cache_bytes > 0:
            try:
                disk = DiskPrefixes(model_folder(disk_folder, path, llama_cpp.__version__), disk_cache_bytes)
            except OSError:  # a read-only or full cache folder: the run goes on without
                disk = None
        decoder = Decoder(llama, cache=cache, n_batch=threads.n_batch, speculation=speculation, disk=disk)
        loaded = _models[path] = _Loaded(llama, threading.Lock(),
                                         ThreadPoolExecutor(1, thread_name_prefix=f"podium-{path.stem}"),
                                         decoder, threads, seconds)
        loaded.watch_aborts()
        return loaded


@lru_cache(maxsize=128)
def _enforced(schema: str) -> bool:
    """Whether llama.cpp turns the schema into a grammar. Then the decoder enforces it, and spelling it
    out in the prompt only costs time: the desktop's AppAgent schema is ~1,400 tokens that its prompt
    already says in words, a third of each step's prompt on a CPU that reads ~50 tokens a second (as
    the OpenAI backend's strict json_schema mode, which adds no instruction either). A schema llama.cpp
    cannot convert falls back to any JSON, so the prompt must say it."""
    try:
        gbnf(schema)
    except Exception:  # any failure to convert means no grammar: the instruction stays
        return False
    return True


def _schema_instruction(schema: Mapping[str, Any]) -> str:
    return "Answer with one JSON value that matches this JSON schema:\n" + json.dumps(schema, separators=(",", ":"))


class EmbeddedBackend(BaseBackend):
    """A local GGUF model. `model_path` None means the default model (assembled once into the cache).

    Settings: n_ctx (context window), n_threads / n_threads_batch / n_batch (default: from the machine,
    see machine.py), max_tokens per answer, seed (for repeatable sampling), timeout (seconds a turn may
    take, waiting for the model included), chat_format (default: the template inside the GGUF), repack
    (llama.cpp weight repacking; off, see _model_params), cache_bytes (evaluated prefixes kept for later
    prompts; 0: none), disk_cache_bytes (those kept on disk for later processes, in cache_dir's prefixes/;
    0: none), prompt_lookup (guess copied text; on, kept only where it wins).
    """

    # The desktop's named rules for small models ("auto" in its config resolves to this; see
    # podium.desktop.rules): the models this backend runs on a laptop are small.
    rules_profile = "small-local"

    def __init__(self, model_path: Path | str | None = None, *, n_ctx: int = 8192, n_threads: int | None = None,
                 max_tokens: int = 1024, seed: int | None = None, timeout: float = 600.0,
                 prices: PriceTable | None = None, cache_dir: Path | str | None = None,
                 progress: Progress | None = None, chat_format: str | None = None, repack: bool = False,
                 n_threads_batch: int | None = None, n_batch: int | None = None,
                 cache_bytes: int = DEFAULT_CACHE_BYTES, prompt_lookup: bool = True,
                 disk_cache_bytes: int = DEFAULT_DISK_CACHE_BYTES) -> None:
        self.model_path = Path(model_path).expanduser() if model_path is not None else None
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.max_tokens = max_tokens
        self.seed = seed
        self.timeout = timeout
        self.prices = prices or NO_PRICES
        self.cache_dir = Path(cache_dir).expanduser() if cache_dir is not None else None
        self.progress = progress
        self.chat_format = chat_format
        self.repack = repack
        self.n_threads_batch = n_threads_batch
        self.n_batch = n_batch
        self.cache_bytes = cache_bytes
        self.prompt_lookup = prompt_lookup
        self.disk_cache_bytes = disk_cache_bytes
        self._loaded: _Loaded | None = None

    def __repr__(self) -> str:
        return f"EmbeddedBackend({str(self.model_path) if self.model_path else 'default model'!r})"

    def _resolve(self) -> Path:
        if self.model_path is not None:
            return self.model_path
        return ensure_default_model(cache_dir=self.cache_dir, progress=self.progress)

    async def load(self) -> _Loaded:
        """Assemble (first time) and load the model, off the event loop."""
        if self._loaded is None:
            def work() -> _Loaded:
                return load_shared(self._resolve(), n_ctx=self.n_ctx, n_threads=self.n_threads,
                                   chat_format=self.chat_format, repack=self.repack,
                                   n_threads_batch=self.n_threads_batch, n_batch=self.n_batch,
                                   cache_bytes=self.cache_bytes,
                                   disk_folder=(self.cache_dir or default_cache_dir()) / "prefixes",
                                   disk_cache_bytes=self.disk_cache_bytes)

            self._loaded = await asyncio.to_thread(work)
        return self._loaded

    async def start_session(self, opts: Mapping[str, Any]) -> ChatSession:
        if opts.get("tools"):
            raise ConfigError("the local backend does not call tools natively: describe the actions in the "
                              "prompt and ask for structured output (Prompt.schema) instead")
        await self.load()
        name = self.model_path.name if self.model_path else "local"
        return ChatSession.from_opts(name, opts)

    async def update_session(self, session: ChatSession, terminal: Event) -> ChatSession:
        return session.settle(terminal)

    def prompt(self, session: ChatSession, prompt: str | Prompt) -> AsyncIterator[Event]:
        return self._run(session, prompt)

    async def keep_head(self, system: str) -> HeadKept:
        """Read an agent's instructions (its system message) once and keep their state on disk, so that
        every later process's calls with them start after them: what a first call would otherwise read
        (see podium.desktop.shell.heads). Does nothing when they are kept already."""
        loaded = await self.load()
        messages = [{"role": "system", "content": system}, {"role": "user", "content": ""}]

        def work() -> HeadKept:
            with loaded.lock:
                loaded.abort = None  # the last turn's flag, set as it ended, would stop this reading at once
                completion = prepare(loaded.llama, messages, schema=None, temperature=0.0, max_tokens=1,
                                     seed=self.seed)
                stats = TurnStats()
                try:
                    kept = loaded.decoder.keep_head(completion, stats)
                except DecodeError as exc:
                    return HeadKept(stats.prompt, 0, 0.0, False, loaded.decoder.disk is not None, str(exc))
                return HeadKept(stats.prompt, stats.prompt - stats.cached if kept else 0,
                                stats.read_ms / 1000, kept, loaded.decoder.disk is not None)

        return await asyncio.get_running_loop().run_in_executor(loaded.executor, work)

    async def _run(self, session: ChatSession, prompt: str | Prompt) -> AsyncIterator[Event]:
        loaded = await self.load()
        new = session.new_messages(prompt)
        schema = None if isinstance(prompt, str) else prompt.schema
        system = setting(prompt, "system", session.system)
        spell = isinstance(prompt, Prompt) and prompt.spell_schema
        if schema is not None and (spell or not _enforced(json.dumps(schema, sort_keys=True))):
            system = f"{system}\n\n{_schema_instruction(schema)}" if system else _schema_instruction(schema)
        messages = session.request_messages(new, system)
        max_tokens = setting(prompt, "max_tokens", session.max_tokens) or self.max_tokens
        temperature = setting(prompt, "temperature", session.temperature)

        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        cancel = threading.Event()

        def put(kind: str, value: Any) -> None:
            loop.call_soon_threadsafe(queue.put_nowait, (kind, value))

        def work() -> None:
            try:
                with loaded.lock:
                    if cancel.is_set():
                        return
                    loaded.abort = cancel
                    completion = prepare(loaded.llama, messages, schema=schema, temperature=temperature,
                                         max_tokens=max_tokens, seed=self.seed)
                    stats = TurnStats()
                    for piece in loaded.decoder.run(completion, stats, cancel.is_set,
                                                    speculate=self.prompt_lookup):
                        put("text", piece)
                    put("done", stats)
            except BaseException as exc:  # handed to the event loop, which turns it into a Reason
                put("error", exc)

        loop.run_in_executor(loaded.executor, work)
        deadline = time.monotonic() + self.timeout
        text: list[str] = []
        try:
            while True:
                remaining = deadline - time.monotonic()
                try:
                    kind, value = await asyncio.wait_for(queue.get(), max(remaining, 0.0))
                except TimeoutError:
                    yield Failure(ReasonKind.TIMEOUT,
                                  f"the local model did not finish within {self.timeout:g} s").event()
                    return
                if kind == "text":
                    text.append(value)
                    yield Event.text(value)
                elif kind == "error":
                    yield Failure(ReasonKind.BACKEND_ERROR,
                                  f"the local model failed: {type(value).__name__}: {value}").event()
                    return
                else:
                    stats: TurnStats = value
                    break
        finally:
            cancel.set()  # an interrupted turn frees the model at its next token
        finish = stats.finish
        yield self.prices.price_event(Event.usage(
            stats.prompt, stats.output, model=session.model, cached_tokens=stats.cached,
            read_ms=round(stats.read_ms, 1), write_ms=round(stats.write_ms, 1),
            draft_tokens=stats.drafted, accepted_tokens=stats.accepted))
        full = "".join(text)
        if schema is not None:
            checked = validate_schema(schema, full)
            if isinstance(checked, OutputErrors):
                hint = " (the answer was cut at max_tokens)" if finish == "length" else ""
                yield Event.error(f"invalid structured output{hint}: {checked.message}",
                                  reason=checked.reason(), raw=full)
                return
        yield Event.result(full, exchange=(*new, assistant_message(full)), finish_reason=finish,
                           model=session.model)
