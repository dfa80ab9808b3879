"""Bradley-Terry ratings from pairwise results, on the Elo scale (pure NumPy).

The model: strategy ``i`` has strength ``p_i > 0`` and beats ``j`` with probability
``p_i / (p_i + p_j)``. A tie counts half a win to each side. The fit is the maximum likelihood
by the MM algorithm of Hunter (2004, "MM algorithms for generalized Bradley-Terry models"),
which increases the likelihood at every step and needs no step size.
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
                  max_iter: int = 100_000) -> Ratings:
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

    Returns
    -------
    Ratings
        Elo-scale ratings anchored to average 0. The 95% intervals come from the observed Fisher
        information of the log-strengths under that anchoring (the Moore-Penrose inverse of the
        information matrix, whose null space is the common shift), each game counted as an
        independent trial.

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
    stderr = ELO * np.sqrt(np.clip(np.diag(covariance), 0.0, None))
    rating = ELO * (theta - theta.mean())
    return Ratings(rating, stderr, rating - Z95 * stderr, rating + Z95 * stderr, iterations)


def win_probability(rating_a: float, rating_b: float) -> float:
    """Bradley-Terry probability that ``a`` beats ``b`` from Elo-scale ratings.

    >>> round(win_probability(400.0, 0.0), 4)
    0.9091
    """
    return 1.0 / (1.0 + 10.0 ** ((rating_b - rating_a) / 400.0))
