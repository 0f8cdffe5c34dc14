"""Scripted models from a JSON file (`--model scripted:FILE.json`): replies per role, in order."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from podium.agent.events import EventKind
from podium.cli.script import load_script
from podium.errors import ConfigError


async def reply(backend: Any, prompt: str = "prompt") -> tuple[str, list[Any]]:
    session = await backend.start_session({})
    events = [e async for e in backend.prompt(session, prompt)]
    terminal = events[-1]
    text = terminal.data.get("text") if terminal.kind is EventKind.RESULT else terminal.data.get("detail")
    return str(text), events


def script(tmp_path: Path, body: Any) -> Path:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(body))
    return path


async def test_each_role_plays_its_own_replies_in_order(tmp_path: Path) -> None:
    loaded = load_script(script(tmp_path, {
        "planner": [{"Status": "ASSIGN"}, "plain text"],
        "apps": {"documents": [{"status": "FINISH"}]},
        "app": [{"status": "CONTINUE"}],
        "judge": [{"complete": "yes"}]}))
    planner = loaded.backend("planner")
    assert json.loads((await reply(planner))[0]) == {"Status": "ASSIGN"}
    assert (await reply(planner))[0] == "plain text"
    text, events = await reply(planner)
    assert events[-1].kind is EventKind.ERROR and "has no reply left for the HostAgent (planner) (it has 2)" in text
    assert json.loads((await reply(loaded.backend("app", "documents")))[0]) == {"status": "FINISH"}
    assert json.loads((await reply(loaded.backend("app", "shell")))[0]) == {"status": "CONTINUE"}
    assert json.loads((await reply(loaded.backend("judge")))[0]) == {"complete": "yes"}


async def test_usage_and_failures(tmp_path: Path) -> None:
    loaded = load_script(script(tmp_path, {"usage": [100, 20], "planner": [
        "a", {"$say": "b", "usage": [7, 3]}, {"$fail": "server down"}]}))
    planner = loaded.backend("planner")
    usages = [[e.data for e in (await reply(planner))[1] if e.kind is EventKind.USAGE] for _ in range(2)]
    assert [(u[0]["input_tokens"], u[0]["output_tokens"]) for u in usages] == [(100, 20), (7, 3)]
    text, events = await reply(planner)
    assert events[-1].kind is EventKind.ERROR and text == "server down"


async def test_data_it_does_not_know_is_referred_to_as_a_model_does(tmp_path: Path) -> None:
    reply_with_ref = {"actions": [{"function": "write_rows", "arguments": {"rows": {"ref": "1.read_table.rows"}}}],
                      "status": "CONTINUE"}
    loaded = load_script(script(tmp_path, {"apps": {"spreadsheets": [reply_with_ref]}}))
    backend = loaded.backend("app", "spreadsheets")
    # sent as written: the host resolves the reference before the call runs (podium.desktop.host.artifacts)
    assert json.loads((await reply(backend))[0]) == reply_with_ref


@pytest.mark.parametrize(("body", "message"), [
    ("not json", "is not valid JSON"),
    ([1, 2], "must hold a JSON object"),
    ({"planer": []}, "unknown key(s) ['planer']"),
    ({"planner": {"Status": "FINISH"}}, "planner must be a list of replies"),
    ({"apps": {"files": [3]}}, "apps.files[0] must be an object or a string"),
    ({"apps": []}, "apps must map application names"),
    ({"usage": [1]}, "usage must be [input_tokens, output_tokens]"),
    ({"planner": [{"$say": "x", "tokens": 3}]}, "unknown key(s) ['tokens'] next to $say"),
])
def test_bad_scripts_are_refused_with_the_place(tmp_path: Path, body: Any, message: str) -> None:
    path = tmp_path / "script.json"
    path.write_text(body if isinstance(body, str) else json.dumps(body))
    with pytest.raises(ConfigError) as caught:
        load_script(path)
    assert str(path) in str(caught.value) and message in str(caught.value)
