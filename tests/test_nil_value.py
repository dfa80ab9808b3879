"""The value of nil on hand-built deals (own score, margin, the bidder-only counterfactual,
the marginal value of a threshold step, identical comparisons), the clustered intervals against
a per-deal computation and a bootstrap, blind nil and the Spades facts from games, and the
win-probability annotations."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from spades_sim.analysis import facts, nil, winprob
from spades_sim.analysis.clustered import clustered_mean, clustered_rate
from spades_sim.core.errors import AnalysisError


def deal(config, hand_id, bids, nils, tricks, scores, duplicate=False, game_id=-1, blind=()):
    """Four seat rows of one hand; sides 0/2 and 1/3; ``scores`` per side."""
    return [{"config": config, "duplicate": duplicate, "game_id": game_id, "hand_id": hand_id,
             "seat": seat, "side": seat % 2, "bid": bids[seat], "nil": seat in nils,
             "blind": seat in blind, "tricks": tricks[seat], "score_delta": scores[seat % 2]}
            for seat in range(4)]


@pytest.fixture(scope="module")
def lines():
    """Nil line n and its number lines n~number0 (side 0 without nil), n~number1 (side 1).

    Deal 0: seat 0 (side 0) and seat 1 (side 1) both bid nil; seat 0 makes it, seat 1 fails.
    In n~number0 seat 0 bids 2 and seat 1 keeps its nil; in n~number1 seat 1 bids 3 and seat 0
    keeps its nil. Deal 1: seat 2 bids nil and makes it; in n~number0 seat 2 bids 2 and the
    last bidder, seat 3, bids 4 instead of 5 (as the bids-may-not-total-13 rule can force).
    Deal 2: no nil anywhere.
    """
    rows = deal("n", 0, [0, 0, 4, 5], (0, 1), [0, 2, 5, 6], (150, -52))
    rows += deal("n", 1, [3, 4, 0, 5], (2,), [4, 4, 0, 5], (130, -40))
    rows += deal("n", 2, [3, 3, 3, 4], (), [3, 3, 3, 4], (60, 70))
    rows += deal("n~number0", 0, [2, 0, 4, 5], (1,), [1, 2, 5, 5], (60, -40))
    rows += deal("n~number0", 1, [3, 4, 2, 4], (), [4, 4, 1, 4], (50, -50))
    rows += deal("n~number0", 2, [3, 3, 3, 4], (), [3, 3, 3, 4], (60, 70))
    rows += deal("n~number1", 0, [0, 3, 4, 5], (0,), [0, 3, 4, 6], (140, 70))
    rows += deal("n~number1", 1, [3, 4, 0, 5], (2,), [4, 4, 0, 5], (130, -40))
    rows += deal("n~number1", 2, [3, 3, 3, 4], (), [3, 3, 3, 4], (60, 70))
    return pd.DataFrame(rows)


PAIRS = {"n": {0: "n~number0", 1: "n~number1"}}


def test_nil_side_hands_pair_each_nil_with_its_own_sides_number_line(lines):
    rows = nil.nil_side_hands(lines, PAIRS)
    assert rows[["hand_id", "side"]].values.tolist() == [[0, 0], [0, 1], [1, 0]]
    # Side 0 in deal 0 is paired with n~number0 (where side 1 still bids its nil), side 1
    # with n~number1 (where side 0 still bids its nil): only the bidder's nil is switched off.
    assert rows["number_score"].tolist() == [60.0, 70.0, 50.0]
    assert rows["diff"].tolist() == [90.0, -122.0, 80.0]
    # margin = own - opponents: 150 - (-52), -52 - 150, 130 - (-40); number lines
    # 60 - (-40), 70 - 140, 50 - (-50).
    assert rows["nil_margin"].tolist() == [202.0, -202.0, 170.0]
    assert rows["number_margin"].tolist() == [100.0, -70.0, 100.0]
    assert rows["margin_diff"].tolist() == [102.0, -132.0, 70.0]
    assert rows["made"].tolist() == [True, False, True]
    assert rows["opponents_nil"].tolist() == [True, True, False]
    # Deal 1: seat 3 bid 4 instead of 5 when seat 2 bid its number.
    assert rows["same_bids"].tolist() == [True, True, False]


def test_nil_paired_value_by_hand_with_the_deal_as_the_unit(lines):
    table = nil.nil_paired_value(lines, PAIRS)
    assert len(table) == 1
    row = table.iloc[0]
    assert [row["config"], row["kind"], row["n"], row["made"]] == ["n", "nil", 3, 2]
    assert [row["opponents_nil"], row["same_bids"]] == [2, 2]
    assert row["share"] == pytest.approx(3 / 6)
    assert row["nil_score"] == pytest.approx((150 - 52 + 130) / 3)
    assert row["number_score"] == pytest.approx((60 + 70 + 50) / 3)
    # Own score: diffs 90, -122 (deal 0) and 80 (deal 1): mean 16. Clustered by deal: the
    # deviations sum to -64 in deal 0 and +64 in deal 1; variance 2/1 * (64^2 * 2) / 3^2, and
    # t with one degree of freedom (two deals).
    half = stats.t.ppf(0.975, 1) * np.sqrt(2 * 2 * 64 ** 2 / 9)
    assert row["diff"] == pytest.approx(16.0)
    assert [row["diff_low"], row["diff_high"]] == pytest.approx([16 - half, 16 + half])
    # Margin: 102, -132, 70: mean 40 / 3; deal sums of deviations -30 - 40/3 * 2 + ... direct:
    margins = np.array([102.0, -132.0, 70.0])
    mean = margins.mean()
    per_deal = np.array([margins[0] + margins[1] - 2 * mean, margins[2] - mean])
    half = stats.t.ppf(0.975, 1) * np.sqrt(2 * np.sum(per_deal ** 2) / 9)
    assert row["margin_diff"] == pytest.approx(40 / 3)
    assert [row["margin_low"], row["margin_high"]] == pytest.approx([mean - half, mean + half])
    assert row["same_as"] == ""


def test_identical_comparisons_are_detected(lines):
    copy = lines.assign(config=lines["config"].str.replace("n", "m", n=1))
    frame = pd.concat([lines, copy], ignore_index=True)
    pairs = {**PAIRS, "m": {0: "m~number0", 1: "m~number1"}}
    table = nil.nil_paired_value(frame, pairs)
    assert table.set_index("config")["same_as"].to_dict() == {"n": "", "m": "n"}
    changed = frame.copy()
    changed.loc[(changed["config"] == "m~number0") & (changed["hand_id"] == 1),
                "score_delta"] = 0
    table = nil.nil_paired_value(changed, pairs)
    assert table.set_index("config")["same_as"].to_dict() == {"n": "", "m": ""}


def test_number_line_that_bids_nil_on_its_side_is_refused(lines):
    with pytest.raises(AnalysisError, match="bids nil on side 1: not a number line"):
        nil.nil_paired_value(lines, {"n": {1: "n~number0"}})
    with pytest.raises(AnalysisError, match=r"expected \{side: number line\}"):
        nil.nil_paired_value(lines, {"n": "n~number0"})


def test_marginal_value_counts_only_the_nils_a_step_adds(lines):
    """Threshold t2 bids the nils of n plus seat 3's nil in deal 2 (failed, -100 against
    the number's +40 for side 1, opponents unchanged at 60)."""
    higher = lines.assign(config=lines["config"].str.replace("n", "t2", n=1))
    extra = (higher["config"] == "t2") & (higher["hand_id"] == 2)
    higher.loc[extra & (higher["seat"] == 3), ["bid", "nil", "tricks"]] = [0, True, 1]
    higher.loc[extra & (higher["side"] == 1), "score_delta"] = -100
    for config in ("t2~number0", "t2~number1"):
        rows = (higher["config"] == config) & (higher["hand_id"] == 2) & (higher["side"] == 1)
        higher.loc[rows, "score_delta"] = 40 if config == "t2~number1" else -100
        if config == "t2~number0":
            higher.loc[rows & (higher["seat"] == 3), ["bid", "nil", "tricks"]] = [0, True, 1]
    frame = pd.concat([lines, higher], ignore_index=True)
    pairs = {**PAIRS, "t2": {0: "t2~number0", 1: "t2~number1"}}
    table = nil.nil_marginal_value(frame, pairs, ["n", "t2"])
    assert table[["config", "previous", "n"]].values.tolist() == [["n", "", 3], ["t2", "n", 1]]
    step = table.iloc[1]
    assert step["diff"] == -140.0  # -100 - 40
    assert step["margin_diff"] == -140.0  # (-100 - 60) - (40 - 60): the opponents unchanged
    assert np.isnan(step["diff_low"])  # one deal: no interval
    rows = nil.nil_side_hands(frame, pairs)  # computed once, the same tables
    pd.testing.assert_frame_equal(
        nil.nil_marginal_value(frame, pairs, ["n", "t2"], side_hands=rows), table)
    pd.testing.assert_frame_equal(nil.nil_paired_value(frame, pairs, side_hands=rows),
                                  nil.nil_paired_value(frame, pairs))
    with pytest.raises(AnalysisError, match="not among the configurations"):
        nil.nil_marginal_value(frame, pairs, ["n", "zz"])


