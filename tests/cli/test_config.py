"""podium.toml: where it is found, what it sets, and errors that name the file and the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from podium.cli.config import PodiumConfig, load_config, parse_config
from podium.errors import ConfigError
from tests.cli.conftest import Invoke, read_json
from tests.cli.scripts import app, assign, host, sub, write_script


def test_no_file_means_the_defaults(home: Path) -> None:
    config = load_config()
    assert config.source is None and config.models.planner == "local"
    assert config.journal_path() == home / "journal.db"
    assert config.host_config(interactive=False, auto_approve=False).max_steps == 100


def test_the_project_file_comes_before_the_users(home: Path, tmp_path: Path) -> None:
    home.mkdir()
    (home / "podium.toml").write_text("[limits]\nmax_steps = 7\n")
    assert load_config().limits.max_steps == 7
    (tmp_path / "project" / "podium.toml").write_text("[limits]\nmax_steps = 9\n")
    assert load_config().limits.max_steps == 9
    other = tmp_path / "other.toml"
    other.write_text("[limits]\nmax_steps = 11\n")
    assert load_config(other).limits.max_steps == 11  # --config wins over both


def test_every_part_of_the_file(tmp_path: Path) -> None:
    config = parse_config({
        "models": {"planner": "ollama:qwen2.5", "app": "openai:gpt-4.1-mini", "judge": "anthropic:claude-x",
                   "per_app": {"spreadsheets": "local"}},
        "backends": {"openai": {"timeout": 30, "retry": 3, "api_key_env": "MY_KEY"}, "local": {"n_ctx": 8192}},
        "host": {"evaluate": True, "default_answer": "skip it", "turn_timeout": 120.0},
        "limits": {"max_steps": 40, "max_subtask_steps": 8, "max_wall_time": 600, "max_tokens": 100000,
                   "max_cost": 1.5, "max_replans": 0},
        "prices": {"gpt-4.1-mini": {"input": 0.4, "output": 1.6}, "claude-x": {"input": 3, "output": 15}},
        "apps": {"enabled": ["files", "shell", "spreadsheets"], "shell": {"allow": ["wc"]}},
        "journal": {"path": "/var/tmp/podium.db"},
    }, tmp_path / "podium.toml")
    host_config = config.host_config(interactive=True, auto_approve=False)
    assert (host_config.max_steps, host_config.max_subtask_steps, host_config.max_wall_time) == (40, 8, 600)
    assert (host_config.max_tokens, host_config.max_cost, host_config.max_replans) == (100000, 1.5, 0)
    assert host_config.evaluate and host_config.default_answer == "skip it" and host_config.interactive
    assert config.backend_settings("openai") == {"timeout": 30, "retry": 3, "api_key_env": "MY_KEY"}
    assert config.price_table().cost("openai:gpt-4.1-mini", 1_000_000, 0) == pytest.approx(0.4)
    assert config.journal_path() == Path("/var/tmp/podium.db")


@pytest.mark.parametrize(("text", "expected"), [
    ("[limits]\nmax_steps = \"ten\"\n", "[limits] max_steps: Input should be a valid integer (got a string)"),
    ("[limits]\nmax_stesp = 10\n", "[limits] max_stesp: unknown key; known keys here: max_steps,"),
    ("[modles]\nplanner = \"local\"\n", "modles: unknown key; known keys here: models, backends"),
    ("[models]\nplanner = \"gpt-4\"\n", "[models] planner: invalid model spec 'gpt-4': unknown provider 'gpt-4'"),
    ("[limits]\nmax_steps = 0\n", "[limits] max_steps: Input should be greater than or equal to 1"),
    ("[host]\nevaluate = \"yes\"\n", "[host] evaluate: Input should be a valid boolean (got a string)"),
    ("[backends.opneai]\ntimeout = 3\n", "unknown provider [backends.opneai]"),
    ("[prices]\nm = { input = \"cheap\" }\n", "[prices]: price of 'm'"),
    ("[limits\nmax_steps = 3\n", "not valid TOML"),
])
def test_errors_name_the_file_and_the_key(cli: Invoke, tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "project" / "podium.toml"
    path.write_text(text)
    result = cli("apps")
    assert result.exit_code == 2
    assert str(path) in result.stderr and expected in result.stderr
    assert "Traceback" not in result.output


def test_several_errors_are_reported_at_once(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config({"limits": {"max_steps": "x", "max_cost": -1}, "host": {"bogus": 1}}, tmp_path / "p.toml")
    message = str(caught.value)
    assert "[limits] max_steps" in message and "[limits] max_cost" in message and "[host] bogus" in message


def test_a_key_in_the_file_is_refused_and_never_echoed(cli: Invoke, tmp_path: Path) -> None:
    (tmp_path / "project" / "podium.toml").write_text('[backends.openai]\napi_key = "sk-live-0123456789"\n')
    result = cli("run", "anything", "--batch")
    assert result.exit_code == 2
    assert "[backends.openai] api_key: secrets do not belong in the config file" in result.stderr
    assert "api_key_env" in result.stderr
    assert "sk-live-0123456789" not in result.output


def test_a_wrongly_typed_value_is_not_echoed(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config({"limits": {"max_cost": "sk-live-0123456789"}})
    assert "sk-live-0123456789" not in str(caught.value) and "(got a string)" in str(caught.value)


def test_bad_applications_config_names_the_file(cli: Invoke, tmp_path: Path) -> None:
    path = tmp_path / "project" / "podium.toml"
    path.write_text('[apps]\nenabled = ["paint"]\n')
    result = cli("apps")
    assert result.exit_code == 2
    assert f"[apps] in {path}" in result.stderr and "unknown built-in application(s) ['paint']" in result.stderr


def test_models_per_role_from_the_config(cli: Invoke, work: Path, tmp_path: Path) -> None:
    """Relative script paths are read from the config file's folder; each role plays its own script."""
    folder = tmp_path / "settings"
    folder.mkdir()
    write_script(folder / "planner.json", [assign(sub("1", "Write notes", "files", writes=["notes.txt"],
                                                             tools=["write_file"])), host("FINISH", "ok")])
    write_script(folder / "files.json", [], {"files": [
        app("CONTINUE", ("write_file", {"path": "notes.txt", "content": "from the files model"})),
        app("FINISH", result="written")]})
    (folder / "podium.toml").write_text(
        '[models]\nplanner = "scripted:planner.json"\napp = "scripted:none.json"\n\n'
        '[models.per_app]\nfiles = "scripted:files.json"\n\n[apps]\nenabled = ["files", "documents"]\n')
    out = tmp_path / "summary.json"
    result = cli("run", "Write notes", "-w", str(work), "--config", str(folder / "podium.toml"), "--batch",
                 "--json-out", str(out))
    assert result.exit_code == 2 and "no script file at" in result.stderr  # the app default must exist too
    write_script(folder / "none.json", [])
    result = cli("run", "Write notes", "-w", str(work), "--config", str(folder / "podium.toml"), "--batch",
                 "--json-out", str(out))
    assert result.exit_code == 0, result.output
    assert (work / "notes.txt").read_text() == "from the files model"
    models = read_json(out)["models"]
    assert models["planner"] == f"scripted:{folder / 'planner.json'}"
    assert models["apps"] == {"files": f"scripted:{folder / 'files.json'}",
                              "documents": f"scripted:{folder / 'none.json'}"}


