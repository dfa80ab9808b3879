"""Par analyses of a tidy run frame played with par (``--par``, ``par = true``): bids against
what the cards were worth double dummy, the tricks that hidden information and imperfect play
moved from one side to the other, and nil success against double-dummy safety.

The frame needs the par columns (``core.par.PAR_TYPES``): ``par_tricks``, the double-dummy
tricks of the row's side (of its seat, against all the others, without partnerships), from the
hand's actual first leader and the position after any exchanges; ``par_nil_safe``, whether the
seat's nil is double-dummy safe (missing where it did not bid nil). Every function returns the
group keys ``by`` first (in that order), then counts beside means and rates, each with a 95%
interval named ``<metric>_low`` / ``<metric>_high`` (normal intervals of means, Wilson
intervals of rates). Duplicate copies (``duplicate == True``) are real plays and are included.

Units: a *side-hand* is one side in one hand (one configuration and copy), the rows sharing
``config, duplicate, game_id, hand_id, side``; the bids and tricks analyses count only the
hands in which no seat bid nil (par is the tricks of two sides that both play for tricks, which
is not what the sides of a hand with a nil play for); a *nil bid* is a row with
``nil == True``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.errors import AnalysisError
from .metrics import SIDE_HAND, add_mean_interval, add_rate, aggregate, require_columns

HAND = ("config", "duplicate", "game_id", "hand_id")


def _require_par(df: pd.DataFrame, columns, what: str) -> None:
    if "par_tricks" not in df.columns:
        raise AnalysisError(f"{what}: the frame has no par columns; play the run with --par "
                            f"(par = true in an experiment file)")
    require_columns(df, columns, what)


def _side_hands(df: pd.DataFrame, by, what: str) -> pd.DataFrame:
    """One row per side-hand (and group of ``by``) of the hands without a nil bid, with the
    side's contract, its tricks (every trick of its seats) and its par."""
    by = list(by)
    _require_par(df, [*by, *SIDE_HAND, "nil", "tricks", "side_contract", "par_tricks"], what)
    work = df[list(dict.fromkeys([*by, *SIDE_HAND, "nil", "tricks", "side_contract",
                                  "par_tricks"]))].copy()
    work["nil"] = work["nil"].to_numpy(dtype=bool)
    work["tricks"] = work["tricks"].to_numpy(dtype=np.int64)
    hand_nil = work.groupby(list(HAND), observed=True, sort=False)["nil"].transform("any")
    work = work.loc[~hand_nil.to_numpy(dtype=bool)]
    work["side_tricks"] = work.groupby(list(SIDE_HAND), observed=True,
                                       sort=False)["tricks"].transform("sum")
    return work.drop_duplicates(subset=list(dict.fromkeys([*SIDE_HAND, *by])))


def _mean(table: pd.DataFrame, work: pd.DataFrame, by, name: str, values) -> None:
    """Add the mean of ``values`` per group of ``by`` as ``name`` with its normal 95% interval
    (the groups of ``table``, made by ``aggregate`` over the same rows)."""
    frame = work[list(by)].copy()
    frame[name] = np.asarray(values, dtype=float)
    means = aggregate(frame, by, **{name: (name, "mean"), f"{name}_sd": (name, "std")})
    means["n"] = table["n"].to_numpy()
    add_mean_interval(means, name, "n")
    for column in (name, f"{name}_low", f"{name}_high"):
        table[column] = means[column].to_numpy()


def bids_against_par(df: pd.DataFrame, by=("config", "strategy")) -> pd.DataFrame:
    """Side contracts against par: how far a side's bid is from the tricks its cards were worth
    double dummy, over the side-hands of hands without a nil bid.

    Parameters
    ----------
    df : DataFrame
        Tidy run frame with the par columns.
    by : sequence of str
        Group keys, any tidy columns (``config``, ``strategy``, ``seat``, ``rules``...; with
        ``seat``, each side-hand counts once for each seat of the side).

    Returns
    -------
    DataFrame
        *by, ``n`` (side-hands), ``mean_bid`` (the side's contract: the sum of its number
        bids), ``mean_par`` (its double-dummy tricks) and ``bid_minus_par`` (their difference,
        in tricks: above 0 the side bids more than its cards are worth against perfect play),
        each with a normal 95% interval; ``over`` / ``under`` (side-hands bidding more / fewer
        tricks than par) with ``over_rate``, ``under_rate`` and their Wilson intervals.

    Examples
    --------
    >>> frame = pd.DataFrame({"config": "c", "duplicate": False, "game_id": -1,
    ...     "hand_id": 0, "side": [0, 1, 0, 1], "strategy": "s", "nil": False,
    ...     "tricks": [3, 4, 3, 3], "side_contract": [6, 5, 6, 5], "par_tricks": [7, 6, 7, 6]})
    >>> table = bids_against_par(frame)
    >>> table[["n", "mean_bid", "mean_par", "bid_minus_par", "under"]].values.tolist()
    [[2.0, 5.5, 6.5, -1.0, 2.0]]
    """
    by = list(by)
    sides = _side_hands(df, by, "bids_against_par")
    contract = sides["side_contract"].to_numpy(dtype=np.int64)
    par = sides["par_tricks"].to_numpy(dtype=np.int64)
    work = sides[by].copy()
    work["over"] = (contract > par).astype(np.int64)
    work["under"] = (contract < par).astype(np.int64)
    table = aggregate(work, by, n=("over", "size"), over=("over", "sum"),
                      under=("under", "sum"))
    counts = table[["over", "under"]].copy()
    table = table.drop(columns=["over", "under"])
    _mean(table, sides, by, "mean_bid", contract)
    _mean(table, sides, by, "mean_par", par)
    _mean(table, sides, by, "bid_minus_par", contract - par)
    table[["over", "under"]] = counts
    add_rate(table, "over_rate", "over", "n")
    add_rate(table, "under_rate", "under", "n")
    return table


