"""The backends inside real agents: a Session keeps the conversation and reports failures as reasons."""

from __future__ import annotations

import pytest

from podium import Session, Solo
from podium.backends import RetryPolicy, backend_from_spec
from podium.errors import ReasonKind, RunFailed

from .conftest import Waits
from .fakes import openai_error, openai_stream


async def test_an_agent_keeps_its_conversation_across_asks_and_fails_with_the_backend_reason(fake_server):
    fake_server.push(openai_stream(["Paris"]), openai_stream(["About 2 million."]),
                     openai_error(400, "prompt too long"))
    backend = backend_from_spec(f"openai-compatible:{fake_server.url}/v1#fake-model",
                                retry=RetryPolicy(max_attempts=1, sleep=Waits()))
    async with await Session.start(Solo(), backend=backend, system="Answer briefly.") as session:
        assert (await session.ask("Capital of France?")).text == "Paris"
        second = await session.ask("Population?")
        assert second.text == "About 2 million." and second.usage.input_tokens == 11
        with pytest.raises(RunFailed) as caught:
            await session.ask("x" * 100)
    assert caught.value.reason.kind is ReasonKind.INVALID_REQUEST
    assert "prompt too long" in caught.value.reason.detail
    sent = fake_server.requests[1].body["messages"]
    assert sent == [{"role": "system", "content": "Answer briefly."},
                    {"role": "user", "content": "Capital of France?"},
                    {"role": "assistant", "content": "Paris"},
                    {"role": "user", "content": "Population?"}]
