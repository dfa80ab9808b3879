"""Numba strategy plug-ins against the built-in strategies: warm hands per second on one core.

Tables of four equal seats, classic rules, independent hands: the built-in ``heuristic``;
a numba plug-in that bids 3 and plays its lowest legal card; the built-in ``random`` (with
``blind_nil_rate=0``); a numba plug-in that reimplements ``random``'s draws (it plays the
very same hands as the built-in: the two checksums agree); and, through the game-state API,
the same "bid 3, lowest card" as a Python plug-in and ``examples/strategies/random_python.py``
(whose checksum agrees with the built-in ``random``'s over the same hands when ``--hands``
equals ``--python-hands``). Like ``spades-sim bench``, each
table compiles (or loads) its kernel on a warm-up batch first, then plays its hands in chunks
into pre-allocated record arrays, each chunk timed on its own: the headline is the fastest
chunk's rate (a shared machine only ever slows a chunk down), the median and the whole-run
rate beside it. Appends one JSON line to ``history.jsonl`` (``--no-history`` skips it).

    .venv/bin/python benchmarks/plugin_speed.py [--hands 2000000] [--python-hands 40000]
        [--no-history]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from numba import njit

from spades_sim.bench import append_history, stamp
from spades_sim.core import schema
from spades_sim.core.rules import preset
from spades_sim.core.seeding import stream_keys
from spades_sim.core.strategies import RATE_ONE, make_strategy
from spades_sim.core.view import V_LEGAL, rule_slot
from spades_sim.engine.calls import hands_kernel, kernel_strategies, plugin_tuple
from spades_sim.engine.plugin import bounded, first_class_quiet, lowest_card, nth_card, popcount
from spades_sim.game import play as game_play
from spades_sim.game.agents import PluginAgent
from spades_sim.game.plugins import agents

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "strategies"
CHUNK = 1 << 18
R_BLIND_NIL = rule_slot("blind_nil")


@njit(cache=True)
def bid_three(view, params, rng):
    """Bid 3."""
    return 3


@njit(cache=True)
def play_lowest(view, params, rng):
    """The lowest legal card."""
    return lowest_card(view[V_LEGAL])


@njit(cache=True)
def random_bid(view, params, rng):
    """The built-in ``random``'s bid under classic rules with ``blind_nil_rate=0``: its blind
    choice's draw (blind nil allowed at any score), then a bid in bid_min..bid_max."""
    if view[R_BLIND_NIL]:
        bounded(rng, RATE_ONE)
    legal = view[V_LEGAL]
    candidates = legal & ((2 << int(params[1])) - (1 << int(params[0])))
    if candidates == 0:
        candidates = legal
    return nth_card(candidates, bounded(rng, popcount(candidates)))


@njit(cache=True)
def random_play(view, params, rng):
    """The built-in ``random``'s card."""
    legal = view[V_LEGAL]
    return nth_card(legal, bounded(rng, popcount(legal)))


def measure(rules, strategies, plugins, n_hands: int, seed: int) -> dict:
    """Warm hands per second of one table (``plugins`` as for ``calls.play_hands``)."""
    kinds, params = kernel_strategies(strategies, rules)
    plugged = plugin_tuple(plugins, kinds)
    kernel = hands_kernel(kinds, plugged)
    extra = () if plugged is None else (plugged,)
    deal_key, play_key = stream_keys(seed)
    rules_tuple = rules.kernel_tuple()
    no_games = schema.allocate_games(0)
    started = time.perf_counter()
    kernel(rules_tuple, kinds, params, deal_key, play_key, 0, schema.allocate_hands(4096, False),
           no_games, False, *extra)
    compile_seconds = time.perf_counter() - started
    out = schema.allocate_hands(min(CHUNK, n_hands), False)
    for array in out:
        array.fill(0)  # touch the pages before timing
    rates, seconds, checksum, done = [], 0.0, 0, 0
    while done < n_hands:
        count = min(CHUNK, n_hands - done)
        view = schema.take(out, count)
        started = time.perf_counter()
        kernel(rules_tuple, kinds, params, deal_key, play_key, done, view, no_games, False,
               *extra)
        elapsed = time.perf_counter() - started
        seconds += elapsed
        rates.append(count / elapsed)
        checksum += int(view.score_delta.sum())
        done += count
    return {"hands_per_second": max(rates), "hands_per_second_median": float(np.median(rates)),
            "hands_per_second_run": n_hands / seconds, "compile_seconds": compile_seconds,
            "checksum": checksum}


