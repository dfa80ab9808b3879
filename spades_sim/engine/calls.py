"""The Python side of the kernel boundary: convert, allocate, call one entry kernel.

:func:`play_hands` and :func:`play_games` play a contiguous piece of a run (hands
``first ...`` or games ``first ...``) from the run's two stream keys (``core/seeding.py``) and
return the filled record arrays (``core/schema.py``). Every hand depends on the keys and its own
id only, so any split of a run into pieces (workers, chunks) gives the same hands.
"""

from __future__ import annotations

import numpy as np

from ..core import schema
from ..core.errors import StrategyError
from ..core.rules import Rules
from ..core.schema import MAX_SEATS
from ..core.strategies import N_PARAMS, STRATEGY_HEURISTIC, STRATEGY_MC, kernel_arrays
from ..core.view import VIEW_SIZE
from .plugin import first_class_quiet, function_pointer, never_bid, never_play
from .simulate import (
    play_games_nb,
    play_games_plugin_nb,
    play_games_plugin_search_nb,
    play_games_search_nb,
    simulate_hands_nb,
    simulate_hands_plugin_nb,
    simulate_hands_plugin_search_nb,
    simulate_hands_search_nb,
)
from .toolchain import announce_compile

GAMES_PER_CALL = 2048  # games per kernel call: bounds the hand arrays allocated at once
MEAN_HANDS_PER_GAME = 24  # rows allocated per game (the kernel stops early when they run out)


#: What a compile notice calls each entry kernel, and about how long its first compile takes
#: on an empty cache on two cores (``benchmarks/first_run.py`` measures it).
KERNEL_COMPILES = {
    "simulate_hands_nb": ("the hand loop", "about a minute"),
    "play_games_nb": ("the whole-game loop", "about a minute"),
    "simulate_hands_search_nb": ("the search player's hand loop", "one to two minutes"),
    "play_games_search_nb": ("the search player's whole-game loop", "one to two minutes"),
    "simulate_hands_plugin_nb": ("the hand loop for numba plug-ins", "one to two minutes"),
    "play_games_plugin_nb": ("the whole-game loop for numba plug-ins", "one to two minutes"),
    "simulate_hands_plugin_search_nb": ("the plug-in and search hand loop",
                                        "two to three minutes"),
    "play_games_plugin_search_nb": ("the plug-in and search whole-game loop",
                                    "two to three minutes"),
}


def announce(kernel) -> None:
    """The one-line notice before ``kernel`` (an entry kernel of ``simulate.py``) compiles on
    an empty cache (``toolchain.announce_compile``)."""
    name = getattr(getattr(kernel, "py_func", kernel), "__name__", "")
    if name in KERNEL_COMPILES:
        announce_compile(*KERNEL_COMPILES[name], "simulate.py", name)


def kernel_strategies(strategies, rules: Rules) -> tuple[tuple, tuple]:
    """Kinds as a tuple of ints and parameters as a tuple of float tuples (passed by value)."""
    kinds, params = kernel_arrays(strategies, rules)
    return tuple(int(kind) for kind in kinds), tuple(tuple(float(v) for v in row) for row in params)


def hands_kernel(kinds, plugins=None):
    """The entry kernel of independent hands for these seat kinds (``mc`` seats need the one
    compiled with the search player's bookkeeping) and plug-in tuple (:func:`plugin_tuple`)."""
    if plugins is not None:
        return simulate_hands_plugin_search_nb if STRATEGY_MC in kinds else simulate_hands_plugin_nb
    return simulate_hands_search_nb if STRATEGY_MC in kinds else simulate_hands_nb


def games_kernel(kinds, plugins=None):
    """The entry kernel of whole games for these seat kinds (see :func:`hands_kernel`)."""
    if plugins is not None:
        return play_games_plugin_search_nb if STRATEGY_MC in kinds else play_games_plugin_nb
    return play_games_search_nb if STRATEGY_MC in kinds else play_games_nb


