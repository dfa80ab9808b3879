"""Analysis functions (bids, nil, effects, metrics): hand-computed values on tiny hand-written
frames, and properties of one small simulated run (built once per module)."""

from math import comb, sqrt

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from spades_sim.analysis import bids, effects, nil
from spades_sim.analysis.metrics import (
    adjust_pvalues,
    exact_interval,
    interval_from_moments,
    mcnemar_exact,
    paired_binary_difference,
    rate_interval,
    t_quantile,
    wilson_interval,
)
from spades_sim.core.rules import preset
from spades_sim.core.schema import TIDY_COLUMNS
from spades_sim.run import make_config, simulate

MIXED = ["heuristic", "random", "heuristic:aggression=1", "random:bid_max=6"]
Z = 1.959963984540054


# -- tiny hand-written frames ---------------------------------------------------------------------
def tidy(rows, players=4, count_toward_bid=False):
    """A tidy frame from ``rows`` (dicts of a few columns); side contract and taken tricks are
    computed from bids as the engine does (failed-nil tricks count only with
    ``count_toward_bid``), every other column gets a default."""
    defaults = {"config": "c", "duplicate": False, "chunk": 0, "game_id": -1, "rules": "classic",
                "dealer": 0, "strategy": "s", "bid": 0, "blind": False, "nil": False,
                "bumped": False, "tricks": 0, "score_before": 0, "bags_before": 0,
                "score_delta": 0, "bags_after": 0, "spades": 3, "high_cards": 3, "hcp": 10,
                "voids": 0, "singletons": 0, "longest": 4, "game_over": False,
                "game_winner": -1}
    frame = pd.DataFrame([{**defaults, **row} for row in rows])
    frame["side"] = frame["seat"] % 2 if players == 4 else frame["seat"]
    key = ["config", "duplicate", "game_id", "hand_id", "side"]
    counts = ~frame["nil"] | count_toward_bid
    frame["_contract"] = np.where(frame["nil"], 0, frame["bid"])
    frame["_taken"] = np.where(counts, frame["tricks"], 0)
    grouped = frame.groupby(key)
    frame["side_contract"] = grouped["_contract"].transform("sum")
    frame["side_taken"] = grouped["_taken"].transform("sum")
    for column in ("config", "rules", "strategy"):
        frame[column] = frame[column].astype("category")
    return frame[list(TIDY_COLUMNS)]


def seat_rows(hand_id, bids, tricks, nil_seats=(), **common):
    return [{"hand_id": hand_id, "seat": seat, "bid": bid, "tricks": taken,
             "nil": seat in nil_seats, **common}
            for seat, (bid, taken) in enumerate(zip(bids, tricks))]


@pytest.fixture(scope="module")
def bidding():
    """Two hands; strategy h at seats 0 and 2 (side 0), r at seats 1 and 3 (side 1).

    hand 0: bids 3, 4, 2, nil; tricks 3, 9, 1, 0: seat 0 exact, 1 over, 2 under; side 0
    contract 5 taken 4 (set), side 1 contract 4 taken 9 (5 bags).
    hand 1: bids 5, 2, 3, 1; tricks 5, 2, 5, 1: exact, exact, over, exact; side 0 contract 8
    taken 10 (2 bags), side 1 contract 3 taken 3.
    """
    rows = seat_rows(0, [3, 4, 2, 0], [3, 9, 1, 0], nil_seats=(3,))
    rows += seat_rows(1, [5, 2, 3, 1], [5, 2, 5, 1])
    spades = [4, 3, 4, 2, 5, 3, 3, 2]
    for row, count in zip(rows, spades):
        row["strategy"] = "h" if row["seat"] % 2 == 0 else "r"
        row["spades"] = count
    return tidy(rows)


def test_bid_accuracy_by_strategy(bidding):
    table = bids.bid_accuracy(bidding)
    assert list(table.columns[:3]) == ["config", "strategy", "n"]
    table = table.set_index("strategy")
    assert table.loc["h", ["n", "exact", "over", "under"]].tolist() == [4, 2, 1, 1]
    assert table.loc["r", ["n", "exact", "over", "under"]].tolist() == [3, 2, 1, 0]
    assert table.loc["h", "exact_rate"] == 0.5
    assert table.loc["r", "under_rate"] == 0.0
    low, high = exact_interval(2, 3)  # 2 of 3: fewer than 5 events, the exact interval
    assert table.loc["r", "exact_rate_low"] == pytest.approx(low)
    assert table.loc["r", "exact_rate_high"] == pytest.approx(high)
    assert table.loc["h", ["side_hands", "contracts", "sets"]].tolist() == [2, 2, 1]
    assert table.loc["r", ["side_hands", "contracts", "sets"]].tolist() == [2, 2, 0]
    assert table.loc["h", "set_rate"] == 0.5 and table.loc["r", "set_rate"] == 0.0
    assert table.loc["h", "overtricks_per_hand"] == 1.0
    assert table.loc["r", "overtricks_per_hand"] == 2.5
    # overtricks per side-hand: h [0, 2], r [5, 0]: normal interval of the mean
    half = Z * np.std([5, 0], ddof=1) / sqrt(2)
    assert table.loc["r", "overtricks_per_hand_low"] == pytest.approx(2.5 - half)
    assert table.loc["r", "overtricks_per_hand_high"] == pytest.approx(2.5 + half)
    # No failed nil: the bags added are the overtricks.
    assert table["bags_added_per_hand"].tolist() == table["overtricks_per_hand"].tolist()


