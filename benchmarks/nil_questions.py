"""The slowest nil questions of a par run: each nil-safety question of its first hands, timed.

Plays hands ``--first .. --first + --hands - 1`` of an experiment's hands run (by default
``experiments/par.toml``: classic, the default heuristic, seed 1) exactly as the run plays them
(plays recorded, the exchanges re-applied), then asks the double-dummy solver, one question at a
time, whether each nil or blind-nil bid is safe (``dd.nil_safe`` from the first leader, as
``game/par.py`` does), and prints the total, the count over ``--limit`` seconds and the
``--worst`` slowest questions (hand id, seat, answer, seconds, nodes).

Usage::

    python benchmarks/nil_questions.py [--experiment experiments/par.toml] [--hands 1000]
                                       [--first 0] [--worst 10] [--limit 10]

Prints only: it records nothing in the history (a question's time depends on the machine's
load, and the slow ones are what to look at, with their hand ids).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from spades_sim.core.bidding import is_nil  # noqa: E402
from spades_sim.core.seeding import stream_keys  # noqa: E402
from spades_sim.engine import dd  # noqa: E402
from spades_sim.experiment.parse import load_experiment  # noqa: E402
from spades_sim.game import dispatch  # noqa: E402
from spades_sim.game.par import after_exchange  # noqa: E402


def nil_questions(experiment: Path, first: int, count: int):
    """Every nil question of the hands, timed: ``(hand_id, seat, safe, seconds, nodes)``."""
    spec = load_experiment(experiment).spec("hands")
    config = spec.configs[0]
    rules = config.rules
    records = dispatch.play_hands(rules, config.strategies, stream_keys(spec.seed), first, count,
                                  True, spec.deal_filter)
    hands = after_exchange(records.hands, records.exchange)
    players = rules.players
    rows = []
    for i in range(len(records.hand_id)):
        for seat in range(players):
            if not is_nil(rules, int(records.bids[i, seat]), bool(records.blind[i, seat])):
                continue
            holdings = [int(h) for h in hands[i, :players]]
            trick_index = rules.hand_size - holdings[0].bit_count()
            nodes = dd.nodes_searched()
            started = time.perf_counter()
            safe = dd.nil_safe(rules, holdings, int(records.first_leader[i]), seat,
                               trick_index=trick_index)
            seconds = time.perf_counter() - started
            rows.append((int(records.hand_id[i]), seat, safe, seconds,
                         dd.nodes_searched() - nodes))
    return rows


def main(argv=None) -> list:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--experiment", type=Path, default=ROOT / "experiments" / "par.toml")
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--worst", type=int, default=10)
    parser.add_argument("--limit", type=float, default=10.0)
    args = parser.parse_args(argv)
    # Warm-up: load (or compile) the kernels outside the timing (a one-trick nil question).
    rules = load_experiment(args.experiment).spec("hands").configs[0].rules
    dd.nil_safe(rules, [[51], [50], [49], [48]][:rules.players], 0, 1,
                trick_index=rules.hand_size - 1, spades_broken=True)
    rows = nil_questions(args.experiment, args.first, args.hands)
    seconds = np.array([row[3] for row in rows])
    print(f"{len(rows)} nil questions in hands {args.first}..{args.first + args.hands - 1}: "
          f"{seconds.sum():.1f} s in all, median {np.median(seconds) * 1e3:.1f} ms, "
          f"{int((seconds > args.limit).sum())} over {args.limit:g} s, "
          f"{sum(1 for row in rows if not row[2])} not safe")
    print("slowest: hand_id seat safe seconds nodes")
    for hand_id, seat, safe, took, nodes in sorted(rows, key=lambda row: -row[3])[:args.worst]:
        print(f"  {hand_id:>7} {seat:>4} {str(safe):>5} {took:>8.2f} {nodes:>12,}")
    return rows


if __name__ == "__main__":
    main()
