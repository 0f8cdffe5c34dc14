"""make_archive and extract_archive on real .zip files: what goes in, what comes out, and each unsafe
archive refused before a byte is written (names out of the folder, links, bombs, files in the way)."""

from __future__ import annotations

import io
import os
import stat
import zipfile
from pathlib import Path

import pytest

from podium.apps.base import Change
from podium.apps.files import FilesApplication
from podium.apps.workspace import Workspace
from tests.apps.effects_check import call_checked, kinds


@pytest.fixture
def files(workspace: Workspace) -> FilesApplication:
    return FilesApplication(workspace)


def zip_of(path: Path, entries: dict[str, bytes], links: dict[str, str] | None = None) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, target)
    path.write_bytes(buffer.getvalue())


async def test_a_folder_into_an_archive_and_back(files: FilesApplication, root: Path) -> None:
    (root / "logs").mkdir()
    (root / "logs" / "a.log").write_text("one\n")
    (root / "logs" / "deep").mkdir()
    (root / "logs" / "deep" / "b.log").write_text("two\n")
    (root / "logs" / "c.txt").write_text("three\n")
    os.symlink(root.parent / "outside" / "secret.txt", root / "logs" / "leak.log")
    call = {"source": "logs", "into": "logs.zip", "pattern": "*.log"}
    assert kinds(files, "make_archive", call) == [Change.CREATE] and not files.is_sensitive("make_archive", call)
    made = await call_checked(files, root, "make_archive", call)
    assert made.content["entries"] == ["logs/a.log", "logs/deep/b.log"]
    assert "1 link(s)" in made.content["left_out"]  # the link out of the workspace is not followed
    taken = await call_checked(files, root, "make_archive", call)
    assert "exists already" in taken.error
    back = {"path": "logs.zip", "into": "restored"}
    assert kinds(files, "extract_archive", back) == [Change.CREATE, Change.CREATE]
    out = await call_checked(files, root, "extract_archive", back)
    assert out.content["files"] == 2
    assert (root / "restored" / "logs" / "deep" / "b.log").read_text() == "two\n"
    again = await call_checked(files, root, "extract_archive", back)
    assert "would replace restored/logs/a.log, restored/logs/deep/b.log" in again.error
    replace = {**back, "overwrite": True}
    assert kinds(files, "extract_archive", replace) == [Change.REPLACE, Change.REPLACE]
    assert files.is_sensitive("extract_archive", replace)


@pytest.mark.parametrize("entries, links, said", [
    ({"../escape.txt": b"x"}, None, "points outside"),
    ({"/etc/escape.txt": b"x"}, None, "points outside"),
    ({"ok.txt": b"x", "a/../../escape.txt": b"x"}, None, "points outside"),
    ({"ok.txt": b"x"}, {"link": "/etc/passwd"}, "holds a link"),
])
async def test_unsafe_archives_write_nothing(files: FilesApplication, root: Path, entries: dict[str, bytes],
                                            links: dict[str, str] | None, said: str) -> None:
    zip_of(root / "bad.zip", entries, links)
    refused = await call_checked(files, root, "extract_archive", {"path": "bad.zip", "into": "out"})
    assert said in refused.error and not (root / "out").exists() and not (root.parent / "escape.txt").exists()


async def test_a_folder_linked_out_is_refused(files: FilesApplication, root: Path) -> None:
    zip_of(root / "a.zip", {"x/secret.txt": b"overwritten"})
    os.symlink(root.parent / "outside", root / "x")
    refused = await call_checked(files, root, "extract_archive", {"path": "a.zip"})
    assert refused.error and (root.parent / "outside" / "secret.txt").read_text() == "top secret"


async def test_a_bomb_is_not_unpacked(files: FilesApplication, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from podium.apps import archives

    monkeypatch.setattr(archives, "MAX_BYTES", 1000)
    zip_of(root / "bomb.zip", {"zeros.bin": bytes(5000)})
    refused = await call_checked(files, root, "extract_archive", {"path": "bomb.zip", "into": "out"})
    assert "more than 1,000 bytes" in refused.error and not (root / "out").exists()


async def test_not_an_archive(files: FilesApplication, root: Path) -> None:
    (root / "fake.zip").write_text("no zip")
    assert "not a readable .zip" in (await call_checked(files, root, "extract_archive", {"path": "fake.zip"})).error
    assert "not a .zip path" in (await call_checked(files, root, "make_archive", {"source": "sub",
                                                                                  "into": "sub.tar"})).error


async def test_reading_an_archive_names_the_tool_that_opens_it(files: FilesApplication, root: Path) -> None:
    zip_of(root / "b.zip", {"a.txt": b"x"})
    read = await files.call("read_file", {"path": "b.zip"})
    assert "extract_archive extracts its files" in read.error and read.instead == ("extract_archive",)


async def test_an_archive_put_into_a_folder_names_extract_archive(files: FilesApplication, root: Path) -> None:
    zip_of(root / "b.zip", {"a.txt": b"x"})
    made = await call_checked(files, root, "make_archive", {"source": "b.zip", "into": "b"})
    assert "extract_archive extracts it into 'b'" in made.error and made.instead == ("extract_archive",)
