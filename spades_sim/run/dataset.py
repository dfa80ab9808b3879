"""The run folder on disk: ``meta.json``, one Parquet file per chunk, the locks, reading runs back.

``meta.json`` holds the run's identity (seed, chunk size, configurations, engine hash: everything
the results depend on), its SHA-256 (the *run hash*), the library versions, the commit and the
list of finished chunks with their checksums. Chunk ``c`` is ``chunk-000123.parquet``, in the tidy
schema of ``core.schema.TIDY_COLUMNS`` (one row per hand, seat and configuration), and carries its
own provenance in its key-value metadata: the run hash, its index, its row count and the SHA-256
of its content (``table_checksum``). A chunk counts as finished only when the file reads whole,
its provenance names this run and this index, its schema, row count and checksum are right, and
``meta.json`` lists it with that checksum; anything else is played again on resume, shown by
``status`` and refused by ``load_run``.

Writing is safe against kills and against other writers: chunk files are written to a temporary
name and renamed, ``meta.json`` is rewritten atomically under a short ``flock``; each writer
holds a lock on its share of the chunks (``.writer-I-of-N.lock``), so two writers of the same
chunks are refused while shards of one run write concurrently; temporaries that no live writer
owns are removed when a writer starts.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import platform
import re
import socket
import sys
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from .. import __version__
from ..core.errors import RunError, SpadesError
from ..core.schema import TIDY_COLUMNS, TIDY_TYPES
from ..core.version import commit
from .memory import play_chunk
from .spec import FORMAT_VERSION, RunSpec, identity_hash, shard_chunks

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
_HEX64 = re.compile(r"[0-9a-f]{64}")

# The provenance every chunk file carries in its Parquet key-value metadata.
KEY_RUN = b"spades_sim.run"  # the run hash: SHA-256 of the identity's canonical JSON
KEY_CHUNK = b"spades_sim.chunk"  # the chunk's index
KEY_ROWS = b"spades_sim.rows"  # its row count
KEY_SHA256 = b"spades_sim.sha256"  # table_checksum of its content

# A chunk file has exactly the columns and types of ``core.schema.TIDY_TYPES``; a file with any
# other column or type is not a chunk of a run.


def _versions() -> dict:
    return {"spades_sim": __version__, "python": platform.python_version(),
            "numpy": np.__version__, "pandas": pd.__version__, "numba": version("numba"),
            "pyarrow": pa.__version__}


def _reason(error: BaseException) -> str:
    """An exception as a short single line."""
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    text = " ".join(str(error).split()) or type(error).__name__
    return text if len(text) <= 160 else text[:157] + "..."


# -- locks -----------------------------------------------------------------------------------------
# ``flock`` on small files in the run folder. A holder removes its lock file before releasing it,
# and a process that has just locked a lock file checks that the name still leads to the file it
# locked (else it retries), so removing never lets two holders in. A lock file left by a killed
# process is not locked (the kernel releases a dead process's locks): the next one takes it.

def _acquire(path: Path, wait: float) -> int | None:
    """An fd holding an exclusive ``flock`` on ``path`` (created if needed), or None when it is
    still held by another after ``wait`` seconds."""
    deadline = time.monotonic() + wait
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as error:
            raise RunError(f"{path}: cannot create a lock file: {_reason(error)}")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.01)
            continue
        except OSError as error:
            os.close(fd)
            if error.errno in (errno.ESTALE, errno.ENOENT) and time.monotonic() < deadline:
                time.sleep(0.01)  # removed by its holder meanwhile (NFS): take the new one
                continue
            raise RunError(f"{path}: cannot lock ({_reason(error)}); the run folder must be on "
                           f"a file system with file locks")
        try:
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)  # its holder removed it meanwhile: take the new one


def _release(fd: int, path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
    os.close(fd)


@contextmanager
def _locked(path: Path, wait: float = LOCK_WAIT):
    fd = _acquire(path, wait)
    if fd is None:
        raise RunError(f"{path}: locked by another process for more than {wait:.0f} s; is a "
                       f"process stuck? (remove the file if no run is going)")
    try:
        yield
    finally:
        _release(fd, path)


def _lock_info(fd: int) -> dict:
    try:
        info = json.loads(os.pread(fd, 65536, 0) or b"{}")
    except (OSError, ValueError):
        return {}
    return info if isinstance(info, dict) else {}


@dataclass(frozen=True)
class Writer:
    """The process writing one share of a run: its lock file and its token. Workers get it with
    each chunk and stop when the lock is no longer held with this token (the writer died)."""

    token: str
    lock_name: str

    @property
    def suffix(self) -> str:
        """Temporary files of this writer's processes end in ``.<suffix>.tmp``."""
        return f"{self.token}.{os.getpid()}"


