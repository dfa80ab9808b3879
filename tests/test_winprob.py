"""Win probability from a game state (``analysis/winprob.py``): hand-computed tables, a small
simulated games run, the public import and the heat map."""

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from spades_sim.analysis.winprob import (  # noqa: E402
    plot_win_probability,
    win_probability,
    win_probability_by_lead,
)
from spades_sim.core.errors import AnalysisError  # noqa: E402
from spades_sim.core.rules import preset  # noqa: E402
from spades_sim.run import make_config, simulate  # noqa: E402


def _game(config, game_id, scores, winner, seats_per_side=2, bags=0, finished=True):
    """The tidy rows of one hand-made game: ``scores[h]`` holds each side's score before hand
    ``h``; partnerships (``seats_per_side = 2``) have seats ``s`` and ``s + n_sides`` per side."""
    rows = []
    n_sides = len(scores[0])
    for hand, before in enumerate(scores):
        last = finished and hand == len(scores) - 1
        for seat in range(n_sides * seats_per_side):
            rows.append({"config": config, "duplicate": False, "game_id": game_id,
                         "hand_id": hand, "seat": seat, "side": seat % n_sides,
                         "score_before": before[seat % n_sides], "bags_before": bags,
                         "game_over": last, "game_winner": winner if last else -1})
    return rows


def _hand_made():
    rows = (_game("c", 0, [(0, 0), (60, -20), (120, 30)], winner=0)
            + _game("c", 1, [(0, 0), (-40, 70), (-10, 110)], winner=-1, bags=4)  # hand cap
            + _game("c", 2, [(0, 0), (70, 10), (80, 40)], winner=1)
            + _game("c", 3, [(0, 0), (500, 0)], winner=0, finished=False)  # no last hand
            + _game("three", 0, [(0, 0, 0), (100, 60, 100)], winner=2, seats_per_side=1))
    hands_mode = dict(rows[0], game_id=-1, hand_id=7)  # a hands-mode row: ignored
    return pd.DataFrame(rows + [hands_mode]).astype({"config": "category"})


def test_by_lead_hand_computed():
    table = win_probability_by_lead(_hand_made(), hand_bins=(0, 1, 3), min_games=1)
    classic = table[table["config"] == "c"].set_index(["hands", "lead"])
    # Hand 0: three finished games, both sides level: one win each in games 0 and 2; game 1 a
    # draw (not won, counted in draws).
    start = classic.loc[(0, 0)]
    assert (start["states"], start["games"], start["wins"], start["draws"]) == (6, 6, 2, 2)
    assert start["win_rate"] == pytest.approx(2 / 6) and start["draw_rate"] == pytest.approx(2 / 6)
    # Hands 1-2: game 0's side 0 leads by 80 and 90 (the bin from 50 twice: one game), game 2's
    # side 0 by 60 then 40 (from 50, then from 0) and loses.
    ahead = classic.loc[(1, 50)]
    assert (ahead["hands_to"], ahead["lead_to"]) == (3, 100)
    assert (ahead["states"], ahead["games"], ahead["wins"], ahead["draws"]) == (3, 2, 1, 0)
    behind = classic.loc[(1, -100)]
    assert (behind["states"], behind["games"], behind["wins"]) == (3, 2, 1)
    drawn = classic.loc[(1, -150)]  # game 1's side 0: -110, then -120; a draw
    assert (drawn["states"], drawn["games"], drawn["wins"], drawn["draws"]) == (2, 1, 0, 1)
    assert drawn["win_rate"] == 0 and drawn["draw_rate"] == 1
    assert classic.loc[(1, 0), "wins"] == 0 and classic.loc[(1, -50), "wins"] == 1
    assert sorted(classic.index) == [(0, 0), (1, -150), (1, -100), (1, -50), (1, 0), (1, 50),
                                     (1, 100)]
    assert classic["games"].sum() == 6 + 8 and 500 not in classic.index.get_level_values(1)
    # Intervals: exact (few wins) and holding the rate.
    assert (table["win_rate_low"] <= table["win_rate"]).all()
    assert (table["win_rate"] <= table["win_rate_high"]).all()
    assert drawn["win_rate_low"] == 0 and drawn["win_rate_high"] == pytest.approx(0.975)
    # min_games leaves out the cells reached by fewer games.
    assert set(win_probability_by_lead(_hand_made(), hand_bins=(0, 1, 3), min_games=2)
               .query("config == 'c'")["lead"]) == {0, 50, -100}


