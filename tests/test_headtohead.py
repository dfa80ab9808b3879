"""Head-to-head configurations (``analysis.headtohead``): A minus B within a configuration, the
seat-balanced estimate of a mirrored pair, differences-in-differences, and the report's tables."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from spades_sim.analysis.headtohead import (
    differences_in_differences,
    head_to_head,
    variant_effect_differences,
)
from spades_sim.core.rules import preset

CLASSIC, SIMPLE = preset("classic"), preset("simple")


def _hands(config, side0, side1, scores0, scores1, hand_ids=None):
    """A hands-mode frame of four seats in partnerships: side 0 (seats 0, 2) plays ``side0``
    and scores ``scores0`` per hand, side 1 ``side1`` and ``scores1``."""
    hand_ids = range(len(scores0)) if hand_ids is None else hand_ids
    rows = []
    for hand, s0, s1 in zip(hand_ids, scores0, scores1):
        for seat in range(4):
            side = seat % 2
            rows.append({"config": config, "duplicate": False, "game_id": -1, "hand_id": hand,
                         "seat": seat, "side": side, "strategy": (side0, side1)[side],
                         "score_delta": (s0, s1)[side]})
    return pd.DataFrame(rows)


def _t_interval(values):
    values = np.asarray(values, dtype=float)
    half = stats.t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / np.sqrt(len(values))
    return values.mean() - half, values.mean() + half


def test_a_hand_computed_head_to_head():
    frame = pd.concat([_hands("cva", "cautious", "aggressive", [50, -100, 30], [20, 40, 30]),
                       _hands("same", "heuristic", "heuristic", [1, 2, 3], [3, 2, 1])])
    table = head_to_head(frame, {"cva": CLASSIC, "same": CLASSIC})
    assert table["config"].tolist() == ["cva"]  # a table of one strategy is no head to head
    row = table.iloc[0]
    assert (row["mode"], row["metric"], row["estimate"]) == ("hands", "score", "within")
    assert (row["strategy_a"], row["strategy_b"]) == ("cautious", "aggressive")
    assert row["n"] == 3 and row["diff"] == pytest.approx((30 - 140 + 0) / 3)
    assert row["a_mean"] == pytest.approx(-20 / 3) and row["b_mean"] == pytest.approx(30)
    low, high = _t_interval([30, -140, 0])
    assert (row["diff_low"], row["diff_high"]) == pytest.approx((low, high))
    assert np.isnan(row["seat_advantage"]) and np.isnan(row["games"])


def test_mirrored_configurations_give_the_seat_balanced_estimate():
    ab = _hands("ab", "cautious", "aggressive", [50, -100, 30, 10], [20, 40, 30, 0])
    ba = _hands("ba", "aggressive", "cautious", [10, 60, 20, -10], [40, -80, 0, 30])
    other = _hands("ba-simple", "aggressive", "cautious", [0, 0, 0, 0], [0, 0, 0, 0])
    rules = {"ab": CLASSIC, "ba": CLASSIC, "ba-simple": SIMPLE}
    table = head_to_head(pd.concat([ab, ba, other]), rules)
    balanced = table[table["estimate"] == "seat_balanced"]
    assert len(balanced) == 1  # ba-simple plays other rules: not a mirror of ab
    row = balanced.iloc[0]
    assert (row["config"], row["mirror"]) == ("ab", "ba")
    assert (row["strategy_a"], row["strategy_b"]) == ("cautious", "aggressive")
    d_ab = np.array([30, -140, 0, 10])  # side 0 minus side 1 in each configuration
    d_ba = np.array([-30, 140, 20, -40])
    assert row["n"] == 4
    assert row["diff"] == pytest.approx(((d_ab - d_ba) / 2).mean())  # cautious minus aggressive
    assert row["seat_advantage"] == pytest.approx(((d_ab + d_ba) / 2).mean())  # side 0's seats
    low, high = _t_interval((d_ab - d_ba) / 2)
    assert (row["diff_low"], row["diff_high"]) == pytest.approx((low, high))
    # both within rows stay, each from its own seating
    within = table[table["estimate"] == "within"].set_index("config")["diff"]
    assert within["ab"] == pytest.approx(d_ab.mean()) and within["ba"] == pytest.approx(
        d_ba.mean())
    assert "seat_balanced" not in head_to_head(pd.concat([ab, ba]), rules,
                                               balance=False)["estimate"].tolist()


def test_games_mode_counts_wins_and_draws_apart():
    rows = []
    for game, (final0, final1, winner) in enumerate([(520, 300, 0), (410, 505, 1),
                                                     (480, 480, -1)]):
        for seat in range(4):
            side = seat % 2
            final = (final0, final1)[side]
            rows.append({"config": "cva", "duplicate": False, "game_id": game, "hand_id": 0,
                         "seat": seat, "side": side, "strategy": ("cautious", "aggressive")[side],
                         "score_before": final - 20, "score_delta": 20, "game_over": True,
                         "game_winner": winner})
    table = head_to_head(pd.DataFrame(rows), {"cva": CLASSIC}).set_index("metric")
    assert table.loc["final_score", "diff"] == pytest.approx((220 - 95 + 0) / 3)
    wins = table.loc["win_share"]
    assert wins["diff"] == pytest.approx(0.0) and wins["n"] == 3
    assert (wins["a_wins"], wins["b_wins"], wins["draws"], wins["games"]) == (1, 1, 1, 3)
    assert wins["a_win_rate"] == pytest.approx(0.5)


def test_differences_in_differences_pair_by_deal_when_deals_are_shared():
    classic = _hands("cva", "cautious", "aggressive", [50, -100, 30, 10], [20, 40, 30, 0])
    simple = _hands("cva-simple", "cautious", "aggressive", [60, -50, 10, 0, 99],
                    [20, 10, 30, 10, 0], hand_ids=[0, 1, 2, 3, 4])
    rules = {"cva": CLASSIC, "cva-simple": SIMPLE}
    h2h, units = head_to_head(pd.concat([classic, simple]), rules, units=True)
    means = h2h.set_index("config")["diff"]
    did = differences_in_differences(h2h, rules, "cva", units=units)
    assert len(did) == 1
    row = did.iloc[0]
    assert (row["variant"], row["baseline"], row["pairing"]) == ("cva-simple", "cva", "paired")
    assert (row["variant_rules"], row["baseline_rules"]) == ("simple", "classic")
    per_deal = np.array([40, -60, -20, -10]) - np.array([30, -140, 0, 10])  # hands 0-3 only
    assert row["n"] == 4 and row["did"] == pytest.approx(per_deal.mean())
    assert (row["did_low"], row["did_high"]) == pytest.approx(_t_interval(per_deal))
    # without the units: the two means, independent
    alone = differences_in_differences(h2h, rules, CLASSIC).iloc[0]
    assert alone["pairing"] == "independent"
    assert alone["did"] == pytest.approx(means["cva-simple"] - means["cva"])
    # on the very same deals the paired difference is the difference of the two means
    same = simple[simple["hand_id"] < 4]
    h2h, units = head_to_head(pd.concat([classic, same]), rules, units=True)
    means = h2h.set_index("config")["diff"]
    row = differences_in_differences(h2h, rules, "classic", units=units).iloc[0]
    assert row["did"] == pytest.approx(means["cva-simple"] - means["cva"])


def test_differences_in_differences_of_a_variant_effect_across_strategies():
    frames = [_hands("c", "cautious", "cautious", [10, 20, 30], [10, 0, 30]),
              _hands("a", "aggressive", "aggressive", [0, 40, 10], [20, 40, 10]),
              _hands("c-simple", "cautious", "cautious", [15, 20, 40], [15, 0, 40]),
              _hands("a-simple", "aggressive", "aggressive", [0, 0, 10], [20, 40, 30])]
    rules = {"c": CLASSIC, "a": CLASSIC, "c-simple": SIMPLE, "a-simple": SIMPLE}
    table = variant_effect_differences(pd.concat(frames), rules, "c")
    assert len(table) == 1
    row = table.iloc[0]
    assert (row["strategy_1"], row["strategy_2"]) == ("cautious", "aggressive")
    effect_c = np.array([5, 0, 10])  # per deal, the mean per side-hand under simple - classic
    effect_a = np.array([0, -20, 10])
    assert row["effect_1"] == pytest.approx(5) and row["effect_2"] == pytest.approx(-10 / 3)
    assert row["did"] == pytest.approx((effect_c - effect_a).mean()) and row["n"] == 3


REPORTED = """\
name = "h2h"
seed = 4
hands = 200
games = 4
chunk_size = 200
games_chunk_size = 4
analyses = ["strategies"]
baseline = "cva"