def test_bid_accuracy_columns_and_other_keys(bidding):
    table = bids.bid_accuracy(bidding, by=("config",))
    assert list(table.columns[:2]) == ["config", "n"]
    for name in ("exact_rate", "over_rate", "under_rate", "set_rate", "overtricks_per_hand",
                 "bags_added_per_hand"):
        assert {f"{name}_low", f"{name}_high"} <= set(table.columns)
    row = table.iloc[0]
    assert [row["n"], row["exact"], row["over"], row["under"]] == [7, 4, 2, 1]
    assert [row["side_hands"], row["sets"], row["overtricks_per_hand"]] == [4, 1, 1.75]
    by_bid = bids.bid_accuracy(bidding, by=("config", "bid")).set_index("bid")
    assert by_bid.loc[3, "n"] == 2 and by_bid.loc[3, "exact"] == 1  # seat 0 h0, seat 2 h1
    everything = bids.bid_accuracy(bidding, by=())
    assert everything["n"].tolist() == [7]


def test_tricks_minus_bid(bidding):
    table = bids.tricks_minus_bid(bidding, by=("config",))
    assert list(table.columns) == ["config", "diff", "n", "share", "share_low", "share_high"]
    assert table["diff"].tolist() == [-1, 0, 2, 5]
    assert table["n"].tolist() == [1, 4, 1, 1]
    assert table["share"].tolist() == pytest.approx([1 / 7, 4 / 7, 1 / 7, 1 / 7])
    per_strategy = bids.tricks_minus_bid(bidding)
    assert per_strategy.groupby("strategy", observed=True)["share"].sum().tolist() == \
        pytest.approx([1, 1])


def test_bid_calibration(bidding):
    table = bids.bid_calibration(bidding, by=("config",)).set_index("spades")
    assert table.index.tolist() == [2, 3, 4, 5]
    assert table["n"].tolist() == [1, 3, 2, 1]
    assert table.loc[4, "mean_bid"] == 2.5 and table.loc[4, "mean_tricks"] == 2.0
    assert table.loc[3, "mean_bid"] == 3.0 and table.loc[3, "mean_tricks"] == pytest.approx(16 / 3)
    half = Z * np.std([3, 2], ddof=1) / sqrt(2)
    assert table.loc[4, "mean_bid_low"] == pytest.approx(2.5 - half)
    assert np.isnan(table.loc[5, "mean_bid_low"])  # one bid: no interval
    with pytest.raises(ValueError, match="feature"):
        bids.bid_calibration(bidding, feature="jokers")
    with pytest.raises(ValueError, match="lacks column"):
        bids.bid_accuracy(bidding.drop(columns="side_taken"))


@pytest.fixture(scope="module")
def nils():
    """hand 0: seat 0 nil made, partner (seat 2) bid 4; hand 1: seats 0 and 2 both nil, seat 0
    fails (2 tricks), seat 2 makes; hand 2: seat 1 blind nil made, partner (seat 3) bid 6."""
    rows = seat_rows(0, [0, 3, 4, 4], [0, 4, 5, 4], nil_seats=(0,))
    rows += seat_rows(1, [0, 5, 0, 5], [2, 6, 0, 5], nil_seats=(0, 2))
    rows += seat_rows(2, [3, 0, 3, 6], [3, 0, 3, 7], nil_seats=(1,))
    rows[9]["blind"] = True
    for row, count in zip(rows, [1, 3, 3, 4, 2, 3, 0, 5, 3, 1, 4, 4]):
        row["spades"] = count
    return tidy(rows)


def test_nil_success(nils):
    table = nil.nil_success(nils)
    assert table[["blind", "n", "made"]].values.tolist() == [[False, 3, 2], [True, 1, 1]]
    assert table["rate"].tolist() == pytest.approx([2 / 3, 1.0])
    assert table["rate_high"].iloc[1] == 1.0
    low, high = exact_interval(2, 3)  # few events: Clopper-Pearson, not Wilson
    assert table[["rate_low", "rate_high"]].iloc[0].tolist() == pytest.approx([low, high])


def test_nil_by_feature_and_partner_bid(nils):
    feature = nil.nil_by_feature(nils, "spades")
    assert feature[["spades", "n", "made"]].values.tolist() == [[0, 1, 1], [1, 2, 2], [2, 1, 0]]
    partner = nil.nil_by_partner_bid(nils)
    assert list(partner.columns[:2]) == ["config", "partner_bid"]
    assert partner[["partner_bid", "n", "made"]].astype(object).values.tolist() == [
        ["nil", 2, 1], ["4", 1, 1], ["6", 1, 1]]
    assert partner["partner_bid"].cat.ordered
    individual = tidy(seat_rows(0, [0, 3, 4], [0, 4, 5], nil_seats=(0,)), players=3)
    assert nil.nil_by_partner_bid(individual).empty


