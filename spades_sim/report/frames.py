"""A run's rows for the report, one configuration at a time.

The tidy frame of a whole experiment is large (16 configurations of 400,000 hands are 23 M
rows, over a gigabyte with the columns the sections read), and the analyses of the hands
sections group by configuration first, so the report never needs it whole: each chunk file is
read once, cut to the stored columns the report reads (``run/layout.py``: one row per hand),
the dealt cards replaced by the two hand features the sections use (``spades`` and
``high_cards``, one byte a seat instead of eight), and split by configuration. The tidy frame
of one configuration is then built on demand (``run.layout.tidy_from_stored``, the one builder
of tidy frames), and the tables of the configurations are put together as the whole frame
would have given them (:func:`combine`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..analysis.deals import deal_fingerprint
from ..analysis.groups import text_values
from ..core.errors import RunError
from ..run import read_meta, stored_chunks
from ..run.frames import hand_features
from ..run.layout import needed_columns, tidy_from_stored
from .results import run_spec

#: The tidy columns the per-configuration sections read; the hand features among them are
#: kept apart (see the module docstring).
COLUMNS = ("config", "duplicate", "game_id", "hand_id", "seat", "side", "strategy", "bid",
           "blind", "nil", "tricks", "side_contract", "side_taken", "score_delta", "spades",
           "high_cards")
FEATURES = ("spades", "high_cards")


class ConfigFrames:
    """The rows of a run folder's configurations, compact, split by configuration (read on
    creation); :meth:`frame` builds one configuration's tidy frame."""

    def __init__(self, folder: Path, columns=COLUMNS, nil_cards: bool = False):
        """``nil_cards``: keep the dealt cards of the seats that bid 0 (:meth:`nil_bids`)."""
        self.spec = spec = run_spec(folder)
        self.columns = tuple(columns)
        meta = read_meta(folder)
        wanted = [c for c in self.columns if c not in FEATURES]
        self.parts: dict[str, list] = {}
        self.features: dict[str, list] = {}
        self.dealt: dict[str, list] = {}
        self.zero_cards: dict[str, list] = {}  # the dealt cards of the seats that bid 0
        players = {config.name: config.rules.players for config in spec.configs}
        stored = list(spec.stored_types)
        keep = needed_columns(wanted, stored, spec.games_mode)
        cards = [c for c in stored if c.startswith("cards_")]
        firsts = [c for c in ("duplicate", "game_id", "hand_id") if c in stored]  # (deals)
        bids = [c for c in stored if c.startswith("bid_")] if nil_cards else []
        # (only these are decoded: the others of a chunk file, a third of it, are never read)
        read = [*keep, *cards, *firsts, *bids]
        for _, table in stored_chunks(folder, meta, spec, columns=read):
            codes, names = _config_codes(table)
            starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]]) if len(codes) else []
            stops = np.r_[starts[1:], len(codes)] if len(codes) else []
            for start, stop in zip(starts, stops):
                name = names[int(codes[start])]
                block = table.slice(int(start), int(stop - start))
                self.parts.setdefault(name, []).append(_narrow(block.select(keep)))
                features = {feature: [] for feature in FEATURES}
                for column in cards:
                    found = hand_features(block.column(column).to_numpy(), FEATURES)
                    for feature in FEATURES:
                        features[feature].append(found[feature].astype(np.int8))
                self.features.setdefault(name, []).append(
                    {feature: np.stack(values, axis=1) for feature, values in features.items()})
                if cards:  # each first play's deal, to measure (not assume) identical deals
                    self.dealt.setdefault(name, []).append(_first_deals(block, cards))
                if cards and nil_cards:  # the cards of every bid of 0 (every nil is one)
                    seats = range(players[name])
                    zero = np.stack([block.column(f"bid_{seat}").to_numpy() == 0
                                     for seat in seats], axis=1)
                    dealt = np.stack([block.column(f"cards_{seat}").to_numpy()
                                      for seat in seats], axis=1)
                    self.zero_cards.setdefault(name, []).append(dealt[zero])
            del table
        # Arrow's allocator keeps what it freed (the chunk tables' other columns) for reuse;
        # give it back, or the report's peak memory holds every chunk read.
        pa.default_memory_pool().release_unused()

    def names(self) -> list[str]:
        """The configurations with rows, in the order of the whole frame's ``config``
        categories (sorted by name)."""
        return sorted(self.parts)

    def deals(self, name: str) -> pd.DataFrame | None:
        """``hand_id`` and ``deal`` of configuration ``name``'s first plays, for
        ``analysis.effects.hand_summary``; None when the stored rows hold no cards."""
        parts = self.dealt.get(name)
        return pd.concat(parts, ignore_index=True) if parts else None

    def nil_bids(self, name: str, columns) -> pd.DataFrame | None:
        """The rows of configuration ``name``'s tidy frame that bid nil, only ``columns`` (of
        :data:`COLUMNS`, ``nil`` among them) and ``cards`` (the bidder's cards as dealt), in
        the frame's order; None when the stored rows hold no cards (or were read without
        ``nil_cards``)."""
        if name not in self.zero_cards:
            return None
        columns = list(columns)
        frame = self.frame(name, list(dict.fromkeys([*columns, "bid"])))
        rows = frame.loc[frame["bid"].to_numpy() == 0, columns].reset_index(drop=True)
        cards = np.concatenate(self.zero_cards[name])
        if len(cards) != len(rows):  # (the tidy rows are the stored seats, hand by hand)
            raise RunError(f"configuration {name}: {len(rows)} bids of 0 but {len(cards)} "
                           f"stored hands for them")
        rows["cards"] = cards
        rows["config"] = text_values(rows["config"])
        return rows.loc[rows["nil"].to_numpy(dtype=bool)].reset_index(drop=True)

    def drop_deals(self) -> None:
        """Forget the deals (:meth:`deals`: the paired effects read them, once): a hundred
        megabytes in a large run that later sections need not hold."""
        self.dealt.clear()

    def frame(self, name: str, columns=None) -> pd.DataFrame:
        """The tidy frame of configuration ``name`` (the rows and columns the whole frame has
        for it, in its order), only ``columns`` (of :data:`COLUMNS`) when given."""
        columns = list(self.columns if columns is None else columns)
        table = pa.concat_tables(self.parts[name])
        frame = tidy_from_stored(table, self.spec, [c for c in columns if c not in FEATURES])
        players = next(c.rules.players for c in self.spec.configs if c.name == name)
        for feature in FEATURES:
            if feature in columns:
                values = np.concatenate([part[feature] for part in self.features[name]])
                frame[feature] = values[:, :players].reshape(-1)
        return frame[columns]


