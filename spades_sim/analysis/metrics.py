"""Metrics: counts beside rates, with confidence intervals, and the tests the analyses use.

Quantiles, intervals and tests come from SciPy and statsmodels. Rates: Wilson intervals, exact
(Clopper-Pearson) where a rate rests on fewer than :data:`RARE_EVENTS` events or non-events
(:func:`rate_interval`; every "Wilson 95%" rate of the analyses follows this rule). Means:
normal or Student t intervals and t tests. Paired binary outcomes: McNemar's exact test and
Tango's score interval of the difference. Families of tests: Holm or Benjamini-Hochberg.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.errors import AnalysisError
from .groups import first_positions, group_codes, group_sums, seat_grid

#: The two-sided 95% normal quantile (``scipy.stats.norm.ppf(0.975)``).
Z95 = 1.959963984540054


def _stats():
    """``scipy.stats``, imported on first use: SciPy and statsmodels take seconds to import, and
    every command and worker that imports this module (only to summarise) would pay for it."""
    from scipy import stats

    return stats


def normal_p(z) -> float:
    """The two-sided p-value of a standard normal statistic ``z``.

    >>> round(normal_p(1.959964), 4)
    0.05
    """
    return float(2.0 * _stats().norm.sf(abs(float(z))))


def wilson_interval(successes, trials, z: float = Z95):
    """Wilson score interval for a proportion; ``(low, high)`` (nan when ``trials == 0``).

    Computed by ``statsmodels.stats.proportion.proportion_confint(method="wilson")`` at the
    level of ``z``; the ends are exactly 0 at ``successes == 0`` and 1 at ``successes ==
    trials``.

    >>> [round(float(x), 4) for x in wilson_interval(50, 100)]
    [0.4038, 0.5962]
    >>> [round(float(x), 12) for x in wilson_interval([0, 3], [3, 3])[0]]
    [0.0, 0.438502968245]
    """
    successes = np.asarray(successes, dtype=float)
    trials = np.asarray(trials, dtype=float)
    alpha = 2.0 * float(_stats().norm.sf(z))
    positive = trials > 0
    safe = np.where(positive, trials, 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        from statsmodels.stats.proportion import proportion_confint

        low, high = proportion_confint(np.where(positive, successes, 0.0), safe, alpha=alpha,
                                       method="wilson")
    low = np.asarray(low, dtype=float)
    high = np.asarray(high, dtype=float)
    # Exact ends at rates 0 and 1 (the formula leaves rounding residue of ~1e-17 there).
    low = np.where(positive, np.where(successes == 0, 0.0, np.clip(low, 0, 1)), np.nan)
    high = np.where(positive, np.where(successes == trials, 1.0, np.clip(high, 0, 1)), np.nan)
    if low.ndim == 0:
        return low[()], high[()]
    return low, high


def exact_interval(successes, trials, level: float = 0.95):
    """Clopper-Pearson (exact binomial) interval for a proportion, ``(low, high)`` (nan when
    ``trials == 0``), from ``scipy.stats.binomtest(...).proportion_ci(method="exact")``; for
    rates made of very few events, where the Wilson interval's coverage is least sure.

    >>> [round(float(x), 4) for x in exact_interval(0, 10)]
    [0.0, 0.3085]
    """
    scalar = np.ndim(successes) == 0 and np.ndim(trials) == 0
    successes, trials = np.broadcast_arrays(np.asarray(successes, dtype=np.int64),
                                            np.asarray(trials, dtype=np.int64))
    low = np.full(successes.shape, np.nan)
    high = np.full(successes.shape, np.nan)
    for index, (k, n) in enumerate(zip(successes.ravel(), trials.ravel())):
        if n > 0:
            ci = _stats().binomtest(int(k), int(n)).proportion_ci(level, method="exact")
            low.flat[index], high.flat[index] = ci.low, ci.high
    if scalar:
        return float(low[()]), float(high[()])
    return low, high


#: Rates resting on fewer events (or non-events) than this get the exact interval.
RARE_EVENTS = 10


def rate_interval(successes, trials):
    """The 95% interval of a rate as the analyses give it: Wilson (:func:`wilson_interval`),
    except the exact Clopper-Pearson interval (:func:`exact_interval`) where the rate rests on
    fewer than :data:`RARE_EVENTS` events or non-events (``successes < 10`` or ``trials -
    successes < 10``), where the Wilson interval's coverage is least sure. nan at 0 trials.

    >>> [round(float(x), 4) for x in rate_interval(50, 100)]  # Wilson
    [0.4038, 0.5962]
    >>> [round(float(x), 4) for x in rate_interval(2, 100)]  # exact
    [0.0024, 0.0704]
    """
    successes = np.asarray(successes, dtype=float)
    trials = np.asarray(trials, dtype=float)
    low, high = wilson_interval(successes, trials)
    rare = (trials > 0) & ((successes < RARE_EVENTS) | (trials - successes < RARE_EVENTS))
    if np.any(rare):
        low, high = np.array(low, dtype=float), np.array(high, dtype=float)
        exact_low, exact_high = exact_interval(np.where(rare, successes, 0).astype(np.int64),
                                               np.where(rare, trials, 0).astype(np.int64))
        low, high = np.where(rare, exact_low, low), np.where(rare, exact_high, high)
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
    (``Z95``: 95%); vectorised, nan where ``dof < 1``. Exact: ``scipy.stats.t.isf`` of the
    normal upper tail of ``z``.

    >>> [round(float(t), 3) for t in t_quantile([1, 2, 10, 30, 1000])]
    [12.706, 4.303, 2.228, 2.042, 1.962]
    """
    dof = np.asarray(dof, dtype=float)
    tail = float(_stats().norm.sf(float(z)))
    with np.errstate(invalid="ignore"):
        return np.where(dof >= 1, _stats().t.isf(tail, np.where(dof >= 1, dof, 1.0)), np.nan)


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


