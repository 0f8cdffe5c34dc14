"""Build an .xlsx whose drawing is written the way Excel writes one, not the way openpyxl does.

The drawing holds a chart with Excel's chart style and colour parts and mc:AlternateContent, a PNG
picture, and a text-box shape: openpyxl drops the shape and the style parts, and drops the picture
too without Pillow, so these are exactly the things an edit must keep.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from pathlib import Path

from openpyxl import Workbook

DATA = Path(__file__).parent / "data"


STYLE = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<cs:chartStyle xmlns:cs="http://schemas.microsoft.com/office/drawing/2012/chartStyle" '
    'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" id="201"><cs:axisTitle><cs:lnRef idx="0"/>'
    '<cs:fillRef idx="0"/><cs:effectRef idx="0"/><cs:fontRef idx="minor"/></cs:axisTitle></cs:chartStyle>'
)
COLORS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<cs:colorStyle xmlns:cs="http://schemas.microsoft.com/office/drawing/2012/chartStyle" '
    'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" meth="cycle" id="10">'
    '<a:schemeClr val="accent1"/></cs:colorStyle>'
)
REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
MS_REL = "http://schemas.microsoft.com/office/2011/relationships"
OOXML = "application/vnd.openxmlformats-officedocument"


def tiny_png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\x00" + b"\xff\x00\x00" * 4 for _ in range(3))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 3, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def rels(*entries: tuple[str, str, str]) -> str:
    body = "".join(f'<Relationship Id="{i}" Type="{t}" Target="{target}"/>' for i, t, target in entries)
    return (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships '
        f'xmlns="http://schemas.openxmlformats.org/package/2006/relationships">{body}</Relationships>'
    )


def excel_style_workbook(path: Path) -> None:
    """Data on sheet 'Data' (A1:B4) and, on the same sheet, an Excel-written drawing."""
    workbook = Workbook()
    sheet = workbook.active
    sheet.title = "Data"
    for row in [["Region", "Sales"], ["North", 10], ["South", 30], ["East", 20]]:
        sheet.append(row)
    workbook.create_sheet("Notes")["A1"] = "untouched"
    buffer = io.BytesIO()
    workbook.save(buffer)
    with zipfile.ZipFile(buffer) as source:
        parts = {name: source.read(name) for name in source.namelist()}
    sheet_xml = parts["xl/worksheets/sheet1.xml"].decode()
    sheet_xml = sheet_xml.replace("</worksheet>", f'<drawing xmlns:r="{REL}" r:id="rId1"/></worksheet>')
    parts["xl/worksheets/sheet1.xml"] = sheet_xml.encode()
    parts["xl/worksheets/_rels/sheet1.xml.rels"] = rels(("rId1", f"{REL}/drawing", "../drawings/drawing1.xml")).encode()
    parts["xl/drawings/drawing1.xml"] = (DATA / "excel_drawing1.xml").read_bytes()
    parts["xl/drawings/_rels/drawing1.xml.rels"] = rels(
        ("rId1", f"{REL}/chart", "../charts/chart1.xml"), ("rId2", f"{REL}/image", "../media/image1.png")
    ).encode()
    parts["xl/charts/chart1.xml"] = (DATA / "excel_chart1.xml").read_bytes()
    parts["xl/charts/_rels/chart1.xml.rels"] = rels(
        ("rId1", f"{MS_REL}/chartStyle", "style1.xml"), ("rId2", f"{MS_REL}/chartColorStyle", "colors1.xml")
    ).encode()
    parts["xl/charts/style1.xml"] = STYLE.encode()
    parts["xl/charts/colors1.xml"] = COLORS.encode()
    parts["xl/media/image1.png"] = tiny_png()
    types = (
        parts["[Content_Types].xml"]
        .decode()
        .replace(
            "</Types>",
            '<Default Extension="png" ContentType="image/png"/>'
            f'<Override PartName="/xl/drawings/drawing1.xml" ContentType="{OOXML}.drawing+xml"/>'
            f'<Override PartName="/xl/charts/chart1.xml" ContentType="{OOXML}.drawingml.chart+xml"/>'
            '<Override PartName="/xl/charts/style1.xml" ContentType="application/vnd.ms-office.chartstyle+xml"/>'
            '<Override PartName="/xl/charts/colors1.xml" ContentType="application/vnd.ms-office.chartcolorstyle+xml"/>'
            "</Types>",
        )
    )
    parts["[Content_Types].xml"] = types.encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as target:
        for name, data in parts.items():
            target.writestr(name, data)
