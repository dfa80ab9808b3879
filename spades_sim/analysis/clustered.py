"""Means and rates whose unit is a cluster (a deal, a game) holding several rows: the rows of
one deal or game are not independent (the two sides of a hand share its cards, a game's hands
share its score), so the interval counts clusters, not rows.

:func:`clustered_mean`: the mean over rows with the cluster-robust (sandwich) variance of a
ratio estimator, ``G / (G - 1) * sum_c (sum of the cluster's deviations)^2 / n^2`` over ``G``
clusters, and a Student t interval with ``G - 1`` degrees of freedom. With one row per cluster
this is the plain one-sample t interval.

:func:`clustered_rate`: a proportion over rows, with the Wilson interval at the *effective*
sample size ``n / deff``, where the design effect ``deff`` (at least 1) is the cluster-robust
variance of the rate over the binomial one. With one row per cluster ``deff`` is ``G / (G -
1)``, close to 1, and the interval is Wilson's.
"""

from __future__ import annotations

import numpy as np

from .metrics import Z95, t_quantile, wilson_interval


def _sums(values: np.ndarray, clusters) -> tuple[np.ndarray, int]:
    """Per-cluster sums of ``values`` and the number of clusters."""
    codes = np.unique(np.asarray(clusters), return_inverse=True)[1].reshape(-1)
    count = int(codes.max()) + 1 if len(codes) else 0
    return np.bincount(codes, weights=values, minlength=count), count


def clustered_mean(values, clusters) -> tuple[float, float, float, float]:
    """``(mean, low, high, p)``: the mean of ``values`` with a 95% t interval and the two-sided
    p-value of no difference from zero, clustered by ``clusters`` (one label per value);
    nan interval and p with fewer than 2 clusters.

    >>> mean, low, high, p = clustered_mean([1.0, 2.0, 3.0, 4.0], [0, 1, 2, 3])
    >>> round(mean, 2), round(high - mean, 3)  # one value per cluster: the t interval
    (2.5, 2.054)
    >>> round(clustered_mean([1.0, 1.0, 3.0, 3.0], [0, 0, 1, 1])[2], 2)  # two clusters
    14.71
    """
    values = np.asarray(values, dtype=float)
    n = len(values)
    if n == 0:
        return (float("nan"),) * 4
    mean = float(values.mean())
    sums, count = _sums(values - mean, clusters)
    if count < 2:
        return mean, float("nan"), float("nan"), float("nan")
    variance = count / (count - 1) * float(np.sum(sums ** 2)) / n ** 2
    if variance <= 0:
        return mean, mean, mean, 1.0 if mean == 0 else 0.0
    error = variance ** 0.5
    half = float(t_quantile(count - 1)) * error
    from scipy import stats

    p = float(2.0 * stats.t.sf(abs(mean) / error, count - 1))
    return mean, mean - half, mean + half, p


def clustered_rate(successes, clusters) -> tuple[float, float, float, float]:
    """``(rate, low, high, deff)``: the share of ``successes`` (0/1 per row) with the Wilson 95%
    interval at the effective sample size (module docstring), clustered by ``clusters``;
    ``deff`` is the design effect used (1 where the rate is 0 or 1, or with one cluster).

    >>> rate, low, high, deff = clustered_rate([1, 0, 1, 0], [0, 1, 2, 3])
    >>> rate, round(deff, 3)
    (0.5, 1.333)
    >>> round(clustered_rate([1, 1, 0, 0], [0, 0, 1, 1])[3], 2)  # all alike within a deal
    4.0
    """
    hits = np.asarray(successes, dtype=float)
    n = len(hits)
    if n == 0:
        return (float("nan"),) * 3 + (1.0,)
    rate = float(hits.mean())
    sums, count = _sums(hits - rate, clusters)
    deff = 1.0
    if count >= 2 and 0 < rate < 1:
        variance = count / (count - 1) * float(np.sum(sums ** 2)) / n ** 2
        deff = max(1.0, variance / (rate * (1 - rate) / n))
    effective = n / deff
    low, high = wilson_interval(rate * effective, effective, Z95)
    return rate, float(low), float(high), deff
