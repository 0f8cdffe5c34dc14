"""Keep a workbook's drawings (charts, pictures, shapes) intact across an openpyxl save.

openpyxl re-reads only what it models from a sheet's drawing: charts are re-serialised (chart
style and colour parts are dropped), pictures need Pillow (else they are dropped), and shapes and
text boxes are dropped with a warning. So the spreadsheets application never lets openpyxl write
the drawings it loaded: it removes them from the loaded workbook, lets openpyxl save the cells,
and then this module grafts every original drawing back into the saved package byte for byte,
with every part it reaches (charts, chart styles and colours, images, embedded objects) renamed to
free part names, its relationships re-pointed and its content types declared. When the same edit
added new charts to such a sheet, their anchors are moved into the original drawing (a sheet holds
only one drawing).

Pure package surgery over zip bytes (parsed with lxml's safe settings): no openpyxl import here.
"""

from __future__ import annotations

import io
import posixpath
import re
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass

from lxml import etree

PKG_REL = "http://schemas.openxmlformats.org/package/2006/relationships"
DOC_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
CT = "http://schemas.openxmlformats.org/package/2006/content-types"
XDR = "http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing"
C = "http://schemas.openxmlformats.org/drawingml/2006/chart"
CHART_PART = re.compile(r"xl/charts/chart[0-9]*\.xml")
DRAWING_REL = DOC_REL + "/drawing"
OFFICE_DOCUMENT_REL = DOC_REL + "/officeDocument"
# Children of <worksheet>/<chartsheet> that must come after <drawing> (ECMA-376 element order).
AFTER_DRAWING = (
    "legacyDrawing",
    "legacyDrawingHF",
    "drawingHF",
    "picture",
    "oleObjects",
    "controls",
    "webPublishItems",
    "tableParts",
    "extLst",
)
ANCHORS = ("twoCellAnchor", "oneCellAnchor", "absoluteAnchor")
# The package's parts are untrusted: no entities, no DTD, no network, libxml2's size guards kept.
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
ROW_EMU = 190500  # one default-height row (15 pt) in EMU


@dataclass(frozen=True, slots=True)
class Rel:
    id: str
    type: str
    target: str
    external: bool


class Package:
    """An OPC package (zip) held in memory as part name -> bytes, editable."""

    def __init__(self, data: bytes) -> None:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            self.order = archive.namelist()
            self.parts = {name: archive.read(name) for name in self.order}

    def to_bytes(self) -> bytes:
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
            names = [n for n in self.order if n in self.parts] + sorted(set(self.parts) - set(self.order))
            for name in names:
                archive.writestr(name, self.parts[name])
        return out.getvalue()

    def rels(self, part: str) -> list[Rel]:
        data = self.parts.get(rels_name(part))
        if data is None:
            return []
        root = _parse(data)
        return [
            Rel(el.get("Id", ""), el.get("Type", ""), el.get("Target", ""), el.get("TargetMode") == "External")
            for el in root.iter(f"{{{PKG_REL}}}Relationship")
        ]

    def write_rels(self, part: str, rels: list[Rel]) -> None:
        root = etree.Element(f"{{{PKG_REL}}}Relationships", nsmap={None: PKG_REL})
        for rel in rels:
            el = etree.SubElement(root, f"{{{PKG_REL}}}Relationship", Id=rel.id, Type=rel.type, Target=rel.target)
            if rel.external:
                el.set("TargetMode", "External")
        self.parts[rels_name(part)] = _serialise(root)

    def sheets(self) -> dict[str, str]:
        """Sheet name -> sheet part name, for worksheets and chartsheets alike."""
        workbook = next(
            (resolve(r.target, "") for r in self.rels("") if r.type == OFFICE_DOCUMENT_REL), "xl/workbook.xml"
        )
        targets = {r.id: resolve(r.target, workbook) for r in self.rels(workbook) if not r.external}
        root = _parse(self.parts[workbook])
        out: dict[str, str] = {}
        for sheet in root.iter(f"{{{MAIN}}}sheet"):
            rid = sheet.get(f"{{{DOC_REL}}}id")
            if rid in targets:
                out[sheet.get("name", "")] = targets[rid]
        return out

    def drawing_of(self, sheet_part: str) -> tuple[Rel, str] | None:
        for rel in self.rels(sheet_part):
            if rel.type == DRAWING_REL and not rel.external:
                return rel, resolve(rel.target, sheet_part)
        return None

    def content_types(self) -> tuple[dict[str, str], dict[str, str]]:
        """(defaults by extension, overrides by part name without the leading '/')."""
        root = _parse(self.parts["[Content_Types].xml"])
        defaults = {el.get("Extension", "").lower(): el.get("ContentType", "") for el in root.iter(f"{{{CT}}}Default")}
        overrides = {
            el.get("PartName", "").lstrip("/"): el.get("ContentType", "") for el in root.iter(f"{{{CT}}}Override")
        }
        return defaults, overrides


