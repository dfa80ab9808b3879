"""The run folder on disk: ``meta.json``, one Parquet file per chunk, the locks, reading runs back.

``meta.json`` holds the run's identity (seed, chunk size, configurations, engine hash: everything
the results depend on but the size), its SHA-256 (the *run hash*), the run's size (``size``: the
hands or games and chunks the latest command asked for), the library versions, the commit and the
list of finished chunks with their checksums. Chunk ``c`` is ``data/chunk-000123.parquet``, in the
stored layout of ``run/layout.py`` (one row per hand and configuration), and carries its
own provenance in its key-value metadata: the run hash, its index, its row count and the units
(hands or games) it holds; ``meta.json`` lists the SHA-256 of each finished chunk file's bytes
(``provenance.file_checksum``). A chunk counts as finished only when its provenance names this
run and this index, its schema and row count are right, and ``meta.json`` lists it with the
checksum of its bytes (a file that does not is read whole to say what it is); anything else is
played again on resume, shown by ``status`` and refused by ``load_run``.

Runs grow: chunk ``c`` holds the same hands whatever the size, so a command with a larger size
(same seed, rules, strategies and chunk size) plays only the chunks missing, the smaller size's
partial last chunk replaced by a whole one; a command with a smaller size plays nothing and reads
the first chunks (a whole chunk cut to the hands the size needs). No chunk is ever deleted, and
``meta.json``'s ``size`` is the size of the latest command.

Writing is safe against kills and against other writers: chunk files are written to a temporary
name and renamed, ``meta.json`` is rewritten atomically under a short ``flock``; each writer
holds a lock on its share of the chunks (``.writer-I-of-N.lock``), so two writers of the same
chunks are refused while shards of one run write concurrently; temporaries that no live writer
owns are removed when a writer starts.
"""

from __future__ import annotations

import json
import os
import platform
import re
import socket
import sys
import time
import uuid
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .. import __version__
from ..core.errors import RunError, SpadesError
from ..core.files import MAX_META_BYTES, read_regular
from ..core.version import commit
from .folder import (
    CHUNK_NAME,
    CHUNK_PATTERN,
    CHUNK_RE,
    DATA,
    META,
    META_LOCK,
    chunk_path,
    find_chunk,
    legacy_chunk_path,
    short_reason,
)
from .layout import needed_columns, stored_schema, tidy_from_stored, write_parquet
from .locks import Writer, file_lock, live_writers, started_text, writer_alive
from .memory import play_chunk_stored
from .provenance import (
    KEY_CHUNK,
    KEY_ROWS,
    KEY_RUN,
    KEY_UNITS,
    check_chunk,
    file_checksum,
    schema_problem,
)
from .spec import FORMAT_VERSION, RunSpec, identity_hash

_HEX64 = re.compile(r"[0-9a-f]{64}")
_CHUNK_KEY = re.compile(r"[0-9]{1,9}")  # (ASCII digits: str.isdigit() takes "²", int() does not)


def _versions() -> dict:
    return {"spades_sim": __version__, "python": platform.python_version(),
            "numpy": np.__version__, "pandas": pd.__version__, "numba": version("numba"),
            "pyarrow": pa.__version__}


# -- meta.json -------------------------------------------------------------------------------------
_IDENTITY_KEYS = {"format": int, "seed": int, "unit": str, "chunk_size": int,
                  "duplicate": bool, "configs": list, "engine": str}
_KIND_NAMES = {int: "an integer", str: "a string", bool: "true or false", list: "a list",
               dict: "an object"}


def _json_kind(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, float):
        return "a number"
    for kind, name in _KIND_NAMES.items():
        if isinstance(value, kind):
            return name
    return type(value).__name__


def _has_type(value, kind) -> bool:
    if kind is bool:
        return isinstance(value, bool)
    return isinstance(value, kind) and not isinstance(value, bool)


