"""The names of a run folder's files (``meta.json``, the chunks, the locks, the temporaries) and a
short one-line form of an exception, shared by the modules that read and write the folder.

The chunk files sit in the folder's ``data/``, which holds nothing but them, so that any
Parquet reader opens ``DIR/data`` as one dataset; ``meta.json``, the locks and every temporary
file sit beside it in ``DIR``. A folder of the older layout has its chunk files in ``DIR``
itself: they are read there, and the next command that writes to the run moves them into
``data/`` (:func:`find_chunk`, ``locks.claim_share``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

META = "meta.json"
DATA = "data"
CHUNK_NAME = "chunk-{:06d}.parquet"
#: A chunk file's path inside the run folder.
CHUNK_PATTERN = DATA + "/" + CHUNK_NAME
CHUNK_RE = re.compile(r"chunk-(\d{6,})\.parquet")
# Temporaries: ``.chunk-000003.parquet.<writer token>.<pid>.tmp`` and ``.meta.json.<...>.tmp``.
TMP_RE = re.compile(r"\.(chunk-\d{6,}\.parquet|meta\.json)\.([^/]+)\.tmp")
META_LOCK = ".meta.lock"
START_LOCK = ".start.lock"
WRITER_LOCK = ".writer-{}-of-{}.lock"
WRITER_RE = re.compile(r"\.writer-(\d+)-of-(\d+)\.lock")
LOCK_WAIT = 60.0  # seconds to wait for a short lock (meta.json, start-up) before giving up


def short_reason(error: BaseException) -> str:
    """An exception as a short single line."""
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    text = " ".join(str(error).split()) or type(error).__name__
    return text if len(text) <= 160 else text[:157] + "..."


def chunk_path(out, chunk: int) -> Path:
    """Where chunk ``chunk`` of the run in ``out`` is written: ``out/data/chunk-NNNNNN.parquet``."""
    return Path(out) / DATA / CHUNK_NAME.format(chunk)


def legacy_chunk_path(out, chunk: int) -> Path:
    """Where the older layout kept chunk ``chunk``: beside ``meta.json``."""
    return Path(out) / CHUNK_NAME.format(chunk)


def find_chunk(out, chunk: int) -> Path | None:
    """The file of chunk ``chunk`` (in ``data/``, else where the older layout kept it), or None
    when there is none (a dangling symbolic link counts as a file: it is refused when read)."""
    for path in (chunk_path(out, chunk), legacy_chunk_path(out, chunk)):
        if os.path.lexists(path):
            return path
    return None


def legacy_chunks(out) -> list[Path]:
    """The chunk files of the older layout in ``out`` (beside ``meta.json``)."""
    try:
        return sorted(Path(out) / name for name in os.listdir(out) if CHUNK_RE.fullmatch(name))
    except OSError:
        return []
