"""Bradley-Terry ratings from pairwise results, on the Elo scale (pure NumPy).

The model: strategy ``i`` has strength ``p_i > 0`` and beats ``j`` with probability
``p_i / (p_i + p_j)``. A tie counts half a win to each side. The fit is the maximum likelihood
by the MM algorithm of Hunter (2004, "MM algorithms for generalized Bradley-Terry models"),
which increases the likelihood at every step and needs no step size.

The model can be wrong: strengths on one line cannot hold when ``a`` beats ``b``, ``b`` beats
``c`` and ``c`` beats ``a``, or when two strategies differ against one opponent and not
another. :func:`goodness_of_fit` tests it against the saturated pairwise model (each pair its
own win rate); where it fails, the ratings are a rough order only, and the head-to-head results
are what the data say. The games of a pair vary more than one strength per strategy allows
(overdispersion), so the intervals, which count every game as an independent trial, are scaled
by the square root of the dispersion ``Fit.dispersion = chi_square / dof`` (the quasi-likelihood
correction; :func:`scale_interval`): a dispersion of 242 widens them about 15.6 times.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..analysis.metrics import Z95
from ..core.errors import EvaluationError

ELO = 400.0 / np.log(10.0)  # Elo points per unit of natural log-strength


@dataclass(frozen=True)
class Ratings:
    """A fitted Bradley-Terry model.

    ``rating``: Elo-scale ratings (``400 * log10(p_i)``), averaging 0; ``stderr``: their standard
    errors; ``low``/``high``: the 95% interval ``rating -+ 1.96 * stderr``; ``iterations``: MM
    steps taken.
    """

    rating: np.ndarray
    stderr: np.ndarray
    low: np.ndarray
    high: np.ndarray
    iterations: int


def bradley_terry(wins, ties=None, *, prior_ties: float = 1.0, tol: float = 1e-10,
                  max_iter: int = 100_000, dispersion: float = 1.0) -> Ratings:
    """Fit Bradley-Terry strengths to pairwise results by maximum likelihood.

    Parameters
    ----------
    wins : array_like, shape (k, k)
        ``wins[i, j]``: how often ``i`` beat ``j`` (the diagonal is ignored).
    ties : array_like, shape (k, k), optional
        ``ties[i, j]`` (symmetric): ties between ``i`` and ``j``; each counts half a win to both.
    prior_ties : float
        Virtual ties added between every pair (default one). Without them a strategy that wins
        or loses every game has no finite maximum (its rating runs to plus or minus infinity);
        one virtual tie per opponent keeps every rating finite and moves well-measured ratings
        by a negligible amount. ``0`` fits the plain likelihood.
    dispersion : float
        The variance of the results over what the model allows (``Fit.dispersion``); the
        standard errors are multiplied by ``sqrt(max(dispersion, 1))``. Default 1: every game
        an independent trial of the model.

    Returns
    -------
    Ratings
        Elo-scale ratings anchored to average 0. The 95% intervals come from the observed Fisher
        information of the log-strengths under that anchoring (the Moore-Penrose inverse of the
        information matrix, whose null space is the common shift), each game counted as an
        independent trial, times ``sqrt(max(dispersion, 1))``.

    >>> fit = bradley_terry([[0, 2, 4], [1, 0, 2], [1, 1, 0]])
    >>> [round(float(r)) for r in fit.rating], round(float(fit.rating.sum()), 9)
    ([93, 0, -93], 0.0)
    """
    wins = np.asarray(wins, dtype=float)
    k = wins.shape[0]
    if wins.shape != (k, k) or k < 2:
        raise EvaluationError(f"wins: expected a square matrix of at least 2 x 2, got {wins.shape}")
    ties = np.zeros_like(wins) if ties is None else np.asarray(ties, dtype=float)
    if ties.shape != wins.shape or not np.allclose(ties, ties.T):
        raise EvaluationError("ties: expected a symmetric matrix the shape of wins")
    off = ~np.eye(k, dtype=bool)
    if (wins[off] < 0).any() or (ties[off] < 0).any() or prior_ties < 0:
        raise EvaluationError("wins, ties and prior_ties must not be negative")
    score = np.where(off, wins + 0.5 * ties + 0.5 * prior_ties, 0.0)  # s[i, j]: i's points vs j
    trials = score + score.T  # n[i, j]: comparisons between i and j
    total = score.sum(axis=1)
    if (total <= 0).any():
        raise EvaluationError("a strategy without any win or tie has no finite rating "
                         "(use prior_ties > 0)")
    strength = np.ones(k)
    iterations, change = 0, np.inf
    while change >= tol and iterations < max_iter:
        iterations += 1
        denominator = (trials / (strength[:, None] + strength[None, :])).sum(axis=1)
        updated = total / denominator
        updated /= np.exp(np.log(updated).mean())  # geometric mean 1: ratings average 0
        change = np.abs(np.log(updated) - np.log(strength)).max()
        strength = updated
    theta = np.log(strength)
    share = strength[:, None] / (strength[:, None] + strength[None, :])
    weight = trials * share * share.T  # n_ij * pi_ij * (1 - pi_ij)
    information = np.diag(weight.sum(axis=1)) - weight
    covariance = np.linalg.pinv(information)
    stderr = ELO * np.sqrt(np.clip(np.diag(covariance), 0.0, None)) * dispersion_scale(
        dispersion)
    rating = ELO * (theta - theta.mean())
    return Ratings(rating, stderr, rating - Z95 * stderr, rating + Z95 * stderr, iterations)


@dataclass(frozen=True)
class Fit:
    """Goodness of fit of a Bradley-Terry model against the saturated pairwise model.

    ``chi_square``: Pearson's statistic, the sum over pairs of ``(s_ij - n_ij pi_ij)^2 /
    (n_ij pi_ij (1 - pi_ij))``; ``deviance``: the likelihood-ratio statistic ``G^2``; ``dof``:
    the pairs that played minus ``k - 1`` (the model's free strengths); ``p_value``: the
    chi-square upper tail of ``chi_square`` on ``dof`` (nan when ``dof == 0``: a saturated
    model, nothing to test); ``fits``: ``p_value >= alpha`` (True when untestable).
    """

    chi_square: float
    deviance: float
    dof: int
    p_value: float
    alpha: float

    @property
    def fits(self) -> bool:
        return not self.p_value < self.alpha

    @property
    def dispersion(self) -> float:
        """``chi_square / dof``: how much more the pairs' results vary than the model allows
        (about 1 when it fits); nan when ``dof == 0``."""
        return self.chi_square / self.dof if self.dof else float("nan")

    @property
    def scale(self) -> float:
        """The factor on the model's standard errors: ``sqrt(max(dispersion, 1))`` (1 when
        untestable)."""
        return dispersion_scale(self.dispersion)

    def to_dict(self) -> dict:
        nan = self.p_value != self.p_value
        return {"chi_square": self.chi_square, "deviance": self.deviance, "dof": self.dof,
                "p_value": None if nan else self.p_value, "alpha": self.alpha,
                "fits": self.fits}

    def describe_scale(self) -> str:
        """``dispersion 242.0 (chi-square / dof): the rating intervals are widened 15.6
        times`` (or that they are not)."""
        if not self.dof:
            return "no dispersion to estimate: the rating intervals are the model's"
        if self.scale == 1.0:
            return (f"dispersion {self.dispersion:.2f} (chi-square / dof) is at most 1: the "
                    f"rating intervals are the model's")
        return (f"dispersion {self.dispersion:.1f} (chi-square / dof): the rating intervals "
                f"are widened {self.scale:.1f} times for it")

    def describe(self) -> str:
        """``chi-square 784.0 on 6 degrees of freedom (deviance 790.1), p < 1e-12``."""
        if not self.dof:
            return "saturated (one free parameter per pair): no test of fit possible"
        p = "p < 1e-12" if self.p_value < 1e-12 else f"p = {self.p_value:.3g}"
        return (f"chi-square {self.chi_square:.1f} on {self.dof} degree"
                f"{'s' if self.dof != 1 else ''} of freedom (deviance {self.deviance:.1f}), {p}")


def goodness_of_fit(wins, ties=None, rating=None, *, alpha: float = 0.05) -> Fit:
    """Test Bradley-Terry against the saturated pairwise model (Pearson chi-square and deviance).

    Each pair ``i < j`` that played is one binomial observation: ``s_ij = wins[i, j] +
    ties[i, j] / 2`` points of ``i`` in ``n_ij = wins[i, j] + wins[j, i] + ties[i, j]`` games,
    expected ``n_ij pi_ij`` with ``pi_ij = p_i / (p_i + p_j)`` from the fitted ``rating`` (the
    maximum likelihood of :func:`bradley_terry` with its default virtual ties, when not given).
    The saturated model gives every pair its own rate; the statistics have ``pairs - (k - 1)``
    degrees of freedom and their p-value is ``scipy.stats.chi2.sf``. Every game counts as an
    independent trial.

    Parameters
    ----------
    wins, ties : array_like, shape (k, k)
        As for :func:`bradley_terry`.
    rating : array_like, shape (k,), optional
        Elo-scale ratings to test (default: fitted here).
    alpha : float
        The level below which the model counts as rejected (``Fit.fits``).

    Examples
    --------
    Three strategies in a cycle (each beats the next 30 to 10) rate equal, and the model is
    rejected: each pair's Pearson term is ``(30 - 20)^2 / (40 / 4) = 10``, so 30 on 3 - 2 = 1
    degree of freedom.

    >>> fit = goodness_of_fit([[0, 30, 10], [10, 0, 30], [30, 10, 0]])
    >>> round(fit.chi_square, 6), fit.dof, fit.fits
    (30.0, 1, False)
    """
    wins = np.asarray(wins, dtype=float)
    k = wins.shape[0] if wins.ndim == 2 else 0
    ties = np.zeros_like(wins) if ties is None else np.asarray(ties, dtype=float)
    if rating is None:
        rating = bradley_terry(wins, ties).rating
    rating = np.asarray(rating, dtype=float)
    if rating.shape != (k,):
        raise EvaluationError(f"rating: expected {k} ratings, got shape {rating.shape}")
    strength = np.exp(rating / ELO)
    chi_square = deviance = 0.0
    pairs = 0
    for i in range(k):
        for j in range(i + 1, k):
            n = wins[i, j] + wins[j, i] + ties[i, j]
            if n <= 0:
                continue
            pairs += 1
            share = strength[i] / (strength[i] + strength[j])
            points = wins[i, j] + 0.5 * ties[i, j]
            expected = n * share
            chi_square += (points - expected) ** 2 / (n * share * (1.0 - share))
            for observed, fitted in ((points, expected), (n - points, n - expected)):
                if observed > 0:
                    deviance += 2.0 * observed * np.log(observed / fitted)
    dof = max(pairs - (k - 1), 0)
    from scipy import stats  # here: SciPy takes a second to import

    p_value = float(stats.chi2.sf(chi_square, dof)) if dof else float("nan")
    return Fit(float(chi_square), float(deviance), dof, p_value, alpha)


def dispersion_scale(dispersion: float) -> float:
    """``sqrt(max(dispersion, 1))``, 1 for nan: the factor on standard errors for a dispersion.

    >>> dispersion_scale(242.0), dispersion_scale(0.5), dispersion_scale(float("nan"))
    (15.556349186104045, 1.0, 1.0)
    """
    dispersion = float(dispersion)
    if dispersion != dispersion or dispersion <= 1.0:
        return 1.0
    return float(np.sqrt(dispersion))


def scale_interval(estimate: float, low: float, high: float, scale: float):
    """``(low, high)`` of an interval around ``estimate`` widened ``scale`` times.

    >>> scale_interval(10.0, 8.0, 13.0, 2.0)
    (6.0, 16.0)
    """
    return estimate - (estimate - low) * scale, estimate + (high - estimate) * scale


def win_probability(rating_a: float, rating_b: float) -> float:
    """Bradley-Terry probability that ``a`` beats ``b`` from Elo-scale ratings.

    >>> round(win_probability(400.0, 0.0), 4)
    0.9091
    """
    return 1.0 / (1.0 + 10.0 ** ((rating_b - rating_a) / 400.0))
