"""Provenance: the package version, the hash of the engine's sources and the git commit.

No numba import: the hash names numba's cache folder (``engine/__init__.py``) and marks which
engine made a run (``meta.json``), and both must be known without loading the engine.
"""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parent.parent


#: The double-dummy solver: an engine module that no kernel of the hand loop calls (a leaf), so
#: it is left out of :func:`engine_hash` (an edit to it recompiles only its own kernels and
#: leaves runs without par resumable) and has its own :func:`solver_hash`.
SOLVER_SOURCE = "dd.py"


def engine_hash() -> str:
    """16 hex digits of the SHA-256 of every ``spades_sim/engine/*.py`` but the solver's, of
    the core modules the kernels take constants and types from (names included), and of the
    shipped bid model (``core/data/bid_model.json``: the kernels compile its tables in) and
    tuned presets (``core/data/tuned.json``: a run names them, so their values are the
    engine's)."""
    digest = hashlib.sha256()
    engine = [path for path in sorted((PACKAGE_ROOT / "engine").glob("*.py"))
              if path.name != SOLVER_SOURCE]
    paths = engine + [
        PACKAGE_ROOT / "core" / name
        for name in ("rules.py", "schema.py", "seeding.py", "strategies.py", "cards.py",
                     "view.py", "bidmodel.py", "data/bid_model.json",
                     "data/tuned.json")
    ]
    for path in paths:
        digest.update(f"{path.parent.name}/{path.name}".encode())
        if not path.exists():  # (the bid model, before its first fit)
            continue
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def solver_hash() -> str:
    """16 hex digits of the SHA-256 of the double-dummy solver's source (``engine/dd.py``; the
    engine modules it builds on are in :func:`engine_hash`)."""
    return hashlib.sha256((PACKAGE_ROOT / "engine" / SOLVER_SOURCE).read_bytes()).hexdigest()[:16]


def commit(short: bool = False) -> str:
    """The git commit of the package's checkout ('' when it is not one, or git is absent)."""
    try:
        command = ["git", "rev-parse", *(["--short"] if short else []), "HEAD"]
        return subprocess.run(command, capture_output=True, text=True, cwd=PACKAGE_ROOT,
                              timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""
