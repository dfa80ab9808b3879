"""Refit the double-dummy solver's first guess (``spades_sim.engine.dd.drivers.guess_nb``).

The solver finds a side's tricks by asking yes/no questions ("can it take ``t``?"), starting
from a guess; a guess at the answer or one above it needs two questions, each trick below
costs one more, each trick above the first one more. The guess for partnerships is a linear
function of features of the deal; this script solves ``--deals`` random classic deals (a
random leader each), fits the weights by least squares on the first two thirds and prints
them with the mean miss and the questions a guess would need on the last third, beside the
points share alone. The coefficients in ``_guess_nb`` came from ``--deals 1500 --seed 99``
(about five minutes on one core). Speed only: any guess gives the same, exact answers.

Usage::

    python benchmarks/dd_guess_fit.py [--deals 1500] [--seed 99]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from dd_speed import random_deals  # noqa: E402

from spades_sim.core.rules import preset  # noqa: E402
from spades_sim.engine import dd  # noqa: E402

NAMES = ["tricks per card (x remaining)", "points share (x remaining)", "extra trumps",
         "lead (+1 ours, -1 theirs)", "short suits with trumps", "longer trump holding"]


def features(hands, leader) -> list[float]:
    """The guess's features for the side of seats 0 and 2, as ``_guess_nb`` computes them."""
    points, trumps, shorts = [], [], []
    for held in (int(h) for h in hands):
        cards = [c for c in range(52) if (held >> c) & 1]
        points.append(sum(max(c % 13 - 8, 0) + (c >= 39) for c in cards))
        count = sum(c >= 39 for c in cards)
        trumps.append(count)
        short = sum(sum(13 * s <= c < 13 * s + 13 for c in cards) <= 1 for s in range(3))
        shorts.append(short if count else 0)
    share = (points[0] + points[2]) / sum(points)
    return [13.0, 13.0 * share, trumps[0] + trumps[2] - trumps[1] - trumps[3],
            1.0 if leader % 2 == 0 else -1.0, shorts[0] + shorts[2] - shorts[1] - shorts[3],
            max(trumps[0], trumps[2]) - max(trumps[1], trumps[3])]


def questions(guess, value):
    return 2 + np.maximum(0, value - guess) + np.maximum(0, guess - value - 1)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=99)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    deals = random_deals(rng, args.deals)
    leaders = rng.integers(0, 4, args.deals)
    values = dd.solve_deals(preset("classic"), deals, leaders)[:, 0]
    x = np.array([features(deals[i], leaders[i]) for i in range(args.deals)])
    fit = np.arange(args.deals) < 2 * args.deals // 3
    weights, *_ = np.linalg.lstsq(x[fit], values[fit], rcond=None)
    for name, weight in zip(NAMES, weights):
        print(f"{name:32s} {weight:+.4f}")
    held_out = ~fit
    estimate = x @ weights
    share = np.floor(x[:, 1] + 0.5)
    guess = np.clip(np.floor(estimate + 1.0), 0, 13)
    miss = np.abs(estimate - values)[held_out].mean()
    share_miss = np.abs(share - values)[held_out].mean()
    asked = questions(guess, values)[held_out].mean()
    share_asked = questions(share, values)[held_out].mean()
    print(f"held out ({held_out.sum()} deals): mean miss {miss:.2f} tricks (points share alone "
          f"{share_miss:.2f}); questions {asked:.2f} (points share alone {share_asked:.2f})")


if __name__ == "__main__":
    main()
