"""Nil analyses of a tidy run frame: how often nil bids are made, by group, by a feature of the
hand, by the partner's bid, and what a nil bid was worth against its bidder bidding a number on
the same deals, on the side's own score and on its margin over the opponents
(:func:`nil_paired_value`), with the value of the nils each step of a threshold ladder adds
(:func:`nil_marginal_value`).

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
from .clustered import clustered_mean
from .groups import text_values
from .metrics import FEATURES, add_rate, aggregate, rate_interval, require_columns

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
    partner = _partner_rows(df, hand) if in_partnership.all() else None
    if partner is not None:  # every hand's four seats in order: the partner's row by position
        chosen = np.flatnonzero(df["nil"].to_numpy(dtype=bool))
        joined = df[list(dict.fromkeys([*by, "tricks"]))].iloc[chosen].reset_index(drop=True)
        joined["partner_number"] = df["bid"].to_numpy()[partner[chosen]]
        joined["partner_nil"] = df["nil"].to_numpy(dtype=bool)[partner[chosen]]
        return _partner_bid_rate(joined, by)
    nils = df.loc[df["nil"].to_numpy(dtype=bool) & in_partnership,
                  list(dict.fromkeys([*by, *hand, "seat", "tricks"]))]
    # Each row, relabelled as its partner's seat: joining on the seat gives the partner's bid.
    partners = df.loc[in_partnership, [*hand, "seat", "bid", "nil"]].rename(
        columns={"bid": "partner_number", "nil": "partner_nil"})
    partners["seat"] = ((partners["seat"].to_numpy(dtype=np.int16) + 2) % 4).astype(
        df["seat"].dtype)
    joined = nils.merge(partners, on=[*hand, "seat"], how="inner", validate="one_to_one")
    return _partner_bid_rate(joined, by)


def _partner_bid_rate(joined: pd.DataFrame, by) -> pd.DataFrame:
    """:func:`nil_by_partner_bid`'s table from its nil bids with their partners' bids
    (``partner_number``, ``partner_nil``)."""
    codes = np.where(joined["partner_nil"].to_numpy(dtype=bool), 0,
                     joined["partner_number"].to_numpy(dtype=np.int64) + 1)
    joined["partner_bid"] = pd.Categorical.from_codes(codes, categories=list(PARTNER_BIDS),
                                                      ordered=True)
    keys = list(dict.fromkeys([*by, "partner_bid"]))
    return _nil_rate(joined, keys)


def _partner_rows(df: pd.DataFrame, hand) -> np.ndarray | None:
    """Each row's partner's row position (seat ``s`` and ``(s + 2) % 4`` of one hand) where
    the frame holds every hand as four rows in a row, seats 0 to 3, as a tidy frame of
    partnership tables does; None otherwise (the caller joins on the keys instead)."""
    n = len(df)
    if not n or n % 4:
        return None
    seat = df["seat"].to_numpy().astype(np.int64)
    if not (seat.reshape(-1, 4) == np.arange(4)).all():
        return None
    for key in hand:
        column = df[key]
        values = (column.cat.codes.to_numpy() if isinstance(column.dtype, pd.CategoricalDtype)
                  else column.to_numpy()).reshape(-1, 4)
        if not (values == values[:, :1]).all():
            return None
    return np.arange(n) - seat + (seat + 2) % 4


#: The kinds of nil a side-hand can hold, in the order of :func:`nil_paired_value`.
NIL_KINDS = ("nil", "blind nil", "double nil")
_SIDE_HAND = ["duplicate", "hand_id", "side"]
_DEAL = ["duplicate", "hand_id"]


def _side_table(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per side-hand of one configuration's hands-mode rows (index duplicate, hand_id,
    side): ``nils``, ``blinds``, ``failed`` (nil bids, blind ones, failed ones), ``score`` (the
    side's score of the hand) and ``margin`` (its score minus the mean of the other sides')."""
    nil = rows["nil"].to_numpy(dtype=bool)
    work = rows[_SIDE_HAND].copy()
    work["nils"] = nil.astype(np.int64)
    work["blinds"] = (nil & rows["blind"].to_numpy(dtype=bool)).astype(np.int64)
    work["failed"] = (nil & (rows["tricks"].to_numpy() > 0)).astype(np.int64)
    work["score"] = rows["score_delta"].to_numpy(dtype=float)
    sides = work.groupby(_SIDE_HAND, observed=True, sort=True).agg(
        nils=("nils", "sum"), blinds=("blinds", "sum"), failed=("failed", "sum"),
        score=("score", "first"))
    deal = sides.groupby(level=_DEAL, observed=True)
    total = deal["score"].transform("sum").to_numpy()
    count = deal["score"].transform("size").to_numpy()
    own = sides["score"].to_numpy()
    with np.errstate(invalid="ignore", divide="ignore"):
        sides["margin"] = own - np.where(count > 1, (total - own) / (count - 1), np.nan)
    sides["deal_nils"] = deal["nils"].transform("sum").to_numpy()
    return sides


