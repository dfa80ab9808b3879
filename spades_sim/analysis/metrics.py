"""Metrics: counts beside rates, with confidence intervals."""

from __future__ import annotations

import numpy as np

Z95 = 1.959963984540054


def wilson_interval(successes, trials, z: float = Z95):
    """Wilson score interval for a proportion; ``(low, high)`` (nan when ``trials == 0``).

    >>> [round(float(x), 4) for x in wilson_interval(50, 100)]
    [0.4038, 0.5962]
    """
    successes = np.asarray(successes, dtype=float)
    trials = np.asarray(trials, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = successes / trials
        denominator = 1 + z**2 / trials
        centre = (p + z**2 / (2 * trials)) / denominator
        half = z * np.sqrt(p * (1 - p) / trials + z**2 / (4 * trials**2)) / denominator
    return centre - half, centre + half


def mean_interval(values, z: float = Z95):
    """Mean and normal-approximation interval ``(mean, low, high)``.

    >>> float(mean_interval([1.0, 2.0, 3.0])[0])
    2.0
    """
    values = np.asarray(values, dtype=float)
    mean = values.mean() if len(values) else float("nan")
    if len(values) < 2:
        return mean, float("nan"), float("nan")
    half = z * values.std(ddof=1) / np.sqrt(len(values))
    return mean, mean - half, mean + half
