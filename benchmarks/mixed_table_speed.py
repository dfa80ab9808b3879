"""Mixed tables: built-in seats beside a Python plug-in, against the same seats in the engine.

Classic rules, independent hands. Two comparisons:

(a) seat 0 a Python plug-in that bids 3 and plays its lowest legal card, seats 1-3 the built-in
    ``heuristic``, played as ``spades-sim`` plays such a table (``game/play.py``): the engine
    steps the table and stops for each of the plug-in's decisions (``engine/table.py``);
    target: 8,000 hands a second on one core.
(b) seats 1-3 ``mc`` (``--mc`` gives its spec) beside that plug-in, against the same ``mc``
    seats at a table of built-ins (seat 0 the ``heuristic``), played by the engine's hand
    loop; target: a ratio of at least 0.5.

Before timing, table (a) is checked against the engine playing a numba plug-in of the same
logic (``plugin_speed.py``'s), and the API's built-in seats (the plug-in replaced by the
``heuristic``; with the ``mc`` seats too) against the engine's, on the same hands (every record
equal), so the speed measured is that of the exact results. Each table is timed in chunks,
each on its own: the headline is the fastest chunk's rate (a shared machine only ever slows a
chunk down), the median beside it.
Appends one JSON line to ``history.jsonl`` (``--no-history`` skips it).

    .venv/bin/python benchmarks/mixed_table_speed.py [--hands 20000] [--mc-hands 200]
        [--mc mc] [--no-history]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from plugin_speed import bid_three, play_lowest  # (the numba plug-in of the same logic)

from spades_sim.bench import append_history, stamp
from spades_sim.core.rules import preset
from spades_sim.core.seeding import stream_keys
from spades_sim.core.strategies import make_strategy, parse_strategy
from spades_sim.engine import calls
from spades_sim.engine.plugin import first_class_quiet
from spades_sim.game import play as game_play
from spades_sim.game.agents import BuiltinAgent, PluginAgent


class LowestPython:
    """Bid 3 (classic allows it), play the lowest legal card."""

    def bid(self, obs):
        return 3

    def play(self, obs):
        legal = obs.legal_mask
        return (legal & -legal).bit_length() - 1


def timed(play, n_hands: int, chunk: int) -> dict:
    """Hands a second of ``play(first, count)`` over ``n_hands`` hands in chunks."""
    rates, seconds, done = [], 0.0, 0
    while done < n_hands:
        count = min(chunk, n_hands - done)
        started = time.perf_counter()
        play(done, count)
        elapsed = time.perf_counter() - started
        seconds += elapsed
        rates.append(count / elapsed)
        done += count
    return {"best": max(rates), "median": float(np.median(rates)), "run": n_hands / seconds}


def check_exact(rules, keys, strategies, n_hands: int) -> None:
    """The API's built-in seats play the engine's hands, record for record."""
    api = game_play.play_hands(rules, [BuiltinAgent(s) for s in strategies], keys, 0, n_hands,
                               True)
    engine = calls.play_hands(rules, strategies, keys, 0, n_hands, True)
    for name, array in engine._asdict().items():
        if not np.array_equal(array, getattr(api, name)):
            raise SystemExit(f"the API's {name} differ from the engine's: not timing")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20_000, help="hands of table (a)")
    parser.add_argument("--mc-hands", type=int, default=200, help="hands of each mc table")
    parser.add_argument("--mc", default="mc", help="the search player's spec")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-history", action="store_true", help="do not append to history")
    args = parser.parse_args()
    rules = preset("classic")
    keys = stream_keys(args.seed)
    heuristic = make_strategy("heuristic")
    mc = parse_strategy(args.mc)
    plugin = PluginAgent(LowestPython(), "LowestPython")

    table_a = [plugin] + [BuiltinAgent(heuristic) for _ in range(3)]
    started = time.perf_counter()
    check_exact(rules, keys, [heuristic] * 4, 200)
    check_exact(rules, keys, [heuristic, mc, mc, mc], 4)
    with first_class_quiet():
        numba_table = calls.play_hands(rules, [heuristic] * 4, keys, 0, 500, True,
                                       plugins=((bid_three, play_lowest, ()), None, None, None))
    python_table = game_play.play_hands(rules, table_a, keys, 0, 500, True)
    for name, array in numba_table._asdict().items():
        if not np.array_equal(array, getattr(python_table, name)):
            raise SystemExit(f"table (a)'s {name} differ from the numba plug-in's: not timing")
    warm_up = time.perf_counter() - started

    game_play.play_hands(rules, table_a, keys, 0, 200)  # (warm)
    a = timed(lambda first, count: game_play.play_hands(rules, table_a, keys, first, count),
              args.hands, 2_000)
    print(f"(a) plug-in + 3 heuristic (API):   {a['best']:10,.0f} hands/s (best chunk), "
          f"{a['median']:10,.0f} median  [target 8,000]")

    table_b = [plugin] + [BuiltinAgent(mc) for _ in range(3)]
    mc_chunk = max(1, args.mc_hands // 5)
    b_api = timed(lambda first, count: game_play.play_hands(rules, table_b, keys, first, count),
                  args.mc_hands, mc_chunk)
    b_engine = timed(lambda first, count: calls.play_hands(rules, [heuristic, mc, mc, mc], keys,
                                                           first, count),
                     args.mc_hands, mc_chunk)
    ratio = b_api["best"] / b_engine["best"]
    print(f"(b) plug-in + 3 {args.mc} (API):      {b_api['best']:10,.1f} hands/s (best chunk)")
    print(f"    heuristic + 3 {args.mc} (engine): {b_engine['best']:10,.1f} hands/s (best chunk)")
    print(f"    ratio {ratio:.2f}  [target 0.5]; checks and compile/load {warm_up:.1f} s")
    record = {
        "benchmark": "mixed_table_speed", "rules": rules.preset_name, "seed": args.seed,
        "hands": args.hands, "mc_hands": args.mc_hands, "mc": args.mc,
        "plugin_heuristic_hands_per_second": a["best"],
        "plugin_heuristic_hands_per_second_median": a["median"],
        "plugin_mc_hands_per_second": b_api["best"],
        "engine_mc_hands_per_second": b_engine["best"],
        "mc_ratio": ratio, "warm_up_seconds": warm_up, **stamp(),
    }
    if not args.no_history:
        append_history(record)


if __name__ == "__main__":
    main()
