"""Every ```python block of README.md runs here, in the order the README shows them, so the README cannot
drift from the code.

Why a harness of our own (stdlib `ast` and `compile`) rather than pytest-examples or phmdoctest: the
README's blocks are written the way a reader uses podium, several with a top-level `await` (as in
`python -m asyncio` or a notebook), and both tools run a block as a module, where that is a syntax
error (pytest-examples also brings black along). Here a block is compiled with
`ast.PyCF_ALLOW_TOP_LEVEL_AWAIT`: one that awaits runs on a fresh event loop, any other is executed as it
is (it may call `asyncio.run` itself).

How a block runs:
- in its own Python process (`python tests/test_readme.py BLOCK.py`, the `__main__` part below), so
  blocks are isolated like the readers' programs, and a block may stand for "the process that died"
  (the journal's record-then-resume blocks);
- in one scratch folder shared by the README's blocks, holding a copy of the repository's `examples/`
  with the quarterly example's files made as Set up makes them: relative paths in blocks work, and
  nothing in the checkout changes;
- with the environment a reader would have set for what a block connects to: `OPENAI_API_KEY` and
  `OPENAI_BASE_URL` point at an OpenAI-compatible model server on loopback (tests/backends/fakes.py)
  that answers every request with `MODEL_ANSWER`; `RAY_ADDRESS=local` makes `address="auto"` start a
  local Ray instance for the block;
- with stand-ins for models that cannot run here (see `standing_in`): a spec of the embedded model
  (`local`, `local:PATH`), which needs a 1 GB download and minutes per step, plays the quarterly
  example's script (`STANDIN_SCRIPT`) instead: as `model` of a `HostSession` it plays the planner, and
  each AppAgent and the judge their own parts of the script;
- names a block uses but never defines (the `...` of an excerpt, or what the prose around it names:
  `strategy`, `opts`, `Plan`, the `ask` and `confirm` callbacks) come from `PROVISIONS`, each a
  stand-in for what a reader would have written before. A block that uses a name no one provides
  fails with the name and the line: define it in the block, or add a provision here.

A block passes when its process ends without an exception. Run a single block with
`-k "line_NNN"`; a block that continues an earlier one's work (the journal's resume) needs that block
run before it.
"""

from __future__ import annotations

import ast
import builtins
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
STANDIN_SCRIPT = "examples/quarterly/scripted.json"  # relative to the scratch folder
MODEL_ANSWER = '{"steps": ["gather the figures", "write the summary"], "done": true}'


@dataclass(frozen=True)
class Block:
    line: int  # of its first line of code in README.md
    heading: str
    source: str

    @property
    def id(self) -> str:
        slug = re.sub(r"[^a-z0-9]+", "_", self.heading.lower()).strip("_")
        return f"line_{self.line}-{slug}"


def python_blocks(text: str) -> list[Block]:
    """The ```python fenced blocks of a Markdown text, with the heading each sits under."""
    blocks: list[Block] = []
    lines = text.splitlines()
    heading, i = "", 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#") and not line.startswith("#!"):
            heading = line.lstrip("#").strip()
        fence = re.match(r"^(\s*)(```+|~~~+)\s*python\s*$", line)
        if fence:
            indent, marker = fence.group(1), fence.group(2)
            start, body = i + 1, []
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(marker):
                body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
                i += 1
            blocks.append(Block(start + 1, heading, "\n".join(body) + "\n"))
        i += 1
    return blocks


