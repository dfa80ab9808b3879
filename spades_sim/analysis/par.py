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
``nil == True``. The unit of every interval of the bids and tricks analyses is the *hand*: the
sides of one hand are far from independent (their pars, and their tricks, add up to the hand's
tricks: a correlation of -0.8 between the two sides' bid minus par in a classic run), so a mean
over side-hands gets the cluster (ratio-estimator) interval over hands (:func:`_clustered`), a
rate of hands the Wilson interval, and ``n`` counts hands.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.errors import AnalysisError
from .metrics import SIDE_HAND, Z95, add_rate, aggregate, require_columns

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


def _clustered(work: pd.DataFrame, by, values: dict) -> pd.DataFrame:
    """Per group of ``by``, the mean of each of ``values`` (arrays over the side-hands of
    ``work``) with its 95% interval clustered by hand: ``n`` (hands), ``side_hands``, then
    ``name``, ``name_low``, ``name_high`` for each.

    The mean is the ratio ``r = sum(Y_h) / sum(M_h)`` over the hands ``h`` of the group (``Y_h``:
    the sum of the hand's values, ``M_h``: its side-hands in the group), the plain mean over
    side-hands; its variance the ratio estimator's, ``H / (H - 1) * sum((Y_h - r M_h)^2) /
    sum(M_h)^2`` over the ``H`` hands, and the interval normal. Where every hand's values sum to
    zero (a difference that the sides of a hand cancel by construction) the interval is nan:
    there is nothing to estimate."""
    by = list(by)
    frame = work[list(dict.fromkeys([*by, *HAND]))].copy()
    frame["_m"] = 1.0
    for name, value in values.items():
        frame[name] = np.asarray(value, dtype=float)
    per_hand = aggregate(frame, list(dict.fromkeys([*by, *HAND])), _m=("_m", "sum"),
                         **{name: (name, "sum") for name in values})
    per_hand["_mm"] = per_hand["_m"] ** 2
    sums = {"n": ("_m", "size"), "side_hands": ("_m", "sum"), "_mm": ("_mm", "sum")}
    for name in values:
        per_hand[f"{name}:yy"] = per_hand[name] ** 2
        per_hand[f"{name}:ym"] = per_hand[name] * per_hand["_m"]
        per_hand[f"{name}:zero"] = (per_hand[name] != 0).astype(np.int64)
        sums.update({name: (name, "sum"), f"{name}:yy": (f"{name}:yy", "sum"),
                     f"{name}:ym": (f"{name}:ym", "sum"),
                     f"{name}:zero": (f"{name}:zero", "sum")})
    table = aggregate(per_hand, by, **sums)
    hands = table["n"].to_numpy(dtype=float)
    total = table["side_hands"].to_numpy(dtype=float)
    out = table[[*by, "n", "side_hands"]].copy()
    out["n"] = out["n"].astype(np.int64)
    out["side_hands"] = out["side_hands"].astype(np.int64)
    for name in values:
        ratio = table[name].to_numpy(dtype=float) / total
        squares = (table[f"{name}:yy"].to_numpy() - 2 * ratio * table[f"{name}:ym"].to_numpy()
                   + ratio ** 2 * table["_mm"].to_numpy())
        with np.errstate(invalid="ignore", divide="ignore"):
            stderr = np.sqrt(np.maximum(squares, 0.0) * hands / (hands - 1)) / total
        stderr = np.where((hands >= 2) & (table[f"{name}:zero"].to_numpy() > 0), stderr, np.nan)
        out[name] = ratio
        out[f"{name}_low"] = ratio - Z95 * stderr
        out[f"{name}_high"] = ratio + Z95 * stderr
    return out


def bids_against_par(df: pd.DataFrame, by=("config", "strategy")) -> pd.DataFrame:
    """Side contracts against par: how far a side's bid is from the tricks its cards were worth
    double dummy, over the side-hands of hands without a nil bid, the hand as the unit.

    Where a group holds every side of its hands (every seat plays one strategy), the mean par
    is the hand's tricks over the sides by construction (6.5 in partnerships of 13 tricks), so
    ``bid_minus_par`` there says how far the contracts of a hand together fall short of its
    tricks: ``sides_per_hand * mean_bid`` of ``sides_per_hand * mean_par`` tricks. The shares
    of side-hands over and under par say what par adds.

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
        *by, ``n`` (hands), ``side_hands``, ``sides_per_hand`` (``side_hands / n``),
        ``mean_bid`` (the side's contract: the sum of its number bids), ``mean_par`` (its
        double-dummy tricks), ``bid_minus_par`` (their difference, in tricks: above 0 the side
        bids more than its cards are worth against perfect play), and ``over_rate`` /
        ``under_rate`` (the shares of side-hands bidding more / fewer tricks than par), each
        with its 95% interval clustered by hand; ``over`` / ``under`` count those side-hands.

    Examples
    --------
    >>> frame = pd.DataFrame({"config": "c", "duplicate": False, "game_id": -1,
    ...     "hand_id": 0, "side": [0, 1, 0, 1], "strategy": "s", "nil": False,
    ...     "tricks": [3, 4, 3, 3], "side_contract": [6, 5, 6, 5], "par_tricks": [7, 6, 7, 6]})
    >>> table = bids_against_par(frame)
    >>> table[["n", "side_hands", "under"]].values.tolist()
    [[1, 2, 2]]
    >>> table[["mean_bid", "mean_par", "bid_minus_par", "sides_per_hand"]].values.tolist()
    [[5.5, 6.5, -1.0, 2.0]]
    """
    by = list(by)
    sides = _side_hands(df, by, "bids_against_par")
    contract = sides["side_contract"].to_numpy(dtype=np.int64)
    par = sides["par_tricks"].to_numpy(dtype=np.int64)
    table = _clustered(sides, by, {"mean_bid": contract, "mean_par": par,
                                   "bid_minus_par": contract - par,
                                   "over_rate": (contract > par).astype(float),
                                   "under_rate": (contract < par).astype(float)})
    table.insert(len(by) + 2, "sides_per_hand", table["side_hands"] / table["n"])
    table["over"] = np.rint(table["over_rate"] * table["side_hands"]).astype(np.int64)
    table["under"] = np.rint(table["under_rate"] * table["side_hands"]).astype(np.int64)
    return table


def par_hand_types(df: pd.DataFrame, by=("config",)) -> pd.DataFrame:
    """Hands without a nil bid by how their sides' contracts stand against par: each side
    ``under`` (contract below its par), ``at`` or ``over``, and the hand's type the sides'
    states in order (``under / under``: both sides bid fewer tricks than their cards were worth
    double dummy). One hand is one unit: the shares are of hands, with Wilson intervals.

    Returns
    -------
    DataFrame
        *by, ``hand_type``, ``n`` (hands of the type), ``hands`` (of the group) and ``share =
        n / hands`` with its 95% interval; types in order of ``n`` within each group.

    Examples
    --------
    >>> frame = pd.DataFrame({"config": "c", "duplicate": False, "game_id": -1,
    ...     "hand_id": [0, 0, 1, 1], "side": [0, 1, 0, 1], "seat": [0, 1, 0, 1],
    ...     "nil": False, "tricks": 3, "side_contract": [6, 5, 8, 4],
    ...     "par_tricks": [7, 6, 7, 6]})
    >>> par_hand_types(frame)[["hand_type", "n", "hands", "share"]].values.tolist()
    [['over / under', 1, 2, 0.5], ['under / under', 1, 2, 0.5]]
    """
    by = list(by)
    if "side" in by or "seat" in by or "strategy" in by:
        raise AnalysisError("par_hand_types: by may not split the sides of a hand (side, seat, "
                            "strategy): the hand is the unit")
    sides = _side_hands(df, by, "par_hand_types")
    contract = sides["side_contract"].to_numpy(dtype=np.int64)
    par = sides["par_tricks"].to_numpy(dtype=np.int64)
    state = np.where(contract < par, "under", np.where(contract > par, "over", "at"))
    order = {"over": 0, "at": 1, "under": 2}
    work = sides[list(dict.fromkeys([*by, *HAND]))].copy()
    work["state"] = state
    work["rank"] = [order[value] for value in state]
    work = work.sort_values([*HAND, "rank"], kind="stable")
    hands = work.groupby(list(dict.fromkeys([*by, *HAND])), observed=True, sort=False)[
        "state"].agg(" / ".join).rename("hand_type").reset_index()
    hands["one"] = 1
    table = aggregate(hands, [*by, "hand_type"], n=("one", "size"))
    if by:
        table["hands"] = table.groupby(by, observed=True, sort=False)["n"].transform("sum")
    else:
        table["hands"] = table["n"].sum()
    add_rate(table, "share", "n", "hands")
    table = table.sort_values([*by, "n", "hand_type"], ascending=[True] * len(by) + [False, True],
                              kind="stable", ignore_index=True)
    return table


def tricks_against_par(df: pd.DataFrame, by=("config", "strategy")) -> pd.DataFrame:
    """The tricks a side took against par: what hidden information and imperfect play (of
    both sides) moved, over the side-hands of hands without a nil bid, the hand as the unit.

    In partnerships the two sides' tricks and their two pars both add up to the hand's tricks,
    so over a group holding both sides of every hand (every seat playing one strategy)
    ``tricks_minus_par`` is 0 by construction: the tricks one side loses, the other gains; its
    interval is then nan (there is nothing to estimate). The signed mean tells strategies apart
    where they sit on opposite sides; ``off_par`` (the mean of ``|tricks - par|``) is the tricks
    that changed hands whatever the sides.

    Returns
    -------
    DataFrame
        *by, ``n`` (hands), ``side_hands``, ``mean_tricks`` (every trick of the side's seats),
        ``mean_par``, ``tricks_minus_par`` and ``off_par`` (in tricks, per side-hand), each
        with its 95% interval clustered by hand; ``at_par`` (hands in which every side-hand of
        the group took exactly par: in a hand of two sides one side at par means both are)
        with ``at_par_rate = at_par / n`` and its Wilson interval.

    Examples
    --------
    >>> frame = pd.DataFrame({"config": "c", "duplicate": False, "game_id": -1,
    ...     "hand_id": 0, "side": [0, 1, 0, 1], "strategy": "s", "nil": False,
    ...     "tricks": [4, 3, 4, 2], "side_contract": [6, 5, 6, 5], "par_tricks": [7, 6, 7, 6]})
    >>> table = tricks_against_par(frame)
    >>> table[["n", "mean_tricks", "tricks_minus_par", "off_par", "at_par"]].values.tolist()
    [[1.0, 6.5, 0.0, 1.0, 0.0]]
    """
    by = list(by)
    sides = _side_hands(df, by, "tricks_against_par")
    tricks = sides["side_tricks"].to_numpy(dtype=np.int64)
    par = sides["par_tricks"].to_numpy(dtype=np.int64)
    table = _clustered(sides, by, {"mean_tricks": tricks, "mean_par": par,
                                   "tricks_minus_par": tricks - par,
                                   "off_par": np.abs(tricks - par)})
    work = sides[list(dict.fromkeys([*by, *HAND]))].copy()
    work["off"] = (tricks != par).astype(np.int64)
    per_hand = aggregate(work, list(dict.fromkeys([*by, *HAND])), off=("off", "max"))
    per_hand["at_par"] = 1 - per_hand["off"]
    at_par = aggregate(per_hand, by, at_par=("at_par", "sum"))
    table["at_par"] = at_par["at_par"].to_numpy()
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