def test_bags_added_count_what_the_rules_count():
    """Hand-computed bags added to the counter, by the rules' failed_nil_tricks.

    Hand 0: side 0 bids 4 and nil, takes 3 and 2 (the nil fails); side 1 bids 3 + 3, takes 5
    + 3. Under bags_only (classic): side 0's contract tricks are 3 (set, no overtrick) and the
    nil's 2 tricks are 2 bags; under count_toward_bid they make the contract 5 of 4: 1
    overtrick, 1 bag. Side 1: 2 overtricks, 2 bags either way. Hand 1: side 0 bids nil and
    nil and both fail with 1 and 2 tricks (contract 0): 3 bags under either rule (under
    bags_only as failed-nil tricks, under count_toward_bid as overtricks of a 0 contract).
    scoring.score_hand agrees (its bag counters from 0).
    """
    from spades_sim.analysis.metrics import side_bags
    from spades_sim.core.scoring import score_hand

    hands = [([4, 3, 0, 3], [3, 5, 2, 3], (2,)), ([0, 6, 0, 4], [1, 6, 2, 4], (0, 2))]
    expected = {False: ([0, 2, 0, 2], [0, 0, 0, 0]), True: ([1, 2, 1, 2], [3, 0, 3, 0])}
    for toward, (overtricks_0, overtricks_1) in expected.items():
        rows = []
        for hand_id, (bids_, tricks, nil_seats) in enumerate(hands):
            rows += seat_rows(hand_id, bids_, tricks, nil_seats=nil_seats)
        frame = tidy(rows, count_toward_bid=toward)
        overtricks, added = side_bags(frame)
        assert overtricks.tolist()[:4] == overtricks_0 and overtricks.tolist()[4:] == overtricks_1
        wanted = {False: [2, 2, 2, 2, 3, 0, 3, 0], True: [1, 2, 1, 2, 3, 0, 3, 0]}[toward]
        assert added.tolist() == wanted
        rules = preset("classic", failed_nil_tricks="count_toward_bid" if toward
                       else "bags_only")
        for hand_id, (bids_, tricks, _) in enumerate(hands):
            _, bags_after = score_hand(rules, bids_, [0] * 4, tricks, [0, 0])
            assert bags_after == added.tolist()[4 * hand_id:4 * hand_id + 2]
        # (a copy of the frame as configuration "d": the baseline is not compared with itself)
        pair = pd.concat([frame, frame.assign(config="d")], ignore_index=True)
        pair["config"] = pair["config"].astype("category")
        table = effects.paired_effects(pair, "c", metrics=["bags_added", "overtricks"])
        assert set(table["config"]) == {"d"} and (table["diff"] == 0).all()
        means = table.set_index("metric")["config_mean"]
        assert means["bags_added"] == pytest.approx(sum(wanted[:2] + wanted[4:6]) / 4)
        assert means["overtricks"] == pytest.approx(
            (sum(overtricks_0[:2]) + sum(overtricks_1[:2])) / 4)
        accuracy = bids.bid_accuracy(frame, by=("config",)).iloc[0]
        # The side-hands with a number bidder: hand 0 both sides, hand 1 side 1 only.
        assert accuracy["bags_added_per_hand"] == pytest.approx(
            (wanted[0] + wanted[1] + wanted[5]) / 3)


def test_nil_paired_value_hand_computed():
    """Nil line n against its number lines b0 (side 0 without nil) and b1 (side 1), three
    deals (4 seats, sides 0/2 and 1/3).

    Hand 0: seat 0 bids nil and makes it; side 0 scores 150 (b0: 70): +80. Hand 1: seat 1
    bids nil and fails; side 1 scores -80 (b1: 50): -130; side 0 (no nil) is left out though
    its score changed. Hand 2: no nil anywhere: left out. Mean (80 - 130) / 2 = -25, t
    interval with 1 degree of freedom (two deals); 2 nil side-hands of 6: share 1/3.
    """
    def hand(config, hand_id, scores, nil_seat=None, tricks=(3, 3, 3, 4)):
        rows = seat_rows(hand_id, [3, 3, 3, 3], list(tricks), config=config,
                         nil_seats=() if nil_seat is None else (nil_seat,))
        for row in rows:
            row["score_delta"] = scores[row["seat"] % 2]
            row["bid"] = 0 if row["nil"] else 3
        return rows

    rows = hand("n", 0, (150, 60), 0, (0, 3, 5, 5)) + hand("n", 1, (30, -80), 1, (4, 2, 4, 3))
    rows += hand("n", 2, (60, 70))
    # Each number line keeps the other side's nil: b0 seat 1's in hand 1, b1 seat 0's in 0.
    rows += hand("b0", 0, (70, 60)) + hand("b0", 1, (60, 50), 1) + hand("b0", 2, (60, 70))
    rows += hand("b1", 0, (70, 60), 0) + hand("b1", 1, (60, 50)) + hand("b1", 2, (60, 70))
    frame = tidy(rows)
    table = nil.nil_paired_value(frame, {"n": {0: "b0", 1: "b1"}})
    assert len(table) == 1
    row = table.iloc[0]
    assert [row["config"], row["kind"]] == ["n", "nil"]
    assert [row["n"], row["made"], row["opponents_nil"]] == [2, 1, 0]
    assert row["share"] == pytest.approx(1 / 3)
    assert [row["nil_score"], row["number_score"], row["diff"]] == [35.0, 60.0, -25.0]
    half = 12.706204736174705 * np.std([80, -130], ddof=1) / sqrt(2)  # t(0.975, 1)
    assert row["diff_low"] == pytest.approx(-25 - half, rel=1e-6)
    assert row["diff_high"] == pytest.approx(-25 + half, rel=1e-6)
    with pytest.raises(ValueError, match="not a number line"):
        nil.nil_paired_value(frame, {"b1": {0: "n"}})
    with pytest.raises(ValueError, match="same hands"):
        nil.nil_paired_value(frame[frame["hand_id"] != 2].loc[lambda f: (
            f["config"] == "n") | (f["hand_id"] != 1)], {"n": {0: "b0", 1: "b1"}})