def _meta_problem(meta) -> str | None:
    """What is wrong with the shape of a parsed meta.json (None when nothing)."""
    if not isinstance(meta, dict):
        return f"expected a JSON object, found {_json_kind(meta)}"
    if "identity" not in meta:
        return "no 'identity'"
    identity = meta["identity"]
    if not isinstance(identity, dict):
        return f"identity is {_json_kind(identity)}, expected an object"
    found = identity.get("format")
    if _has_type(found, int) and found != FORMAT_VERSION:
        return (f"it is a run folder of format {found}; this spades_sim reads format "
                f"{FORMAT_VERSION} (start the run again in another --out)")
    for key, kind in _IDENTITY_KEYS.items():
        if key not in identity:
            return f"identity has no {key!r}"
        if not _has_type(identity[key], kind):
            return f"identity.{key} is {_json_kind(identity[key])}, expected {_KIND_NAMES[kind]}"
    if identity["unit"] not in ("hands", "games"):
        return f"identity.unit {identity['unit']!r} is neither hands nor games"
    if not identity["configs"]:
        return "identity.configs is empty"
    for flag in ("par", "cards"):
        if flag in identity and not _has_type(identity[flag], bool):
            return f"identity.{flag} is {_json_kind(identity[flag])}, expected true or false"
    for key, kind in (("identity_sha256", str), ("size", dict), ("chunks", dict)):
        if key not in meta:
            return f"no {key!r}"
        if not _has_type(meta[key], kind):
            return f"{key} is {_json_kind(meta[key])}, expected {_KIND_NAMES[kind]}"
    if not _has_type(meta["size"].get("units"), int):
        return (f"size.units is {_json_kind(meta['size'].get('units'))}, expected "
                f"{_KIND_NAMES[int]}")
    if "shards" in meta and not _has_type(meta["shards"], int):
        return f"shards is {_json_kind(meta['shards'])}, expected {_KIND_NAMES[int]}"
    if identity_hash(identity) != meta["identity_sha256"]:
        return "its identity does not match identity_sha256 (edited by hand?)"
    for key, value in meta["chunks"].items():
        if (not _CHUNK_KEY.fullmatch(key) or not isinstance(value, str)
                or not _HEX64.fullmatch(value)):
            return f"chunks entry {key!r}: expected a chunk number and a SHA-256"
    return None


def read_meta(out) -> dict:
    """The run folder's ``meta.json``, checked for shape (a one-line ``RunError`` otherwise)."""
    return read_meta_stamped(out)[0]


def read_meta_stamped(out) -> tuple[dict, tuple]:
    """``(meta, stamp)``: :func:`read_meta`'s, and the stamp (inode, modification time, size)
    of the very file it read (taken from the open file, so a ``meta.json`` replaced meanwhile
    cannot pair its stamp with the older listing)."""
    path = Path(out) / META
    stamp = []
    try:
        text = read_regular(path, MAX_META_BYTES, RunError, stamp=stamp)
    except FileNotFoundError:
        writers = live_writers(out)
        if writers:  # (a writer takes its lock before it writes meta.json)
            raise RunError(f"{out}: {started_text(writers[0])}; no chunk is finished yet (no "
                           f"{META} yet): wait a moment and look again")
        raise RunError(f"{out}: no {META}; not a run directory")
    except RunError:
        raise
    except OSError as error:
        raise RunError(f"{path}: unreadable run metadata ({short_reason(error)})")
    try:
        meta = json.loads(text)
    except (ValueError, RecursionError):
        raise RunError(f"{path}: unreadable run metadata (not JSON: empty or damaged)")
    problem = _meta_problem(meta)
    if problem:
        raise RunError(f"{path}: unusable run metadata: {problem}")
    return meta, stamp[0]


def open_run(out) -> tuple[dict, RunSpec]:
    """``(meta, spec)`` of a run folder; a one-line ``RunError`` when it holds no usable run."""
    meta, _, spec = open_run_stamped(out)
    return meta, spec