def _bids(rows: pd.DataFrame) -> pd.DataFrame:
    """Each seat's bid and nil flag, indexed by duplicate, hand_id, seat."""
    return rows.set_index([*_DEAL, "seat"])[["bid", "nil", "side"]].sort_index()


def nil_side_hands(df: pd.DataFrame, pairs: dict) -> pd.DataFrame:
    """The nil side-hands of each nil line and their counterparts in its bidder's number line,
    one row each (what :func:`nil_paired_value` summarises).

    ``pairs`` maps a configuration (the *nil line*) to ``{side: number line}``: the same rules
    and strategies with nil turned off on that side only (``experiment.counterfactual``),
    played on the same deals (the same seed, hand ids and copies). A *nil side-hand* is a side,
    in one hand of the nil line's hands-mode plays (``game_id == -1``; both duplicate copies),
    in which at least one seat bid nil (plain or blind); its counterpart is the same deal in
    the number line of its side, where its nil bidder bid a number and every other seat bid as
    its strategy would (the opponents keep their nils).

    Returns
    -------
    DataFrame
        ``config``, ``duplicate``, ``hand_id``, ``side``, ``kind`` (:data:`NIL_KINDS`),
        ``made`` (every nil of the side made), ``opponents_nil`` (another side bid nil in the
        hand), ``same_bids`` (every seat but the side's nil bidders bid the same in both
        lines), ``nil_score``, ``number_score`` (the side's score in the two lines),
        ``nil_margin``, ``number_margin`` (the side's score minus the mean of the other sides':
        the opponents' in partnerships), ``diff = nil_score - number_score``, ``margin_diff =
        nil_margin - number_margin``; and ``side_hands``, the nil line's side-hands (constant
        per configuration).

    Raises
    ------
    AnalysisError
        When a configuration of ``pairs`` has no hands-mode plays in ``df``, a number line's
        side bid nil, or the two lines did not play the same hands.
    """
    require_columns(df, ["config", "game_id", "seat", "bid", "nil", "blind", "tricks",
                         "score_delta", *_SIDE_HAND], "nil_side_hands")
    hands = df.loc[df["game_id"].to_numpy() == -1]
    names = text_values(hands["config"])
    parts = []
    for line, numbers in pairs.items():
        if not isinstance(numbers, dict):
            raise AnalysisError(f"nil_side_hands: {line!r}: expected {{side: number line}}, "
                                f"got {numbers!r}")
        mine = hands.loc[names == str(line)]
        if not len(mine):
            raise AnalysisError(f"nil_side_hands: configuration {line!r} has no hands-mode "
                                f"plays in the frame")
        sides = _side_table(mine)
        mine_bids = _bids(mine)
        for side, number in numbers.items():
            theirs = hands.loc[names == str(number)]
            if not len(theirs):
                raise AnalysisError(f"nil_side_hands: configuration {number!r} has no "
                                    f"hands-mode plays in the frame")
            on_side = theirs["side"].to_numpy() == side
            if (theirs["nil"].to_numpy(dtype=bool) & on_side).any():
                raise AnalysisError(f"nil_side_hands: {number!r} bids nil on side {side}: not "
                                    f"a number line of {line!r}")
            other = _side_table(theirs)
            if len(other) != len(sides) or not other.index.equals(sides.index):
                raise AnalysisError(f"nil_side_hands: {line!r} and {number!r} did not play "
                                    f"the same hands")
            chosen = (sides.index.get_level_values("side") == side) & (
                sides["nils"].to_numpy() > 0)
            if not chosen.any():
                continue
            nil_sides = sides.loc[chosen]
            counterpart = other.loc[chosen]
            # Seats whose bid changed between the lines, other than the side's nil bidders.
            their_bids = _bids(theirs)
            changed = ((mine_bids["bid"].to_numpy() != their_bids["bid"].to_numpy())
                       | (mine_bids["nil"].to_numpy() != their_bids["nil"].to_numpy()))
            changed &= ~(mine_bids["nil"].to_numpy(dtype=bool)
                         & (mine_bids["side"].to_numpy() == side))
            moved = pd.Series(changed, index=mine_bids.index).groupby(
                level=_DEAL, observed=True).any()
            keys = nil_sides.index.droplevel("side")
            codes = np.where(nil_sides["nils"].to_numpy() > 1, 2,
                             np.where(nil_sides["blinds"].to_numpy() > 0, 1, 0))
            part = nil_sides.index.to_frame(index=False)
            part.insert(0, "config", str(line))
            part["kind"] = pd.Categorical.from_codes(codes, categories=list(NIL_KINDS))
            part["made"] = nil_sides["failed"].to_numpy() == 0
            part["opponents_nil"] = (nil_sides["deal_nils"].to_numpy()
                                     > nil_sides["nils"].to_numpy())
            part["same_bids"] = ~moved.reindex(keys).to_numpy(dtype=bool)
            part["nil_score"] = nil_sides["score"].to_numpy()
            part["number_score"] = counterpart["score"].to_numpy()
            part["nil_margin"] = nil_sides["margin"].to_numpy()
            part["number_margin"] = counterpart["margin"].to_numpy()
            part["side_hands"] = len(sides)
            parts.append(part)
    columns = ["config", *_SIDE_HAND, "kind", "made", "opponents_nil", "same_bids",
               "nil_score", "number_score", "nil_margin", "number_margin", "side_hands"]
    if not parts:
        table = pd.DataFrame({c: [] for c in columns})
        table["kind"] = pd.Categorical([], categories=list(NIL_KINDS))
    else:
        table = pd.concat(parts, ignore_index=True)[columns]
        table = table.sort_values(["config", *_SIDE_HAND], kind="stable").reset_index(drop=True)
    table["diff"] = table["nil_score"] - table["number_score"]
    table["margin_diff"] = table["nil_margin"] - table["number_margin"]
    return table


