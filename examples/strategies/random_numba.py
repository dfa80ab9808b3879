"""The built-in ``random`` strategy's bids and cards as a numba plug-in.

Drawn through ``bounded(rng, n)`` from the hand's play stream exactly as the built-in draws, so
wherever the rules offer no blind bids, bumps, exchanges or draw-deal choices (those a numba
plug-in leaves to the default heuristic) it reproduces ``--strategy random`` hand for hand, at
engine speed:

    spades-sim simulate --hands 1000000 --rule blind_nil=false \\
        --strategy examples/strategies/random_numba.py:RandomNumba
"""

from numba import njit

from spades_sim.core import view as v
from spades_sim.engine.plugin import bounded, nth_card, popcount


@njit(cache=True)
def bid(view, params, rng):
    """A legal bid in bid_min..bid_max (params 0 and 1), any legal bid when none is there."""
    legal = view[v.V_LEGAL]
    low, high = int(params[0]), int(params[1])
    window = legal & (((1 << (high + 1)) - 1) & ~((1 << low) - 1))
    options = window if window else legal
    return nth_card(options, bounded(rng, popcount(options)))


@njit(cache=True)
def play(view, params, rng):
    """A legal card, uniformly."""
    legal = view[v.V_LEGAL]
    return nth_card(legal, bounded(rng, popcount(legal)))


class RandomNumba:
    params = {"bid_min": 1.0, "bid_max": 4.0}
    bid = bid
    play = play