def t_test_p(mean, std, n):
    """Two-sided p-value of Student's one-sample t test of ``mean == 0`` from per-group
    moments (vectorised; ``scipy.stats.t.sf`` with ``n - 1`` degrees of freedom). ``std == 0``
    gives 1 for a zero mean and 0 otherwise; nan where ``n < 2``.

    >>> [round(float(p), 4) for p in t_test_p([1.0, 0.0], [2.0, 0.0], [16, 5])]
    [0.0639, 1.0]
    """
    mean = np.asarray(mean, dtype=float)
    std = np.asarray(std, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        statistic = np.abs(mean) / (std / np.sqrt(n))
        p = 2.0 * _stats().t.sf(statistic, np.where(n >= 2, n - 1, 1.0))
    p = np.where(std == 0, np.where(mean == 0, 1.0, 0.0), p)
    return np.where(n >= 2, p, np.nan)


def mcnemar_exact(gains, losses, mid_p: bool = False) -> float:
    """McNemar's exact test of paired binary outcomes: the two-sided p-value that the
    discordant pairs split evenly, ``scipy.stats.binomtest(gains, gains + losses, 0.5)``.

    ``gains``: pairs with the event in the configuration only; ``losses``: in the baseline
    only. ``mid_p``: the mid-p variant (the exact p-value minus the probability of the observed
    split; less conservative). 1 when there is no discordant pair.

    >>> round(mcnemar_exact(1, 9), 6), round(mcnemar_exact(1, 9, mid_p=True), 6)
    (0.021484, 0.011719)
    """
    gains, losses = int(gains), int(losses)
    total = gains + losses
    if total == 0:
        return 1.0
    p = _stats().binomtest(gains, total, 0.5).pvalue
    if mid_p:
        p -= _stats().binom.pmf(gains, total, 0.5) * (2.0 if gains * 2 != total else 1.0) / 2.0
    return float(min(max(p, 0.0), 1.0))


def paired_binary_difference(gains, losses, n, level: float = 0.95):
    """Difference of two paired proportions with Tango's score interval, ``(diff, low, high)``.

    Over ``n`` independent pairs, ``gains`` with the event under the first only and ``losses``
    under the second only, ``diff = (gains - losses) / n``. The interval (Tango 1998,
    "Equivalence test and confidence interval for the difference in proportions for the
    paired-sample design") holds the differences ``d`` whose score statistic ``(gains - losses
    - n d) / sqrt(n (2 q + d (1 - d)))`` lies within the normal quantile, ``q`` being the
    maximum-likelihood share of ``losses`` under the constraint ``diff = d``. Unlike the
    interval conditional on the discordant count ``gains + losses`` (which treats it as fixed),
    its width follows the sampling of that count too. The pairs must be independent: for units
    clustered in deals (the sides of one hand), take the interval of the per-deal differences
    (``effects.paired_effects``). ``(0, low, high)`` with ``low < 0 < high`` when no pair is
    discordant; nan for ``n == 0``.

    >>> [round(x, 4) for x in paired_binary_difference(1, 9, 200)]
    [-0.04, -0.079, -0.0114]
    """
    gains, losses, n = int(gains), int(losses), int(n)
    if n <= 0:
        return float("nan"), float("nan"), float("nan")
    stats = _stats()
    quantile = float(stats.norm.isf((1.0 - level) / 2.0))
    diff = (gains - losses) / n

    def score(d):  # the score statistic at difference d, minus the quantile's sign
        # The constrained MLE of q (the share of losses) is a root of the quadratic
        # 2n q^2 + (-(gains + losses) + (2n - gains + losses) d) q - losses d (1 - d) = 0.
        a = 2.0 * n
        b = -(gains + losses) + (2.0 * n - gains + losses) * d
        c = -losses * d * (1.0 - d)
        q = (-b + np.sqrt(max(b * b - 4.0 * a * c, 0.0))) / (2.0 * a)
        variance = n * (2.0 * q + d * (1.0 - d))
        residual = gains - losses - n * d
        if residual == 0 or variance <= 0:
            return 0.0 if residual == 0 else np.copysign(np.inf, residual)
        return residual / np.sqrt(variance)

    from scipy.optimize import brentq

    edge = 1.0 - 1e-12
    low = -1.0 if score(-edge) < quantile else brentq(
        lambda d: score(d) - quantile, -edge, diff, xtol=1e-14)
    high = 1.0 if score(edge) > -quantile else brentq(
        lambda d: score(d) + quantile, diff, edge, xtol=1e-14)
    return diff, float(low), float(high)


#: Multiple-comparison adjustments :func:`adjust_pvalues` accepts (``statsmodels`` names).
ADJUSTMENTS = {"holm": "Holm (family-wise error rate)",
               "fdr_bh": "Benjamini-Hochberg (false discovery rate)"}


def adjust_pvalues(pvalues, method: str = "holm", alpha: float = 0.05):
    """Adjust a family of p-values for multiple comparisons; ``(adjusted, reject)``.

    ``statsmodels.stats.multitest.multipletests`` with ``method`` ``holm`` (controls the chance
    of any false claim) or ``fdr_bh`` (the expected share of false claims). nan p-values stay
    nan and are not rejected; the others are adjusted as one family.

    >>> adjusted, reject = adjust_pvalues([0.01, 0.04, 0.03, float("nan")])
    >>> [round(float(p), 4) for p in adjusted[:3]], reject.tolist()
    ([0.03, 0.06, 0.06], [True, False, False, False])
    """
    if method not in ADJUSTMENTS:
        raise AnalysisError(f"adjust_pvalues: method {method!r}: expected one of "
                            f"{', '.join(ADJUSTMENTS)}")
    pvalues = np.asarray(pvalues, dtype=float)
    adjusted = np.full(pvalues.shape, np.nan)
    reject = np.zeros(pvalues.shape, dtype=bool)
    known = ~np.isnan(pvalues)
    if known.any():
        from statsmodels.stats.multitest import multipletests

        rejected, corrected, _, _ = multipletests(pvalues[known], alpha=alpha, method=method)
        adjusted[known], reject[known] = corrected, rejected
    return adjusted, reject


# -- helpers the analysis functions share (DataFrame in, DataFrame out) --------------------------
FEATURES = ("spades", "high_cards", "hcp", "voids", "singletons", "longest")
SIDE_HAND = ("config", "duplicate", "game_id", "hand_id", "side")


def require_columns(frame, columns, what: str) -> None:
    """Raise ``ValueError`` naming the columns ``what`` needs and ``frame`` lacks."""
    missing = [c for c in dict.fromkeys(columns) if c not in frame.columns]
    if missing:
        raise AnalysisError(f"{what}: the frame lacks column(s) {', '.join(missing)}")


def side_bags(frame, grid=False) -> tuple[np.ndarray, np.ndarray]:
    """Per row of a tidy frame, the row's side's ``(overtricks, bags_added)`` in its hand.

    ``overtricks``: the tricks counting toward the side's contract beyond it,
    ``max(side_taken - side_contract, 0)`` (every such trick when the contract is 0).
    ``bags_added``: the bags the hand adds to the side's bag counter under the hand's rules
    (``docs/rules.md``, "Bags"): the overtricks, plus the tricks of failed nils that do not
    count toward the contract (``failed_nil_tricks = bags_only``). ``side_taken`` already holds
    the rule's choice (failed-nil tricks are in it only under ``count_toward_bid``), so the
    failed-nil bags are the side's tricks minus ``side_taken``: no rules needed. Before any bag
    penalty, ``bags_after = bags_before + bags_added``.
    ``grid``: :func:`~spades_sim.analysis.groups.seat_grid` of ``frame`` where the caller has
    it (False: found here).

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
    grid = seat_grid(frame) if grid is False else grid
    if grid is not None:  # (each hand's rows in a row: the sides' totals by position)
        players, sides = grid
        seats = frame["tricks"].to_numpy(dtype=np.int64).reshape(-1, players)
        totals = np.zeros_like(seats)
        for side in np.unique(sides):
            mine = sides == side
            totals[:, mine] = seats[:, mine].sum(axis=1, keepdims=True)
        tricks = totals.reshape(-1)
    else:
        tricks = group_sums(frame, SIDE_HAND, "tricks")
    if tricks is None:
        tricks = frame.groupby(list(SIDE_HAND), observed=True, sort=False)["tricks"].transform(
            "sum").to_numpy(dtype=np.int64)
    return overtricks, overtricks + tricks - taken


def aggregate(frame, keys, **aggregations):
    """``frame.groupby(keys).agg(**aggregations)`` with the keys as the first columns, in order;
    observed categories only, sorted by the keys. With no keys: one row over the whole frame
    (none for an empty frame).

    The groups are numbered by ``groups.group_codes`` where the keys allow it (the same groups,
    order and rows as pandas' own, much faster on millions of rows), and the reductions are
    pandas' over those numbers: the values are those of the plain ``groupby``."""
    keys = list(keys)
    found = group_codes(frame, keys) if keys and len(frame) else None
    if found is None:
        grouper = keys if keys else np.zeros(len(frame), dtype=np.int8)
        table = frame.groupby(grouper, observed=True, sort=True).agg(**aggregations)
        return table.reset_index(drop=not keys)
    codes, n_groups = found
    table = frame.groupby(codes, sort=True).agg(**aggregations).reset_index(drop=True)
    first = first_positions(codes, n_groups)
    key_table = frame[keys].iloc[first].reset_index(drop=True)
    return pd.concat([key_table, table], axis=1)


def add_rate(table, name: str, successes: str, trials: str) -> None:
    """Add ``name = successes / trials`` (nan at 0 trials) and its 95% interval as ``name_low``
    / ``name_high`` to ``table`` (in place): Wilson, exact where the rate rests on few events
    (:func:`rate_interval`)."""
    hits = table[successes].to_numpy(dtype=float)
    total = table[trials].to_numpy(dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        table[name] = np.where(total > 0, hits / total, np.nan)
    table[f"{name}_low"], table[f"{name}_high"] = rate_interval(hits, total)


def add_mean_interval(table, name: str, count: str, t: bool = False) -> None:
    """Turn the column ``name + "_sd"`` (sample standard deviation) into ``name_low`` /
    ``name_high``: a normal (or ``t``) 95% interval of the mean ``name`` over ``count`` values."""
    low, high = interval_from_moments(table[name], table[f"{name}_sd"], table[count], t=t)
    position = table.columns.get_loc(f"{name}_sd")
    del table[f"{name}_sd"]
    table.insert(position, f"{name}_high", high)
    table.insert(position, f"{name}_low", low)