def open_run_stamped(out) -> tuple[dict, tuple, RunSpec]:
    """``(meta, stamp, spec)``: :func:`open_run`'s, with meta.json's stamp
    (:func:`read_meta_stamped`)."""
    meta, stamp = read_meta_stamped(out)
    try:
        spec = RunSpec.from_identity(meta["identity"], meta["size"]["units"])
    except SpadesError as error:
        raise RunError(f"{Path(out) / META}: unusable run metadata: {error}")
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as error:
        raise RunError(f"{Path(out) / META}: unusable run metadata: {short_reason(error)}")
    return meta, stamp, spec


def write_atomic(path: Path, data: bytes, suffix: str) -> None:
    """Write ``path`` whole or not at all: a temporary file (``.NAME.SUFFIX.tmp``) in the same
    folder, flushed to disk, then renamed over it; a failure removes the temporary file and is
    a one-line :class:`RunError`."""
    tmp = path.with_name(f".{path.name}.{suffix}.tmp")
    try:
        with open(tmp, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as error:
        tmp.unlink(missing_ok=True)
        raise RunError(f"{path}: cannot write: {short_reason(error)}")
    except BaseException:  # (an interrupt: no temporary left behind)
        tmp.unlink(missing_ok=True)
        raise


def _dump_meta(meta: dict) -> bytes:
    return json.dumps(meta, indent=2).encode()


def check_dir(spec: RunSpec, out) -> bool:
    """Refuse (``RunError``), without writing anything, a folder ``out`` that cannot take the
    run: one of another run, a ``meta.json`` that is not one, chunk files without a
    ``meta.json`` (chunks of an unknown run are never adopted), a path that is not a folder.
    True when ``out`` already holds the run (at any size)."""
    out = Path(out)
    if not out.exists():
        return False
    if not out.is_dir():
        raise RunError(f"{out}: not a folder; use another --out")
    data = out / DATA
    if os.path.lexists(data) and not data.is_dir():
        raise RunError(f"{data}: not a folder (a run keeps its chunk files in it); move it "
                       f"away")
    try:
        has_meta = os.path.lexists(out / META)
    except OSError as error:
        raise RunError(f"{out}: unreadable run folder ({short_reason(error)})")
    if has_meta:
        meta = open_run(out)[0]
        identity, existing = spec.identity(), meta["identity"]
        if existing != identity:
            differing = sorted(key for key in set(identity) | set(existing)
                               if existing.get(key) != identity.get(key))
            raise RunError(f"{out} holds another run (it differs in "
                           f"{', '.join(differing)}); use another --out")
        return True
    try:
        names = os.listdir(out) + (os.listdir(out / DATA) if (out / DATA).is_dir() else [])
    except OSError as error:
        raise RunError(f"{out}: unreadable run folder ({short_reason(error)})")
    chunks = [name for name in names if CHUNK_RE.fullmatch(name)]
    if chunks:
        raise RunError(f"{out} holds chunks of an unknown run ({len(chunks)} chunk files but "
                       f"no {META}); use another --out")
    return False


def prepare_dir(spec: RunSpec, out, shard: tuple[int, int] | None = None) -> None:
    """Give ``out`` the run's ``meta.json``, or check that it holds this very run (at any size:
    ``meta.json``'s ``size`` becomes ``spec``'s, and ``shards`` the number of shards ``shard``
    splits it in, 1 without). The caller holds the share's writer lock
    (``locks.claim_share``): nothing is written before it is held, so a writer refused
    because another one holds the lock has changed nothing.

    Refused (``RunError``): as :func:`check_dir`."""
    out = Path(out)
    identity = spec.identity()
    shards = int(shard[1]) if shard is not None else 1
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise RunError(f"{out}: cannot create the run folder ({short_reason(error)})")
    with file_lock(out / META_LOCK):
        if check_dir(spec, out):
            meta = open_run(out)[0]
            if meta["size"] != spec.size() or meta.get("shards") != shards:
                meta["size"], meta["shards"] = spec.size(), shards  # the run grows (or shrinks)
                write_atomic(out / META, _dump_meta(meta), f"{uuid.uuid4().hex}.{os.getpid()}")
            return
        meta = {"identity": identity, "identity_sha256": identity_hash(identity),
                "versions": _versions(), "commit": commit(),
                "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "columns": list(spec.columns), **spec.extra, "size": spec.size(),
                "shards": shards, "chunks": {}}
        write_atomic(out / META, _dump_meta(meta), f"{uuid.uuid4().hex}.{os.getpid()}")


class Listing:
    """meta.json's list of finished chunks, read again when a chunk file does not match it
    and meta.json has been replaced since (a writer lists a chunk in meta.json, then renames
    its file into place: a reader that read meta.json before the listing and the file after
    the rename must look again). The stamp is the one of the very file the listing was read
    from (:func:`read_meta_stamped`), so a meta.json replaced between reading it and taking
    its stamp cannot hide a newer listing."""

    def __init__(self, out: Path, meta: dict | None = None, stamp=None):
        self.path = Path(out) / META
        if meta is None or stamp is None:
            meta, stamp = read_meta_stamped(out)
        self.stamp, self.chunks = stamp, meta["chunks"]

    def _stamp(self):
        try:
            stat = os.stat(self.path)
        except OSError:
            return None
        return stat.st_ino, stat.st_mtime_ns, stat.st_size

    def refresh(self) -> bool:
        """Read meta.json again if it was replaced since; whether it was."""
        if self._stamp() == self.stamp:
            return False
        try:
            meta, self.stamp = read_meta_stamped(self.path.parent)
        except RunError:
            return False
        self.chunks = meta["chunks"]
        return True

    def get(self, chunk: int, checksum: str | None = None) -> str | None:
        listed = self.chunks.get(str(chunk))
        if listed != checksum and self.refresh():
            listed = self.chunks.get(str(chunk))
        return listed


def _file_stamp(out: Path, chunk: int):
    path = find_chunk(out, chunk)
    try:
        stat = os.lstat(path) if path is not None else None
    except OSError:
        return None
    return None if stat is None else (str(path), stat.st_ino, stat.st_mtime_ns, stat.st_size)


#: Times a chunk that does not check is looked at again while its file or meta.json changes
#: under the reader (a live writer placing it).
CHECK_RETRIES = 3


def checked_chunk(out: Path, spec: RunSpec, run_hash: str, listing: Listing, chunk: int,
                  keep: bool = False, columns=None):
    """:func:`~.provenance.check_chunk` (``columns``: only those of a kept table), looked at
    again when the file does not check but it or meta.json changed while it was read (a writer
    placing that chunk meanwhile): a run being written is never refused for a chunk its writer
    has just finished."""
    for _ in range(CHECK_RETRIES):
        before = _file_stamp(out, chunk)
        check = check_chunk(out, spec, run_hash, listing, chunk, keep=keep, columns=columns)
        if check.state in ("done", "missing"):
            return check
        changed = _file_stamp(out, chunk) != before
        if not (listing.refresh() or changed):
            return check
    return check


def pending_chunks(out: Path, spec: RunSpec, chunks) -> list[int]:
    """The chunks of ``chunks`` that are not finished (missing, unreadable or foreign)."""
    meta, stamp = read_meta_stamped(out)
    listing = Listing(out, meta, stamp)
    run_hash = meta["identity_sha256"]
    return [c for c in chunks if check_chunk(out, spec, run_hash, listing, c).state != "done"]


@dataclass(frozen=True)
class StoredChunk:
    """A chunk played and written under a temporary name (``tmp``, in the run folder), not yet
    listed in ``meta.json`` nor renamed into place (:func:`place_chunk`)."""

    chunk: int
    units: int
    checksum: str
    tmp: str


def write_chunk(spec: RunSpec, out, chunk: int, writer: Writer | None = None,
                run_hash: str | None = None, table: pa.Table | None = None) -> tuple[int, int]:
    """Play a chunk and place its file; returns ``(chunk, units played)``, or ``(chunk, 0)``
    when ``writer`` no longer holds its lock (its process died: the chunk is abandoned).
    ``table``: the chunk already played (``memory.play_chunk_stored``), to write only.

    :func:`store_chunk` then :func:`place_chunk`: the file is written to a temporary name with
    its provenance, listed in meta.json (under the meta.json lock) and renamed into place."""
    stored = store_chunk(spec, out, chunk, writer, run_hash, table)
    if stored is None:
        return chunk, 0
    return place_chunk(spec, out, stored, writer)


def store_chunk(spec: RunSpec, out, chunk: int, writer: Writer | None = None,
                run_hash: str | None = None, table: pa.Table | None = None) -> StoredChunk | None:
    """Play a chunk (unless ``table`` holds it) and write its file, with its provenance, under
    a temporary name; None when ``writer`` no longer holds its lock. A worker of a run on
    several processes does this, and the run's own process places the file
    (:func:`place_chunk`), so that workers never wait for ``meta.json``'s lock nor its flush."""
    out = Path(out)
    if writer is not None and not writer_alive(out, writer):
        return None
    own_hash = spec.identity_hash()
    if run_hash is not None and own_hash != run_hash:
        raise RunError(f"{socket.gethostname()} (pid {os.getpid()}) computes another run "
                       f"identity than the run's (engine {spec.identity()['engine']}): install "
                       f"the same spades_sim on every machine")
    if table is None:
        table = play_chunk_stored(spec, chunk)
    problem = schema_problem(table, spec.stored_types)
    if problem:  # a programming error: the stored table must keep the run schema
        raise RuntimeError(f"chunk {chunk}: the stored table does not match the run schema: "
                           f"{problem}")
    units = spec.chunk_range(chunk)[1]
    table = table.replace_schema_metadata({
        **(table.schema.metadata or {}), KEY_RUN: own_hash.encode(),
        KEY_CHUNK: str(chunk).encode(), KEY_ROWS: str(table.num_rows).encode(),
        KEY_UNITS: str(units).encode()})
    path = chunk_path(out, chunk)
    suffix = writer.suffix if writer is not None else f"{uuid.uuid4().hex}.{os.getpid()}"
    tmp = out / f".{path.name}.{suffix}.tmp"  # (beside data/: it holds only finished chunks)
    try:
        sink = pa.BufferOutputStream()  # (the file in memory: checksummed, then written)
        write_parquet(table, sink)
        data = sink.getvalue()
        del table
        checksum = file_checksum(data)
        with open(tmp, "wb") as handle:
            handle.write(memoryview(data))
        if writer is not None and not writer_alive(out, writer):  # (nobody would place it)
            tmp.unlink(missing_ok=True)
            return None
    except (OSError, pa.ArrowException) as error:
        tmp.unlink(missing_ok=True)
        raise RunError(f"{path}: cannot write chunk {chunk}: {short_reason(error)}")
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return StoredChunk(chunk, units, checksum, tmp.name)


def place_chunk(spec: RunSpec, out, stored: StoredChunk,
                writer: Writer | None = None) -> tuple[int, int]:
    """List a stored chunk in meta.json with its checksum (under the meta.json lock) and rename
    its file into place; ``(chunk, units)``, or ``(chunk, 0)`` when ``writer`` no longer holds
    its lock (the temporary file is removed)."""
    out = Path(out)
    chunk = stored.chunk
    path, tmp = chunk_path(out, chunk), out / stored.tmp
    suffix = writer.suffix if writer is not None else f"{uuid.uuid4().hex}.{os.getpid()}"
    try:
        if writer is not None and not writer_alive(out, writer):
            tmp.unlink(missing_ok=True)
            return chunk, 0
        with file_lock(out / META_LOCK):
            meta = read_meta(out)
            if meta["identity_sha256"] != spec.identity_hash():
                raise RunError(f"{out / META}: the run's identity changed while it was played")
            listed = {**meta["chunks"], str(chunk): stored.checksum}
            meta["chunks"] = dict(sorted(listed.items(), key=lambda item: int(item[0])))
            path.parent.mkdir(exist_ok=True)
            write_atomic(out / META, _dump_meta(meta), suffix)
            os.replace(tmp, path)
            legacy_chunk_path(out, chunk).unlink(missing_ok=True)  # (the older layout's copy)
    except OSError as error:
        tmp.unlink(missing_ok=True)
        raise RunError(f"{path}: cannot write chunk {chunk}: {short_reason(error)}")
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return chunk, stored.units


# -- reading runs back -----------------------------------------------------------------------------
def load_run(out, columns=None) -> pd.DataFrame:
    """The run's finished chunks as one pandas DataFrame (or only ``columns``): the columns of
    ``core.schema.TIDY_COLUMNS``, and in a run played with par the par columns
    (``par_nil_safe`` as pandas' nullable ``boolean``).

    Every chunk file is verified first. A file that reads whole but is not this run's chunk
    (another run's, another index, the wrong rows, schema or checksum, not listed in meta.json)
    is refused with a ``RunError`` naming it; a file that cannot be read whole (truncated,
    damaged) is skipped with a warning on stderr; missing chunks are skipped (``spades-sim
    status`` lists both), and so is the partial last chunk of a smaller size.

    The run is read at the size of ``meta.json`` (that of the latest command that played it):
    a whole chunk of a larger size is cut to the hands (or games) this size needs, so the frame
    is exactly that of a fresh run of this size; chunks beyond it are not read.
    """
    out = Path(out)
    meta, stamp, spec = open_run_stamped(out)
    types = spec.column_types
    if columns is not None:
        columns = list(columns)
        unknown = [c for c in columns if c not in types]
        if unknown:
            played = "" if spec.par else " (the par columns need a run played with --par)"
            if unknown[0] == "cards":
                played = " (the cards column needs a run played with --cards)"
            raise RunError(f"{out}: no column {unknown[0]!r} in this run; its columns are "
                           f"{', '.join(types)}{played}")
    # (only the stored columns those columns are built from: the others are not decoded)
    stored = None if columns is None else needed_columns(columns, spec.stored_types,
                                                         spec.games_mode)
    tables = [table for _, table in stored_chunks(out, meta, spec, stamp, columns=stored)]
    if not tables:
        schema = stored_schema(spec.stored_types)
        table = schema.empty_table() if stored is None else schema.empty_table().select(
            [name for name in schema.names if name in set(stored)])
    else:
        table = pa.concat_tables(tables)
    del tables
    frame = chunk_frame(spec, table, columns)
    del table
    # Arrow's allocator keeps what it freed (the chunks read) for reuse; give it back, or the
    # reader's memory holds every chunk read beside the frame.
    pa.default_memory_pool().release_unused()
    return frame


def stored_chunks(out, meta: dict | None = None, spec: RunSpec | None = None, stamp=None,
                  columns=None):
    """The run's finished chunks one at a time, as ``(chunk, table)`` (the stored rows,
    ``run/layout.py``), checked as :func:`load_run` checks them (a foreign file is a
    ``RunError``, an unreadable one skipped with a warning, a whole chunk of a larger size cut
    to this size's units): a reader that needs only one chunk in memory at a time. ``meta``,
    ``spec`` and ``stamp``: those :func:`open_run_stamped` gave, if the caller has them;
    ``columns``: only these stored columns (and ``config`` and the row ids), in the stored
    order; the others are not decoded."""
    out = Path(out)
    if meta is None or spec is None:
        meta, stamp, spec = open_run_stamped(out)
    listing = Listing(out, meta, stamp)
    run_hash = meta["identity_sha256"]
    ids = "game_id" if spec.games_mode else "hand_id"
    if columns is not None:
        wanted = {*columns, "config", ids}
        columns = [name for name in spec.stored_types if name in wanted]
    for chunk in range(spec.n_chunks):
        check = checked_chunk(out, spec, run_hash, listing, chunk, keep=True, columns=columns)
        if check.state in ("missing", "short"):
            continue
        path = find_chunk(out, chunk) or chunk_path(out, chunk)
        if check.state == "unreadable":
            print(f"spades-sim: skipping {CHUNK_PATTERN.format(chunk)}: {check.why}",
                  file=sys.stderr)
            continue
        if check.state == "foreign":
            raise RunError(f"{path}: refused: {check.why}; {replay_advice(out, chunk)}")
        table = check.table
        first, count = spec.chunk_range(chunk)
        if check.units > count:  # the whole chunk of a larger size: its first units only
            found = table.column(ids)
            table = table.filter(pc.less(found, pa.scalar(first + count, found.type)))
        yield chunk, table.replace_schema_metadata(None)


def chunk_frame(spec: RunSpec, table: pa.Table, columns=None) -> pd.DataFrame:
    """The tidy frame (``spec.column_types``, or only ``columns``) of stored rows of the run
    (a chunk file's table, ``run/layout.py``)."""
    return tidy_from_stored(table, spec, columns)



def replay_advice(out: Path, chunk: int) -> str:
    """What to do about chunk ``chunk`` that is not the run's: wait for a live writer of the
    run (it may be placing it), or play it again."""
    writers = live_writers(out)
    if writers:
        return f"{started_text(writers[0])}: read it again when that has finished"
    return f"re-run the run's command to play chunk {chunk} again"


def run_status(out) -> dict:
    """Progress of a run directory: chunks done, missing and corrupt (with why), units done;
    ``stray``: files in ``data/`` that are not chunks of the run (Parquet readers of the folder
    would read or trip on them); ``layout``: ``data`` or ``legacy`` (chunks beside
    meta.json)."""
    out = Path(out)
    meta, stamp, spec = open_run_stamped(out)
    listing = Listing(out, meta, stamp)
    run_hash = meta["identity_sha256"]
    done, corrupt, missing, problems = [], [], [], {}
    for chunk in range(spec.n_chunks):
        check = checked_chunk(out, spec, run_hash, listing, chunk)
        if check.state == "done":
            done.append(chunk)
        elif check.state in ("missing", "short"):
            missing.append(chunk)
        else:
            corrupt.append(chunk)
            problems[CHUNK_PATTERN.format(chunk)] = check.why
    units_done = sum(spec.chunk_range(c)[1] for c in done)
    beyond = sorted(int(c) for c in meta["chunks"] if int(c) >= spec.n_chunks)
    stray = _stray_files(out)
    legacy = any(find_chunk(out, c) == legacy_chunk_path(out, c) for c in range(spec.n_chunks))
    return {"layout": "legacy" if legacy else "data", "stray": stray,
            "out": str(out), "seed": spec.seed, "unit": spec.unit_name, "units": spec.units,
            "units_done": units_done, "chunk_size": spec.chunk_size, "chunks": spec.n_chunks,
            "done": len(done), "missing": missing, "corrupt": corrupt, "problems": problems,
            "configs": [c.name for c in spec.configs], "complete": len(done) == spec.n_chunks,
            "shards": meta.get("shards", 1), "beyond": beyond}



def _stray_files(out: Path) -> list[str]:
    """Names in ``out/data`` that are not chunk file names (``chunk-NNNNNN.parquet``, of any
    chunk: those beyond the run's size are kept), at most 20."""
    try:
        names = sorted(os.listdir(out / DATA))
    except OSError:
        return []
    stray = []
    for name in names:  # (a chunk file that does not check is the chunk's problem, not stray)
        match = CHUNK_RE.fullmatch(name)
        if match is None or name != CHUNK_NAME.format(int(match.group(1))):
            stray.append(name)
    return stray[:20]
