"""How a run's hands are stored in its chunk files: one row per hand (the *stored* layout), and
the tidy frame, one row per hand and seat, built from it when the run is read.

Writing one row per hand and seat costs more than playing the hands: four times the rows, each
repeating its hand's and its side's values, and columns that follow from the others. A chunk
file therefore holds one row per hand, with a column per seat (``bid_0`` .. ``bid_3``) and per
side (``score_delta_0`` ..), and none of the columns the tidy frame derives:

- ``seat`` and ``side`` (the row's position; the side from the rules' partnerships),
- ``nil`` (a bid of 0 where nil is allowed, or a blind bid of 0),
- ``side_contract`` and ``side_taken`` (the side's bids and the tricks that count toward them),
- the hand features ``spades`` .. ``longest`` (from the dealt cards, stored as ``cards_S``),
- and those that follow from the run (:data:`FROM_RUN`): ``rules`` and ``strategy`` (the row's
  configuration's; a duplicate copy is stored at its strategies' home seats), ``chunk`` (the
  hand's or game's id over the chunk size), and ``duplicate`` in a run without duplicate
  copies.

:func:`tidy_from_stored` rebuilds exactly the frame :func:`~spades_sim.run.frames.tidy_frame`
makes from the record arrays (the tests check this on every preset, in both modes, with par and
duplicate copies), so a run on disk and the same run in memory give equal frames.

Stored columns, in order (``S``: the seats of the run's largest table, ``K``: its sides):
``config``, ``duplicate`` (with duplicate copies), ``hand_id``, ``game_id``, ``dealer``,
``game_over``, ``game_winner``; per seat ``bid_S``, ``blind_S``, ``bumped_S``, ``tricks_S``,
``cards_S`` (and ``par_nil_safe_S`` with par); per side ``score_before_K``, ``bags_before_K``,
``score_delta_K``, ``bags_after_K`` (and ``par_tricks_K`` with par); a run of independent
hands leaves out ``game_id``, ``game_over``, ``game_winner``, ``score_before_K`` and
``bags_before_K`` (:data:`GAMES_ONLY`). A table with fewer seats or sides than the largest
leaves the columns it has not with zeros. Every column is non-nullable but
``par_nil_safe_S``. Every column written costs time (about half a millisecond a chunk of
100,000 hands to write and checksum, ``benchmarks/disk_speed.py``), so none is written that
the run already says.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

from ..core.errors import RunError
from ..core.features import FEATURE_TYPES
from ..core.par import tidy_types
from .frames import HAND_FEATURES, feature_columns, hand_features

#: Columns of one row per hand, with their tidy types.
HAND_TYPES = {"config": "category", "duplicate": "bool", "chunk": "int32", "hand_id": "int64",
              "game_id": "int64", "rules": "category", "dealer": "int8", "game_over": "bool",
              "game_winner": "int8"}
#: Columns stored per seat (``NAME_S``) and per side (``NAME_K``), with their stored types.
SEAT_TYPES = {"strategy": "category", "bid": "int8", "blind": "bool", "bumped": "bool",
              "tricks": "int8", "cards": "int64"}
SIDE_TYPES = {"score_before": "int64", "bags_before": "int32", "score_delta": "int64",
              "bags_after": "int32"}
PAR_SEAT_TYPES = {"par_nil_safe": "bool"}
#: Columns a run of independent hands does not store: every hand starts a game of its own from
#: zero scores, so they hold one value each (restored when the run is read).
GAMES_ONLY = {"game_id": -1, "game_over": False, "game_winner": -1, "score_before": 0,
              "bags_before": 0}
PAR_SIDE_TYPES = {"par_tricks": "int8"}
#: Columns of the row layout that follow from the run and are not written: ``rules`` and
#: ``strategy_S`` from the row's configuration (a duplicate copy is stored at its strategies'
#: home seats) and ``chunk`` from the row's id (``hand_id``, or ``game_id`` in a games run) over the
#: chunk size; a run without duplicate copies does not write ``duplicate`` either (false).
FROM_RUN = ("rules", "strategy", "chunk")
FEATURES = HAND_FEATURES
#: Which stored columns (by name before the ``_S``/``_K``) each derived tidy column needs.
DERIVED_NEEDS = {"seat": (), "side": (), "nil": ("bid", "blind"),
                 "side_contract": ("bid", "blind"), "side_taken": ("bid", "blind", "tricks"),
                 **{name: ("cards",) for name in (*FEATURES, *FEATURE_TYPES)}}

_ARROW = {"bool": pa.bool_(), "int8": pa.int8(), "int16": pa.int16(), "int32": pa.int32(),
          "int64": pa.int64(), "category": pa.dictionary(pa.int32(), pa.string())}


def shape(configs) -> tuple[int, int]:
    """``(seats, sides)`` of the largest table among ``configs`` (each with ``.rules``)."""
    return (max(c.rules.players for c in configs), max(c.rules.n_sides for c in configs))


def stored_types(seats: int, sides: int, par: bool = False, games: bool = True,
                 duplicate: bool = True) -> dict:
    """The stored columns of a run whose largest table has ``seats`` seats and ``sides`` sides,
    in order, with their types (``category``: a dictionary of strings): every row column but
    those that follow from the run (:data:`FROM_RUN`; ``duplicate`` too in a run without
    duplicate copies); a run of independent hands (``games`` false) leaves out the columns of
    :data:`GAMES_ONLY`."""
    types = {name: kind for name, kind in stored_types_all(seats, sides, par).items()
             if name not in FROM_RUN and name.rsplit("_", 1)[0] not in FROM_RUN}
    if not duplicate:
        del types["duplicate"]
    if not games:
        types = {name: kind for name, kind in types.items()
                 if name not in GAMES_ONLY and name.rsplit("_", 1)[0] not in GAMES_ONLY}
    return types


def stored_types_all(seats: int, sides: int, par: bool = False) -> dict:
    """Every column of the row layout (a games run's, with those that follow from the run):
    what :func:`stored_block` makes of a games run."""
    types = dict(HAND_TYPES)
    seat_types = {**SEAT_TYPES, **(PAR_SEAT_TYPES if par else {})}
    side_types = {**SIDE_TYPES, **(PAR_SIDE_TYPES if par else {})}
    for seat in range(seats):
        types.update({f"{name}_{seat}": kind for name, kind in seat_types.items()})
    for side in range(sides):
        types.update({f"{name}_{side}": kind for name, kind in side_types.items()})
    return types


def stored_schema(types: dict) -> pa.Schema:
    return pa.schema([pa.field(name, _ARROW[kind], nullable=name.startswith("par_nil_safe_"))
                      for name, kind in types.items()])


# -- records -> stored block ----------------------------------------------------------------------
def stored_block(hands, rules, strategies, *, config: str, duplicate: bool, chunk: int,
                 seats: int, sides: int, games=None, par=None) -> dict:
    """One configuration's hands (record arrays) as the stored columns, padded to ``seats`` and
    ``sides``: NumPy arrays, and ``(value, rows)`` for a dictionary column (one value for the
    whole block).

    ``duplicate``: the copy played with the strategies moved one seat, stored at its
    strategies' home seats (seat ``s`` of the copy is seat ``s + 1`` at home, so its side is
    the other one and its dealer one seat on), as the tidy frame has it."""
    n = len(hands.hand_id)
    players, n_sides = rules.players, rules.n_sides
    seat_order = np.arange(players)
    side_order = np.arange(n_sides)
    dealer = hands.dealer.astype(np.int8)
    winner = np.full(n, -1, dtype=np.int8)
    game_over = np.zeros(n, dtype=bool)
    if games is not None and n:
        last = np.r_[hands.game_id[1:] != hands.game_id[:-1], True]
        winners = dict(zip(games.game_id.tolist(), games.winner.tolist()))
        game_over = last
        winner[last] = [winners[g] for g in hands.game_id[last].tolist()]
    names = [str(s) for s in strategies]
    if duplicate:  # home seat h was played at seat h - 1, home side k at side 1 - k
        seat_order = (seat_order - 1) % players
        side_order = side_order[::-1]
        names = [names[s] for s in seat_order]
        dealer = ((dealer.astype(np.int16) + 1) % players).astype(np.int8)
        winner = np.where(winner >= 0, 1 - winner, winner).astype(np.int8)
    block = {"config": (config, n), "duplicate": np.full(n, bool(duplicate)),
             "chunk": np.full(n, chunk, dtype=np.int32), "hand_id": hands.hand_id,
             "game_id": hands.game_id, "rules": (rules.preset_name, n), "dealer": dealer,
             "game_over": game_over, "game_winner": winner}
    if par is not None:
        par_tricks, nil_safe = (np.asarray(values) for values in par)
    by_seat = {name: np.ascontiguousarray(array[:, :players].T) for name, array in  # (rows)
               (("bid", hands.bids), ("blind", hands.blind), ("bumped", hands.bumped),
                ("tricks", hands.tricks), ("cards", hands.hands))}
    by_side = {name: np.ascontiguousarray(array[:, :n_sides].T) for name, array in
               (("score_before", hands.score_before), ("bags_before", hands.bags_before),
                ("score_delta", hands.score_delta), ("bags_after", hands.bags_after))
               if games is not None or name not in GAMES_ONLY}  # (hands: from zero)
    for seat in range(seats):
        home = seat < players
        source = seat_order[seat] if home else 0
        block[f"strategy_{seat}"] = (names[seat] if home else "", n)
        for name, values in by_seat.items():
            kind = SEAT_TYPES[name]
            block[f"{name}_{seat}"] = (_as(values[source], kind) if home
                                       else np.zeros(n, dtype=kind))
        if par is not None:
            safe = nil_safe[:, source] if home else np.full(n, -1)
            block[f"par_nil_safe_{seat}"] = np.where(safe < 0, -1, safe == 1).astype(np.int8)
    for side in range(sides):
        home = side < n_sides
        source = side_order[side] if home else 0
        for name, values in by_side.items():
            kind = SIDE_TYPES[name]
            block[f"{name}_{side}"] = (_as(values[source], kind) if home
                                       else np.zeros(n, dtype=kind))
        if par is not None:
            block[f"par_tricks_{side}"] = (par_tricks[:, source].astype(np.int8) if home
                                           else np.zeros(n, dtype=np.int8))
    return block


def _as(values: np.ndarray, kind: str) -> np.ndarray:
    """``values`` as the stored type, without a copy where it already is (flags of 0 and 1 are
    viewed as bools)."""
    if kind == "bool" and values.dtype.itemsize == 1:
        return values.view(np.bool_)
    return values.astype(kind, copy=False)


def stored_table(blocks: list[dict], types: dict) -> pa.Table:
    """Blocks of :func:`stored_block`, one after the other, as one Arrow table of the stored
    schema ``types`` (dictionary columns with their distinct values sorted)."""
    columns = []
    for name, kind in types.items():
        parts = [block[name] for block in blocks]
        if kind == "category":
            values = sorted({value for value, _ in parts})
            position = {value: p for p, value in enumerate(values)}
            codes = np.concatenate([np.full(length, position[value], dtype=np.int32)
                                    for value, length in parts]) if parts else np.zeros(0, np.int32)
            columns.append(pa.DictionaryArray.from_arrays(codes, pa.array(values, pa.string())))
        elif name.startswith("par_nil_safe_"):
            data = np.concatenate(parts) if parts else np.zeros(0, np.int8)
            columns.append(pa.array(data == 1, mask=data < 0, type=pa.bool_()))
        else:  # (one block, the common case: its arrays as they are, no copy)
            data = (parts[0] if len(parts) == 1 else np.concatenate(parts) if parts
                    else np.zeros(0, _numpy(kind)))
            columns.append(pa.array(data, type=_ARROW[kind]))
    return pa.Table.from_arrays(columns, schema=stored_schema(types))


def _numpy(kind: str):
    return np.bool_ if kind == "bool" else np.dtype(kind)


# -- stored -> tidy --------------------------------------------------------------------------------
def tidy_from_stored(table: pa.Table, run, columns=None) -> pd.DataFrame:
    """The tidy frame (one row per hand and seat, ``core.par.tidy_types(run.par, run.cards)``)
    of stored rows of ``run`` (a :class:`~spades_sim.run.spec.RunSpec`: its configurations
    give each row's rules, strategies and the columns derived from them, its chunk size the
    ``chunk`` column), in their order; only ``columns`` (in their order) when given."""
    par, cards = bool(run.par), bool(run.cards)
    wanted = list(tidy_types(par, cards))
    if columns is not None:  # in the order asked for
        wanted = [c for c in dict.fromkeys(columns) if c in set(wanted)]
    n = table.num_rows
    if n == 0:
        return _empty(wanted, par)
    need = needed_columns(wanted, table.column_names, run.games_mode)
    arrays = {name: _column(table, name) for name in need if name != "config"}
    categories, coded = _from_run(table, run, arrays)
    arrays.update(coded)
    configs = {config.name: config for config in run.configs}
    codes = arrays["config"]
    starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
    stops = np.r_[starts[1:], n]
    blocks = [(configs[categories[int(codes[start])]].rules, int(start), int(stop))
              for start, stop in zip(starts, stops)]
    # Each block's rows are written into the columns made at their final size: no list of
    # parts beside a concatenated copy (which doubled the peak memory of a large read).
    types = tidy_types(par, cards)
    rows = sum((stop - start) * rules.players for rules, start, stop in blocks)
    out = {name: np.empty(rows, dtype=np.int32 if types[name] == "category" else np.int8
                          if name == "par_nil_safe" else _numpy(types[name]))
           for name in wanted}
    at = 0
    for rules, start, stop in blocks:
        _tidy_block(rules, arrays, start, stop, wanted, out, at)
        at += (stop - start) * rules.players
    del arrays
    data = {}
    for name in wanted:
        kind = types[name]
        values = out.pop(name)
        if kind == "category":
            used = np.flatnonzero(np.bincount(values, minlength=len(categories)))
            position = np.full(len(categories), -1, dtype=np.int32)
            position[used] = np.arange(len(used), dtype=np.int32)
            data[name] = pd.Categorical.from_codes(position[values],
                                                   categories=[categories[i] for i in used])
        elif name == "par_nil_safe":
            data[name] = pd.array(np.where(values < 0, None, values == 1), dtype="boolean")
        else:
            data[name] = values.astype(_numpy(kind), copy=False)
    # Each column its own block, not copied into one 2-D block per dtype (the arrays are new,
    # made here): a games run's frame is built in 40% less time and 100 MB less memory.
    return pd.DataFrame(data, columns=wanted, copy=False)


def _from_run(table: pa.Table, run, arrays: dict) -> tuple[list, dict]:
    """The row columns that follow from the run (:data:`FROM_RUN`, and ``duplicate`` into
    ``arrays`` where not stored), with ``config``: ``(values, columns)``, the dictionary
    columns as int32 codes into ``values``, one sorted list of every name they hold."""
    column = table.column("config").unify_dictionaries()
    chunks = column.chunks
    names = chunks[0].dictionary.to_pylist() if chunks else []
    codes = (np.concatenate([c.indices.to_numpy(zero_copy_only=False) for c in chunks])
             if chunks else np.zeros(0, np.int32)).astype(np.int32, copy=False)
    configs = {config.name: config for config in run.configs}
    unknown = [name for name in names if name not in configs]
    if unknown:  # (a table that passed the schema check but is not this run's)
        raise RunError(f"stored rows of configuration {unknown[0]!r}, which is not one of "
                       f"the run's ({', '.join(configs)})")
    seats = max(config.rules.players for config in run.configs)
    home = {name: [str(s) for s in configs[name].strategies] for name in names}  # (a
    # duplicate copy's rows are stored at its strategies' home seats: the same names)
    values = sorted({*names, *(configs[name].rules.preset_name for name in names),
                     *(s for strategies in home.values() for s in strategies), ""})
    position = {value: p for p, value in enumerate(values)}

    def lookup(per_name):  # codes of a value per configuration name, as a table by code
        return np.array([position[per_name(name)] for name in names] or [0], dtype=np.int32)

    coded = {"config": lookup(lambda name: name)[codes],
             "rules": lookup(lambda name: configs[name].rules.preset_name)[codes]}
    if "duplicate" not in arrays:
        arrays["duplicate"] = np.zeros(len(codes), dtype=bool)
    for seat in range(seats):
        coded[f"strategy_{seat}"] = lookup(lambda name, s=seat: home[name][s]
                                           if s < len(home[name]) else "")[codes]
    ids = arrays.get("game_id" if run.games_mode else "hand_id")
    if ids is not None:
        coded["chunk"] = (ids // run.chunk_size).astype(np.int32)
    return values, coded


def _empty(wanted, par) -> pd.DataFrame:
    types = tidy_types(par, True)
    frame = {}
    for name in wanted:
        kind = types[name]
        if kind == "category":
            frame[name] = pd.Categorical([])
        elif name == "par_nil_safe":
            frame[name] = pd.array([], dtype="boolean")
        else:
            frame[name] = np.zeros(0, dtype=_numpy(kind))
    return pd.DataFrame(frame, columns=wanted)


def needed_columns(wanted, stored, games: bool) -> list[str]:
    """The stored columns (of ``stored``, in its order) the tidy columns ``wanted`` are built
    from (``games``: a games run, whose ``chunk`` comes from ``game_id``)."""
    bases = {"config", "duplicate"}
    for name in wanted:
        if name in DERIVED_NEEDS:
            bases.update(DERIVED_NEEDS[name])
        elif name == "chunk":
            bases.add("game_id" if games else "hand_id")
        else:
            bases.add(name)  # a row column, or one per seat or side: NAME_S / NAME_K
    return [c for c in stored if c in bases or c.rsplit("_", 1)[0] in bases]


def _column(table: pa.Table, name: str) -> np.ndarray:
    column = table.column(name).combine_chunks()
    if name.startswith("par_nil_safe_"):
        present = column.is_valid().to_numpy(zero_copy_only=False)
        value = column.fill_null(False).to_numpy(zero_copy_only=False)
        return np.where(present, value.astype(np.int8), -1).astype(np.int8)
    return column.to_numpy(zero_copy_only=False)


def _tidy_block(rules, arrays: dict, start: int, stop: int, wanted, out: dict, at: int) -> None:
    """Write the tidy rows of stored rows ``start:stop`` (one configuration) into the columns
    ``out`` from row ``at`` on."""
    players, n = rules.players, stop - start
    seats = np.arange(players, dtype=np.int8)
    sides = (seats % 2 if rules.partnership else seats).astype(np.int8)

    def per_seat(name):  # (n, players)
        return np.stack([arrays[f"{name}_{s}"][start:stop] for s in range(players)], axis=1)

    def per_side(name):  # (n, players): each seat's side's value
        return np.stack([arrays[f"{name}_{sides[s]}"][start:stop] for s in range(players)],
                        axis=1)

    cache: dict = {}

    def seat_values(name):
        if name not in cache:
            cache[name] = per_seat(name)
        return cache[name]

    def nil():
        if "nil" not in cache:
            blind = seat_values("blind").astype(bool)
            cache["nil"] = (seat_values("bid") == 0) & (bool(rules.nil) | blind)
        return cache["nil"]

    def side_sum(values):  # (n, players) -> each seat's side's total, (n, players)
        one_hot = (sides[:, None] == sides[None, :]).astype(np.int16)
        return values.astype(np.int16) @ one_hot

    features = None
    for name in wanted:
        if name in GAMES_ONLY and name not in arrays and f"{name}_0" not in arrays:
            kind = {**HAND_TYPES, **SIDE_TYPES}[name]
            values = np.full(n * players, GAMES_ONLY[name], dtype=_numpy(kind))
        elif name in HAND_TYPES:
            values = np.repeat(arrays[name][start:stop], players)
        elif name == "seat":
            values = np.tile(seats, n)
        elif name == "side":
            values = np.tile(sides, n)
        elif name == "strategy":
            values = seat_values("strategy").reshape(-1)
        elif name == "nil":
            values = nil().reshape(-1)
        elif name == "side_contract":
            values = side_sum(np.where(nil(), 0, seat_values("bid"))).reshape(-1)
        elif name == "side_taken":
            counts = ~nil() | (rules.failed_nil_tricks == "count_toward_bid")
            values = side_sum(np.where(counts, seat_values("tricks"), 0)).reshape(-1)
        elif name in FEATURES:
            if features is None:
                features = hand_features(seat_values("cards").reshape(-1))
            values = features[name]
        elif name in FEATURE_TYPES:  # the seat_* features of a run with cards
            if "seat_features" not in cache:
                cache["seat_features"] = feature_columns(rules, seat_values("cards").reshape(-1))
            values = cache["seat_features"][name]
        elif name in SEAT_TYPES or name in PAR_SEAT_TYPES:
            values = seat_values(name).reshape(-1)
        else:  # a side column
            values = per_side(name).reshape(-1)
        out[name][at:at + n * players] = values


# -- the Parquet file ------------------------------------------------------------------------------
#: How chunk files are written, column by column (by name before ``_S``/``_K``), chosen by
#: measuring the time and size of each (a chunk of 100,000 ``random`` hands): small integers
#: delta-encoded and bit-packed without a codec (Parquet stores an int8 as 32 bits; LZ4 on those
#: is slower and larger), ``score_delta`` and ``config`` as dictionaries (a few dozen distinct
#: values; one), the dealt cards as they are (13 random cards of 52 in a 64-bit mask: nothing
#: shrinks them), the rest LZ4. Delta, dictionary and plain are encodings every Parquet reader
#: knows. Statistics only for the ids (what a reader filters on); page checksums (so a damaged
#: file is found when it is read); each column encoded in one batch (the default of 1,024 values
#: a batch costs about a millisecond a chunk more). About 40 bytes a hand.
COMPRESSION = "lz4"
DELTA = ("hand_id", "game_id", "bid", "tricks", "score_before", "bags_before", "bags_after",
         "par_tricks")
DICTIONARY = ("config", "score_delta")
PLAIN = ("cards",)
STATISTICS = ("hand_id", "game_id")
WRITE_BATCH = 1 << 17


def write_parquet(table: pa.Table, path) -> None:
    """Write a stored table as a chunk file at ``path``."""
    import pyarrow.parquet as pq

    def base(name):  # the column's name before _S or _K
        return name if name in HAND_TYPES else name.rsplit("_", 1)[0]

    names = table.column_names
    codecs = {name: COMPRESSION if base(name) not in DELTA + DICTIONARY + PLAIN else "none"
              for name in names}
    pq.write_table(table, path, compression=codecs,
                   use_dictionary=[name for name in names if base(name) in DICTIONARY],
                   column_encoding={name: "DELTA_BINARY_PACKED" for name in names
                                    if base(name) in DELTA},
                   write_statistics=[name for name in names if name in STATISTICS],
                   write_batch_size=WRITE_BATCH, write_page_checksum=True)