# -- the clustered intervals against a per-deal computation and a bootstrap ----------------------
def test_clustered_mean_equals_the_t_interval_of_per_deal_means():
    """With equal cluster sizes the cluster-robust mean interval is exactly the one-sample t
    interval of the per-deal means (an independent computation)."""
    rng = np.random.default_rng(4)
    deals = np.repeat(np.arange(40), 3)
    values = rng.normal(size=40)[deals] * 5 + rng.normal(size=120)
    mean, low, high, p = clustered_mean(values, deals)
    per_deal = values.reshape(40, 3).mean(axis=1)
    half = stats.t.ppf(0.975, 39) * per_deal.std(ddof=1) / np.sqrt(40)
    assert mean == pytest.approx(per_deal.mean())
    assert [low, high] == pytest.approx([per_deal.mean() - half, per_deal.mean() + half])
    assert p == pytest.approx(stats.ttest_1samp(per_deal, 0.0).pvalue)


@pytest.mark.parametrize("within", [0.0, 0.9])
def test_clustered_rate_is_as_wide_as_a_bootstrap_over_deals(within):
    """Balanced (independent rows) and lopsided (rows of a deal nearly alike) cases: the
    interval's width within 20% of a percentile bootstrap that resamples deals."""
    rng = np.random.default_rng(7)
    n_deals, size = 400, 2
    shared = rng.random(n_deals) < 0.3
    own = rng.random((n_deals, size)) < 0.3
    hits = np.where(rng.random((n_deals, size)) < within, shared[:, None], own).astype(float)
    deals = np.repeat(np.arange(n_deals), size)
    rate, low, high, _ = clustered_rate(hits.reshape(-1), deals)
    draws = rng.integers(0, n_deals, size=(2000, n_deals))
    boot = hits[draws].mean(axis=(1, 2))
    boot_low, boot_high = np.quantile(boot, [0.025, 0.975])
    assert (high - low) == pytest.approx(boot_high - boot_low, rel=0.2)
    assert rate == pytest.approx(hits.mean())