def test_mcnemar_and_the_paired_difference_on_a_hand_made_table():
    """Paired binary outcomes on 200 deals: 2 with the event under the configuration only,
    12 under the baseline only (the 186 concordant deals do not matter)."""
    # Two-sided exact p: 2 P(X <= 2), X ~ Binomial(14, 1/2) = 2 (1 + 14 + 91) / 2^14.
    assert mcnemar_exact(2, 12) == pytest.approx(2 * (1 + 14 + 91) / 2**14, rel=1e-12)
    assert mcnemar_exact(2, 12) == pytest.approx(stats.binomtest(2, 14).pvalue, rel=1e-12)
    # mid-p: less the probability of the observed split, 2 * 91 / 2^14 / 2.
    assert mcnemar_exact(2, 12, mid_p=True) == pytest.approx((2 * (1 + 14 + 91) - 91) / 2**14)
    assert mcnemar_exact(0, 0) == 1.0 and mcnemar_exact(5, 5) == 1.0
    diff, low, high = paired_binary_difference(2, 12, 200)
    assert diff == -10 / 200 and low < diff < high < 0
    assert paired_binary_difference(0, 0, 50)[0] == 0.0


def test_adjust_pvalues_holm_and_bh_on_known_values():
    p = [0.005, 0.018, 0.03, 0.036, 0.20]
    holm, reject = adjust_pvalues(p, "holm")
    # Holm: sorted p times (m, m-1, ...), made monotone: 0.025, 0.072, 0.09, 0.09, 0.20.
    assert holm == pytest.approx([0.025, 0.072, 0.09, 0.09, 0.20])
    assert reject.tolist() == [True, False, False, False, False]
    bh, reject = adjust_pvalues(p, "fdr_bh")
    # BH: p * m / rank (0.025, 0.045, 0.05, 0.045, 0.2), made monotone from the top.
    assert bh == pytest.approx([0.025, 0.045, 0.045, 0.045, 0.20])
    assert reject.tolist() == [True, True, True, True, False]
    adjusted, reject = adjust_pvalues([0.001, float("nan"), 0.5])
    assert np.isnan(adjusted[1]) and not reject[1] and adjusted[0] == pytest.approx(0.002)
    with pytest.raises(ValueError, match="method"):
        adjust_pvalues(p, "bonferonni")


