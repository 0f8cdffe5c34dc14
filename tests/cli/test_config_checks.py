"""What one table of podium.toml says about another: a cost limit no price can enforce, a model for an
application that does not exist. Both were silently ignored; both are now clear errors, naming the
table, the key and the fix, at load time and from the command line (exit code 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from podium.cli.config import parse_config
from podium.errors import ConfigError
from tests.cli.conftest import Invoke


def test_max_cost_needs_a_price_for_every_model_that_bills() -> None:
    with pytest.raises(ConfigError) as missing:
        parse_config({"limits": {"max_cost": 2.0}, "models": {"planner": "openai:gpt-4.1-mini"}})
    message = str(missing.value)
    assert "[limits] max_cost = 2.0 cannot be enforced" in message
    assert "no price for openai:gpt-4.1-mini (the model of the planner)" in message
    assert 'add "gpt-4.1-mini" = { input = ..., output = ... }' in message


def test_every_role_is_checked_and_a_dated_model_takes_its_family_price() -> None:
    prices = {"gpt-4.1-mini": {"input": 0.4, "output": 1.6}}
    models = {"planner": "openai:gpt-4.1-mini-2025-04-14", "judge": "anthropic:claude-sonnet-4-5",
              "per_app": {"documents": "openai-compatible:http://127.0.0.1:8000/v1#qwen"}}
    with pytest.raises(ConfigError, match=r"claude-sonnet-4-5 \(the model of the judge\)"):
        parse_config({"limits": {"max_cost": 1}, "models": models, "prices": prices})
    prices["claude-sonnet-4-5"] = {"input": 3, "output": 15}
    with pytest.raises(ConfigError, match=r"#qwen \(the model of the documents AppAgent\)"):
        parse_config({"limits": {"max_cost": 1}, "models": models, "prices": prices})
    prices["qwen"] = {"input": 0, "output": 0}  # a server of one's own: free, said so
    config = parse_config({"limits": {"max_cost": 1}, "models": models, "prices": prices})
    assert config.limits.max_cost == 1


def test_free_models_need_no_price_and_no_limit_needs_none() -> None:
    parse_config({"limits": {"max_cost": 1}, "models": {"planner": "local", "app": "ollama:qwen2.5",
                                                         "judge": "scripted:judge.json"}})
    parse_config({"models": {"planner": "openai:gpt-4.1-mini"}})  # no max_cost: tokens are still counted


def test_a_misspelt_application_in_per_app_is_an_error_naming_the_applications() -> None:
    with pytest.raises(ConfigError) as misspelt:
        parse_config({"models": {"per_app": {"spreadsheet": "local"}}})
    assert ("[models.per_app] spreadsheet: no application of that name in this configuration; the applications "
            "are documents, files, shell, spreadsheets") in str(misspelt.value)


def test_per_app_knows_the_enabled_built_ins_mcp_servers_and_desktop_programs() -> None:
    apps = {"enabled": ["files"], "mcp": {"weather": {"command": "weather-mcp"}},
            "desktop": {"calc": {"command": ["localc"]}}}
    config = parse_config({"apps": apps, "models": {"per_app": {"files": "local", "weather": "local",
                                                                "calc": "local"}}})
    assert set(config.models.per_app) == {"files", "weather", "calc"}
    with pytest.raises(ConfigError, match="documents: no application of that name"):  # not enabled here
        parse_config({"apps": apps, "models": {"per_app": {"documents": "local"}}})


def test_the_command_line_reports_both_with_exit_code_2(cli: Invoke, work: Path, tmp_path: Path) -> None:
    config = tmp_path / "project" / "podium.toml"
    config.write_text('[models.per_app]\nspredsheets = "local"\n')
    result = cli("run", "Anything", "-w", str(work), "--batch")
    assert result.exit_code == 2 and "[models.per_app] spredsheets" in result.stderr
    config.write_text("[limits]\nmax_cost = 0.5\n")
    result = cli("run", "Anything", "-w", str(work), "--batch", "-m", "openai:gpt-4.1-mini")
    assert result.exit_code == 2
    assert "no price for openai:gpt-4.1-mini (the model of every role (--model))" in result.stderr