# -- blind nil and the facts from games -----------------------------------------------------------
@pytest.fixture(scope="module")
def games():
    """Three games of configuration c (sides 0/2 and 1/3), bags and contracts by hand.

    game 0, hand 1: side 1 trails 150 to 40 and seat 1 bids blind nil and makes it (side 1
    +230, side 0 +50). game 1, hand 1: side 1 trails 200 to 0 and seat 3 bids blind nil and
    fails (2 tricks); side 0 bids 10 and takes 11: its 9 bags + 1 reach the limit of 10 (one
    penalty). game 2, hand 0: side 0 bids 10 and takes exactly 10; three hands.
    """
    rows = []

    def hand(game, hand_id, before, scores, bids, tricks, blind_seat=None, bags=(0, 0),
             bags_after=(0, 1), over=False, winner=-1):
        nils = () if blind_seat is None else (blind_seat,)
        for row in deal("c", hand_id, bids, nils, tricks, scores, game_id=game, blind=nils):
            side = row["side"]
            seats = [seat for seat in range(4) if seat % 2 == side and seat not in nils]
            row.update(score_before=before[side], bags_before=bags[side],
                       bags_after=bags_after[side],
                       side_contract=sum(bids[seat] for seat in seats),
                       side_taken=sum(tricks[seat] for seat in seats), game_over=over,
                       game_winner=winner)
            rows.append(row)

    level = ([3, 3, 3, 3], [3, 3, 3, 4])  # side 1 takes one overtrick
    hand(0, 0, (0, 0), (150, 40), *level)
    hand(0, 1, (150, 40), (50, 230), [3, 0, 3, 3], [4, 0, 4, 5], blind_seat=1, bags=(0, 1),
         bags_after=(2, 3), over=True, winner=1)
    hand(1, 0, (0, 0), (60, 60), *level)
    hand(1, 1, (200, 0), (60, -180), [5, 3, 5, 0], [6, 0, 5, 2], blind_seat=3, bags=(9, 1),
         bags_after=(0, 3), over=True, winner=0)
    hand(2, 0, (0, 0), (100, 20), [5, 1, 5, 1], [5, 1, 5, 2])
    hand(2, 1, (100, 20), (100, 20), *level, bags=(0, 1), bags_after=(0, 2))
    hand(2, 2, (200, 40), (100, 20), *level, bags=(0, 2), bags_after=(0, 3), over=True,
         winner=0)
    return pd.DataFrame(rows)