def _summary(rows: pd.DataFrame) -> dict:
    """The paired summary of some nil side-hands of one configuration: counts, means and the
    deal-clustered intervals of ``diff`` and ``margin_diff``."""
    deals = rows["hand_id"].to_numpy()
    diff, diff_low, diff_high, diff_p = clustered_mean(rows["diff"].to_numpy(), deals)
    margin, margin_low, margin_high, margin_p = clustered_mean(
        rows["margin_diff"].to_numpy(), deals)
    return {"n": len(rows), "made": int(rows["made"].sum()),
            "opponents_nil": int(rows["opponents_nil"].sum()),
            "same_bids": int(rows["same_bids"].sum()),
            "nil_score": rows["nil_score"].mean(), "number_score": rows["number_score"].mean(),
            "diff": diff, "diff_low": diff_low, "diff_high": diff_high, "diff_p": diff_p,
            "nil_margin": rows["nil_margin"].mean(),
            "number_margin": rows["number_margin"].mean(),
            "margin_diff": margin, "margin_low": margin_low, "margin_high": margin_high,
            "margin_p": margin_p}


def _same_plays(parts: dict) -> dict:
    """Configuration -> an earlier one whose nil side-hands and both lines' scores are
    identical on every deal (the same comparison twice), for those that repeat one."""
    values = ["duplicate", "hand_id", "side", "kind", "nil_score", "number_score",
              "nil_margin", "number_margin"]
    seen: list = []
    same = {}
    for name, rows in parts.items():
        body = rows[values].reset_index(drop=True)
        for earlier, earlier_body in seen:
            if len(body) and body.equals(earlier_body):
                same[name] = earlier
                break
        else:
            seen.append((name, body))
    return same


