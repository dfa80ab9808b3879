"""The run folder on disk: ``meta.json``, one Parquet file per chunk, reading runs back.

``meta.json`` holds the run's identity (seed, chunk size, configurations, engine hash: everything
the results depend on), the library versions and the commit. Chunk ``c`` is
``chunk-000123.parquet``, written to a temporary name and renamed, in the tidy schema of
``core.schema.TIDY_COLUMNS`` (one row per hand, seat and configuration). A folder holds one run:
re-running the same spec skips the finished chunks (a truncated or corrupt chunk file is
detected and played again); a different spec is refused.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from .. import __version__
from ..core.errors import RunError
from ..core.schema import TIDY_COLUMNS
from ..core.version import commit
from .memory import play_chunk
from .spec import RunSpec

META = "meta.json"
CHUNK_PATTERN = "chunk-{:06d}.parquet"


def _versions() -> dict:
    return {"spades_sim": __version__, "python": platform.python_version(),
            "numpy": np.__version__, "pandas": pd.__version__, "numba": version("numba"),
            "pyarrow": pa.__version__}


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def prepare_dir(spec: RunSpec, out: Path) -> None:
    """Create ``out`` with the run's ``meta.json``, or check that it holds this very run."""
    out.mkdir(parents=True, exist_ok=True)
    meta_path = out / META
    identity = spec.identity()
    if meta_path.exists():
        try:
            existing = json.loads(meta_path.read_text())["identity"]
        except (OSError, ValueError, KeyError, TypeError):
            raise RunError(f"{meta_path}: unreadable run metadata; use another --out")
        if existing != identity:
            differing = sorted(key for key in identity if existing.get(key) != identity[key])
            raise RunError(f"{out} holds another run (it differs in {', '.join(differing)}); "
                           f"use another --out")
        return
    meta = {"identity": identity, "versions": _versions(), "commit": commit(),
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "columns": list(TIDY_COLUMNS), **spec.extra}
    _write_atomic(meta_path, json.dumps(meta, indent=2).encode())


def expected_rows(spec: RunSpec, chunk: int) -> int | None:
    """Rows a finished chunk file holds (None in games mode: game lengths vary)."""
    if spec.games_mode:
        return None
    _, count = spec.chunk_range(chunk)
    copies = 2 if spec.duplicate else 1
    return sum(count * c.rules.players * copies for c in spec.configs)


def chunk_done(spec: RunSpec, out: Path, chunk: int) -> bool:
    """Whether the chunk's file exists and is a complete Parquet file of the right size."""

    path = out / CHUNK_PATTERN.format(chunk)
    if not path.exists():
        return False
    try:
        # A full read with page checksums: damage inside the data is caught, not only a
        # truncated footer.
        table = pq.read_table(path, page_checksum_verification=True)
    except Exception:  # truncated or corrupt: play it again
        return False
    rows = expected_rows(spec, chunk)
    return rows is None or table.num_rows == rows


def write_chunk(spec: RunSpec, out: Path, chunk: int) -> int:
    """Play a chunk and write its file atomically; returns the units played."""

    frame = play_chunk(spec, chunk)
    table = pa.Table.from_pandas(frame, preserve_index=False)
    path = out / CHUNK_PATTERN.format(chunk)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    pq.write_table(table, tmp, compression="zstd", write_page_checksum=True)
    os.replace(tmp, path)
    return spec.chunk_range(chunk)[1]


def read_meta(out) -> dict:
    path = Path(out) / META
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise RunError(f"{out}: no {META}; not a run directory")
    except (OSError, ValueError):
        raise RunError(f"{path}: unreadable run metadata")


def load_run(out, columns=None) -> pd.DataFrame:
    """The run's finished chunks as one pandas DataFrame (or only ``columns``).

    Chunk files are read in chunk order; a corrupt or unfinished chunk is skipped with a warning
    on stderr (``spades-sim status`` lists them).
    """

    out = Path(out)
    meta = read_meta(out)
    spec = RunSpec.from_identity(meta["identity"])
    tables = []
    for chunk in range(spec.n_chunks):
        path = out / CHUNK_PATTERN.format(chunk)
        if not chunk_done(spec, out, chunk):
            if path.exists():
                print(f"spades-sim: skipping {path.name}: incomplete or corrupt", file=sys.stderr)
            continue
        tables.append(pq.read_table(path, columns=list(columns) if columns else None,
                                    page_checksum_verification=True))
    if not tables:
        return pd.DataFrame(columns=list(columns) if columns else list(TIDY_COLUMNS))

    return pa.concat_tables(tables, promote_options="permissive").to_pandas()


def run_status(out) -> dict:
    """Progress of a run directory: chunks done, missing and corrupt, units done."""
    out = Path(out)
    meta = read_meta(out)
    spec = RunSpec.from_identity(meta["identity"])
    done, corrupt, missing = [], [], []
    for chunk in range(spec.n_chunks):
        path = out / CHUNK_PATTERN.format(chunk)
        if chunk_done(spec, out, chunk):
            done.append(chunk)
        elif path.exists():
            corrupt.append(chunk)
        else:
            missing.append(chunk)
    units_done = sum(spec.chunk_range(c)[1] for c in done)
    return {"out": str(out), "seed": spec.seed, "unit": spec.unit_name, "units": spec.units,
            "units_done": units_done, "chunk_size": spec.chunk_size, "chunks": spec.n_chunks,
            "done": len(done), "missing": missing, "corrupt": corrupt,
            "configs": [c.name for c in spec.configs], "complete": len(done) == spec.n_chunks}
