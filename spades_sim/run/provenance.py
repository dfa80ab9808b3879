"""The provenance of chunk files: the schema check, the content checksum, the listing in
``meta.json`` and the check that a chunk file is the chunk of this run it claims to be.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..core.par import NULLABLE_COLUMNS
from ..core.schema import TIDY_TYPES
from .folder import CHUNK_PATTERN, META, _reason
from .spec import RunSpec

if TYPE_CHECKING:  # meta.json's listing lives with meta.json
    from .dataset import Listing

# The provenance every chunk file carries in its Parquet key-value metadata.
KEY_RUN = b"spades_sim.run"  # the run hash: SHA-256 of the identity's canonical JSON
KEY_CHUNK = b"spades_sim.chunk"  # the chunk's index
KEY_ROWS = b"spades_sim.rows"  # its row count
KEY_SHA256 = b"spades_sim.sha256"  # table_checksum of its content
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


def schema_problem(table: pa.Table, types: dict | None = None) -> str | None:
    """How ``table``'s columns differ from the run schema ``types`` (default
    ``core.schema.TIDY_TYPES``; ``core.par.tidy_types(True)`` for a run with par): names,
    order, types, missing values (allowed only in ``core.par.NULLABLE_COLUMNS``); None when
    they do not."""
    types = TIDY_TYPES if types is None else types
    names = list(table.column_names)
    if names != list(types):
        missing = [name for name in types if name not in names]
        extra = [name for name in names if name not in types]
        if missing:
            return f"no column {missing[0]!r} ({len(names)} of {len(types)} columns)"
        if extra:
            return f"column {extra[0]!r} is not in the run schema"
        return "its columns are not in the run schema's order"
    for name, column in zip(names, table.columns):
        kind = logical_type(column.type)
        if kind != types[name]:
            return f"column {name} is {kind}, the run schema has {types[name]}"
        if column.null_count and not {name, name.rsplit("_", 1)[0]} & set(NULLABLE_COLUMNS):
            return f"column {name} has {column.null_count:,} missing values"
    return None


def _category_codes(column: pa.ChunkedArray) -> tuple[list, np.ndarray]:
    """A dictionary column as (its sorted distinct values, each row's position among them):
    the same whatever the dictionary's order, unused entries or index width."""
    parts = [(piece.dictionary.to_pylist(), piece.indices.to_numpy(zero_copy_only=False))
             for piece in column.chunks]
    used = [np.bincount(indices, minlength=len(values)) > 0 for values, indices in parts]
    distinct = sorted({values[i] for (values, _), flags in zip(parts, used)
                       for i in np.flatnonzero(flags)})
    if len(parts) == 1 and parts[0][0] == distinct and parts[0][1].dtype == np.int32:
        return distinct, parts[0][1]  # already sorted, each entry used: the indices are the codes
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
    A column with missing values (only the par column ``par_nil_safe`` has them) has the header
    ``[name, type, "nulls"]`` and its values are one byte per row (1: present) followed by the
    values with the missing ones as 0.

    :func:`stored_checksum` gives the same digest from the stored blocks the table is made of,
    without the table.
    """
    return _digest(table.num_rows, (_table_column(name, column) for name, column
                                    in zip(table.column_names, table.columns)))


def stored_checksum(blocks: list[dict], types: dict) -> str:
    """:func:`table_checksum` of ``layout.stored_table(blocks, types)``, from the blocks
    (``layout.stored_block``): what a worker computes before writing a chunk, from the NumPy
    arrays the table views, in less time than reading the table back costs."""
    rows = sum(_block_rows(block) for block in blocks)
    return _digest(rows, (_stored_column(name, kind, [block[name] for block in blocks])
                          for name, kind in types.items()))


def _digest(rows: int, columns) -> str:
    """SHA-256 of the checksum's stream: ``columns`` yields ``(header, [arrays])``."""
    digest = hashlib.sha256(f"spades_sim chunk v1 rows={rows}\n".encode())
    for header, parts in columns:
        digest.update(json.dumps(header, ensure_ascii=True).encode() + b"\n")
        for data in parts:
            digest.update(memoryview(np.ascontiguousarray(data)).cast("B"))
    return digest.hexdigest()


def _little(data: np.ndarray) -> np.ndarray:
    return data.astype(data.dtype.newbyteorder("<"), copy=False)


def _table_column(name: str, column: pa.ChunkedArray) -> tuple[list, list]:
    kind = logical_type(column.type)
    if kind == "category":
        distinct, data = _category_codes(column)
        return [name, kind, distinct], [data]
    if column.null_count:
        present = np.asarray(column.is_valid().to_numpy(zero_copy_only=False), dtype=np.uint8)
        filled = pc.fill_null(column, pa.scalar(0).cast(column.type))
        data = np.asarray(filled.to_numpy())
        if data.dtype.kind not in "biuf":
            raise ValueError(f"column {name}: {kind} has no checksum")
        return [name, kind, "nulls"], [present, _little(data)]
    data = np.asarray(column.to_numpy())
    if data.dtype.kind not in "biuf":
        raise ValueError(f"column {name}: {kind} has no checksum")
    return [name, kind], [_little(data)]


def _block_rows(block: dict) -> int:
    value = block["config"]
    return value[1] if isinstance(value, tuple) else len(value)


def _stored_column(name: str, kind: str, parts: list) -> tuple[list, list]:
    """A stored column's header and values (:func:`table_checksum`'s) from its blocks' parts:
    ``(value, rows)`` for a dictionary column, int8 with -1 for a missing value for
    ``par_nil_safe_S``, else NumPy arrays of the stored type."""
    if kind == "category":
        distinct = sorted({value for value, rows in parts if rows})
        position = {value: p for p, value in enumerate(distinct)}
        return [name, kind, distinct], [np.full(rows, position[value], dtype="<i4")
                                        for value, rows in parts if rows]
    if name.startswith("par_nil_safe_"):
        data = np.concatenate(parts) if parts else np.zeros(0, np.int8)
        if (data < 0).any():
            present = (data >= 0).view(np.uint8)
            return [name, kind, "nulls"], [present, (data == 1).view(np.uint8)]
        return [name, kind], [(data == 1).view(np.uint8)]
    if kind == "bool":
        return [name, kind], [(np.asarray(part) != 0).view(np.uint8) for part in parts]
    return [name, kind], [_little(np.asarray(part, dtype=kind)) for part in parts]


def expected_rows(spec: RunSpec, chunk: int, count: int | None = None) -> int | None:
    """Rows a finished chunk file holds (of ``count`` units, default the chunk's at the run's
    size; None in games mode: game lengths vary)."""
    if spec.games_mode:
        return None
    if count is None:
        _, count = spec.chunk_range(chunk)
    copies = 2 if spec.duplicate else 1
    return count * len(spec.configs) * copies  # one row per hand (``run/layout.py``)


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
    why, units = _provenance_problem(spec, run_hash, listing, chunk, table, kv)
    if why:
        return ChunkCheck("foreign", why)
    needed = spec.chunk_range(chunk)[1]
    if units < needed:
        return ChunkCheck("short", f"it holds {units:,} {spec.unit_name}, the run's size needs "
                                   f"{needed:,} (played again, whole, when the run grows)",
                          units=units)
    return ChunkCheck("done", table=table if keep else None, units=units)


def _provenance_problem(spec, run_hash, listing, chunk, table, kv) -> tuple[str | None, int]:
    """What makes the file not this run's chunk (None when nothing), and the units it holds."""
    def value(key):
        found = kv.get(key)
        return None if found is None else found.decode("utf-8", "replace")

    run, index, rows, checksum, units = (value(k) for k in (KEY_RUN, KEY_CHUNK, KEY_ROWS,
                                                             KEY_SHA256, KEY_UNITS))
    if None in (run, index, rows, checksum, units):
        return "it carries no chunk provenance (not written by a run of this format)", 0
    if run != run_hash:
        return f"it belongs to another run (run {run[:12]}, this run is {run_hash[:12]})", 0
    if index != str(chunk):
        return f"it is chunk {index} of this run, not chunk {chunk} (copied or renamed?)", 0
    if not units.isdigit() or not 1 <= int(units) <= spec.chunk_size:
        return (f"it says it holds {units} {spec.unit_name}, not 1 to the chunk size "
                f"{spec.chunk_size:,}"), 0
    units = int(units)
    problem = schema_problem(table, spec.stored_types)
    if problem:
        return f"it does not have the run schema: {problem}", 0
    if rows != str(table.num_rows):
        return f"it holds {table.num_rows:,} rows, its own metadata says {rows}", 0
    expected = expected_rows(spec, chunk, units)
    if expected is not None and table.num_rows != expected:
        return (f"it holds {table.num_rows:,} rows, a chunk of {units:,} {spec.unit_name} of "
                f"this run has {expected:,}"), 0
    try:
        actual = table_checksum(table)
    except Exception as error:
        return f"its content cannot be checksummed ({_reason(error)})", 0
    if actual != checksum:
        return "its content does not match its checksum (edited?)", 0
    listed = listing.get(chunk, checksum)
    if listed is None:
        return f"it is not listed as finished in {META}", 0
    if listed != checksum:
        return f"{META} lists it with another checksum", 0
    return None, units