def rels_name(part: str) -> str:
    folder, base = posixpath.split(part)
    return posixpath.join(folder, "_rels", f"{base}.rels")


def resolve(target: str, source_part: str) -> str:
    """The part name a relationship target points at, seen from `source_part` ('' = package root)."""
    if target.startswith("/"):
        return posixpath.normpath(target.lstrip("/"))
    return posixpath.normpath(posixpath.join(posixpath.dirname(source_part), target))


def relative(part: str, source_part: str) -> str:
    return posixpath.relpath(part, posixpath.dirname(source_part) or ".")


def sheets_with_drawings(original: bytes) -> set[str]:
    package = Package(original)
    return {name for name, part in package.sheets().items() if part in package.parts and package.drawing_of(part)}


def drawing_summary(data: bytes) -> dict[str, dict[str, int]]:
    """Per sheet name: how many charts, pictures and shapes its drawing holds (as any program wrote it)."""
    package = Package(data)
    out: dict[str, dict[str, int]] = {}
    for name, sheet in package.sheets().items():
        counts = {"charts": 0, "pictures": 0, "shapes": 0}
        found = package.drawing_of(sheet) if sheet in package.parts else None
        if found is not None and found[1] in package.parts:
            for anchor in _parse(package.parts[found[1]]):
                for child in anchor:
                    kind = etree.QName(child).localname if isinstance(child.tag, str) else ""
                    if kind == "graphicFrame":
                        counts["charts"] += 1
                    elif kind == "pic":
                        counts["pictures"] += 1
                    elif kind in ("sp", "grpSp", "cxnSp"):
                        counts["shapes"] += 1
        out[name] = counts
    return out


