"""How a match seats two strategies, and its per-board differences played in memory.

A match of strategy A (index 0) against strategy B (index 1) plays every deal once per
*seating* (:func:`seatings`), all from the run's stream keys (``core/seeding.py``), so every
seating sees the same deals and each strategy holds each seat's cards equally often:

- four players in two partnerships: the duplicate pair ``(A, B, A, B)``, ``(B, A, B, A)``;
- two, three or four players each on their own: one rotation per seat, A at seat ``r`` and B
  at every other seat in rotation ``r``: ``(A, B)``, ``(B, A)`` with two players;
  ``(A, B, B)``, ``(B, A, B)``, ``(B, B, A)`` with three.

The unit of the statistics is the *board*: one deal (hands mode) or one game's sequence of
deals (games mode) played in every seating. A play's difference is the mean result of A's
scoring sides minus the mean result of B's (the result: the side's final score in games mode,
its score delta in hands mode, every hand from zero scores); with partnerships that is A's
side minus B's side, with three players A's seat minus the mean of the two B seats. A board's
difference is the mean of its plays' differences over the seatings. The match
(``match.py``) reads the same numbers from a run on disk; :func:`board_differences` plays them
in memory, for loops that evaluate many strategies (a tuner).
"""

from __future__ import annotations

import numpy as np

from ..core.errors import EvaluationError
from ..core.rules import Rules, build_rules
from ..core.seeding import check_seed, stream_keys
from ..core.strategies import parse_strategy
from ..game import dispatch

A, B = 0, 1  # the strategy indices of a seating


def seatings(players: int, partnership: bool | None = None) -> list[tuple[int, ...]]:
    """For each seating of a match, the strategy at each seat (0 for A, 1 for B).

    ``partnership`` defaults to ``players == 4`` (the only partnership game).

    >>> seatings(4)
    [(0, 1, 0, 1), (1, 0, 1, 0)]
    >>> seatings(3)
    [(0, 1, 1), (1, 0, 1), (1, 1, 0)]
    >>> seatings(2)
    [(0, 1), (1, 0)]
    """
    if isinstance(players, bool) or not isinstance(players, (int, np.integer)) \
            or not 2 <= players <= 4:
        raise EvaluationError(f"players: {players!r}; a match seats 2, 3 or 4 players")
    if partnership is None:
        partnership = players == 4
    if partnership:
        if players != 4:
            raise EvaluationError(f"partnerships need 4 players, not {players}")
        return [(A, B, A, B), (B, A, B, A)]
    return [tuple(A if seat == rotation else B for seat in range(players))
            for rotation in range(players)]


def seating_sides(rules: Rules) -> list[tuple[list[int], list[int]]]:
    """For each seating of ``rules`` (:func:`seatings`): A's scoring sides and B's.

    >>> seating_sides(build_rules("cutthroat"))
    [([0], [1, 2]), ([1], [0, 2]), ([2], [0, 1])]
    """
    result = []
    for seating in seatings(rules.players, rules.partnership):
        sides = [sorted({rules.side_of(seat) for seat, who in enumerate(seating) if who == side})
                 for side in (A, B)]
        result.append((sides[0], sides[1]))
    return result


def play_differences(values: np.ndarray, sides) -> np.ndarray:
    """Every play's difference: ``values[r, board, side]`` (one seating ``r`` per entry of
    ``sides``, the ``(A's sides, B's sides)`` of :func:`seating_sides`) -> ``[r, board]``, the
    mean of A's sides minus the mean of B's.

    >>> play_differences(np.array([[[10, 4, 0]], [[3, 8, 1]]]), [([0], [1, 2]), ([1], [0, 2])])
    array([[8.],
           [6.]])
    """
    values = np.asarray(values, dtype=np.float64)
    return np.stack([values[r][:, a_sides].mean(axis=1) - values[r][:, b_sides].mean(axis=1)
                     for r, (a_sides, b_sides) in enumerate(sides)])


def differences(values: np.ndarray, sides) -> np.ndarray:
    """Every board's difference: the mean over the seatings of :func:`play_differences`.

    >>> differences(np.array([[[10, 4, 0]], [[3, 8, 1]]]), [([0], [1, 2]), ([1], [0, 2])])
    array([7.])
    """
    plays = play_differences(values, sides)
    total = plays[0].copy()
    for row in plays[1:]:  # (added in seating order, as every caller does)
        total += row
    return total / len(plays)


def _rules(rules) -> Rules:
    return rules if isinstance(rules, Rules) else build_rules(rules)


def board_differences(a, b, rules, *, seed: int, first_board: int = 0, n_boards: int,
                      games: bool = True) -> np.ndarray:
    """A's result minus B's on boards ``first_board .. first_board + n_boards - 1``, played in
    memory (nothing is written): float64, one per board, exactly the per-board differences of a
    match on the same seed (``match.match_boards``; the module docstring defines them).

    ``a``, ``b``: strategies or their specs (Python and numba plug-ins too:
    ``game.dispatch`` plays them); ``rules``: a :class:`~spades_sim.core.rules.Rules` or a
    preset name; ``games``: boards of whole games (final scores), else of single hands (score
    deltas from zero scores). Board ``k`` is game (or hand) ``k`` of the seed's key scheme, so
    the numbers depend on the seed and the board ids only: any split into calls gives the same.
    """
    rules = _rules(rules)
    check_seed(seed)
    for name, value in (("first_board", first_board), ("n_boards", n_boards)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise EvaluationError(f"{name}: {value!r} is not an integer >= 0")
    strategies = (parse_strategy(a), parse_strategy(b))
    keys = stream_keys(seed)
    sides = seating_sides(rules)
    values = np.zeros((len(sides), n_boards, rules.n_sides), dtype=np.int64)
    if n_boards == 0:
        return np.zeros(0, dtype=np.float64)
    for r, seating in enumerate(seatings(rules.players, rules.partnership)):
        table = [strategies[who] for who in seating]
        if games:
            _, played = dispatch.play_games(rules, table, keys, int(first_board), int(n_boards))
            rows = played.game_id - first_board
            values[r, rows] = played.final_score[:, :rules.n_sides]
        else:
            hands = dispatch.play_hands(rules, table, keys, int(first_board), int(n_boards))
            values[r, hands.hand_id - first_board] = hands.score_delta[:, :rules.n_sides]
    return differences(values, sides)
