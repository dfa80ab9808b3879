"""The provenance of chunk files: the schema check, the file checksum, the listing in
``meta.json`` and the check that a chunk file is the chunk of this run it claims to be.

A chunk file's checksum is the SHA-256 of its bytes (:func:`file_checksum`), taken by the
writer from the bytes it writes and listed in ``meta.json``. A file whose bytes have the listed
checksum is the file the run wrote, so checking a finished chunk costs a hash and the file's
footer, not decoding it; anything else is read whole (page checksums verified) to say what it
is.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.parquet as pq

from ..core.errors import RunError
from ..core.files import read_regular
from ..core.par import NULLABLE_COLUMNS
from ..core.schema import TIDY_TYPES
from .folder import META, find_chunk, short_reason
from .spec import RunSpec

if TYPE_CHECKING:  # meta.json's listing lives with meta.json
    from .dataset import Listing

# The provenance every chunk file carries in its Parquet key-value metadata.
KEY_RUN = b"spades_sim.run"  # the run hash: SHA-256 of the identity's canonical JSON
KEY_CHUNK = b"spades_sim.chunk"  # the chunk's index
KEY_ROWS = b"spades_sim.rows"  # its row count
KEY_UNITS = b"spades_sim.units"  # the hands (or games) it holds: a run's last chunk may be partial

# A chunk file has exactly the stored columns and types of its run (``RunSpec.stored_types``:
# one row per hand, ``run/layout.py``); a file with any other column or type is not a chunk of
# the run.


def logical_type(data_type: pa.DataType) -> str:
    """A column type as TIDY_TYPES names it: ``category`` for a dictionary of strings."""
    if pa.types.is_dictionary(data_type):
        value = data_type.value_type
        if pa.types.is_string(value) or pa.types.is_large_string(value):
            return "category"
        return f"dictionary<{value}>"
    return str(data_type)


def schema_problem(table: pa.Table, types: dict | None = None,
                   schema: pa.Schema | None = None) -> str | None:
    """How ``table``'s columns differ from the run schema ``types`` (default
    ``core.schema.TIDY_TYPES``; ``core.par.tidy_types(True)`` for a run with par): names,
    order, types, missing values (allowed only in ``core.par.NULLABLE_COLUMNS``); None when
    they do not. ``schema``: the whole schema of a file of which ``table`` holds only some
    columns (names, order and types are the schema's; a column not in ``table`` must be one
    the schema declares non-nullable, :func:`columns_to_check`, so it holds no missing
    value)."""
    types = TIDY_TYPES if types is None else types
    schema = table.schema if schema is None else schema
    names = list(schema.names)
    if names != list(types):
        missing = [name for name in types if name not in names]
        extra = [name for name in names if name not in types]
        if missing:
            return f"no column {missing[0]!r} ({len(names)} of {len(types)} columns)"
        if extra:
            return f"column {extra[0]!r} is not in the run schema"
        return "its columns are not in the run schema's order"
    held = set(table.column_names)
    for field in schema:
        name = field.name
        kind = logical_type(field.type)
        if kind != types[name]:
            return f"column {name} is {kind}, the run schema has {types[name]}"
        if name not in held:
            continue
        nulls = table.column(name).null_count
        if nulls and not _nullable(name):
            return f"column {name} has {nulls:,} missing values"
    return None


def _nullable(name: str) -> bool:
    """Whether the stored column ``name`` may hold missing values."""
    return bool({name, name.rsplit("_", 1)[0]} & set(NULLABLE_COLUMNS))


def columns_to_check(schema: pa.Schema, columns) -> list[str]:
    """The columns of a file of ``schema`` to read for a reader that needs ``columns``: those
    (the ones the schema has), and every column the schema declares nullable that may not hold
    missing values (read to count them: :func:`schema_problem`), in the schema's order."""
    wanted = set(columns)
    return [field.name for field in schema
            if field.name in wanted or (field.nullable and not _nullable(field.name))]


def file_checksum(data) -> str:
    """The SHA-256 (hex) of a chunk file's bytes: what ``meta.json`` lists for it."""
    return hashlib.sha256(memoryview(data)).hexdigest()


def expected_rows(spec: RunSpec, chunk: int, count: int | None = None) -> int | None:
    """Rows a finished chunk file holds (of ``count`` units, default the chunk's at the run's
    size; None in games mode: game lengths vary)."""
    if spec.games_mode:
        return None
    if count is None:
        _, count = spec.chunk_range(chunk)
    copies = 2 if spec.duplicate else 1
    return count * len(spec.configs) * copies  # one row per hand (``run/layout.py``)


def chunk_limit(spec: RunSpec) -> int:
    """The most bytes a chunk file of ``spec`` can hold: its most rows (a games run's games at
    their hand cap) at 9 bytes a stored column, and room for the footer. A larger file is not
    the run's chunk, and is not read (a sparse file, a link to a huge one)."""
    hands = max(config.rules.hand_cap for config in spec.configs) if spec.games_mode else 1
    copies = 2 if spec.duplicate else 1
    rows = spec.chunk_size * len(spec.configs) * copies * hands
    return rows * 9 * len(spec.stored_types) + (1 << 20)