def nil_paired_value(df: pd.DataFrame, pairs: dict, *, side_hands=None) -> pd.DataFrame:
    """What a nil was worth against its bidder bidding a number, paired on the same deals.

    The nil side-hands of :func:`nil_side_hands` (``pairs``: nil line -> ``{side: number
    line}``), grouped by kind. These are the hands the strategy *chose* to bid nil on, a
    selection: the value holds for them, not for nil on any hand. Two measures, per nil
    side-hand: the side's own score with the nil minus its score with the number on the same
    deal (``diff``), and the same for its *margin*, its score minus the opponents' (the mean of
    the other sides' in cutthroat): ``margin_diff``, which also counts what the nil cost or
    gave the opponents. Only the bidder's side loses its nil in the counterpart; the
    opponents keep theirs. The unit of the intervals is the deal: the side-hands of one deal
    (both sides, both duplicate copies) are clustered (``analysis.clustered``).

    ``side_hands``: :func:`nil_side_hands` of ``df`` and ``pairs`` when already computed (it
    is then used instead of ``df``).

    Returns
    -------
    DataFrame
        One row per nil line and ``kind`` (:data:`NIL_KINDS`: one plain nil on the side, one
        blind nil, two nil bidders): ``config``, ``kind``, ``n`` (nil side-hands), ``share``
        (``n`` over the nil line's side-hands, with a deal-clustered Wilson 95% interval
        ``share_low``, ``share_high``), ``made`` (side-hands whose every nil was made),
        ``opponents_nil`` (side-hands in which the opponents bid nil too: they bid it in both
        lines), ``same_bids`` (side-hands in which every other seat bid the same in both lines;
        fewer than ``n`` only where the rules tie a bid to the others', as
        ``bids_total_not_tricks`` does), ``nil_score``, ``number_score`` (mean side scores of
        the two lines, points), ``diff`` with its 95% t interval ``diff_low``, ``diff_high``
        and two-sided p-value ``diff_p``; ``nil_margin``, ``number_margin``, ``margin_diff``,
        ``margin_low``, ``margin_high``, ``margin_p`` (the same for the margin); ``same_as``:
        an earlier configuration of ``pairs`` whose nil side-hands and scores are identical on
        every deal (the same comparison; empty otherwise).

    Raises
    ------
    AnalysisError
        As :func:`nil_side_hands`.

    Examples
    --------
    Side 0 bids nil at seat 0 in hand 0 and scores 150 (nil made, partner 5 of 5) against the
    opponents' 62; its number line bids 2 there and scores 70 against 62: worth +80 on that
    deal, on its own score and on the margin alike.

    >>> frame = pd.DataFrame({"config": ["n"] * 2 + ["b"] * 2, "duplicate": False,
    ...     "game_id": -1, "hand_id": 0, "seat": [0, 1] * 2, "side": [0, 1] * 2,
    ...     "bid": [0, 6, 2, 6], "nil": [True, False, False, False], "blind": False,
    ...     "tricks": [0, 7, 1, 6], "score_delta": [150, 62, 70, 62]})
    >>> table = nil_paired_value(frame, {"n": {0: "b"}})
    >>> table[["kind", "n", "made", "diff", "margin_diff"]].values.tolist()
    [['nil', 1, 1, 80.0, 80.0]]
    """
    rows = nil_side_hands(df, pairs) if side_hands is None else side_hands
    order = ["config", "kind", "n", "share", "share_low", "share_high", "made",
             "opponents_nil", "same_bids", "nil_score", "number_score", "diff", "diff_low",
             "diff_high", "diff_p", "nil_margin", "number_margin", "margin_diff", "margin_low",
             "margin_high", "margin_p", "same_as"]
    names = [str(name) for name in pairs]
    by_config = {name: rows.loc[rows["config"].to_numpy() == name] for name in names}
    same = _same_plays(by_config)
    records = []
    for name, part in by_config.items():
        if not len(part):
            continue
        total = int(part["side_hands"].iloc[0])
        for kind in NIL_KINDS:
            chosen = part.loc[part["kind"].to_numpy() == kind]
            if not len(chosen):
                continue
            record = {"config": name, "kind": kind, **_summary(chosen)}
            record.update(zip(("share", "share_low", "share_high"),
                              _share_interval(len(chosen), total)))
            record["same_as"] = same.get(name, "")
            records.append(record)
    table = pd.DataFrame(records, columns=order)
    for column in ("n", "made", "opponents_nil", "same_bids"):
        table[column] = table[column].astype(np.int64)
    return table


