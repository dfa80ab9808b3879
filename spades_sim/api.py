"""Python entry points: seed, validate, allocate and call one entry kernel.

``simulate_hands`` plays independent hands from zero scores; ``play_games`` plays whole games to
the target. Both split a run across ``jobs`` worker processes with joblib; because every hand is
seeded by its own id (``engine/rng.py``), the result is the same for any number of jobs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import records
from .engine.layout import STRATEGY_MC
from .engine.simulate import (
    play_games_nb,
    play_games_search_nb,
    simulate_hands_nb,
    simulate_hands_search_nb,
)
from .rules import Rules
from .strategies import Strategy, kernel_arrays

GAMES_PER_CALL = 2048


def stream_keys(seed: int) -> tuple[np.uint64, np.uint64]:
    """The deal-stream and play-stream keys of a run: ``SeedSequence(seed).generate_state(2)``."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed {seed!r}: expected an integer >= 0")
    deal_key, play_key = np.random.SeedSequence(int(seed)).generate_state(2, dtype=np.uint64)
    return np.uint64(deal_key), np.uint64(play_key)


@dataclass
class Run:
    """What was played: rules, one strategy per seat, the seed, and the result arrays."""

    rules: Rules
    strategies: list[Strategy]
    seed: int
    hands: records.HandArrays
    games: records.GameArrays | None = None


def _split(total: int, jobs: int) -> list[tuple[int, int]]:
    jobs = max(1, min(jobs, total)) if total else 1
    bounds = np.linspace(0, total, jobs + 1).astype(np.int64)
    return [(int(a), int(b - a)) for a, b in zip(bounds[:-1], bounds[1:])]


def _kernel_strategies(strategies, rules):
    """Kinds as a tuple of ints and parameters as a tuple of float tuples (passed by value)."""
    kinds, params = kernel_arrays(strategies, rules)
    return tuple(int(kind) for kind in kinds), tuple(tuple(float(v) for v in row) for row in params)


def hands_kernel(kinds):
    """The entry kernel of independent hands for these seat kinds (``mc`` seats need the one
    compiled with the search player's bookkeeping)."""
    return simulate_hands_search_nb if STRATEGY_MC in kinds else simulate_hands_nb


def games_kernel(kinds):
    """The entry kernel of whole games for these seat kinds (see ``hands_kernel``)."""
    return play_games_search_nb if STRATEGY_MC in kinds else play_games_nb


def _hands_piece(rules_tuple, kinds, params, keys, first, count, record_plays):
    out = records.allocate_hands(count, record_plays)
    hands_kernel(kinds)(rules_tuple, kinds, params, keys[0], keys[1], first, out,
                      records.allocate_games(0), record_plays)
    return out


def simulate_hands(rules: Rules, strategies, n_hands: int, seed: int, *, jobs: int = 1,
                   record_plays: bool = False, first_hand_id: int = 0) -> Run:
    """Play ``n_hands`` independent hands (ids ``first_hand_id ...``) from zero scores."""
    strategies = list(strategies)
    kinds, params = _kernel_strategies(strategies, rules)
    keys = stream_keys(seed)
    rules_tuple = rules.kernel_tuple()
    pieces = _split(n_hands, jobs)
    if len(pieces) == 1:
        parts = [_hands_piece(rules_tuple, kinds, params, keys, first_hand_id + pieces[0][0],
                              pieces[0][1], record_plays)]
    else:
        from joblib import Parallel, delayed

        parts = Parallel(n_jobs=len(pieces))(
            delayed(_hands_piece)(rules_tuple, kinds, params, keys, first_hand_id + first, count,
                                  record_plays)
            for first, count in pieces
        )
    return Run(rules, strategies, seed, records.concat(parts))


def _games_piece(rules_tuple, hand_cap, kinds, params, keys, first_game, n_games, record_plays):
    hand_parts, game_parts = [], []
    done = 0
    while done < n_games:
        batch = min(GAMES_PER_CALL, n_games - done)
        capacity = max(batch * 24, hand_cap)
        out = records.allocate_hands(capacity, record_plays)
        games = records.allocate_games(batch)
        finished, rows = games_kernel(kinds)(rules_tuple, kinds, params, keys[0], keys[1],
                                       first_game + done, batch, out, games, record_plays)
        hand_parts.append(records.take(out, rows))
        game_parts.append(records.take(games, finished))
        done += finished
    return records.concat(hand_parts), records.concat(game_parts)


def play_games(rules: Rules, strategies, n_games: int, seed: int, *, jobs: int = 1,
               record_plays: bool = False) -> Run:
    """Play ``n_games`` whole games to the target (game ids ``0 .. n_games-1``)."""
    strategies = list(strategies)
    kinds, params = _kernel_strategies(strategies, rules)
    keys = stream_keys(seed)
    rules_tuple = rules.kernel_tuple()
    pieces = _split(n_games, jobs)
    args = (rules_tuple, rules.hand_cap, kinds, params, keys)
    if len(pieces) == 1:
        results = [_games_piece(*args, pieces[0][0], pieces[0][1], record_plays)]
    else:
        from joblib import Parallel, delayed

        results = Parallel(n_jobs=len(pieces))(
            delayed(_games_piece)(*args, first, count, record_plays) for first, count in pieces
        )
    hands = records.concat([hands for hands, _ in results])
    games = records.concat([games for _, games in results])
    hands.hand_id[:] = np.arange(len(hands.hand_id))
    return Run(rules, strategies, seed, hands, games)
