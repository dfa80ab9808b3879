"""The names of a run folder's files (``meta.json``, the chunks, the locks, the temporaries) and a
short one-line form of an exception, shared by the modules that read and write the folder."""

from __future__ import annotations

import re

META = "meta.json"
CHUNK_PATTERN = "chunk-{:06d}.parquet"
CHUNK_RE = re.compile(r"chunk-(\d{6,})\.parquet")
# Temporaries: ``.chunk-000003.parquet.<writer token>.<pid>.tmp`` and ``.meta.json.<...>.tmp``.
TMP_RE = re.compile(r"\.(chunk-\d{6,}\.parquet|meta\.json)\.([^/]+)\.tmp")
META_LOCK = ".meta.lock"
START_LOCK = ".start.lock"
WRITER_LOCK = ".writer-{}-of-{}.lock"
WRITER_RE = re.compile(r"\.writer-(\d+)-of-(\d+)\.lock")
LOCK_WAIT = 60.0  # seconds to wait for a short lock (meta.json, start-up) before giving up


def _reason(error: BaseException) -> str:
    """An exception as a short single line."""
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    text = " ".join(str(error).split()) or type(error).__name__
    return text if len(text) <= 160 else text[:157] + "..."
