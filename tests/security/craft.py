"""Hostile .docx and .xlsx files, built as an attacker would: a real package from python-docx or openpyxl
with one part replaced or added, parts written in chunks so that a bomb never sits in this process's
memory."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterable
from pathlib import Path

import docx
from openpyxl import Workbook

Chunks = bytes | Iterable[bytes]
W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
S = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'


def _base_docx() -> bytes:
    out = io.BytesIO()
    document = docx.Document()
    document.add_paragraph("A harmless looking document.")
    document.save(out)
    return out.getvalue()


def _base_xlsx() -> bytes:
    out = io.BytesIO()
    workbook = Workbook()
    workbook.active.title = "Data"
    workbook.active.append(["Item", "Amount"])
    workbook.active.append(["Rent", 1000])
    workbook.save(out)
    return out.getvalue()


def package(path: Path, base: bytes, replace: dict[str, Chunks], level: int = 9) -> Path:
    """`base` with the parts in `replace` put in (new ones added), each written in chunks."""
    with zipfile.ZipFile(io.BytesIO(base)) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED,
                                                                      compresslevel=level) as target:
        for item in source.infolist():
            if item.filename not in replace:
                target.writestr(item, source.read(item.filename))
        for name, content in replace.items():
            with target.open(name, "w", force_zip64=True) as part:
                for chunk in [content] if isinstance(content, bytes) else content:
                    part.write(chunk)
    return path


def docx_with(path: Path, body: Chunks, extra: dict[str, Chunks] | None = None) -> Path:
    """A .docx whose document.xml is `body` (the whole part: give the <w:document> yourself)."""
    return package(path, _base_docx(), {"word/document.xml": body, **(extra or {})})


def xlsx_with(path: Path, sheet: Chunks | None = None, extra: dict[str, Chunks] | None = None,
              level: int = 9) -> Path:
    """An .xlsx whose first worksheet part is `sheet` (the whole part), with `extra` parts added."""
    parts = {**({"xl/worksheets/sheet1.xml": sheet} if sheet is not None else {}), **(extra or {})}
    return package(path, _base_xlsx(), parts, level)


def document(body: str) -> bytes:
    return f'<?xml version="1.0" encoding="UTF-8"?><w:document {W}><w:body>{body}</w:body></w:document>'.encode()


def worksheet(rows: str, merges: str = "") -> bytes:
    merged = f"<mergeCells>{merges}</mergeCells>" if merges else ""
    head = f'<?xml version="1.0" encoding="UTF-8"?><worksheet {S}>'
    return f"{head}<sheetData>{rows}</sheetData>{merged}</worksheet>".encode()


def table(rows: str, grid: int = 2) -> str:
    return f"<w:tbl><w:tblGrid>{'<w:gridCol/>' * grid}</w:tblGrid>{rows}</w:tbl>"


def repeated(head: bytes, unit: bytes, count: int, tail: bytes, chunk: int = 1 << 16) -> Iterable[bytes]:
    """head + unit * count + tail, in chunks (a part of any size, never held whole)."""
    yield head
    block, left = unit * max(1, chunk // len(unit)), count
    per = len(block) // len(unit)
    while left > 0:
        take = min(per, left)
        yield block if take == per else unit * take
        left -= take
    yield tail


def zeros(size: int, chunk: int = 1 << 20) -> Iterable[bytes]:
    block = bytes(chunk)
    for start in range(0, size, chunk):
        yield block[: min(chunk, size - start)]


BILLION_LAUGHS = (
    '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
    '<!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">'
    '<!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">'
    '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">'
    '<!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">'
    '<!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">'
    '<!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">'
    '<!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">'
    '<!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">'
    '<!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">]>'
)


def external_entity(target: str) -> str:
    return f'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY xxe SYSTEM "file://{target}">]>'