def writer_alive(out: Path, writer: Writer) -> bool:
    """Whether ``writer`` still holds its lock (from any process, on any machine that sees the
    folder): a worker checks it before playing a chunk and before placing its file."""
    try:
        fd = os.open(Path(out) / writer.lock_name, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:  # held: by our writer, if the token is still ours
        alive = _lock_info(fd).get("token") == writer.token
    except OSError as error:  # removed meanwhile (NFS), or no locks here: nothing to go by
        alive = error.errno not in (errno.ESTALE, errno.ENOENT)
    else:
        alive = False  # nobody holds it: the writer is gone
    os.close(fd)
    return alive


def _share_text(shard) -> str:
    index, count = shard
    return "the whole run" if count == 1 else f"shard {index}/{count}"


def _busy(out: Path, info: dict) -> RunError:
    shard = info.get("shard") or [1, 1]
    who = (f"pid {info['pid']} on {info['host']}" if "pid" in info and "host" in info
           else "another process")
    since = f" since {info['started']}" if "started" in info else ""
    return RunError(f"{out} is being written by {who}{since} ({_share_text(shard)}); wait for "
                    f"it to finish, or stop it and run the command again to resume")


def _live_writers(out: Path, exclude: str) -> list[dict]:
    """The lock information of every other writer that holds its lock; lock files nobody holds
    are removed."""
    live = []
    for path in sorted(out.glob(".writer-*-of-*.lock")):
        if path.name == exclude or not WRITER_RE.fullmatch(path.name):
            continue
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            live.append(_lock_info(fd))
        except OSError:
            pass
        else:
            try:
                os.unlink(path)
            except OSError:
                pass
        os.close(fd)
    return live


@contextmanager
def claim_share(out: Path, spec: RunSpec, shard: tuple[int, int] | None):
    """Hold the lock of ``shard``'s share of the run in ``out`` (a ``Writer``), or raise a
    ``RunError`` naming the live writer (pid, host) of the same chunks. On entry, removes the
    temporaries that no live writer owns."""
    out = Path(out)
    share = tuple(shard) if shard is not None else (1, 1)
    lock_name = WRITER_LOCK.format(*share)
    path = out / lock_name
    writer = Writer(uuid.uuid4().hex, lock_name)
    with _locked(out / START_LOCK):
        others = _live_writers(out, exclude=lock_name)
        # A moment's wait: a worker of a dead writer may be probing the stale lock file.
        fd = _acquire(path, wait=1.0)
        if fd is None:
            try:
                holder = os.open(path, os.O_RDONLY)
            except OSError:
                info = {}
            else:
                info = _lock_info(holder)
                os.close(holder)
            raise _busy(out, info)
        try:
            mine = set(shard_chunks(spec, shard))
            for info in others:
                other = info.get("shard") or [1, 1]
                try:
                    theirs = shard_chunks(spec, (int(other[0]), int(other[1])))
                except (TypeError, ValueError, IndexError, ZeroDivisionError):
                    theirs = mine  # unreadable: assume it overlaps
                if mine.intersection(theirs):
                    raise _busy(out, info)
            info = {"pid": os.getpid(), "host": socket.gethostname(),
                    "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                    "shard": list(share), "token": writer.token}
            try:
                os.ftruncate(fd, 0)
                os.pwrite(fd, json.dumps(info).encode(), 0)
            except OSError as error:
                raise RunError(f"{path}: cannot write: {_reason(error)}")
            _remove_temporaries(out, {writer.token} | {o.get("token") for o in others})
        except BaseException:
            _release(fd, path)
            raise
    try:
        yield writer
    finally:
        try:
            _remove_temporaries(out, set(), only={writer.token})
        except OSError:  # the folder went away: nothing to tidy
            pass
        _release(fd, path)


def _remove_temporaries(out: Path, live: set, only: set | None = None) -> None:
    """Remove chunk temporaries whose writer token is not in ``live`` (or, with ``only``, those
    whose token is in ``only``), and every meta.json temporary (they exist only while the
    meta.json lock is held, which this takes)."""
    names = [p.name for p in out.iterdir()]
    for name in names:
        match = TMP_RE.fullmatch(name)
        if not match or match.group(1) == META:
            continue
        token = match.group(2).split(".")[0]
        if (token in only) if only is not None else (token not in live):
            (out / name).unlink(missing_ok=True)
    if only is None and any((m := TMP_RE.fullmatch(n)) and m.group(1) == META for n in names):
        with _locked(out / META_LOCK):
            for name in names:
                match = TMP_RE.fullmatch(name)
                if match and match.group(1) == META:
                    (out / name).unlink(missing_ok=True)


# -- meta.json -------------------------------------------------------------------------------------
_IDENTITY_KEYS = {"format": int, "seed": int, "unit": str, "units": int, "chunk_size": int,
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
    for key, kind in (("identity_sha256", str), ("chunks", dict)):
        if key not in meta:
            return f"no {key!r}"
        if not _has_type(meta[key], kind):
            return f"{key} is {_json_kind(meta[key])}, expected {_KIND_NAMES[kind]}"
    if identity_hash(identity) != meta["identity_sha256"]:
        return "its identity does not match identity_sha256 (edited by hand?)"
    for key, value in meta["chunks"].items():
        if not key.isdigit() or not isinstance(value, str) or not _HEX64.fullmatch(value):
            return f"chunks entry {key!r}: expected a chunk number and a SHA-256"
    return None


def read_meta(out) -> dict:
    """The run folder's ``meta.json``, checked for shape (a one-line ``RunError`` otherwise)."""
    path = Path(out) / META
    try:
        text = path.read_bytes()
    except FileNotFoundError:
        raise RunError(f"{out}: no {META}; not a run directory")
    except OSError as error:
        raise RunError(f"{path}: unreadable run metadata ({_reason(error)})")
    try:
        meta = json.loads(text)
    except (ValueError, RecursionError):
        raise RunError(f"{path}: unreadable run metadata (not JSON: empty or damaged)")
    problem = _meta_problem(meta)
    if problem:
        raise RunError(f"{path}: unusable run metadata: {problem}")
    return meta


def open_run(out) -> tuple[dict, RunSpec]:
    """``(meta, spec)`` of a run folder; a one-line ``RunError`` when it holds no usable run."""
    meta = read_meta(out)
    try:
        spec = RunSpec.from_identity(meta["identity"])
    except SpadesError as error:
        raise RunError(f"{Path(out) / META}: unusable run metadata: {error}")
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as error:
        raise RunError(f"{Path(out) / META}: unusable run metadata: {_reason(error)}")
    return meta, spec


def _write_atomic(path: Path, data: bytes, suffix: str) -> None:
    tmp = path.with_name(f".{path.name}.{suffix}.tmp")
    try:
        with open(tmp, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as error:
        tmp.unlink(missing_ok=True)
        raise RunError(f"{path}: cannot write: {_reason(error)}")


def _dump_meta(meta: dict) -> bytes:
    return json.dumps(meta, indent=2).encode()


def prepare_dir(spec: RunSpec, out) -> None:
    """Create ``out`` with the run's ``meta.json``, or check that it holds this very run.

    Refused (``RunError``): a folder of another run, a ``meta.json`` that is not one, and chunk
    files without a ``meta.json`` (chunks of an unknown run are never adopted)."""
    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise RunError(f"{out}: cannot create the run folder ({_reason(error)})")
    identity = spec.identity()
    with _locked(out / META_LOCK):
        if (out / META).exists():
            existing = open_run(out)[0]["identity"]
            if existing != identity:
                differing = sorted(key for key in set(identity) | set(existing)
                                   if existing.get(key) != identity.get(key))
                raise RunError(f"{out} holds another run (it differs in "
                               f"{', '.join(differing)}); use another --out")
            return
        chunks = sorted(p.name for p in out.iterdir() if CHUNK_RE.fullmatch(p.name))
        if chunks:
            raise RunError(f"{out} holds chunks of an unknown run ({len(chunks)} chunk files but "
                           f"no {META}); use another --out")
        meta = {"identity": identity, "identity_sha256": identity_hash(identity),
                "versions": _versions(), "commit": commit(),
                "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "columns": list(TIDY_COLUMNS), **spec.extra, "chunks": {}}
        _write_atomic(out / META, _dump_meta(meta), f"{uuid.uuid4().hex}.{os.getpid()}")


# -- chunk files -----------------------------------------------------------------------------------
def logical_type(data_type: pa.DataType) -> str:
    """A column type as TIDY_TYPES names it: ``category`` for a dictionary of strings."""
    if pa.types.is_dictionary(data_type):
        value = data_type.value_type
        if pa.types.is_string(value) or pa.types.is_large_string(value):
            return "category"
        return f"dictionary<{value}>"
    return str(data_type)


def schema_problem(table: pa.Table) -> str | None:
    """How ``table``'s columns differ from the run schema (names, order, types, missing
    values); None when they do not."""
    names = list(table.column_names)
    if names != list(TIDY_TYPES):
        missing = [name for name in TIDY_TYPES if name not in names]
        extra = [name for name in names if name not in TIDY_TYPES]
        if missing:
            return f"no column {missing[0]!r} ({len(names)} of {len(TIDY_TYPES)} columns)"
        if extra:
            return f"column {extra[0]!r} is not in the run schema"
        return "its columns are not in the run schema's order"
    for name, column in zip(names, table.columns):
        kind = logical_type(column.type)
        if kind != TIDY_TYPES[name]:
            return f"column {name} is {kind}, the run schema has {TIDY_TYPES[name]}"
        if column.null_count:
            return f"column {name} has {column.null_count:,} missing values"
    return None


def _category_codes(column: pa.ChunkedArray) -> tuple[list, np.ndarray]:
    """A dictionary column as (its sorted distinct values, each row's position among them):
    the same whatever the dictionary's order, unused entries or index width."""
    parts = [(piece.dictionary.to_pylist(), piece.indices.to_numpy(zero_copy_only=False))
             for piece in column.chunks]
    distinct = sorted({values[i] for values, indices in parts
                       for i in np.flatnonzero(np.bincount(indices, minlength=len(values)))})
    position = {value: p for p, value in enumerate(distinct)}
    codes = [np.array([position.get(v, -1) for v in values], dtype=np.int32)[indices]
             for values, indices in parts if len(indices)]
    return distinct, np.concatenate(codes) if codes else np.zeros(0, np.int32)


def table_checksum(table: pa.Table) -> str:
    """The SHA-256 (hex) of a chunk's content, the same for equal content however it is stored:

    the text ``spades_sim chunk v1 rows=N`` and a newline, then for every column in order a JSON
    header line (``[name, type]``; for a ``category`` column ``[name, "category", sorted
    distinct values]``) and its values: numbers as little-endian fixed-width integers (or
    floats), bools as one byte, categories as int32 positions in the sorted distinct values.
    """
    digest = hashlib.sha256(f"spades_sim chunk v1 rows={table.num_rows}\n".encode())
    for name, column in zip(table.column_names, table.columns):
        kind = logical_type(column.type)
        if kind == "category":
            distinct, data = _category_codes(column)
            header = [name, kind, distinct]
        else:
            data = np.asarray(column.to_numpy())
            if data.dtype.kind not in "biuf":
                raise ValueError(f"column {name}: {kind} has no checksum")
            header = [name, kind]
            data = data.astype(data.dtype.newbyteorder("<"), copy=False)
        digest.update(json.dumps(header, ensure_ascii=True).encode() + b"\n")
        digest.update(memoryview(np.ascontiguousarray(data)).cast("B"))
    return digest.hexdigest()


def expected_rows(spec: RunSpec, chunk: int) -> int | None:
    """Rows a finished chunk file holds (None in games mode: game lengths vary)."""
    if spec.games_mode:
        return None
    _, count = spec.chunk_range(chunk)
    copies = 2 if spec.duplicate else 1
    return sum(count * c.rules.players * copies for c in spec.configs)


class Listing:
    """meta.json's list of finished chunks, read again when meta.json has been replaced since
    (a writer finishing a chunk lists it before the file appears)."""

    def __init__(self, out: Path, meta: dict | None = None):
        self.path = Path(out) / META
        self.stamp = self._stamp()
        self.chunks = (meta if meta is not None else read_meta(out))["chunks"]

    def _stamp(self):
        try:
            stat = os.stat(self.path)
        except OSError:
            return None
        return stat.st_ino, stat.st_mtime_ns, stat.st_size

    def get(self, chunk: int, checksum: str | None = None) -> str | None:
        listed = self.chunks.get(str(chunk))
        if listed != checksum and self._stamp() != self.stamp:
            self.stamp = self._stamp()
            try:
                self.chunks = read_meta(self.path.parent)["chunks"]
            except RunError:
                pass
            listed = self.chunks.get(str(chunk))
        return listed


@dataclass
class ChunkCheck:
    """What a chunk file is: ``done``, ``missing``, ``unreadable`` (truncated, damaged: no
    whole Parquet file) or ``foreign`` (a readable file that is not this run's chunk)."""

    state: str
    why: str = ""
    table: pa.Table | None = None


def check_chunk(out: Path, spec: RunSpec, run_hash: str, listing: Listing, chunk: int,
                keep: bool = False) -> ChunkCheck:
    """Verify chunk ``chunk``'s file: whole (page checksums), its own provenance (run hash,
    index, rows, checksum), the run schema, and meta.json's listing. With ``keep``, a finished
    chunk's table comes back too."""
    path = Path(out) / CHUNK_PATTERN.format(chunk)
    if not os.path.lexists(path):
        return ChunkCheck("missing")
    try:
        parquet = pq.ParquetFile(path, page_checksum_verification=True)
        try:
            table = parquet.read()
            kv = parquet.metadata.metadata or {}
        finally:
            parquet.close()
    except Exception as error:  # truncated, damaged, not Parquet: play it again
        return ChunkCheck("unreadable", f"unreadable ({_reason(error)})")
    why = _provenance_problem(spec, run_hash, listing, chunk, table, kv)
    if why:
        return ChunkCheck("foreign", why)
    return ChunkCheck("done", table=table if keep else None)


def _provenance_problem(spec, run_hash, listing, chunk, table, kv) -> str | None:
    def value(key):
        found = kv.get(key)
        return None if found is None else found.decode("utf-8", "replace")

    run, index, rows, checksum = (value(k) for k in (KEY_RUN, KEY_CHUNK, KEY_ROWS, KEY_SHA256))
    if None in (run, index, rows, checksum):
        return "it carries no chunk provenance (not written by a run of this format)"
    if run != run_hash:
        return f"it belongs to another run (run {run[:12]}, this run is {run_hash[:12]})"
    if index != str(chunk):
        return f"it is chunk {index} of this run, not chunk {chunk} (copied or renamed?)"
    problem = schema_problem(table)
    if problem:
        return f"it does not have the run schema: {problem}"
    if rows != str(table.num_rows):
        return f"it holds {table.num_rows:,} rows, its own metadata says {rows}"
    expected = expected_rows(spec, chunk)
    if expected is not None and table.num_rows != expected:
        return f"it holds {table.num_rows:,} rows, a chunk {chunk} of this run has {expected:,}"
    try:
        actual = table_checksum(table)
    except Exception as error:
        return f"its content cannot be checksummed ({_reason(error)})"
    if actual != checksum:
        return "its content does not match its checksum (edited?)"
    listed = listing.get(chunk, checksum)
    if listed is None:
        return f"it is not listed as finished in {META}"
    if listed != checksum:
        return f"{META} lists it with another checksum"
    return None


def pending_chunks(out: Path, spec: RunSpec, chunks) -> list[int]:
    """The chunks of ``chunks`` that are not finished (missing, unreadable or foreign)."""
    meta = read_meta(out)
    listing = Listing(out, meta)
    run_hash = meta["identity_sha256"]
    return [c for c in chunks if check_chunk(out, spec, run_hash, listing, c).state != "done"]


def write_chunk(spec: RunSpec, out, chunk: int, writer: Writer | None = None,
                run_hash: str | None = None) -> tuple[int, int]:
    """Play a chunk and place its file; returns ``(chunk, units played)``, or ``(chunk, 0)``
    when ``writer`` no longer holds its lock (its process died: the chunk is abandoned).

    The file is written to a temporary name with its provenance, listed in meta.json (under the
    meta.json lock) and renamed into place."""
    out = Path(out)
    if writer is not None and not writer_alive(out, writer):
        return chunk, 0
    own_hash = spec.identity_hash()
    if run_hash is not None and own_hash != run_hash:
        raise RunError(f"{socket.gethostname()} (pid {os.getpid()}) computes another run "
                       f"identity than the run's (engine {spec.identity()['engine']}): install "
                       f"the same spades_sim on every machine")
    frame = play_chunk(spec, chunk)
    table = pa.Table.from_pandas(frame, preserve_index=False)
    problem = schema_problem(table)
    if problem:  # a programming error: the engine's frame must keep the run schema
        raise RuntimeError(f"chunk {chunk}: the tidy frame does not match the run schema: "
                           f"{problem}")
    checksum = table_checksum(table)
    table = table.replace_schema_metadata({
        **(table.schema.metadata or {}), KEY_RUN: own_hash.encode(),
        KEY_CHUNK: str(chunk).encode(), KEY_ROWS: str(table.num_rows).encode(),
        KEY_SHA256: checksum.encode()})
    path = out / CHUNK_PATTERN.format(chunk)
    suffix = writer.suffix if writer is not None else f"{uuid.uuid4().hex}.{os.getpid()}"
    tmp = out / f".{path.name}.{suffix}.tmp"
    try:
        pq.write_table(table, tmp, compression="zstd", write_page_checksum=True)
        del table, frame
        if writer is not None and not writer_alive(out, writer):
            tmp.unlink(missing_ok=True)
            return chunk, 0
        with _locked(out / META_LOCK):
            meta = read_meta(out)
            if meta["identity_sha256"] != own_hash:
                raise RunError(f"{out / META}: the run's identity changed while it was played")
            listed = {**meta["chunks"], str(chunk): checksum}
            meta["chunks"] = dict(sorted(listed.items(), key=lambda item: int(item[0])))
            _write_atomic(out / META, _dump_meta(meta), suffix)
            os.replace(tmp, path)
    except (OSError, pa.ArrowException) as error:
        tmp.unlink(missing_ok=True)
        raise RunError(f"{path}: cannot write chunk {chunk}: {_reason(error)}")
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return chunk, spec.chunk_range(chunk)[1]


# -- reading runs back -----------------------------------------------------------------------------
def load_run(out, columns=None) -> pd.DataFrame:
    """The run's finished chunks as one pandas DataFrame (or only ``columns``).

    Every chunk file is verified first. A file that reads whole but is not this run's chunk
    (another run's, another index, the wrong rows, schema or checksum, not listed in meta.json)
    is refused with a ``RunError`` naming it; a file that cannot be read whole (truncated,
    damaged) is skipped with a warning on stderr; missing chunks are skipped (``spades-sim
    status`` lists both).
    """
    out = Path(out)
    meta, spec = open_run(out)
    if columns is not None:
        columns = list(columns)
        unknown = [c for c in columns if c not in TIDY_TYPES]
        if unknown:
            raise RunError(f"{out}: no column {unknown[0]!r} in a run; the columns are "
                           f"{', '.join(TIDY_TYPES)}")
    listing = Listing(out, meta)
    run_hash = meta["identity_sha256"]
    tables = []
    for chunk in range(spec.n_chunks):
        path = out / CHUNK_PATTERN.format(chunk)
        check = check_chunk(out, spec, run_hash, listing, chunk, keep=True)
        if check.state == "missing":
            continue
        if check.state == "unreadable":
            print(f"spades-sim: skipping {path.name}: {check.why}", file=sys.stderr)
            continue
        if check.state == "foreign":
            raise RunError(f"{path}: refused: {check.why}; re-run the run's command to play "
                           f"chunk {chunk} again")
        table = check.table
        table = table.replace_schema_metadata(
            {k: v for k, v in (table.schema.metadata or {}).items()
             if not k.startswith(b"spades_sim.")})
        tables.append(table.select(columns) if columns else table)
    if not tables:
        return pd.DataFrame(columns=columns if columns else list(TIDY_COLUMNS))
    return pa.concat_tables(tables, promote_options="permissive").to_pandas()


def run_status(out) -> dict:
    """Progress of a run directory: chunks done, missing and corrupt (with why), units done."""
    out = Path(out)
    meta, spec = open_run(out)
    listing = Listing(out, meta)
    run_hash = meta["identity_sha256"]
    done, corrupt, missing, problems = [], [], [], {}
    for chunk in range(spec.n_chunks):
        check = check_chunk(out, spec, run_hash, listing, chunk)
        if check.state == "done":
            done.append(chunk)
        elif check.state == "missing":
            missing.append(chunk)
        else:
            corrupt.append(chunk)
            problems[CHUNK_PATTERN.format(chunk)] = check.why
    units_done = sum(spec.chunk_range(c)[1] for c in done)
    return {"out": str(out), "seed": spec.seed, "unit": spec.unit_name, "units": spec.units,
            "units_done": units_done, "chunk_size": spec.chunk_size, "chunks": spec.n_chunks,
            "done": len(done), "missing": missing, "corrupt": corrupt, "problems": problems,
            "configs": [c.name for c in spec.configs], "complete": len(done) == spec.n_chunks}

