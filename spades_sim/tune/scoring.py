"""How a candidate is scored: duplicate whole games on common deals, and the seeds they use.

A *board* is one game id of a seed: the same deals (and first dealer) in every seating, because
every seating plays the game from the same stream keys (``core/seeding.py``). The candidate
plays each board in every seating of :func:`seatings` against one opponent strategy; the
board's difference is the mean over the seatings of (the candidate's final score minus the
opponent's: the mean over the opponent seats' sides), so card luck cancels as in a duplicate
match (``evaluate/match.py``).

Seeds: generation ``g`` of a tuning with seed ``S`` plays boards ``0 .. B - 1`` of
:func:`generation_seed` ``(S, g)``, every candidate of the generation on the same boards
(common random numbers), new boards each generation; the held-out evaluation plays boards of
:func:`holdout_seed` ``(S)``, a seed no generation uses.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import SpadesError
from ..core.limits import MAX_SEED
from ..core.rules import Rules
from ..core.seeding import check_seed
from ..evaluate import rotation

# The spawn keys of the seeds derived from a tuning's seed (apart from the run streams' (0,)).
_GENERATION_BRANCH = 1
_HOLDOUT_BRANCH = 2


def seatings(players: int) -> tuple[tuple[bool, ...], ...]:
    """Where the candidate sits in each play of a board: one tuple per seating, ``True`` at
    the candidate's seats, ``False`` at the opponent's (``evaluate/rotation.py``'s seatings,
    the candidate as A).

    >>> seatings(4)
    ((True, False, True, False), (False, True, False, True))
    >>> seatings(2)
    ((True, False), (False, True))
    >>> seatings(3)
    ((True, False, False), (False, True, False), (False, False, True))
    """
    if players not in (2, 3, 4):
        raise SpadesError(f"players {players!r}: expected 2, 3 or 4")
    return tuple(tuple(who == 0 for who in layout) for layout in rotation.seatings(players))


def board_differences(candidate, opponent, rules: Rules, *, seed: int, first_board: int,
                      n_boards: int) -> np.ndarray:
    """The per-board score differences of ``candidate`` against ``opponent`` in whole games:
    ``evaluate.rotation.board_differences`` with the candidate as A (float64[n_boards]; for
    each board, the mean over its seatings of the candidate's final score minus the mean of
    the opponent seats'). The same board gives the same value whichever piece of the boards
    it is played in, and the same as ``spades-sim match`` on that seed."""
    return rotation.board_differences(candidate, opponent, rules, seed=check_seed(seed),
                                      first_board=first_board, n_boards=n_boards, games=True)


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