[[config]]
name = "cva"
strategy = ["cautious", "aggressive", "cautious", "aggressive"]

[[config]]
name = "avc"
strategy = ["aggressive", "cautious", "aggressive", "cautious"]

[[config]]
name = "cva-simple"
rules = "simple"
strategy = ["cautious", "aggressive", "cautious", "aggressive"]
"""


def test_the_report_shows_the_head_to_head_tables(tmp_path):
    from spades_sim.experiment import parse_experiment, run_experiment
    from spades_sim.report import build_report

    experiment = parse_experiment(REPORTED)
    run_experiment(experiment, tmp_path / "results", quiet=True)
    index = build_report(tmp_path / "results", tmp_path / "reports")
    text = index.read_text()
    folder = index.parent
    h2h = pd.read_csv(folder / "strategies-head-to-head.csv")
    assert set(h2h["estimate"]) == {"within", "seat_balanced"}
    assert set(h2h["mode"]) == {"hands", "games"}
    did = pd.read_csv(folder / "strategies-head-to-head-did.csv")
    assert set(did["variant"]) == {"cva-simple"} and set(did["pairing"]) == {"paired"}
    assert "Head to head: side A minus side B" in text and "seat-balanced" in text
    assert "<code>cautious</code>" in text and "<code>aggressive</code>" in text
    headline = pd.read_csv(folder / "headline.csv")
    assert headline["finding"].str.contains("cautious vs aggressive").any()
    assert not headline["finding"].str.contains("side 0 ", regex=False).any()


def test_the_report_warns_where_hands_and_games_disagree():
    """A pair that wins per hand but loses games (the bags of hands from zero scores) gets a
    flagged finding; agreeing modes and an interval over zero get none."""
    from spades_sim.report.model import Section
    from spades_sim.report.sections import _head_to_head_modes

    def row(config, mode, metric, diff, low, high, estimate="within"):
        return {"config": config, "mode": mode, "metric": metric, "estimate": estimate,
                "strategy_a": "cautious", "strategy_b": "aggressive", "diff": diff,
                "diff_low": low, "diff_high": high}

    h2h = pd.DataFrame([row("x", "hands", "score", 9.4, 8.6, 10.1),
                        row("x", "games", "win_share", -0.55, -0.63, -0.48),
                        row("y", "hands", "score", 9.4, 8.6, 10.1),
                        row("y", "games", "win_share", 0.2, 0.1, 0.3),
                        row("z", "hands", "score", 9.4, 8.6, 10.1),
                        row("z", "games", "win_share", -0.1, -0.3, 0.1)])
    section = Section("strategies", "Strategies", "")
    _head_to_head_modes(section, h2h, set())
    assert len(section.findings) == 1
    text = str(section.findings[0])
    assert "The modes disagree" in text and "<code>x</code>" in text
    assert "+9.4 points per hand" in text and "is -55.0 percentage points" in text
    # a mirrored pair is judged once, on its seat-balanced rows
    pair = pd.DataFrame([row("x", "hands", "score", 9.4, 8.6, 10.1, "seat_balanced"),
                         row("x", "games", "win_share", -0.5, -0.6, -0.4, "seat_balanced"),
                         row("x", "hands", "score", 9.0, 8.0, 10.0),
                         row("x", "games", "win_share", -0.5, -0.6, -0.4),
                         row("m", "hands", "score", -9.0, -10.0, -8.0),
                         row("m", "games", "win_share", 0.5, 0.4, 0.6)]).assign(mirror="m")
    section = Section("strategies", "Strategies", "")
    keys = {("x", "hands", "score"), ("x", "games", "win_share")}
    _head_to_head_modes(section, pair, keys, {("m",) + k[1:] for k in keys})
    assert len(section.findings) == 1 and "its mirror <code>m</code>" in str(
        section.findings[0])


def test_head_to_head_tables_are_not_claimed_as_variant_effects():
    from spades_sim.report.sections import _sides_differ
    from spades_sim.run import make_config

    assert _sides_differ(make_config("m", preset("classic"), ["cautious", "aggressive"] * 2))
    assert not _sides_differ(make_config("p", preset("classic"),
                                         ["heuristic", "heuristic"] * 2))
    assert not _sides_differ(make_config("c", preset("cutthroat"), ["heuristic"]))
    assert _sides_differ(make_config("c3", preset("cutthroat"), ["heuristic", "random",
                                                                   "heuristic"]))


def test_a_configuration_changing_rules_and_strategies_at_once_is_not_claimed():
    from spades_sim.report.sections import _changes
    from spades_sim.run import make_config

    base = make_config("b", preset("classic"), ["heuristic"])
    assert _changes(base, base) == 0
    assert _changes(make_config("r", preset("simple"), ["heuristic"]), base) == 1
    assert _changes(make_config("s", preset("classic"), ["cautious"]), base) == 1
    assert _changes(make_config("both", preset("simple"), ["cautious"]), base) == 2