def plugin_tuple(plugins, kinds) -> tuple | None:
    """The kernels' plug-in tuple (``engine/plugin.py``) for ``plugins``; ``None`` for none.

    ``plugins``: ``None`` or one entry per seat (at most four): ``None`` for a seat that is not
    a plug-in, else ``(bid, play, params)``, two ``@njit`` functions of
    ``plugin.PLUGIN_SIG`` and a float64 vector of at most ``N_PARAMS`` values. ``kinds``: the
    seats' kernel kinds; a plug-in seat's must be the heuristic's (its blind choices, bumps,
    passes and draw-deal keeps are the default heuristic's).
    """
    if plugins is None or all(entry is None for entry in plugins):
        return None
    if len(plugins) > MAX_SEATS:
        raise StrategyError(f"plugins: {len(plugins)} entries for at most {MAX_SEATS} seats")
    bid_fns = [function_pointer(never_bid)] * MAX_SEATS
    play_fns = [function_pointer(never_play)] * MAX_SEATS
    params = np.zeros((MAX_SEATS, N_PARAMS), dtype=np.float64)
    mask = 0
    for seat, entry in enumerate(plugins):
        if entry is None:
            continue
        bid, play, values = entry
        if kinds[seat] != STRATEGY_HEURISTIC:
            raise StrategyError(f"plugins: seat {seat} is a plug-in, so its strategy must be the "
                                f"default heuristic (its other choices are the heuristic's)")
        values = np.asarray(values, dtype=np.float64).ravel()
        if len(values) > N_PARAMS:
            raise StrategyError(f"plugins: seat {seat} has {len(values)} parameters; at most "
                                f"{N_PARAMS}")
        bid_fns[seat] = function_pointer(bid, "plug-in bid function")
        play_fns[seat] = function_pointer(play, "plug-in play function")
        params[seat, :len(values)] = values
        mask |= 1 << seat
    return (tuple(bid_fns), tuple(play_fns), mask, params, np.zeros(VIEW_SIZE, dtype=np.int64),
            np.zeros(1, dtype=np.uint64))


def play_hands(rules: Rules, strategies, keys, first: int, count: int,
               record_plays: bool = False, plugins=None) -> schema.HandArrays:
    """Independent hands ``first .. first + count - 1`` from zero scores.

    ``keys``: the run's ``(deal_key, play_key)``; ``strategies``: one per seat (the default
    heuristic at a plug-in seat); ``plugins``: ``None``, or one entry per seat, ``None`` or a
    numba plug-in ``(bid, play, params)`` (:func:`plugin_tuple`).
    """
    kinds, params = kernel_strategies(strategies, rules)
    plugged = plugin_tuple(plugins, kinds)
    out = schema.allocate_hands(count, record_plays)
    args = (rules.kernel_tuple(), kinds, params, keys[0], keys[1], first, out,
            schema.allocate_games(0), record_plays)
    kernel = hands_kernel(kinds, plugged)
    announce(kernel)
    if plugged is None:
        kernel(*args)
    else:
        with first_class_quiet():
            kernel(*args, plugged)
    return out


def play_games(rules: Rules, strategies, keys, first: int, count: int,
               record_plays: bool = False,
               plugins=None) -> tuple[schema.HandArrays, schema.GameArrays]:
    """Whole games ``first .. first + count - 1``: their hands (``hand_id`` numbers each hand
    within its game) and one row per game. ``plugins`` as for :func:`play_hands`."""
    kinds, params = kernel_strategies(strategies, rules)
    plugged = plugin_tuple(plugins, kinds)
    extra = () if plugged is None else (plugged,)
    rules_tuple = rules.kernel_tuple()
    kernel = games_kernel(kinds, plugged)
    announce(kernel)
    hand_parts, game_parts = [], []
    done = 0
    while done < count:
        batch = min(GAMES_PER_CALL, count - done)
        out = schema.allocate_hands(max(batch * MEAN_HANDS_PER_GAME, rules.hand_cap),
                                    record_plays)
        games = schema.allocate_games(batch)
        with first_class_quiet():
            finished, rows = kernel(rules_tuple, kinds, params, keys[0], keys[1], first + done,
                                    batch, out, games, record_plays, *extra)
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
