"""Record arrays -> the tidy table of a run: one row per hand, seat and configuration.

The one tidy-frame builder: the command line's summaries, the Parquet dataset and the reports all
read frames made here, in the schema of ``core.schema.TIDY_COLUMNS``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.features import FEATURE_TYPES, FEATURES
from ..core.par import tidy_columns

_SUIT_LOW13 = 0x1FFF
_HONOUR_RANKS = {"aces": 12, "kings": 11, "queens": 10, "jacks": 9}
#: The features :func:`hand_features` counts, in its order.
HAND_FEATURES = ("spades", "high_cards", "hcp", "voids", "singletons", "longest")


def hand_features(masks: np.ndarray, names=None) -> dict[str, np.ndarray]:
    """Features of dealt hands (int64 bitboards, any shape): ``spades`` (trumps, jokers
    included), ``high_cards`` (aces, kings and queens), ``hcp`` (4/3/2/1 for A/K/Q/J, a joker
    counts as an ace), ``voids`` and ``singletons`` among the four suits, ``longest`` suit;
    only ``names`` of them when given (the others are not counted)."""
    masks = np.asarray(masks, dtype=np.int64)
    wanted = set(HAND_FEATURES if names is None else names)
    found = {}

    def lengths():
        if "lengths" not in found:
            found["lengths"] = np.stack(
                [np.bitwise_count((masks >> (13 * suit)) & _SUIT_LOW13) for suit in range(3)]
                + [np.bitwise_count((masks >> 39) & 0x7FFF)]
            ).astype(np.int64)
        return found["lengths"]

    def count(name):  # the cards of one honour rank, a joker apart
        if name not in found:
            column = 1 | (1 << 13) | (1 << 26) | (1 << 39)
            found[name] = np.bitwise_count(masks & (column << _HONOUR_RANKS[name])).astype(
                np.int64)
        return found[name]

    def jokers():
        if "jokers" not in found:
            found["jokers"] = np.bitwise_count((masks >> 52) & 3).astype(np.int64)
        return found["jokers"]

    features = {
        # (the spade length alone where the suits' lengths are not wanted otherwise)
        "spades": lambda: (lengths()[3] if wanted & {"voids", "singletons", "longest"}
                           else np.bitwise_count((masks >> 39) & 0x7FFF).astype(np.int64)),
        "high_cards": lambda: count("aces") + count("kings") + count("queens") + jokers(),
        "hcp": lambda: 4 * (count("aces") + jokers()) + 3 * count("kings")
        + 2 * count("queens") + count("jacks"),
        "voids": lambda: (lengths() == 0).sum(axis=0),
        "singletons": lambda: (lengths() == 1).sum(axis=0),
        "longest": lambda: lengths().max(axis=0),
    }
    return {name: features[name]() for name in HAND_FEATURES if name in wanted}


def feature_columns(rules, masks) -> dict[str, np.ndarray]:
    """The ``seat_*`` feature columns (``core.features.FEATURE_TYPES``) of dealt hands
    (int64 bitboards, one per row) under ``rules``, computed by the engine (so
    ``seat_trick_estimate`` is the default heuristic's own estimate)."""
    from ..engine.calls import card_features  # (numba: only for runs with cards)

    values = card_features(rules, masks)
    return {column: values[:, code].astype(FEATURE_TYPES[column])
            for code, column in enumerate(f"seat_{name}" for name in FEATURES)}


def _constant_category(value: str, length: int) -> pd.Categorical:
    return pd.Categorical.from_codes(np.zeros(length, dtype=np.int8), categories=[value])


def _seat_category(names: list[str], seats: np.ndarray) -> pd.Categorical:
    categories = sorted(set(names))
    codes = np.array([categories.index(name) for name in names], dtype=np.int8)
    return pd.Categorical.from_codes(codes[seats], categories=categories)


def tidy_frame(hands, rules, strategies, *, config: str = "", duplicate: bool = False,
               chunk: int = 0, games=None, par=None, cards: bool = False) -> pd.DataFrame:
    """One row per hand and seat, in the documented run schema (``core.schema.TIDY_COLUMNS``):
    the one builder of tidy frames, for runs in memory and on disk alike.

    ``hands`` (and ``games``, for whole games) are the record arrays of one configuration,
    ``strategies`` one per seat; ``config`` names the configuration (default: the preset).

    Side columns (``side_contract``, ``side_taken``, scores and bags) repeat the seat's side's
    values; features describe the seat's hand as dealt (before any exchange). With ``games``
    (the GameArrays of whole games), ``game_over`` marks each game's last hand and
    ``game_winner`` holds there the winning side (-1 for a tie or a draw at the hand cap);
    elsewhere they are False and -1.

    With ``par`` (``(tricks, nil_safe)`` of ``game.par.records_par`` for these hands) the par
    columns follow (``core.par.PAR_TYPES``): ``par_tricks``, the double-dummy tricks of the
    row's side (repeated on its seats, like ``side_taken``), and ``par_nil_safe``, whether the
    seat's nil is double-dummy safe (missing where the seat did not bid nil).

    With ``cards`` the ``cards`` column follows (``core.par.CARDS_TYPES``): the seat's cards
    as dealt, the int64 bitboard of the record arrays' ``hands``; then the seat's hand features
    (:func:`feature_columns`).
    """
    players = rules.players
    n_hands = len(hands.hand_id)
    seats = np.tile(np.arange(players, dtype=np.int8), n_hands)
    sides = (seats % 2 if rules.partnership else seats).astype(np.int8)
    rows = np.repeat(np.arange(n_hands), players)
    bids = hands.bids[:, :players].reshape(-1).astype(np.int8)
    blind = hands.blind[:, :players].reshape(-1).astype(bool)
    tricks = hands.tricks[:, :players].reshape(-1).astype(np.int8)
    nil = (bids == 0) & (rules.nil | blind)
    counts_toward = ~nil | (rules.failed_nil_tricks == "count_toward_bid")
    per_side = np.zeros((n_hands, 4, 2), dtype=np.int16)
    np.add.at(per_side, (rows, sides, 0), np.where(nil, 0, bids).astype(np.int16))
    np.add.at(per_side, (rows, sides, 1), np.where(counts_toward, tricks, 0).astype(np.int16))
    names = [str(s) for s in strategies]
    features = hand_features(hands.hands[:, :players].reshape(-1))
    frame = pd.DataFrame(
        {
            "config": _constant_category(config or rules.preset_name, len(rows)),
            "duplicate": np.full(len(rows), bool(duplicate)),
            "chunk": np.full(len(rows), chunk, dtype=np.int32),
            "hand_id": hands.hand_id[rows],
            "game_id": hands.game_id[rows],
            "rules": _constant_category(rules.preset_name, len(rows)),
            "dealer": hands.dealer[rows].astype(np.int8),
            "seat": seats,
            "side": sides,
            "strategy": _seat_category(names, seats),
            "bid": bids,
            "blind": blind,
            "nil": nil,
            "bumped": hands.bumped[:, :players].reshape(-1).astype(bool),
            "tricks": tricks,
            "side_contract": per_side[rows, sides, 0],
            "side_taken": per_side[rows, sides, 1],
            "score_before": hands.score_before[rows, sides].astype(np.int64),
            "bags_before": hands.bags_before[rows, sides].astype(np.int32),
            "score_delta": hands.score_delta[rows, sides].astype(np.int64),
            "bags_after": hands.bags_after[rows, sides].astype(np.int32),
            **{name: values.astype(np.int8) for name, values in features.items()},
        }
    )
    game_over = np.zeros(n_hands, dtype=bool)
    game_winner = np.full(n_hands, -1, dtype=np.int8)
    if games is not None and n_hands:
        last = np.r_[hands.game_id[1:] != hands.game_id[:-1], True]
        winners = dict(zip(games.game_id.tolist(), games.winner.tolist()))
        game_over = last
        game_winner[last] = [winners[g] for g in hands.game_id[last].tolist()]
    frame["game_over"] = game_over[rows]
    frame["game_winner"] = game_winner[rows]
    if par is not None:
        par_tricks, nil_safe = (np.asarray(values) for values in par)
        frame["par_tricks"] = par_tricks[rows, sides].astype(np.int8)
        safe = nil_safe[:, :players].reshape(-1)
        frame["par_nil_safe"] = pd.array(np.where(safe < 0, None, safe == 1), dtype="boolean")
    if cards:
        frame["cards"] = hands.hands[:, :players].reshape(-1).astype(np.int64)
        for name, values in feature_columns(rules, frame["cards"].to_numpy()).items():
            frame[name] = values
    return frame[list(tidy_columns(par is not None, cards))]
