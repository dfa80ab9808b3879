"""Metrics: counts beside rates, with confidence intervals."""

from __future__ import annotations

from math import erfc, sqrt

import numpy as np
import pandas as pd  # noqa: F401  (the doctest examples)

from ..core.errors import AnalysisError

Z95 = 1.959963984540054
# Student t 97.5% quantiles for 3..9 degrees of freedom, where the expansion below is least
# accurate (used when ``z`` is ``Z95``).
_T975 = {3: 3.182446305, 4: 2.776445105, 5: 2.570581836, 6: 2.446911851, 7: 2.364624252,
         8: 2.306004135, 9: 2.262157163}


def wilson_interval(successes, trials, z: float = Z95):
    """Wilson score interval for a proportion; ``(low, high)`` (nan when ``trials == 0``).

    The ends are exactly 0 at ``successes == 0`` and 1 at ``successes == trials``.

    >>> [round(float(x), 4) for x in wilson_interval(50, 100)]
    [0.4038, 0.5962]
    >>> [float(x) for x in wilson_interval([0, 3], [3, 3])[0]]
    [0.0, 0.4385029682449546]
    """
    successes = np.asarray(successes, dtype=float)
    trials = np.asarray(trials, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = successes / trials
        denominator = 1 + z**2 / trials
        centre = (p + z**2 / (2 * trials)) / denominator
        half = z * np.sqrt(p * (1 - p) / trials + z**2 / (4 * trials**2)) / denominator
        # Exact ends at rates 0 and 1 (the formula leaves rounding residue of ~1e-17 there).
        low = np.where((successes == 0) & (trials > 0), 0.0, np.clip(centre - half, 0, 1))
        high = np.where((successes == trials) & (trials > 0), 1.0, np.clip(centre + half, 0, 1))
    if low.ndim == 0:
        return low[()], high[()]
    return low, high


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


def t_quantile(dof, z: float = Z95):
    """Two-sided Student t critical value with ``dof`` degrees of freedom at the level of ``z``
    (``Z95``: 95%); vectorised, nan where ``dof < 1``.

    ``dof`` 1 and 2 use the closed forms; larger ``dof`` the Cornish-Fisher expansion of the
    t quantile in powers of ``1/dof`` (Abramowitz and Stegun 26.7.5), within 0.004 (0.12%) of the
    exact value at ``dof = 3``, 0.001 at 4, 3e-4 from ``dof = 5``, 1e-4 from 10; at 95% the exact
    values for ``dof`` 3 to 9 come from a table. No SciPy needed.

    >>> [round(float(t), 3) for t in t_quantile([1, 2, 10, 30, 1000])]
    [12.706, 4.303, 2.228, 2.042, 1.962]
    """
    dof = np.asarray(dof, dtype=float)
    z = float(z)
    # The upper tail probability of z, from the normal cdf (math.erfc: no SciPy).
    tail = 0.5 * erfc(z / sqrt(2.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        g1 = (z**3 + z) / 4
        g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
        g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
        g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
        expansion = z + g1 / dof + g2 / dof**2 + g3 / dof**3 + g4 / dof**4
        one = np.tan(np.pi * (0.5 - tail))
        two = (1 - 2 * tail) / np.sqrt(2 * tail * (1 - tail))
    result = np.where(dof >= 3, expansion, np.where(dof >= 2, two, one))
    if z == Z95:
        for known, value in _T975.items():
            result = np.where(dof == known, value, result)
    return np.where(dof >= 1, result, np.nan)


def interval_from_moments(mean, std, n, z: float = Z95, t: bool = False):
    """``(low, high)`` of ``mean ± q * std / sqrt(n)`` from per-group moments (vectorised).

    ``std`` is the sample standard deviation (``ddof=1``); ``q`` is ``z`` (normal) or, with
    ``t=True``, the Student t value with ``n - 1`` degrees of freedom. nan where ``n < 2``; an
    exact ``(mean, mean)`` where ``std == 0``.

    >>> [float(x) for x in interval_from_moments(2.0, 0.0, 10)]
    [2.0, 2.0]
    >>> [round(float(x), 3) for x in interval_from_moments(0.0, 1.0, 100)]
    [-0.196, 0.196]
    """
    mean = np.asarray(mean, dtype=float)
    std = np.asarray(std, dtype=float)
    n = np.asarray(n, dtype=float)
    quantile = t_quantile(n - 1, z) if t else np.where(n >= 2, z, np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        half = np.where(std == 0, 0.0, quantile * std / np.sqrt(n))
    half = np.where(n >= 2, half, np.nan)
    return mean - half, mean + half


# -- helpers the analysis functions share (DataFrame in, DataFrame out) --------------------------
FEATURES = ("spades", "high_cards", "hcp", "voids", "singletons", "longest")
SIDE_HAND = ("config", "duplicate", "game_id", "hand_id", "side")


def require_columns(frame, columns, what: str) -> None:
    """Raise ``ValueError`` naming the columns ``what`` needs and ``frame`` lacks."""
    missing = [c for c in dict.fromkeys(columns) if c not in frame.columns]
    if missing:
        raise AnalysisError(f"{what}: the frame lacks column(s) {', '.join(missing)}")


def side_bags(frame) -> tuple[np.ndarray, np.ndarray]:
    """Per row of a tidy frame, the row's side's ``(overtricks, bags_added)`` in its hand.

    ``overtricks``: the tricks counting toward the side's contract beyond it,
    ``max(side_taken - side_contract, 0)`` (every such trick when the contract is 0).
    ``bags_added``: the bags the hand adds to the side's bag counter under the hand's rules
    (``docs/rules.md``, "Bags"): the overtricks, plus the tricks of failed nils that do not
    count toward the contract (``failed_nil_tricks = bags_only``). ``side_taken`` already holds
    the rule's choice (failed-nil tricks are in it only under ``count_toward_bid``), so the
    failed-nil bags are the side's tricks minus ``side_taken``: no rules needed. Before any bag
    penalty, ``bags_after = bags_before + bags_added``.

    Examples
    --------
    Side 0 bids 4 and nil, takes 3 and 2 (a failed nil) under ``bags_only`` (``side_taken``
    3: set, no overtrick, 2 bags); side 1 bids 3 + 3 and takes 5 + 3 (2 overtricks, 2 bags):

    >>> frame = pd.DataFrame({"config": "c", "duplicate": False, "game_id": -1, "hand_id": 0,
    ...     "side": [0, 1, 0, 1], "tricks": [3, 5, 2, 3], "side_contract": [4, 6, 4, 6],
    ...     "side_taken": [3, 8, 3, 8]})
    >>> [values.tolist() for values in side_bags(frame)]
    [[0, 2, 0, 2], [2, 2, 2, 2]]
    """
    require_columns(frame, [*SIDE_HAND, "tricks", "side_contract", "side_taken"], "side_bags")
    contract = frame["side_contract"].to_numpy(dtype=np.int64)
    taken = frame["side_taken"].to_numpy(dtype=np.int64)
    overtricks = np.maximum(taken - contract, 0)
    if not len(frame):
        return overtricks, overtricks.copy()
    tricks = frame.groupby(list(SIDE_HAND), observed=True, sort=False)["tricks"].transform("sum")
    return overtricks, overtricks + tricks.to_numpy(dtype=np.int64) - taken


def aggregate(frame, keys, **aggregations):
    """``frame.groupby(keys).agg(**aggregations)`` with the keys as the first columns, in order;
    observed categories only, sorted by the keys. With no keys: one row over the whole frame
    (none for an empty frame)."""
    keys = list(keys)
    grouper = keys if keys else np.zeros(len(frame), dtype=np.int8)
    table = frame.groupby(grouper, observed=True, sort=True).agg(**aggregations)
    return table.reset_index(drop=not keys)


def add_rate(table, name: str, successes: str, trials: str) -> None:
    """Add ``name = successes / trials`` (nan at 0 trials) and its Wilson 95% interval as
    ``name_low`` / ``name_high`` to ``table`` (in place)."""
    hits = table[successes].to_numpy(dtype=float)
    total = table[trials].to_numpy(dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        table[name] = np.where(total > 0, hits / total, np.nan)
    table[f"{name}_low"], table[f"{name}_high"] = wilson_interval(hits, total)


def add_mean_interval(table, name: str, count: str, t: bool = False) -> None:
    """Turn the column ``name + "_sd"`` (sample standard deviation) into ``name_low`` /
    ``name_high``: a normal (or ``t``) 95% interval of the mean ``name`` over ``count`` values."""
    low, high = interval_from_moments(table[name], table[f"{name}_sd"], table[count], t=t)
    position = table.columns.get_loc(f"{name}_sd")
    del table[f"{name}_sd"]
    table.insert(position, f"{name}_high", high)
    table.insert(position, f"{name}_low", low)
