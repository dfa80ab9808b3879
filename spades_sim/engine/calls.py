"""The Python side of the kernel boundary: convert, allocate, call one entry kernel.

:func:`play_hands` and :func:`play_games` play a contiguous piece of a run (hands
``first ...`` or games ``first ...``) from the run's two stream keys (``core/seeding.py``) and
return the filled record arrays (``core/schema.py``). Every hand depends on the keys and its own
id only, so any split of a run into pieces (workers, chunks) gives the same hands.
"""

from __future__ import annotations

import numpy as np

from ..core import schema
from ..core.errors import DealFilterError, StrategyError
from ..core.rules import Rules
from ..core.schema import MAX_SEATS
from ..core.strategies import (
    N_PARAMS,
    STRATEGY_HEURISTIC,
    STRATEGY_MC,
    Strategy,
    kernel_arrays,
)
from ..core.view import VIEW_SIZE
from .features import N_FEATURES, card_features_nb, filter_tries_nb
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


def estimate_params(rules: Rules) -> np.ndarray:
    """The default heuristic's parameter vector: what ``trick_estimate`` uses."""
    default = Strategy("heuristic", Strategy("heuristic").defaults())
    return np.ascontiguousarray(kernel_arrays([default], rules)[1][0])


def filter_tuple(rules: Rules, deal_filter=None, redeals=None) -> tuple:
    """The kernels' ``deal_filter`` tuple (``engine/features.py``) of a
    :class:`~spades_sim.core.features.DealFilter` (or ``None``: deal every hand as always) and,
    for a Python filter, each independent hand's ``redeals`` (the deals it rejected)."""
    clauses = np.zeros((0, 5), dtype=np.float64)
    max_tries = 1
    if deal_filter is not None:
        if not deal_filter.is_function:
            clauses = np.ascontiguousarray(deal_filter.clause_array())
        max_tries = int(deal_filter.max_tries)
    skips = np.zeros(0, dtype=np.int64)
    if redeals is not None:
        skips = np.ascontiguousarray(redeals, dtype=np.int64)
        max_tries = int(skips.max(initial=0)) + 1
    return (clauses, estimate_params(rules), skips, np.int64(max_tries),
            np.zeros(1, dtype=np.int64))


def _check_filtered(deal_filter, packed) -> None:
    failed = int(packed[4][0])
    if failed:
        raise DealFilterError(f"deal filter {deal_filter.describe()!r} accepted none of "
                              f"{deal_filter.max_tries:,} deals on the stream of key index "
                              f"{failed - 1} (a hand id; in a games run (game << 20) + 1 + its "
                              f"hand); loosen it or raise max_tries")


def card_features(rules: Rules, hands) -> np.ndarray:
    """Every feature (``core.features.FEATURES``, in order) of each dealt bitboard of
    ``hands``: float64 (n, N_FEATURES)."""
    hands = np.ascontiguousarray(hands, dtype=np.int64).reshape(-1)
    out = np.zeros((len(hands), N_FEATURES), dtype=np.float64)
    card_features_nb(rules.kernel_tuple(), estimate_params(rules), hands, out)
    return out


def filter_tries(rules: Rules, deal_filter, deal_key, first: int, count: int) -> np.ndarray:
    """The deals a declarative filter draws for independent hands ``first ...`` (``count`` of
    them): int64, 0 for a hand it accepts none of ``max_tries`` deals (the array stops
    there)."""
    out = np.zeros(count, dtype=np.int64)
    measured = filter_tries_nb(rules.kernel_tuple(), filter_tuple(rules, deal_filter), deal_key,
                               first, out)
    return out[:measured]


def play_hands(rules: Rules, strategies, keys, first: int, count: int,
               record_plays: bool = False, plugins=None, deal_filter=None,
               redeals=None) -> schema.HandArrays:
    """Independent hands ``first .. first + count - 1`` from zero scores.

    ``keys``: the run's ``(deal_key, play_key)``; ``strategies``: one per seat (the default
    heuristic at a plug-in seat); ``plugins``: ``None``, or one entry per seat, ``None`` or a
    numba plug-in ``(bid, play, params)`` (:func:`plugin_tuple`). ``deal_filter``: ``None``
    or a :class:`~spades_sim.core.features.DealFilter`; for a Python one, ``redeals`` holds
    the deals each hand rejected (``game/deals.py`` finds them).
    """
    kinds, params = kernel_strategies(strategies, rules)
    plugged = plugin_tuple(plugins, kinds)
    out = schema.allocate_hands(count, record_plays)
    packed = filter_tuple(rules, deal_filter, redeals)
    args = (rules.kernel_tuple(), kinds, params, keys[0], keys[1], first, out,
            schema.allocate_games(0), record_plays, packed)
    kernel = hands_kernel(kinds, plugged)
    announce(kernel)
    if plugged is None:
        kernel(*args)
    else:
        with first_class_quiet():
            kernel(*args, plugged)
    _check_filtered(deal_filter, packed)
    return out


def play_games(rules: Rules, strategies, keys, first: int, count: int,
               record_plays: bool = False, plugins=None,
               deal_filter=None) -> tuple[schema.HandArrays, schema.GameArrays]:
    """Whole games ``first .. first + count - 1``: their hands (``hand_id`` numbers each hand
    within its game) and one row per game. ``plugins`` as for :func:`play_hands`;
    ``deal_filter`` a declarative :class:`~spades_sim.core.features.DealFilter` or ``None``
    (a Python filter plays through the game-state API)."""
    kinds, params = kernel_strategies(strategies, rules)
    packed = filter_tuple(rules, deal_filter)
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
                                    batch, out, games, record_plays, packed, *extra)
        _check_filtered(deal_filter, packed)
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
