"""How a candidate is scored: duplicate whole games on common deals, and the seeds they use.

A *board* is one game id of a seed: the same deals (and first dealer) in every seating, because
every seating plays the game from the same stream keys (``core/seeding.py``). The candidate
plays each board in every seating of ``evaluate.rotation.seatings`` against one opponent
strategy (the candidate as A); the board's difference is the mean over the seatings of (the
candidate's final score minus the opponent's: the mean over the opponent seats' sides), so card
luck cancels as in a duplicate match: ``evaluate.rotation.board_differences`` computes it.

Seeds: generation ``g`` of a tuning with seed ``S`` plays boards ``0 .. B - 1`` of
:func:`generation_seed` ``(S, g)``, every candidate of the generation on the same boards
(common random numbers), new boards each generation; the held-out evaluation plays boards of
:func:`holdout_seed` ``(S)``, a seed no generation uses.

A candidate's score over several opponents is the mean of its mean differences against each,
or the worst of them (:func:`objective_score`).
"""

from __future__ import annotations

import numpy as np

from ..core.limits import MAX_SEED
from ..core.seeding import check_seed

# The spawn keys of the seeds derived from a tuning's seed (apart from the run streams' (0,)).
_GENERATION_BRANCH = 1
_HOLDOUT_BRANCH = 2

# What a candidate's score is, over the opponents: the mean of its per-opponent results, or the
# worst of them (a strategy that must lose to none). The text goes into settings.json; the
# mean's is the one every tuning folder held before the choice existed, so those still resume.
OBJECTIVES = {
    "mean": "mean final-score difference per duplicate board",
    "worst": "worst opponent's mean final-score difference per duplicate board",
}


def _derived(seed: int, *branch: int) -> int:
    """A seed derived from ``seed`` and a spawn key (a 128-bit integer)."""
    words = np.random.SeedSequence(check_seed(seed), spawn_key=branch).generate_state(
        4, dtype=np.uint32)
    value = 0
    for word in words:
        value = (value << 32) | int(word)
    return value % (MAX_SEED + 1)


def generation_seed(seed: int, generation: int) -> int:
    """The seed of the boards of generation ``generation`` (from 0) of a tuning with ``seed``.

    >>> generation_seed(1, 0) != generation_seed(1, 1) != holdout_seed(1)
    True
    """
    return _derived(seed, _GENERATION_BRANCH, generation)


def holdout_seed(seed: int) -> int:
    """The seed of the held-out boards of a tuning with ``seed``: no generation plays it."""
    return _derived(seed, _HOLDOUT_BRANCH)


def objective_score(against: dict, objective: str) -> float:
    """A candidate's score from its mean difference against each opponent.

    >>> against = {"heuristic": 10.0, "cautious": -4.0}
    >>> objective_score(against, "mean"), objective_score(against, "worst")
    (3.0, -4.0)
    """
    values = list(against.values())
    return float(np.mean(values)) if objective == "mean" else float(min(values))