def test_paired_effects_hand_computed():
    """Two players (seat = side). base: hand scores (50, -40), (30, 30), (-60, 20); alt:
    (60, -40), (30, 40), (-60, 50): per-hand means 5, 30, -20 and 10, 35, -5 (diffs 5, 5, 15).
    base hand 0 side 0 is set, side 1 takes 2 bags; alt makes it; alt bids nil in hand 1."""
    def hands(config, scores, first_bids, first_tricks, nil_hand=None):
        rows = []
        for hand_id, (score, bid, taken) in enumerate(zip(scores, first_bids, first_tricks)):
            nil_seats = (0,) if hand_id == nil_hand else ()
            part = seat_rows(hand_id, [bid, 4], [taken, 6 if hand_id == 0 else 4], nil_seats,
                             config=config)
            for row, delta in zip(part, score):
                row["score_delta"] = delta
            rows += part
        return rows

    rows = hands("base", [(50, -40), (30, 30), (-60, 20)], [3, 3, 3], [2, 3, 3])
    rows += hands("alt", [(60, -40), (30, 40), (-60, 50)], [3, 0, 3], [3, 0, 3], nil_hand=1)
    # Left out: another copy, a games-mode hand, a configuration with three seats.
    rows += [{**row, "duplicate": True, "score_delta": 999} for row in rows[:2]]
    rows += [{**row, "game_id": 0, "score_delta": 999} for row in rows[:2]]
    frame = tidy(rows, players=2)
    three = tidy(seat_rows(0, [1, 1, 1], [1, 1, 1], config="three"), players=3)
    frame = pd.concat([frame, three], ignore_index=True)
    table = effects.paired_effects(frame, "base").set_index(["config", "metric"])
    assert list(effects.paired_effects(frame, "base").columns[:4]) == [
        "config", "baseline", "metric", "n"]
    assert "three" not in table.index.get_level_values("config")
    score = table.loc[("alt", "score")]
    assert score["n"] == 3 and score["baseline"] == "base"
    assert score["baseline_mean"] == pytest.approx(5.0)
    assert score["config_mean"] == pytest.approx(40 / 3)
    assert score["diff"] == pytest.approx(25 / 3)
    half = 4.302652729911275 * np.std([5, 5, 15], ddof=1) / sqrt(3)  # t(0.975, 2)
    assert score["diff_low"] == pytest.approx(25 / 3 - half, rel=1e-9)
    assert score["diff_high"] == pytest.approx(25 / 3 + half, rel=1e-9)
    assert table.loc[("alt", "set"), "diff"] == pytest.approx(-1 / 6)
    assert table.loc[("alt", "set"), "baseline_mean"] == pytest.approx(1 / 6)
    assert table.loc[("alt", "bags_added"), "diff"] == 0.0
    assert table.loc[("alt", "overtricks"), "diff"] == 0.0
    assert table.loc[("alt", "nil"), "diff"] == pytest.approx(1 / 6)
    # Binary metrics: the t interval of the per-hand differences (set: -1/2, 0, 0 per hand)
    # and McNemar's test on the discordant units (one side-hand of six set under base only).
    assert [table.loc[("alt", m), "method"] for m in ("score", "set", "nil")] == [
        "t", "mcnemar", "mcnemar"]
    exact = table.loc[("alt", "set")]
    assert (exact["gains"], exact["losses"], exact["diff_p"]) == (0, 1, 1.0)
    half = 4.302652729911275 * np.std([-0.5, 0, 0], ddof=1) / sqrt(3)
    assert exact["diff_low"] == pytest.approx(-1 / 6 - half)
    assert exact["diff_high"] == pytest.approx(-1 / 6 + half)
    assert (table.loc[("alt", "nil"), "gains"], table.loc[("alt", "nil"), "losses"]) == (1, 0)
    assert score["diff_p"] == pytest.approx(2 * stats.t.sf(25 / 3 / (np.std(
        [5, 5, 15], ddof=1) / sqrt(3)), 2))
    # The baseline is not compared with itself.
    assert set(table.index.get_level_values("config")) == {"alt"}
    assert effects.paired_effects(frame[frame["config"] == "base"], "base").empty
    per_side = effects.paired_effects(frame, "base", metrics=["score"], by=("side",))
    assert list(per_side.columns[:3]) == ["side", "config", "baseline"]
    alt = per_side[per_side["config"] == "alt"].set_index("side")
    assert alt["diff"].tolist() == pytest.approx([10 / 3, 40 / 3])
    with pytest.raises(ValueError, match="baseline"):
        effects.paired_effects(frame, "nope")
    with pytest.raises(ValueError, match="metric"):
        effects.paired_effects(frame, "base", metrics=["luck"])


def test_side_summary_labels_its_per_seat_means():
    """The table is per side, but its mean bid and tricks are per seat of the side: two hands
    of four seats; side 0 bids 3 and 4, then 2 and nil (non-nil seat bids 3, 4, 2: mean 3),
    side 1 bids 1 and 1 each time."""
    from spades_sim.analysis.summary import side_summary

    rows = seat_rows(0, [3, 1, 4, 1], [3, 2, 4, 1]) + seat_rows(1, [2, 1, 0, 1], [5, 1, 0, 1],
                                                                  nil_seats=(2,))
    table = side_summary(tidy(rows), preset("classic"))
    assert "mean_bid" not in table.columns and "mean_tricks" not in table.columns
    assert table.loc[0, "mean_seat_bid"] == pytest.approx(3.0)
    assert table.loc[0, "mean_seat_tricks"] == pytest.approx(3.0)  # (3 + 4 + 5 + 0) / 4
    assert table.loc[1, "mean_seat_bid"] == 1.0 and table.loc[1, "hands"] == 2


def test_game_effects_hand_computed():
    """Two players. Game 0 (3 hands): side 0 trails 20 to 150 after hand 0, wins 520 to 140;
    side 1 crosses the bag limit in hand 1 (9 bags + 2 overtricks -> 1). Game 1 (2 hands): a
    draw; side 0's failed nil takes 3 tricks, bags 8 -> 1 (a reset from failed-nil bags)."""
    def hand(game_id, hand_id, before, delta, bids_, tricks, bags, nil_seats=(), over=False,
             winner=-1):
        rows = seat_rows(hand_id, bids_, tricks, nil_seats, game_id=game_id, game_over=over,
                         game_winner=winner)
        for row, score, deltas, (bags_before, bags_after) in zip(rows, before, delta, bags):
            row.update(score_before=score, score_delta=deltas, bags_before=bags_before,
                       bags_after=bags_after)
        return rows

    rows = hand(0, 0, (0, 0), (20, 150), [2, 5], [2, 5], [(0, 0), (0, 0)])
    rows += hand(0, 1, (20, 150), (300, 10), [3, 4], [3, 6], [(0, 0), (9, 1)])
    rows += hand(0, 2, (320, 160), (200, -20), [3, 4], [3, 4], [(0, 0), (1, 1)], over=True,
                 winner=0)
    rows += hand(1, 0, (0, 0), (10, -50), [3, 4], [3, 4], [(8, 8), (0, 0)])
    rows += hand(1, 1, (10, -50), (-97, 40), [0, 4], [3, 4], [(8, 1), (0, 0)], nil_seats=(0,),
                 over=True)
    rows += seat_rows(0, [3, 3], [3, 3], game_id=-1, score_delta=999)  # hands mode: left out
    frame = tidy(rows, players=2)
    table = effects.game_effects(frame)
    assert len(table) == 1 and table.columns[0] == "config"
    row = table.iloc[0]
    assert row["games"] == 2 and row["mean_hands"] == 2.5
    half = Z * np.std([3, 2], ddof=1) / sqrt(2)
    assert row["mean_hands_low"] == pytest.approx(2.5 - half)
    assert [row["decisive"], row["draws"], row["side0_wins"]] == [1, 1, 1]
    assert row["side0_win_rate"] == 1.0 and row["side0_win_rate_high"] == 1.0
    assert row["bag_penalties"] == 2 and row["bag_penalties_per_game"] == 1.0
    assert row["bag_penalties_per_game_low"] == row["bag_penalties_per_game_high"] == 1.0
    assert row["comebacks"] == 1 and row["comeback_rate"] == 1.0
    assert row["mean_margin"] == 380 and np.isnan(row["mean_margin_low"])
    assert effects.game_effects(frame, comeback_deficit=131).iloc[0]["comebacks"] == 0
    assert effects.game_effects(frame, comeback_deficit=130).iloc[0]["comebacks"] == 1
    with pytest.raises(ValueError, match="constant within a game"):
        effects.game_effects(frame, by=("config", "seat"))


