"""Paired intervals of the binary metrics (set, nil) of ``effects.paired_effects`` against
independent computations on built frames: a per-deal (cluster by deal) interval computed here
with NumPy, and a bootstrap that resamples whole deals. Tango's score interval of
``metrics.paired_binary_difference`` against the score statistic computed here from a
constrained maximum likelihood found numerically."""

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats

from spades_sim.analysis import effects
from spades_sim.analysis.metrics import paired_binary_difference

HANDS = 4000


def _frame(config: str, side_set: np.ndarray, seat_nil: np.ndarray) -> pd.DataFrame:
    """Four seats, two sides, ``HANDS`` hands: ``side_set[h, side]`` whether the side is set
    (contract 6, taken 5 or 6), ``seat_nil[h, seat]`` whether the seat bids nil."""
    hands = np.repeat(np.arange(HANDS), 4)
    seat = np.tile(np.arange(4), HANDS)
    side = seat % 2
    setting = side_set[hands, side]
    return pd.DataFrame({
        "config": config, "duplicate": False, "game_id": -1, "hand_id": hands, "seat": seat,
        "side": side, "tricks": np.where(setting, 2, 3),
        "score_delta": np.where(setting, -60, 60), "side_contract": 6,
        "side_taken": np.where(setting, 5, 6), "nil": seat_nil[hands, seat]})


def _sides_correlated(rng, rate: float) -> np.ndarray:
    """Side-hand set events with the two sides of a hand negatively correlated (when one side
    is set the other rarely is, as in play)."""
    first = rng.random(HANDS) < rate
    second = np.where(first, rng.random(HANDS) < rate / 10, rng.random(HANDS) < rate)
    return np.stack([first, second], axis=1)


def _per_deal_interval(base: np.ndarray, other: np.ndarray):
    """The t interval of the mean per-deal difference, each deal's value the mean over its
    units (``base``, ``other``: units by hand), computed directly."""
    difference = other.mean(axis=1) - base.mean(axis=1)
    half = stats.t.ppf(0.975, HANDS - 1) * difference.std(ddof=1) / np.sqrt(HANDS)
    return difference.mean() - half, difference.mean() + half


def _cluster_bootstrap(base: np.ndarray, other: np.ndarray, rng, draws: int = 2000):
    """Percentile interval of the difference of rates, resampling whole deals."""
    per_deal = other.mean(axis=1) - base.mean(axis=1)
    picks = rng.integers(0, HANDS, size=(draws, HANDS))
    means = per_deal[picks].mean(axis=1)
    return np.quantile(means, [0.025, 0.975])


def _within(interval, reference, tolerance: float = 0.2) -> bool:
    """Both ends within ``tolerance`` of the reference's width, and the widths too."""
    width = reference[1] - reference[0]
    return (abs(interval[0] - reference[0]) <= tolerance * width
            and abs(interval[1] - reference[1]) <= tolerance * width
            and abs((interval[1] - interval[0]) - width) <= tolerance * width)


@pytest.fixture(scope="module")
def cases():
    """A lopsided case (few sets, and the configuration sets only where the baseline does:
    every discordant side-hand a loss) and a balanced one (many events both ways)."""
    rng = np.random.default_rng(36)
    lopsided_base = _sides_correlated(rng, 0.01)
    lopsided = lopsided_base & (rng.random(lopsided_base.shape) < 0.3)
    balanced_base = _sides_correlated(rng, 0.3)
    flip = rng.random(balanced_base.shape) < 0.2
    balanced = balanced_base ^ flip
    nil_base = rng.random((HANDS, 4)) < 0.08
    nil_other = nil_base ^ (rng.random((HANDS, 4)) < 0.05)
    never = np.zeros((HANDS, 4), dtype=bool)
    frame = pd.concat([_frame("base", lopsided_base, never), _frame("fewer", lopsided, never),
                       _frame("base2", balanced_base, nil_base),
                       _frame("other", balanced, nil_other)], ignore_index=True)
    frame["config"] = frame["config"].astype("category")
    return {"frame": frame, "rng": rng, "sets": {
        "fewer": (lopsided_base, lopsided), "other": (balanced_base, balanced)},
        "nils": (nil_base, nil_other)}


