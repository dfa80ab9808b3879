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
from ..core.seeding import check_seed, stream_keys
from ..game import dispatch

# The spawn keys of the seeds derived from a tuning's seed (apart from the run streams' (0,)).
_GENERATION_BRANCH = 1
_HOLDOUT_BRANCH = 2


def seatings(players: int) -> tuple[tuple[bool, ...], ...]:
    """Where the candidate sits in each play of a board: one tuple per seating, ``True`` at
    the candidate's seats, ``False`` at the opponent's.

    >>> seatings(4)
    ((True, False, True, False), (False, True, False, True))
    >>> seatings(2)
    ((True, False), (False, True))
    >>> seatings(3)
    ((True, False, False), (False, True, False), (False, False, True))
    """
    if players == 4:
        return (True, False, True, False), (False, True, False, True)
    if players in (2, 3):
        return tuple(tuple(seat == turn for seat in range(players)) for turn in range(players))
    raise SpadesError(f"players {players!r}: expected 2, 3 or 4")


def board_differences(candidate, opponent, rules: Rules, *, seed: int, first_board: int,
                      n_boards: int) -> np.ndarray:
    """The per-board score differences of ``candidate`` against ``opponent``.

    Plays games ``first_board .. first_board + n_boards - 1`` of ``seed`` once per seating of
    :func:`seatings` (the same deals each time). Returns float64[n_boards]: for each board, the
    mean over its seatings of (the mean final score of the candidate's seats' sides minus that
    of the opponent's seats' sides). The same board gives the same value whichever piece of
    the boards it is played in.
    """
    keys = stream_keys(check_seed(seed))
    totals = np.zeros(n_boards, dtype=np.float64)
    layouts = seatings(rules.players)
    for layout in layouts:
        strategies = [candidate if mine else opponent for mine in layout]
        _, games = dispatch.play_games(rules, strategies, keys, first_board, n_boards)
        rows = games.game_id - first_board
        if len(rows) != n_boards or sorted(rows.tolist()) != list(range(n_boards)):
            raise SpadesError(f"boards {first_board}..{first_board + n_boards - 1}: the engine "
                              f"returned {len(rows)} games")
        sides = [rules.side_of(seat) for seat in range(rules.players)]
        mine = [sides[seat] for seat, flag in enumerate(layout) if flag]
        theirs = [sides[seat] for seat, flag in enumerate(layout) if not flag]
        scores = games.final_score.astype(np.float64)
        totals[rows] += scores[:, mine].mean(axis=1) - scores[:, theirs].mean(axis=1)
    return totals / len(layouts)


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