def test_blind_nil_games_by_hand(games):
    table = facts.blind_nil_games(games)
    row = table.iloc[0]
    assert [row["games"], row["blind_nils"], row["made"]] == [3, 2, 1]
    counts = np.array([1.0, 1.0, 0.0])  # blind nils per game
    half = stats.t.ppf(0.975, 2) * counts.std(ddof=1) / np.sqrt(3)
    assert [row["per_game"], row["per_game_low"], row["per_game_high"]] == pytest.approx(
        [2 / 3, 2 / 3 - half, 2 / 3 + half])
    assert row["rate"] == 0.5
    assert row["deficit"] == pytest.approx((110 + 200) / 2)
    assert row["score"] == pytest.approx((230 - 180) / 2)
    assert row["margin"] == pytest.approx(((230 - 50) + (-180 - 60)) / 2)


def test_spades_facts_from_games(games):
    table = facts.spades_facts(None, games, {"c": 10}).set_index("fact")
    assert table.loc["hands per game", "value"] == pytest.approx((2 + 2 + 3) / 3)
    assert table.loc["hands per game", "unit"] == "game"
    # One penalty (side 0 of game 1: 9 bags + 1 overtrick reach 10) over three games.
    assert table.loc["bag penalties per game (all sides)", "value"] == pytest.approx(1 / 3)
    # 10+ contracts: game 1 hand 1 (13 of 10: made) and game 2 hand 0 (10 of 10: made): 2 of 7
    # deals.
    assert table.loc["deals with a contract of 10+", "value"] == pytest.approx(2 / 7)
    assert table.loc["deals with a contract of 10+", "n"] == 7
    assert table.loc["contracts of 10+ made", "value"] == 1.0
    assert table.loc["blind nils made", "value"] == 0.5
    with pytest.raises(AnalysisError, match="give a hands or a games frame"):
        facts.spades_facts(None, None)


def test_nil_by_cards_counts_honours_and_low_cards():
    cards = [(1 << 51) | (1 << 50) | 1, 1 << 12, (1 << 52) | 2 | 4]  # AS KS 2C; AC; BJ 3C 4C
    frame = pd.DataFrame({"config": "c", "duplicate": False, "game_id": -1,
                          "hand_id": [0, 1, 2], "nil": True, "tricks": [1, 0, 0],
                          "cards": cards})
    table = facts.nil_by_cards(frame).set_index(["feature", "held"])
    assert table.loc[("spade honours", 2), ["n", "made"]].tolist() == [1, 0]
    assert table.loc[("spade honours", 1), ["n", "made"]].tolist() == [1, 1]
    assert table.loc[("spade honours", 0), ["n", "made"]].tolist() == [1, 1]
    assert table.loc[("low cards", 2), ["n", "made"]].tolist() == [1, 1]


# -- win probability: the identity cell, the strategy's rule, the minimum ------------------------
def test_win_probability_marks_the_identity_cell_and_the_blind_nil_rule(games):
    table = winprob.win_probability_by_lead(games, min_games=1)
    assert table.loc[table["hands"] == 0, "identity"].all()
    assert not table.loc[table["hands"] > 0, "identity"].any()
    # After one hand: game 0's side 1 trails by 110 and bids blind nil; game 1's side 1
    # trails by 200 and bids blind nil; the other states hold none.
    marked = table.loc[table["blind_nils"] > 0, ["hands", "lead", "blind_nils",
                                                  "blind_nil_share"]]
    assert marked.values.tolist() == [[1, -200, 1, 1.0], [1, -150, 1, 1.0]]
    assert winprob.MIN_GAMES == 30
    assert winprob.win_probability_by_lead(games).empty  # 3 games < 30


def test_partner_bids_by_position_match_the_join_on_keys():
    """Rows four to a hand, seats in order, find each nil's partner by position; the same rows
    shuffled take the join on the hand keys: the same table."""
    from spades_sim.analysis.nil import nil_by_partner_bid

    rng = np.random.default_rng(5)
    hands = 400
    nil = rng.random(4 * hands) < 0.2
    frame = pd.DataFrame({
        "config": pd.Categorical(["c"] * 4 * hands), "duplicate": False, "game_id": -1,
        "hand_id": np.repeat(np.arange(hands), 4), "seat": np.tile(np.arange(4), hands),
        "side": np.tile([0, 1, 0, 1], hands), "nil": nil,
        "bid": np.where(nil, 0, rng.integers(1, 7, 4 * hands)),
        "tricks": rng.integers(0, 4, 4 * hands)})
    by_position = nil_by_partner_bid(frame)
    by_keys = nil_by_partner_bid(frame.sample(frac=1, random_state=1))
    pd.testing.assert_frame_equal(by_position, by_keys)
    assert by_position["n"].sum() == nil.sum()