@pytest.mark.parametrize("config, baseline", [("fewer", "base"), ("other", "base2")])
def test_binary_interval_is_the_per_deal_interval(cases, config, baseline):
    frame = cases["frame"]
    part = frame[frame["config"].isin([config, baseline])]
    part = part.assign(config=part["config"].astype(str).astype("category"))
    row = effects.paired_effects(part, baseline, metrics=["set"]).iloc[0]
    base, other = cases["sets"][config]
    direct = _per_deal_interval(base, other)
    boot = _cluster_bootstrap(base, other, cases["rng"])
    interval = (row["diff_low"], row["diff_high"])
    assert row["diff"] == pytest.approx(other.mean() - base.mean(), abs=1e-12)
    assert _within(interval, direct) and _within(interval, boot)
    # McNemar's p-value stays, on the discordant side-hands.
    gains = int((other & ~base).sum())
    losses = int((~other & base).sum())
    assert (row["gains"], row["losses"], row["method"]) == (gains, losses, "mcnemar")
    assert row["diff_p"] == pytest.approx(stats.binomtest(gains, gains + losses).pvalue)
    # The interval conditional on the discordant count (the old method) fails this test in
    # the lopsided case: it is far narrower than the per-deal interval.
    if config == "fewer":
        ci = stats.binomtest(gains, gains + losses).proportion_ci(0.95, method="exact")
        units = base.size
        conditional = ((gains + losses) / units * (2 * ci.low - 1),
                       (gains + losses) / units * (2 * ci.high - 1))
        assert not _within(conditional, direct)


def test_nil_interval_is_per_deal_and_the_two_stage_path_agrees(cases):
    frame = cases["frame"]
    part = frame[frame["config"].isin(["base2", "other"])]
    part = part.assign(config=part["config"].astype(str).astype("category"))
    one_shot = effects.paired_effects(part, "base2")
    row = one_shot[one_shot["metric"] == "nil"].iloc[0]
    base, other = cases["nils"]
    assert _within((row["diff_low"], row["diff_high"]), _per_deal_interval(base, other))
    names = ["base2", "other"]
    summaries = [effects.hand_summary(part[part["config"] == name]) for name in names]
    two_stage = effects.paired_from_summary(effects.join_summaries(summaries, names), "base2")
    two_stage["config"] = two_stage["config"].astype(str)
    one_shot["config"] = one_shot["config"].astype(str)
    pd.testing.assert_frame_equal(two_stage, one_shot, check_categorical=False)


def _tango_score(gains, losses, n, d):
    """The score statistic at ``d``, the constrained maximum likelihood found numerically."""
    neither = n - gains - losses

    def minus_log_likelihood(q):
        cells = np.array([q + d, q, 1 - 2 * q - d])
        counts = np.array([gains, losses, neither])
        return -np.sum(np.where(counts > 0, counts * np.log(np.maximum(cells, 1e-300)), 0.0))

    low, high = max(0.0, -d) + 1e-15, (1 - d) / 2 - 1e-15
    q = optimize.minimize_scalar(minus_log_likelihood, bounds=(low, high), method="bounded",
                                 options={"xatol": 1e-13}).x
    return (gains - losses - n * d) / np.sqrt(n * (2 * q + d * (1 - d)))


@pytest.mark.parametrize("gains, losses, n", [(1, 9, 200), (2, 12, 200), (40, 25, 500),
                                              (0, 3, 1000), (7, 0, 30)])
def test_tango_interval_ends_where_the_score_statistic_reaches_the_quantile(gains, losses, n):
    diff, low, high = paired_binary_difference(gains, losses, n)
    assert diff == (gains - losses) / n and low < diff < high
    z = stats.norm.ppf(0.975)
    assert _tango_score(gains, losses, n, low) == pytest.approx(z, abs=1e-4)
    assert _tango_score(gains, losses, n, high) == pytest.approx(-z, abs=1e-4)


def test_tango_interval_is_not_conditional_on_the_discordant_count():
    """With every discordant pair one way the conditional interval has almost no width; the
    score interval does not, and it covers zero when nothing is discordant."""
    _, low, high = paired_binary_difference(0, 40, 20_000)
    ci = stats.binomtest(0, 40).proportion_ci(0.95, method="exact")
    conditional = 40 / 20_000 * 2 * (ci.high - ci.low)
    assert high - low > 3 * conditional and low < -40 / 20_000 < high
    diff, low, high = paired_binary_difference(0, 0, 50)
    assert diff == 0 and low < 0 < high
    assert np.isnan(paired_binary_difference(0, 0, 0)[0])