class LowestPython:
    """The Python plug-in of the same logic: bid 3 (classic allows it), play the lowest card."""

    def bid(self, obs):
        return 3

    def play(self, obs):
        legal = obs.legal_mask
        return (legal & -legal).bit_length() - 1


def measure_python(rules, agents, n_hands: int, seed: int) -> dict:
    """Hands per second of a table with Python plug-ins, played through the game-state API
    (``game/play.py``) in chunks of 2,000 hands, each timed on its own."""
    keys = stream_keys(seed)
    rates, seconds, checksum, done = [], 0.0, 0, 0
    while done < n_hands:
        count = min(2000, n_hands - done)
        started = time.perf_counter()
        out = game_play.play_hands(rules, agents, keys, done, count)
        elapsed = time.perf_counter() - started
        seconds += elapsed
        rates.append(count / elapsed)
        checksum += int(out.score_delta.sum())
        done += count
    return {"hands_per_second": max(rates), "hands_per_second_median": float(np.median(rates)),
            "hands_per_second_run": n_hands / seconds, "compile_seconds": 0.0,
            "checksum": checksum}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2_000_000, help="hands per table")
    parser.add_argument("--python-hands", type=int, default=40_000,
                        help="hands per table of Python plug-ins")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-history", action="store_true", help="do not append to history")
    args = parser.parse_args()
    rules = preset("classic")
    heuristic = make_strategy("heuristic")
    random = make_strategy("random", blind_nil_rate=0)
    tables = {
        "heuristic": ([heuristic] * 4, None),
        "plugin_bid3_lowest": ([heuristic] * 4, ((bid_three, play_lowest, ()),) * 4),
        "random": ([random] * 4, None),
        "plugin_random": ([heuristic] * 4,
                          ((random_bid, random_play, np.array([1.0, 4.0])),) * 4),
    }
    results = {}
    for name, (strategies, plugins) in tables.items():
        with first_class_quiet():
            results[name] = measure(rules, strategies, plugins, args.hands, args.seed)
        print(f"{name:20s} {results[name]['hands_per_second']:12,.0f} hands/s (best chunk), "
              f"{results[name]['hands_per_second_median']:12,.0f} median, "
              f"compile/load {results[name]['compile_seconds']:.1f} s")
    python_tables = {
        "python_bid3_lowest": [PluginAgent(LowestPython(), "LowestPython")] * 4,
        "python_random": agents([f"{EXAMPLES / 'random_python.py'}:RandomPython:"
                                 "blind_nil_rate=0"] * 4),
    }
    for name, table in python_tables.items():
        results[name] = measure_python(rules, table, args.python_hands, args.seed)
        print(f"{name:20s} {results[name]['hands_per_second']:12,.0f} hands/s (best chunk), "
              f"{results[name]['hands_per_second_median']:12,.0f} median")
    ratio = (results["plugin_bid3_lowest"]["hands_per_second"]
             / results["heuristic"]["hands_per_second"])
    same = results["plugin_random"]["checksum"] == results["random"]["checksum"]
    print(f"plug-in / heuristic: {ratio:.2f}; plug-in random plays the built-in's hands: {same}")
    record = {
        "benchmark": "plugin_speed", "rules": rules.preset_name, "hands": args.hands,
        "seed": args.seed, "results": results, "plugin_vs_heuristic": ratio,
        "random_checksums_agree": same, **stamp(),
    }
    if not args.no_history:
        append_history(record)


if __name__ == "__main__":
    main()
