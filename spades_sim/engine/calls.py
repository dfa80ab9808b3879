"""The Python side of the kernel boundary: convert, allocate, call one entry kernel.

:func:`play_hands` and :func:`play_games` play a contiguous piece of a run (hands
``first ...`` or games ``first ...``) from the run's two stream keys (``core/seeding.py``) and
return the filled record arrays (``core/schema.py``). Every hand depends on the keys and its own
id only, so any split of a run into pieces (workers, chunks) gives the same hands.
"""

from __future__ import annotations

import numpy as np

from ..core import schema
from ..core.rules import Rules
from ..core.strategies import STRATEGY_MC, kernel_arrays
from .simulate import (
    play_games_nb,
    play_games_search_nb,
    simulate_hands_nb,
    simulate_hands_search_nb,
)

GAMES_PER_CALL = 2048  # games per kernel call: bounds the hand arrays allocated at once
MEAN_HANDS_PER_GAME = 24  # rows allocated per game (the kernel stops early when they run out)


def kernel_strategies(strategies, rules: Rules) -> tuple[tuple, tuple]:
    """Kinds as a tuple of ints and parameters as a tuple of float tuples (passed by value)."""
    kinds, params = kernel_arrays(strategies, rules)
    return tuple(int(kind) for kind in kinds), tuple(tuple(float(v) for v in row) for row in params)


def hands_kernel(kinds):
    """The entry kernel of independent hands for these seat kinds (``mc`` seats need the one
    compiled with the search player's bookkeeping)."""
    return simulate_hands_search_nb if STRATEGY_MC in kinds else simulate_hands_nb


def games_kernel(kinds):
    """The entry kernel of whole games for these seat kinds (see :func:`hands_kernel`)."""
    return play_games_search_nb if STRATEGY_MC in kinds else play_games_nb


def play_hands(rules: Rules, strategies, keys, first: int, count: int,
               record_plays: bool = False) -> schema.HandArrays:
    """Independent hands ``first .. first + count - 1`` from zero scores.

    ``keys``: the run's ``(deal_key, play_key)``; ``strategies``: one per seat.
    """
    kinds, params = kernel_strategies(strategies, rules)
    out = schema.allocate_hands(count, record_plays)
    hands_kernel(kinds)(rules.kernel_tuple(), kinds, params, keys[0], keys[1], first, out,
                        schema.allocate_games(0), record_plays)
    return out


def play_games(rules: Rules, strategies, keys, first: int, count: int,
               record_plays: bool = False) -> tuple[schema.HandArrays, schema.GameArrays]:
    """Whole games ``first .. first + count - 1``: their hands (``hand_id`` numbers each hand
    within its game) and one row per game."""
    kinds, params = kernel_strategies(strategies, rules)
    rules_tuple = rules.kernel_tuple()
    kernel = games_kernel(kinds)
    hand_parts, game_parts = [], []
    done = 0
    while done < count:
        batch = min(GAMES_PER_CALL, count - done)
        out = schema.allocate_hands(max(batch * MEAN_HANDS_PER_GAME, rules.hand_cap),
                                    record_plays)
        games = schema.allocate_games(batch)
        finished, rows = kernel(rules_tuple, kinds, params, keys[0], keys[1], first + done,
                                batch, out, games, record_plays)
        hand_parts.append(schema.take(out, rows))
        game_parts.append(schema.take(games, finished))
        done += finished
    hands, games = schema.concat(hand_parts), schema.concat(game_parts)
    if len(hands.hand_id):
        # The kernel writes the row; number the hands within each game instead.
        starts = hands.game_id[1:] != hands.game_id[:-1]
        index = np.arange(len(hands.hand_id))
        first_rows = np.maximum.accumulate(np.where(np.r_[True, starts], index, 0))
        hands.hand_id[:] = index - first_rows
    return hands, games