def test_an_empty_frame_gives_empty_tables():
    empty = tidy(seat_rows(0, [1, 1, 1, 1], [1, 1, 1, 1])).iloc[:0]
    for table in (bids.bid_accuracy(empty), bids.tricks_minus_bid(empty),
                  bids.bid_calibration(empty), nil.nil_success(empty),
                  nil.nil_by_feature(empty), nil.nil_by_partner_bid(empty),
                  nil.nil_paired_value(empty, {}), effects.game_effects(empty)):
        assert table.empty and ("n" in table or "games" in table)
    assert "side0_win_rate_high" in effects.game_effects(empty)
    with pytest.raises(ValueError, match="hands-mode plays .have: none"):
        effects.paired_effects(empty, "c")


# -- metrics --------------------------------------------------------------------------------------
def test_rates_on_few_events_get_the_exact_interval():
    # 5 events in 200,000: Clopper-Pearson, from the beta quantiles directly.
    low, high = rate_interval(5, 200_000)
    assert low == pytest.approx(stats.beta.ppf(0.025, 5, 200_000 - 5 + 1))
    assert high == pytest.approx(stats.beta.ppf(0.975, 5 + 1, 200_000 - 5))
    assert rate_interval(0, 10) == pytest.approx((0.0, 1 - 0.025 ** (1 / 10)))
    assert rate_interval(4, 200)[0] == pytest.approx(exact_interval(4, 200)[0])
    assert rate_interval(50, 100) == pytest.approx(wilson_interval(50, 100))  # enough: Wilson
    assert rate_interval(197, 200) == pytest.approx(exact_interval(197, 200))  # 3 non-events
    assert rate_interval(10, 100) == pytest.approx(wilson_interval(10, 100))  # 10: Wilson
    lows, highs = rate_interval([0, 5, 50], [0, 10, 100])
    assert np.isnan(lows[0]) and highs[1:] == pytest.approx([exact_interval(5, 10)[1],
                                                            wilson_interval(50, 100)[1]])


def test_wilson_interval_ends_are_sane():
    for trials in (1, 3, 7, 100, 12345):
        low, high = wilson_interval(0, trials)
        assert low == 0.0 and 0 < high < 1
        low, high = wilson_interval(trials, trials)
        assert high == 1.0 and 0 < low < 1
    assert all(np.isnan(wilson_interval(0, 0)))


def test_intervals_contain_the_estimate_and_shrink_with_n():
    widths = []
    for trials in (10, 100, 1000, 10000):
        low, high = wilson_interval(0.3 * trials, trials)
        assert low < 0.3 < high
        widths.append(high - low)
    assert widths == sorted(widths, reverse=True)
    assert widths[-1] < 0.02
    low, high = interval_from_moments(1.0, 2.0, np.array([4, 40, 400]), t=True)
    assert (low < 1).all() and (high > 1).all() and (np.diff(high - low) < 0).all()


def test_t_quantile_matches_tables():
    # Two-sided 95% Student t critical values from standard tables.
    table = {1: 12.7062, 2: 4.3027, 3: 3.1824, 5: 2.5706, 10: 2.2281, 30: 2.0423, 120: 1.9799}
    values = t_quantile(list(table))
    assert values == pytest.approx(list(table.values()), abs=4e-3)
    assert values[3:] == pytest.approx(list(table.values())[3:], abs=3e-4)
    assert np.isnan(t_quantile(0))


# -- one small simulated run ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def run():
    """20,000 hands, duplicated: twins a and b (same rules and strategies), simple heuristic."""
    configs = [make_config("a", preset("classic"), MIXED),
               make_config("b", preset("classic"), MIXED),
               make_config("s", preset("simple"), ["heuristic"])]
    return simulate(configs, n_hands=20_000, seed=2024, chunk_size=10_000, duplicate=True)