def test_full_state_hand_computed():
    table = win_probability(_hand_made(), hand_bins=(0, 1, 2, 3), bag_bins=(0, 3), min_games=1)
    cell = ["config", "hands", "score", "opponent_score", "bags"]
    table = table.set_index(cell)
    assert table.loc[("c", 0, 0, 0, 0), "games"] == 4  # games 0 and 2, both sides
    assert table.loc[("c", 0, 0, 0, 3), "draws"] == 2  # game 1: 4 bags, a draw
    assert table.loc[("c", 2, 100, 0, 0), "wins"] == 1  # 120 to 30
    assert table.loc[("c", 2, -50, 100, 3), "draws"] == 1  # -10 to 110
    # Cutthroat: the best opponent's score (a tie at the top counts as the opponent's).
    three = table.loc["three"].reset_index()
    later = three[three["hands"] == 1].sort_values("score")
    assert later[["score", "opponent_score", "games", "wins"]].values.tolist() == [
        [50, 100, 1, 0], [100, 100, 2, 1]]


def test_wrong_arguments_are_refused():
    frame = _hand_made()
    with pytest.raises(AnalysisError, match="by"):
        win_probability(frame, by=("seat",))
    with pytest.raises(AnalysisError, match="hand_bins"):
        win_probability_by_lead(frame, hand_bins=(1, 2))
    with pytest.raises(AnalysisError, match="lead_bin"):
        win_probability_by_lead(frame, lead_bin=0)
    with pytest.raises(AnalysisError, match="lacks"):
        win_probability(frame.drop(columns="game_winner"))
    assert win_probability(frame.iloc[:0]).empty


def test_public_import():
    import spades_sim
    from spades_sim import win_probability as public

    assert public is win_probability
    assert spades_sim.win_probability_by_lead is win_probability_by_lead


@pytest.fixture(scope="module")
def games():
    configs = [make_config("classic", preset("classic"), ["heuristic-v1"])]
    return simulate(configs, n_games=60, seed=3, chunk_size=30, duplicate=True)


def test_a_bigger_lead_wins_more_often(games):
    table = win_probability_by_lead(games, lead_bin=100, hand_bins=(0, 1, 200), min_games=1)
    start = table[table["hands"] == 0]
    # Both sides start level: one of them wins every decisive game.
    assert start["lead"].tolist() == [0] and start["games"].item() == 240
    assert start["win_rate"].item() == pytest.approx((1 - start["draw_rate"].item()) / 2)
    later = table[table["hands"] == 1]
    ahead = later[later["lead"] >= 100]
    behind = later[later["lead"] < -100]
    rate_ahead = ahead["wins"].sum() / ahead["games"].sum()
    rate_behind = behind["wins"].sum() / behind["games"].sum()
    assert rate_ahead > 0.7 > 0.3 > rate_behind
    # Win rates rise with the lead (a weighted rank correlation over the cells).
    weights = later["games"].to_numpy(dtype=float)
    lead = later["lead"].to_numpy(dtype=float)
    rate = later["win_rate"].to_numpy()
    covariance = np.cov(lead, rate, aweights=weights)[0, 1]
    assert covariance > 0
    full = win_probability(games, min_games=1)
    assert full["games"].sum() >= table["games"].sum()


def test_heat_map(games):
    table = win_probability_by_lead(games, min_games=5)
    ax = plot_win_probability(table)
    assert ax.collections and ax.get_title().startswith("Win probability")
    mesh = ax.collections[0].get_array()
    assert np.ma.count_masked(mesh) > 0 and np.ma.count(mesh) == len(table)
    empty = plot_win_probability(table.iloc[:0])
    assert "no data" in [t.get_text() for t in empty.texts]
    two = pd.concat([table, table.assign(config="other")])
    with pytest.raises(AnalysisError, match="one group"):
        plot_win_probability(two)