def first_free_rows(data: bytes) -> dict[str, int]:
    """Per sheet name: the first row (1-based) below every drawn object, to place a new one clear of them."""
    package = Package(data)
    out: dict[str, int] = {}
    for name, sheet in package.sheets().items():
        found = package.drawing_of(sheet) if sheet in package.parts else None
        if found is None or found[1] not in package.parts:
            continue
        bottom = 0
        for anchor in _parse(package.parts[found[1]]):
            to_row = anchor.find(f"{{{XDR}}}to/{{{XDR}}}row")
            from_row = anchor.find(f"{{{XDR}}}from/{{{XDR}}}row")
            extent = anchor.find(f"{{{XDR}}}ext")
            if to_row is not None and (to_row.text or "").isdigit():
                bottom = max(bottom, int(to_row.text or 0) + 1)
            elif from_row is not None and extent is not None and (from_row.text or "").isdigit():
                rows = -(-int(extent.get("cy", "0")) // ROW_EMU)  # default row height, rounded up
                bottom = max(bottom, int(from_row.text or 0) + rows)
        out[name] = bottom + 2  # one empty row as a margin, 1-based
    return out


def graft_drawings(original: bytes, saved: bytes, sheets_renamed: Mapping[str, str] | None = None) -> bytes:
    """`saved` (what openpyxl wrote) with every sheet drawing of `original` put back unchanged; a sheet the
    edit renamed (old name -> new) keeps its drawing, and every chart's references follow the new name."""
    source, target = Package(original), Package(saved)
    source_sheets, target_sheets = source.sheets(), target.sheets()
    sheets_renamed = dict(sheets_renamed or {})
    renamed: dict[str, str] = {}  # original part -> its name in the target package
    for sheet_name, source_sheet in source_sheets.items():
        found = source.drawing_of(source_sheet) if source_sheet in source.parts else None
        target_sheet = target_sheets.get(sheets_renamed.get(sheet_name, sheet_name))
        if found is None or target_sheet is None:
            continue
        _, drawing = found
        if drawing not in source.parts:
            continue
        _copy_closure(source, target, drawing, renamed)
        _attach(target, target_sheet, renamed[drawing])
    if sheets_renamed:
        for part in [p for p in target.parts if CHART_PART.fullmatch(p)]:
            root = etree.fromstring(target.parts[part])
            for formula in root.iter(f"{{{C}}}f"):
                formula.text = rename_sheet_references(formula.text or "", sheets_renamed)
            target.parts[part] = _serialise(root)
    return target.to_bytes()


# A sheet's name before '!' in a chart's reference: quoted ('My data') or a plain word (Data).
_SHEET_PREFIX = re.compile(r"('(?:[^']|'')+'|[A-Za-z_\\][\w.]*)!")


def rename_sheet_references(text: str, renamed: Mapping[str, str]) -> str:
    """A chart's data reference ('Sheet1'!$B$2:$B$5, or several in parentheses) with each renamed sheet's
    new name, quoted as needed. (A chart reference holds no text literals, unlike a cell's formula.)"""
    def swap(found: re.Match[str]) -> str:
        name = found.group(1)
        plain = name[1:-1].replace("''", "'") if name.startswith("'") else name
        new = renamed.get(plain)
        return found.group(0) if new is None else f"{quoted_sheet(new)}!"
    return _SHEET_PREFIX.sub(swap, text)


def quoted_sheet(name: str) -> str:
    """A sheet's name as a reference writes it: quoted unless it is a plain word that is no cell address."""
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", name) and not re.fullmatch(r"[A-Za-z]{1,3}[0-9]+", name):
        return name
    return "'" + name.replace("'", "''") + "'"


def charts_referring(data: bytes, sheet: str) -> list[str]:
    """The names of the sheets holding a chart that draws data from `sheet`."""
    package = Package(data)
    found = []
    for name, part in package.sheets().items():
        drawing = package.drawing_of(part) if part in package.parts else None
        if drawing is None or drawing[1] not in package.parts:
            continue
        for rel in package.rels(drawing[1]):
            chart = resolve(rel.target, drawing[1])
            if rel.external or not CHART_PART.fullmatch(chart) or chart not in package.parts:
                continue
            refs = [f.text or "" for f in etree.fromstring(package.parts[chart]).iter(f"{{{C}}}f")]
            if any(_refers(ref, sheet) for ref in refs):
                found.append(name)
                break
    return found


def _refers(reference: str, sheet: str) -> bool:
    names = (m.group(1) for m in _SHEET_PREFIX.finditer(reference))
    return any((n[1:-1].replace("''", "'") if n.startswith("'") else n) == sheet for n in names)


def _copy_closure(source: Package, target: Package, start: str, renamed: dict[str, str]) -> None:
    defaults, overrides = source.content_types()
    pending = [start]
    while pending:
        part = pending.pop()
        if part in renamed or part not in source.parts:
            continue
        renamed[part] = _free_name(target, part, renamed)
        for rel in source.rels(part):
            if not rel.external:
                pending.append(resolve(rel.target, part))
    ct_root = _parse(target.parts["[Content_Types].xml"])
    target_defaults = {el.get("Extension", "").lower() for el in ct_root.iter(f"{{{CT}}}Default")}
    for old, new in renamed.items():
        if new in target.parts:
            continue  # copied for an earlier sheet (a part shared between drawings)
        target.parts[new] = source.parts[old]
        rels = []
        for rel in source.rels(old):
            if not rel.external:
                pointed = resolve(rel.target, old)
                rel = Rel(rel.id, rel.type, relative(renamed.get(pointed, pointed), new), False)
            rels.append(rel)
        if rels:
            target.write_rels(new, rels)
        extension = posixpath.splitext(old)[1].lstrip(".").lower()
        if old in overrides:
            etree.SubElement(ct_root, f"{{{CT}}}Override", PartName="/" + new, ContentType=overrides[old])
        elif extension in defaults and extension not in target_defaults:
            etree.SubElement(ct_root, f"{{{CT}}}Default", Extension=extension, ContentType=defaults[extension])
            target_defaults.add(extension)
    _sort_content_types(ct_root)
    target.parts["[Content_Types].xml"] = _serialise(ct_root)


def _free_name(target: Package, part: str, renamed: Mapping[str, str]) -> str:
    folder, base = posixpath.split(part)
    stem, extension = posixpath.splitext(base)
    stem = re.sub(r"\d+$", "", stem) or "part"
    taken = set(target.parts) | set(renamed.values())
    number = 1
    while posixpath.join(folder, f"{stem}{number}{extension}") in taken:
        number += 1
    return posixpath.join(folder, f"{stem}{number}{extension}")


def _attach(target: Package, sheet: str, kept: str) -> None:
    """Make `kept` the drawing of `sheet`, merging in a drawing openpyxl wrote for new charts."""
    existing = target.drawing_of(sheet)
    sheet_rels = target.rels(sheet)
    if existing is None:
        _link_drawing(target, sheet, kept)
        return
    rel, new_drawing = existing
    _merge_anchors(target, new_drawing, kept)
    target.write_rels(
        sheet, [Rel(r.id, r.type, relative(kept, sheet), False) if r.id == rel.id else r for r in sheet_rels]
    )
    _drop_part(target, new_drawing)


def _merge_anchors(target: Package, new_drawing: str, kept: str) -> None:
    kept_root = _parse(target.parts[kept])
    new_root = _parse(target.parts[new_drawing])
    kept_rels = target.rels(kept)
    id_map: dict[str, str] = {}
    for rel in target.rels(new_drawing):
        rid = _free_id(kept_rels)
        id_map[rel.id] = rid
        where = rel.target if rel.external else relative(resolve(rel.target, new_drawing), kept)
        kept_rels.append(Rel(rid, rel.type, where, rel.external))
    next_shape_id = 1 + max(
        (int(el.get("id", "0")) for el in kept_root.iter(f"{{{XDR}}}cNvPr") if el.get("id", "").isdigit()), default=0
    )
    for anchor in list(new_root):
        if etree.QName(anchor).localname not in ANCHORS:
            continue
        for el in anchor.iter():
            for name, value in el.attrib.items():
                if name.startswith(f"{{{DOC_REL}}}") and value in id_map:
                    el.set(name, id_map[value])
            if el.tag == f"{{{XDR}}}cNvPr":  # shape ids must stay unique within one drawing
                el.set("id", str(next_shape_id))
                next_shape_id += 1
        kept_root.append(anchor)
    target.parts[kept] = _serialise(kept_root)
    target.write_rels(kept, kept_rels)


def _drop_part(target: Package, part: str) -> None:
    target.parts.pop(part, None)
    target.parts.pop(rels_name(part), None)
    root = _parse(target.parts["[Content_Types].xml"])
    for el in list(root.iter(f"{{{CT}}}Override")):
        if el.get("PartName", "").lstrip("/") == part:
            root.remove(el)
    target.parts["[Content_Types].xml"] = _serialise(root)


def _link_drawing(target: Package, sheet: str, kept: str) -> None:
    """Point `sheet` at the drawing `kept` through a new relationship and a <drawing> element.

    openpyxl writes a chartsheet's <drawing r:id="rId1"/> even when it wrote no drawing for it: such a
    dangling element is reused rather than doubled (a sheet may hold only one).
    """
    sheet_rels = target.rels(sheet)
    taken = {rel.id for rel in sheet_rels}
    root = _parse(target.parts[sheet])
    element = root.find(f"{{{MAIN}}}drawing")
    if element is None:
        element = etree.Element(f"{{{MAIN}}}drawing", nsmap={"r": DOC_REL})
        for index, child in enumerate(root):
            if isinstance(child.tag, str) and etree.QName(child).localname in AFTER_DRAWING:
                root.insert(index, element)
                break
        else:
            root.append(element)
    rid = element.get(f"{{{DOC_REL}}}id")
    if not rid or rid in taken:
        rid = _free_id(sheet_rels)
        element.set(f"{{{DOC_REL}}}id", rid)
    target.write_rels(sheet, [*sheet_rels, Rel(rid, DRAWING_REL, relative(kept, sheet), False)])
    target.parts[sheet] = _serialise(root)


def _free_id(rels: list[Rel]) -> str:
    taken = {rel.id for rel in rels}
    number = 1
    while f"rId{number}" in taken:
        number += 1
    return f"rId{number}"


def _sort_content_types(root: etree._Element) -> None:
    # Defaults first, as Office writes them; some readers are strict about it.
    children = sorted(root, key=lambda el: 0 if etree.QName(el).localname == "Default" else 1)
    root[:] = children


def _parse(data: bytes) -> etree._Element:
    return etree.fromstring(data, _PARSER)


def _serialise(root: etree._Element) -> bytes:
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", standalone=True)