def test_the_model_option_overrides_every_role(cli: Invoke, work: Path, tmp_path: Path) -> None:
    (tmp_path / "project" / "podium.toml").write_text('[models]\nplanner = "openai:gpt-4.1-mini"\n')
    script = write_script(tmp_path / "s.json", [host("FINISH", "nothing to do")])
    out = tmp_path / "summary.json"
    result = cli("run", "Nothing", "-w", str(work), "-m", f"scripted:{script}", "--batch", "--json-out", str(out))
    assert result.exit_code == 0, result.output
    assert {read_json(out)["models"]["planner"], read_json(out)["models"]["judge"]} == {f"scripted:{script}"}


def test_limits_from_the_config_end_the_run(cli: Invoke, work: Path, tmp_path: Path) -> None:
    (tmp_path / "project" / "podium.toml").write_text("[limits]\nmax_steps = 2\n")
    script = write_script(tmp_path / "s.json", [assign(sub("1", "List the files", "files", reads=["."],
                                                           tools=["list_files"]))] + [host("CONTINUE")] * 3,
                          {"files": [app("CONTINUE", ("list_files", {"path": "."}))] * 5})
    out = tmp_path / "summary.json"
    result = cli("run", "Loop", "-w", str(work), "-m", f"scripted:{script}", "--batch", "--json-out", str(out))
    assert result.exit_code == 1
    summary = read_json(out)
    assert summary["reason_kind"] == "limit_reached" and "max_steps" in summary["reason"]


def test_the_workspace_from_the_config(cli: Invoke, tmp_path: Path) -> None:
    (tmp_path / "project" / "data").mkdir()
    (tmp_path / "project" / "podium.toml").write_text('[apps]\nworkspace = "data"\nenabled = ["files"]\n')
    result = cli("apps")
    assert result.exit_code == 0, result.output
    assert str(tmp_path / "project" / "data") in result.stdout


def test_config_model_is_strict_about_types() -> None:
    with pytest.raises(ConfigError):
        parse_config({"limits": {"max_steps": 3.5}})
    assert isinstance(parse_config({"limits": {"max_wall_time": 30}}), PodiumConfig)  # an int is a fine float


@pytest.mark.parametrize(("example", "apps"), [
    ("podium.toml", ["files", "documents", "spreadsheets", "shell"]),
    ("quarterly/podium.toml", ["documents", "spreadsheets"]),
])
def test_the_shipped_example_configs_are_valid(cli: Invoke, example: str, apps: list[str]) -> None:
    path = Path(__file__).parents[2] / "examples" / example
    assert load_config(path).models.planner == "local"
    result = cli("apps", "--config", str(path))
    assert result.exit_code == 0, result.output
    assert [name for name in ("files", "documents", "spreadsheets", "shell") if f"│ {name} " in result.stdout] == apps
