"""Nil analyses of a tidy run frame: how often nil bids are made, by group, by a feature of the
hand, by the partner's bid, and what a nil bid is worth.

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
from .metrics import FEATURES, add_rate, aggregate, require_columns

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


def nil_value(df: pd.DataFrame, rules, by=("config", "blind")) -> pd.DataFrame:
    """The points a nil bid is worth: its bonus times the margin of its success rate over 1/2.

    A nil scores ``+bonus`` when made and ``-bonus`` when failed (``bonus`` = the rules'
    ``nil_bonus``, or ``blind_nil_bonus`` for a blind nil), so its expected value per bid is
    ``ev = rate * bonus - (1 - rate) * bonus = bonus * (2 * rate - 1)``, zero at the break-even
    rate ``penalty / (bonus + penalty) = 1/2`` for this symmetric bonus and penalty. Only the nil
    bidder's own bonus is counted: not the bags of a failed nil's tricks, the partner's contract,
    nor the fixed / doubled double-nil scorings.

    Parameters
    ----------
    rules : dict
        Configuration name -> :class:`spades_sim.rules.Rules` (every configuration in ``df``
        that has a nil bid).
    by : sequence of str
        Group keys; they must include ``config`` and ``blind`` (the bonus depends on both).

    Returns
    -------
    DataFrame
        The columns of :func:`nil_success`, then ``bonus`` (points), ``ev`` (points per nil
        bid), ``ev_low``, ``ev_high`` (``bonus * (2 * rate_low - 1)`` and likewise: the rate's
        Wilson 95% interval mapped through the linear formula), ``break_even`` (0.5), ``pays``
        (``rate_low > break_even``: the nil pays at 95% confidence).
    """
    by = list(by)
    if "config" not in by or "blind" not in by:
        raise AnalysisError("nil_value: by must include config and blind (the bonus depends on "
                         "both)")
    table = nil_success(df, by)
    names = table["config"].astype(str)
    missing = sorted(set(names) - set(rules))
    if missing:
        raise AnalysisError(f"nil_value: no rules given for configuration(s) {', '.join(missing)}")
    plain = names.map({name: rules[name].nil_bonus for name in set(names)})
    blind = names.map({name: rules[name].blind_nil_bonus for name in set(names)})
    bonus = np.where(table["blind"].to_numpy(dtype=bool), blind.to_numpy(dtype=float),
                     plain.to_numpy(dtype=float))
    table["bonus"] = bonus
    for suffix in ("", "_low", "_high"):
        table[f"ev{suffix}"] = bonus * (2 * table[f"rate{suffix}"].to_numpy() - 1)
    table["break_even"] = 0.5
    table["pays"] = table["rate_low"].to_numpy() > table["break_even"].to_numpy()
    return table