def test_spade_count_of_dealt_hands_is_hypergeometric(run):
    """Seeded chi-square test of the ``spades`` feature of seat 0 (one seat per deal: seats of
    one deal are dependent) against C(13,k) C(39,13-k) / C(52,13)."""
    seat = run[(run["config"] == "a") & ~run["duplicate"] & (run["seat"] == 0)]
    assert len(seat) == 20_000
    observed = np.bincount(seat["spades"].to_numpy(), minlength=14).astype(float)
    expected = len(seat) * np.array([comb(13, k) * comb(39, 13 - k) / comb(52, 13)
                                     for k in range(14)])
    # Pool the tail of bins with expected counts under 5 with the last bin of 5 or more.
    keep = int(np.nonzero(expected >= 5)[0].max())
    observed = np.r_[observed[:keep], observed[keep:].sum()]
    expected = np.r_[expected[:keep], expected[keep:].sum()]
    statistic = ((observed - expected) ** 2 / expected).sum()
    dof = len(expected) - 1
    assert dof == 8  # k = 0..7 and k >= 8 (expected 1.9 at k = 9)
    assert statistic < 26.124, statistic  # scipy.stats.chi2.ppf(0.999, 8) = 26.124


def test_a_configuration_compared_with_itself_has_effect_zero(run):
    table = effects.paired_effects(run, "a")
    assert set(table["config"]) == {"b", "s"}  # not the baseline against itself
    twin = table[table["config"] == "b"]
    assert twin["metric"].astype(str).tolist() == ["score", "set", "bags_added", "overtricks",
                                                   "nil"]
    assert (twin["n"] == 20_000).all()
    assert (twin["diff"] == 0).all()
    assert (twin["diff_low"] == 0).all() and (twin["diff_high"] == 0).all()
    assert (twin["baseline_mean"] == twin["config_mean"]).all()
    per_side = effects.paired_effects(run, "a", by=("side",))
    assert (per_side.loc[per_side["config"] == "b", ["diff_low", "diff_high"]] == 0).all().all()
    # A real difference is detected: the simple preset sets less often than mixed classic.
    other = table[table["config"] == "s"].set_index("metric")
    assert other.loc["set", "diff_high"] < 0


def test_twin_configurations_give_identical_tables(run):
    for table in (bids.bid_accuracy(run), nil.nil_success(run), nil.nil_by_partner_bid(run),
                  bids.bid_calibration(run, "hcp")):
        a = table[table["config"] == "a"].drop(columns="config").reset_index(drop=True)
        b = table[table["config"] == "b"].drop(columns="config").reset_index(drop=True)
        pd.testing.assert_frame_equal(a, b)


def test_intervals_contain_estimates_on_a_run(run):
    tables = {"exact_rate": bids.bid_accuracy(run), "set_rate": bids.bid_accuracy(run),
              "bags_added_per_hand": bids.bid_accuracy(run), "mean_bid": bids.bid_calibration(run),
              "rate": nil.nil_by_feature(run, "longest"), "share": bids.tricks_minus_bid(run),
              "diff": effects.paired_effects(run, "a")}
    for name, table in tables.items():
        known = table[f"{name}_low"].notna()
        assert known.any(), name
        assert (table.loc[known, f"{name}_low"] <= table.loc[known, name]).all(), name
        assert (table.loc[known, name] <= table.loc[known, f"{name}_high"]).all(), name


def test_intervals_shrink_with_more_hands(run):
    few = run[run["hand_id"] < 2_000]
    small, large = bids.bid_accuracy(few), bids.bid_accuracy(run)
    for name in ("exact_rate", "set_rate", "bags_added_per_hand"):
        assert ((small[f"{name}_high"] - small[f"{name}_low"])
                > (large[f"{name}_high"] - large[f"{name}_low"])).all(), name
    assert (large["n"] > small["n"]).all()


def test_counts_add_up_on_a_run(run):
    accuracy = bids.bid_accuracy(run, by=("config",)).set_index("config")
    number_bids = (~run["nil"]).groupby(run["config"], observed=True).sum()
    assert (accuracy["n"] == number_bids).all()
    assert (accuracy["exact"] + accuracy["over"] + accuracy["under"] == accuracy["n"]).all()
    # Every side-hand of a run has a number bidder unless both partners bid nil.
    side_hands = 20_000 * 2 * 2  # hands x sides x copies
    assert (accuracy["side_hands"] <= side_hands).all()
    assert (accuracy["side_hands"] > 0.95 * side_hands).all()
    success = nil.nil_success(run, by=("config",)).set_index("config")
    partner = nil.nil_by_partner_bid(run).groupby("config", observed=True)[["n", "made"]].sum()
    assert (partner["n"] == success["n"]).all() and (partner["made"] == success["made"]).all()
    shares = bids.tricks_minus_bid(run).groupby(["config", "strategy"], observed=True)["share"]
    assert shares.sum().to_numpy() == pytest.approx(1.0)
    # The bags added are what the engine added to the counters (from 0: a hand that reaches
    # the bag limit of 10 resets the counter by 10 and pays the penalty).
    from spades_sim.analysis.metrics import side_bags
    added = side_bags(run)[1]
    counted = run["bags_after"].to_numpy() - run["bags_before"].to_numpy()
    assert ((added - counted) % 10 == 0).all() and (added >= counted).all()
    assert (added != side_bags(run)[0]).any()  # failed nils' bags under classic


