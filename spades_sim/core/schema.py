"""The result schema, defined once: the per-hand and per-game record arrays the entry kernels
fill in place (struct of arrays), and the columns of the tidy per-seat table that runs write.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

# Sizes of the per-hand record arrays (the largest table: 4 seats, 52 plays).
MAX_SEATS = 4
MAX_SIDES = 4
MAX_PLAYS = 52
MAX_EXCHANGE = 16  # two teams' exchanges of up to 4 cards each way

_SEATS, _SIDES = MAX_SEATS, MAX_SIDES
HAND_DTYPES = {
    "hand_id": (np.int64, ()),
    "game_id": (np.int64, ()),
    "dealer": (np.int8, ()),
    "first_leader": (np.int8, ()),
    "hands": (np.int64, (_SEATS,)),  # bitboards as dealt, before any exchange
    "blind": (np.int8, (_SEATS,)),
    "bids": (np.int8, (_SEATS,)),  # final bids (after any bump)
    "bumped": (np.int8, (_SEATS,)),
    "tricks": (np.int8, (_SEATS,)),
    # Scores as int64 and bag counters as int32: neither can overflow (core/rules.py, BOUNDS).
    "score_before": (np.int64, (_SIDES,)),
    "bags_before": (np.int32, (_SIDES,)),
    "score_delta": (np.int64, (_SIDES,)),
    "bags_after": (np.int32, (_SIDES,)),
    "plays": (np.int8, (MAX_PLAYS,)),  # cards in play order (only when recorded)
    "play_seats": (np.int8, (MAX_PLAYS,)),
    "exchange": (np.int8, (MAX_EXCHANGE, 3)),  # [from, to, card], -1 padded
}
_RECORDED_ONLY = {"plays", "play_seats", "exchange"}
GAME_DTYPES = {
    "game_id": (np.int64, ()),
    "first_dealer": (np.int8, ()),
    "n_hands": (np.int32, ()),
    "winner": (np.int8, ()),  # winning side, -1 for a tie or a draw at the hand cap
    "final_score": (np.int64, (_SIDES,)),
    "final_bags": (np.int32, (_SIDES,)),
}
# The arrays travel to the kernels as one named tuple of each kind.
HandArrays = namedtuple("HandArrays", tuple(HAND_DTYPES))
GameArrays = namedtuple("GameArrays", tuple(GAME_DTYPES))

# The tidy table of a run (``run/frames.py`` builds it; the Parquet dataset stores it and checks
# every chunk against it): one row per hand, seat and configuration, each column with its type
# (``category``: a dictionary of strings). ``docs/runs.md`` documents each column.
TIDY_TYPES = {
    "config": "category", "duplicate": "bool", "chunk": "int32", "hand_id": "int64",
    "game_id": "int64", "rules": "category", "dealer": "int8", "seat": "int8", "side": "int8",
    "strategy": "category", "bid": "int8", "blind": "bool", "nil": "bool", "bumped": "bool",
    "tricks": "int8", "side_contract": "int16", "side_taken": "int16", "score_before": "int64",
    "bags_before": "int32", "score_delta": "int64", "bags_after": "int32", "spades": "int8",
    "high_cards": "int8", "hcp": "int8", "voids": "int8", "singletons": "int8",
    "longest": "int8", "game_over": "bool", "game_winner": "int8",
}
TIDY_COLUMNS = tuple(TIDY_TYPES)


def allocate_hands(n_rows: int, record_plays: bool) -> HandArrays:
    """Zeroed hand arrays for ``n_rows`` hands; play arrays have 0 rows unless recorded."""
    arrays = {}
    for name, (dtype, shape) in HAND_DTYPES.items():
        rows = n_rows if (record_plays or name not in _RECORDED_ONLY) else 0
        arrays[name] = np.zeros((rows, *shape), dtype=dtype)
    if record_plays:
        arrays["plays"][:] = -1
        arrays["play_seats"][:] = -1
        arrays["exchange"][:] = -1
    return HandArrays(**arrays)


def allocate_games(n_games: int) -> GameArrays:
    return GameArrays(
        **{name: np.zeros((n_games, *shape), dtype=dtype)
           for name, (dtype, shape) in GAME_DTYPES.items()}
    )


def take(arrays, count: int):
    """The first ``count`` rows of every array (views)."""
    return type(arrays)(*(a[:count] if len(a) else a for a in arrays))


def concat(parts):
    """Row-wise concatenation of several HandArrays or GameArrays."""
    parts = list(parts)
    return type(parts[0])(*(np.concatenate(column) for column in zip(*parts)))


def recorded(hands: HandArrays) -> bool:
    """Whether the plays were recorded (needed for hand logs)."""
    return len(hands.plays) == len(hands.hand_id) and len(hands.hand_id) > 0