def _share_interval(count: int, total: int) -> tuple[float, float, float]:
    """The share ``count / total`` of side-hands with its Wilson 95% interval. The two sides
    of a deal both bid nil in a few hands only, so the side-hand is close enough to
    independent here."""
    low, high = rate_interval(count, total)
    return count / total, float(low), float(high)


def nil_marginal_value(df: pd.DataFrame, pairs: dict, ladder, *, side_hands=None
                       ) -> pd.DataFrame:
    """What the nils *added* by each step of a threshold ladder were worth.

    ``ladder`` lists configurations of ``pairs`` that differ only in how readily the strategy
    bids nil, from the fewest nils to the most (for the heuristic: increasing
    ``nil_threshold``). A side-hand is *added* at a step when it is a nil side-hand of the
    configuration but not of the one before it on the same deal (for the first, every nil
    side-hand). Per step: their count and the paired value of their nils, on the side's score
    and on its margin (as :func:`nil_paired_value`, deal-clustered 95% t intervals).
    ``side_hands``: :func:`nil_side_hands` of ``df`` and ``pairs`` when already computed.

    Returns
    -------
    DataFrame
        One row per configuration of ``ladder``: ``config``, ``previous`` (the step before,
        empty for the first), ``n`` (side-hands added), ``made``, then ``nil_score`` ..
        ``margin_p`` as in :func:`nil_paired_value`.

    Examples
    --------
    Threshold ``b`` bids nil at seat 0 in hands 0 and 1, threshold ``a`` in hand 0 only:
    hand 1 is the nil that ``b`` adds.

    >>> def rows(config, nil, bid, score):
    ...     return pd.DataFrame({"config": config, "duplicate": False, "game_id": -1,
    ...         "hand_id": [0, 0, 1, 1], "seat": [0, 1] * 2, "side": [0, 1] * 2,
    ...         "bid": bid, "nil": nil, "blind": False, "tricks": [0, 7, 1, 6],
    ...         "score_delta": score})
    >>> frame = pd.concat([rows("a", [True, False, False, False], [0, 6, 2, 6],
    ...                         [150, 62, 70, 62]),
    ...                    rows("b", [True, False, True, False], [0, 6, 0, 6],
    ...                         [150, 62, -100, 60]),
    ...                    rows("x", False, [2, 6, 2, 6], [70, 62, 70, 62])])
    >>> pairs = {"a": {0: "x"}, "b": {0: "x"}}
    >>> table = nil_marginal_value(frame, pairs, ["a", "b"])
    >>> table[["config", "previous", "n", "diff", "margin_diff"]].values.tolist()
    [['a', '', 1, 80.0, 80.0], ['b', 'a', 1, -170.0, -168.0]]
    """
    ladder = [str(name) for name in ladder]
    missing = [name for name in ladder if name not in {str(n) for n in pairs}]
    if missing:
        raise AnalysisError(f"nil_marginal_value: {', '.join(missing)} not among the "
                            f"configurations with number lines")
    rows = (nil_side_hands(df, {name: pairs[name] for name in ladder}) if side_hands is None
            else side_hands)
    records = []
    before = None
    for position, name in enumerate(ladder):
        part = rows.loc[rows["config"].to_numpy() == name]
        keys = pd.MultiIndex.from_frame(part[_SIDE_HAND])
        added = part if before is None else part.loc[~keys.isin(before)]
        record = {"config": name, "previous": ladder[position - 1] if position else ""}
        record.update(_summary(added))
        records.append(record)
        before = keys
    table = pd.DataFrame(records)
    table = table[["config", "previous", *[c for c in table.columns
                                             if c not in ("config", "previous")]]]
    for column in ("n", "made", "opponents_nil", "same_bids"):
        table[column] = table[column].astype(np.int64)
    return table