def tricks_against_par(df: pd.DataFrame, by=("config", "strategy")) -> pd.DataFrame:
    """The tricks a side took against par: what hidden information and imperfect play (of
    both sides) moved, over the side-hands of hands without a nil bid.

    In partnerships the two sides' tricks and their two pars both add up to the hand's tricks,
    so over a group holding both sides of every hand (every seat playing one strategy) the mean
    of ``tricks_minus_par`` is 0: the tricks one side loses, the other gains. The signed mean
    tells strategies apart where they sit on opposite sides; ``off_par`` (the mean of
    ``|tricks - par|``) is the tricks that changed hands whatever the sides.

    Returns
    -------
    DataFrame
        *by, ``n`` (side-hands), ``mean_tricks`` (every trick of the side's seats),
        ``mean_par``, ``tricks_minus_par`` and ``off_par`` (in tricks), each with a normal 95%
        interval; ``at_par`` (side-hands taking exactly par) with ``at_par_rate`` and its
        Wilson interval.

    Examples
    --------
    >>> frame = pd.DataFrame({"config": "c", "duplicate": False, "game_id": -1,
    ...     "hand_id": 0, "side": [0, 1, 0, 1], "strategy": "s", "nil": False,
    ...     "tricks": [4, 3, 4, 2], "side_contract": [6, 5, 6, 5], "par_tricks": [7, 6, 7, 6]})
    >>> table = tricks_against_par(frame)
    >>> table[["n", "mean_tricks", "tricks_minus_par", "off_par", "at_par"]].values.tolist()
    [[2.0, 6.5, 0.0, 1.0, 0.0]]
    """
    by = list(by)
    sides = _side_hands(df, by, "tricks_against_par")
    tricks = sides["side_tricks"].to_numpy(dtype=np.int64)
    par = sides["par_tricks"].to_numpy(dtype=np.int64)
    work = sides[by].copy()
    work["at_par"] = (tricks == par).astype(np.int64)
    table = aggregate(work, by, n=("at_par", "size"), at_par=("at_par", "sum"))
    at_par = table["at_par"].to_numpy()
    table = table.drop(columns=["at_par"])
    _mean(table, sides, by, "mean_tricks", tricks)
    _mean(table, sides, by, "mean_par", par)
    _mean(table, sides, by, "tricks_minus_par", tricks - par)
    _mean(table, sides, by, "off_par", np.abs(tricks - par))
    table["at_par"] = at_par
    add_rate(table, "at_par_rate", "at_par", "n")
    return table


def nil_against_par(df: pd.DataFrame, by=("config", "strategy", "blind")) -> pd.DataFrame:
    """Nil success against double-dummy safety: how many nil bids were safe double dummy, and
    how often the safe and the unsafe ones were made.

    Returns
    -------
    DataFrame
        *by, ``dd_safe`` (whether the nil was double-dummy safe), ``n`` (nil bids), ``made``
        (taking no trick), ``rate = made / n`` with its Wilson interval, and ``share`` (the
        group's nil bids that are ``dd_safe`` or not: ``n`` over the group's nil bids) with its
        Wilson interval. A safe nil can still fail (the players do not see the cards); an
        unsafe one is made when the opponents miss the way to set it.

    Examples
    --------
    >>> frame = pd.DataFrame({"config": "c", "strategy": "s", "blind": False,
    ...     "nil": [True, True, True, False], "tricks": [0, 1, 0, 3], "par_tricks": 6,
    ...     "par_nil_safe": pd.array([True, True, False, None], dtype="boolean")})
    >>> table = nil_against_par(frame)
    >>> table[["dd_safe", "n", "made", "rate"]].values.tolist()
    [[False, 1, 1, 1.0], [True, 2, 1, 0.5]]
    """
    by = list(by)
    _require_par(df, [*by, "nil", "tricks", "par_nil_safe"], "nil_against_par")
    nils = df.loc[df["nil"].to_numpy(dtype=bool), list(dict.fromkeys([*by, "tricks",
                                                                        "par_nil_safe"]))]
    safe = nils["par_nil_safe"].astype("boolean")
    if safe.isna().any():
        raise AnalysisError(f"nil_against_par: {int(safe.isna().sum()):,} nil bids have no "
                            f"double-dummy safety (par_nil_safe is missing)")
    work = nils[by].copy()
    work["dd_safe"] = safe.to_numpy(dtype=bool)
    work["made"] = (nils["tricks"].to_numpy() == 0).astype(np.int64)
    keys = [*by, "dd_safe"]
    table = aggregate(work, keys, n=("made", "size"), made=("made", "sum"))
    add_rate(table, "rate", "made", "n")
    if by:
        table["total"] = table.groupby(by, observed=True, sort=False)["n"].transform("sum")
    else:
        table["total"] = table["n"].sum()
    add_rate(table, "share", "n", "total")
    return table.drop(columns="total")
