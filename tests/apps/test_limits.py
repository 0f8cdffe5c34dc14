"""Package limits for untrusted .docx/.xlsx files, and opening only regular files. The attack corpus
(tests/security) throws the bombs; here: real files pass, and each limit says what it refused."""

from __future__ import annotations

import io
import os
import threading
import time
import zipfile
from pathlib import Path

import docx
import pytest

from podium.apps.limits import FileRefused, PackageLimits, check_package, check_sheet_area
from podium.apps.tooling import ToolError
from podium.apps.workspace import PathRefused, Workspace
from tests.apps.xlsx_craft import excel_style_workbook


def docx_bytes(*paragraphs: str, table: tuple[int, int] | None = None) -> bytes:
    document = docx.Document()
    for text in paragraphs:
        document.add_paragraph(text)
    if table:
        document.add_table(rows=table[0], cols=table[1])
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def test_real_files_pass(tmp_path: Path) -> None:
    excel_style_workbook(tmp_path / "excel.xlsx")  # charts, pictures, shapes, VML as Excel writes them
    check_package((tmp_path / "excel.xlsx").read_bytes(), "excel.xlsx")
    check_package(docx_bytes("a paragraph", table=(20, 8)), "report.docx")


@pytest.mark.parametrize(("limits", "words"), [
    (PackageLimits(max_file_bytes=1000), "files over"),
    (PackageLimits(max_members=3), "parts; packages of more than 3"),
    (PackageLimits(max_member_bytes=1000), "parts over"),
    (PackageLimits(max_total_bytes=5000), "packages over"),
    (PackageLimits(max_elements=50), "XML elements"),
    (PackageLimits(max_table_columns=4), "columns"),
    (PackageLimits(max_table_cells=100), "cells"),
])
def test_each_limit_names_what_it_refused(limits: PackageLimits, words: str) -> None:
    with pytest.raises(FileRefused, match=words):
        check_package(docx_bytes("x" * 3000, table=(30, 5)), "report.docx", limits)


def test_compression_ratio_counts_only_for_large_parts() -> None:
    small = io.BytesIO()
    with zipfile.ZipFile(small, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("a.xml", "<a>" + " " * 100_000 + "</a>")  # 300x, but small: fine
    check_package(small.getvalue(), "small.xlsx", PackageLimits(ratio_from=1 << 20))
    with pytest.raises(FileRefused, match="compression bomb"):
        check_package(small.getvalue(), "small.xlsx", PackageLimits(ratio_from=10_000))


def test_a_sheet_write_past_the_limits_is_refused() -> None:
    check_sheet_area(1, 1, 20, 50_000, "writing at A1")
    with pytest.raises(ToolError, match="A1:XFD1048576"):
        check_sheet_area(1, 1, 16_384, 1_048_576, "writing at XFD1048576")


def test_only_regular_files_are_opened_and_none_blocks(root: Path) -> None:
    workspace = Workspace.at(root)
    os.mkfifo(root / "pipe.txt")
    started = time.monotonic()
    with pytest.raises(PathRefused, match="named pipe"):
        workspace.read_bytes(root / "pipe.txt")
    with pytest.raises(PathRefused, match="a folder"):
        workspace.read_bytes(root / "sub")
    assert time.monotonic() - started < 1
    assert workspace.read_bytes(root / "notes.txt") == b"hello\n"
    with pytest.raises(PathRefused, match="over 3 bytes"):
        workspace.read_bytes(root / "notes.txt", limit=3)


def test_a_fifo_swapped_in_after_the_check_is_refused_too(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the path is a file when it is looked at, and a FIFO by the time it is opened (a writer holds it open,
    # so a blocking open would succeed and a read would wait for ever): the descriptor is checked again
    from podium.apps import workspace as module

    target = root / "swap.txt"
    target.write_text("x")
    real_open = os.open

    def swapped(path: str | Path, flags: int, *args: int) -> int:
        if Path(path) == target:
            target.unlink()
            os.mkfifo(target)
            threading.Thread(target=lambda: open(target, "w").close(), daemon=True).start()
        return real_open(path, flags, *args)

    monkeypatch.setattr(module.os, "open", swapped)
    with pytest.raises(PathRefused, match="named pipe"):
        Workspace.at(root).read_bytes(target)
