"""Bradley-Terry intervals scaled for overdispersion (``evaluate.ratings``): the dispersion is
Pearson's chi-square over its degrees of freedom computed here by hand, and on simulated
tournaments whose games come in correlated blocks (as a board's games do) the scaled standard
errors match the ratings' spread over many tournaments, where the plain ones fall far short."""

import numpy as np
import pytest

from spades_sim.evaluate.ratings import (
    bradley_terry,
    dispersion_scale,
    goodness_of_fit,
    scale_interval,
)


def test_dispersion_is_pearson_chi_square_over_dof():
    wins = np.array([[0, 30, 10], [10, 0, 30], [30, 10, 0]], dtype=float)
    fit = goodness_of_fit(wins)
    # Every rating equal: each pair's Pearson term is (30 - 20)^2 / (40 / 4) = 10, 3 pairs,
    # 3 - 2 = 1 degree of freedom.
    assert fit.dispersion == pytest.approx(30.0) and fit.scale == pytest.approx(np.sqrt(30.0))
    plain = bradley_terry(wins)
    scaled = bradley_terry(wins, dispersion=fit.dispersion)
    assert scaled.stderr == pytest.approx(plain.stderr * np.sqrt(30.0))
    assert scaled.rating == pytest.approx(plain.rating)
    assert bradley_terry(wins, dispersion=0.5).stderr == pytest.approx(plain.stderr)
    assert "widened 5.5 times" in fit.describe_scale()
    assert scale_interval(0.0, -1.0, 2.0, fit.scale) == pytest.approx(
        (-np.sqrt(30.0), 2 * np.sqrt(30.0)))
    assert dispersion_scale(float("nan")) == 1.0


def _tournament(rng, strength, blocks: int, block_games: int, spread: float):
    """Each pair plays ``blocks`` blocks of ``block_games`` games; a block's games share a
    win probability drawn around the model's (a beta of concentration ``spread``)."""
    k = len(strength)
    wins = np.zeros((k, k))
    for i in range(k):
        for j in range(i + 1, k):
            share = strength[i] / (strength[i] + strength[j])
            block = rng.beta(share * spread, (1 - share) * spread, size=blocks)
            won = rng.binomial(block_games, block).sum()
            wins[i, j] += won
            wins[j, i] += blocks * block_games - won
    return wins


def test_scaled_intervals_match_the_spread_over_tournaments():
    rng = np.random.default_rng(242)
    strength = np.exp(np.array([0.4, 0.2, 0.0, -0.2, -0.4]))
    ratings, plain, scaled = [], [], []
    for _ in range(300):
        wins = _tournament(rng, strength, blocks=20, block_games=20, spread=4.0)
        fit = goodness_of_fit(wins)
        model = bradley_terry(wins)
        ratings.append(model.rating[0])
        plain.append(model.stderr[0])
        scaled.append(bradley_terry(wins, dispersion=fit.dispersion).stderr[0])
    spread = np.std(ratings, ddof=1)
    # The games of a block share their probability: about 1 + 19 / 5 = 4.8 times the variance.
    assert np.sqrt(np.mean(np.square(scaled))) == pytest.approx(spread, rel=0.25)
    assert np.sqrt(np.mean(np.square(plain))) < 0.6 * spread


def test_tournament_ratings_and_differences_are_widened_by_the_fit():
    """``spades-sim tournament``'s ratings and rating differences carry the same widening as
    the report: the cycle above (dispersion 30) as three matches."""
    from types import SimpleNamespace

    from spades_sim.evaluate.tournament import rating_difference, tournament_ratings

    names = ["a", "b", "c"]
    matches = [SimpleNamespace(a=a, b=b, a_wins=30, b_wins=10, ties=0, mean_diff=1.0)
               for a, b in (("a", "b"), ("b", "c"), ("c", "a"))]
    rows, _ = tournament_ratings(names, matches)
    wins = np.array([[0, 30, 10], [10, 0, 30], [30, 10, 0]], dtype=float)
    plain = bradley_terry(wins)
    half = {row["strategy"]: (row["high"] - row["low"]) / 2 for row in rows}
    for i, name in enumerate(names):
        assert half[name] == pytest.approx((plain.high[i] - plain.low[i]) / 2 * np.sqrt(30.0))
    diff, low, high = rating_difference(names, matches, "a", "b")
    assert diff == pytest.approx(0.0, abs=1e-6)
    assert (high - low) / 2 > 5 * 1.96 * plain.stderr[0]
