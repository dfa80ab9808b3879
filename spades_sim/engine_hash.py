"""The hash of the engine's source files (no numba import): names numba's cache folder and
marks which engine made a run."""

import hashlib
from pathlib import Path


def engine_hash() -> str:
    """16 hex digits of the SHA-256 of every ``spades_sim/engine/*.py``, names included."""
    digest = hashlib.sha256()
    for path in sorted((Path(__file__).parent / "engine").glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]
