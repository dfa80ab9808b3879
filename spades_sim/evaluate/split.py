"""Where the points of a duplicate match went: each board's difference split into its parts.

A board's ``diff`` (``match.py``) is the mean over its two plays of A's points minus B's. Every
hand's points of a side are a sum of scoring terms (``docs/rules.md``, "Scoring one hand"), so
the difference splits exactly, hand by hand, into:

- ``made``: contracts made, 10 a bid trick (200 for a made contract of 10 or more under
  ``ten_for_two_hundred``); ``set``: contracts set (the ``set_penalty``, or -200);
- ``overtricks``: overtrick points, a side's tricks when it has no contract, and a failed nil's
  tricks under ``failed_nil_tricks = "bags_only"`` (1 point each: they are bags too);
- ``blind_bids``: the bonus or loss of blind number bids (``blind_bids``);
- ``nil_won``, ``nil_lost``, ``blind_nil_won``, ``blind_nil_lost``: each nil bidder's bonus or
  loss; ``double_nil``: both partners' nil scored together (``double_nil`` ``fixed`` or
  ``doubled_no_penalty``; ``additive`` scores each nil alone, in the four terms before);
- ``bag_penalties``: the ``bag_penalty`` lost each time the counter reaches ``bag_limit``;

over the hands both plays of the board reached, and, in games mode,

- ``ending_target``, ``ending_mercy``: the points of the hands only one play reached: the other
  play's game had ended sooner, at the target or under the mercy rule.

The same hands split a second way, by how they were bid: ``bid_alike``, the hands both plays
reached where every seat bid the same (the same number, blind or not) with the same cards in
both plays, so that the difference comes from the card play given the bids (and the bag
counters the two games carry into the hand); ``bid_apart``, the other hands both plays reached;
and the two endings. Each split adds up to ``diff`` exactly on every board: the parts are
half-integers (sums over the two plays, halved), which float64 adds without rounding.

A's and B's own points per part (``a_<part>``, ``b_<part>``) come beside the difference, so
that, say, B's nils won show apart from A's.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.errors import EvaluationError
from ..core.rules import Rules
from ..core.strategies import parse_strategy
from .match import a_rows, json_number, paired_interval

#: The parts by scoring, in table order, with their labels; they add up to a board's diff.
SCORING = (
    ("made", "contracts made"),
    ("set", "contracts set"),
    ("overtricks", "overtricks (and failed-nil bags)"),
    ("blind_bids", "blind number bids"),
    ("nil_won", "nil made"),
    ("nil_lost", "nil failed"),
    ("blind_nil_won", "blind nil made"),
    ("blind_nil_lost", "blind nil failed"),
    ("double_nil", "double nil (scored together)"),
    ("bag_penalties", "bag penalties"),
    ("ending_target", "hands after a game ended: target"),
    ("ending_mercy", "hands after a game ended: mercy"),
)
#: The parts by bidding; they add up to a board's diff too.
BIDDING = (
    ("bid_alike", "hands bid alike: card play given the bids"),
    ("bid_apart", "hands bid differently"),
    ("ending_target", "hands after a game ended: target"),
    ("ending_mercy", "hands after a game ended: mercy"),
)
_HAND_PARTS = tuple(name for name, _ in SCORING[:-2])  # the terms of one hand's score
PARTS = tuple(name for name, _ in SCORING) + ("bid_alike", "bid_apart")
COLUMNS = ("config", "duplicate", "hand_id", "game_id", "seat", "side", "strategy", "bid",
           "blind", "nil", "tricks", "score_before", "bags_before", "score_delta", "bags_after",
           "game_over", "game_winner")


def side_terms(rules: Rules, bid, blind, nil, tricks, bags_before) -> tuple[np.ndarray, ...]:
    """The scoring terms of one partnership in many hands: ``bid``, ``blind``, ``nil`` and
    ``tricks`` are arrays ``[hand, 2]`` (the side's two seats), ``bags_before`` ``[hand]``.
    Returns ``(terms, bags_after)``: int64 ``[hand, part]`` in the order of the first ten
    parts of :data:`SCORING` (``made`` ... ``bag_penalties``), whose row sums are the hands'
    points, and the bag counters after the hands. The rules of ``core.scoring.score_side``,
    vectorised (the tests hold the two equal under every partnership preset)."""
    bid, tricks = bid.astype(np.int64), tricks.astype(np.int64)
    count_toward = rules.failed_nil_tricks == "count_toward_bid"
    contract = np.where(nil, 0, bid).sum(axis=1)
    contract_tricks = np.where(~nil | count_toward, tricks, 0).sum(axis=1)
    failed = nil & (tricks > 0)
    nil_bags = 0 if count_toward else np.where(failed, tricks, 0).sum(axis=1)
    terms = np.zeros((len(bid), len(_HAND_PARTS)), dtype=np.int64)
    column = {name: k for k, name in enumerate(_HAND_PARTS)}

    bonus = np.where(blind, rules.blind_nil_bonus, rules.nil_bonus).astype(np.int64)
    for part, which in (("nil_won", nil & ~blind & ~failed), ("nil_lost", nil & ~blind & failed),
                        ("blind_nil_won", nil & blind & ~failed),
                        ("blind_nil_lost", nil & blind & failed)):
        sign = -1 if part.endswith("lost") else 1
        terms[:, column[part]] = sign * np.where(which, bonus, 0).sum(axis=1)
    both = nil.all(axis=1)
    if rules.double_nil != "additive" and both.any():
        made_count = (nil & ~failed).sum(axis=1)
        if rules.double_nil == "fixed":
            together = np.where(made_count == 2, rules.double_nil_bonus,
                                np.where(made_count == 0, -rules.double_nil_bonus, 0))
        else:  # doubled_no_penalty: both made, twice the sum of their bonuses; else nothing
            together = np.where(made_count == 2, 2 * bonus.sum(axis=1), 0)
        for part in ("nil_won", "nil_lost", "blind_nil_won", "blind_nil_lost"):
            terms[both, column[part]] = 0
        terms[both, column["double_nil"]] = together[both]

    blind_number = blind & ~nil & (bid > 0)
    sign = np.where(tricks == bid, 1, -1)
    terms[:, column["blind_bids"]] = np.where(
        blind_number, sign * rules.blind_bid_bonus_per_trick * bid, 0).sum(axis=1)

    has_contract = contract > 0
    made = has_contract & (contract_tricks >= contract)
    big = rules.ten_for_two_hundred & (contract >= 10)
    terms[:, column["made"]] = np.where(made, np.where(big, 200, 10 * contract), 0)
    short = (10 * contract) if rules.set_penalty == "per_bid" else 10 * (contract
                                                                          - contract_tricks)
    terms[:, column["set"]] = np.where(has_contract & ~made, -np.where(big, 200, short), 0)
    # A side with no contract takes every contract trick as an overtrick.
    over = np.where(made, contract_tricks - contract, np.where(has_contract, 0, contract_tricks))
    terms[:, column["overtricks"]] = over * rules.overtrick_points + nil_bags

    counter = bags_before.astype(np.int64) + over + nil_bags
    if rules.bag_limit > 0:
        crossings = counter // rules.bag_limit
        terms[:, column["bag_penalties"]] = -crossings * rules.bag_penalty
        counter = counter - crossings * rules.bag_limit
    return terms, counter


def _by_hand(rows: pd.DataFrame, rules: Rules, games: bool) -> pd.DataFrame:
    """One row per played hand (of either copy): its board, its place in the game, A's and
    B's scoring terms, the bids by physical seat and the totals, checked against the record."""
    rows = rows.sort_values(["duplicate", "game_id", "hand_id", "seat"], kind="stable")
    n = len(rows) // 4
    seat = rows["seat"].to_numpy().reshape(n, 4) if len(rows) % 4 == 0 else None
    if seat is None or (seat != np.arange(4)).any():
        raise EvaluationError("the split of the points needs all four seats of every hand "
                              "(a partnership match's frame)")

    def grid(name):
        return rows[name].to_numpy().reshape(n, 4)

    bid, blind, nil, tricks = grid("bid"), grid("blind"), grid("nil"), grid("tricks")
    hand = pd.DataFrame({"duplicate": grid("duplicate")[:, 0], "hand_id": grid("hand_id")[:, 0],
                         "game_id": grid("game_id")[:, 0]})
    for side, who in ((0, "a"), (1, "b")):
        seats = [side, side + 2]
        terms, bags_after = side_terms(rules, bid[:, seats], blind[:, seats], nil[:, seats],
                                        tricks[:, seats], grid("bags_before")[:, side])
        delta = grid("score_delta")[:, side].astype(np.int64)
        wrong = (terms.sum(axis=1) != delta) | (bags_after != grid("bags_after")[:, side])
        if wrong.any():
            k = int(np.argmax(wrong))
            raise EvaluationError(
                f"hand {hand['hand_id'].iat[k]} (game {hand['game_id'].iat[k]}): its scoring "
                f"terms give {int(terms[k].sum()):+d} points and {int(bags_after[k])} bags, the "
                f"record {int(delta[k]):+d} and {int(grid('bags_after')[k, side])}; were these "
                f"hands played under rules {rules.preset_name}?")
        for k, part in enumerate(_HAND_PARTS):
            hand[f"{who}_{part}"] = terms[:, k]
        hand[f"{who}_total"] = delta
        hand[f"{who}_before"] = grid("score_before")[:, side].astype(np.int64)
    # Bids by physical seat: a duplicate copy is stored at its strategies' home seats, and home
    # seat h of the copy played physical seat h - 1 (``run/memory.py``), which held the cards
    # physical seat h - 1 held in the first copy.
    copy = hand["duplicate"].to_numpy().astype(bool)
    code = bid.astype(np.int64) + 64 * blind.astype(np.int64)  # (a bid is at most 17)
    code[copy] = np.roll(code[copy], -1, axis=1)
    hand["bids"] = (code << np.array([0, 7, 14, 21])).sum(axis=1)  # one number per hand
    if games:
        hand["board"] = hand["game_id"]
        hand["index"] = hand.groupby(["duplicate", "game_id"]).cumcount()
        over = grid("game_over")[:, 0].astype(bool)
        hand["over"] = over
    else:
        hand["board"] = hand["hand_id"]
        hand["index"] = 0
        hand["over"] = True
    return hand


def points_split(frame: pd.DataFrame, a, b, rules: Rules, *, games: bool | None = None,
                 config: str | None = None) -> pd.DataFrame:
    """Each board's difference split by where the points went (the module docstring).

    ``frame``: a partnership match's tidy frame (``run.load_run`` of its run, at least the
    columns :data:`COLUMNS`, every hand of every game); ``a``, ``b``: the strategies (as for
    ``match.match_result``); ``rules``: the rules it was played under (every hand's terms are
    checked to give its recorded points and bags under them); ``games``: games mode (default:
    whether any row ends a game); ``config``: keep that configuration's rows only.

    Returns one row per complete board (the boards of ``match.match_boards``, indexed alike):
    for each part ``p`` of :data:`PARTS` the column ``p`` (A's points minus B's, per board: the
    mean over the two plays), ``a_p`` and ``b_p`` (A's and B's); ``diff``, the board's
    difference (the parts of :data:`SCORING` add up to it exactly, and so do those of
    :data:`BIDDING`); ``hands_alike``, ``hands_apart`` and ``hands_ending``: hands (counted
    per play) bid alike, bid differently, and reached by one play only.
    """
    if not isinstance(rules, Rules):
        raise EvaluationError(f"rules: expected a Rules object, found {type(rules).__name__}")
    if not rules.partnership:
        raise EvaluationError(f"rules {rules.preset_name}: the split of the points is for "
                              f"partnership (duplicate) matches")
    missing = [name for name in COLUMNS if name not in frame.columns]
    if missing:
        raise EvaluationError(f"the split of the points needs the columns {', '.join(missing)}")
    a, b = str(parse_strategy(a)), str(parse_strategy(b))
    if config is not None:
        frame = frame[frame["config"].astype(str) == config]
    if games is None:
        games = bool(frame["game_over"].any())
    if len(frame) == 0:
        return _empty()
    if not frame["duplicate"].any():
        raise EvaluationError("the frame holds no duplicate copy: not a duplicate match's frame")
    a_rows(frame, a, b)  # (A on side 0 of both copies, checked against the strategy column)
    hand = _by_hand(frame, rules, games)

    # Boards whose two plays are both complete (ended, in games mode), as match_boards keeps.
    ended = hand[hand["over"]]
    plays = ended.groupby("board")["duplicate"].nunique()
    boards = np.sort(plays.index[plays.to_numpy() == 2].to_numpy())
    hand = hand[hand["board"].isin(boards)]
    if games:
        _check_whole_games(hand)
    reached = hand.groupby(["board", "index"])["duplicate"].transform("nunique").to_numpy()
    paired = reached == 2

    parts = {}
    for who in ("a", "b"):
        for part in _HAND_PARTS:
            parts[f"{who}_{part}"] = np.where(paired, hand[f"{who}_{part}"].to_numpy(), 0)
        total = hand[f"{who}_total"].to_numpy()
        alike = _alike(hand) & paired
        parts[f"{who}_bid_alike"] = np.where(alike, total, 0)
        parts[f"{who}_bid_apart"] = np.where(paired & ~alike, total, 0)
        kind = _ending_kind(hand, rules) if games else np.zeros(len(hand), dtype=np.int8)
        parts[f"{who}_ending_target"] = np.where(~paired & (kind == 0), total, 0)
        parts[f"{who}_ending_mercy"] = np.where(~paired & (kind == 1), total, 0)
    sums = pd.DataFrame(parts).groupby(hand["board"].to_numpy()).sum()
    sums = sums.reindex(boards, fill_value=0)
    out = pd.DataFrame(index=pd.Index(boards, name="game_id" if games else "hand_id"))
    for part in PARTS:
        a_sum, b_sum = sums[f"a_{part}"].to_numpy(), sums[f"b_{part}"].to_numpy()
        out[part] = (a_sum - b_sum) / 2.0  # half-integers: exact in float64
        out[f"a_{part}"] = a_sum / 2.0
        out[f"b_{part}"] = b_sum / 2.0
    total = pd.Series(hand["a_total"].to_numpy() - hand["b_total"].to_numpy())
    out["diff"] = (total.groupby(hand["board"].to_numpy()).sum().reindex(boards, fill_value=0)
                   .to_numpy() / 2.0)
    counts = pd.DataFrame({"hands_alike": alike, "hands_apart": paired & ~alike,
                           "hands_ending": ~paired}).groupby(hand["board"].to_numpy()).sum()
    for name in counts.columns:
        out[name] = counts[name].reindex(boards, fill_value=0).to_numpy().astype(np.int64)
    return out


def _empty() -> pd.DataFrame:
    columns = [c for part in PARTS for c in (part, f"a_{part}", f"b_{part}")] + ["diff"]
    out = pd.DataFrame({name: pd.Series(dtype=float) for name in columns})
    for name in ("hands_alike", "hands_apart", "hands_ending"):
        out[name] = pd.Series(dtype=np.int64)
    return out


def _check_whole_games(hand: pd.DataFrame) -> None:
    """Every kept game starts from zero scores and holds every hand (each hand's score before
    is the last one's score after), else a one-line error: the split needs whole games."""
    for who in ("a", "b"):
        before = hand[f"{who}_before"].to_numpy()
        after = before + hand[f"{who}_total"].to_numpy()
        first = hand["index"].to_numpy() == 0
        previous = np.r_[0, after[:-1]]
        wrong = np.where(first, before != 0, before != previous)
        if wrong.any():
            k = int(np.argmax(wrong))
            raise EvaluationError(f"game {hand['game_id'].iat[k]}: hand {hand['hand_id'].iat[k]}"
                                  f" does not follow the game's previous hand; the split of "
                                  f"the points needs every hand of every game")


def _alike(hand: pd.DataFrame) -> np.ndarray:
    """Whether each hand's four bids (by physical seat) equal those of the same hand of the
    board in the other play (False where the other play did not reach it)."""
    key = hand[["board", "index"]].copy()
    key["bids"] = hand["bids"]
    first = key[~hand["duplicate"].to_numpy().astype(bool)].set_index(["board", "index"])["bids"]
    second = key[hand["duplicate"].to_numpy().astype(bool)].set_index(["board", "index"])["bids"]
    same = first.index.intersection(second.index)
    equal = pd.Series(first.loc[same].to_numpy() == second.loc[same].to_numpy(), index=same)
    index = pd.MultiIndex.from_frame(hand[["board", "index"]])
    return equal.reindex(index, fill_value=False).to_numpy().astype(bool)


def _ending_kind(hand: pd.DataFrame, rules: Rules) -> np.ndarray:
    """For each hand: 0 where the board's shorter play ended at the target, 1 under the mercy
    rule (what kept the other play from reaching the hand; meaningful on unpaired hands)."""
    last = hand[hand["over"]]
    final_a = (last["a_before"] + last["a_total"]).to_numpy()
    final_b = (last["b_before"] + last["b_total"]).to_numpy()
    length = last["index"].to_numpy() + 1
    by_play = pd.DataFrame({"board": last["board"].to_numpy(), "length": length,
                            "top": np.maximum(final_a, final_b),
                            "bottom": np.minimum(final_a, final_b)})
    shorter = by_play.sort_values(["board", "length"]).drop_duplicates("board")
    if rules.mercy is None:
        mercy = np.zeros(len(shorter), dtype=bool)
    else:  # (a game that ended with a side at the target ended there, mercy or not)
        mercy = ((shorter["top"].to_numpy() < rules.target)
                 & (shorter["bottom"].to_numpy() <= rules.mercy))
    kind = pd.Series(mercy.astype(np.int8), index=shorter["board"].to_numpy())
    return kind.reindex(hand["board"].to_numpy()).to_numpy()


# -- the summary table ---------------------------------------------------------------------------
def split_summary(split: pd.DataFrame) -> pd.DataFrame:
    """Each part's mean per board: A's points, B's, the difference and its 95% t interval (the
    board as unit), one row per part (``view`` ``scoring``, ``bidding``, then ``total``; the
    endings are listed once, under ``scoring``); ``shown`` is False for scoring parts that are
    0 for both sides on every board."""
    rows = []
    for view, parts in (("scoring", SCORING), ("bidding", BIDDING)):
        for part, label in parts:
            if view == "bidding" and part.startswith("ending"):
                continue  # (listed once, under scoring; both splits include them)
            mean, low, high = paired_interval(split[part].to_numpy())
            shown = view == "bidding" or bool((split[f"a_{part}"] != 0).any()
                                              or (split[f"b_{part}"] != 0).any())
            rows.append({"view": view, "part": part, "label": label,
                         "a": float(split[f"a_{part}"].mean()) if len(split) else float("nan"),
                         "b": float(split[f"b_{part}"].mean()) if len(split) else float("nan"),
                         "diff": mean, "low": low, "high": high, "shown": shown})
    mean, low, high = paired_interval(split["diff"].to_numpy())
    a_total = sum(split[f"a_{p}"] for p, _ in SCORING)
    b_total = sum(split[f"b_{p}"] for p, _ in SCORING)
    rows.append({"view": "total", "part": "diff", "label": "total: the board's difference",
                 "a": float(a_total.mean()) if len(split) else float("nan"),
                 "b": float(b_total.mean()) if len(split) else float("nan"),
                 "diff": mean, "low": low, "high": high, "shown": True})
    return pd.DataFrame(rows)


def split_to_dict(split: pd.DataFrame) -> dict:
    """The summary as JSON-ready data: ``boards`` and, per part, its mean per board for A and
    for B, the difference and its 95% interval."""
    summary = split_summary(split)
    hands = {name: int(split[name].sum()) for name in ("hands_alike", "hands_apart",
                                                       "hands_ending")}
    return {"boards": len(split), "hands": hands,
            "parts": [{"view": row.view, "part": row.part, "a": json_number(row.a),
                       "b": json_number(row.b), "diff": json_number(row.diff),
                       "ci95": [json_number(row.low), json_number(row.high)]}
                      for row in summary.itertuples()]}


def format_split(split: pd.DataFrame) -> str:
    """The summary as a compact text table (parts that are 0 on every board left out)."""
    summary = split_summary(split)
    width = max(len(label) for label in summary["label"]) + 2
    head = (f"where the points went, mean per board over {len(split)} boards (A - B with its "
            f"95% t interval, the board as unit):")
    lines = [head, f"  {'':<{width}}{'A':>9}{'B':>9}{'A - B':>9}  95% interval"]

    def line(row):
        interval = ("" if row.low != row.low
                    else f"[{row.low:+.1f}, {row.high:+.1f}]")
        return (f"  {row.label:<{width}}{row.a:>+9.1f}{row.b:>+9.1f}{row.diff:>+9.1f}  "
                f"{interval}")

    endings = summary[summary["part"].str.startswith("ending")]["shown"].any()
    by_bidding = ("the same, by bidding (with the hands after a game ended, these add up to "
                  "the total too):" if endings else "the same, by bidding (these add up to the "
                                                    "total too):")
    for view, title in (("scoring", None), ("total", None), ("bidding", by_bidding)):
        if title:
            lines.append(f"  {title}")
        lines += [line(row) for row in summary[summary["view"] == view].itertuples()
                  if row.shown]
    hands = {name: int(split[name].sum()) for name in ("hands_alike", "hands_apart",
                                                       "hands_ending")}
    played = sum(hands.values())
    if played:
        lines.append(f"  (hands played: {played}: bid alike in both plays "
                     f"{hands['hands_alike']}, differently {hands['hands_apart']}, reached by "
                     f"one play only {hands['hands_ending']};")
        lines.append("  parts that are 0 on every board are left out)")
    return "\n".join(lines)


def format_splits(splits) -> str:
    """One compact table of several matches' splits (a tournament's pairings): ``splits`` is a
    list of ``(label, split)``; each cell is A - B per board +- the half-width of its 95% t
    interval; a row that is 0 in every pairing is left out."""
    summaries = [(label, split_summary(split).set_index("part")) for label, split in splits]
    cell = 15
    order = [(part, label) for part, label in SCORING] + [("diff", "total: the board's "
                                                                    "difference")]
    order += [(part, label) for part, label in BIDDING if not part.startswith("ending")]
    width = max(len(label) for _, label in order) + 2
    lines = ["where the points went: A - B per board, pairing (A-B) by column, +- the "
             "half-width of its 95% t interval:",
             f"  {'':<{width}}" + "".join(f"{label:>{cell}}" for label, _ in summaries)]
    for part, label in order:
        if not any(summary.at[part, "shown"] for _, summary in summaries):
            continue
        cells = []
        for _, summary in summaries:
            diff, low, high = (summary.at[part, key] for key in ("diff", "low", "high"))
            half = (high - low) / 2
            text = f"{diff:+.1f}" if half != half else f"{diff:+.1f}+-{half:.1f}"
            cells.append(f"{text:>{cell}}")
        lines.append(f"  {label:<{width}}" + "".join(cells))
    return "\n".join(lines)
