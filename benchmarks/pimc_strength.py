"""The strength of ``pimc`` (the perfect-information sampling player) in duplicate hands, and
its cost per card decision.

Strength: duplicate matches (``spades_sim.evaluate.match``, hands mode) of ``pimc`` (seats 0
and 2) against each opponent (seats 1 and 3) under a partnership preset (default ``classic``):
every deal is played twice with the partnerships swapped, every hand from zero scores, and the
mean of A's side score delta minus B's per board is reported with its 95% t interval. Positive:
``pimc`` is stronger. The runs go to ``--out`` (resumable: re-running the same command reuses
the hands already played).

Cost (``--timing``): ``pimc`` decides for one seat of hands otherwise played by the heuristic,
and the seconds of each card decision with more than one legal card are reported by trick
index (min, median, max). Run it first with a small budget: the solver's cost on full deals
dominates the early tricks.

Run from the repository root::

    python benchmarks/pimc_strength.py --hands 200 --samples 20 --jobs 2
    python benchmarks/pimc_strength.py --timing 3 --samples 10
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from spades_sim.core.rules import build_rules
from spades_sim.evaluate.match import format_match, match
from spades_sim.game import Hand
from spades_sim.game.agents import HEURISTIC, BuiltinAgent
from spades_sim.game.pimc import Pimc
from spades_sim.game.state import BID, PLAY


def strength(args) -> list[dict]:
    """One duplicate match per opponent; the results as dicts (and printed)."""
    pimc = f"pimc:samples={args.samples}" + ("" if args.score else ",score=0")
    results = []
    for opponent in args.opponents:
        start = time.perf_counter()
        out = Path(args.out) / f"{pimc.replace(':', '_').replace(',', '_')}-vs-{opponent}"
        result = match(pimc, opponent, args.rules, n_hands=args.hands, seed=args.seed,
                       jobs=args.jobs, out=out, rule_overrides=args.rule,
                       chunk_size=args.chunk_size)
        seconds = time.perf_counter() - start
        print(format_match(result))
        print(f"({seconds:.1f} s)\n", flush=True)
        row = result.to_dict()
        row["seconds"] = seconds
        results.append(row)
    return results


def timing(args) -> dict:
    """Seconds per pimc card decision by trick index, over ``args.timing`` hands."""
    rules = build_rules(args.rules, list(args.rule))
    player = Pimc(samples=args.samples, score=int(args.score))
    heuristic = BuiltinAgent(HEURISTIC)
    by_trick: dict[int, list[float]] = {}
    for hand_id in range(args.timing):
        hand = Hand.deal(rules, seed=args.seed, hand_id=hand_id)
        seat = hand_id % rules.players
        while not hand.done:
            if hand.phase == PLAY and hand.to_act == seat \
                    and hand.trick_index >= args.from_trick:
                observation = hand.observation()
                if len(observation.legal) > 1:
                    start = time.perf_counter()
                    card = player.play(observation)
                    seconds = time.perf_counter() - start
                    by_trick.setdefault(hand.trick_index, []).append(seconds)
                    print(f"hand {hand_id} trick {hand.trick_index} position "
                          f"{len(hand.trick)} legal {len(observation.legal)}: {seconds:.3f} s",
                          flush=True)
                else:
                    card = observation.legal[0]
                hand.apply(card)
                continue
            mask = (hand.legal_card_mask() if hand.phase == PLAY
                    else hand.legal_bid_mask() if hand.phase == BID else 0)
            hand.apply(heuristic.act(hand, mask))
    summary = {str(trick): {"decisions": len(times), "min_s": min(times),
                            "median_s": statistics.median(times), "max_s": max(times)}
               for trick, times in sorted(by_trick.items())}
    print(f"seconds per pimc decision (samples={args.samples}), by trick index:")
    for trick, row in summary.items():
        print(f"  trick {trick:>2}: {row['decisions']:>3} decisions, min {row['min_s']:.3f}, "
              f"median {row['median_s']:.3f}, max {row['max_s']:.3f}")
    return summary


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=100, help="boards per match (default 100)")
    parser.add_argument("--samples", type=int, default=20, help="pimc samples (default 20)")
    parser.add_argument("--score", type=int, default=1, choices=(0, 1),
                        help="pimc's score parameter (default 1)")
    parser.add_argument("--opponents", nargs="+", default=["mc", "heuristic"])
    parser.add_argument("--rules", default="classic", help="a partnership preset")
    parser.add_argument("--rule", action="append", default=[], help="FIELD=VALUE overrides")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--chunk-size", type=int, default=10,
                        help="hands per chunk (small: a resumed run loses little)")
    parser.add_argument("--out", default="results/pimc-strength")
    parser.add_argument("--timing", type=int, default=0, metavar="HANDS",
                        help="instead of matches, time pimc's decisions over HANDS hands")
    parser.add_argument("--from-trick", type=int, default=0,
                        help="--timing: time decisions from this trick index on (earlier "
                             "tricks are the heuristic's)")
    parser.add_argument("--json", default=None, help="also write the results to this file")
    args = parser.parse_args(argv)
    result = timing(args) if args.timing else strength(args)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