@pytest.fixture(scope="module")
def games():
    configs = [make_config("classic", preset("classic"), ["heuristic"]),
               make_config("quick", preset("classic", max_hands=1), MIXED)]
    return simulate(configs, n_games=60, seed=3, chunk_size=30, duplicate=True)


def test_game_effects_on_a_run(games):
    table = effects.game_effects(games, by=("config", "duplicate")).set_index(
        ["config", "duplicate"])
    over = games[games["game_over"] & (games["seat"] == 0)]
    lengths = (over["hand_id"] + 1).groupby([over["config"], over["duplicate"]],
                                            observed=True).mean()
    assert table["mean_hands"].to_numpy() == pytest.approx(lengths.to_numpy())
    assert (table["games"] == 60).all()
    assert (table["decisive"] + table["draws"] == table["games"]).all()
    assert (table.loc["quick", "mean_hands"] == 1).all()
    assert (table.loc["classic", "bag_penalties"] > 0).all()
    assert (table.loc["classic", "mean_margin"] > 0).all()
    # Both copies of a deal between identical strategies: mirrored winners.
    classic = table.loc["classic"]
    assert classic.loc[False, "side0_wins"] + classic.loc[True, "side0_wins"] == \
        classic.loc[False, "decisive"]


def test_fast_group_numbers_match_pandas_groupby():
    """``analysis.groups`` numbers groups as ``groupby(sort=True, observed=True)`` does, so
    ``aggregate``, ``first_rows`` and ``group_sums`` give pandas' own results exactly, for
    categorical (with unused categories), bool, small and wide integer keys, and fall back to
    pandas for keys they cannot number (floats, missing values)."""
    from spades_sim.analysis.groups import first_rows, group_codes, group_sums
    from spades_sim.analysis.metrics import aggregate

    rng = np.random.default_rng(7)
    n = 3000
    frame = pd.DataFrame({
        "config": pd.Categorical(rng.choice(["b", "a", "c"], n), categories=["a", "b", "c", "z"]),
        "duplicate": rng.random(n) < 0.5, "game_id": rng.integers(-1, 3, n),
        "hand_id": rng.integers(0, 10**15, n) // 10**12, "seat": rng.integers(0, 4, n).astype(
            np.int8), "tricks": rng.integers(0, 14, n), "value": rng.random(n)})
    frame["wide"] = rng.integers(-2**40, 2**40, n)
    frames = {key: frame for key in ("config", "seat", "wide")}
    frames["hand_id"] = frame.sort_values(["hand_id", "seat"], kind="stable")  # (in key order)
    for keys in (["config"], ["seat"], ["duplicate", "config", "game_id", "hand_id", "seat"],
                 ["wide", "seat"], ["config", "value"], ["hand_id", "seat"]):
        part = frames.get(keys[0], frame)
        expected = part.groupby(keys, observed=True, sort=True).agg(
            n=("tricks", "size"), total=("tricks", "sum"), mean=("value", "mean"),
            sd=("value", "std")).reset_index()
        table = aggregate(part, keys, n=("tricks", "size"), total=("tricks", "sum"),
                          mean=("value", "mean"), sd=("value", "std"))
        pd.testing.assert_frame_equal(table, expected, check_exact=True)
        pd.testing.assert_frame_equal(first_rows(part, keys),
                                      part.drop_duplicates(subset=keys))
        sums = group_sums(part, keys, "tricks")
        if "value" in keys:
            assert group_codes(part, keys) is None and sums is None
        else:
            assert np.array_equal(sums, part.groupby(keys, observed=True)["tricks"].transform(
                "sum").to_numpy())
    missing = frame.assign(config=frame["config"].cat.add_categories(["y"]).where(
        frame["seat"] > 0))
    assert group_codes(missing, ["config"]) is None
    pd.testing.assert_frame_equal(
        aggregate(missing, ["config"], n=("tricks", "size")),
        missing.groupby(["config"], observed=True, sort=True).agg(
            n=("tricks", "size")).reset_index())


def test_join_unique_is_pandas_inner_merge():
    """``groups.join_unique``: pandas' inner merge on keys unique in the right frame, for keys
    in the right's order repeated (the fast path), shuffled, partly missing, and repeated in the
    right frame (pandas' own merge)."""
    from spades_sim.analysis.groups import join_unique

    rng = np.random.default_rng(3)
    right = pd.DataFrame({"hand_id": np.arange(50), "side": np.int8(1),
                          "value": rng.random(50), "extra": rng.integers(0, 5, 50)})
    left = pd.concat([right.assign(value=rng.random(50))] * 3, ignore_index=True)
    left["config"] = np.repeat(["a", "b", "c"], 50)
    cases = [left, left.sample(frac=1, random_state=1), left.iloc[::2],
             left.assign(hand_id=left["hand_id"] + 10)]
    for part in cases:
        pd.testing.assert_frame_equal(
            join_unique(part, right, ["hand_id", "side"], "_baseline"),
            part.merge(right, on=["hand_id", "side"], suffixes=("", "_baseline")))
    twice = pd.concat([right, right], ignore_index=True)
    pd.testing.assert_frame_equal(join_unique(left, twice, ["hand_id"], "_b"),
                                  left.merge(twice, on=["hand_id"], suffixes=("", "_b")))
