"""No English word lists or request-phrasing regexes decide anything in the desktop orchestrator or the
applications: decisions come from typed plans, paths, tool kinds and effects.

The test walks the source of `podium.desktop` and `podium.apps` and finds (1) collections of four or more
plain lower-case words (a vocabulary: "read", "extract", "get"...) and (2) regular expressions that match
alternatives of words. Each finding must be an allowed exception, listed here with why it is not a
decision read from someone's words.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import podium

PACKAGES = ("desktop", "apps")
WORD = re.compile(r"^[a-z][a-z ]{1,24}$")
WORD_ALTERNATION = re.compile(r"(?:\\b|\(\?:)[^)]*\b[a-z]{3,}\|[a-z]{3,}\b")

# (module, the assigned name or the called function) -> why it is no word list deciding from a person's words
ALLOWED: dict[tuple[str, str], str] = {
    ("apps/registry.py", "BUILTINS"): "the names of the built-in applications a configuration may enable",
    ("apps/mcp_servers.py", "known"): "the keys an [apps.mcp] entry of podium.toml may have: configuration, "
                                      "checked to name a misspelt key",
    ("apps/base.py", "PLACES"): "keys of podium's own tool results whose numbers locate data (a header's row, a "
                                "paragraph's index), never words of a request",
    ("desktop/wire/grammar.py", "_DATA_SHAPES"): "the shapes of a tool's parameter schema that carry data (the "
                                                 "names artifacts.wants gives a schema), not words of a request",
}


def _allowed(module: str, name: str) -> bool:
    return (module, name) in ALLOWED or (module, "*") in ALLOWED


def _strings(node: ast.AST) -> list[str] | None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("frozenset", "set",
                                                                                          "tuple") and node.args:
        node = node.args[0]
    if isinstance(node, ast.Set | ast.List | ast.Tuple):
        values = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        return values if len(values) == len(node.elts) else None
    return None


def _collections(node: ast.AST | None) -> list[list[str]]:
    """The string collections of an assigned value: itself, or a mapping's values."""
    if node is None:
        return []
    if isinstance(node, ast.Dict):
        return [words for value in node.values if (words := _strings(value))]
    words = _strings(node)
    return [words] if words else []


def findings() -> list[str]:
    root = Path(podium.__file__).parent
    found = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            module = path.relative_to(root).as_posix()
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Assign | ast.AnnAssign):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    name = next((t.id for t in targets if isinstance(t, ast.Name)), "?")
                    for words in _collections(node.value):
                        plain = [w for w in words if WORD.match(w)]
                        if len(plain) >= 4 and len(plain) >= 0.8 * len(words) and not _allowed(module, name):
                            found.append(f"{module}:{node.lineno} {name} = {words[:6]}...")
                if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                        and WORD_ALTERNATION.search(node.value) and not _allowed(module, "*"):
                    found.append(f"{module}:{node.lineno} a regular expression of words: {node.value[:60]!r}")
    return found


def test_no_word_lists_or_phrasing_regexes_decide_anything() -> None:
    assert findings() == []


def test_the_scan_finds_what_it_is_meant_to() -> None:
    tree = ast.parse('_READING = frozenset({"read", "extract", "get", "find"})\n'
                     'X = re.compile(r"\\b(?:do not|never|without)\\s+(.+)")')
    assign = tree.body[0]
    assert isinstance(assign, ast.Assign) and _strings(assign.value) == ["read", "extract", "get", "find"]
    pattern = tree.body[1].value.args[0].value  # type: ignore[attr-defined]
    assert WORD_ALTERNATION.search(pattern)
