"""Provenance: the package version, the hash of the engine's sources and the git commit.

No numba import: the hash names numba's cache folder (``engine/__init__.py``) and marks which
engine made a run (``meta.json``), and both must be known without loading the engine.
"""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parent.parent


#: The double-dummy solver: an engine package that no kernel of the hand loop calls (a leaf),
#: so it is left out of :func:`engine_hash` (an edit to it recompiles only its own kernels and
#: leaves runs without par resumable) and has its own :func:`solver_hash`.
SOLVER_PACKAGE = "dd"


def engine_hash() -> str:
    """16 hex digits of the SHA-256 of every ``spades_sim/engine/*.py`` but the solver's, of
    the core modules the kernels take constants and types from (names included), and of the
    shipped bid model (``core/data/bid_model.json``: the kernels compile its tables in) and
    tuned presets (``core/data/tuned.json``: a run names them, so their values are the
    engine's), and of ``core/features.py`` (a deal filter's text becomes the kernels' clause
    codes there).

    The files are read again only when one of them has changed (size, modification time,
    inode) since the last call in this process: a run's workers ask for it at every chunk,
    and reading and hashing the sources costs about a millisecond."""
    paths = _engine_paths()
    stamp = tuple(_stamp(path) for path in paths)
    if _ENGINE_HASH.get("stamp") != stamp:
        digest = hashlib.sha256()
        for path in paths:
            digest.update(f"{path.parent.name}/{path.name}".encode())
            if not path.exists():  # (the bid model, before its first fit)
                continue
            digest.update(path.read_bytes())
        _ENGINE_HASH.update(stamp=stamp, value=digest.hexdigest()[:16])
    return _ENGINE_HASH["value"]


_ENGINE_HASH: dict = {}


def _engine_paths() -> list[Path]:
    engine = sorted((PACKAGE_ROOT / "engine").glob("*.py"))  # (the solver is a subpackage)
    return engine + [
        PACKAGE_ROOT / "core" / name
        for name in ("rules.py", "schema.py", "seeding.py", "strategies.py", "cards.py",
                     "view.py", "bidmodel.py", "features.py", "encoding.py", "data/bid_model.json",
                     "data/tuned.json")
    ]


def _stamp(path: Path):
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_ino, stat.st_size, stat.st_mtime_ns


def solver_hash() -> str:
    """16 hex digits of the SHA-256 of the double-dummy solver's sources (every
    ``engine/dd/*.py``, names included; the engine modules it builds on are in
    :func:`engine_hash`). Read again only when a file has changed, as :func:`engine_hash`."""
    paths = sorted((PACKAGE_ROOT / "engine" / SOLVER_PACKAGE).glob("*.py"))
    stamp = tuple((path.name, _stamp(path)) for path in paths)
    if _SOLVER_HASH.get("stamp") != stamp:
        digest = hashlib.sha256()
        for path in paths:
            digest.update(f"{SOLVER_PACKAGE}/{path.name}".encode())
            digest.update(path.read_bytes())
        _SOLVER_HASH.update(stamp=stamp, value=digest.hexdigest()[:16])
    return _SOLVER_HASH["value"]


_SOLVER_HASH: dict = {}


def commit(short: bool = False) -> str:
    """The git commit of the package's checkout ('' when it is not one, or git is absent)."""
    try:
        command = ["git", "rev-parse", *(["--short"] if short else []), "HEAD"]
        return subprocess.run(command, capture_output=True, text=True, cwd=PACKAGE_ROOT,
                              timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""
