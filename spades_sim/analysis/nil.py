"""Nil analyses of a tidy run frame: how often nil bids are made, by group, by a feature of the
hand, by the partner's bid, and what a nil bid was worth against bidding a number on the same
deals (:func:`nil_paired_value`).

The unit is a *nil bid*: one row of the tidy frame with ``nil == True`` (plain or blind nil; a
zero bid where nil is off is a number bid, not a nil). A nil is *made* when the bidder takes no
trick. Every function returns the group keys ``by`` first (in that order), then ``n`` (nil
bids), ``made``, ``rate = made / n`` and its Wilson 95% interval ``rate_low``, ``rate_high``.
Duplicate copies (``duplicate == True``) are real plays and are included.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.errors import AnalysisError
from .metrics import (
    FEATURES,
    add_mean_interval,
    add_rate,
    aggregate,
    require_columns,
    t_test_p,
)

#: Category labels of ``partner_bid``: ``"nil"`` (plain or blind), then the number bids.
PARTNER_BIDS = ("nil", *(str(bid) for bid in range(14)))


def _nil_rate(nils: pd.DataFrame, keys) -> pd.DataFrame:
    work = nils[list(keys)].copy()
    work["made"] = (nils["tricks"].to_numpy() == 0).astype(np.int64)
    table = aggregate(work, keys, n=("made", "size"), made=("made", "sum"))
    add_rate(table, "rate", "made", "n")
    return table


def _nil_bids(df: pd.DataFrame, columns, what: str) -> pd.DataFrame:
    require_columns(df, [*columns, "nil", "tricks"], what)
    return df.loc[df["nil"].to_numpy(dtype=bool), list(dict.fromkeys([*columns, "tricks"]))]


def nil_success(df: pd.DataFrame, by=("config", "strategy", "blind")) -> pd.DataFrame:
    """Nil success rate per group.

    Returns
    -------
    DataFrame
        *by, ``n`` (nil bids), ``made`` (nil bids with ``tricks == 0``), ``rate = made / n``,
        ``rate_low``, ``rate_high`` (Wilson 95%).

    Examples
    --------
    >>> frame = pd.DataFrame({"config": "c", "strategy": "s", "blind": [False, False, True, False],
    ...                       "nil": [True, True, True, False], "tricks": [0, 2, 0, 0]})
    >>> nil_success(frame)[["blind", "n", "made", "rate"]].values.tolist()
    [[False, 2, 1, 0.5], [True, 1, 1, 1.0]]
    """
    by = list(by)
    return _nil_rate(_nil_bids(df, by, "nil_success"), by)


def nil_by_feature(df: pd.DataFrame, feature: str = "spades", by=("config",)) -> pd.DataFrame:
    """Nil success rate by a feature of the nil bidder's dealt hand (before any exchange).

    Returns
    -------
    DataFrame
        *by, ``<feature>`` (its value), then the columns of :func:`nil_success`.
    """
    if feature not in FEATURES:
        raise AnalysisError(f"nil_by_feature: feature {feature!r}: expected one of "
                         f"{', '.join(FEATURES)}")
    keys = list(dict.fromkeys([*by, feature]))
    return _nil_rate(_nil_bids(df, keys, "nil_by_feature"), keys)


def nil_by_partner_bid(df: pd.DataFrame, by=("config",)) -> pd.DataFrame:
    """Nil success rate by the partner's bid (partnership configurations only).

    The partner of seat ``s`` is seat ``(s + 2) % 4`` in the same hand and copy (``config,
    duplicate, game_id, hand_id``). Configurations without partnerships (no row with ``side !=
    seat``) are left out.

    Returns
    -------
    DataFrame
        *by, ``partner_bid`` (ordered categorical: ``"nil"`` for a partner's plain or blind nil,
        else the partner's number bid as text, ``"0"`` .. ``"13"``), then the columns of
        :func:`nil_success`.

    Examples
    --------
    >>> frame = pd.DataFrame({"config": "c", "duplicate": False, "game_id": -1,
    ...     "hand_id": [0] * 4 + [1] * 4, "seat": [0, 1, 2, 3] * 2, "side": [0, 1, 0, 1] * 2,
    ...     "nil": [True, False, False, False, True, False, True, False],
    ...     "bid": [0, 3, 4, 5, 0, 4, 0, 6], "tricks": [0, 3, 5, 5, 1, 4, 0, 8]})
    >>> nil_by_partner_bid(frame)[["partner_bid", "n", "made"]].values.tolist()
    [['nil', 2, 1], ['4', 1, 1]]
    """
    by = list(by)
    hand = ["config", "duplicate", "game_id", "hand_id"]
    require_columns(df, [*by, *hand, "seat", "side", "nil", "bid", "tricks"],
                    "nil_by_partner_bid")
    partnership = df.loc[df["side"].to_numpy() != df["seat"].to_numpy(), "config"].unique()
    in_partnership = df["config"].isin(partnership).to_numpy()
    nils = df.loc[df["nil"].to_numpy(dtype=bool) & in_partnership,
                  list(dict.fromkeys([*by, *hand, "seat", "tricks"]))]
    # Each row, relabelled as its partner's seat: joining on the seat gives the partner's bid.
    partners = df.loc[in_partnership, [*hand, "seat", "bid", "nil"]].rename(
        columns={"bid": "partner_number", "nil": "partner_nil"})
    partners["seat"] = ((partners["seat"].to_numpy(dtype=np.int16) + 2) % 4).astype(
        df["seat"].dtype)
    joined = nils.merge(partners, on=[*hand, "seat"], how="inner", validate="one_to_one")
    codes = np.where(joined["partner_nil"].to_numpy(dtype=bool), 0,
                     joined["partner_number"].to_numpy(dtype=np.int64) + 1)
    joined["partner_bid"] = pd.Categorical.from_codes(codes, categories=list(PARTNER_BIDS),
                                                      ordered=True)
    keys = list(dict.fromkeys([*by, "partner_bid"]))
    return _nil_rate(joined, keys)


#: The kinds of nil a side-hand can hold, in the order of :func:`nil_paired_value`.
NIL_KINDS = ("nil", "blind nil", "double nil")


def nil_paired_value(df: pd.DataFrame, pairs: dict) -> pd.DataFrame:
    """What nil was worth against bidding a number, paired on the same deals.

    ``pairs`` maps a configuration (the *nil line*) to its *number line*: the same rules and
    strategies with nil turned off (``experiment.counterfactual``), played on the same deals
    (the same seed, hand ids and copies). The unit is a *nil side-hand*: a side, in one hand
    of the nil line's hands-mode plays (``game_id == -1``; both duplicate copies), in which at
    least one seat bid nil (plain or blind). These are the hands the strategy *chose* to bid nil
    on, a selection: the value holds for them, not for nil on any hand. Per nil side-hand the
    paired difference is the side's ``score_delta`` in the nil line minus its ``score_delta`` on
    the same deal in the number line, where the would-be nil bidder bid its number (and every
    nil of the hand, the opponents' too, is a number bid).

    Parameters
    ----------
    pairs : dict
        Nil-line configuration -> number-line configuration, both in ``df``.

    Returns
    -------
    DataFrame
        One row per nil line and ``kind`` (:data:`NIL_KINDS`: one plain nil on the side, one
        blind nil, two nil bidders): ``config``, ``number_line``, ``kind``, ``n`` (nil
        side-hands), ``share`` (``n`` over the nil line's side-hands, with a Wilson 95%
        interval ``share_low``, ``share_high``), ``made`` (side-hands whose every nil was
        made), ``opponents_nil`` (side-hands in which the opponents bid nil too),
        ``nil_score``, ``number_score`` (mean side scores of the two lines, points),
        ``diff`` (their mean paired difference) with its 95% Student t interval
        ``diff_low``, ``diff_high`` (nan for ``n < 2``) and the two-sided p-value of the one
        sample t test of no difference ``diff_p``.

    Raises
    ------
    AnalysisError
        When a configuration of ``pairs`` has no hands-mode plays in ``df``, the number line
        bid nil, or the two lines did not play the same hands.

    Examples
    --------
    Side 0 bids nil at seat 0 in hand 0 and scores 150 (nil made, partner 5 of 5); the number
    line bids 2 there and scores 70: worth +80 on that deal.

    >>> frame = pd.DataFrame({"config": ["n"] * 2 + ["b"] * 2, "duplicate": False,
    ...     "game_id": -1, "hand_id": 0, "seat": [0, 1] * 2, "side": [0, 1] * 2,
    ...     "nil": [True, False, False, False], "blind": False, "tricks": [0, 7, 1, 6],
    ...     "score_delta": [150, 62, 70, 62]})
    >>> nil_paired_value(frame, {"n": "b"})[["kind", "n", "made", "diff"]].values.tolist()
    [['nil', 1, 1, 80.0]]
    """
    side_hand = ["duplicate", "hand_id", "side"]
    require_columns(df, ["config", "game_id", "seat", "nil", "blind", "tricks", "score_delta",
                         *side_hand], "nil_paired_value")
    hands = df.loc[df["game_id"].to_numpy() == -1]
    names = hands["config"].astype(str).to_numpy()
    parts = []
    for line, number in pairs.items():
        mine = hands.loc[names == str(line)]
        theirs = hands.loc[names == str(number)]
        for name, rows in ((line, mine), (number, theirs)):
            if not len(rows):
                raise AnalysisError(f"nil_paired_value: configuration {name!r} has no "
                                    f"hands-mode plays in the frame")
        if theirs["nil"].to_numpy(dtype=bool).any():
            raise AnalysisError(f"nil_paired_value: {number!r} bids nil: not a number line of "
                                f"{line!r}")
        work = mine[side_hand].copy()
        nil = mine["nil"].to_numpy(dtype=bool)
        work["nils"] = nil.astype(np.int64)
        work["blinds"] = (nil & mine["blind"].to_numpy(dtype=bool)).astype(np.int64)
        work["failed"] = (nil & (mine["tricks"].to_numpy() > 0)).astype(np.int64)
        work["score"] = mine["score_delta"].to_numpy(dtype=float)
        sides = work.groupby(side_hand, observed=True, sort=True).agg(
            nils=("nils", "sum"), blinds=("blinds", "sum"), failed=("failed", "sum"),
            score=("score", "first"))
        other = theirs.groupby(side_hand, observed=True, sort=True)["score_delta"].first()
        if len(other) != len(sides) or not other.index.equals(sides.index):
            raise AnalysisError(f"nil_paired_value: {line!r} and {number!r} did not play the "
                                f"same hands")
        sides["number"] = other.to_numpy(dtype=float)
        hand_nils = sides.groupby(["duplicate", "hand_id"], observed=True)["nils"].transform(
            "sum")
        sides["opponents"] = (hand_nils.to_numpy() > sides["nils"].to_numpy()).astype(np.int64)
        total = len(sides)
        sides = sides.loc[sides["nils"].to_numpy() > 0]
        codes = np.where(sides["nils"].to_numpy() > 1, 2,
                         np.where(sides["blinds"].to_numpy() > 0, 1, 0))
        part = pd.DataFrame({
            "kind": pd.Categorical.from_codes(codes, categories=list(NIL_KINDS)),
            "made": (sides["failed"].to_numpy() == 0).astype(np.int64),
            "opponents": sides["opponents"].to_numpy(),
            "nil_score": sides["score"].to_numpy(),
            "number_score": sides["number"].to_numpy(),
        })
        part["difference"] = part["nil_score"] - part["number_score"]
        table = aggregate(part, ["kind"], n=("made", "size"), made=("made", "sum"),
                          opponents_nil=("opponents", "sum"), nil_score=("nil_score", "mean"),
                          number_score=("number_score", "mean"), diff=("difference", "mean"),
                          diff_sd=("difference", "std"))
        table.insert(0, "config", str(line))
        table.insert(1, "number_line", str(number))
        table.insert(4, "side_hands", total)
        parts.append(table)
    columns = ["config", "number_line", "kind", "n", "side_hands", "made", "opponents_nil",
               "nil_score", "number_score", "diff", "diff_sd"]
    table = (pd.concat(parts, ignore_index=True) if parts
             else pd.DataFrame({c: [] for c in columns}))
    table = table[columns]
    add_rate(table, "share", "n", "side_hands")
    table["diff_p"] = t_test_p(table["diff"], table["diff_sd"], table["n"])
    add_mean_interval(table, "diff", "n", t=True)
    order = ["config", "number_line", "kind", "n", "share", "share_low", "share_high", "made",
             "opponents_nil", "nil_score", "number_score", "diff", "diff_low", "diff_high",
             "diff_p"]
    return table[order]
