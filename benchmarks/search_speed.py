"""The search player's speed: card decisions per second on one core, at several budgets.

    .venv/bin/python benchmarks/search_speed.py [--hands 400] [--samples 4 16 64] [--rules classic]

For each budget (``mc:samples=S``), ``--hands`` independent hands are played with ``mc`` at
seats 0 and 2 and ``heuristic`` at seats 1 and 3 (one process, kernels warmed first; the timed
figure is the whole call). The plays are recorded, and the ``mc`` seats' card decisions are
counted: ``decisions`` (every card an ``mc`` seat played) and ``searched`` (those with more than
one distinct candidate, which are the ones that sample and play out; the others cost nothing).
Prints one JSON line per budget: hands/s, decisions/s and searched decisions/s.
"""

from __future__ import annotations

import argparse
import json
import time

from spades_sim.core.rules import preset
from spades_sim.core.strategies import seat_strategies
from spades_sim.reference.search import candidates
from spades_sim.run import simulate_hands


def searched_decisions(run, rules, mc_seats) -> tuple[int, int]:
    """``(decisions, searched)`` of the ``mc`` seats, replaying the recorded plays."""
    decisions = searched = 0
    hands = run.hands
    n_plays = rules.players * rules.hand_size
    for row in range(len(hands.hand_id)):
        holdings = [int(h) for h in hands.hands[row, : rules.players]]
        for giver, taker, card in hands.exchange[row]:
            if giver < 0:
                break
            holdings[giver] &= ~(1 << int(card))
            holdings[taker] |= 1 << int(card)
        played = 0
        for index in range(n_plays):
            seat = int(hands.play_seats[row, index])
            card = int(hands.plays[row, index])
            if seat in mc_seats:
                decisions += 1
                unseen = rules.deck_mask & ~played & ~holdings[seat]
                position = index % rules.players
                if position == 0:
                    legal = holdings[seat]  # (an upper bound: the lead's legal mask)
                else:
                    led = int(hands.plays[row, index - position])
                    suit = min(led // 13, 3)
                    same = [c for c in range(54) if holdings[seat] >> c & 1
                            and min(c // 13, 3) == suit]
                    legal = sum(1 << c for c in same) or holdings[seat]
                searched += len(candidates(legal, unseen)) > 1
            holdings[seat] &= ~(1 << card)
            played |= 1 << card
    return decisions, searched


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=400)
    parser.add_argument("--samples", type=int, nargs="+", default=[4, 16, 64])
    parser.add_argument("--rules", default="classic")
    args = parser.parse_args()
    rules = preset(args.rules)
    for samples in args.samples:
        specs = [f"mc:samples={samples}", "heuristic"] * 2
        strategies = seat_strategies(specs, rules.players)
        simulate_hands(rules, strategies, 2, 99)  # warm (compile or load the kernels)
        started = time.perf_counter()
        simulate_hands(rules, strategies, args.hands, 1)
        seconds = time.perf_counter() - started
        run = simulate_hands(rules, strategies, args.hands, 1, record_plays=True)
        decisions, searched = searched_decisions(run, rules, {0, 2})
        print(json.dumps({
            "rules": args.rules, "samples": samples, "hands": args.hands,
            "seconds": round(seconds, 3), "hands_per_second": round(args.hands / seconds, 1),
            "decisions_per_second": round(decisions / seconds),
            "searched_per_second": round(searched / seconds),
            "searched_share": round(searched / decisions, 3),
        }), flush=True)


if __name__ == "__main__":
    main()