BLOCKS = python_blocks(README.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder every block runs in: a copy of examples/, with the quarterly example's files made."""
    folder = tmp_path_factory.mktemp("readme")
    shutil.copytree(ROOT / "examples", folder / "examples",
                    ignore=shutil.ignore_patterns("report.docx", "budget.xlsx", "__pycache__"))
    subprocess.run([sys.executable, "examples/quarterly/make_files.py"], cwd=folder, check=True, timeout=120)
    return folder


def test_the_readme_has_python_blocks() -> None:
    assert len(BLOCKS) >= 5
    assert len({b.id for b in BLOCKS}) == len(BLOCKS)


@pytest.mark.parametrize("block", BLOCKS, ids=[b.id for b in BLOCKS])
def test_readme_block_runs(block: Block, scratch: Path) -> None:
    path = scratch / f"{block.id}.py"
    # Blank lines first: a traceback's line numbers are the README's.
    path.write_text("\n" * (block.line - 1) + block.source, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "RAY_ADDRESS")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "src"), env.get("PYTHONPATH", "")])
    run = subprocess.run([sys.executable, str(Path(__file__).resolve()), str(path)], cwd=scratch, env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, (f"README.md line {block.line} ({block.heading}) failed:\n"
                                 f"{run.stderr[-4000:]}\n--- its output:\n{run.stdout[-2000:]}")


# --------------------------------------------------------------------------- what a block is given
# Everything below runs in the block's own process.


def _plan_model() -> Any:
    from pydantic import BaseModel

    class Plan(BaseModel):
        """What `ask_structured` is asked for in the Models section."""

        steps: list[str]
        done: bool = False

    return Plan


def _strategy() -> Any:
    from podium import Solo

    return Solo()


def _opts() -> dict[str, Any]:
    from podium.backends.scripted import ScriptedBackend

    return {"backend": ScriptedBackend(lambda prompt: f"echo: {prompt}")}


def _ask() -> Callable[[Any], list[str]]:
    def ask(question: Any) -> list[str]:
        """The person's answers to a question (PENDING): none known."""
        return ["not available"] * max(1, len(getattr(question, "questions", ()) or ()))

    return ask


def _confirm() -> Callable[[Any], bool]:
    def confirm(request: Any) -> bool:
        """The person's approval of a sensitive action: given."""
        return True

    return confirm


PROVISIONS: Mapping[str, Callable[[], Any]] = {
    "strategy": _strategy,  # any strategy: Solo
    "opts": _opts,  # its options: a scripted backend that echoes the prompt
    "Plan": _plan_model,  # the output type of a structured question
    "ask": _ask,  # HostSession's ask_person callback
    "confirm": _confirm,  # HostSession's approve callback
}


def free_names(tree: ast.AST) -> list[str]:
    """Names a block reads that it never binds (anywhere in it) and that are not builtins, in order."""
    bound: set[str] = set()
    read: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (read.append if isinstance(node.ctx, ast.Load) else bound.add)(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return list(dict.fromkeys(n for n in read if n not in bound and not hasattr(builtins, n)))


def standing_in() -> None:
    """Models that cannot run here are played by the quarterly example's script (see the docstring)."""
    import podium.backends
    import podium.backends.factory
    from podium.backends.spec import Provider, parse_spec
    from podium.cli.script import load_script
    from podium.desktop import HostSession

    real = podium.backends.factory.backend_from_spec

    class ScriptedStandIn:
        """Plays the planner as a backend; `HostSession.start` hands the AppAgents and the judge their parts."""

        def __init__(self) -> None:
            self.script = load_script(STANDIN_SCRIPT)
            self.planner = self.script.backend("planner")

        def __getattr__(self, name: str) -> Any:
            return getattr(self.planner, name)

    def backend_from_spec(spec: Any, **settings: Any) -> Any:
        if parse_spec(spec).provider is Provider.LOCAL:
            return ScriptedStandIn()
        return real(spec, **settings)

    podium.backends.backend_from_spec = backend_from_spec  # type: ignore[assignment]
    podium.backends.factory.backend_from_spec = backend_from_spec  # type: ignore[assignment]
    start = HostSession.start.__func__  # type: ignore[attr-defined]

    async def start_with_parts(cls: Any, apps: Any, model: Any, **options: Any) -> Any:
        if isinstance(model, ScriptedStandIn):
            script = model.script
            names = [getattr(app, "name", app) for app in (apps.values() if isinstance(apps, Mapping) else apps)]
            options.setdefault("app_models", {name: script.backend("app", name) for name in names})
            options.setdefault("judge_model", script.backend("judge"))
            model = model.planner
        return await start(cls, apps, model, **options)

    HostSession.start = classmethod(start_with_parts)  # type: ignore[method-assign,assignment]


def run_block(path: Path) -> None:
    import asyncio

    from tests.backends.fakes import FakeModelServer, openai_stream

    source = path.read_text(encoding="utf-8")
    line = len(source) - len(source.lstrip("\n")) + 1
    code = compile(source, f"README.md (block at line {line})", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT,
                   dont_inherit=True)
    namespace: dict[str, Any] = {"__name__": "__main__"}
    for name in free_names(ast.parse(source)):
        if name not in PROVISIONS:
            raise SystemExit(f"README.md block at line {line} uses {name!r}, which it does not define and "
                             "tests/test_readme.py does not provide: define it in the block, or add a provision "
                             "to PROVISIONS")
        namespace[name] = PROVISIONS[name]()
    server = FakeModelServer(default=lambda body: openai_stream([MODEL_ANSWER])).start()
    os.environ.update({"OPENAI_API_KEY": "sk-readme-test", "OPENAI_BASE_URL": f"{server.url}/v1",
                       "RAY_ADDRESS": "local"})
    standing_in()
    try:
        result = eval(code, namespace)  # a coroutine when the block awaits at top level
        if asyncio.iscoroutine(result):
            asyncio.run(result)
    finally:
        server.stop()


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    run_block(Path(sys.argv[1]))
