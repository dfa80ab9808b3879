"""Deal identity from the stored cards: whether two configurations of a run were dealt the
same cards on a hand, measured rather than assumed.

Every configuration of a run plays from the same random streams, but the same streams give the
same cards only where the rules deal alike and the players' choices do not change the deal (the
two-player draw deal depends on which cards a player keeps; a jokers deck is another deck). A
hand's deal is summarised by :func:`deal_fingerprint`, a 64-bit hash of every seat's dealt
bitboard, and two configurations share a hand's deal when their fingerprints are equal.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.errors import AnalysisError
from .groups import text_values


def deal_fingerprint(cards) -> np.ndarray:
    """One int64 per row of ``cards`` (``(hands, seats)`` int64 bitboards as dealt, a seat
    without cards 0) that is equal for equal rows: a hash of each seat's cards and position
    (splitmix64), so two different deals collide with a chance of about 2^-64.

    >>> first = deal_fingerprint([[7, 56, 0], [7, 56, 0], [56, 7, 0]])
    >>> bool(first[0] == first[1]), bool(first[0] == first[2])
    (True, False)
    """
    cards = np.ascontiguousarray(np.asarray(cards, dtype=np.int64)).view(np.uint64)
    if cards.ndim != 2:
        raise AnalysisError(f"deal_fingerprint: expected (hands, seats) bitboards, got shape "
                            f"{cards.shape}")
    out = np.zeros(len(cards), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for seat in range(cards.shape[1]):
            mixed = cards[:, seat] + np.uint64(seat + 1) * np.uint64(0x9E3779B97F4A7C15)
            mixed = (mixed ^ (mixed >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            mixed = (mixed ^ (mixed >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            mixed ^= mixed >> np.uint64(31)
            out ^= np.where(cards[:, seat] != 0, mixed, np.uint64(0))
    return out.view(np.int64)


def deals_from_rows(hands: pd.DataFrame) -> pd.DataFrame:
    """``config``, ``hand_id``, ``deal`` from the seat rows of first plays with ``cards``."""
    table = hands.pivot_table(index=["config", "hand_id"], columns="seat", values="cards",
                              aggfunc="first", observed=True).fillna(0)
    keys = table.index.to_frame(index=False)
    keys["deal"] = deal_fingerprint(table.to_numpy(dtype=np.int64))
    return keys


def identical_deals(deals: pd.DataFrame, baseline: str, configs) -> dict:
    """Configuration -> (hands dealt exactly the baseline's cards, hands paired)."""
    rows = _rows_of(deals["config"])
    base = deals.loc[rows(baseline), ["hand_id", "deal"]]
    found = {}
    for name in configs:
        mine = deals.loc[rows(name), ["hand_id", "deal"]]
        if np.array_equal(mine["hand_id"].to_numpy(), base["hand_id"].to_numpy()):
            # the same hands in the same order (the configurations of one run): no join
            same = mine["deal"].to_numpy() == base["deal"].to_numpy()
            found[name] = (int(same.sum()), len(mine))
            continue
        joined = mine.merge(base, on="hand_id", suffixes=("", "_baseline"))
        found[name] = (int((joined["deal"] == joined["deal_baseline"]).sum()), len(joined))
    return found


def _rows_of(config: pd.Series):
    """``rows(name)``: whether each row of the ``config`` column is ``name`` (its text), from
    a categorical's codes where it has no missing value (one text per category, not per row)."""
    if isinstance(config.dtype, pd.CategoricalDtype):
        codes = config.cat.codes.to_numpy()
        if not len(codes) or codes.min() >= 0:
            names = [str(c) for c in config.cat.categories]

            def rows(name):
                return np.isin(codes, [code for code, text in enumerate(names) if text == name])
            return rows
    text = text_values(config)
    return lambda name: text == name