def give_back_memory() -> None:
    """Return the memory this process freed to the system: Arrow's pool (it keeps what it
    freed for reuse) and, under glibc, the free pages of malloc's heap (``malloc_trim``; the
    heap keeps freed blocks below live ones, and the NumPy arrays of a million rows it frees
    are many). The report calls it between its large frames: between the hands run's rows
    and the games run's frame of the variants report it was 800 MB of the peak. Changes no
    setting; where there is no glibc, only Arrow's pool is given back."""
    pa.default_memory_pool().release_unused()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


def _malloc_trim():
    """glibc's ``malloc_trim`` (None elsewhere), looked up once."""
    if "trim" not in _LIBC:
        try:
            import ctypes

            _LIBC["trim"] = ctypes.CDLL("libc.so.6").malloc_trim
        except (OSError, AttributeError):
            _LIBC["trim"] = None
    return _LIBC["trim"]


_LIBC: dict = {}


def _first_deals(block: pa.Table, cards: list) -> pd.DataFrame:
    """``hand_id`` and ``deal`` (``analysis.deals.deal_fingerprint`` of the dealt cards) of the
    first plays (no duplicate copy, no games) among a block's stored rows."""
    keep = np.ones(block.num_rows, dtype=bool)
    if "duplicate" in block.column_names:
        keep &= ~block.column("duplicate").to_numpy(zero_copy_only=False).astype(bool)
    if "game_id" in block.column_names:
        keep &= block.column("game_id").to_numpy(zero_copy_only=False) == -1
    dealt = np.stack([block.column(c).to_numpy(zero_copy_only=False) for c in cards], axis=1)
    return pd.DataFrame({
        # (int32: a run's hand ids fit; the hand summaries read them as int64)
        "hand_id": block.column("hand_id").to_numpy(zero_copy_only=False)[keep].astype(np.int32),
        "deal": deal_fingerprint(dealt[keep])})


def _narrow(table: pa.Table) -> pa.Table:
    """``table`` with its 64-bit integer columns (hand ids, scores) as 32-bit ones where their
    values fit: half their memory; the tidy frame restores the types."""
    for index, field in enumerate(table.schema):
        if field.type != pa.int64() or not table.num_rows:
            continue
        low, high = pc.min_max(table.column(index)).values()
        if -2**31 <= low.as_py() and high.as_py() < 2**31:
            table = table.set_column(index, field.name, pc.cast(table.column(index), pa.int32()))
    return table


def _config_codes(table: pa.Table) -> tuple[np.ndarray, list]:
    """Each stored row's configuration, as codes into the returned names."""
    column = table.column("config").unify_dictionaries()
    chunks = column.chunks
    if not chunks:
        return np.zeros(0, np.int32), []
    names = chunks[0].dictionary.to_pylist()
    codes = np.concatenate([c.indices.to_numpy(zero_copy_only=False) for c in chunks])
    return codes, names


def combine(tables: list[pd.DataFrame]) -> pd.DataFrame:
    """The tables of an analysis computed one configuration at a time, in the order of
    :meth:`ConfigFrames.names`, as the whole frame would have given them: one after the other,
    their categorical columns with the categories of all of them (sorted, as the whole
    frame's: the categories the configurations used)."""
    if not tables:
        return pd.DataFrame()
    dtypes: dict = {}
    for table in tables:  # (the empty ones too: their categories are the frame's)
        for column in table.columns:
            if isinstance(table[column].dtype, pd.CategoricalDtype):
                dtypes.setdefault(column, []).append(table[column].dtype)
    table = pd.concat([table for table in tables if len(table)] or tables[:1],
                      ignore_index=True)
    for column, found in dtypes.items():
        if all(dtype == found[0] for dtype in found):  # (kept by the concatenation)
            continue
        values = sorted({value for dtype in found for value in dtype.categories})
        table[column] = pd.Categorical(table[column].astype(object), categories=values,
                                       ordered=found[0].ordered)
    return table
