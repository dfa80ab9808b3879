"""Bidding analyses of a tidy run frame: how often bids are made exactly, over or under, sets
and bags, the distribution of tricks minus bid, and bids and tricks against hand features.

Every function takes the tidy frame of a run (``runner.load_run``; columns
``core.schema.TIDY_COLUMNS``, one row per hand, seat, configuration and duplicate copy) and
returns a DataFrame whose first columns are the group keys ``by`` (in that order), with counts
beside rates and 95% intervals named ``<metric>_low`` / ``<metric>_high``. Duplicate copies
(``duplicate == True``) are real plays and are included.

Units: a *seat bid* is one row with ``nil == False`` (a number bid, blind ones included; nil
bids are analysed in :mod:`spades_sim.analysis.nil`); a *side-hand* is one side in one hand
(one configuration and copy), the rows sharing ``config, duplicate, game_id, hand_id, side``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.errors import AnalysisError
from .groups import first_rows, seat_grid
from .metrics import (
    FEATURES,
    SIDE_HAND,
    add_mean_interval,
    add_rate,
    aggregate,
    rate_interval,
    require_columns,
    side_bags,
)


def _number_bids(df: pd.DataFrame, by, extra, what: str) -> pd.DataFrame:
    """The seat bids that are numbers (not nil), with the columns ``by`` and ``extra``."""
    by = list(by)
    require_columns(df, [*by, "nil", *extra], what)
    columns = list(dict.fromkeys([*by, *extra]))
    return df.loc[~df["nil"].to_numpy(dtype=bool), columns]


def bid_accuracy(df: pd.DataFrame, by=("config", "strategy")) -> pd.DataFrame:
    """Bid accuracy: exact, over and under seat bids; sets and bags of the sides.

    Parameters
    ----------
    df : DataFrame
        Tidy run frame.
    by : sequence of str
        Group keys, any tidy columns (``config``, ``strategy``, ``seat``, ``bid``, ``rules``...).

    Returns
    -------
    DataFrame
        One row per group: *by, then

        - ``n``: seat bids (rows with ``nil == False``);
        - ``exact``, ``over``, ``under``: seat bids with ``tricks == bid``, ``> bid``,
          ``< bid``; ``exact_rate = exact / n`` (likewise ``over_rate``, ``under_rate``) with
          Wilson 95% intervals;
        - ``side_hands``: side-hands in which a number bidder of the group sat (a side-hand
          counts once per group it has a number bidder in: a mixed partnership counts for
          both strategies);
        - ``contracts``: those with ``side_contract > 0``; ``sets``: those with
          ``side_taken < side_contract``; ``set_rate = sets / contracts`` (Wilson 95%);
        - ``overtricks_per_hand``: mean over side-hands of the side's overtricks
          ``max(side_taken - side_contract, 0)`` (every contract trick when the contract is 0;
          failed-nil tricks only where they count toward the contract), with a normal 95%
          interval;
        - ``bags_added_per_hand``: mean over side-hands of the bags the hand added to the
          side's bag counter under its rules (:func:`~spades_sim.analysis.metrics.side_bags`:
          the overtricks plus, under ``failed_nil_tricks = bags_only``, the tricks of the
          side's failed nils), with a normal 95% interval.

    Examples
    --------
    >>> frame = pd.DataFrame({"config": "c", "duplicate": False, "game_id": -1,
    ...     "hand_id": 0, "side": [0, 1, 0, 1], "strategy": "s", "nil": False,
    ...     "bid": [3, 4, 2, 3], "tricks": [3, 5, 1, 4], "side_contract": [5, 7, 5, 7],
    ...     "side_taken": [4, 9, 4, 9]})
    >>> table = bid_accuracy(frame)
    >>> table[["n", "exact", "over", "under", "side_hands", "sets", "overtricks_per_hand",
    ...        "bags_added_per_hand"]].values
    array([[4., 1., 2., 1., 2., 1., 1., 1.]])
    """
    by = list(by)
    what = "bid_accuracy"
    require_columns(df, [*SIDE_HAND, "tricks", "side_contract", "side_taken"], what)
    grid = seat_grid(df)  # (one configuration's hands in a row: side-hands by position)
    overtricks, bags_added = side_bags(df, grid)  # over every row: failed nils' tricks included
    bids = _number_bids(df, by, ["bid", "tricks", *SIDE_HAND, "side_contract", "side_taken"],
                        what)
    number = ~df["nil"].to_numpy(dtype=bool)  # (the rows _number_bids keeps, in order)
    bids = bids.assign(_overtricks=overtricks[number], _bags_added=bags_added[number])
    bid = bids["bid"].to_numpy(dtype=np.int16)
    tricks = bids["tricks"].to_numpy(dtype=np.int16)
    work = bids[by].copy()
    work["exact"] = (tricks == bid).astype(np.int64)
    work["over"] = (tricks > bid).astype(np.int64)
    work["under"] = (tricks < bid).astype(np.int64)
    seat = aggregate(work, by, n=("exact", "size"), exact=("exact", "sum"),
                     over=("over", "sum"), under=("under", "sum"))
    for name in ("exact", "over", "under"):
        add_rate(seat, f"{name}_rate", name, "n")

    # Side-hands: one row per side-hand and group (bidders of one group on one side count once).
    first = None if grid is None else _first_side_rows(df, number, by, grid)
    sides = (first_rows(bids, list(dict.fromkeys([*SIDE_HAND, *by]))) if first is None
             else bids.iloc[first])
    contract = sides["side_contract"].to_numpy(dtype=np.int64)
    taken = sides["side_taken"].to_numpy(dtype=np.int64)
    side_work = sides[by].copy()
    side_work["contracted"] = (contract > 0).astype(np.int64)
    side_work["set"] = ((contract > 0) & (taken < contract)).astype(np.int64)
    side_work["overtricks"] = sides["_overtricks"].to_numpy(dtype=float)
    side_work["bags_added"] = sides["_bags_added"].to_numpy(dtype=float)
    side = aggregate(side_work, by, side_hands=("set", "size"), contracts=("contracted", "sum"),
                     sets=("set", "sum"), overtricks_per_hand=("overtricks", "mean"),
                     overtricks_per_hand_sd=("overtricks", "std"),
                     bags_added_per_hand=("bags_added", "mean"),
                     bags_added_per_hand_sd=("bags_added", "std"))
    add_rate(side, "set_rate", "sets", "contracts")
    bag_columns = []
    for name in ("overtricks_per_hand", "bags_added_per_hand"):
        add_mean_interval(side, name, "side_hands")
        bag_columns += [name, f"{name}_low", f"{name}_high"]
    side = side[[c for c in side.columns if c not in bag_columns] + bag_columns]
    # The same rows, grouped and sorted alike: the groups line up.
    side = side.drop(columns=by).set_index(seat.index)
    return pd.concat([seat, side], axis=1)


def _first_side_rows(df: pd.DataFrame, number: np.ndarray, by, grid) -> np.ndarray | None:
    """The positions among the number bids (``df``'s rows where ``number``) of the first bid
    of each side-hand and group of ``by`` (``first_rows`` of them), by position in ``df``, one
    configuration's hands in a row (``grid``: ``groups.seat_grid(df)``); None where a key of
    ``by`` is not a categorical or an integer (then ``first_rows`` groups them)."""
    players, sides = grid
    values = []
    for key in by:
        if key in SIDE_HAND:  # (one value a hand, but the side: compared below)
            continue
        column = df[key]
        if isinstance(column.dtype, pd.CategoricalDtype):
            found = column.cat.codes.to_numpy()
            if len(found) and found.min() < 0:
                return None
        elif isinstance(column.dtype, np.dtype) and column.dtype.kind in "iub":
            found = column.to_numpy()
        else:
            return None
        values.append(found.reshape(-1, players))
    bidding = number.reshape(-1, players)
    first = bidding.copy()
    for seat in range(players):  # a bid is first unless an earlier seat of its group bid
        for earlier in range(seat):
            if sides[earlier] != sides[seat]:
                continue
            same = bidding[:, earlier].copy()
            for found in values:
                same &= found[:, earlier] == found[:, seat]
            first[:, seat] &= ~same
    return (np.cumsum(number) - 1)[np.flatnonzero(first.reshape(-1))]


def tricks_minus_bid(df: pd.DataFrame, by=("config", "strategy")) -> pd.DataFrame:
    """Distribution of ``tricks - bid`` over number (non-nil) seat bids.

    Returns
    -------
    DataFrame
        *by, ``diff`` (tricks taken minus the bid, in tricks), ``n`` (seat bids with that
        difference), ``share = n / (seat bids of the group)`` with a Wilson 95% interval
        (``share_low``, ``share_high``). Shares sum to 1 within a group.

    Examples
    --------
    >>> frame = pd.DataFrame({"config": "c", "strategy": "s", "nil": [False] * 3 + [True],
    ...                       "bid": [3, 2, 4, 0], "tricks": [3, 3, 2, 1]})
    >>> table = tricks_minus_bid(frame)
    >>> table[["diff", "n"]].values.tolist(), table["share"].round(3).tolist()
    ([[-2, 1], [0, 1], [1, 1]], [0.333, 0.333, 0.333])
    """
    by = list(by)
    bids = _number_bids(df, by, ["bid", "tricks"], "tricks_minus_bid")
    work = bids[by].copy()
    work["diff"] = (bids["tricks"].to_numpy(dtype=np.int16)
                    - bids["bid"].to_numpy(dtype=np.int16)).astype(np.int64)
    table = aggregate(work, [*by, "diff"], n=("diff", "size"))
    if by:
        table["total"] = table.groupby(by, observed=True, sort=False)["n"].transform("sum")
    else:
        table["total"] = table["n"].sum()
    table["share"] = table["n"] / table["total"]
    table["share_low"], table["share_high"] = rate_interval(table["n"].to_numpy(),
                                                              table["total"].to_numpy())
    return table.drop(columns="total")


def bid_calibration(df: pd.DataFrame, feature: str = "spades",
                    by=("config", "strategy")) -> pd.DataFrame:
    """Mean bid and mean tricks of number (non-nil) seat bids by a feature of the dealt hand.

    Parameters
    ----------
    feature : str
        One of ``spades``, ``high_cards``, ``hcp``, ``voids``, ``singletons``, ``longest``
        (see ``run.frames.hand_features``; the hand as dealt, before any exchange).

    Returns
    -------
    DataFrame
        *by, ``<feature>`` (its value), ``n`` (seat bids), ``mean_bid`` and ``mean_tricks``
        (in tricks) each with a normal 95% interval (``mean ± 1.96 sd / sqrt(n)``; nan when
        ``n < 2``). A well calibrated strategy has ``mean_tricks`` inside the bid's interval.

    Examples
    --------
    >>> frame = pd.DataFrame({"config": "c", "strategy": "s", "nil": False, "spades": [2, 2, 5],
    ...                       "bid": [2, 4, 5], "tricks": [3, 3, 6]})
    >>> bid_calibration(frame)[["spades", "n", "mean_bid", "mean_tricks"]].values.tolist()
    [[2.0, 2.0, 3.0, 3.0], [5.0, 1.0, 5.0, 6.0]]
    """
    if feature not in FEATURES:
        raise AnalysisError(f"bid_calibration: feature {feature!r}: expected one of "
                         f"{', '.join(FEATURES)}")
    by = list(by)
    bids = _number_bids(df, by, [feature, "bid", "tricks"], "bid_calibration")
    work = bids[list(dict.fromkeys([*by, feature]))].copy()
    work["bid"] = bids["bid"].to_numpy(dtype=float)
    work["tricks"] = bids["tricks"].to_numpy(dtype=float)
    table = aggregate(work, [*by, feature], n=("bid", "size"), mean_bid=("bid", "mean"),
                      mean_bid_sd=("bid", "std"), mean_tricks=("tricks", "mean"),
                      mean_tricks_sd=("tricks", "std"))
    add_mean_interval(table, "mean_bid", "n")
    add_mean_interval(table, "mean_tricks", "n")
    return table