@dataclass
class ChunkCheck:
    """What a chunk file is: ``done``, ``missing``, ``unreadable`` (truncated, damaged: no
    whole Parquet file), ``foreign`` (a readable file that is not this run's chunk) or
    ``short`` (this run's chunk, but the partial last chunk of a smaller size: played again,
    whole, when the run grows). ``units``: the units a ``done`` or ``short`` file holds (a
    ``done`` file may hold more than the run's size needs: the full chunk of a larger size)."""

    state: str
    why: str = ""
    table: pa.Table | None = None
    units: int = 0


def check_chunk(out: Path, spec: RunSpec, run_hash: str, listing: Listing, chunk: int,
                keep: bool = False, columns=None) -> ChunkCheck:
    """Verify chunk ``chunk``'s file: its bytes against meta.json's listing, its own provenance
    (run hash, index, units, rows) and the run schema; a file whose checksum is not the listed
    one is read whole (page checksums) to say what it is: unreadable, or not this run's chunk.
    With ``keep``, a finished chunk's table comes back too: only ``columns`` of it when given
    (the others are not decoded; the checks are the same: :func:`columns_to_check`)."""
    path = find_chunk(out, chunk)
    if path is None:
        return ChunkCheck("missing")
    try:
        data = read_regular(path, chunk_limit(spec), RunError)
    except RunError as error:  # a FIFO, a device, a directory, too large
        return ChunkCheck("foreign", str(error).split(": refused: ", 1)[-1])
    except OSError as error:  # a dangling link, no permission
        return ChunkCheck("unreadable", f"unreadable ({short_reason(error)})")
    try:
        checksum = file_checksum(data)
        listed = listing.get(chunk, checksum) == checksum
        parquet = pq.ParquetFile(pa.BufferReader(data), page_checksum_verification=True)
        try:
            metadata = parquet.metadata
            kv = metadata.metadata or {}
            schema = parquet.schema_arrow
            read = None if columns is None else columns_to_check(schema, columns)
            # A file that is not the listed one is read on this thread alone: it is read only
            # to say what it is, and a command that then ends at once (``spades-sim hand`` on a
            # foreign chunk) must not exit while Arrow's pool threads are still decoding it.
            table = (parquet.read(columns=read) if listed and keep
                     else parquet.read(use_threads=False) if not listed else None)
        finally:
            parquet.close()
    except Exception as error:  # truncated, damaged, not Parquet: play it again
        return ChunkCheck("unreadable", f"unreadable ({short_reason(error)})")
    if table is None:  # the bytes the run wrote: the footer says the rest
        table = schema.empty_table()
        rows = metadata.num_rows
    else:
        rows = table.num_rows
    whole = schema if listed and keep and columns is not None else None  # (some columns read)
    why, units = _provenance_problem(spec, run_hash, listing, chunk, table, rows, kv, checksum,
                                     whole)
    if why:
        return ChunkCheck("foreign", why)
    needed = spec.chunk_range(chunk)[1]
    if units < needed:
        return ChunkCheck("short", f"it holds {units:,} {spec.unit_name}, the run's size needs "
                                   f"{needed:,} (played again, whole, when the run grows)",
                          units=units)
    return ChunkCheck("done", table=table if keep else None, units=units)


def _provenance_problem(spec, run_hash, listing, chunk, table, n_rows, kv,
                        checksum, schema) -> tuple[str | None, int]:
    """What makes the file not this run's chunk (None when nothing), and the units it holds.
    ``table``: the file's table, or an empty one of its schema; ``n_rows``: its rows;
    ``schema``: the file's schema where ``table`` holds only some of its columns, else None."""
    def value(key):
        found = kv.get(key)
        return None if found is None else found.decode("utf-8", "replace")

    run, index, rows, units = (value(k) for k in (KEY_RUN, KEY_CHUNK, KEY_ROWS, KEY_UNITS))
    if None in (run, index, rows, units):
        return "it carries no chunk provenance (not written by a run of this format)", 0
    if run != run_hash:
        return f"it belongs to another run (run {run[:12]}, this run is {run_hash[:12]})", 0
    if index != str(chunk):
        return f"it is chunk {index} of this run, not chunk {chunk} (copied or renamed?)", 0
    if not units.isdigit() or not 1 <= int(units) <= spec.chunk_size:
        return (f"it says it holds {units} {spec.unit_name}, not 1 to the chunk size "
                f"{spec.chunk_size:,}"), 0
    units = int(units)
    problem = schema_problem(table, spec.stored_types, schema)
    if problem:
        return f"it does not have the run schema: {problem}", 0
    if rows != str(n_rows):
        return f"it holds {n_rows:,} rows, its own metadata says {rows}", 0
    expected = expected_rows(spec, chunk, units)
    if expected is not None and n_rows != expected:
        return (f"it holds {n_rows:,} rows, a chunk of {units:,} {spec.unit_name} of "
                f"this run has {expected:,}"), 0
    listed = listing.get(chunk, checksum)
    if listed is None:
        return f"it is not listed as finished in {META}", 0
    if listed != checksum:
        return (f"its bytes do not match the checksum {META} lists for it (edited or "
                f"replaced?)"), 0
    return None, units
